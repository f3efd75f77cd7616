// Market-data digestion (docs/DESIGN.md "Digesting market data"), one stage of the receive path: it reads the
// in-order payload bytes of the session's connection that the header parser hands the scanner, and decides for
// every good segment whether the hardware digests it (every byte belongs to 35=W messages of this session, with the
// session's next MsgSeqNum: firmware needs only the descriptor) or passes it (firmware parses the bytes between
// `skip` and `tail`; `skip` covers the messages the hardware completed before the first byte firmware owns). A message
// cut before its head shows a W of this session is undecided: firmware holds its head (`held`), and the hardware takes
// it if it completes verified in a later segment (firmware then drops what it held), else it is firmware's. It follows the session's incoming MsgSeqNum itself, over every message firmware would accept
// in step, and stops following (unsynced) at anything it cannot follow, until firmware resynchronises it at a
// message boundary at the same stream position.
//
// The rules are exactly those of the reference model (hw/test/triggerfish/offload/DigestModel.scala), which reads
// whole messages; this reads them a byte at a time, one byte a cycle at most:
//   hunting "8=FIX.4.4|9=" (every position tried, as firmware's framing does), BodyLength (1..5 digits, no leading
//   zero), the body's fields (tag and value), the trailer "10=ddd|" and the CheckSum.
// Per field, at its SOH: the well-formed-W rules the trigger table applies (first field 35=W, 55 once, 268 once and
// equal to the count of 269, 270 only once per entry, no empty value, no 8/9/10/35 after the first field), and the
// session's: 49 and 56 equal to the configured CompIDs, 34 equal to the expected MsgSeqNum (compared digit by digit
// with the expected number's decimal digits, leading zeros allowed), 43 not Y; 34, 49, 56 at most once.
//
// A segment's state changes are provisional until its verdict (io.end): a good segment commits them and yields the
// descriptor, a bad one restores the state at its start (the snapshot), as the scanner does.
package triggerfish.offload

import spinal.core._
import spinal.lib._
import scala.collection.mutable.ArrayBuffer

object DigestRx {
  val maxCompId = 16
  val M_HUNT = 0; val M_BEGIN = 1; val M_BODYLEN = 2; val M_BODY = 3; val M_TRAILER = 4
  // tag classes, decided at the "=" (or the SOH of a field without one)
  val T_OTHER = 0; val T_35 = 1; val T_49 = 2; val T_56 = 3; val T_34 = 4; val T_43 = 5; val T_52 = 6; val T_55 = 7
  val T_268 = 8; val T_269 = 9; val T_270 = 10; val T_HDR = 11  // T_HDR: 8, 9, 10 (never after the first field)
  val classOf: Map[Int, Int] = Map(35 -> T_35, 49 -> T_49, 56 -> T_56, 34 -> T_34, 43 -> T_43, 52 -> T_52, 55 -> T_55,
    268 -> T_268, 269 -> T_269, 270 -> T_270, 8 -> T_HDR, 9 -> T_HDR, 10 -> T_HDR)
  val seqDigits = 10      // a MsgSeqNum of at most 10 digits (FIX: a SeqNum is a positive integer)
}

/** The record of one good segment with payload (DigestModel's Digest; `hwFirst` is 0 when `hwCount` is 0). */
case class DigestDesc() extends Bundle {
  val seqStart = UInt(32 bits)
  val length = UInt(16 bits)
  val digested = Bool()
  val skip = UInt(16 bits)
  val tail = UInt(16 bits)
  val held = UInt(16 bits)       // passed: the last `held` of firmware's bytes start a message whose owner is undecided
  val hwFirst = UInt(32 bits)
  val hwCount = UInt(8 bits)
  val garbled = Bool()
  val synced = Bool()
}

case class DigestEnd() extends Bundle {
  val good = Bool()           // commit (else restore the segment-start state)
  val seqStart = UInt(32 bits)
}

case class DigestSync() extends Bundle {
  val position = UInt(32 bits)   // the stream position firmware has processed up to (a message boundary)
  val msgSeq = UInt(32 bits)     // the session's next incoming MsgSeqNum there (>= 1)
}

case class DigestRx() extends Component {
  import DigestRx._
  val io = new Bundle {
    val enable = in Bool()                         // digest (else: pass everything, still follow the MsgSeqNum)
    val ours = in Vec(Bits(8 bits), maxCompId)     // TargetCompID of the exchange's messages (ours), character 0 first
    val oursLen = in UInt (5 bits)
    val theirs = in Vec(Bits(8 bits), maxCompId)   // SenderCompID of the exchange's messages
    val theirsLen = in UInt (5 bits)
    val byte = slave(Flow(Bits(8 bits)))           // the in-order payload of the segment being received
    val end = slave(Flow(DigestEnd()))             // the segment's verdict, after its last byte
    val reset = in Bool()                          // the stream moved (LOAD_SEQ): nothing in progress, unsynced
    val position = in UInt (32 bits)               // the parser's stream position (valid between segments)
    val sync = slave(Flow(DigestSync()))           // between segments, at least 34 cycles before the next byte; its
                                                   // payload and io.position stable since the cycle before
    val syncOk = out Bool()                        // with sync.valid: applied (else refused: another position,
                                                   // mid-message, MsgSeqNum 0, or a resync still converting)
    val desc = master(Flow(DigestDesc()))
    val room = in Bool()                           // a descriptor can be queued (else: overflow, below); it is
                                                   // queued a cycle after the verdict is taken
    val overflow = out Bool()                      // a good segment's descriptor found no room
    val synced = out Bool()
  }

  // Working state a bad segment rolls back (working, snapshot).
  val snapPairs = ArrayBuffer[(Data, Data)]()
  def snap[T <: Data](r: T): T = { snapPairs += ((r, Reg(cloneOf(r)))); r }
  def satInc(x: UInt): Unit = when(x =/= x.maxValue) { x := x + 1 }

  // ---- the byte, registered with what is decided from it alone
  val v = RegNext(io.byte.valid) init False
  val c = RegNext(io.byte.payload) init 0
  private def cls(f: Bits => Bool): Bool = RegNext(f(io.byte.payload)) init False
  val isDig = cls(x => x.asUInt >= 0x30 && x.asUInt <= 0x39)
  val d = c(3 downto 0).asUInt
  val isSoh = cls(_ === 0x01)
  val isEq = cls(_ === 0x3D)
  val is8 = cls(_ === 0x38)
  val is0 = cls(_ === 0x30)
  val isW = cls(_ === 0x57)
  val isY = cls(_ === 0x59)
  val isAdm = cls(x => x === 0x34 || x === 0x41 || x === 0x35)   // 35=4, 35=A, 35=5: SequenceReset, Logon, Logout
  val matchOurs = RegNext(Vec(io.ours.map(_ === io.byte.payload)).asBits) init 0
  val matchTheirs = RegNext(Vec(io.theirs.map(_ === io.byte.payload)).asBits) init 0
  val beginLit: Seq[Int] = "8=FIX.4.4\u00019=".map(_.toInt)
  val litMatch = RegNext(Vec(beginLit.map(ch => io.byte.payload === ch)).asBits) init 0

  // ---- the message in progress (rolled back with a bad segment)
  val mode = snap(Reg(UInt(3 bits)) init M_HUNT)
  val lit = snap(Reg(UInt(4 bits)) init 0)
  val blAcc = snap(Reg(UInt(17 bits)) init 0)
  val blDigits = snap(Reg(UInt(3 bits)) init 0)
  val prev8 = snap(RegInit(False))
  val bodyLeft = snap(Reg(UInt(17 bits)) init 0)
  val lastSoh = snap(RegInit(False))
  val csum = snap(Reg(UInt(8 bits)) init 0)
  val csDig = snap(Vec.fill(3)(Reg(UInt(4 bits)) init 0))   // CheckSum's digits, from the body's sum
  val tpos = snap(Reg(UInt(3 bits)) init 0)
  val tOk = snap(RegInit(False))
  // field
  val inTag = snap(RegInit(True))
  val tagN = snap(Reg(UInt(3 bits)) init 0)                  // digits of the tag (saturates at 4)
  val tagM = snap(Reg(Bits(classOf.size bits)) init 0)      // the tag so far is a prefix of classOf's k-th tag
  val tagBad = snap(RegInit(False))                          // a non-digit, or a leading zero
  val tcls = snap(Reg(UInt(4 bits)) init T_OTHER)
  val vLen = snap(Reg(UInt(5 bits)) init 0)                  // saturates at 31
  val vAllDig = snap(RegInit(True))
  val vFirstW = snap(RegInit(False)); val vFirstY = snap(RegInit(False)); val vFirstAdm = snap(RegInit(False))
  val cmpOk = snap(RegInit(True))                            // 49/56: the value so far equals the CompID
  val vNum = snap(Reg(UInt(10 bits)) init 0)                 // 268: the value (exact up to 3 digits, all 268 takes)
  val sig = snap(RegInit(False))                             // 34: past the leading zeros
  val di = snap(Reg(SInt(5 bits)) init 0)                    // 34: the expected number's digit the next one must equal
  val seqMatch = snap(RegInit(True))
  // message
  val firstDone = snap(RegInit(False))
  val wOk = snap(RegInit(True))
  val fOk = snap(RegInit(True))
  val has49 = snap(RegInit(False)); val has56 = snap(RegInit(False)); val has34 = snap(RegInit(False))
  val has52 = snap(RegInit(False)); val had55 = snap(RegInit(False)); val had268 = snap(RegInit(False))
  val n268 = snap(Reg(UInt(8 bits)) init 0)
  val n269 = snap(Reg(UInt(9 bits)) init 0)
  val inEntry = snap(RegInit(False)); val cur270 = snap(RegInit(False))
  val admin = snap(RegInit(False))
  // ownership and the session's MsgSeqNum
  val msgHw = snap(RegInit(False))                           // the message in progress is the hardware's
  val msgUnd = snap(RegInit(False))                          // ... its owner is undecided (firmware holds its head)
  val synced = snap(RegInit(False))
  val exp = snap(Reg(UInt(32 bits)) init 0)
  val expDig = snap(Vec.fill(seqDigits)(Reg(UInt(4 bits)) init 0))   // exp in decimal, digit 0 the least significant
  val expLen = snap(Reg(UInt(4 bits)) init 0)                // its significant digits
  io.synced := synced

  // ---- this segment (set up at its first byte)
  val off = Reg(UInt(16 bits)) init 0
  val offPrev = Reg(UInt(16 bits)) init 0   // the byte before's (this segment's, when it is not the first)
  val digest = RegInit(False)
  val inCarried = RegInit(False)     // the message in progress began in an earlier segment
  val garbled = RegInit(False)
  val skip = Reg(UInt(16 bits)) init 0
  val msgStart = Reg(UInt(16 bits)) init 0
  val hwFirst = Reg(UInt(32 bits)) init 0
  val hwCount = Reg(UInt(8 bits)) init 0

  val isFirst = RegInit(True)        // the next byte is the segment's first
  val first = isFirst
  val dCur = first ? (io.enable && synced && !(mode =/= M_HUNT && !msgHw && !msgUnd)) | digest
  val carriedCur = first ? (mode =/= M_HUNT) | inCarried
  val dNext = Bool(); dNext := dCur
  val carriedNext = Bool(); carriedNext := carriedCur

  // exp + 1, in binary and in decimal. The decimal carries are registered: exp changes at most once in two cycles
  // (an increment a message, a resync between segments, a restore two cycles after the segment's last byte).
  val nine = RegNext(Vec(expDig.map(_ === 9)))
  val carryIn = RegNext(Vec((0 until seqDigits).map(i => (0 until i).map(j => expDig(j) === 9).foldLeft(True)(_ && _))))
  // one more significant digit when every one of them was 9
  val grow = RegNext((0 until seqDigits).map(i => U(i) >= expLen || expDig(i) === 9).reduce(_ && _) && expLen =/= seqDigits)
  def expInc(): Unit = {
    exp := exp + 1
    for (i <- 0 until seqDigits) when(carryIn(i)) { expDig(i) := nine(i) ? U(0, 4 bits) | expDig(i) + 1 }
    when(grow) { expLen := expLen + 1 }
  }

  val msgStartNow = Bool(); msgStartNow := False    // this byte is a message's first ('8')
  val msgStartAt1 = Bool(); msgStartAt1 := False    // the byte before this one was
  val carriedAgain = Bool(); carriedAgain := False  // ... and it was in the segment before
  val garbage = Bool(); garbage := False            // this byte belongs to no message (firmware hunts over it)
  val complete = Bool(); complete := False          // this byte ends a message (its trailer's SOH)
  // A message's completion is decided with its last byte and applied in the next cycle (the next message's
  // MsgSeqNum comes 20 bytes later at the earliest, the segment's verdict two cycles later at the earliest).
  val hwEv = Bool(); hwEv := False                  // the hardware completed and verified it
  val incEv = Bool(); incEv := False                // firmware's, in step: the MsgSeqNum goes on
  val unsyncEv = Bool(); unsyncEv := False          // firmware's, not followed: unsynced
  val msgOkR = RegNext(wOk && firstDone && had55 && had268 && n268.resize(9) === n269 && fOk && has49 && has56 &&
    has34 && has52) init False
  val inStepR = RegNext(fOk && has49 && has56 && has34 && !admin) init False

  def newLiteral(): Unit = { mode := M_BEGIN; lit := 1; csum := 0x38; msgStartNow := True }
  def fieldInit(): Unit = {
    inTag := True; tagN := 0; tagM.setAll(); tagBad := False; vLen := 0; vAllDig := True
    vFirstW := False; vFirstY := False; vFirstAdm := False; cmpOk := True; vNum := 0; sig := False
    di := (expLen.resize(5) - 1).asSInt; seqMatch := True
  }
  def messageInit(): Unit = {
    firstDone := False; wOk := True; fOk := True; has49 := False; has56 := False; has34 := False; has52 := False
    had55 := False; had268 := False; n268 := 0; n269 := 0; inEntry := False; cur270 := False; admin := False
    lastSoh := False
  }
  val classTags = classOf.toSeq.sortBy(_._1)
  def tagClass(): UInt = {
    // the tag whose digits all matched and whose length this is (at most one); a non-digit or a leading zero
    // matches none
    classTags.zipWithIndex.map { case ((t, k), i) =>
      (tagM(i) && tagN === t.toString.length) ? U(k, 4 bits) | U(0, 4 bits)
    }.reduce(_ | _)
  }

  val csumHold = RegNext(csum) init 0
  val csTable = Vec((0 until 256).map(s => U((s / 100) << 8 | ((s / 10) % 10) << 4 | (s % 10), 12 bits)))

  // ---- a field's end, in two steps: with its SOH the field's summary is registered (every cycle, used with fe),
  // a cycle later the rules of the model's wellFormedW and fieldsOk update the message's flags. (Nothing else
  // writes them between: the next message starts after a trailer, the segment's verdict two cycles later at the
  // earliest; the descriptor's provisional verdict, provR, takes the pending field into account.)
  val feNow = Bool(); feNow := False                // this byte is a field's SOH (in the body)
  val fe = RegNext(feNow) init False
  val feK = RegNext(inTag ? tagClass() | tcls) init T_OTHER
  val feShapeOk = RegNext(!tagBad && tagN =/= 0 && !inTag && vLen =/= 0) init False   // a valid tag, "=", a value
  val feOne = !inTag && vLen === 1
  val feW = RegNext(feOne && vFirstW) init False
  val feAdm = RegNext(feOne && vFirstAdm) init False
  val feY = RegNext(feOne && vFirstY) init False
  val fe268Bad = RegNext(inTag || !vAllDig || vLen > 3 || vNum > 255) init False
  val feNum = RegNext(vNum.resize(8)) init 0
  val fe49Ok = RegNext(!inTag && cmpOk && vLen === io.theirsLen) init False
  val fe56Ok = RegNext(!inTag && cmpOk && vLen === io.oursLen) init False
  val fe34Ok = RegNext(!inTag && vLen =/= 0 && vAllDig && vLen <= seqDigits && sig && seqMatch && di === -1) init False
  def feIs(k: Int): Bool = feK === k
  val killW = !feShapeOk || (firstDone ? (feIs(T_35) || feIs(T_HDR)) | !(feIs(T_35) && feW)) ||
    (feIs(T_55) && had55) || (feIs(T_268) && (had268 || fe268Bad)) || (feIs(T_270) && (!inEntry || cur270))
  val killF = (feIs(T_49) && (has49 || !fe49Ok)) || (feIs(T_56) && (has56 || !fe56Ok)) ||
    (feIs(T_34) && (has34 || !fe34Ok)) || (feIs(T_43) && feY)
  when(fe) {
    when(killW) { wOk := False }
    when(killF) { fOk := False }
    when(!firstDone) { admin := feIs(T_35) && feAdm }
    firstDone := True
    when(feIs(T_55)) { had55 := True }
    when(feIs(T_268)) { had268 := True; n268 := feNum }
    when(feIs(T_269)) { satInc(n269); inEntry := True; cur270 := False }
    when(feIs(T_270)) { cur270 := True }
    when(feIs(T_49)) { has49 := True }
    when(feIs(T_56)) { has56 := True }
    when(feIs(T_34)) { has34 := True }
    when(feIs(T_52)) { has52 := True }
  }

  when(v) {
    off := off + 1
    offPrev := off
    isFirst := False
    when(first) { garbled := False; skip := 0; hwCount := 0; hwFirst := 0 }
    switch(mode) {
      is(M_HUNT) {
        when(is8) { newLiteral() } otherwise { garbage := True }
      }
      is(M_BEGIN) {
        when(litMatch(lit)) {
          csum := csum + c.asUInt
          lit := lit + 1
          when(lit === beginLit.length - 1) { mode := M_BODYLEN; blAcc := 0; blDigits := 0; prev8 := False }
        } otherwise {
          garbage := True
          when(is8) { newLiteral() } otherwise { mode := M_HUNT }
        }
      }
      is(M_BODYLEN) {
        csum := csum + c.asUInt
        when(isDig && blDigits =/= 5 && !(blDigits === 0 && is0)) {
          blAcc := (blAcc |<< 3) + (blAcc |<< 1) + d.resize(17)
          blDigits := blDigits + 1
          prev8 := is8
        } elsewhen (isSoh && blDigits =/= 0) {
          mode := M_BODY; bodyLeft := blAcc; fieldInit(); messageInit()
        } otherwise {
          // not a message: firmware's framing tries the next position, which can start inside these digits
          garbage := True
          when(is8) { newLiteral() } elsewhen (isEq && prev8) {
            // "8=" with the BodyLength's last digit: a message starting a byte before this one (in the segment
            // before when this is the first byte: then it is a message carried in, firmware's like its digits)
            mode := M_BEGIN; lit := 2; csum := 0x38 + 0x3D
            when(first) { carriedAgain := True } otherwise { msgStartAt1 := True }
          } otherwise { mode := M_HUNT }
        }
      }
      is(M_BODY) {
        val sum = csum + c.asUInt
        csum := sum
        bodyLeft := bodyLeft - 1
        lastSoh := isSoh
        when(bodyLeft === 1) { mode := M_TRAILER; tpos := 0; tOk := True }
        when(isSoh) {
          // a field ends: its summary (feX, above) is registered, the model's rules applied a cycle later (fe)
          feNow := True
          fieldInit()
        } elsewhen (inTag) {
          when(isEq) {
            inTag := False
            tcls := tagClass()
          } otherwise {
            when(!isDig || (tagN === 0 && is0)) { tagBad := True }
            satInc(tagN)
            for (((t, _), i) <- classTags.zipWithIndex) {
              val ds = t.toString.map(_ - '0')
              val here = Vec(ds.map(x => U(x, 4 bits)) ++ Seq.fill(8 - ds.length)(U(15, 4 bits)))(tagN)
              when(!isDig || tagN >= ds.length || d =/= here) { tagM(i) := False }
            }
          }
        } otherwise {
          // a value's character
          satInc(vLen)
          when(!isDig) { vAllDig := False }
          when(vLen === 0) { vFirstW := isW; vFirstY := isY; vFirstAdm := isAdm }
          val idx = vLen(3 downto 0)
          when(vLen >= maxCompId || !((tcls === T_49) ? matchTheirs(idx) | matchOurs(idx))) { cmpOk := False }
          vNum := (vNum |<< 3) + (vNum |<< 1) + d.resize(10)
          when(isDig && (sig || !is0)) {
            sig := True
            when(di < 0 || expDig(di.asUInt.resize(4)) =/= d) { seqMatch := False }
            di := di - 1
          }
        }
      }
      is(M_TRAILER) {
        tpos := tpos + 1
        // the CheckSum's digits from the body's sum, while "10=" goes by (from a copy of the sum taken a cycle
        // before: the table may become a block RAM, whose address register must not follow the sum's adder)
        when(tpos === 1) {
          val t = csTable(csumHold)
          csDig(0) := t(11 downto 8); csDig(1) := t(7 downto 4); csDig(2) := t(3 downto 0)
        }
        val want = tpos.mux(
          0 -> (c === 0x31), 1 -> (c === 0x30), 2 -> isEq,
          3 -> (isDig && d === csDig(0)), 4 -> (isDig && d === csDig(1)), 5 -> (isDig && d === csDig(2)),
          default -> isSoh)
        when(!want) { tOk := False }
        when(tpos === 6) { mode := M_HUNT; complete := True }
      }
    }
    when(garbage) { dNext := False; carriedNext := carriedAgain; msgUnd := False }
    when(msgStartNow) { msgStart := off }
    when(msgStartAt1) { msgStart := offPrev }

    when(complete) {
      // (the message's flags last changed a cycle after the body's last field, at least 6 cycles ago: registered)
      val goodT = tOk && isSoh && lastSoh
      val verified = goodT && msgOkR
      // (the skip of a passed segment reaches the end of the last message the hardware completed: all of them come
      // before the first byte firmware owns, as nothing is the hardware's once the segment is passed)
      def hwDone(): Unit = { hwEv := True; skip := off + 1 }
      def follow(): Unit = when(goodT && synced) { when(inStepR) { incEv := True } otherwise { unsyncEv := True } }
      when(carriedCur) {
        carriedNext := False
        when(msgHw) {
          skip := off + 1
          when(synced && verified) { hwDone() } otherwise { garbled := True; dNext := False }
        } elsewhen (msgUnd && dCur && synced && verified) {
          hwDone()                          // undecided: the hardware takes it (firmware drops the head it holds)
        } otherwise { dNext := False; follow() }
      } otherwise {
        when(dCur && synced && verified) { hwDone() } otherwise { dNext := False; follow() }
      }
      msgHw := False
      msgUnd := False
    }
    digest := dNext
    inCarried := carriedNext
  }
  val hwR = RegNext(hwEv) init False
  val incR = RegNext(hwEv || incEv) init False
  val unsyncR = RegNext(unsyncEv) init False
  when(hwR) {
    when(hwCount === 0) { hwFirst := exp }
    hwCount := hwCount + 1
  }
  when(incR) { expInc() }
  when(unsyncR) { synced := False }

  // ---- the verdict: two cycles after it arrives (so it may come with the cycle after the last byte)
  val endV1 = RegNext(io.end.valid) init False
  val endP1 = RegNext(io.end.payload)
  val endV = RegNext(endV1) init False
  val endP = RegNext(endP1)
  assert(!(v && endV), "DigestRx: a verdict while a byte is processed")
  assert(!(fe && endV), "DigestRx: a verdict while a field's rules are applied")
  val commit = RegNext(endV && endP.good) init False   // snapshot := working, a cycle after the outcome
  val restore = RegNext(endV1 && !endP1.good) init False   // (= endV && !endP.good, straight from a register: it
                                                            // fans out to every snapshotted register)
  // (the descriptor is registered before it is queued; the message's state is settled two cycles before the verdict
  // but for the rules of a field the segment's last byte ends, which are applied a cycle later: provR counts them)
  val provR = RegNext(io.enable && synced && (mode === M_BODY || mode === M_TRAILER) && (firstDone || fe) && wOk && fOk &&
    !(fe && (killW || killF))) init False
  val descR = Reg(DigestDesc())
  val descV = RegInit(False)
  descV := False
  io.desc.valid := descV
  io.desc.payload := descR
  when(endV && endP.good && off =/= 0) {
    val inMsg = mode =/= M_HUNT
    val prov = provR
    val dFinal = Bool(); dFinal := digest
    val skipF = UInt(16 bits); skipF := skip
    val tailF = UInt(16 bits); tailF := 0
    val heldF = UInt(16 bits); heldF := 0
    when(inMsg) {
      when(inCarried) {
        when(msgHw) { skipF := off }
        when(msgUnd) { dFinal := False; heldF := off }   // still undecided: firmware holds the whole segment too
      } otherwise {
        // not (yet) a W of this session: undecided while the parser follows the session, else firmware's
        val und = !prov && io.enable && synced
        msgHw := prov
        msgUnd := und
        when(!prov) { dFinal := False } otherwise { tailF := off - msgStart }
        when(und) { heldF := off - msgStart }
      }
    }
    // (room only grows until the next cycle's push: nothing else queues)
    descV := io.room
    descR.seqStart := endP.seqStart
    descR.length := off
    descR.digested := dFinal
    descR.skip := dFinal ? U(0, 16 bits) | skipF
    descR.tail := dFinal ? U(0, 16 bits) | tailF
    descR.held := heldF
    descR.hwCount := hwCount
    descR.hwFirst := (hwCount =/= 0) ? hwFirst | U(0, 32 bits)
    descR.garbled := garbled
    descR.synced := synced
    // No room for the descriptor: firmware gets the segment with nothing to say what is the hardware's in it, as a
    // segment the parser never saw. Digestion forgets the message in progress and stops following until firmware
    // resynchronises it (a message the hardware owned across this segment is lost to both: the next one shows the gap).
    when(!io.room) { mode := M_HUNT; lit := 0; msgHw := False; msgUnd := False; synced := False }
  }
  io.overflow := endV && endP.good && off =/= 0 && !io.room
  when(endV) { off := 0; isFirst := True }

  // ---- firmware's resynchronisation: decided at once; exp from binary to decimal (shift and add 3, 33 cycles),
  // then synced
  val conv = new Area {
    val busy = RegInit(False)
    val steps = Reg(UInt(6 bits)) init 0
    val last = RegInit(False)      // steps === 0 (registered: the result fans out to exp's decimal digits)
    val bin = Reg(UInt(32 bits)) init 0
    val bcd = Reg(Vec.fill(seqDigits)(UInt(4 bits)))
    val value = Reg(UInt(32 bits)) init 0
    // (registered: the request's inputs are stable a cycle before it, between segments)
    io.syncOk := RegNext(io.sync.position === io.position && mode === M_HUNT && io.sync.msgSeq =/= 0 && !busy) init False
    when(io.sync.valid && io.syncOk) {
      busy := True; steps := 32; last := False; bin := io.sync.msgSeq; value := io.sync.msgSeq
      bcd.foreach(_ := 0)
    }
    assert(!(busy && v), "DigestRx: a byte before the resync is done")
    when(busy) {
      when(!last) {
        val adj = bcd.map(x => (x >= 5) ? (x + 3) | x)
        val bits = adj.reverse.map(_.asBits).reduce(_ ## _) ## bin.msb
        val shifted = bits(bits.high - 1 downto 0)
        for (i <- 0 until seqDigits) bcd(i) := shifted(4 * i + 3 downto 4 * i).asUInt
        bin := bin |<< 1
        steps := steps - 1
        last := steps === 1
      } otherwise {
        busy := False
        exp := value
        expDig := bcd
        val lens = (0 until seqDigits).map(i => bcd(i) =/= 0)
        expLen := 0
        for (i <- 0 until seqDigits) when(lens(i)) { expLen := i + 1 }
        synced := True
      }
    }
    // the snapshot follows a resync (it happens between segments)
    val applied = RegNext(busy && last) init False
  }

  // ---- snapshot commit and restore, last so that they win; a reset clears both
  for ((w, s) <- snapPairs) {
    when(commit || conv.applied) { s := w }
    when(restore) { w := s }
  }
  when(io.reset) {   // nothing in progress (the rest is set up when a message starts), unsynced
    off := 0
    isFirst := True
    conv.busy := False
    mode := M_HUNT; msgHw := False; msgUnd := False; synced := False; lit := 0
  }
  val resetSnap = RegNext(io.reset) init False
  when(resetSnap) { for ((w, s) <- snapPairs) s := w }
}
