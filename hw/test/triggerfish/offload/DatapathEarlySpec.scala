// Early fires through the whole datapath (DatapathTop built with them: OffloadRx, OrderEngine, the arbiter and the
// LiteEth GMII MAC with its poison input), driven and timed on the GMII pins as DatapathBenchSpec is (docs/DESIGN.md
// "Early trigger"):
//  - layouts: the paper's (the trade entry last in its message, one message per segment), the trade entry first in a
//    256-byte message, and coalesced segments (whole messages up to the MSS); each with EARLY_CTRL on, then off
//    (safe mode) in the same run: no missed or false fire, byte-exact orders (an early one may have zero bytes after
//    it while its verdict was awaited), and the trigger-to-TX_EN latency of an early fire pinned, the same in every
//    layout;
//  - corruption after the price: a bad FCS, a bad TCP checksum, a FIX CheckSum that does not match: each crossing of
//    such a segment fires early and its order leaves poisoned (its last FCS byte inverted on the pins, a POISONED
//    record), and the next order takes the numbers the poisoned one had.
package triggerfish.offload

import org.scalatest.funsuite.AnyFunSuite
import spinal.core.sim._
import triggerfish.soc.TfSim
import scala.collection.mutable.ArrayBuffer

class DatapathEarlySpec extends AnyFunSuite {
  import DatapathSim._
  val seed = TfSim.seed(65)

  def withRun(crossEvery: Int)(body: DatapathRun => Unit): Unit =
    DatapathSim.compiledEarly.doSim("datapath_early", seed = seed) { dut =>
      DatapathBench.startClock(dut)
      val r = new DatapathRun(dut, seed, crossEvery)
      r.pump(); r.setup(); r.firmware()
      body(r)
      r.stopFw = true; r.stopPump = true
      dut.clockDomain.waitSampling(Period * 2)
    }
  def onePerSegment(r: DatapathRun, msgs: Int, size: Int): PhaseResult = {
    var left = msgs
    r.phase(() => if (left == 0) None else { left -= 1; val (m, e, _) = r.nextMessage(size); Some(r.segment(Seq((m, e)))) })
  }
  def packed(r: DatapathRun, msgs: Int, size: Int): PhaseResult = {
    var left = msgs
    var pending: Option[(String, Option[Int], Int)] = None
    r.phase(() => if (left == 0 && pending.isEmpty) None else {
      val seg = ArrayBuffer[(String, Option[Int])]()
      var len = 0
      var full = false
      while (!full && (pending.nonEmpty || left > 0)) {
        val x = pending.getOrElse { left -= 1; r.nextMessage(size) }
        pending = None
        if (seg.isEmpty || len + x._1.length <= Mss) { seg += ((x._1, x._2)); len += x._1.length } else { pending = Some(x); full = true }
      }
      Some(r.segment(seg.toSeq))
    })
  }
  def setEarly(r: DatapathRun, on: Boolean): Unit = {
    r.pauseFirmware()
    r.rxBus.write(r.rxOff("EARLY_CTRL"), if (on) 1 else 0)
    r.rxCmd(OffloadRx.Op.CONFIG)
    r.resumeFirmware()
  }
  def fmt(s: Stat): String = if (s.count == 0) "-" else f"${s.min}/${s.avg}%.1f/${s.max} (${s.count})"

  test(s"layouts, early then safe: early orders start a fixed time after the price, whatever follows it (seed $seed)") {
    withRun(crossEvery = 12) { r =>
      val rows = ArrayBuffer[(String, Boolean, PhaseResult)]()
      for (early <- Seq(true, false)) {
        setEarly(r, early)
        r.tradeFirst = false
        rows += (("paper layout: trade last, one W of 256 per segment", early, onePerSegment(r, 240, 256)))
        r.tradeFirst = true
        rows += (("trade first in a W of 256, one per segment", early, onePerSegment(r, 240, 256)))
        rows += (("coalesced: W of 256, trade first, up to the MSS", early, packed(r, 480, 256)))
      }
      println(f"[datapath_early] ${"layout"}%-52s ${"mode"}%5s ${"fires"}%5s ${"early"}%5s  ${"T2T early"}%16s ${"T2T all"}%20s ${"EOF2SOF"}%20s")
      for ((name, early, p) <- rows)
        println(f"[datapath_early] $name%-52s ${if (early) "early" else "safe"}%5s ${p.hwFires.length}%5d ${p.hwFires.count(_.early)}%5d  " +
          f"${fmt(Stat.of(p.lats.filter(_.early).map(_.t2t)))}%16s ${fmt(p.t2t)}%20s ${fmt(p.eof2sof)}%20s")
      for ((name, early, p) <- rows) {
        val what = s"$name (${if (early) "early" else "safe"})"
        assert(p.missed == 0 && p.falseFires == 0 && p.cleanOrders && p.unintended == 0, s"$what: missed ${p.missed}, false ${p.falseFires}, byte-exact ${p.cleanOrders}")
        assert(p.hwFires.length >= 15 && p.poisoned.isEmpty, s"$what: ${p.hwFires.length} fires, ${p.poisoned.length} poisoned")
        assert(p.rxCounters("SEG_BAD") == 0 && p.rxCounters("FIX_ERRORS") == 0)
        if (!early) assert(p.hwFires.forall(!_.early) && p.sent.forall(_.status == OrderEngine.St.SENT), s"$what: an early fire in safe mode")
      }
      // One crossing per segment: every fire early. Coalesced: the first crossing of a segment fires early, a second
      // one in the same segment at its end (safe).
      for ((name, early, p) <- rows.take(2)) assert(p.hwFires.forall(_.early) && p.sent.forall(_.status == OrderEngine.St.SENT_EARLY), name)
      assert(rows(2)._3.hwFires.count(_.early) >= rows(2)._3.hwFires.length / 2, "coalesced: most fires early")
      // Pinned, measured: trigger (the SOH ending the crossing 270 on the RX pins) to TX_EN of an early order, cycles,
      // the same in every layout; a change in the datapath's latency must be a deliberate edit here.
      // 19: 6 from the pins through LiteEth's receive path (its FCS check holds 4 bytes back), 6 in the parser (the
      // scanner's register, the table's lookup and crossing at lag 3, the fire register), 7 from the fire to TX_EN (the
      // engine's crossing and start, the arbiter, the MAC's transmit path).
      val ExpectedEarlyT2T = 19
      for ((name, true, p) <- rows) {
        val t = p.lats.filter(_.early).map(_.t2t)
        assert(t.nonEmpty && t.forall(_ == ExpectedEarlyT2T), s"$name: early T2T ${Stat.of(t)}")
      }
    }
  }

  test(s"corruption after the price: bad FCS, bad TCP checksum, bad FIX CheckSum; each order poisoned, its numbers reused (seed $seed)") {
    withRun(crossEvery = 1) { r =>
      setEarly(r, true)
      r.tradeFirst = true
      val kinds = Seq("good", "fcs", "tcp", "fixsum")
      var k = 0
      val made = scala.collection.mutable.Map[String, Int]().withDefaultValue(0)     // crossings per kind
      val frames = scala.collection.mutable.Map[String, Int]().withDefaultValue(0)   // segments per kind
      val p = r.phase(() => if (k == 160) None else {
        val kind = kinds(k % 4); k += 1
        val (m0, e, _) = r.nextMessage(256)
        // a byte of the padding after the trade entry, 12 bytes before "10=": a letter, changed to another one
        val at = m0.lastIndexOf("\u000110=") - 12
        require(m0.charAt(at).isLetter, s"not a padding letter: ${m0.substring(at - 5, at + 5)}")
        val m1 = m0.updated(at, if (m0.charAt(at) == 'A') 'B' else 'A')
        if (e.isDefined) made(kind) += 1
        frames(kind) += 1
        Some(kind match {
          case "good" => r.segment(Seq((m0, e)))
          case "fcs" => r.segment(Seq((m0, e)), corrupt = Some(_ => ()), fcsBad = true)
          case "tcp" => r.segment(Seq((m0, e)), corrupt = Some(b => b(54 + at) = m1.charAt(at).toInt))   // the TCP checksum not redone
          case _ => r.segment(Seq((m1, e)), corrupt = Some(_ => ()))   // the frame is good, the message's CheckSum is not
        })
      })
      import OrderEngine.St
      println(s"[datapath_early] corruption: crossings $made; records ${p.framed.groupBy(_.status).map { case (s, x) => s -> x.length }}, " +
        s"fires ${p.hwFires.length} (${p.hwFires.count(_.early)} early), SEG_BAD ${p.rxCounters("SEG_BAD")}, FIX_ERRORS ${p.rxCounters("FIX_ERRORS")}")
      assert(p.missed == 0 && p.falseFires == 0 && p.cleanOrders && p.unintended == 0, s"missed ${p.missed}, false ${p.falseFires}, byte-exact (a poisoned one with its last FCS byte inverted) ${p.cleanOrders}")
      assert(p.poisoned.length == made("fcs") + made("tcp") + made("fixsum") && p.sent.length == made("good"),
        s"poisoned ${p.poisoned.length}, sent ${p.sent.length}, crossings $made")
      assert(p.sent.forall(_.status == St.SENT_EARLY))
      // The numbers: a poisoned order's are the next order's.
      var next: Option[(Long, Long, Int)] = None
      for (rec <- p.framed) {
        for (n <- next) assert((rec.seq, rec.msgSeq, rec.ipId) == n, s"record $rec: expected the numbers $n")
        next = Some(if (rec.status == St.POISONED) (rec.seq, rec.msgSeq, rec.ipId)
                    else ((rec.seq + rec.plen) & 0xFFFFFFFFL, rec.msgSeq + 1, (rec.ipId + 1) & 0xFFFF))
      }
      assert(p.rxCounters("SEG_BAD") == frames("fcs") + frames("tcp") && p.rxCounters("FIX_ERRORS") == frames("fixsum"),
        s"SEG_BAD ${p.rxCounters("SEG_BAD")}, FIX_ERRORS ${p.rxCounters("FIX_ERRORS")}")
    }
  }
}
