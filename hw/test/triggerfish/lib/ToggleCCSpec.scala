// ToggleCC, the offload's shared clock-domain crossing: random payloads pushed at random moments through unrelated
// clocks of random periods (and through the same edges), taken after random delays from `early` or `valid`. Checked
// against the transfers as pushed (a queue: every payload arrives once, in order, none invented), and at every
// destination cycle: the payload does not change while a transfer is there, `idle` and `earlyAhead` agree with
// early/valid/take. With the same edges the timing is pinned (figures written in the test, from ToggleCC's header):
// push in c -> early in c+2, valid in c+3; take in t -> push.ready and acked in t+3+ackDelay.
// Replay with TF_SEED=<seed> ./mill -i hw.test.testOnly 'triggerfish.lib.ToggleCCSpec'
package triggerfish.lib

import org.scalatest.funsuite.AnyFunSuite
import spinal.core._
import spinal.core.sim._
import spinal.lib._
import triggerfish.soc.TfSim
import scala.collection.mutable
import scala.util.Random

class ToggleCCTop(val ackDelay: Int) extends Component {
  val srcCd = ClockDomain.external("src")
  val dstCd = ClockDomain.external("dst")
  val cc = ToggleCC(Bits(20 bits), srcCd, dstCd, ackDelay)
  val io = new Bundle {
    val push = slave(Stream(Bits(20 bits)))
    val acked = out Bool()
    val payload = out Bits(20 bits)
    val early, earlyAhead, valid, idle = out Bool()
    val take = in Bool()
    val takeOnEarly = in Bool()   // take in the cycle `early` shows, before `valid` (as when the second flop lags)
    val taken = out Bool()
  }
  cc.io.push << io.push
  io.acked := cc.io.acked
  io.payload := cc.io.payload
  io.early := cc.io.early; io.earlyAhead := cc.io.earlyAhead; io.valid := cc.io.valid; io.idle := cc.io.idle
  cc.io.take := io.take || (io.takeOnEarly && cc.io.early && !cc.io.valid)
  io.taken := cc.io.take
}

class ToggleCCSpec extends AnyFunSuite {
  val seed = TfSim.seed(31)
  lazy val compiled = Seq(0, 2).map(d => d -> TfSim.config.compile(new ToggleCCTop(d).setDefinitionName(s"ToggleCCTop_d$d"))).toMap

  def start(dut: ToggleCCTop, srcP: Int, dstP: Int, sameEdges: Boolean, rnd: Random): Unit = {
    for ((cd, p) <- Seq((dut.srcCd, srcP), (dut.dstCd, dstP))) cd.forkStimulus(p.toLong, if (sameEdges) 0 else rnd.nextInt(p), 16)
    for (cd <- Seq(dut.srcCd, dut.dstCd)) { cd.waitSampling(); cd.waitSamplingWhere(!cd.isResetAsserted) }
  }

  /** Pushes `n` random payloads at random moments and takes them after random delays; checks order, stability and the
    * outputs' consistency. Returns the number of transfers taken from `early` (before `valid`). */
  def run(ackDelay: Int, srcP: Int, dstP: Int, sameEdges: Boolean, n: Int, rnd: Random): Int = {
    var fromEarly = 0
    compiled(ackDelay).doSim(s"toggle_${ackDelay}_${srcP}_${dstP}", rnd.nextInt()) { dut =>
      dut.io.push.valid #= false
      dut.io.take #= false
      dut.io.takeOnEarly #= false
      start(dut, srcP, dstP, sameEdges, rnd)
      val sent = mutable.Queue[Long]()
      var received = 0
      // source: random gaps, a new random payload each time; the payload may change while not accepted (a
      // Stream's payload is only taken at fire)
      val srcThread = fork {
        var pushed = 0
        while (pushed < n) {
          dut.io.push.valid #= rnd.nextInt(3) != 0
          dut.io.push.payload #= rnd.nextInt(1 << 20)
          dut.srcCd.waitSampling()
          // (after waitSampling the signals read as the edge sampled them: this is a transfer at that edge)
          if (dut.io.push.valid.toBoolean && dut.io.push.ready.toBoolean) {
            sent.enqueue(dut.io.push.payload.toLong); pushed += 1
          }
        }
        dut.io.push.valid #= false
      }
      // destination: takes a transfer 0..5 cycles after it shows (from early or valid, at random)
      var wait = -1
      var held: Option[Long] = None
      while (received < n) {
        val early = dut.io.early.toBoolean; val valid = dut.io.valid.toBoolean
        val take = dut.io.taken.toBoolean
        assert(dut.io.idle.toBoolean == (!early && !valid), "idle is neither early nor valid")
        assert(dut.io.earlyAhead.toBoolean == (if (take) !early else early), "earlyAhead is early after this cycle's take")
        if (take) {
          assert(sent.nonEmpty, "a transfer arrived that was not pushed")
          val exp = sent.dequeue()
          assert(dut.io.payload.toLong == exp, f"payload ${dut.io.payload.toLong}%x, pushed $exp%x")
          received += 1
          if (!valid) fromEarly += 1
          held = None; wait = -1
        } else if (early || valid) {
          held match {
            case Some(p) => assert(dut.io.payload.toLong == p, "the payload changed while a transfer was there")
            case None => held = Some(dut.io.payload.toLong)
          }
        }
        // drive the next cycle's take (only while a transfer is there and not taken now)
        val there = (early || valid) && !take
        if (there && wait < 0) wait = rnd.nextInt(6)
        val takeNext = there && wait == 0 && (valid || rnd.nextBoolean())
        if (there && wait > 0) wait -= 1
        dut.io.take #= takeNext
        dut.io.takeOnEarly #= rnd.nextInt(4) == 0
        dut.dstCd.waitSampling()
      }
      dut.io.take #= false
      dut.dstCd.waitSampling(10)
      assert(!dut.io.early.toBoolean && !dut.io.valid.toBoolean, "a transfer arrived after the last one")
      assert(sent.isEmpty)
      srcThread.join()
    }
    fromEarly
  }

  test(s"random payloads through unrelated clocks, every one once and in order (seed $seed)") {
    val rnd = new Random(seed)
    var early = 0
    for (i <- 0 until 6) {
      val (a, b) = (20 + rnd.nextInt(200), 20 + rnd.nextInt(200))
      early += run(if (i % 2 == 0) 0 else 2, a, b, sameEdges = false, 300, rnd)
    }
    assert(early > 0, "no transfer was taken from early: that path went untested")
  }

  test("same edges: early in c+2, valid in c+3 after a push in c; push.ready and acked in t+3+ackDelay after a take in t") {
    for (d <- Seq(0, 2)) compiled(d).doSim(s"toggle_timing_$d", 1) { dut =>
      dut.io.push.valid #= false
      dut.io.take #= false
      dut.io.takeOnEarly #= false
      start(dut, 10, 10, sameEdges = true, new Random(1))
      dut.srcCd.waitSampling(5)
      var cycle = 0
      var pushAt, earlyAt, validAt, takeAt, readyAt, ackedAt = -1
      dut.io.push.valid #= true
      dut.io.push.payload #= 0x12345
      while (ackedAt < 0 && cycle < 40) {
        dut.srcCd.waitSampling()  // (same edges: one sampling point for both; signals read as that edge sampled them)
        if (dut.io.push.valid.toBoolean && dut.io.push.ready.toBoolean && pushAt < 0) { pushAt = cycle; dut.io.push.valid #= false }
        if (dut.io.early.toBoolean && earlyAt < 0) earlyAt = cycle
        if (dut.io.valid.toBoolean && validAt < 0) validAt = cycle
        // (a take driven now is sampled at the next edge: the cycle it is in reads as cycle + 1)
        if (validAt >= 0 && takeAt < 0) { assert(dut.io.payload.toLong == 0x12345); dut.io.take #= true; takeAt = cycle + 1 }
        else dut.io.take #= false
        if (takeAt >= 0 && cycle > takeAt && dut.io.push.ready.toBoolean && readyAt < 0) readyAt = cycle
        if (dut.io.acked.toBoolean) ackedAt = cycle
        cycle += 1
      }
      // the push's cycle is the one sampled with valid && ready: the registers load at the end of it
      assert(earlyAt - pushAt == 2, s"early ${earlyAt - pushAt} cycles after the push")
      assert(validAt - pushAt == 3, s"valid ${validAt - pushAt} cycles after the push")
      assert(readyAt - takeAt == 3 + d, s"ackDelay $d: push.ready ${readyAt - takeAt} cycles after the take")
      assert(ackedAt == readyAt, s"acked in $ackedAt, push.ready in $readyAt")
    }
  }
}
