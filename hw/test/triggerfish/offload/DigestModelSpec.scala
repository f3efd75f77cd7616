// The digest model's own tests (docs/DESIGN.md "Digesting market data"): directed streams with
// the outcome of every segment written out, and random streams (W, other session messages, PossDup, wrong CompIDs,
// gaps, garbled messages, garbage, cut anywhere) checked against the rules' invariants: every message is parsed whole
// by exactly one side; firmware gets every byte that is not the hardware's; the hardware completes only verified W
// of this session, in MsgSeqNum order; a passed segment's skip and tail are exactly the hardware's bytes in it.
// No simulation: the model is what the RTL's SpinalSim test will be compared with.
package triggerfish.offload

import org.scalatest.funsuite.AnyFunSuite
import triggerfish.soc.TfSim
import scala.collection.mutable.ArrayBuffer
import scala.util.Random

class DigestModelSpec extends AnyFunSuite {
  val Ours = "TFISH1"; val Theirs = "EXCH"
  val Time = "20261127-04:00:00.000"

  def w(seq: Long, sym: String = "AAPL", px: String = "100.25", from: String = Theirs, to: String = Ours,
        possDup: Boolean = false, entries: Int = 1, csDelta: Int = 0): String =
    Fix.message(Seq("35" -> "W", "49" -> from, "56" -> to, "34" -> seq.toString, "52" -> Time) ++
      (if (possDup) Seq("43" -> "Y", "122" -> Time) else Nil) ++ Seq("55" -> sym, "268" -> entries.toString) ++
      (0 until entries).flatMap(k => Seq("269" -> (if (k == 0) "2" else "0"), "270" -> px)), checksumDelta = csDelta)
  def session(t: String, seq: Long, extra: Seq[(String, String)] = Nil): String =
    Fix.message(Seq("35" -> t, "49" -> Theirs, "56" -> Ours, "34" -> seq.toString, "52" -> Time) ++ extra)
  def bytesOf(msgs: Seq[String]): IndexedSeq[Int] = msgs.flatMap(Fix.bytes).toIndexedSeq
  /** The stream cut after each of `cuts` (byte offsets). */
  def cut(b: IndexedSeq[Int], cuts: Seq[Int]): Seq[IndexedSeq[Int]] =
    (0 +: cuts.filter(c => c > 0 && c < b.length).distinct.sorted :+ b.length).sliding(2).map { case Seq(a, z) => b.slice(a, z) }.toSeq
  def run(m: DigestModel, segs: Seq[IndexedSeq[Int]]): Seq[Digest] = segs.map(m.segment)
  def model(exp: Long = 1) = new DigestModel(Ours, Theirs, 1000L, Some(exp))

  test("one W a segment: every segment digested, MsgSeqNums in order") {
    val msgs = (1 to 20).map(i => w(i))
    val d = run(model(), msgs.map(s => Fix.bytes(s).toIndexedSeq))
    assert(d.forall(_.digested))
    assert(d.map(x => (x.hwFirst, x.hwCount)) == (1 to 20).map(i => (i.toLong, 1)))
    assert(d.head.seqStart == 1000 && d.last.seqEnd == 1000 + msgs.map(_.length).sum)
  }

  test("a coalesced stream cut inside the messages: the heads that show 35=W are provisional, every segment digested") {
    val msgs = (1 to 12).map(i => w(i))
    val b = bytesOf(msgs)
    val starts = msgs.scanLeft(0)(_ + _.length)
    // cuts 40 bytes into messages 3, 6, 9 (past their 35=W): every segment starts and ends inside a message
    val segs = cut(b, Seq(3, 6, 9).map(k => starts(k - 1) + 40))
    val d = run(model(), segs)
    assert(d.forall(_.digested), d)
    // 3, 6 and 9 are completed in the segment after their head
    assert(d.map(x => (x.hwFirst, x.hwCount)) == Seq((1L, 2), (3L, 3), (6L, 3), (9L, 4)))
  }

  test("a cut before 35=W is known: that segment is passed, its W skipped, firmware holds the undecided head; the hardware takes it whole") {
    val msgs = (1 to 6).map(i => w(i))
    val b = bytesOf(msgs)
    val starts = msgs.scanLeft(0)(_ + _.length)
    val c1 = starts(2) + 10          // 10 bytes into message 3: "8=FIX.4.4|" only
    val c2 = starts(4) + 40          // 40 bytes into message 5: past its 35=W
    val m = model()
    val d = run(m, cut(b, Seq(c1, c2)).take(1))
    assert(m.pending == (10, false) && m.pendingUndecided)
    val dAll = d ++ run(m, cut(b, Seq(c1, c2)).drop(1))
    assert(dAll.map(_.digested) == Seq(false, true, true))
    // segment 1: messages 1, 2 the hardware's (the skip), the head of 3 held by firmware (it parses nothing)
    assert(dAll(0).skip == starts(2) && dAll(0).tail == 0 && dAll(0).held == 10 && dAll(0).hwFirst == 1 && dAll(0).hwCount == 2)
    // segment 2: the rest of 3 verified (the hardware takes it: firmware drops the head it held), 4, the head of 5
    assert(dAll(1).hwFirst == 3 && dAll(1).hwCount == 2 && dAll(1).held == 0)
    // segment 3: the rest of 5 and 6, digested
    assert(dAll(2).hwFirst == 5 && dAll(2).hwCount == 2 && dAll(2).synced)
  }

  test("an undecided head that turns out to be firmware's (a Heartbeat): the next segment is passed with no skip") {
    val msgs = Seq(w(1), session("0", 2), w(3))
    val b = bytesOf(msgs)
    val c1 = msgs(0).length + 12    // "8=FIX.4.4|9=" of the Heartbeat
    val d = run(model(), cut(b, Seq(c1, c1 + 5)))
    assert(d.map(_.digested) == Seq(false, false, false))
    assert(d(0).skip == msgs(0).length && d(0).held == 12 && d(0).hwCount == 1)
    assert(d(1).skip == 0 && d(1).held == 5 && d(1).hwCount == 0, "5 more bytes, still undecided: all held")
    assert(d(2).skip == 0 && d(2).held == 0 && d(2).hwCount == 0 && d(2).synced, "firmware's: it parses the Heartbeat and 3")
  }

  test("a Heartbeat among W: its segment is passed, the parser stays in step and digests the next") {
    val segs = Seq(w(1), session("0", 2), w(3)).map(s => Fix.bytes(s).toIndexedSeq)
    val d = run(model(), segs)
    assert(d.map(_.digested) == Seq(true, false, true) && d.forall(_.synced))
    assert(d(2).hwFirst == 3)
  }

  test("a gap, a PossDup, a wrong CompID, a SequenceReset: passed and unsynced until firmware resynchronises at the parser's position") {
    for ((name, bad) <- Seq("gap" -> w(5), "PossDup" -> w(2, possDup = true), "CompID" -> w(2, from = "OTHER"),
      "SequenceReset" -> session("4", 2, Seq("36" -> "3")))) {
      val m = model()
      val d1 = run(m, Seq(w(1), bad, w(3), w(4)).map(s => Fix.bytes(s).toIndexedSeq))
      assert(d1.map(_.digested) == Seq(true, false, false, false), name)
      assert(!d1(1).synced && !d1(3).synced, name)
      assert(!m.resync(m.nextSeq - 1, 5), s"$name: resync at another position refused")
      assert(m.resync(m.nextSeq, 5), s"$name: resync at the parser's position")
      val d2 = m.segment(Fix.bytes(w(5)).toIndexedSeq)
      assert(d2.digested && d2.hwFirst == 5 && d2.synced, name)
    }
  }

  test("a provisional W that turns out garbled: the next segment is passed, skip covers its rest, and the gap follows") {
    val msgs = Seq(w(1), w(2, csDelta = 1), w(3))
    val b = bytesOf(msgs)
    val c = msgs(0).length + 40
    val d = run(model(), cut(b, Seq(c)))
    assert(d(0).digested && d(0).hwCount == 1)
    assert(!d(1).digested && d(1).garbled && d(1).skip == msgs(1).length - 40 && d(1).hwCount == 0)
    assert(!d(1).synced, "message 3 shows the gap (2 was ignored): the parser stops following")
  }

  test("garbage between messages: passed (firmware hunts over it)") {
    val d = run(model(), Seq(Fix.bytes(w(1)) ++ Fix.bytes("xx") ++ Fix.bytes(w(2))).map(_.toIndexedSeq))
    // the W before the garbage is the hardware's (the skip); firmware hunts over the rest and parses message 2
    assert(!d.head.digested && d.head.synced && d.head.skip == w(1).length && d.head.hwCount == 1 && d.head.tail == 0)
  }

  test("a carried head that turns out to be no message: firmware hunts on, the parser stays in step") {
    // "8=FIX.4." ends segment 1 (firmware keeps it: not yet a W); segment 2 breaks it, then message 2 follows
    val m = model()
    val d1 = m.segment((Fix.bytes(w(1)) ++ Fix.bytes("8=FIX.4.")).toIndexedSeq)
    assert(!d1.digested && d1.tail == 0 && d1.held == 8 && d1.skip == w(1).length && m.pending == (8, false) && m.pendingUndecided)
    val d2 = m.segment((Fix.bytes("x") ++ Fix.bytes(w(2))).toIndexedSeq)
    assert(!d2.digested && d2.skip == 0 && d2.tail == 0 && d2.hwCount == 0 && d2.synced && m.pending == (0, false))
    assert(m.expMsg.contains(3L), "message 2, parsed by firmware, moved the expected MsgSeqNum on")
    // a BodyLength that ends in 8 followed by "=": a message start found inside the carried bytes is firmware's
    val m2 = model()
    m2.segment(Fix.bytes("8=FIX.4.4\u00019=18").toIndexedSeq)
    val d3 = m2.segment(Fix.bytes("=FIX.4.4\u00019=5\u000135=W\u0001").toIndexedSeq)
    assert(!d3.digested && d3.tail == 0 && !m2.pending._2, "the head began in the segment before: not the hardware's")
  }

  test("a descriptor with no room: the segment is firmware's, the parser forgets the message and waits for a resync") {
    val msgs = (1 to 3).map(i => w(i))
    val b = bytesOf(msgs)
    val c = msgs(0).length + 40                  // 40 bytes into message 2: a provisional W
    val m = model()
    assert(m.segment(b.take(c)).digested && m.pending == (40, true))
    val c2 = c + 10
    m.overflow(c2 - c)                           // the next 10 bytes found the FIFO full
    assert(m.pending == (0, false) && m.expMsg.isEmpty && m.nextSeq == 1000 + c2)
    val d = m.segment(b.drop(c2))                // the rest of message 2 and message 3: hunted over, unsynced
    assert(!d.digested && !d.synced && d.skip == 0 && d.hwCount == 0)
    assert(m.resync(m.nextSeq, 4) && m.segment(Fix.bytes(w(4)).toIndexedSeq).digested)
  }

  test("digestion off (stop mode fw): everything passed, nothing is the hardware's") {
    val m = model(); m.enabled = false
    val msgs = (1 to 5).map(i => w(i)); val b = bytesOf(msgs)
    val d = run(m, cut(b, Seq(100, 250, 400)))
    assert(d.forall(x => !x.digested && x.skip == 0 && x.tail == 0 && x.hwCount == 0))
    assert(m.expMsg.contains(6L), "the parser still follows the MsgSeqNum")
  }

  test("random streams cut anywhere: every message is parsed whole by one side, the hardware's are verified W in order") {
    val seed = TfSim.seed(23)
    val rnd = new Random(seed)
    var digestedSegs = 0; var passedSegs = 0; var provisional = 0; var hwMsgs = 0; var garbledTotal = 0
    var heldTaken = 0; var heldFw = 0
    for (r <- 0 until 300) {
      // the stream: mostly W in sequence, with the kinds of message the rules treat apart
      var seq = 1L
      val msgs = ArrayBuffer[String]()
      for (_ <- 0 until 5 + rnd.nextInt(40)) {
        val s = rnd.nextInt(100) match {
          case x if x < 75 => val m = w(seq, entries = 1 + rnd.nextInt(3)); seq += 1; m
          case x if x < 83 => val m = session(Seq("0", "1", "8")(rnd.nextInt(3)), seq); seq += 1; m
          case x if x < 86 => seq += 1 + rnd.nextInt(3); val m = w(seq); seq += 1; m   // gap
          case x if x < 89 => w(math.max(1, seq - 1), possDup = true)
          case x if x < 92 => val m = w(seq, from = "OTHER"); seq += 1; m
          case x if x < 95 => val m = w(seq, csDelta = 1 + rnd.nextInt(255)); seq += 1; m   // garbled
          case _ => "junk"
        }
        msgs += s
      }
      val b = bytesOf(msgs.toSeq)
      val cuts = rnd.nextInt(3) match {
        case 0 => msgs.scanLeft(0)(_ + _.length).tail.init.toSeq                       // one message a segment
        case 1 => (1 until b.length / 1460 + 1).map(_ * 1460)                          // full segments
        case _ => Seq.fill(rnd.nextInt(b.length / 20 + 1))(1 + rnd.nextInt(b.length)) // anywhere
      }
      val segs = cut(b, cuts)
      val m = model()
      val d = run(m, segs)
      // Firmware's bytes and the hardware's, from the records alone, as firmware reads them: bytes it holds (an
      // undecided head) are the hardware's when the next record takes the message (digested, or a skip)
      val fw = Array.fill(b.length)(false)
      var off = 0
      var heldFrom = -1
      for ((x, s) <- d.zip(segs)) {
        assert(x.seqStart == 1000 + off && x.seqEnd == 1000 + off + s.length)
        assert(x.held == 0 || (!x.digested && x.tail == 0 && x.held <= s.length - x.skip), s"seed $seed run $r: $x")
        if (heldFrom >= 0 && x.held < s.length) {
          if (x.digested || x.skip > 0) { for (i <- heldFrom until off) fw(i) = false; heldTaken += 1 } else heldFw += 1
        }
        if (!x.digested) for (i <- x.skip until s.length - x.tail) fw(off + i) = true
        heldFrom = if (x.held == 0) -1 else if (x.held == s.length && heldFrom >= 0) heldFrom else off + s.length - x.held
        if (x.digested) digestedSegs += 1 else passedSegs += 1
        if (x.tail > 0) provisional += 1
        off += s.length
      }
      // The stream's messages, read whole.
      var pos = 0
      var expSession: Option[Long] = Some(1L)
      val hwVerified = ArrayBuffer[Long]()
      var hwDropped = 0
      while (pos < b.length) DigestModel.read(b, pos) match {
        case None => assert(fw(pos), s"seed $seed run $r: garbage byte at $pos not given to firmware"); pos += 1
        case Some(msg) if msg.complete =>
          val span = pos until pos + msg.length
          val side = span.map(fw(_)).distinct
          assert(side.length == 1, s"seed $seed run $r: message at $pos split between firmware and hardware")
          val seqNo = msg.value("34").map(_.toLong)
          if (!side.head) {
            // the hardware's: a W of this session with the session's next MsgSeqNum, completed and reported; or one
            // that failed on the way (a provisional head whose rest broke a rule), dropped as a garbled message
            // that firmware's session never sees (the next message shows it the gap)
            val good = msg.checksumOk && msg.trailerOk && msg.msgType.contains("W") && msg.value("49").contains(Theirs) &&
              msg.value("56").contains(Ours) && msg.value("43").isEmpty && seqNo.isDefined && seqNo == expSession
            if (good) { hwVerified += seqNo.get; expSession = expSession.map(_ + 1) } else hwDropped += 1
          } else if (msg.checksumOk) {   // firmware's session: the next MsgSeqNum, or it stops being followed
            expSession = expSession.flatMap(e => if (seqNo.contains(e) && msg.value("43").isEmpty &&
              msg.value("49").contains(Theirs) && !Seq("4", "A", "5").contains(msg.msgType.getOrElse(""))) Some(e + 1) else None)
          }
          pos += msg.length
        case Some(_) => pos = b.length
      }
      val reported = d.filter(_.hwCount > 0).flatMap(x => (0 until x.hwCount).map(x.hwFirst + _))
      assert(reported == hwVerified.toSeq, s"seed $seed run $r: records say ${reported.take(20)}, stream ${hwVerified.take(20)}")
      assert(d.count(_.garbled) == hwDropped, s"seed $seed run $r: ${d.count(_.garbled)} records say garbled, $hwDropped messages dropped")
      garbledTotal += hwDropped
      hwMsgs += hwVerified.length
    }
    println(s"[digest-model] seed $seed: 300 streams, $digestedSegs segments digested, $passedSegs passed, " +
      s"$provisional provisional tails in passed segments, $hwMsgs messages completed by the hardware, $garbledTotal dropped as garbled, " +
      s"undecided heads: $heldTaken taken by the hardware, $heldFw firmware's")
    assert(digestedSegs > 1000 && passedSegs > 300 && provisional > 10 && garbledTotal > 5 && heldTaken > 10 && heldFw > 10)
  }
}
