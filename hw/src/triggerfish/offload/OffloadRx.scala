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
  eventFifoDepth: Int = 8    // per-segment counter events eth_rx -> sys (one per segment of our connection)
) {
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
  object Op { val CONFIG = 1; val LOAD_SEQ = 2; val WRITE_ENTRY = 3; val ARM = 4; val DISARM = 5; val DISARM_ALL = 6; val READ_STATE = 7 }
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
  object EngState extends SpinalEnum { val IDLE, TOKEN, PRE, PRE_APPLY, CONVERT, NORMALIZE, SWEEP, POST, POST_APPLY, ACK = newElement() }
}

case class OffloadRx(config: OffloadRxConfig, rxCd: ClockDomain) extends Component {
  import OffloadRx._
  val N = config.entries
  val io = new Bundle {
    val bus = slave(PipelinedMemoryBus(busConfig))   // sys
    val rx = slave(Flow(EthRxBeat()))                 // rxCd: the MAC's receive stream (the SoC's rxTap)
    val fire = master(Flow(OffloadFire()))            // rxCd
    val rxCycle = out UInt (32 bits)                  // rxCd: the cycle counter the stamps use
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
      "write OP (bits 3:0) and ENTRY (bits 13:8): 1 CONFIG, 2 LOAD_SEQ, 3 WRITE_ENTRY, 4 ARM, 5 DISARM, 6 DISARM_ALL, 7 READ_STATE; refused while BUSY")

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
    val opOk = op >= Op.CONFIG && op <= Op.READ_STATE
    when(cmd.valid) {
      when(!busy && opOk) {
        xOp := op; xEntry := cmd.payload(13 downto 8).asUInt.resized
        xEnable := enable; xOurMac := ourMacHi ## ourMacLo; xOurIp := ourIp; xOurPort := ourPort
        xPeerIp := peerIp; xPeerPort := peerPort; xDecimals := decimals; xTradeType := tradeType
        xRcvNxt := rcvNxt.asUInt; xSym := sym1 ## sym0; xStop := (stopHi ## stopLo).asUInt
        xSell := eSell; xOneShot := eOneShot; xArm := eArm; xTmpl := eTmpl
        busy := True; reqToggle := !reqToggle; refused := False
      } otherwise { refused := True }
    }
  }

  // Crossing FIFOs (push eth_rx, pop sys).
  // Events: one per segment of our connection, at most one per 84 eth_rx cycles (a 64-byte frame and its gap).
  val eventFifo = new StreamFifoCC(OffloadRxEvent(), config.eventFifoDepth, rxCd, sysCd, withPopBufferedReset = false)
  // Fire log: up to 64 fires in a burst; what the CPU has not taken when it is full is dropped and counted.
  val fireFifo = new StreamFifoCC(OffloadFireLog(), config.fireLogDepth, rxCd, sysCd, withPopBufferedReset = false)

  // =============================================================================================
  // eth_rx: the parser, the trigger table, the fire
  val rx = new ClockingArea(rxCd) {
    val cycle = Reg(UInt(32 bits)) init 0
    cycle := cycle + 1
    io.rxCycle := cycle

    val v = io.rx.valid
    val b = io.rx.payload.data.asUInt
    val eof = v && io.rx.payload.last
    // byte classes as nibble patterns (plain LUTs; a magnitude compare would become a carry chain)
    val isSoh = b === SOH
    val isDig = b(7 downto 4) === 3 && (!b(3) || b(2 downto 1) === 0)
    val dig = b(3 downto 0)   // the digit when isDig
    val isSymChar = !b(7) && ((b(6 downto 5) === 1 && b(4 downto 0) =/= 0) || b(6 downto 5) === 2)   // 0x21..0x5F

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
    // prepared a beat ahead: the expected byte of the next position, where the headers end, whether the next
    // beat is payload for the scanner.
    val hdr = new Area {
      val inFrame = RegInit(False)
      val first = !inFrame
      val secR = Reg(UInt(3 bits)) init S_ETH
      val sposR = Reg(UInt(6 bits)) init 0
      val oddR = RegInit(False)
      val sec = first ? U(S_ETH, 3 bits) | secR
      val spos = first ? U(0, 6 bits) | sposR
      val odd = !first && oddR
      val okR = RegInit(False)     // so far: IPv4/TCP to our MAC and addresses, well formed
      val ok = first | okR
      val oursR = RegInit(False)   // addresses and ports matched (set at TCP byte 3)
      val ours = !first && oursR
      val ipEndPos = Reg(UInt(6 bits)) init 19    // IHL * 4 - 1
      val tcpEndPos = Reg(UInt(6 bits)) init 19   // data offset * 4 - 1
      val totHi = Reg(Bits(8 bits)) init 0
      val tcpLen = Reg(UInt(16 bits)) init 0
      val ipLeft = Reg(UInt(16 bits)) init 0      // datagram bytes from the current byte on (valid when lenKnown)
      val lenKnownR = RegInit(False)
      val lenKnown = !first && lenKnownR
      val lenBadR = RegInit(False)
      val lenBad = !first && lenBadR
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
      val accept = !first && acceptR
      val skipLeft = Reg(UInt(16 bits)) init 0
      // The last 6 bytes; a field is compared with the configuration at the byte after it (no mux of the
      // configuration by position, nothing but the capture between the byte and the compare).
      val sr = Reg(Bits(48 bits)) init 0
      val chk = Reg(Bits(6 bits)) init 0          // compare this beat: 0 MAC, 1 type, 2 protocol, 3 peer IP, 4 our IP, 5 peer port
      val chkOurPort = RegInit(False)
      val feedR = RegInit(False)                  // the current beat (if any) is payload for the scanner

      // a ones' complement sum held as a 16-bit accumulator and a pending end-around carry is good (0xFFFF) when
      def onesOk(acc: UInt, c: Bool): Bool = (acc === 0xFFFF && !c) || (acc === 0xFFFE && c) || (acc === 0 && !c)

      // ipLeft === 0 / === 1, kept beside it so that no 16-bit compare sits in the per-byte paths
      val ipLeftZeroR = RegInit(True)
      val ipLeftOneR = RegInit(False)
      val inDgram = lenKnown && !ipLeftZeroR
      val byteOk = Bool(); byteOk := True
      val fieldOk = !(chk(0) && sr =/= cfgOurMac) && !(chk(1) && sr(15 downto 0) =/= B"x0800") &&
        !(chk(2) && sr(7 downto 0) =/= B"x06") && !(chk(3) && sr(31 downto 0) =/= cfgPeerIp) &&
        !(chk(4) && sr(31 downto 0) =/= cfgOurIp) && !(chk(5) && sr(15 downto 0) =/= cfgPeerPort)
      val chkNext = Bits(6 bits); chkNext := 0
      val lenBadNow = Bool(); lenBadNow := lenBad
      val word = odd ? b.resize(16) | (b.resize(16) |<< 8)
      val ipAdd = Bool(); ipAdd := False
      val tcpIn = UInt(16 bits); tcpIn := word
      val tcpAdd = Bool(); tcpAdd := False
      val nextSec = UInt(3 bits); nextSec := sec
      val nextSpos = UInt(6 bits); nextSpos := (spos === 63) ? spos | spos + 1
      val decIpLeft = Bool(); decIpLeft := False
      val startSeg = Bool(); startSeg := False
      val tcpEnd = Bool(); tcpEnd := False
      val acceptNow = Bool(); acceptNow := False
      val skipNextZero = Bool(); skipNextZero := False

      when(v) { switch(sec) {
        is(S_ETH) {
          when(spos === 5) { chkNext(0) := True }
          when(spos === 13) { chkNext(1) := True; nextSec := S_IP; nextSpos := 0 }
        }
        is(S_IP) {
          ipAdd := True
          when(spos >= 4) {
            decIpLeft := True
            when(!inDgram) { lenBadNow := True }
          }
          switch(spos) {
            is(0) { byteOk := b(7 downto 4) === 4 && b(3 downto 0) >= 5; ipEndPos := ((b(3 downto 0) << 2) - 1).resized }
            is(2) { totHi := b.asBits }
            is(3) {
              val left = (totHi ## b).asUInt - 4
              ipLeft := left; lenKnownR := True
              ipLeftZeroR := left === 0; ipLeftOneR := left === 1
            }
            is(4) {
              val hdrMinus4 = (ipEndPos - 3).resize(16)
              when(ipLeft < hdrMinus4) { lenBadNow := True }
              tcpLen := ipLeft - hdrMinus4
            }
            is(5) { tcpIn := tcpLen; tcpAdd := True }      // pseudo header: TCP length
            is(6) { tcpIn := 6; tcpAdd := True; fragR := b(5) || b(4 downto 0) =/= 0 }   // protocol; MF, offset
            is(7) { when(b =/= 0) { fragR := True } }
          }
          when(spos >= 12 && spos < 20) { tcpAdd := True }   // pseudo header: the addresses
          when(spos === 9) { chkNext(2) := True }
          when(spos === 15) { chkNext(3) := True }
          when(spos === 19) { chkNext(4) := True }
          when(spos === ipEndPos) { nextSec := S_TCP; nextSpos := 0 }
        }
        is(S_TCP) {
          decIpLeft := True
          when(!inDgram) { lenBadNow := True }
          tcpAdd := inDgram
          when(spos === 1) { chkNext(5) := True }
          // byte 4: the destination port (bytes 2, 3) is the last of the addresses
          when(spos === 4) { oursR := ok && fieldOk && sr(15 downto 0) === cfgOurPort }
          when(spos === 8) { seq := sr(31 downto 0).asUInt; skip := rcvNxt - sr(31 downto 0).asUInt }
          when(spos === 12) { tcpEndPos := ((b(7 downto 4) << 2) - 1).resized; when(b(7 downto 4) < 5) { lenBadNow := True } }
          when(spos === 13) {
            fin := b(0); syn := b(1); rst := b(2)
            val hl = ((tcpEndPos + 1) << 0).resize(16)
            when(tcpLen < hl) { lenBadNow := True }
            payLen := tcpLen - hl
          }
          when(spos === 14) { seqOk := skip === 0 || (skip(31 downto 16) === 0 && skip(15 downto 0) < payLen) }
          when(spos === 15) { nextSeq := seq + payLen + fin.asUInt.resize(32) }
          when(spos === tcpEndPos && spos >= 19) {
            tcpEnd := True
            acceptNow := oursR && ok && onesOk(ipAcc, ipC) && !lenBadNow && !fragR && !syn && !rst && cfgEnable && !closed && seqOk
            acceptR := acceptNow
            startSeg := acceptNow
            skipLeft := skip(15 downto 0)
            skipNextZero := skip(15 downto 0) === 0
            nextSec := ipLeftOneR ? U(S_PAD, 3 bits) | U(S_PAY, 3 bits)
          }
        }
        is(S_PAY) {
          tcpAdd := inDgram
          decIpLeft := True
          when(inDgram) {
            when(skipLeft =/= 0) { skipLeft := skipLeft - 1 }
            skipNextZero := skipLeft <= 1
            when(ipLeftOneR) { nextSec := S_PAD }
          }
        }
      } }

      val ipSum = ipAcc.resize(17) + (ipAdd ? word | U(0, 16 bits)).resize(17) + ipC.asUInt.resize(17)
      val tcpSum = tcpAcc.resize(17) + (tcpAdd ? tcpIn | U(0, 16 bits)).resize(17) + tcpC.asUInt.resize(17)
      // The datagram is complete with this byte: the frame may end here (what follows is Ethernet padding).
      val complete = sec === S_PAD || (inDgram && ipLeftOneR && (sec === S_PAY || sec === S_TCP))

      when(v) {
        inFrame := !io.rx.payload.last
        oddR := !odd
        secR := nextSec
        sposR := nextSpos
        okR := ok && byteOk && fieldOk
        lenBadR := lenBadNow
        sr := sr(39 downto 0) ## b.asBits
        chk := chkNext
        feedR := nextSec === S_PAY && (tcpEnd ? acceptNow | accept) && skipNextZero
        when(first) {
          oursR := False; lenKnownR := False; fragR := False; acceptR := False
          ipAcc := 0; ipC := False; tcpAcc := 0; tcpC := False
        } otherwise {
          when(ipAdd) { ipAcc := ipSum(15 downto 0); ipC := ipSum(16) }
          when(tcpAdd) { tcpAcc := tcpSum(15 downto 0); tcpC := tcpSum(16) }
        }
        when(decIpLeft && inDgram) {
          ipLeft := ipLeft - 1
          ipLeftZeroR := ipLeftOneR
          ipLeftOneR := ipLeft === 2
        }
        when(io.rx.payload.last) { feedR := False; chk := 0 }
      }

      // End of frame, what is known in the cycle of the last beat; the TCP checksum verdict follows a cycle later.
      val eofAccept = RegNextWhen(accept, eof) init False
      val eofGoodSoFar = RegNextWhen(accept && !io.rx.payload.error && complete, eof) init False
      val eofKind = Reg(UInt(3 bits)) init 0        // the kind if the TCP checksum is good
      val eofMaybeBad = RegInit(False)              // ours, so a bad TCP checksum makes it BAD
      when(eof) {
        eofMaybeBad := ours
        when(!ours) { eofKind := Kind.NONE }
          .elsewhen(io.rx.payload.error || !onesOk(ipAcc, ipC) || lenBadNow || !complete) { eofKind := Kind.BAD }
          .elsewhen(fragR || syn || rst || !cfgEnable || closed) { eofKind := Kind.IGNORED }
          .elsewhen(!seqOk) { eofKind := Kind.OOO }
          .otherwise { eofKind := Kind.INORDER }
      }
      val tcpOk1 = onesOk(tcpAcc, tcpC)             // in the cycle after the last beat: the whole segment summed
      val segGood1 = eofGoodSoFar && tcpOk1
      val kind1 = (eofMaybeBad && eofKind =/= Kind.NONE && !tcpOk1) ? U(Kind.BAD, 3 bits) | eofKind
    }
    val feed = v && hdr.feedR

    // -------------------------------------------------------------------------------------------
    // FIX scanner (one payload byte per cycle when `feed`). Each byte is decided by a compare or two against
    // values prepared beforehand: the literal byte expected next, the class of the tag read so far, whether the
    // body ends with this byte, the CheckSum's expected digits, whether the message commits if this is its last SOH.
    val scan = new Area {
      val mode = snapshotted(Reg(UInt(3 bits)) init M_HUNT)
      val prevSoh = snapshotted(RegInit(True))
      val lit = snapshotted(Reg(UInt(4 bits)) init 0)
      val litExp = snapshotted(Reg(UInt(8 bits)) init 0)       // BEGIN: the byte expected next
      val bodyLeft = snapshotted(Reg(UInt(17 bits)) init 0)
      val bodyLast = snapshotted(RegInit(False))                // bodyLeft === 1
      val blDigits = snapshotted(Reg(UInt(3 bits)) init 0)
      val csum = snapshotted(Reg(UInt(8 bits)) init 0)
      val cokAcc = snapshotted(RegInit(False))
      val commitReady = snapshotted(RegInit(False))
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
      val fTag = snapshotted(RegInit(True))
      val tagBcd = snapshotted(Reg(Bits(8 bits)) init 0)        // the last two digits of the tag so far
      val tagLen = snapshotted(Reg(UInt(3 bits)) init 0)        // saturates at 4
      val tagPre = snapshotted(Reg(UInt(4 bits)) init 0)        // the class of the tag so far (C_ below)
      val tagCls = snapshotted(Reg(UInt(3 bits)) init T_OTHER)
      val valLen = snapshotted(Reg(UInt(4 bits)) init 0)
      val wCand = snapshotted(RegInit(False))
      val tradeCand = snapshotted(RegInit(False))
      val pK = snapshotted(Reg(UInt(4 bits)) init 0)     // significant digits so far (the price table row position)
      val pFrac = snapshotted(Reg(UInt(4 bits)) init 0)
      val intFull = snapshotted(RegInit(False))           // pK === 14 - decimals: no room for another integer digit
      val fracFull = snapshotted(RegInit(False))          // pFrac === decimals
      val pDot = snapshotted(RegInit(False))
      val pAny = snapshotted(RegInit(False))
      val pSig = snapshotted(RegInit(False))
      val pBad = snapshotted(RegInit(False))
      val pAcc = snapshotted(Reg(UInt(OffloadFire.priceWidth bits)) init 0)
      val padCnt = Reg(UInt(4 bits)) init 0
      val segW = Reg(UInt(6 bits)) init 0        // this segment: W messages committed, messages rejected
      val segErr = Reg(UInt(6 bits)) init 0
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

      // Events of this cycle (stream time), consumed by the trigger table with the lags above.
      val evMsgStart = Bool(); evMsgStart := False
      val evSymStart = Bool(); evSymStart := False
      val evSymLook = Bool(); evSymLook := False
      val evSymKill = Bool(); evSymKill := False
      val symAddr = UInt(9 bits); symAddr := 0
      val evPriceStart = Bool(); evPriceStart := False
      val evPriceLook = Bool(); evPriceLook := False
      val evPriceDigit = Bool(); evPriceDigit := False
      val priceAddr = UInt(8 bits); priceAddr := 0
      val evPriceEnd = Bool(); evPriceEnd := False
      val evCommit = Bool()
      val evRejected = Bool(); evRejected := False
      val accStep = Bool(); accStep := False

      val beginLit = Vec(beginLiteral.map(c => U(c, 8 bits)) ++ Seq.fill(4)(U(0, 8 bits)))
      val evalOk = isW && !bad
      def satInc(x: UInt): Unit = when(x =/= x.maxValue) { x := x + 1 }

      when(feed) {
        switch(mode) {
          is(M_HUNT) {
            when(prevSoh && b === 0x38) {
              mode := M_BEGIN; lit := 1; litExp := beginLit(1); csum := 0x38; evMsgStart := True
            }
            prevSoh := isSoh
          }
          is(M_BEGIN) {
            when(b === litExp) {
              csum := csum + b; lit := lit + 1; litExp := beginLit(lit + 1)
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
              isW := False; bad := False; firstField := True; had55 := False; symDone := False; had268 := False
              n268 := 0; n269 := 0; inEntry := False; curTrade := False; cur270 := False
              fTag := True; tagLen := 0; tagBcd := 0; tagPre := C_EMPTY
            } otherwise { mode := M_HUNT; prevSoh := isSoh }
          }
          is(M_BODY) {
            csum := csum + b
            bodyLeft := bodyLeft - 1
            bodyLast := bodyLeft === 2
            when(fTag) {
              when(isDig) {
                when(tagLen === 0 && dig === 0) { bad := True }
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
              } elsewhen (b === 0x3D) {
                val t35 = tagPre === C_35
                val t55 = tagPre === C_55
                val t268 = tagPre === C_268
                val t269 = tagPre === C_269
                val t270 = tagPre === C_270
                when(tagPre === C_EMPTY || (firstField =/= t35) || tagPre === C_8 || tagPre === C_9 || tagPre === C_10) { bad := True }
                firstField := False
                when(t55) { when(had55) { bad := True }; had55 := True }
                when(t268) { when(had268) { bad := True }; had268 := True; n268 := 0 }
                when(t269) { satInc(n269); inEntry := True; curTrade := False; cur270 := False }
                when(t270) { when(!inEntry || cur270) { bad := True }; cur270 := True }
                val evalPrice = t270 && inEntry && curTrade && !cur270
                tagCls := T_OTHER
                when(t35) { tagCls := T_35 }
                when(t55) { tagCls := T_55 }
                when(t268) { tagCls := T_268 }
                when(t269) { tagCls := T_269 }
                when(evalPrice) { tagCls := T_270 }
                fTag := False; valLen := 0; wCand := False; tradeCand := False
                when(t55 && !had55 && evalOk) { evSymStart := True }
                when(evalPrice && evalOk) {
                  evPriceStart := True
                  pK := 0; pFrac := 0; pDot := False; pAny := False; pSig := False; pBad := False; pAcc := 0
                  intFull := maxIntDigits === 0; fracFull := cfgDecimals === 0
                }
              } otherwise {
                bad := True
                when(isSoh) { tagLen := 0; tagBcd := 0; tagPre := C_EMPTY }
              }
            } otherwise {
              when(isSoh) {
                when(valLen === 0) { bad := True }
                switch(tagCls) {
                  is(T_35) { isW := valLen === 1 && wCand }
                  is(T_269) { curTrade := valLen === 1 && tradeCand }
                  is(T_55) {
                    symDone := True
                    when(evalOk && valLen < symChars) { evSymLook := True; symAddr := valLen(2 downto 0) @@ U(0, 6 bits) }
                  }
                  is(T_270) {
                    when(evalOk) {
                      val usable = !pBad && pAny
                      evPriceEnd := usable
                      when(usable) {
                        evPriceLook := True
                        priceAddr := pK @@ (pDot ? U(CL_END_FRAC, 4 bits) | U(CL_END_NODOT, 4 bits))
                        padCnt := cfgDecimals - pFrac     // pad the fraction to the implied decimals
                      }
                    }
                  }
                  default {}
                }
                fTag := True; tagLen := 0; tagBcd := 0; tagPre := C_EMPTY
              } otherwise {
                satInc(valLen)
                switch(tagCls) {
                  is(T_35) { wCand := valLen === 0 && b === 0x57 }
                  is(T_269) { tradeCand := valLen === 0 && b.asBits === cfgTradeType }
                  is(T_268) {
                    when(!isDig || n268 > 25 || (n268 === 25 && dig > 5)) { bad := True }
                    n268 := ((n268 |<< 3) + (n268 |<< 1) + dig).resized
                  }
                  is(T_55) {
                    when(evalOk) {
                      when(valLen < symChars && isSymChar) {
                        evSymLook := True; symAddr := valLen(2 downto 0) @@ (b - 0x20)(5 downto 0)
                      } otherwise { evSymKill := True }
                    }
                  }
                  is(T_270) {
                    when(evalOk && !pBad) {
                      when(isDig) {
                        pAny := True
                        accStep := True
                        when(pDot || pSig || dig =/= 0) {
                          pSig := True
                          when(pDot ? fracFull | intFull) { pBad := True } otherwise {
                            evPriceLook := True; evPriceDigit := True; priceAddr := pK @@ dig
                            pK := pK + 1
                            intFull := pK + 1 === maxIntDigits
                            when(pDot) { pFrac := pFrac + 1; fracFull := pFrac + 1 === cfgDecimals }
                          }
                        }
                      } elsewhen (b === 0x2E && !pDot) {
                        pDot := True
                        evPriceLook := True; priceAddr := pK @@ U(CL_DOT, 4 bits)
                      } otherwise { pBad := True }
                    }
                  }
                  default {}
                }
              }
            }
            when(bodyLast) {
              when(fTag || !isSoh || valLen === 0) { bad := True }
              mode := M_TRAILER; lit := 0
            }
          }
          is(M_TRAILER) {
            // "10=" ddd SOH; the digits against the running sum's, the commit decided at the third digit
            val litOk = Bool()
            litOk := False
            switch(lit) {
              is(0) { litOk := b === 0x31 }
              is(1) { litOk := b === 0x30 }
              is(2) { litOk := b === 0x3D }
              is(3, 4, 5) { litOk := isDig }
              is(6) { litOk := isSoh }
              default {}
            }
            when(lit === 0 && (!had268 || n268 =/= n269 || !symDone)) { bad := True }
            when(!litOk) {
              mode := M_HUNT; prevSoh := isSoh; evRejected := True
            } otherwise {
              lit := lit + 1
              when(lit === 3) { cokAcc := dig === csumHund.resize(4) }
              when(lit === 4) { cokAcc := cokAcc && dig === csumTens }
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
      evCommit := mode === M_TRAILER && lit === 6 && isSoh && commitReady
      // the per-segment counts, a cycle later
      when(RegNext(feed && evCommit) init False) { satInc(segW) }
      when(RegNext(feed && evRejected) init False) { satInc(segErr) }
      when(hdr.startSeg && v) { segW := 0; segErr := 0 }

      // Price value in binary fixed point: the digits a cycle after they come, then the padding steps. The
      // trade log takes the last padding step's result directly (padCnt is at most 1 eight cycles after the SOH).
      val accStepR = RegNext(feed && accStep) init False
      val accDigitR = RegNext(dig)
      val padStep = padCnt =/= 0      // never at the same time as a digit (prices are >= 10 bytes apart)
      when(padStep) { padCnt := padCnt - 1 }
      val times10 = ((pAcc |<< 3) + (pAcc |<< 1)).resize(OffloadFire.priceWidth)
      when(accStepR || padStep) { pAcc := (times10 + (accStepR ? accDigitR | U(0, 4 bits))).resized }
      val priceFinal = padStep ? times10 | pAcc
      val endStamp = RegNextWhen(cycle, feed && evPriceEnd) init 0
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
      val symMem = Mem(Bits(N bits), 512)
      val priceMem = Mem(Bits(2 * N bits), 256)
      val symRdEn = Bool()
      val symRdAddr = UInt(9 bits)
      val priceRdEn = Bool()
      val priceRdAddr = UInt(8 bits)
      // The read address is registered first (it is decided from the byte on io.rx, the RAM is far away), the
      // RAM's output too (its clock-to-out is slow): a row is in symRow2/priceRow2 three cycles after the byte.
      val symRow2 = RegNext(symMem.readSync(RegNext(symRdAddr), RegNext(symRdEn) init False))
      val priceRow2 = RegNext(priceMem.readSync(RegNext(priceRdAddr), RegNext(priceRdEn) init False))

      // Events into the per-entry state, and their pipeline.
      val inSymStart, inSymLook, inSymKill, inPriceStart, inPriceLook, inPriceDot, inPriceEnd = Bool()
      val symStart1 = RegNext(RegNext(inSymStart) init False) init False
      val symLook1 = RegNext(RegNext(inSymLook) init False) init False
      val symKill1 = RegNext(RegNext(inSymKill) init False) init False
      val priceStart1 = RegNext(RegNext(inPriceStart) init False) init False
      val priceLook1 = RegNext(RegNext(inPriceLook && !inPriceEnd) init False) init False
      val priceDot1 = RegNext(RegNext(inPriceDot) init False) init False
      val priceEnd1 = RegNext(RegNext(inPriceEnd) init False) init False
      val msgStart1 = RegNext(RegNext(feed && scan.evMsgStart) init False) init False
      val symDone1 = RegNext(RegNext(scan.symDone) init False) init False
      val symStart2 = RegNext(symStart1) init False
      val symLook2 = RegNext(symLook1) init False
      val symKill2 = RegNext(symKill1) init False
      val priceStart2 = RegNext(priceStart1) init False
      val priceLook2 = RegNext(priceLook1) init False
      val priceDot2 = RegNext(priceDot1) init False
      val priceEnd2 = RegNext(priceEnd1) init False
      val msgStart2 = RegNext(msgStart1) init False
      val symDone2 = RegNext(symDone1) init False
      val endDelay = History(feed && scan.evPriceEnd, 9, init = False)   // endDelay(8): 8 cycles after the price's SOH

      // Per-entry state.
      val allOnes = B(BigInt(2).pow(N) - 1, N bits)
      val S = snapshotted(Reg(Bits(N bits)) init 0)          // symbol matches (message in progress)
      val dec = snapshotted(Reg(Bits(N bits)) init 0)        // price comparison decided (else equal so far)
      val ltv = snapshotted(Reg(Bits(N bits)) init 0)        // decided: LT' (else GT')
      val C = snapshotted(Reg(Bits(N bits)) init 0)          // crossed by a trade price of the message in progress
      val elig = snapshotted(Reg(Bits(N bits)) init 0)       // armed since the message in progress started
      val trig = snapshotted(Vec.fill(N)(Reg(UInt(4 bits)) init 0)) // trade log slot of the first crossing (15: none)
      val P = Reg(Bits(N bits)) init 0                        // pending: committed in this segment
      val NP = Reg(Bits(N bits)) init 0                       // what the message in progress would add to P
      val armed = Reg(Bits(N bits)) init 0
      val oneShot = Reg(Bits(N bits)) init 0
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
        crossR(j) := priceEnd2 && crossing && elig(j)
      }
      val msgStart3 = RegNext(msgStart2) init False
      val symDone3 = RegNext(symDone2) init False
      // lag 4: the crossing joins C; the first crossing of the message, for an entry not already pending, names
      // the trade log slot; a new message resets the crossings and takes the entries armed now
      val full = next(head) === tail
      val newCross = crossR & ~C & ~P
      C := C | crossR
      for (j <- 0 until N) when(newCross(j)) { trig(j) := full ? U(logSlots - 1, 4 bits) | head }
      when(msgStart3) { elig := armed; msgStartHead := head } otherwise { elig := elig & armed }
      val anyRel3 = RegNext((newCross & (S | (symDone3 ? B(0, N bits) | allOnes))).orR) init False
      val full3 = RegNext(full) init False
      // lag 5: allocate the trade log slot; lag 8: write it (the price is padded to the implied decimals by then)
      val logSlot = Reg(UInt(4 bits)) init 0
      val logPend = RegInit(False)
      when(anyRel3 && !full3) { head := next(head); logSlot := head; logPend := True }
      tradeLog.write(logSlot, (scan.priceFinal ## scan.endStamp), logPend && endDelay(8))
      when(endDelay(8)) { logPend := False }

      // lag 0: a message commits (the SOH of its CheckSum field): its matches join the pending set
      NP := S & C & elig
      when(feed && scan.evCommit) { P := P | NP }
    }

    table.inSymStart := feed && scan.evSymStart
    table.inSymLook := feed && scan.evSymLook
    table.inSymKill := feed && scan.evSymKill
    table.inPriceStart := feed && scan.evPriceStart
    table.inPriceLook := feed && scan.evPriceLook
    table.inPriceDot := feed && scan.evPriceLook && !scan.evPriceDigit && !scan.evPriceEnd
    table.inPriceEnd := feed && scan.evPriceEnd

    // -------------------------------------------------------------------------------------------
    // End of frame: fire sequencer (t..) and housekeeping (t+10)
    val eofR = RegNext(eof) init False
    val ackSeqR = RegNextWhen(hdr.nextSeq, eof) init 0

    val fireSeq = new Area {
      import table._
      // Cycle t (the last beat): the lowest pending entry is split off the pending set, for both outcomes of that
      // beat's commit (P or P | NP, both from registers; the beat only selects). Then one entry per cycle from the
      // rest, lowest index first. The segment's verdict, known in t+1, gates the result, not the input.
      def lowest(x: Bits): (Bits, Bits) = { val m1 = (x.asUInt - 1).asBits; (x & ~m1, x & m1) }
      val (ohP, restP) = lowest(P)
      val (ohPN, restPN) = lowest(P | NP)
      val commitNow = feed && scan.evCommit
      val rest = Reg(Bits(N bits)) init 0
      val (ohRest, restRest) = lowest(rest)
      val drop = eofR && !hdr.segGood1
      val oh = Reg(Bits(N bits)) init 0
      val ohValid = RegInit(False)
      when(eof) {
        oh := commitNow ? ohPN | ohP
        rest := commitNow ? restPN | restP
        ohValid := (P | (commitNow ? NP | B(0, N bits))) =/= 0
      } otherwise {
        oh := ohRest
        rest := drop ? B(0, N bits) | restRest
        ohValid := rest =/= 0 && !drop
      }
      val fireCommit = eofR && hdr.segGood1
      // t+1 and after: the entry's number and its trade log slot (a 64-way selection), registered; then the
      // template and the record (LUT RAM reads) into the fire register.
      val idx = RegNext(OHToUInt(oh)) init 0
      val trigSel = RegNext((0 until N).map(j => oh(j) ? trig(j) | U(0, 4 bits)).reduceBalancedTree(_ | _)) init 0
      val validB = RegNext(ohValid && !drop) init False
      val rec = tradeLog.readAsync(trigSel)
      val fireV = RegNext(validB) init False
      val fireP = Reg(OffloadFire())
      fireP.trigger := idx.resized
      fireP.template := tmplMem.readAsync(idx)
      fireP.ackSeq := ackSeqR
      fireP.price := rec(OffloadFire.priceWidth + 31 downto 32).asUInt
      fireP.stamp := rec(31 downto 0).asUInt
      fireP.recordValid := trigSel =/= logSlots - 1
      io.fire.valid := fireV
      io.fire.payload := fireP
      val restZero = RegNext(rest === 0) init True     // one cycle late: ohValid, validB and fireV cover the gap
      val idle = !eofR && restZero && !ohValid && !validB && !fireV
    }

    val hk = new Area {
      val cnt = Reg(UInt(4 bits)) init 0
      val accepted = RegInit(False)
      val good = RegInit(False)
      val kind = Reg(UInt(3 bits)) init 0
      val nextSeq = Reg(UInt(32 bits)) init 0
      val fin = RegInit(False)
      when(eof) { nextSeq := hdr.nextSeq; fin := hdr.fin }
      when(eofR) {
        cnt := 9; accepted := hdr.eofAccept; good := hdr.segGood1; kind := hdr.kind1
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
      eventFifo.io.push.valid := evPending && fireSeq.idle && cnt === 0
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
    // Commands from sys, applied between frames; the table programming engine.
    val ctl = new Area {
      val x = sysCmd
      val reqSync = BufferCC(x.reqToggle, False)
      val reqPrev = RegNext(reqSync) init False
      val ackToggle = RegInit(False)
      val result = Reg(Bits(16 bits)) init 0
      val resultSeq = Reg(UInt(32 bits)) init 0
      val idlePoint = !hdr.inFrame && !v && !eofR && hk.idle && fireSeq.idle
      val entry = x.xEntry.resize(log2Up(N))
      // The entry as a one-hot token, rotated into place before the command runs (cheaper than a decoder).
      val tok = Reg(Bits(N bits)) init 1
      val tokIdx = Reg(UInt(log2Up(N) bits)) init 0
      val entryOh = tok
      val scannerResetNow = Bool(); scannerResetNow := False
      val scannerReset = RegNext(scannerResetNow) init False   // takes effect a cycle later (fans out widely)
      val applied = Bool(); applied := False     // a command changed state (then the snapshot follows it)
      val armSet, armClr, armClrAll, post = Bool()
      armSet := False; armClr := False; armClrAll := False; post := False
      val ackDelay = Reg(UInt(2 bits)) init 0
      val st = RegInit(EngState.IDLE)
      // stop price conversion (double dabble) and normalisation (digits of the stop from its first significant one)
      val bcd = Reg(Bits(60 bits)) init 0
      val steps = Reg(UInt(6 bits)) init 0
      val lz = Reg(UInt(4 bits)) init 0          // leading zero digits of the stop's integer part
      val ls = Reg(UInt(4 bits)) init 0          // significant integer digits of the stop
      def digitTop(m: UInt): UInt = Vec((0 until 16).map(i => if (i < 14) bcd(55 - 4 * i downto 52 - 4 * i).asUInt else U(0, 4 bits)))(m)
      val symLen = Reg(UInt(4 bits)) init 0
      // Sweep: read-modify-write of the entry's bits in every row, on cycles the parser leaves free.
      val symPtr = Reg(UInt(10 bits)) init 0
      val pricePtr = Reg(UInt(9 bits)) init 0
      val sweeping = st === EngState.SWEEP
      val parSym = feed && scan.evSymLook
      val parPrice = feed && scan.evPriceLook
      val engSymGo = sweeping && !symPtr(9) && !parSym
      val engPriceGo = sweeping && !pricePtr(8) && !parPrice
      val rmwSym1 = RegNext(engSymGo) init False
      val rmwSym1b = RegNext(rmwSym1) init False
      val rmwSym2 = RegNext(rmwSym1b) init False
      val rmwPrice1 = RegNext(engPriceGo) init False
      val rmwPrice1b = RegNext(rmwPrice1) init False
      val rmwPrice2 = RegNext(rmwPrice1b) init False
      table.symRdEn := parSym || engSymGo
      table.symRdAddr := parSym ? scan.symAddr | symPtr(8 downto 0)
      table.priceRdEn := parPrice || engPriceGo
      table.priceRdAddr := parPrice ? scan.priceAddr | pricePtr(7 downto 0)
      when(engSymGo) { symPtr := symPtr + 1 }
      when(engPriceGo) { pricePtr := pricePtr + 1 }

      when(reqSync =/= reqPrev) { st := EngState.TOKEN; tok := 1; tokIdx := 0 }
      // the command's comparisons, while the token turns (the transfer registers are stable)
      val decimalsBad = RegNext(x.xDecimals > maxDecimals) init False
      val decimalsChanged = RegNext(x.xDecimals =/= cfgDecimals) init False
      val maxIntNew = RegNext(U(maxDigits, 4 bits) - x.xDecimals) init maxDigits
      switch(st) {
        is(EngState.TOKEN) {
          when(tokIdx === entry) { st := EngState.PRE } otherwise { tok := tok.rotateLeft(1); tokIdx := tokIdx + 1 }
        }
        // Between frames (idlePoint) the command is decided; it takes effect a cycle later, which nothing in a frame
        // that starts then can notice: the header compares its fields with the configuration from byte 6 on, and
        // no payload byte comes within the first 54.
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
                }
              }
              is(Op.LOAD_SEQ) { rcvNxt := x.xRcvNxt; closed := False; scannerResetNow := True }
              is(Op.WRITE_ENTRY) {
                armClr := True
                bcd := 0; steps := 0; st := EngState.CONVERT
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
          bcd := adj(58 downto 0) ## x.xStop.asBits.reversed(steps)
          steps := steps + 1
          when(steps === 47) { st := EngState.NORMALIZE; ls := maxIntDigits; lz := 0 }
        }
        is(EngState.NORMALIZE) {
          when(bcd(59 downto 56) =/= 0) { result := 1; st := EngState.ACK }   // >= 10^14: refused, the entry stays disarmed
            .elsewhen(ls =/= 0 && digitTop(lz) === 0) { lz := lz + 1; ls := ls - 1 }
            .otherwise { st := EngState.SWEEP; symPtr := 0; pricePtr := 0 }
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
      val fireClr = fireSeq.fireCommit ? (table.P & table.oneShot) | B(0, N bits)
      table.armed := ((table.armed & ~fireClr & ~((armClr || armClrAll) ? (armClrAll ? table.allOnes | entryBits) | B(0, N bits))) |
        (armSet ? entryBits | B(0, N bits)))
      for (j <- 0 until N) when(post && tok(j)) { table.oneShot(j) := x.xOneShot }
      table.tmplMem.write(entry, x.xTmpl, post)

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
      table.symMem.write(symRow, symNew, rmwSym2)

      // price row (k, class), from the entry's point of view (mirrored for a sell stop)
      val k = pricePtr(7 downto 4)
      val cl = pricePtr(3 downto 0)
      // the stop's digits from its first significant one: s_k = digit lz + k from the top (0 past the end);
      // t: a digit from there on is not 0
      val m = (lz + k).resize(5)
      val nz = (0 until 14).map(i => bcd(55 - 4 * i downto 52 - 4 * i) =/= 0)
      val tnz = Vec(nz.scanRight(False)(_ || _).take(14) ++ Seq.fill(18)(False))
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
      table.priceMem.write(priceRow, priceNew, rmwPrice2)
    }

    // Snapshot commit/restore and scanner reset, last so that they win.
    val snapshotControl = new Area {
      def snapOf[T <: Data](w: T): T = snapPairs.find(_._1 eq w).get._2.asInstanceOf[T]
      // Between frames working state and snapshot are equal; a command that changes the working state (a
      // scanner reset, arming) is followed by a commit in the next cycle, so that a restore never undoes it.
      val resetCommit = RegNext(RegNext(ctl.applied) init False) init False   // elig follows armed one cycle later
      when(hk.commit || resetCommit) { for ((w, s) <- snapPairs if !(w eq table.tail)) s := w }
      when(resetCommit) { snapOf(table.tail) := table.tail }
      when(hk.commit) { table.tail := hk.newTail; snapOf(table.tail) := hk.newTail }
      when(hk.restore) { for ((w, s) <- snapPairs) w := s }
      // resets that never coincide with a restore, last so that they can use the flip-flops' reset
      when(table.symKill2 || table.msgStart3) { table.S := 0 }
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
    regs.ro("FIRE_PRICE_LO", 0x094, head.price(31 downto 0), "the trade price that crossed, bits 31:0 (fixed point)")
    regs.ro("FIRE_PRICE_HI", 0x098, head.price(47 downto 32), "bits 47:32")
    regs.ro("FIRE_STAMP", 0x09C, head.stamp, "eth_rx cycle when the SOH ending that price was on the MAC stream (pins: minus 6)")
    val pop = regs.writeFlow("FIRE_POP", 0x0A0, 1, "write (any value): drop the oldest fire record")
    head.ready := pop.valid
  }

  /** Build constants for the C header. */
  def headerConstants: Seq[(String, String, String)] = Seq(
    ("OFFLOAD_RX_ENTRIES", s"${N}U", "trigger table entries"),
    ("OFFLOAD_RX_SYM_CHARS", s"${symChars}U", "longest symbol"),
    ("OFFLOAD_RX_PRICE_DIGITS", s"${maxDigits}U", "fixed-point prices are < 10^this"),
    ("OFFLOAD_RX_MAX_DECIMALS", s"${maxDecimals}U", "implied decimals 0..this"),
    ("OFFLOAD_RX_LOG_SLOTS", s"${logSlots - 1}U", "trade log slots (fires whose price was not logged have RECORD_VALID 0)"),
    ("OFFLOAD_RX_STAMP_TO_PINS", "6U", "FIRE_STAMP minus this = the eth_rx cycle the byte was on the RX pins (LiteEth default)"))
}
