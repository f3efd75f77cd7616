// Generates the risk gate as Verilog, alone or in a synthesis harness for size and timing on ECP5
// (tools/synth-risk-gate.sh).
// Usage: runMain triggerfish.risk.RiskGateGen [--out DIR] [--harness]
//   default    RiskGate.v: the component alone (the default configuration: 16 symbols, 32 tickets, 125 MHz)
//   --harness  RiskGateSynthTop.v: the gate with its wide inputs shifted in serially from a few pins and its outputs
//              XOR-reduced, so that it places on the LFE5U-25F (the gate alone has more ports than the package pins)
package triggerfish.risk

import spinal.core._
import spinal.lib._

/** Every input of the gate comes from a shift register fed by one pin (so nothing is constant), each Flow's or
  * Stream's valid from a registered pin; every output is registered and XOR-reduced to a pin. */
class RiskGateSynthTop(cfg: RiskGateConfig) extends Component {
  val io = new Bundle {
    val serialIn = in Bool()
    val requestValid, prepareValid, feedbackValid, configValid, refValid, kill, killReset, poisoned = in Bool()
    val verdictOut, answersOut, readyOut, killed = out Bool()
  }
  val gate = RiskGate(cfg)
  val g = gate.io
  val inputs = Seq[Data](g.request.payload, g.prepare.payload, g.feedback.payload, g.config.payload, g.refUpdate.payload)
  val width = inputs.map(_.getBitsWidth).sum
  val shift = Reg(Bits(width bits)) init 0
  shift := shift(width - 2 downto 0) ## io.serialIn
  var at = 0
  for (d <- inputs) { d.assignFromBits(shift(at + d.getBitsWidth - 1 downto at)); at += d.getBitsWidth }
  g.request.valid := RegNext(io.requestValid) init False
  g.prepare.valid := RegNext(io.prepareValid) init False
  g.feedback.valid := RegNext(io.feedbackValid) init False
  g.config.valid := RegNext(io.configValid) init False
  g.refUpdate.valid := RegNext(io.refValid) init False
  g.kill := RegNext(io.kill) init False
  g.killReset := RegNext(io.killReset) init False
  g.poisoned := RegNext(io.poisoned) init False
  io.verdictOut := RegNext(g.verdict.asBits.xorR)
  io.answersOut := RegNext(g.prepared.asBits.xorR ^ g.fed.asBits.xorR ^ g.configDone.asBits.xorR ^ g.bounds.asBits.xorR ^
    g.refDropped.xorR)
  io.readyOut := RegNext(g.request.ready ^ g.prepare.ready ^ g.feedback.ready ^ g.config.ready)
  io.killed := RegNext(g.killed)
}

object RiskGateGen {
  def main(args: Array[String]): Unit = {
    val i = args.indexOf("--out")
    val out = if (i >= 0 && i + 1 < args.length) args(i + 1) else "build/risk/verilog"
    val spinal = SpinalConfig(targetDirectory = out, oneFilePerComponent = false,
      defaultConfigForClockDomains = ClockDomainConfig(resetKind = SYNC, resetActiveLevel = HIGH))
    if (args.contains("--harness")) spinal.generateVerilog(new RiskGateSynthTop(RiskGateConfig()).setDefinitionName("RiskGateSynthTop"))
    else spinal.generateVerilog(RiskGate(RiskGateConfig()).setDefinitionName("RiskGate"))
  }
}
