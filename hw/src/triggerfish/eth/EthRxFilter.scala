// The receive filter (eth_rx): which received frames may take a CPU receive slot. The CPU has a handful of slots for
// everything it receives; any other traffic at line rate (a flood of datagrams, someone else's TCP, IPv6 chatter)
// would take them from the FIX session. The filter watches the MAC's byte stream at the same tap point as the frame
// buffers and gives each frame a verdict by its last beat; the frame buffers commit only frames it keeps, and count
// the rest (FILTERED, ICMP_LIMITED) instead of giving them a slot.
//
// Kept, when the filter is enabled:
//   - ARP (EtherType 0x0806);
//   - IPv4 to our address (config.localIp) that is
//       TCP from one of the connections firmware has open (remote address, remote port, local port: config.conn),
//       an ICMP echo request, while the rate limit has a token (a token every icmpInterval * 1024 eth_rx cycles,
//         at most icmpBucket saved; icmpInterval 0: no limit),
//       or has IP options (IHL not 5: the fields after the header are elsewhere; firmware decides).
// Everything else is dropped: other EtherTypes (IPv6 included), IPv4 to other addresses, UDP, other ICMP, TCP of no
// connection (no RST is answered for it). Disabled (the reset state), every frame is kept.
//
// Pipeline: each header byte is captured into a register as it passes (position counter, one enable each);
// comparisons against the configuration are registered (in two stages for the wide ones); the verdict is computed at
// the frame's last beat from those registered flags and held in a register until the next frame ends. The frame buffers register
// the MAC's outputs once, so they see the last beat one cycle later, when the verdict is there. Every field the
// verdict reads ends at byte 37 and every frame that reaches a slot has at least 60 bytes: the flags are settled
// nineteen cycles before the verdict is taken. (Shorter frames are runts and dropped as such, whatever the verdict.)
//
// The configuration arrives from sys through a StreamCCByToggle (EthFrameBuffers) and changes between two cycles as
// a whole; a frame in flight at that moment gets a verdict from a mix of the old and new flags, which only matters
// for a connection being opened or closed at that instant.
package triggerfish.eth

import spinal.core._
import spinal.lib._

/** One connection firmware has open (addresses and ports as on the wire, big-endian values). */
case class EthRxFilterConn() extends Bundle {
  val valid = Bool()
  val remoteIp = Bits(32 bits)
  val remotePort = Bits(16 bits)
  val localPort = Bits(16 bits)
}

case class EthRxFilterConfig(conns: Int) extends Bundle {
  val enable = Bool()
  val localIp = Bits(32 bits)
  val icmpInterval = UInt(16 bits)
  val conn = Vec(EthRxFilterConn(), conns)
}

object EthRxFilter {
  object Verdict {
    val KEEP = 0; val FILTERED = 1; val ICMP_LIMITED = 2
    val width = 2
  }
  /** ICMP echo requests that may arrive back to back after a quiet period. */
  val icmpBucket = 8
  /** eth_rx cycles per icmpInterval unit. */
  val tokenPrescale = 1024
  /** The last header byte the verdict reads (TCP destination port, low byte). */
  val lastHeaderByte = 37
}

/** In: the MAC's receive flow (the tap point), the configuration (eth_rx, from the crossing).
  * Out: the verdict on the frame whose last beat was on `rx` in the previous cycle (valid from about its 40th byte
  * until the next frame's header bytes arrive). */
case class EthRxFilter(conns: Int, minFrameBytes: Int = 60) extends Component {
  require(minFrameBytes > EthRxFilter.lastHeaderByte && minFrameBytes <= 64)
  import EthRxFilter._
  val io = new Bundle {
    val rx = slave(Flow(EthRxBeat()))
    val config = in(EthRxFilterConfig(conns))
    val verdict = out UInt (Verdict.width bits)
  }
  val cfg = io.config
  // The MAC's outputs registered once, as the frame buffers do: LiteEth's rx_error (and last) come through its CRC
  // checker's logic, and used directly they made the token bucket's update the slowest eth_rx path (98 to 103 MHz on
  // the Colorlight 5A-75B). The verdict does not need the last beat: it is computed every cycle from flags settled
  // long before the frame ends.
  val beat = io.rx.stage()

  // Byte position within the frame (saturates: only the first lastHeaderByte + 1 bytes matter).
  val inFrame = RegInit(False)
  val count = Reg(UInt(6 bits)) init 0
  val pos = inFrame ? count | U(0, 6 bits)
  when(beat.valid) {
    inFrame := !beat.last
    when(pos =/= 63) { count := pos + 1 } otherwise { count := 63 }
  }
  // The frame reached the last header byte: the captured fields are this frame's (a shorter one, a runt that the
  // frame buffers drop anyway, would leave some of the previous frame's).
  val complete = RegInit(False)
  when(beat.valid) { complete := pos === lastHeaderByte || (complete && !(pos === 0)) }
  // ... and with this beat it is no runt (the frame buffers keep runts out of the slots, the rate limit too)
  val longEnough = pos >= minFrameBytes - 1

  // Header bytes, captured as they pass (big-endian fields: the first byte is the most significant).
  val etherType = Reg(Bits(16 bits)) init 0
  val verIhl = Reg(Bits(8 bits)) init 0
  val proto = Reg(Bits(8 bits)) init 0
  val srcIp = Reg(Bits(32 bits)) init 0
  val dstIp = Reg(Bits(32 bits)) init 0
  val srcPort = Reg(Bits(16 bits)) init 0  // TCP source port; its high byte is also the ICMP type
  val dstPort = Reg(Bits(16 bits)) init 0
  def capture(field: Bits, firstByte: Int): Unit = {
    val n = field.getWidth / 8
    for (i <- 0 until n) when(beat.valid && pos === firstByte + i) {
      field(8 * (n - 1 - i) + 7 downto 8 * (n - 1 - i)) := beat.data
    }
  }
  capture(etherType, 12)
  capture(verIhl, 14)
  capture(proto, 23)
  capture(srcIp, 26)
  capture(dstIp, 30)
  capture(srcPort, 34)
  capture(dstPort, 36)

  // Comparisons, registered every cycle, in two stages for the wide ones (16-bit halves, then their AND): settled two
  // cycles after the last header byte, with at most three LUT levels between registers (125 MHz on ECP5).
  def eq16(a: Bits, b: Bits): Vec[Bool] =
    Vec((0 until a.getWidth / 16).map(k => RegNext(a(16 * k + 15 downto 16 * k) === b(16 * k + 15 downto 16 * k)) init False))
  val isArp = RegNext(etherType === 0x0806) init False
  val isIpv4 = RegNext(etherType === 0x0800) init False
  val noOptions = RegNext(verIhl === 0x45) init False
  val toUs = RegNext(eq16(dstIp, cfg.localIp).andR) init False
  val isTcp = RegNext(proto === 6) init False
  val isEcho = RegNext(proto === 1 && srcPort(15 downto 8) === 8) init False
  val connHit = Vec((0 until conns).map { i =>
    val c = cfg.conn(i)
    val halves = eq16(srcIp ## srcPort ## dstPort, c.remoteIp ## c.remotePort ## c.localPort)
    RegNext(RegNext(c.valid) && halves.andR) init False
  })

  // ICMP echo rate limit: a token bucket; a token every icmpInterval prescaler wraps (both conditions registered).
  val prescale = Reg(UInt(log2Up(tokenPrescale) bits)) init 0
  val interval = Reg(UInt(16 bits)) init 0
  val tokens = Reg(UInt(log2Up(icmpBucket + 1) bits)) init icmpBucket
  prescale := prescale + 1
  val wrap = RegNext(prescale === tokenPrescale - 2) init False      // in the cycle the prescaler is at its last value
  val due = RegNext(interval + 1 >= cfg.icmpInterval) init False     // interval changes only at a wrap
  val tick = wrap && due
  when(wrap) { when(due) { interval := 0 } otherwise { interval := interval + 1 } }
  val limited = RegNext(cfg.icmpInterval =/= 0) init False

  // The verdict, every cycle (the frame buffers take it with the frame's last beat).
  val endOfFrame = beat.valid && beat.last
  val ipOk = isIpv4 && toUs
  val echo = ipOk && noOptions && isEcho
  val keepOther = isArp || (ipOk && (!noOptions || (isTcp && connHit.orR)))
  val echoAllowed = !limited || tokens =/= 0
  val verdictNow = UInt(Verdict.width bits)
  when(!cfg.enable || keepOther || (echo && echoAllowed)) { verdictNow := Verdict.KEEP }
    .elsewhen(echo) { verdictNow := Verdict.ICMP_LIMITED }
    .otherwise { verdictNow := Verdict.FILTERED }
  val verdict = RegNext(verdictNow) init Verdict.KEEP
  io.verdict := verdict

  // A kept echo request takes a token; a frame the frame buffers drop anyway (bad FCS, runt) does not.
  val take = endOfFrame && !beat.error && complete && longEnough && cfg.enable && echo && limited && tokens =/= 0
  val add = tick && tokens =/= icmpBucket
  when(add && !take) { tokens := tokens + 1 }
    .elsewhen(take && !add) { tokens := tokens - 1 }
}
