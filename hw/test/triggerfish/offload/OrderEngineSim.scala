// Test support for the order engine: the engine behind the transmit arbiter the SoC is to use
// (OrderEngineTxArbiter: input `order` the engine, input `cpu` the CPU frame path), the same with the LiteEth
// GMII MAC behind it, and a reference model that builds every expected order frame from scratch.
package triggerfish.offload

import spinal.core._
import spinal.core.sim._
import spinal.lib._
import spinal.lib.bus.simple.PipelinedMemoryBus
import triggerfish.soc.TfSim
import scala.util.Random

/** OrderEngine + OrderEngineTxArbiter. io.cpu stands for EthFrameBuffers' tx stream, io.mac for the MAC. */
class OrderEngineTestTop(val cfg: OrderEngineConfig) extends Component {
  val rxCd = ClockDomain.external("eth_rx")
  val txCd = ClockDomain.external("eth_tx")
  val io = new Bundle {
    val bus = slave(PipelinedMemoryBus(OrderEngine.busConfig))
    val fire = slave(Flow(OffloadFire()))
    val cpu = slave(Stream(Fragment(Bits(8 bits))))
    val mac = master(Stream(Fragment(Bits(8 bits))))
    val interrupt = out Bool()
    val fireEarly = cfg.early generate (in Bool())          // with fire.valid (rx)
    val verdict = cfg.early generate slave(Flow(Bool()))     // rx: one per early fire, in order
    val macPoison = cfg.early generate (out Bool())          // tx: with mac's last beat
  }
  val engine = OrderEngine(cfg, rxCd, txCd)
  engine.io.bus <> io.bus
  engine.io.fire << io.fire
  io.interrupt := engine.io.interrupt
  val txArea = new ClockingArea(txCd) {
    val arbiter = OrderEngineTxArbiter(withPoison = cfg.early)
    arbiter.io.order << engine.io.tx
    arbiter.io.cpu << io.cpu
    io.mac << arbiter.io.output
    if (cfg.early) { arbiter.io.orderPoison := engine.io.txPoison; io.macPoison := arbiter.io.outputPoison }
  }
  if (cfg.early) { engine.io.fireEarly := io.fireEarly; engine.io.verdict << io.verdict }
  engine.tx.cycle.simPublic()
  engine.risk.foreach { r => r.sys.kill.simPublic(); r.tx.gate.io.kill.simPublic() }
  val killPin = engine.risk.map { r => val p = in Bool(); p.setName("io_killPin"); r.killPin := p; p }
  val bookRef = engine.risk.map { r => val p = slave(Stream(BookRef())); p.setName("io_bookRef"); r.bookRef << p; p }
  engine.io.tx.simPublic()
}

object OrderSim {
  private val compiled = scala.collection.mutable.Map[OrderEngineConfig, SimCompiled[OrderEngineTestTop]]()
  def compile(cfg: OrderEngineConfig): SimCompiled[OrderEngineTestTop] = synchronized {
    compiled.getOrElseUpdate(cfg, TfSim.config.compile(new OrderEngineTestTop(cfg).setDefinitionName(
      s"OrderEngineTestTop_q${cfg.rxQueueDepth}_log${cfg.logWords}" + (if (cfg.riskGate.isDefined) "_risk" else "") + (if (cfg.early) "_early" else ""))))
  }

  /** Clock periods in simulation time units (10 ps). */
  case class Clocks(sys: Int, rx: Int, tx: Int, sameEdges: Boolean = false) {
    def describe = f"sys ${100000.0 / sys}%.1f MHz, rx ${rx / 100.0}%.2f ns, tx ${tx / 100.0}%.2f ns" + (if (sameEdges) " (same edges)" else "")
  }

  /** Starts the clocks (same phase if sameEdges, else unrelated), resets asserted together; returns when all are out of reset. */
  def start(dut: OrderEngineTestTop, clocks: Clocks, rnd: Random): Unit = {
    val cds: Seq[(ClockDomain, Int)] = Seq((dut.clockDomain, clocks.sys), (dut.rxCd, clocks.rx), (dut.txCd, clocks.tx))
    for ((cd, p) <- cds) cd.forkStimulus(p.toLong, if (clocks.sameEdges) 0 else rnd.nextInt(p), 16)
    for ((cd, _) <- cds) {
      cd.waitSampling()
      cd.waitSamplingWhere(!cd.isResetAsserted)
    }
    dut.clockDomain.waitSampling(8)
  }

  // Register offsets (the C header has the same, from the RegMap).
  val CONFIG = 0x000; val CTRL = 0x004; val STATUS = 0x008; val STATUS_CLR = 0x00C
  val NEXT_SEQ = 0x010; val NEXT_MSGSEQ = 0x014; val IP_ID = 0x018; val WINDOW = 0x01C
  val ARMED = 0x020; val ARM_SET = 0x024; val ARM_CLR = 0x028; val MS_DIVISOR = 0x02C
  val TIME_LO = 0x030; val TIME_SET = 0x034; val ACK_SET = 0x038; val LOG_COUNT = 0x040; val LOG_DATA = 0x044
  val IGNORED = 0x050; val NOT_ARMED = 0x054; val LOG_DROPS = 0x058; val RX_OVERFLOW = 0x05C
  val EARLY_SENT = 0x070; val POISONED = 0x074; val EARLY_FAULT = 0x078
  val SEND_ACK = 0x060; val SEND_FREE = 0x064; val SEND = 0x068
  val META = 0x400; val TEMPLATE = 0x2000
  val CTRL_ENABLE = 1; val CTRL_IRQ = 8
  val ST_IDLE = 1; val ST_CMD_BUSY = 2; val ST_RUNNING = 128; val ST_CONVERTING = 4; val ST_REFUSED = 16; val ST_UNDERRUN = 32; val ST_LOG_OVERRUN = 64
}

/** One fire log record, decoded (README-tx.md "Fire log"; the positions are written out here, independently of
  * OrderEngine.Hdr). A send frame's record (`send`) has template 16..31, no trigger, and carries its payload
  * length's bit 8, FIN and mode where a fire record has the trigger. */
case class FireRecord(seq: Long, ack: Long, msgSeq: Long, timeBcd: Long, ipId: Int, window: Int,
                      rxStamp: Long, txStamp: Long, plen: Int, template: Int, trigger: Int, status: Int, recNo: Int,
                      send: Boolean = false, mode: Int = 0, fin: Boolean = false)
object FireRecord {
  def decode(w: Seq[Long]): FireRecord = {
    val h = w(7)
    val send = ((h >> 26) & 1) != 0
    val trig = ((h >> 12) & 0x3F).toInt
    FireRecord(w(0), w(1), w(2), w(3) | (((h >> 22) & 0xF) << 32), (w(4) & 0xFFFF).toInt, (w(4) >> 16).toInt,
      w(5), w(6), (h & 0xFF).toInt | (if (send) (trig & 1) << 8 else 0), ((h >> 8) & 0xF).toInt | (if (send) 16 else 0),
      if (send) 0 else trig, ((h >> 18) & 0xF).toInt, ((h >> 27) & 0x1F).toInt,
      send, if (send) (trig >> 2) & 3 else 0, send && (trig & 2) != 0)
  }
}

/** The reference model: order templates as firmware builds them, and the frame the engine must send,
  * built by writing the values and recomputing every checksum from scratch. */
object OrderRef {
  val SOH = "\u0001"
  val DayMs = 86400000L

  /** A template as stored: the frame with placeholders (IP id, seq, ack, window 0; digits '0'), valid checksums. */
  case class Template(bytes: Array[Int], width: Int, msgOff: Int, csOff: Int, stOff: Int, stEn: Boolean,
                      ttOff: Int, ttEn: Boolean, fixStart: Int, mode: Int = 0, fin: Boolean = false, lenMeta: Int = -1) {
    def len: Int = bytes.length
    def plen: Int = len - 54
    def patchMsg: Boolean = mode == 0
    def patchCs: Boolean = mode != 2
    /** TCP sequence space the frame takes. */
    def seqLen: Int = plen + (if (fin) 1 else 0)
    def ipCsum: Int = (bytes(24) << 8) | bytes(25)
    def tcpCsum: Int = (bytes(50) << 8) | bytes(51)
    def fixSum: Int = if (mode == 2) 0 else bytes.slice(fixStart, csOff - 3).sum & 0xFF
    def meta: Seq[Long] = Seq(
      (if (lenMeta >= 0) lenMeta else len).toLong | (((csOff >> 8) & 1).toLong << 9) | (width.toLong << 12) | (msgOff.toLong << 16) |
        ((csOff & 0xFF).toLong << 24),
      stOff.toLong | (if (stEn) 1L << 8 else 0L) | (ttOff.toLong << 16) | (if (ttEn) 1L << 24 else 0L),
      ipCsum.toLong | (tcpCsum.toLong << 16),
      fixSum.toLong)
    def words: Seq[Long] = (0 until (len + 3) / 4).map(w => (0 until 4).map(b => if (4 * w + b < len) bytes(4 * w + b).toLong << (8 * b) else 0L).sum)
  }

  /** Internet checksum: ones' complement of the ones' complement sum of big-endian 16-bit words (odd: zero padded). */
  def checksum(data: Seq[Int]): Int = {
    var s = 0L
    for (i <- data.indices by 2) s += (data(i) << 8) | (if (i + 1 < data.length) data(i + 1) else 0)
    while (s > 0xFFFF) s = (s & 0xFFFF) + (s >> 16)
    (~s & 0xFFFF).toInt
  }
  def ipChecksum(f: Array[Int]): Int = { val h = f.slice(14, 34); h(10) = 0; h(11) = 0; checksum(h.toSeq) }
  def tcpChecksum(f: Array[Int]): Int = {
    val seg = f.slice(34, f.length); seg(16) = 0; seg(17) = 0
    val pseudo = f.slice(26, 34) ++ Array(0, 6, seg.length >> 8, seg.length & 0xFF)
    checksum((pseudo ++ seg).toSeq)
  }
  def put(f: Array[Int], off: Int, v: Long, n: Int): Unit = for (i <- 0 until n) f(off + i) = ((v >> (8 * (n - 1 - i))) & 0xFF).toInt
  def putStr(f: Array[Int], off: Int, s: String): Unit = for (i <- s.indices) f(off + i) = s(i).toInt

  def timeStr(ms: Long): String = f"${ms / 3600000}%02d:${ms / 60000 % 60}%02d:${ms / 1000 % 60}%02d.${ms % 1000}%03d"
  /** Packed BCD HH MM SS sss (36 bits) <-> milliseconds of the day. */
  def toBcd(ms: Long): Long = timeStr(ms).filter(_.isDigit).foldLeft(0L)((a, c) => (a << 4) | (c - '0'))
  def fromBcd(b: Long): Long = {
    val d = (0 until 9).map(k => (b >> (4 * (8 - k))) & 0xF)   // H1 H0 M1 M0 S1 S0 m2 m1 m0
    ((d(0) * 10 + d(1)) * 3600 + (d(2) * 10 + d(3)) * 60 + d(4) * 10 + d(5)) * 1000 + d(6) * 100 + d(7) * 10 + d(8)
  }
  def digits(n: Long): Int = n.toString.length

  /** A New Order Single template with random field contents (so offsets and parities vary). */
  def build(rnd: Random, width: Int, stEn: Boolean, ttEn: Boolean): Template = {
    def alnum(n: Int) = (0 until n).map(_ => "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789" (rnd.nextInt(34))).mkString
    val date = f"20${20 + rnd.nextInt(30)}%02d${1 + rnd.nextInt(12)}%02d${1 + rnd.nextInt(28)}%02d"
    def timeField(en: Boolean) = date + "-" + (if (en) "00:00:00.000" else timeStr(rnd.nextLong(DayMs).abs % DayMs))
    val price = s"${1 + rnd.nextInt(9999)}" + (if (rnd.nextBoolean()) "." + (rnd.nextInt(99) + 1) else "")
    val fields = Seq("35=D", "34=" + "0" * width, "49=" + alnum(1 + rnd.nextInt(8)), "52=" + timeField(stEn),
      "56=" + alnum(1 + rnd.nextInt(8)), "1=" + alnum(1 + rnd.nextInt(6)), "11=" + alnum(1 + rnd.nextInt(12)), "21=1",
      "38=" + (1 + rnd.nextInt(9999)), "40=2", "44=" + price, "54=" + (1 + rnd.nextInt(2)), "55=" + alnum(1 + rnd.nextInt(5)),
      "59=0", "60=" + timeField(ttEn))
    val body = fields.map(_ + SOH).mkString
    val msg = "8=FIX.4.4" + SOH + "9=" + body.length + SOH + body + "10=000" + SOH
    val len = 54 + msg.length
    require(len <= OrderEngine.TemplateBytes, s"template of $len bytes")
    val f = headers(rnd, len, 0x18)
    putStr(f, 54, msg)
    put(f, 24, ipChecksum(f), 2)
    put(f, 50, tcpChecksum(f), 2)
    def at(tag: String) = 54 + msg.indexOf(SOH + tag) + 1 + tag.length
    Template(f, width, at("34="), 54 + msg.lastIndexOf("10=") + 3, at("52=") + 9, stEn, at("60=") + 9, ttEn, 54)
  }

  /** A frame of `len` bytes with random Ethernet/IPv4/TCP headers as a template has them (the patched fields and the
    * checksums 0; the caller writes the payload and the checksums): a unicast DA whose first byte is below 0xC0 (CPU
    * test frames start with 0xFF), IPv4 without options with DF, TCP without options with `tcpFlags`. */
  private def headers(rnd: Random, len: Int, tcpFlags: Int): Array[Int] = {
    val f = new Array[Int](len)
    f(0) = rnd.nextInt(0xC0) & 0xFE
    for (i <- 1 until 12) f(i) = rnd.nextInt(256)
    f(12) = 0x08; f(13) = 0x00
    f(14) = 0x45; f(15) = if (rnd.nextBoolean()) 0 else 0x10
    put(f, 16, len - 14, 2); put(f, 18, 0, 2); f(20) = 0x40; f(21) = 0; f(22) = 64; f(23) = 6
    for (i <- 26 until 38) f(i) = rnd.nextInt(256)   // addresses, ports
    f(46) = 0x50; f(47) = tcpFlags
    f
  }

  /** A send-ring frame as firmware would queue it with SEND, `len` bytes (54..511):
    * mode 0, a FIX message whose MsgSeqNum the engine writes (W digits `0`);
    * mode 1, a PossDup resend carrying its own MsgSeqNum `ownMsg` (SendingTime, TransactTime and CheckSum still patched);
    * mode 2, a bare TCP segment with `len - 54` payload bytes that the engine must not touch (random FIX offsets in
    * its metadata, to show they are ignored). FIN sets the TCP FIN flag. Mode 0 and 1 frames are at least
    * `minFixLen(mode)` bytes long. */
  def minFixLen(mode: Int): Int = if (mode == 2) 54 else 54 + 170
  def buildSend(rnd: Random, len: Int, mode: Int, fin: Boolean, width: Int, ownMsg: Long): Template = {
    require(len >= minFixLen(mode) && len <= OrderEngine.SendMaxLen, s"send frame of $len bytes, mode $mode")
    val f = headers(rnd, len, (if (len > 54) 0x18 else 0x10) | (if (fin) 0x01 else 0))
    def alnum(n: Int) = (0 until n).map(_ => "ABCDEFGHJKLMNPQRSTUVWXYZ0123456789" (rnd.nextInt(34))).mkString
    val tpl = if (mode == 2) {
      for (i <- 54 until len) f(i) = rnd.nextInt(256)
      Template(f, width, 54 + rnd.nextInt(200), 54 + rnd.nextInt(scala.math.max(1, len - 57)), 54 + rnd.nextInt(180), false,
        54 + rnd.nextInt(180), false, 54, mode, fin)
    } else {
      val stEn = rnd.nextInt(4) != 0
      val ttEn = rnd.nextBoolean()
      val date = f"20${20 + rnd.nextInt(30)}%02d${1 + rnd.nextInt(12)}%02d${1 + rnd.nextInt(28)}%02d"
      def timeField(en: Boolean) = date + "-" + (if (en) "00:00:00.000" else timeStr(rnd.nextLong(DayMs).abs % DayMs))
      val msgField = if (mode == 0) "0" * width else ownMsg.toString
      val head = Seq("35=" + (if (mode == 0) "8" else "D"), "34=" + msgField, "49=" + alnum(1 + rnd.nextInt(8)),
        "52=" + timeField(stEn), "56=" + alnum(1 + rnd.nextInt(8))) ++
        (if (mode == 1) Seq("43=Y", "122=" + timeField(false)) else Nil) ++ Seq("60=" + timeField(ttEn))
      def msgWith(pad: Int): String = {
        val body = (head :+ ("58=" + alnum(pad))).map(_ + SOH).mkString
        "8=FIX.4.4" + SOH + "9=" + body.length + SOH + body + "10=000" + SOH
      }
      // The padding that makes the frame exactly `len` bytes (BodyLength's digits depend on it).
      val pad = (0 to len).find(p => 54 + msgWith(p).length == len).getOrElse(sys.error(s"no padding for $len bytes"))
      val msg = msgWith(pad)
      putStr(f, 54, msg)
      def at(tag: String) = 54 + msg.indexOf(SOH + tag) + 1 + tag.length
      Template(f, width, at("34="), 54 + msg.lastIndexOf("10=") + 3, at("52=") + 9, stEn, at("60=") + 9, ttEn, 54, mode, fin)
    }
    put(f, 24, ipChecksum(f), 2)
    put(f, 50, tcpChecksum(f), 2)
    require(tpl.msgOff < 256 && tpl.stOff < 256 && tpl.ttOff < 256, "8-bit offsets")
    tpl
  }

  /** The frame the engine must send for `t` with these values. */
  def expected(t: Template, seq: Long, ack: Long, window: Int, ipId: Int, msgSeq: Long, timeMs: Long): Array[Int] = {
    val f = t.bytes.clone()
    put(f, 18, ipId, 2)
    put(f, 38, seq, 4)
    put(f, 42, ack, 4)
    put(f, 48, window, 2)
    if (t.patchMsg) {
      val m = msgSeq.toString
      require(m.length <= t.width)
      putStr(f, t.msgOff, "0" * (t.width - m.length) + m)
    }
    if (t.stEn) putStr(f, t.stOff, timeStr(timeMs))
    if (t.ttEn) putStr(f, t.ttOff, timeStr(timeMs))
    if (t.patchCs) putStr(f, t.csOff, f"${f.slice(t.fixStart, t.csOff - 3).sum % 256}%03d")
    put(f, 24, ipChecksum(f), 2)
    put(f, 50, tcpChecksum(f), 2)
    f
  }
}

/** OrderEngine + OrderEngineTxArbiter + the LiteEth GMII MAC (build/liteeth/liteeth_mac_gmii.v, generated by
  * `make build/liteeth/liteeth_mac_gmii.v`), wired as Soc.scala's EthArea does; the CPU input is idle. The
  * eth_rx/eth_tx clocks are the GMII clock pins (the MAC's eth_*_clk are the same nets), the resets come out
  * of the MAC. */
class OrderEngineMacTop(val cfg: OrderEngineConfig, macDir: String) extends Component {
  val io = new Bundle {
    val bus = slave(PipelinedMemoryBus(OrderEngine.busConfig))
    val fire = slave(Flow(OffloadFire()))
    val interrupt = out Bool()
    val gmii_rx_clk, gmii_gtx_clk = in Bool()
    val gmii_tx_en = out Bool()
    val gmii_tx_data = out Bits (8 bits)
  }
  val mac = new triggerfish.eth.LiteEthMac("liteeth_mac_gmii", s"$macDir/liteeth_mac_gmii.v", s"$macDir/liteeth_mac_gmii.ports.txt")
  mac.io.rst := ClockDomain.current.readResetWire
  mac.phyPins("gmii_rx_clk") := io.gmii_rx_clk.asBits
  mac.phyPins("gmii_gtx_clk") := io.gmii_gtx_clk.asBits
  mac.phyPins("gmii_rx_dv") := B(0, 1 bits)
  mac.phyPins("gmii_rx_data") := B(0, 8 bits)
  io.gmii_tx_en := mac.phyPins("gmii_tx_en")(0)
  io.gmii_tx_data := mac.phyPins("gmii_tx_data")
  // (the resets or'ed with the harness's, asserted from time 0: LiteEthMac.ethDomains says why)
  val (rxCd, txCd) = mac.ethDomains(io.gmii_rx_clk, io.gmii_gtx_clk, alsoReset = Some(ClockDomain.current.readResetWire))
  val engine = OrderEngine(cfg, rxCd, txCd)
  engine.io.bus <> io.bus
  engine.io.fire << io.fire
  io.interrupt := engine.io.interrupt
  val txArea = new ClockingArea(txCd) {
    val arbiter = OrderEngineTxArbiter()
    arbiter.io.order << engine.io.tx
    arbiter.io.cpu.valid := False
    arbiter.io.cpu.payload.assignDontCare()
    mac.txFrom(arbiter.io.output)
  }
  engine.tx.cycle.simPublic()
  engine.risk.foreach { r => r.sys.kill.simPublic(); r.tx.gate.io.kill.simPublic() }
}

object OrderMacSim {
  val macDir = "build/liteeth"
  lazy val compiled: SimCompiled[OrderEngineMacTop] = {
    val rc = scala.sys.process.Process(Seq("make", "-s", s"$macDir/liteeth_mac_gmii.v")).!
    require(rc == 0, s"could not generate $macDir/liteeth_mac_gmii.v (make deps?)")
    // The MAC's Verilog draws Verilator's style warnings (as in the SoC build: Makefile's VERILATOR_FLAGS).
    TfSim.config.addSimulatorFlag("-Wno-fatal -Wno-lint -Wno-style -Wno-UNOPTFLAT -Wno-COMBDLY")
      .compile(new OrderEngineMacTop(OrderEngineConfig(), TfSim.rtlPath(macDir)).setDefinitionName("OrderEngineMacTop"))
  }
  /** Ethernet FCS: CRC-32 (reflected, poly 0xEDB88320) of the frame, sent least significant byte first. */
  def crc32(bytes: Seq[Int]): Long = {
    var c = 0xFFFFFFFFL
    for (b <- bytes) { c ^= b; for (_ <- 0 until 8) c = if ((c & 1) != 0) (c >>> 1) ^ 0xEDB88320L else c >>> 1 }
    c ^ 0xFFFFFFFFL
  }
}
