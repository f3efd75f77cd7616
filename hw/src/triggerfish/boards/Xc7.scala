// Zynq-7000 PL board tops (no PS: the design is PL only). An MMCME2_BASE makes the clocks:
//   PYNQ-Z1: 125 MHz on H16 (the on-board PHY's CLK125) -> sys; Ethernet is RMII from a PMOD PHY module
//            whose 50 MHz REF_CLK comes in on a clock-capable PMOD pin and clocks both Ethernet domains.
//   Puzhi PZ7020-Starlite: 50 MHz on U18 -> sys, 125 MHz (RGMII TX), 125 MHz shifted by 90 degrees (TXC),
//            200 MHz (IDELAYCTRL reference for the RGMII receive delays).
package triggerfish.boards

import spinal.core._
import spinal.lib._
import triggerfish.soc._

/** MMCME2_BASE settings (Xilinx UG472, "7 Series FPGAs Clocking Resources", MMCM attributes; DS187 for
  * the ranges of speed grade -1, which -2 parts also meet):
  *   f_VCO = f_CLKIN1 * CLKFBOUT_MULT_F / DIVCLK_DIVIDE    600 .. 1200 MHz;  f_CLKIN1 / DIVCLK_DIVIDE >= 10 MHz
  *   f_CLKOUTn = f_VCO / CLKOUTn_DIVIDE                     (integer dividers 1 .. 128 here)
  * Feedback is internal (CLKFBOUT -> CLKFBIN). Chosen: the smallest DIVCLK_DIVIDE, then the highest VCO.
  * Example, 50 MHz in: MULT 20, DIVIDE 1 -> VCO 1000 MHz; /20 = 50 MHz, /8 = 125 MHz, /5 = 200 MHz.
  * 125 MHz in (PYNQ-Z1): MULT 8 -> VCO 1000 MHz; /20 = 50 MHz. */
case class MmcmOut(hz: Double, phaseDeg: Double = 0.0)
case class MmcmParams(clkinHz: Double, divclk: Int, mult: Int, divides: Seq[Int], outs: Seq[MmcmOut]) {
  def vcoHz = clkinHz * mult / divclk
  override def toString = f"MMCME2_BASE: CLKIN1 ${clkinHz / 1e6}%.3f MHz, DIVCLK_DIVIDE $divclk, CLKFBOUT_MULT_F $mult -> VCO ${vcoHz / 1e6}%.1f MHz; " +
    divides.zip(outs).zipWithIndex.map { case ((d, o), i) => f"CLKOUT$i /$d = ${vcoHz / d / 1e6}%.3f MHz @ ${o.phaseDeg}%.1f deg" }.mkString("; ")
}

object Mmcm {
  def solve(inHz: Double, outs: Seq[MmcmOut]): MmcmParams = {
    require(outs.nonEmpty && outs.size <= 7)
    def close(a: Double, b: Double) = scala.math.abs(a - b) <= b * 1e-9
    val sols = scala.collection.mutable.ArrayBuffer[MmcmParams]()
    for (divclk <- 1 to 106 if inHz / divclk >= 10e6; mult <- 2 to 64) {
      val vco: Double = inHz * mult / divclk
      if (vco >= 600e6 && vco <= 1200e6) {
        val divs: Seq[Int] = outs.map(o => scala.math.round(vco / o.hz).toInt)
        if (divs.zip(outs).forall { case (d, o) => d >= 1 && d <= 128 && close(vco / d, o.hz) })
          sols += MmcmParams(inHz, divclk, mult, divs, outs)
      }
    }
    if (sols.isEmpty) SpinalError(s"MMCME2_BASE: no exact setting for ${outs.map(_.hz / 1e6).mkString(", ")} MHz from ${inHz / 1e6} MHz")
    // the smallest input divider (highest phase-detector frequency), then the highest VCO
    sols.sortBy(p => (p.divclk, -p.vcoHz)).head
  }
}

class MMCME2_BASE(p: MmcmParams) extends BlackBox {
  setDefinitionName("MMCME2_BASE")
  addGeneric("BANDWIDTH", "OPTIMIZED")
  addGeneric("CLKIN1_PERIOD", BigDecimal(1e9 / p.clkinHz).setScale(3, BigDecimal.RoundingMode.HALF_UP).toDouble)
  addGeneric("DIVCLK_DIVIDE", p.divclk)
  addGeneric("CLKFBOUT_MULT_F", p.mult.toDouble)
  addGeneric("CLKFBOUT_PHASE", 0.0)
  for (((d, o), i) <- p.divides.zip(p.outs).zipWithIndex) {
    if (i == 0) addGeneric("CLKOUT0_DIVIDE_F", d.toDouble) else addGeneric(s"CLKOUT${i}_DIVIDE", d)
    addGeneric(s"CLKOUT${i}_PHASE", o.phaseDeg)
    addGeneric(s"CLKOUT${i}_DUTY_CYCLE", 0.5)
  }
  addGeneric("STARTUP_WAIT", "FALSE")
  val io = new Bundle {
    val CLKIN1, CLKFBIN, RST, PWRDWN = in Bool()
    val CLKFBOUT, LOCKED = out Bool()
    val CLKOUT0, CLKOUT1, CLKOUT2, CLKOUT3, CLKOUT4, CLKOUT5, CLKOUT6 = out Bool()
  }
  noIoPrefix()
  def clkout(i: Int): Bool = Seq(io.CLKOUT0, io.CLKOUT1, io.CLKOUT2, io.CLKOUT3, io.CLKOUT4, io.CLKOUT5, io.CLKOUT6)(i)
}

class BUFG extends BlackBox {
  setDefinitionName("BUFG")
  val io = new Bundle { val I = in Bool(); val O = out Bool() }
  noIoPrefix()
}
object BUFG { def apply(i: Bool): Bool = { val b = new BUFG; b.io.I := i; b.io.O } }

class IDELAYCTRL extends BlackBox {
  setDefinitionName("IDELAYCTRL")
  val io = new Bundle { val REFCLK, RST = in Bool(); val RDY = out Bool() }
  noIoPrefix()
}

/** Shared by both Zynq tops: MMCM from the board clock, sys reset, LEDs (active high), a reset button. */
abstract class ZynqPlTop(build: BoardBuild, clkInHz: Double, mmcmOuts: Seq[MmcmOut], phy: String, ledCount: Int,
                         resetButton: Boolean) extends Component with SocInTop {
  setDefinitionName("Top")
  val clk_in = in Bool()
  val btn_reset = resetButton generate in(Bool())   // active high (PYNQ-Z1 BTN0)
  val uart_tx = out Bool()
  val uart_rx = in Bool()
  val led = out Bits (ledCount bits)
  val eth_mdc = out Bool()
  val eth_mdio = inout(Analog(Bool()))

  val mmcmParams = Mmcm.solve(clkInHz, MmcmOut(build.sysHz.toDouble) +: mmcmOuts)
  val mmcm = new MMCME2_BASE(mmcmParams)
  mmcm.io.CLKIN1 := clk_in
  mmcm.io.CLKFBIN := mmcm.io.CLKFBOUT
  mmcm.io.RST := False
  mmcm.io.PWRDWN := False
  val clk_sys = Bool()
  clk_sys := BUFG(mmcm.io.CLKOUT0)
  def resetPressed: Bool = if (resetButton) btn_reset else False
  lazy val sys_reset = ResetSync(clk_sys, !mmcm.io.LOCKED || resetPressed, name = "sys_reset")

  val socConfig = build.socConfig(phy)
  lazy val sysCd = ClockDomain(clk_sys, sys_reset, frequency = FixedFrequency(build.sysHz.toDouble Hz),
    config = ClockDomainConfig(resetKind = SYNC, resetActiveLevel = HIGH))

  def finishCommon(): Unit = {
    val boot = new ClockingArea(BootDomain(clk_sys)) {
      val beat = Reg(UInt(26 bits)) init 0
      beat := beat + 1
    }
    val gpio = socBits("io_gpio_out")
    led := gpio.resize(ledCount)
    led(0) := boot.beat.msb ^ gpio(0)         // heartbeat, invertible by firmware
    socBits("io_gpio_in") := 0
    connectUart(uart_tx, uart_rx)
    connectMdio(eth_mdc, eth_mdio)
  }

  /** MAC pins become top-level ports named like the MAC's, except those the top drives itself. */
  def ethPorts(internal: Map[String, Bits]): Seq[BaseType] = {
    val ports = for ((name, width, isIn) <- ethPhyPins if !internal.contains(name)) yield {
      val socPin = socBits("io_eth_" + name)
      if (width == 1) {
        val pin = (if (isIn) in Bool() else out Bool()).setName(name)
        if (isIn) socPin := pin.asBits else pin := socPin(0)
        pin: BaseType
      } else {
        val pin = (if (isIn) in Bits (width bits) else out Bits (width bits)).setName(name)
        if (isIn) socPin := pin else pin := socPin
        pin: BaseType
      }
    }
    for ((name, v) <- internal) socBits("io_eth_" + name) := v
    ports
  }
}

/** PYNQ-Z1: RMII PHY module (LAN8720 class) on PMOD JB + JA, its 50 MHz REF_CLK into the FPGA; 100 Mb/s. */
class PynqZ1Top(build: BoardBuild) extends ZynqPlTop(build, 125e6, Nil, "rmii", ledCount = 4, resetButton = true) {
  val soc = sysCd(new Soc(socConfig))
  finishCommon()
  // rmii_speed: 1 = 100 Mb/s (what the firmware's MDIO would read back; no MDIO driver yet).
  val ethPins = ethPorts(Map("rmii_speed" -> B"1"))
  // BTN1 (D20, active high; boards/pynq-z1/pynq-z1.xdc): the SoC's last GPIO input, which is the risk gate's kill pin
  // in a SoC built with the gate (board.mk RISK), synchronised where it is read
  val btn_kill = in Bool()
  socBits("io_gpio_in")(socConfig.gpioWidth - 1) := btn_kill
  tieOffUnusedSocInputs()
}

/** Puzhi PZ7020-Starlite: on-board RTL8211F on PL pins, RGMII 1000 Mb/s. */
class StarliteTop(build: BoardBuild) extends ZynqPlTop(build, 50e6,
  Seq(MmcmOut(125e6), MmcmOut(125e6, 90.0), MmcmOut(200e6)), "rgmii_s7", ledCount = 2, resetButton = false) {
  // No reset button: the board's RESET key (U19) is also PS_PORB, which resets the whole Zynq including the
  // PL configuration, and the polarity of the user keys is not documented in the source platform file.
  val clk_eth_tx = Bool()
  val clk_eth_txc = Bool()
  val clk_idelay = Bool()
  clk_eth_tx := BUFG(mmcm.io.CLKOUT1)
  clk_eth_txc := BUFG(mmcm.io.CLKOUT2)
  clk_idelay := BUFG(mmcm.io.CLKOUT3)
  val idelayctrl = new IDELAYCTRL
  idelayctrl.io.REFCLK := clk_idelay
  idelayctrl.io.RST := !mmcm.io.LOCKED
  val soc = sysCd(new Soc(socConfig))
  finishCommon()
  val ethPins = ethPorts(Map("rgmii_gtx_clk" -> clk_eth_tx.asBits, "rgmii_txc_clk" -> clk_eth_txc.asBits))
  tieOffUnusedSocInputs()
}
