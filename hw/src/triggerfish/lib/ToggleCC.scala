// The clock-domain crossing for "one transfer at a time, the data held stable" (issue 15, item 7: one reusable
// handshake instead of four built by hand). Meant for the order engine's fires (eth_rx -> eth_tx), its send queue and
// its commands (sys -> eth_tx), and the receive parser's command channel (sys -> eth_rx), which still have their own.
// Not used yet: with all four switched to it (commit 0cca36e) every test passed, but the Colorlight 5A-75B missed
// 125 MHz on all four of its seeds, so the users went back (docs/DESIGN.md, "Clock domains and data path").
//
//   src:  push.fire loads `hold` and flips `toggle` (push.ready: nothing in flight, toggle == the returned seen)
//   dst:  toggle -> sync1 -> sync2 (two flops); a transfer is there (`valid`) while sync2 =/= seen; `take` flips seen
//   back: seen -> `ackDelay` dst registers -> two src flops (ackSync); push.ready again once ackSync == toggle
//
// Timing, push.fire in src cycle c with both domains on the same edges: `early` (sync1 =/= seen) is high in c+2 and
// `valid` in c+3 (a user like the order engine can load its start register at the end of c+2 from `earlyAhead`, so
// that its first byte leaves in c+3, as OrderEngine.scala's header has it). A take in dst cycle t makes push.ready high in t+3+ackDelay
// (`acked` pulses then). With unrelated clocks `valid` rises 2 to 3 dst periods after the src edge that flipped the
// toggle.
//
// The payload is read straight from `hold` in the destination: it changed with the toggle, at least one dst period
// before the edge at which `valid` rises, and stays until the source sees the take. So it is valid (stable) whenever
// `early` or `valid` is high, and may be registered every cycle by a destination that uses it only then.
// `early` comes from the first synchroniser flop: a register loaded from it (through one level of logic, as an
// order engine's start register would be) is that flop's second stage; anything wider must wait for `valid`.
//
// Resets: both domains' resets are asserted together (the toggles restart equal).
package triggerfish.lib

import spinal.core._
import spinal.lib._

case class ToggleCC[T <: Data](dataType: HardType[T], srcCd: ClockDomain, dstCd: ClockDomain, ackDelay: Int = 0)
    extends Component {
  require(ackDelay >= 0)
  val io = new Bundle {
    val push = slave(Stream(dataType()))   // src
    val acked = out Bool()                 // src: the destination took the last payload (one cycle, as push.ready rises)
    val payload = out(dataType())          // dst: the held payload (stable while early or valid)
    val early = out Bool()                 // dst: a transfer in the first synchroniser flop (or later) not yet taken
    val earlyAhead = out Bool()            // dst: `early` as of the next cycle's seen (seen after this cycle's take)
    val valid = out Bool()                 // dst: a transfer has arrived and is not yet taken
    val idle = out Bool()                  // dst: nothing in either synchroniser flop (sync1 == sync2 == seen)
    val take = in Bool()                   // dst: take the transfer (flips seen; only while early or valid)
  }

  val seenOut = Bool()

  val src = new ClockingArea(srcCd) {
    val toggle = RegInit(False)
    val hold = Reg(dataType())
    val ackSync = BufferCC(seenOut, False)
    val ackPrev = RegNext(ackSync) init False
    io.push.ready := toggle === ackSync
    when(io.push.fire) { hold := io.push.payload; toggle := !toggle }
    io.acked := ackSync =/= ackPrev
  }
  src.toggle.addTag(crossClockDomain)
  src.hold.flatten.foreach(_.addTag(crossClockDomain))

  val dst = new ClockingArea(dstCd) {
    val sync1 = RegNext(src.toggle) init False
    val sync2 = RegNext(sync1) init False
    val seen = RegInit(False)
    val seenNext = seen ^ io.take
    seen := seenNext
    io.payload := src.hold
    io.early := sync1 =/= seen
    io.earlyAhead := sync1 =/= seenNext
    io.valid := sync2 =/= seen
    io.idle := sync1 === seen && sync2 === seen
    seenOut := Delay(seen, ackDelay, init = False)
    // A take without a transfer would make the source's next push look already taken.
    assert(!io.take || io.early || io.valid, "ToggleCC: take without a transfer", FAILURE)
  }
}
