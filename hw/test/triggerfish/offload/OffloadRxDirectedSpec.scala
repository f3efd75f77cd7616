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

  /** A connection: sends in-order segments and keeps the sequence number. */
  class Conn(val h: OffloadRxHarness, var seq: Long) {
    def seg(payload: Seq[Int], flags: Int = 0x18, fcsErr: Boolean = false, gap: Int = -1): Unit = {
      h.send(h.tcp(seq, payload, flags).bytes, fcsErr, gap); seq = (seq + payload.length) & 0xFFFFFFFFL
    }
  }
  def setup(h: OffloadRxHarness, decimals: Int = 2, seq: Long = 5000): Conn = {
    h.configure(decimals = decimals); h.loadSeq(seq); new Conn(h, seq)
  }

  test(s"a message split in two segments at every byte position fires once, after the second (seed $seed)") {
    run("split_every") { h =>
      val c = setup(h)
      h.writeEntry(5, ModelEntry("IBM", 10000, oneShot = false, tmpl = 9))   // buy stop 100.00, stays armed
      val m = Fix.bytes(w("IBM", Seq("99.5", "100.25", "98")))
      for (k <- 1 until m.length) { c.seg(m.take(k)); c.seg(m.drop(k)) }
      h.drain()
      assert(h.hwFires.length == m.length - 1 && h.hwFires.forall(f => f.trigger == 5 && f.price == 10025))
    }
  }

  test(s"after a corrupt copy of the second half (bad TCP sum, bad FCS, altered price) the good copy fires once (seed $seed)") {
    run("split_corrupt") { h =>
      val c = setup(h)
      h.writeEntry(7, ModelEntry("MSFT", 25000, sell = true, oneShot = false, tmpl = 1))   // sell stop 250.00
      val m = Fix.bytes(w("MSFT", Seq("249.99")))
      val other = Fix.bytes(w("MSFT", Seq("251.00")))
      for (k <- 1 until m.length) {
        c.seg(m.take(k))
        val second = m.drop(k)
        val t = h.tcp(c.seq, second)
        k % 4 match {
          case 0 => h.send(t.copy(badTcpSum = true).bytes)
          case 1 => h.send(t.bytes, fcsErr = true)
          case 2 => h.send(t.copy(payload = other.drop(k).padTo(second.length, '0'.toInt).take(second.length), badTcpSum = true).bytes)
          case _ => h.send(t.copy(totalLenDelta = 3).bytes)   // truncated
        }
        c.seg(second)
      }
      h.drain()
      assert(h.hwFires.length == m.length - 1 && h.hwFires.forall(_.price == 24999))
    }
  }

  test(s"twenty messages in one segment: fires in table order on consecutive cycles, 3 cycles after the last beat (seed $seed)") {
    run("coalesced") { h =>
      val c = setup(h)
      for (j <- 0 until 20) h.writeEntry(63 - 3 * j, ModelEntry("AAPL", 10000 + 10 * j, tmpl = j % 16))
      val msgs = (0 until 20).map(j => w("AAPL", Seq(Fix.price(10000 + 10 * j, 2, 2)))).mkString
      c.seg(Fix.bytes(msgs))
      h.drain()
      assert(h.hwFires.map(_.trigger) == (0 until 20).map(j => 63 - 3 * j).sorted)
      assert(h.hwFires.map(_.cycle).sliding(2).forall(p => p(1) == p(0) + 1))
    }
  }

  test(s"all 64 entries fire from one segment, one per cycle (seed $seed)") {
    run("all64") { h =>
      val c = setup(h, decimals = 0)
      for (j <- 0 until 64) h.writeEntry(j, ModelEntry(if (j % 2 == 0) "GE" else "T", 1000 + j, sell = j % 3 == 0, tmpl = j % 16))
      c.seg(Fix.bytes(w("GE", Seq("1100", "900")) + w("T", Seq("1100", "900"))))
      h.drain()
      assert(h.hwFires.length == 64 && h.hwFires.map(_.trigger) == (0 until 64))
      assert(h.armedBits == 0, "one-shot entries disarm themselves")
    }
  }

  test(s"more prices that newly cross than the trade log holds: the fires still happen, the extra records are marked invalid (seed $seed)") {
    run("log_overflow") { h =>
      val c = setup(h, decimals = 0)
      for (j <- 0 until 20) h.writeEntry(j, ModelEntry("A", 100 + j))
      // each trade crosses exactly one more entry than the last
      c.seg(Fix.bytes((0 until 20).map(j => w("A", Seq((100 + j).toString))).mkString))
      h.drain()
      assert(h.hwFires.length == 20 && h.hwFires.count(!_.recordValid) == 20 - 14, s"${h.hwFires}")
    }
  }

  test(s"out of order, duplicates, partial overlaps, other connections, RST/SYN/fragments, FIN (seed $seed)") {
    run("tcp") { h =>
      val c = setup(h)
      h.writeEntry(1, ModelEntry("GE", 1000, oneShot = false))
      val m = Fix.bytes(w("GE", Seq("10.00")))
      val t = h.tcp(c.seq, m)
      h.send(h.tcp((c.seq + m.length) & 0xFFFFFFFFL, m).bytes)          // future: ignored
      h.send(t.copy(srcPort = OffloadRxSim.peerPort + 1).bytes)        // other connection
      h.send(t.copy(dstIp = OffloadRxSim.ourIp + 1).bytes)
      h.send(t.copy(flags = 0x14).bytes)                               // RST
      h.send(t.copy(flags = 0x02).bytes)                               // SYN
      h.send(t.copy(fragField = 0x2000).bytes)                         // more fragments
      h.send(t.copy(ipOptions = Seq(1, 1, 1, 1), tcpOptions = Seq(1, 1, 1, 1)).bytes)   // in order: fires
      c.seq = (c.seq + m.length) & 0xFFFFFFFFL
      h.send(t.bytes)                                                  // duplicate: ignored
      val m2 = Fix.bytes(w("GE", Seq("10.50")))
      h.send(h.tcp((c.seq - 30) & 0xFFFFFFFFL, m.takeRight(30) ++ m2).bytes)   // overlaps the last 30 bytes: fires
      c.seq = (c.seq + m2.length) & 0xFFFFFFFFL
      c.seg(Nil)                                                       // pure ACK
      c.seg(m, flags = 0x19)                                           // data and FIN: fires, then closed
      c.seq = (c.seq + 1) & 0xFFFFFFFFL
      c.seg(m)                                                         // after FIN: ignored
      h.drain()
      assert(h.hwFires.length == 3)
      h.loadSeq(c.seq)
      c.seg(m)                                                         // reopened: fires
      h.drain()
      assert(h.hwFires.length == 4)
    }
  }

  test(s"fields in any order: symbol after the entries, entries' fields shuffled, other tags between (seed $seed)") {
    run("orders") { h =>
      val c = setup(h)
      h.writeEntry(3, ModelEntry("VOD.L", 50000))
      h.writeEntry(4, ModelEntry("VOD.L", 40000, sell = true))
      val m = Fix.message(Seq("35" -> "W", "52" -> "x", "34" -> "5", "268" -> "3", "269" -> "0", "270" -> "499", "271" -> "1",
        "269" -> "2", "271" -> "5", "336" -> "7", "270" -> "500.00", "269" -> "1", "270" -> "400", "262" -> "r", "55" -> "VOD.L"))
      c.seg(Fix.bytes(m))
      h.drain()
      assert(h.hwFires.map(_.trigger) == Seq(3))
    }
  }

  test(s"prices at every implied decimals 0..8: equal, one unit either side, leading zeros, trailing dot, too many decimals (seed $seed)") {
    run("decimals") { h =>
      for (d <- 0 to 8) {
        val c = setup(h, decimals = d)
        val scale = BigInt(10).pow(d).toLong
        val stop = 12345 * scale + scale / 3
        h.writeEntry(0, ModelEntry("X_Y/1", stop, oneShot = false))
        h.writeEntry(1, ModelEntry("X_Y/1", stop, sell = true, oneShot = false))
        for (v <- Seq(stop, stop - 1, stop + 1, stop + scale, stop - scale, 0L, 99999999999999L / scale * scale)) {
          val texts = Seq(Fix.price(v, d, d), Fix.price(v, d, d, leadingZeros = 3), Fix.price(v, d, d + 1), Fix.price(v, d, d, trailingDot = true))
          for (t <- texts) c.seg(Fix.bytes(w("X_Y/1", Seq(t))))
        }
        h.drain()
      }
    }
  }

  test(s"offload disabled (firmware-only mode): nothing fires, segments are still counted (seed $seed)") {
    run("disabled") { h =>
      val c = setup(h)
      h.writeEntry(0, ModelEntry("T", 100))
      h.configure(enable = false)
      h.loadSeq(c.seq)
      for (_ <- 0 until 5) c.seg(Fix.bytes(w("T", Seq("2.00"))))
      h.drain()
      assert(h.hwFires.isEmpty && h.counters("SEG_IGNORED") == 5)
    }
  }

  test(s"a stop price of 10^14 or more is refused and the entry stays disarmed (seed $seed)") {
    run("refused") { h =>
      setup(h)
      assert(h.writeEntry(2, ModelEntry("T", 100000000000000L)) == 1)
      assert(h.writeEntry(2, ModelEntry("T", 99999999999999L)) == 0)
      assert(h.armedBits == 4)
    }
  }

  test(s"table rewritten while traffic flows: no fire ever comes from a half-written entry (seed $seed)") {
    compiled.doSim("rewrite_live", seed = seed) { dut =>
      SimTimeout(400L * 1000 * 1000 * 100)
      val h = new OffloadRxHarness(dut, new Random(seed))
      val c = setup(h)
      // Entry 0 alternates between AAA buy 100.00 and BBB buy 300.00; the traffic trades both at 200.00.
      // Only an AAA message may ever fire it (BBB under AAA's stop would be a half-written entry).
      val a = ModelEntry("AAA", 10000, oneShot = false)
      val b = ModelEntry("BBB", 30000, oneShot = false)
      val ma = Fix.bytes(w("AAA", Seq("200.00")))
      val mb = Fix.bytes(w("BBB", Seq("200.00")))
      var stop = false
      val traffic = fork {
        var i = 0
        while (!stop) {
          while (h.queue.length > 4) h.rxCd.waitSampling(10)
          c.seg(if (i % 2 == 0) ma else mb, gap = 20); i += 1
        }
      }
      for (k <- 0 until 40) {
        h.cmdWriteEntryRaw(0, if (k % 2 == 0) a else b, arm = true)
        h.sysCd.waitSampling(new Random(k).nextInt(300))
      }
      stop = true
      traffic.join()
      h.drain()
      val byId = h.sent.map(f => f.id -> f).toMap
      var aFires = 0
      for (f <- h.hwFires) {
        val frame = h.sent.find(s => s.cycles.contains(f.stamp)).getOrElse(fail(s"fire $f names no byte sent"))
        val text = new String(frame.bytes.map(_.toChar))
        assert(text.contains("55=AAA"), s"fire from a BBB message: $f")
        aFires += 1
      }
      assert(aFires > 5, s"entry 0 fired only $aFires times")
      println(s"[OffloadRx rewrite_live] ${h.sent.length} frames, entry rewritten 40 times, $aFires fires, all from AAA")
    }
  }

  test(s"disarm while traffic flows: after the acknowledgement the entry never fires (seed $seed)") {
    compiled.doSim("disarm_live", seed = seed) { dut =>
      SimTimeout(400L * 1000 * 1000 * 100)
      val h = new OffloadRxHarness(dut, new Random(seed))
      val c = setup(h)
      val m = Fix.bytes(w("ZZZZZZZZ", Seq("5.00")))
      var stop = false
      val traffic = fork {
        while (!stop) {
          while (h.queue.length > 2) h.rxCd.waitSampling(10)
          c.seg(m, gap = 20)
        }
      }
      var raced = 0
      for (k <- 0 until 30) {
        h.cmdWriteEntryRaw(k % 64, ModelEntry("ZZZZZZZZ", 100, oneShot = k % 2 == 0), arm = true)
        h.sysCd.waitSampling(new Random(k).nextInt(400))
        val r = h.cmd(OffloadRx.Op.DISARM, k % 64)
        val ackCycle = h.rxCycleNow
        h.rxCd.waitSampling(200)
        assert(!h.hwFires.exists(f => f.trigger == k % 64 && f.cycle > ackCycle), s"entry ${k % 64} fired after its disarm was acknowledged")
        if (r == 0) raced += 1   // a one-shot entry that had already fired
      }
      stop = true
      traffic.join()
      println(s"[OffloadRx disarm_live] 30 disarms under traffic, $raced of them after the one-shot entry had fired")
    }
  }
}
