// Digestion inside OffloadRx: the session's stream (DigestStreams: W and every other kind of message the rules tell
// apart) sent as TCP segments through the header parser, with corrupt copies (bad TCP checksum, bad FCS), segments
// from the future, retransmissions that overlap what was received and duplicates in between; the configuration and
// the resynchronisation written through the registers and CMD, the descriptors read from the bus. Each descriptor
// is compared with DigestModel fed the new bytes of every good in-order segment, as OffloadRxModel sees them.
// Replay with TF_SEED=<seed> ./mill -i hw.test.testOnly triggerfish.offload.OffloadRxDigestSpec
package triggerfish.offload

import org.scalatest.funsuite.AnyFunSuite
import spinal.core.sim._
import triggerfish.soc.TfSim
import scala.collection.mutable
import scala.util.Random

class OffloadRxDigestSpec extends AnyFunSuite {
  val Ours = "TFISH1"; val Theirs = "EXCH"
  val DigestedLatency = 5   // eth_rx cycles from a digested segment's last beat on io.rx to io.digested
  lazy val compiled = OffloadRxSim.compile(OffloadRxConfig(entries = 16, digest = true))

  class DigestPort(h: OffloadRxHarness) {
    import h.{bus, off}
    def configure(enable: Boolean, ours: String, theirs: String): Unit = {
      def words(s: String) = (0 until 4).map(i => (0 until 4).map(j => s.lift(4 * i + j).map(_.toLong).getOrElse(0L) << (8 * j)).sum)
      for ((w, i) <- words(ours).zipWithIndex) bus.write(off(s"DIGEST_OURS$i"), w)
      for ((w, i) <- words(theirs).zipWithIndex) bus.write(off(s"DIGEST_THEIRS$i"), w)
      bus.write(off("DIGEST_CFG"), (if (enable) 1 else 0) | ours.length << 8 | theirs.length << 16)
    }
    /** CMD DIGEST_SYNC: true when applied. */
    def sync(position: Long, msg: Long): Boolean = {
      bus.write(off("DIGEST_SYNC_POS"), position & 0xFFFFFFFFL)
      bus.write(off("DIGEST_SYNC_MSG"), msg)
      h.cmd(OffloadRx.Op.DIGEST_SYNC) == 0
    }
    def pop(): Option[Digest] = {
      val st = bus.read(off("DIGEST_STATUS"))
      if ((st & 1) == 0) return None
      val seq = bus.read(off("DIGEST_SEQ")) & 0xFFFFFFFFL
      val len = bus.read(off("DIGEST_LEN"))
      val count = ((st >> 8) & 0xFF).toInt
      val tail = bus.read(off("DIGEST_TAIL"))
      val d = Digest(seq, (seq + (len & 0xFFFF)) & 0xFFFFFFFFL, (st & 2) != 0, ((len >> 16) & 0xFFFF).toInt,
        (tail & 0xFFFF).toInt, if (count == 0) -1 else bus.read(off("DIGEST_FIRST")) & 0xFFFFFFFFL, count,
        (st & 4) != 0, (st & 8) != 0, ((tail >> 16) & 0xFFFF).toInt)
      bus.write(off("DIGEST_POP"), 1)
      Some(d)
    }
    def syncedNow: Boolean = (bus.read(off("DIGEST_STATUS")) & 0x10) != 0
    def drops: Long = bus.read(off("DIGEST_DROPS"))
  }

  test("the session's stream through the header parser: every descriptor as the model's, corrupt, future and old segments among the good") {
    val seed = TfSim.seed(53)
    compiled.doSim("digest", seed) { dut =>
      SimTimeout(4000L * 1000 * 1000 * 100)
      val rnd = new Random(seed)
      val h = new OffloadRxHarness(dut, rnd)
      val dp = new DigestPort(h)
      val gen = new DigestStreams(rnd, Ours, Theirs)
      val expected = mutable.Queue[Digest]()
      var model: DigestModel = null
      // The test takes descriptors only at its checks, so the 17th since the last one finds the FIFO full.
      var undrained = 0
      var overflows = 0
      h.model.onInorder = (seq, bytes) => if (bytes.nonEmpty) {
        assert(seq == model.nextSeq, s"model: in-order segment at $seq, digest model at ${model.nextSeq}")
        if (undrained >= 16) { model.overflow(bytes.length); overflows += 1 }
        else { expected += model.segment(bytes); undrained += 1 }
      }
      // io.digested: the frame buffers drop the frame it names, at a fixed distance from the frame's last beat
      val digestedPulses = mutable.ArrayBuffer[Long]()
      h.rxCd.onSamplings { if (dut.io.digested.toBoolean) digestedPulses += dut.io.rxCycle.toLong }
      // io.checked: with the same timing, every frame of the session whose FCS and TCP checksum are good
      val checkedPulses = mutable.ArrayBuffer[Long]()
      h.rxCd.onSamplings { if (dut.io.checked.toBoolean) checkedPulses += dut.io.rxCycle.toLong }
      val corruptIds = mutable.Set[Int]()
      var digested, passed, tails, skips, hwMsgs, corrupt, future, overlap, resyncs = 0
      def check(where: String): Unit = {
        h.drain()
        var got = dp.pop()
        while (got.isDefined) {
          assert(expected.nonEmpty, s"$where: a descriptor the model has not: $got")
          val want = expected.dequeue()
          assert(got.get == want, s"seed $seed $where: hardware ${got.get}, model $want")
          if (want.digested) digested += 1 else passed += 1
          if (want.tail > 0) tails += 1
          if (want.skip > 0) skips += 1
          hwMsgs += want.hwCount
          got = dp.pop()
        }
        assert(expected.isEmpty, s"seed $seed $where: ${expected.length} descriptors missing, first ${expected.headOption}")
        undrained = 0
      }
      for (conn <- 0 until 30) {
        val start = rnd.nextLong() & 0xFFFFFFFFL
        dp.configure(enable = true, Ours, Theirs)
        h.configure(decimals = 2)
        h.loadSeq(start)
        model = new DigestModel(Ours, Theirs, start, None)
        assert(!dp.syncedNow, "unsynced after LOAD_SEQ")
        assert(!dp.sync(start + 1, 1) && !model.resync(start + 1, 1), "a resync at another position is refused")
        assert(dp.sync(start, 1) && model.resync(start, 1))
        val msgs = gen.stream(10 + rnd.nextInt(50), mostlyW = 75)
        val b = msgs.flatMap(Fix.bytes).toIndexedSeq
        var sinceCheck = 0
        var checkEvery = 8
        val sent = h.sendStream(start, b, msgs.scanLeft(0)(_ + _.length).tail.init, oneIn = 12) { (i, z) =>
          sinceCheck += 1
          if (sinceCheck >= checkEvery || z == b.length) {
            check(s"connection $conn segment $i")
            sinceCheck = 0
            checkEvery = if (rnd.nextInt(6) == 0) 40 else 8   // now and then firmware is late: the FIFO fills
            if (!model.expMsg.isDefined && rnd.nextBoolean()) {
              // firmware resynchronises at the parser's position: the MsgSeqNum of the message that starts there
              val msg = DigestModel.read(b, z).flatMap(_.value("34")).filter(v => v.nonEmpty && v.length <= 9 && v.forall(_.isDigit))
                .map(_.toLong).filter(_ > 0).getOrElse(1L)
              val want = model.resync(model.nextSeq, msg)
              assert(dp.sync(model.nextSeq, msg) == want, s"seed $seed: resync at ${model.nextSeq} to $msg")
              if (want) resyncs += 1
            }
          }
        }
        corruptIds ++= sent.corruptIds; corrupt += sent.corruptIds.length; future += sent.future; overlap += sent.overlap
      }
      assert(dp.drops == overflows, s"DIGEST_DROPS ${dp.drops}, $overflows segments found the FIFO full")
      // Each io.digested pulse names the last frame that ended before it, DigestedLatency cycles earlier.
      val ends = h.sent.map(_.lastCycle).sorted
      val lat = digestedPulses.map(p => p - ends.filter(_ < p).max)
      assert(digestedPulses.length == digested, s"${digestedPulses.length} io.digested pulses, $digested digested descriptors")
      assert(lat.forall(_ == DigestedLatency), s"io.digested latencies ${lat.distinct} cycles, pinned $DigestedLatency")
      assert(OffloadRx.digestedLatency == DigestedLatency, "the constant the frame buffers are built with")
      // every good frame checked, no corrupt one, each pulse DigestedLatency cycles after its frame's last beat
      val good = h.sent.filterNot(f => corruptIds.contains(f.id))
      assert(corruptIds.nonEmpty && corruptIds.size == corrupt)
      val checkedAsExpected = checkedPulses.sorted == good.map(_.lastCycle + DigestedLatency).sorted
      assert(checkedAsExpected,
        s"io.checked: ${checkedPulses.length} pulses for ${good.length} good frames of ${h.sent.length}; first differences " +
        s"${checkedPulses.sorted.diff(good.map(_.lastCycle + DigestedLatency)).take(3)} / ${good.map(_.lastCycle + DigestedLatency).diff(checkedPulses).take(3)}")
      println(s"[digest-offload-rx] seed $seed: ${digested + passed} descriptors ($digested digested, $passed passed, " +
        s"$tails with a tail, $skips with a skip), $hwMsgs messages completed by the hardware; $corrupt corrupt copies, " +
        s"$future segments from the future, $overlap overlapping retransmissions, $resyncs resyncs applied, $overflows descriptors with no room; ${checkedPulses.length} frames checked")
      assert(digested > 50 && passed > 20 && corrupt > 10 && future > 5 && overlap > 5 && overflows > 5)
    }
  }
}
