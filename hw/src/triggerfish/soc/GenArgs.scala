// The generators' command line (GenSoc, GenBoard): one parser and one set of SoC options, checked the same way in
// both, so that `--digest yes` or `--ram-kib 96` means the same thing for the simulation's SoC and for a board's.
package triggerfish.soc

/** `--name value` options. Mill's runMain drops empty arguments, so a value starting with `--` counts as no value:
  * tools/board.sh's `--digest ""` (the board does not say) arrives as a bare `--digest`, which leaves the setting as
  * the base configuration has it. A malformed value stops the generator with a message naming the option. */
class GenArgs(tool: String, args: Array[String]) {
  def arg(name: String): Option[String] = {
    val i = args.indexOf("--" + name)
    if (i >= 0 && i + 1 < args.length && !args(i + 1).startsWith("--")) Some(args(i + 1)) else None
  }
  def need(name: String): String = arg(name).getOrElse(sys.error(s"$tool: --$name is required"))
  def yesNo(name: String): Option[Boolean] = arg(name).map {
    case "yes" => true
    case "no" => false
    case other => sys.error(s"$tool: --$name yes|no, not $other")
  }
  def count(name: String): Option[Int] = arg(name).map(v =>
    v.toIntOption.filter(_ > 0).getOrElse(sys.error(s"$tool: --$name takes a positive whole number, not $v")))

  /** The SoC options both generators take (board.mk's OFFLOAD, OFFLOAD_ENTRIES, ETH_RX_SLOTS, DIGEST, RAM_KIB, RISK;
    * `--risk` puts the risk gate in the order engine: the simulation's SoC and the PYNQ-Z1, whose Ethernet runs at
    * 50 MHz; not the 125 MHz boards while the gate does not meet 125 MHz on ECP5). `--early yes` builds early fires
    * (the parser's, the engine's, the MAC's poison input: its Verilog is the variant gen_mac.py makes with --tx-poison;
    * firmware's `offload early on` turns them on): the simulation's SoC and the Zynq boards (board.mk EARLY).
    * `--digest yes` brings the hardware top of book with it unless `--book no` says otherwise: firmware needs one
    * wherever the hardware digests (board.mk has no setting of its own for it). */
  def socOptions: SocOptions = SocOptions(yesNo("offload"), count("offload-entries"), count("eth-rx-slots"),
    yesNo("digest"), count("ram-kib"), yesNo("book"), yesNo("risk"), yesNo("early"))
}

/** What a generator's options change in a SoC configuration; a setting left out (None) stays as the base has it.
  * The Ethernet options apply to a SoC with Ethernet only. */
case class SocOptions(offload: Option[Boolean] = None, offloadEntries: Option[Int] = None,
                      rxSlots: Option[Int] = None, digest: Option[Boolean] = None, ramKib: Option[Int] = None,
                      book: Option[Boolean] = None, risk: Option[Boolean] = None, early: Option[Boolean] = None) {
  def ethernet(e: SocEthConfig): SocEthConfig = e.copy(
    offload = offload.getOrElse(e.offload),
    offloadEntries = offloadEntries.getOrElse(e.offloadEntries),
    buffers = rxSlots.fold(e.buffers)(n => e.buffers.copy(rxSlots = n)),
    offloadDigest = digest.getOrElse(e.offloadDigest),
    offloadBook = book.orElse(digest.filter(identity)).fold(e.offloadBook)(if (_) SocOptions.bookSlots else 0),
    riskGate = risk.getOrElse(e.riskGate),
    early = early.getOrElse(e.early))
  def apply(c: SocConfig): SocConfig = c.copy(eth = c.eth.map(ethernet), ramBytes = ramKib.fold(c.ramBytes)(_ * 1024))
}

object SocOptions {
  /** `--book yes`: one slot per symbol firmware subscribes to (fixclient.c SYMBOLS_MAX). */
  val bookSlots = 4
}
