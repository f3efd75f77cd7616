// The offload's lean receive tap (issue 16, "a leaner MAC path"): the received bytes as the MAC's preamble checker
// gives them, before LiteEth's CRC checker holds the last four back (LiteEthMac.rxRawFlow, a MAC generated with
// --rx-raw), turned into the stream the offload's parser reads (EthRxBeat: data, last, error with last), 5 cycles
// earlier than the MAC's own stream (rxFlow) for every byte but one.
//
// LiteEth holds four bytes back because it cannot tell the FCS from data until the frame ends. This tap can: an IPv4
// frame's datagram ends where its header's total length says, and what follows (Ethernet padding, the FCS) is not
// data. So every byte of the datagram but its last goes out the cycle it comes in (no register), the bytes after the
// datagram are dropped, and the datagram's last byte is held until the MAC's verdict on the frame (rxFlow's last
// beat, 1 cycle after the raw stream's last FCS byte), when it goes out with last and the verdict as error. A
// consumer that decides at the end of the frame (the parser's safe fires, its segment verdict) sees the end when it
// did before; a consumer that acts on a byte before the end (the early fire at the SOH after a price) sees it 5
// cycles sooner. Nothing is waited for that was not waited for before.
//
// A frame that is not IPv4 (or too short to say) goes out whole, its FCS bytes as data, its last byte held for the
// verdict as above (the parser drops such frames anyway). An IPv4 frame whose datagram does not end before the raw
// stream's last byte (total length below 20, or beyond the frame: truncated, the FCS would be read as data) ends with
// error set whatever the verdict. A held byte whose verdict has not come `maxWait` cycles after the raw stream's last
// byte (a frame of four bytes or fewer, which LiteEth's checker swallows) goes out with error set; one still held when
// the next frame's first byte comes goes out then (with the verdict if it comes in that cycle, else with error set),
// and that frame, having lost its first byte, ends with error set too (on a wire the next frame is at least 20 cycles
// away: this is for broken input). So every frame in gives exactly one last beat out, and no bad frame a good one.
package triggerfish.eth

import spinal.core._
import spinal.lib._

object EthRxLeanTap {
  /** The lean tap on `mac`'s raw stream (a MAC generated with --rx-raw), in `rxCd`, its verdicts from `rx` (the MAC's
    * rxFlow): the stream the offload's parser reads in builds with early fires. */
  def on(mac: LiteEthMac, rx: Flow[EthRxBeat], rxCd: ClockDomain): Flow[EthRxBeat] = {
    val tap = rxCd(EthRxLeanTap())
    tap.io.raw << mac.rxRawFlow()
    tap.io.verdict.valid := rx.valid && rx.payload.last
    tap.io.verdict.payload := rx.payload.error
    tap.io.out
  }
}

case class EthRxLeanTap(maxWait: Int = 4) extends Component {
  val io = new Bundle {
    val raw = slave(Flow(Fragment(Bits(8 bits))))   // the MAC's rx_raw_* (every byte, FCS included; last = last FCS byte)
    val verdict = slave(Flow(Bool()))               // the MAC's rxFlow last beat: valid = rx_valid & rx_last, payload = rx_error
    val out = master(Flow(EthRxBeat()))
  }

  // Per frame, from the raw stream (reset by its last byte).
  val idx = Reg(UInt(5 bits)) init 0               // byte index, saturating at 31 (only bytes 12 to 17 are looked at)
  val ipv4 = Reg(Bool()) init False                // the EtherType (bytes 12, 13) is 0x0800
  val etherHi = Reg(Bool()) init False             // byte 12 was 0x08
  val lenHi = Reg(Bits(8 bits)) init 0             // byte 16: the total length's high byte
  val lenKnown = Reg(Bool()) init False            // an IPv4 frame past byte 17 with a total length of at least 20
  val left = Reg(UInt(16 bits)) init 0             // with lenKnown: datagram bytes still to come after the last byte in
  val endNext = Reg(Bool()) init False             // with lenKnown: the next byte is the datagram's last
  val ended = Reg(Bool()) init False               // the datagram's last byte has come: the rest is padding and FCS
  val lostFirst = Reg(Bool()) init False           // this frame's first byte was dropped (a collision, above)

  // The held byte, waiting for its verdict.
  val holding = Reg(Bool()) init False
  val held = Reg(Bits(8 bits)) init 0
  val heldBad = Reg(Bool()) init False             // error whatever the verdict (truncated, no IPv4 end, first byte lost)
  val rawDone = Reg(Bool()) init False             // the held frame's raw stream has ended (its verdict is due)
  val waited = Reg(UInt(log2Up(maxWait + 1) bits)) init 0

  val b = io.raw.fragment
  val timeout = holding && rawDone && waited === maxWait
  // The held byte goes out with its verdict, at the timeout, or when the next frame's first byte comes.
  val release = holding && rawDone && (io.verdict.valid || timeout || io.raw.valid)
  // The verdict of a frame comes after its raw stream's last byte and only while its byte is held (LiteEth's checker
  // gives one per frame of five bytes or more, one cycle after the raw last byte, well within maxWait).
  assert(!io.verdict.valid || (holding && rawDone), "EthRxLeanTap: a verdict with no frame's last byte held")

  val atEnd = lenKnown && endNext                  // this byte is the datagram's last
  val take = io.raw.valid && !ended                // (after the datagram's end: padding and FCS, dropped)
  val withhold = take && (atEnd || io.raw.last)
  val pass = take && !withhold

  io.out.valid := release || pass
  io.out.payload.data := release ? held | b
  io.out.payload.last := release
  io.out.payload.error := release && (heldBad || !io.verdict.valid || io.verdict.payload)

  when(release) { holding := False }
  when(holding && rawDone && !release) { waited := waited + 1 }

  when(io.raw.valid) {
    when(pass && release) { lostFirst := True }    // the new frame's byte could not go out beside the held one
    when(withhold) {
      holding := True; held := b; waited := 0
      rawDone := io.raw.last
      // no end in the datagram before the frame's last byte: truncated, or not a datagram the header describes
      heldBad := lostFirst || (ipv4 && !(atEnd && !io.raw.last))
    }
    when(take && atEnd) { ended := True }
    when(io.raw.last) { rawDone := True }

    when(idx =/= 31) { idx := idx + 1 }
    when(idx === 12) { etherHi := b === 0x08 }
    when(idx === 13) { ipv4 := etherHi && b === 0x00 }
    when(idx === 16) { lenHi := b }
    val total = (lenHi ## b).asUInt
    when(idx === 17) {
      lenKnown := ipv4 && total >= 20
      left := total - 4                              // the datagram's bytes 0 to 3 (14 to 17 of the frame) have come
      endNext := False                               // (total >= 20: at least 16 more bytes)
    } elsewhen (lenKnown && !ended) {
      left := left - 1
      endNext := left === 2
    }
    when(io.raw.last) {
      idx := 0; ipv4 := False; etherHi := False; lenKnown := False; ended := False; endNext := False
      lostFirst := False
    }
  }
}
