// The order engine: the transmit half of the stop-order offload. When the trigger table fires (eth_rx),
// it sends the armed order's prebuilt frame (Ethernet/IPv4/TCP/FIX 35=D) from a template RAM, patching on
// the fly what firmware cannot know in advance, and tells firmware about every fire through a log.
// Firmware's side of it is described in README-tx.md (next to this file).
//
//   eth_rx  fire Flow -> [queue, 16] -> hold register + toggle  ---- toggle: 2-flop sync ----> eth_tx
//                                          ^---------------------- seen:   2-flop sync -------'
//   eth_tx  arrival -> decision (send / suppress / ignore) -> byte 0 on the output in the arrival cycle, from
//           a register that holds the first five bytes of the held fire's template (LUT RAMs read every cycle);
//           bytes 1..4 from that register, bytes 5.. from the template RAM (TemplateRam: read and output
//           registers) through a 3-stage pipeline and an 8-byte buffer, patched on the way: IPv4 id + header checksum, TCP seq/ack/window + checksum, FIX
//           MsgSeqNum digits, SendingTime and TransactTime time digits, FIX CheckSum digits. Checksums are
//           incremental (RFC 1624) from the template's stored checksums, computed in the 14 cycles after the
//           commit (the IPv4 checksum leaves at byte 24 at the earliest, the TCP checksum at byte 50).
//           -> OrderEngineTxArbiter (input 0; the CPU frame path on input 1) -> MAC
//           -> fire log words (8 per record) -> StreamFifoCC -> sys
//   sys     bus: registers (RegMap "ORDER_TX"), template window (RAM, read in eth_tx), metadata window
//           (LUT RAM, read in eth_tx), sequence staging while disabled, commands (arm/disarm, time set) by toggle.
//   send    sys: SEND -> queue (16) -> hold register + toggle ==> eth_tx: head register (sCur) -> views of its
//           send-ring template (slots 16..31: LUT RAMs of their own) -> decision (only when no fire is on its way,
//           and the engine could start an order) -> commit one cycle later from a register
//           (sGoR): byte 0 from the output register, then the same byte pipeline, patches and log as an order.
//           Frames up to 511 bytes continue in the next slot. README-tx.md "Send queue".
//
// Latency, fire.valid in eth_rx cycle c -> tx.valid (engine idle): with eth_rx and eth_tx on the same edges,
// tx.valid is high in eth_tx cycle c+3, always: the hold register and the toggle are loaded at the end of
// cycle c, the first synchroniser flop at the end of c+1, and at the end of c+2 the start register (the
// second flop of the synchroniser, loaded from the first through one level of logic together with the
// decision) and the first-byte register. OrderEngineTxArbiter's output register adds one cycle (valid at the
// MAC's input in c+4); behind it and LiteEth's GMII MAC, TX_EN is high from cycle c+8 (OrderEngineSpec
// measures it on the pins). With asynchronous clocks, tx.valid is sampled
// 2 to 3 eth_tx periods after the eth_rx edge that loaded the toggle (simulation); on hardware a first
// flop that resolves late adds one period: a jitter of one eth_tx cycle, which no synchroniser avoids.
// MTBF: the start register's input is the first flop through one LUT (instead of a direct flop-to-flop
// path), which leaves the first flop most of a 8 ns cycle to resolve.
// After an order frame the engine takes its next fire 3 cycles after the last byte; the arbiter keeps the
// output for it meanwhile, so queued orders go out one after the other (the MAC's gap is 12 cycles anyway).

// Ownership of the sequence numbers. The engine holds the TCP sequence number and FIX MsgSeqNum of the next
// frame (and the IPv4 id and the TCP window). Each order and send frame uses them and advances them (seq by the
// frame's TCP sequence space, MsgSeqNum and IP id by one). There is no lock: firmware never sends a frame that
// takes sequence space itself, it queues it (SEND). It sets the numbers only while the engine is disabled and
// idle (CTRL.ENABLE = 0 and STATUS.IDLE: nothing in flight, every record in the log), at the start of a
// connection; the engine takes the written values when it sees CTRL.ENABLE rise, before it can start a frame.
// A fire while disabled is ignored and counted (IGNORED): an order never waits for firmware.
//
// Templates are one-shot: sending an order disarms its template (ARMED bit cleared in the cycle after the
// commit), so a trigger that fires again cannot send the same order twice; firmware re-arms with ARM_SET
// after it has seen the fire's log record (which is complete only once the engine no longer reads the
// template).
//
// Resets: the three domains' resets must be asserted together (the crossing FIFO's pointers and the
// toggles are reset at the same time), as for EthFrameBuffers.
package triggerfish.offload

import spinal.core._
import spinal.lib._
import scala.language.reflectiveCalls
import spinal.lib.bus.simple._
import triggerfish.soc.{RegField, RegMap}

case class OrderEngineConfig(
  rxQueueDepth: Int = 16,   // fires waiting in eth_rx while the engine is busy (power of two)
  logWords: Int = 512,      // fire log capacity in 32-bit words (8 per record): 512 = 64 records, one block RAM
  obufDepth: Int = 8, riskGate: Option[triggerfish.risk.RiskGateConfig] = None, early: Boolean = false   // obuf: bytes between the template RAM pipeline and the output register; riskGate: OrderEngineRisk.scala; early: early fires, OrderEngineEarly.scala
) {
  require(isPow2(rxQueueDepth) && rxQueueDepth >= 2 && rxQueueDepth <= 256)
  require(isPow2(logWords) && logWords >= 32)
  require(isPow2(obufDepth) && obufDepth >= 8)   // one byte a cycle: 4 in flight (issue, s1, s1b, s2) + 1 in obuf <= depth - 2
  def logRecords: Int = logWords / OrderEngine.RecordWords
}

/** What crosses from eth_rx to eth_tx for one fire (the price stays behind: it is informational). */
case class OrderFireRec(withEarly: Boolean = false) extends Bundle {
  val trigger = UInt(6 bits)
  val template = UInt(4 bits)
  val ackSeq = UInt(32 bits)
  val stamp = UInt(32 bits); val early = withEarly generate Bool()   // early: an early fire (OrderEngineConfig.early)
}

/** What crosses from sys to eth_tx for one SEND register write (the send queue). */
case class OrderSendRec() extends Bundle {
  val slot = UInt(4 bits)   // send-ring slot - 16 (template 16 + slot)
  val mode = UInt(2 bits)   // OrderEngine.SendMode
  val fin = Bool()          // the segment carries FIN: the TCP sequence advances by one more
  val ack = UInt(32 bits)   // the TCP ACK the frame carries (SEND_ACK when SEND was written)
}

/** Per-template metadata, as the engine reads it (LUT RAM, written from sys through the META window). */
case class OrderMeta() extends Bundle {
  val len = UInt(9 bits)        // frame length in bytes, DA..end of the FIX message (no FCS), 55..256
  val msgWidth = UInt(4 bits)   // digits of the MsgSeqNum field (1..10), zero padded
  val msgOff = UInt(8 bits)     // frame offset of the first MsgSeqNum digit
  val csOff = UInt(9 bits)      // frame offset of the first of the three CheckSum digits (9 bits: send frames up to 511 bytes)
  val stOff = UInt(8 bits)      // frame offset of the HH of SendingTime's time part (HH:MM:SS.sss)
  val stEn = Bool()
  val ttOff = UInt(8 bits)      // frame offset of the HH of TransactTime's time part
  val ttEn = Bool()
  val ipCsum = UInt(16 bits)    // the IPv4 header checksum stored in the template
  val tcpCsum = UInt(16 bits)   // the TCP checksum stored in the template
  val fixSum = UInt(8 bits)     // FIX CheckSum value of the stored message (bytes before "10=", mod 256)
}

/** The SoC's transmit arbiter (eth_tx): `order` (the order engine) goes first whenever both inputs could
  * start a frame; a frame, once offered, keeps the output until its last byte is taken, so a CPU frame on the
  * wire is never broken. For three cycles after an order frame only `order` may start (the engine starts a
  * queued order three cycles after the previous one's last byte; the MAC's inter-frame gap is 12 anyway).
  * One cycle of latency (`OrderEngineTxArbiter.Latency`): the MAC's inputs come straight from a register.
  * LiteEth's transmit path is combinational from `tx_valid`/`tx_data` through its padding, CRC, preamble and
  * gap stages; behind the engine's fast start (start register -> engine valid -> selection) and that, eth_tx
  * missed 125 MHz on ECP5 (104.9 MHz on the Colorlight i5, 117.8 MHz on the 5A-75B). The ready the inputs
  * see is a register too (a skid buffer in front of the output register), and unlike spinal.lib's
  * StreamArbiter `order.ready` depends on neither input's valid ("you would be taken"). */
case class OrderEngineTxArbiter(withPoison: Boolean = false) extends Component {
  val io = new Bundle {
    val order = slave(Stream(Fragment(Bits(8 bits))))
    val cpu = slave(Stream(Fragment(Bits(8 bits))))
    val output = master(Stream(Fragment(Bits(8 bits)))); val orderPoison = withPoison generate (in Bool()); val outputPoison = withPoison generate (out Bool())   // withPoison: OrderEngineEarly.scala
  }
  // The CPU's stream through a ready-registered stage (no latency: its bytes pass through while it is empty), so that
  // the CPU's ready, which follows the order's valid (the engine's start register) through the selection, ends in
  // this component: it ran on into the frame buffers' output stages and missed 125 MHz on the 5A-75B (seeds 1, 2
  // of the netlist at 3f7564a: startR -> selection -> the frame buffers' ready -> their s2m stage).
  val cpu = io.cpu.s2mPipe()
  val locked = RegInit(False)      // a frame has been offered and its last byte is not taken yet
  val lockedCpu = RegInit(False)   // ... and it is the CPU's
  val reserved = Reg(UInt(2 bits)) init 0   // cycles left during which only `order` may start (after an order frame)
  // Two registered summaries (from the next values of the three above), so that the output is two LUT levels
  // from registers: cpuOnly = locked && lockedCpu; cpuMay = the CPU's frame is on, or may start if `order` is idle.
  val cpuOnly = RegInit(False)
  val cpuMay = RegInit(True)
  val selOrder = !cpuOnly && (io.order.valid || !cpuMay)
  val merged = Stream(Fragment(Bits(8 bits)))
  merged.valid := (io.order.valid && !cpuOnly) || (cpu.valid && cpuMay)
  merged.payload := selOrder ? io.order.payload | cpu.payload
  // The output and skid registers (below): room = the skid register is free. `order` is also held off while the
  // output register still holds the previous frame's last byte for the MAC, so that an order's byte 0 always
  // enters the output register and reaches the MAC in the cycle after it is taken (the engine's tx stamp).
  val oValid = RegInit(False)
  val oPayload = Reg(Fragment(Bits(8 bits)))
  val sValid = RegInit(False)
  val sPayload = Reg(Fragment(Bits(8 bits)))
  val room = !sValid
  val orderRoom = !sValid && !(oValid && oPayload.last)
  merged.ready := selOrder ? orderRoom | room
  // `order`'s ready as a register of its own, loaded from the next values of the registers it is a function of, so
  // that the engine's byte pipeline (its pop and occupancy) starts from a flip-flop rather than from the output
  // register's `last` through two LUTs (the i5's eth_tx critical path with the MAC's TX CRC buffer gone: oPayload.last
  // -> ready -> the engine's obCount). The same value cycle for cycle (asserted below).
  val orderReady = RegInit(True)
  orderReady := !(locked.getAheadValue() && lockedCpu.getAheadValue()) && !sValid.getAheadValue() &&
    !(oValid.getAheadValue() && oPayload.last.getAheadValue())
  io.order.ready := orderReady
  cpu.ready := !selOrder && room
  // A frame's end, seen on the input that owns it rather than through the selection (`merged.fire && merged.last`),
  // so that the engine's start register (io.order.valid) does not run through `selOrder` and the ready into
  // `locked` and `reserved` (the 5A-75B's eth_tx critical path at d6d93bd, seed 4). The same as that: a frame's last
  // byte is never its first (asserted below), so an order's last byte fires while `lockedCpu` is False, and a CPU
  // frame's only while it holds the output (cpuOnly, which implies cpuMay).
  val orderEnd = io.order.fire && io.order.last
  val cpuEnd = cpuOnly && cpu.valid && cpu.last && room
  when(reserved =/= 0) { reserved := reserved - 1 }
  when(merged.valid) { locked := True; lockedCpu := !selOrder }
  when(orderEnd || cpuEnd) { locked := False }
  when(orderEnd) { reserved := 3 }
  assert(!(merged.fire && merged.last) || locked, "OrderEngineTxArbiter: a frame whose first byte is its last", FAILURE)
  assert((merged.fire && merged.last) === (orderEnd || cpuEnd), "OrderEngineTxArbiter: frame ends disagree", FAILURE)
  assert(orderReady === (!cpuOnly && orderRoom), "OrderEngineTxArbiter: the registered order ready disagrees", FAILURE)
  cpuOnly := locked.getAheadValue() && lockedCpu.getAheadValue()
  cpuMay := locked.getAheadValue() ? lockedCpu.getAheadValue() | reserved.getAheadValue() === 0
  // The output register (the MAC sees registered valid, data and last) with a skid register in front (the
  // inputs see a registered ready: the MAC's tx_ready is combinational through its pipeline). Written out
  // rather than s2mPipe().m2sPipe(), so that tx_ready reaches every register through one LUT (the path from
  // the MAC's state through tx_ready, routed across the chip, was the eth_tx critical path on the 5A-75B).
  when(!oValid || io.output.ready) {
    oValid := sValid || merged.fire
    oPayload := sValid ? sPayload | merged.payload
    sValid := False
  } elsewhen (merged.fire) {
    sValid := True
  }
  when(!sValid) { sPayload := merged.payload }   // (unused until sValid: its enable does not wait for tx_ready)
  io.output.valid := oValid
  io.output.payload := oPayload; val poison = withPoison generate new ArbiterPoison(this)   // (OrderEngineEarly.scala)
}

object OrderEngineTxArbiter {
  /** Cycles from an input's valid to the output's valid (the output register), when the output is free. */
  val Latency = 1
}

object OrderEngine {
  val busConfig = PipelinedMemoryBusConfig(addressWidth = 14, dataWidth = 32)
  val Templates = 16            // armable order templates 0..15
  val SendSlots = 16            // the send ring: templates 16..31, never armed, sent through SEND
  val Slots = Templates + SendSlots
  val TemplateBytes = 256       // bytes per slot; a send frame longer than that occupies its slot and the next
  val SendMaxLen = 511          // longest send frame (LEN is 9 bits)
  val SendMinLen = 54           // shortest send frame: headers only (a bare FIN or ACK-less segment)
  val SendDepth = 16            // entries of the sys -> eth_tx send queue
  val MetaWindow = 0x0400       // 16 bytes per template: META0..META3 (32 templates: 0x400..0x5FF)
  val TemplateWindow = 0x2000   // 256 bytes per template (32 templates: 0x2000..0x3FFF)
  val RecordWords = 8
  val Digits = 10               // MsgSeqNum digits kept (a 32-bit MsgSeqNum has at most 10)
  // Frame layout: Ethernet II, IPv4 without options, TCP without options.
  val IpIdOff = 18; val IpCsumOff = 24
  val TcpSeqOff = 38; val TcpAckOff = 42; val TcpWinOff = 48; val TcpCsumOff = 50
  val PayloadOff = 54
  val MinLen = 55
  /** Fire log record status. */
  object St { val SENT = 1; val SUPPRESSED_WIDTH = 3; val SUPPRESSED_TEMPLATE = 4; val REFUSED = 5; val SENT_EARLY = 6; val POISONED = 7; val width = 4; def framed(status: Int): Boolean = status == SENT || status == SENT_EARLY || status == POISONED }   // (2: unused since the lock went; 5: the risk gate's; 6, 7: early fires'; framed: the record's frame went out)
  /** SEND register modes. */
  object SendMode { val NUMBER = 0; val KEEP = 1; val RAW = 2 }
  /** Fire log record word 7 (the header): field positions. A fire record has template 0..15 (bit 26 = 0) and its
    * trigger in [17:12]; a SEND record has template 16..31 (bit 26 = 1) and [12] payload length bit 8, [13] FIN,
    * [15:14] mode there. */
  object Hdr { val PLEN = 0; val TMPL = 8; val TRIGGER = 12; val PLEN8 = 12; val FIN = 13; val MODE = 14; val STATUS = 18
    val HOURS = 22; val KIND = 26; val RECNO = 27; val RecNoBits = 5 }
  /** sys -> eth_tx commands. */
  object Cmd { val ARM_SET = 0; val ARM_CLR = 1; val TIME_SET = 2; val ACK_SET = 3 }
  /** A 16-bit event counter to be read in another clock domain: counted in binary (a carry chain), then Gray
    * coded into a register (one bit changes per count; `inc` at most once a cycle). spinal.lib's GrayCounter
    * ripples from bit to bit: 5 LUT levels, eth_rx's critical path on the 5A-75B (RX_OVERFLOW). */
  def grayEvents(inc: Bool): UInt = {
    val bin = Reg(UInt(16 bits)) init 0
    when(inc) { bin := bin + 1 }
    (RegNext(toGray(bin)) init 0).asUInt
  }
  /** Cycles from the fire.valid cycle (eth_rx) to the first io.tx.valid cycle with same-edge clocks, engine idle. */
  val FireToValidCycles = 3
  /** The same to the first valid cycle at the MAC's input, behind OrderEngineTxArbiter. */
  val FireToMacCycles = FireToValidCycles + OrderEngineTxArbiter.Latency

  /** The time part HH:MM:SS.sss: character index -> BCD digit index (digit 0 = milliseconds' ones ... 8 = tens of
    * hours in the packed 36-bit time); separators are left as the template has them. */
  val timeCharDigit: Seq[(Int, Int)] = Seq(0 -> 8, 1 -> 7, 3 -> 6, 4 -> 5, 6 -> 4, 7 -> 3, 9 -> 2, 10 -> 1, 11 -> 0)

  /** BCD +1 over all digits (wraps at 10^n), two cycles after v, through a register in the middle: for a v that
    * changes rarely and is read several cycles after it changes. The carry into each digit is the AND of the
    * nines below it, each its own balanced tree (a ripple through the digits is one LUT per digit), and is
    * registered (in one cycle, the ten-digit MsgSeqNum's increment missed 125 MHz on ECP5). */
  def bcdIncPiped(v: UInt): UInt = {
    val nine = v.subdivideIn(4 bits).map(_ === 9)
    val carry = RegNext(Vec((0 until nine.size).map(k => if (k == 0) True else nine.take(k).reduceBalancedTree(_ && _))).asBits)
    val d = RegNext(v).subdivideIn(4 bits)
    val out = Vec(UInt(4 bits), d.size)
    for (k <- d.indices) out(k) := Mux(carry(k), Mux(d(k) === 9, U(0, 4 bits), d(k) + 1), d(k))
    RegNext(out.asBits.asUInt)
  }

  /** Which digits of a packed BCD time of day are at their maximum (see timeInc): ms 9 9 9, SS 9 5, MM 9 5,
    * then hours 23 and ones of hours 9. */
  def timeAtMax(t: UInt): Bits = {
    val d = t.subdivideIn(4 bits)
    val max = Seq(9, 9, 9, 9, 5, 9, 5)
    Vec((0 until 7).map(k => d(k) === max(k)) ++ Seq(d(8) === 2 && d(7) === 3, d(7) === 9)).asBits   // bit k: digit k
  }
  /** One millisecond on a packed BCD time of day (HH MM SS sss, 36 bits), 23:59:59.999 -> 00:00:00.000, with
    * `atMax` = timeAtMax(t) (may come from a register). */
  def timeInc(t: UInt, atMaxBits: Bits): UInt = {
    val d = t.subdivideIn(4 bits)
    val atMaxAll = atMaxBits.asBools
    val out = Vec(UInt(4 bits), 9)
    var carry: Bool = True
    for (k <- 0 until 7) {
      val atMax = atMaxAll(k)
      out(k) := Mux(carry, Mux(atMax, U(0, 4 bits), d(k) + 1), d(k))
      carry = carry && atMax
    }
    val h23 = atMaxAll(7)
    val h9 = atMaxAll(8)
    out(7) := d(7)
    out(8) := d(8)
    when(carry) {
      when(h23) { out(7) := 0; out(8) := 0 }
        .elsewhen(h9) { out(7) := 0; out(8) := d(8) + 1 }
        .otherwise { out(7) := d(7) + 1 }
    }
    out.asBits.asUInt
  }

  /** Marks signals that cross clock domains by protocol (held stable while the other side reads them). */
  def quasiStatic[T <: Data](d: T): T = { d.flatten.foreach(_.addTag(crossClockDomain)); d }
}

/** The order engine. In: bus (sys), fire (rxCd). Out: tx byte stream (txCd, DA first, no preamble or FCS),
  * interrupt (sys, level: a fire log record is waiting and CTRL.IRQ_EN). */
case class OrderEngine(config: OrderEngineConfig, rxCd: ClockDomain, txCd: ClockDomain) extends Component {
  import OrderEngine._
  val io = new Bundle {
    val bus = slave(PipelinedMemoryBus(busConfig))
    val fire = slave(Flow(OffloadFire()))             // rxCd
    val tx = master(Stream(Fragment(Bits(8 bits))))   // txCd
    val interrupt = out Bool(); val fireEarly = config.early generate (in Bool()); val verdict = config.early generate slave(Flow(Bool())); val txPoison = config.early generate (out Bool())   // early fires (rxCd, rxCd, txCd): OrderEngineEarly.scala
  }
  val sysCd = ClockDomain.current

  // ---------------------------------------------------------------------------------------------
  // Storage written from sys and read in eth_tx. Firmware writes a template and its metadata only while
  // the template is not armed and not in use (see the file header); the engine reads them without
  // synchronisation.
  val templRam = new TemplateRam(sysCd, txCd)   // block RAM, 2048 x 32 (orders and the send ring)
  assert(Slots * TemplateBytes / 4 == 2048)
  // The order templates (0..15) and the send ring (16..31) have separate LUT RAMs for their first word and their
  // metadata, each read at one address: the orders' by the held fire's template (the fast path, as before the
  // send ring existed), the send ring's by the send queue's head.
  class SlotStore(n: Int) extends Area {
    val shadow = Mem(Bits(32 bits), n)           // LUT RAM: bytes 0..3 of each template
    val shadow4 = Mem(Bits(8 bits), n)           // LUT RAM: byte 4 of each template
    // Metadata, LUT RAM, one per META word (only the bits used): see OrderMeta and the META window.
    val meta0 = Mem(Bits(30 bits), n)   // csOff (9), msgOff, msgWidth, len
    val meta1 = Mem(Bits(18 bits), n)   // ttEn, ttOff, stEn, stOff
    val meta2 = Mem(Bits(32 bits), n)   // tcpCsum, ipCsum
    val meta3 = Mem(Bits(8 bits), n)    // fixSum
    for (m <- Seq[Mem[_]](shadow, shadow4, meta0, meta1, meta2, meta3)) m.addTag(crossClockDomain)
    def first5(t: UInt): Bits = quasiStatic(shadow4.readAsync(t) ## shadow.readAsync(t))   // bytes 4..0
  }
  val orderStore = new SlotStore(Templates)
  val sendStore = new SlotStore(SendSlots)
  def readMeta(st: SlotStore, t: UInt): OrderMeta = {
    val m = OrderMeta()
    val w0 = quasiStatic(st.meta0.readAsync(t)); val w1 = quasiStatic(st.meta1.readAsync(t))
    val w2 = quasiStatic(st.meta2.readAsync(t)); val w3 = quasiStatic(st.meta3.readAsync(t))
    m.len := w0(8 downto 0).asUInt; m.msgWidth := w0(12 downto 9).asUInt
    m.msgOff := w0(20 downto 13).asUInt; m.csOff := w0(29 downto 21).asUInt
    m.stOff := w1(7 downto 0).asUInt; m.stEn := w1(8); m.ttOff := w1(16 downto 9).asUInt; m.ttEn := w1(17)
    m.ipCsum := w2(15 downto 0).asUInt; m.tcpCsum := w2(31 downto 16).asUInt
    m.fixSum := w3.asUInt
    m
  }
  def readMeta(t: UInt): OrderMeta = readMeta(orderStore, t)

  // ---------------------------------------------------------------------------------------------
  // Signals between the domains (declared here, driven in their areas).
  val xFireToggle = quasiStatic(Bool())                     // eth_rx: flips when a record is put in xFireHold (2-flop synchronised)
  val xFireHold = quasiStatic(OrderFireRec(config.early))               // eth_rx: stable until the engine has taken it
  val xFireSeen = Bool()                                    // eth_tx: flips when the engine has taken the record
  val xEnable, xCmdToggle = Bool()                          // sys
  val xCmdOp = quasiStatic(UInt(2 bits))                    // sys: stable while a command is in flight
  val xCmdData = quasiStatic(Bits(36 bits))
  val xMsDiv = quasiStatic(UInt(20 bits))                   // sys: taken by eth_tx at TIME_SET
  val xTemplOk = quasiStatic(Bits(Templates bits))          // sys: static per template (META0 written)
  val xWidth = quasiStatic(Vec(UInt(4 bits), Templates))
  val xSendLenOk = quasiStatic(Bits(SendSlots bits))        // sys: per send slot, LEN in 54..511 (..256 for slot 31)
  val xSendWidthOk = quasiStatic(Bits(SendSlots bits))      // sys: per send slot, MSG_WIDTH in 1..10
  val xStSeq = quasiStatic(UInt(32 bits))                   // sys staging (written while disabled), loaded by eth_tx when enabled
  val xStMsgBin = quasiStatic(UInt(32 bits))
  val xStMsgBcd = quasiStatic(UInt(4 * Digits bits))
  val xStIpId = quasiStatic(UInt(16 bits))
  val xStWin = quasiStatic(UInt(16 bits))
  val xDirty = quasiStatic(Bits(4 bits))                    // which staging registers were written (seq, msg, ip id, window)
  val xIdle, xRunning, xCmdAck = Bool()                     // eth_tx
  val xArmed = Bits(Templates bits)
  val xNextSeq = quasiStatic(UInt(32 bits))                 // eth_tx: read by sys while IDLE (stable then)
  val xNextMsgBin = quasiStatic(UInt(32 bits))
  val xIpId = quasiStatic(UInt(16 bits))
  val xWindow = quasiStatic(UInt(16 bits))
  val xUnderrun, xLogOverrun = Bool()
  val xIgnoredGray, xNotArmedGray, xLogDropsGray, xRxOverflowGray = UInt(16 bits)

  val logFifo = new StreamFifoCC(Bits(32 bits), config.logWords, txCd, sysCd, withPopBufferedReset = false)
  // The send queue crosses as the fires do: a queue in sys, then a hold register + toggle, acknowledged by the
  // engine's `seen` toggle (StreamFifoCC's pop logic, an adder and a Gray compare in eth_tx, was eth_tx's critical
  // path on ECP5).
  val xSendToggle = quasiStatic(Bool())                     // sys: flips when an entry is put in xSendHold (2-flop synchronised)
  val xSendHold = quasiStatic(OrderSendRec())               // sys: stable until the engine has taken it
  val xSendSeen = Bool()                                    // eth_tx: flips when the engine has taken the entry
  val xRxPending = Bool()                                   // eth_rx: a fire is queued or held (2-flop synchronised)

  // ---------------------------------------------------------------------------------------------
  // eth_rx: queue the fires and hand them over one at a time (toggle handshake, data held stable).
  // An idle crossing takes a fire into the hold register at the next edge; otherwise it waits in the
  // queue (full queue: dropped and counted in RX_OVERFLOW).
  val rx = new ClockingArea(rxCd) {
    val aw = log2Up(config.rxQueueDepth)
    val queue = Mem(OrderFireRec(config.early), config.rxQueueDepth)
    val wr = Reg(UInt(aw + 1 bits)) init 0
    val rd = Reg(UInt(aw + 1 bits)) init 0
    val empty = wr === rd
    val full = (wr ^ rd) === (U(1) << aw).resize(aw + 1)
    val toggle = RegInit(False)
    val hold = Reg(OrderFireRec(config.early))
    val seenSync = BufferCC(xFireSeen, False)
    val free = toggle === seenSync
    val incoming = OrderFireRec(config.early)
    incoming.trigger := io.fire.trigger
    incoming.template := io.fire.template
    incoming.ackSeq := io.fire.ackSeq
    incoming.stamp := io.fire.stamp; if (config.early) incoming.early := io.fireEarly
    val head = queue.readAsync(rd(aw - 1 downto 0))
    when(free) {
      when(!empty) { hold := head; rd := rd + 1; toggle := !toggle }
        .elsewhen(io.fire.valid) { hold := incoming; toggle := !toggle }
    }
    val toQueue = io.fire.valid && !(free && empty)
    queue.write(wr(aw - 1 downto 0), incoming, toQueue && !full)
    when(toQueue && !full) { wr := wr + 1 }
    xRxOverflowGray := grayEvents(RegNext(toQueue && full) init False)
    // A fire is on its way to the engine (new, queued, or held and not yet taken): the engine starts no send
    // frame meanwhile, so that a fire queued behind another never waits for one.
    xRxPending := RegNext(io.fire.valid || !empty || !free) init False
    xFireToggle := toggle
    xFireHold := hold
  }

  // ---------------------------------------------------------------------------------------------
  // eth_tx: the engine.
  val tx = new ClockingArea(txCd) {
    val cycle = Reg(UInt(32 bits)) init 0
    cycle := cycle + 1
    val cyclePrev = RegNext(cycle) init 0

    val enable = BufferCC(xEnable, False)
    val enablePrev = RegNext(enable) init False
    xRunning := enablePrev

    // Arrival: the record in xFireHold is new while the synchronised toggle differs from `seen`.
    // xFireHold changed with the toggle, so it has been stable for at least a cycle when `arrived` rises.
    // Two synchroniser flops: tS1, then tS2 (for `arrived`) and, in parallel, the start register startR
    // (see `startNow` below), whose input is tS1 through one level of logic.
    val tS1 = RegNext(xFireToggle) init False
    val tS2 = RegNext(tS1) init False
    val seen = RegInit(False)
    xFireSeen := seen
    val arrived = tS2 =/= seen
    val h = xFireHold
    val tmplH = h.template

    val sending = RegInit(False)          // an order is on the output (from commit to its last byte)
    val settle = Reg(UInt(2 bits)) init 0 // cycles after the enable during which derived registers catch up
    when(settle =/= 0) { settle := settle - 1 }

    // Sequence state (the next order's values).
    val nextSeq = Reg(UInt(32 bits)) init 0
    val nextMsgBin = Reg(UInt(32 bits)) init 1
    val nextMsgBcd = Reg(UInt(4 * Digits bits)) init 1
    val ipId = Reg(UInt(16 bits)) init 0
    val window = Reg(UInt(16 bits)) init 0
    xNextSeq := nextSeq; xNextMsgBin := nextMsgBin; xIpId := ipId; xWindow := window
    val msgSig = Reg(UInt(4 bits)) init 1 // significant digits of nextMsgBcd
    msgSig := 1
    for (k <- 1 until Digits) when(nextMsgBcd.subdivideIn(4 bits)(k) =/= 0) { msgSig := k + 1 }

    // Templates: armed bits (one-shot).
    val armed = Reg(Bits(Templates bits)) init 0
    xArmed := armed

    // Commands from sys (toggle; the data is held until the acknowledgement returns). The acknowledgement
    // leaves one cycle after the command took effect, so that sendH already shows it.
    val cmdSync = BufferCC(xCmdToggle, False)
    val cmdSeen = RegInit(False)
    val cmdNew = cmdSync =/= cmdSeen
    when(cmdNew) { cmdSeen := cmdSync }
    val cmdApply = RegNext(cmdNew) init False   // applied the cycle after (registered decode)
    val cmdOpR = RegNext(xCmdOp)
    xCmdAck := RegNext(RegNext(cmdSeen) init False) init False
    val cmdArmSet = cmdApply && cmdOpR === Cmd.ARM_SET
    val cmdArmClr = cmdApply && cmdOpR === Cmd.ARM_CLR
    val cmdTimeSet = cmdApply && cmdOpR === Cmd.TIME_SET
    // The ACK firmware gives (ACK_SET): once set, orders carry it instead of the parser's, so that an order never
    // acknowledges bytes firmware has not received (the peer would not send them again). Forgotten on disable.
    val fwAck = Reg(UInt(32 bits)) init 0
    val fwAckOn = RegInit(False)
    when(cmdApply && cmdOpR === Cmd.ACK_SET) { fwAck := xCmdData(31 downto 0).asUInt; fwAckOn := True }
    when(!enable) { fwAckOn := False }

    // Time of day (packed BCD HH MM SS sss), one millisecond every msDiv+1 cycles.
    val msDiv = Reg(UInt(20 bits)) init 124999
    val subMs = Reg(UInt(20 bits)) init 0          // counts down msDiv..0
    val time = Reg(UInt(36 bits)) init 0
    val msTick = RegInit(False)                    // registered: the millisecond starts one cycle later, always
    msTick := subMs === 0
    subMs := (subMs === 0) ? msDiv | subMs - 1
    // time + 1 ms, in two register stages (digit flags, then the sum): ready two cycles after any change of
    // `time`, and ticks are MS_DIVISOR + 1 >= 3 cycles apart.
    val timeFlags = RegNext(timeAtMax(time))
    val timePlus1 = RegNext(timeInc(time, timeFlags))
    when(msTick) { time := timePlus1 }
    when(cmdTimeSet) { time := xCmdData.asUInt; subMs := xMsDiv; msDiv := xMsDiv; msTick := False }
    val timeShadow = RegNext(time) init 0

    // What the engine needs to know about the held record's template, registered every cycle (so that the
    // decision and the first byte come from registers). This is safe: the hold register changed with the
    // toggle, at least one eth_tx period before the edge at which the toggle leaves the second flop, and that
    // edge is the one that loads these registers for the arrival cycle. All the decisions use these views
    // (taken at the same edge), so they agree with each other.
    val sendH = RegNext(armed(tmplH) && xTemplOk(tmplH) && xWidth(tmplH) >= msgSig) init False
    val armedH = RegNext(armed(tmplH)) init False
    val templOkH = RegNext(xTemplOk(tmplH)) init False
    val shadowH = RegNext(orderStore.first5(tmplH))   // bytes 0..4
    val metaH = RegNext(readMeta(tmplH))
    // Latched at the commit, for the frame.
    val tmplReg = Reg(UInt(5 bits)) init 0     // the template RAM slot of bytes 0..255
    val tmplNext = Reg(UInt(5 bits)) init 0    // ... and of bytes 256..510 (send frames longer than 256 bytes)
    val shadowR = Reg(Bits(40 bits)) init 0
    val metaR = Reg(OrderMeta())
    val lenM1R = Reg(UInt(9 bits)) init 0
    val patchMsg = RegInit(False)              // patch the MsgSeqNum digits (orders, SEND mode 0)
    val patchCs = RegInit(False)               // patch the FIX CheckSum digits (orders, SEND modes 0 and 1)
    val advMsg = RegInit(False)                // the frame advances the MsgSeqNum (orders, SEND mode 0)
    val advSeqBy = Reg(UInt(10 bits)) init 0   // TCP sequence space the frame takes: payload (+1 for FIN)
    val recKind = RegInit(False)               // the current record is a SEND frame's

    // Fire log writer: pushes the current record's words 0..wAvail-1 in order (see the record layout).
    val wIdx = Reg(UInt(4 bits)) init 0
    val wAvail = Reg(UInt(4 bits)) init 0
    val writerIdle = wAvail === 0
    val pushR = RegInit(False)            // a log word is in the register in front of the FIFO
    val writerFree = writerIdle || (wIdx === 7 && wAvail === 8)   // idle, or pushing the record's last word now
    // Room for the record being written and the next one, with a margin for the three cycles of registers
    // (pushes in those cycles are counted late, at most one word a cycle; pops only make room).
    // (the FIFO's own pushOccupancy decodes the Gray pointer and subtracts in one cycle: its pointers are read
    // here instead, the decode and the difference in two register stages)
    val logPushSide = logFifo.pushCC.asInstanceOf[{ def pushPtr: UInt; def popPtrGray: Bits }]
    val logPopGray = logPushSide.popPtrGray.pull()
    val logPushPtr = logPushSide.pushPtr.pull()
    val logPopPtr = RegNext(Vec((0 until logPopGray.getWidth).map(i =>
      logPopGray(logPopGray.getWidth - 1 downto i).xorR)).asBits.asUInt) init 0
    val logOcc = RegNext((logPushPtr - logPopPtr).resize(log2Up(config.logWords) + 1)) init 0
    val logRoom = RegNext(logOcc <= config.logWords - 3 * RecordWords) init False

    // The decision. `startNow` is the fast path (it drives tx.valid in the same cycle); the other outcomes
    // take the record without sending. Exactly one of them (or waiting) happens per cycle.
    // (not in the cycle CTRL.ENABLE is seen rising: the staged numbers are taken then, `settle` counts from the next)
    val ready2go = RegNext(enable && enablePrev && settle === 0 && logRoom) init False
    // canGo: the engine may start an order in this cycle (not sending, ready2go, the log writer
    // free), a register computed in the previous cycle from values that do not depend on tx.ready: exact, or
    // two cycles late after the end of a frame (the arbiter keeps the output for the engine for three cycles
    // after an order frame, so a queued order still goes next).
    val canGo = RegInit(False)
    // startNow = arrived && canGo && sendH, as a register: it is loaded from tS1 and the next values of `seen`,
    // canGo and sendH (end of the area), so the decision and tx.valid leave from registers. If tS1 resolved
    // from metastability only at the next edge, startR and tS2 may disagree for one cycle: startR without
    // `arrived` still takes the record (recLatch below), `arrived` without startR waits for the next cycle.
    val startR = RegInit(False)
    val startNow = startR
    // recFree = !sending && writerFree, likewise registered: the record registers may be (re)loaded from the
    // held fire (they are then read by nothing but the commit or the suppression that takes the record).
    val recFree = RegInit(False)
    val recLatch = (arrived || startNow) && recFree
    val consumeOther = False
    val suppressNow = False
    val suppressStatus = U(0, St.width bits)
    val incIgnored, incNotArmed, incLogDrops = False
    def suppress(status: Int): Unit = when(recFree) {   // the record registers and the log writer are free
      consumeOther := True
      when(logRoom) { suppressNow := True; suppressStatus := status } otherwise { incLogDrops := True }
    }
    when(!sending && arrived && !startNow) {
      when(!enable) { consumeOther := True; incIgnored := True }
        .elsewhen(!armedH) { consumeOther := True; incNotArmed := True }
        .elsewhen(!templOkH) { suppress(St.SUPPRESSED_TEMPLATE) }
        .elsewhen(!sendH) { suppress(St.SUPPRESSED_WIDTH) }
        .elsewhen(!logRoom) { consumeOther := True; incLogDrops := True }
      // otherwise wait (a cycle or a few after an enable or a log push)
    }
    when(startNow || consumeOther) { seen := !seen }
    xIgnoredGray := grayEvents(RegNext(incIgnored) init False)
    xNotArmedGray := grayEvents(RegNext(incNotArmed) init False)
    xLogDropsGray := grayEvents(RegNext(incLogDrops) init False)

    // ---- The send queue (SEND register writes, from sys through the queue, the hold register and the toggle). The head is taken into sCur; two
    // cycles later its template's views (first word, metadata, checks; registers) are valid (sViewOk). A send
    // frame is committed (sendGo) or logged without sending (sendSkip: bad metadata, MsgSeqNum too wide) only
    // when the engine could start an order (canGo) and no fire is on its way: none in the
    // eth_rx queue or the hold register (rxPending), none in the synchroniser (tS1, tS2 equal to `seen`).
    // Why this never collides with a fire: sendGo/sendSkip in cycle k needs tS1 == seen in cycle k, so `arrived`
    // is false in k+1 and startR is not loaded at the end of k (its input is tS1 =/= seen); from k+1 on, `sending`
    // (sendGo) or suppressR (sendSkip) keeps freeNext, hence canGo and recFree, false until the frame
    // or the record is done. The fast path's registers (startR, canGo, recFree) are untouched by this logic.
    val suppressR = RegInit(False)   // a record without a frame starts its log writer (below)
    val rxPending = BufferCC(xRxPending, False)
    val sPend = RegInit(False)
    val sCur = Reg(OrderSendRec())
    val sAge = Reg(UInt(2 bits)) init 0
    val sToggleSync = BufferCC(xSendToggle, False)
    val sSeen = RegInit(False)
    xSendSeen := sSeen
    // (while disabled or the log is short of room, the entry stays in the crossing: SEND_FREE is exact)
    val sTake = !sPend && sToggleSync =/= sSeen && ready2go
    when(sTake) { sPend := True; sCur := xSendHold; sAge := 0; sSeen := !sSeen } elsewhen (sAge =/= 3) { sAge := sAge + 1 }
    val shadowS = RegNext(sendStore.first5(sCur.slot))
    val metaS = RegNext(readMeta(sendStore, sCur.slot))
    val sLenOkS = RegNext(xSendLenOk(sCur.slot)) init False
    val sWidthOkS = RegNext(xSendWidthOk(sCur.slot)) init False
    val sFitsS = RegNext(metaS.msgWidth >= msgSig) init False
    val sNumber = sCur.mode === SendMode.NUMBER
    // The entry's verdict, registered (valid from sAge 3 on; msgSig changes only while a frame is on the output
    // or in the cycles after an enable, when canGo is false and for longer than these two register stages).
    val sBadR = RegNext(!sLenOkS || (sNumber && !sWidthOkS)) init False
    val sOkR = RegNext(sLenOkS && (!sNumber || (sWidthOkS && sFitsS))) init False
    val sArmR = RegInit(False)   // an entry is waiting and its views and verdict are valid
    // The decision drives only a few registers (sending, sPend, sGoR, suppressR); the frame's commit (the record
    // and datapath registers) happens one cycle later from the register sGoR (sSkipR for a record without a frame).
    // In that cycle `sending` (sendGo) or suppressR (sendSkip) already keeps canGo and recFree off, and no
    // fire can start or be taken (tS1 == seen in the decision cycle: see above); suppressR also keeps sArmR's stale
    // value from taking a second decision.
    val sCan = sArmR && !suppressR && canGo && !sending && !startNow && !rxPending && tS1 === seen && tS2 === seen
    val sendGo = sCan && sOkR
    val sendSkip = sCan && !sOkR
    sArmR := sPend && sAge === 3 && !sendGo && !sendSkip
    when(sendGo || sendSkip) { sPend := False }
    when(sendGo) { sending := True }
    val sGoR = RegNext(sendGo) init False
    val sSkipR = RegNext(sendSkip) init False

    // (a suppression starts the log writer one cycle later: suppressR)
    suppressR := suppressNow || sendSkip
    val suppressStatusR = RegNext(Mux(sendSkip, Mux(sBadR, U(St.SUPPRESSED_TEMPLATE, St.width bits), U(St.SUPPRESSED_WIDTH, St.width bits)), suppressStatus))
    // The staged numbers (written while IDLE) are taken when CTRL.ENABLE is seen rising; the engine starts nothing
    // in that cycle (ready2go) and for `settle` cycles after it, while msgSig and the views catch up.
    when(enable && !enablePrev) {
      settle := 3
      when(xDirty(0)) { nextSeq := xStSeq }
      when(xDirty(1)) { nextMsgBin := xStMsgBin; nextMsgBcd := xStMsgBcd }
      when(xDirty(2)) { ipId := xStIpId }
      when(xDirty(3)) { window := xStWin }
    }

    // The current record: latched when a record is taken (sent or suppressed), kept until the next one.
    val recTmpl = Reg(UInt(5 bits)) init 0
    val recTrig = Reg(UInt(6 bits)) init 0
    val recAck = Reg(UInt(32 bits)) init 0
    val recRxStamp = Reg(UInt(32 bits)) init 0
    val recTxStamp = Reg(UInt(32 bits)) init 0
    val recSeq = Reg(UInt(32 bits)) init 0
    val recMsgBin = Reg(UInt(32 bits)) init 0
    val recMsgBcd = Reg(UInt(4 * Digits bits)) init 0
    val recTime = Reg(UInt(36 bits)) init 0
    val recIpId = Reg(UInt(16 bits)) init 0
    val recWin = Reg(UInt(16 bits)) init 0
    val recPlen = Reg(UInt(8 bits)) init 0
    val recStatus = Reg(UInt(St.width bits)) init 0
    val recNo = Reg(UInt(Hdr.RecNoBits bits)) init 0
    when(recLatch) {   // also when the record is not taken: then nothing reads these
      recTmpl := tmplH.resized; recTrig := h.trigger; recAck := Mux(fwAckOn, fwAck, h.ackSeq); recRxStamp := h.stamp
      recSeq := nextSeq; recMsgBin := nextMsgBin; recMsgBcd := nextMsgBcd; recTime := timeShadow
      recIpId := ipId; recWin := window
      recPlen := (metaH.len - PayloadOff).resize(8)
      tmplReg := tmplH.resized
      shadowR := shadowH
      metaR := metaH
      lenM1R := metaH.len - 1
      recKind := False; patchMsg := True; patchCs := True; advMsg := True
      advSeqBy := (metaH.len - PayloadOff).resize(10)
    }
    // A send frame's record (sent or not): the same registers, from the queue entry and the send ring's views.
    // (sGoR/sSkipR and recLatch never coincide: recLatch needs `arrived` or startNow, and both are false in the
    // cycle after the decision, see the send queue above; sCur, metaS and shadowS still show the entry then.)
    when(sGoR || sSkipR) {
      val plen = (metaS.len - PayloadOff).resize(9)
      recTmpl := U(1, 1 bits) @@ sCur.slot
      recTrig := (U(0, 2 bits) @@ sCur.mode @@ sCur.fin.asUInt @@ plen(8 downto 8))   // [12] plen bit 8, [13] FIN, [15:14] mode
      recAck := sCur.ack; recRxStamp := 0
      recSeq := nextSeq; recMsgBin := nextMsgBin; recMsgBcd := nextMsgBcd; recTime := timeShadow
      recIpId := ipId; recWin := window
      recPlen := plen.resize(8)
      tmplReg := U(1, 1 bits) @@ sCur.slot
      tmplNext := (U(1, 1 bits) @@ sCur.slot) + 1
      shadowR := shadowS
      metaR := metaS
      when(sCur.mode === SendMode.RAW) { metaR.stEn := False; metaR.ttEn := False }
      lenM1R := metaS.len - 1
      recKind := True
      patchMsg := sNumber; patchCs := sCur.mode =/= SendMode.RAW; advMsg := sNumber
      advSeqBy := plen.resize(10) + sCur.fin.asUInt.resize(10)
    }
    when(startNow || sGoR) { recStatus := St.SENT }
    when(suppressR) { recStatus := suppressStatusR }

    // Log words, in push order. Words 0..5 are known at the commit, 6 when byte 0 has left, 7 (the
    // header, with the status) at the end of the frame: a complete record means the template is free again.
    // [7:0] payload length, [11:8] template [3:0], [17:12] trigger (send: [12] plen bit 8, [13] FIN, [15:14] mode),
    // [21:18] status, [25:22] tens of hours, [26] template bit 4 (1: a send frame's record), [31:27] record number.
    val header = recNo.asBits ## recTmpl(4).asBits ## recTime(35 downto 32).asBits ## recStatus.asBits ## recTrig.asBits ##
      recTmpl(3 downto 0).asBits ## recPlen.asBits
    val words = Vec(recSeq.asBits, recAck.asBits, recMsgBin.asBits, recTime(31 downto 0).asBits,
      recWin.asBits ## recIpId.asBits, recRxStamp.asBits, recTxStamp.asBits, header)
    val pushNow = wIdx < wAvail
    // One register stage in front of the crossing FIFO (its push logic then starts from registers).
    pushR := pushNow
    logFifo.io.push.valid := pushR
    logFifo.io.push.payload := RegNext(words(wIdx(2 downto 0)))
    val logOverrun = RegInit(False) setWhen (pushR && !logFifo.io.push.ready)   // never expected (room is checked)
    xLogOverrun := logOverrun
    when(pushNow) {
      wIdx := wIdx + 1
      when(wIdx === 7) { wIdx := 0; wAvail := 0; recNo := recNo + 1 }
    }
    when(suppressR) { wIdx := 0; wAvail := 8; recTxStamp := cyclePrev }   // the stamp: the cycle the fire was taken

    val step = Reg(UInt(4 bits)) init 0
    val calcRun = RegInit(False)
    // Commit: the order's values are taken (recLatch); the next ones are prepared in the following cycle
    // (step 0 below: nothing reads them before the frame has ended).
    // nextMsgBcd + 1 in two register stages (in one, the ten-digit carry was eth_tx's critical path on the
    // 5A-75B, 124.98 MHz): nextMsgBcd changes at an advance (once a frame) or when the engine is enabled (settle
    // keeps the engine from starting for 3 cycles after it), and the next advance comes a frame later.
    val nextMsgBcdInc = bcdIncPiped(nextMsgBcd)
    // (step 0 of the calculation is the cycle after the commit: a register of its own, so that the numbers' enables
    // are one LUT from registers; decoded from step and calcRun it was the 5A-75B's eth_tx critical path, into
    // nextMsgBcd, with the placement of a netlist at 3f7564a, seed 4). The same cycle: the commit sets step 0 and
    // calcRun, and no commit comes while calcRun (a commit needs !sending; a frame outlasts the 14 steps). (Not an HDL
    // assertion: this component's Verilog has none, OrderEngineSpec; the byte-exact orders of OrderEngineSpec and
    // DatapathBenchSpec check the numbers it advances.)
    val advance = RegNext(startNow || sGoR) init False
    when(advance) {
      nextSeq := nextSeq + advSeqBy.resize(32)
      when(advMsg) {
        nextMsgBin := nextMsgBin + 1
        nextMsgBcd := nextMsgBcdInc
      }
      ipId := ipId + 1
    }
    when(startNow) { sending := True }   // (a send frame's: at its decision, sendGo)
    when(startNow || sGoR) {
      wIdx := 0
      wAvail := 6
    }
    // One-shot: the template is disarmed in the cycle after the commit (sendH cannot start it again before the
    // frame has ended anyway). Commands on the armed bits come after that clear (last assignment wins).
    val armedAfterCommit = armed & ~((advance && !recKind) ? UIntToOh(tmplReg(3 downto 0), Templates) | B(0, Templates bits))
    armed := armedAfterCommit
    when(cmdArmSet) { armed := armedAfterCommit | xCmdData(Templates - 1 downto 0) }
    when(cmdArmClr) { armed := armedAfterCommit & ~xCmdData(Templates - 1 downto 0) }

    // ---- Patch values, computed in the cycles after the commit (steps 0..13).
    val ipDone = RegInit(False)
    val tcpDone = RegInit(False)
    val ipAcc = Reg(UInt(17 bits)) init 0
    val ipCsumR = Reg(UInt(16 bits)) init 0
    val tcpAcc = Reg(UInt(17 bits)) init 0
    val tcpCsumR = Reg(UInt(16 bits)) init 0
    val msgE, msgO, tA, tB = Reg(UInt(6 bits)) init 0   // digit sums (<= 45)
    val msgEp, msgOp, tAp, tBp = Reg(UInt(6 bits)) init 0   // their first three (two) digits, a step earlier
    val fixSum, fixA, tSumR = Reg(UInt(8 bits)) init 0
    val csH = Reg(UInt(4 bits)) init 0
    val csRem = Reg(UInt(7 bits)) init 0
    val csT = Reg(UInt(4 bits)) init 0
    val csO = Reg(UInt(4 bits)) init 0
    val md = recMsgBcd.subdivideIn(4 bits)
    val td = recTime.subdivideIn(4 bits)
    def sum(xs: Seq[UInt]): UInt = xs.map(_.resize(6 bits)).reduce(_ + _)
    def word(hi: UInt, lo: UInt): UInt = (hi.resize(8 bits) ## lo.resize(8 bits)).asUInt
    // A digit's '0' placeholder becoming '0'+d adds d to its 16-bit word: d << 8 at an even frame offset
    // (TCP starts at 34: even offsets are high bytes), d at an odd one.
    val msgPar = metaR.msgOff(0) ^ !metaR.msgWidth(0)   // parity of the offset of digit 0 (the last one)
    val msgContrib = msgPar ? word(msgO, msgE) | word(msgE, msgO)
    val tContribEven = word(tA, tB)                     // time field at an even offset: HH tens is a high byte
    val stContrib = metaR.stEn ? (metaR.stOff(0) ? word(tB, tA) | tContribEven) | U(0, 16 bits)
    val ttContrib = metaR.ttEn ? (metaR.ttOff(0) ? word(tB, tA) | tContribEven) | U(0, 16 bits)
    val csOuter = csH.resize(5 bits) + csO.resize(5 bits)
    val csContrib = patchCs ? (metaR.csOff(0) ? word(csT, csOuter) | word(csOuter, csT)) | U(0, 16 bits)
    val tSum = tA.resize(8 bits) + tB.resize(8 bits)
    def acc(term: UInt): Unit = tcpAcc := tcpAcc(15 downto 0).resize(17) + term.resize(17) + tcpAcc(16).asUInt.resize(17)

    // The TCP checksum terms go through a register (termR) one step ahead of the accumulation. The digit fields'
    // contributions are registered every cycle first, so that termR selects among registers (the select through
    // their logic was the 5A-75B's eth_tx critical path): each is stable a step before termR takes it (msg, st, tt
    // from step 1's sums at step 3, taken at 6..8; cs from step 6's csO at step 8, taken at 9).
    val msgContribR, stContribR, ttContribR, csContribR = Reg(UInt(16 bits)) init 0
    msgContribR := msgContrib; stContribR := stContrib; ttContribR := ttContrib; csContribR := csContrib
    val termR = Reg(UInt(16 bits)) init 0
    termR := step.muxList(U(0, 16 bits), Seq(1 -> recSeq(31 downto 16), 2 -> recSeq(15 downto 0), 3 -> recAck(31 downto 16),
      4 -> recAck(15 downto 0), 5 -> recWin, 6 -> msgContribR, 7 -> stContribR, 8 -> ttContribR, 9 -> csContribR))
    when(startNow || sGoR) { step := 0; calcRun := True; ipDone := False; tcpDone := False }
    when(calcRun) {
      step := step + 1
      switch(step) {
        // The digit sums in two steps of at most three terms each: as one chain of four adders, the MsgSeqNum's
        // was eth_tx's critical path on the i5 (8.06 ns for 8). The FIX CheckSum digits are still done at step 6,
        // three steps before the TCP checksum takes them (termR at 9).
        is(0) {
          ipAcc := (~metaR.ipCsum).resize(17) + recIpId.resize(17)
          msgEp := sum(Seq(0, 2, 4).map(md(_)))
          msgOp := sum(Seq(1, 3, 5).map(md(_)))
          tAp := sum(Seq(8, 5).map(td(_)))           // chars 0, 4 of HH:MM:SS.sss
          tBp := sum(Seq(7, 6, 3).map(td(_)))        // chars 1, 3, 7
          tcpAcc := (~metaR.tcpCsum).resize(17)
        }
        is(1) {
          ipCsumR := ~(ipAcc(15 downto 0) + ipAcc(16).asUInt.resize(16))
          ipDone := True
          msgE := patchMsg ? sum(Seq(msgEp, md(6), md(8))) | U(0, 6 bits)   // (0: the message keeps its digits)
          msgO := patchMsg ? sum(Seq(msgOp, md(7), md(9))) | U(0, 6 bits)
          tA := sum(Seq(tAp, td(4), td(1)))          // + chars 6, 10
          tB := sum(Seq(tBp, td(2), td(0)))          // + chars 9, 11
        }
        is(2) {
          fixA := metaR.fixSum + msgE.resize(8) + msgO.resize(8)
          tSumR := tSum
          acc(termR)   // seq high
        }
        is(3) {
          fixSum := fixA + (metaR.stEn ? tSumR | U(0, 8 bits)) + (metaR.ttEn ? tSumR | U(0, 8 bits))
          acc(termR)   // seq low
        }
        is(4) {
          when(fixSum >= 200) { csH := 2; csRem := (fixSum - 200).resize(7) }
            .elsewhen(fixSum >= 100) { csH := 1; csRem := (fixSum - 100).resize(7) }
            .otherwise { csH := 0; csRem := fixSum.resize(7) }
          acc(termR)   // ack high
        }
        is(5) {
          csT := 0
          for (k <- 1 to 9) when(csRem >= 10 * k) { csT := k }
          acc(termR)   // ack low
        }
        is(6) { csO := (csRem - ((csT.resize(7) |<< 3) + (csT.resize(7) |<< 1))).resize(4); acc(termR) }   // window
        // 7: MsgSeqNum digits, 8: SendingTime, 9: TransactTime, 10: CheckSum digits,
        // 11, 12: fold the end-around carry (twice: 0x1FFFF -> 0x10000 -> 0x0001)
        for (k <- 7 to 12) is(k) { acc(termR) }
        is(13) { tcpCsumR := ~tcpAcc(15 downto 0); tcpDone := True; calcRun := False }
      }
    }

    // ---- Byte pipeline: issue (address) -> s1 (RAM read register) -> s1b (RAM output register) -> s2 (registers,
    // patch) -> obuf.
    val obMem = Vec(Reg(Bits(9 bits)), config.obufDepth)
    val obAw = log2Up(config.obufDepth)
    val obWr = Reg(UInt(obAw bits)) init 0
    val obRd = Reg(UInt(obAw bits)) init 0
    val obCount = Reg(UInt(obAw + 1 bits)) init 0
    val ipos = Reg(UInt(9 bits)) init 0   // next position to issue
    val s1Valid = RegInit(False)
    val s1bValid = RegInit(False)
    val s2Valid = RegInit(False)
    // Credit, registered: obuf can take what is in flight plus one more. From the values one cycle earlier,
    // obCount + s1 + s1b + s2 now <= obCount' + s2' + s1b' + s1' + issue' <= depth - 2 (pops only make room).
    val issue = Bool()
    val credit = RegNext((obCount + s1Valid.asUInt.resize(obAw + 1) + s1bValid.asUInt.resize(obAw + 1) +
      s2Valid.asUInt.resize(obAw + 1) + issue.asUInt.resize(obAw + 1)) <= config.obufDepth - 2) init False
    val issueMore = RegInit(False)        // ipos < the frame length
    // No interlock with the checksum computation: it runs one step per cycle from the commit and ends
    // (ipDone: 3 cycles, tcpDone: 15 cycles after it) before the issue, at most one byte per cycle from
    // byte 5 at the commit, can reach byte 24 (19 cycles) or byte 50 (45 cycles).
    val issueSend = sending && issueMore && credit
    issue := startNow || issueSend        // the commit cycle issues byte 5 (bytes 0..4 come from the shadow)
    val issuePos = sending ? ipos | U(5, 9 bits)
    when(startNow) { ipos := 6; issueMore := True }
    when(sGoR) { ipos := 5; issueMore := True }   // a send frame's bytes 0..4 come from shadowR, byte 5 is issued next cycle
    when(issueSend) { ipos := ipos + 1; issueMore := ipos =/= lenM1R }
    // Bytes 256.. of a send frame are in the next slot.
    val issueSlot = sending ? (ipos(8) ? tmplNext | tmplReg) | (U(0, 1 bits) @@ tmplH)
    templRam.io.addrb := issueSlot @@ issuePos(7 downto 2)
    val s1bWord = templRam.io.dob          // two cycles after the issue (the RAM's read and output registers)
    s1Valid := issue
    s1bValid := s1Valid
    val s1Pos = RegNext(issuePos) init 0
    val s1Last = RegNext(sending && ipos === lenM1R) init False

    // Patches, in three steps so that each stage stays shallow: at the issue, where the position falls
    // (fixed field byte, or index into a digit field); at s1, each field's candidate byte; at s2, the choice.
    val pI = ipos                         // the commit cycle's issue (byte 5) is never patched
    val fixedBytes: Seq[(Int, Bits)] = Seq((IpIdOff, recIpId), (IpCsumOff, ipCsumR), (TcpSeqOff, recSeq),
      (TcpAckOff, recAck), (TcpWinOff, recWin), (TcpCsumOff, tcpCsumR)).flatMap { case (off, v) =>
      val n = v.getWidth / 8
      (0 until n).map(i => (off + i, v.asBits(8 * (n - 1 - i) + 7 downto 8 * (n - 1 - i))))
    }
    val fixIdx = U(0, 5 bits)
    for (((pos, _), k) <- fixedBytes.zipWithIndex) when(pI === pos) { fixIdx := k + 1 }
    // Position relative to each digit field (ipos - offset, 9 bits, negative before the field), counted
    // alongside ipos from the commit (when ipos becomes 6).
    val rel = Seq.fill(4)(Reg(UInt(9 bits)) init 0)
    val Seq(dM, dS, dT, dC) = rel
    for ((r, off) <- rel.zip(Seq(metaH.msgOff, metaH.stOff, metaH.ttOff, metaH.csOff))) {
      when(startNow) { r := U(6, 9 bits) - off.resize(9) }
      when(issueSend) { r := r + 1 }
    }
    for ((r, off) <- rel.zip(Seq(metaS.msgOff, metaS.stOff, metaS.ttOff, metaS.csOff)))
      when(sGoR) { r := U(5, 9 bits) - off.resize(9) }
    def within(d: UInt, n: Int): Bool = d(8 downto 4) === 0 && d(3 downto 0) < n
    def isTimeDigit(rel: UInt): Bool = timeCharDigit.map { case (c, _) => rel === c }.reduce(_ || _)
    val s1Fix = RegNext(sending ? fixIdx | U(0, 5 bits)) init 0
    val s1InM = RegNext(sending && patchMsg && dM(8 downto 4) === 0 && dM(3 downto 0) < metaR.msgWidth) init False
    val s1MIdx = RegNext((metaR.msgWidth - 1 - dM(3 downto 0)).resize(4)) init 0
    val s1InS = RegNext(sending && metaR.stEn && within(dS, 12) && isTimeDigit(dS(3 downto 0))) init False
    val s1SRel = RegNext(dS(3 downto 0)) init 0
    val s1InT = RegNext(sending && metaR.ttEn && within(dT, 12) && isTimeDigit(dT(3 downto 0))) init False
    val s1TRel = RegNext(dT(3 downto 0)) init 0
    val s1InC = RegNext(sending && patchCs && within(dC, 3)) init False
    val s1CRel = RegNext(dC(1 downto 0)) init 0

    def digitChar(d: UInt): Bits = B"4'x3" ## d.asBits
    def timeDigit(rel: UInt): UInt = rel.muxList(U(0, 4 bits), timeCharDigit.map { case (c, k) => c -> td(k) })
    // s1b: the patch candidates are chosen here, in the cycle the RAM's output register holds the word.
    val s1bPos = RegNext(s1Pos(1 downto 0)) init 0
    val s1bLast = RegNext(s1Last) init False
    val s1bFix = RegNext(s1Fix) init 0
    val s1bInM = RegNext(s1InM) init False
    val s1bMIdx = RegNext(s1MIdx) init 0
    val s1bInS = RegNext(s1InS) init False
    val s1bSRel = RegNext(s1SRel) init 0
    val s1bInT = RegNext(s1InT) init False
    val s1bTRel = RegNext(s1TRel) init 0
    val s1bInC = RegNext(s1InC) init False
    val s1bCRel = RegNext(s1CRel) init 0
    s2Valid := s1bValid
    val s2Word = RegNext(s1bWord)
    val s2Lane = RegNext(s1bPos)
    val s2Last = RegNext(s1bLast)
    val s2Fix = RegNext(s1bFix =/= 0) init False
    val s2FixB = RegNext(s1bFix.muxList(B(0, 8 bits), fixedBytes.zipWithIndex.map { case ((_, b), k) => (k + 1) -> b }))
    val s2InM = RegNext(s1bInM) init False
    val s2MsgB = RegNext(digitChar(md(s1bMIdx)))
    val s2InS = RegNext(s1bInS) init False
    val s2StB = RegNext(digitChar(timeDigit(s1bSRel)))
    val s2InT = RegNext(s1bInT) init False
    val s2TtB = RegNext(digitChar(timeDigit(s1bTRel)))
    val s2InC = RegNext(s1bInC) init False
    val s2CsB = RegNext(digitChar(s1bCRel.mux(0 -> csH, 1 -> csT, default -> csO)))
    val s2Byte = Bits(8 bits)
    when(s2Fix) { s2Byte := s2FixB }
      .elsewhen(s2InM) { s2Byte := s2MsgB }
      .elsewhen(s2InS) { s2Byte := s2StB }
      .elsewhen(s2InT) { s2Byte := s2TtB }
      .elsewhen(s2InC) { s2Byte := s2CsB }
      .otherwise { s2Byte := s2Word.subdivideIn(8 bits)(s2Lane) }
    when(s2Valid) { obMem(obWr) := s2Last ## s2Byte; obWr := obWr + 1 }
    val obHead = obMem(obRd)
    val obPop = False
    when(obPop) { obRd := obRd + 1 }
    obCount := obCount + s2Valid.asUInt.resize(obAw + 1) - obPop.asUInt.resize(obAw + 1)

    // ---- Output register. Byte 0 goes out combinationally in the commit cycle (from shadowH); when it is not taken
    // then, and for a send frame, it is offered from shadowR (oB0). oData holds the byte after it: 1..4 from the
    // shadow, 5.. from obuf. Valid stays high until `last` is taken.
    // oData, oLast and oPos are loaded through their flip-flops' enables only: what they load does not depend on
    // the MAC's ready (through the arbiter), which reaches only the enables, one LUT away. (With the ready choosing
    // between byte 0 and byte 1 in the commit cycle, synthesis put it in front of the byte multiplexers behind:
    // five LUT levels, eth_tx's critical path on the 5A-75B at 483000b, 123.70 and 120.08 MHz on seeds 1 and 4.)
    val oValid = RegInit(False)
    val oB0 = RegInit(False)              // byte 0 on offer (from shadowR), oData holds byte 1
    val oData = Reg(Bits(8 bits)) init 0
    val oLast = RegInit(False)
    val oPos = Reg(UInt(3 bits)) init 0   // position of the byte in oData, 1..4; 4 also for the bytes from obuf
    val underrun = RegInit(False)         // sticky: obuf empty when a byte was due (never expected)
    xUnderrun := underrun
    // The output: one LUT level from registers (startNow is the register startR, shadowH holds the held
    // template's first bytes).
    io.tx.valid := oValid || startNow
    io.tx.fragment := oValid ? (oB0 ? shadowR(7 downto 0) | oData) | shadowH(7 downto 0)
    io.tx.last := oValid && oLast
    val oStart = startNow || sGoR
    val oTake = oValid && io.tx.ready && !oB0 && !oLast   // oData's byte taken, and more follow
    val oNext = !oPos(2) ? Vec(shadowR.subdivideIn(8 bits).drop(1))(oPos(1 downto 0)) | obHead(7 downto 0)
    when(oStart || oTake) {
      oData := startNow ? shadowH(15 downto 8) | (sGoR ? shadowS(15 downto 8) | oNext)
      oLast := !oStart && oPos(2) && obHead(8)
      oPos := oStart ? U(1, 3 bits) | (oPos(2) ? U(4, 3 bits) | oPos + 1)
    }
    when(startNow) { oValid := True; oB0 := !io.tx.ready }
    when(sGoR) { oValid := True; oB0 := True }   // a send frame: byte 0 is offered from the next cycle on
    when(oValid && io.tx.ready) {
      when(oB0) { oB0 := False }
        .elsewhen(oLast) { oValid := False; sending := False }
    }
    // (oB0 and oLast are never both set: a start clears oLast, and oLast is loaded only with oData's byte taken.)
    // Byte 0 taken (tx stamp, log word 6) and last byte taken (log word 7): acted on one cycle later, from
    // registers. The stamp is the first cycle the MAC sees the order's byte 0 valid: behind
    // OrderEngineTxArbiter that is the cycle after the arbiter took it (its output register; its skid register
    // takes it at once when the MAC stalls), i.e. the cycle byte0Taken is high.
    assert(OrderEngineTxArbiter.Latency == 1)
    val byte0Taken = RegNext(io.tx.ready && (startNow || (oValid && oB0))) init False
    val lastTaken = RegNext(io.tx.ready && oValid && oLast) init False
    when(byte0Taken) { recTxStamp := cycle; wAvail := 7 }
    when(lastTaken) { wAvail := 8 }
    val underrunNow = False
    when(RegNext(underrunNow) init False) { underrun := True }
    when(oTake && oPos(2)) {
      obPop := True
      when(obCount === 0) { underrunNow := True }
    }

    val freeNext = !sending && !startNow && !suppressNow && !suppressR && writerFree   // => !sending and writerFree in the next cycle
    canGo := freeNext && ready2go.getAheadValue()
    // Idle: disabled, no frame on the output or being prepared, every record pushed into the log's FIFO.
    xIdle := RegNext(!enable && !enablePrev && !sending && !startNow && !sGoR && !sSkipR && !calcRun && writerIdle &&
      !pushR && !suppressNow && !suppressR) init False
    recFree := freeNext
    startR := (tS1 =/= seen.getAheadValue()) && canGo.getAheadValue() && sendH.getAheadValue()
  }

  // ---------------------------------------------------------------------------------------------
  // sys: bus decode, registers, staging, commands.
  // 0x0000..0x03FF registers, 0x0400..0x05FF metadata (write only), 0x2000..0x3FFF templates.
  val regBus = PipelinedMemoryBus(PipelinedMemoryBusConfig(addressWidth = 10, dataWidth = 32))
  val selTempl = io.bus.cmd.address(13)
  val selMeta = !io.bus.cmd.address(13) && io.bus.cmd.address(12 downto 10) === 1
  val selRegs = !selTempl && !selMeta
  regBus.cmd.valid := io.bus.cmd.valid && selRegs
  regBus.cmd.write := io.bus.cmd.write
  regBus.cmd.address := io.bus.cmd.address(9 downto 0)
  regBus.cmd.data := io.bus.cmd.data
  regBus.cmd.mask := io.bus.cmd.mask
  io.bus.cmd.ready := !selRegs || regBus.cmd.ready
  val factory = new PipelinedMemoryBusSlaveFactory(regBus)
  val regs = new RegMap("ORDER_TX", "stop-order offload: order engine (templates, sequence numbers, fire log)", factory)

  // whole words (byte masks ignored): one 2048 x 32 RAM, four block RAMs
  templRam.io.addra := io.bus.cmd.address(12 downto 2)
  templRam.io.dia := io.bus.cmd.data
  templRam.io.ena := io.bus.cmd.fire && selTempl
  templRam.io.wea := io.bus.cmd.write
  val templRead = templRam.io.doa
  // The first five bytes of every slot are kept in LUT RAMs too (the engine sends them while the template RAM's
  // pipeline fills): word 0 whole, byte 4 of word 1.
  val tWrite = io.bus.cmd.fire && io.bus.cmd.write && selTempl
  for ((st, sendRing) <- Seq((orderStore, False), (sendStore, True))) {
    val mine = tWrite && io.bus.cmd.address(12) === sendRing
    st.shadow.write(io.bus.cmd.address(11 downto 8), io.bus.cmd.data, enable = mine && io.bus.cmd.address(7 downto 2) === 0)
    st.shadow4.write(io.bus.cmd.address(11 downto 8), io.bus.cmd.data(7 downto 0), enable = mine && io.bus.cmd.address(7 downto 2) === 1)
  }
  val readFire = io.bus.cmd.fire && !io.bus.cmd.write
  val rspTempl = RegNextWhen(selTempl, readFire) init False
  val rspMeta = RegNextWhen(selMeta, readFire) init False
  io.bus.rsp.valid := RegNext(readFire) init False
  io.bus.rsp.data := rspTempl ? templRead | (rspMeta ? B(0, 32 bits) | regBus.rsp.data)

  val sys = new Area {
    regs.ro("CONFIG", 0x000, "build parameters",
      U(Slots, 6 bits) -> RegField("TEMPLATES", 0, 6, "number of template slots: 0..15 armable orders, 16..31 the send ring"),
      U(log2Up(TemplateBytes), 4 bits) -> RegField("TEMPLATE_LOG2", 8, 4, "log2 of the bytes per template (template t is at TEMPLATE + (t << TEMPLATE_LOG2))"),
      U(config.logRecords, 16 bits) -> RegField("LOG_RECORDS", 16, 16, "fire log capacity in records"))

    val enable = RegInit(False)
    val irqEn = RegInit(False)
    regs.rwFields("CTRL", 0x004, "control (bits 1 and 2 are unused)",
      (enable, RegField("ENABLE", 0, 1, "send orders on fires and send frames (0: fires are ignored and counted in IGNORED, send frames wait); the engine takes the NEXT_* values written while it was idle when it sees ENABLE rise"), true),
      (irqEn, RegField("IRQ_EN", 3, 1, "interrupt while a fire log record is waiting"), true))
    val convBusy = RegInit(False)
    xEnable := enable && !convBusy   // (NEXT_MSGSEQ's digits are ready before the engine takes them)

    // Deeper than the log FIFO's pointer synchroniser: once IDLE reads 1, every record pushed before the engine
    // went idle is visible in LOG_COUNT, whatever the clock ratio. RUNNING falls before IDLE rises (xIdle is
    // registered after !enablePrev), so a NEXT_* write, accepted only while IDLE, never sees a stale RUNNING.
    val idleSync = BufferCC(xIdle, False, bufferDepth = Some(4))
    val runningSync = BufferCC(xRunning, False, bufferDepth = Some(4))
    val idleNow = !enable && idleSync
    val cmdToggle = RegInit(False)
    val cmdAckSync = BufferCC(xCmdAck, False)
    val cmdBusy = cmdToggle =/= cmdAckSync
    val dirty = Reg(Bits(4 bits)) init 0   // NEXT_* written since the engine last took them
    when(enable && runningSync) { dirty := 0 }

    val refused = RegInit(False)
    regs.ro("STATUS", 0x008, "status",
      idleNow -> RegField("IDLE", 0, 1, "CTRL.ENABLE is 0 and the engine is idle: no frame in flight, none will start, every record is in the log; NEXT_* may be read and written"),
      cmdBusy -> RegField("CMD_BUSY", 1, 1, "an ARM_SET/ARM_CLR/TIME_SET/ACK_SET command is in flight (another one is refused)"),
      convBusy -> RegField("CONVERTING", 2, 1, "NEXT_MSGSEQ is being converted to digits (about 32 cycles; the engine is enabled after it)"),
      refused -> RegField("REFUSED", 4, 1, "sticky: a write was refused (NEXT_* while not IDLE, a command while CMD_BUSY, SEND while the queue is full or with a bad slot or mode)"),
      BufferCC(xUnderrun, False) -> RegField("UNDERRUN", 5, 1, "sticky: the output ran dry inside a frame (never expected)"),
      BufferCC(xLogOverrun, False) -> RegField("LOG_OVERRUN", 6, 1, "sticky: a log word was lost (never expected)"),
      runningSync -> RegField("RUNNING", 7, 1, "the engine is enabled and has taken the NEXT_* values written before CTRL.ENABLE"))
    val statusClr = regs.writeFlow("STATUS_CLR", 0x00C, 32, "write 1 to bit 4 to clear STATUS.REFUSED")
    when(statusClr.valid && statusClr.payload(4)) { refused := False }

    // Staging of the sequence state (written while IDLE, taken by the engine when it sees CTRL.ENABLE rise).
    val stSeq = Reg(UInt(32 bits)) init 0
    val stMsgBin = Reg(UInt(32 bits)) init 0
    val stIpId = Reg(UInt(16 bits)) init 0
    val stWin = Reg(UInt(16 bits)) init 0
    val convBin = Reg(UInt(32 bits)) init 0
    val convBcd = Reg(UInt(4 * Digits bits)) init 0
    val convCnt = Reg(UInt(6 bits)) init 0
    xStSeq := stSeq; xStMsgBin := stMsgBin; xStMsgBcd := convBcd; xStIpId := stIpId; xStWin := stWin; xDirty := dirty
    def staged(name: String, offset: Int, width: Int, st: UInt, current: UInt, bit: Int, doc: String): Flow[Bits] = {
      regs.rwFields(name, offset, doc + " (read: the staged value if written since the engine last ran, else the engine's; " +
        "meaningful while IDLE; write: only while IDLE, else refused)",
        ((dirty(bit) ? st | current).resize(width bits), RegField(name, 0, width, doc), false))
      val w = factory.createAndDriveFlow(Bits(32 bits), offset)
      when(w.valid) {
        when(idleNow) { st := w.payload.asUInt.resized; dirty(bit) := True } otherwise { refused := True }
      }
      w
    }
    staged("NEXT_SEQ", 0x010, 32, stSeq, xNextSeq, 0, "TCP sequence number of the next order")
    val msgWrite = staged("NEXT_MSGSEQ", 0x014, 32, stMsgBin, xNextMsgBin, 1, "FIX MsgSeqNum of the next order")
    staged("IP_ID", 0x018, 16, stIpId, xIpId, 2, "IPv4 identification of the next order")
    staged("WINDOW", 0x01C, 16, stWin, xWindow, 3, "TCP window sent with the orders")
    // Binary -> BCD (double dabble, one bit per cycle).
    when(msgWrite.valid && idleNow) {
      convBin := msgWrite.payload.asUInt; convBcd := 0; convCnt := 32; convBusy := True
    }.elsewhen(convBusy) {
      val adj = Vec(convBcd.subdivideIn(4 bits).map(d => Mux(d >= 5, d + 3, d)))
      convBcd := (adj.asBits.asUInt ## convBin.msb).asUInt.resize(4 * Digits)
      convBin := convBin |<< 1
      convCnt := convCnt - 1
      when(convCnt === 1) { convBusy := False }
    }

    // Commands.
    val cmdOp = Reg(UInt(2 bits)) init 0
    val cmdData = Reg(Bits(36 bits)) init 0
    xCmdToggle := cmdToggle; xCmdOp := cmdOp; xCmdData := cmdData
    def command(op: Int, data: Bits): Unit = when(!cmdBusy) {
      cmdOp := op; cmdData := data.resized; cmdToggle := !cmdToggle
    } otherwise { refused := True }
    val armedSync = BufferCC(xArmed, B(0, Templates bits))
    regs.ro("ARMED", 0x020, armedSync, "templates armed (one-shot: sending an order clears its bit)")
    val armSet = regs.writeFlow("ARM_SET", 0x024, Templates, "write a mask: arm these templates (command: check CMD_BUSY first)")
    when(armSet.valid) { command(Cmd.ARM_SET, armSet.payload) }
    val armClr = regs.writeFlow("ARM_CLR", 0x028, Templates, "write a mask: disarm these templates (command; a fire that reaches the engine after it is counted in NOT_ARMED)")
    when(armClr.valid) { command(Cmd.ARM_CLR, armClr.payload) }
    val msDiv = Reg(UInt(20 bits)) init 124999
    xMsDiv := msDiv
    regs.rw("MS_DIVISOR", 0x02C, msDiv, "eth_tx cycles per millisecond minus 1, at least 2 (taken by TIME_SET)")
    val timeLo = Reg(Bits(32 bits)) init 0
    regs.rw("TIME_LO", 0x030, timeLo, "time of day to set, packed BCD: [31:28] H ones, [27:20] MM, [19:12] SS, [11:0] sss")
    val timeSet = regs.writeFlow("TIME_SET", 0x034, 4, "write the tens of hours (BCD digit): sets the engine's time to it and TIME_LO, restarts the millisecond (command)")
    when(timeSet.valid) { command(Cmd.TIME_SET, timeSet.payload ## timeLo) }
    val ackSet = regs.writeFlow("ACK_SET", 0x038, 32, "write: orders carry this TCP ACK from now on instead of the receive parser's (command; forgotten when CTRL.ENABLE is 0)")
    when(ackSet.valid) { command(Cmd.ACK_SET, ackSet.payload) }

    // Fire log.
    val pop = logFifo.io.pop
    val logWordsWaiting = logFifo.io.popOccupancy
    val logRecords = (logWordsWaiting >> 3).resize(16)
    regs.ro("LOG_COUNT", 0x040, logRecords, "complete fire log records waiting (read 8 words of LOG_DATA per record)")
    regs.ro("LOG_DATA", 0x044, pop.valid ? pop.payload | B(0, 32 bits), "read: the next fire log word (removed); 0 when empty")
    pop.ready := regs.isReading(0x044)
    io.interrupt := RegNext(irqEn && logRecords =/= 0) init False

    // Counters (eth_rx/eth_tx Gray counters, synchronised).
    def counter(name: String, offset: Int, gray: UInt, doc: String): Unit =
      regs.ro(name, offset, fromGray(BufferCC(gray.asBits, B(0, 16 bits))), doc + " (16 bits, wrapping)")
    counter("IGNORED", 0x050, xIgnoredGray, "fires ignored because CTRL.ENABLE was 0")
    counter("NOT_ARMED", 0x054, xNotArmedGray, "fires for a template that was not armed (not logged)")
    counter("LOG_DROPS", 0x058, xLogDropsGray, "fires dropped (not sent, not logged) because the log was full")
    counter("RX_OVERFLOW", 0x05C, xRxOverflowGray, "fires dropped because the eth_rx fire queue was full")

    // Metadata window: template t at META + 16 t, words META0..META3 (32-bit writes; reads return 0).
    val metaWrite = io.bus.cmd.fire && io.bus.cmd.write && selMeta
    val mt = io.bus.cmd.address(7 downto 4)
    val mSend = io.bus.cmd.address(8)   // templates 16..31
    val mw = io.bus.cmd.address(3 downto 2)
    val d = io.bus.cmd.data
    val templOk = Reg(Bits(Templates bits)) init 0
    val width = Vec(Reg(UInt(4 bits)) init 0, Templates)
    val sendLenOk = Reg(Bits(SendSlots bits)) init 0
    val sendWidthOk = Reg(Bits(SendSlots bits)) init 0
    xTemplOk := templOk
    xWidth := width
    xSendLenOk := sendLenOk
    xSendWidthOk := sendWidthOk
    when(metaWrite && mw === 0) {
      val len = d(8 downto 0).asUInt
      val w = d(15 downto 12).asUInt
      when(!mSend) {
        templOk(mt) := len >= MinLen && len <= TemplateBytes && w >= 1 && w <= Digits
        width(mt) := w
      } otherwise {   // the last slot cannot spill into a next one
        sendLenOk(mt) := len >= SendMinLen && len <= Mux(mt === SendSlots - 1, U(TemplateBytes, 9 bits), U(SendMaxLen, 9 bits))
        sendWidthOk(mt) := w >= 1 && w <= Digits
      }
    }
    // META0: CSUM_OFF bit 8 is META0 bit 9 (send frames longer than 256 bytes).
    for ((st, sel) <- Seq((orderStore, !mSend), (sendStore, mSend))) {
      st.meta0.write(mt, d(9) ## d(31 downto 12) ## d(8 downto 0), metaWrite && sel && mw === 0)
      st.meta1.write(mt, d(24 downto 16) ## d(8 downto 0), metaWrite && sel && mw === 1)
      st.meta2.write(mt, d, metaWrite && sel && mw === 2)
      st.meta3.write(mt, d(7 downto 0), metaWrite && sel && mw === 3)
    }

    // The send queue: SEND_ACK, then SEND puts {slot, mode, FIN, SEND_ACK} in the queue (refused when full); the
    // head goes to the hold register and crosses to eth_tx by toggle. Capacity SendDepth: the queue's entries
    // and the hold register (while it waits for the engine) together.
    val sendAck = Reg(UInt(32 bits)) init 0
    regs.rw("SEND_ACK", 0x060, sendAck, "the TCP ACK number the next SEND frame carries")
    val qAw = log2Up(SendDepth)
    val sendMem = Mem(OrderSendRec(), SendDepth)
    val qWr = Reg(UInt(qAw + 1 bits)) init 0
    val qRd = Reg(UInt(qAw + 1 bits)) init 0
    val sHold = Reg(OrderSendRec())
    val sToggle = RegInit(False)
    val sSeenSync = BufferCC(xSendSeen, False)
    val holdFree = sToggle === sSeenSync
    xSendToggle := sToggle
    xSendHold := sHold
    when(holdFree && qWr =/= qRd) { sHold := sendMem.readAsync(qRd(qAw - 1 downto 0)); qRd := qRd + 1; sToggle := !sToggle }
    val outstanding = (qWr - qRd).resize(qAw + 2) + (!holdFree).asUInt.resize(qAw + 2)
    val sendFree = (U(SendDepth, qAw + 2 bits) - outstanding)
    val push = Flow(OrderSendRec())
    regs.ro("SEND_FREE", 0x064, sendFree, "free entries in the send queue (SEND writes that will be taken)")
    val sendW = regs.writeFlowFields("SEND", 0x068, "queue a send-ring template (see README-tx.md \"Send queue\")",
      RegField("SLOT", 0, 5, "template slot, 16..31 (others refused)"),
      RegField("MODE", 8, 2, "0: the engine numbers MsgSeqNum; 1: the message keeps its own; 2: no FIX patching (3 refused)"),
      RegField("FIN", 12, 1, "the segment carries FIN: the TCP sequence advances by one more"))
    val sSlot = sendW.payload(4 downto 0).asUInt
    val sMode = sendW.payload(9 downto 8).asUInt
    push.valid := False
    push.payload.slot := sSlot(3 downto 0)
    push.payload.mode := sMode
    push.payload.fin := sendW.payload(12)
    push.payload.ack := sendAck
    when(sendW.valid) {
      when(sSlot(4) && sMode =/= 3 && sendFree =/= 0) { push.valid := True } otherwise { refused := True }
    }
    sendMem.write(qWr(qAw - 1 downto 0), push.payload, push.valid)
    when(push.valid) { qWr := qWr + 1 }
  }

  // Early fires, when configured (OrderEngineEarly.scala), added after the rest of the engine like the risk gate. Their
  // hooks above (the config flag, the fire record's bit, the ports, the arbiter's poison path) sit on lines that were
  // there before them: a line added above a statement the boards use renames it in their Verilog (README "Boards").
  val early = config.early generate new OrderEngineEarly(this)

  // The pre-trade risk gate on the fire path, when configured (OrderEngineRisk.scala). It is added here, after every
  // other piece of logic, so that the engine without it (the boards') elaborates exactly as before.
  val risk = config.riskGate.map(rc => new OrderEngineRisk(this, rc))

  regs.window("META", MetaWindow, Slots * 16, "WO",
    "template metadata, 16 bytes per template (META0..META3, see ORDER_TX_META* constants); 32-bit writes only")
  regs.window("TEMPLATE", TemplateWindow, Slots * TemplateBytes, "RW",
    "templates, 256 bytes per slot (0..15 orders, 16..31 the send ring; a send frame longer than 256 bytes continues in the next slot): the frame from DA to the end of the FIX message, patched fields holding placeholders; 32-bit writes (byte masks ignored)")

  /** Build constants for the C header. */
  def headerConstants: Seq[(String, String, String)] = Seq(
    ("ORDER_TX_TEMPLATES", s"${Templates}U", "armable order templates (0..15)"),
    ("ORDER_TX_SLOTS", s"${Slots}U", "template slots: the orders, then the send ring"),
    ("ORDER_TX_SEND_SLOT0", s"${Templates}U", "first send-ring slot (SEND takes slots 16..31)"),
    ("ORDER_TX_SEND_MIN_LEN", s"${SendMinLen}U", "shortest send frame (headers only)"),
    ("ORDER_TX_SEND_MAX_LEN", s"${SendMaxLen}U", "longest send frame (longer than ORDER_TX_TEMPLATE_BYTES: it takes its slot and the next)"),
    ("ORDER_TX_SEND_DEPTH", s"${SendDepth}U", "send queue entries"),
    ("ORDER_TX_SEND_MODE_NUMBER", s"${SendMode.NUMBER}U", "SEND mode: the engine writes and advances MsgSeqNum"),
    ("ORDER_TX_SEND_MODE_KEEP", s"${SendMode.KEEP}U", "SEND mode: the message keeps its own MsgSeqNum (resend, gap fill)"),
    ("ORDER_TX_SEND_MODE_RAW", s"${SendMode.RAW}U", "SEND mode: no FIX patching (a bare TCP segment)"),
    ("ORDER_TX_META0_CSUM_OFF8_SHIFT", "9", "META0: bit 8 of the CheckSum offset (send frames longer than 256 bytes)"),
    ("ORDER_TX_REC_PLEN_SHIFT", s"${Hdr.PLEN}", "record word 7: payload length bits 7..0 (8 bits)"),
    ("ORDER_TX_REC_TMPL_SHIFT", s"${Hdr.TMPL}", "record word 7: template bits 3..0 (4 bits)"),
    ("ORDER_TX_REC_TRIGGER_SHIFT", s"${Hdr.TRIGGER}", "record word 7: trigger (6 bits; fire records)"),
    ("ORDER_TX_REC_PLEN8_SHIFT", s"${Hdr.PLEN8}", "record word 7: payload length bit 8 (send records)"),
    ("ORDER_TX_REC_FIN_SHIFT", s"${Hdr.FIN}", "record word 7: FIN (send records)"),
    ("ORDER_TX_REC_MODE_SHIFT", s"${Hdr.MODE}", "record word 7: SEND mode (2 bits; send records)"),
    ("ORDER_TX_REC_STATUS_SHIFT", s"${Hdr.STATUS}", "record word 7: status (4 bits)"),
    ("ORDER_TX_REC_HOURS_SHIFT", s"${Hdr.HOURS}", "record word 7: tens of hours of the time used (4 bits)"),
    ("ORDER_TX_REC_KIND_SHIFT", s"${Hdr.KIND}", "record word 7: template bit 4: 1 = a send frame's record"),
    ("ORDER_TX_REC_RECNO_SHIFT", s"${Hdr.RECNO}", "record word 7: record number (5 bits, wrapping)"),
    ("ORDER_TX_TEMPLATE_BYTES", s"${TemplateBytes}U", "bytes per template (the longest order frame, no FCS)"),
    ("ORDER_TX_MIN_LEN", s"${MinLen}U", "shortest template (54 bytes of headers and at least one payload byte)"),
    ("ORDER_TX_LOG_RECORDS", s"${config.logRecords}U", "fire log capacity in records"),
    ("ORDER_TX_RECORD_WORDS", s"${RecordWords}U", "32-bit words per fire log record"),
    ("ORDER_TX_MSG_DIGITS_MAX", s"${Digits}U", "most MsgSeqNum digits"),
    ("ORDER_TX_META0_LEN_SHIFT", "0", "META0: frame length (9 bits)"),
    ("ORDER_TX_META0_MSG_WIDTH_SHIFT", "12", "META0: MsgSeqNum digits (4 bits, 1..10)"),
    ("ORDER_TX_META0_MSG_OFF_SHIFT", "16", "META0: frame offset of the first MsgSeqNum digit (8 bits)"),
    ("ORDER_TX_META0_CSUM_OFF_SHIFT", "24", "META0: frame offset of the first CheckSum digit (8 bits)"),
    ("ORDER_TX_META1_STIME_OFF_SHIFT", "0", "META1: frame offset of SendingTime's HH (8 bits)"),
    ("ORDER_TX_META1_STIME_EN_SHIFT", "8", "META1: patch SendingTime's time"),
    ("ORDER_TX_META1_TTIME_OFF_SHIFT", "16", "META1: frame offset of TransactTime's HH (8 bits)"),
    ("ORDER_TX_META1_TTIME_EN_SHIFT", "24", "META1: patch TransactTime's time"),
    ("ORDER_TX_META2_IP_CSUM_SHIFT", "0", "META2: the template's IPv4 header checksum (16 bits)"),
    ("ORDER_TX_META2_TCP_CSUM_SHIFT", "16", "META2: the template's TCP checksum (16 bits)"),
    ("ORDER_TX_META3_FIX_SUM_SHIFT", "0", "META3: the template's FIX CheckSum value (8 bits)"),
    ("ORDER_TX_REC_STATUS_SENT", s"${St.SENT}U", "fire log status: sent"),
    ("ORDER_TX_REC_STATUS_WIDTH", s"${St.SUPPRESSED_WIDTH}U", "fire log status: suppressed, MsgSeqNum wider than the template's field"),
    ("ORDER_TX_REC_STATUS_TEMPLATE", s"${St.SUPPRESSED_TEMPLATE}U", "fire log status: suppressed, bad template metadata")) ++
    (if (!config.early) Nil else Seq(
      ("TF_HAS_EARLY", "1", "early fires: the order engine holds an early order's end for its verdict"),
      ("ORDER_TX_REC_STATUS_SENT_EARLY", s"${St.SENT_EARLY}U", "fire log status: an early fire's order, sent after a good verdict"),
      ("ORDER_TX_REC_STATUS_POISONED", s"${St.POISONED}U", "fire log status: an early fire's order, sent poisoned (bad FCS): its numbers were not used")))
}
