// The pre-trade risk gate's core (issue 17): a standalone stage in the order engine's eth_tx domain that decides,
// for every order request, accepted or refused with a reason, three cycles after the request, every time, and says
// `acceptNow` one cycle after the request for a ticket it has pre-checked, two otherwise (the engine starts the order
// in the next cycle). hw/src/triggerfish/risk/README.md describes the interface, the checks, their timing and the
// engine integration (OrderEngineRisk.scala). The rules are those of the reference model
// (hw/test/triggerfish/risk/RiskGateModel.scala); RiskGateSpec checks every verdict against it.
//
// Two paths:
//   the order path (three registered stages, one request in flight): a request names a prepared ticket (an order
//     whose symbol, side, quantity, limit price and notional are known in advance: an armed template, or a firmware
//     order written into the send ring). Stage 0 reads the ticket and its symbol's table entries (LUT RAM), stage 1
//     compares them with the limits, stage 2 adds kill, throttle and the poisoned-frame cap, gives the reason and
//     books an accepted order; the verdict is valid in the next cycle. No multiply. Cycles that take no request
//     run a pre-check of the next ticket through the same stages (its table checks' result kept while nothing they
//     read changes), so that a pre-checked ticket is accepted a cycle before its stage 2.
//   the slow path (one sequencer, one job at a time): ticket preparation (the notional qty x price, 32 cycles of
//     shift-add), fills and cancels (their notional), configuration writes (validated: a bad one is answered with
//     an error and changes nothing; the rate's token period is a 80-cycle division) and the collar bounds of a
//     symbol whose reference price or the band changed (ref x bps / 10000: multiply and divide, 112 cycles).
//     A job's effect is computed (CHECK) and written (APPLY) in cycles without a request in flight (requests are
//     never delayed by it) and answered in the next.
package triggerfish.risk

import spinal.core._
import spinal.lib._

case class RiskGateConfig(symbols: Int = 16, tickets: Int = 32, clockHz: Long = 125000000L, maxBurst: Int = 255) {
  require(isPow2(symbols) && symbols >= 2 && symbols <= 256, "symbols: a power of two, 2..256")
  require(isPow2(tickets) && tickets >= 2 && tickets <= 256, "tickets: a power of two, 2..256")
  require(clockHz >= 2 && clockHz < (1L << 32), "clockHz: 2 .. 2^32-1")
  require(maxBurst >= 1 && maxBurst <= 65535)
  val symW = log2Up(symbols)
  val ticketW = log2Up(tickets)
  val periodW = log2Up(clockHz + 1)
  val burstW = log2Up(maxBurst + 1)
  /** The poisoned-frame window: one minute of eth_tx cycles. */
  val minuteCycles: BigInt = BigInt(60) * clockHz
  val minuteW = log2Up(minuteCycles + 1)
}

object RiskGate {
  val qtyWidth = 32
  val priceWidth = 48            // the offload's fixed point (OffloadFire.priceWidth)
  val notionalWidth = 80         // qty x price
  val posWidth = 36              // signed net position (filled buys - filled sells)
  val openWidth = 35             // open (accepted, not settled) quantity per side
  val roomWidth = 38             // signed: limit - exposure
  val creditRoomWidth = 82
  val bpsWidth = 14
  val poisonWidth = 16
  /** A reference price must be 1 .. 2^47-1 (so that hi = ref + ref*bps/10000 fits 48 bits). */
  val refLimit: BigInt = BigInt(1) << 47
  val maxBps = 9999              // the band must leave lo >= 1
  val mulCycles = 32
  val divCycles = notionalWidth  // 80

  // Reasons (4 bits). A refused request names the first check that failed, in this order.
  val ACCEPTED = 0; val KILLED = 1; val NO_TICKET = 2; val RESTRICTED = 3; val MAX_QTY = 4; val MAX_NOTIONAL = 5
  val COLLAR = 6; val LONG_LIMIT = 7; val SHORT_LIMIT = 8; val CREDIT = 9; val THROTTLE = 10; val POISON = 11
  val reasonNames: Seq[String] = Seq("ACCEPTED", "KILLED", "NO_TICKET", "RESTRICTED", "MAX_QTY", "MAX_NOTIONAL",
    "COLLAR", "LONG_LIMIT", "SHORT_LIMIT", "CREDIT", "THROTTLE", "POISON")

  // Configuration items (RiskConfigWrite.item).
  val C_MAX_QTY = 0; val C_MAX_NOTIONAL = 1; val C_COLLAR_BPS = 2; val C_MAX_LONG = 3; val C_MAX_SHORT = 4
  val C_MAX_CREDIT = 5; val C_RATE = 6; val C_BURST = 7; val C_POISON_CAP = 8; val C_RESTRICT = 9; val C_REFERENCE = 10
  val configNames: Seq[String] = Seq("MAX_QTY", "MAX_NOTIONAL", "COLLAR_BPS", "MAX_LONG", "MAX_SHORT", "MAX_CREDIT",
    "RATE", "BURST", "POISON_CAP", "RESTRICT", "REFERENCE")

  // Fixed latencies (cycles), pinned by RiskGateSpec.
  val VerdictLatency = 3                        // request taken in cycle c -> verdict valid in c+3; the next taken then
  val PrepareLatency = 1 + mulCycles + 1        // prepare taken in c -> prepared valid in c+34 (no request in c+33)
  val FeedbackLatency = 1 + mulCycles + 2       // 35 (CHECK, then APPLY)
  val ConfigLatency = 4                         // taken in c -> the symbol's entries read in c+1, CHECK in c+2, APPLY
                                                // in c+3, answer in c+4; RATE: below
  val RateLatency = 1 + divCycles + 2           // 83
  val BoundsLatency = 2 + mulCycles + divCycles + 1  // a symbol's job picked in c -> its reference read in c+1 -> bounds valid in c+115
}

/** A ticket's order: what a template or a send-ring frame will send. `symbol` is 8 bits so that an unknown one
  * (>= symbols) can be refused with an error. */
case class RiskPrepare(cfg: RiskGateConfig) extends Bundle {
  val ticket = UInt(cfg.ticketW bits)
  val symbol = UInt(8 bits)
  val sell = Bool()
  val qty = UInt(RiskGate.qtyWidth bits)
  val price = UInt(RiskGate.priceWidth bits)
}
/** ok: the ticket is prepared (else: unknown symbol or zero quantity; the ticket stays unprepared). reason: what the
  * static checks (restricted, quantity, notional) say now, for firmware's information: they are checked again at
  * every request, so that a limit lowered or a symbol restricted after the arming binds the armed orders too. */
case class RiskPrepared(cfg: RiskGateConfig) extends Bundle {
  val ticket = UInt(cfg.ticketW bits)
  val ok = Bool()
  val reason = UInt(4 bits)
}
case class RiskRequest(cfg: RiskGateConfig) extends Bundle {
  val ticket = UInt(cfg.ticketW bits)
  val fw = Bool()                  // source: firmware's send (true) or a hardware fire (false); passed to the verdict
}
case class RiskVerdict(cfg: RiskGateConfig) extends Bundle {
  val ticket = UInt(cfg.ticketW bits)
  val fw = Bool()
  val accepted = Bool()
  val reason = UInt(4 bits)
}
/** An execution report's effect, fed back by firmware: a fill (moves quantity from open to the position) or a
  * cancel / reject / expiry (releases open quantity). `price` is the order's limit price, as it was booked. */
case class RiskFeedback() extends Bundle {
  val cancel = Bool()
  val symbol = UInt(8 bits)
  val sell = Bool()
  val qty = UInt(RiskGate.qtyWidth bits)
  val price = UInt(RiskGate.priceWidth bits)
}
case class RiskConfigWrite() extends Bundle {
  val item = UInt(4 bits)
  val symbol = UInt(8 bits)        // MAX_LONG, MAX_SHORT, RESTRICT, REFERENCE
  val value = UInt(RiskGate.notionalWidth bits)
}
case class RiskRefUpdate() extends Bundle {
  val symbol = UInt(8 bits)
  val price = UInt(RiskGate.priceWidth bits)
}
case class RiskBounds(cfg: RiskGateConfig) extends Bundle {
  val symbol = UInt(cfg.symW bits)
  val ref = UInt(RiskGate.priceWidth bits)
  val lo = UInt(RiskGate.priceWidth bits)
  val hi = UInt(RiskGate.priceWidth bits)
}

case class RiskTicket(cfg: RiskGateConfig) extends Bundle {
  val symbol = UInt(cfg.symW bits)
  val sell = Bool()
  val qty = UInt(RiskGate.qtyWidth bits)
  val price = UInt(RiskGate.priceWidth bits)
  val notional = UInt(RiskGate.notionalWidth bits)
}

case class RiskGate(cfg: RiskGateConfig = RiskGateConfig()) extends Component {
  import RiskGate._
  val io = new Bundle {
    val request = slave(Stream(RiskRequest(cfg)))  // ready: no request in flight (one every VerdictLatency cycles)
    val verdict = master(Flow(RiskVerdict(cfg)))
    val acceptNow = out Bool()                     // the cycle before an accepted verdict: high (from flip-flops and
                                                   // `kill`), so that the engine can start the order with the verdict
    val prepare = slave(Stream(RiskPrepare(cfg)))
    val prepared = master(Flow(RiskPrepared(cfg)))
    val feedback = slave(Stream(RiskFeedback()))
    val fed = master(Flow(Bool()))                 // true: applied; false: refused (nothing changed)
    val config = slave(Stream(RiskConfigWrite()))
    val configDone = master(Flow(Bool()))          // true: applied; false: refused (nothing changed)
    val refUpdate = slave(Flow(RiskRefUpdate()))   // the last trade price the hardware saw (invalid ones dropped)
    val bounds = master(Flow(RiskBounds(cfg)))     // a symbol's new collar bounds, in force from this cycle
    val kill = in Bool()                           // level: refuses from the cycle it is high, latched
    val killReset = in Bool()                      // clears the latch (while kill is low)
    val killed = out Bool()
    val poisoned = in Bool()                       // one poisoned/speculative frame (a pulse per frame)
    val refDropped = out UInt (16 bits)            // reference updates dropped as invalid (wrapping)
  }
  val n = cfg.symbols

  // ---------------- state
  val tickets = Mem(RiskTicket(cfg), cfg.tickets)
  val ticketOk = Reg(Bits(cfg.tickets bits)) init 0
  // Per-symbol tables in LUT RAM (TRELLIS_DPR16X4 on ECP5, RAM32M/RAM64M on 7-series): each is read
  // asynchronously by the order path at the request's symbol and by the sequencer at its job's symbol (yosys keeps a
  // copy per read port), and written through one port, which the sweep after reset, the order path's booking and
  // the sequencer take in turns: they never fall in the same cycle (asserted below). In flip-flops, with a 16:1
  // multiplexer per read and a write multiplexer per register, the same state cost 16,046 LUT4 and 6,409 FF.
  def symTable[T <: BitVector](gen: => T): Mem[T] = Mem(HardType(gen), n)   // (no initial contents: the sweep clears them)
  val pos = symTable(SInt(posWidth bits))
  val openBuy = symTable(UInt(openWidth bits))
  val openSell = symTable(UInt(openWidth bits))
  val longRoom = symTable(SInt(roomWidth bits))      // maxLong - pos - openBuy
  val shortRoom = symTable(SInt(roomWidth bits))     // maxShort + pos - openSell
  val lo = symTable(UInt(priceWidth bits))           // the collar; not cleared after reset: used only where `bounded`
  val hi = symTable(UInt(priceWidth bits))
  val ref = symTable(UInt(priceWidth bits))          // the latest reference, where `hasRef`; read by the sequencer only
  val hasRef = Reg(Bits(n bits)) init 0
  val pending = Reg(Bits(n bits)) init 0                             // its bounds are to be computed
  val bounded = Reg(Bits(n bits)) init 0                             // lo/hi valid
  /** A table's write port: the last `apply` in a cycle's logic writes (at most one is active, see above). */
  class SymWrite[T <: Data](ram: Mem[T]) extends Area {
    val en = False
    val addr = UInt(cfg.symW bits).assignDontCare()
    val data = ram.wordType().assignDontCare()
    ram.write(addr, data, enable = en)
    def apply(a: UInt, d: T): Unit = { en := True; addr := a; data := d }
    def clear(a: UInt): Unit = { en := True; addr := a; data.assignFromBits(B(0, widthOf(data) bits)) }
  }
  val posW = new SymWrite(pos); val openBuyW = new SymWrite(openBuy); val openSellW = new SymWrite(openSell)
  val longRoomW = new SymWrite(longRoom); val shortRoomW = new SymWrite(shortRoom)
  val loW = new SymWrite(lo); val hiW = new SymWrite(hi); val refW = new SymWrite(ref)
  // the sweep: after reset, the usage tables are cleared, one symbol a cycle; meanwhile the sequencer takes no job
  // (no order can be accepted either: no ticket is prepared before the sequencer has run)
  val sweeping = RegInit(True)
  val sweepAt = Reg(UInt(cfg.symW bits)) init 0
  val restricted = Reg(Bits(n bits)) init 0
  val maxQty = Reg(UInt(qtyWidth bits)) init 0
  val maxNotional = Reg(UInt(notionalWidth bits)) init 0
  val bps = Reg(UInt(bpsWidth bits)) init 0
  val openNotional = Reg(UInt(notionalWidth bits)) init 0
  val creditRoom = Reg(SInt(creditRoomWidth bits)) init 0           // maxCredit - openNotional
  val rated = RegInit(False)                                        // RATE configured
  val periodM1 = Reg(UInt(cfg.periodW bits)) init 0                 // cycles per token, minus one
  val left = Reg(UInt(cfg.periodW bits)) init 0                     // counted cycles before the next token, minus one
  val depth = Reg(UInt(cfg.burstW bits)) init 0
  val tokens = Reg(UInt(cfg.burstW bits)) init 0
  val poisonCap = Reg(UInt(poisonWidth bits)) init 0
  val poisonCapM1 = Reg(UInt(poisonWidth bits)) init 0              // poisonCap - 1, where poisonCap is not 0
  val poisonCount = Reg(UInt(poisonWidth bits)) init 0
  val window = Reg(UInt(cfg.minuteW bits)) init 0
  val killed = RegInit(False)
  val refDropped = Reg(UInt(16 bits)) init 0
  io.killed := killed
  io.refDropped := refDropped

  // ---------------- the order path: three registered stages, one request in flight
  // stage 0, the request's cycle c: its ticket's row, then the row's symbol's table entries, read asynchronously and
  //   registered (kill seen in c too);
  // stage 1, c+1: the compares against the limits, registered as fail flags, and the bookings' new values;
  // stage 2, c+2: kill, throttle and the poisoned-frame cap on the state of this cycle, the reason, the booking.
  // The verdict is valid in c+3. While a request is in flight (c..c+2) no other is taken (`ready` low) and the
  // sequencer writes nothing (canApply below), so the entries read in c are those the booking in c+2 updates.
  val rq = io.request
  val busy1, busy2 = RegInit(False)                                  // stage 1, stage 2 hold a request
  rq.ready := !busy1 && !busy2
  val take = rq.valid && rq.ready
  busy1 := take
  busy2 := busy1

  // The pre-check ("Fast acceptance" in the README): in every cycle without a request, the stages check a ticket
  // of their own (round robin) exactly as they check a request, without booking it. Its table checks' result
  // (NO_TICKET .. CREDIT all pass) is kept per ticket as `pass`, and `fresh` while nothing it depends on has been
  // written since its stage 0. A request whose ticket is fresh and passes, with no kill, a token and room under the
  // poisoned-frame cap, is accepted in c+1 (`acceptNow`), a cycle before its stage 2, which books it and reaches the
  // same verdict (asserted).
  // (a cycle with a request waiting, taken or not, makes no pre-check: stage 0's address is selected by `valid` alone,
  // one level of logic before the ticket table's read)
  val scanNow = !rq.valid
  val scanAt = Reg(UInt(cfg.ticketW bits)) init 0
  when(scanNow) { scanAt := scanAt + 1 }
  val at = rq.valid ? rq.ticket | scanAt                             // stage 0's ticket: the request's, or the scan's
  val pass = Reg(Bits(cfg.tickets bits)) init 0
  val fresh = Reg(Bits(cfg.tickets bits)) init 0
  val changed = Bool()                                               // the state the table checks read is written at
                                                                     // this cycle's end (assigned below)

  val t = tickets.readAsync(at)
  val s = t.symbol
  val sOpenBuy = openBuy.readAsync(s); val sOpenSell = openSell.readAsync(s)
  val sLong = longRoom.readAsync(s); val sShort = shortRoom.readAsync(s)
  val sLo = lo.readAsync(s); val sHi = hi.readAsync(s)
  val sRestricted = restricted(s); val sBounded = bounded(s)
  // no token, or the poisoned-frame cap within two frames: decided in stage 2 only (in flip-flops, as of this cycle)
  val tokensOut = RegNext(tokens.getAheadValue() === 0) init True
  val poisonNear = Bool()                                            // assigned with the window, below
  val fastNow = take && fresh(rq.ticket) && pass(rq.ticket) && !io.kill && !killed && !tokensOut && !poisonNear
  val r1 = new Area {                                                // stage 1's registers
    val ticket = RegNext(at); val fw = RegNext(rq.fw)
    val scan = RegNext(scanNow) init False                           // stage 1 holds a pre-check
    val stale = RegNext(changed) init True
    val fast = RegNext(fastNow) init False
    val row = RegNext(t)
    val ok = RegNext(ticketOk(at))
    val kill = RegNext(io.kill || killed)
    val restricted = RegNext(sRestricted)
    val bounded = RegNext(sBounded)
    val lo = RegNext(sLo); val hi = RegNext(sHi)
    val room = RegNext(Mux(t.sell, sShort, sLong))
    val open = RegNext(Mux(t.sell, sOpenSell, sOpenBuy))
  }
  // what the throttle and the poisoned-frame cap will say in c+2, known in c+1 (the sequencer writes neither
  // meanwhile, and no other request is booked): the tokens and the count after this cycle's update, below
  val refill = False                                                 // a token added at the end of this cycle
  val due = rated && left === 0                                      // this is the period's last counted cycle
  val below = tokens < depth                                         // the bucket is not full
  val poisonNext = UInt(poisonWidth bits)                            // the count in the next cycle
  val poisonUp, windowEnd = Bool()                                   // it is poisonCount + 1; it restarts
  // (in c+1 nothing is accepted, so the refill is due && below whatever the verdict logic says; an assertion after
  // the throttle checks the lookahead in c+2)
  val emptyNext = tokens === 0 && !(due && below)
  // poisonNext >= poisonCap, with both compares made beside the increment, not after it
  val poisonFullNext = Mux(windowEnd, poisonCap === 0 || (io.poisoned && poisonCap === 1),
    Mux(poisonUp, poisonCap === 0 || poisonCount >= poisonCapM1, poisonCount >= poisonCap))
  // the fast acceptance, in c+1: a kill now still refuses it (the input; the latch holds only earlier kills, seen in c)
  val fastAccept = busy1 && r1.fast && !io.kill
  val r2 = new Area {                                                // stage 2's registers
    val ticket = RegNext(r1.ticket); val fw = RegNext(r1.fw)
    val scan = RegNext(r1.scan) init False
    val stale = RegNext(r1.stale || changed) init True
    val fast = RegNext(fastAccept) init False                        // this request was accepted in c+1
    val symbol = RegNext(r1.row.symbol); val sell = RegNext(r1.row.sell)
    val qty = RegNext(r1.row.qty); val notional = RegNext(r1.row.notional)
    val kill = RegNext(r1.kill || io.kill)                           // a kill in c or c+1 (the latch in c+2 holds no other)
    val q = r1.row.qty.intoSInt.resize(roomWidth)
    /** a < b (unsigned) for the 80-bit compares: each half compared in c+1 and registered, combined in c+2 (one
      * carry chain of 41 CCU2C and the OR of the flags after it did not fit one cycle) */
    def splitLess(a: UInt, b: UInt): Bool = {
      val w = widthOf(a); val h = w / 2
      val hiLess = RegNext(a(w - 1 downto h) < b(w - 1 downto h)); val hiEq = RegNext(a(w - 1 downto h) === b(w - 1 downto h))
      val loLess = RegNext(a(h - 1 downto 0) < b(h - 1 downto 0))
      hiLess || (hiEq && loLess)
    }
    def offset(x: SInt): UInt = (~x.msb ## x(widthOf(x) - 2 downto 0)).asUInt   // signed order as unsigned order
    val notionalOver = splitLess(maxNotional, r1.row.notional)                  // MAX_NOTIONAL
    val creditShort = splitLess(offset(creditRoom), offset(r1.row.notional.intoSInt.resize(creditRoomWidth)))  // CREDIT
    val narrowNext = Vec(
      !r1.ok,                                                        // NO_TICKET
      r1.restricted,                                                 // RESTRICTED
      r1.row.qty > maxQty,                                           // MAX_QTY
      !r1.bounded || r1.row.price < r1.lo || r1.row.price > r1.hi,   // COLLAR
      !r1.row.sell && r1.room < q,                                   // LONG_LIMIT
      r1.row.sell && r1.room < q,                                    // SHORT_LIMIT
      emptyNext,                                                     // THROTTLE: no token in c+2
      poisonFullNext)                                                // POISON: the cap reached in c+2
    val narrow = RegNext(narrowNext)
    val fail = Vec(narrow(0), narrow(1), narrow(2), notionalOver, narrow(3), narrow(4), narrow(5), creditShort,
      narrow(6), narrow(7))                                          // reasons NO_TICKET .. POISON, in order
    // their OR, from flip-flops and without the reasons' priority encoder: the tables' write enables in c+2 depend on
    // it (the encoder was the critical path at 72.94 MHz)
    val failAny = fail.orR
    // the table checks alone (a pre-check's result: the throttle and the cap are judged per request)
    val tableFail = Vec(fail.take(THROTTLE - 2)).orR
    // the booking's values (nothing else writes these between c and c+2)
    val newOpen = RegNext(r1.open + r1.row.qty)
    val newRoom = RegNext(r1.room - q)
    val newOpenNotional = RegNext(openNotional + r1.row.notional)
    val newCreditRoom = RegNext(creditRoom - r1.row.notional.intoSInt.resize(creditRoomWidth))
  }
  val killNow = r2.kill
  val fail = Vec(Seq(killNow) ++ r2.fail)
  val reason = UInt(4 bits)
  reason := ACCEPTED
  for (i <- fail.indices.reverse) when(fail(i)) { reason := U(i + 1, 4 bits) }
  val accept = busy2 && !killNow && !r2.failAny
  // accepted in c+1 when the pre-check allowed it, else in c+2: one pulse per accepted request, none for a refused one
  io.acceptNow := fastAccept || (accept && !r2.fast)
  assert(!(busy2 && r2.fast) || accept, "RiskGate: a request accepted fast that its stage 2 refuses", FAILURE)
  // the pre-check's result, kept while nothing it read has changed (a change in its stage 0, 1 or 2, or now)
  when(changed) { fresh := 0 }
  when(r2.scan) {
    pass(r2.ticket) := !r2.tableFail
    when(!r2.stale && !changed) { fresh(r2.ticket) := True }
  }
  io.verdict.valid := RegNext(busy2) init False
  io.verdict.ticket := RegNext(r2.ticket)
  io.verdict.fw := RegNext(r2.fw)
  io.verdict.accepted := RegNext(accept) init False
  io.verdict.reason := RegNext(reason)
  when(accept) {
    when(r2.sell) {
      openSellW(r2.symbol, r2.newOpen)
      shortRoomW(r2.symbol, r2.newRoom)
    } otherwise {
      openBuyW(r2.symbol, r2.newOpen)
      longRoomW(r2.symbol, r2.newRoom)
    }
    openNotional := r2.newOpenNotional
    creditRoom := r2.newCreditRoom
  }
  assert(!(accept && killNow), "RiskGate: an order accepted while killed", FAILURE)
  assert(!(accept && (r2.qty > maxQty || r2.notional > maxNotional || tokens === 0 || poisonCount >= poisonCap)),
    "RiskGate: an order over the quantity or notional limit, without a token or over the poisoned-frame cap, accepted",
    FAILURE)
  assert(!busy2 || (reason === ACCEPTED) === accept, "RiskGate: the reason and the registered verdict disagree", FAILURE)

  // ---------------- throttle: the counter runs in every cycle in which the bucket is not full or a token is taken;
  // every period-th such cycle adds a token at its end (so a steady demand gets exactly one order every period)
  // (counted down, so that no subtraction lies between the counter and `refill`, which the verdict waits for)
  when(below || accept) {
    when(due) { left := periodM1; refill := True } otherwise { left := left - 1 }
  } otherwise { left := periodM1 }
  // tokens + refill - accept, the verdict selecting among values computed beside it
  tokens := Mux(accept, Mux(due, tokens, tokens - 1), Mux(due && below, tokens + 1, tokens))
  // the throttle's flag was computed in c+1 for c+2 (assuming no acceptance in c+1): it must be what this cycle's
  // state says (the cap's lookahead holds in every cycle: its assertion is below)
  assert(!busy2 || r2.fail(THROTTLE - 2) === (tokens === 0), "RiskGate: the throttle's lookahead is wrong", FAILURE)
  assert(tokens <= depth, "RiskGate: more tokens than the bucket holds", FAILURE)

  // ---------------- poisoned frames per minute (fixed windows of one minute from reset)
  poisonNext := poisonCount
  poisonUp := False
  windowEnd := False
  when(window === U(cfg.minuteCycles - 1, cfg.minuteW bits)) {
    window := 0
    poisonNext := io.poisoned.asUInt.resized
    windowEnd := True
  } otherwise {
    window := window + 1
    when(io.poisoned && poisonCount =/= poisonCount.maxValue) { poisonNext := poisonCount + 1; poisonUp := True }
  }
  poisonCount := poisonNext
  // the count cannot reach the cap before a request taken now is decided (two more pulses at most): from flip-flops
  poisonNear := !(RegNext(poisonNext +^ 2 < poisonCap) init False)
  assert(poisonFullNext === (poisonNext >= poisonCap), "RiskGate: the poisoned-frame cap's lookahead is wrong", FAILURE)

  // ---------------- kill switch
  when(io.kill) { killed := True } elsewhen (io.killReset) { killed := False }

  // ---------------- the slow path: one sequencer
  object J extends SpinalEnum { val PREP, FEED, CONF, BOUNDS = newElement() }
  object S extends SpinalEnum { val IDLE, LOAD, MUL, DIV, CHECK, APPLY = newElement() }
  val state = RegInit(S.IDLE)
  val job = Reg(J())
  val jTicket = Reg(UInt(cfg.ticketW bits))
  val jSym8 = Reg(UInt(8 bits))
  val jSell, jCancel = Reg(Bool())
  val jQty = Reg(UInt(qtyWidth bits))
  val jPrice = Reg(UInt(priceWidth bits))
  val jItem = Reg(UInt(4 bits))
  val jValue = Reg(UInt(notionalWidth bits))
  val mulA = Reg(UInt(notionalWidth bits))        // multiplicand, shifted left
  val mulB = Reg(UInt(qtyWidth bits))             // multiplier, shifted right
  val acc = Reg(UInt(notionalWidth bits))         // product; then the dividend, shifted left
  val quo = Reg(UInt(notionalWidth bits))
  val rem = Reg(UInt(33 bits))
  val divisor = Reg(UInt(32 bits))
  val count = Reg(UInt(7 bits))
  val jSym = jSym8(cfg.symW - 1 downto 0)
  val symOk = jSym8 < n

  io.prepare.ready := False
  io.feedback.ready := False
  io.config.ready := False
  // answers are registered: valid in the cycle after the write, together with the state they report
  val preparedW = Flow(RiskPrepared(cfg)); preparedW.valid := False; preparedW.payload.assignDontCare()
  val fedW = Flow(Bool()); fedW.valid := False; fedW.payload := False
  val configDoneW = Flow(Bool()); configDoneW.valid := False; configDoneW.payload := False
  val boundsW = Flow(RiskBounds(cfg)); boundsW.valid := False; boundsW.payload.assignDontCare()
  io.prepared << preparedW.stage()
  io.fed << fedW.stage()
  io.configDone << configDoneW.stage()
  io.bounds << boundsW.stage()
  def lit(x: BigInt): UInt = U(x, notionalWidth bits)

  // the ticket table's write port (its enable explicit: a Mem write takes no condition from the scope around it)
  val ticketWrite = False
  val ticketData = RiskTicket(cfg)
  ticketData.symbol := jSym; ticketData.sell := jSell; ticketData.qty := jQty; ticketData.price := jPrice; ticketData.notional := acc
  tickets.write(jTicket, ticketData, enable = ticketWrite)

  // the sequencer's symbol: each table read once at it (written through the tables' ports, below) and registered, so
  // that CHECK's arithmetic starts from flip-flops. The registers hold the entries of the job's symbol as they are in
  // this cycle when, in the previous one, the job had its symbol (not IDLE) and no table was written (no booking;
  // the sequencer writes only in APPLY, which ends the job; the sweep ends before the first job): `readOk`.
  val jPos = RegNext(pos.readAsync(jSym)); val jOpenBuy = RegNext(openBuy.readAsync(jSym))
  val jOpenSell = RegNext(openSell.readAsync(jSym))
  val jLong = RegNext(longRoom.readAsync(jSym)); val jShort = RegNext(shortRoom.readAsync(jSym))
  val readOk = RegNext(state =/= S.IDLE && !accept) init False
  // CHECK's results, for the jobs whose effect depends on the usage (a fill or cancel; MAX_LONG, MAX_SHORT and
  // MAX_CREDIT): computed from this cycle's state and registered, written by APPLY in the next cycle (nothing else
  // writes the usage in either cycle: both wait for cycles without a request in flight)
  val cOk = Reg(Bool())                                       // the fill or cancel, or the configuration write, applies
  val cPos = Reg(SInt(posWidth bits)); val cOpenBuy = Reg(UInt(openWidth bits)); val cOpenSell = Reg(UInt(openWidth bits))
  val cLong = Reg(SInt(roomWidth bits)); val cShort = Reg(SInt(roomWidth bits))
  val cOpenNotional = Reg(UInt(notionalWidth bits))
  val cCreditRoom = Reg(SInt(creditRoomWidth bits))
  val cWSym = Reg(Bool()) init False                          // APPLY is to write the symbol's tables with the c* values
  // a configuration write's validity (its value and symbol are registers, stable from the job's start)
  val confOk = Bool()
  locally {
    val v = jValue
    val small = v < lit(BigInt(1) << 32)
    confOk := False
    switch(jItem) {
      is(C_MAX_QTY) { confOk := v =/= 0 && small }
      is(C_MAX_NOTIONAL, C_MAX_CREDIT) { confOk := v =/= 0 }
      is(C_COLLAR_BPS) { confOk := v =/= 0 && v <= lit(maxBps) }
      is(C_MAX_LONG, C_MAX_SHORT) { confOk := symOk && small }
      is(C_RATE) { confOk := v =/= 0 && v <= lit(cfg.clockHz) }
      is(C_BURST) { confOk := v =/= 0 && v <= lit(cfg.maxBurst) }
      is(C_POISON_CAP) { confOk := v =/= 0 && v < lit(BigInt(1) << poisonWidth) }
      is(C_RESTRICT) { confOk := symOk && v <= lit(1) }
      is(C_REFERENCE) { confOk := symOk && v =/= 0 && v < lit(refLimit) }
    }
  }

  val pendingPick = pending & (~pending.asUInt + 1).asBits   // the lowest pending symbol
  // a reference update, taken a cycle after it arrives with its validity checked (a 48-bit test, kept off the path to
  // the tables' write ports)
  val ru = new Area {
    val valid = RegNext(io.refUpdate.valid) init False
    val symbol = RegNext(io.refUpdate.symbol); val price = RegNext(io.refUpdate.price)
    val ok = RegNext(io.refUpdate.symbol < n && io.refUpdate.price =/= 0 && !io.refUpdate.price.msb)
  }
  // the tables' write ports: CHECK and APPLY wait for cycles without a request taken or in flight (the order path's
  // reads and booking), and a REFERENCE write for one without a reference update too (one write port to `ref`)
  val refConf = job === J.CONF && jItem === C_REFERENCE
  val canApply = !rq.valid && !busy1 && !busy2 && !(refConf && ru.valid)

  switch(state) {
    is(S.IDLE) {
      mulB := 0; acc := 0; count := 0; quo := 0; cWSym := False
      when(sweeping) {
      } elsewhen (io.config.valid) {
        io.config.ready := True
        job := J.CONF; jItem := io.config.item; jSym8 := io.config.symbol; jValue := io.config.value
        // RATE: period = ceil(clockHz / rate), the dividend clockHz + rate - 1 (the rate is checked by confOk)
        val rate = io.config.value(31 downto 0)
        acc := (U(cfg.clockHz, notionalWidth bits) + rate.resize(notionalWidth) - 1)
        divisor := rate; rem := 0
        state := (io.config.item === C_RATE && io.config.value =/= 0 && io.config.value <= lit(cfg.clockHz)) ? S.DIV | S.CHECK
      } elsewhen (io.feedback.valid) {
        io.feedback.ready := True
        job := J.FEED; jCancel := io.feedback.cancel; jSym8 := io.feedback.symbol; jSell := io.feedback.sell
        jQty := io.feedback.qty; jPrice := io.feedback.price
        mulA := io.feedback.price.resized; mulB := io.feedback.qty
        state := S.MUL
      } elsewhen (io.prepare.valid) {
        io.prepare.ready := True
        job := J.PREP; jTicket := io.prepare.ticket; jSym8 := io.prepare.symbol; jSell := io.prepare.sell
        jQty := io.prepare.qty; jPrice := io.prepare.price
        mulA := io.prepare.price.resized; mulB := io.prepare.qty
        ticketOk(io.prepare.ticket) := False        // a ticket being rewritten is refused until it is prepared
        state := S.MUL
      } elsewhen (pending =/= 0 && bps =/= 0) {
        job := J.BOUNDS
        jSym8 := OHToUInt(pendingPick).resized
        pending := pending & ~pendingPick
        state := S.LOAD
      }
    }
    is(S.LOAD) {        // BOUNDS: the symbol's reference (read here, a cycle after the pick: not behind its priority logic)
      val r = ref.readAsync(jSym)
      jPrice := r
      mulA := r.resized; mulB := bps.resized
      divisor := 10000; rem := 0
      state := S.MUL
    }
    is(S.MUL) {
      when(mulB(0)) { acc := acc + mulA }
      mulA := mulA |<< 1
      mulB := mulB |>> 1
      count := count + 1
      when(count === mulCycles - 1) {
        count := 0; quo := 0
        state := (job === J.BOUNDS) ? S.DIV | ((job === J.FEED) ? S.CHECK | S.APPLY)
      }
    }
    is(S.DIV) {
      val r2 = (rem(31 downto 0) ## acc.msb).asUInt
      val ge = r2 >= divisor.resize(33)
      rem := ge ? (r2 - divisor.resize(33)) | r2
      quo := (quo(notionalWidth - 2 downto 0) ## ge).asUInt
      acc := acc |<< 1
      count := count + 1
      when(count === divCycles - 1) { state := (job === J.BOUNDS) ? S.APPLY | S.CHECK }
    }
    is(S.CHECK) {       // FEED and CONF: what depends on the usage, from this cycle's state, for APPLY in the next
      when(canApply && readOk) {
        state := S.APPLY
        val q = jQty.intoSInt.resize(roomWidth)
        val open = jSell ? jOpenSell | jOpenBuy
        val ok = (job === J.FEED) ? (symOk && jQty =/= 0 && open >= jQty && openNotional >= acc) | confOk
        cOk := ok
        cWSym := ok && (job === J.FEED || jItem === C_MAX_LONG || jItem === C_MAX_SHORT)
        cOpenNotional := openNotional - acc
        cCreditRoom := (job === J.FEED) ? (creditRoom + acc.intoSInt.resize(creditRoomWidth)) |
          (jValue.intoSInt.resize(creditRoomWidth) - openNotional.intoSInt.resize(creditRoomWidth))
        cPos := jPos; cOpenBuy := jOpenBuy; cOpenSell := jOpenSell; cLong := jLong; cShort := jShort
        when(job === J.FEED) {
          when(jSell) {
            cOpenSell := jOpenSell - jQty
            when(jCancel) { cShort := jShort + q } otherwise {
              cPos := jPos - jQty.intoSInt.resize(posWidth)
              cLong := jLong + q
            }
          } otherwise {
            cOpenBuy := jOpenBuy - jQty
            when(jCancel) { cLong := jLong + q } otherwise {
              cPos := jPos + jQty.intoSInt.resize(posWidth)
              cShort := jShort + q
            }
          }
        } otherwise {
          val v32 = jValue.resize(qtyWidth).intoSInt.resize(roomWidth)
          when(jItem === C_MAX_LONG) { cLong := v32 - jPos.resize(roomWidth) - jOpenBuy.intoSInt.resize(roomWidth) }
          when(jItem === C_MAX_SHORT) { cShort := v32 + jPos.resize(roomWidth) - jOpenSell.intoSInt.resize(roomWidth) }
        }
      }
    }
    is(S.APPLY) {
      when(!canApply && (job === J.FEED || job === J.CONF)) { state := S.CHECK }   // computed again, once it may
      when(canApply) {
        state := S.IDLE
        switch(job) {
          is(J.PREP) {
            val ok = symOk && jQty =/= 0
            when(ok) { ticketWrite := True; ticketOk(jTicket) := True }
            preparedW.valid := True
            preparedW.ticket := jTicket
            preparedW.ok := ok
            preparedW.reason := ACCEPTED
            when(!ok) { preparedW.reason := NO_TICKET } elsewhen (restricted(jSym)) { preparedW.reason := RESTRICTED } elsewhen
              (jQty > maxQty) { preparedW.reason := MAX_QTY } elsewhen (acc > maxNotional) { preparedW.reason := MAX_NOTIONAL }
          }
          is(J.FEED) {
            fedW.valid := True; fedW.payload := cOk
            when(cOk) { openNotional := cOpenNotional; creditRoom := cCreditRoom }
          }
          is(J.CONF) {
            val v = jValue
            val ok = cOk                                 // the write's validity, from CHECK
            switch(jItem) {
              is(C_MAX_QTY) { when(ok) { maxQty := v.resized } }
              is(C_MAX_NOTIONAL) { when(ok) { maxNotional := v } }
              is(C_COLLAR_BPS) { when(ok) { bps := v.resized; pending := pending | hasRef } }
              is(C_MAX_LONG, C_MAX_SHORT) { }                                  // the tables, below
              is(C_MAX_CREDIT) { when(ok) { creditRoom := cCreditRoom } }
              is(C_RATE) {
                val p1 = quo.resize(cfg.periodW) - 1                       // the new period, minus one
                when(ok) { rated := True; periodM1 := p1; left := p1; tokens := tokens }
              }
              is(C_BURST) { when(ok) { depth := v.resized; left := periodM1; tokens := (tokens > v) ? v.resize(cfg.burstW) | tokens } }
              is(C_POISON_CAP) { when(ok) { poisonCap := v.resized; poisonCapM1 := (v - 1).resized } }
              is(C_RESTRICT) { when(ok) { restricted(jSym) := v(0) } }
              is(C_REFERENCE) { when(ok) { refW(jSym, v.resized); hasRef(jSym) := True; pending(jSym) := True } }
            }
            configDoneW.valid := True; configDoneW.payload := ok
          }
          is(J.BOUNDS) {
            val d = quo.resize(priceWidth)
            loW(jSym, jPrice - d)
            hiW(jSym, jPrice + d)
            bounded(jSym) := True
            boundsW.valid := True
            boundsW.symbol := jSym; boundsW.ref := jPrice; boundsW.lo := jPrice - d; boundsW.hi := jPrice + d
            assert(d < jPrice && quo < lit(refLimit), "RiskGate: collar bounds out of range", FAILURE)
          }
        }
      }
    }
  }

  // a fill's or cancel's, MAX_LONG's or MAX_SHORT's table writes: their condition registered in CHECK, so that the
  // tables' write enables in APPLY wait only for canApply (never while a request is in flight: no conflict with the
  // order path)
  val wSym = state === S.APPLY && canApply && cWSym
  when(wSym) {
    posW(jSym, cPos); openBuyW(jSym, cOpenBuy); openSellW(jSym, cOpenSell); longRoomW(jSym, cLong); shortRoomW(jSym, cShort)
  }
  assert(!(wSym && (rq.valid || busy1 || busy2)), "RiskGate: a sequencer write while a request is in flight", FAILURE)

  when(sweeping) {
    Seq(posW, openBuyW, openSellW, longRoomW, shortRoomW).foreach(_.clear(sweepAt))
    sweepAt := sweepAt + 1
    when(sweepAt === n - 1) { sweeping := False }
  }
  assert(!(sweeping && (accept || wSym || state =/= S.IDLE)), "RiskGate: a table written during the sweep after reset", FAILURE)

  // what the table checks read (tickets, ticketOk, the usage tables and registers, limits, bounds, restrictions) is
  // written only by a booking, the sequencer's APPLY, a prepare's take (the ticket unprepared) and the sweep; the
  // reference table and the throttle's and the cap's state are not table checks'
  changed := accept || (state === S.APPLY && canApply) || io.prepare.fire || sweeping

  // reference updates (registered at the input, `ru` above): after the sequencer, so that one arriving as its
  // symbol's job starts marks it pending again
  when(ru.valid) {
    when(ru.ok) {
      refW(ru.symbol.resize(cfg.symW), ru.price)
      assert(!(state === S.APPLY && canApply && refConf), "RiskGate: two writes to the reference table in one cycle", FAILURE)
      hasRef(ru.symbol.resize(cfg.symW)) := True
      pending(ru.symbol.resize(cfg.symW)) := True
    } otherwise { refDropped := refDropped + 1 }
  }
}
