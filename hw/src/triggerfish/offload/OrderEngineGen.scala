// Generates the order engine as Verilog, alone or in a synthesis harness for size and timing on ECP5
// (tools/synth-order-engine.sh).
// Usage: runMain triggerfish.offload.OrderEngineGen [--out DIR] [--harness]
//   default    OrderEngine.v: the component alone (ports as in the SoC: bus, fire, tx, interrupt, three clocks)
//   --harness  OrderEngineSynthTop.v: the engine between the LiteEth GMII MAC (build/liteeth/liteeth_mac_gmii.v,
//              `make build/liteeth/liteeth_mac_gmii.v`) and the SoC's transmit arbiter, as Soc.scala will wire them
package triggerfish.offload

import spinal.core._
import spinal.lib._
import spinal.lib.bus.simple._
import triggerfish.eth.LiteEthMac

/** The engine as it sits in the SoC, with few pins: the MAC gives the eth_rx/eth_tx clocks and takes the
  * arbiter's output (input 0: the engine, input 1: a CPU frame stream from pins, registered); the bus command
  * and the fire record are shifted in serially (so that nothing is constant), the bus response is XOR-reduced. */
class OrderEngineSynthTop(cfg: OrderEngineConfig, macDir: String) extends Component {
  val io = new Bundle {
    val busIn, busValid, fireIn, fireValid = in Bool()
    val busOut, busReady, interrupt = out Bool()
    val cpuValid, cpuLast = in Bool()
    val cpuData = in Bits (8 bits)
    val cpuReady = out Bool()
  }
  val mac = new LiteEthMac("liteeth_mac_gmii", s"$macDir/liteeth_mac_gmii.v", s"$macDir/liteeth_mac_gmii.ports.txt")
  mac.io.rst := ClockDomain.current.readResetWire
  val (rxCd, txCd) = mac.ethDomains()
  val pins = mac.phyPins.map { case (name, sig) =>
    val pin = (if (sig.isInput) in Bits (sig.getWidth bits) else out Bits (sig.getWidth bits)).setName("io_eth_" + name)
    if (sig.isInput) sig := pin else pin := sig
    pin
  }
  val engine = OrderEngine(cfg, rxCd, txCd)

  val sysArea = new Area {
    val aw = OrderEngine.busConfig.addressWidth
    val shift = Reg(Bits(1 + aw + 32 + 4 bits)) init 0
    shift := shift(shift.high - 1 downto 0) ## io.busIn
    val cmd = engine.io.bus.cmd
    cmd.valid := RegNext(io.busValid) init False
    cmd.write := shift(0)
    cmd.address := shift(aw downto 1).asUInt
    cmd.data := shift(aw + 32 downto aw + 1)
    cmd.mask := shift(aw + 36 downto aw + 33)
    io.busReady := RegNext(cmd.ready)
    io.busOut := RegNext(engine.io.bus.rsp.valid ^ engine.io.bus.rsp.data.xorR)
    io.interrupt := RegNext(engine.io.interrupt)
  }
  val rxArea = new ClockingArea(rxCd) {
    val shift = Reg(Bits(6 + 4 + 32 + 32 bits)) init 0
    shift := shift(shift.high - 1 downto 0) ## io.fireIn
    engine.io.fire.valid := RegNext(io.fireValid) init False
    engine.io.fire.trigger := shift(5 downto 0).asUInt
    engine.io.fire.template := shift(9 downto 6).asUInt
    engine.io.fire.ackSeq := shift(41 downto 10).asUInt
    engine.io.fire.stamp := shift(73 downto 42).asUInt
    engine.io.fire.price := 0
  }
  val txArea = new ClockingArea(txCd) {
    val cpu = Stream(Fragment(Bits(8 bits)))
    cpu.valid := RegNext(io.cpuValid) init False
    cpu.fragment := RegNext(io.cpuData)
    cpu.last := RegNext(io.cpuLast)
    io.cpuReady := RegNext(cpu.ready)
    val arbiter = OrderEngineTxArbiter()
    arbiter.io.order << engine.io.tx
    arbiter.io.cpu << cpu
    mac.txFrom(arbiter.io.output)
  }
}

object OrderEngineGen {
  def main(args: Array[String]): Unit = {
    val i = args.indexOf("--out")
    val out = if (i >= 0 && i + 1 < args.length) args(i + 1) else "build/offload/verilog"
    val spinal = SpinalConfig(targetDirectory = out, oneFilePerComponent = false,
      defaultConfigForClockDomains = ClockDomainConfig(resetKind = SYNC, resetActiveLevel = HIGH))
    if (args.contains("--harness"))
      spinal.generateVerilog(new OrderEngineSynthTop(OrderEngineConfig(), "build/liteeth").setDefinitionName("OrderEngineSynthTop"))
    else
      spinal.generateVerilog(OrderEngine(OrderEngineConfig(), ClockDomain.external("eth_rx"), ClockDomain.external("eth_tx"))
        .setDefinitionName("OrderEngine"))
  }
}
