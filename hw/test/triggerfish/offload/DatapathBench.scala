// The datapath benchmark (issue 6, part of `make bench`): the offload datapath (LiteEth GMII MAC -> OffloadRx ->
// OrderEngine -> OrderEngineTxArbiter -> MAC, DatapathTop) in Verilator, driven on the GMII RX pins and timed on
// the GMII TX pins.
//  1. The 2010 messaging benchmark's sweep (seeds/004): FIX bodies of 16..1024 bytes x message volumes, one W per
//     TCP segment, frames back to back at 1 Gb/s; every crossEvery-th message crosses an armed stop (the harness,
//     playing the firmware, re-arms the entry and its order template after each order). Per cell: the fires,
//     missed and false fires against OffloadRxModel and the orders on the pins, and the latencies.
//  2. The line-rate check: the smallest messages back to back at 1 Gb/s (minimum gap and preamble on the pins),
//     one per segment and packed many per segment (whole messages up to the MSS), all 64 entries armed.
// Usage: ./mill -i hw.test.runMain triggerfish.offload.DatapathBench [--out build/bench/datapath]
//          [--volumes 25000,50000] [--sizes 16,32,64,128,256,512,1024] [--linerate-messages 50000]
//          [--cross-every 50] [--seed 1] [--early-fires 1000]
//  3. Early fires (docs/DESIGN.md "Early trigger"; DatapathTop built with them): per layout (the paper's, the trade
//     entry first, coalesced segments) a row with EARLY_CTRL on and one with it off (safe), each of at least
//     --early-fires fires (0: skipped); then segments corrupted after the price (bad FCS, TCP checksum, FIX CheckSum),
//     whose orders must all leave poisoned.
// Writes OUT/datapath.json; exits 1 if any fire was missed or false, or an order was not byte-exact.
package triggerfish.offload

import spinal.core.sim._
import scala.collection.mutable.ArrayBuffer

object DatapathBench {
  import DatapathSim._

  val boundary: String =
    "GMII pins of the LiteEth MAC (PHY side), the DESIGN.md boundary: the simulated datapath is the LiteEth GMII MAC, " +
      "OffloadRx on its receive stream, OrderEngine and OrderEngineTxArbiter in front of its transmit side, one 125 MHz " +
      "clock for sys, eth_rx and eth_tx (same edges). A byte's cycle is the clock edge at which the MAC samples it on " +
      "GMII RX; an order's cycle is the first edge at which TX_EN is sampled high. latency_cycles: from the last byte of " +
      "the triggering W message (the SOH ending 10=ccc) on RX to TX_EN of its order (one message per segment, so the " +
      "4 FCS bytes follow it). eof2sof: from the last FCS byte on RX; t2t: from the SOH ending the triggering 270 field; " +
      "sof2sof: from the first preamble byte. ns at 125 MHz (8 ns per cycle)."

  case class Args(out: String = "build/bench/datapath", volumes: Seq[Int] = Seq(25000, 50000),
                  sizes: Seq[Int] = Seq(16, 32, 64, 128, 256, 512, 1024), linerateMessages: Int = 50000,
                  crossEvery: Int = 50, seed: Int = 1, hideFires: Int = 0 /* tests only */, earlyFires: Int = 1000)

  def parse(a: List[String], r: Args = Args()): Args = a match {
    case "--out" :: v :: t => parse(t, r.copy(out = v))
    case "--volumes" :: v :: t => parse(t, r.copy(volumes = v.split(",").map(_.trim.toInt).toSeq))
    case "--sizes" :: v :: t => parse(t, r.copy(sizes = v.split(",").map(_.trim.toInt).toSeq))
    case "--linerate-messages" :: v :: t => parse(t, r.copy(linerateMessages = v.toInt))
    case "--cross-every" :: v :: t => parse(t, r.copy(crossEvery = v.toInt))
    case "--seed" :: v :: t => parse(t, r.copy(seed = v.toInt))
    case "--early-fires" :: v :: t => parse(t, r.copy(earlyFires = v.toInt))
    case Nil => r
    case x :: _ => throw new IllegalArgumentException(s"unknown argument $x (see DatapathBench.scala)")
  }

  case class Cell(bodyTarget: Int, volume: Int, bodyMin: Int, bodyMax: Int, msgBytes: Double, p: PhaseResult)
  case class LineRun(mode: String, bodyTarget: Int, messages: Int, bodyMin: Int, bodyMax: Int, p: PhaseResult,
                     wireCycles: Long, backToBack: Boolean)
  case class Result(cells: Seq[Cell], line: Seq[LineRun], wallSeconds: Double, compileSeconds: Double, early: Option[EarlyResult] = None) {
    def all: Seq[PhaseResult] = cells.map(_.p) ++ line.map(_.p)
    def ok: Boolean = all.forall(p => p.missed == 0 && p.falseFires == 0 && p.cleanOrders && p.unintendedCount == 0) && early.forall(_.ok)
  }

  // ---- 3. early fires
  /** tap: what the parser reads, "lean" (EthRxLeanTap, the early builds') or "LiteEth" (the MAC's own stream, the one
    * comparison row: the lean tap's difference in the same run). */
  case class EarlyRow(layout: String, early: Boolean, p: PhaseResult, tap: String = "lean") {
    def t2tEarly: Stat = Stat.of(p.lats.filter(l => l.early && l.t2t >= 0).map(_.t2t))
    def ok: Boolean = p.missed == 0 && p.falseFires == 0 && p.cleanOrders && p.unintended == 0 && p.poisoned.isEmpty &&
      (early || p.hwFires.forall(!_.early))
  }
  /** Segments corrupted after the price, by kind ("good", "fcs", "tcp", "fixsum"): crossings and segments made. */
  case class EarlyCorruption(crossings: Map[String, Int], segments: Map[String, Int], p: PhaseResult) {
    def bad(m: Map[String, Int]): Int = m("fcs") + m("tcp") + m("fixsum")
    /** The numbers: each order takes the next ones, a poisoned order's are the next order's. */
    val numbersOk: Boolean = {
      var next: Option[(Long, Long, Int)] = None
      p.framed.forall { rec =>
        val ok = next.forall(_ == ((rec.seq, rec.msgSeq, rec.ipId)))
        next = Some(if (rec.status == OrderEngine.St.POISONED) (rec.seq, rec.msgSeq, rec.ipId)
                    else ((rec.seq + rec.plen) & 0xFFFFFFFFL, rec.msgSeq + 1, (rec.ipId + 1) & 0xFFFF))
        ok
      }
    }
    def ok: Boolean = p.missed == 0 && p.falseFires == 0 && p.cleanOrders && p.unintended == 0 && numbersOk &&
      p.poisoned.length == bad(crossings) && p.sent.length == crossings("good") &&
      p.sent.forall(_.status == OrderEngine.St.SENT_EARLY) &&
      p.rxCounters("SEG_BAD") == segments("fcs") + segments("tcp") && p.rxCounters("FIX_ERRORS") == segments("fixsum")
  }
  case class EarlyResult(rows: Seq[EarlyRow], corruption: EarlyCorruption, liteEth: Option[EarlyRow] = None) {
    def ok: Boolean = rows.forall(_.ok) && corruption.ok && liteEth.forall(_.ok)
  }
  val earlyBody = 256
  def onePerSegment(r: DatapathRun, msgs: Int, size: Int): PhaseResult = {
    var left = msgs
    r.phase(() => if (left == 0) None else { left -= 1; val (m, e, _) = r.nextMessage(size); Some(r.segment(Seq((m, e)))) })
  }
  def packedSegments(r: DatapathRun, msgs: Int, size: Int): PhaseResult = {
    var left = msgs
    var pending: Option[(String, Option[Int], Int)] = None
    r.phase(() => if (left == 0 && pending.isEmpty) None else {
      val seg = ArrayBuffer[(String, Option[Int])]()
      var len = 0
      var full = false
      while (!full && (pending.nonEmpty || left > 0)) {
        val x = pending.getOrElse { left -= 1; r.nextMessage(size) }
        pending = None
        if (seg.isEmpty || len + x._1.length <= Mss) { seg += ((x._1, x._2)); len += x._1.length } else { pending = Some(x); full = true }
      }
      Some(r.segment(seg.toSeq))
    })
  }
  def setEarly(r: DatapathRun, on: Boolean): Unit = {
    r.pauseFirmware()
    r.rxBus.write(r.rxOff("EARLY_CTRL"), if (on) 1 else 0)
    r.rxCmd(OffloadRx.Op.CONFIG)
    r.resumeFirmware()
  }
  /** The layouts, early then safe: `msgs` messages each (a crossing every r.crossEvery-th). */
  def earlyLayouts(r: DatapathRun, msgs: Int): Seq[EarlyRow] = {
    val rows = ArrayBuffer[EarlyRow]()
    for (early <- Seq(true, false)) {
      setEarly(r, early)
      r.tradeFirst = false
      rows += EarlyRow(s"paper layout: trade last, one W of $earlyBody per segment", early, onePerSegment(r, msgs, earlyBody))
      r.tradeFirst = true
      rows += EarlyRow(s"trade first in a W of $earlyBody, one per segment", early, onePerSegment(r, msgs, earlyBody))
      rows += EarlyRow(s"coalesced: W of $earlyBody, trade first, whole messages up to the MSS", early, packedSegments(r, 2 * msgs, earlyBody))
    }
    rows.toSeq
  }
  /** Segments of one W each (trade first), in turn good, with a bad FCS, with a bad TCP checksum (a byte of the padding
    * after the price changed, the checksum not redone), and with a FIX CheckSum that does not match (the same change
    * in a good frame), early mode on. */
  def earlyCorruption(r: DatapathRun, segments: Int): EarlyCorruption = {
    setEarly(r, true)
    r.tradeFirst = true
    r.crossEvery = 1   // every message crosses an entry (one that is armed and whose template is)
    val kinds = Seq("good", "fcs", "tcp", "fixsum")
    var k = 0
    val made = scala.collection.mutable.Map[String, Int]().withDefaultValue(0)
    val segs = scala.collection.mutable.Map[String, Int]().withDefaultValue(0)
    val p = r.phase(() => if (k == segments) None else {
      val kind = kinds(k % 4); k += 1
      val (m0, e, _) = r.nextMessage(earlyBody)
      val at = m0.lastIndexOf("\u000110=") - 12   // a letter of the padding after the trade entry
      require(m0.charAt(at).isLetter, s"not a padding letter: ${m0.substring(at - 5, at + 5)}")
      val m1 = m0.updated(at, if (m0.charAt(at) == 'A') 'B' else 'A')
      if (e.isDefined) made(kind) += 1
      segs(kind) += 1
      Some(kind match {
        case "good" => r.segment(Seq((m0, e)))
        case "fcs" => r.segment(Seq((m0, e)), corrupt = Some(_ => ()), fcsBad = true)
        case "tcp" => r.segment(Seq((m0, e)), corrupt = Some(b => b(54 + at) = m1.charAt(at).toInt))
        case _ => r.segment(Seq((m1, e)), corrupt = Some(_ => ()))
      })
    })
    EarlyCorruption(made.toMap.withDefaultValue(0), segs.toMap.withDefaultValue(0), p)
  }
  /** Part 3 on its own simulation (DatapathTop with early fires): rows of at least `fires` fires each; with `liteEthRow`,
    * one more simulation with the parser on LiteEth's own stream (no lean tap): the paper layout's early row again. */
  def runEarly(fires: Int, crossEvery: Int, seed: Int, log: String => Unit = println, liteEthRow: Boolean = false): EarlyResult = {
    var res: EarlyResult = null
    DatapathSim.compiledEarly.doSim("datapath_early", seed = seed) { dut =>
      startClock(dut)
      val r = new DatapathRun(dut, seed, crossEvery)
      r.pump(); r.setup(); r.firmware()
      val rows = earlyLayouts(r, fires * crossEvery + crossEvery)
      val corr = earlyCorruption(r, 2 * fires + 8)
      res = EarlyResult(rows, corr)
      r.stopFw = true; r.stopPump = true
      dut.clockDomain.waitSampling(Period * 2)
    }
    if (liteEthRow) DatapathSim.compiledEarlyLiteEth.doSim("datapath_early_liteeth", seed = seed) { dut =>
      startClock(dut)
      val r = new DatapathRun(dut, seed, crossEvery)
      r.pump(); r.setup(); r.firmware()
      setEarly(r, true)
      r.tradeFirst = false
      val row = EarlyRow(s"paper layout: trade last, one W of $earlyBody per segment", early = true,
        onePerSegment(r, fires * crossEvery + crossEvery, earlyBody), tap = "LiteEth")
      res = res.copy(liteEth = Some(row))
      r.stopFw = true; r.stopPump = true
      dut.clockDomain.waitSampling(Period * 2)
    }
    def fmt(s: Stat): String = if (s.count == 0) "-" else f"${s.min}/${s.avg}%.1f/${s.max}"
    log(f"[datapath] early fires: ${"layout"}%-64s ${"mode"}%5s ${"tap"}%7s ${"fires"}%6s ${"early"}%6s ${"T2T early"}%12s ${"T2T all"}%16s ${"EOF2SOF"}%18s")
    for (w <- res.rows ++ res.liteEth)
      log(f"[datapath] early fires: ${w.layout}%-64s ${if (w.early) "early" else "safe"}%5s ${w.tap}%7s ${w.p.hwFires.length}%6d ${w.p.hwFires.count(_.early)}%6d " +
        f"${fmt(w.t2tEarly)}%12s ${fmt(w.p.t2t)}%16s ${fmt(w.p.eof2sof)}%18s" + (if (w.ok) "" else "  <-- FAILED"))
    val c = res.corruption
    log(s"[datapath] early fires, corrupted after the price: crossings ${c.crossings}, segments ${c.segments}; orders sent early " +
      s"${c.p.sent.length}, poisoned ${c.p.poisoned.length}; numbers of poisoned orders reused: ${c.numbersOk}" + (if (c.ok) "" else "  <-- FAILED"))
    res
  }
  def earlyJ(e: EarlyResult): String = j(Seq[(String, Any)](
    "rows" -> (e.rows ++ e.liteEth).map(w => RawJ(j(Seq[(String, Any)]("layout" -> w.layout, "mode" -> (if (w.early) "early" else "safe"), "tap" -> w.tap,
      "early_fires" -> w.p.hwFires.count(_.early), "poisoned" -> w.p.poisoned.length, "ok" -> w.ok,
      "t2t_early_cycles" -> statJ(w.t2tEarly)) ++ phaseJ(w.p)))),
    "corruption" -> Seq[(String, Any)]("crossings" -> e.corruption.crossings.toSeq.sorted, "segments" -> e.corruption.segments.toSeq.sorted,
      "sent_early" -> e.corruption.p.sent.length, "poisoned" -> e.corruption.p.poisoned.length,
      "numbers_reused" -> e.corruption.numbersOk, "ok" -> e.corruption.ok,
      "missed" -> e.corruption.p.missed, "false" -> e.corruption.p.falseFires, "orders_byte_exact" -> e.corruption.p.cleanOrders),
    "note" -> ("early: EARLY_CTRL on (an entry fires at the price, its order's end waits for the segment's verdict); safe: off. " +
      "t2t from the SOH ending the crossing 270 on RX to TX_EN; a poisoned order leaves with its last FCS byte inverted. " +
      "tap: what the parser reads, lean (EthRxLeanTap, the MAC's bytes before its FCS hold-back) or LiteEth (the MAC's own " +
      "stream, the bytes 5 cycles later: the comparison row, its own simulation in the same run)")))
  implicit class PR(p: PhaseResult) { def unintendedCount: Int = p.unintended }

  // ---- JSON (no library)
  def j(v: Any): String = v match {
    case s: String => "\"" + s.flatMap { case '"' => "\\\""; case '\\' => "\\\\"; case '\n' => "\\n"; case c => c.toString } + "\""
    case d: Double => if (d.isNaN || d.isInfinite) "null" else f"$d%.3f"
    case b: Boolean => b.toString
    case m: Seq[_] if m.nonEmpty && m.head.isInstanceOf[(_, _)] =>
      m.asInstanceOf[Seq[(String, Any)]].map { case (k, x) => j(k) + ": " + j(x) }.mkString("{", ", ", "}")
    case m: Seq[_] => m.map(j).mkString("[", ",\n  ", "]")
    case x => x.toString
  }
  def statJ(s: Stat): Seq[(String, Any)] = Seq("min" -> s.min, "avg" -> s.avg, "max" -> s.max, "median" -> s.median, "count" -> s.count)
  def statNs(s: Stat): Seq[(String, Any)] = { val k = 1000.0 / ClockMhz; Seq("min" -> s.min * k, "avg" -> s.avg * k, "max" -> s.max * k, "median" -> s.median * k) }

  def phaseJ(p: PhaseResult): Seq[(String, Any)] = Seq(
    "fires" -> p.hwFires.length, "model_fires" -> p.modelFires.length, "orders_on_pins" -> p.ordersOnPins,
    "missed" -> p.missed, "false" -> p.falseFires, "orders_byte_exact" -> p.cleanOrders,
    "latency_cycles" -> statJ(p.msgEnd), "latency_ns" -> statNs(p.msgEnd),
    "eof2sof_cycles" -> statJ(p.eof2sof), "t2t_cycles" -> statJ(p.t2t), "sof2sof_cycles" -> statJ(p.sof2sof),
    "hw_counters" -> p.rxCounters.toSeq.sortBy(_._1), "engine_counters" -> p.engCounters.toSeq.sortBy(_._1),
    "model_w_msgs" -> p.modelCounts._1, "frames" -> p.frames,
    "crossings_skipped" -> p.crossSkipped, "unintended" -> p.unintendedCount,
    "stamp_offsets" -> p.stampToPins.toSeq.sorted.map(_.toString).mkString(","),   // fire stamp - RX pins cycle of its SOH: one value
    "sim_seconds" -> p.simSeconds, "wall_seconds" -> p.wallSeconds)

  def cellJ(c: Cell): String = j(Seq[(String, Any)]("body_bytes" -> c.bodyTarget, "messages" -> c.volume,
    "body_bytes_actual" -> Seq[(String, Any)]("min" -> c.bodyMin, "max" -> c.bodyMax), "message_bytes_avg" -> c.msgBytes) ++ phaseJ(c.p))

  def lineJ(l: LineRun): String = {
    val secs = l.wireCycles / (ClockMhz * 1e6)
    j(Seq[(String, Any)]("mode" -> l.mode, "body_bytes" -> l.bodyTarget,
      "body_bytes_actual" -> Seq[(String, Any)]("min" -> l.bodyMin, "max" -> l.bodyMax),
      "messages_offered" -> l.messages, "messages_processed" -> l.p.rxCounters("W_MSGS"),
      "segments" -> l.p.frames, "segments_in_order" -> l.p.rxCounters("SEG_INORDER"),
      "messages_per_segment" -> l.messages.toDouble / l.p.frames, "wire_cycles" -> l.wireCycles,
      "frames_back_to_back" -> l.backToBack, "offered_msgs_per_s" -> l.messages / secs,
      "processed_msgs_per_s" -> l.p.rxCounters("W_MSGS") / secs) ++ phaseJ(l.p))
  }

  def fmtStat(s: Stat): String = if (s.count == 0) "-" else f"${s.min}%d/${s.avg}%.1f/${s.max}%d"

  /** The clock and the reset from scheduled callbacks, not a simulation thread (forkStimulus would switch threads
    * twice a cycle, several times the cost of the simulation itself here). */
  def startClock(dut: DatapathTop): Unit = {
    val cd = dut.clockDomain
    cd.fallingEdge()
    cd.assertReset()
    def half(): Unit = { cd.clockToggle(); delayed(Period.toLong / 2)(half()) }
    delayed(Period.toLong / 2)(half())
    delayed(Period.toLong * 16)(cd.deassertReset())
  }

  def run(a: Args, log: String => Unit = println): Result = {
    val wall0 = System.nanoTime()
    val compiled = DatapathSim.compiled
    val compileSeconds = (System.nanoTime() - wall0) / 1e9
    log(f"[datapath] compiled in $compileSeconds%.0f s; boundary: GMII pins (LiteEth MAC -> OffloadRx -> OrderEngine -> arbiter -> MAC)")
    val cells = ArrayBuffer[Cell]()
    val line = ArrayBuffer[LineRun]()
    compiled.doSim("datapath", seed = a.seed) { dut =>
      startClock(dut)
      val r = new DatapathRun(dut, a.seed, a.crossEvery)
      r.pump()
      r.setup()
      r.hideFires = a.hideFires
      r.firmware()
      log(f"${"body"}%6s ${"msgs"}%8s ${"fires"}%6s ${"miss"}%4s ${"false"}%5s  ${"msg->TX_EN min/avg/max"}%22s ${"EOF2SOF"}%12s ${"T2T"}%12s ${"SOF2SOF"}%16s ${"sim s"}%8s ${"wall s"}%7s")
      def row(label: String, msgs: Int, p: PhaseResult): Unit =
        log(f"$label%6s $msgs%8d ${p.hwFires.length}%6d ${p.missed}%4d ${p.falseFires}%5d  ${fmtStat(p.msgEnd)}%22s ${fmtStat(p.eof2sof)}%12s ${fmtStat(p.t2t)}%12s ${fmtStat(p.sof2sof)}%16s ${p.simSeconds}%8.4f ${p.wallSeconds}%7.1f" +
          (if (p.missed + p.falseFires > 0 || !p.cleanOrders || p.unintendedCount > 0) s"  <-- FAILED (orders byte-exact ${p.cleanOrders}, unintended ${p.unintendedCount}, ${p.engCounters})" else ""))

      // 1. the sweep
      for (v <- a.volumes; s <- a.sizes) {
        var left = v; var bmin = Int.MaxValue; var bmax = 0; var bytes = 0L
        val p = r.phase(() => if (left == 0) None else {
          left -= 1
          val (m, e, bl) = r.nextMessage(s)
          bmin = math.min(bmin, bl); bmax = math.max(bmax, bl); bytes += m.length
          Some(r.segment(Seq((m, e))))
        })
        cells += Cell(s, v, bmin, bmax, bytes.toDouble / v, p)
        row(s.toString, v, p)
      }
      // 2. line rate: the smallest messages, one per segment, then packed up to the MSS
      val small = a.sizes.min
      for (packed <- Seq(false, true)) {
        var left = a.linerateMessages; var bmin = Int.MaxValue; var bmax = 0
        var pending: Option[(String, Option[Int], Int)] = None
        def take(): (String, Option[Int], Int) = { val x = pending.getOrElse(r.nextMessage(small)); pending = None; left -= 1
          bmin = math.min(bmin, x._3); bmax = math.max(bmax, x._3); x }
        val p = r.phase(() => if (left == 0) None else {
          if (!packed) { val (m, e, _) = take(); Some(r.segment(Seq((m, e)))) }
          else {
            val msgs = ArrayBuffer[(String, Option[Int])]()
            var len = 0
            var full = false
            while (left > 0 && !full) {
              val x = pending.getOrElse { val y = r.nextMessage(small); pending = Some(y); y }
              if (len + x._1.length <= Mss || msgs.isEmpty) { take(); msgs += ((x._1, x._2)); len += x._1.length } else full = true
            }
            Some(r.segment(msgs.toSeq))
          }
        })
        val n = r.frameStart.length
        val spans = (0 until n).map(i => Preamble + r.frameLen(i) + 4 + Ifg)
        val b2b = (1 until n).forall(i => r.frameStart(i) - r.frameStart(i - 1) == spans(i - 1))
        val wireCycles = r.frameStart(n - 1) - r.frameStart(0) + spans(n - 1)
        val lr = LineRun(if (packed) s"packed: whole messages up to the ${Mss}-byte MSS per segment" else "one message per segment",
          small, a.linerateMessages, bmin, bmax, p, wireCycles, b2b)
        line += lr
        row(if (packed) "LRpack" else "LR1", a.linerateMessages, p)
        log(f"        line rate (${lr.mode}): ${a.linerateMessages} messages offered, ${p.rxCounters("W_MSGS")} processed (W_MSGS), " +
          f"${n} segments back to back: $b2b, ${a.linerateMessages / (wireCycles / (ClockMhz * 1e6))}%.0f msgs/s")
      }
      r.stopFw = true
      r.stopPump = true
      dut.clockDomain.waitSampling(Period * 2)
    }
    val early = if (a.earlyFires > 0) Some(runEarly(a.earlyFires, 12, a.seed, log, liteEthRow = true)) else None
    Result(cells.toSeq, line.toSeq, (System.nanoTime() - wall0) / 1e9, compileSeconds, early)
  }

  def json(a: Args, res: Result): String = {
    val best = res.line.filter(l => l.p.missed == 0 && l.p.falseFires == 0 && l.p.rxCounters("W_MSGS") == l.messages && l.backToBack)
    val bestRate = if (best.isEmpty) 0.0 else best.map(l => l.messages / (l.wireCycles / (ClockMhz * 1e6))).max
    val lr = Seq[(String, Any)](
      "runs" -> res.line.map(l => RawJ(lineJ(l))),
      "highest_msgs_per_s" -> bestRate,
      "missed" -> res.line.map(_.p.missed).sum, "false" -> res.line.map(_.p.falseFires).sum,
      "entries_armed" -> 64, "templates" -> 16, "cross_every" -> a.crossEvery,
      "note" -> ("1 Gb/s: one byte per 125 MHz cycle on GMII RX, each frame followed by the 12-cycle minimum gap and the next one's " +
        "8-byte preamble; highest_msgs_per_s is the larger of the runs in which the parser counted every message (W_MSGS) and no fire was missed or false"))
    "{\n" + Seq(
      "\"boundary\": " + j(boundary),
      "\"clock_mhz\": " + j(ClockMhz),
      "\"seed\": " + a.seed, "\"cross_every\": " + a.crossEvery,
      "\"volumes\": " + j(a.volumes), "\"largest_volume\": " + a.volumes.max,
      "\"wall_seconds\": " + j(res.wallSeconds), "\"compile_seconds\": " + j(res.compileSeconds),
      "\"ok\": " + res.ok,
      "\"sweep\": [\n  " + res.cells.map(cellJ).mkString(",\n  ") + "\n]",
      "\"linerate\": " + j(lr)
    ).++(res.early.map(e => "\"early\": " + earlyJ(e))).mkString(",\n") + "\n}\n"
  }
  case class RawJ(s: String) { override def toString: String = s }

  def main(argv: Array[String]): Unit = {
    val a = parse(argv.toList)
    val res = run(a)
    val dir = new java.io.File(a.out); dir.mkdirs()
    val f = new java.io.File(dir, "datapath.json")
    java.nio.file.Files.write(f.toPath, json(a, res).getBytes("UTF-8"))
    println(f"[datapath] ${f.getPath}; wall ${res.wallSeconds}%.0f s (compile ${res.compileSeconds}%.0f s); " + (if (res.ok) "no missed or false fire" else "FAILED: missed/false fires or bad orders"))
    sys.exit(if (res.ok) 0 else 1)
  }
}
