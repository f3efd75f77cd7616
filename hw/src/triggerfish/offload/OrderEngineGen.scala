// Generates the order engine alone as Verilog (for size and timing on ECP5: tools/synth-order-engine.sh).
// Usage: runMain triggerfish.offload.OrderEngineGen [--out DIR]
package triggerfish.offload

import spinal.core._

object OrderEngineGen {
  def main(args: Array[String]): Unit = {
    val i = args.indexOf("--out")
    val out = if (i >= 0 && i + 1 < args.length) args(i + 1) else "build/offload/verilog"
    SpinalConfig(targetDirectory = out, oneFilePerComponent = false,
      defaultConfigForClockDomains = ClockDomainConfig(resetKind = SYNC, resetActiveLevel = HIGH))
      .generateVerilog(OrderEngine(OrderEngineConfig(), ClockDomain.external("eth_rx"), ClockDomain.external("eth_tx"))
        .setDefinitionName("OrderEngine"))
  }
}
