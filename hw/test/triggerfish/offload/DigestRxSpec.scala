// DigestRx against the reference model (DigestModel, which reads whole messages, not bytes): random streams of
// W and other session messages with everything the rules tell apart (gaps, PossDup, wrong or repeated CompIDs,
// MsgSeqNums with leading zeros, fields out of place, counts that disagree, garbled CheckSums and BodyLengths,
// Logon/Logout/SequenceReset, garbage that looks like a message start), cut into segments anywhere, with bad
// segments (rolled back) between the good ones and firmware's resynchronisation whenever the parser stops following.
// Every good segment's descriptor is compared field by field with the model's record.
// Replay with TF_SEED=<seed> ./mill -i hw.test.testOnly triggerfish.offload.DigestRxSpec
package triggerfish.offload

import org.scalatest.funsuite.AnyFunSuite
import spinal.core._
import spinal.core.sim._
import triggerfish.soc.TfSim
import scala.collection.mutable.ArrayBuffer
import scala.util.Random

/** Streams for the digest tests: messages of every kind the rules distinguish. */
class DigestStreams(rnd: Random, val ours: String, val theirs: String) {
  val Time = "20261127-04:00:00.000"
  def w(seq: String, from: String = theirs, to: String = ours, possDup: Boolean = false, entries: Int = 1,
        csDelta: Int = 0, blDelta: Int = 0, extra: Seq[(String, String)] = Nil, count: Int = -1,
        no52: Boolean = false, first: Seq[(String, String)] = Nil): String = {
    val hdr = Seq("49" -> from, "56" -> to, "34" -> seq) ++ (if (no52) Nil else Seq("52" -> Time))
    val body = first ++ Seq("35" -> "W") ++ rnd.shuffle(hdr) ++ (if (possDup) Seq("43" -> "Y", "122" -> Time) else Nil) ++
      extra ++ Seq("55" -> "AAPL", "268" -> (if (count >= 0) count else entries).toString) ++
      (0 until entries).flatMap(k => Seq("269" -> (if (k == 0) "2" else "0"), "270" -> s"${100 + k}.25", "271" -> "100"))
    Fix.message(body, bodyLenDelta = blDelta, checksumDelta = csDelta)
  }
  def session(t: String, seq: String, extra: Seq[(String, String)] = Nil, from: String = theirs): String =
    Fix.message(Seq("35" -> t, "49" -> from, "56" -> ours, "34" -> seq, "52" -> Time) ++ extra)

  /** A stream of `n` messages and whatever else; the session's MsgSeqNum goes on from 1. */
  def stream(n: Int, mostlyW: Int): Seq[String] = {
    var seq = 1L
    def next(): String = { val s = seq.toString; seq += 1; s }
    val out = ArrayBuffer[String]()
    for (_ <- 0 until n) out += (rnd.nextInt(100) match {
      case x if x < mostlyW => w(next(), entries = rnd.nextInt(4))
      case x => (x - mostlyW) % 24 match {
        case 0 => session(Seq("0", "1", "8", "3")(rnd.nextInt(4)), next())
        case 1 => seq += 1 + rnd.nextInt(3); w(next())                                // a gap
        case 2 => w(math.max(1, seq - 1).toString, possDup = true)
        case 3 => w(next(), from = Seq("OTHER", theirs + "X", theirs.init, "")(rnd.nextInt(4)))
        case 4 => w(next(), to = Seq("TFISH", ours + "1", "x")(rnd.nextInt(3)))
        case 5 => w(next(), csDelta = 1 + rnd.nextInt(255))                            // garbled
        case 6 => w(next(), blDelta = Seq(-3, -1, 1, 5)(rnd.nextInt(4)))               // BodyLength wrong
        case 7 => w("0" * (1 + rnd.nextInt(3)) + next())                             // 34 with leading zeros
        case 8 => w(next(), extra = Seq("49" -> theirs))                               // 49 twice
        case 9 => w(next(), extra = Seq("34" -> (seq - 1).toString))                   // 34 twice
        case 10 => w(next(), extra = Seq("43" -> "N"))                                 // PossDup N: fine
        case 11 => w(next(), no52 = true)
        case 12 => w(next(), entries = 2, count = 1)                                   // NoMDEntries disagrees
        case 13 => w(next(), first = Seq("1128" -> "9"))                               // 35 not first
        case 14 => w(next(), extra = Seq("9" -> "12"))                                 // a header tag in the body
        case 15 => session("A", next(), Seq("98" -> "0", "108" -> "30"))               // Logon: not followed
        case 16 => session("5", next())                                                // Logout
        case 17 => session("4", next(), Seq("36" -> (seq + 2).toString))               // SequenceReset
        case 18 => Seq("junk", "8=FIX.4.4\u00019=12=", "8=FIX.4.4\u00019=0\u0001", "8=FIX.4.2\u00019=5\u0001",
          "8=8=FIX", "9=18")(rnd.nextInt(6))                                            // garbage, some like a start
        case 19 => w(next(), extra = Seq(Seq("058", "5a5", "")(rnd.nextInt(3)) -> "x"))  // a tag that is no number
        case 20 => w(next(), extra = Seq("58" -> ""))                                  // an empty value
        case 21 => session("0", next(), from = "OTHER")
        case 22 => w(next(), count = 256 + rnd.nextInt(800))                            // NoMDEntries > 255
        case _ => w(next(), extra = Seq("10" -> "000"))
      }
    })
    out.toSeq
  }
}

class DigestRxSpec extends AnyFunSuite {
  val Ours = "TFISH1"; val Theirs = "EXCHANGE-FIX-ABC"   // the longest CompID the hardware compares (16)
  lazy val compiled: SimCompiled[DigestRx] = TfSim.config.compile(DigestRx())

  class Harness(dut: DigestRx, rnd: Random) {
    val cd = dut.clockDomain
    def setCompIds(ours: String, theirs: String): Unit = {
      for (i <- 0 until DigestRx.maxCompId) {
        dut.io.ours(i) #= (if (i < ours.length) ours(i).toInt else 0)
        dut.io.theirs(i) #= (if (i < theirs.length) theirs(i).toInt else 0)
      }
      dut.io.oursLen #= ours.length; dut.io.theirsLen #= theirs.length
    }
    dut.io.byte.valid #= false; dut.io.end.valid #= false; dut.io.sync.valid #= false; dut.io.reset #= false
    dut.io.enable #= true; dut.io.position #= 0; dut.io.room #= true
    cd.forkStimulus(10)
    cd.assertReset(); cd.waitSampling(3); cd.deassertReset(); cd.waitSampling(2)

    /** The segment's bytes (with idle cycles now and then), its verdict, and the descriptor if any. */
    def segment(bytes: Seq[Int], good: Boolean, seqStart: Long, room: Boolean = true): Option[Digest] = {
      for (x <- bytes) {
        while (rnd.nextInt(6) == 0) { dut.io.byte.valid #= false; cd.waitSampling() }
        dut.io.byte.valid #= true; dut.io.byte.payload #= x; cd.waitSampling()
      }
      dut.io.byte.valid #= false
      cd.waitSampling(1 + rnd.nextInt(3))
      dut.io.end.valid #= true; dut.io.end.payload.good #= good; dut.io.end.payload.seqStart #= seqStart
      dut.io.room #= room
      cd.waitSampling()
      dut.io.end.valid #= false
      var got: Option[Digest] = None
      var overflows = 0
      for (_ <- 0 until 6) {
        cd.waitSampling()
        if (dut.io.overflow.toBoolean) overflows += 1
        if (dut.io.desc.valid.toBoolean) {
          assert(got.isEmpty, "two descriptors for one segment")
          val p = dut.io.desc.payload
          got = Some(Digest(p.seqStart.toLong, (p.seqStart.toLong + p.length.toLong) & 0xFFFFFFFFL, p.digested.toBoolean,
            p.skip.toInt, p.tail.toInt, if (p.hwCount.toInt == 0) -1 else p.hwFirst.toLong, p.hwCount.toInt,
            p.garbled.toBoolean, p.synced.toBoolean, p.held.toInt))
        }
      }
      dut.io.room #= true
      assert(overflows == (if (good && !room) 1 else 0), s"$overflows overflow pulses (good $good, room $room)")
      cd.waitSampling(rnd.nextInt(4))
      got
    }
    def sync(position: Long, msg: Long, at: Long): Boolean = {
      dut.io.position #= at
      dut.io.sync.payload.position #= position; dut.io.sync.payload.msgSeq #= msg
      cd.waitSampling()                  // (the inputs a cycle before the request)
      dut.io.sync.valid #= true
      sleep(1)                           // (within the cycle: the answer before the edge that takes the request)
      val ok = dut.io.syncOk.toBoolean
      cd.waitSampling()
      dut.io.sync.valid #= false
      cd.waitSampling(34)                // the decimal conversion
      assert(!ok || dut.io.synced.toBoolean, "a resync applied but not synced after 34 cycles")
      ok
    }
  }

  def cutStream(rnd: Random, b: IndexedSeq[Int], msgs: Seq[String]): Seq[IndexedSeq[Int]] = {
    val cuts = rnd.nextInt(4) match {
      case 0 => msgs.scanLeft(0)(_ + _.length).tail.init                                 // one message a segment
      case 1 => (1 until b.length / 1460 + 1).map(_ * 1460)                              // full segments
      case 2 => Seq.fill(rnd.nextInt(b.length / 10 + 1))(1 + rnd.nextInt(b.length))     // anywhere, small ones too
      case _ => Seq.fill(rnd.nextInt(b.length / 200 + 1))(1 + rnd.nextInt(b.length))
    }
    (0 +: cuts.filter(c => c > 0 && c < b.length).distinct.sorted :+ b.length).sliding(2).map { case Seq(a, z) => b.slice(a, z) }.toSeq
  }

  /** The MsgSeqNum of the message that starts at stream offset `at`, if one does (what firmware's session knows). */
  def msgSeqAt(b: IndexedSeq[Int], at: Int): Option[Long] =
    if (at >= b.length) None else DigestModel.read(b, at).flatMap(_.value("34")).filter(v => v.nonEmpty && v.length <= 9 && v.forall(_.isDigit)).map(_.toLong).filter(_ > 0)

  def runRandom(name: String, seed: Int, streams: Int, mostlyW: Int, enable: Boolean = true): Unit =
    compiled.doSim(name, seed) { dut =>
      SimTimeout(1000L * 1000 * 1000 * 100)
      val rnd = new Random(seed)
      val h = new Harness(dut, rnd)
      h.setCompIds(Ours, Theirs)
      dut.io.enable #= enable
      val gen = new DigestStreams(rnd, Ours, Theirs)
      var digested, passed, tails, skips, helds, garbled, hwMsgs, bad, resyncs, refused, overflows = 0
      for (r <- 0 until streams) {
        val msgs = gen.stream(3 + rnd.nextInt(60), mostlyW)
        val b = msgs.flatMap(Fix.bytes).toIndexedSeq
        val segs = cutStream(rnd, b, msgs)
        val start = rnd.nextLong() & 0xFFFFFFFFL
        // a new connection: the parser reset, then resynchronised by firmware at the stream's start
        dut.io.reset #= true; h.cd.waitSampling(); dut.io.reset #= false; h.cd.waitSampling(2)
        val m = new DigestModel(Ours, Theirs, start, None)
        m.enabled = enable
        assert(h.sync(start, 1, start) && m.resync(start, 1), s"$name seed $seed stream $r: the first resync")
        var off = 0
        for ((s, i) <- segs.zipWithIndex) {
          // a bad copy now and then (its changes rolled back)
          if (rnd.nextInt(8) == 0) {
            val badBytes = rnd.nextInt(3) match {
              case 0 => s.updated(rnd.nextInt(s.length), rnd.nextInt(256))
              case 1 => s ++ segs.lift(i + 1).getOrElse(IndexedSeq(0x38))
              case _ => IndexedSeq.fill(1 + rnd.nextInt(300))(rnd.nextInt(256))
            }
            assert(h.segment(badBytes, good = false, m.nextSeq).isEmpty, s"$name seed $seed stream $r: a descriptor for a bad segment")
            bad += 1
          }
          if (rnd.nextInt(40) == 0) {
            // no room for its descriptor: passed without one, digestion unsynced
            val at = m.nextSeq
            m.overflow(s.length)
            assert(h.segment(s, good = true, at, room = false).isEmpty, s"$name seed $seed stream $r: a descriptor with no room")
            overflows += 1
          } else {
          val want = m.segment(s)
          val got = h.segment(s, good = true, want.seqStart)
          assert(got.contains(want), s"$name seed $seed stream $r segment $i (offset $off, ${s.length} bytes): hardware $got, model $want")
          if (want.digested) digested += 1 else passed += 1
          if (want.tail > 0) tails += 1
          if (want.skip > 0) skips += 1
          if (want.held > 0) helds += 1
          if (want.garbled) garbled += 1
          hwMsgs += want.hwCount
          }
          off += s.length
          // firmware resynchronises the parser when it stopped following (at its position, when at a boundary)
          if (m.expMsg.isEmpty && rnd.nextInt(3) != 0) {
            val wrongPos = rnd.nextInt(5) == 0
            val pos = if (wrongPos) (m.nextSeq + 1) & 0xFFFFFFFFL else m.nextSeq
            val msg = msgSeqAt(b, off).getOrElse(1L + rnd.nextInt(1000))
            val expect = m.resync(pos, msg)
            assert(h.sync(pos, msg, m.nextSeq) == expect, s"$name seed $seed stream $r: resync at $pos to $msg")
            if (expect) resyncs += 1 else refused += 1
          }
        }
      }
      println(f"[digest-rtl] $name seed $seed: $streams streams, ${digested + passed} segments: $digested digested, $passed passed " +
        f"($tails with a provisional tail, $skips with a skip, $helds with an undecided head, $garbled garbled), $hwMsgs messages completed by the hardware, " +
        f"$bad bad segments rolled back, $overflows with no room for the descriptor, $resyncs resyncs applied, $refused refused")
      if (enable) assert(digested > streams && passed > streams / 2 && tails > 5 && skips > 5 && helds > 5 && garbled > 0 && bad > 20 && resyncs > 5 && refused > 0)
      else assert(digested == 0 && hwMsgs == 0)
    }

  test("random streams, mostly W, cut anywhere: every descriptor as the model's") {
    runRandom("mostly-W", TfSim.seed(41), streams = 150, mostlyW = 80)
  }
  test("random streams with every kind of message the rules tell apart") {
    runRandom("mixed", TfSim.seed(43), streams = 150, mostlyW = 40)
  }
  test("digestion off: nothing digested, the MsgSeqNum still followed") {
    runRandom("off", TfSim.seed(47), streams = 30, mostlyW = 80, enable = false)
  }
}
