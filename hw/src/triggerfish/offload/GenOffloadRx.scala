// Generates OffloadRx alone (sys clock `clk`/`reset`, eth_rx clock `eth_rx_clk`/`eth_rx_reset`) for size and
// speed runs (tools/synth-offload-rx.sh). Usage: runMain triggerfish.offload.GenOffloadRx [--entries N] [--digest] [--out DIR]
// It also writes OffloadRxPnrTop: the same component with its ports reduced to a few pins (a serially loaded bus
// command, the receive stream registered as the MAC's outputs are, the fire folded into registered pins), only so
// that place and route fits the package and times the component's own paths.
package triggerfish.offload

import spinal.core._
import spinal.lib._
import triggerfish.eth.EthRxBeat

class OffloadRxPnrTop(cfg: OffloadRxConfig) extends Component {
  val io = new Bundle {
    val busIn = in Bool()
    val busOut = out Bool()
    val rx = slave(Flow(EthRxBeat()))
    val fireOut = out Bits (5 bits)
  }
  val rxCd = ClockDomain.external("eth_rx")
  val dut = OffloadRx(cfg, rxCd)
  val sh = Reg(Bits(50 bits)) init 0
  sh := sh(48 downto 0) ## io.busIn
  dut.io.bus.cmd.valid := sh(49)
  dut.io.bus.cmd.write := sh(48)
  dut.io.bus.cmd.address := sh(11 downto 0).asUInt
  dut.io.bus.cmd.data := sh(43 downto 12)
  dut.io.bus.cmd.mask := sh(47 downto 44)
  io.busOut := RegNext(dut.io.bus.rsp.data.xorR ^ dut.io.bus.rsp.valid ^ dut.io.bus.cmd.ready)
  val rxArea = new ClockingArea(rxCd) {
    dut.io.rx << io.rx.stage()
    val p = dut.io.fire.payload.asBits
    io.fireOut := RegNext(dut.io.fire.valid ## Vec((0 until 4).map(i => p.asBools.zipWithIndex.filter(_._2 % 4 == i).map(_._1).reduce(_ ^ _))).asBits ^
      dut.io.rxCycle.asBits.resize(5))
  }
}

object GenOffloadRx {
  def main(args: Array[String]): Unit = {
    def arg(name: String): Option[String] = {
      val i = args.indexOf("--" + name)
      if (i >= 0 && i + 1 < args.length) Some(args(i + 1)) else None
    }
    val entries = arg("entries").map(_.toInt).getOrElse(64)
    val out = arg("out").getOrElse("build/offload-rx")
    val cfg = OffloadRxConfig(entries = entries, digest = args.contains("--digest"))
    val sc = SpinalConfig(targetDirectory = out, oneFilePerComponent = false,
      defaultConfigForClockDomains = ClockDomainConfig(resetKind = SYNC, resetActiveLevel = HIGH))
    sc.generateVerilog(OffloadRx(cfg, ClockDomain.external("eth_rx")).setDefinitionName("OffloadRx"))
    sc.copy(netlistFileName = "OffloadRxPnrTop.v").generateVerilog(new OffloadRxPnrTop(cfg).setDefinitionName("OffloadRxPnrTop"))
  }
}
