// Early fires in the order engine (OrderEngineConfig.early; docs/DESIGN.md "Early trigger"). The parser fires at the
// price, before its segment is verified, and gives the verdict (one per early fire, in order) when the segment has
// ended. The engine sends the order as for any fire, but the frame's end waits for the verdict: after the order's last
// byte it sends zero bytes (after the IPv4 datagram: receivers go by its total length) until the verdict is in, at most
// to a 1,514-byte frame. A good verdict ends the frame normally (record SENT_EARLY); a bad one, or none by the 1,514th
// byte, ends it poisoned (io.txPoison with the last beat, through the TX arbiter: the MAC inverts the FCS, every
// receiver drops the frame), the numbers the frame took go back to the record's (the next frame reuses them) and the
// record says POISONED. A poisoned order's template is armed again as the frame ends (its fire, unverified, did not
// happen: the parser's entry is still armed too, and the segment's retransmission fires it again without waiting for
// firmware); firmware, told by the POISONED record, disarms it if the stop was cancelled meanwhile. Never a good FCS
// before a good verdict.
//
// The verdicts cross to eth_tx one at a time (ToggleCC), in order, only for early fires the queue accepted (an early
// fire dropped on a full queue has its verdict dropped here). The engine takes each verdict for the record it belongs
// to: the early frame on the output, or (discarded) an early record taken without a frame (ignored, not armed,
// suppressed, refused) or a frame that ended without its verdict.
//
// Added after the rest of the engine like the risk gate (OrderEngineRisk.scala): its assignments override the output
// register's loads (last one wins), and the engine without it (the boards') elaborates as before.
package triggerfish.offload

import spinal.core._
import spinal.lib._
import scala.language.reflectiveCalls
import triggerfish.lib.ToggleCC
import OrderEngine._

class OrderEngineEarly(e: OrderEngine) extends Area {
  val verdictCC = ToggleCC(Bool(), e.rxCd, e.txCd)
  val rxEarly = new ClockingArea(e.rxCd) {
    val depth = 2 * e.config.rxQueueDepth   // early fires whose verdict is not forwarded: the queue, the hold, the engine's
    val aw = log2Up(depth)
    val accepted = Vec(Reg(Bool()), depth)
    val good = Vec(Reg(Bool()), depth)
    val wr, vd, rd = Reg(UInt(aw + 1 bits)) init 0   // early fires; verdicts received; forwarded (or dropped)
    val fireE = e.io.fire.valid && e.io.fireEarly
    when(fireE) { accepted(wr(aw - 1 downto 0)) := !(e.rx.toQueue && e.rx.full); wr := wr + 1 }
    when(e.io.verdict.valid) { good(vd(aw - 1 downto 0)) := e.io.verdict.payload; vd := vd + 1 }
    val waiting = rd =/= vd
    val headAccepted = accepted(rd(aw - 1 downto 0))
    verdictCC.io.push.valid := waiting && headAccepted
    verdictCC.io.push.payload := good(rd(aw - 1 downto 0))
    when(waiting && (!headAccepted || verdictCC.io.push.ready)) { rd := rd + 1 }
    // Sticky: a verdict with no early fire waiting for one, or more early fires than the ring holds (never expected).
    val fault = RegInit(False) setWhen ((e.io.verdict.valid && vd === wr) || (fireE && (wr - rd) === depth))
  }
  val txEarly = new ClockingArea(e.txCd) {
    val t = e.tx
    val recEarly = RegInit(False)          // the current record is an early fire's
    when(t.recLatch) { recEarly := e.xFireHold.early }
    when(t.sGoR || t.sSkipR) { recEarly := False }
    val vHave = RegInit(False)             // the current early frame's verdict is in
    val vGood = RegInit(False)
    val discard = Reg(UInt(log2Up(rxEarly.depth) + 2 bits)) init 0   // verdicts to drop before the next one
    val vTake = verdictCC.io.valid && (discard =/= 0 || (t.sending && recEarly && !vHave))
    verdictCC.io.take := vTake
    when(vTake && discard === 0) { vHave := True; vGood := verdictCC.io.payload }
    when(t.startNow || t.sGoR) { vHave := False }
    // The frame's end: the order's last byte ends it only with the verdict in; otherwise zero bytes follow until it is.
    val padding = RegInit(False)
    val padLeft = Reg(UInt(11 bits)) init 0   // pad bytes the frame may still take (frame <= 1,514 bytes)
    when(t.startNow) { padLeft := U(1514, 11 bits) - t.metaH.len.resize(11) }
    val lastReal = t.oPos(2) && t.obHead(8)   // the byte oData loads now is the order's last
    val atEnd = t.oTake && recEarly && (padding || lastReal)   // oData loads the order's last byte or a pad byte
    val ends = vHave || (padding && padLeft === 1)            // ... and it ends the frame: the verdict is in, or byte 1,514
    val endLoad = atEnd && ends
    when(atEnd) {
      t.oLast := ends
      when(padding) {
        t.oData := 0
        padLeft := padLeft - 1
        t.obPop := False; t.underrunNow := False   // (nothing comes from obuf)
      } otherwise { padding := !vHave }
    }
    val poisonR = RegInit(False)
    val good = vHave && vGood
    when(endLoad) {
      poisonR := !good
      t.recStatus := good ? U(St.SENT_EARLY, St.width bits) | U(St.POISONED, St.width bits)
      when(!good) {   // the numbers go back to the record's, the template is armed again (after the commit's clear and
        // the commands: last assignment wins; the commit's clear was a frame ago)
        t.nextSeq := t.recSeq; t.nextMsgBin := t.recMsgBin; t.nextMsgBcd := t.recMsgBcd; t.ipId := t.recIpId
        t.armed(t.tmplReg(3 downto 0)) := True
      }
    }
    when(t.oStart) { padding := False; poisonR := False }
    e.io.txPoison := poisonR
    // (an early record taken without a frame and a frame ended without its verdict never coincide: the first needs
    // !sending)
    val discardInc = (t.consumeOther && e.xFireHold.early) || (endLoad && !vHave)
    when(discardInc && !(vTake && discard =/= 0)) { discard := discard + 1 }
    when(!discardInc && vTake && discard =/= 0) { discard := discard - 1 }
    val poisonPulse = RegNext(endLoad && !good) init False   // (the risk gate's poisoned-frame cap counts these)
    val poisonedGray = grayEvents(poisonPulse)
    val earlySentGray = grayEvents(RegNext(endLoad && good) init False)
  }
  val sysEarly = new Area {
    e.sys.counter("EARLY_SENT", 0x070, txEarly.earlySentGray, "early orders sent after a good verdict (records SENT_EARLY)")
    e.sys.counter("POISONED", 0x074, txEarly.poisonedGray, "early orders poisoned (sent with a bad FCS: the verdict was bad or late; records POISONED)")
    e.regs.ro("EARLY_FAULT", 0x078, BufferCC(rxEarly.fault, False), "sticky: a verdict came with no early fire waiting, or too many early fires were waiting (never expected)")
  }
}

/** The TX arbiter's poison path (OrderEngineTxArbiter built `withPoison`): `order`'s poison flag, valid with its last
  * beat, to the output's last beat through registers beside the byte's (the skid and the output register); CPU frames
  * are never poisoned. Here rather than in the arbiter's body, and instantiated from the end of its last line, so that
  * the arbiter without it (the boards') keeps its Verilog names (README "Boards": SpinalHDL names a `when` by its
  * source line). */
class ArbiterPoison(a: OrderEngineTxArbiter) extends Area {
  val m = a.selOrder && a.io.orderPoison
  val o = RegInit(False)
  val s = RegInit(False)
  when(!a.oValid || a.io.output.ready) { o := a.sValid ? s | m }
  when(!a.sValid) { s := m }
  a.io.outputPoison := o
}
