// Generates OffloadRx alone (sys clock `clk`/`reset`, eth_rx clock `eth_rx_clk`/`eth_rx_reset`) for size and
// speed runs (tools/synth-offload-rx.sh). Usage: runMain triggerfish.offload.GenOffloadRx [--entries N] [--out DIR]
package triggerfish.offload

import spinal.core._

object GenOffloadRx {
  def main(args: Array[String]): Unit = {
    def arg(name: String): Option[String] = {
      val i = args.indexOf("--" + name)
      if (i >= 0 && i + 1 < args.length) Some(args(i + 1)) else None
    }
    val entries = arg("entries").map(_.toInt).getOrElse(64)
    val out = arg("out").getOrElse("build/offload-rx")
    val ablate = arg("ablate").map(_.split(",").toSet).getOrElse(Set[String]())
    SpinalConfig(targetDirectory = out, oneFilePerComponent = false,
      defaultConfigForClockDomains = ClockDomainConfig(resetKind = SYNC, resetActiveLevel = HIGH))
      .generateVerilog(OffloadRx(OffloadRxConfig(entries = entries, ablate = ablate), ClockDomain.external("eth_rx"))
        .setDefinitionName("OffloadRx"))
  }
}
