// OffloadRx against its reference model with random stimulus: the exchange's FIX stream (W messages with random
// field orders, 0..8 entries, every price format, malformed ones, other messages, garbage) cut into TCP segments
// at random places (coalesced and split messages), delivered with losses repaired by retransmission, segments
// out of order, duplicates and partial overlaps, corrupt copies (TCP/IP checksum, FCS, lengths), other
// connections, RST/SYN, fragments, IP and TCP options; the table re-armed and rewritten between frames.
// Every fire is checked against the model (entry, template, ack, price, stamp, and its latency), then the
// counters, the armed bits and the CPU's fire log. Replay with TF_SEED=<seed> ./mill -i hw.test.testOnly triggerfish.offload.OffloadRxSpec
package triggerfish.offload

import org.scalatest.funsuite.AnyFunSuite
import spinal.core.sim._
import triggerfish.soc.TfSim
import scala.collection.mutable.ArrayBuffer
import scala.util.Random

class OffloadRxSpec extends AnyFunSuite {
  val seed = TfSim.seed(31)
  // 64 entries as in the simulation SoC and the Zynq builds; 32 and 16 are the Colorlight boards' tables
  // (OFFLOAD_ENTRIES in boards/colorlight-i5 and boards/colorlight-5a-75b/board.mk).
  def compiled(entries: Int): SimCompiled[OffloadRx] = OffloadRxSim.compile(OffloadRxConfig(entries = entries))

  def runRandom(name: String, s: Int, nFrames: Int, decimalsChoice: Seq[Int], sysPeriod: Int, beatGaps: Boolean,
                entries: Int = 64): Unit =
    compiled(entries).doSim(name, seed = s) { dut =>
      SimTimeout(4000L * 1000 * 1000 * 100)
      val rnd = new Random(s)
      val h = new OffloadRxHarness(dut, rnd, sysPeriod = sysPeriod, beatGaps = beatGaps)
      import OffloadRxSim._
      var decimals = decimalsChoice(rnd.nextInt(decimalsChoice.length))
      val gen = new OffloadRxGen(rnd, decimals)
      h.configure(decimals = decimals)
      var seq = rnd.nextLong() & 0xFFFFFFFFL
      h.loadSeq(seq)
      val n = h.n
      def rewrite(j: Int): Unit = h.writeEntry(j, gen.entry(), arm = rnd.nextInt(10) != 0)
      for (j <- 0 until n) rewrite(j)

      val stream = ArrayBuffer[Int]()        // exchange bytes not yet sent in order
      val history = ArrayBuffer[Int]()       // the last bytes sent in order (for retransmissions), ending at seq
      def take(k: Int): Seq[Int] = {
        while (stream.length < k) stream ++= Fix.bytes(gen.streamChunk())
        val out = stream.take(k).toSeq
        stream.remove(0, k)
        out
      }
      def segLen(): Int = rnd.nextInt(10) match {
        case 0 | 1 => 1 + rnd.nextInt(40)
        case 2 => 1000 + rnd.nextInt(460)
        case _ => 40 + rnd.nextInt(400)
      }
      val logged = ArrayBuffer[(Int, Int, Boolean, Long, Long)]()
      var sentFrames = 0
      var finSent = false
      var sinceCmd = 0
      while (sentFrames < nFrames) {
        // ---- between frames, now and then: the firmware's commands
        if (sinceCmd > 15 + rnd.nextInt(30)) {
          sinceCmd = 0
          h.drain()
          h.checkFires()
          logged ++= h.popFireLog()
          if (finSent) { finSent = false; h.loadSeq(seq) }   // the firmware reopens (a new connection would too)
          if (!h.model.enable && rnd.nextInt(3) != 0) { h.configure(enable = true, decimals = decimals); h.loadSeq(seq) }
          rnd.nextInt(40) match {
            case 0 =>   // new implied decimals: every entry is rewritten
              decimals = decimalsChoice(rnd.nextInt(decimalsChoice.length))
              gen.decimals = decimals
              h.configure(decimals = decimals)
              h.loadSeq(seq)
              for (j <- 0 until n) rewrite(j)
            case 1 =>   // a new connection (or the firmware resynchronising): the stream restarts
              seq = rnd.nextLong() & 0xFFFFFFFFL
              h.loadSeq(seq)
              history.clear()
              if (rnd.nextBoolean()) stream.clear()
            case 2 => h.disarmAll()
            case 3 => h.configure(enable = false, decimals = decimals); h.loadSeq(seq)   // firmware-only mode for a while
            case 4 => h.configure(enable = true, decimals = decimals); h.loadSeq(seq)
            case _ =>
          }
          for (_ <- 0 until rnd.nextInt(8)) rnd.nextInt(6) match {
            case 0 | 1 => rewrite(rnd.nextInt(n))
            case 2 => h.disarm(rnd.nextInt(n))
            case _ => h.arm(rnd.nextInt(n))
          }
          if (rnd.nextInt(3) == 0) for (j <- 0 until n if !h.model.armed(j) && rnd.nextBoolean()) h.arm(j)
        }
        // ---- the next in-order segment and what happens to it
        val len = if (rnd.nextInt(25) == 0) 0 else segLen()
        val payload = take(len)
        val good = h.tcp(seq, payload)
        def sendGood(t: Net.Tcp): Unit = {
          h.send(t.bytes); sentFrames += 1; sinceCmd += 1
        }
        rnd.nextInt(30) match {
          case 0 if len > 0 =>   // a corrupt copy first
            val bad = rnd.nextInt(6) match {
              case 0 => good.copy(badTcpSum = true)
              case 1 => good.copy(badIpSum = true)
              case 2 => good.copy(payload = payload.updated(rnd.nextInt(len), rnd.nextInt(256)), badTcpSum = rnd.nextBoolean())
              case 3 => good.copy(totalLenDelta = 1 + rnd.nextInt(8))
              case _ => good
            }
            val fcs = rnd.nextInt(4) == 0 || bad == good
            h.send(bad.bytes, fcsErr = fcs); sentFrames += 1
          case 1 =>              // a future segment arrives early (the good one follows)
            h.send(h.tcp((seq + 1 + rnd.nextInt(3000)) & 0xFFFFFFFFL, Fix.bytes(gen.wMessage(gen.pick(gen.symbols)))).bytes); sentFrames += 1
          case 2 if history.nonEmpty => // an old segment again
            val back = 1 + rnd.nextInt(history.length)
            val l = 1 + rnd.nextInt(back)
            h.send(h.tcp((seq - back) & 0xFFFFFFFFL, history.slice(history.length - back, history.length - back + l).toSeq).bytes); sentFrames += 1
          case 3 =>              // another connection, with market data that would fire
            val t = h.tcp(seq, Fix.bytes(gen.wMessage(gen.pick(gen.symbols))))
            val other = rnd.nextInt(4) match {
              case 0 => t.copy(srcPort = peerPort + 1)
              case 1 => t.copy(dstPort = ourPort + 1)
              case 2 => t.copy(srcIp = peerIp + 1)
              case _ => t.copy(dstMac = ourMac + 1)
            }
            h.send(other.bytes); sentFrames += 1
          case 4 if len > 0 =>   // RST, SYN or a fragment with the right sequence number
            val x = rnd.nextInt(3) match {
              case 0 => good.copy(flags = 0x14)
              case 1 => good.copy(flags = 0x02)
              case _ => good.copy(fragField = 0x2000)
            }
            h.send(x.bytes); sentFrames += 1
          case _ =>
        }
        // the good segment, now and then with options, or overlapping what was already received
        val withOpts = if (rnd.nextInt(6) == 0) good.copy(ipOptions = Seq.fill(4 * (1 + rnd.nextInt(3)))(1),
          tcpOptions = Seq(1, 1, 8, 10) ++ Seq.fill(8)(rnd.nextInt(256))) else good
        if (rnd.nextInt(8) == 0 && history.nonEmpty && len > 0) {
          val back = 1 + rnd.nextInt(math.min(history.length, 300))
          sendGood(withOpts.copy(seq = (seq - back) & 0xFFFFFFFFL, payload = history.takeRight(back).toSeq ++ payload))
        } else if (rnd.nextInt(200) == 0) {
          sendGood(withOpts.copy(flags = 0x19))   // FIN: the parser stops until the next LOAD_SEQ
          seq = (seq + 1) & 0xFFFFFFFFL
          finSent = true
          if (rnd.nextBoolean()) sinceCmd = 1000  // reopen at once, or after some ignored segments
        } else sendGood(withOpts)
        seq = (seq + len) & 0xFFFFFFFFL
        history ++= payload
        if (history.length > 4000) history.remove(0, history.length - 4000)
      }
      h.drain()
      logged ++= h.popFireLog()
      val nFires = h.checkFires()
      h.checkCounters()
      assert(h.armedBits == h.modelArmedBits, "armed bits")
      // the CPU's fire log: the fires, in order, less those dropped while it was full
      val drops = h.bus.read(h.off("FIRE_LOG_DROPS"))
      val flow = h.hwFires.map(f => (f.trigger, f.template, f.recordValid, f.price, f.stamp))
      var i = 0
      for (l <- logged) {
        while (i < flow.length && flow(i) != l) i += 1
        assert(i < flow.length, s"fire log record $l is not among the fires")
        i += 1
      }
      assert(logged.length + drops == flow.length, s"fire log ${logged.length} + dropped $drops != fires ${flow.length}")
      val c = h.counters
      println(f"[OffloadRx $name seed $s] ${h.sent.length} frames (${h.kinds.values.groupBy(identity).map { case (k, v) => Seq("none", "in order", "out of order", "bad", "ignored")(k) + " " + v.size }.mkString(", ")}), " +
        f"${c("W_MSGS")} W messages, ${c("FIX_ERRORS")} rejected, $nFires fires (${h.hwFires.count(!_.recordValid)} without record), fire log ${logged.length} + $drops dropped")
      assert(nFires > nFrames / 20, "the stream must make the table fire often")
    }

  test(s"random: 3000 frames, 64 entries, 2 implied decimals, sys 100 MHz (seed $seed)") {
    runRandom("rand_d2", seed, 3000, Seq(2), 1000, beatGaps = false)
  }
  test(s"random: 2000 frames, implied decimals changing in 0..8, sys 50 MHz (seed ${seed + 1})") {
    runRandom("rand_dx", seed + 1, 2000, 0 to 8, 2000, beatGaps = false)
  }
  test(s"random: 1500 frames with idle cycles inside frames (MII-like), 4 decimals (seed ${seed + 2})") {
    runRandom("rand_gaps", seed + 2, 1500, Seq(4), 1000, beatGaps = true)
  }
  test(s"random: 1500 frames, 32 entries (the Colorlight i5's table), implied decimals 0..8, sys 37.5 MHz (seed ${seed + 3})") {
    runRandom("rand_e32", seed + 3, 1500, 0 to 8, 2667, beatGaps = false, entries = 32)
  }
  test(s"random: 1500 frames, 16 entries (the Colorlight 5A-75B's table), 2 implied decimals, idle cycles inside frames (seed ${seed + 4})") {
    runRandom("rand_e16", seed + 4, 1500, Seq(2), 2667, beatGaps = true, entries = 16)
  }
}
