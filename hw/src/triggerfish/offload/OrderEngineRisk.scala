// The pre-trade risk gate (triggerfish.risk.RiskGate) in the order engine (issue 17), built when
// OrderEngineConfig.riskGate is set. While RISK_CTRL.ENABLE (or a kill) is on, every hardware fire and every send
// frame of a gated send-ring slot (firmware's new orders) goes through the gate before its first byte:
//
//   eth_tx  fire in the synchroniser's first flop, the engine free, the template sendable (the start register's
//           input: the cycle it would decide to start) -> gate request, ticket = template (cycle t)
//           -> accepted (RiskGate.acceptNow: t+1 for a ticket the gate has pre-checked since its last change,
//              else t+2) -> the start register (t+2, t+3): byte 0 on the output one cycle (two) later than without
//              the gate
//           -> refused (the verdict, t+3) -> no frame: a fire log record with status REFUSED and the reason in word
//              4's low 16 bits (where a sent order has its IPv4 id), no number consumed, the template stays armed
//           send queue head of a gated slot, when the engine would commit it -> request, ticket = 16 + slot ->
//           committed or logged REFUSED on the verdict (3 cycles)
//   sys     RISK_* registers: a job (PREPARE a ticket, FEEDBACK a fill or cancel, CONFIG a limit) crosses to eth_tx
//           through spinal.lib's StreamCCByToggle and its answer comes back through another; KILL (a level,
//           two flops into eth_tx) refuses every order from the second eth_tx cycle after it is seen and disarms
//           every template; KILL_RESET clears the gate's latch; RISK_SEND_GATED marks the send-ring slots to check.
//   pin     killPin (a board button or GPIO), two flops into eth_tx: the same as KILL.
//
// The decision point is the request: the engine does not start the order before the verdict, and once a request is
// taken nothing else can take the output (a send frame needs the fire synchroniser empty, a fire waits while a send
// is asked, other fires queue behind), so an accepted order is always sent and a refused one never is: the gate's
// books (open quantity, notional, tokens) match the frames on the wire. While a request is in flight the arrival
// logic's other outcomes (ignore on a disable, suppress) are held off and the engine does not report IDLE.
//
//   eth_rx  bookRef: each hardware top-of-book slot's last trade (OffloadRx's BookRefFeed) crosses to eth_tx through
//           StreamCCByToggle and becomes, one register later, the reference price of the symbol a MAP job tied the
//           slot to (RiskGate.refUpdate: its collar bands follow the market as they follow a REFERENCE write).
//
// Poisoned frames: the early engine's (OrderEngineEarly.scala), in the simulation's SoC (sim/tests/test_early.py).
// This file is separate, and OrderEngine instantiates it after all of its own logic, so that an engine without the
// gate (every board's but the PYNQ-Z1's, while the gate does not meet 125 MHz: hw/src/triggerfish/risk/README.md) elaborates exactly
// as before, line numbers and signal names included, and the boards' netlists and build caches stay as they are.
package triggerfish.offload

import spinal.core._
import spinal.lib._
import scala.language.reflectiveCalls
import triggerfish.risk._
import triggerfish.soc.RegField

/** What crosses from sys to eth_tx for one RISK_GO write. */
case class RiskJob(cfg: RiskGateConfig) extends Bundle {
  val op = UInt(3 bits)            // OrderEngineRisk.Op
  val ticket = UInt(cfg.ticketW bits)
  val symbol = UInt(8 bits)
  val item = UInt(4 bits)
  val sell = Bool()                // PREPARE, FEEDBACK
  val cancel = Bool()              // FEEDBACK: 0 a fill, 1 a cancel / reject / expiry
  val qty = UInt(RiskGate.qtyWidth bits)
  val value = UInt(RiskGate.notionalWidth bits)   // CONFIG's value; PREPARE's and FEEDBACK's price (low 48 bits)
}
/** A job's answer: ok, and for PREPARE the static checks' reason now. */
case class RiskAnswer() extends Bundle {
  val ok = Bool()
  val reason = UInt(4 bits)
}

object OrderEngineRisk {
  object Op { val PREPARE = 1; val FEEDBACK = 2; val CONFIG = 3; val MAP = 4 }
  val BookSlots = 4  // book slots a market reference can come from (BookRx's most)
  val Base = 0x100   // the RISK_* registers' offset in ORDER_TX
}

class OrderEngineRisk(e: OrderEngine, rc: RiskGateConfig) extends Area {
  import OrderEngine._
  import OrderEngineRisk._
  require(rc.tickets >= Templates, s"riskGate: ${rc.tickets} tickets, the engine has $Templates templates")
  val regs = e.regs

  /** The kill pin (a board button or GPIO; any clock, or none): high kills as RISK_CTRL.KILL does. */
  val killPin = in Bool()
  /** The hardware top of book's last trades (OffloadRx.book.refOut, eth_rx; idle without a book): each becomes the
    * reference price of the symbol its slot is mapped to (a MAP job), as a REFERENCE write would. */
  val bookRef = slave(Stream(BookRef()))

  // ---- sys: the job registers, the kill switch
  val sys = new Area {
    val aSymbol, aTicket = Reg(UInt(8 bits)) init 0
    val aItem = Reg(UInt(4 bits)) init 0
    val aSell, aCancel = RegInit(False)
    val qty = Reg(UInt(32 bits)) init 0
    val v0, v1 = Reg(UInt(32 bits)) init 0
    val v2 = Reg(UInt(16 bits)) init 0
    regs.rwFields("RISK_A", Base + 0x00, "the next job's fields (RISK_GO)",
      (aSymbol, RegField("SYMBOL", 0, 8, "symbol index (PREPARE, FEEDBACK; CONFIG items MAX_LONG, MAX_SHORT, RESTRICT, REFERENCE)"), true),
      (aTicket, RegField("TICKET", 8, 8, "PREPARE: the ticket, the template slot whose order it describes (0..15 the armable orders, 16..31 the send ring); MAP: the book slot"), true),
      (aItem, RegField("ITEM", 16, 4, "CONFIG: the item (RiskGate C_*: 0 MAX_QTY .. 10 REFERENCE); MAP: 1 the slot's trades are SYMBOL's reference, 0 no symbol's"), true),
      (aSell, RegField("SELL", 20, 1, "PREPARE, FEEDBACK: the order sells"), true),
      (aCancel, RegField("CANCEL", 21, 1, "FEEDBACK: 1 a cancel, reject or expiry (releases LeavesQty), 0 a fill (LastQty)"), true))
    regs.rw("RISK_QTY", Base + 0x04, qty, "PREPARE: the order's quantity; FEEDBACK: the quantity filled or released")
    regs.rw("RISK_V0", Base + 0x08, v0, "value bits 31..0 (CONFIG's value; PREPARE's and FEEDBACK's limit price, the offload's fixed point)")
    regs.rw("RISK_V1", Base + 0x0C, v1, "value bits 63..32")
    regs.rw("RISK_V2", Base + 0x10, v2, "value bits 79..64 (CONFIG's MAX_NOTIONAL and MAX_CREDIT only)")

    val busy = RegInit(False)
    val ok = RegInit(False)
    val reason = Reg(UInt(4 bits)) init 0
    val refusedW = RegInit(False)
    val kill = RegInit(False)
    val enable = RegInit(False)
    val jobs = new StreamCCByToggle(RiskJob(rc), e.sysCd, e.txCd)
    val answers = new StreamCCByToggle(RiskAnswer(), e.txCd, e.sysCd)
    val bookRefs = new StreamCCByToggle(BookRef(), e.rxCd, e.txCd)
    bookRefs.io.input << bookRef
    answers.io.output.ready := True
    val go = regs.writeFlow("RISK_GO", Base + 0x14, 3, "write the operation: 1 PREPARE, 2 FEEDBACK, 3 CONFIG, 4 MAP (refused while RISK_STATUS.BUSY, or 0, or over 4)")
    jobs.io.input.valid := False
    val job = jobs.io.input.payload
    job.op := go.payload.asUInt
    job.ticket := aTicket.resized
    job.symbol := aSymbol
    job.item := aItem
    job.sell := aSell
    job.cancel := aCancel
    job.qty := qty
    job.value := (v2 ## v1 ## v0).asUInt
    when(go.valid) {
      when(!busy && jobs.io.input.ready && go.payload.asUInt =/= 0 && go.payload.asUInt <= Op.MAP) { jobs.io.input.valid := True; busy := True; refusedW := False }
        .otherwise { refusedW := True }
    }
    when(answers.io.output.valid) { busy := False; ok := answers.io.output.ok; reason := answers.io.output.reason }

    val killedSync = Bool()
    regs.ro("RISK_STATUS", Base + 0x18, "the gate's status",
      busy -> RegField("BUSY", 0, 1, "a job is in flight (the gate takes it when no order is being checked: 3 to 119 cycles)"),
      ok -> RegField("OK", 1, 1, "the last job's answer: applied (0: refused, nothing changed)"),
      reason -> RegField("REASON", 4, 4, "PREPARE's answer: the reason the static checks give now (0: none fails)"),
      killedSync -> RegField("KILLED", 8, 1, "the gate's kill latch: every order is refused until KILL_RESET"),
      BufferCC(killPin, False) -> RegField("KILL_PIN", 10, 1, "the kill pin's level (high: killing)"),
      refusedW -> RegField("REFUSED", 9, 1, "the last RISK_GO write was refused (BUSY, or no operation): no job was started"))
    regs.rwFields("RISK_CTRL", Base + 0x1C, "the kill switch",
      (kill, RegField("KILL", 0, 1, "1: every new order is refused (KILLED) and every template disarmed; the gate latches it"), true),
      (enable, RegField("ENABLE", 1, 1, "1: orders go through the gate (0, the reset value: they do not, unless KILL or the latch is set)"), true))
    val sendGated = Reg(Bits(SendSlots bits)) init 0
    regs.rw("RISK_SEND_GATED", Base + 0x28, sendGated, "bit s: a SEND of send-ring slot 16 + s is a new order, checked by the gate " +
      "as ticket 16 + s (written with the slot's template, before its SEND, and kept until its record)")
    val killReset = regs.writeFlow("RISK_KILL_RESET", Base + 0x20, 1, "write 1 (with KILL 0): the gate's latch is cleared")
  }

  // ---- eth_tx: the gate and the fire path
  val tx = new ClockingArea(e.txCd) {
    val t = e.tx
    val gate = RiskGate(rc)

    // Jobs: one at a time, to the gate's Stream for its operation; the answer back.
    val job = sys.jobs.io.output
    // (each port takes the job's fields of its names; the price is the value's low 48 bits)
    for ((port, op) <- Seq[(Stream[_ <: Bundle], Int)]((gate.io.prepare, Op.PREPARE), (gate.io.feedback, Op.FEEDBACK),
                                                       (gate.io.config, Op.CONFIG))) {
      port.valid := job.valid && job.op === op
      port.payload.assignSomeByName(job.payload)
    }
    gate.io.prepare.price := job.value.resized
    gate.io.feedback.price := job.value.resized
    job.ready := job.op.mux(Op.PREPARE -> gate.io.prepare.ready, Op.FEEDBACK -> gate.io.feedback.ready,
      Op.CONFIG -> gate.io.config.ready, default -> True)
    // (one answer per job, and the next job comes after its answer has crossed: the queue never holds more than one)
    val answer = Flow(RiskAnswer())
    sys.answers.io.input << answer.toStream.queue(2)
    // MAP: book slot TICKET's trades become symbol SYMBOL's reference (ITEM 1) or nobody's (0); answered at once
    val mapJob = job.valid && job.op === Op.MAP
    val mapOk = job.ticket < BookSlots && job.symbol < rc.symbols
    val mapOn = Vec.fill(BookSlots)(RegInit(False))
    val mapSym = Vec.fill(BookSlots)(Reg(UInt(rc.symW bits)) init 0)
    when(mapJob && mapOk) { mapOn(job.ticket.resized) := job.item(0); mapSym(job.ticket.resized) := job.symbol.resized }
    answer.valid := gate.io.prepared.valid || gate.io.fed.valid || gate.io.configDone.valid || mapJob
    answer.ok := (gate.io.prepared.valid && gate.io.prepared.ok) || (gate.io.fed.valid && gate.io.fed.payload) ||
      (gate.io.configDone.valid && gate.io.configDone.payload) || (mapJob && mapOk)
    answer.reason := gate.io.prepared.valid ? gate.io.prepared.reason | U(0, 4 bits)

    // The market reference: a book slot's last trade (from eth_rx through spinal.lib's StreamCCByToggle), registered,
    // to the gate as its mapped symbol's reference (a slot mapped to none: dropped here).
    val ref = sys.bookRefs.io.output.toFlow
    gate.io.refUpdate.valid := RegNext(ref.valid && mapOn(ref.slot)) init False
    gate.io.refUpdate.symbol := RegNext(mapSym(ref.slot).resize(8 bits))
    gate.io.refUpdate.price := RegNext(ref.price)
    gate.io.poisoned := (if (e.config.early) e.early.txEarly.poisonPulse else False)   // (early orders sent poisoned)

    // Kill: the level through two flops; the latch reset by a pulse (the write), through spinal.lib's PulseCCByToggle.
    val kill = BufferCC(sys.kill, False) || BufferCC(killPin, False)   // (each two flops: the gate sees either in 2 cycles)
    gate.io.kill := kill
    gate.io.killReset := PulseCCByToggle(sys.killReset.valid && sys.killReset.payload(0), e.sysCd, e.txCd)
    // Every template is disarmed while the switch is on (after the engine's own updates and commands: last wins).
    when(kill) { t.armed.clearAll() }
    // Orders go through the gate while it is enabled, and always while the switch or the latch is on (so that a kill
    // binds an unconfigured gate too). Changing ENABLE while a request is in flight does not end it.
    val on = BufferCC(sys.enable, False) || kill || gate.io.killed

    // The fire path. The start register's input (OrderEngine: startR) is the moment the engine decides to start the
    // fire; the gate is asked instead, and the start register follows the gate's decision.
    // The send queue's head, when its slot is gated and it would be sent (sendGo), asks the gate instead (ticket
    // 16 + slot) and is sent or refused on the verdict. Meanwhile the fire path asks nothing and takes no record (a
    // fire that arrives waits), so the send's commit is as without the gate (OrderEngine: "Why this never collides").
    val sendGated = quasiStatic(sys.sendGated)
    val sAsked = RegInit(False)
    val sAsk = on && t.sCan && t.sOkR && sendGated(t.sCur.slot) && !sAsked   // (OrderEngine's sendGo, before the override below)
    val asked = RegInit(False)      // this fire's request is in the gate (until the fire is started or refused)
    val startD = (t.tS1 =/= t.seen.getAheadValue()) && t.canGo.getAheadValue() && t.sendH.getAheadValue()  // OrderEngine's
    val decideNow = on && startD && !sAsked
    gate.io.request.valid := (decideNow && !asked) || sAsk
    gate.io.request.ticket := sAsk ? (U(1, 1 bits) @@ t.sCur.slot).resize(rc.ticketW) | t.tmplH.resize(rc.ticketW)
    gate.io.request.fw := sAsk
    // (one request at a time: a fire's needs the fire synchroniser busy, a send's needs it empty)
    assert(!(decideNow && sAsk), "OrderEngineRisk: a fire and a send ask together", FAILURE)
    assert(!gate.io.request.valid || gate.io.request.ready, "OrderEngineRisk: a request while the gate is busy", FAILURE)
    when(gate.io.request.fire && !sAsk) { asked := True }
    when(gate.io.request.fire && sAsk) { sAsked := True }
    t.startR.removeAssignments()
    t.startR := (asked && gate.io.acceptNow) || (!on && !asked && !sAsked && startD)
    val sVerdict = gate.io.verdict.valid && sAsked
    when(sAsk || (sAsked && !sVerdict)) { t.sendGo := False; t.sendSkip := False }
    when(sVerdict) { t.sendGo := gate.io.verdict.accepted; t.sendSkip := !gate.io.verdict.accepted; sAsked := False }
    when(sAsked || sAsked.getAheadValue()) { t.recFree := False }   // (the register: no fire record while the send waits)
    val sRefusedR = RegNext(sVerdict && !gate.io.verdict.accepted) init False
    val reasonR = RegNext(gate.io.verdict.reason)
    when(sRefusedR) { t.recStatus := St.REFUSED; t.recIpId := reasonR.resized }   // (after the send's record block)
    val refuse = gate.io.verdict.valid && !gate.io.verdict.accepted && asked
    assert(!gate.io.verdict.valid || asked || sAsked, "OrderEngineRisk: a verdict without a request", FAILURE)
    // While asked: the arrival logic takes no other decision (the fire waits for its verdict); then a refusal takes
    // the record without a frame (the log had room when the request was made, and nothing pushed since).
    when(asked) {
      t.consumeOther := False; t.suppressNow := False
      t.incIgnored := False; t.incNotArmed := False; t.incLogDrops := False
    }
    // Not idle while a request is in flight, nor in the cycle after a send's verdict (xIdle is registered from the
    // cycle before, when the send's commit, sGoR, was not yet visible).
    when(asked || sAsked || RegNext(sAsked).init(False)) { e.xIdle := False }
    when(refuse) {
      assert(t.recFree && t.arrived && t.logRoom, "OrderEngineRisk: a refusal without the record free", FAILURE)
      t.consumeOther := True
      t.suppressNow := True
      t.suppressStatus := St.REFUSED
      t.recIpId := gate.io.verdict.reason.resized   // word 4: the reason instead of an IPv4 id (nothing was sent)
      asked := False
    }
    // (kept until the verdict: a fire the gate accepts in the cycle after its request starts a cycle before it)
    when(gate.io.verdict.valid) { asked := False }
    val refusedGray = grayEvents(RegNext(refuse || (sVerdict && !gate.io.verdict.accepted)) init False)
  }
  /** Build constants for the C header (the SoC's, when the engine has the gate). */
  def headerConstants: Seq[(String, String, String)] =
    Seq(("TF_HAS_RISK", "1", "the pre-trade risk gate in the order engine (ORDER_TX_RISK_*)"),
      ("ORDER_TX_REC_STATUS_REFUSED", s"${St.REFUSED}U", "fire log status: refused by the risk gate (word 4 [15:0]: the reason)"),
      ("RISK_SYMBOLS", s"${rc.symbols}U", "symbols the gate keeps limits and usage for"),
      ("RISK_TICKETS", s"${rc.tickets}U", "tickets: template slots 0..15, send-ring slots 16..31"),
      ("RISK_CLOCK_HZ", s"${rc.clockHz}UL", "the gate's clock (eth_tx): RATE's orders per second are counted in it"),
      ("RISK_MAX_BURST", s"${rc.maxBurst}U", "largest BURST"),
      ("RISK_OP_PREPARE", s"${Op.PREPARE}U", "RISK_GO: prepare a ticket"),
      ("RISK_OP_FEEDBACK", s"${Op.FEEDBACK}U", "RISK_GO: a fill or a cancel"),
      ("RISK_OP_CONFIG", s"${Op.CONFIG}U", "RISK_GO: a limit"),
      ("RISK_OP_MAP", s"${Op.MAP}U", "RISK_GO: a book slot's trades as a symbol's reference"),
      ("RISK_BOOK_SLOTS", s"${BookSlots}U", "book slots MAP takes")) ++
      RiskGate.configNames.zipWithIndex.map { case (n, i) => (s"RISK_C_$n", s"${i}U", "CONFIG item") } ++
      RiskGate.reasonNames.zipWithIndex.map { case (n, i) => (s"RISK_R_$n", s"${i}U", "a verdict's reason") }

  sys.killedSync := BufferCC(tx.gate.io.killed, False)
  e.sys.counter("RISK_REFUSED", Base + 0x24, tx.refusedGray, "orders the risk gate refused (each has a REFUSED record)")
}
