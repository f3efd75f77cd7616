// Test helpers: a PipelinedMemoryBus master for SpinalSim, and the project's simulation settings.
package triggerfish.soc

import spinal.core._
import spinal.core.sim._
import spinal.lib.bus.simple.PipelinedMemoryBus

object TfSim {
  /** SpinalSim on Verilator, workspace under build/ (never the source tree). Verilator's make cannot build in a
    * directory whose path has a space, and SpinalSim passes paths on command lines built as strings: in a checkout
    * under such a path the workspace and the Verilog the tests add come through tools/nospace.sh instead. */
  def config = {
    val c = SimConfig.withVerilator.workspacePath(workspace).withConfig(
      SpinalConfig(defaultConfigForClockDomains = ClockDomainConfig(resetKind = SYNC), headerWithRepoHash = false))
    verilatorCache.fold(c)(c.cachePath(_))
  }
  /** Where SpinalSim keeps the Verilator models it compiled, by content (it looks a model up by the SHA-1 of its
    * Verilog, Verilator's version and arguments, "Found cached verilator binaries"): ~/.cache/triggerfish/spinalsim,
    * or TF_SPINALSIM_CACHE, so that a fresh clone and a second run reuse the models of unchanged blocks (21 models,
    * about 350 s of `make test`'s compiling). The Verilog is generated without the checkout's git hash in its header
    * (headerWithRepoHash), which would make every commit a new model. None (SpinalSim's default) when that path has
    * a space. */
  lazy val verilatorCache: Option[String] =
    sys.env.get("TF_SPINALSIM_CACHE").orElse(sys.env.get("HOME").map(h => s"$h/.cache/triggerfish/spinalsim"))
      .filter(p => p.nonEmpty && !p.exists(_.isWhitespace))
  private val spaced = new java.io.File(".").getCanonicalPath.exists(_.isWhitespace)
  private def nospace(args: String*): String = {
    val out = scala.sys.process.Process(Seq("tools/nospace.sh") ++ args).!!.trim
    require(out.nonEmpty && !out.exists(_.isWhitespace), s"tools/nospace.sh ${args.mkString(" ")} gave '$out'")
    out
  }
  lazy val workspace: String = if (spaced) nospace("dir", "build/spinalsim") else "build/spinalsim"
  /** A file of the checkout (a relative path), as a path without spaces for Verilator's command line. */
  def rtlPath(rel: String): String = if (spaced) s"${nospace("root")}/$rel" else rel
  /** The seed used by a test: TF_SEED from the environment (to replay a failure), else a fixed default. */
  /** Starts the clock (period 10) and returns once the reset forkStimulus applies has been released. */
  def start(cd: ClockDomain): Unit = {
    cd.forkStimulus(10)
    cd.waitSampling()
    cd.waitSamplingWhere(!cd.isResetAsserted)
    cd.waitSampling()
  }
  def seed(default: Int): Int = sys.env.get("TF_SEED").map(_.toInt).getOrElse(default)
}

/** Drives a PipelinedMemoryBus as the CPU would: one access at a time, waiting for cmd.ready and, for a
  * read, for the response. */
class SimBusMaster(bus: PipelinedMemoryBus, cd: ClockDomain) {
  bus.cmd.valid #= false
  bus.cmd.write #= false
  bus.cmd.address #= 0
  bus.cmd.data #= 0
  bus.cmd.mask #= 0xF

  private def issue(address: Long, write: Boolean, data: Long): Unit = {
    bus.cmd.valid #= true
    bus.cmd.address #= address
    bus.cmd.write #= write
    bus.cmd.data #= data & 0xFFFFFFFFL
    bus.cmd.mask #= 0xF
    cd.waitSamplingWhere(bus.cmd.ready.toBoolean)
    bus.cmd.valid #= false
  }
  def write(address: Long, data: Long): Unit = issue(address, write = true, data)
  def read(address: Long): Long = {
    issue(address, write = false, 0)
    cd.waitSamplingWhere(bus.rsp.valid.toBoolean)
    bus.rsp.data.toLong
  }
}
