// The risk gate's market reference (issue 17): one stage after the hardware top of book (BookRx) that turns each
// book slot's last committed trade into a price the gate can take (RiskRefUpdate's, at the implied decimals) and
// sends it on. Where a segment's verdict commits a trade of slot k (BookRx.io.trades(k) moves), the slot is marked;
// one marked slot at a time (the lowest) has its price read then, is unmarked and is converted (MAG * 10^SCALE: one
// multiplication by ten a cycle, SCALE <= 8 cycles) and offered on `out` until taken. A trade committed while its
// slot's previous one waits or converts marks the slot again, so what reaches the gate last for each slot is its
// last trade. A negative trade price (the collar's bands are of positive prices) is not sent; every one sent is
// below 10^14 (BookRx keeps no larger one), so within the gate's 2^47.
package triggerfish.offload

import spinal.core._
import spinal.lib._

/** A book slot's last trade, as the risk gate's reference: the slot and the price at the implied decimals. */
case class BookRef() extends Bundle {
  val slot = UInt(2 bits)
  val price = UInt(48 bits)
}

case class BookRefFeed(slots: Int) extends Component {
  require(slots >= 1 && slots <= 4, "BookRefFeed: 1 to 4 slots")
  val io = new Bundle {
    val trade = in(Vec(BookPx(), slots))        // each slot's committed trade price (BookRx.io.committed)
    val trades = in(Vec(UInt(8 bits), slots))   // each slot's committed trades, counted (BookRx.io.trades; wraps)
    val out = master(Stream(BookRef()))
  }

  val seen = Vec(io.trades.map(t => RegNext(t) init 0))
  val marked = Reg(Bits(slots bits)) init 0
  val busy = RegInit(False)       // converting or offering
  val converting = RegInit(False)
  val slot = Reg(UInt(2 bits)) init 0
  val value = Reg(UInt(48 bits)) init 0
  val scale = Reg(UInt(4 bits)) init 0

  // pick the lowest marked slot whose trade is positive (a negative one is dropped: unmarked, nothing sent)
  val pick = OHMasking.first(marked)
  val pickIdx = OHToUInt(pick)
  val px = io.trade(pickIdx)
  when(!busy && marked =/= 0) {
    marked := marked & ~pick
    when(px.valid && !px.neg) {
      busy := True; converting := True
      slot := pickIdx.resized; value := px.mag.resized; scale := px.scale
    }
  }
  when(converting) {
    when(scale === 0) { converting := False } otherwise { value := (value |<< 3) + (value |<< 1); scale := scale - 1 }
  }
  io.out.valid := busy && !converting
  io.out.slot := slot
  io.out.price := value
  when(io.out.fire) { busy := False }
  // a trade committed marks its slot (after the pick above: a new one in the cycle its slot is picked stays marked)
  for (k <- 0 until slots) when(io.trades(k) =/= seen(k)) { marked(k) := True }
  assert(!(converting && scale > 8), "BookRefFeed: a scale over 8 (BookRx keeps at most 8 fraction digits)", FAILURE)
}
