// The LiteEth PHY + MAC (generated at build time by hw/liteeth/gen_mac.py) as a BlackBox. Its port list
// is read from the generator's <name>.ports.txt, so the generator stays the only description of it:
// the stream and clock ports every variant shares get typed fields here; the PHY pins of the variant
// (GMII, RGMII, MII, RMII) are collected in `phyPins`, for the SoC to bring out as its own ports.
package triggerfish.eth

import spinal.core._
import spinal.lib._
import scala.collection.mutable.LinkedHashMap

case class MacPort(dir: String, width: Int, name: String)

object LiteEthMac {
  /** The ports every variant has (hw/liteeth/README.md, "Port list"). */
  val common = Set("rst", "eth_rx_clk", "eth_rx_rst", "eth_tx_clk", "eth_tx_rst", "rx_valid", "rx_data",
    "rx_last", "rx_error", "rx_sof", "tx_valid", "tx_data", "tx_last", "tx_ready")
  /** The ports of the optional features (--tx-poison, --rx-raw): typed fields too, never PHY pins. */
  val extra = Set("tx_poison", "rx_raw_valid", "rx_raw_data", "rx_raw_last")
  def readPorts(portsFile: String): Seq[MacPort] = {
    val src = scala.io.Source.fromFile(portsFile)
    try src.getLines().map(_.trim).filter(_.nonEmpty).map { l =>
      val Array(dir, width, name) = l.split("\\s+")
      MacPort(dir, width.toInt, name)
    }.toList finally src.close()
  }
}

class LiteEthMac(moduleName: String, verilogFile: String, portsFile: String) extends BlackBox {
  setDefinitionName(moduleName)
  val ports = LiteEthMac.readPorts(portsFile)
  val missing = LiteEthMac.common -- ports.map(_.name)
  require(missing.isEmpty, s"$portsFile lacks the ports ${missing.mkString(", ")}")
  val io = new Bundle {
    val rst = in Bool()
    val eth_rx_clk, eth_rx_rst, eth_tx_clk, eth_tx_rst = out Bool()
    val rx_valid, rx_last, rx_error, rx_sof = out Bool()
    val rx_data = out Bits (8 bits)
    val tx_valid, tx_last = in Bool()
    val tx_data = in Bits (8 bits)
    val tx_ready = out Bool()
    // (a MAC generated with --tx-poison: read with a frame's last byte, 1 = send it with a bad FCS; hw/liteeth/README.md)
    val tx_poison = ports.exists(_.name == "tx_poison") generate (in Bool())
    // (a MAC generated with --rx-raw: the received bytes before the CRC checker's hold-back, FCS included)
    val rx_raw_valid, rx_raw_last = ports.exists(_.name == "rx_raw_valid") generate (out Bool())
    val rx_raw_data = ports.exists(_.name == "rx_raw_valid") generate (out Bits (8 bits))
  }
  /** The PHY-side pins of this variant, in the generator's order. */
  val phyPins = LinkedHashMap[String, Bits]()
  for (p <- ports if !LiteEthMac.common.contains(p.name) && !LiteEthMac.extra.contains(p.name)) {
    val b = if (p.dir == "input") in Bits (p.width bits) else out Bits (p.width bits)
    b.setName(p.name)
    phyPins(p.name) = b
  }
  noIoPrefix()
  addRTLPath(verilogFile)

  /** The received bytes as they leave the MAC (eth_rx domain): the tap point, no FIFO in front. */
  def rxFlow(): Flow[EthRxBeat] = {
    val f = Flow(EthRxBeat())
    f.valid := io.rx_valid
    f.payload.data := io.rx_data
    f.payload.last := io.rx_last
    f.payload.error := io.rx_error
    f
  }

  /** The received bytes before the CRC checker's hold-back (eth_rx; a MAC generated with --rx-raw): every byte of the
    * frame, FCS included, last = its last FCS byte, 5 cycles ahead of rxFlow's; no verdict (rxFlow's last beat has it). */
  def rxRawFlow(): Flow[Fragment[Bits]] = {
    require(io.rx_raw_valid != null, "LiteEthMac: the raw receive stream of a MAC generated without --rx-raw")
    val f = Flow(Fragment(Bits(8 bits)))
    f.valid := io.rx_raw_valid
    f.fragment := io.rx_raw_data
    f.last := io.rx_raw_last
    f
  }

  /** The eth_rx and eth_tx clock domains: the MAC's clocks (or the nets a harness drives its clock pins with) and its
    * resets, synchronous and active high (they follow `rst`). `alsoReset`: a simulation harness ors its own reset in,
    * asserted from time 0, because the MAC's reset synchronisers hold whatever the simulator gave their flip-flops
    * until their second edge, and HDL assertions (the TX arbiter's) look at the registers from the first. (On the
    * boards the flip-flops start at zero.) */
  def ethDomains(rxClk: Bool = io.eth_rx_clk, txClk: Bool = io.eth_tx_clk,
                 alsoReset: Option[Bool] = None): (ClockDomain, ClockDomain) = {
    def domain(clk: Bool, rst: Bool) = ClockDomain(clk, alsoReset.fold(rst)(rst || _),
      config = ClockDomainConfig(resetKind = SYNC, resetActiveLevel = HIGH))
    (domain(rxClk, io.eth_rx_rst), domain(txClk, io.eth_tx_rst))
  }

  /** Feeds the MAC's transmit side from a stream of frame bytes (eth_tx domain; last: the frame's last byte). `poison`,
    * read with the last byte, sends the frame with a bad FCS: only for a MAC generated with --tx-poison (whose poison
    * input is tied low when it is not given). */
  def txFrom(s: Stream[Fragment[Bits]], poison: Option[Bool] = None): Unit = {
    io.tx_valid := s.valid
    io.tx_data := s.fragment
    io.tx_last := s.last
    s.ready := io.tx_ready
    require(poison.isEmpty || io.tx_poison != null, "LiteEthMac: a poison flag for a MAC generated without --tx-poison")
    if (io.tx_poison != null) io.tx_poison := poison.getOrElse(False)
  }
}

/** The clock of both Ethernet domains (eth_rx, eth_tx) for each LiteEth PHY variant: a byte a cycle at 1 Gb/s (GMII,
  * RGMII: 125 MHz), a nibble at 100 Mb/s (MII: 25 MHz), two bits at 100 Mb/s (RMII: the module's 50 MHz REF_CLK). */
object EthPhyClock {
  def hz(phy: String): Long = phy match {
    case p if p.startsWith("gmii") || p.startsWith("rgmii") => 125000000L
    case "mii" => 25000000L
    case "rmii" => 50000000L
    case other => SpinalError(s"EthPhyClock: unknown PHY variant $other")
  }
}
