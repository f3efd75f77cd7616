// Reference model of OffloadRx (a plain software parser: frames and commands in, fires and counters out), and
// the builders the tests use for Ethernet/IPv4/TCP frames and FIX messages. The model follows the behaviour
// README.md describes, field by field; it knows nothing of the hardware's pipeline, lookup tables or lags.
package triggerfish.offload

import scala.collection.mutable
import scala.collection.mutable.ArrayBuffer

/** Frames: Ethernet II + IPv4 + TCP, FCS not included (the MAC strips it; its check is the `error` flag). */
object Net {
  def onesSum(seq: Seq[Int]): Int = {
    val bytes = seq.toArray   // callers pass Lists (pseudo header ++ segment): indexing them made this quadratic
    var s = 0L
    var i = 0
    while (i < bytes.length) {
      val hi = bytes(i) & 0xFF
      val lo = if (i + 1 < bytes.length) bytes(i + 1) & 0xFF else 0
      s += (hi << 8) | lo
      i += 2
    }
    while ((s >> 16) != 0) s = (s & 0xFFFF) + (s >> 16)
    s.toInt
  }
  def be16(v: Int): Seq[Int] = Seq((v >> 8) & 0xFF, v & 0xFF)
  def be32(v: Long): Seq[Int] = Seq(((v >> 24) & 0xFF).toInt, ((v >> 16) & 0xFF).toInt, ((v >> 8) & 0xFF).toInt, (v & 0xFF).toInt)
  def mac(v: Long): Seq[Int] = (5 to 0 by -1).map(i => ((v >> (8 * i)) & 0xFF).toInt)

  case class Tcp(
    srcMac: Long, dstMac: Long, srcIp: Long, dstIp: Long, srcPort: Int, dstPort: Int,
    seq: Long, ack: Long = 0, flags: Int = 0x18 /* PSH ACK */, payload: Seq[Int] = Nil,
    ipOptions: Seq[Int] = Nil, tcpOptions: Seq[Int] = Nil, ipId: Int = 0, fragField: Int = 0x4000 /* DF */,
    etherType: Int = 0x0800, version: Int = 4, protocol: Int = 6,
    badIpSum: Boolean = false, badTcpSum: Boolean = false,
    totalLenDelta: Int = 0,     // lie in the IPv4 total length
    ihlOverride: Int = -1, doffOverride: Int = -1
  ) {
    def bytes: Array[Int] = {
      require(ipOptions.length % 4 == 0 && tcpOptions.length % 4 == 0)
      val ihl = if (ihlOverride >= 0) ihlOverride else 5 + ipOptions.length / 4
      val doff = if (doffOverride >= 0) doffOverride else 5 + tcpOptions.length / 4
      val tcpHdrLen = 20 + tcpOptions.length
      val tcpLen = tcpHdrLen + payload.length
      val totalLen = 20 + ipOptions.length + tcpLen + totalLenDelta
      val tcp0 = be16(srcPort) ++ be16(dstPort) ++ be32(seq) ++ be32(ack) ++ Seq((doff << 4) & 0xF0, flags & 0xFF) ++
        be16(0xFFFF) ++ Seq(0, 0) ++ Seq(0, 0) ++ tcpOptions
      val pseudo = be32(srcIp) ++ be32(dstIp) ++ Seq(0, 6) ++ be16(tcpLen)
      val tsum0 = (~onesSum(pseudo ++ tcp0 ++ payload)) & 0xFFFF
      val tsum = if (badTcpSum) tsum0 ^ 0x0101 else tsum0
      val tcp = tcp0.take(16) ++ be16(tsum) ++ tcp0.drop(18)
      val ip0 = Seq(((version & 0xF) << 4) | (ihl & 0xF), 0) ++ be16(totalLen & 0xFFFF) ++ be16(ipId) ++ be16(fragField) ++
        Seq(64, protocol) ++ Seq(0, 0) ++ be32(srcIp) ++ be32(dstIp) ++ ipOptions
      val isum0 = (~onesSum(ip0)) & 0xFFFF
      val isum = if (badIpSum) isum0 ^ 0x8001 else isum0
      val ip = ip0.take(10) ++ be16(isum) ++ ip0.drop(12)
      val f = mac(dstMac) ++ mac(srcMac) ++ be16(etherType) ++ ip ++ tcp ++ payload
      (if (f.length < 60) f ++ Seq.fill(60 - f.length)(0) else f).toArray
    }
    def payloadLen: Int = payload.length
  }
}

/** FIX 4.4 message text. */
object Fix {
  val SOH = '\u0001'
  def checksum(s: String): Int = s.getBytes("ISO-8859-1").map(_ & 0xFF).sum % 256
  /** A message from its body fields (tag -> value, in order, 35 first as a rule); BodyLength and CheckSum computed
    * unless overridden. */
  def message(body: Seq[(String, String)], bodyLenDelta: Int = 0, checksumDelta: Int = 0, beginString: String = "FIX.4.4"): String = {
    val b = body.map { case (t, v) => s"$t=$v$SOH" }.mkString
    val head = s"8=$beginString${SOH}9=${b.length + bodyLenDelta}$SOH"
    val cs = (checksum(head + b) + checksumDelta + 256) % 256
    head + b + f"10=$cs%03d$SOH"
  }
  def bytes(s: String): Seq[Int] = s.getBytes("ISO-8859-1").map(_ & 0xFF).toSeq

  /** Fixed point (value with `decimals` implied decimals) as a FIX price string with `fracDigits` decimals
    * (>= the significant ones unless `truncate`), optional leading zeros and trailing '.'. */
  def price(value: Long, decimals: Int, fracDigits: Int, leadingZeros: Int = 0, trailingDot: Boolean = false): String = {
    val p = BigInt(10).pow(decimals)
    val int = BigInt(value) / p
    val frac = BigInt(value) % p
    val fracStr = if (decimals == 0) "" else frac.toString.reverse.padTo(decimals, '0').reverse
    val f = if (fracDigits >= decimals) fracStr + "0" * (fracDigits - decimals) else fracStr.take(fracDigits)
    val intStr = "0" * leadingZeros + int.toString
    if (f.isEmpty) intStr + (if (trailingDot) "." else "") else intStr + "." + f
  }
}

/** One fire as the model predicts it; the stamp is named by the byte (frame id, index) it refers to. */
case class ModelFire(trigger: Int, template: Int, ackSeq: Long, price: Long, stampRef: Option[(Int, Int)], recordValid: Boolean)

case class ModelEntry(sym: String = "", stop: Long = 0, sell: Boolean = false, oneShot: Boolean = true, tmpl: Int = 0) {
  def symValid: Boolean = sym.length <= 8 && sym.forall(c => c >= 0x21 && c <= 0x5F)
}

object RxKind { val NONE = 0; val INORDER = 1; val OOO = 2; val BAD = 3; val IGNORED = 4 }

class OffloadRxModel(val n: Int) {
  /** Called with each good in-order segment's new payload bytes (from the sequence number given), before it commits. */
  var onInorder: (Long, IndexedSeq[Int]) => Unit = (_, _) => ()
  // configuration in force
  var enable = false
  var ourMac = 0L; var ourIp = 0L; var ourPort = 0; var peerIp = 0L; var peerPort = 0
  var decimals = 0; var tradeType = '2'.toInt
  var rcvNxt = 0L; var closed = false
  val entries = Array.fill(n)(ModelEntry())
  val armed = Array.fill(n)(false)
  // counters
  var segSeen, segInorder, segOoo, segBad, segIgnored, wMsgs, fixErrors, fires = 0L

  val logCapacity = 14
  case class Rec(price: Long, stamp: (Int, Int))

  /** The parser state that persists across segments (and is restored after a bad one). */
  class PState {
    var mode = 0; var prevSoh = true; var lit = 0; var bodyLen = 0L; var blDigits = 0; var bodyLeft = 0L; var csum = 0
    var isW = false; var bad = false; var firstField = false; var had55 = false; var symDone = false; var had268 = false
    var n268 = 0; var n269 = 0; var inEntry = false; var curTrade = false; var cur270 = false
    var inTag = true; var tag = ""; var value = ArrayBuffer[Int](); var cls = 0; var evalField = false
    var cval = 0; var cok = false
    val S = Array.fill(n)(false); val C = Array.fill(n)(false); val elig = Array.fill(n)(false)
    val trig: Array[Option[Rec]] = Array.fill(n)(None)
    var live = 0; var msgSlots = 0
    def copy: PState = {
      val c = new PState
      c.mode = mode; c.prevSoh = prevSoh; c.lit = lit; c.bodyLen = bodyLen; c.blDigits = blDigits; c.bodyLeft = bodyLeft; c.csum = csum
      c.isW = isW; c.bad = bad; c.firstField = firstField; c.had55 = had55; c.symDone = symDone; c.had268 = had268
      c.n268 = n268; c.n269 = n269; c.inEntry = inEntry; c.curTrade = curTrade; c.cur270 = cur270
      c.inTag = inTag; c.tag = tag; c.value = value.clone(); c.cls = cls; c.evalField = evalField; c.cval = cval; c.cok = cok
      Array.copy(S, 0, c.S, 0, n); Array.copy(C, 0, c.C, 0, n); Array.copy(elig, 0, c.elig, 0, n); Array.copy(trig, 0, c.trig, 0, n)
      c.live = live; c.msgSlots = msgSlots
      c
    }
  }
  var st = new PState
  val P = mutable.TreeSet[Int]()
  var segW = 0; var segErr = 0

  def resetParser(): Unit = { st = new PState; P.clear() }

  // ---------------------------------------------------------------------------------------------
  // Commands (between frames)
  def config(en: Boolean, mac: Long, ip: Long, port: Int, pIp: Long, pPort: Int, dec: Int, trade: Int): Int = {
    if (dec > 8) return 1
    if (dec != decimals) for (j <- 0 until n) armed(j) = false
    enable = en; ourMac = mac; ourIp = ip; ourPort = port; peerIp = pIp; peerPort = pPort; decimals = dec; tradeType = trade
    resetParser(); 0
  }
  def loadSeq(v: Long): Unit = { rcvNxt = v & 0xFFFFFFFFL; closed = false; resetParser() }
  def writeEntry(j: Int, e: ModelEntry, arm: Boolean): Int = {
    armed(j) = false; st.elig(j) = false
    if (e.stop >= 100000000000000L) return 1
    entries(j) = e; armed(j) = arm; 0
  }
  def arm(j: Int): Unit = armed(j) = true
  def disarm(j: Int): Int = { val was = armed(j); armed(j) = false; st.elig(j) = false; if (was) 1 else 0 }
  def disarmAll(): Unit = for (j <- 0 until n) { armed(j) = false; st.elig(j) = false }

  // ---------------------------------------------------------------------------------------------
  // Frames
  /** Processes one frame (bytes without FCS, `fcsErr` = the MAC's error flag); returns the kind and the fires. */
  def frame(id: Int, f: Array[Int], fcsErr: Boolean): (Int, Seq[ModelFire]) = {
    def u8(i: Int) = f(i) & 0xFF
    def u16(i: Int) = (u8(i) << 8) | u8(i + 1)
    def u32(i: Int) = (u16(i).toLong << 16) | u16(i + 2)
    def have(i: Int) = i < f.length
    // "ours": structure and addresses up to the TCP ports
    if (!have(14)) return (RxKind.NONE, Nil)
    val ihl = u8(14) & 0xF
    val ipStart = 14; val tcpStart = 14 + ihl * 4
    val structOk = (0 until 6).forall(i => have(i) && u8(i) == ((ourMac >> (8 * (5 - i))) & 0xFF)) &&
      have(13) && u16(12) == 0x0800 && (u8(14) >> 4) == 4 && ihl >= 5
    // (the hardware compares the destination port at the byte after it: a frame that ends with it is not counted)
    if (!structOk || !have(tcpStart + 4)) return (RxKind.NONE, Nil)
    val ours = u8(23) == 6 && u32(26) == peerIp && u32(30) == ourIp && u16(tcpStart) == peerPort && u16(tcpStart + 2) == ourPort
    if (!ours) return (RxKind.NONE, Nil)
    segSeen += 1
    val totalLen = u16(16)
    val ipSumOk = Net.onesSum((ipStart until tcpStart).map(u8)) == 0xFFFF
    val frag = (u8(20) & 0x20) != 0 || (u16(20) & 0x1FFF) != 0
    val complete = f.length >= 14 + totalLen
    var lenBad = totalLen < ihl * 4
    val tcpLen = totalLen - ihl * 4
    val doff = if (have(tcpStart + 12)) u8(tcpStart + 12) >> 4 else 0
    if (!lenBad && (doff < 5 || tcpLen < doff * 4)) lenBad = true
    val tcpOk = complete && !lenBad && {
      val pseudo = Net.be32(peerIp) ++ Net.be32(ourIp) ++ Seq(0, 6) ++ Net.be16(tcpLen)
      Net.onesSum(pseudo ++ (tcpStart until tcpStart + tcpLen).map(u8)) == 0xFFFF
    }
    val kind =
      if (fcsErr || !ipSumOk || lenBad || !complete || !tcpOk) RxKind.BAD
      else {
        val flags = u8(tcpStart + 13)
        val fin = (flags & 1) != 0; val syn = (flags & 2) != 0; val rst = (flags & 4) != 0
        val seq = u32(tcpStart + 4)
        val payLen = tcpLen - doff * 4
        val skip = (rcvNxt - seq) & 0xFFFFFFFFL
        if (frag || syn || rst || !enable || closed) RxKind.IGNORED
        else if (!(skip == 0 || skip < payLen)) RxKind.OOO
        else {
          // in order: parse the new payload bytes, commit, fire
          val payStart = tcpStart + doff * 4
          segW = 0; segErr = 0
          for (i <- payStart + skip.toInt until payStart + payLen) byte(u8(i), (id, i))
          onInorder(rcvNxt, (payStart + skip.toInt until payStart + payLen).map(u8))
          val ackSeq = (seq + payLen + (if (fin) 1 else 0)) & 0xFFFFFFFFL
          rcvNxt = ackSeq
          if (fin) closed = true
          val out = P.toSeq.map { j =>
            val r = st.trig(j)
            ModelFire(j, entries(j).tmpl, ackSeq, r.map(_.price).getOrElse(0L), r.map(_.stamp), r.isDefined)
          }
          for (j <- P if entries(j).oneShot) { armed(j) = false; st.elig(j) = false }
          P.clear()
          st.live = if (st.mode != 0) st.msgSlots else 0
          segInorder += 1; wMsgs += segW; fixErrors += segErr; fires += out.length
          return (RxKind.INORDER, out)
        }
      }
    kind match {
      case RxKind.BAD => segBad += 1
      case RxKind.IGNORED => segIgnored += 1
      case RxKind.OOO => segOoo += 1
    }
    (kind, Nil)
  }
  // A bad segment is not parsed at all: that is what the hardware's restore to the segment-start snapshot
  // amounts to.

  // ---------------------------------------------------------------------------------------------
  // The FIX scanner, one payload byte at a time
  private val beginLit = "8=FIX.4.4\u00019=".map(_.toInt)
  private def isDig(b: Int) = b >= 0x30 && b <= 0x39

  def byte(b: Int, where: (Int, Int)): Unit = {
    val s = st
    val soh = b == 1
    s.mode match {
      case 0 => // HUNT
        if (s.prevSoh && b == '8') { s.mode = 1; s.lit = 1; s.csum = b; msgStart() }
        s.prevSoh = soh
      case 1 => // BEGIN
        if (b == beginLit(s.lit)) {
          s.csum = (s.csum + b) & 0xFF; s.lit += 1
          if (s.lit == 12) { s.mode = 2; s.bodyLen = 0; s.blDigits = 0 }
        } else { s.mode = 0; s.prevSoh = soh }
      case 2 => // BODYLEN
        s.csum = (s.csum + b) & 0xFF
        if (isDig(b) && !(s.blDigits == 0 && b == '0') && s.blDigits != 5) { s.bodyLen = s.bodyLen * 10 + (b - '0'); s.blDigits += 1 }
        else if (soh && s.blDigits != 0) {
          s.mode = 3; s.bodyLeft = s.bodyLen
          s.isW = false; s.bad = false; s.firstField = true; s.had55 = false; s.symDone = false; s.had268 = false
          s.n268 = 0; s.n269 = 0; s.inEntry = false; s.curTrade = false; s.cur270 = false; s.inTag = true; s.tag = ""
        } else { s.mode = 0; s.prevSoh = soh }
      case 3 => // BODY
        s.csum = (s.csum + b) & 0xFF
        val last = s.bodyLeft == 1
        val endsField = !s.inTag && soh && s.value.nonEmpty
        s.bodyLeft -= 1
        if (s.inTag) bodyTagByte(b) else bodyValueByte(b, where)
        if (last) {
          if (!endsField) s.bad = true
          s.mode = 4; s.lit = 0
        }
      case 4 => // TRAILER "10=ddd<SOH>"
        if (s.lit == 0 && (!s.had268 || s.n268 != s.n269 || !s.symDone)) s.bad = true
        val ok = s.lit match {
          case 0 => b == '1'; case 1 => b == '0'; case 2 => b == '='; case 3 | 4 | 5 => isDig(b); case 6 => soh
        }
        if (!ok) { s.mode = 0; s.prevSoh = soh; segErr += 1 }
        else {
          if (s.lit == 3) s.cval = b - '0'
          if (s.lit == 4) s.cval = s.cval * 10 + (b - '0')
          if (s.lit == 5) s.cok = s.cval * 10 + (b - '0') == s.csum
          s.lit += 1
          if (s.lit == 7) {
            s.mode = 0; s.prevSoh = true
            if (s.isW && !s.bad && s.cok) {
              segW += 1
              for (j <- 0 until n if s.S(j) && s.C(j) && s.elig(j)) P += j
            } else if (s.isW) segErr += 1
          }
        }
    }
  }

  private def msgStart(): Unit = {
    val s = st
    for (j <- 0 until n) { s.S(j) = false; s.C(j) = false; s.elig(j) = armed(j) }
    s.msgSlots = 0
  }

  // tag classes
  private val T_OTHER = 0; private val T_35 = 1; private val T_55 = 2; private val T_268 = 3; private val T_269 = 4; private val T_270 = 5

  private def bodyTagByte(b: Int): Unit = {
    val s = st
    val evalOk = s.isW && !s.bad          // as the byte found it
    if (isDig(b)) {
      if (s.tag.isEmpty && b == '0') s.bad = true
      s.tag += b.toChar
    } else if (b == '=') {
      val t = if (s.tag.length <= 3) s.tag else "long"
      if (s.tag.isEmpty || (s.firstField != (t == "35")) || t == "8" || t == "9" || t == "10") s.bad = true
      s.firstField = false
      if (t == "55") { if (s.had55) s.bad = true }
      if (t == "268") { if (s.had268) s.bad = true; s.n268 = 0 }
      if (t == "270" && (!s.inEntry || s.cur270)) s.bad = true
      val evalPrice = t == "270" && s.inEntry && s.curTrade && !s.cur270
      s.cls = t match {
        case "35" => T_35; case "55" => T_55; case "268" => T_268; case "269" => T_269
        case "270" if evalPrice => T_270; case _ => T_OTHER
      }
      s.evalField = (t == "55" && !s.had55 && evalOk) || (evalPrice && evalOk)
      if (t == "55") s.had55 = true
      if (t == "268") s.had268 = true
      if (t == "269") { s.n269 += 1; s.inEntry = true; s.curTrade = false; s.cur270 = false }
      if (t == "270") s.cur270 = true
      s.inTag = false; s.value.clear()
    } else {
      s.bad = true
      if (b == 1) s.tag = ""
    }
  }

  private def bodyValueByte(b: Int, where: (Int, Int)): Unit = {
    val s = st
    if (b != 1) { s.value += b; return }
    // end of the field
    if (s.value.isEmpty) s.bad = true
    val v = s.value
    s.cls match {
      case T_35 => s.isW = v.length == 1 && v(0) == 'W'
      case T_269 => s.curTrade = v.length == 1 && v(0) == tradeType
      case T_268 =>
        var x = 0; var ok = true
        for (c <- v) { if (!isDig(c)) ok = false else { x = x * 10 + (c - '0'); if (x > 255) ok = false } }
        if (!ok) s.bad = true
        s.n268 = if (ok) x else -1
      case T_55 =>
        s.symDone = true
        if (s.evalField) {
          val sym = new String(v.map(_.toChar).toArray)
          val valid = v.length <= 8 && v.forall(c => c >= 0x21 && c <= 0x5F)
          for (j <- 0 until n) s.S(j) = valid && entries(j).symValid && entries(j).sym == sym
        }
      case T_270 =>
        if (s.evalField) parsePrice(v.toSeq).foreach(p => priceEnd(p, where))
      case _ =>
    }
    s.inTag = true; s.tag = ""
  }

  /** A FIX price (a float: optional '-', digits with at most one '.', at least one digit), or None if it is not
    * one. Compared exactly with the stops (see `crosses`), whatever its number of digits. */
  def parsePrice(v: Seq[Int]): Option[Px] = {
    val neg = v.nonEmpty && v.head == '-'
    val u = if (neg) v.tail else v
    if (u.isEmpty || !u.forall(c => isDig(c) || c == '.') || u.count(_ == '.') > 1 || !u.exists(isDig)) return None
    val str = new String(u.map(_.toChar).toArray)
    Some(Px(BigDecimal(if (str.startsWith(".")) "0" + str else if (str.endsWith(".")) str + "0" else str) * (if (neg) -1 else 1)))
  }

  /** A price as the trigger table sees it: its exact value; the logged price is its floor at the implied decimals
    * (0 for a negative price, all ones for one of 10^14 or more). */
  case class Px(value: BigDecimal) {
    def crosses(e: ModelEntry): Boolean = {
      val stop = BigDecimal(e.stop) / BigDecimal(10).pow(decimals)
      if (e.sell) value <= stop else value >= stop
    }
    def logged: Long = {
      val f = (value * BigDecimal(10).pow(decimals)).setScale(0, BigDecimal.RoundingMode.FLOOR).toBigInt
      if (value < 0) 0L else if (f >= BigInt(10).pow(14)) (1L << 48) - 1 else f.toLong
    }
  }

  private def priceEnd(px: Px, where: (Int, Int)): Unit = {
    val s = st
    val price = px.logged
    val newCross = ArrayBuffer[Int]()
    for (j <- 0 until n) {
      val e = entries(j)
      val crossing = s.elig(j) && px.crosses(e)
      if (crossing) {
        if (!s.C(j) && !P.contains(j)) newCross += j
        s.C(j) = true
      }
    }
    val relevant = newCross.exists(j => s.S(j) || !s.symDone)
    if (relevant) {
      val rec = if (s.live < logCapacity) { s.live += 1; s.msgSlots += 1; Some(Rec(price, where)) } else None
      for (j <- newCross) s.trig(j) = rec
    }
  }
}
