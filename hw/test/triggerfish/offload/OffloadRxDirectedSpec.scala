// OffloadRx, directed cases: each corner of the parser and the trigger table on its own, checked against the
// reference model (fires, their fields, stamps and latency, counters), plus a few absolute expectations.
// Replay with TF_SEED=<seed> ./mill -i hw.test.testOnly triggerfish.offload.OffloadRxDirectedSpec
package triggerfish.offload

import org.scalatest.funsuite.AnyFunSuite
import spinal.core.sim._
import triggerfish.soc.TfSim
import scala.util.Random
import Fix.SOH

class OffloadRxDirectedSpec extends AnyFunSuite {
  val seed = TfSim.seed(21)
  lazy val compiled = OffloadRxSim.compile(OffloadRxConfig(entries = 64))

  def run(name: String, s: Int = seed)(body: OffloadRxHarness => Unit): Unit =
    compiled.doSim(name, seed = s) { dut =>
      SimTimeout(200L * 1000 * 1000 * 100)
      val h = new OffloadRxHarness(dut, new Random(s))
      body(h)
      h.drain()
      h.checkFires()
      h.checkCounters()
      assert(h.armedBits == h.modelArmedBits, s"ARMED ${h.armedBits.toString(16)}, model ${h.modelArmedBits.toString(16)}")
    }

  def w(sym: String, trades: Seq[String], extra: Seq[(String, String)] = Nil): String =
    Fix.message(Seq("35" -> "W", "34" -> "2", "49" -> "EXCH", "56" -> "TF", "55" -> sym, "268" -> trades.length.toString) ++
      trades.flatMap(p => Seq("269" -> "2", "270" -> p, "271" -> "100")) ++ extra)

  test(s"one trade crosses a buy stop and a sell stop at equality, not one unit away (seed $seed)") {
    run("basic") { h =>
      h.configure(decimals = 2)
      h.loadSeq(1000)
      h.writeEntry(0, ModelEntry("AAPL", 117025, sell = false, tmpl = 3))    // buy stop 1170.25
      h.writeEntry(1, ModelEntry("AAPL", 117025, sell = true, tmpl = 4))     // sell stop 1170.25
      h.writeEntry(2, ModelEntry("AAPL", 117026, sell = false, tmpl = 5))    // not reached
      h.writeEntry(3, ModelEntry("AAPL", 117024, sell = true, tmpl = 6))     // not reached
      h.writeEntry(4, ModelEntry("MSFT", 100, sell = false, tmpl = 7))       // other symbol
      val msg = Fix.bytes(w("AAPL", Seq("1170.25")))
      h.send(h.tcp(1000, msg).bytes)
      h.drain()
      assert(h.hwFires.map(_.trigger) == Seq(0, 1), s"fires ${h.hwFires}")
      assert(h.hwFires.forall(f => f.price == 117025 && f.ackSeq == 1000 + msg.length))
    }
  }
}
