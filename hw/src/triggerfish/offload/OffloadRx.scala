// Stop-order offload, receive half (issue 5): a parser in the Ethernet receive clock domain on the MAC's byte
// stream (the SoC's rxTap, no FIFO in front), a trigger table, and the fire it sends to the order engine.
// README.md in this directory describes the behaviour, the registers and the firmware protocol; in short:
//
//   io.rx (eth_rx) -> header parser (Ethernet, IPv4 any IHL, TCP any data offset; checksums on the fly)
//                  -> FIX scanner on the in-order payload of the configured connection (persists across
//                     segments; restored to its segment-start snapshot when a segment turns out bad)
//                  -> trigger table: symbol and price of every trade entry compared with all entries at once
//                     (block RAM lookup tables, one row per byte, so the cost per byte does not grow with the
//                     table) -> pending matches, committed at the end of a good segment -> io.fire (eth_rx)
//   io.bus (sys)   -> registers OFFLOAD_RX: connection, decimals, table entries, commands, counters, fire log.
//                     Everything that crosses sys -> eth_rx goes through one command channel (toggle handshake)
//                     and is applied in eth_rx only between frames.
//
// Latency: the last beat of a segment (io.rx.last) in eth_rx cycle t -> io.fire.valid in cycle t + 3 for the
// first fire (lowest table index), t + 4, t + 5, ... for the others, whatever the table holds.
//
// Timing of the per-entry state ("lag" = cycles after the stream byte on io.rx that caused it):
//   lag 0: scanner state, BRAM read address, message commit (P |= NP)
//   lag 3: symbol match S, price comparison state, crossing C and trade-log index per entry, message-start
//          reset of S and C (BRAM address registered, RAM read, RAM output registered)
//   lag 4: trade-log slot allocation; lag 8: trade-log write (price after the padding to the implied decimals)
//   t:     fire sequencer splits the lowest entry off P (then number and slot, then template and record: fire in t+3);
//   t+10:  end-of-segment housekeeping (snapshot commit or restore, P cleared)
// The FIX structure guarantees the distances this relies on: a message's CheckSum field ("10=ccc|", 7 bytes)
// follows its last price and symbol; two evaluated prices are at least 12 bytes apart; a segment's payload
// starts at least 54 bytes after the previous frame's last beat.
package triggerfish.offload

import spinal.core._
import spinal.lib._
import spinal.lib.bus.simple._
import triggerfish.eth.EthRxBeat
import triggerfish.soc.{RegField, RegMap}
import scala.collection.mutable.ArrayBuffer

case class OffloadRxConfig(
  entries: Int = 64,         // trigger table entries (a power of two, 2..64)
  fireLogDepth: Int = 16,    // fire records waiting for the CPU (sys)
  eventFifoDepth: Int = 8,   // per-segment counter events eth_rx -> sys (one per segment of our connection)
  digest: Boolean = false,   // market-data digestion (DigestRx, docs/DESIGN.md): its registers, CMD DIGEST_SYNC
  digestDepth: Int = 16, early: Boolean = false   // digest descriptors waiting for the CPU (sys); early: early fires (EARLY_CTRL, io.fireEarly, io.verdict; "Early fires" below)
) {
  require(isPow2(digestDepth) && digestDepth >= 4)
  require(isPow2(entries) && entries >= 2 && entries <= 64, "entries: a power of two in 2..64")
  require(isPow2(fireLogDepth) && fireLogDepth >= 4)
  require(isPow2(eventFifoDepth) && eventFifoDepth >= 4)
}

/** Per segment of our connection, eth_rx -> sys counters. */
case class OffloadRxEvent() extends Bundle {
  val kind = UInt(3 bits)
  val wMsgs = UInt(6 bits)
  val fixErrors = UInt(6 bits)
  val fires = UInt(7 bits)
}

/** A fire as the CPU sees it in the fire log. */
case class OffloadFireLog() extends Bundle {
  val trigger = UInt(6 bits)
  val template = UInt(4 bits)
  val recordValid = Bool()
  val price = UInt(OffloadFire.priceWidth bits)
  val stamp = UInt(32 bits)
}

object OffloadRx {
  val busConfig = PipelinedMemoryBusConfig(addressWidth = 12, dataWidth = 32)
  val symChars = 8           // longest symbol
  val maxDigits = 14         // significant digits of a fixed-point price: values < 10^14
  val maxDecimals = 8
  val logSlots = 16          // trade log: a ring of 15 usable slots for prices that newly crossed an entry (see README)
  val SOH = 0x01
  object Op { val CONFIG = 1; val LOAD_SEQ = 2; val WRITE_ENTRY = 3; val ARM = 4; val DISARM = 5; val DISARM_ALL = 6; val READ_STATE = 7; val DIGEST_SYNC = 8 }
  object Kind { val NONE = 0; val INORDER = 1; val OOO = 2; val BAD = 3; val IGNORED = 4 }
  // Header sections.
  val S_ETH = 0; val S_IP = 1; val S_TCP = 2; val S_PAY = 3; val S_PAD = 4
  // Scanner modes.
  val M_HUNT = 0; val M_BEGIN = 1; val M_BODYLEN = 2; val M_BODY = 3; val M_TRAILER = 4
  // Field classes.
  val T_OTHER = 0; val T_35 = 1; val T_55 = 2; val T_268 = 3; val T_269 = 4; val T_270 = 5
  // Price table classes: row = position * 16 + class; classes 0..9 are the digits.
  val CL_DOT = 10; val CL_END_NODOT = 11; val CL_END_FRAC = 12
  val beginLiteral: Seq[Int] = "8=FIX.4.4\u00019=".map(_.toInt)
  /** io.digested comes this many eth_rx cycles after the frame's last beat on io.rx (OffloadRxDigestSpec pins it). */
  val digestedLatency = 5
  // one-hot: every `st === X` is one flip-flop, so that the states' enables (`steps`, `bcd`, `symLen` in PRE_APPLY and
  // CONVERT) are not a decode of a binary code away from it (the 5A-75B's eth_rx critical path at d6d93bd, seed 4)
  object EngState extends SpinalEnum(binaryOneHot) { val IDLE, TOKEN, PRE, PRE_APPLY, CONVERT, NORMALIZE, SWEEP, POST, POST_APPLY, ACK = newElement() }
}

case class OffloadRx(config: OffloadRxConfig, rxCd: ClockDomain, bookSlots: Int = 0, bookRef: Boolean = false) extends Component {
  import OffloadRx._
  val N = config.entries
  val io = new Bundle {
    val bus = slave(PipelinedMemoryBus(busConfig))   // sys
    val rx = slave(Flow(EthRxBeat()))                 // rxCd: the MAC's receive stream (the SoC's rxTap)
    val fire = master(Flow(OffloadFire()))            // rxCd
    val rxCycle = out UInt (32 bits)                  // rxCd: the cycle counter the stamps use
    // rxCd, digestion builds, about the frame whose last beat was on io.rx `OffloadRx.digestedLatency` cycles before:
    // digested, a segment whose descriptor is queued (the frame buffers drop it); checked, its sums are good (`sums`)
    val digested = config.digest generate out(Bool()); val checked = config.digest generate out(Bool()); val fireEarly = config.early generate out(Bool()); val verdict = config.early generate master(Flow(Bool()))   // early builds: "Early fires" below
  }
  val sysCd = ClockDomain.current
  val factory = new PipelinedMemoryBusSlaveFactory(io.bus)
  val regs = new RegMap("OFFLOAD_RX", "stop-order offload, receive side: FIX market data parser and trigger table", factory)

  // =============================================================================================
  // sys: staged configuration and the command channel to eth_rx
  val sysCmd = new Area {
    val enable = RegInit(False)
    val ourMacHi = Reg(Bits(16 bits)) init 0
    val ourMacLo = Reg(Bits(32 bits)) init 0
    val ourIp = Reg(Bits(32 bits)) init 0
    val ourPort = Reg(Bits(16 bits)) init 0
    val peerIp = Reg(Bits(32 bits)) init 0
    val peerPort = Reg(Bits(16 bits)) init 0
    val fixCfg = Reg(Bits(16 bits)) init 0x3200
    val decimals = fixCfg(3 downto 0).asUInt
    val tradeType = fixCfg(15 downto 8)
    val rcvNxt = Reg(Bits(32 bits)) init 0
    val sym0 = Reg(Bits(32 bits)) init 0
    val sym1 = Reg(Bits(32 bits)) init 0
    val stopLo = Reg(Bits(32 bits)) init 0
    val stopHi = Reg(Bits(16 bits)) init 0
    val entryCfg = Reg(Bits(8 bits)) init 0
    val eSell = entryCfg(0)
    val eOneShot = entryCfg(1)
    val eArm = entryCfg(2)
    val eTmpl = entryCfg(7 downto 4).asUInt

    regs.ro("INFO", 0x000, "build parameters",
      U(N, 8 bits) -> RegField("ENTRIES", 0, 8, "trigger table entries"),
      U(symChars, 4 bits) -> RegField("SYM_CHARS", 8, 4, "longest symbol (characters 0x21..0x5F)"),
      U(maxDigits, 5 bits) -> RegField("PRICE_DIGITS", 16, 5, "a fixed-point price has at most this many digits (value < 10^PRICE_DIGITS)"),
      U(logSlots, 6 bits) -> RegField("LOG_SLOTS", 24, 6, "trade log slots per segment (fires beyond them have RECORD_VALID = 0)"))
    regs.wo("CTRL", 0x004, enable, "staged, applied by CMD CONFIG: bit 0 ENABLE, the offload on (off: firmware-only mode, nothing fires)")
    regs.wo("OUR_MAC_HI", 0x008, ourMacHi, "staged: our MAC, first two bytes (02:54:.. -> 0x0254)")
    regs.wo("OUR_MAC_LO", 0x00C, ourMacLo, "staged: our MAC, last four bytes")
    regs.wo("OUR_IP", 0x010, ourIp, "staged: our IPv4 address (10.77.0.2 -> 0x0A4D0002)")
    regs.wo("OUR_PORT", 0x014, ourPort, "staged: our TCP port")
    regs.wo("PEER_IP", 0x018, peerIp, "staged: the exchange's IPv4 address")
    regs.wo("PEER_PORT", 0x01C, peerPort, "staged: the exchange's TCP port")
    regs.wo("FIX_CFG", 0x020, fixCfg, "staged, applied by CMD CONFIG: bits 3:0 DECIMALS, the implied decimals of fixed-point prices, 0..8 (a change disarms every entry); bits 15:8 TRADE_TYPE, the MDEntryType (269) whose price (270) triggers, default '2'")
    regs.wo("RCV_NXT", 0x024, rcvNxt, "staged: the peer's next sequence number, applied by CMD LOAD_SEQ")
    regs.wo("ENTRY_SYM0", 0x030, sym0, "staged entry: symbol characters 0..3 (character 0 in bits 7:0), NUL padded")
    regs.wo("ENTRY_SYM1", 0x034, sym1, "staged entry: symbol characters 4..7")
    regs.wo("ENTRY_STOP_LO", 0x038, stopLo, "staged entry: stop price, fixed point with FIX_CFG.DECIMALS, bits 31:0")
    regs.wo("ENTRY_STOP_HI", 0x03C, stopHi, "staged entry: stop price bits 47:32 (the price must be < 10^14)")
    regs.wo("ENTRY_CFG", 0x040, entryCfg, "staged entry, applied by CMD WRITE_ENTRY: bit 0 SELL (0: buy stop, fires when a trade price >= stop; 1: sell stop, <= stop), bit 1 ONE_SHOT (disarm when it fires; else it fires at most once per segment), bit 2 ARM (arm once written), bits 7:4 TEMPLATE")
    val cmd = regs.writeFlow("CMD", 0x044, 14,
      "write OP (bits 3:0) and ENTRY (bits 13:8): 1 CONFIG, 2 LOAD_SEQ, 3 WRITE_ENTRY, 4 ARM, 5 DISARM, 6 DISARM_ALL, 7 READ_STATE" +
        (if (config.digest) ", 8 DIGEST_SYNC" else "") + "; refused while BUSY")

    // Digestion's staged configuration (applied by CONFIG) and resynchronisation (DIGEST_SYNC).
    val dg = config.digest generate new Area {
      val cfg = Reg(Bits(21 bits)) init 0
      val ours = Vec.fill(4)(Reg(Bits(32 bits)) init 0)
      val theirs = Vec.fill(4)(Reg(Bits(32 bits)) init 0)
      val pos = Reg(Bits(32 bits)) init 0
      val msg = Reg(Bits(32 bits)) init 0
      regs.wo("DIGEST_CFG", 0x0B0, cfg, "staged, applied by CMD CONFIG: bit 0 ENABLE (digest good in-order segments of W of this session; off: pass everything, the MsgSeqNum still followed), bits 12:8 OURS_LEN, bits 20:16 THEIRS_LEN (CompID lengths, 1..16)")
      regs.wo("DIGEST_SYNC_POS", 0x0B4, pos, "staged, applied by CMD DIGEST_SYNC: the stream position (the peer's sequence number) firmware has parsed up to, at a message boundary")
      regs.wo("DIGEST_SYNC_MSG", 0x0B8, msg, "staged, applied by CMD DIGEST_SYNC: the session's next incoming MsgSeqNum there (>= 1)")
      for (i <- 0 until 4) regs.wo(s"DIGEST_OURS$i", 0x0C0 + 4 * i, ours(i), s"staged: the exchange's TargetCompID (ours), characters ${4 * i}..${4 * i + 3} (the first in bits 7:0)")
      for (i <- 0 until 4) regs.wo(s"DIGEST_THEIRS$i", 0x0D0 + 4 * i, theirs(i), s"staged: the exchange's SenderCompID, characters ${4 * i}..${4 * i + 3}")
      val xCfg = Reg(Bits(21 bits)) init 0
      val xOurs = Reg(Bits(128 bits)) init 0
      val xTheirs = Reg(Bits(128 bits)) init 0
      val xPos = Reg(UInt(32 bits)) init 0
      val xMsg = Reg(UInt(32 bits)) init 0
      for (r <- Seq(xCfg, xOurs, xTheirs, xPos, xMsg)) r.addTag(crossClockDomain)
      def take(): Unit = {
        xCfg := cfg; xOurs := ours.reverse.reduce(_ ## _); xTheirs := theirs.reverse.reduce(_ ## _)
        xPos := pos.asUInt; xMsg := msg.asUInt
      }
    }

    // The transfer registers: a copy taken when a command is accepted, stable until it is acknowledged.
    val xOp = Reg(UInt(4 bits)) init 0
    val xEntry = Reg(UInt(6 bits)) init 0
    val xEnable = RegInit(False)
    val xOurMac = Reg(Bits(48 bits)) init 0
    val xOurIp = Reg(Bits(32 bits)) init 0
    val xOurPort = Reg(Bits(16 bits)) init 0
    val xPeerIp = Reg(Bits(32 bits)) init 0
    val xPeerPort = Reg(Bits(16 bits)) init 0
    val xDecimals = Reg(UInt(4 bits)) init 0
    val xTradeType = Reg(Bits(8 bits)) init 0x32
    val xRcvNxt = Reg(UInt(32 bits)) init 0
    val xSym = Reg(Bits(64 bits)) init 0
    val xStop = Reg(UInt(48 bits)) init 0
    val xSell = RegInit(False)
    val xOneShot = RegInit(False)
    val xArm = RegInit(False)
    val xTmpl = Reg(UInt(4 bits)) init 0
    for (r <- Seq(xOp, xEntry, xEnable, xOurMac, xOurIp, xOurPort, xPeerIp, xPeerPort, xDecimals, xTradeType, xRcvNxt,
      xSym, xStop, xSell, xOneShot, xArm, xTmpl)) r.addTag(crossClockDomain)

    val busy = RegInit(False)
    val refused = RegInit(False)
    val reqToggle = RegInit(False)
    val op = cmd.payload(3 downto 0).asUInt
    val opOk = op >= Op.CONFIG && op <= (if (config.digest) Op.DIGEST_SYNC else Op.READ_STATE)
    when(cmd.valid) {
      when(!busy && opOk) {
        xOp := op; xEntry := cmd.payload(13 downto 8).asUInt.resized
        xEnable := enable; xOurMac := ourMacHi ## ourMacLo; xOurIp := ourIp; xOurPort := ourPort
        xPeerIp := peerIp; xPeerPort := peerPort; xDecimals := decimals; xTradeType := tradeType
        xRcvNxt := rcvNxt.asUInt; xSym := sym1 ## sym0; xStop := (stopHi ## stopLo).asUInt
        xSell := eSell; xOneShot := eOneShot; xArm := eArm; xTmpl := eTmpl
        if (config.digest) dg.take()
        busy := True; reqToggle := !reqToggle; refused := False
      } otherwise { refused := True }
    }
  }

  // Crossing FIFOs (push eth_rx, pop sys).
  // Events: one per segment of our connection, at most one per 84 eth_rx cycles (a 64-byte frame and its gap).
  val eventFifo = new StreamFifoCC(OffloadRxEvent(), config.eventFifoDepth, rxCd, sysCd, withPopBufferedReset = false)
  // Fire log: up to 64 fires in a burst; what the CPU has not taken when it is full is dropped and counted.
  val fireFifo = new StreamFifoCC(OffloadFireLog(), config.fireLogDepth, rxCd, sysCd, withPopBufferedReset = false)
  // Digest descriptors, one per good in-order segment with payload.
  val digestFifo = config.digest generate new StreamFifoCC(DigestDesc(), config.digestDepth, rxCd, sysCd, withPopBufferedReset = false)

  // =============================================================================================
  // eth_rx: the parser, the trigger table, the fire
  val rx = new ClockingArea(rxCd) {
    val cycle = Reg(UInt(32 bits)) init 0
    cycle := cycle + 1
    io.rxCycle := cycle

    // The MAC's stream, registered once (its outputs come from LUTs: the CRC checker's state and a LUT RAM). The
    // header parser and the scanner work on it: the parser one beat at a time, the scanner on the payload bytes
    // the parser marked in the beat before (feedR). The last beat on io.rx in cycle t is here in t+1.
    val v = RegNext(io.rx.valid) init False
    val b = RegNext(io.rx.payload.data.asUInt) init 0
    val lastD = RegNext(io.rx.payload.last) init False
    val errD = RegNext(io.rx.payload.error) init False
    val eof = v && lastD

    // Configuration in force (applied from the transfer registers between frames).
    val cfgEnable = RegInit(False)
    val cfgOurMac = Reg(Bits(48 bits)) init 0
    val cfgOurIp = Reg(Bits(32 bits)) init 0
    val cfgOurPort = Reg(Bits(16 bits)) init 0
    val cfgPeerIp = Reg(Bits(32 bits)) init 0
    val cfgPeerPort = Reg(Bits(16 bits)) init 0
    val cfgDecimals = Reg(UInt(4 bits)) init 0
    val cfgTradeType = Reg(Bits(8 bits)) init 0x32
    val maxIntDigits = Reg(UInt(4 bits)) init maxDigits   // 14 - decimals
    val rcvNxt = Reg(UInt(32 bits)) init 0
    val closed = RegInit(False)

    // Working state that a bad segment rolls back: (working, snapshot) pairs, committed at the end of a good
    // segment, restored at the end of a bad one, both set to their reset value by a scanner reset.
    val snapPairs = ArrayBuffer[(Data, Data)]()
    def snapshotted[T <: Data](r: T): T = {
      val s = cloneOf(r)
      val sr = Reg(s)
      snapPairs += ((r, sr))
      r
    }

    // -------------------------------------------------------------------------------------------
    // Ethernet / IPv4 / TCP header parser. Every decision that needs more than the byte and a compare is
    // prepared a beat ahead: where the headers end, whether the next beat is payload for the scanner. The position
    // and the per-frame flags are set to their start-of-frame values by the last beat, so that the first beat of a
    // frame needs no special case.
    val hdr = new Area {
      val inFrame = RegInit(False)
      val first = !inFrame
      val secR = Reg(UInt(3 bits)) init S_ETH
      val sposR = Reg(UInt(6 bits)) init 0
      val oddR = RegInit(False)
      val sec = secR
      val spos = sposR
      val odd = oddR
      val okR = RegInit(True)      // so far: IPv4/TCP to our MAC and addresses, well formed
      val ok = okR
      val oursR = RegInit(False)   // addresses and ports matched (set at TCP byte 4)
      val ours = oursR
      val ipEndPos = Reg(UInt(6 bits)) init 19    // IHL * 4 - 1
      val tcpShortR = RegInit(False)              // the TCP length is below the header's (set at TCP byte 12)
      val totHi = Reg(Bits(8 bits)) init 0
      val tcpLen = Reg(UInt(16 bits)) init 0
      val ipLeft = Reg(UInt(16 bits)) init 0      // datagram bytes from the current byte on (valid when lenKnown)
      val lenKnownR = RegInit(False)
      val lenKnown = lenKnownR
      val lenBadR = RegInit(False)
      val lenBad = lenBadR
      val fragR = RegInit(False)
      val ipAcc = Reg(UInt(16 bits)) init 0
      val ipC = RegInit(False)
      val tcpAcc = Reg(UInt(16 bits)) init 0
      val tcpC = RegInit(False)
      val seq = Reg(UInt(32 bits)) init 0
      val fin = RegInit(False)
      val syn = RegInit(False)
      val rst = RegInit(False)
      val skip = Reg(UInt(32 bits)) init 0
      val payLen = Reg(UInt(16 bits)) init 0
      val seqOk = RegInit(False)
      val nextSeq = Reg(UInt(32 bits)) init 0
      val acceptR = RegInit(False)
      val accept = acceptR
      val skipLeft = Reg(UInt(16 bits)) init 0
      // The last 6 bytes; a field is compared with the configuration at the byte after it (no mux of the
      // configuration by position, nothing but the capture between the byte and the compare).
      val sr = Reg(Bits(48 bits)) init 0
      val chk = Reg(Bits(6 bits)) init 0          // compare this beat: 0 MAC, 1 type, 2 protocol, 3 peer IP, 4 our IP, 5 peer port
      val feedR = RegInit(False)                  // the current beat (if any) is payload for the scanner

      // a ones' complement sum held as a 16-bit accumulator and a pending end-around carry is good (0xFFFF) when
      def onesOk(acc: UInt, c: Bool): Bool = (acc === 0xFFFF && !c) || (acc === 0xFFFE && c) || (acc === 0 && !c)
      // The checksums: what a beat adds (IP header word; TCP: the length, the protocol, an address or datagram
      // word) is decided a beat ahead; the sums take the beat as it comes (the TCP sum is whole in t+2). The IP
      // header's verdict is registered (it is needed from the TCP header's byte 19 on).
      val ipAddR = RegInit(False)
      val tcpAddLenR = RegInit(False)
      val tcpAddSixR = RegInit(False)
      val tcpAddAddrR = RegInit(False)
      val tcpAddDgR = RegInit(False)
      val ipOkR = RegNext(onesOk(ipAcc, ipC)) init False
      // This beat is the TCP header's last (prepared a beat ahead: data offset * 4 - 2 is the position before it).
      val tcpEndR = RegInit(False)
      val tcpEndM1 = Reg(UInt(6 bits)) init 0
      val doffOk = RegInit(False)
      val skipLoZero = RegInit(False)              // skip(15 downto 0) === 0, from byte 9 on
      // ipLeft === 0 / === 1, kept beside it so that no 16-bit compare sits in the per-byte paths
      val ipLeftZeroR = RegInit(True)
      val ipLeftOneR = RegInit(False)
      val inDgram = lenKnown && !ipLeftZeroR
      val byteOk = Bool(); byteOk := True
      // the compares are registered at the beat that has the field in sr and counted at the next beat
      val eqMac = RegNextWhen(sr === cfgOurMac, v) init False
      val eqType = RegNextWhen(sr(15 downto 0) === B"x0800", v) init False
      val eqProto = RegNextWhen(sr(7 downto 0) === B"x06", v) init False
      val eqPeerIp = RegNextWhen(sr(31 downto 0) === cfgPeerIp, v) init False
      val eqOurIp = RegNextWhen(sr(31 downto 0) === cfgOurIp, v) init False
      val eqPeerPort = RegNextWhen(sr(15 downto 0) === cfgPeerPort, v) init False
      // our port (TCP bytes 2, 3) is needed at TCP byte 4, so it is compared a beat earlier, on the beat that
      // brings its second byte (sr's last byte and b): a 16-bit compare from registers into a register, where
      // the compare used to sit in front of oursR's enable logic (the eth_rx critical path, 127.8 MHz on the i5)
      val eqOurPort = RegNextWhen((sr(7 downto 0) ## b.asBits) === cfgOurPort, v) init False
      val chkR = Reg(Bits(6 bits)) init 0         // chk of the previous beat
      val fieldOk = !(chkR(0) && !eqMac) && !(chkR(1) && !eqType) && !(chkR(2) && !eqProto) &&
        !(chkR(3) && !eqPeerIp) && !(chkR(4) && !eqOurIp) && !(chkR(5) && !eqPeerPort)
      val chkNext = Bits(6 bits); chkNext := 0
      val lenBadNow = Bool(); lenBadNow := lenBad
      val hdrMinus4 = (ipEndPos - 3).resize(16)
      val ipShortR = RegNextWhen(ipLeft < hdrMinus4, v) init False   // read at IP byte 5: taken at byte 4
      val word = odd ? b.resize(16) | (b.resize(16) |<< 8)
      val nextSec = UInt(3 bits); nextSec := sec
      val nextSpos = UInt(6 bits); nextSpos := (spos === 63) ? spos | spos + 1
      val decIpLeft = Bool(); decIpLeft := False
      val startSeg = Bool(); startSeg := False
      val tcpEnd = Bool(); tcpEnd := False
      val acceptNow = Bool(); acceptNow := False

      when(v) { switch(sec) {
        is(S_ETH) {
          when(spos === 5) { chkNext(0) := True }
          when(spos === 13) { chkNext(1) := True; nextSec := S_IP; nextSpos := 0 }
        }
        is(S_IP) {
          when(spos >= 4) {
            decIpLeft := True
            when(!inDgram) { lenBadNow := True }
          }
          switch(spos) {
            is(0) { byteOk := b(7 downto 4) === 4 && b(3 downto 0) >= 5; ipEndPos := ((b(3 downto 0) << 2) - 1).resized }
            is(2) { totHi := b.asBits }
            is(3) {
              val tot = (totHi ## b).asUInt
              ipLeft := tot - 4; lenKnownR := True
              ipLeftZeroR := tot === 4; ipLeftOneR := tot === 5
            }
            is(4) { tcpLen := ipLeft - hdrMinus4 }
            // the total length against the IP header's, compared at byte 4 and counted here, from a register (the
            // compare in front of lenBadR's other conditions was an eth_rx near-critical path)
            is(5) { when(ipShortR) { lenBadNow := True } }
            is(6) { fragR := b(5) || b(4 downto 0) =/= 0 }   // MF, offset
            is(7) { when(b =/= 0) { fragR := True } }
          }
          when(spos === 9) { chkNext(2) := True }
          when(spos === 15) { chkNext(3) := True }
          when(spos === 19) { chkNext(4) := True }
          when(spos === ipEndPos) { nextSec := S_TCP; nextSpos := 0 }
        }
        is(S_TCP) {
          decIpLeft := True
          when(!inDgram) { lenBadNow := True }
          when(spos === 1) { chkNext(5) := True }
          // byte 4: the destination port (bytes 2, 3) is the last of the addresses (the others are in okR by now)
          when(spos === 4) { oursR := ok && eqOurPort }
          when(spos === 8) { seq := sr(31 downto 0).asUInt; skip := rcvNxt - sr(31 downto 0).asUInt }
          when(spos === 9) { skipLoZero := skip(15 downto 0) === 0 }
          when(spos === 12) {
            tcpEndM1 := ((b(7 downto 4) << 2) - 2).resized
            // the TCP header's length against the TCP length, counted at byte 13: compared and subtracted here,
            // from b, so that byte 13's verdict comes from a register (the compare behind an adder was the
            // eth_rx critical path into eofBad once the port compare was registered)
            val hl = (b(7 downto 4) << 2).resize(16)
            tcpShortR := tcpLen < hl
            payLen := tcpLen - hl
            doffOk := b(7 downto 4) >= 5
            when(b(7 downto 4) < 5) { lenBadNow := True }
          }
          when(spos === 13) {
            fin := b(0); syn := b(1); rst := b(2)
            when(tcpShortR) { lenBadNow := True }
          }
          when(spos === 14) { seqOk := skip === 0 || (skip(31 downto 16) === 0 && skip(15 downto 0) < payLen) }
          when(spos === 15) { nextSeq := seq + payLen + fin.asUInt.resize(32) }
          when(tcpEndR) {
            tcpEnd := True
            acceptNow := oursR && ok && ipOkR && !lenBad && inDgram && !fragR && !syn && !rst && cfgEnable && !closed && seqOk
            acceptR := acceptNow
            startSeg := acceptNow
            skipLeft := skip(15 downto 0)
            nextSec := ipLeftOneR ? U(S_PAD, 3 bits) | U(S_PAY, 3 bits)
          }
        }
        is(S_PAY) {
          decIpLeft := True
          when(inDgram) {
            when(skipLeft =/= 0) { skipLeft := skipLeft - 1 }
            when(ipLeftOneR) { nextSec := S_PAD }
          }
        }
      } }

      val tcpInNow = tcpAddLenR ? tcpLen | (tcpAddSixR ? U(6, 16 bits) | word)
      val tcpAddNow = tcpAddLenR || tcpAddSixR || tcpAddAddrR || (tcpAddDgR && inDgram)
      val ipSum = ipAcc.resize(17) + ((v && ipAddR) ? word | U(0, 16 bits)).resize(17) + ipC.asUInt.resize(17)
      val tcpSum = tcpAcc.resize(17) + ((v && tcpAddNow) ? tcpInNow | U(0, 16 bits)).resize(17) + tcpC.asUInt.resize(17)
      ipAcc := ipSum(15 downto 0); ipC := ipSum(16)
      tcpAcc := tcpSum(15 downto 0); tcpC := tcpSum(16)
      when(v && first) { ipAcc := 0; ipC := False; tcpAcc := 0; tcpC := False }
      // The datagram is complete with this byte: the frame may end here (what follows is Ethernet padding).
      val complete = sec === S_PAD || (inDgram && ipLeftOneR && (sec === S_PAY || sec === S_TCP))

      when(v) {
        inFrame := !lastD
        // what the next beat adds to the checksums, from this beat's section and position (the IP header ends at
        // position 3, 7, 11, 15, 19 or later)
        val ipEnd = sec === S_IP && spos === ipEndPos
        ipAddR := (sec === S_ETH && spos === 13) || (sec === S_IP && !ipEnd)
        tcpAddLenR := sec === S_IP && spos === 4
        tcpAddSixR := sec === S_IP && spos === 5
        tcpAddAddrR := sec === S_IP && spos >= 11 && spos < 19 && !ipEnd
        tcpAddDgR := ipEnd || (sec === S_TCP && !(tcpEndR && ipLeftOneR)) || (sec === S_PAY && !(inDgram && ipLeftOneR))
        oddR := !odd
        secR := nextSec
        sposR := nextSpos
        okR := ok && byteOk && fieldOk
        lenBadR := lenBadNow
        sr := sr(39 downto 0) ## b.asBits
        chk := chkNext
        chkR := chk
        // the next beat is payload for the scanner
        feedR := (tcpEndR && acceptNow && !ipLeftOneR && skipLoZero) ||
          (sec === S_PAY && accept && inDgram && !ipLeftOneR && skipLeft <= 1)
        tcpEndR := doffOk && sec === S_TCP && spos === tcpEndM1
        when(decIpLeft && inDgram) {
          ipLeft := ipLeft - 1
          ipLeftZeroR := ipLeftOneR
          ipLeftOneR := ipLeft === 2
        }
        when(lastD) {
          // the next frame's start
          ipAddR := False; tcpAddLenR := False; tcpAddSixR := False; tcpAddAddrR := False; tcpAddDgR := False
          feedR := False; chk := 0; chkR := 0; tcpEndR := False; doffOk := False
          secR := S_ETH; sposR := 0; oddR := False; okR := True
          oursR := False; lenKnownR := False; lenBadR := False; fragR := False; acceptR := False
        }
      }

      // End of frame, what is known in the cycle of the last beat; the TCP checksum verdict follows a cycle later.
      val eofAccept = RegNextWhen(accept, eof) init False
      val eofGoodSoFar = RegNextWhen(accept && !errD && complete, eof) init False
      // what the last beat says, registered; the kind if the TCP checksum is good follows from it
      val eofOurs = RegNextWhen(ours, eof) init False          // ours, so a bad TCP checksum makes it BAD
      val eofBad = RegNextWhen(errD || !ipOkR || lenBadNow || !complete, eof) init False
      val eofIgnored = RegNextWhen(fragR || syn || rst || !cfgEnable || closed, eof) init False
      val eofSeqOk = RegNextWhen(seqOk, eof) init False
      val eofMaybeBad = eofOurs
      val eofKind = UInt(3 bits)
      when(!eofOurs) { eofKind := Kind.NONE }
        .elsewhen(eofBad) { eofKind := Kind.BAD }
        .elsewhen(eofIgnored) { eofKind := Kind.IGNORED }
        .elsewhen(!eofSeqOk) { eofKind := Kind.OOO }
        .otherwise { eofKind := Kind.INORDER }
      val tcpOk2 = onesOk(tcpAcc, tcpC)             // two cycles after the last beat on io.rx: the whole segment summed
      val segGood2 = eofGoodSoFar && tcpOk2
      val kind2 = (eofMaybeBad && eofKind =/= Kind.NONE && !tcpOk2) ? U(Kind.BAD, 3 bits) | eofKind
    }

    // -------------------------------------------------------------------------------------------
    // The scanner's input: the registered byte, with its classes decided in that register stage, so that no byte
    // compare sits in the scanner's per-byte paths. The scanner, the trigger table and the fire sequencer run in
    // this "scanner time", one cycle behind io.rx, beside the header parser.
    val in1 = new Area {
      val feed = v && hdr.feedR                        // this byte is payload for the scanner
      val cyc = RegNext(cycle) init 0                   // the cycle the byte was on io.rx (for the stamps)
      private def cls(f: UInt => Bool): Bool = RegNext(f(io.rx.payload.data.asUInt)) init False
      val isSoh = cls(_ === SOH)
      // nibble patterns (plain LUTs; a magnitude compare would become a carry chain)
      val isDig = cls(x => x(7 downto 4) === 3 && (!x(3) || x(2 downto 1) === 0))
      val isSymChar = cls(x => !x(7) && ((x(6 downto 5) === 1 && x(4 downto 0) =/= 0) || x(6 downto 5) === 2))   // 0x21..0x5F
      val isEq = cls(_ === 0x3D)
      val isDot = cls(_ === 0x2E)
      val isMinus = cls(_ === 0x2D)
      val is8 = cls(_ === 0x38)
      val isWch = cls(_ === 0x57)
      val is1 = cls(_ === 0x31)
      val is0 = cls(_ === 0x30)
      val isTrade = cls(_.asBits === cfgTradeType)       // the configuration changes only between frames
      // the begin literal "8=FIX.4.4|9=": bit k = the byte is its character k
      val beginMatch = RegNext(Vec(beginLiteral.map(c => io.rx.payload.data.asUInt === c)).asBits) init 0
      val dig = b(3 downto 0)   // the digit when isDig
    }
    val feed = in1.feed

    // -------------------------------------------------------------------------------------------
    // FIX scanner (one payload byte per cycle when `feed`). Each byte is decided by a compare or two against
    // values prepared beforehand: the literal byte expected next, the class of the tag read so far, whether the
    // body ends with this byte, the CheckSum's expected digits, whether the message commits if this is its last SOH.
    val scan = new Area {
      import in1.{isSoh, isDig, dig, isSymChar}
      // Two stages. Stage A follows the byte's place in the stream: the mode, the tag or value being read, the
      // price's digits, the CheckSum; it reads the message's flags (stage B) only where they are settled at least
      // two bytes before. Stage B keeps the message's flags (well formed so far, W, symbol, entries) and decides the
      // table's events, a cycle after the byte, from stage A's registered events: exactly what one stage would do,
      // one cycle later (B at cycle j + 1 sees its own state after byte j - 1, as the byte needs).
      // ---- stage A
      val mode = snapshotted(Reg(UInt(3 bits)) init M_HUNT)
      val prevSoh = snapshotted(RegInit(True))
      val lit = snapshotted(Reg(UInt(4 bits)) init 0)
      val bodyLeft = snapshotted(Reg(UInt(17 bits)) init 0)
      val bodyLast = snapshotted(RegInit(False))                // bodyLeft === 1
      val blDigits = snapshotted(Reg(UInt(3 bits)) init 0)
      val csum = snapshotted(Reg(UInt(8 bits)) init 0)
      val cokAcc = snapshotted(RegInit(False))
      val commitReady = snapshotted(RegInit(False))            // at "10=ddd", the message commits if an SOH follows
      val fTag = snapshotted(RegInit(True))
      val tagBcd = snapshotted(Reg(Bits(8 bits)) init 0)        // the last two digits of the tag so far
      val tagLen = snapshotted(Reg(UInt(3 bits)) init 0)        // saturates at 4
      val tagPre = snapshotted(Reg(UInt(4 bits)) init 0)        // the class of the tag so far (C_ below)
      val tagCls = snapshotted(Reg(UInt(3 bits)) init T_OTHER)
      val valLen = snapshotted(Reg(UInt(4 bits)) init 0)
      val wCand = snapshotted(RegInit(False))
      val tradeCand = snapshotted(RegInit(False))
      // the price being read (a trade entry's 270): followed whether or not the message is still evaluated (stage B
      // decides whether its lookups count)
      val pK = snapshotted(Reg(UInt(4 bits)) init 0)     // significant digits so far (the price table row position)
      val pFrac = snapshotted(Reg(UInt(4 bits)) init 0)
      val intFull = snapshotted(RegInit(False))           // pK === 14 - decimals: no room for another integer digit
      val fracFull = snapshotted(RegInit(False))          // pFrac === decimals
      val pDot = snapshotted(RegInit(False))
      val pAny = snapshotted(RegInit(False))
      val pSig = snapshotted(RegInit(False))
      val pBad = snapshotted(RegInit(False))
      val pNeg = snapshotted(RegInit(False))              // a leading '-'
      val pNz = snapshotted(RegInit(False))               // a digit other than 0 (a negative price is below 0)
      val pHuge = snapshotted(RegInit(False))             // more integer digits than a stop has room for: above every stop
      val pAcc = snapshotted(Reg(UInt(OffloadFire.priceWidth bits)) init 0)  // the price's digits so far, BCD
      val padCnt = Reg(UInt(4 bits)) init 0
      val segW = Reg(UInt(6 bits)) init 0        // this segment: W messages committed, messages rejected
      val segErr = Reg(UInt(6 bits)) init 0
      // ---- stage B
      val isW = snapshotted(RegInit(False))
      val bad = snapshotted(RegInit(False))
      val firstField = snapshotted(RegInit(False))
      val had55 = snapshotted(RegInit(False))
      val symDone = snapshotted(RegInit(False))
      val had268 = snapshotted(RegInit(False))
      val n268 = snapshotted(Reg(UInt(9 bits)) init 0)
      val n269 = snapshotted(Reg(UInt(9 bits)) init 0)
      val inEntry = snapshotted(RegInit(False))
      val curTrade = snapshotted(RegInit(False))
      val cur270 = snapshotted(RegInit(False))
      // a trade entry's first 270 would be evaluated: the three flags above, combined in a register of their own (they
      // are set by fields that ended at least four bytes before the "=" that reads this, stage B's update visible two
      // cycles after the field's SOH, this a cycle later), so that the price's start is one LUT level shallower
      val tradePriceNext = RegNext(inEntry && curTrade && !cur270) init False
      // tag classes as the digits come
      val C_EMPTY = 0; val C_OTHER = 1; val C_8 = 2; val C_9 = 3; val C_10 = 4; val C_35 = 5; val C_55 = 6
      val C_268 = 7; val C_269 = 8; val C_270 = 9

      // The CheckSum's three digits, from the running sum (two register stages, ready long before "10=ddd").
      val csumH = RegNext((csum >= 200) ? U(2, 2 bits) | ((csum >= 100) ? U(1, 2 bits) | U(0, 2 bits))) init 0
      val csumR = RegNext((csum >= 200) ? (csum - 200) | ((csum >= 100) ? (csum - 100) | csum)) init 0
      val tensNow = UInt(4 bits)
      tensNow := 0
      for (k <- 1 to 9) when(csumR >= 10 * k) { tensNow := k }
      val csumTens = RegNext(tensNow) init 0
      val csumOnes = RegNext((csumR - (tensNow.resize(8) |<< 3) - (tensNow.resize(8) |<< 1)).resize(4)) init 0
      val csumHund = RegNext(csumH) init 0

      // Stage A's events of this cycle (stream time)
      val evMsgStart = Bool(); evMsgStart := False
      // the lookup rows, from the state and the predecoded byte only (stage B's events decide whether they count):
      //   symbol: position @@ (character - 0x20), or @@ 0 at the SOH; price: digits so far @@ class of the byte
      val symAddr = valLen(2 downto 0) @@ (isSoh ? U(0, 6 bits) | (b - 0x20)(5 downto 0))
      val priceAddr = pK @@ (isDig ? dig | (isSoh ? (pDot ? U(CL_END_FRAC, 4 bits) | U(CL_END_NODOT, 4 bits)) | U(CL_DOT, 4 bits)))
      val evCommit = Bool()
      val evRejected = Bool(); evRejected := False
      val accStep = Bool(); accStep := False
      val priceStartA = Bool(); priceStartA := False
      // for stage B
      val aBodyStart = Bool(); aBodyStart := False       // BodyLength's SOH: a body starts
      val aBad = Bool(); aBad := False                   // the message is malformed at this byte
      val aTagEnd = Bool(); aTagEnd := False             // the "=" after a tag (its class: tagPre)
      val aEvalPrice = Bool(); aEvalPrice := False       //   and it is a trade entry's first 270
      val aValEnd = Bool(); aValEnd := False             // the SOH after a value (its field: tagCls)
      val aValChar = Bool(); aValChar := False           // a character of a value
      val aPriceLook = Bool(); aPriceLook := False       //   a price character with a table row (digit or "."),
      val aPriceDigit = Bool(); aPriceDigit := False     //   of them a digit
      val aTrailer0 = Bool(); aTrailer0 := False         // the CheckSum field's first byte

      def satInc(x: UInt): Unit = when(x =/= x.maxValue) { x := x + 1 }

      when(feed) {
        commitReady := False     // (set by the CheckSum's last digit only: then mode and lit say "the SOH is next")
        switch(mode) {
          is(M_HUNT) {
            when(prevSoh && in1.is8) {
              mode := M_BEGIN; lit := 1; csum := 0x38; evMsgStart := True
            }
            prevSoh := isSoh
          }
          is(M_BEGIN) {
            when(in1.beginMatch.resize(16)(lit)) {
              csum := csum + b; lit := lit + 1
              when(lit === 11) { mode := M_BODYLEN; bodyLeft := 0; blDigits := 0 }
            } otherwise { mode := M_HUNT; prevSoh := isSoh }
          }
          is(M_BODYLEN) {
            csum := csum + b
            when(isDig && !(blDigits === 0 && dig === 0) && blDigits =/= 5) {
              bodyLeft := ((bodyLeft |<< 3) + (bodyLeft |<< 1) + dig).resized
              blDigits := blDigits + 1
            } elsewhen (isSoh && blDigits =/= 0) {
              mode := M_BODY
              bodyLast := bodyLeft === 1
              aBodyStart := True
              fTag := True; tagLen := 0; tagBcd := 0; tagPre := C_EMPTY
            } otherwise { mode := M_HUNT; prevSoh := isSoh }
          }
          is(M_BODY) {
            csum := csum + b
            bodyLeft := bodyLeft - 1
            bodyLast := bodyLeft === 2
            when(fTag) {
              when(isDig) {
                when(tagLen === 0 && dig === 0) { aBad := True }
                tagBcd := tagBcd(3 downto 0) ## dig.asBits
                when(tagLen =/= 4) { tagLen := tagLen + 1 }
                // the class of the tag with this digit
                val two = tagBcd(3 downto 0) ## dig.asBits
                val three = tagBcd ## dig.asBits
                tagPre := C_OTHER
                switch(tagLen) {
                  is(0) { when(dig === 8) { tagPre := C_8 } elsewhen (dig === 9) { tagPre := C_9 } }
                  is(1) {
                    when(two === B"x10") { tagPre := C_10 } elsewhen (two === B"x35") { tagPre := C_35 } elsewhen (two === B"x55") { tagPre := C_55 }
                  }
                  is(2) {
                    when(three === B"x268") { tagPre := C_268 } elsewhen (three === B"x269") { tagPre := C_269 } elsewhen (three === B"x270") { tagPre := C_270 }
                  }
                  default {}
                }
              } elsewhen (in1.isEq) {
                aTagEnd := True
                val evalPrice = tagPre === C_270 && tradePriceNext
                aEvalPrice := evalPrice
                tagCls := T_OTHER
                when(tagPre === C_35) { tagCls := T_35 }
                when(tagPre === C_55) { tagCls := T_55 }
                when(tagPre === C_268) { tagCls := T_268 }
                when(tagPre === C_269) { tagCls := T_269 }
                when(evalPrice) { tagCls := T_270 }
                fTag := False; valLen := 0; wCand := False; tradeCand := False
                when(evalPrice) {
                  priceStartA := True
                  pK := 0; pFrac := 0; pDot := False; pAny := False; pSig := False; pBad := False
                  pNeg := False; pNz := False; pHuge := False
                  intFull := maxIntDigits === 0; fracFull := cfgDecimals === 0
                }
              } otherwise {
                aBad := True
                when(isSoh) { tagLen := 0; tagBcd := 0; tagPre := C_EMPTY }
              }
            } otherwise {
              when(isSoh) {
                aValEnd := True
                when(valLen === 0) { aBad := True }
                when(tagCls === T_270 && !pBad && pAny) {
                  padCnt := cfgDecimals - pFrac     // pad the fraction to the implied decimals
                }
                fTag := True; tagLen := 0; tagBcd := 0; tagPre := C_EMPTY
              } otherwise {
                aValChar := True
                satInc(valLen)
                switch(tagCls) {
                  is(T_35) { wCand := valLen === 0 && in1.isWch }
                  is(T_269) { tradeCand := valLen === 0 && in1.isTrade }
                  is(T_270) {
                    when(!pBad) {
                      when(isDig) {
                        pAny := True
                        when(dig =/= 0) { pNz := True }
                        when(pDot || pSig || dig =/= 0) {
                          pSig := True
                          when(pHuge) {
                            // above every stop already: nothing more to compare or accumulate
                          } elsewhen (pDot && fracFull) {
                            // past the implied decimals: compared exactly, never rounded (row k is past the stop's
                            // last digit, so a digit other than 0 is above a stop equal so far), not accumulated
                            // (the logged price is the value truncated to the decimals)
                            aPriceLook := True; aPriceDigit := True
                          } elsewhen (!pDot && intFull) {
                            // more integer digits than any stop: k = 15, whose '.' and end rows say "above"
                            pHuge := True; pK := 15
                          } otherwise {
                            accStep := True
                            aPriceLook := True; aPriceDigit := True
                            pK := pK + 1
                            intFull := pK + 1 === maxIntDigits
                            when(pDot) { pFrac := pFrac + 1; fracFull := pFrac + 1 === cfgDecimals }
                          }
                        }
                      } elsewhen (in1.isDot && !pDot) {
                        pDot := True
                        aPriceLook := True
                      } elsewhen (in1.isMinus && valLen === 0) {
                        pNeg := True
                      } otherwise { pBad := True }
                    }
                  }
                  default {}
                }
              }
            }
            when(bodyLast) {
              when(fTag || !isSoh || valLen === 0) { aBad := True }
              mode := M_TRAILER; lit := 0
            }
          }
          is(M_TRAILER) {
            // "10=" ddd SOH; the digits against the running sum's, the commit decided at the third digit
            val litOk = Bool()
            litOk := False
            switch(lit) {
              is(0) { litOk := in1.is1 }
              is(1) { litOk := in1.is0 }
              is(2) { litOk := in1.isEq }
              is(3, 4, 5) { litOk := isDig }
              is(6) { litOk := isSoh }
              default {}
            }
            when(lit === 0) { aTrailer0 := True }
            when(!litOk) {
              mode := M_HUNT; prevSoh := isSoh; evRejected := True
            } otherwise {
              lit := lit + 1
              when(lit === 3) { cokAcc := dig === csumHund.resize(4) }
              when(lit === 4) { cokAcc := cokAcc && dig === csumTens }
              // (isW and bad: stage B has them up to the digit before the last but one; the body ended 5 bytes ago)
              when(lit === 5) { commitReady := isW && !bad && cokAcc && dig === csumOnes }
              when(lit === 6) {
                mode := M_HUNT; prevSoh := True
                when(!commitReady && isW) { evRejected := True }
              }
            }
          }
        }
      }
      // the commit: the SOH of "10=ddd" when the digits and the message were right (decided at the third digit)
      evCommit := isSoh && commitReady
      // the per-segment counts, a cycle later
      when(RegNext(feed && evCommit) init False) { satInc(segW) }
      when(RegNext(feed && evRejected) init False) { satInc(segErr) }
      when(RegNext(hdr.startSeg && v) init False) { segW := 0; segErr := 0 }

      // ---- stage B: stage A's events, registered
      val sb = new Area {
        def ev(x: Bool): Bool = RegNext(feed && x) init False
        val bodyStart = ev(aBodyStart)
        val setBad = ev(aBad)
        val tagEnd = ev(aTagEnd)
        val evalPrice = RegNext(aEvalPrice) init False
        val tag = RegNext(tagPre) init 0
        val valEnd = ev(aValEnd)
        val valChar = ev(aValChar)
        val cls = RegNext(tagCls) init 0
        val len = RegNext(valLen) init 0
        val wNow = RegNext(valLen === 1 && wCand) init False
        val tradeNow = RegNext(valLen === 1 && tradeCand) init False
        val usable = RegNext(!pBad && pAny) init False
        val priceLook = RegNext(aPriceLook) init False
        val priceDigit = RegNext(aPriceDigit) init False
        val isDigB = RegNext(isDig) init False
        val symCh = RegNext(isSymChar) init False
        val digB = RegNext(dig) init 0
        val trailer0 = ev(aTrailer0)
        val cyc = RegNext(in1.cyc) init 0      // the io.rx cycle of the byte
      }
      val evalOk = isW && !bad
      // the table's events, a cycle after the byte
      val evSymStart = Bool(); evSymStart := False
      val evSymLook = Bool(); evSymLook := False
      val evSymKill = Bool(); evSymKill := False
      val evPriceStart = Bool(); evPriceStart := False
      val evPriceLook = Bool(); evPriceLook := False
      val evPriceDigit = Bool(); evPriceDigit := False
      val evPriceEnd = Bool(); evPriceEnd := False
      when(sb.setBad) { bad := True }
      when(sb.bodyStart) {
        isW := False; bad := False; firstField := True; had55 := False; symDone := False; had268 := False
        n268 := 0; n269 := 0; inEntry := False; curTrade := False; cur270 := False
      }
      when(sb.tagEnd) {
        val t35 = sb.tag === C_35
        val t55 = sb.tag === C_55
        val t268 = sb.tag === C_268
        val t269 = sb.tag === C_269
        val t270 = sb.tag === C_270
        when(sb.tag === C_EMPTY || (firstField =/= t35) || sb.tag === C_8 || sb.tag === C_9 || sb.tag === C_10) { bad := True }
        firstField := False
        when(t55) { when(had55) { bad := True }; had55 := True }
        when(t268) { when(had268) { bad := True }; had268 := True; n268 := 0 }
        when(t269) { satInc(n269); inEntry := True; curTrade := False; cur270 := False }
        when(t270) { when(!inEntry || cur270) { bad := True }; cur270 := True }
        when(t55 && !had55 && evalOk) { evSymStart := True }
        when(sb.evalPrice && evalOk) { evPriceStart := True }
      }
      when(sb.valEnd) {
        switch(sb.cls) {
          is(T_35) { isW := sb.wNow }
          is(T_269) { curTrade := sb.tradeNow }
          is(T_55) {
            symDone := True
            when(evalOk && sb.len < symChars) { evSymLook := True }
          }
          is(T_270) {
            when(evalOk) {
              evPriceEnd := sb.usable
              when(sb.usable) { evPriceLook := True }
            }
          }
          default {}
        }
      }
      when(sb.valChar) {
        switch(sb.cls) {
          is(T_268) {
            when(!sb.isDigB || n268 > 25 || (n268 === 25 && sb.digB > 5)) { bad := True }
            n268 := ((n268 |<< 3) + (n268 |<< 1) + sb.digB).resized
          }
          is(T_55) {
            when(evalOk) {
              when(sb.len < symChars && sb.symCh) { evSymLook := True } otherwise { evSymKill := True }
            }
          }
          is(T_270) {
            when(evalOk) { evPriceLook := sb.priceLook; evPriceDigit := sb.priceDigit }
          }
          default {}
        }
      }
      when(sb.trailer0 && (!had268 || n268 =/= n269 || !symDone)) { bad := True }

      // The price's digits as BCD (the fixed-point value's decimal digits, the last in bits 3:0): each significant
      // digit a cycle after it comes, then the padding steps (zeros up to the implied decimals); the trade log takes
      // the last padding step's result directly (padCnt is at most 1 eight cycles after the SOH). A shift, no
      // arithmetic: the logged price is for firmware's report (the crossing is decided by the table, exactly), and
      // firmware converts it to binary. (It was binary fixed point: a 48-bit multiply-by-ten-and-add, which was the
      // i5's eth_rx critical path at every placement, 128.7 MHz at the last.)
      val accStepR = RegNext(feed && accStep) init False
      // the byte's digit, registered whatever the byte (a digit's condition, accStep, is the scanner's deepest logic:
      // as this register's reset it was the i5's eth_rx critical path); 0 is shifted in on the padding steps
      val digitR = RegNext(in1.dig) init 0
      val accDigitR = accStepR ? digitR | U(0, 4 bits)
      // never at the same time as a digit (prices are >= 10 bytes apart); padCnt =/= 0 as a register of its own
      val padStep = RegNext(padCnt.getAheadValue() =/= 0) init False
      when(padStep) { padCnt := padCnt - 1 }
      val shifted = (pAcc |<< 4).resize(OffloadFire.priceWidth) | accDigitR.resize(OffloadFire.priceWidth)
      when(accStepR || padStep) { pAcc := shifted }
      // cleared a cycle after the price's "=" (its first digit is shifted in a cycle after it comes)
      when(RegNext(feed && priceStartA) init False) { pAcc := 0 }
      val priceFinal = padStep ? shifted | pAcc
      val endStamp = RegNextWhen(sb.cyc, evPriceEnd) init 0
      // the logged price of a price past every stop is all ones, of a negative one 0 (the crossing is exact)
      val endHuge = RegNextWhen(pHuge, evPriceEnd) init False
      val endNeg = RegNextWhen(pNeg && pNz, evPriceEnd) init False
      val priceLogged = endNeg ? U(0, OffloadFire.priceWidth bits) | (endHuge ? U(OffloadFire.priceWidth bits, default -> True) | priceFinal)
    }


    // -------------------------------------------------------------------------------------------
    // Trigger table
    val table = new Area {
      // Lookup tables in block RAM, one row per (position, input), read once per byte:
      //   symbol: row = position(3) @@ code(6), code = byte - 0x20 for 0x21..0x5F, 0 = the SOH ending the symbol;
      //           bit j = entry j's symbol has this character at this position (or ends here).
      //   price:  row = k(4) @@ class(4), k = significant digits before this input, class = digit 0..9, '.',
      //           SOH without '.', SOH after '.'; 2 bits per entry, written from the entry's point of view (a
      //           sell stop's table is mirrored) -- see README "Price comparison":
      //           digit rows: 00 same digit, 01 the price is below (LT'), 10 above (GT'); '.' rows: 00 same
      //           number of integer digits, 01 fewer, 10 more; end rows: the crossing as a function of the state,
      //           00 not LT', 01 GT', 10 always, 11 never.
      val symMem = new TableRam(9, N)          // 512 rows
      val priceMem = new TableRam(8, 2 * N)    // 256 rows
      val symRdEn = Bool()
      val symRdAddr = UInt(9 bits)
      val priceRdEn = Bool()
      val priceRdAddr = UInt(8 bits)
      // The read address comes from registers (the scanner's predecoded byte and state, by a LUT or two); the data
      // leave the RAM through its output register (TableRam) and are registered once more: a row is in
      // symRow2/priceRow2 three cycles after the byte. A read of the row the engine writes in the same cycle gets
      // the written row: the RAMs do not handle it (TableRam), the substitution comes before that last register.
      val symWr = Flow(TableRowWrite(9, N))
      val priceWr = Flow(TableRowWrite(8, 2 * N))
      def rowOf(mem: TableRam, addr: UInt, en: Bool, wr: Flow[TableRowWrite]): Bits = {
        mem.io.we := wr.valid; mem.io.wa := wr.address; mem.io.wd := wr.data
        // The RAM reads every cycle (its clock enable tied high): a row is used only where a flag says its read
        // was wanted (`en`, which the write substitution below still follows). The enable from `feed` and the
        // engine's go was the eth_rx critical path on the 5A-75B (v -> feed -> go -> CEB, mostly routing).
        mem.io.re := True; mem.io.ra := addr
        val ram1 = mem.io.rd                   // two cycles after the address (the RAM's output register)
        val a1 = RegNext(addr)
        val e1 = RegNext(en) init False
        val wv1 = RegNext(wr.valid) init False
        val wa1 = RegNext(wr.address)
        val hit = RegNext(e1 && wv1 && wa1 === a1) init False
        val wd = RegNext(RegNext(wr.data))
        RegNext(hit ? wd | ram1)
      }
      val symRow2 = rowOf(symMem, symRdAddr, symRdEn, symWr)
      val priceRow2 = rowOf(priceMem, priceRdAddr, priceRdEn, priceWr)

      // Events into the per-entry state, and their pipeline.
      val inSymStart, inSymLook, inSymKill, inPriceStart, inPriceLook, inPriceDot, inPriceEnd, inPriceNeg = Bool()
      // (the in* events come from the scanner's stage B, a cycle after the byte: lag 2 after one register)
      val symStart1 = RegNext(inSymStart) init False
      val symLook1 = RegNext(inSymLook) init False
      val symKill1 = RegNext(inSymKill) init False
      val priceStart1 = RegNext(inPriceStart) init False
      val priceLook1 = RegNext(inPriceLook && !inPriceEnd) init False
      val priceDot1 = RegNext(inPriceDot) init False
      val priceEnd1 = RegNext(inPriceEnd) init False
      val priceNeg1 = RegNext(inPriceNeg) init False
      val msgStart1 = RegNext(RegNext(feed && scan.evMsgStart) init False) init False
      val symDone1 = RegNext(scan.symDone) init False     // (stage B: already a cycle late)
      val symStart2 = RegNext(symStart1) init False
      val symLook2 = RegNext(symLook1) init False
      val symKill2 = RegNext(symKill1) init False
      val priceStart2 = RegNext(priceStart1) init False
      val priceLook2 = RegNext(priceLook1) init False
      val priceDot2 = RegNext(priceDot1) init False
      val priceEnd2 = RegNext(priceEnd1) init False
      val priceNeg2 = RegNext(priceNeg1) init False
      val msgStart2 = RegNext(msgStart1) init False
      val symDone2 = RegNext(symDone1) init False
      val endDelay = History(scan.evPriceEnd, 8, init = False)   // endDelay(7): 8 cycles after the price's SOH

      // Per-entry state.
      val allOnes = B(BigInt(2).pow(N) - 1, N bits)
      val S = snapshotted(Reg(Bits(N bits)) init 0)          // symbol matches (message in progress)
      val dec = snapshotted(Reg(Bits(N bits)) init 0)        // price comparison decided (else equal so far)
      val ltv = snapshotted(Reg(Bits(N bits)) init 0)        // decided: LT' (else GT')
      val C = snapshotted(Reg(Bits(N bits)) init 0)          // crossed by a trade price of the message in progress
      val elig = snapshotted(Reg(Bits(N bits)) init 0)       // armed since the message in progress started
      val trig = snapshotted(Vec.fill(N)(Reg(UInt(4 bits)) init 0)) // trade log slot of the first crossing (15: none)
      val P = Reg(Bits(N bits)) init 0                        // pending: committed in this segment
      val NP = Reg(Bits(N bits)) init 0; val E = config.early generate (Reg(Bits(N bits)) init 0)   // NP: what the message in progress would add to P; E: the entry fired early in this segment (early builds)
      val armed = Reg(Bits(N bits)) init 0
      val oneShot = Reg(Bits(N bits)) init 0
      val sell = Reg(Bits(N bits)) init 0                     // sell stops (a negative price crosses them all)
      val tmplMem = Mem(UInt(4 bits), N)
      // Trade log: a ring of 15 slots, [tail, head) live; msgStartHead: head when the message in progress started.
      val head = snapshotted(Reg(UInt(4 bits)) init 0)
      val tail = snapshotted(Reg(UInt(4 bits)) init 0)
      val msgStartHead = snapshotted(Reg(UInt(4 bits)) init 0)
      def next(x: UInt): UInt = (x === logSlots - 2) ? U(0, 4 bits) | x + 1
      val tradeLog = Mem(Bits(OffloadFire.priceWidth + 32 bits), logSlots)

      // lag 3: symbol match, price comparison, and whether the price just ended crosses (registered)
      // (the resets -- symbol killed, new message, new price -- are in snapshotControl, after the restore)
      when(symStart2) { S := allOnes }
      when(symLook2) { S := S & symRow2 }
      val crossR = Reg(Bits(N bits)) init 0
      for (j <- 0 until N) {
        val code = priceRow2(2 * j + 1 downto 2 * j)
        val take = priceLook2 && (priceDot2 || !dec(j)) && code =/= 0
        when(take) { dec(j) := True; ltv(j) := code(0) }
        val crossing = code.mux(0 -> !(dec(j) && ltv(j)), 1 -> (dec(j) && !ltv(j)), 2 -> True, 3 -> False)
        crossR(j) := priceEnd2 && (priceNeg2 ? sell(j) | crossing) && elig(j)
      }
      val msgStart3 = RegNext(msgStart2) init False
      val sClear = RegNext(symKill1 || msgStart2) init False   // symKill2 || msgStart3, as one register
      val symDone3 = RegNext(symDone2) init False
      // lag 4: the crossing joins C; the first crossing of the message, for an entry not already pending, names
      // the trade log slot; a new message resets the crossings and takes the entries armed now
      // (registered: head and tail do not change within ten cycles of a price's end)
      val full = RegNext(next(head) === tail) init False
      val slotNext = RegNext(full ? U(logSlots - 1, 4 bits) | head) init 0
      val newCross = crossR & ~C & ~P
      C := C | crossR
      for (j <- 0 until N) when(newCross(j)) { trig(j) := slotNext }
      when(msgStart3) { elig := armed; msgStartHead := head } otherwise { elig := elig & armed }
      val anyRel3 = RegNext((newCross & (S | (symDone3 ? B(0, N bits) | allOnes))).orR) init False
      val full3 = full
      // lag 5: allocate the trade log slot; lag 8: write it (the price is padded to the implied decimals by then)
      val logSlot = Reg(UInt(4 bits)) init 0
      val logPend = RegInit(False)
      when(anyRel3 && !full3) { head := next(head); logSlot := head; logPend := True }
      val tradeLogWrite = Flow(MemWriteCmd(tradeLog))
      tradeLogWrite.valid := logPend && endDelay(7)
      tradeLogWrite.address := logSlot
      tradeLogWrite.data := scan.priceLogged ## scan.endStamp
      tradeLog.write(tradeLogWrite.address, tradeLogWrite.data, tradeLogWrite.valid)
      when(endDelay(7)) { logPend := False }

      // lag 0: a message commits (the SOH of its CheckSum field): its matches join the pending set
      NP := S & C & elig
      when(feed && scan.evCommit) { P := P | NP }
    }

    // (stage B's events: a cycle after the byte)
    table.inSymStart := scan.evSymStart
    table.inSymLook := scan.evSymLook
    table.inSymKill := scan.evSymKill
    table.inPriceStart := scan.evPriceStart
    table.inPriceLook := scan.evPriceLook
    table.inPriceDot := scan.evPriceLook && !scan.evPriceDigit && !scan.evPriceEnd
    table.inPriceEnd := scan.evPriceEnd
    table.inPriceNeg := scan.evPriceEnd && scan.pNeg && scan.pNz

    // -------------------------------------------------------------------------------------------
    // End of frame: fire sequencer (t+1, the last byte in scanner time) and housekeeping (t+11)
    val eofR = eof                         // t+1: the parser and the scanner have the segment's last byte
    val ackSeqR = RegNextWhen(hdr.nextSeq, eof) init 0

    val fireSeq = new Area {
      import table._
      def lowest(x: Bits): (Bits, Bits) = { val m1 = (x.asUInt - 1).asBits; (x & ~m1, x & m1) }
      def slotOf(oh: Bits): UInt = (0 until N).map(j => oh(j) ? trig(j) | U(0, 4 bits)).reduceBalancedTree(_ | _)
      // The fires are prepared before the segment ends, for both outcomes of its last byte: from the pending set as
      // it is (P), and from the pending set with the message in progress committed (P | S & (C | crossR) & elig,
      // what P | NP will be). Three register stages: the set; the lowest entry and the rest; then its number and
      // trade log slot, and the next lowest entry and the rest. In the cycle of the last byte (t+1) the byte's
      // commit selects. They hold what the last byte needs because nothing they read changes in the three cycles
      // before it: P only at a commit (then P | S & C & elig is still what it was, and a commit in the last four
      // cycles selects it), S, C | crossR and trig at most five cycles after a symbol's or price's SOH, which is at
      // least seven before a commit.
      class Prep(x: Bits) extends Area {
        val xr = RegNext(x) init 0
        val (l1, r1) = lowest(xr)
        val low1 = RegNext(l1) init 0
        val rest1 = RegNext(r1) init 0
        val idx1 = RegNext(OHToUInt(low1)) init 0
        val slot1 = RegNext(slotOf(low1)) init 0
        val valid1 = RegNext(low1 =/= 0) init False
        val (l2, r2) = lowest(rest1)
        val low2 = RegNext(l2) init 0
        val rest2 = RegNext(r2) init 0
        val idx2 = RegNext(OHToUInt(low2)) init 0
        val slot2 = RegNext(slotOf(low2)) init 0
        val valid2 = RegNext(low2 =/= 0) init False
        val (l3, r3) = lowest(rest2)
        val low3 = RegNext(l3) init 0
        val rest3 = RegNext(r3) init 0
      }
      val prepP = new Prep(if (config.early) P & ~E else P)   // (an entry fired early in this segment is not fired again at its end)
      val prepPN = new Prep(if (config.early) (P | (S & (C | crossR) & elig)) & ~E else P | (S & (C | crossR) & elig))
      val commitNow = feed && scan.evCommit
      val commit1 = RegNext(commitNow) init False
      val commit2 = RegNext(commit1) init False
      val commit3 = RegNext(commit2) init False
      // t+1 (the last byte): which outcome; t+2: the prepared entries of that outcome go to the fire register and
      // the sequencer (one cycle on, they hold what the last byte needs by the same argument, a cycle later)
      val selR = RegNextWhen(commitNow || commit1 || commit2 || commit3, eofR) init False
      val eofRR = RegNext(eofR) init False
      val drop = eofRR && !hdr.segGood2       // t+2: the segment turned out bad (the TCP checksum's verdict)
      val dropR = RegNext(drop) init False
      val dropRR = RegNext(dropR) init False
      val idx1 = selR ? prepPN.idx1 | prepP.idx1
      val slot1 = selR ? prepPN.slot1 | prepP.slot1
      val valid1 = selR ? prepPN.valid1 | prepP.valid1
      val idx2 = selR ? prepPN.idx2 | prepP.idx2
      val slot2 = selR ? prepPN.slot2 | prepP.slot2
      val valid2 = selR ? prepPN.valid2 | prepP.valid2
      val low3 = selR ? prepPN.low3 | prepP.low3
      val rest3 = selR ? prepPN.rest3 | prepP.rest3
      // The entry firing next (its number and slot) and the one after (one-hot), and the rest.
      val idx = Reg(UInt(log2Up(N) bits)) init 0
      val slot = Reg(UInt(4 bits)) init 0
      val idxValid = RegInit(False)
      val low = Reg(Bits(N bits)) init 0
      val rest = Reg(Bits(N bits)) init 0
      val (lowN, restN) = lowest(rest)
      when(eofRR) {
        idx := idx2
        slot := slot2
        idxValid := valid2
        low := low3
        rest := rest3
      } otherwise {
        idx := OHToUInt(low)
        slot := slotOf(low)
        idxValid := low =/= 0
        low := lowN
        rest := restN
      }
      when(dropR) { low := 0; rest := 0 }
      // the entry going into the fire register this cycle
      val curIdx = eofRR ? idx1 | idx
      val curSlot = eofRR ? slot1 | slot
      val curValid = eofRR ? valid1 | idxValid
      // the commit of the fired entries (one-shot entries disarm): in t+2, when P has the last byte's commit
      val fireCommit = eofRR && hdr.segGood2
      // Fire register: the template, the trade log record (the price's record may be written in this very cycle).
      val logWr = tradeLogWrite.valid && tradeLogWrite.address === curSlot
      val rec = logWr ? tradeLogWrite.data | tradeLog.readAsync(curSlot)
      // (a bad segment's verdict comes in t+2; it holds back the fires of t+3..t+5, later ones are not prepared)
      val fireV = RegNext(curValid && !drop && !dropR && !dropRR) init False
      val fireP = Reg(OffloadFire())
      fireP.trigger := curIdx.resized
      fireP.template := tmplMem.readAsync(curIdx)
      fireP.ackSeq := ackSeqR
      fireP.price := rec(OffloadFire.priceWidth + 31 downto 32).asUInt
      fireP.stamp := rec(31 downto 0).asUInt
      fireP.recordValid := curSlot =/= logSlots - 1
      io.fire.valid := fireV
      io.fire.payload := fireP
      val seqZero = (RegNext(low === 0) init True) && (RegNext(rest === 0) init True)   // one cycle late: eofR, eofRR and idxValid cover it
      val idle = !eofR && !eofRR && seqZero && !idxValid && !fireV
    }

    val hk = new Area {
      val cnt = Reg(UInt(4 bits)) init 0
      val accepted = RegInit(False)
      val good = RegInit(False)
      val kind = Reg(UInt(3 bits)) init 0
      val nextSeq = Reg(UInt(32 bits)) init 0
      val fin = RegInit(False)
      when(eof) { nextSeq := hdr.nextSeq; fin := hdr.fin }
      when(fireSeq.eofRR) {      // t+2, with the TCP checksum's verdict
        cnt := 9; accepted := hdr.eofAccept; good := hdr.segGood2; kind := hdr.kind2
      } elsewhen (cnt =/= 0) { cnt := cnt - 1 }
      val now = cnt === 1
      // registered, decided a cycle before: they fan out to every snapshotted register
      val commit = RegNext(cnt === 2 && accepted && good) init False
      val restore = RegNext(cnt === 2 && accepted && !good) init False
      // After a good segment only the trade log slots of the message still in progress stay live.
      val newTail = (scan.mode =/= M_HUNT) ? table.msgStartHead | table.head
      when(commit) {
        rcvNxt := nextSeq
        when(fin) { closed := True }
      }
      when(now) { table.P := 0 }

      // Counter event: once the fires of the segment are out.
      val evPending = RegInit(False)
      val ev = Reg(OffloadRxEvent())
      when(eofR) { ev.fires := 0 } elsewhen (fireSeq.fireV && ev.fires =/= 127) { ev.fires := ev.fires + 1 }
      when(now && kind =/= Kind.NONE) {
        evPending := True
        ev.kind := kind
        ev.wMsgs := (accepted && good) ? scan.segW | U(0, 6 bits)
        ev.fixErrors := (accepted && good) ? scan.segErr | U(0, 6 bits)
      }
      // (pushed once the segment's fires are out; "idle" seen a cycle before, when no new fire could start)
      val evReady = RegNext(fireSeq.idle && cnt === 0) init False
      eventFifo.io.push.valid := evPending && evReady
      eventFifo.io.push.payload := ev
      when(eventFifo.io.push.fire) { evPending := False }
      val idle = cnt === 0

      fireFifo.io.push.valid := fireSeq.fireV
      fireFifo.io.push.trigger := fireSeq.fireP.trigger
      fireFifo.io.push.template := fireSeq.fireP.template
      fireFifo.io.push.recordValid := fireSeq.fireP.recordValid
      fireFifo.io.push.price := fireSeq.fireP.price
      fireFifo.io.push.stamp := fireSeq.fireP.stamp
      val drops = Reg(UInt(4 bits)) init 0     // fire records lost (log full), Gray-coded to sys
      when(fireFifo.io.push.valid && !fireFifo.io.push.ready) { drops := drops + 1 }
      val dropsGray = RegNext(toGray(drops)) init 0
    }

    // -------------------------------------------------------------------------------------------
    // Digestion (DigestRx): the scanner's bytes, the segment's verdict from the housekeeping, a descriptor per good
    // segment with payload to sys. (Its reset and resynchronisation come from the commands, below.)
    val digestion = config.digest generate new Area {
      val enable = RegInit(False)
      val ours = Reg(Bits(128 bits)) init 0
      val theirs = Reg(Bits(128 bits)) init 0
      val oursLen = Reg(UInt(5 bits)) init 0
      val theirsLen = Reg(UInt(5 bits)) init 0
      val unit = DigestRx()
      unit.io.enable := enable
      for (i <- 0 until DigestRx.maxCompId) {
        unit.io.ours(i) := ours(8 * i + 7 downto 8 * i)
        unit.io.theirs(i) := theirs(8 * i + 7 downto 8 * i)
      }
      unit.io.oursLen := oursLen
      unit.io.theirsLen := theirsLen
      unit.io.byte.valid := feed
      unit.io.byte.payload := b.asBits
      // the verdict as soon as the TCP checksum's is known (t+2), long before the scanner's housekeeping: its own
      // snapshot is independent of the scanner's, and the frame buffers wait for this verdict before they commit
      unit.io.end.valid := fireSeq.eofRR && hdr.eofAccept
      unit.io.end.good := hdr.segGood2
      unit.io.end.seqStart := rcvNxt       // (the housekeeping moves it on later)
      unit.io.position := rcvNxt
      unit.io.sync.valid := False
      unit.io.sync.payload.position := sysCmd.dg.xPos
      unit.io.sync.payload.msgSeq := sysCmd.dg.xMsg
      digestFifo.io.push.valid := unit.io.desc.valid
      digestFifo.io.push.payload := unit.io.desc.payload
      unit.io.room := digestFifo.io.push.ready
      io.digested := digestFifo.io.push.fire && unit.io.desc.digested
      val drops = Reg(UInt(4 bits)) init 0     // descriptors that found the FIFO full, Gray-coded to sys
      when(unit.io.overflow) { drops := drops + 1 }
      val dropsGray = RegNext(toGray(drops)) init 0
    }

    // -------------------------------------------------------------------------------------------
    // Commands from sys, applied between frames; the table programming engine.
    val ctl = new Area {
      val x = sysCmd
      val reqSync = BufferCC(x.reqToggle, False)
      val reqPrev = RegNext(reqSync) init False
      val ackToggle = RegInit(False)
      val result = Reg(Bits(16 bits)) init 0
      val resultSeq = Reg(UInt(32 bits)) init 0
      // between frames, everything of the last segment done (registered: a frame that starts in the next two cycles
      // cannot notice the command's effect, see PRE below)
      val idlePoint = RegNext(!hdr.inFrame && !io.rx.valid && !v && !eofR && hk.idle && fireSeq.idle) init False
      val entry = x.xEntry.resize(log2Up(N))
      // The entry as one-hot, registered (the transfer registers are stable while the command runs).
      val entryR = RegNext(entry) init 0
      val tok = RegNext(UIntToOh(entryR, N)) init 1
      val entryOh = tok
      val scannerResetNow = Bool(); scannerResetNow := False
      val scannerReset = RegNext(scannerResetNow) init False   // takes effect a cycle later (fans out widely)
      if (config.digest) digestion.unit.io.reset := scannerReset       // (the stream moved: digestion unsynced)
      val applied = Bool(); applied := False     // a command changed state (then the snapshot follows it)
      val armSet, armClr, armClrAll, post = Bool()
      armSet := False; armClr := False; armClrAll := False; post := False
      val ackDelay = Reg(UInt(2 bits)) init 0
      val st = RegInit(EngState.IDLE)
      // stop price conversion (double dabble) and normalisation (digits of the stop from its first significant one)
      val bcd = Reg(Bits(60 bits)) init 0
      val steps = Reg(UInt(6 bits)) init 0
      val stopSh = Reg(Bits(48 bits)) init 0     // the stop, shifted out MSB first into the conversion
      val ls = Reg(UInt(4 bits)) init 0          // significant integer digits of the stop
      val normWait = RegInit(False)
      val normTooBig = RegNext(bcd(59 downto 56) =/= 0) init False
      val normTopZero = RegNext(bcd(55 downto 52) === 0) init False
      val normLsNz = RegNext(ls =/= 0) init False
      // digit i of the stop from the top (10^13 first); NORMALIZE shifts the leading zeros of the integer part out
      def digitTop(m: UInt): UInt = Vec((0 until 16).map(i => if (i < 14) bcd(55 - 4 * i downto 52 - 4 * i).asUInt else U(0, 4 bits)))(m)
      val symLen = Reg(UInt(4 bits)) init 0
      // Sweep: read-modify-write of the entry's bits in every row, on cycles the parser leaves free.
      val symPtr = Reg(UInt(10 bits)) init 0
      val pricePtr = Reg(UInt(9 bits)) init 0
      val sweeping = RegNext(st === EngState.SWEEP) init False   // (a cycle late: the pointers say when to stop)
      // (the engine takes the RAM when the beat slot is not the scanner's: hdr.feedR, a register, so that the
      // read address is selected by a register; an idle cycle inside the payload (MII-like) is left unused)
      val scanPort = hdr.feedR
      val engSymGo = sweeping && !symPtr(9) && !scanPort
      val engPriceGo = sweeping && !pricePtr(8) && !scanPort
      val rmwSym1 = RegNext(engSymGo) init False
      val rmwSym1b = RegNext(rmwSym1) init False
      val rmwSym2 = RegNext(rmwSym1b) init False
      val rmwPrice1 = RegNext(engPriceGo) init False
      val rmwPrice1b = RegNext(rmwPrice1) init False
      val rmwPrice2 = RegNext(rmwPrice1b) init False
      // (the scanner's byte reads its rows whether or not it looks them up: the lookup flags follow the row)
      table.symRdEn := feed || engSymGo
      table.symRdAddr := scanPort ? scan.symAddr | symPtr(8 downto 0)
      table.priceRdEn := feed || engPriceGo
      table.priceRdAddr := scanPort ? scan.priceAddr | pricePtr(7 downto 0)
      when(engSymGo) { symPtr := symPtr + 1 }
      when(engPriceGo) { pricePtr := pricePtr + 1 }

      when(reqSync =/= reqPrev) { st := EngState.TOKEN }
      // the command's comparisons, while the token turns (the transfer registers are stable)
      val decimalsBad = RegNext(x.xDecimals > maxDecimals) init False
      val decimalsChanged = RegNext(x.xDecimals =/= cfgDecimals) init False
      val maxIntNew = RegNext(U(maxDigits, 4 bits) - x.xDecimals) init maxDigits
      switch(st) {
        is(EngState.TOKEN) {
          st := EngState.PRE     // (a cycle: the one-hot entry follows the transfer register)
        }
        // Between frames (idlePoint, seen in the cycle before) the command is decided; it takes effect a cycle later,
        // which nothing in a frame that starts in between can notice: the header compares its fields with the
        // configuration from byte 6 on, and no payload byte comes within the first 54.
        is(EngState.PRE) { when(idlePoint) { st := EngState.PRE_APPLY } }
        is(EngState.PRE_APPLY) {
          {
            applied := True
            result := 0
            st := EngState.ACK
            switch(x.xOp) {
              is(Op.CONFIG) {
                when(decimalsBad) { result := 1 } otherwise {
                  cfgEnable := x.xEnable; cfgOurMac := x.xOurMac; cfgOurIp := x.xOurIp; cfgOurPort := x.xOurPort
                  cfgPeerIp := x.xPeerIp; cfgPeerPort := x.xPeerPort; cfgDecimals := x.xDecimals; cfgTradeType := x.xTradeType
                  maxIntDigits := maxIntNew
                  when(decimalsChanged) { armClrAll := True }
                  scannerResetNow := True
                  if (config.digest) {
                    val c = x.dg.xCfg
                    digestion.enable := c(0); digestion.oursLen := c(12 downto 8).asUInt; digestion.theirsLen := c(20 downto 16).asUInt
                    digestion.ours := x.dg.xOurs; digestion.theirs := x.dg.xTheirs
                  }
                }
              }
              if (config.digest) is(Op.DIGEST_SYNC) {
                // decided now (at the parser's position, between messages), taken 33 cycles later: before any
                // payload byte of a frame that starts meanwhile (none comes within its first 54)
                digestion.unit.io.sync.valid := True
                result := B(0, 15 bits) ## !digestion.unit.io.syncOk
              }
              is(Op.LOAD_SEQ) { rcvNxt := x.xRcvNxt; closed := False; scannerResetNow := True }
              is(Op.WRITE_ENTRY) {
                armClr := True
                bcd := 0; steps := 0; stopSh := x.xStop.asBits; st := EngState.CONVERT
                symLen := 8
                for (i <- 7 downto 0) when(x.xSym(8 * i + 7 downto 8 * i) === 0) { symLen := i }
              }
              is(Op.ARM) { armSet := True }
              is(Op.DISARM) {
                result := B(0, 15 bits) ## (table.armed & tok).orR
                armClr := True
              }
              is(Op.DISARM_ALL) { armClrAll := True }
              is(Op.READ_STATE) {
                result := B(0, 9 bits) ## scan.mode ## B(0, 2 bits) ## cfgEnable ## closed
                resultSeq := rcvNxt
              }
              default {}
            }
          }
        }
        is(EngState.CONVERT) {
          // double dabble: add 3 to every digit >= 5, then shift in the next bit
          val adj = Bits(60 bits)
          for (d <- 0 until 15) {
            val dd = bcd(4 * d + 3 downto 4 * d).asUInt
            adj(4 * d + 3 downto 4 * d) := ((dd >= 5) ? (dd + 3) | dd).asBits
          }
          bcd := adj(58 downto 0) ## stopSh(47)
          stopSh := stopSh |<< 1
          steps := steps + 1
          when(steps === 47) { st := EngState.NORMALIZE; ls := maxIntDigits; normWait := True }
        }
        is(EngState.NORMALIZE) {
          // every other cycle, from the digits' flags registered in the cycle between
          normWait := !normWait
          when(!normWait) {
            when(normTooBig) { result := 1; st := EngState.ACK }   // >= 10^14: refused, the entry stays disarmed
              .elsewhen(normLsNz && normTopZero) { bcd := bcd(55 downto 0) ## B"0000"; ls := ls - 1 }
              .otherwise { st := EngState.SWEEP; symPtr := 0; pricePtr := 0 }
          }
        }
        is(EngState.SWEEP) {
          when(symPtr(9) && pricePtr(8) && !rmwSym1 && !rmwSym1b && !rmwSym2 && !rmwPrice1 && !rmwPrice1b && !rmwPrice2) { st := EngState.POST }
        }
        is(EngState.POST) { when(idlePoint) { st := EngState.POST_APPLY } }
        is(EngState.POST_APPLY) {
          {
            applied := True
            post := True
            when(x.xArm) { armSet := True }
            st := EngState.ACK
          }
        }
        is(EngState.ACK) {
          // a few cycles, so that the armed/fired bits reach sys before the acknowledgement
          ackDelay := ackDelay + 1
          when(ackDelay === 3) { ackToggle := !ackToggle; st := EngState.IDLE }
        }
        default {}
      }

      // Entry flags: commands (between frames) and the fires.
      val entryBits = entryOh.asBits
      // (a cycle after the command's decision and the segment's verdict: they fan out to every entry)
      val fireCommitR = RegNext(fireSeq.fireCommit) init False
      val armSetR = RegNext(armSet) init False
      val armClrR = RegNext(armClr) init False
      val armClrAllR = RegNext(armClrAll) init False
      val fireClr = fireCommitR ? (table.P & table.oneShot) | B(0, N bits)
      table.armed := ((table.armed & ~fireClr & ~((armClrR || armClrAllR) ? (armClrAllR ? table.allOnes | entryBits) | B(0, N bits))) |
        (armSetR ? entryBits | B(0, N bits)))
      // The entry's other settings, a cycle after POST_APPLY too (the state's decode fans out to every entry), in the
      // cycle armSetR arms it: the transfer registers hold until the acknowledgement, four cycles later.
      val postR = RegNext(post) init False
      for (j <- 0 until N) when(postR && tok(j)) { table.oneShot(j) := x.xOneShot; table.sell(j) := x.xSell }
      table.tmplMem.write(entryR, x.xTmpl, postR)

      // The new bits of the entry for the row being read, computed from the row number in two registered
      // stages while the row is read, so that they are ready when it comes back (three cycles after the read).
      val symRow = RegNext(RegNext(RegNext(symPtr(8 downto 0))))
      val priceRow = RegNext(RegNext(RegNext(pricePtr(7 downto 0))))
      // symbol row (p, c): the entry's symbol has character c at position p, or ends there
      val p = symPtr(8 downto 6)
      val c = symPtr(5 downto 0)
      val symByteA = RegNext(x.xSym.subdivideIn(8 bits)(p).asUInt)
      val pA = RegNext(p)
      val cA = RegNext(c)
      val symBitB = RegNext((pA.resize(4) < symLen && symByteA >= 0x21 && symByteA <= 0x5F && (symByteA - 0x20)(5 downto 0) === cA) ||
        (pA.resize(4) === symLen && cA === 0))
      val symBit = RegNext(symBitB)
      val symNew = table.symRow2 & ~entryBits | (symBit ? entryBits | B(0, N bits))
      table.symWr.valid := rmwSym2; table.symWr.address := symRow; table.symWr.data := symNew

      // price row (k, class), from the entry's point of view (mirrored for a sell stop)
      val k = pricePtr(7 downto 4)
      val cl = pricePtr(3 downto 0)
      // the stop's digits from its first significant one: s_k = digit k from the top once normalised (0 past the end);
      // t: a digit from there on is not 0
      val m = k.resize(5)
      val nz = (0 until 14).map(i => bcd(55 - 4 * i downto 52 - 4 * i) =/= 0)
      val tnz = RegNext(Vec((0 until 14).map(i => nz.drop(i).reduceBalancedTree(_ || _)) ++ Seq.fill(18)(False)))   // (bcd is stable while sweeping)
      val sA = RegNext((m < 14) ? digitTop(m.resize(4)) | U(0, 4 bits))
      val tA = RegNext(tnz(m))
      val kLtA = RegNext(k < ls)
      val kGtA = RegNext(k > ls)
      val clA = RegNext(cl)
      val sell = x.xSell
      val below = Bool()    // this input makes the price smaller than the stop (digit / '.' rows)
      val above = Bool()
      below := False; above := False
      when(clA < 10) { below := clA < sA; above := clA > sA }
        .otherwise { below := kLtA; above := kGtA }
      val codeB = Bits(2 bits)
      codeB := 0
      when(clA < 10 || clA === CL_DOT) {
        when(below) { codeB := sell ? B"10" | B"01" }
          .elsewhen(above) { codeB := sell ? B"01" | B"10" }
      } elsewhen (clA === CL_END_NODOT) {
        // fewer integer digits: price < stop; more: price > stop; the same: as for END_FRAC
        when(below) { codeB := sell ? B"10" | B"11" }
          .elsewhen(above) { codeB := sell ? B"11" | B"10" }
          .elsewhen(!sell && tA) { codeB := B"01" }
      } elsewhen (clA === CL_END_FRAC) {
        when(!sell && tA) { codeB := B"01" }
      }
      val code = RegNext(RegNext(codeB))
      val codeMask = Vec((0 until N).flatMap(j => Seq(entryOh(j), entryOh(j)))).asBits
      val codeBits = Vec((0 until N).flatMap(j => Seq(code(0), code(1)))).asBits
      val priceNew = table.priceRow2 & ~codeMask | (codeBits & codeMask)
      table.priceWr.valid := rmwPrice2; table.priceWr.address := priceRow; table.priceWr.data := priceNew
    }

    // Snapshot commit/restore and scanner reset, last so that they win.
    val snapshotControl = new Area {
      def snapOf[T <: Data](w: T): T = snapPairs.find(_._1 eq w).get._2.asInstanceOf[T]
      // Between frames working state and snapshot are equal; a command that changes the working state (a
      // scanner reset, arming) is followed by a commit in the next cycle, so that a restore never undoes it.
      // (armed follows a command a cycle later, elig another cycle later)
      val resetCommit = RegNext(RegNext(RegNext(ctl.applied) init False) init False) init False
      when(hk.commit || resetCommit) { for ((w, s) <- snapPairs if !(w eq table.tail)) s := w }
      when(resetCommit) { snapOf(table.tail) := table.tail }
      when(hk.commit) { table.tail := hk.newTail; snapOf(table.tail) := hk.newTail }
      when(hk.restore) { for ((w, s) <- snapPairs) w := s }
      // resets that never coincide with a restore, last so that they can use the flip-flops' reset
      when(table.sClear) { table.S := 0 }
      when(table.msgStart3) { table.C := 0 }
      when(table.priceStart2) { table.dec := 0 }
      when(ctl.scannerReset) {
        for ((w, s) <- snapPairs if !(w eq table.trig)) {   // trig means nothing while C is clear
          val init: Data = if ((w eq scan.prevSoh) || (w eq scan.fTag)) True else w.getZero
          w := init
        }
        table.P := 0
      }
    }
  }

  // =============================================================================================
  // sys: command completion, status, counters, fire log
  val sysStatus = new Area {
    val x = sysCmd
    val ackSync = BufferCC(rx.ctl.ackToggle, False)
    val ackPrev = RegNext(ackSync) init False
    val doneSeq = Reg(UInt(8 bits)) init 0
    val result = Reg(Bits(16 bits)) init 0
    val resultSeq = Reg(UInt(32 bits)) init 0
    rx.ctl.result.addTag(crossClockDomain)
    rx.ctl.resultSeq.addTag(crossClockDomain)
    when(ackSync =/= ackPrev) { x.busy := False; doneSeq := doneSeq + 1; result := rx.ctl.result; resultSeq := rx.ctl.resultSeq }
    regs.ro("CMD_STATUS", 0x048, "command channel",
      x.busy -> RegField("BUSY", 0, 1, "a command is in progress (eth_rx applies it between frames)"),
      x.refused -> RegField("REFUSED", 1, 1, "the last CMD write was refused (busy or unknown OP); cleared by an accepted one"),
      doneSeq -> RegField("DONE", 8, 8, "commands completed (wraps)"),
      result -> RegField("RESULT", 16, 16, "of the last command: WRITE_ENTRY/CONFIG bit 0 = error (refused); DISARM bit 0 = was armed (a one-shot entry that fired is not); READ_STATE bit 0 = closed (FIN seen), bit 1 = enabled, bits 6:4 = scanner mode"))
    regs.ro("RESULT_SEQ", 0x04C, resultSeq, "READ_STATE: the peer's next sequence number as the parser expects it")

    val armedSync = BufferCC(rx.table.armed, B(0, N bits)).resize(64)
    regs.ro("ARMED_LO", 0x050, armedSync(31 downto 0), "entries 0..31 armed (synchronised from eth_rx)")
    regs.ro("ARMED_HI", 0x054, armedSync(63 downto 32), "entries 32..63 armed")

    def counter(name: String, offset: Int, doc: String): UInt = {
      val c = Reg(UInt(32 bits)) init 0
      regs.ro(name, offset, c, doc)
      c
    }
    val segSeen = counter("SEG_SEEN", 0x060, "frames of our connection (MAC, IPs, ports), good or not")
    val segInorder = counter("SEG_INORDER", 0x064, "of them: good and in order (parsed)")
    val segOoo = counter("SEG_OOO", 0x068, "of them: good, sequence number not acceptable (ignored)")
    val segBad = counter("SEG_BAD", 0x06C, "of them: bad FCS, IP or TCP checksum, or lengths")
    val segIgnored = counter("SEG_IGNORED", 0x070, "of them: good but ignored (offload disabled, FIN seen, SYN, RST, fragment)")
    val wMsgs = counter("W_MSGS", 0x074, "well-formed 35=W messages with a good CheckSum, in good segments")
    val fixErrors = counter("FIX_ERRORS", 0x078, "35=W messages rejected (malformed, bad CheckSum) and CheckSum fields not where BodyLength put them")
    val fires = counter("FIRES", 0x07C, "fires")
    val fireDrops = counter("FIRE_LOG_DROPS", 0x080, "fires not logged: the fire log was full")

    val ev = eventFifo.io.pop
    ev.ready := True
    when(ev.valid) {
      segSeen := segSeen + 1
      switch(ev.kind) {
        is(Kind.INORDER) { segInorder := segInorder + 1 }
        is(Kind.OOO) { segOoo := segOoo + 1 }
        is(Kind.BAD) { segBad := segBad + 1 }
        is(Kind.IGNORED) { segIgnored := segIgnored + 1 }
        default {}
      }
      wMsgs := wMsgs + ev.wMsgs.resized
      fixErrors := fixErrors + ev.fixErrors.resized
      fires := fires + ev.fires.resized
    }

    val dropsSync = fromGray(BufferCC(rx.hk.dropsGray, B(0, 4 bits)))
    val dropsPrev = RegNext(dropsSync) init 0
    fireDrops := fireDrops + (dropsSync - dropsPrev).resized
    val head = fireFifo.io.pop
    regs.ro("FIRE_STATUS", 0x090, "the oldest logged fire",
      head.valid -> RegField("VALID", 0, 1, "a fire record is waiting (the other FIRE_ registers describe it)"),
      head.recordValid -> RegField("RECORD_VALID", 1, 1, "FIRE_PRICE and FIRE_STAMP are valid"),
      head.trigger -> RegField("TRIGGER", 8, 6, "the entry that fired"),
      head.template -> RegField("TEMPLATE", 16, 4, "its template"))
    regs.ro("FIRE_PRICE_LO", 0x094, head.price(31 downto 0), "the trade price that crossed, BCD digits 7..0 of its fixed-point value (digit 0 in bits 3:0)")
    regs.ro("FIRE_PRICE_HI", 0x098, head.price(55 downto 32), "BCD digits 13..8 (all ones with LO: 10^14 or more; 0: negative)")
    regs.ro("FIRE_STAMP", 0x09C, head.stamp, "eth_rx cycle when the SOH ending that price was on the MAC stream (pins: minus 6)")
    val pop = regs.writeFlow("FIRE_POP", 0x0A0, 1, "write (any value): drop the oldest fire record")
    head.ready := pop.valid

    // Digest descriptors (docs/DESIGN.md "Digesting market data"): one per good in-order segment with payload.
    val dg = config.digest generate new Area {
      val d = digestFifo.io.pop
      val syncedNow = BufferCC(rx.digestion.unit.io.synced, False)
      regs.ro("DIGEST_STATUS", 0x0E0, "the oldest digest descriptor (the other DIGEST_ registers describe it), and digestion's state",
        d.valid -> RegField("VALID", 0, 1, "a descriptor is waiting"),
        d.digested -> RegField("DIGESTED", 1, 1, "the segment was digested: every byte is the hardware's (else passed: firmware parses bytes SKIP .. LENGTH - TAIL)"),
        d.garbled -> RegField("GARBLED", 2, 1, "a message the hardware owned (its head digested earlier) failed in this segment: dropped as garbled, SKIP covers its rest"),
        d.synced -> RegField("SYNCED", 3, 1, "the parser followed the session's incoming MsgSeqNum at the segment's end (else firmware resynchronises it: CMD DIGEST_SYNC)"),
        syncedNow -> RegField("SYNCED_NOW", 4, 1, "the parser follows the MsgSeqNum now (synchronised from eth_rx)"),
        d.hwCount -> RegField("HW_COUNT", 8, 8, "messages the hardware completed and verified in this segment, MsgSeqNums HW_FIRST on"))
      regs.ro("DIGEST_SEQ", 0x0E4, d.seqStart, "the segment's first sequence number")
      regs.ro("DIGEST_LEN", 0x0E8, "the segment's bytes and the skip",
        d.length -> RegField("LENGTH", 0, 16, "payload bytes (from DIGEST_SEQ)"),
        d.skip -> RegField("SKIP", 16, 16, "passed: leading bytes that are the hardware's (the rest of a message it owned, the messages it completed)"))
      regs.ro("DIGEST_TAIL", 0x0EC, "the segment's tail and held bytes",
        d.tail -> RegField("TAIL", 0, 16, "passed: trailing bytes that start a 35=W the hardware takes (provisional)"),
        d.held -> RegField("HELD", 16, 16, "passed: the last HELD bytes before TAIL start a message whose owner is undecided: " +
          "firmware holds them; the hardware takes the message if the next descriptor is digested or has a SKIP"))
      regs.ro("DIGEST_FIRST", 0x0F0, d.hwFirst, "the MsgSeqNum of the first message the hardware completed (HW_COUNT > 0)")
      val pop = regs.writeFlow("DIGEST_POP", 0x0F4, 1, "write (any value): drop the oldest descriptor")
      d.ready := pop.valid
      val drops = counter("DIGEST_DROPS", 0x0F8, "good segments whose descriptor found the FIFO full: passed with no descriptor, digestion unsynced")
      val dropsSync = fromGray(BufferCC(rx.digestion.dropsGray, B(0, 4 bits)))
      val dropsPrev = RegNext(dropsSync) init 0
      drops := drops + (dropsSync - dropsPrev).resized
    }
  }

  // The frame's sums as firmware's receive path checks them (io.checked): the session's frame with good FCS, IPv4
  // header and TCP checksums and consistent lengths, not a fragment, in order or not. Known at t+2, with the TCP
  // checksum, and delayed to io.digested's cycle so that the frame buffers take both verdicts at once (firmware does
  // not sum a segment so marked again; docs/DESIGN.md, "Checked frames", has what that saves).
  val sums = config.digest generate new ClockingArea(rxCd) {
    import rx.hdr
    val frag = RegNextWhen(hdr.fragR, rx.eof) init False
    val good2 = hdr.eofOurs && !hdr.eofBad && !frag && hdr.tcpOk2
    io.checked := Delay(rx.fireSeq.eofRR && good2, digestedLatency - 2, init = False)
  }

  // Hardware top of book (BookRx; bookSlots > 0, digestion builds): the first bid, offer and trade of the last
  // committed 35=W of each of up to four symbols. The slots' symbols are staged like the rest of the configuration
  // (taken with every accepted command, applied by CMD CONFIG); CMD READ_STATE with ENTRY = slot also copies that
  // slot's values into the BOOK_ registers, where they stay until the next command. (Kept last in this file, with
  // its registers: SpinalHDL names a `when` by its source line, and the boards without a book must stay the same
  // netlists.)
  val book = (bookSlots > 0) generate new Area {
    require(config.digest, "the top of book is for digestion builds (firmware parses every W otherwise)")
    val sym = Vec.fill(bookSlots)(Vec.fill(2)(Reg(Bits(32 bits)) init 0))
    for (k <- 0 until bookSlots; h <- 0 until 2)
      regs.wo(s"BOOK_SYM${k}_${if (h == 0) "LO" else "HI"}", 0x100 + 8 * k + 4 * h, sym(k)(h),
        s"staged, applied by CMD CONFIG: book slot $k's symbol, characters ${4 * h}..${4 * h + 3} (the first in bits 7:0), NUL padded; all NUL: unused. " +
          "A changed symbol clears the slot, as a DECIMALS change clears every slot")
    val xSym = Vec.fill(bookSlots)(Reg(Bits(64 bits)) init 0)
    xSym.foreach(_.addTag(crossClockDomain))
    when(sysCmd.cmd.valid && !sysCmd.busy && sysCmd.opOk) { for (k <- 0 until bookSlots) xSym(k) := sym(k)(1) ## sym(k)(0) }

    val r = new ClockingArea(rxCd) {
      import rx._
      val unit = BookRx(bookSlots, refFeed = bookRef)
      unit.io.byte.valid := feed
      unit.io.byte.payload := b.asBits
      unit.io.bodyStart := scan.aBodyStart
      unit.io.commit := scan.evCommit
      unit.io.decimals := cfgDecimals
      unit.io.segCommit := hk.commit
      unit.io.segRestore := hk.restore
      unit.io.reset := ctl.scannerReset
      val applying = ctl.st === EngState.PRE_APPLY
      unit.io.config.valid := applying && sysCmd.xOp === Op.CONFIG && !ctl.decimalsBad
      unit.io.config.syms := xSym
      unit.io.config.clear := ctl.decimalsChanged
      unit.io.readSlot := sysCmd.xEntry.resized
      val out = Reg(BookSlot())
      out.addTag(crossClockDomain)
      out.updates.init(0)
      out.px.foreach(BookRx.initPx)
      when(applying && sysCmd.xOp === Op.READ_STATE) { out := unit.io.read }
      // with bookRef: each slot's last trade, for the risk gate's collar (BookRefFeed; to the order engine's gate)
      val refFeed = bookRef generate BookRefFeed(bookSlots)
      if (bookRef) { refFeed.io.trade := unit.ref.trade; refFeed.io.trades := unit.ref.trades }
    }
    /** With bookRef: the book slots' last trades (eth_rx), the risk gate's market reference (OrderEngineRisk.bookRef). */
    val refOut = bookRef generate master(Stream(BookRef()))
    if (bookRef) refOut << r.refFeed.io.out
    val o = r.out
    val names = Seq("BID", "OFFER", "TRADE")
    regs.ro("BOOK_FLAGS", 0x120, "book slot ENTRY of the last CMD READ_STATE (stable until the next command): per price, whether it is kept and how to read it",
      (0 until 3).flatMap(t => Seq(
        o.px(t).valid -> RegField(s"${names(t)}_VALID", t, 1, s"the ${names(t).toLowerCase} price is kept"),
        o.px(t).neg -> RegField(s"${names(t)}_NEG", 4 + t, 1, "negative: the value is -MAG, one less if INEXACT"),
        o.px(t).inexact -> RegField(s"${names(t)}_INEXACT", 8 + t, 1, "digits other than 0 past the implied decimals were cut"),
        o.px(t).scale -> RegField(s"${names(t)}_SCALE", 12 + 4 * t, 4, "the value at the implied decimals is MAG * 10^SCALE (the fraction digits it lacks)"))): _*)
    regs.ro("BOOK_UPDATES", 0x124, o.updates, "35=W of the slot's symbol committed since the slot was set (saturates)")
    for (t <- 0 until 3) {
      regs.ro(s"BOOK_${names(t)}_LO", 0x128 + 8 * t, o.px(t).mag(31 downto 0), s"the ${names(t).toLowerCase} price's digits, up to DECIMALS past the point (MAG), bits 31:0")
      regs.ro(s"BOOK_${names(t)}_HI", 0x12C + 8 * t, o.px(t).mag(BookRx.magWidth - 1 downto 32), "bits 46:32")
    }
  }

  val ea = config.early generate new Area {   // (sys) the switch, staged; taken with a command as the others are
    val on = RegInit(False)
    regs.wo("EARLY_CTRL", 0x028, on, "staged, applied by CMD CONFIG: bit 0 EARLY: an entry fires at the SOH that ends the crossing price, before its segment is verified, when the segment is in order, the message a well-formed W so far whose symbol matched and whose end (BodyLength) is in this segment, and no entry fired early in this segment yet; the order engine settles it with the segment's verdict")
    val xOn = RegInit(False)
    xOn.addTag(crossClockDomain)
    when(sysCmd.cmd.valid && !sysCmd.busy && sysCmd.opOk) { xOn := on }
  }
  val earlyCfg = config.early generate new ClockingArea(rxCd) {   // applied by CONFIG, with the rest of the configuration
    val on = RegInit(False)
    when(rx.ctl.st === EngState.PRE_APPLY && sysCmd.xOp === Op.CONFIG && !rx.ctl.decimalsBad) { on := ea.xOn }
  }
  // =============================================================================================
  // Early fires (early builds; docs/DESIGN.md "Early trigger"). All of it is here, at the end of the component, so that
  // the parser without it (the boards') keeps its Verilog names (README "Boards": SpinalHDL names a `when` by its
  // source line); the one-line hooks above: the config flag, the two ports, E and the sequencer's mask.
  // The switch: EARLY_CTRL, staged, taken with a command and applied by CONFIG. The first entry of a segment whose
  // crossing qualifies fires at once, flagged early (io.fireEarly with fire.valid): lag 3 after the price's SOH, in
  // the cycle the crossing is known. The segment's end gives its verdict (io.verdict, t+2, with the TCP checksum's):
  // good when the segment is good and the entry is pending then (its message committed: CheckSum and BodyLength
  // verified). The fire sequencer does not fire it again (E masks both prepared sets); a good verdict disarms a
  // one-shot entry with the other fires (fireCommit), a bad one leaves it armed, the snapshot restored as for any bad
  // segment. Its fire log record goes in at the verdict, when good. Other crossings in the segment fire at its end.
  val early = config.early generate new ClockingArea(rxCd) {
    import rx._
    import table._
    // The message's end (BodyLength, then "10=ccc|") is within the datagram: the difference of the two counts is
    // the same at every body byte, so this register, a few cycles after the price's SOH, still says it.
    val fits = RegNext(scan.mode === M_BODY && (scan.bodyLeft.resize(18) + 7) <= hdr.ipLeft.resize(18)) init False
    // lag 3: new crossings of entries whose symbol this message matched (S is final once the 55 field has ended:
    // a crossing is evaluated only after it)
    val cand = crossR & S & ~C & ~P
    val (candLow, _) = fireSeq.lowest(cand)
    val go = earlyCfg.on && E === 0 && cand =/= 0 && fits && scan.isW && !scan.bad
    when(go) { E := candLow }
    // the fire, in the same cycle (lag 3): the order engine's crossing takes it into a register (its queue or its
    // hold register), so a register here would only add a cycle to every early order
    val v = go
    val idx = OHToUInt(candLow)
    val p = OffloadFire()
    p.trigger := idx.resized
    p.template := tmplMem.readAsync(idx)
    p.ackSeq := hdr.nextSeq
    p.price := 0                      // (not logged yet: the fire log record, with the price, comes with the verdict)
    p.stamp := scan.endStamp
    p.recordValid := True
    assert(!(v && fireSeq.fireV), "OffloadRx: an early fire and a segment's fire together", FAILURE)
    io.fire.valid.removeAssignments(); io.fire.payload.removeAssignments()
    io.fire.valid := fireSeq.fireV || v
    io.fire.payload := v ? p | fireSeq.fireP
    io.fireEarly := v
    // FIRES counts early fires too (poisoned or not: every fire the order engine gets): the segment's count, which
    // starts at its end (the sequencer's fires come after it), starts at its early fire's (E still says it then)
    when(eofR) { hk.ev.fires := U(E =/= 0).resized }
    // t+2: the verdict of the segment's early fire, and its fire log record when good
    val settle = fireSeq.eofRR && E =/= 0
    val good = hdr.eofAccept && hdr.segGood2 && (P & E) =/= 0
    io.verdict.valid := settle
    io.verdict.payload := good
    when(fireSeq.eofRR) { E := 0 }
    val slotE = fireSeq.slotOf(E)
    val idxE = OHToUInt(E)
    val logNow = settle && good
    assert(!(logNow && fireSeq.fireV), "OffloadRx: an early fire's record and a segment's fire together", FAILURE)
    val rec = tradeLog.readAsync(slotE)
    when(logNow) {
      fireFifo.io.push.valid := True
      fireFifo.io.push.trigger := idxE.resized
      fireFifo.io.push.template := tmplMem.readAsync(idxE)
      fireFifo.io.push.recordValid := slotE =/= logSlots - 1
      fireFifo.io.push.price := rec(OffloadFire.priceWidth + 31 downto 32).asUInt
      fireFifo.io.push.stamp := rec(31 downto 0).asUInt
    }
  }

  /** Build constants for the C header. */
  def headerConstants: Seq[(String, String, String)] = Seq(
    ("OFFLOAD_RX_ENTRIES", s"${N}U", "trigger table entries"),
    ("OFFLOAD_RX_SYM_CHARS", s"${symChars}U", "longest symbol"),
    ("OFFLOAD_RX_PRICE_DIGITS", s"${maxDigits}U", "fixed-point prices are < 10^this"),
    ("OFFLOAD_RX_MAX_DECIMALS", s"${maxDecimals}U", "implied decimals 0..this"),
    ("OFFLOAD_RX_LOG_SLOTS", s"${logSlots - 1}U", "trade log slots (fires whose price was not logged have RECORD_VALID 0)"),
    ("OFFLOAD_RX_STAMP_TO_PINS", if (config.early) "1U" else "6U", "FIRE_STAMP minus this = the eth_rx cycle the byte was on the RX pins (" + (if (config.early) "the lean tap, EthRxLeanTap, of builds with early fires" else "LiteEth's stream, default build") + ")")) ++
    ((if (config.digest) Seq(("OFFLOAD_RX_DIGEST", "1", "market-data digestion: DIGEST_ registers, CMD DIGEST_SYNC"),
      ("OFFLOAD_RX_DIGEST_COMPID", s"${DigestRx.maxCompId}U", "longest CompID digestion compares")) else Nil) ++
    (if (bookSlots > 0) Seq(("OFFLOAD_RX_BOOK_SLOTS", s"${bookSlots}U", "hardware top of book: slots (BOOK_ registers)")) else Nil))
}
