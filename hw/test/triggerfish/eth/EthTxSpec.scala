// EthFrameBuffers, transmit path, MDIO register and elaboration.
// TX: the CPU model writes random frames (1..txBytes) into the TX buffer with random byte masks, starts
// them with TX_LEN, and waits for done by polling or by interrupt; a model of the MAC drops tx.ready in
// random patterns (preamble/gap, MII every other cycle, random). Checked: bytes out == bytes written,
// `last` on the final byte, no bubble once a frame has started, stream rules, busy/done/interrupt, counters.
// Replay with TF_SEED=<seed> ./mill -i hw.test.testOnly 'triggerfish.eth.*'
package triggerfish.eth

import org.scalatest.funsuite.AnyFunSuite
import spinal.core._
import spinal.core.sim._
import triggerfish.soc.{CHeader, SimBusMaster, TfSim}
import scala.collection.mutable
import scala.util.Random
import EthSim._

class EthTxSpec extends AnyFunSuite {
  val seed = TfSim.seed(21)

  /** The MAC's side of the tx stream: a ready pattern per frame, and checks of every cycle. */
  class MacModel(dut: EthFrameBuffers, rnd: Random) {
    val frames = mutable.Queue[Array[Int]]()
    val current = mutable.ArrayBuffer[Int]()
    var inFrame = false          // a byte of this frame has been offered and `last` not yet accepted
    var prevValid = false
    var prevReady = false
    var prevData = 0
    var prevLast = false
    var mode = 0
    var phase = 0                // cycles since the frame's first byte was offered / since the last one
    var cycles = 0L
    var stallCycles = 0L
    val tx = dut.io.tx
    tx.ready #= false
    def newMode(): Unit = mode = rnd.nextInt(5)
    newMode()
    dut.txCd.onSamplings {
      cycles += 1
      val v = tx.valid.toBoolean
      val r = tx.ready.toBoolean
      val d = tx.payload.fragment.toInt
      val l = tx.payload.last.toBoolean
      if (inFrame) assert(v, s"bubble: valid fell in the middle of a frame after ${current.length} bytes")
      if (prevValid && !prevReady) assert(v && d == prevData && l == prevLast, "payload changed while valid && !ready")
      if (v && !inFrame) { inFrame = true; phase = 0 }
      if (v && !r) stallCycles += 1
      if (v && r) {
        current += d
        if (l) {
          frames.enqueue(current.toArray)
          current.clear()
          inFrame = false
          newMode()
          phase = 0
        }
      }
      prevValid = v; prevReady = r; prevData = d; prevLast = l
      phase += 1
      // Next cycle's ready.
      tx.ready #= (mode match {
        case 0 => true                                  // always ready
        case 1 => (cycles & 1) == 0                     // MII: every other cycle
        case 2 => rnd.nextBoolean()                     // random
        case 3 => if (inFrame) phase > 8 else phase > 12 // preamble at the start, gap after the end (as LiteEth)
        case _ => rnd.nextInt(8) != 0                   // mostly ready
      })
    }
  }

  def runTx(name: String, cfg: EthBuffersConfig, clocks: Clocks, nFrames: Int, s: Int): Unit = {
    EthSim.compile(cfg).doSim(name, seed = s) { dut =>
      SimTimeout(2000L * 1000 * 1000 * 10)
      val rnd = new Random(s)
      dut.io.bus.cmd.valid #= false
      dut.io.rx.valid #= false
      dut.io.mdio.mdio_i #= true
      EthSim.start(dut, clocks, rnd)
      val cd = dut.clockDomain
      val bus = new SimBusMaster(dut.io.bus, cd)
      val mac = new MacModel(dut, rnd)
      var expErrors = 0L
      var bytesSent = 0L
      var irqChecks = 0
      val wallStart = System.nanoTime()
      assert(bus.read(TX_STATUS) == 0, "idle after reset")

      for (i <- 0 until nFrames) {
        val len = rnd.nextInt(10) match {
          case 0 => 1 + rnd.nextInt(4)
          case 1 => cfg.txBytes - rnd.nextInt(4)
          case 2 | 3 => 1 + rnd.nextInt(cfg.txBytes)
          case 4 => 60 + rnd.nextInt(1459)
          case _ => 1 + rnd.nextInt(128)
        }
        val bytes = Array.fill(len)(rnd.nextInt(256))
        val words = (len + 3) / 4
        def word(w: Int): Long = (0 until 4).map(b => if (4 * w + b < len) bytes(4 * w + b).toLong << (8 * b) else 0L).sum
        // Fill the buffer: whole words, or garbage first and then the bytes under random complementary masks.
        rnd.nextInt(3) match {
          case 0 => for (w <- 0 until words) bus.write(TX_BUF + 4 * w, word(w))
          case 1 =>
            for (w <- rnd.shuffle((0 until words).toList)) {
              val m = rnd.nextInt(16)
              writeMasked(dut.io.bus, cd, TX_BUF + 4 * w, rnd.nextLong(), 0xF)
              writeMasked(dut.io.bus, cd, TX_BUF + 4 * w, word(w), m)
              writeMasked(dut.io.bus, cd, TX_BUF + 4 * w, word(w), ~m & 0xF)
            }
          case _ =>
            for (w <- 0 until words) {
              writeMasked(dut.io.bus, cd, TX_BUF + 4 * w, rnd.nextLong(), 0xF)
              for (b <- rnd.shuffle((0 until 4).toList)) writeMasked(dut.io.bus, cd, TX_BUF + 4 * w, word(w), 1 << b)
            }
        }
        // Read back a few words (the buffer is readable).
        for (_ <- 0 until 3) {
          val w = rnd.nextInt(words)
          val got = bus.read(TX_BUF + 4 * w)
          val mask = (0 until 4).map(b => if (4 * w + b < len) 0xFFL << (8 * b) else 0L).sum
          assert((got & mask) == word(w), f"TX buffer word $w: 0x$got%08X")
        }
        // Refused lengths.
        if (rnd.nextInt(8) == 0) {
          bus.write(TX_LEN, if (rnd.nextBoolean()) 0 else cfg.txBytes + 1 + rnd.nextInt(1000))
          expErrors += 1
          assert((bus.read(TX_STATUS) & 1) == 0, "a refused length does not start")
        }
        val useIrq = rnd.nextBoolean()
        bus.write(IRQ_ENABLE, if (useIrq) 2 else 0)
        bus.write(TX_LEN, len)
        assert((bus.read(TX_STATUS) & 3) == 1, "busy (and DONE cleared) after TX_LEN")
        if (rnd.nextInt(6) == 0) { bus.write(TX_LEN, 1 + rnd.nextInt(len)); expErrors += 1 } // while busy: refused
        if (useIrq) {
          cd.waitSamplingWhere(dut.io.interrupt.toBoolean)
          assert((bus.read(IRQ_PENDING) & 2) == 2)
        }
        var st = 0L
        do { if (rnd.nextBoolean()) cd.waitSampling(rnd.nextInt(50)); st = bus.read(TX_STATUS) } while ((st & 1) == 1)
        assert(st == 2, "done: BUSY clear, DONE set")
        assert(mac.frames.nonEmpty, s"frame $i: done before the MAC had the last byte")
        val got = mac.frames.dequeue()
        assert(mac.frames.isEmpty, "one frame per TX_LEN")
        assert(got.length == len, s"frame $i: ${got.length} bytes out, $len written")
        assert(java.util.Arrays.equals(got, bytes), s"frame $i ($len bytes): first difference at ${got.indices.find(k => got(k) != bytes(k))}")
        bytesSent += len
        if (useIrq) {
          assert(dut.io.interrupt.toBoolean)
          bus.write(TX_ACK, 0)
          cd.waitSampling(3)
          assert(!dut.io.interrupt.toBoolean, "TX_ACK clears the interrupt")
          assert(bus.read(TX_STATUS) == 0)
          irqChecks += 1
        } else if (rnd.nextBoolean()) bus.write(TX_ACK, 0)
        if (rnd.nextInt(4) == 0) cd.waitSampling(rnd.nextInt(200))
      }
      cd.waitSampling(100)
      assert(mac.frames.isEmpty && mac.current.isEmpty, "nothing sent without TX_LEN")
      assert(bus.read(TX_FRAMES) == nFrames, "TX_FRAMES")
      assert(bus.read(TX_BYTES) == bytesSent, "TX_BYTES")
      assert(bus.read(TX_ERRORS) == expErrors, "TX_ERRORS")
      assert(bus.read(RX_FRAMES) == 0 && bus.read(RX_STATUS) == 0)
      val secs = (System.nanoTime() - wallStart) / 1e9
      println(f"[EthTx seed $s ${clocks.describe}] frames $nFrames, bytes $bytesSent, refused TX_LEN $expErrors, " +
        f"interrupt waits $irqChecks, MAC stalls ${mac.stallCycles} of ${mac.cycles} tx cycles, $secs%.1f s")
    }
  }

  test(s"tx: 400 random frames 1..2048 bytes, random tx.ready, sys 100 MHz (seed $seed)") {
    runTx("tx_sys100", EthBuffersConfig.default, Clocks(sys = 1000, rx = 800, tx = 798), 400, seed)
  }
  test(s"tx: 300 random frames, sys 50 MHz (seed ${seed + 1})") {
    runTx("tx_sys50", EthBuffersConfig.default, Clocks(sys = 2000, rx = 802, tx = 800), 300, seed + 1)
  }

  test(s"mdio: register bits reach the pins, MDIO_IN reads back (seed $seed)") {
    EthSim.compile(EthBuffersConfig.small).doSim("mdio", seed = seed) { dut =>
      SimTimeout(10L * 1000 * 1000 * 10)
      val rnd = new Random(seed)
      dut.io.bus.cmd.valid #= false
      dut.io.rx.valid #= false
      dut.io.tx.ready #= true
      dut.io.mdio.mdio_i #= true
      EthSim.start(dut, Clocks(1000, 800, 798), rnd)
      val cd = dut.clockDomain
      val bus = new SimBusMaster(dut.io.bus, cd)
      assert((bus.read(MDIO) & 0x7) == 0x2, "after reset: MDC low, MDIO_OUT high, not driven")
      for (_ <- 0 until 200) {
        val v = rnd.nextInt(8)
        val in = rnd.nextBoolean()
        dut.io.mdio.mdio_i #= in
        bus.write(MDIO, v | (rnd.nextInt(2) << 3) | (rnd.nextInt() & ~0xF)) // IN and upper bits are not writable
        cd.waitSampling(3)
        assert(dut.io.mdio.mdc.toBoolean == ((v & 1) != 0))
        assert(dut.io.mdio.mdio_o.toBoolean == ((v & 2) != 0))
        assert(dut.io.mdio.mdio_oe.toBoolean == ((v & 4) != 0))
        val r = bus.read(MDIO)
        assert(r == (v | (if (in) 8 else 0)), f"MDIO reads 0x$r%X")
      }
      // CONFIG describes the build
      val c = bus.read(CONFIG)
      assert((c & 0x1FF) == 4 && ((c >> 12) & 0x1F) == 11 && ((c >> 20) & 0x1F) == 11, f"CONFIG 0x$c%08X")
      println(s"[EthMdio seed $seed] 200 random MDIO writes and reads")
    }
  }

  test("elaborates in a SpinalConfig design (Verilog) and its registers give the C header") {
    val dir = "build/eth/verilog"
    val report = SpinalConfig(targetDirectory = dir,
      defaultConfigForClockDomains = ClockDomainConfig(resetKind = SYNC, resetActiveLevel = HIGH))
      .generateVerilog(EthFrameBuffers(EthBuffersConfig.default, ClockDomain.external("eth_rx"), ClockDomain.external("eth_tx")))
    val top = report.toplevel
    val h = CHeader("TF_ETH_TEST_H", "EthFrameBuffers registers (test)", Seq((BigInt(0xF0010000L), top.regs)), top.headerConstants)
    java.nio.file.Files.write(java.nio.file.Paths.get(s"$dir/eth.h"), h.getBytes("UTF-8"))
    for (n <- Seq("ETH_RX_STATUS", "ETH_RX_RELEASE", "ETH_TX_LEN", "ETH_TX_STATUS_BUSY_SHIFT", "ETH_MDIO_IN_SHIFT",
      "ETH_RX_DROPS_FULL", "ETH_TX_BUF", "ETH_RX_BUF", "ETH_IRQ_ENABLE_TX_SHIFT", "ETH_SLOT_BYTES"))
      assert(h.contains(n), s"$n in the header")
    val v = scala.io.Source.fromFile(s"$dir/EthFrameBuffers.v").mkString
    // simulation-only constructs (the assertions' $display/$finish) only where synthesis does not read them: what is
    // left once every `ifndef SYNTHESIS ... `endif block (SpinalHDL's wrapper of an assertion) is taken out has none
    val synthesised = v.split("\n").foldLeft((List.empty[String], 0)) { case ((kept, depth), line) =>
      val t = line.trim
      if (t.startsWith("`ifndef SYNTHESIS")) (kept, depth + 1)
      else if (depth > 0 && (t.startsWith("`ifdef") || t.startsWith("`ifndef"))) (kept, depth + 1)
      else if (depth > 0 && t.startsWith("`endif")) (kept, depth - 1)
      else if (depth > 0) (kept, depth)
      else (line :: kept, depth)
    }._1.mkString("\n")
    assert(v.contains("$display"), "the frame buffers' assertions are in the Verilog (simulation)")
    assert(!synthesised.contains("$display") && !synthesised.contains("$finish"), "no simulation-only constructs outside `ifndef SYNTHESIS")
    println(s"[EthElab] Verilog and header in $dir (${v.length} chars of Verilog, ${top.regs.entries.size} registers/windows)")
  }
}
