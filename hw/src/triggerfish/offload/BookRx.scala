// Hardware top of book (issue 15, docs/DESIGN.md "Top of book"), one stage of the receive path beside the trigger
// table: for each of up to four symbols (the session's subscriptions), the first bid, offer and trade price of the
// last 35=W of that symbol the receive parser committed, and how many such messages there were. Firmware reads it
// when the hardware digests market data and so never sees those messages itself.
//
// It reads the scanner's payload bytes (OffloadRx: the in-order payload of the session's connection) and needs from
// the scanner only where a message body starts and which messages commit (a well-formed 35=W with a good CheckSum in
// a good segment): it tokenises the body itself (tag, value), so that the scanner's and the trigger table's timing
// is untouched. Per message, the first entry of each type (269 = 0 bid, 1 offer, 2 trade; FIX lists the best level
// first) with a usable price (270) is kept; at the message's commit these become the symbol's slot's values, and
// the slot's update count goes up by one. Like the scanner's, everything a segment changes is provisional until its
// verdict: a bad segment restores the state at its start.
//
// A price is kept as the floor of its value at the implied decimals, as firmware's fix_parse_decimal_trunc gives
// it: its digits up to DECIMALS fraction digits (MAG) and how many fraction digits it lacks (SCALE: the value at the
// implied decimals is MAG * 10^SCALE, a multiplication firmware does when it reads one, not the hardware at every
// price), the sign, and whether digits other than 0 were cut (then a negative value is one lower). A price of 10^14
// or more at the implied decimals (more integer digits than 14 - DECIMALS), or not a FIX price (an optional '-',
// digits, at most one '.'), is not kept: the entry counts as absent. A symbol longer than 8 characters matches no
// slot.
package triggerfish.offload

import spinal.core._
import spinal.lib._
import scala.collection.mutable.ArrayBuffer

object BookRx {
  val symChars = OffloadRx.symChars     // the trigger table's: a symbol an entry can hold
  val magWidth = 47            // < 10^14 < 2^47
  val maxDigits = OffloadRx.maxDigits   // a price < 10^14 at the implied decimals, as the trigger table takes
  val types = 3                // 269 = '0' bid, '1' offer, '2' trade
  val TYPE_NONE = 3
  /** A register of BookPx that powers up (and resets) as "not kept". */
  def initPx(p: BookPx): Unit = { p.valid.init(False); p.neg.init(False); p.inexact.init(False); p.scale.init(0); p.mag.init(0) }
  // the field whose value is being read
  val F_OTHER = 0; val F_55 = 1; val F_269 = 2; val F_270 = 3
}

/** One kept price: its digits (the magnitude at the implied decimals is mag * 10^scale, truncated), its sign and
  * whether digits were cut. */
case class BookPx() extends Bundle {
  val valid = Bool()
  val neg = Bool()
  val inexact = Bool()
  val scale = UInt(4 bits)
  val mag = UInt(BookRx.magWidth bits)
}

/** A slot's values: bid, offer and trade (BookRx.types), and the messages of its symbol committed. */
case class BookSlot() extends Bundle {
  val px = Vec(BookPx(), BookRx.types)
  val updates = UInt(32 bits)
}

/** The slots' symbols (NUL padded, character 0 in bits 7:0; all NUL: the slot is unused). */
case class BookConfig(slots: Int) extends Bundle {
  val syms = Vec(Bits(64 bits), slots)
  val clear = Bool()           // every slot's values cleared (the implied decimals changed); else only a slot whose
                               // symbol changes
}

case class BookRx(slots: Int, refFeed: Boolean = false) extends Component {
  import BookRx._
  require(isPow2(slots) && slots >= 2 && slots <= 4, "BookRx: 2 or 4 slots")
  val io = new Bundle {
    val byte = slave(Flow(Bits(8 bits)))   // the scanner's payload bytes (one a cycle at most)
    val bodyStart = in Bool()              // with byte.valid: the byte ends BodyLength, a message body follows
    val commit = in Bool()                 // with byte.valid: the byte ends the CheckSum of a 35=W the scanner commits
    val decimals = in UInt (4 bits)        // the implied decimals (0..8), changed only with `config.clear`
    val segCommit = in Bool()              // the segment's verdict, at least 4 cycles after its last byte: good
    val segRestore = in Bool()             //   bad: back to the state at its start
    val reset = in Bool()                  // between segments: the stream moved, nothing in progress (the slots stay)
    val config = slave(Flow(BookConfig(slots)))   // between segments
    val readSlot = in UInt (log2Up(slots) bits)
    val read = out(BookSlot())             // that slot's values as of the last good segment's end
  }

  val snapPairs = ArrayBuffer[(Data, Data)]()
  def snap[T <: Data](r: T): T = { snapPairs += ((r, Reg(cloneOf(r)))); r }
  def satInc(x: UInt): Unit = when(x =/= x.maxValue) { x := x + 1 }
  def times10(x: UInt): UInt = ((x |<< 3) + (x |<< 1)).resize(x.getWidth)   // (shifts: no multiplier)

  // ---- the byte, registered with its classes
  val v = RegNext(io.byte.valid) init False
  val c = RegNext(io.byte.payload) init 0
  val bodyStart = RegNext(io.byte.valid && io.bodyStart) init False
  val commit = RegNext(io.byte.valid && io.commit) init False
  private def cls(f: UInt => Bool): Bool = RegNext(f(io.byte.payload.asUInt)) init False
  val isDig = cls(x => x >= 0x30 && x <= 0x39)
  val isSoh = cls(_ === 0x01)
  val isEq = cls(_ === 0x3D)
  val isDot = cls(_ === 0x2E)
  val isMinus = cls(_ === 0x2D)
  val d = c(3 downto 0).asUInt

  // ---- the field in progress
  val inTag = snap(RegInit(True))
  val tagBcd = snap(Reg(Bits(12 bits)) init 0)     // the tag's last three digits
  val tagLen = snap(Reg(UInt(3 bits)) init 0)      // its digits (saturates at 4)
  val fld = snap(Reg(UInt(2 bits)) init F_OTHER)
  val vFirst = snap(RegInit(False))                // the value's first character comes next
  // 55
  val sym = snap(Reg(Bits(64 bits)) init 0)
  val symLen = snap(Reg(UInt(4 bits)) init 0)      // saturates at 9: too long for any slot
  val hit = snap(Reg(Bits(slots bits)) init 0)     // the message's symbol is slot k's
  // 269
  val tFirst = snap(Reg(Bits(8 bits)) init 0)
  val tLong = snap(RegInit(False))                 // more than one character
  val etype = snap(Reg(UInt(2 bits)) init TYPE_NONE)
  // 270: the magnitude's digits so far, at most DECIMALS of them after the '.'
  val acc = snap(Reg(UInt(magWidth bits)) init 0)
  val pNeg, pDot, pSig, pBad, pOver, pInexact, pAny = snap(RegInit(False))
  val intN = snap(Reg(UInt(4 bits)) init 0)        // significant integer digits
  val fracN = snap(Reg(UInt(4 bits)) init 0)       // fraction digits taken (<= DECIMALS)
  // the message's first price of each type
  val pend = snap(Vec.fill(types)(Reg(BookPx())))
  // the slots
  val slotSym = Vec.fill(slots)(Reg(Bits(64 bits)) init 0)
  val slot = snap(Vec.fill(slots)(Reg(BookSlot())))

  val maxInt = RegNext(U(maxDigits, 4 bits) - io.decimals) init maxDigits   // integer digits that fit
  val dec = io.decimals

  // ---- one byte a cycle: the field it is in, and at its SOH what the field said
  when(v) {
    when(bodyStart) {
      inTag := True; tagBcd := 0; tagLen := 0; fld := F_OTHER
      hit := 0; etype := TYPE_NONE
      for (p <- pend) p.valid := False
    } elsewhen (inTag) {
      when(isDig) {
        tagBcd := tagBcd(7 downto 0) ## d.asBits
        satInc(tagLen)
      } elsewhen (isEq) {
        inTag := False; vFirst := True
        val three = tagLen === 3
        fld := F_OTHER
        when(tagLen === 2 && tagBcd(7 downto 0) === B"x55") { fld := F_55 }
        when(three && tagBcd === B"x269") { fld := F_269 }
        when(three && tagBcd === B"x270") { fld := F_270 }
        sym := 0; symLen := 0
        tFirst := 0; tLong := False
        acc := 0; pNeg := False; pDot := False; pSig := False; pBad := False; pOver := False; pInexact := False
        pAny := False; intN := 0; fracN := 0
      } otherwise {
        // not a tag: the scanner does not commit this message; start over at the next field
        when(isSoh) { tagBcd := 0; tagLen := 0 }
      }
    } otherwise {
      when(isSoh) {
        inTag := True; tagBcd := 0; tagLen := 0
        switch(fld) {
          is(F_55) {
            for (k <- 0 until slots) hit(k) := slotSym(k) =/= 0 && symLen <= symChars && sym === slotSym(k)
          }
          is(F_269) {
            etype := TYPE_NONE
            when(!tLong && tFirst(7 downto 2) === B"001100" && tFirst(1 downto 0) =/= 3) { etype := tFirst(1 downto 0).asUInt }
          }
          is(F_270) {
            when(etype =/= TYPE_NONE && pAny && !pBad && !pOver && !pend(etype).valid) {
              val p = pend(etype)
              p.valid := True; p.neg := pNeg; p.inexact := pInexact; p.mag := acc; p.scale := dec - fracN
            }
          }
          default {}
        }
      } otherwise {
        vFirst := False
        switch(fld) {
          is(F_55) {
            for (i <- 0 until symChars) when(symLen === i) { sym(8 * i + 7 downto 8 * i) := c }
            when(symLen =/= symChars + 1) { symLen := symLen + 1 }
          }
          is(F_269) {
            when(vFirst) { tFirst := c } otherwise { tLong := True }
          }
          is(F_270) {
            when(isDig) {
              pAny := True
              when(!pDot) {
                when(pSig || d =/= 0) {
                  pSig := True
                  when(intN === maxInt) { pOver := True } otherwise { intN := intN + 1; acc := times10(acc) + d }
                }
              } elsewhen (fracN =/= dec) {
                fracN := fracN + 1; acc := times10(acc) + d
              } elsewhen (d =/= 0) { pInexact := True }
            } elsewhen (isDot) {
              when(pDot) { pBad := True }
              pDot := True
            } elsewhen (isMinus && vFirst) {
              pNeg := True
            } otherwise { pBad := True }
          }
          default {}
        }
      }
    }
  }

  // the message commits (its CheckSum's SOH)
  when(commit) {
    for (k <- 0 until slots) when(hit(k)) {
      satInc(slot(k).updates)
      for (t <- 0 until types) when(pend(t).valid) { slot(k).px(t) := pend(t) }
    }
  }

  // ---- segments, resets and configuration, last so that they win
  def snapOf[T <: Data](w: T): T = snapPairs.find(_._1 eq w).get._2.asInstanceOf[T]
  def clearPx(p: BookPx): Unit = { p.valid := False; p.neg := False; p.inexact := False; p.scale := 0; p.mag := 0 }
  def clearSlot(s: BookSlot): Unit = { s.updates := 0; s.px.foreach(clearPx) }
  when(io.segCommit) { for ((w, s) <- snapPairs) s := w }
  when(io.segRestore) { for ((w, s) <- snapPairs) w := s }
  when(io.reset) {
    for ((w, s) <- snapPairs if !(w eq slot)) {
      val init: Data = if (w eq inTag) True else if (w eq etype) U(TYPE_NONE, 2 bits) else w.getZero
      w := init; s := init
    }
  }
  when(io.config.valid) {
    for (k <- 0 until slots) {
      slotSym(k) := io.config.syms(k)
      when(io.config.clear || io.config.syms(k) =/= slotSym(k)) { clearSlot(slot(k)); clearSlot(snapOf(slot)(k)) }
    }
  }
  // a slot never updated reads as all zero (the registers' power-up state is the reset's)
  for (s <- Seq(slot, snapOf(slot)); k <- 0 until slots) {
    s(k).updates.init(0)
    s(k).px.foreach(BookRx.initPx)
  }
  (pend ++ snapOf(pend)).foreach(BookRx.initPx)

  io.read := snapOf(slot)(io.readSlot)

  // With refFeed (the risk gate's market reference, BookRefFeed): every slot's trade price and the messages with a
  // trade committed for it (wrapping), both as of the last good segment's end; the count is provisional like the
  // slots (committed and restored with the segment, the uncommitted part dropped by a reset). Built only then, and
  // last, so that the other builds elaborate as before.
  val ref = refFeed generate new Area {
    val trade = out(Vec(BookPx(), slots))
    val trades = out(Vec(UInt(8 bits), slots))
    val count, done = Vec.fill(slots)(Reg(UInt(8 bits)) init 0)
    for (k <- 0 until slots) when(commit && hit(k) && pend(2).valid) { count(k) := count(k) + 1 }
    when(io.segCommit) { done := count }
    when(io.segRestore || io.reset) { count := done }
    for (k <- 0 until slots) trade(k) := snapOf(slot)(k).px(2)
    trades := done
  }
}
