// EthRxLeanTap, the offload's lean receive tap. Two tests:
// - against a reference model: thousands of random raw streams (IPv4 frames with and without Ethernet padding,
//   IPv4 frames whose total length is too small or runs past the frame, other EtherTypes, frames of 1 to 17 bytes,
//   idle cycles inside frames, gaps of one cycle and more) with verdicts 1 to maxWait cycles after a frame's last
//   raw byte, or none, good or bad. The model says, cycle by cycle, which bytes come out (the datagram for a
//   well-formed IPv4 frame, the whole frame otherwise), when (a byte the cycle it came in; the last one with its
//   verdict, at the timeout, or beside the next frame's first byte, which is then lost) and with what error.
// - against the real LiteEth MAC (the early fires' variant, --rx-raw): random frames on its GMII pins, good and with
//   a bad FCS; the tap's bytes are the MAC's own stream cut at the datagram's end, each 5 cycles ahead of the MAC's
//   copy of it (pinned), and the last beat comes in the MAC's last beat's cycle with the MAC's verdict.
// Replay with TF_SEED=<seed> ./mill -i hw.test.testOnly 'triggerfish.eth.EthRxLeanTapSpec'
package triggerfish.eth

import org.scalatest.funsuite.AnyFunSuite
import spinal.core._
import spinal.core.sim._
import spinal.lib._
import triggerfish.soc.TfSim
import scala.collection.mutable
import scala.collection.mutable.ArrayBuffer
import scala.util.Random

/** The real MAC (gmii, early fires' variant) and the tap on its raw stream; GMII pins driven by the test. */
class EthRxLeanTapMacTop(macDir: String, macName: String) extends Component {
  val io = new Bundle {
    val rxDv = in Bool()
    val rxData = in Bits (8 bits)
    val mac = master(Flow(EthRxBeat()))
    val tap = master(Flow(EthRxBeat()))
  }
  val mac = new LiteEthMac(macName, s"$macDir/$macName.v", s"$macDir/$macName.ports.txt")
  mac.io.rst := ClockDomain.current.readResetWire
  val clk = ClockDomain.current.readClockWire
  mac.phyPins("gmii_rx_clk") := clk.asBits
  mac.phyPins("gmii_gtx_clk") := clk.asBits
  mac.phyPins("gmii_rx_dv") := io.rxDv.asBits
  mac.phyPins("gmii_rx_data") := io.rxData
  mac.io.tx_valid := False; mac.io.tx_data := 0; mac.io.tx_last := False
  if (mac.io.tx_poison != null) mac.io.tx_poison := False
  val (rxCd, _) = mac.ethDomains(clk, clk, alsoReset = Some(ClockDomain.current.readResetWire))
  rxCd.setSynchronousWith(ClockDomain.current)
  val rx = mac.rxFlow()
  io.mac << rx
  val area = new ClockingArea(rxCd) {
    val tap = EthRxLeanTap()
    tap.io.raw << mac.rxRawFlow()
    tap.io.verdict.valid := rx.valid && rx.payload.last
    tap.io.verdict.payload := rx.payload.error
  }
  io.tap << area.tap.io.out
}

class EthRxLeanTapSpec extends AnyFunSuite {
  val seed = TfSim.seed(41)
  val maxWait = 4

  /** A frame's bytes with an IPv4 header (EtherType 0x0800, total length `totalField`) and `dgram` bytes after the
    * Ethernet header, padded with `pad` more bytes. */
  def ipv4Frame(rnd: Random, dgram: Int, totalField: Int, pad: Int): Array[Int] = {
    val f = Array.fill(14 + dgram + pad)(rnd.nextInt(256))
    f(12) = 0x08; f(13) = 0x00
    if (f.length > 16) f(16) = (totalField >> 8) & 0xFF
    if (f.length > 17) f(17) = totalField & 0xFF
    f
  }

  /** Random frame contents without FCS: (bytes, what the model expects of them is derived later). */
  def randomFrame(rnd: Random): Array[Int] = rnd.nextInt(10) match {
    case 0 | 1 | 2 => val d = 20 + rnd.nextInt(300); ipv4Frame(rnd, d, d, 0)                          // no padding
    case 3 => val d = 20 + rnd.nextInt(26); ipv4Frame(rnd, d, d, 46 - d)                                 // padded to 60
    case 4 => val d = 20 + rnd.nextInt(100); ipv4Frame(rnd, d, d, 1 + rnd.nextInt(20))                    // longer than its datagram
    case 5 => val d = 20 + rnd.nextInt(100); ipv4Frame(rnd, d, d + 1 + rnd.nextInt(10), 0)                // length past the frame
    case 6 => val d = 20 + rnd.nextInt(100); ipv4Frame(rnd, d, rnd.nextInt(20), 0)                        // length below 20
    case 7 => val f = Array.fill(14 + rnd.nextInt(100))(rnd.nextInt(256)); if (f(12) == 8 && f(13) == 0) f(13) = 6; f
    case 8 => ipv4Frame(rnd, 20, 20, 0).take(1 + rnd.nextInt(17))                                        // 1..17 bytes
    case _ => val d = 20 + rnd.nextInt(60); ipv4Frame(rnd, d, d, 0)
  }

  /** What the tap must give for a frame of `n` raw bytes (FCS included, the last 4): (bytes out, forced bad). */
  def expected(raw: Array[Int]): (Array[Int], Boolean) = {
    val n = raw.length
    val ipv4 = n >= 14 && raw(12) == 0x08 && raw(13) == 0x00
    if (ipv4 && n >= 18) {
      val total = (raw(16) << 8) | raw(17)
      if (total >= 20 && 14 + total <= n - 1) return (raw.take(14 + total), false)
    }
    (raw, ipv4)
  }

  case class Beat(cycle: Long, data: Int, last: Boolean, error: Boolean)

  test(s"against a reference model: 4,000 random raw streams, verdicts late, missing, beside the next frame (seed $seed)") {
    val rnd = new Random(seed)
    // The frames on the raw stream: bytes (FCS included) and the cycle of each.
    case class In(raw: Array[Int], cycles: Array[Long])
    val frames = ArrayBuffer[In]()
    var t = 20L
    for (_ <- 0 until 4000) {
      val raw = randomFrame(rnd) ++ Array.fill(4)(rnd.nextInt(256))
      // the gap since the previous frame's last raw byte: mostly the wire's (20 cycles and more), sometimes 1 to 6
      var c = t + (if (rnd.nextInt(6) == 0) 1 + rnd.nextInt(6) else 20 + rnd.nextInt(30))
      val cycles = new Array[Long](raw.length)
      for (j <- raw.indices) {
        if (j > 0 && rnd.nextInt(15) == 0) c += 1 + rnd.nextInt(2)   // idle cycles inside the frame
        cycles(j) = c; c += 1
      }
      frames += In(raw, cycles)
      t = cycles.last
    }
    val rawAt = mutable.HashMap[Long, (Int, Boolean)]()
    for (f <- frames; j <- f.raw.indices) rawAt(f.cycles(j)) = (f.raw(j), j == f.raw.length - 1)
    // Verdicts: 1 to maxWait cycles after the frame's last raw byte, never after the next frame's first byte (as the
    // MAC gives them), or none; good or bad. And the model's beats.
    val verdictAt = mutable.HashMap[Long, Boolean]()
    val want = ArrayBuffer[Beat]()
    var lostFirst = false
    for ((f, i) <- frames.zipWithIndex) {
      val (out, forced) = expected(f.raw)
      val lastCycle = f.cycles.last
      val nextFirst = if (i + 1 < frames.length) frames(i + 1).cycles(0) else Long.MaxValue
      for (j <- 0 until out.length - 1 if !(j == 0 && lostFirst)) want += Beat(f.cycles(j), out(j), last = false, error = false)
      val k = if (rnd.nextInt(8) == 0) None else Some(scala.math.min(1L + rnd.nextInt(maxWait), nextFirst - lastCycle))
      val bad = rnd.nextInt(5) == 0
      for (kk <- k) verdictAt(lastCycle + kk) = bad
      // the held byte goes out with its verdict, else at the timeout or beside the next frame's first byte
      val release = k.fold(scala.math.min(lastCycle + 1 + maxWait, nextFirst))(lastCycle + _)
      want += Beat(release, out.last, last = true, error = forced || lostFirst || k.isEmpty || bad)
      lostFirst = release == nextFirst       // that byte could not go out beside it: lost, and its frame bad
    }
    val nFrames = frames.length
    val end = t + 20

    TfSim.config.compile(EthRxLeanTap(maxWait)).doSim(seed = seed) { dut =>
        dut.io.raw.valid #= false; dut.io.verdict.valid #= false
        TfSim.start(dut.clockDomain)
        val got = ArrayBuffer[Beat]()
        var cyc = 0L
        while (cyc <= end) {
          rawAt.get(cyc) match {
            case Some((b, l)) => dut.io.raw.valid #= true; dut.io.raw.fragment #= b; dut.io.raw.last #= l
            case None => dut.io.raw.valid #= false; dut.io.raw.fragment #= rnd.nextInt(256); dut.io.raw.last #= rnd.nextBoolean()
          }
          verdictAt.get(cyc) match {
            case Some(bad) => dut.io.verdict.valid #= true; dut.io.verdict.payload #= bad
            case None => dut.io.verdict.valid #= false; dut.io.verdict.payload #= rnd.nextBoolean()
          }
          sleep(1)
          if (dut.io.out.valid.toBoolean) {
            val o = dut.io.out.payload
            got += Beat(cyc, o.data.toInt, o.last.toBoolean, o.last.toBoolean && o.error.toBoolean)
          }
          dut.clockDomain.waitSampling()
          cyc += 1
        }
        val firstBad = got.indices.find(i => i >= want.length || got(i) != want(i))
        assert(got.length == want.length && firstBad.isEmpty,
          s"${got.length} beats out, ${want.length} expected; first difference at ${firstBad.getOrElse(-1)}: " +
          s"got ${firstBad.flatMap(got.lift)}, expected ${firstBad.flatMap(want.lift)}")
        val lasts = got.count(_.last)
        assert(lasts == nFrames, s"$lasts last beats for $nFrames frames")
        println(f"EthRxLeanTap model: $nFrames frames, ${got.length} beats, ${got.count(_.error)} ended bad")
      }
  }

  test(s"against the real MAC: 600 frames on the GMII pins, 5 cycles ahead, the MAC's verdict in its cycle (seed ${seed + 1})") {
    val rnd = new Random(seed + 1)
    val macDir = "build/liteeth"; val macName = "liteeth_mac_gmii_early"
    val rc = scala.sys.process.Process(Seq("make", "-s", s"$macDir/$macName.v")).!
    require(rc == 0, s"could not generate $macDir/$macName.v (make deps?)")
    def crc32(bytes: Seq[Int]): Long = {   // Ethernet's FCS: CRC-32, reflected, polynomial 0xEDB88320
      var c = 0xFFFFFFFFL
      for (b <- bytes) { c ^= b; for (_ <- 0 until 8) c = if ((c & 1) != 0) (c >>> 1) ^ 0xEDB88320L else c >>> 1 }
      c ^ 0xFFFFFFFFL
    }
    // Frames of 14 bytes and more (the MAC's checker swallows shorter ones), a sixth with a bad FCS.
    val sent = (0 until 600).map { _ =>
      var f = randomFrame(rnd); while (f.length < 14) f = randomFrame(rnd)
      val fcs = crc32(f); val bad = rnd.nextInt(6) == 0
      val fcsBytes = (0 until 4).map(i => ((fcs >>> (8 * i)) & 0xFF).toInt ^ (if (bad && i == 3) 0x01 else 0))
      (f, f ++ fcsBytes, bad)
    }
    TfSim.config.addSimulatorFlag("-Wno-fatal -Wno-lint -Wno-style -Wno-UNOPTFLAT -Wno-COMBDLY")
      .compile(new EthRxLeanTapMacTop(TfSim.rtlPath(macDir), macName).setDefinitionName("EthRxLeanTapMacTop")).doSim(seed = seed) { dut =>
        dut.io.rxDv #= false; dut.io.rxData #= 0
        TfSim.start(dut.clockDomain)
        for (_ <- 0 until 40) dut.clockDomain.waitSampling()
        val macBeats, tapBeats = ArrayBuffer[Beat]()
        var cyc = 0L
        def step(dv: Boolean, d: Int): Unit = {
          dut.io.rxDv #= dv; dut.io.rxData #= d
          sleep(1)
          for ((f, buf) <- Seq(dut.io.mac -> macBeats, dut.io.tap -> tapBeats) if f.valid.toBoolean)
            buf += Beat(cyc, f.payload.data.toInt, f.payload.last.toBoolean, f.payload.last.toBoolean && f.payload.error.toBoolean)
          dut.clockDomain.waitSampling(); cyc += 1
        }
        for ((_, wire, _) <- sent) {
          for (b <- Seq.fill(7)(0x55) :+ 0xD5) step(true, b)
          for (b <- wire) step(true, b)
          for (_ <- 0 until 12 + rnd.nextInt(20)) step(false, rnd.nextInt(256))
        }
        for (_ <- 0 until 40) step(false, 0)
        def split(bs: Seq[Beat]): Seq[Seq[Beat]] = {
          val out = ArrayBuffer[Seq[Beat]](); var cur = ArrayBuffer[Beat]()
          for (b <- bs) { cur += b; if (b.last) { out += cur.toSeq; cur = ArrayBuffer[Beat]() } }
          assert(cur.isEmpty, s"${cur.length} beats after the last frame's end")
          out.toSeq
        }
        val macFrames = split(macBeats.toSeq); val tapFrames = split(tapBeats.toSeq)
        assert(macFrames.length == sent.length && tapFrames.length == sent.length,
          s"${sent.length} frames sent, the MAC gave ${macFrames.length}, the tap ${tapFrames.length}")
        var ahead = mutable.Map[Long, Int]().withDefaultValue(0)
        for ((((f, wire, bad), m), tp) <- sent.zip(macFrames).zip(tapFrames)) {
          assert(m.map(_.data) == f.toSeq && m.last.error == bad, "the MAC's own stream is not the frame sent")
          val (out, forced) = expected(wire)
          assert(tp.map(_.data) == out.toSeq, s"the tap's bytes differ from the frame's datagram (${f.length} bytes)")
          assert(tp.last.error == (bad || forced), s"the tap's verdict ${tp.last.error}, the MAC's $bad, forced $forced")
          assert(tp.last.cycle == m.last.cycle, s"the tap's last beat in cycle ${tp.last.cycle}, the MAC's in ${m.last.cycle}")
          for (j <- 0 until scala.math.min(tp.length, m.length) - 1) ahead(m(j).cycle - tp(j).cycle) += 1
        }
        // Every byte before the last ahead of the MAC's copy by the CRC checker's buffer and hold-back: 5 cycles.
        assert(ahead.keySet == Set(5L), s"cycles ahead of the MAC's stream (cycles -> bytes): $ahead")
        println(s"EthRxLeanTap on the MAC: ${sent.length} frames, ${sent.count(_._3)} with a bad FCS; bytes ahead by 5 cycles: ${ahead(5)}")
      }
  }
}
