// Reference model of the risk gate (hw/src/triggerfish/risk/README.md): the rules, with unbounded integers and the
// limits as configured (not the hardware's precomputed rooms and bounds). The order path and the per-cycle state
// (throttle, poisoned-frame window, kill latch) are modelled cycle by cycle; the slow path's effects (a prepared
// ticket, a fill or cancel, a configuration write, a symbol's new collar) are applied when the gate answers them,
// which is when the README says they take effect, and each answer is checked against what the model expects.
package triggerfish.risk

import RiskGate._

case class ModelTicket(sym: Int, sell: Boolean, qty: Long, price: BigInt) { val notional: BigInt = price * qty }
/** A request the gate took in a cycle: its ticket's row (None: not prepared), whether a kill was seen then (the input or the latch), and
  * the reason of the checks the gate makes on that cycle's state (NO_TICKET .. CREDIT; ACCEPTED if none fails).
  * Decided two cycles later (RiskGateModel.decide). Whether the gate accepts it a cycle early (its pre-check) does
  * not change the verdict, so the model has no notion of it; RiskGateSpec checks `acceptNow` against the verdict. */
case class ModelTaken(row: Option[ModelTicket], kill: Boolean, reason: Int)

class RiskGateModel(val cfg: RiskGateConfig) {
  val n = cfg.symbols
  val tickets: Array[Option[ModelTicket]] = Array.fill(cfg.tickets)(None)
  // configuration as written
  var maxQty = 0L
  var maxNotional = BigInt(0)
  var maxCredit = BigInt(0)
  var bps = 0
  val maxLong: Array[Long] = Array.fill(n)(0L)
  val maxShort: Array[Long] = Array.fill(n)(0L)
  val restricted: Array[Boolean] = Array.fill(n)(false)
  var poisonCap = 0
  var rate = 0L
  var period = 0L           // cycles per token: ceil(clockHz / rate)
  var depth = 0
  // usage
  val pos: Array[Long] = Array.fill(n)(0L)
  val openBuy: Array[Long] = Array.fill(n)(0L)
  val openSell: Array[Long] = Array.fill(n)(0L)
  var openNotional = BigInt(0)
  // collar: the reference and band in force per symbol (None: no bounds yet), the references given
  val collar: Array[Option[(BigInt, Int)]] = Array.fill(n)(None)
  val latestRef: Array[BigInt] = Array.fill(n)(BigInt(0))
  // per cycle
  var tokens = 0
  var tick = 0L
  var tokensBefore = 0      // tokens at the start of the last modelled cycle
  var poisonCount = 0
  var window = 0L
  var killed = false

  def validRef(sym: Int, price: BigInt): Boolean = sym >= 0 && sym < n && price > 0 && price < refLimit

  def inCollar(sym: Int, price: BigInt): Boolean = collar(sym) match {
    case None => false
    case Some((r, b)) => price * 10000 >= r * (10000 - b) && price * 10000 <= r * (10000 + b)
  }

  def take(ticket: Int, kill: Boolean): ModelTaken = {
    val row = tickets(ticket)
    val reason = row match {
      case None => NO_TICKET
      case Some(t) =>
        val s = t.sym
        if (restricted(s)) RESTRICTED
        else if (t.qty > maxQty) MAX_QTY
        else if (t.notional > maxNotional) MAX_NOTIONAL
        else if (!inCollar(s, t.price)) COLLAR
        else if (!t.sell && pos(s) + openBuy(s) + t.qty > maxLong(s)) LONG_LIMIT
        else if (t.sell && openSell(s) - pos(s) + t.qty > maxShort(s)) SHORT_LIMIT
        else if (openNotional + t.notional > maxCredit) CREDIT
        else ACCEPTED
    }
    ModelTaken(row, kill || killed, reason)
  }

  /** The verdict of a request taken two cycles before this one: KILLED if a kill was seen at the take or in the cycle
    * after it (the input then, which the latch holds now), else the take's checks, then the throttle and the
    * poisoned-frame cap on this cycle's state. An accepted order is booked now. */
  def decide(x: ModelTaken): Int = {
    val r = if (x.kill || killed) KILLED else if (x.reason != ACCEPTED) x.reason
      else if (tokens == 0) THROTTLE else if (poisonCount >= poisonCap) POISON else ACCEPTED
    if (r == ACCEPTED) book(x.row.get)
    r
  }

  def book(t: ModelTicket): Unit = {
    if (t.sell) openSell(t.sym) += t.qty else openBuy(t.sym) += t.qty
    openNotional += t.notional
  }

  /** The end of a cycle: the token bucket, the poisoned-frame window, the kill latch. */
  def endCycle(accepted: Boolean, poisoned: Boolean, kill: Boolean, killReset: Boolean): Unit = {
    tokensBefore = tokens
    var refill = 0
    if (tokens < depth || accepted) {
      if (period != 0 && tick == period - 1) { tick = 0; refill = 1 } else tick += 1
    } else tick = 0
    tokens += refill - (if (accepted) 1 else 0)
    if (window == cfg.minuteCycles - 1) { window = 0; poisonCount = if (poisoned) 1 else 0 }
    else { window += 1; if (poisoned && poisonCount < 65535) poisonCount += 1 }
    if (kill) killed = true else if (killReset) killed = false
  }

  /** A prepare taken by the gate: the ticket is unprepared from the next cycle until its answer. */
  def prepareTaken(ticket: Int): Unit = tickets(ticket) = None

  /** The prepare's answer: (ok, reason) as the gate must give it; the ticket is prepared from the answer's cycle. */
  def prepared(ticket: Int, sym: Int, sell: Boolean, qty: Long, price: BigInt): (Boolean, Int) = {
    val ok = sym >= 0 && sym < n && qty > 0
    if (!ok) return (false, NO_TICKET)
    val t = ModelTicket(sym, sell, qty, price)
    tickets(ticket) = Some(t)
    (true, if (restricted(sym)) RESTRICTED else if (qty > maxQty) MAX_QTY else if (t.notional > maxNotional) MAX_NOTIONAL else ACCEPTED)
  }

  /** A fill or cancel answered by the gate: whether it is applied. */
  def feedback(cancel: Boolean, sym: Int, sell: Boolean, qty: Long, price: BigInt): Boolean = {
    if (sym < 0 || sym >= n || qty <= 0) return false
    val open = if (sell) openSell(sym) else openBuy(sym)
    val notional = price * qty
    if (open < qty || openNotional < notional) return false
    if (sell) openSell(sym) -= qty else openBuy(sym) -= qty
    openNotional -= notional
    if (!cancel) pos(sym) += (if (sell) -qty else qty)
    true
  }

  /** A configuration write answered by the gate: whether it is applied (its effect from the answer's cycle). */
  def config(item: Int, sym: Int, value: BigInt): Boolean = {
    val symOk = sym >= 0 && sym < n
    val u32 = value < (BigInt(1) << 32)
    item match {
      case C_MAX_QTY => (value > 0 && u32) && { maxQty = value.toLong; true }
      case C_MAX_NOTIONAL => value > 0 && { maxNotional = value; true }
      case C_COLLAR_BPS => (value > 0 && value <= maxBps) && { bps = value.toInt; true }
      case C_MAX_LONG => (symOk && u32) && { maxLong(sym) = value.toLong; true }
      case C_MAX_SHORT => (symOk && u32) && { maxShort(sym) = value.toLong; true }
      case C_MAX_CREDIT => value > 0 && { maxCredit = value; true }
      case C_RATE => (value > 0 && value <= cfg.clockHz) && {
        rate = value.toLong; period = (cfg.clockHz + rate - 1) / rate
        tick = 0; tokens = math.min(tokensBefore, depth); true
      }
      case C_BURST => (value > 0 && value <= cfg.maxBurst) && {
        depth = value.toInt; tick = 0; tokens = math.min(tokensBefore, depth); true
      }
      case C_POISON_CAP => (value > 0 && value < 65536) && { poisonCap = value.toInt; true }
      case C_RESTRICT => (symOk && value <= 1) && { restricted(sym) = value == 1; true }
      case C_REFERENCE => (symOk && value > 0 && value < refLimit) && { latestRef(sym) = value; true }
      case _ => false
    }
  }

  /** A symbol's new collar bounds: checked against the band in force, then the collar of that reference applies.
    * Returns an error message, or None. */
  def bounds(sym: Int, ref: BigInt, lo: BigInt, hi: BigInt): Option[String] = {
    val wantLo = (ref * (10000 - bps) + 9999) / 10000      // the smallest price p with 10000 p >= ref (10000 - bps)
    val wantHi = ref * (10000 + bps) / 10000
    collar(sym) = Some((ref, bps))
    if (bps == 0) Some(s"bounds for symbol $sym without a band")
    else if (lo != wantLo || hi != wantHi) Some(s"symbol $sym ref $ref bps $bps: bounds [$lo, $hi], want [$wantLo, $wantHi]")
    else None
  }
}
