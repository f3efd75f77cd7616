// Triggerfish build (Mill 0.12.17). Four modules:
//   cpu      Scala 2.11 + SpinalHDL 1.7.1: VexRiscv (sources from the pip package pythondata-cpu-vexriscv)
//            plus our CPU configuration (hw/cpu/). Generates the CPU Verilog only.
//   hw       Scala 2.13 + SpinalHDL 1.14.2: the SoC, peripherals, board tops, SpinalSim tests (hw/src, hw/test).
//   exchange Java + QuickFIX/J: the exchange simulator (tools/exchange).
//   baseline Java + QuickFIX/J: the Linux software baseline's stop-order client (tools/bench/baseline).
// The Python venv that holds the pip packages is made by `make deps` (TRIGGERFISH_VENV overrides its place).
import mill._, scalalib._

object paths {
  def venv: os.Path = sys.env.get("TRIGGERFISH_VENV").map(os.Path(_))
    .getOrElse(os.home / ".cache" / "triggerfish" / "venv")
  // site-packages of the venv, whatever the Python minor version is
  def sitePackages: os.Path = {
    val lib = venv / "lib"
    if (!os.exists(lib)) throw new Exception(s"no Python venv at $venv: run `make deps` first")
    os.list(lib).filter(_.last.startsWith("python")).map(_ / "site-packages").find(os.exists(_))
      .getOrElse(throw new Exception(s"no site-packages under $lib: run `make deps` first"))
  }
  def vexriscvScala: os.Path = {
    val p = sitePackages / "pythondata_cpu_vexriscv" / "verilog" / "ext" / "VexRiscv" / "src" / "main" / "scala"
    if (!os.exists(p)) throw new Exception(s"VexRiscv sources not found at $p: run `make deps` first")
    p
  }
}

object cpu extends ScalaModule {
  def scalaVersion = "2.11.12"
  def millSourcePath = super.millSourcePath / os.up / "hw" / "cpu"
  def vexriscvSources = T.input { PathRef(paths.vexriscvScala) }
  def sources = T.sources(millSourcePath / "src")
  def allSources = T { super.allSources() ++ Seq(vexriscvSources()) }
  def ivyDeps = Agg(
    ivy"com.github.spinalhdl:spinalhdl-core_2.11:1.7.1",
    ivy"com.github.spinalhdl:spinalhdl-lib_2.11:1.7.1",
    ivy"org.yaml:snakeyaml:1.8"
  )
  def scalacPluginIvyDeps = Agg(ivy"com.github.spinalhdl:spinalhdl-idsl-plugin_2.11:1.7.1")
  def scalacOptions = Seq("-nowarn")
}

trait SpinalModule extends ScalaModule {
  def scalaVersion = "2.13.15"
  val spinalVersion = "1.14.2"
  def ivyDeps = Agg(
    ivy"com.github.spinalhdl::spinalhdl-core:$spinalVersion",
    ivy"com.github.spinalhdl::spinalhdl-lib:$spinalVersion",
    ivy"com.github.spinalhdl::spinalhdl-sim:$spinalVersion"
  )
  def scalacPluginIvyDeps = Agg(ivy"com.github.spinalhdl::spinalhdl-idsl-plugin:$spinalVersion")
  def scalacOptions = Seq("-deprecation", "-feature", "-language:reflectiveCalls")
}

object hw extends SpinalModule {
  def sources = T.sources(millSourcePath / "src")
  object test extends ScalaTests with TestModule.ScalaTest {
    def sources = T.sources(millSourcePath / os.up / "test")
    def ivyDeps = Agg(ivy"org.scalatest::scalatest:3.2.19")
    def testSandboxWorkingDir = false // SpinalSim workspaces go to build/spinalsim of the checkout
  }
}

object exchange extends JavaModule {
  def millSourcePath = super.millSourcePath / os.up / "tools" / "exchange"
  def mainClass = Some("triggerfish.exchange.Main")
  def ivyDeps = Agg(
    ivy"org.quickfixj:quickfixj-core:3.0.0",
    ivy"org.quickfixj:quickfixj-messages-all:3.0.0", // FIX44 message classes and FIX44.xml (the -fix44 jar is not on the mirror)
    ivy"org.slf4j:slf4j-simple:2.0.17"               // QuickFIX/J logs through SLF4J; the exchange sets it to WARN
  )
  object test extends JavaTests with TestModule.Junit4 {
    def ivyDeps = super.ivyDeps() ++ Agg(ivy"junit:junit:4.13.2")
    def forkArgs = Seq(s"-Dexchange.cfg=${exchange.millSourcePath / "exchange.cfg"}")
  }
}

// The benchmark's Linux software baseline: a stop-order client on QuickFIX/J and the host kernel's TCP
// (tools/bench/README.md). Same pinned QuickFIX/J as the exchange; its tests run it against the exchange.
object baseline extends JavaModule {
  def millSourcePath = super.millSourcePath / os.up / "tools" / "bench" / "baseline"
  def mainClass = Some("triggerfish.bench.Main")
  def ivyDeps = T { exchange.ivyDeps() }
  object test extends JavaTests with TestModule.Junit4 {
    def moduleDeps = super.moduleDeps ++ Seq(exchange)
    def ivyDeps = super.ivyDeps() ++ Agg(ivy"junit:junit:4.13.2")
    def forkArgs = Seq(
      s"-Dexchange.cfg=${exchange.millSourcePath / "exchange.cfg"}",
      s"-Dbench.dir=${baseline.millSourcePath / os.up}")
  }
}
