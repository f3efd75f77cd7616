// EthFrameBuffers, receive path: a model of the MAC's rx flow (no backpressure) sends thousands of random
// frames while a model of the CPU takes them through the bus at random speeds. Checked against a model:
// every delivered frame is byte-exact and in order; good frames not delivered were dropped because the ring
// was full (checked against the CPU's release times, within the crossing's uncertainty); counters exact.
// Replay with TF_SEED=<seed> ./mill -i hw.test.testOnly 'triggerfish.eth.*'
package triggerfish.eth

import org.scalatest.funsuite.AnyFunSuite
import spinal.core._
import spinal.core.sim._
import triggerfish.soc.{SimBusMaster, TfSim}
import scala.collection.mutable
import scala.util.Random
import EthSim._

class EthRxSpec extends AnyFunSuite {
  val seed = TfSim.seed(11)

  /** One frame as the MAC sends it. */
  class Frame(val index: Int, val bytes: Array[Int], val error: Boolean, val gapBefore: Int) {
    var startTime: Long = -1      // sim time at which the driver put its first beat on the flow
    var vetoed = false            // io.rxVeto marked it (veto builds: the offload digested it)
    var checked = false           // io.rxChecked marked it (veto builds: the offload verified its sums)
    def good(cfg: EthBuffersConfig) = !error && bytes.length >= cfg.minFrameBytes && bytes.length <= cfg.rxLimit
  }

  /** Random frames: sizes 20..1600 (biased to short ones so there are many), random error flags,
    * gaps of 12..300 idle cycles with bursts of back-to-back frames (gap 12..16) longer than the ring. */
  def makeFrames(rnd: Random, n: Int): IndexedSeq[Frame] = {
    var burstLeft = 0
    for (i <- 0 until n) yield {
      if (burstLeft == 0 && rnd.nextInt(30) == 0) burstLeft = 10 + rnd.nextInt(30)
      val gap = if (burstLeft > 0) { burstLeft -= 1; 12 + rnd.nextInt(5) } else 12 + rnd.nextInt(300)
      val len = rnd.nextInt(20) match {
        case 0 | 1 => 20 + rnd.nextInt(40)                  // runts
        case 2 => 1519 + rnd.nextInt(82)                     // oversize
        case 3 => Seq(59, 60, 61, 1517, 1518, 1519)(rnd.nextInt(6)) // edges
        case 4 | 5 | 6 | 7 => 60 + rnd.nextInt(1459)         // any good size
        case _ => 60 + rnd.nextInt(140)                      // short good frames
      }
      new Frame(i, Array.fill(len)(rnd.nextInt(256)), rnd.nextInt(12) == 0, gap)
    }
  }

  /** Drives the rx flow from `frames` (one beat per eth_rx cycle, no backpressure). Garbage on the
    * payload while valid is low, and on `error` on beats that are not the last. */
  class RxDriver(dut: EthFrameBuffers, frames: IndexedSeq[Frame], rnd: Random) {
    // Veto builds: io.rxVeto for a third of the frames exactly rxVeto cycles after their last beat, and noise at
    // cycles that decide no frame's commit (it must change nothing).
    val vetoN = dut.config.rxVeto
    private var vetoIn = -1       // callbacks until the cycle the veto speaks for the last frame (-1: none)
    private var vetoThis = false
    var noise = 0
    var frameIdx = 0
    var byteIdx = 0
    var gapLeft = if (frames.nonEmpty) frames(0).gapBefore else 0
    def done = frameIdx >= frames.length
    val rx = dut.io.rx
    rx.valid #= false
    private var checkedThis = false
    if (vetoN > 0) { dut.io.rxVeto #= false; dut.io.rxChecked #= false }
    dut.rxCd.onSamplings {
      if (vetoN > 0) {
        if (vetoIn > 0) vetoIn -= 1
        val decideCycle = vetoIn == 0
        val v = if (decideCycle) vetoThis else rnd.nextInt(20) == 0
        if (v && !decideCycle) noise += 1
        dut.io.rxVeto #= v
        dut.io.rxChecked #= (if (decideCycle) checkedThis else rnd.nextBoolean())
        if (decideCycle) vetoIn = -1
      }
      if (done || gapLeft > 0) {
        if (gapLeft > 0) gapLeft -= 1
        rx.valid #= false
        rx.payload.data #= rnd.nextInt(256)
        rx.payload.last #= rnd.nextBoolean()
        rx.payload.error #= rnd.nextBoolean()
      } else {
        val f = frames(frameIdx)
        if (byteIdx == 0) f.startTime = simTime()
        val last = byteIdx == f.bytes.length - 1
        rx.valid #= true
        rx.payload.data #= f.bytes(byteIdx)
        rx.payload.last #= last
        rx.payload.error #= (if (last) f.error else rnd.nextBoolean())
        byteIdx += 1
        if (last) {
          if (vetoN > 0) {
            vetoIn = vetoN; vetoThis = rnd.nextInt(3) == 0; f.vetoed = vetoThis
            checkedThis = rnd.nextBoolean(); f.checked = checkedThis
          }
          byteIdx = 0
          frameIdx += 1
          if (!done) gapLeft = frames(frameIdx).gapBefore
        }
      }
    }
  }

  def runRx(name: String, cfg: EthBuffersConfig, clocks: Clocks, nFrames: Int, s: Int): Unit = {
    EthSim.compile(cfg).doSim(name, seed = s) { dut =>
      SimTimeout(4000L * 1000 * 1000 * 10)
      val rnd = new Random(s)
      dut.io.bus.cmd.valid #= false
      dut.io.mdio.mdio_i #= true
      dut.io.tx.ready #= false
      dut.io.rx.valid #= false
      EthSim.start(dut, clocks, rnd)
      val cd = dut.clockDomain
      val bus = new SimBusMaster(dut.io.bus, cd)
      bus.write(IRQ_ENABLE, 1)

      val frames = makeFrames(rnd, nFrames)
      val veto = cfg.rxVeto > 0
      // (in a veto build the vetoed good frames never reach the CPU; which ones is known once the driver has sent them)
      val allGood = frames.filter(_.good(cfg))
      val driver = new RxDriver(dut, frames, rnd)

      // The CPU: polls RX_STATUS, reads the frame word by word at a random pace, releases the slot.
      // Now and then it stops for a long time, so that the ring fills and frames are dropped.
      val delivered = mutable.ArrayBuffer[Frame]()
      val releaseTimes = mutable.ArrayBuffer[Long]()
      var nextGood = 0
      var idleAfterEnd = 0
      var wallStart = System.nanoTime()
      while (idleAfterEnd < 3) {
        val st = bus.read(RX_STATUS)
        if ((st & 1) == 1) {
          assert(dut.io.interrupt.toBoolean, "RX interrupt enabled and a frame waiting")
          val slot = ((st >> 8) & 0xFF).toInt
          val len = (st >>> 16).toInt
          assert(slot == delivered.length % cfg.rxSlots, s"frame ${delivered.length} in slot $slot: slots are used in ring order")
          val slow = rnd.nextInt(4) == 0
          val got = new Array[Int](len)
          for (w <- 0 until (len + 3) / 4) {
            if (slow) cd.waitSampling(rnd.nextInt(8))
            val word = bus.read(RX_BUF + slot * cfg.slotBytes + 4 * w)
            for (b <- 0 until 4 if 4 * w + b < len) got(4 * w + b) = ((word >> (8 * b)) & 0xFF).toInt
          }
          // The delivered frame must be the next good frame, or a later one (those between were dropped).
          // (a vetoed frame is flagged when its last beat is sent, before its commit could be decided)
          var j = nextGood
          while (j < allGood.length && (allGood(j).vetoed || !(allGood(j).bytes.length == len && java.util.Arrays.equals(allGood(j).bytes, got)))) j += 1
          assert(j < allGood.length, s"delivered frame #${delivered.length} (slot $slot, $len bytes) matches no good frame at or after #$nextGood " +
            s"(next expected: ${if (nextGood < allGood.length) allGood(nextGood).bytes.length else -1} bytes)")
          delivered += allGood(j)
          if (veto) assert(((st >> 1) & 1) == (if (allGood(j).checked) 1 else 0),
            s"frame ${allGood(j).index}: RX_STATUS.CHECKED ${(st >> 1) & 1}, io.rxChecked said ${allGood(j).checked}")
          else assert((st & 0xFE) == 0, "RX_STATUS bits 7:1 are 0 in a build without the veto")
          nextGood = j + 1
          bus.write(RX_RELEASE, 0)
          releaseTimes += simTime()
          idleAfterEnd = 0
          if (rnd.nextInt(150) == 0) cd.waitSampling(rnd.nextInt(20000)) // the CPU is busy elsewhere: the ring fills
        } else {
          if (driver.done) { idleAfterEnd += 1; cd.waitSampling(400) }
          else cd.waitSampling(rnd.nextInt(40))
        }
      }
      val simCycles = (simTime() / clocks.sys)

      // Counters and status.
      val bad = frames.filterNot(_.good(cfg))
      val expCrc = frames.count(_.error)
      val expRunt = frames.count(f => !f.error && f.bytes.length < cfg.minFrameBytes)
      val expOver = frames.count(f => !f.error && f.bytes.length > cfg.rxLimit)
      val good = allGood.filter(!_.vetoed)
      val vetoedGood = frames.count(f => f.good(cfg) && f.vetoed)
      val vetoedCount = if (veto) bus.read(RX_VETOED) else 0L
      val drops = good.length - delivered.length + (vetoedGood - vetoedCount).toInt
      assert(bus.read(RX_PENDING) == 0)
      assert(bus.read(CRC_ERRORS) == expCrc, "CRC_ERRORS")
      assert(bus.read(RUNTS) == expRunt, "RUNTS")
      assert(bus.read(OVERSIZE) == expOver, "OVERSIZE")
      assert(bus.read(RX_FRAMES) == delivered.length, "RX_FRAMES")
      assert(delivered.forall(!_.vetoed), "a vetoed frame reached the CPU")
      if (veto) assert(vetoedCount <= vetoedGood && vetoedCount > 0, s"RX_VETOED $vetoedCount of $vetoedGood vetoed good frames")
      assert(bus.read(RX_BYTES) == delivered.map(_.bytes.length.toLong).sum % (1L << 32), "RX_BYTES")
      assert(bus.read(RX_DROPS_FULL) == drops, "RX_DROPS_FULL == good frames neither delivered nor vetoed")
      assert(bus.read(STATUS) == 0, "no event lost in the crossing")
      assert(bus.read(TX_FRAMES) == 0 && bus.read(TX_ERRORS) == 0)

      // Drops only when the ring was full. At a frame's start the writer sees the releases made before it,
      // except those of the last few cycles (the pop pointer crosses through two eth_rx flops):
      //   optimistic = releases before the start; pessimistic = releases at least 3 eth_rx cycles before it.
      // A dropped frame needs committed - optimistic >= rxSlots; a frame must be taken if committed - pessimistic < rxSlots.
      val deliveredSet = delivered.map(_.index).toSet
      val times = releaseTimes.toIndexedSeq
      def releasedBefore(t: Long): Int = { var n = 0; while (n < times.length && times(n) < t) n += 1; n }
      var committed = 0
      var mustTake = 0
      val goodNow = good
      val vetoedSet = frames.filter(f => f.good(cfg) && f.vetoed)
      // (a vetoed frame with a slot leaves it free; one without a slot is a drop like any other: the counters say how
      // many of each, and the ring's accounting below leaves them out)
      for (f <- goodNow) {
        val taken = deliveredSet.contains(f.index)
        val opt = releasedBefore(f.startTime)
        val pess = releasedBefore(f.startTime - 3L * clocks.rx + 1)
        if (taken) assert(committed - opt < cfg.rxSlots, s"frame ${f.index} was committed while every slot was owned by the CPU")
        else assert(committed - opt >= cfg.rxSlots, s"frame ${f.index} dropped with a free slot ($committed committed, $opt released)")
        if (committed - pess < cfg.rxSlots) { mustTake += 1; assert(taken, s"frame ${f.index} must have been taken") }
        if (taken) committed += 1
      }
      val secs = (System.nanoTime() - wallStart) / 1e9
      println(f"[EthRx seed $s ${clocks.describe}, ${cfg.rxSlots} slots] frames ${frames.length}: good ${good.length} " +
        f"(delivered ${delivered.length}, dropped ring full $drops; $mustTake certainly had a slot, ${good.length - mustTake - (good.length - delivered.length)} within the crossing's uncertainty), crc $expCrc, runts $expRunt, oversize $expOver; " +
        (if (veto) f"vetoed ${vetoedSet.length} good frames ($vetoedCount counted RX_VETOED, the rest had no slot), ${frames.count(f => !f.good(cfg) && f.vetoed)} bad ones, ${driver.noise} noise pulses; " else "") +
        f"$simCycles sys cycles in $secs%.1f s")
      assert(delivered.length > good.length / 4, "the CPU model keeps up most of the time")
      assert(drops > 0, "the test must fill the ring at least once")
    }
  }

  test(s"rx: 10000 random frames, CPU at random speeds, sys 100 MHz, 8 slots (seed $seed)") {
    runRx("rx_sys100", EthBuffersConfig.default, Clocks(sys = 1000, rx = 800, tx = 798), 10000, seed)
  }
  test(s"rx: 4000 random frames, sys 50 MHz (slower than the line), 4 slots (seed ${seed + 1})") {
    runRx("rx_sys50", EthBuffersConfig.small, Clocks(sys = 2000, rx = 800, tx = 802), 4000, seed + 1)
  }
  test(s"rx: 4000 random frames, sys 40 MHz, 8 slots of 2 KiB (seed ${seed + 2})") {
    runRx("rx_sys40", EthBuffersConfig.default, Clocks(sys = 2500, rx = 800, tx = 800), 4000, seed + 2)
  }
  test(s"rx with the offload's veto: a third of the frames marked 5 cycles after their end are not committed (seed ${seed + 3})") {
    runRx("rx_veto", EthBuffersConfig.small.copy(rxVeto = 5), Clocks(sys = 1000, rx = 800, tx = 798), 4000, seed + 3)
  }
}
