// Early fires through the whole datapath (DatapathTop built with them: OffloadRx, OrderEngine, the arbiter and the
// LiteEth GMII MAC with its poison input and raw stream, the parser on the lean tap EthRxLeanTap), driven and timed on the GMII pins as DatapathBenchSpec is (docs/DESIGN.md
// "Early trigger"); the same runs as `make bench`'s (DatapathBench part 3), fewer fires:
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
import triggerfish.soc.TfSim

class DatapathEarlySpec extends AnyFunSuite {
  import DatapathBench._
  val seed = TfSim.seed(65)
  lazy val res: EarlyResult = runEarly(fires = 20, crossEvery = 12, seed = seed)

  test(s"layouts, early then safe: early orders start a fixed time after the price, whatever follows it (seed $seed)") {
    for (w <- res.rows) {
      val what = s"${w.layout} (${if (w.early) "early" else "safe"})"
      val p = w.p
      assert(p.missed == 0 && p.falseFires == 0 && p.cleanOrders && p.unintended == 0, s"$what: missed ${p.missed}, false ${p.falseFires}, byte-exact ${p.cleanOrders}")
      assert(p.hwFires.length >= 20 && p.poisoned.isEmpty, s"$what: ${p.hwFires.length} fires, ${p.poisoned.length} poisoned")
      assert(p.rxCounters("SEG_BAD") == 0 && p.rxCounters("FIX_ERRORS") == 0)
      assert(p.rxCounters("FIRES") == p.hwFires.length, s"$what: FIRES ${p.rxCounters("FIRES")}, fires ${p.hwFires.length} (early ones counted too)")
      if (!w.early) assert(p.hwFires.forall(!_.early) && p.sent.forall(_.status == OrderEngine.St.SENT), s"$what: an early fire in safe mode")
      assert(w.ok)
    }
    // One crossing per segment: every fire early. Coalesced: the first crossing of a segment fires early, a second
    // one in the same segment at its end (safe).
    for (w <- res.rows.take(2)) assert(w.p.hwFires.forall(_.early) && w.p.sent.forall(_.status == OrderEngine.St.SENT_EARLY), w.layout)
    assert(res.rows(2).p.hwFires.count(_.early) >= res.rows(2).p.hwFires.length / 2, "coalesced: most fires early")
    // Pinned, measured: trigger (the SOH ending the crossing 270 on the RX pins) to TX_EN of an early order, cycles,
    // the same in every layout; a change in the datapath's latency must be a deliberate edit here.
    // 13: 1 from the pins to the MAC's raw stream (its PHY register; the lean tap, EthRxLeanTap, passes the byte on in
    // that cycle: 18 when the parser read LiteEth's own stream, whose FCS check holds 4 bytes back behind a buffer), 5
    // in the parser (the registered byte, the scanner, the table's lookup and the crossing at lag 3, the fire in that
    // cycle), 7 from the fire to TX_EN (the engine's crossing and start, the arbiter, the MAC's transmit path).
    val ExpectedEarlyT2T = 13
    for (w <- res.rows if w.early) {
      val t = w.p.lats.filter(_.early).map(_.t2t)
      assert(t.nonEmpty && t.forall(_ == ExpectedEarlyT2T), s"${w.layout}: early T2T ${w.t2tEarly}")
    }
    // Safe mode, the same layouts: EOF2SOF 12 in every row (DatapathBenchSpec's); T2T the wire time of what follows the
    // price plus that: with the trade first or inside a coalesced segment, most of a message or of a segment.
    for (w <- res.rows if !w.early) assert(w.p.eof2sof.min == 12 && w.p.eof2sof.max == 12, s"${w.layout}, safe: EOF2SOF ${w.p.eof2sof}")
    assert(res.rows(4).p.t2t.min > 150 && res.rows(5).p.t2t.max > 1000, s"safe, trade first ${res.rows(4).p.t2t}, coalesced ${res.rows(5).p.t2t}")
  }

  test(s"corruption after the price: bad FCS, bad TCP checksum, bad FIX CheckSum; each order poisoned, its numbers reused (seed $seed)") {
    val c = res.corruption
    val p = c.p
    assert(p.missed == 0 && p.falseFires == 0 && p.cleanOrders && p.unintended == 0, s"missed ${p.missed}, false ${p.falseFires}, byte-exact (a poisoned one with its last FCS byte inverted) ${p.cleanOrders}")
    assert(c.bad(c.crossings) >= 15 && p.poisoned.length == c.bad(c.crossings) && p.sent.length == c.crossings("good"),
      s"poisoned ${p.poisoned.length}, sent ${p.sent.length}, crossings ${c.crossings}")
    assert(p.sent.forall(_.status == OrderEngine.St.SENT_EARLY))
    assert(c.numbersOk, "a poisoned order's numbers are the next order's")
    assert(p.rxCounters("FIRES") == p.hwFires.length, s"FIRES ${p.rxCounters("FIRES")}, fires ${p.hwFires.length} (poisoned ones counted too)")
    assert(p.rxCounters("SEG_BAD") == c.segments("fcs") + c.segments("tcp") && p.rxCounters("FIX_ERRORS") == c.segments("fixsum"),
      s"SEG_BAD ${p.rxCounters("SEG_BAD")}, FIX_ERRORS ${p.rxCounters("FIX_ERRORS")}, segments ${c.segments}")
    assert(c.ok)
  }
}
