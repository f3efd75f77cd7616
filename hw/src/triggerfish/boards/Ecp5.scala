// ECP5 board tops: the Colorlight i5 and 5A-75B (v8.0). One EHXPLLL makes the sys clock and the 125 MHz
// RGMII transmit clock from the board's 25 MHz; the RGMII receive clock is the PHY's RXC.
package triggerfish.boards

import spinal.core._
import spinal.lib._
import triggerfish.soc._

/** EHXPLLL settings, feedback from CLKOP (Lattice TN1263 "ECP5 and ECP5-5G sysCLOCK PLL/DLL Design"):
  *   f_PFD  = f_CLKI / CLKI_DIV                       3.125 .. 400 MHz
  *   f_CLKOP = f_PFD * CLKFB_DIV                      (the feedback divider runs on CLKOP)
  *   f_VCO  = f_CLKOP * CLKOP_DIV                     400 .. 800 MHz
  *   f_CLKOS = f_VCO / CLKOS_DIV                      (dividers 1 .. 128)
  * Example, 25 MHz in, 125 MHz and 50 MHz out: CLKI_DIV 1, CLKFB_DIV 5 (25 * 5 = 125), CLKOP_DIV 4
  * (VCO 500 MHz), CLKOS_DIV 10 (500 / 10 = 50). Zero phase: CPHASE = DIV - 1, FPHASE = 0 (as Diamond writes it). */
case class Ecp5PllParams(clkiHz: Double, clkiDiv: Int, clkfbDiv: Int, clkopDiv: Int, clkosDiv: Int) {
  def pfdHz = clkiHz / clkiDiv
  def clkopHz = pfdHz * clkfbDiv
  def vcoHz = clkopHz * clkopDiv
  def clkosHz = vcoHz / clkosDiv
  override def toString =
    f"EHXPLLL: CLKI ${clkiHz / 1e6}%.3f MHz / CLKI_DIV $clkiDiv = PFD ${pfdHz / 1e6}%.3f MHz; CLKFB_DIV $clkfbDiv -> CLKOP ${clkopHz / 1e6}%.3f MHz; " +
    f"CLKOP_DIV $clkopDiv -> VCO ${vcoHz / 1e6}%.1f MHz; CLKOS_DIV $clkosDiv -> CLKOS ${clkosHz / 1e6}%.3f MHz"
}

object Ecp5Pll {
  /** Exact settings for CLKOP = `opHz` and CLKOS = `osHz` from `inHz`; among exact solutions the highest
    * VCO (lowest jitter) with the smallest input divider. Fails if no exact solution exists. */
  def solve(inHz: Double, opHz: Double, osHz: Double): Ecp5PllParams = {
    def close(a: Double, b: Double) = scala.math.abs(a - b) <= b * 1e-9
    val sols = scala.collection.mutable.ArrayBuffer[Ecp5PllParams]()
    for (clkiDiv <- 1 to 128; clkfbDiv <- 1 to 80; clkopDiv <- 1 to 128; clkosDiv <- 1 to 128) {
      val pfd: Double = inHz / clkiDiv
      val vco: Double = opHz * clkopDiv
      if (pfd >= 3.125e6 && pfd <= 400e6 && close(pfd * clkfbDiv, opHz) && vco >= 400e6 && vco <= 800e6 &&
          close(vco / clkosDiv, osHz))
        sols += Ecp5PllParams(inHz, clkiDiv, clkfbDiv, clkopDiv, clkosDiv)
    }
    if (sols.isEmpty) SpinalError(f"EHXPLLL: no exact setting for ${opHz / 1e6} MHz and ${osHz / 1e6} MHz from ${inHz / 1e6} MHz")
    sols.sortBy(p => (-p.vcoHz, p.clkiDiv)).head
  }
}

class EHXPLLL(p: Ecp5PllParams) extends BlackBox {
  setDefinitionName("EHXPLLL")
  addGeneric("PLLRST_ENA", "DISABLED")
  addGeneric("INTFB_WAKE", "DISABLED")
  addGeneric("STDBY_ENABLE", "DISABLED")
  addGeneric("DPHASE_SOURCE", "DISABLED")
  addGeneric("OUTDIVIDER_MUXA", "DIVA")
  addGeneric("OUTDIVIDER_MUXB", "DIVB")
  addGeneric("OUTDIVIDER_MUXC", "DIVC")
  addGeneric("OUTDIVIDER_MUXD", "DIVD")
  addGeneric("CLKI_DIV", p.clkiDiv)
  addGeneric("CLKOP_ENABLE", "ENABLED")
  addGeneric("CLKOP_DIV", p.clkopDiv)
  addGeneric("CLKOP_CPHASE", p.clkopDiv - 1)
  addGeneric("CLKOP_FPHASE", 0)
  addGeneric("CLKOS_ENABLE", "ENABLED")
  addGeneric("CLKOS_DIV", p.clkosDiv)
  addGeneric("CLKOS_CPHASE", p.clkosDiv - 1)
  addGeneric("CLKOS_FPHASE", 0)
  addGeneric("FEEDBK_PATH", "CLKOP")
  addGeneric("CLKFB_DIV", p.clkfbDiv)
  val io = new Bundle {
    val CLKI, CLKFB, RST, STDBY, PHASESEL0, PHASESEL1, PHASEDIR, PHASESTEP, PHASELOADREG, PLLWAKESYNC, ENCLKOP, ENCLKOS = in Bool()
    val CLKOP, CLKOS, LOCK = out Bool()
  }
  noIoPrefix()
}

/** The two Colorlight boards differ in what the pins allow:
  * @param resetButton a user button that resets the SoC (i5: K18 on the extension board)
  * @param led         an LED pin of its own (on the 5A-75B v8.0 the LED pin is the UART TX)
  * @param phyResetPulse hold the PHYs in reset for 2^19 sys cycles (5 to 14 ms) after the PLL locks (i5). Never on the 5A-75B,
  *                    whose 25 MHz clock comes from a PHY: there the reset pin is driven high, always. */
case class ColorlightBoard(name: String, resetButton: Boolean, led: Boolean, phyResetPulse: Boolean)

object ColorlightBoard {
  val i5 = ColorlightBoard("colorlight-i5", resetButton = true, led = true, phyResetPulse = true)
  val b5a75b = ColorlightBoard("colorlight-5a-75b", resetButton = false, led = false, phyResetPulse = false)
}

class ColorlightTop(board: ColorlightBoard, build: BoardBuild) extends Component with SocInTop {
  setDefinitionName("Top")
  val clkInHz = 25e6
  val clk25 = in Bool()
  val uart_tx = out Bool()
  val uart_rx = in Bool()
  val led_n = board.led generate out(Bool())
  val btn_n = board.resetButton generate in(Bool())
  val eth_rst_n = out Bool()
  val eth_mdc = out Bool()
  val eth_mdio = inout(Analog(Bool()))

  // Clocks: CLKOP 125 MHz (RGMII TX, feedback), CLKOS sys.
  val pllParams = Ecp5Pll.solve(clkInHz, 125e6, build.sysHz.toDouble)
  val pll = new EHXPLLL(pllParams)
  pll.io.CLKI := clk25
  pll.io.CLKFB := pll.io.CLKOP
  pll.io.RST := False
  pll.io.STDBY := False
  pll.io.PHASESEL0 := False
  pll.io.PHASESEL1 := False
  pll.io.PHASEDIR := True
  pll.io.PHASESTEP := True
  pll.io.PHASELOADREG := True
  pll.io.PLLWAKESYNC := False
  pll.io.ENCLKOP := False
  pll.io.ENCLKOS := False
  val clk_eth_tx = Bool()
  val clk_sys = Bool()
  clk_eth_tx := pll.io.CLKOP
  clk_sys := pll.io.CLKOS

  // Reset: PLL not locked, or the reset button (active low).
  val buttonReset = if (board.resetButton) !btn_n else False
  val sys_reset = ResetSync(clk_sys, !pll.io.LOCK || buttonReset, name = "sys_reset")

  val socConfig = build.socConfig("rgmii_ecp5")
  val sysCd = ClockDomain(clk_sys, sys_reset, frequency = FixedFrequency(build.sysHz.toDouble Hz),
    config = ClockDomainConfig(resetKind = SYNC, resetActiveLevel = HIGH))
  val soc = sysCd(new Soc(socConfig))

  // Free-running counters (no reset): the heartbeat and the PHY reset timer.
  val boot = new ClockingArea(BootDomain(clk_sys)) {
    val beat = Reg(UInt(26 bits)) init 0
    beat := beat + 1
    val phyTimer = Reg(UInt(20 bits)) init 0 // 2^19 cycles: >= 5 ms at up to 100 MHz
    val phyReleased = phyTimer.msb
    when(!pll.io.LOCK) { phyTimer := 0 } elsewhen (!phyReleased) { phyTimer := phyTimer + 1 }
  }
  eth_rst_n := (if (board.phyResetPulse) boot.phyReleased else True)

  // LED (active low): the heartbeat (bit 25 of a sys counter: 0.9 s on / 0.9 s off at 37.5 MHz) XOR GPIO bit 0,
  // so firmware can invert it.
  if (board.led) led_n := !(boot.beat.msb ^ socBits("io_gpio_out")(0))
  socBits("io_gpio_in") := 0

  connectUart(uart_tx, uart_rx)
  connectMdio(eth_mdc, eth_mdio)

  // The RGMII pins of the MAC, as top-level ports named like the MAC's (rgmii_rx_clk, rgmii_tx_data, ...);
  // rgmii_gtx_clk is the PLL's 125 MHz and stays inside.
  val ethPins = for ((name, width, isIn) <- ethPhyPins if name != "rgmii_gtx_clk") yield {
    val socPin = socBits("io_eth_" + name)
    if (width == 1) {
      val pin = (if (isIn) in Bool() else out Bool()).setName(name)
      if (isIn) socPin := pin.asBits else pin := socPin(0)
      pin
    } else {
      val pin = (if (isIn) in Bits (width bits) else out Bits (width bits)).setName(name)
      if (isIn) socPin := pin else pin := socPin
      pin
    }
  }
  socBits("io_eth_rgmii_gtx_clk") := clk_eth_tx.asBits
  tieOffUnusedSocInputs()
}
