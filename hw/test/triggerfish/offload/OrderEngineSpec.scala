// OrderEngine behind the SoC's transmit arbiter, against a reference model, with random stimulus:
//  - fires (eth_rx) at random times, in bursts on consecutive cycles, for random templates and ACK values;
//  - a firmware model (sys) that builds random New Order Single templates (random field lengths, so the
//    patched fields land on odd and even offsets), arms them, drains the fire log (polling or interrupt),
//    checks every record, re-arms fired templates with new contents, queues frames of its own (SEND), and now and
//    then disables the engine, waits for IDLE and writes new numbers (NEXT_SEQ/NEXT_MSGSEQ advanced, as after a
//    segment sent meanwhile; the window, the IP id), disarms templates, and enables it again; it sets the time of
//    day (across midnight);
//  - CPU frames on the arbiter's other input at random; a MAC model with several tx.ready patterns.
// Checked: every order frame byte for byte against a frame rebuilt from scratch (values written, IPv4 and TCP
// checksums and the FIX CheckSum recomputed); every record (seq, MsgSeqNum, IP id, window: the model's next
// values; ack/trigger/template: the fire's; tx stamp: the cycle byte 0 was taken; time: the engine clock);
// the (seq, length, MsgSeqNum) of hardware and firmware sends form one contiguous sequence; no engine frame starts
// while the engine is disabled and idle; one-shot templates; every fire accounted for (records + counters); stream
// rules and no interleaving at the MAC; the latency fire.valid -> tx.valid of every fire that found the
// engine idle (exactly 3 cycles with same-edge clocks; 3..4 with unrelated clocks).
// Replay with TF_SEED=<seed> ./mill -i hw.test.testOnly triggerfish.offload.OrderEngineSpec
package triggerfish.offload

import org.scalatest.funsuite.AnyFunSuite
import spinal.core._
import spinal.core.sim._
import triggerfish.soc.{CHeader, SimBusMaster, TfSim}
import scala.collection.mutable
import scala.util.Random
import OrderSim._
import OrderRef._

class OrderEngineSpec extends AnyFunSuite {
  // Pinned, measured figures (not the RTL's own constants): a change in the engine's latency must be a deliberate
  // edit here. fire.valid sampled -> TX valid at the arbiter's output with same-edge clocks: 3 cycles through the
  // two-flop synchroniser and the engine's start, 1 in the arbiter's output register.
  val ExpectedFireToMacCycles = 4
  val ExpectedArbiterCycles = 1
  // A fire that arrives while an engine frame (order or send frame) is on the wire: its order's byte 0 is at the
  // arbiter's output this many cycles after that frame's last byte was taken (as queued orders, back to back).
  val ExpectedFireAfterFrameCycles = 3
  // Cycles a risk gate adds to a fire (OrderEngineRiskSpec runs the random test through one).
  val GateCycles = 0
  val seed = TfSim.seed(51)
  val cfg = OrderEngineConfig()
  val M32 = 0xFFFFFFFFL

  // An early fire (cfg.early) has a verdict, `good` or not, given `verdictDelay` rx cycles after the fire (in order:
  // a verdict waits for the one before it); verdictTime is the edge at which the engine sampled it.
  case class Fire(id: Int, template: Int, trigger: Int, ack: Long, var time: Long = -1, early: Boolean = false,
                  good: Boolean = true, verdictDelay: Int = 0, var verdictTime: Long = -1)
  class MacFrame(val bytes: Array[Int], val start: Long, val end: Long, val startCycle: Long, val poisoned: Boolean = false)
  /** Verdict delays for early fires, rx cycles: before the commit, during the order, in its padding, too late. */
  def randomVerdictDelay(rnd: Random): Int = rnd.nextInt(20) match {
    case k if k < 6 => 1 + rnd.nextInt(20)
    case k if k < 14 => 20 + rnd.nextInt(300)
    case k if k < 19 => 300 + rnd.nextInt(1000)
    case _ => 1520 + rnd.nextInt(600)
  }

  /** Everything around the DUT. */
  class Bench(dut: OrderEngineTestTop, clocks: Clocks, rnd: Random) {
    val sysCd = dut.clockDomain
    val bus = new SimBusMaster(dut.io.bus, sysCd)
    def dutCycle: Long = dut.engine.tx.cycle.toLong

    // ---- fires (eth_rx)
    val fires = mutable.ArrayBuffer[Fire]()
    val fireQueue = mutable.Queue[Seq[Fire]]()   // groups sent on consecutive cycles
    dut.io.fire.valid #= false
    if (cfg.early) { dut.io.fireEarly #= false; dut.io.verdict.valid #= false }
    fork {
      while (true) {
        if (fireQueue.isEmpty) dut.rxCd.waitSampling()
        else {
          for (f <- fireQueue.dequeue()) {
            val p = dut.io.fire.payload
            dut.io.fire.valid #= true
            p.template #= f.template; p.trigger #= f.trigger; p.ackSeq #= f.ack; p.stamp #= f.id
            p.price #= rnd.nextLong() >>> 16
            if (cfg.early) dut.io.fireEarly #= f.early
            dut.rxCd.waitSampling()
            f.time = simTime()     // the edge at which the engine samples fire.valid
          }
          dut.io.fire.valid #= false
          dut.io.fire.payload.template #= rnd.nextInt(16)   // garbage while not valid
          if (cfg.early) dut.io.fireEarly #= rnd.nextBoolean()
        }
      }
    }
    // The verdicts of early fires, in order (the parser's: one per early fire, at its segment's end).
    val verdictQueue = mutable.Queue[Fire]()
    if (cfg.early) fork {
      while (true) {
        val v = verdictQueue.headOption
        if (v.exists(f => f.time >= 0 && simTime() >= f.time + f.verdictDelay.toLong * clocks.rx)) {
          val f = verdictQueue.dequeue()
          dut.io.verdict.valid #= true
          dut.io.verdict.payload #= f.good
          dut.rxCd.waitSampling()
          f.verdictTime = simTime()
          dut.io.verdict.valid #= false
          dut.io.verdict.payload #= rnd.nextBoolean()   // garbage while not valid
        } else dut.rxCd.waitSampling()
      }
    }
    def fireGroup(templates: Seq[Int], ack: => Long = rnd.nextLong() & M32): Seq[Fire] = {
      val g = templates.map { t =>
        val early = cfg.early && rnd.nextInt(3) != 0
        val f = Fire(fires.length, t, rnd.nextInt(64), ack, early = early, good = rnd.nextInt(4) != 0,
          verdictDelay = if (early) randomVerdictDelay(rnd) else 0)
        fires += f
        if (early) verdictQueue.enqueue(f)
        f
      }
      fireQueue.enqueue(g)
      g
    }

    // ---- CPU frames on the arbiter's input 1 (tx domain); they start with 0xFF (templates never do)
    val cpuSent = mutable.Queue[Array[Int]]()
    val cpuPending = mutable.Queue[Array[Int]]()
    var cpuCur: Array[Int] = null
    var cpuIdx = 0
    dut.io.cpu.valid #= false
    dut.txCd.onSamplings {
      val c = dut.io.cpu
      if (cpuCur != null && c.valid.toBoolean && c.ready.toBoolean) {
        cpuIdx += 1
        if (cpuIdx == cpuCur.length) { cpuSent.enqueue(cpuCur); cpuCur = null }
      }
      if (cpuCur == null && cpuPending.nonEmpty) { cpuCur = cpuPending.dequeue(); cpuIdx = 0 }
      if (cpuCur != null) {
        c.valid #= true
        c.payload.fragment #= cpuCur(cpuIdx)
        c.payload.last #= cpuIdx == cpuCur.length - 1
      } else c.valid #= false
    }
    def cpuFrame(len: Int): Unit = cpuPending.enqueue(Array(0xFF) ++ Array.fill(len - 1)(rnd.nextInt(256)))

    // ---- the MAC: ready patterns, stream rules, frames
    var macMode = 0                    // 0 always ready, 1 LiteEth-like (preamble, gap), 2 random, 3 every other cycle
    var macModes = Seq(0, 1, 2, 3)
    val orderFrames = mutable.Queue[MacFrame]()
    val cpuFrames = mutable.Queue[MacFrame]()
    val orderFramesAll = mutable.ArrayBuffer[MacFrame]()
    val cpuFramesAll = mutable.ArrayBuffer[MacFrame]()
    val engineStarts = mutable.Queue[Long]()   // DUT cycle when the engine's tx.valid rose (the commit)
    var engineValidPrev = false
    val cur = mutable.ArrayBuffer[Int]()
    var inFrame = false
    var curStart = 0L
    var curStartCycle = 0L
    var prevValid = false; var prevReady = false; var prevData = 0; var prevLast = false
    var phase = 0
    var cycles = 0L
    dut.io.mac.ready #= true
    dut.txCd.onSamplings {
      cycles += 1
      if (txT0 < 0) txT0 = simTime() - dutCycle * clocks.tx
      val m = dut.io.mac
      val v = m.valid.toBoolean; val r = m.ready.toBoolean; val d = m.payload.fragment.toInt; val l = m.payload.last.toBoolean
      val et = dut.engine.io.tx
      val ev = et.valid.toBoolean
      if (ev && !engineValidPrev) engineStarts.enqueue(dutCycle)   // the first cycle of each engine frame
      engineValidPrev = ev && !(et.ready.toBoolean && et.payload.last.toBoolean)
      if (inFrame) assert(v, s"bubble in a frame after ${cur.length} bytes")
      if (prevValid && !prevReady) assert(v && d == prevData && l == prevLast, "payload changed while valid && !ready")
      if (v && !inFrame) { inFrame = true; curStart = simTime(); curStartCycle = dutCycle; phase = 0 }
      if (v && r) {
        cur += d
        if (l) {
          val f = new MacFrame(cur.toArray, curStart, simTime(), curStartCycle, cfg.early && dut.io.macPoison.toBoolean)
          if (f.bytes(0) == 0xFF) { cpuFrames.enqueue(f); cpuFramesAll += f } else { orderFrames.enqueue(f); orderFramesAll += f }
          cur.clear(); inFrame = false; phase = 0
          macMode = macModes(rnd.nextInt(macModes.length))
        }
      }
      prevValid = v; prevReady = r; prevData = d; prevLast = l
      phase += 1
      m.ready #= (macMode match {
        case 0 => true
        case 1 => if (inFrame || v) phase > 8 else phase > 12
        case 2 => rnd.nextInt(4) != 0
        case _ => (cycles & 1) == 0
      })
    }

    // ---- firmware model (sys)
    var ctrl = 0L
    var fwAck: Option[Long] = None   // the ACK given with ACK_SET (orders carry it instead of the fire's)
    def setCtrl(v: Long): Unit = { ctrl = v; bus.write(CTRL, v) }
    def status: Long = bus.read(STATUS)
    def waitCmd(): Unit = while ((status & ST_CMD_BUSY) != 0) sysCd.waitSampling(rnd.nextInt(4))
    def command(addr: Int, v: Long): Unit = { waitCmd(); bus.write(addr, v); waitCmd() }
    val stateWrites = mutable.ArrayBuffer[Long]()            // times of writes that change what the engine does
    val idleWindows = mutable.ArrayBuffer[(Long, Long)]()     // [IDLE seen, ENABLE written]
    val offWindows = mutable.ArrayBuffer[(Long, Long)]()      // [ENABLE cleared, ENABLE written]
    var offTime = 0L
    var idleTime = 0L
    /** Disables the engine and waits until it is idle (NEXT_* may then be written). */
    def quiesce(): Unit = {
      offTime = simTime()
      stateWrites += simTime()
      setCtrl(ctrl & ~CTRL_ENABLE)
      while ((status & ST_IDLE) == 0) sysCd.waitSampling(rnd.nextInt(3))
      idleTime = simTime()
    }
    /** Enables it again: it takes what was written meanwhile. */
    def resume(newCtrl: Long = ctrl | CTRL_ENABLE): Unit = {
      val t = simTime()
      idleWindows += ((idleTime, t)); offWindows += ((offTime, t))
      setCtrl(newCtrl | CTRL_ENABLE)
      stateWrites += simTime()
      hw = (expSeq, expMsg, expIpId, window)
    }

    var expSeq = 0L; var expMsg = 1L; var expIpId = 0; var window = 0
    // What the engine holds: equal to the above except while it is disabled (firmware's writes take effect when
    // it is enabled).
    var hw = (0L, 1L, 0, 0)
    // (seq, sequence space taken, MsgSeqNum, who, whether it took the MsgSeqNum) in order
    val sends = mutable.ArrayBuffer[(Long, Int, Long, String, Boolean)]()
    val tmpl = Array.fill[Template](16)(null)
    val armedModel = Array.fill(16)(false)
    val toRearm = mutable.Queue[Int]()
    var recCount = 0
    var fireRecCount = 0
    var lastStamp = -1L
    var lastRecord: FireRecord = null
    val counts = mutable.Map[Int, Int]().withDefaultValue(0)
    var earlyPadded = 0   // early orders with zero bytes after them (their verdict came after the order's last byte)
    var earlyLate = 0     // poisoned although good: the verdict came after the 1,514th byte
    val timeSettings = mutable.ArrayBuffer[(Long, Long, Int)]()   // (time of day set, DUT cycle soon after it applied, divisor)
    val latencies = mutable.ArrayBuffer[(Fire, Long)]()       // (fire, sim time from the fire's sampling edge to tx.valid at the arbiter output)
    var txT0 = -1L                                              // sim time of DUT cycle 0 (eth_tx is periodic)
    def cycleTime(c: Long): Long = txT0 + c * clocks.tx
    var widthStep = 20                                          // headroom of MsgSeqNum digits in new templates

    def writeTemplate(t: Int, tp: Template): Unit = {
      for ((w, i) <- tp.words.zipWithIndex) bus.write(TEMPLATE + 256 * t + 4 * i, w)
      for ((w, i) <- tp.meta.zipWithIndex) bus.write(META + 16 * t + 4 * i, w)
      tmpl(t) = tp
    }
    def newTemplate(t: Int, tooNarrow: Boolean = false): Template = {
      val need = digits(expMsg + widthStep)
      val w = if (tooNarrow) math.max(1, digits(expMsg) - 1) else need + rnd.nextInt(11 - need)
      val tp = build(rnd, w, rnd.nextInt(5) != 0, rnd.nextInt(3) != 0)
      writeTemplate(t, tp)
      tp
    }
    def arm(mask: Long): Unit = {
      for (t <- 0 until 16 if (mask >> t & 1) != 0) armedModel(t) = true
      stateWrites += simTime()
      command(ARM_SET, mask)
      stateWrites += simTime()
    }
    def setTime(ms: Long, div: Int): Unit = {
      bus.write(MS_DIVISOR, div)
      bus.write(TIME_LO, toBcd(ms) & M32)
      command(TIME_SET, toBcd(ms) >> 32)
      timeSettings += ((ms, dutCycle, div))
      stateWrites += simTime()
    }
    def readRecord(): FireRecord = FireRecord.decode((0 until 8).map(_ => bus.read(LOG_DATA)))

    // ---- the send queue: firmware's own frames in the send ring (slots 16..31), queued with SEND
    case class SendReq(slot: Int, tp: Template, ack: Long, badMeta: Boolean)
    val sendQ = mutable.Queue[SendReq]()           // queued, record not seen yet
    val slotBusy = Array.fill(16)(false)           // send-ring slot written and queued (a long frame: two)
    val sendCounts = mutable.Map[(Int, Int), Int]().withDefaultValue(0)   // (mode, status) -> records
    var sendLongSent = 0; var sendFinSent = 0
    def writeSlot(slot: Int, tp: Template): Unit = {
      for ((w, i) <- tp.words.zipWithIndex) bus.write(TEMPLATE + 256 * (16 + slot) + 4 * i, w)
      for ((w, i) <- tp.meta.zipWithIndex) bus.write(META + 16 * (16 + slot) + 4 * i, w)
    }
    /** SEND_ACK, then SEND; returns false (and writes nothing) when SEND_FREE says the queue is full. */
    def queueSend(slot: Int, tp: Template, ack: Long, badMeta: Boolean = false): Boolean = {
      val free = bus.read(SEND_FREE)
      assert(free <= 16 && free >= 16 - sendQ.length - 1, s"SEND_FREE $free with ${sendQ.length} queued")
      if (free == 0) return false
      bus.write(SEND_ACK, ack)
      bus.write(SEND, (16 + slot) | (tp.mode << 8) | (if (tp.fin) 1 << 12 else 0))
      sendQ.enqueue(SendReq(slot, tp, ack, badMeta))
      assert((status & ST_REFUSED) == 0, "SEND refused with SEND_FREE > 0")
      true
    }
    /** A random send-ring frame (all three modes, FIN, up to 511 bytes over two slots, now and then bad metadata or a
      * MsgSeqNum field too narrow) in a free slot, queued. */
    def randomSend(): Unit = {
      val mode = rnd.nextInt(3)
      val fin = rnd.nextInt(6) == 0
      val min = minFixLen(mode)
      val len = if (rnd.nextInt(3) == 0) 257 + rnd.nextInt(OrderEngine.SendMaxLen - 256) else min + rnd.nextInt(257 - min)
      val free = (0 until 16).filter(i => !slotBusy(i) && (len <= 256 || (i < 15 && !slotBusy(i + 1))))
      if (free.isEmpty) return
      val slot = free(rnd.nextInt(free.length))
      val width = mode match {
        case 0 if rnd.nextInt(30) == 0 => math.max(1, digits(expMsg) - 1)          // too narrow: WIDTH
        case 0 => val need = digits(expMsg + widthStep); need + rnd.nextInt(11 - need)
        case _ => rnd.nextInt(16)                                                 // ignored in modes 1 and 2
      }
      var tp = buildSend(rnd, len, mode, fin, width, 1 + (rnd.nextLong() & 0xFFFFFFFL) % expMsg)
      val bad = rnd.nextInt(40) == 0
      if (bad) tp = tp.copy(lenMeta = if (slot == 15 && rnd.nextBoolean()) 257 + rnd.nextInt(255) else rnd.nextInt(54))
      writeSlot(slot, tp)
      if (queueSend(slot, tp, rnd.nextLong() & M32, bad)) { slotBusy(slot) = true; if (len > 256) slotBusy(slot + 1) = true }
    }
    /** The checks common to every SENT record: the frame on the MAC, byte for byte, its time and tx stamp. */
    def checkSentFrame(r: FireRecord, tp: Template, what: String, early: Boolean = false): MacFrame = {
      assert(r.plen == tp.plen, s"$what: payload length")
      assert(orderFrames.nonEmpty, s"$what: no engine frame on the MAC")
      val frame = orderFrames.dequeue()
      val start = engineStarts.dequeue()
      // The time of day the engine had at the commit, from the last TIME_SET (applied up to 60 cycles before
      // the cycle noted, which the millisecond boundary is known within) or the one before if it was that close.
      val got = fromBcd(r.timeBcd)
      val cands = timeSettings.filter(_._2 <= start + 60).takeRight(2)
      val okTime = cands.exists { case (base, c, div) =>
        val lo = Math.floorDiv(start - c - 1, div + 1L) - 1; val hi = Math.floorDiv(start - c + 60, div + 1L)
        (lo to hi).exists(k => Math.floorMod(base + k, DayMs) == got)
      }
      assert(okTime, s"$what: time ${timeStr(got)} at cycle $start, time settings ${cands.map { case (b, c, d) => (timeStr(b), c, d) }}")
      val exp = expected(tp, r.seq, r.ack, r.window, r.ipId, r.msgSeq, got)
      // An early order's frame may have zero bytes after the order (while its verdict was awaited), up to 1,514 bytes.
      val body = if (early) frame.bytes.take(exp.length) else frame.bytes
      if (early) assert(frame.bytes.length <= 1514 && frame.bytes.drop(exp.length).forall(_ == 0),
        s"$what: an early order's padding (${frame.bytes.length} bytes, not all zero after ${exp.length})")
      assert(body.length == exp.length && body.sameElements(exp),
        s"$what: frame differs at ${exp.indices.find(i => i >= frame.bytes.length || frame.bytes(i) != exp(i))}\n got ${frame.bytes.map(b => f"$b%02x").mkString}\n exp ${exp.map(b => f"$b%02x").mkString}")
      assert(r.txStamp == frame.startCycle, s"$what: tx stamp ${r.txStamp}, byte 0 first valid at the MAC in cycle ${frame.startCycle}")
      frame
    }
    def checkSendRecord(r: FireRecord, what: String): Unit = {
      assert(sendQ.nonEmpty, s"$what: a send record, nothing queued")
      val q = sendQ.dequeue()
      val tp = q.tp
      assert(r.template == 16 + q.slot && r.mode == tp.mode && r.fin == tp.fin && r.ack == q.ack && r.rxStamp == 0 && r.trigger == 0,
        s"$what: queued $q")
      val vals = (r.seq, r.msgSeq, r.ipId, r.window)
      assert(vals == hw && hw == (expSeq, expMsg, expIpId, window), s"$what: expected $hw (firmware's $expSeq $expMsg $expIpId $window)")
      val expStatus =
        if (q.badMeta || (tp.mode == 0 && (tp.width < 1 || tp.width > 10))) OrderEngine.St.SUPPRESSED_TEMPLATE
        else if (tp.mode == 0 && digits(expMsg) > tp.width) OrderEngine.St.SUPPRESSED_WIDTH
        else OrderEngine.St.SENT
      assert(r.status == expStatus, s"$what: status ${r.status}, expected $expStatus")
      sendCounts((tp.mode, r.status)) += 1
      if (r.status == OrderEngine.St.SENT) {
        checkSentFrame(r, tp, what)
        sends += ((r.seq, tp.seqLen, r.msgSeq, s"send${tp.mode}", tp.mode == 0))
        expSeq = (expSeq + tp.seqLen) & M32; if (tp.mode == 0) expMsg += 1; expIpId = (expIpId + 1) & 0xFFFF
        hw = (expSeq, expMsg, expIpId, window)
        if (tp.len > 256) sendLongSent += 1
        if (tp.fin) sendFinSent += 1
      }
      slotBusy(q.slot) = false
      if (tp.len > 256) slotBusy(q.slot + 1) = false
    }

    def checkRecord(r: FireRecord): Unit = {
      val what = s"record $recCount ($r)"
      assert(r.recNo == (recCount & 0x1F), s"$what: record number")
      recCount += 1
      if (r.send) return checkSendRecord(r, what)
      fireRecCount += 1
      assert(r.rxStamp > lastStamp && r.rxStamp < fires.length, s"$what: fires logged in order (previous: $lastRecord)")
      lastStamp = r.rxStamp
      lastRecord = r
      val f = fires(r.rxStamp.toInt)
      assert(r.template == f.template && r.trigger == f.trigger && r.ack == fwAck.getOrElse(f.ack), s"$what: fire $f (firmware ACK $fwAck)")
      val vals = (r.seq, r.msgSeq, r.ipId, r.window)
      assert(vals == hw && hw == (expSeq, expMsg, expIpId, window), s"$what: expected $hw (firmware's $expSeq $expMsg $expIpId $window)")
      counts(r.status) += 1
      val tp = tmpl(r.template)
      import OrderEngine.St
      r.status match {
        case St.SENT | St.SENT_EARLY | St.POISONED =>
          // A safe fire's order is SENT, an early fire's SENT_EARLY (good verdict) or POISONED (bad verdict, or none by
          // the 1,514th byte: the frame padded to that); only a POISONED record's frame has the poison flag.
          assert((r.status != St.SENT) == f.early, s"$what: status ${r.status} for ${if (f.early) "an early" else "a safe"} fire")
          assert(armedModel(r.template), s"$what: template ${r.template} was not armed (or fired twice)")
          armedModel(r.template) = r.status == St.POISONED   // (a poisoned order's template is armed again)
          val frame = checkSentFrame(r, tp, what, early = f.early)
          assert(frame.poisoned == (r.status == St.POISONED), s"$what: poison flag ${frame.poisoned}")
          latencies += ((f, frame.start - f.time))
          if (f.early) {
            if (frame.bytes.length > tp.len) earlyPadded += 1
            if (r.status == St.SENT_EARLY) {
              assert(f.good && f.verdictTime >= 0 && frame.end > f.verdictTime, s"$what: sent with a good FCS, verdict ${f.good} at ${f.verdictTime}, frame end ${frame.end}")
            } else if (f.good) {
              assert(frame.bytes.length == 1514 && (f.verdictTime < 0 || f.verdictTime > frame.end - 40L * clocks.tx),
                s"$what: poisoned with a good verdict at ${f.verdictTime} (frame of ${frame.bytes.length} bytes ending at ${frame.end})")
              earlyLate += 1
            }
          }
          if (r.status != St.POISONED) {
            sends += ((r.seq, r.plen, r.msgSeq, "hw", true))
            expSeq = (expSeq + r.plen) & M32; expMsg += 1; expIpId = (expIpId + 1) & 0xFFFF
            hw = (expSeq, expMsg, expIpId, window)
          }
          toRearm.enqueue(r.template)
        case OrderEngine.St.SUPPRESSED_WIDTH =>
          assert(digits(expMsg) > tp.width, s"$what: suppressed for width, but $expMsg fits ${tp.width} digits")
          toRearm.enqueue(r.template)   // rebuilt wider (with the engine idle: it is still armed)
        case s => fail(s"$what: unexpected status $s")
      }
    }
    def drain(): Int = {
      var n = 0
      var c = bus.read(LOG_COUNT)
      while (c > 0) {
        for (_ <- 0 until c.toInt) { checkRecord(readRecord()); n += 1 }
        c = bus.read(LOG_COUNT)
      }
      n
    }
    /** Re-arm fired templates with new contents; a template suppressed for its width is disarmed first (engine idle). */
    def rearm(): Unit = while (toRearm.nonEmpty) {
      val t = toRearm.dequeue()
      if (armedModel(t)) {   // still armed: disarm safely first
        quiesce(); drain()
        command(ARM_CLR, 1L << t); armedModel(t) = false
        resume()
      }
      newTemplate(t, tooNarrow = rnd.nextInt(40) == 0)
      arm(1L << t)
    }
    /** An idle session: the engine disabled and idle, firmware accounts for a segment sent meanwhile (new NEXT_*), maybe
      * changes the window and the IP id, disarms templates, queues a frame; fires meanwhile are ignored. */
    def idleSession(): Unit = {
      quiesce()
      drain()
      assert(bus.read(NEXT_SEQ) == expSeq && bus.read(NEXT_MSGSEQ) == expMsg && bus.read(IP_ID) == expIpId && bus.read(WINDOW) == window,
        "NEXT_* while idle are the next values")
      val n = 1 + rnd.nextInt(400)
      sends += ((expSeq, n, expMsg, "fw", true))
      expSeq = (expSeq + n) & M32; expMsg += 1
      bus.write(NEXT_SEQ, expSeq)
      if (rnd.nextInt(3) == 0) sysCd.waitSampling(rnd.nextInt(200))   // firmware takes its time
      bus.write(NEXT_MSGSEQ, expMsg)
      if (rnd.nextInt(4) == 0) { window = rnd.nextInt(65536); bus.write(WINDOW, window) }
      if (rnd.nextInt(6) == 0) { expIpId = rnd.nextInt(65536); bus.write(IP_ID, expIpId) }
      assert(bus.read(NEXT_SEQ) == expSeq && bus.read(NEXT_MSGSEQ) == expMsg && bus.read(WINDOW) == window, "staged values read back")
      if (rnd.nextInt(4) == 0) {   // disarm some templates: safe while idle
        val mask = rnd.nextInt(65536) & (0 until 16).filter(armedModel(_)).map(1 << _).sum
        command(ARM_CLR, mask)
        for (t <- 0 until 16 if (mask >> t & 1) != 0) { armedModel(t) = false; toRearm.enqueue(t) }
      }
      if (rnd.nextInt(3) == 0) randomSend()   // queued while disabled: it waits for the enable and takes the new numbers
      if (rnd.nextInt(3) == 0) sysCd.waitSampling(rnd.nextInt(2000))   // fires arrive meanwhile (ignored)
      assert(drain() == 0, "no record while idle")
      val free = bus.read(SEND_FREE)   // (one entry may wait in the engine, taken just before the disable)
      assert(free == 16 - sendQ.length || free == 17 - sendQ.length, s"SEND_FREE $free while idle with ${sendQ.length} queued: the queued frames wait")
      resume()
    }

    def init(seq: Long, msg: Long, ipId: Int, win: Int, timeMs: Long, div: Int): Unit = {
      assert(bus.read(CONFIG) == (32 | (8 << 8) | (cfg.logRecords.toLong << 16)), "CONFIG")
      assert(bus.read(SEND_FREE) == 16, "SEND_FREE after reset")
      sysCd.waitSampling(20)
      assert(status == ST_IDLE, "STATUS after reset: disabled and idle")
      // NEXT_* are refused while the engine is not idle (enabled).
      setCtrl(CTRL_ENABLE)
      while ((status & ST_RUNNING) == 0) sysCd.waitSampling()
      assert(status == ST_RUNNING, "STATUS once enabled")
      bus.write(NEXT_SEQ, 12345)
      assert((status & ST_REFUSED) != 0 && bus.read(NEXT_SEQ) == 0, "NEXT_SEQ refused while enabled")
      bus.write(STATUS_CLR, ST_REFUSED)
      quiesce()
      assert(status == ST_IDLE)
      setTime(timeMs, div)
      expSeq = seq; expMsg = msg; expIpId = ipId; window = win
      bus.write(NEXT_SEQ, seq); bus.write(NEXT_MSGSEQ, msg); bus.write(IP_ID, ipId); bus.write(WINDOW, win)
      sends += ((seq, 0, msg - 1, "start", true))
      for (t <- 0 until 16) newTemplate(t)
      arm(0xFFFF)
      assert(bus.read(ARMED) == 0xFFFF)
      resume(CTRL_IRQ)
      while ((status & ST_RUNNING) == 0) sysCd.waitSampling()
    }

    /** End: everything drained and accounted for. */
    def finish(nFires: Int, name: String): Unit = {
      sysCd.waitSampling(3000)
      drain()
      var k = 0
      while (sendQ.nonEmpty && k < 400) { sysCd.waitSampling(500); drain(); k += 1 }   // send frames still queued
      val ignored = bus.read(IGNORED); val notArmed = bus.read(NOT_ARMED); val drops = bus.read(LOG_DROPS); val ovf = bus.read(RX_OVERFLOW)
      assert(sendQ.isEmpty, s"${sendQ.length} SENDs without a record")
      assert(bus.read(SEND_FREE) == 16, "SEND_FREE at the end")
      assert(fireRecCount + ignored + notArmed + drops + ovf == nFires,
        s"fires $nFires != records $fireRecCount + ignored $ignored + not armed $notArmed + log drops $drops + rx overflow $ovf")
      assert(orderFrames.isEmpty, s"${orderFrames.length} order frames without a record")
      assert(cpuPending.isEmpty && cpuCur == null && cpuSent.length == cpuFrames.length, "CPU frames all sent")
      while (cpuSent.nonEmpty) assert(cpuSent.dequeue().sameElements(cpuFrames.dequeue().bytes), "CPU frame intact")
      assert((status & (ST_UNDERRUN | ST_LOG_OVERRUN)) == 0, "no underrun, no lost log word")
      if (cfg.early) {
        import OrderEngine.St
        assert(bus.read(EARLY_SENT) == counts(St.SENT_EARLY) && bus.read(POISONED) == counts(St.POISONED) && bus.read(EARLY_FAULT) == 0,
          s"EARLY_SENT ${bus.read(EARLY_SENT)}, POISONED ${bus.read(POISONED)}, EARLY_FAULT ${bus.read(EARLY_FAULT)}; records $counts")
        assert(verdictQueue.isEmpty, s"${verdictQueue.length} verdicts not given")
        println(f"[$name] early fires ${fires.count(_.early)} (${fires.count(f => f.early && !f.good)} with a bad verdict): " +
          f"sent early ${counts(St.SENT_EARLY)}, poisoned ${counts(St.POISONED)} ($earlyLate of them for a verdict too late), " +
          f"$earlyPadded padded while the verdict was awaited")
      }
      // One contiguous sequence of (seq, length (+1 for FIN)) and MsgSeqNums over orders, send frames and firmware's
      // own sends: each frame's seq is the previous one's plus its length; each frame that takes a MsgSeqNum takes
      // the one after the last taken; a send frame that keeps its own (mode 1, 2) logs the next one, unused.
      var lastMsg = sends.head._3
      for (i <- 1 until sends.length) {
        val (a, b) = (sends(i - 1), sends(i))
        if (b._4 != "jump") assert(b._1 == ((a._1 + a._2) & M32), s"seq gap or overlap between $a and $b")
        if (b._4 != "jump") assert(b._3 == lastMsg + 1, s"MsgSeqNum gap or reuse between $a and $b (last taken $lastMsg)")
        if (b._5) lastMsg = b._3
      }
      // No engine frame while the engine was disabled and idle (it starts nothing before it sees ENABLE).
      for (f <- orderFramesAll; (a, b) <- idleWindows) assert(f.end < a || f.start > b, s"engine frame [${f.start}, ${f.end}] inside idle window [$a, $b]")
      println(f"[$name] ${clocks.describe}: fires $nFires -> sent ${counts(OrderEngine.St.SENT)}, " +
        f"suppressed width ${counts(OrderEngine.St.SUPPRESSED_WIDTH)}, ignored $ignored, not armed $notArmed, log drops $drops, rx overflow $ovf; " +
        f"send frames ${sendCounts.toSeq.sorted.map { case ((m, st), n) => s"mode $m status $st: $n" }.mkString(", ")} ($sendLongSent over 256 bytes, $sendFinSent FIN), " +
        f"numbers rewritten while idle ${sends.count(_._4 == "fw")}, idle sessions ${idleWindows.length}, " +
        f"CPU frames ${cpuFramesAll.length}, last MsgSeqNum ${expMsg - 1}, seq 0x${expSeq}%08X")
    }

    /** Fires that found the engine idle: no other fire, engine frame, CPU frame or state change just before (an
      * engine frame other than the fire's own, `ownStart`, that starts up to `engineCycles` after the fire is a send
      * frame the engine committed before the fire's toggle reached it). */
    def isolated(f: Fire, ownStart: Long, engineCycles: Int): Boolean = {
      val t = f.time
      val near = 400L * clocks.rx
      !fires.exists(g => g.id != f.id && g.time >= 0 && g.time < t && g.time > t - near) &&
        !orderFramesAll.exists(o => o.start != ownStart && o.end > t - 30L * clocks.tx && o.start < t + engineCycles.toLong * clocks.tx) &&
        !cpuFramesAll.exists(c => c.end > t - 20L * clocks.tx && c.start < t + engineCycles.toLong * clocks.tx) &&
        !stateWrites.exists(w => w > t - 200L * clocks.sys && w < t + 10L * clocks.sys) &&
        !offWindows.exists { case (a, b) => t > a - 100L * clocks.sys && t < b + 200L * clocks.sys }
    }
  }

  def makeBench(dut: OrderEngineTestTop, clocks: Clocks, rnd: Random): Bench = {
    dut.io.bus.cmd.valid #= false
    dut.io.fire.valid #= false
    if (cfg.early) { dut.io.fireEarly #= false; dut.io.verdict.valid #= false }
    dut.io.cpu.valid #= false
    dut.io.mac.ready #= true
    start(dut, clocks, rnd)
    new Bench(dut, clocks, rnd)
  }

  /** Called by the random test once the engine runs (OrderEngineRiskSpec configures the risk gate here). */
  def afterInit(b: Bench): Unit = ()

  /** The random test. */
  def runRandom(name: String, clocks: Clocks, nFires: Int, s: Int, cpuTraffic: Boolean): Unit = {
    compile(cfg).doSim(name, seed = s) { dut =>
      SimTimeout(20000L * 1000 * 1000 * 100)
      val rnd = new Random(s)
      val b = makeBench(dut, clocks, rnd)
      import b._
      val wallStart = System.nanoTime()
      // MsgSeqNum 99_950: a carry into the sixth digit within the run; seq near the wrap; time near midnight.
      init(seq = 0xFFFFF000L + rnd.nextInt(0x800), msg = 99950 + rnd.nextInt(20), ipId = 0xFFF0, win = 8192,
        timeMs = DayMs - 1500 - rnd.nextInt(500), div = 99)
      afterInit(b)

      var firesDone = false
      fork {   // the fire generator (eth_rx)
        var n = 0
        while (n < nFires) {
          val k = rnd.nextInt(20) match {
            case 0 | 1 => 2 + rnd.nextInt(4)   // a burst on consecutive cycles
            case _ => 1
          }
          val group = Seq.fill(math.min(k, nFires - n))(rnd.nextInt(16))
          fireGroup(group, if (rnd.nextInt(10) == 0) (M32 - rnd.nextInt(1000)) else rnd.nextLong() & M32)
          n += group.length
          dut.rxCd.waitSampling(rnd.nextInt(10) match {
            case 0 | 1 => rnd.nextInt(100)
            case _ => 300 + rnd.nextInt(1200)
          })
        }
        while (fireQueue.nonEmpty) dut.rxCd.waitSampling()
        firesDone = true
      }
      if (cpuTraffic) fork {
        while (!firesDone) {
          if (cpuPending.isEmpty && rnd.nextInt(3) == 0) cpuFrame(60 + rnd.nextInt(300))
          dut.txCd.waitSampling(rnd.nextInt(2000))
        }
      }

      // The firmware.
      var quiet = 0
      while (!firesDone || quiet < 3) {
        val useIrq = rnd.nextBoolean()
        if (useIrq) {
          var w = 0
          while (!dut.io.interrupt.toBoolean && w < 500) { sysCd.waitSampling(); w += 1 }
        }
        val n = drain()
        if (n == 0 && firesDone) quiet += 1 else quiet = 0
        rearm()
        // Firmware's own frames through the send queue (a few at a time; the queue may fill up).
        if (rnd.nextInt(8) == 0) for (_ <- 0 until 1 + rnd.nextInt(4)) randomSend()
        rnd.nextInt(60) match {
          case 0 | 1 | 2 => idleSession()
          case 3 =>   // off for a while: fires are ignored
            stateWrites += simTime(); setCtrl(ctrl & ~CTRL_ENABLE)
            sysCd.waitSampling(rnd.nextInt(3000))
            stateWrites += simTime(); setCtrl(ctrl | CTRL_ENABLE)
          case 4 if rnd.nextInt(4) == 0 => setTime(rnd.nextLong(DayMs).abs % DayMs, 49 + rnd.nextInt(200))
          case _ =>
        }
        sysCd.waitSampling(rnd.nextInt(300))
      }
      finish(nFires, name)

      // Latency of the fires that found the engine idle.
      // In simulation the second synchroniser flop takes the toggle at the second eth_tx edge after the eth_rx
      // edge that set it, so the engine's tx.valid is sampled 2..3 tx periods after it (exactly 3 with same
      // edges), and the arbiter's output register adds one (3..4 at the arbiter output, exactly 4 with same
      // edges); on hardware a metastable first flop may add one period.
      val iso = latencies.filter { case (f, l) => isolated(f, f.time + l, 8) }
      val lat = iso.map(_._2)
      val all = latencies.map(_._2)
      val P = clocks.tx.toLong
      // (at least 1 in 20: the send frames of the random traffic make a fire that finds the engine idle rarer)
      assert(iso.length > nFires / 20, s"only ${iso.length} isolated fires")
      val A = ExpectedArbiterCycles
      if (clocks.sameEdges) assert(lat.forall(_ == ExpectedFireToMacCycles * P), s"latency of isolated fires: ${lat.map(_ / P).groupBy(identity).view.mapValues(_.length).toMap}")
      else assert(lat.min > (2 + A + GateCycles) * P && lat.max <= (3 + A + GateCycles) * P, s"latency of isolated fires: ${lat.min / 100.0} .. ${lat.max / 100.0} ns")
      val secs = (System.nanoTime() - wallStart) / 1e9
      def ns(t: Long) = f"${t / 100.0}%.2f ns"
      println(f"[$name] fire.valid sampled -> tx.valid sampled at the arbiter output, ${iso.length} fires that found the engine idle: " +
        f"min ${ns(lat.min)} (${lat.min.toDouble / P}%.2f tx cycles) max ${ns(lat.max)} (${lat.max.toDouble / P}%.2f); " +
        f"all ${all.length} sent: max ${ns(all.max)}; ${simTime() / P} tx cycles in $secs%.1f s")
    }
  }

  test(s"random fires, idle sessions, re-arms, CPU frames; same-edge 125 MHz clocks; latency exactly $ExpectedFireToMacCycles (seed $seed)") {
    runRandom("random_same_edge", Clocks(sys = 800, rx = 800, tx = 800, sameEdges = true), 3000, seed, cpuTraffic = true)
  }
  test(s"random fires, unrelated clocks: rx 8 ns, tx 8.1 ns, sys 10 ns (seed ${seed + 1})") {
    runRandom("random_async", Clocks(sys = 1000, rx = 800, tx = 810), 2000, seed + 1, cpuTraffic = true)
  }
  test(s"random fires, unrelated clocks: sys 20 ns (slower than the line), rx 8.1 ns, tx 8 ns, no CPU traffic (seed ${seed + 2})") {
    runRandom("random_sys50", Clocks(sys = 2000, rx = 810, tx = 800), 1500, seed + 2, cpuTraffic = false)
  }

  test(s"MsgSeqNum carries and widths, TCP sequence wrap, IP id wrap (seed $seed)") {
    compile(cfg).doSim("carries", seed = seed) { dut =>
      SimTimeout(2000L * 1000 * 1000 * 100)
      val rnd = new Random(seed)
      val b = makeBench(dut, Clocks(800, 800, 800, sameEdges = true), rnd)
      import b._
      macModes = Seq(0)
      init(seq = 0xFFFFFF80L, msg = 99998, ipId = 0xFFFF, win = 65535, timeMs = 12 * 3600000L, div = 124999)
      // Templates 0..2: MsgSeqNum widths 5, 6, 10.
      quiesce(); command(ARM_CLR, 0xFFFF); for (t <- 0 until 16) armedModel(t) = false; resume()
      for ((w, t) <- Seq(5, 6, 10).zipWithIndex) { writeTemplate(t, build(rnd, w, true, true)) }
      def fireAndCheck(t: Int, expStatus: Int): Unit = {
        if (!armedModel(t) && expStatus == OrderEngine.St.SENT) arm(1L << t)
        fireGroup(Seq(t))
        while (bus.read(LOG_COUNT) == 0) sysCd.waitSampling(20)
        val before = counts(expStatus)
        drain()
        assert(counts(expStatus) == before + 1, s"template $t: status $expStatus expected")
        toRearm.clear()
      }
      fireAndCheck(0, OrderEngine.St.SENT)             // 99998 in 5 digits; seq 0xFFFFFF00 + plen wraps past 0
      assert(expSeq < 0x1000, "the TCP sequence wrapped")
      fireAndCheck(0, OrderEngine.St.SENT)             // 99999
      arm(1)
      fireAndCheck(0, OrderEngine.St.SUPPRESSED_WIDTH) // 100000 does not fit 5 digits: suppressed, nothing used
      fireAndCheck(1, OrderEngine.St.SENT)             // 100000 in 6 digits
      fireAndCheck(2, OrderEngine.St.SENT)             // 0000100001
      // 9999999999 is out of 32-bit reach; the largest 32-bit values: 4294967294, 4294967295 in 10 digits.
      quiesce(); drain(); expMsg = 4294967294L; bus.write(NEXT_MSGSEQ, expMsg); sends += ((expSeq, 0, expMsg - 1, "jump", true)); resume()
      writeTemplate(2, build(rnd, 10, true, false))
      fireAndCheck(2, OrderEngine.St.SENT)
      writeTemplate(1, build(rnd, 10, false, true))
      fireAndCheck(1, OrderEngine.St.SENT)
      assert(bus.read(NOT_ARMED) == 0)
      fireGroup(Seq(5)); sysCd.waitSampling(50)
      assert(bus.read(NOT_ARMED) == 1, "a fire for a disarmed template is counted")
      finish(fires.length, "carries")
    }
  }

  test(s"ACK_SET: orders carry firmware's ACK instead of the parser's until CTRL.ENABLE is cleared (seed $seed)") {
    compile(cfg).doSim("ackset", seed = seed) { dut =>
      SimTimeout(2000L * 1000 * 1000 * 100)
      val rnd = new Random(seed)
      val b = makeBench(dut, Clocks(sys = 1000, rx = 800, tx = 810), rnd)
      import b._
      macModes = Seq(0)
      init(seq = 5000, msg = 10, ipId = 7, win = 8192, timeMs = 0, div = 124999)
      def fireOne(t: Int): Unit = {
        if (!armedModel(t)) arm(1L << t)
        val before = counts(OrderEngine.St.SENT)
        fireGroup(Seq(t))                      // with a random parser ACK
        while (bus.read(LOG_COUNT) == 0) sysCd.waitSampling(20)
        drain()                                // checks the record's ACK and the frame (ACK field, checksum)
        assert(counts(OrderEngine.St.SENT) == before + 1, s"template $t sent")
        toRearm.clear()
      }
      fireOne(0)                               // the parser's ACK
      for ((a, k) <- Seq(0x12345678L, 0xFFFFFFF0L, 0x10L).zipWithIndex) {
        command(ACK_SET, a); fwAck = Some(a)
        for (t <- 1 to 3) fireOne(1 + 3 * k + t - 1)
      }
      setCtrl(ctrl & ~CTRL_ENABLE); sysCd.waitSampling(20)
      setCtrl(ctrl | CTRL_ENABLE); fwAck = None; sysCd.waitSampling(20)
      fireOne(12)                              // the parser's ACK again: ACK_SET was forgotten
      finish(fires.length, "ackset")
    }
  }

  test(s"burst: 40 fires on consecutive cycles, CPU frames waiting; queued orders go back to back (seed $seed)") {
    compile(cfg).doSim("burst", seed = seed) { dut =>
      SimTimeout(2000L * 1000 * 1000 * 100)
      val rnd = new Random(seed)
      val clocks = Clocks(800, 800, 800, sameEdges = true)
      val b = makeBench(dut, clocks, rnd)
      import b._
      macModes = Seq(0)
      init(seq = 1000, msg = 1, ipId = 0, win = 1024, timeMs = 0, div = 124999)
      // Templates 0..15, then 0..15 and 0..7 again: the repeats find their template disarmed (one-shot; the
      // firmware model does not re-arm here) or the queue full.
      fireGroup((0 until 16) ++ (0 until 16) ++ (0 until 8))
      while (fires(0).time < 0) dut.rxCd.waitSampling()
      for (_ <- 0 until 4) cpuFrame(200)            // from now on the CPU has frames waiting
      var quiet = 0
      while (quiet < 5) { if (drain() == 0) quiet += 1 else quiet = 0; sysCd.waitSampling(2000) }
      finish(fires.length, "burst")
      val ovf = bus.read(RX_OVERFLOW)
      assert(ovf >= 20, s"a 40-fire burst overflows the 16-entry queue (overflow $ovf)")
      assert(counts(OrderEngine.St.SENT) == 16, "the 16 armed templates are sent")
      assert(latencies.head._2 == ExpectedFireToMacCycles * clocks.tx, s"first order latency ${latencies.head._2 / clocks.tx}")
      // While the queue drains, each order starts three cycles after the previous one's last byte: no CPU frame between.
      val o = orderFramesAll
      for (i <- 1 until o.length; a = o(i - 1); c = o(i)) assert(c.start == a.end + 3 * clocks.tx, s"queued order starts ${(c.start - a.end) / clocks.tx} cycles after the previous one's last byte")
      assert(cpuFramesAll.forall(_.start > o.last.end), "a CPU frame slipped between queued orders")
      println(s"[burst] 40 fires: ${o.length} orders back to back, rx overflow $ovf, not armed ${bus.read(NOT_ARMED)}, then ${cpuFramesAll.length} CPU frames")
    }
  }

  test(s"send queue: SEND_FREE, refusals, FIFO order, all modes; a fire behind a full queue waits only for the frame on the wire (seed $seed)") {
    compile(cfg).doSim("sendq", seed = seed) { dut =>
      SimTimeout(4000L * 1000 * 1000 * 100)
      val rnd = new Random(seed)
      val clocks = Clocks(800, 800, 800, sameEdges = true)
      val b = makeBench(dut, clocks, rnd)
      import b._
      macModes = Seq(0)
      init(seq = 0xFFFFF800L, msg = 9990, ipId = 0xFFFE, win = 2048, timeMs = 3600000L, div = 124999)
      setCtrl(ctrl & ~CTRL_ENABLE)   // disabled: SENDs wait in the queue
      // Eight 511-byte frames in slots 16, 18, .. 30 (each takes two slots; slot 31 is the second half of slot 30's):
      // modes 0, 1, 2 in turn, FIN on some.
      val ring = (0 until 8).map { i =>
        val mode = i % 3
        val tp = buildSend(rnd, OrderEngine.SendMaxLen, mode, i % 4 == 3, if (mode == 0) 8 else rnd.nextInt(16), 1 + rnd.nextInt(9000))
        writeSlot(2 * i, tp); (2 * i, tp)
      }
      // Refused: slot below 16, mode 3; nothing is queued.
      for (v <- Seq(5L, 16L | (3L << 8))) {
        bus.write(SEND, v)
        assert((status & ST_REFUSED) != 0 && bus.read(SEND_FREE) == 16, s"SEND 0x${v.toHexString} refused")
        bus.write(STATUS_CLR, ST_REFUSED)
      }
      // Fill the queue (16 entries): SEND_FREE counts down; the 17th is refused and not queued.
      for (k <- 0 until 16) {
        assert(bus.read(SEND_FREE) == 16 - k, s"SEND_FREE before SEND $k")
        val (slot, tp) = ring(k % 8)
        assert(queueSend(slot, tp, rnd.nextLong() & M32))
      }
      assert(bus.read(SEND_FREE) == 0, "SEND_FREE with the queue full")
      bus.write(SEND, 16)
      assert((status & ST_REFUSED) != 0 && bus.read(SEND_FREE) == 0, "SEND refused while full")
      bus.write(STATUS_CLR, ST_REFUSED)
      sysCd.waitSampling(200)
      assert(orderFrames.isEmpty && bus.read(LOG_COUNT) == 0, "nothing sent while disabled")
      // Enable: the frames go out one after the other; meanwhile fires arrive at random moments and each must go
      // right after the frame on the wire.
      setCtrl(ctrl | CTRL_ENABLE)
      var extra = 0
      for (i <- 0 until 6) {   // each fire 20..119 cycles after an engine frame (at least 180 bytes) started
        val n0 = engineStarts.length
        while (engineStarts.length == n0) dut.txCd.waitSampling()
        dut.txCd.waitSampling(20 + rnd.nextInt(100))
        fireGroup(Seq(i))
        if (i % 2 == 1) { val (slot, tp) = ring(rnd.nextInt(8)); if (queueSend(slot, tp, rnd.nextLong() & M32)) extra += 1 }   // while there is room
      }
      var quiet = 0
      while (quiet < 3) { if (drain() == 0) quiet += 1 else quiet = 0; sysCd.waitSampling(3000) }
      finish(fires.length, "sendq")
      assert(extra > 0 && sendCounts.values.sum == 16 + extra && sendCounts.keys.forall(_._2 == OrderEngine.St.SENT), s"${16 + extra} send frames sent: $sendCounts")
      // Each fire's frame starts a fixed number of cycles after the last byte of the frame that was on the wire when
      // it arrived (the previous engine frame), never later; no send frame starts in between.
      val o = orderFramesAll
      assert(latencies.length == 6, "the six fires sent")
      val gaps = latencies.map { case (f, lat) =>
        val i = o.indexWhere(_.start == f.time + lat)
        assert(i > 0, s"fire $f: its frame")
        val prev = o(i - 1)
        assert(prev.start < f.time && prev.end > f.time + 50L * clocks.tx, s"fire $f: arrived while the frame before it was on the wire")
        (o(i).start - prev.end) / clocks.tx
      }
      assert(gaps.forall(_ == ExpectedFireAfterFrameCycles), s"fire behind a send frame: starts ${gaps.mkString(", ")} cycles after that frame's last byte")
      println(s"[sendq] ${16 + extra} send frames of 511 bytes (modes 0, 1, 2, FIN), 6 fires among them: each fire's order starts " +
        s"${gaps.head} cycles after the last byte of the frame on the wire; gaps before send frames: ${(1 until o.length).map(i => (o(i).start - o(i - 1).end) / clocks.tx).distinct.sorted.mkString(", ")} cycles")
    }
  }

  test(s"through the LiteEth GMII MAC: fire.valid -> TX_EN, tx stamp -> TX_EN, frames and FCS on the pins (seed $seed)") {
    OrderMacSim.compiled.doSim("mac", seed = seed) { dut =>
      SimTimeout(400L * 1000 * 1000 * 100)
      val rnd = new Random(seed)
      dut.io.bus.cmd.valid #= false
      dut.io.fire.valid #= false
      dut.io.gmii_rx_clk #= false
      dut.io.gmii_gtx_clk #= false
      // sys, eth_rx and eth_tx at 125 MHz on the same edges (as the SoC simulation).
      dut.clockDomain.forkStimulus(800)
      fork { while (true) { sleep(400); dut.io.gmii_rx_clk #= true; dut.io.gmii_gtx_clk #= true; sleep(400); dut.io.gmii_rx_clk #= false; dut.io.gmii_gtx_clk #= false } }
      val cd = dut.clockDomain
      cd.waitSampling(); cd.waitSamplingWhere(!cd.isResetAsserted); cd.waitSampling(20)
      val bus = new SimBusMaster(dut.io.bus, cd)
      def status = bus.read(STATUS)
      def waitCmd(): Unit = while ((status & ST_CMD_BUSY) != 0) cd.waitSampling()

      // The pins: every frame TX_EN high, with the DUT cycle at which the PHY first samples TX_EN = 1.
      case class PinFrame(bytes: Array[Int], enTime: Long, enCycle: Long)
      val pinFrames = mutable.Queue[PinFrame]()
      val cur = mutable.ArrayBuffer[Int]()
      var en = false; var enTime = 0L; var enCycle = 0L
      dut.txCd.onSamplings {
        val e = dut.io.gmii_tx_en.toBoolean
        if (e && !en) { enTime = simTime(); enCycle = dut.engine.tx.cycle.toLong; cur.clear() }
        if (e) cur += dut.io.gmii_tx_data.toInt
        if (!e && en) pinFrames.enqueue(PinFrame(cur.toArray, enTime, enCycle))
        en = e
      }
      val fireTimes = mutable.ArrayBuffer[Long]()
      def fire(t: Int, ack: Long): Unit = {
        dut.rxCd.waitSampling(rnd.nextInt(7))
        val p = dut.io.fire.payload
        dut.io.fire.valid #= true
        p.template #= t; p.trigger #= rnd.nextInt(64); p.ackSeq #= ack; p.stamp #= fireTimes.length; p.price #= 0
        dut.rxCd.waitSampling()
        fireTimes += simTime()
        dut.io.fire.valid #= false
      }

      val tmpl = Array.fill[Template](8)(null)
      def write(t: Int, tp: Template): Unit = {
        for ((w, i) <- tp.words.zipWithIndex) bus.write(TEMPLATE + 256 * t + 4 * i, w)
        for ((w, i) <- tp.meta.zipWithIndex) bus.write(META + 16 * t + 4 * i, w)
        tmpl(t) = tp
      }
      for (t <- 0 until 8) write(t, build(rnd, 6 + rnd.nextInt(5), rnd.nextBoolean(), rnd.nextBoolean()))
      bus.write(MS_DIVISOR, 124999); bus.write(TIME_LO, toBcd(9 * 3600000L + 30 * 60000L) & M32); waitCmd(); bus.write(TIME_SET, 0); waitCmd()
      while ((status & ST_IDLE) == 0) cd.waitSampling()   // (disabled since reset)
      var seq = 0x10000000L; var msg = 4242L; var ipId = 100
      bus.write(NEXT_SEQ, seq); bus.write(NEXT_MSGSEQ, msg); bus.write(IP_ID, ipId); bus.write(WINDOW, 4096)
      bus.write(CTRL, CTRL_ENABLE)
      while ((status & ST_RUNNING) == 0) cd.waitSampling()
      waitCmd(); bus.write(ARM_SET, 0xFF); waitCmd()

      val n = 40
      val lat = mutable.ArrayBuffer[Long]()
      val stampToEn = mutable.ArrayBuffer[Long]()
      for (i <- 0 until n) {
        val t = i % 8
        val ack = rnd.nextLong() & M32
        fire(t, ack)
        while (bus.read(LOG_COUNT) == 0) cd.waitSampling(10)
        val r = FireRecord.decode((0 until 8).map(_ => bus.read(LOG_DATA)))
        assert(r.status == OrderEngine.St.SENT && r.template == t && r.ack == ack && r.seq == seq && r.msgSeq == msg && r.ipId == ipId, s"fire $i: $r")
        while (pinFrames.isEmpty) cd.waitSampling(10)
        val pf = pinFrames.dequeue()
        val exp = expected(tmpl(t), r.seq, r.ack, r.window, r.ipId, r.msgSeq, fromBcd(r.timeBcd))
        val padded = exp ++ Array.fill(math.max(0, 60 - exp.length))(0)
        val fcs = OrderMacSim.crc32(padded.toSeq)
        val wire = Array.fill(7)(0x55) ++ Array(0xD5) ++ padded ++ (0 until 4).map(k => ((fcs >> (8 * k)) & 0xFF).toInt)
        assert(pf.bytes.sameElements(wire), s"fire $i: on the pins\n got ${pf.bytes.map(b => f"$b%02x").mkString}\n exp ${wire.map(b => f"$b%02x").mkString}")
        lat += (pf.enTime - fireTimes(i)) / 800
        stampToEn += pf.enCycle - r.txStamp
        seq = (seq + r.plen) & M32; msg += 1; ipId += 1
        write(t, build(rnd, 6 + rnd.nextInt(5), rnd.nextBoolean(), rnd.nextBoolean()))   // re-arm with new contents
        waitCmd(); bus.write(ARM_SET, 1L << t); waitCmd()
        cd.waitSampling(rnd.nextInt(500))
      }
      assert(lat.distinct.length == 1 && stampToEn.distinct.length == 1, s"latencies ${lat.distinct}, stamp -> TX_EN ${stampToEn.distinct}")
      println(s"[mac] $n orders through the LiteEth GMII MAC, byte-exact with preamble and FCS on the pins; " +
        s"fire.valid (sampling edge) -> TX_EN sampled high: ${lat.head} cycles, always; tx stamp -> TX_EN: +${stampToEn.head} cycles, always")
    }
  }

  test("elaborates as Verilog (SpinalConfig like the SoC's) and its registers give the C header") {
    val dir = "build/offload/verilog"
    val report = SpinalConfig(targetDirectory = dir,
      defaultConfigForClockDomains = ClockDomainConfig(resetKind = SYNC, resetActiveLevel = HIGH))
      .generateVerilog(OrderEngine(cfg, ClockDomain.external("eth_rx"), ClockDomain.external("eth_tx")).setDefinitionName("OrderEngine"))
    val top = report.toplevel
    val h = CHeader("TF_ORDER_TX_TEST_H", "OrderEngine registers (test)", Seq((BigInt(0xF0020000L), top.regs)), top.headerConstants)
    java.nio.file.Files.write(java.nio.file.Paths.get(s"$dir/order_tx.h"), h.getBytes("UTF-8"))
    for (n <- Seq("ORDER_TX_CTRL_ENABLE_SHIFT", "ORDER_TX_STATUS_IDLE_SHIFT", "ORDER_TX_NEXT_SEQ", "ORDER_TX_NEXT_MSGSEQ",
      "ORDER_TX_LOG_DATA", "ORDER_TX_ARM_SET", "ORDER_TX_TIME_SET", "ORDER_TX_META ", "ORDER_TX_TEMPLATE ", "ORDER_TX_LOG_RECORDS"))
      assert(h.contains(n), s"$n in the header")
    val offsets = Map("CTRL" -> CTRL, "STATUS" -> STATUS, "NEXT_SEQ" -> NEXT_SEQ, "NEXT_MSGSEQ" -> NEXT_MSGSEQ, "ARM_SET" -> ARM_SET,
      "LOG_COUNT" -> LOG_COUNT, "LOG_DATA" -> LOG_DATA, "TIME_SET" -> TIME_SET, "META" -> META, "TEMPLATE" -> TEMPLATE, "RX_OVERFLOW" -> RX_OVERFLOW)
    for ((n, o) <- offsets) assert(top.regs.entries.exists(e => e.name == n && e.offset == o), s"$n at 0x${o.toHexString}")
    val v = scala.io.Source.fromFile(s"$dir/OrderEngine.v").mkString
    assert(!v.contains("$display") && !v.contains("$finish"), "no simulation-only constructs")
    println(s"[OrderEngineElab] Verilog and header in $dir (${v.length} chars of Verilog, ${top.regs.entries.size} registers/windows)")
  }
}
