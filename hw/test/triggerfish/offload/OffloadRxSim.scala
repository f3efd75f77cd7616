// Test harness for OffloadRx: the two clocks, the CPU's bus (commands mirrored into the reference model), a
// driver of the MAC's receive stream that records when each frame's bytes were on io.rx, and a monitor of io.fire.
package triggerfish.offload

import spinal.core._
import spinal.core.sim._
import triggerfish.soc.{SimBusMaster, TfSim}
import scala.collection.mutable
import scala.collection.mutable.ArrayBuffer
import scala.util.Random

object OffloadRxSim {
  private val compiled = mutable.Map[(OffloadRxConfig, Int, Boolean), SimCompiled[OffloadRx]]()
  def compile(cfg: OffloadRxConfig, bookSlots: Int = 0, bookRef: Boolean = false): SimCompiled[OffloadRx] = synchronized {
    compiled.getOrElseUpdate((cfg, bookSlots, bookRef), TfSim.config.compile(
      OffloadRx(cfg, ClockDomain.external("eth_rx"), bookSlots, bookRef).setDefinitionName(
        s"OffloadRx_${cfg.entries}${if (cfg.digest) "_digest" else ""}${if (bookSlots > 0) s"_book$bookSlots" else ""}${if (bookRef) "_ref" else ""}")))
  }
  // The connection the tests use (the SoC's simulation addresses).
  val ourMac = 0x025446000002L
  val peerMac = 0x025446000001L
  val ourIp = 0x0A4D0002L
  val peerIp = 0x0A4D0001L
  val ourPort = 40000
  val peerPort = 9878
  val LAST_BEAT_TO_FIRE = 3

  /** A logged price as the hardware gives it (OffloadFire.price, FIRE_PRICE_HI/LO: 14 BCD digits of the fixed-point
    * value, all ones for 10^14 or more) -> the value the models give ((1 << 48) - 1 for 10^14 or more, as the
    * firmware reports it); -1 when a digit is above 9 (never equal to a model's price: the comparison fails). */
  def loggedPrice(bcd: BigInt): Long = {
    val allOnes = (BigInt(1) << OffloadFire.priceWidth) - 1
    if (bcd == allOnes) return (1L << 48) - 1
    val digits = (0 until OffloadFire.priceWidth / 4).map(i => ((bcd >> (4 * i)) & 0xF).toInt)
    if (bcd < 0 || bcd > allOnes || digits.exists(_ > 9)) -1L else digits.foldRight(0L)((d, acc) => acc * 10 + d)
  }
}

/** A frame as sent: its bytes, the MAC's error flag, idle cycles before it; the driver fills in the cycles. */
class SentFrame(val id: Int, val bytes: Array[Int], val fcsErr: Boolean, val gapBefore: Int) {
  val cycles = new Array[Long](bytes.length)   // eth_rx cycle counter value while byte i was on io.rx
  def startCycle: Long = cycles(0)
  var lastCycle = -1L
  def cycleOf(i: Int): Long = cycles(i)
}

case class HwFire(cycle: Long, trigger: Int, template: Int, ackSeq: Long, price: Long, stamp: Long, recordValid: Boolean)

class OffloadRxHarness(val dut: OffloadRx, val rnd: Random, sysPeriod: Int = 1000, rxPeriod: Int = 800,
  val beatGaps: Boolean = false /* idle cycles inside frames, as with MII */) {
  import OffloadRxSim._
  val n = dut.config.entries
  val model = new OffloadRxModel(n)
  val sysCd: ClockDomain = dut.clockDomain
  val rxCd: ClockDomain = dut.rxCd
  def off(name: String): Int = dut.regs.entries.find(_.name == name).getOrElse(sys.error(s"no register $name")).offset

  dut.io.bus.cmd.valid #= false
  dut.io.rx.valid #= false
  dut.io.rx.payload.data #= 0
  dut.io.rx.payload.last #= false
  dut.io.rx.payload.error #= false
  for ((cd, p) <- Seq[(ClockDomain, Int)]((sysCd, sysPeriod), (rxCd, rxPeriod))) cd.forkStimulus(p.toLong, rnd.nextInt(p), 16)
  for (cd <- Seq[ClockDomain](sysCd, rxCd)) { cd.waitSampling(); cd.waitSamplingWhere(!cd.isResetAsserted) }
  sysCd.waitSampling(8)
  val bus = new SimBusMaster(dut.io.bus, sysCd)

  // ---- receive stream driver
  val queue = mutable.Queue[SentFrame]()
  val sent = ArrayBuffer[SentFrame]()
  private var cur: SentFrame = null
  private var idx = 0
  private var gapLeft = 0
  var rxCycleNow = 0L
  rxCd.onSamplings {
    // Reads in a sampling callback see the cycle that just ended; what is written now is on io.rx during the
    // next one, whose counter value is one more.
    val cyc = dut.io.rxCycle.toLong + 1
    rxCycleNow = cyc
    if (cur == null && gapLeft == 0 && queue.nonEmpty) {
      cur = queue.dequeue(); idx = 0; gapLeft = cur.gapBefore
    }
    val bubble = cur != null && gapLeft == 0 && idx > 0 && beatGaps && rnd.nextInt(3) == 0
    if (cur == null || gapLeft > 0 || bubble) {
      if (gapLeft > 0) gapLeft -= 1
      dut.io.rx.valid #= false
      dut.io.rx.payload.data #= rnd.nextInt(256)
      dut.io.rx.payload.last #= rnd.nextBoolean()
      dut.io.rx.payload.error #= rnd.nextBoolean()
    } else {
      val f = cur
      f.cycles(idx) = cyc
      val last = idx == f.bytes.length - 1
      dut.io.rx.valid #= true
      dut.io.rx.payload.data #= f.bytes(idx)
      dut.io.rx.payload.last #= last
      dut.io.rx.payload.error #= (if (last) f.fcsErr else rnd.nextBoolean())
      idx += 1
      if (last) { f.lastCycle = cyc; sent += f; cur = null }
    }
  }

  // ---- fire monitor
  val hwFires = ArrayBuffer[HwFire]()
  rxCd.onSamplings {   // io.fire and io.rxCycle as they were during the cycle that just ended
    if (dut.io.fire.valid.toBoolean) {
      val p = dut.io.fire.payload
      hwFires += HwFire(dut.io.rxCycle.toLong, p.trigger.toInt, p.template.toInt, p.ackSeq.toLong, OffloadRxSim.loggedPrice(p.price.toBigInt),
        p.stamp.toLong, p.recordValid.toBoolean)
    }
  }

  // ---- frames: the model processes them when queued (it needs no timing), the driver sends them later
  var nextId = 0
  val modelFires = ArrayBuffer[(Int, ModelFire)]()   // (frame id, fire)
  val kinds = mutable.Map[Int, Int]()
  def send(bytes: Array[Int], fcsErr: Boolean = false, gap: Int = -1): SentFrame = {
    val g = if (gap >= 0) gap else 20 + (if (rnd.nextInt(4) == 0) rnd.nextInt(300) else rnd.nextInt(12))
    val f = new SentFrame(nextId, bytes, fcsErr, g)
    nextId += 1
    val (kind, fires) = model.frame(f.id, bytes, fcsErr)
    kinds(f.id) = kind
    for (x <- fires) modelFires += ((f.id, x))
    queue.enqueue(f)
    f
  }
  def tcp(seq: Long, payload: Seq[Int], flags: Int = 0x18): Net.Tcp =
    Net.Tcp(peerMac, ourMac, peerIp, ourIp, peerPort, ourPort, seq, 1, flags, payload)

  /** What sendStream sent besides the segments themselves. */
  case class StreamStats(corruptIds: Seq[Int], future: Int, overlap: Int)

  /** Sends the byte stream b from sequence number start as TCP segments cut at the message ends (msgEnds: offsets
    * in b), at the 1400-byte MSS, or anywhere, with, about once in `oneIn` segments each: a corrupt copy before it
    * (bad TCP checksum or bad FCS), the next segment first (from the future: ignored), a retransmission of old bytes
    * (whole: ignored; or overlapping the new ones, whose new part is parsed). `after(i, z)` runs after segment i, which
    * ends at offset z of b. */
  def sendStream(start: Long, b: IndexedSeq[Int], msgEnds: Seq[Int], oneIn: Int)(after: (Int, Int) => Unit): StreamStats = {
    val cuts = rnd.nextInt(3) match {
      case 0 => msgEnds
      case 1 => (1 until b.length / 1400 + 1).map(_ * 1400)
      case _ => Seq.fill(rnd.nextInt(b.length / 30 + 1))(1 + rnd.nextInt(b.length))
    }
    val bounds = 0 +: cuts.filter(c => c > 0 && c < b.length).distinct.sorted :+ b.length
    val segs = bounds.sliding(2).flatMap { case Seq(a, z) => (a until z by 1400).map(x => (x, math.min(z, x + 1400))) }.toSeq
    def at(offset: Int): Long = (start + offset) & 0xFFFFFFFFL
    val corrupt = ArrayBuffer[Int]()
    var future, overlap = 0
    var seq = start
    for (((a, z), i) <- segs.zipWithIndex) {
      val payload = b.slice(a, z)
      rnd.nextInt(oneIn) match {
        case 0 => corrupt += send(tcp(seq, payload).copy(badTcpSum = true).bytes).id
        case 1 => corrupt += send(tcp(seq, payload).bytes, fcsErr = true).id
        case 2 if i + 1 < segs.length =>
          val (a2, z2) = segs(i + 1); send(tcp(at(a2), b.slice(a2, z2)).bytes); future += 1
        case 3 if a > 0 =>
          val from = math.max(0, a - 1 - rnd.nextInt(200))
          if (rnd.nextBoolean()) send(tcp(at(from), b.slice(from, a)).bytes)
          else { send(tcp(at(from), b.slice(from, z)).bytes); overlap += 1; seq = at(z) }
        case _ =>
      }
      if (seq != at(z)) { send(tcp(seq, payload).bytes); seq = at(z) }
      after(i, z)
    }
    StreamStats(corrupt.toSeq, future, overlap)
  }

  /** Waits until every queued frame is out and its end-of-segment work (fires, counters) is done. */
  def drain(): Unit = {
    while (queue.nonEmpty || cur != null) sysCd.waitSampling(20)
    rxCd.waitSampling(120)
    sysCd.waitSampling(40)
  }

  // ---- commands (between frames: the callers drain first)
  def cmd(op: Int, entry: Int = 0): Int = {
    val st0 = bus.read(off("CMD_STATUS"))
    val done0 = (st0 >> 8) & 0xFF
    bus.write(off("CMD"), op | (entry << 8))
    var st = bus.read(off("CMD_STATUS"))
    var guard = 0
    while (((st >> 8) & 0xFF) != ((done0 + 1) & 0xFF) || (st & 1) != 0) {
      sysCd.waitSampling(10); st = bus.read(off("CMD_STATUS")); guard += 1
      assert(guard < 20000, s"command $op did not complete")
    }
    assert((st & 2) == 0, "command refused")
    ((st >> 16) & 0xFFFF).toInt
  }
  def configure(enable: Boolean = true, decimals: Int = 2, trade: Int = '2'): Int = {
    bus.write(off("CTRL"), if (enable) 1 else 0)
    bus.write(off("OUR_MAC_HI"), ourMac >> 32)
    bus.write(off("OUR_MAC_LO"), ourMac & 0xFFFFFFFFL)
    bus.write(off("OUR_IP"), ourIp)
    bus.write(off("OUR_PORT"), ourPort)
    bus.write(off("PEER_IP"), peerIp)
    bus.write(off("PEER_PORT"), peerPort)
    bus.write(off("FIX_CFG"), decimals | (trade << 8))
    val r = cmd(OffloadRx.Op.CONFIG)
    val m = model.config(enable, ourMac, ourIp, ourPort, peerIp, peerPort, decimals, trade)
    assert(r == m, s"CONFIG result $r, model $m")
    r
  }
  def loadSeq(v: Long): Unit = {
    bus.write(off("RCV_NXT"), v & 0xFFFFFFFFL)
    cmd(OffloadRx.Op.LOAD_SEQ)
    model.loadSeq(v)
  }
  def writeEntry(j: Int, e: ModelEntry, arm: Boolean = true): Int = {
    val sym = e.sym.map(_.toInt).padTo(8, 0)
    bus.write(off("ENTRY_SYM0"), sym.take(4).zipWithIndex.map { case (c, i) => c.toLong << (8 * i) }.sum)
    bus.write(off("ENTRY_SYM1"), sym.drop(4).zipWithIndex.map { case (c, i) => c.toLong << (8 * i) }.sum)
    bus.write(off("ENTRY_STOP_LO"), e.stop & 0xFFFFFFFFL)
    bus.write(off("ENTRY_STOP_HI"), (e.stop >> 32) & 0xFFFF)
    bus.write(off("ENTRY_CFG"), (if (e.sell) 1 else 0) | (if (e.oneShot) 2 else 0) | (if (arm) 4 else 0) | (e.tmpl << 4))
    val r = cmd(OffloadRx.Op.WRITE_ENTRY, j)
    val m = model.writeEntry(j, e, arm)
    assert(r == m, s"WRITE_ENTRY $j result $r, model $m")
    r
  }
  /** WRITE_ENTRY without the model (for tests that run commands while traffic flows). */
  def cmdWriteEntryRaw(j: Int, e: ModelEntry, arm: Boolean): Int = {
    val sym = e.sym.map(_.toInt).padTo(8, 0)
    bus.write(off("ENTRY_SYM0"), sym.take(4).zipWithIndex.map { case (c, i) => c.toLong << (8 * i) }.sum)
    bus.write(off("ENTRY_SYM1"), sym.drop(4).zipWithIndex.map { case (c, i) => c.toLong << (8 * i) }.sum)
    bus.write(off("ENTRY_STOP_LO"), e.stop & 0xFFFFFFFFL)
    bus.write(off("ENTRY_STOP_HI"), (e.stop >> 32) & 0xFFFF)
    bus.write(off("ENTRY_CFG"), (if (e.sell) 1 else 0) | (if (e.oneShot) 2 else 0) | (if (arm) 4 else 0) | (e.tmpl << 4))
    cmd(OffloadRx.Op.WRITE_ENTRY, j)
  }
  def arm(j: Int): Unit = { cmd(OffloadRx.Op.ARM, j); model.arm(j) }
  def disarm(j: Int): Int = {
    val r = cmd(OffloadRx.Op.DISARM, j)
    val m = model.disarm(j)
    assert(r == m, s"DISARM $j result $r, model $m")
    r
  }
  def disarmAll(): Unit = { cmd(OffloadRx.Op.DISARM_ALL); model.disarmAll() }
  def armedBits: BigInt = BigInt(bus.read(off("ARMED_HI"))) << 32 | BigInt(bus.read(off("ARMED_LO")))
  def modelArmedBits: BigInt = (0 until n).filter(model.armed(_)).map(BigInt(1) << _).foldLeft(BigInt(0))(_ | _)

  /** The fire log in sys: pops every waiting record. */
  def popFireLog(): Seq[(Int, Int, Boolean, Long, Long)] = {
    val out = ArrayBuffer[(Int, Int, Boolean, Long, Long)]()
    var st = bus.read(off("FIRE_STATUS"))
    while ((st & 1) != 0) {
      val price = OffloadRxSim.loggedPrice((BigInt(bus.read(off("FIRE_PRICE_HI"))) << 32) | bus.read(off("FIRE_PRICE_LO")))
      out += ((((st >> 8) & 0x3F).toInt, ((st >> 16) & 0xF).toInt, (st & 2) != 0, price, bus.read(off("FIRE_STAMP"))))
      bus.write(off("FIRE_POP"), 0)
      st = bus.read(off("FIRE_STATUS"))
    }
    out.toSeq
  }

  /** Compares the fires seen with the model's: same fires in the same order, same fields, the stamp the cycle
    * of the byte the model names, and each fire LAST_BEAT_TO_FIRE + k cycles after its segment's last beat. */
  def checkFires(): Int = {
    val byId = sent.map(f => f.id -> f).toMap
    assert(hwFires.length == modelFires.length,
      s"${hwFires.length} fires seen, model expects ${modelFires.length}\n hw: ${hwFires.take(20)}\n model: ${modelFires.take(20)}\n" +
        firstDifference())
    var prevFrame = -1; var k = 0
    for (((fid, m), h) <- modelFires.zip(hwFires)) {
      val f = byId(fid)
      k = if (fid == prevFrame) k + 1 else 0
      prevFrame = fid
      assert(h.trigger == m.trigger && h.template == m.template && h.ackSeq == m.ackSeq && h.recordValid == m.recordValid,
        s"fire of frame $fid: hw $h, model $m")
      if (m.recordValid) {
        val (sf, si) = m.stampRef.get
        assert(h.price == m.price, s"fire of frame $fid: price ${h.price}, model ${m.price}")
        assert(h.stamp == byId(sf).cycleOf(si), s"fire of frame $fid: stamp ${h.stamp}, model frame $sf byte $si = ${byId(sf).cycleOf(si)}")
      }
      assert(h.cycle == f.lastCycle + LAST_BEAT_TO_FIRE + k,
        s"fire $k of frame $fid at cycle ${h.cycle}, last beat at ${f.lastCycle}: latency ${h.cycle - f.lastCycle}")
    }
    hwFires.length
  }
  private def firstDifference(): String = {
    val i = modelFires.zip(hwFires).indexWhere { case ((_, m), h) => m.trigger != h.trigger }
    if (i < 0) "" else s" first difference at fire $i: model ${modelFires(i)}, hw ${hwFires(i)}"
  }

  def counters: Map[String, Long] = Seq("SEG_SEEN", "SEG_INORDER", "SEG_OOO", "SEG_BAD", "SEG_IGNORED", "W_MSGS", "FIX_ERRORS", "FIRES")
    .map(c => c -> bus.read(off(c))).toMap
  def checkCounters(): Unit = {
    val m = model
    val exp = Map("SEG_SEEN" -> m.segSeen, "SEG_INORDER" -> m.segInorder, "SEG_OOO" -> m.segOoo, "SEG_BAD" -> m.segBad,
      "SEG_IGNORED" -> m.segIgnored, "W_MSGS" -> m.wMsgs, "FIX_ERRORS" -> m.fixErrors, "FIRES" -> m.fires)
    val got = counters
    for ((k, v) <- exp) assert(got(k) == (v & 0xFFFFFFFFL), s"counter $k = ${got(k)}, model $v (all: $got, model: $exp)")
  }
}
