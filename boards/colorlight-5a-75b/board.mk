# Colorlight 5A-75B v8.0: build settings, read by tools/board.sh (make bitstream/flash BOARD=colorlight-5a-75b).
# "KEY := value" lines only. SEEDS, SYS_MHZ, NET_* and CABLE can be overridden from make's command line.
BOARD_NAME  := Colorlight 5A-75B v8.0
FAMILY      := ecp5
PART        := LFE5U-25F-6BG256C
DEVICE      := 25k
PACKAGE     := CABGA256
SPEED       := 6
LPF         := colorlight-5a-75b.lpf
# LiteEth variant; TX clock delay left to the PHY, as litex-boards' colorlight_5a_75x target does
# (tx_delay=0); the FPGA delays the received data by 2 ns.
ETH_PHY     := rgmii_ecp5
# --no-tx-crc-buffer: TX_EN a cycle sooner (EOF2SOF 12, was 13), as the simulation's MAC (hw/liteeth/README.md)
MAC_FLAGS   := --tx-delay 0 --rx-delay 2 --fast-crc-check --no-tx-crc-buffer
# sys clock from the PLL (VCO 750 MHz / 20). 50 MHz no longer fits: with the RVC CPU and the 80 KiB RAM the
# sys critical path (RAM read -> bank mux -> decompressor -> register file) reaches 44-45 MHz on ECP5-6.
# 37.5 MHz leaves about 15 % margin (41.667 MHz, the next exact setting, about 6 %;
# 40 MHz and 125 MHz have no common VCO in 400..800 MHz). The firmware's clock and time base follow it.
SYS_MHZ     := 37.5
# the stop-order offload datapath: in (16 entries, below). At hardware 8826e3dd (the netlist's version
# constant, tools/fpga-lib.sh; --placer-heap-timingweight 40): seed 1 misses eth_rx (sys 45.14, eth_tx 129.23,
# eth_rx 118.05 MHz), seed 2 meets every domain (46.33 / 134.99 / 133.82 MHz; required 37.5/125/125). On branch
# timing, with other version constants, seed 1 met with 3 to 4 MHz to spare. eth_tx's limits are the order
# engine's start into the TX arbiter's CPU-side ready and the template RAM's clock-to-out, eth_rx's the trade
# price accumulator (x10 + digit, two 48-bit carry chains). Before branch timing eth_tx missed (117.8 MHz: the
# engine's fast start through the arbiter into the MAC). OFFLOAD=no leaves it out.
OFFLOAD     := yes
# trigger table entries: 16, the issue's minimum (the simulation SoC has 64, the i5 32)
OFFLOAD_ENTRIES := 16
# Ethernet receive slots (2 KiB each, one block RAM): 4, as on the i5 (the simulation SoC has 8)
ETH_RX_SLOTS := 4
CLOCKS      := sys=clk_sys eth_tx=pll_CLKOP|clk_eth_tx|soc_1.eth_mac_eth_tx_clk eth_rx=rgmii_rx_clk|soc_1.eth_mac_eth_rx_clk
# seed 1 first: at hardware ad1e2e8 (the MAC without its TX CRC buffer, the arbiter's registered ready, the padding
# inserter's registered compare) seed 1 meets every domain (sys 45.08, eth_tx 133.83, eth_rx 134.55 MHz); without that inserter eth_tx missed (124.83).
# At hardware 396afeb (the template RAM's output register, the output byte through enables) seed 1 met
# every domain (sys 46.48, eth_tx 132.89, eth_rx 136.11 MHz); at 483000b it missed eth_tx (123.70 MHz; seed 4 120.08).
# At hardware a60d422 (the arbiter's frame ends, table programming one-hot) seed 1 met every domain (sys
# 46.88, eth_tx 134.21, eth_rx 137.40 MHz). At hardware d6d93bd (eth_rx and eth_tx paths cut, docs/DESIGN.md "Capacity of the Colorlights") seed 4
# missed eth_tx (122.62 MHz: the engine's start through the arbiter) and seed 1 met every domain (sys 47.72, eth_tx
# 134.59, eth_rx 130.23 MHz). Before that, seed 4 first: with the CPU's branch target buffer, branch in execute and early load data (hw/cpu GenCpu.scala), seed
# 1 missed eth_tx and eth_rx (117.32, 110.78 MHz), seed 2 eth_tx (124.38), seed 3 eth_rx (123.03) and seed 4 met every
# domain (sys 46.33, eth_tx 126.50, eth_rx 129.15 MHz). Before that, seed 1 first. With the skid register at LiteEth's
# TX input (hardware 747bcba): seed 2 misses eth_tx (sys 48.45, eth_tx 119.96, eth_rx 131.42 MHz), seed 1 meets every
# domain (43.83 / 131.53 / 133.30 MHz), its eth_tx limit now the order engine's byte path behind the arbiter's ready.
# Before the skid, seed 2 gave eth_tx exactly 125.00 MHz, zero slack, which nextpnr itself counts as FAIL (LiteEth's
# combinational tx_ready across the chip).
SEEDS       := 1 4 2 3
# more weight on timing in nextpnr's placer (default 10): with the 80 KiB SoC the eth_rx path from the RX
# frame buffer's slot logic into a block RAM write enable missed 125 MHz on seeds 1-4 of the 5A-75B
# (102-124 MHz); with 40, seeds 1-3 met it (126-131 MHz)
NEXTPNR_FLAGS := --placer-heap-timingweight 40
NET_MAC     := 02:54:46:00:00:75
NET_IP      := 192.168.1.51
NET_NETMASK := 255.255.255.0
NET_GATEWAY := 192.168.1.1
# the FIX exchange (the PC running tools/exchange); `fix set host`/`fix set port` change it on the console
FIX_HOST    := 192.168.1.10
FIX_PORT    := 9876
# openFPGALoader: openFPGALoader's "colorlight" board entry (5A-75B) with a JTAG cable on J27/J31/J32/J30
# (the board has no probe of its own); CABLE=ft232 by default, e.g. make flash ... CABLE=dirtyJtag
OFL_ARGS    := -b colorlight -c {CABLE}
CABLE       := ft232
OFL_SPI     := yes
