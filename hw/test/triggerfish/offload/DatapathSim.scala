// The offload datapath as the SoC wires it, for the datapath benchmark (DatapathBench, issue 6): the LiteEth
// GMII MAC, OffloadRx on the MAC's receive stream (the SoC's rxTap), OrderEngine on its fires, and
// OrderEngineTxArbiter in front of the MAC's transmit side (the CPU input idle). One 125 MHz clock for sys,
// eth_rx and eth_tx (same edges, as in the whole-SoC simulation). The test drives the GMII RX pins (preamble,
// SFD, frame, FCS, inter-frame gap) and watches the GMII TX pins, so the latencies are those DESIGN.md defines,
// on the PHY-side interface. Only the components' io and register interfaces are used.
//
// Also here: market data W messages of a given FIX body size (DatapathWGen), a fast frame builder, and the
// harness (DatapathRun) that streams frames, mirrors every frame and command into OffloadRxModel, plays the
// firmware (drains the engine's fire log, re-arms templates and trigger entries), and pairs every fire with
// its order on the pins.
package triggerfish.offload

import spinal.core._
import spinal.core.sim._
import spinal.lib._
import spinal.lib.bus.simple.PipelinedMemoryBus
import triggerfish.eth.{EthRxLeanTap, LiteEthMac}
import triggerfish.soc.{SimBusMaster, TfSim}
import scala.collection.mutable
import scala.collection.mutable.ArrayBuffer
import scala.util.Random

/** early: early fires (OffloadRx and OrderEngine built with them, the MAC with its poison input and raw stream,
  * DatapathSim.macName), the parser on the lean tap (EthRxLeanTap) unless `lean` is false. */
class DatapathTop(macDir: String, rxCfg: OffloadRxConfig = OffloadRxConfig(entries = 64), early: Boolean = false,
                  lean: Boolean = true) extends Component {
  import DatapathSim.{PlayWords, TxBytes, CaptureSlots}
  val io = new Bundle {
    val rxBus = slave(PipelinedMemoryBus(OffloadRx.busConfig))    // OFFLOAD_RX registers
    val txBus = slave(PipelinedMemoryBus(OrderEngine.busConfig))  // ORDER_TX registers and templates
    val gmii_tx_en = out Bool()
    val gmii_tx_data = out Bits (8 bits)
  }
  val macName = DatapathSim.macName(early)
  val mac = new LiteEthMac(macName, s"$macDir/$macName.v", s"$macDir/$macName.ports.txt")
  mac.io.rst := ClockDomain.current.readResetWire
  val clk = ClockDomain.current.readClockWire
  mac.phyPins("gmii_rx_clk") := clk.asBits
  mac.phyPins("gmii_gtx_clk") := clk.asBits
  io.gmii_tx_en := mac.phyPins("gmii_tx_en")(0)
  io.gmii_tx_data := mac.phyPins("gmii_tx_data")
  // The MAC's eth_rx_clk / eth_tx_clk are the GMII clock pins, here the one clock; the resets come out of the MAC,
  // or'ed with the harness's own, asserted from time 0 (startClock; LiteEthMac.ethDomains says why).
  val (rxCd, txCd) = mac.ethDomains(clk, clk, alsoReset = Some(ClockDomain.current.readResetWire))

  val offRx = OffloadRx(rxCfg.copy(early = early), rxCd)
  val engine = OrderEngine(OrderEngineConfig(early = early), rxCd, txCd)
  offRx.io.bus <> io.rxBus
  engine.io.bus <> io.txBus
  // the rxTap of Soc.scala's EthArea; with early fires, as there, the lean tap on the MAC's raw stream (unless `lean` is
  // false: the bench's row of early fires on LiteEth's own stream, for the difference)
  offRx.io.rx << (if (early && lean) EthRxLeanTap.on(mac, mac.rxFlow(), rxCd) else mac.rxFlow())
  engine.io.fire << offRx.io.fire
  if (early) { engine.io.fireEarly := offRx.io.fireEarly; engine.io.verdict << offRx.io.verdict }
  val txArea = new ClockingArea(txCd) {
    val arbiter = OrderEngineTxArbiter(withPoison = early)
    arbiter.io.order << engine.io.tx
    arbiter.io.cpu.valid := False
    arbiter.io.cpu.payload.assignDontCare()
    if (early) arbiter.io.orderPoison := engine.io.txPoison
    mac.txFrom(arbiter.io.output, if (early) Some(arbiter.io.outputPoison) else None)
  }

  // ---- simulation only: the GMII RX pins played from a ring the test fills ahead, and captures of io.fire and of
  // the GMII TX pins, so that the test touches the simulation every thousand cycles instead of every cycle.
  // `cyc` numbers the cycles: the RX pins carry ring entry cyc (dv, data) during cycle cyc, the MAC samples it at
  // the edge that ends it; TX_EN captured with stamp cyc was high during cycle cyc (sampled at the same edge).
  rxCd.setSynchronousWith(ClockDomain.current)   // one clock: the captures below read eth_rx / eth_tx signals in sys
  txCd.setSynchronousWith(ClockDomain.current)
  val simArea = new Area {
    val cyc = Reg(UInt(40 bits)) init 0
    cyc := cyc + 1
    val play = Mem(Bits(72 bits), PlayWords) init Seq.fill(PlayWords)(B(0, 72 bits))   // 8 entries of 9 bits per word
    val word = play.readAsync(cyc(log2Up(PlayWords) + 2 downto 3))
    val ent = word.subdivideIn(9 bits)(cyc(2 downto 0))
    mac.phyPins("gmii_rx_dv") := ent(8).asBits
    mac.phyPins("gmii_rx_data") := ent(7 downto 0)

    val fires = Reg(UInt(32 bits)) init 0
    val fireMem = Mem(Bits(1 + 40 + 6 + 4 + 32 + OffloadFire.priceWidth + 32 bits), CaptureSlots)
    val f = offRx.io.fire
    val fEarly = if (early) offRx.io.fireEarly else False
    when(f.valid) {
      fireMem(fires.resize(log2Up(CaptureSlots))) := fEarly ## cyc ## f.trigger ## f.template ## f.ackSeq ## f.price ## f.stamp
      fires := fires + 1
    }
    val en = io.gmii_tx_en
    val enD = RegNext(en) init False
    val txBytes = Reg(UInt(32 bits)) init 0
    val txMem = Mem(Bits(8 bits), TxBytes)
    when(en) { txMem(txBytes.resize(log2Up(TxBytes))) := io.gmii_tx_data; txBytes := txBytes + 1 }
    val riseCyc = Reg(UInt(40 bits)) init 0
    val riseIdx = Reg(UInt(32 bits)) init 0
    when(en && !enD) { riseCyc := cyc; riseIdx := txBytes }
    val txFrames = Reg(UInt(32 bits)) init 0
    val frameMem = Mem(Bits(104 bits), CaptureSlots)
    when(!en && enD) { frameMem(txFrames.resize(log2Up(CaptureSlots))) := riseCyc ## riseIdx ## txBytes; txFrames := txFrames + 1 }
    for (x <- Seq(cyc, fires, txBytes, txFrames)) x.simPublic()
    for (m <- Seq(play, fireMem, txMem, frameMem)) m.simPublic()
  }
  offRx.io.rxCycle.simPublic()
}

object DatapathSim {
  val macDir = "build/liteeth"
  /** The simulation's MAC (Makefile), with its poison input and raw stream for early fires. */
  def macName(early: Boolean): String = if (early) "liteeth_mac_gmii_early" else "liteeth_mac_gmii"
  private def compile(early: Boolean, lean: Boolean = true): SimCompiled[DatapathTop] = {
    val mac = macName(early)
    val rc = scala.sys.process.Process(Seq("make", "-s", s"$macDir/$mac.v")).!
    require(rc == 0, s"could not generate $macDir/$mac.v (make deps?)")
    TfSim.config.normalOptimisation.addSimulatorFlag("-Wno-fatal -Wno-lint -Wno-style -Wno-UNOPTFLAT -Wno-COMBDLY")
      .compile(new DatapathTop(TfSim.rtlPath(macDir), early = early, lean = lean)
        .setDefinitionName(if (!early) "DatapathTop" else if (lean) "DatapathTopEarly" else "DatapathTopEarlyLiteEth"))
  }
  lazy val compiled: SimCompiled[DatapathTop] = compile(early = false)
  lazy val compiledEarly: SimCompiled[DatapathTop] = compile(early = true)
  /** Early fires with the parser on LiteEth's own stream, as before the lean tap: the bench's row for the difference. */
  lazy val compiledEarlyLiteEth: SimCompiled[DatapathTop] = compile(early = true, lean = false)
  val Period = 800          // 8 ns in 10 ps units: 125 MHz, one GMII byte per cycle = 1 Gb/s
  val ClockMhz = 125.0
  val Preamble = 8          // 7 x 0x55 + SFD
  val Ifg = 12              // minimum inter-frame gap, idle cycles on the pins
  val Mss = 1460            // payload bytes per segment at most (1500-byte IP MTU)
  val PlayWords = 2048      // RX ring: 16384 cycles
  val TxBytes = 16384       // TX capture ring
  val CaptureSlots = 512    // fires and TX frames captured between two visits
  val Ahead = 8192          // the ring is filled this many cycles ahead of the pins
  val Wake = 1024           // the test visits the simulation every Wake cycles

  /** Ethernet II + IPv4 (no options, DF) + TCP (no options, PSH|ACK) with valid checksums, padded to 60 bytes,
    * FCS not included; the same bytes as Net.Tcp (checked in DatapathBenchSpec) in linear time. */
  def tcpFrame(srcMac: Long, dstMac: Long, srcIp: Long, dstIp: Long, srcPort: Int, dstPort: Int, seq: Long, ack: Long,
               payload: Array[Int]): Array[Int] = {
    val len = 54 + payload.length
    val f = new Array[Int](scala.math.max(60, len))
    def put(off: Int, v: Long, n: Int): Unit = for (i <- 0 until n) f(off + i) = ((v >> (8 * (n - 1 - i))) & 0xFF).toInt
    put(0, dstMac, 6); put(6, srcMac, 6); put(12, 0x0800, 2)
    f(14) = 0x45; put(16, len - 14, 2); put(20, 0x4000, 2); f(22) = 64; f(23) = 6
    put(26, srcIp, 4); put(30, dstIp, 4)
    put(34, srcPort, 2); put(36, dstPort, 2); put(38, seq, 4); put(42, ack, 4); f(46) = 0x50; f(47) = 0x18; put(48, 0xFFFF, 2)
    System.arraycopy(payload, 0, f, 54, payload.length)
    def sum(from: Int, until: Int, init: Long): Long = {
      var s = init; var i = from
      while (i < until) { s += (f(i) << 8) | (if (i + 1 < until) f(i + 1) else 0); i += 2 }
      s
    }
    def fold(s0: Long): Int = { var s = s0; while ((s >> 16) != 0) s = (s & 0xFFFF) + (s >> 16); (~s & 0xFFFF).toInt }
    put(24, fold(sum(14, 34, 0)), 2)
    val tcpLen = len - 34
    val pseudo = (srcIp >> 16) + (srcIp & 0xFFFF) + (dstIp >> 16) + (dstIp & 0xFFFF) + 6 + tcpLen
    put(50, fold(sum(34, len, pseudo)), 2)
    f
  }

  /** The bytes on the GMII RX pins for a frame: preamble, SFD, the frame, its FCS (CRC-32, low byte first). */
  def wire(frame: Array[Int]): Array[Int] = {
    val crc = new java.util.zip.CRC32()
    crc.update(frame.map(_.toByte))
    val fcs = crc.getValue
    Array.fill(7)(0x55) ++ Array(0xD5) ++ frame ++ (0 until 4).map(k => ((fcs >> (8 * k)) & 0xFF).toInt)
  }
}

/** Market data 35=W messages with a FIX body of a given size (BodyLength: the bytes after `9=n|` up to `10=`).
  * Structure, by what fits (the largest first):
  *  - full (the paper's): 35=W 34 49 52 56 55 262 [padding] 268=3, 269=0 270 271 290, 269=1 270 271 290, 269=2 270 271;
  *  - short: 35=W 34 49 52 56 55 [padding] 268=1, 269=2 270 271;
  *  - minimal: 35=W 34 55 [padding] 268=1, 269=2 270 271 (about 50 bytes: smaller sizes get this, larger).
  * Padding: user-defined fields 5001, 5002, ... (up to 80 characters each); a gap of 1..6 bytes is taken by
  * leading zeros in the trade's 271 (legal for a Qty). */
class DatapathWGen(rnd: Random, val decimals: Int = 2) {
  import Fix.SOH
  var msgSeq = 1L
  def price(v: Long): String = Fix.price(v, decimals, decimals)
  private def len(fields: Seq[(String, String)]): Int = fields.map { case (t, v) => t.length + v.length + 2 }.sum

  /** One message: its text and its BodyLength. */
  def message(sym: String, trade: Long, target: Int, tradeFirst: Boolean = false): (String, Int) = {
    val seq = msgSeq.toString; msgSeq += 1
    val tick = scala.math.max(1L, trade / 2000)
    val qty = (1 + rnd.nextInt(999)).toString
    val bidQty = (1 + rnd.nextInt(999)).toString
    val offerQty = (1 + rnd.nextInt(999)).toString
    val header = Seq("49" -> "EXCH", "52" -> f"20240315-${9 + rnd.nextInt(7)}%02d:${rnd.nextInt(60)}%02d:${rnd.nextInt(60)}%02d.${rnd.nextInt(1000)}%03d", "56" -> "TRIGGERFISH")
    def tradeEntry(q: String) = Seq("269" -> "2", "270" -> price(trade), "271" -> q)
    val bidOffer = Seq("269" -> "0", "270" -> price(scala.math.max(0, trade - tick)), "271" -> bidQty, "290" -> "1",
        "269" -> "1", "270" -> price(trade + tick), "271" -> offerQty, "290" -> "1")
    // (tradeFirst: the trade entry before the bid and offer and the padding after them: the rest of the message, all
    // but a few bytes of it, follows the price)
    val full = (pad: Seq[(String, String)], q: String) => Seq("35" -> "W", "34" -> seq) ++ header ++ Seq("55" -> sym, "262" -> "MD1") ++
      (if (tradeFirst) Seq("268" -> "3") ++ tradeEntry(q) ++ bidOffer ++ pad else pad ++ Seq("268" -> "3") ++ bidOffer ++ tradeEntry(q))
    val short = (pad: Seq[(String, String)], q: String) => Seq("35" -> "W", "34" -> seq) ++ header ++ Seq("55" -> sym) ++ pad ++ Seq("268" -> "1") ++ tradeEntry(q)
    val minimal = (pad: Seq[(String, String)], q: String) => Seq("35" -> "W", "34" -> seq, "55" -> sym) ++ pad ++ Seq("268" -> "1") ++ tradeEntry(q)
    val tiers = Seq(full, short, minimal)
    val build = tiers.find(b => len(b(Nil, qty)) <= target).getOrElse(minimal)
    val base = len(build(Nil, qty))
    var gap = target - base
    var q = qty
    val pad = ArrayBuffer[(String, String)]()
    if (gap > 0 && gap <= 6) { q = "0" * gap + qty; gap = 0 }
    var tag = 5001
    while (gap > 0) {   // fields of 7..86 bytes ("5001=" + value + SOH), never leaving 1..6 bytes
      var l = scala.math.min(gap, 86)
      if (gap - l > 0 && gap - l < 7) l = gap - 7
      pad += tag.toString -> Seq.fill(l - 6)(('A' + rnd.nextInt(26)).toChar).mkString
      tag += 1; gap -= l
    }
    val body = build(pad.toSeq, q)
    (Fix.message(body), len(body))
  }
}

/** One run of the datapath: set up once, then phases of traffic (sweep cells, line-rate runs). */
class DatapathRun(val dut: DatapathTop, seed: Int, var crossEvery: Int = 50) {
  import DatapathSim._
  import OffloadRxSim.{ourMac, peerMac, ourIp, peerIp, ourPort, peerPort}
  import OrderSim._
  val rnd = new Random(seed)
  val cd = dut.clockDomain
  val n = dut.offRx.config.entries
  val model = new OffloadRxModel(n)
  val gen = new DatapathWGen(rnd)
  def rxOff(name: String): Int = dut.offRx.regs.entries.find(_.name == name).getOrElse(sys.error(s"no register $name")).offset

  // ---- the table: n entries on n different symbols (one-shot, buy and sell stops), template j % 16; and
  // symbols the table does not hold
  val known = Seq("AAPL", "MSFT", "IBM", "GOOGL", "AMZN", "NVDA", "META", "TSLA", "JPM", "V", "WMT", "XOM", "ORCL", "KO", "PEP", "INTC")
  val symbols: IndexedSeq[String] = {
    val s = mutable.LinkedHashSet[String]() ++ known
    while (s.size < n + 16) s += Seq.fill(2 + rnd.nextInt(4))(('A' + rnd.nextInt(26)).toChar).mkString
    s.toIndexedSeq
  }
  val scale = 100L // 2 implied decimals
  val stop: IndexedSeq[Long] = symbols.map(_ => (10 + rnd.nextInt(2000)) * scale + rnd.nextInt(100))
  def sell(j: Int): Boolean = j % 2 == 1
  def tmplOf(j: Int): Int = j % 16
  val entryBusy = Array.fill(n)(false)    // crossing sent, not re-armed yet
  val templBusy = Array.fill(16)(false)   // an order for it on its way, not re-armed yet

  // ---- pins: the RX ring filled ahead, the captures read back, every Wake cycles
  case class GenFrame(id: Int, bytes: Array[Int], msgs: Int, intents: Map[Int, Int] /* entry -> index of its message's last byte */,
                      fcsBad: Boolean = false /* its FCS's last byte inverted on the pins */)
  val frameStart = ArrayBuffer[Long]()     // by frame id: pins cycle of the first preamble byte
  val frameLen = ArrayBuffer[Int]()        // by frame id: bytes without preamble and FCS
  val intents = mutable.Map[(Int, Int), Int]()   // (frame id, entry) -> index of the triggering message's last byte
  case class HwFire(cycle: Long, trigger: Int, template: Int, ackSeq: Long, price: Long, stamp: Long, early: Boolean = false)
  val hwFires = ArrayBuffer[HwFire]()
  case class PinFrame(bytes: Array[Int], enCycle: Long)
  val pinFrames = ArrayBuffer[PinFrame]()
  val modelFires = ArrayBuffer[(Int, ModelFire)]()
  var source: () => Option[GenFrame] = () => None
  var nextId = 0
  var rxSeq = 0x3A000000L + rnd.nextInt(1 << 20)
  private var cur: Array[Int] = null
  private var pos = 0
  private var gap = 0
  var writePtr = -1L          // the next ring entry to write, as a cycle number
  var placedEnd = 0L          // the cycle after the last placed frame's gap
  def cyc: Long = dut.simArea.cyc.toLong
  def driverIdle: Boolean = cur == null && gap == 0 && cyc >= placedEnd

  private def nextEntry(at: Long): Int = {
    if (cur == null && gap == 0) source() match {
      case Some(f) =>
        cur = wire(f.bytes); pos = 0; frameStart += at; frameLen += f.bytes.length
        if (f.fcsBad) cur(cur.length - 1) ^= 0xFF
      case None =>
    }
    if (cur != null && gap == 0) {
      val v = 0x100 | cur(pos)
      pos += 1
      if (pos == cur.length) { cur = null; gap = Ifg; placedEnd = at + 1 + Ifg }
      v
    } else { if (gap > 0) gap -= 1; 0 }
  }
  private def fill(): Unit = {
    val now = cyc
    if (writePtr < 0) writePtr = (now + 64) & ~7L
    require(writePtr > now, s"the RX ring fell behind the pins ($writePtr <= $now)")
    while (writePtr < now + Ahead) {
      var lo = 0L
      for (k <- 0 until 7) lo |= nextEntry(writePtr + k).toLong << (9 * k)
      val w = BigInt(lo) | (BigInt(nextEntry(writePtr + 7)) << 63)
      dut.simArea.play.setBigInt((writePtr / 8) % PlayWords, w)
      writePtr += 8
    }
  }
  private var firesRead = 0L
  private var framesRead = 0L
  val debug = sys.env.contains("TF_DATAPATH_DEBUG")
  var hideFires = 0       // tests only: fires left out of the capture, to check that the bench notices
  var capturing = false   // set after the set-up (until then the captures are skipped: nothing is sent)
  private def collect(): Unit = {
    val nf = dut.simArea.fires.toLong
    if (!capturing) { if (nf != firesRead) println(s"[datapath] ${nf - firesRead} fire beats before the set-up ended (ignored)")
      firesRead = nf; framesRead = dut.simArea.txFrames.toLong; return }
    require(nf - firesRead <= CaptureSlots, "fire capture overrun")
    while (firesRead < nf) {
      val b = dut.simArea.fireMem.getBigInt(firesRead % CaptureSlots)
      def big(lsb: Int, w: Int): BigInt = (b >> lsb) & ((BigInt(1) << w) - 1)
      def fld(lsb: Int, w: Int): Long = big(lsb, w).toLong
      val pw = OffloadFire.priceWidth   // stamp 0.., price 32.., ackSeq, template, trigger, cycle
      if (hideFires > 0) hideFires -= 1 else hwFires += HwFire(fld(74 + pw, 40), fld(68 + pw, 6).toInt, fld(64 + pw, 4).toInt,
        fld(32 + pw, 32), OffloadRxSim.loggedPrice(big(32, pw)), fld(0, 32), fld(114 + pw, 1) == 1)
      firesRead += 1
    }
    val nt = dut.simArea.txFrames.toLong
    require(nt - framesRead <= CaptureSlots, "TX capture overrun")
    while (framesRead < nt) {
      val b = dut.simArea.frameMem.getBigInt(framesRead % CaptureSlots)
      val end = (b & 0xFFFFFFFFL).toLong; val start = ((b >> 32) & 0xFFFFFFFFL).toLong; val rise = (b >> 64).toLong
      require(end - start <= TxBytes, "TX frame longer than the capture")
      pinFrames += PinFrame((start until end).map(i => dut.simArea.txMem.getBigInt(i % TxBytes).toInt).toArray, rise)
      framesRead += 1
    }
  }
  var stopPump = false
  /** The thread that keeps the RX ring ahead of the pins and reads the captures. */
  def pump(): Unit = fork {
    cd.waitSampling(); cd.waitSamplingWhere(!cd.isResetAsserted); cd.waitSampling(4)   // `cyc` counts from the reset
    while (!stopPump) { fill(); collect(); sleep(Period.toLong * Wake) }
  }

  /** Builds a segment of whole messages, runs it through the model, and records what it should fire. `corrupt`
    * (early-fire tests): changes the frame's bytes after it is built (the segment then fires nothing, and if it
    * turns out bad the sender's next segment has the same sequence number); fcsBad: its FCS is wrong on the pins. */
  def segment(msgs: Seq[(String, Option[Int])], corrupt: Option[Array[Int] => Unit] = None, fcsBad: Boolean = false): GenFrame = {
    val payload = ArrayBuffer[Int]()
    val intent = mutable.Map[Int, Int]()
    for ((m, e) <- msgs) {
      payload ++= m.iterator.map(_.toInt & 0xFF)
      for (j <- e) intent(j) = 54 + payload.length - 1
    }
    val bytes = tcpFrame(peerMac, ourMac, peerIp, ourIp, peerPort, ourPort, rxSeq, 1, payload.toArray)
    corrupt.foreach(_(bytes))
    val id = nextId; nextId += 1
    val (kind, fires) = model.frame(id, bytes, fcsErr = fcsBad)
    if (corrupt.isDefined || fcsBad) {
      require(fires.isEmpty, s"frame $id: a corrupted segment fires in the model")
      if (kind == RxKind.INORDER) rxSeq = (rxSeq + payload.length) & 0xFFFFFFFFL   // (a bad FIX CheckSum: a good segment)
      return GenFrame(id, bytes, msgs.length, Map.empty, fcsBad)
    }
    rxSeq = (rxSeq + payload.length) & 0xFFFFFFFFL
    require(kind == RxKind.INORDER, s"frame $id: kind $kind")
    for (x <- fires) modelFires += ((id, x))
    for ((j, idx) <- intent) intents((id, j)) = idx
    // An intended crossing the model did not fire (never expected) releases its entry and template.
    for (j <- intent.keys if !fires.exists(_.trigger == j)) { unintended += 1; entryBusy(j) = false; templBusy(tmplOf(j)) = false }
    for (x <- fires if !intent.contains(x.trigger)) unintended += 1
    GenFrame(id, bytes, msgs.length, intent.toMap)
  }
  var unintended = 0
  val early: Boolean = dut.offRx.config.early

  /** The next message: every crossEvery-th one crosses the stop of an available entry (if any is). */
  var msgIndex = 0L
  var crossSkipped = 0
  var tradeFirst = false   // messages with the trade entry first (DatapathWGen.message)
  def nextMessage(target: Int): (String, Option[Int], Int) = {
    msgIndex += 1
    val avail = if (msgIndex % crossEvery == crossEvery / 2) (0 until n).filter(j => !entryBusy(j) && !templBusy(tmplOf(j)) && model.armed(j)) else Nil
    if (msgIndex % crossEvery == crossEvery / 2 && avail.isEmpty) crossSkipped += 1
    if (avail.nonEmpty) {
      val j = avail(rnd.nextInt(avail.length))
      val s = stop(j)
      val p = if (rnd.nextInt(4) == 0) s else if (sell(j)) scala.math.max(0L, s - 1 - rnd.nextInt((s / 200 + 1).toInt)) else s + 1 + rnd.nextInt((s / 200 + 1).toInt)
      entryBusy(j) = true; templBusy(tmplOf(j)) = true
      val (m, bl) = gen.message(symbols(j), p, target, tradeFirst)
      (m, Some(j), bl)
    } else {
      val k = if (rnd.nextInt(100) < 85) rnd.nextInt(n) else n + rnd.nextInt(symbols.length - n)
      val s = stop(k)
      val d = 1 + rnd.nextInt((s / 50 + 1).toInt)
      val p = if (k >= n) scala.math.max(0L, s - d + rnd.nextInt((2 * d).toInt))
              else if (sell(k)) s + d else scala.math.max(0L, s - d)   // never crossing a table entry
      val (m, bl) = gen.message(symbols(k), p, target, tradeFirst)
      (m, None, bl)
    }
  }

  // ---- the firmware: buses, set-up, and the loop that drains the engine's log and re-arms
  val rxBus = new SimBusMaster(dut.io.rxBus, cd)
  val txBus = new SimBusMaster(dut.io.txBus, cd)
  val tmpl = Array.fill[OrderRef.Template](16)(null)
  case class Rec(r: FireRecord, words: Seq[Long])
  val records = ArrayBuffer[FireRecord]()
  var cmdTimeouts = 0

  def rxCmd(op: Int, entry: Int = 0): Int = {
    val done0 = (rxBus.read(rxOff("CMD_STATUS")) >> 8) & 0xFF
    rxBus.write(rxOff("CMD"), op | (entry << 8))
    var st = rxBus.read(rxOff("CMD_STATUS"))
    var guard = 0
    while (((st >> 8) & 0xFF) != ((done0 + 1) & 0xFF) || (st & 1) != 0) {
      cd.waitSampling(10); st = rxBus.read(rxOff("CMD_STATUS")); guard += 1
      if (guard > 100000) sys.error(s"OFFLOAD_RX command $op did not complete")
    }
    assert((st & 2) == 0, "command refused")
    ((st >> 16) & 0xFFFF).toInt
  }
  def txWaitCmd(): Unit = while ((txBus.read(STATUS) & ST_CMD_BUSY) != 0) cd.waitSampling()

  def setup(): Unit = {
    cd.waitSampling(); cd.waitSamplingWhere(!cd.isResetAsserted); cd.waitSampling(100)
    // OffloadRx: the connection, DECIMALS 2, trade type '2', the table.
    def w(name: String, v: Long) = rxBus.write(rxOff(name), v)
    w("CTRL", 1); w("OUR_MAC_HI", ourMac >> 32); w("OUR_MAC_LO", ourMac & 0xFFFFFFFFL); w("OUR_IP", ourIp); w("OUR_PORT", ourPort)
    w("PEER_IP", peerIp); w("PEER_PORT", peerPort); w("FIX_CFG", 2 | ('2'.toInt << 8))
    if (early) w("EARLY_CTRL", 1)
    rxCmd(OffloadRx.Op.CONFIG)
    model.config(true, ourMac, ourIp, ourPort, peerIp, peerPort, 2, '2')
    w("RCV_NXT", rxSeq); rxCmd(OffloadRx.Op.LOAD_SEQ); model.loadSeq(rxSeq)
    for (j <- 0 until n) {
      val e = ModelEntry(symbols(j), stop(j), sell = sell(j), oneShot = true, tmpl = tmplOf(j))
      val sym = e.sym.map(_.toInt).padTo(8, 0)
      w("ENTRY_SYM0", sym.take(4).zipWithIndex.map { case (c, i) => c.toLong << (8 * i) }.sum)
      w("ENTRY_SYM1", sym.drop(4).zipWithIndex.map { case (c, i) => c.toLong << (8 * i) }.sum)
      w("ENTRY_STOP_LO", e.stop & 0xFFFFFFFFL); w("ENTRY_STOP_HI", (e.stop >> 32) & 0xFFFF)
      w("ENTRY_CFG", (if (e.sell) 1 else 0) | 2 | 4 | (e.tmpl << 4))
      val r = rxCmd(OffloadRx.Op.WRITE_ENTRY, j)
      require(r == model.writeEntry(j, e, arm = true) && r == 0, s"WRITE_ENTRY $j")
    }
    // OrderEngine: 16 templates (New Order Singles, MsgSeqNum 8 digits, SendingTime and TransactTime patched),
    // the clock, the numbers while idle, enable, arm all.
    val trnd = new Random(seed + 1)
    for (t <- 0 until 16) {
      val tp = OrderRef.build(trnd, 8, true, true)
      for ((wd, i) <- tp.words.zipWithIndex) txBus.write(TEMPLATE + 256 * t + 4 * i, wd)
      for ((wd, i) <- tp.meta.zipWithIndex) txBus.write(META + 16 * t + 4 * i, wd)
      tmpl(t) = tp
    }
    txBus.write(MS_DIVISOR, 124999); txBus.write(TIME_LO, OrderRef.toBcd(9 * 3600000L + 30 * 60000L) & 0xFFFFFFFFL)
    txWaitCmd(); txBus.write(TIME_SET, 0); txWaitCmd()
    while ((txBus.read(STATUS) & ST_IDLE) == 0) cd.waitSampling()   // (disabled since reset)
    txBus.write(NEXT_SEQ, 0x51000000L); txBus.write(NEXT_MSGSEQ, 1000); txBus.write(IP_ID, 1); txBus.write(WINDOW, 65535)
    txBus.write(CTRL, CTRL_ENABLE)
    while ((txBus.read(STATUS) & ST_RUNNING) == 0) cd.waitSampling()
    txWaitCmd(); txBus.write(ARM_SET, 0xFFFF); txWaitCmd()
    cd.waitSampling(100)
    sleep(Period.toLong * Wake * 2)
    capturing = true
  }

  @volatile var pauseReq = false
  var paused = false
  var stopFw = false
  val pollCycles = 500
  def firmware(): Unit = fork {
    while (!stopFw) {
      if (pauseReq) { paused = true; while (pauseReq && !stopFw) sleep(Period.toLong * 50); paused = false }
      sleep(Period.toLong * pollCycles)
      val cnt = txBus.read(LOG_COUNT)
      for (_ <- 0L until cnt) {
        val r = FireRecord.decode((0 until 8).map(_ => txBus.read(LOG_DATA)))
        records += r
        import OrderEngine.St
        if (St.framed(r.status)) {
          // the template is disarmed (one-shot) and so is the entry, unless the order was poisoned (its segment's
          // verdict was bad: the entry is still armed, as its segment never happened, and the engine armed the
          // template again): re-arm both (ARM_SET of an armed template changes nothing)
          txWaitCmd(); txBus.write(ARM_SET, 1L << r.template); txWaitCmd()
          templBusy(r.template) = false
          rxCmd(OffloadRx.Op.ARM, r.trigger); model.arm(r.trigger)
          entryBusy(r.trigger) = false
        }
      }
    }
  }
  def pauseFirmware(): Unit = { pauseReq = true; while (!paused) sleep(Period.toLong * 10) }
  def resumeFirmware(): Unit = pauseReq = false

  def counters: Map[String, Long] = Seq("SEG_SEEN", "SEG_INORDER", "SEG_OOO", "SEG_BAD", "SEG_IGNORED", "W_MSGS", "FIX_ERRORS", "FIRES")
    .map(c => c -> rxBus.read(rxOff(c))).toMap
  def engineCounters: Map[String, Long] = Seq("IGNORED" -> IGNORED, "NOT_ARMED" -> NOT_ARMED, "LOG_DROPS" -> LOG_DROPS, "RX_OVERFLOW" -> RX_OVERFLOW)
    .map { case (k, a) => k -> txBus.read(a) }.toMap

  /** Runs one phase: frames from `src` until it returns None, then waits until every fire's order is out and
    * logged, and returns what happened (everything recorded in the phase). */
  def phase(src: () => Option[GenFrame]): PhaseResult = {
    val c0 = { pauseFirmware(); val c = counters; val e = engineCounters; resumeFirmware(); (c, e) }
    val m0 = (model.wMsgs, model.fires, model.segInorder)
    hwFires.clear(); pinFrames.clear(); modelFires.clear(); records.clear(); intents.clear()
    frameStart.clear(); frameLen.clear(); val id0 = nextId
    unintended = 0; crossSkipped = 0
    var done = false
    source = () => { val f = src(); if (f.isEmpty) done = true; f }
    val wall0 = System.nanoTime(); val cyc0 = cyc
    var polls = 0
    while (!(done && driverIdle)) {
      sleep(Period.toLong * Wake); polls += 1
      if (debug && polls % 200 == 0) println(s"[datapath] cycle $cyc: ${frameStart.length} frames placed, write pointer $writePtr, ${hwFires.length} fires, done $done")
    }
    val lastCycle = cyc
    source = () => None
    // the last fires: their orders and log records (a record is complete once the frame has left)
    var waited = 0
    cd.waitSampling(400)
    while ((records.length < hwFires.length || pinFrames.length < records.count(r => OrderEngine.St.framed(r.status)) ||
      entryBusy.exists(identity)) && waited < 200) { cd.waitSampling(500); waited += 1 }
    pauseFirmware()
    val c1 = counters; val e1 = engineCounters
    resumeFirmware()
    val wall = (System.nanoTime() - wall0) / 1e9
    PhaseResult(this, id0, lastCycle - cyc0, wall,
      c1.map { case (k, v) => k -> ((v - c0._1(k)) & 0xFFFFFFFFL) }, e1.map { case (k, v) => k -> ((v - c0._2(k)) & 0xFFFF) },
      (model.wMsgs - m0._1, model.fires - m0._2, model.segInorder - m0._3))
  }
}

/** Latency statistics in cycles. */
case class Stat(min: Long, avg: Double, max: Long, median: Long, count: Int)
object Stat {
  def of(xs: Seq[Long]): Stat = if (xs.isEmpty) Stat(0, 0, 0, 0, 0) else {
    val s = xs.sorted
    Stat(s.head, xs.sum.toDouble / xs.length, s.last, s(s.length / 2), xs.length)
  }
}

/** What one phase did, fires paired with the model's and with their orders on the pins. */
case class PhaseResult(run: DatapathRun, id0: Int, cycles: Long, wallSeconds: Double, rxCounters: Map[String, Long],
                       engCounters: Map[String, Long], modelCounts: (Long, Long, Long)) {
  import DatapathSim._
  val frames: Int = run.frameStart.length
  val ordersOnPins: Int = run.pinFrames.length
  val crossSkipped: Int = run.crossSkipped
  val unintended: Int = run.unintended
  val hwFires = run.hwFires.toSeq
  val modelFires = run.modelFires.toSeq
  // missed / false fires at the trigger table: the model's fires against the hardware's (entry, template, ACK,
  // price; the ACK names the segment)
  // (an early fire carries no price: the early runs compare without it)
  private def key(t: Int, tp: Int, ack: Long, price: Long) = (t, tp, ack, if (run.early) 0L else price)
  private val mKeys = modelFires.map { case (_, m) => key(m.trigger, m.template, m.ackSeq, m.price) }
  // (fires of segments built corrupted are the early fires the verdict poisons: checked by the early tests)
  private val hKeys = hwFires.filterNot(isCorruptFire).map(h => key(h.trigger, h.template, h.ackSeq, h.price))
  def isCorruptFire(h: run.HwFire): Boolean = h.early && poisoned.exists(r => r.trigger == h.trigger && r.ack == h.ackSeq)
  private def diff[T](a: Seq[T], b: Seq[T]): Int = {
    val c = mutable.Map[T, Int]().withDefaultValue(0)
    for (x <- b) c(x) += 1
    a.count { x => if (c(x) > 0) { c(x) -= 1; false } else true }
  }
  val missedAtTable: Int = diff(mKeys, hKeys)
  val falseAtTable: Int = diff(hKeys, mKeys)
  // orders: one SENT (SENT_EARLY) record per hardware fire, one frame on the pins per SENT, SENT_EARLY or POISONED record,
  // byte for byte as rebuilt; an early order's frame may have zero bytes after the order (while its verdict was
  // awaited), a POISONED one has its last FCS byte inverted
  import OrderEngine.St
  lazy val framed: Seq[FireRecord] = run.records.toSeq.filter(r => St.framed(r.status))
  lazy val poisoned: Seq[FireRecord] = framed.filter(_.status == St.POISONED)
  val sent: Seq[FireRecord] = framed.filter(_.status != St.POISONED)
  val pairs: Seq[(FireRecord, run.PinFrame)] = framed.zip(run.pinFrames)
  val notSent: Int = run.records.count(r => !St.framed(r.status)) + scala.math.max(0, hwFires.length - run.records.length)
  def expectedOnPins(r: FireRecord, pinBytes: Int): Array[Int] = {
    val exp = OrderRef.expected(run.tmpl(r.template), r.seq, r.ack, r.window, r.ipId, r.msgSeq, OrderRef.fromBcd(r.timeBcd))
    val pad = scala.math.max(0, 60 - exp.length)
    val extra = if (r.status == St.SENT) 0 else scala.math.max(0, pinBytes - Preamble - 4 - exp.length - pad)
    val w = wire(exp ++ Array.fill(pad + extra)(0))
    if (r.status == St.POISONED) w(w.length - 1) ^= 0xFF
    w
  }
  val badFrames: Int = pairs.count { case (r, pf) => !pf.bytes.sameElements(expectedOnPins(r, pf.bytes.length)) } +
    scala.math.abs(framed.length - run.pinFrames.length)
  val recordMismatch: Int = diff(sent.map(r => (r.trigger, r.template, r.ack)),
    hwFires.filterNot(isCorruptFire).map(h => (h.trigger, h.template, h.ackSeq)))
  val missed: Int = missedAtTable + notSent + scala.math.max(0, sent.length - run.pinFrames.length)
  val falseFires: Int = falseAtTable + scala.math.max(0, run.pinFrames.length - framed.length) + recordMismatch
  val cleanOrders: Boolean = badFrames == 0

  // latencies, per order on the pins: from the model's fire (frame, entry) to TX_EN
  case class Lat(msgEnd: Long, eof2sof: Long, t2t: Long, sof2sof: Long, early: Boolean)
  val lats: Seq[Lat] = {
    val byKey = modelFires.map { case (fid, m) => (m.trigger, m.ackSeq) -> (fid, m) }.toMap
    pairs.filter(_._1.status != St.POISONED).flatMap { case (r, pf) =>
      byKey.get((r.trigger, r.ack)).map { case (fid, m) =>
        val i = fid - id0
        val start = run.frameStart(i)
        def pin(idx: Int) = start + Preamble + idx
        // (a fire nobody intended, never expected, is counted in `unintended`; it is timed from the frame's last byte)
        val msgEnd = run.intents.getOrElse((fid, m.trigger), run.frameLen(i) - 1)
        val lastFcs = start + Preamble + run.frameLen(i) + 3
        val soh = m.stampRef.map { case (sf, si) => run.frameStart(sf - id0) + Preamble + si }.getOrElse(-1L)
        Lat(pf.enCycle - pin(msgEnd), pf.enCycle - lastFcs, if (soh >= 0) pf.enCycle - soh else -1, pf.enCycle - start,
          r.status == St.SENT_EARLY)
      }
    }
  }
  // the fire's stamp (eth_rx cycle counter when the SOH was on the MAC stream) against the SOH on the pins
  val stampToPins: Set[Long] = {
    val byKey = modelFires.map { case (fid, m) => (m.trigger, m.ackSeq) -> m }.toMap
    hwFires.flatMap { h => byKey.get((h.trigger, h.ackSeq)).flatMap(_.stampRef).map { case (sf, si) =>
      (h.stamp - (run.frameStart(sf - id0) + Preamble + si)) }
    }.toSet
  }
  def msgEnd: Stat = Stat.of(lats.map(_.msgEnd))
  def eof2sof: Stat = Stat.of(lats.map(_.eof2sof))
  def t2t: Stat = Stat.of(lats.filter(_.t2t >= 0).map(_.t2t))
  def sof2sof: Stat = Stat.of(lats.map(_.sof2sof))
  def simSeconds: Double = cycles / (ClockMhz * 1e6)
}
