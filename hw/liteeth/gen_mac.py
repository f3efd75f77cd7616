#!/usr/bin/env python3
#
# Triggerfish: raw-stream LiteEth MAC/PHY generator.
#
# Builds a LiteEth PHY plus the LiteEth MAC datapath blocks (preamble insert/check, CRC32
# insert/check, TX padding, TX inter-frame gap) on an 8-bit datapath, kept entirely in the PHY
# clock domains (eth_rx, eth_tx): no async FIFO to a sys domain, no width converter, no CSRs,
# no wishbone, no MDIO. Output: one Verilog file that SpinalHDL instantiates as a BlackBox.
#
# Usage:
#   gen_mac.py --phy {gmii,rgmii_ecp5,rgmii_s7,mii,rmii} --out DIR [--name NAME] [--no-crc-buffers] [--no-crc-fix]
#              [--tx-delay NS] [--rx-delay NS] [--fast-crc-check] [--no-tx-skid] [--no-tx-crc-buffer] [--tx-poison]
#              [--rx-raw]
#   --no-crc-buffers  drop LiteEthMACCore's pipeline buffers before the CRC checker/inserter (-1 cycle each way)
#   --no-crc-fix      stock liteeth 2024.12 RX behaviour (bad FCS never flagged); for the test only
#   --tx-delay NS     RGMII only: delay of TXC against TX_CTL/TXD added by the FPGA (default 2.0; 0 when the
#                     PHY adds its own TX clock delay, as the Colorlight boards' PHYs do)
#   --rx-delay NS     RGMII only: delay the FPGA adds to RX_CTL/RXD against RXC (default 2.0)
#   --fast-crc-check  RX FCS verdict from precomputed registers: same behaviour and latency, shorter eth_rx
#                     timing path (see FastCRC32Checker); the board builds use it
#   --no-tx-skid      no skid register at the TX input (tx_ready combinational through the TX pipeline)
#   --tx-poison       one more input, tx_poison (below): a frame sent with a bad FCS on request, no added latency
#   --rx-raw          three more outputs, rx_raw_* (below): the received bytes before the CRC checker's hold-back
# writes DIR/<NAME>.v (default NAME: liteeth_mac_<phy>) and DIR/<NAME>.ports.txt
# (one port per line: direction width name).
#
# Built from liteeth==2024.12 / litex==2024.12 / migen==0.10.0 (BSD-2-Clause) blocks.
# Exported through a LiteX platform's get_verilog() so that LiteX "specials" (DDR/SDR I/O,
# AsyncResetSynchronizer) are lowered to the right vendor cells:
#   gmii       -> litex.build.sim.SimPlatform        (no vendor cells at all; simulation build)
#   rgmii_ecp5 -> LatticePlatform(LFE5U-25F, trellis) (ODDRX1F, IDDRX1F, DELAYG, FD1S3BX)
#   rgmii_s7   -> XilinxPlatform(xc7z020, openxc7)   (ODDR, IDDR, IDELAYE2, IBUF, OBUF, FDPE)
#   mii        -> XilinxPlatform(xc7z020, openxc7)   (FDPE)
#   rmii       -> XilinxPlatform(xc7z020, openxc7)   (ODDR, IDDR, FDPE)
#
# ------------------------------------------------------------------------------------------------
# PORT LIST (stable; all single-bit unless a width is given)
# ------------------------------------------------------------------------------------------------
# Common to every variant:
#   input         rst          SoC reset, active high, asynchronous. eth_rx_rst / eth_tx_rst follow it
#                              (vendor variants: asserted asynchronously, released 2 edges
#                              after rst falls on the domain's own clock; gmii/sim: 2-flop sync).
#   output        eth_rx_clk   clock of the RX stream (the eth_rx domain); same net as the PHY RX clock input
#   output        eth_rx_rst   synchronous reset of eth_rx, active high
#   output        eth_tx_clk   clock of the TX stream (the eth_tx domain)
#   output        eth_tx_rst   synchronous reset of eth_tx, active high
#   -- RX stream, eth_rx domain, source, NO backpressure (the consumer takes every beat) --
#   output        rx_valid
#   output [7:0]  rx_data      frame from the first destination-MAC byte; FCS stripped
#   output        rx_last      last byte of the frame (the byte before the FCS)
#   output        rx_error     valid with rx_valid & rx_last: 1 = bad FCS (CRC32 mismatch). Always 0 on
#                              other beats. The core does NOT drop bad frames: the SoC must.
#   output        rx_sof       one-cycle pulse when the first byte after the SFD is on the PHY's source
#                              stream (before the CRC checker's 4-byte hold-back); for latency probes.
#   -- TX stream, eth_tx domain, sink --
#   input         tx_valid     once a frame has started, hold valid every cycle until last is accepted:
#   input  [7:0]  tx_data      the core has no frame buffer, a bubble mid-frame corrupts the frame on
#   input         tx_last      the wire. Frames are sent without preamble/FCS: the core adds preamble,
#   output        tx_ready     SFD, zero padding to 60 bytes, FCS, and >= 12 byte-times of gap.
#                              tx_ready is low during preamble and gap (and every other cycle for MII).
#                              No last_be: 8-bit datapath, every beat carries one byte.
# With --tx-poison only (after tx_ready):
#   input         tx_poison    read with a frame's last byte (tx_valid && tx_ready && tx_last): 1 = send that frame
#                              poisoned: its last FCS byte inverted (all 8 bits), so that every receiver drops it.
#                              Nothing else changes (bytes, padding, timing); no cycle is added.
# With --rx-raw only (after those):
#   output        rx_raw_valid the preamble checker's output, eth_rx, no backpressure: the frame's bytes from the first
#   output [7:0]  rx_raw_data  destination-MAC byte to the last FCS byte (rx_raw_last), 5 cycles ahead of rx_data (the
#   output        rx_raw_last  buffer in front of the CRC checker, 1, and its 4-byte hold-back). No verdict: the FCS's
#                              verdict is rx_error with the frame's rx_last, which follows rx_raw_last. For a consumer
#                              that knows where the frame's data ends (the offload's EthRxLeanTap: the IPv4 length).
# Variant gmii (simulation build; 125 MHz, 1000 Mb/s only):
#   input         gmii_rx_clk       PHY RX_CLK -> eth_rx clock
#   input         gmii_rx_dv
#   input  [7:0]  gmii_rx_data      (RX_ER is not used by LiteEth; a corrupted frame fails the FCS)
#   input         gmii_gtx_clk      125 MHz from the SoC's clock generator -> eth_tx clock. The SoC top
#                                   also forwards it to the PHY's GTX_CLK pin (on a board: via an ODDR).
#   output        gmii_tx_en        registered on eth_tx
#   output [7:0]  gmii_tx_data      registered on eth_tx (TX_ER: tie 0 in the top)
# Variant rgmii_ecp5 (Lattice ECP5, 1000 Mb/s):
#   input         rgmii_rx_clk      PHY RXC (125 MHz) -> eth_rx clock
#   input         rgmii_rx_ctl      via DELAYG (2 ns) + IDDRX1F
#   input  [3:0]  rgmii_rx_data     via DELAYG (2 ns) + IDDRX1F
#   input         rgmii_gtx_clk     125 MHz from the SoC PLL -> eth_tx clock
#   output        rgmii_tx_clk      TXC pin: rgmii_gtx_clk forwarded by ODDRX1F + DELAYG (--tx-delay, 2 ns)
#   output        rgmii_tx_ctl      ODDRX1F + DELAYG(0)
#   output [3:0]  rgmii_tx_data     ODDRX1F + DELAYG(0)
#   (RX delays: --rx-delay, 2 ns by default.)
# Variant rgmii_s7 (Xilinx 7-series / Zynq-7000 PL, 1000 Mb/s):
#   input         rgmii_rx_clk      PHY RXC (125 MHz) -> eth_rx clock (synthesis puts it on a BUFG)
#   input         rgmii_rx_ctl      IBUF + IDELAYE2 (FIXED, --rx-delay, 200 MHz reference) + IDDR
#   input  [3:0]  rgmii_rx_data     IBUF + IDELAYE2 + IDDR. The design needs an IDELAYCTRL (in the top).
#   input         rgmii_gtx_clk     125 MHz from the top's MMCM/PLL -> eth_tx clock
#   input         rgmii_txc_clk     125 MHz, the clock forwarded to TXC: rgmii_gtx_clk shifted by the TX delay
#                                   (2 ns = 90 degrees) in the MMCM, or rgmii_gtx_clk itself if the PHY delays TXC
#   output        rgmii_tx_clk      TXC pin: rgmii_txc_clk forwarded by an ODDR
#   output        rgmii_tx_ctl      ODDR + OBUF
#   output [3:0]  rgmii_tx_data     ODDR + OBUF
# Variant mii (Zynq-7000 PL, 100/10 Mb/s; eth clocks are 25 / 2.5 MHz, 4-bit nibbles):
#   input         mii_rx_clk        PHY RX_CLK -> eth_rx clock
#   input         mii_rx_dv
#   input  [3:0]  mii_rx_data
#   input         mii_tx_clk        PHY TX_CLK (an input in MII) -> eth_tx clock
#   output        mii_tx_en
#   output [3:0]  mii_tx_data
#   (tx_ready is high every other eth_tx cycle: one byte per two nibbles; rx_valid likewise.)
# Variant rmii (Zynq-7000 PL, 100/10 Mb/s; one 50 MHz clock, 2-bit dibits):
#   input         rmii_ref_clk      50 MHz REF_CLK (board oscillator or PHY) -> eth_rx AND eth_tx clocks.
#                                   If the FPGA must generate REF_CLK, the SoC top does it (not this core).
#   input         rmii_crs_dv       via IDDR (SDR input register)
#   input  [1:0]  rmii_rx_data      via IDDR
#   output        rmii_tx_en        via ODDR (SDR output register)
#   output [1:0]  rmii_tx_data      via ODDR
#   input         rmii_speed        1 = 100 Mb/s, 0 = 10 Mb/s (from the PHY's MDIO status, any domain;
#                                   resynchronised inside). Quasi-static: change it only between frames.
# MDIO/MDC and PHY reset pins are NOT part of any variant: the SoC drives them from SpinalHDL.
# ------------------------------------------------------------------------------------------------

import argparse
import os
import re
import sys
from types import SimpleNamespace

from migen import *
from migen.genlib.cdc import MultiReg
from migen.genlib.resetsync import AsyncResetSynchronizer
from migen.genlib.fifo import SyncFIFO

from litex.gen import LiteXModule
from litex.soc.interconnect import stream
from litex.soc.interconnect.stream import BufferizeEndpoints, DIR_SINK

from liteeth.common import eth_phy_description, eth_min_frame_length, eth_fcs_length
from liteeth.mac import preamble, crc, padding, gap
from liteeth.phy.gmii import LiteEthPHYGMIITX, LiteEthPHYGMIIRX
from liteeth.phy.mii import LiteEthPHYMIITX, LiteEthPHYMIIRX
from liteeth.phy.rmii import LiteEthPHYRMIITX, LiteEthPHYRMIIRX
from liteeth.phy.ecp5rgmii import LiteEthPHYRGMIITX, LiteEthPHYRGMIIRX
from liteeth.phy import s7rgmii
from litex.build.io import DDROutput

PHYS = ["gmii", "rgmii_ecp5", "rgmii_s7", "mii", "rmii"]


class RawMAC(LiteXModule):
    """LiteEth PHY + MAC blocks (8-bit) with raw streams in eth_rx / eth_tx."""

    def __init__(self, phy, crc_fix=True, rx_crc_buffer=True, tx_crc_buffer=True, tx_delay=2e-9, rx_delay=2e-9,
                 fast_crc_check=False, tx_skid=True, tx_poison=False,
                 rx_raw=False):
        self.ios = ios = []

        def port(name, width=1):
            s = Signal(width, name=name)
            ios.append(s)
            return s

        # Common ports ---------------------------------------------------------------------------
        rst        = port("rst")
        eth_rx_clk = port("eth_rx_clk")
        eth_rx_rst = port("eth_rx_rst")
        eth_tx_clk = port("eth_tx_clk")
        eth_tx_rst = port("eth_tx_rst")
        rx_valid   = port("rx_valid")
        rx_data    = port("rx_data", 8)
        rx_last    = port("rx_last")
        rx_error   = port("rx_error")
        rx_sof     = port("rx_sof")
        tx_valid   = port("tx_valid")
        tx_data    = port("tx_data", 8)
        tx_last    = port("tx_last")
        tx_ready   = port("tx_ready")
        tx_poison_in = port("tx_poison") if tx_poison else None
        if rx_raw:
            rx_raw_valid, rx_raw_data, rx_raw_last = port("rx_raw_valid"), port("rx_raw_data", 8), port("rx_raw_last")

        # Clock domains (explicit) -------------------------------------------------------------
        self.cd_eth_rx = ClockDomain("eth_rx")
        self.cd_eth_tx = ClockDomain("eth_tx")

        # PHY + its clocking ---------------------------------------------------------------------
        if phy == "gmii":
            p = SimpleNamespace(
                rx_dv   = port("gmii_rx_dv"),
                rx_data = port("gmii_rx_data", 8),
                tx_en   = port("gmii_tx_en"),
                tx_data = port("gmii_tx_data", 8),
            )
            rx_clk = port("gmii_rx_clk")
            gtx    = port("gmii_gtx_clk")
            self.comb += [self.cd_eth_rx.clk.eq(rx_clk), self.cd_eth_tx.clk.eq(gtx)]
            phy_tx = LiteEthPHYGMIITX(p)
            phy_rx = LiteEthPHYGMIIRX(p)
        elif phy == "rgmii_ecp5":
            p = SimpleNamespace(
                rx_ctl  = port("rgmii_rx_ctl"),
                rx_data = port("rgmii_rx_data", 4),
                tx_ctl  = port("rgmii_tx_ctl"),
                tx_data = port("rgmii_tx_data", 4),
            )
            rx_clk = port("rgmii_rx_clk")
            gtx    = port("rgmii_gtx_clk")
            txc    = port("rgmii_tx_clk")
            self.comb += [self.cd_eth_rx.clk.eq(rx_clk), self.cd_eth_tx.clk.eq(gtx)]
            # TX clock forwarding, as LiteEthPHYRGMIICRG does it (tx_delay, 25 ps per DELAYG tap).
            txc_oddr = Signal()
            self.specials += [
                DDROutput(clk=ClockSignal("eth_tx"), i1=1, i2=0, o=txc_oddr),
                Instance("DELAYG", p_DEL_MODE="SCLK_ALIGNED", p_DEL_VALUE=int(round(tx_delay/25e-12)),
                    i_A=txc_oddr, o_Z=txc),
            ]
            phy_tx = LiteEthPHYRGMIITX(p)
            # In-band status would need CSRs (and a sys domain): left out.
            phy_rx = LiteEthPHYRGMIIRX(p, rx_delay=rx_delay, with_inband_status=False)
        elif phy == "rgmii_s7":
            p = SimpleNamespace(
                rx_ctl  = port("rgmii_rx_ctl"),
                rx_data = port("rgmii_rx_data", 4),
                tx_ctl  = port("rgmii_tx_ctl"),
                tx_data = port("rgmii_tx_data", 4),
            )
            rx_clk = port("rgmii_rx_clk")
            gtx    = port("rgmii_gtx_clk")
            txc_in = port("rgmii_txc_clk")
            txc    = port("rgmii_tx_clk")
            self.comb += [self.cd_eth_rx.clk.eq(rx_clk), self.cd_eth_tx.clk.eq(gtx)]
            # TX clock forwarding as LiteEth's S7 CRG does it: an ODDR clocked by the (phase-shifted) clock.
            # The shift itself (tx_delay) is the MMCM's job in the top: the core only forwards rgmii_txc_clk.
            self.cd_eth_txc = ClockDomain("eth_txc", reset_less=True)
            self.comb += self.cd_eth_txc.clk.eq(txc_in)
            self.specials += DDROutput(clk=ClockSignal("eth_txc"), i1=1, i2=0, o=txc)
            phy_tx = s7rgmii.LiteEthPHYRGMIITX(p)
            phy_rx = s7rgmii.LiteEthPHYRGMIIRX(p, rx_delay=rx_delay)
        elif phy == "mii":
            p = SimpleNamespace(
                rx_dv   = port("mii_rx_dv"),
                rx_data = port("mii_rx_data", 4),
                tx_en   = port("mii_tx_en"),
                tx_data = port("mii_tx_data", 4),
            )
            rx_clk = port("mii_rx_clk")
            tx_clk = port("mii_tx_clk")
            self.comb += [self.cd_eth_rx.clk.eq(rx_clk), self.cd_eth_tx.clk.eq(tx_clk)]
            phy_tx = LiteEthPHYMIITX(p)
            phy_rx = LiteEthPHYMIIRX(p)
        elif phy == "rmii":
            p = SimpleNamespace(
                crs_dv  = port("rmii_crs_dv"),
                rx_data = port("rmii_rx_data", 2),
                tx_en   = port("rmii_tx_en"),
                tx_data = port("rmii_tx_data", 2),
            )
            ref_clk = port("rmii_ref_clk")
            speed   = port("rmii_speed")
            self.comb += [self.cd_eth_rx.clk.eq(ref_clk), self.cd_eth_tx.clk.eq(ref_clk)]
            phy_tx = LiteEthPHYRMIITX(p, ClockSignal("eth_tx"))
            phy_rx = LiteEthPHYRMIIRX(p, ClockSignal("eth_rx"))
            # LiteEthPHYRMII takes speed from a CSR through a MultiReg into "sys": we take a port
            # and resynchronise it into each Ethernet domain instead.
            self.specials += [
                MultiReg(speed, phy_tx.speed, odomain="eth_tx", n=2, reset=1),
                MultiReg(speed, phy_rx.speed, odomain="eth_rx", n=2, reset=1),
            ]
        else:
            raise ValueError(phy)

        self.comb += [
            eth_rx_clk.eq(ClockSignal("eth_rx")),
            eth_tx_clk.eq(ClockSignal("eth_tx")),
            eth_rx_rst.eq(ResetSignal("eth_rx")),
            eth_tx_rst.eq(ResetSignal("eth_tx")),
        ]
        # Resets follow the SoC reset (LiteEth's CRGs use a CSR + LiteEthPHYHWReset timer in "sys"
        # instead; we have no sys domain in this core).
        self.specials += [
            AsyncResetSynchronizer(self.cd_eth_rx, rst),
            AsyncResetSynchronizer(self.cd_eth_tx, rst),
        ]

        self.phy_tx = ClockDomainsRenamer("eth_tx")(phy_tx)
        self.phy_rx = ClockDomainsRenamer("eth_rx")(phy_rx)

        # RX datapath: PHY -> preamble checker -> CRC32 checker -> source ------------------------
        # (LiteEthMACCore with dw=8 and no sys datapath: RX padding checker is a pass-through and
        # is omitted; no last_be module; no CDC.)
        rx_src = self.phy_rx.source
        if crc_fix:
            # LITEETH 2024.12 CRC BUG (8-bit PHYs): LiteEthMACCRC32 only drives `error` for the byte
            # lanes enabled by `be`, and the checker sets `be` from sink.last_be. 8-bit PHYs (GMII,
            # MII, RMII, RGMII) drive `last` but never `last_be`, and LiteEthMACCore inserts its
            # LiteEthMACRXLastBE (which sets last_be = last for dw=8) only when core_dw != 8, and then
            # *after* the CRC checker. So with an 8-bit core the checker's error is constantly 0 and
            # bad frames pass as good. Fix: drive last_be from last on the PHY source, before the
            # preamble checker (which passes last_be through unchanged) and the CRC checker.
            rx_fixed = stream.Endpoint(eth_phy_description(8))
            self.comb += [
                rx_src.connect(rx_fixed),
                rx_fixed.last_be.eq(rx_src.last),
            ]
            rx_src = rx_fixed
        self.rx_preamble = ClockDomainsRenamer("eth_rx")(preamble.LiteEthMACPreambleChecker(8))
        if fast_crc_check:
            assert rx_crc_buffer, "--fast-crc-check needs the buffer in front of the CRC checker"
            rx_crc = FastCRC32Checker()
        else:
            rx_crc = crc.LiteEthMACCRC32Checker(eth_phy_description(8))
            if rx_crc_buffer:  # as in LiteEthMACCore ("FIXME: Still required?"): +1 cycle of RX latency
                rx_crc = BufferizeEndpoints({"sink": DIR_SINK})(rx_crc)
        self.rx_crc = ClockDomainsRenamer("eth_rx")(rx_crc)
        self.comb += [
            rx_src.connect(self.rx_preamble.sink),
            self.rx_preamble.source.connect(self.rx_crc.sink),
            rx_valid.eq(self.rx_crc.source.valid),
            rx_data.eq(self.rx_crc.source.data),
            rx_last.eq(self.rx_crc.source.last),
            rx_error.eq(self.rx_crc.source.error[0] & self.rx_crc.source.last),
            self.rx_crc.source.ready.eq(1),  # no backpressure (PHY ignores ready anyway)
        ]
        # rx_sof: first beat out of the preamble checker = first byte after SFD on the PHY side.
        pre_src = self.rx_preamble.source
        rx_first = Signal(reset=1)
        self.sync.eth_rx += If(pre_src.valid & pre_src.ready, rx_first.eq(pre_src.last))
        self.comb += rx_sof.eq(pre_src.valid & pre_src.ready & rx_first)
        if rx_raw:  # the same beats, before the CRC checker's buffer and hold-back (a tap: nothing else changes)
            self.comb += [rx_raw_valid.eq(pre_src.valid & pre_src.ready), rx_raw_data.eq(pre_src.data),
                          rx_raw_last.eq(pre_src.last)]

        # TX datapath: sink -> padding -> CRC32 inserter -> preamble inserter -> gap -> PHY ------
        tx_sink = stream.Endpoint(eth_phy_description(8))
        self.comb += [
            tx_sink.valid.eq(tx_valid),
            tx_sink.data.eq(tx_data),
            tx_sink.last.eq(tx_last),
            # The CRC32 inserter has the same `be` dependency: with last_be = 0 on the last beat its
            # crc.value is 0 and the FCS goes out as 00 00 00 00 (except for frames the padding
            # inserter extends, which sets last_be itself). For an 8-bit datapath last_be = last.
            tx_sink.last_be.eq(tx_last),
            tx_ready.eq(tx_sink.ready),
        ]
        # A skid register at the input (LiteX stream.PipeReady): tx_ready is a flip-flop's output instead of a
        # function of the preamble inserter's and the PHY's state through the whole pipeline. No latency (a byte
        # passes straight through while the register is empty). Without it, that combinational tx_ready, routed
        # from the PHY's corner of the chip to the SoC's transmit arbiter, was eth_tx's critical path on both
        # Colorlights (5A-75B: 8.00 ns at 8.00 ns, zero slack, nextpnr seed 2).
        if tx_skid:
            self.tx_skid = ClockDomainsRenamer("eth_tx")(stream.PipeReady(eth_phy_description(8)))
        # Without the buffer the padding inserter's "60 bytes yet?" compare (a 16-bit counter through a carry chain,
        # then its state) ran into the CRC inserter's registers: the 5A-75B's eth_tx critical path (124.83 MHz). So
        # the buffer-less assembly takes the inserter whose compare is a register (RegisteredPaddingInserter).
        self.tx_padding = ClockDomainsRenamer("eth_tx")(
            padding.LiteEthMACPaddingInserter(8, eth_min_frame_length - eth_fcs_length) if tx_crc_buffer
            else RegisteredPaddingInserter(eth_min_frame_length - eth_fcs_length))
        tx_crc = crc.LiteEthMACCRC32Inserter(eth_phy_description(8))
        if tx_crc_buffer:  # as in LiteEthMACCore ("FIXME: Still required?"): +1 cycle of TX latency
            tx_crc = BufferizeEndpoints({"sink": DIR_SINK})(tx_crc)
        self.tx_crc = ClockDomainsRenamer("eth_tx")(tx_crc)
        self.tx_preamble = ClockDomainsRenamer("eth_tx")(preamble.LiteEthMACPreambleInserter(8))
        self.tx_gap = ClockDomainsRenamer("eth_tx")(gap.LiteEthMACGap(8))
        self.comb += [
            *([tx_sink.connect(self.tx_skid.sink), self.tx_skid.source.connect(self.tx_padding.sink)] if tx_skid
              else [tx_sink.connect(self.tx_padding.sink)]),
            self.tx_padding.source.connect(self.tx_crc.sink),
            *([] if tx_poison else [self.tx_crc.source.connect(self.tx_preamble.sink)]),
            self.tx_preamble.source.connect(self.tx_gap.sink),
            self.tx_gap.source.connect(self.phy_tx.sink),
        ]
        # Poison (--tx-poison): the flag taken with each frame's last byte at the input waits in a FIFO (in order; at most
        # two frames are between the input and the CRC inserter's output: one in the pipeline, one in the skid register)
        # and inverts the last FCS byte, the CRC inserter's last beat, on its way into the preamble inserter: an XOR on
        # the data, no register added.
        if tx_poison:
            self.tx_poison_fifo = fifo = ClockDomainsRenamer("eth_tx")(SyncFIFO(1, 4))
            crc_src = self.tx_crc.source
            self.comb += [
                fifo.we.eq(tx_valid & tx_sink.ready & tx_last),
                fifo.din.eq(tx_poison_in),
                fifo.re.eq(crc_src.valid & crc_src.ready & crc_src.last),
                crc_src.connect(self.tx_preamble.sink, omit={"data"}),
                self.tx_preamble.sink.data.eq(crc_src.data ^ Replicate(fifo.readable & fifo.dout & crc_src.last, 8)),
            ]


def _crc32_step(c, d):
    """One byte through LiteEthMACCRCEngine's LFSR (IEEE 802.3 polynomial, data bit 0 first)."""
    for n in range(8):
        fb = ((c >> 31) & 1) ^ ((d >> n) & 1)
        c = (c << 1) & 0xFFFFFFFF
        if fb:
            c ^= crc.LiteEthMACCRC32.polynom
    return c


class RegisteredPaddingInserter(LiteXModule):
    """Frames shorter than `padding` bytes extended with zero bytes, for an 8-bit stream whose last_be follows last
    (as RawMAC drives it): LiteEthMACPaddingInserter's behaviour, cycle for cycle, for that stream. Pass-through while
    the frame lasts; a last byte before the `padding`-th is sent without `last`, then zero bytes follow until the
    `padding`-th, which carries it. The difference is inside: the bytes passed are counted only up to padding - 1
    (they are compared with nothing else), and "at least padding - 1 passed" is a register (`done`), set by the step
    that reaches it, so nothing downstream sees an adder or a compare. test/run.sh checks the SoC's assembly (which
    has this inserter) against the stock one: every TX frame decoded, padded to 60 and with its FCS, the same line rate.
    """
    def __init__(self, padding):
        self.sink = sink = stream.Endpoint(eth_phy_description(8))
        self.source = source = stream.Endpoint(eth_phy_description(8))
        limit = padding - 1
        count = Signal(max=limit + 1)   # bytes of the frame passed so far, held at `limit`
        done = Signal()                 # count == limit
        step = [If(~done, NextValue(count, count + 1), NextValue(done, count == limit - 1))]
        restart = [NextValue(count, 0), NextValue(done, 0)]
        self.fsm = fsm = FSM(reset_state="IDLE")
        fsm.act("IDLE",
            sink.connect(source),
            If(source.valid & source.ready,
                *step,
                If(sink.last,
                    If(~done,
                        source.last.eq(0),
                        source.last_be.eq(0),
                        NextState("PADDING"),
                    ).Else(*restart),
                ),
            ),
        )
        fsm.act("PADDING",
            source.valid.eq(1),
            source.data.eq(0),
            If(done, source.last.eq(1), source.last_be.eq(1)),
            If(source.valid & source.ready,
                *step,
                If(done, *restart, NextState("IDLE")),
            ),
        )


class FastCRC32Checker(LiteXModule):
    """The buffered LiteEthMACCRC32Checker of LiteEthMACCore (8-bit: BufferizeEndpoints' PipeValid in front
    of the checker), cycle for cycle, with the FCS verdict computed from registers (--fast-crc-check).

    The stock checker decides `error` on the last beat as crc_next(reg, data) != 0xC704DD7B: an XOR tree over
    the CRC register and the byte, a 32-bit compare, then the last/error gating and whatever registers the
    beat downstream, all in one eth_rx cycle (about 8 LUT levels: on ECP5-6 it misses 125 MHz on many
    placements). The CRC step is linear: crc_next = A.reg ^ B.data. This checker keeps two more registers:
      q = A.reg ^ check   updated with reg (reset: A.init ^ check; on ce: A.crc_next ^ check)
      d = B.data           for the byte in the buffer, loaded together with the buffer from its input
    so that crc_next != check  <=>  (q ^ d) != 0: one XOR per bit and an OR reduction after the registers.
    FIFO, FSM, valid/ready/last/error behaviour and latency are the stock checker's (hw/liteeth/test/run.sh
    runs the same testbench on it)."""

    def __init__(self):
        desc = eth_phy_description(8)
        self.sink = stream.Endpoint(desc)      # in front of the buffer, as BufferizeEndpoints exposes it
        self.source = source = stream.Endpoint(desc)

        # Buffer (BufferizeEndpoints({"sink": DIR_SINK}) uses a PipeValid).
        self.buf = buf = stream.PipeValid(desc)
        self.comb += self.sink.connect(buf.sink)
        sink = buf.source
        buf_load = Signal()
        self.comb += buf_load.eq(~buf.source.valid | buf.source.ready)

        poly, init, check = crc.LiteEthMACCRC32.polynom, crc.LiteEthMACCRC32.init, crc.LiteEthMACCRC32.check
        crc_reset, crc_ce = Signal(), Signal()

        # CRC register, as LiteEthMACCRC32 (ResetInserter over CEInserter: reset wins).
        reg = Signal(32, reset=init)
        self.eng = eng = crc.LiteEthMACCRCEngine(8, 32, poly)       # A.reg ^ B.data
        self.comb += [eng.data.eq(sink.data), eng.crc_prev.eq(reg)]
        self.sync += If(crc_reset, reg.eq(init)).Elif(crc_ce, reg.eq(eng.crc_next))

        # q = A.reg ^ check, kept in step with reg.
        q = Signal(32, reset=_crc32_step(init, 0) ^ check)
        self.eng_q = eng_q = crc.LiteEthMACCRCEngine(8, 32, poly)   # A.(crc_next)
        self.comb += [eng_q.data.eq(0), eng_q.crc_prev.eq(eng.crc_next)]
        self.sync += If(crc_reset, q.eq(_crc32_step(init, 0) ^ check)).Elif(crc_ce, q.eq(eng_q.crc_next ^ check))

        # d = B.data of the buffered byte, loaded with the buffer.
        d = Signal(32)
        self.eng_d = eng_d = crc.LiteEthMACCRCEngine(8, 32, poly)   # B.(buffer input)
        self.comb += [eng_d.data.eq(self.sink.data), eng_d.crc_prev.eq(0)]
        self.sync += If(buf_load, d.eq(eng_d.crc_next))

        crc_error = Signal()
        self.comb += crc_error.eq(sink.last_be[0] & ((q ^ d) != 0))

        # From here on: LiteEthMACCRC32Checker (data_width 8).
        ratio = 4
        self.fifo = fifo = ResetInserter()(stream.SyncFIFO(desc, ratio + 1))
        fifo_in, fifo_out, fifo_full = Signal(), Signal(), Signal()
        self.comb += [
            fifo_full.eq(fifo.level == ratio),
            fifo_in.eq(sink.valid & (~fifo_full | fifo_out)),
            fifo_out.eq(source.valid & source.ready),
            sink.connect(fifo.sink),
            fifo.sink.valid.eq(fifo_in),
            sink.ready.eq(fifo_in),
            fifo.source.connect(source, omit={"valid", "ready", "last", "last_be"}),
        ]
        self.fsm = fsm = FSM(reset_state="RESET")
        fsm.act("RESET",
            crc_reset.eq(1),
            fifo.reset.eq(1),
            NextState("IDLE"),
        )
        fsm.act("IDLE",
            If(sink.valid & sink.ready,
                crc_ce.eq(1),
                NextState("COPY"),
            )
        )
        fsm.act("COPY",
            fifo.source.ready.eq(fifo_out),
            source.valid.eq(sink.valid & fifo_full),
            source.last.eq(sink.last),
            source.last_be.eq(sink.last_be),
            source.error.eq(sink.error | (crc_error & sink.last)),
            If(sink.valid & sink.ready,
                crc_ce.eq(1),
                If(sink.last,
                    NextState("RESET"),
                )
            )
        )


class _SimResetSyncImpl(Module):
    """Reset synchronizer for the simulation (gmii) build: 2 flops on the target clock, assert on
    the next edge, release 2 edges after `async_reset` falls.

    Replaces LiteX's SimAsyncResetSynchronizer: that one names its helper clock domain "resync" in
    every instance and litex 2024.12's Verilog backend merges equally named domains, so the eth_tx
    reset ended up synchronised to the eth_rx clock. Here each helper domain gets a unique name."""
    def __init__(self, cd, async_reset):
        helper = ClockDomain(cd.name + "_rsync", reset_less=True)
        self.clock_domains += helper
        r1 = Signal(reset=1, reset_less=True)
        self.comb += helper.clk.eq(cd.clk)
        getattr(self.sync, helper.name).__iadd__([
            r1.eq(async_reset),
            cd.rst.eq(async_reset | r1),
        ])


class _SimResetSync:
    @staticmethod
    def lower(dr):
        return _SimResetSyncImpl(dr.cd, dr.async_reset)


def make_platform(phy):
    if phy == "gmii":
        from litex.build.sim import SimPlatform
        return SimPlatform("SIM", [])
    if phy == "rgmii_ecp5":
        from litex.build.lattice import LatticePlatform
        return LatticePlatform("LFE5U-25F-6BG381C", [], toolchain="trellis")
    from litex.build.xilinx import XilinxPlatform
    return XilinxPlatform("xc7z020clg400-1", [], toolchain="openxc7")


def main():
    ap = argparse.ArgumentParser(description="Generate a raw-stream LiteEth PHY+MAC (8-bit, eth clock domains).")
    ap.add_argument("--phy", required=True, choices=PHYS)
    ap.add_argument("--out", required=True, help="output directory")
    ap.add_argument("--name", default=None, help="Verilog module/file name (default liteeth_mac_<phy>)")
    ap.add_argument("--no-crc-fix", action="store_true",
        help="reproduce stock liteeth 2024.12 RX behaviour (CRC errors never flagged); tests only")
    ap.add_argument("--tx-delay", type=float, default=2.0,
        help="RGMII: TXC delay added by the FPGA, ns (rgmii_ecp5: DELAYG; rgmii_s7: documents the MMCM shift the "
             "top must apply to rgmii_txc_clk). 0 when the PHY delays TXC itself. Default 2.0")
    ap.add_argument("--rx-delay", type=float, default=2.0,
        help="RGMII: delay the FPGA adds to RX_CTL/RXD, ns (DELAYG / IDELAYE2). Default 2.0")
    ap.add_argument("--fast-crc-check", action="store_true",
        help="RX FCS verdict from precomputed registers (same behaviour and latency as the stock buffered "
             "checker, shorter eth_rx timing path; boards use it to meet 125 MHz on ECP5)")
    ap.add_argument("--no-crc-buffers", action="store_true",
        help="omit the pipeline buffer LiteEthMACCore puts in front of the CRC checker and the CRC "
             "inserter (saves 1 cycle RX and 1 cycle TX; longer combinational ready/valid paths)")
    ap.add_argument("--no-tx-crc-buffer", action="store_true",
        help="omit only the TX one of those buffers (the one in front of the CRC inserter): 1 cycle less from "
             "tx_valid to TX_EN; the RX checker keeps its buffer (--fast-crc-check needs it)")
    ap.add_argument("--tx-poison", action="store_true",
        help="one more input, tx_poison, read with a frame's last byte: 1 sends that frame with its last FCS byte "
             "inverted (every receiver drops it); no added latency. For the order engine's early fires")
    ap.add_argument("--rx-raw", action="store_true",
        help="three more outputs, rx_raw_valid/_data/_last: the received bytes before the CRC checker's buffer and "
             "4-byte hold-back (FCS included, no verdict), 5 cycles ahead of rx_data. For the offload's lean tap")
    ap.add_argument("--no-tx-skid", action="store_true",
        help="omit the skid register at the TX input (tx_ready then combinational through the TX pipeline); "
             "for comparison only")
    args = ap.parse_args()

    name = args.name or f"liteeth_mac_{args.phy}"
    os.makedirs(args.out, exist_ok=True)
    platform = make_platform(args.phy)
    top = RawMAC(args.phy, crc_fix=not args.no_crc_fix, rx_crc_buffer=not args.no_crc_buffers,
                 tx_crc_buffer=not (args.no_crc_buffers or args.no_tx_crc_buffer),
                 tx_delay=args.tx_delay * 1e-9, rx_delay=args.rx_delay * 1e-9,
                 fast_crc_check=args.fast_crc_check, tx_skid=not args.no_tx_skid, tx_poison=args.tx_poison,
                 rx_raw=args.rx_raw)
    so = {AsyncResetSynchronizer: _SimResetSync} if args.phy == "gmii" else {}
    conv = platform.get_verilog(top, ios=set(top.ios), name=name, special_overrides=so)
    path = os.path.join(args.out, name + ".v")
    conv.write(path)
    # Port summary (direction width name, in the documented order), e.g. for a BlackBox check.
    with open(path) as f:
        decl = {m.group(3): (m.group(1), int(m.group(2) or 0) + 1) for m in re.finditer(
            r"^\s+(input|output|inout)\s+(?:wire|reg)\s+(?:\[(\d+):0\])?\s*(\w+)", f.read(), re.M)}
    with open(os.path.join(args.out, name + ".ports.txt"), "w") as f:
        for s in top.ios:
            d, w = decl[s.name_override]  # KeyError = a port got renamed by the namespace: a bug
            assert w == len(s), s.name_override
            f.write(f"{d:6} {w} {s.name_override}\n")
    print(path)


if __name__ == "__main__":
    main()
