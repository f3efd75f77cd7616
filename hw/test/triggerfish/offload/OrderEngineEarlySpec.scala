// The order engine with early fires (OrderEngineConfig.early; docs/DESIGN.md "Early trigger"): the engine's random
// test with two fires in three early, each with a verdict (one in four bad) given at a random time after it: before the
// order starts, while it is on the wire, after its last byte (the frame padded with zero bytes meanwhile), or after
// the 1,514th byte. The reference: an early order's frame is the order byte for byte, then only zero bytes, at most
// 1,514 in all; SENT_EARLY only after a good verdict that came before the frame's end; POISONED (the MAC's poison flag
// with the last beat) after a bad one or none by the 1,514th byte, and then the numbers are not taken: the next frame
// uses them (OrderEngineSpec's check of one contiguous TCP sequence and MsgSeqNum order over every frame).
package triggerfish.offload

import org.scalatest.funsuite.AnyFunSuite
import spinal.core.sim._
import triggerfish.soc.TfSim
import OrderSim._
import scala.util.Random

class OrderEngineEarlySpec extends AnyFunSuite {
  val seed = TfSim.seed(63)
  val base = new OrderEngineSpec { override val cfg = OrderEngineConfig(early = true) }
  test(s"early and safe fires, random verdicts, idle sessions, sends, CPU frames; same-edge 125 MHz clocks; latency exactly ${base.ExpectedFireToMacCycles} (seed $seed)") {
    base.runRandom("early_same_edge", Clocks(sys = 800, rx = 800, tx = 800, sameEdges = true), 2000, seed, cpuTraffic = true)
  }
  test(s"the same with unrelated clocks: rx 8 ns, tx 8.1 ns, sys 10 ns (seed ${seed + 1})") {
    base.runRandom("early_async", Clocks(sys = 1000, rx = 800, tx = 810), 1500, seed + 1, cpuTraffic = true)
  }
  test(s"burst: 40 early and safe fires on consecutive cycles overflow the queue; the dropped ones' verdicts are dropped, later fires get their own (seed $seed)") {
    compile(base.cfg).doSim("early_burst", seed = seed) { dut =>
      SimTimeout(4000L * 1000 * 1000 * 100)
      val rnd = new Random(seed)
      val clocks = Clocks(800, 800, 800, sameEdges = true)
      val b = base.makeBench(dut, clocks, rnd)
      import b._
      init(seq = 1000, msg = 1, ipId = 0, win = 1024, timeMs = 0, div = 124999)
      fireGroup((0 until 16) ++ (0 until 16) ++ (0 until 8))
      var quiet = 0
      while (quiet < 5) { if (drain() == 0) quiet += 1 else quiet = 0; sysCd.waitSampling(2000) }
      val ovf = bus.read(RX_OVERFLOW)
      assert(ovf >= 20, s"a 40-fire burst overflows the 16-entry queue (overflow $ovf)")
      val overflowEarly = fires.drop(40 - ovf.toInt).count(_.early)
      assert(overflowEarly > 0, "some of the dropped fires were early")
      // Then single fires, re-armed between them: a verdict of a dropped fire forwarded by mistake would be taken for
      // one of these (and a bad one's order sent with a good FCS, or the other way round).
      for (_ <- 0 until 40) {
        fireGroup(Seq(rnd.nextInt(16)))
        dut.rxCd.waitSampling(300 + rnd.nextInt(2500))
        drain(); rearm()
      }
      finish(fires.length, "early_burst")
      import OrderEngine.St
      println(s"[early_burst] rx overflow $ovf ($overflowEarly of them early), then 40 single fires: records $counts")
    }
  }
}
