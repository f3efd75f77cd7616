// The receive filter (EthRxFilter): thousands of random frames of every kind the filter tells apart (ARP, IPv4 TCP of
// the configured connections and near misses of them, ICMP echo and other ICMP, IP options, UDP, IPv6, other
// EtherTypes, random bytes) under random configurations, each verdict checked against a model written from the rules
// in EthRxFilter's header; the ICMP rate limit against its arithmetic; and, through EthFrameBuffers, that filtered
// frames take no slot and are counted. Replay with TF_SEED=<seed> ./mill -i hw.test.testOnly 'triggerfish.eth.EthRxFilterSpec'
package triggerfish.eth

import org.scalatest.funsuite.AnyFunSuite
import spinal.core._
import spinal.core.sim._
import triggerfish.soc.{SimBusMaster, TfSim}
import scala.collection.mutable
import scala.util.Random

object EthRxFilterModel {
  case class Conn(valid: Boolean, ip: Long, remotePort: Int, localPort: Int)
  case class Cfg(enable: Boolean, ip: Long, icmpInterval: Int, conns: Seq[Conn])
  val KEEP = 0; val FILTERED = 1; val ICMP_LIMITED = 2

  def u16(b: Array[Int], at: Int): Int = (b(at) << 8) | b(at + 1)
  def u32(b: Array[Int], at: Int): Long = (u16(b, at).toLong << 16) | u16(b, at + 2)

  /** The verdict by the rules, with `tokenLeft` telling whether the ICMP rate limit has a token. */
  def verdict(c: Cfg, f: Array[Int], tokenLeft: Boolean): Int = {
    if (!c.enable) return KEEP
    val etherType = u16(f, 12)
    if (etherType == 0x0806) return KEEP
    if (etherType != 0x0800) return FILTERED
    if (u32(f, 30) != c.ip) return FILTERED
    if (f(14) != 0x45) return KEEP // IP options: firmware decides
    f(23) match {
      case 6 =>
        val (src, sport, dport) = (u32(f, 26), u16(f, 34), u16(f, 36))
        if (c.conns.exists(k => k.valid && k.ip == src && k.remotePort == sport && k.localPort == dport)) KEEP else FILTERED
      case 1 if f(34) == 8 => if (c.icmpInterval == 0 || tokenLeft) KEEP else ICMP_LIMITED
      case _ => FILTERED
    }
  }
  def isEchoToUs(c: Cfg, f: Array[Int]): Boolean =
    c.enable && u16(f, 12) == 0x0800 && u32(f, 30) == c.ip && f(14) == 0x45 && f(23) == 1 && f(34) == 8
}

class EthRxFilterSpec extends AnyFunSuite {
  import EthRxFilterModel._
  val seed = TfSim.seed(23)
  lazy val compiled = TfSim.config.compile(EthRxFilter(2))

  def put16(b: Array[Int], at: Int, v: Int): Unit = { b(at) = (v >> 8) & 255; b(at + 1) = v & 255 }
  def put32(b: Array[Int], at: Int, v: Long): Unit = { put16(b, at, ((v >> 16) & 0xFFFF).toInt); put16(b, at + 2, (v & 0xFFFF).toInt) }

  /** A random frame of one of the kinds the filter tells apart, often close to the configuration. */
  def makeFrame(rnd: Random, c: Cfg): Array[Int] = {
    val len = if (rnd.nextInt(10) == 0) 60 else 60 + rnd.nextInt(200)
    val f = Array.fill(len)(rnd.nextInt(256))
    def nearly(v: Long, bits: Int): Long = if (rnd.nextInt(3) == 0) v ^ (1L << rnd.nextInt(bits)) else v
    def someConn = c.conns(rnd.nextInt(c.conns.length))
    rnd.nextInt(12) match {
      case 0 => put16(f, 12, 0x0806)
      case 1 => put16(f, 12, Seq(0x86DD, 0x88B5, 0x0801, 0x0800 ^ (1 << rnd.nextInt(16)), 0x0000)(rnd.nextInt(5)))
      case 2 => // random bytes
      case k =>
        put16(f, 12, 0x0800)
        f(14) = if (rnd.nextInt(10) == 0) 0x40 | (6 + rnd.nextInt(10)) else 0x45
        put32(f, 30, if (rnd.nextInt(6) == 0) nearly(c.ip, 32) ^ 1 else c.ip)
        k match {
          case 3 | 4 => f(23) = 1; f(34) = if (rnd.nextInt(4) == 0) Seq(0, 3, 11, 9)(rnd.nextInt(4)) else 8
          case 5 => f(23) = 17
          case _ =>
            f(23) = 6
            val k2 = someConn
            put32(f, 26, nearly(k2.ip, 32)); put16(f, 34, nearly(k2.remotePort, 16).toInt); put16(f, 36, nearly(k2.localPort, 16).toInt)
        }
    }
    f
  }

  def randomCfg(rnd: Random, icmpInterval: Int): Cfg =
    Cfg(rnd.nextInt(8) != 0, rnd.nextLong() & 0xFFFFFFFFL, icmpInterval,
      Seq.fill(2)(Conn(rnd.nextInt(5) != 0, rnd.nextLong() & 0xFFFFFFFFL, rnd.nextInt(65536), rnd.nextInt(65536))))

  def drive(dut: EthRxFilter, c: Cfg): Unit = {
    dut.io.config.enable #= c.enable
    dut.io.config.localIp #= c.ip
    dut.io.config.icmpInterval #= c.icmpInterval
    for ((k, i) <- c.conns.zipWithIndex) {
      dut.io.config.conn(i).valid #= k.valid
      dut.io.config.conn(i).remoteIp #= k.ip
      dut.io.config.conn(i).remotePort #= k.remotePort
      dut.io.config.conn(i).localPort #= k.localPort
    }
  }

  /** Sends one frame (one beat per cycle) and returns the verdict as the frame buffers see it (the cycle after the
    * last beat). Random bytes and flags on the bus while valid is low. */
  def send(dut: EthRxFilter, f: Array[Int], rnd: Random): Int = {
    val cd = dut.clockDomain
    for (i <- f.indices) {
      dut.io.rx.valid #= true
      dut.io.rx.payload.data #= f(i)
      dut.io.rx.payload.last #= i == f.length - 1
      dut.io.rx.payload.error #= false
      cd.waitSampling()
    }
    dut.io.rx.valid #= false
    dut.io.rx.payload.data #= rnd.nextInt(256)
    dut.io.rx.payload.last #= rnd.nextBoolean()
    sleep(1)
    dut.io.verdict.toInt
  }

  test(s"filter: 6000 random frames under random configurations, every verdict as the rules say (seed $seed)") {
    compiled.doSim("random", seed = seed) { dut =>
      val rnd = new Random(seed)
      dut.io.rx.valid #= false
      // ICMP: first no limit, later a limit that earns no token during the test (so exactly the bucket's 8 pass).
      var c = randomCfg(rnd, 0).copy(enable = true)
      drive(dut, c)
      TfSim.start(dut.clockDomain)
      val cd = dut.clockDomain
      val counts = mutable.Map[String, Int]().withDefaultValue(0)
      var tokens = EthRxFilter.icmpBucket
      for (n <- 0 until 6000) {
        if (n % 500 == 0 && n > 0) {
          c = randomCfg(rnd, if (n >= 3000) 65535 else 0)
          drive(dut, c)
          cd.waitSampling(4) // the verdict's flags settle from the configuration in three cycles
        }
        val f = makeFrame(rnd, c)
        val want = verdict(c, f, tokens > 0)
        val got = send(dut, f, rnd)
        assert(got == want, f"frame $n (${f.length} bytes ${f.take(40).map(b => f"$b%02x").mkString}) under $c: verdict $got, the rules say $want")
        if (c.icmpInterval != 0 && isEchoToUs(c, f) && want == KEEP) tokens -= 1
        counts(Seq("keep", "filtered", "icmp_limited")(want)) += 1
        if (isEchoToUs(c, f)) counts("echo to us") += 1
        if (u16(f, 12) == 0x0800 && f(23) == 6 && want == KEEP && c.enable) counts("tcp kept") += 1
        cd.waitSampling(if (rnd.nextInt(4) == 0) 12 + rnd.nextInt(300) else 12)
      }
      println(s"[EthRxFilter seed $seed] ${counts.toSeq.sorted.map { case (k, v) => s"$k $v" }.mkString(", ")}")
      for (k <- Seq("keep", "filtered", "icmp_limited", "tcp kept")) assert(counts(k) > 20, s"too few '$k' frames for the test to mean anything")
      assert(tokens == 0, "the bucket was emptied in the limited half")
    }
  }

  test("filter: the ICMP rate limit passes the bucket, then one echo request per interval") {
    compiled.doSim("icmp_rate") { dut =>
      val rnd = new Random(seed + 1)
      dut.io.rx.valid #= false
      val interval = 3 // a token every 3072 cycles
      val c = Cfg(enable = true, 0x0A4D0002L, interval, Seq.fill(2)(Conn(valid = false, 0, 0, 0)))
      drive(dut, c)
      TfSim.start(dut.clockDomain)
      val echo = Array.fill(74)(0)
      put16(echo, 12, 0x0800); echo(14) = 0x45; echo(23) = 1; put32(echo, 30, c.ip); echo(34) = 8
      // Back-to-back echo requests (74 bytes + 12 idle = 86 cycles each) for about 100 token intervals.
      val start = simTime()
      var kept = 0; var limited = 0
      val n = 3600
      for (_ <- 0 until n) {
        send(dut, echo, rnd) match { case 0 => kept += 1; case 2 => limited += 1; case v => fail(s"verdict $v for an echo request to us") }
        dut.clockDomain.waitSampling(12)
      }
      val cycles = (simTime() - start) / 10
      val earned = cycles / (interval * EthRxFilter.tokenPrescale)
      println(s"[EthRxFilter icmp] $n echo requests in $cycles cycles: kept $kept (bucket ${EthRxFilter.icmpBucket} + $earned tokens earned), limited $limited")
      assert(kept + limited == n)
      assert(kept >= EthRxFilter.icmpBucket + earned - 1 && kept <= EthRxFilter.icmpBucket + earned + 1,
        s"kept $kept, expected the bucket (${EthRxFilter.icmpBucket}) plus one per ${interval * EthRxFilter.tokenPrescale} cycles ($earned)")
    }
  }

  test("frame buffers: filtered frames take no slot, are counted, and the configuration crosses from sys as a whole") {
    val cfg = EthBuffersConfig.small
    EthSim.compile(cfg).doSim("buffers_filter", seed = seed) { dut =>
      import EthSim._
      val rnd = new Random(seed + 2)
      dut.io.bus.cmd.valid #= false
      dut.io.mdio.mdio_i #= true
      dut.io.tx.ready #= false
      dut.io.rx.valid #= false
      EthSim.start(dut, Clocks(sys = 2667, rx = 800, tx = 800), rnd) // sys 37.5 MHz as on the boards
      val bus = new SimBusMaster(dut.io.bus, dut.clockDomain)
      val ip = 0xC0A80132L
      bus.write(FILTER_IP, ip); bus.write(FILTER_ICMP, 0)
      bus.write(FILTER_CONN0_IP, 0xC0A8010AL); bus.write(FILTER_CONN0_PORTS, (9876L << 16) | 40000)
      bus.write(FILTER_CTRL, 1 | (1 << 8))
      bus.write(FILTER_APPLY, 0)
      var polls = 0
      while ((bus.read(STATUS) & 2) != 0) polls += 1
      assert(polls > 0, "FILTER_PENDING is seen while the configuration crosses")
      def frame(tcpTo: Long, sport: Int, dport: Int): Array[Int] = {
        val f = Array.fill(80)(rnd.nextInt(256))
        put16(f, 12, 0x0800); f(14) = 0x45; f(23) = 6; put32(f, 26, 0xC0A8010AL); put32(f, 30, tcpTo); put16(f, 34, sport); put16(f, 36, dport)
        f
      }
      def sendRx(f: Array[Int]): Unit = {
        val rx = dut.io.rx
        for (i <- f.indices) {
          rx.valid #= true; rx.payload.data #= f(i); rx.payload.last #= i == f.length - 1; rx.payload.error #= false
          dut.rxCd.waitSampling()
        }
        rx.valid #= false
        dut.rxCd.waitSampling(12)
      }
      // 20 unrelated frames with the CPU releasing nothing, then the session's frame: it still finds a slot.
      for (i <- 0 until 20) sendRx(frame(if (i % 2 == 0) ip ^ 0x100 else ip, 9876, 40001 + i))
      val session = frame(ip, 9876, 40000)
      sendRx(session)
      dut.clockDomain.waitSampling(50)
      assert(bus.read(FILTERED) == 20, "FILTERED counts the unrelated frames")
      assert(bus.read(RX_DROPS_FULL) == 0, "no frame was dropped for lack of a slot")
      assert(bus.read(RX_PENDING) == 1, "only the session's frame took a slot")
      val st = bus.read(RX_STATUS)
      assert((st >>> 16) == session.length)
      val got = (0 until 20).map(w => bus.read(RX_BUF + ((st >> 8) & 0xFF) * cfg.slotBytes + 4 * w))
      for (i <- 0 until 80) assert(((got(i / 4) >> (8 * (i % 4))) & 0xFF) == session(i), s"byte $i of the kept frame")
      // Disabled again: everything is kept.
      bus.write(FILTER_CTRL, 0); bus.write(FILTER_APPLY, 0)
      while ((bus.read(STATUS) & 2) != 0) {}
      sendRx(frame(ip ^ 0x100, 1, 2))
      dut.clockDomain.waitSampling(50)
      assert(bus.read(RX_PENDING) == 2 && bus.read(FILTERED) == 20 && bus.read(RX_FRAMES) == 2)
      println("[EthRxFilter buffers] 20 unrelated frames filtered without taking a slot; the session's frame delivered byte-exact")
    }
  }
}
