// Test helpers for the Ethernet frame path: compiling EthFrameBuffers with external eth_rx/eth_tx
// clocks, starting three unrelated clocks, and the register offsets as the firmware sees them.
package triggerfish.eth

import spinal.core._
import spinal.core.sim._
import spinal.lib.bus.simple.PipelinedMemoryBus
import triggerfish.soc.TfSim

object EthSim {
  private val compiled = scala.collection.mutable.Map[EthBuffersConfig, SimCompiled[EthFrameBuffers]]()
  /** Compiled once per configuration (and JVM). */
  def compile(cfg: EthBuffersConfig): SimCompiled[EthFrameBuffers] = synchronized {
    compiled.getOrElseUpdate(cfg, TfSim.config.compile(
      EthFrameBuffers(cfg, ClockDomain.external("eth_rx"), ClockDomain.external("eth_tx")).setDefinitionName(
        s"EthFrameBuffers_${cfg.rxSlots}x${cfg.slotBytes}_tx${cfg.txBytes}${if (cfg.rxVeto > 0) s"_veto${cfg.rxVeto}" else ""}")))
  }

  /** Clock periods in simulation time units (1 unit = 10 ps: 1000 = 100 MHz, 800 = 125 MHz). */
  case class Clocks(sys: Int, rx: Int, tx: Int) {
    def describe = f"sys ${100000.0 / sys}%.0f MHz, rx ${100000.0 / rx}%.1f MHz, tx ${100000.0 / tx}%.1f MHz"
  }

  /** Starts the three clocks with unrelated phases; their resets are asserted together from time 0
    * (the component requires that) and released after 16 cycles of each clock. Returns once all are out of reset. */
  def start(dut: EthFrameBuffers, clocks: Clocks, rnd: scala.util.Random): Unit = {
    val cds: Seq[(ClockDomain, Int)] = Seq((dut.clockDomain, clocks.sys), (dut.rxCd, clocks.rx), (dut.txCd, clocks.tx))
    for ((cd, p) <- cds) cd.forkStimulus(p.toLong, rnd.nextInt(p), 16)
    for ((cd, _) <- cds) {
      cd.waitSampling()
      cd.waitSamplingWhere(!cd.isResetAsserted)
    }
    dut.clockDomain.waitSampling(8)
  }

  // Register offsets (the C header has the same, from the RegMap).
  val CONFIG = 0x000; val IRQ_ENABLE = 0x004; val IRQ_PENDING = 0x008; val STATUS = 0x00C
  val RX_STATUS = 0x010; val RX_RELEASE = 0x014; val RX_PENDING = 0x018
  val TX_LEN = 0x020; val TX_STATUS = 0x024; val TX_ACK = 0x028; val MDIO = 0x030
  val RX_FRAMES = 0x040; val RX_BYTES = 0x044; val CRC_ERRORS = 0x048; val RUNTS = 0x04C
  val OVERSIZE = 0x050; val RX_DROPS_FULL = 0x054; val TX_FRAMES = 0x058; val TX_BYTES = 0x05C; val TX_ERRORS = 0x060
  val FILTERED = 0x064; val ICMP_LIMITED = 0x068; val RX_VETOED = 0x0A0
  val FILTER_CTRL = 0x070; val FILTER_IP = 0x074; val FILTER_ICMP = 0x078; val FILTER_APPLY = 0x07C
  val FILTER_CONN0_IP = 0x080; val FILTER_CONN0_PORTS = 0x084; val FILTER_CONN1_IP = 0x088; val FILTER_CONN1_PORTS = 0x08C
  val TX_BUF = 0x4000; val RX_BUF = 0x8000

  /** One write with a byte mask (SimBusMaster writes whole words only). */
  def writeMasked(bus: PipelinedMemoryBus, cd: ClockDomain, address: Long, data: Long, mask: Int): Unit = {
    bus.cmd.valid #= true
    bus.cmd.address #= address
    bus.cmd.write #= true
    bus.cmd.data #= data & 0xFFFFFFFFL
    bus.cmd.mask #= mask
    cd.waitSamplingWhere(bus.cmd.ready.toBoolean)
    bus.cmd.valid #= false
    bus.cmd.mask #= 0xF
  }
}
