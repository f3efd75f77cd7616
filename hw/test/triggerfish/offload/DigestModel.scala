// Reference model of market-data digestion (docs/DESIGN.md "Digesting market data"), written
// before the hardware: for each good, in-order data segment of the session's stream, whether the parser digests it
// (no receive slot, firmware gets only this record) or passes it (firmware gets the frame and parses the bytes
// between `skip` and `tail`). It works on whole FIX messages cut out of the byte stream by their BodyLength, not
// byte by byte as OffloadRxModel and the RTL do, so that the RTL's test compares two independent readings.
package triggerfish.offload

import scala.collection.mutable.ArrayBuffer

/** The record of one data segment. Firmware parses payload bytes [skip, length - tail) of a passed segment: the first
  * `skip` are the hardware's (the rest of a message it owned, then the messages it completed before the first one
  * firmware owns), the last `tail` start a W the hardware takes (provisional). `held`: the last `held` bytes of those
  * firmware parses start a message whose owner is not known yet (undecided: its head does not show a W of this
  * session yet); firmware holds them, and the hardware takes the message when it completes it verified, which the
  * next record shows (digested, or a skip; else the message is firmware's). `hwFirst`, `hwCount`: the MsgSeqNums of
  * the messages the hardware completed and verified in this segment (consecutive, all within the skip of a passed
  * one). `garbled`: the message the hardware owned failed (a garbled message; firmware's session sees the gap at the
  * next one). `synced`: the parser follows the session's incoming MsgSeqNum at the segment's end. */
case class Digest(seqStart: Long, seqEnd: Long, digested: Boolean, skip: Int, tail: Int, hwFirst: Long, hwCount: Int,
                  garbled: Boolean, synced: Boolean, held: Int)

object DigestModel {
  val Soh = 1
  val Begin: Seq[Int] = "8=FIX.4.4\u00019=".map(_.toInt)
  private def isDig(b: Int) = b >= '0' && b <= '9'

  /** What is known of a message from its first bytes (all of it when `complete`). */
  case class Msg(complete: Boolean, length: Int, headerOk: Boolean, bodyLen: Int, fields: Seq[(String, String)],
                 checksumOk: Boolean, trailerOk: Boolean) {
    def value(tag: String): Option[String] = fields.find(_._1 == tag).map(_._2)
    def msgType: Option[String] = fields.headOption.filter(_._1 == "35").map(_._2)
  }

  /** Reads a message starting at data(from): None if the bytes there cannot start one ("8=FIX.4.4|9=" then 1..5
    * digits without a leading zero and a SOH; a prefix of that at the end of the data can). */
  def read(data: IndexedSeq[Int], from: Int): Option[Msg] = {
    val n = data.length - from
    def at(i: Int) = data(from + i)
    for (i <- Begin.indices) {
      if (i >= n) return Some(Msg(complete = false, n, headerOk = false, 0, Nil, checksumOk = false, trailerOk = false))
      if (at(i) != Begin(i)) return None
    }
    var i = Begin.length
    var bl = 0
    var digits = 0
    while (i < n && isDig(at(i)) && digits < 5 && !(digits == 0 && at(i) == '0')) { bl = bl * 10 + (at(i) - '0'); digits += 1; i += 1 }
    if (i >= n) return Some(Msg(complete = false, n, headerOk = false, 0, Nil, checksumOk = false, trailerOk = false))
    if (digits == 0 || at(i) != Soh) return None
    i += 1
    val bodyStart = i
    val end = bodyStart + bl + 7   // "10=ddd|"
    val avail = math.min(n, end)
    // fields of the body seen so far (a field is complete at its SOH within the body)
    val fields = ArrayBuffer[(String, String)]()
    var k = bodyStart
    var fieldStart = bodyStart
    while (k < math.min(avail, bodyStart + bl)) {
      if (at(k) == Soh) {
        val f = new String((fieldStart until k).map(j => at(j).toChar).toArray)
        val eq = f.indexOf('=')
        fields += (if (eq < 0) (f, "\u0000") else (f.substring(0, eq), f.substring(eq + 1)))
        fieldStart = k + 1
      }
      k += 1
    }
    if (n < end) return Some(Msg(complete = false, n, headerOk = true, bl, fields.toSeq, checksumOk = false, trailerOk = false))
    val lastIsSoh = bl > 0 && at(bodyStart + bl - 1) == Soh
    val t = (0 until 7).map(j => at(bodyStart + bl + j))
    val trailerOk = lastIsSoh && t(0) == '1' && t(1) == '0' && t(2) == '=' && t.slice(3, 6).forall(isDig) && t(6) == Soh
    val sum = (0 until bodyStart + bl).map(at).sum % 256
    val cs = if (trailerOk) t.slice(3, 6).foldLeft(0)((a, d) => a * 10 + d - '0') else -1
    Some(Msg(complete = true, end, headerOk = true, bl, fields.toSeq, checksumOk = cs == sum, trailerOk = trailerOk))
  }

  /** The 35=W rules the trigger table applies (offload/README.md "Well-formed 35=W"), on the fields seen so far
    * (`complete`: all of them, so the counts must agree too). */
  def wellFormedW(fields: Seq[(String, String)], complete: Boolean): Boolean = {
    if (fields.isEmpty) return !complete
    if (fields.head != ("35", "W")) return false
    var n55 = 0; var n268 = -1; var had268 = false; var n269 = 0; var inEntry = false; var cur270 = false
    for (((t, v), i) <- fields.zipWithIndex) {
      if (t.isEmpty || !t.forall(c => isDig(c)) || t(0) == '0' || v.isEmpty || v == "\u0000") return false
      if (i > 0 && (t == "35" || t == "8" || t == "9" || t == "10")) return false
      t match {
        case "55" => n55 += 1; if (n55 > 1) return false
        case "268" => if (had268 || !v.forall(c => isDig(c)) || v.length > 3 || v.toInt > 255) return false; had268 = true; n268 = v.toInt
        case "269" => n269 += 1; inEntry = true; cur270 = false
        case "270" => if (!inEntry || cur270) return false; cur270 = true
        case _ =>
      }
    }
    !complete || (n55 == 1 && had268 && n268 == n269)
  }
}

/** The model: `ours`/`theirs` are our and the exchange's CompIDs (56 and 49 of what the exchange sends). */
class DigestModel(ours: String, theirs: String, var nextSeq: Long, var expMsg: Option[Long]) {
  import DigestModel._
  var enabled = true
  // The message in progress across segments: its bytes so far, whether the hardware owns it, and whether its owner is
  // still undecided (firmware holds its head; the hardware takes it if it completes verified).
  private var carry = ArrayBuffer[Int]()
  private var carryHw = false
  private var carryUnd = false

  private def fieldsOk(m: Msg, exp: Long): Boolean = {
    val vs = m.fields
    vs.forall { case (t, v) => t match {
      case "49" => v == theirs
      case "56" => v == ours
      case "34" => v.nonEmpty && v.forall(c => c >= '0' && c <= '9') && v.length <= 10 && BigInt(v) == BigInt(exp)
      case "43" => v != "Y"
      case _ => true
    } } && vs.count(_._1 == "34") <= 1 && vs.count(_._1 == "49") <= 1 && vs.count(_._1 == "56") <= 1
  }
  /** A complete message the hardware may digest: a well-formed W of this session, the expected MsgSeqNum, no PossDup. */
  private def verified(m: Msg, exp: Long): Boolean =
    m.complete && m.checksumOk && m.trailerOk && wellFormedW(m.fields, complete = true) && fieldsOk(m, exp) &&
      Seq("49", "56", "34", "52").forall(t => m.value(t).isDefined)
  /** The head of a message so far a W of this session (35=W complete, nothing seen contradicts it). */
  private def provisional(m: Msg, exp: Long): Boolean =
    !m.complete && m.headerOk && m.fields.nonEmpty && wellFormedW(m.fields, complete = false) && fieldsOk(m, exp)
  /** How the session's incoming MsgSeqNum goes on after a complete message that firmware parses (as fw/fix/session.c
    * does for the cases the parser follows); None: the parser stops following it. */
  private def follow(m: Msg, exp: Long): Option[Long] = {
    if (!m.checksumOk || !m.trailerOk) return Some(exp)   // garbled: ignored; the next message shows the gap
    val inStep = fieldsOk(m, exp) && Seq("49", "56", "34").forall(t => m.value(t).isDefined) &&
      !Seq("4", "A", "5").contains(m.msgType.getOrElse(""))
    if (inStep) Some(exp + 1) else None
  }

  /** Firmware moves the parser's expectation: {stream position, next MsgSeqNum}, taken only at that position, at a
    * message boundary. */
  def resync(position: Long, msg: Long): Boolean = {
    if (position != nextSeq || carry.nonEmpty) return false
    expMsg = Some(msg)
    true
  }

  /** One good in-order data segment (it starts at nextSeq). */
  def segment(payload: Seq[Int]): Digest = {
    require(payload.nonEmpty)
    val seqStart = nextSeq
    val data = (carry ++ payload).toIndexedSeq
    val c0 = carry.length
    var exp = expMsg
    var digest = enabled && exp.isDefined && !(c0 > 0 && !carryHw && !carryUnd)
    var skip = 0; var tail = 0; var held = 0; var garbled = false
    var hwFirst = -1L; var hwCount = 0
    // the hardware completed a verified message ending at data(end - 1): the skip of a passed segment reaches there
    // (all of them precede the first byte firmware owns: once the segment is passed nothing more is the hardware's)
    def hwDone(end: Int): Unit = { if (hwCount == 0) hwFirst = exp.get; hwCount += 1; exp = exp.map(_ + 1); skip = end - c0 }
    var pos = 0
    var newCarry = -1          // start (in data) of the message still in progress at the end, if any
    var newCarryHw = false
    var newCarryUnd = false
    var tailStart = -1         // ... when it starts in this segment
    // The message carried from earlier segments.
    if (c0 > 0) read(data, 0) match {
      // a head firmware got ("8=FIX.4.4|9=" so far) that turns out to be no message: firmware hunts on from its
      // second byte (the hardware's heads are past BodyLength, so always a message)
      case None => digest = false; pos = 1
      case Some(m) =>
        if (carryHw) skip = math.min(m.length, data.length) - c0
        if (m.complete) {
          if (carryHw) {
            if (exp.isDefined && verified(m, exp.get)) hwDone(m.length)
            else { garbled = true; digest = false }   // ignored, as firmware ignores a garbled message
          } else if (carryUnd && digest && verified(m, exp.get)) hwDone(m.length)   // the hardware takes it
          else { digest = false; exp = exp.flatMap(e => follow(m, e)) }            // firmware's (it has the head)
          pos = m.length
        } else {
          newCarry = 0; newCarryHw = carryHw; newCarryUnd = carryUnd; pos = data.length
          if (carryUnd) { digest = false; held = payload.length }   // still undecided: firmware holds it all
        }
    }
    // The messages that start in this segment.
    while (pos < data.length) {
      read(data, pos) match {
        case None => digest = false; pos += 1   // not a message start: firmware hunts over it
        case Some(m) if m.complete =>
          if (digest && verified(m, exp.get)) hwDone(pos + m.length)
          else { digest = false; exp = exp.flatMap(e => follow(m, e)) }   // (a verified W advances it the same way)
          pos += m.length
        case Some(m) =>
          newCarry = pos; tailStart = pos - c0
          // (one found inside the carried bytes began in an earlier segment: firmware has its head)
          newCarryHw = pos >= c0 && enabled && exp.isDefined && provisional(m, exp.get)
          // not (yet) a W of this session: undecided, firmware holds the head (one found inside the carried bytes
          // began in an earlier segment: firmware's)
          newCarryUnd = !newCarryHw && pos >= c0 && enabled && exp.isDefined
          if (newCarryUnd) held = payload.length - tailStart
          if (!newCarryHw) digest = false
          pos = data.length
      }
    }
    // a passed segment: firmware parses every message that starts after its skip
    if (!digest && newCarryHw && tailStart >= 0) tail = payload.length - tailStart
    carry = if (newCarry >= 0) ArrayBuffer(data.drop(newCarry): _*) else ArrayBuffer[Int]()
    carryHw = newCarry >= 0 && newCarryHw
    carryUnd = newCarry >= 0 && newCarryUnd
    expMsg = exp
    nextSeq = (nextSeq + payload.length) & 0xFFFFFFFFL
    Digest(seqStart, nextSeq, digest, if (digest) 0 else skip, if (digest) 0 else tail, hwFirst, hwCount, garbled,
      exp.isDefined, held)
  }

  /** A good in-order segment whose descriptor found no room: firmware gets it as one the parser never saw; the parser
    * forgets the message in progress and stops following the MsgSeqNum until firmware resynchronises it. */
  def overflow(length: Int): Unit = {
    carry = ArrayBuffer[Int](); carryHw = false; carryUnd = false; expMsg = None
    nextSeq = (nextSeq + length) & 0xFFFFFFFFL
  }

  /** The message in progress at the end of the stream so far: its length, and whether the hardware owns it. */
  def pending: (Int, Boolean) = (carry.length, carryHw)
  /** ... and whether its owner is still undecided (firmware holds it). */
  def pendingUndecided: Boolean = carryUnd
}
