// What every board top shares: the SoC (unchanged, from SocConfig) instantiated in the sys clock domain,
// its pins found by name, a reset synchroniser, a heartbeat, and the MDIO pin.
//
// A board top owns the board: clock generation (ECP5 EHXPLLL, 7-series MMCM), resets, the PHY's reset pin,
// LEDs, buttons and the UART pins. It never changes what the SoC is: the SoC's ports are connected by
// name (the Ethernet PHY pins are the SoC's io_eth_<pin> ports, whatever the LiteEth variant has), and an
// input port a later SoC adds that the top does not know is tied to zero with a warning.
package triggerfish.boards

import spinal.core._
import spinal.lib._
import triggerfish.soc._

import scala.collection.mutable

/** A reset for `clk`: asserted asynchronously while `rawReset` is high, released synchronously
  * `depth` clock edges after it falls (active high, for the SoC's SYNC/HIGH clock domain). */
object ResetSync {
  def apply(clk: Bool, rawReset: Bool, depth: Int = 4, name: String): Bool = {
    val cd = ClockDomain(clk, rawReset, config = ClockDomainConfig(resetKind = ASYNC, resetActiveLevel = HIGH))
    val area = new ClockingArea(cd) {
      val stages = Vec.fill(depth)(Reg(Bool()) init True)
      stages(0) := False
      for (i <- 1 until depth) stages(i) := stages(i - 1)
    }
    area.setName(name + "Sync")
    val reset = Bool().setName(name)
    reset := area.stages.last
    reset
  }
}

/** Counters that need no reset: they start from their FPGA configuration value. */
object BootDomain {
  def apply(clk: Bool): ClockDomain = ClockDomain(clk, config = ClockDomainConfig(resetKind = BOOT))
}

/** The SoC inside a board top, with its pins by name. */
trait SocInTop { self: Component =>
  def soc: Soc
  private val used = mutable.Set[String]()

  /** The SoC port `name` as seen from the top (e.g. "io_uart_txd", "io_eth_rgmii_rx_ctl"). */
  def socPort(name: String): BaseType = {
    used += name
    soc.getAllIo.find(_.getName() == name).getOrElse(
      SpinalError(s"the SoC has no port $name (ports: ${soc.getAllIo.map(_.getName()).mkString(", ")})"))
  }
  def socBool(name: String): Bool = socPort(name) match {
    case b: Bool => b
    case other => SpinalError(s"SoC port $name is not a Bool")
  }
  def socBits(name: String): Bits = socPort(name) match {
    case b: Bits => b
    case other => SpinalError(s"SoC port $name is not Bits")
  }
  /** The LiteEth PHY pins of the SoC (their names without the io_eth_ prefix) and widths. */
  def ethPhyPins: Seq[(String, Int, Boolean)] = soc.ethPins.map(_.toSeq).getOrElse(Nil).map { p =>
    (p.getName().stripPrefix("io_eth_"), p.getWidth, p.isInput)
  }

  /** Every SoC input the top did not drive gets zero (a port added to the SoC after this top was written). */
  def tieOffUnusedSocInputs(): Unit = {
    for (p <- soc.getAllIo if p.isInput && !used.contains(p.getName()) && !p.hasAssignement) {
      SpinalWarning(s"board top ${self.getClass.getSimpleName}: SoC input ${p.getName()} is not used by the board; tied to 0")
      p.assignFromBits(B(0, p.getBitsWidth bits))
    }
  }

  /** The SoC's standard pins: UART and MDIO (open drain through oe, as the SoC drives it). */
  def connectUart(tx: Bool, rx: Bool): Unit = {
    tx := socBool("io_uart_txd")
    socBool("io_uart_rxd") := rx
  }
  def connectMdio(mdc: Bool, mdio: Bool): Unit = {
    mdc := socBool("io_eth_mdc")
    when(socBool("io_eth_mdio_oe")) { mdio := socBool("io_eth_mdio_o") }
    socBool("io_eth_mdio_i") := mdio
  }
}

/** The build constants of a board (from boards/<board>/board.mk, passed by GenBoard). */
case class BoardBuild(name: String, sysHz: Long, macDir: String, socBase: SocConfig, options: SocOptions = SocOptions()) {
  /** The SoC for this board: the project's board configuration (SocConfig.ecp5: RAM size, UART rate and
    * whatever else the SoC gains), with this board's sys clock, true time, and its LiteEth variant; the
    * offload datapath, its trigger table entries, market-data digestion (with the frame buffers' veto), the number
    * of Ethernet receive slots and the RAM's size as SocConfig.ecp5 has them unless the board says (OFFLOAD,
    * OFFLOAD_ENTRIES, DIGEST, ETH_RX_SLOTS and RAM_KIB in board.mk, applied by SocOptions as GenSoc applies them). */
  def socConfig(phy: String): SocConfig = {
    val eth = socBase.eth.getOrElse(SocEthConfig(phy)).copy(phy = phy, macDir = macDir)
    options(socBase.copy(sysClockHz = sysHz, timebaseHz = sysHz, eth = Some(eth)))
  }
}
