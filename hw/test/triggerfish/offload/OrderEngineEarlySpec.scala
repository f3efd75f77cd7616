// The order engine with early fires (OrderEngineConfig.early; docs/DESIGN.md "Early trigger"): the engine's random
// test with two fires in three early, each with a verdict (one in four bad) given at a random time after it: before the
// order starts, while it is on the wire, after its last byte (the frame padded with zero bytes meanwhile), or after
// the 1,514th byte. The reference: an early order's frame is the order byte for byte, then only zero bytes, at most
// 1,514 in all; SENT_EARLY only after a good verdict that came before the frame's end; POISONED (the MAC's poison flag
// with the last beat) after a bad one or none by the 1,514th byte, and then the numbers are not taken: the next frame
// uses them (OrderEngineSpec's check of one contiguous TCP sequence and MsgSeqNum order over every frame).
package triggerfish.offload

import org.scalatest.funsuite.AnyFunSuite
import triggerfish.soc.TfSim
import OrderSim._

class OrderEngineEarlySpec extends AnyFunSuite {
  val seed = TfSim.seed(63)
  val base = new OrderEngineSpec { override val cfg = OrderEngineConfig(early = true) }
  test(s"early and safe fires, random verdicts, idle sessions, sends, CPU frames; same-edge 125 MHz clocks; latency exactly ${base.ExpectedFireToMacCycles} (seed $seed)") {
    base.runRandom("early_same_edge", Clocks(sys = 800, rx = 800, tx = 800, sameEdges = true), 2000, seed, cpuTraffic = true)
  }
  test(s"the same with unrelated clocks: rx 8 ns, tx 8.1 ns, sys 10 ns (seed ${seed + 1})") {
    base.runRandom("early_async", Clocks(sys = 1000, rx = 800, tx = 810), 1500, seed + 1, cpuTraffic = true)
  }
}
