// The CPU's frame path to and from the LiteEth MAC: receive slots and a transmit buffer in RAM, with
// the registers the firmware driver uses. Three clock domains, every crossing explicit:
//
//   rx (eth_rx)  MAC rx_* flow -> RX writer -> RX slot RAM (write eth_rx, read sys)
//                                    |-> descriptor StreamFifoCC (slot, length) -> sys  (slot ownership, see below)
//                                    '-> event StreamFifoCC (one per frame: kind, length) -> sys counters
//                EthRxFilter at the same tap: its verdict decides whether a good frame may be committed
//                (its configuration: sys registers -> StreamCCByToggle -> eth_rx, applied as a whole)
//   sys          bus (PipelinedMemoryBus) -> registers (RegMap "ETH"), TX buffer window, RX buffer window
//   tx (eth_tx)  TX_LEN (held) + start pulse (PulseCCByToggle) -> TX reader -> TX RAM (write sys, read eth_tx)
//                -> tx stream to the MAC (no bubbles once a frame starts); done pulse (PulseCCByToggle) -> sys
//
// RX slot ownership. Slots are used as a ring: frames are committed in arrival order into slot
// (commits mod rxSlots), and the CPU releases them in the same order (RX_RELEASE gives back the oldest).
// The descriptor StreamFifoCC (depth rxSlots) therefore *is* the ownership record: an entry in it is a
// slot the CPU owns. Its head stays in the FIFO until RX_RELEASE pops it, so the push side's "not full"
// (computed from the Gray-coded pop pointer, resynchronised into eth_rx) means "the slot at the write
// pointer is free". A late view of the pop pointer only makes a slot look busy longer, never free too
// early. The writer decides at the first beat of a frame whether it has a slot, and keeps that decision
// for the whole frame: a frame without a slot is dropped whole (RX_DROPS_FULL), a committed slot is never
// written. Bad frames (CRC, runt, oversize) are written into the free slot but not committed, so the
// next frame overwrites them.
//
// Resets: the three domains' resets must be asserted together (the FIFOs' pointers in two domains are
// reset at the same time); LiteEth's eth_rx_rst/eth_tx_rst follow the SoC reset, which does that.
package triggerfish.eth

import spinal.core._
import spinal.lib._
import spinal.lib.bus.simple._
import triggerfish.soc.{RegField, RegMap}

case class EthBuffersConfig(
  rxSlots: Int = 8,            // receive slots (a power of two); each holds one frame
  slotBytes: Int = 2048,       // bytes per receive slot (a power of two, >= 64)
  txBytes: Int = 2048,         // transmit buffer bytes (a power of two): the longest frame that can be sent
  maxFrameBytes: Int = 1518,   // longest frame accepted (DA..payload, FCS already stripped by the MAC)
  minFrameBytes: Int = 60,     // shorter frames are runts
  eventFifoDepth: Int = 8,     // per-frame events from eth_rx to the sys counters (see the sizing note below)
  filterConns: Int = 1,        // connections the receive filter lets through (EthRxFilter; firmware has one: NET_TCP_MAX_CONNS)
  rxVeto: Int = 0              // 0: none; N >= 2: a good frame's commit waits for io.rxVeto (and io.rxChecked), sampled N eth_rx
                               // cycles after its last beat on io.rx (the offload's verdicts: OffloadRx.digestedLatency)
) {
  require(rxVeto == 0 || (rxVeto >= 2 && rxVeto <= 10), "rxVeto: 0 or 2..10 (the next frame must not start before the commit is decided)")
  require(isPow2(rxSlots) && rxSlots >= 2 && rxSlots <= 256, "rxSlots: a power of two in 2..256")
  require(isPow2(slotBytes) && slotBytes >= 64, "slotBytes: a power of two >= 64")
  require(rxSlots * slotBytes <= 32 * 1024, "the RX window is 32 KiB: rxSlots * slotBytes <= 32768")
  require(isPow2(txBytes) && txBytes >= 64 && txBytes <= 16 * 1024, "txBytes: a power of two in 64..16384")
  require(minFrameBytes >= 2 && minFrameBytes <= maxFrameBytes)
  require(isPow2(eventFifoDepth) && eventFifoDepth >= 4)
  require(filterConns >= 1 && filterConns <= 4, "filterConns: 1..4 (two registers each at FILTER_CONN0_IP + 8 * i)")
  /** The longest frame stored: longer ones are cut here and dropped as OVERSIZE. */
  def rxLimit: Int = scala.math.min(maxFrameBytes, slotBytes)
  def rxLenWidth: Int = log2Up(rxLimit + 1)      // frame lengths 0..rxLimit
  def slotWidth: Int = log2Up(rxSlots)
  def txLenWidth: Int = log2Up(txBytes + 1)      // 1..txBytes
}

object EthBuffersConfig {
  def default = EthBuffersConfig()
  /** A small build for tests that want the ring to fill quickly. */
  def small = EthBuffersConfig(rxSlots = 4)
}

/** One beat of the MAC's receive stream (rx_data, rx_last, rx_error; rx_valid is the Flow's valid). */
case class EthRxBeat() extends Bundle {
  val data = Bits(8 bits)
  val last = Bool()
  val error = Bool()   // meaningful on the last beat: bad FCS
}

/** The PHY management pins, bit-banged by firmware (MDIO is open drain: drive it low through oe). */
case class EthMdio() extends Bundle with IMasterSlave {
  val mdc = Bool()
  val mdio_o = Bool()
  val mdio_oe = Bool()
  val mdio_i = Bool()
  override def asMaster(): Unit = { out(mdc, mdio_o, mdio_oe); in(mdio_i) }
}

/** A committed receive frame, eth_rx -> sys: its slot and length. */
case class EthRxDesc(c: EthBuffersConfig) extends Bundle {
  val slot = UInt(c.slotWidth bits)
  val length = UInt(c.rxLenWidth bits); val checked = (c.rxVeto > 0) generate Bool()   // checked: io.rxChecked of it
}

/** What became of a received frame (EthFrameBuffers.Ev), eth_rx -> sys counters. */
case class EthRxEvent(c: EthBuffersConfig) extends Bundle {
  val kind = UInt(EthFrameBuffers.Ev.width bits)
  val length = UInt(c.rxLenWidth bits)
}

/** What travels beside a TX RAM read: the byte lane and whether it is the frame's last byte. */
case class EthTxLinked() extends Bundle {
  val lane = UInt(2 bits)
  val last = Bool()
}

/** A TX RAM word as read, with what travelled beside its address. */
case class EthTxWord() extends Bundle {
  val value = Bits(32 bits)
  val linked = EthTxLinked()
}

/** The TX buffer: 32-bit words with byte enables, read and written from sys (port A), read by eth_tx (port B),
  * both reads registered. Inline Verilog with one array, because SpinalHDL writes a Mem with a write mask as
  * one array per byte lane, and on ECP5 each lane of 2 KiB then takes a block RAM of its own: 4 DP16KD where
  * one array with byte enables takes 2 (true dual port, x18). Read during a write on port A: the old word. */
class EthTxRam(words: Int, aCd: ClockDomain, bCd: ClockDomain) extends BlackBox {
  val aw = log2Up(words)
  addGeneric("WORDS", words)
  addGeneric("AW", aw)
  setDefinitionName("EthTxRam")
  val io = new Bundle {
    val a_clk = in Bool()
    val a_en = in Bool()
    val a_we = in Bits (4 bits)
    val a_addr = in UInt (aw bits)
    val a_wdata = in Bits (32 bits)
    val a_rdata = out Bits (32 bits)
    val b_clk = in Bool()
    val b_en = in Bool()
    val b_addr = in UInt (aw bits)
    val b_rdata = out Bits (32 bits)
  }
  noIoPrefix()
  mapClockDomain(aCd, io.a_clk)
  mapClockDomain(bCd, io.b_clk)
  setInlineVerilog(
    """// Triggerfish Ethernet TX buffer: one array, byte enables on port A (sys), read-only port B (eth_tx).
      |module EthTxRam #(parameter WORDS = 512, parameter AW = 9) (
      |  input a_clk, input a_en, input [3:0] a_we, input [AW-1:0] a_addr, input [31:0] a_wdata, output reg [31:0] a_rdata,
      |  input b_clk, input b_en, input [AW-1:0] b_addr, output reg [31:0] b_rdata);
      |  reg [31:0] mem [0:WORDS-1];
      |  always @(posedge a_clk) if (a_en) begin
      |    if (a_we[0]) mem[a_addr][7:0] <= a_wdata[7:0];
      |    if (a_we[1]) mem[a_addr][15:8] <= a_wdata[15:8];
      |    if (a_we[2]) mem[a_addr][23:16] <= a_wdata[23:16];
      |    if (a_we[3]) mem[a_addr][31:24] <= a_wdata[31:24];
      |    a_rdata <= mem[a_addr];
      |  end
      |  always @(posedge b_clk) if (b_en) b_rdata <= mem[b_addr];
      |endmodule
      |""".stripMargin)
}

object EthFrameBuffers {
  val busConfig = PipelinedMemoryBusConfig(addressWidth = 16, dataWidth = 32)
  // Bus windows (byte offsets from the block's base).
  val txWindow = 0x4000
  val rxWindow = 0x8000
  // Event kinds from eth_rx to the sys counters (one event per received frame).
  object Ev {
    val COMMIT = 0; val CRC = 1; val RUNT = 2; val OVERSIZE = 3; val FULL = 4; val FILTERED = 5; val ICMP_LIMITED = 6
    val VETOED = 7
    val width = 3
  }
}

/** Receive slots and transmit buffer between the LiteEth MAC streams and the CPU.
  * In:  bus (sys), rx flow (rxCd), mdio_i.  Out: tx stream (txCd), interrupt (sys), mdc/mdio_o/mdio_oe (sys). */
case class EthFrameBuffers(config: EthBuffersConfig, rxCd: ClockDomain, txCd: ClockDomain) extends Component {
  import EthFrameBuffers._
  val io = new Bundle {
    val bus = slave(PipelinedMemoryBus(busConfig))
    val rx = slave(Flow(EthRxBeat()))                 // rxCd
    val tx = master(Stream(Fragment(Bits(8 bits))))   // txCd
    val interrupt = out Bool()
    val mdio = master(EthMdio())
    val rxVeto, rxChecked = (config.rxVeto > 0) generate in(Bool())   // rxCd, the frame that ended rxVeto cycles ago: drop it; its sums are good
  }
  val sysCd = ClockDomain.current

  // ---------------------------------------------------------------------------------------------
  // Storage. Both RAMs are 32-bit wide with byte enables: RX slots written byte by byte in eth_rx and
  // read by words in sys; TX written by words (byte masks) and read in sys, read by bytes in eth_tx
  // (EthTxRam, one array in the Verilog so that it takes 2 ECP5 block RAMs rather than 4).
  val rxWords = config.rxSlots * config.slotBytes / 4
  val rxMem = Mem(Bits(32 bits), rxWords)
  val txWords = config.txBytes / 4
  val txRam = new EthTxRam(txWords, ClockDomain.current, txCd)

  // Crossing FIFOs (push eth_rx, pop sys).
  val descFifo = new StreamFifoCC(EthRxDesc(config), config.rxSlots, rxCd, sysCd, withPopBufferedReset = false)
  // Event FIFO sizing: the MAC emits at most one frame per 25 eth cycles (1-beat runt: 8 preamble + 5
  // + 12 IFG); at 125 MHz vs sys >= 40 MHz that is one event per >= 8 sys cycles, while the FIFO drains
  // one per sys cycle after ~4 cycles of pointer synchronisation. Occupancy stays <= 2; depth 8 is ample.
  val eventFifo = new StreamFifoCC(EthRxEvent(config), config.eventFifoDepth, rxCd, sysCd, withPopBufferedReset = false)

  // ---------------------------------------------------------------------------------------------
  // RX writer (eth_rx)
  val rxArea = new ClockingArea(rxCd) {
    val beat = io.rx.stage()                 // register the MAC's outputs once
    val inFrame = RegInit(False)
    val slotOk = RegInit(False)              // this frame has a free slot to go to
    val wrSlot = Reg(UInt(config.slotWidth bits)) init 0   // the slot frames go to (next commit)
    // Bytes of this frame before the current beat (stops at rxLimit), and two flags about it kept in
    // registers, so that the end-of-frame decision is a few LUTs and not adders and comparators in a row.
    val count = Reg(UInt(config.rxLenWidth bits)) init 0
    val countGeLimit = RegInit(False)        // count >= rxLimit: this beat does not fit, the frame is oversize
    val countGeMin = RegInit(False)          // count >= minFrameBytes - 1: with this beat the frame is no runt

    // The receive filter listens at the tap itself: its verdict on a frame is there one cycle after the frame's last
    // beat on the tap, which is when `beat` (registered once) shows that last beat here.
    val filterConfig = Reg(EthRxFilterConfig(config.filterConns))
    filterConfig.enable init False
    filterConfig.localIp init 0
    filterConfig.icmpInterval init 0
    for (c <- filterConfig.conn) c.valid init False
    val filter = EthRxFilter(config.filterConns, config.minFrameBytes)
    filter.io.rx << io.rx
    filter.io.config := filterConfig
    val verdict = filter.io.verdict

    val first = !inFrame
    // The FIFO's room, registered: its gray-pointer compare sat in front of the slot RAM's write enables (the 5A-75B's
    // eth_rx critical path). A cycle late only after a push, when no frame can be starting (the inter-frame gap).
    val pushReady = RegNext(descFifo.io.push.ready) init False
    assert(!(RegNext(descFifo.io.push.fire, init = False) && beat.valid && first),
      "EthFrameBuffers: a frame started in the cycle after a commit, when the registered FIFO room is stale")
    val haveSlot = first ? pushReady | slotOk
    val pos = first ? U(0, config.rxLenWidth bits) | count
    val geLimit = !first && countGeLimit
    val geMin = !first && countGeMin
    val lenAfter = geLimit ? pos | pos + 1   // frame length including this beat (when it fits)

    when(beat.valid) {
      inFrame := !beat.last
      count := lenAfter
      countGeLimit := geLimit || pos === config.rxLimit - 1
      countGeMin := geMin || pos === config.minFrameBytes - 2
      when(first) { slotOk := pushReady }
    }

    // Byte write into the slot, while it fits.
    val byteAddr = (wrSlot ## pos.resize(log2Up(config.slotBytes))).asUInt
    rxMem.write(
      address = byteAddr(byteAddr.high downto 2),
      data = beat.data #* 4,
      enable = beat.valid && haveSlot && !geLimit,
      mask = UIntToOh(byteAddr(1 downto 0), 4))

    // End of frame: classify.
    val kind = UInt(Ev.width bits)
    when(beat.error) { kind := Ev.CRC }
      .elsewhen(!geMin) { kind := Ev.RUNT }
      .elsewhen(geLimit) { kind := Ev.OVERSIZE }
      .elsewhen(verdict === EthRxFilter.Verdict.FILTERED) { kind := Ev.FILTERED }
      .elsewhen(verdict === EthRxFilter.Verdict.ICMP_LIMITED) { kind := Ev.ICMP_LIMITED }
      .elsewhen(!haveSlot) { kind := Ev.FULL }
      .otherwise { kind := Ev.COMMIT }
    val endOfFrame = beat.valid && beat.last

    val commitNow = endOfFrame && !beat.error && geMin && !geLimit && verdict === EthRxFilter.Verdict.KEEP && haveSlot
    if (config.rxVeto == 0) {
      descFifo.io.push.valid := commitNow
      descFifo.io.push.slot := wrSlot
      descFifo.io.push.length := lenAfter
      eventFifo.io.push.valid := endOfFrame
      eventFifo.io.push.kind := kind
      eventFifo.io.push.length := lenAfter
    } else new Area {
      // The commit waits for the veto: decided in the cycle io.rxVeto speaks for this frame (endOfFrame is a cycle
      // after its last beat on io.rx), long before the next frame can start (the inter-frame gap and preamble are
      // 20 cycles at GMII); the frame's event goes with the decision.
      val pending = RegInit(False)
      val waitLeft = Reg(UInt(4 bits)) init 0
      val len = Reg(UInt(config.rxLenWidth bits)) init 0
      when(commitNow) { pending := True; waitLeft := config.rxVeto - 1; len := lenAfter }
      when(pending) { waitLeft := waitLeft - 1 }
      val decide = pending && waitLeft === 1
      when(decide) { pending := False }
      assert(!(pending && beat.valid), "EthFrameBuffers: a frame started before the last one's commit was decided")
      descFifo.io.push.valid := decide && !io.rxVeto
      descFifo.io.push.slot := wrSlot
      descFifo.io.push.length := len; descFifo.io.push.checked := io.rxChecked
      eventFifo.io.push.valid := (endOfFrame && !commitNow) || decide
      eventFifo.io.push.kind := decide ? (io.rxVeto ? U(Ev.VETOED, Ev.width bits) | U(Ev.COMMIT, Ev.width bits)) | kind
      eventFifo.io.push.length := decide ? len | lenAfter
    }
    when(descFifo.io.push.fire) { wrSlot := wrSlot + 1 }
    // Sticky, should never happen with the sizing above; visible in STATUS.EVENT_LOST.
    val eventLost = RegInit(False) setWhen (eventFifo.io.push.valid && !eventFifo.io.push.ready)
  }

  // ---------------------------------------------------------------------------------------------
  // Bus decode (sys): 0x0000..0x3FFF registers (0x000..0xFFF, aliased), 0x4000 TX window, 0x8000 RX window.
  // Every access completes in one cycle; a read answers on the next cycle.
  val regBus = PipelinedMemoryBus(PipelinedMemoryBusConfig(addressWidth = 12, dataWidth = 32))
  val sel = io.bus.cmd.address(15 downto 14)
  val selRegs = sel === 0
  val selTx = sel === 1
  val selRx = sel(1)
  regBus.cmd.valid := io.bus.cmd.valid && selRegs
  regBus.cmd.write := io.bus.cmd.write
  regBus.cmd.address := io.bus.cmd.address(11 downto 0)
  regBus.cmd.data := io.bus.cmd.data
  regBus.cmd.mask := io.bus.cmd.mask
  io.bus.cmd.ready := !selRegs || regBus.cmd.ready

  val factory = new PipelinedMemoryBusSlaveFactory(regBus)
  val regs = new RegMap("ETH", "Ethernet frame buffers: RX slots, TX buffer, counters, MDIO", factory)

  txRam.io.a_en := io.bus.cmd.fire && selTx
  txRam.io.a_we := io.bus.cmd.write ? io.bus.cmd.mask | B"0000"
  txRam.io.a_addr := io.bus.cmd.address(log2Up(config.txBytes) - 1 downto 2)
  txRam.io.a_wdata := io.bus.cmd.data
  val txBufRead = txRam.io.a_rdata
  val rxBufRead = rxMem.readSync(
    address = io.bus.cmd.address(log2Up(config.rxSlots * config.slotBytes) - 1 downto 2),
    enable = io.bus.cmd.fire && selRx && !io.bus.cmd.write,
    clockCrossing = true)
  val readFire = io.bus.cmd.fire && !io.bus.cmd.write
  val rspSel = RegNextWhen(sel, readFire) init 0
  io.bus.rsp.valid := RegNext(readFire) init False
  io.bus.rsp.data := rspSel.mux(0 -> regBus.rsp.data, 1 -> txBufRead, default -> rxBufRead)


  // ---------------------------------------------------------------------------------------------
  // Registers (sys)
  val sysArea = new Area {
    regs.ro("CONFIG", 0x000, "build parameters",
      U(config.rxSlots, 9 bits) -> RegField("RX_SLOTS", 0, 9, "number of receive slots"),
      U(log2Up(config.slotBytes), 5 bits) -> RegField("SLOT_LOG2", 12, 5, "log2 of the bytes per slot (slot i is at RX_BUF + (i << SLOT_LOG2))"),
      U(log2Up(config.txBytes), 5 bits) -> RegField("TX_LOG2", 20, 5, "log2 of the TX buffer size"))

    // Interrupts
    val irqEnRx = RegInit(False)
    val irqEnTx = RegInit(False)
    regs.rwFields("IRQ_ENABLE", 0x004, "interrupt enables",
      (irqEnRx, RegField("RX", 0, 1, "interrupt while a received frame is waiting"), true),
      (irqEnTx, RegField("TX", 1, 1, "interrupt while TX_STATUS.DONE is set"), true))

    val eventLost = BufferCC(rxArea.eventLost, False)   // quasi-static sticky bit
    val txBusy = RegInit(False)
    val txDone = RegInit(False)
    val rxWaiting = descFifo.io.pop.valid
    regs.ro("IRQ_PENDING", 0x008, "interrupt sources (before the enables)",
      rxWaiting -> RegField("RX", 0, 1, "a received frame is waiting"),
      txDone -> RegField("TX", 1, 1, "a transmission has finished (TX_STATUS.DONE)"))
    val filterPending = RegInit(False)   // FILTER_APPLY written, snapshot not yet taken by the crossing
    val filterBusy = Bool()              // ... or taken and not yet acknowledged by the receive side
    regs.ro("STATUS", 0x00C, "component status",
      eventLost -> RegField("EVENT_LOST", 0, 1, "sticky: a receive event was lost in the clock crossing (counters incomplete; never expected)"),
      filterBusy -> RegField("FILTER_PENDING", 1, 1, "a FILTER_APPLY has not reached the receive side yet"))
    io.interrupt := RegNext((irqEnRx && rxWaiting) || (irqEnTx && txDone)) init False

    // RX: the oldest waiting frame is the head of the descriptor FIFO.
    val head = descFifo.io.pop
    regs.ro("RX_STATUS", 0x010, "the oldest waiting received frame", Seq[(Data, RegField)](   // (and CHECKED, bit 1, in veto builds: checkedField)
      head.valid -> RegField("VALID", 0, 1, "a frame is waiting (the other fields describe it)"),
      (head.valid ? head.slot.resize(8) | U(0, 8 bits)) -> RegField("SLOT", 8, 8, "its slot: bytes at RX_BUF + SLOT * slot size"),
      (head.valid ? head.length.resize(16) | U(0, 16 bits)) -> RegField("LENGTH", 16, 16, "its length in bytes (DA..payload, no FCS)")) ++ checkedField(head): _*)
    val release = regs.writeFlow("RX_RELEASE", 0x014, 1, "write (any value): give the oldest waiting slot back; ignored if none waits")
    head.ready := release.valid
    regs.ro("RX_PENDING", 0x018, descFifo.io.popOccupancy.resize(16), "number of received frames waiting")

    // TX: one frame at a time.
    val txLen = Reg(UInt(config.txLenWidth bits)) init 0
    txLen.addTag(crossClockDomain)   // held stable while busy; eth_tx samples it after the start pulse
    val txLenWrite = regs.writeFlow("TX_LEN", 0x020, 16,
      s"write the frame length in bytes (1..${config.txBytes}) to send the TX buffer; refused and counted in TX_ERRORS while busy or out of range")
    val lenValue = txLenWrite.payload.asUInt
    val lenOk = lenValue =/= 0 && lenValue <= config.txBytes
    val txStart = txLenWrite.valid && !txBusy && lenOk
    val txRefused = txLenWrite.valid && !txStart
    regs.ro("TX_STATUS", 0x024, "transmit state",
      txBusy -> RegField("BUSY", 0, 1, "a frame is being sent: do not write the TX buffer or TX_LEN"),
      txDone -> RegField("DONE", 1, 1, "sticky: the last frame has gone to the MAC (cleared by TX_ACK or TX_LEN)"))
    val txAck = regs.writeFlow("TX_ACK", 0x028, 1, "write (any value): clear TX_STATUS.DONE")

    // MDIO: bit-banged by firmware.
    val mdc = RegInit(False)
    val mdioOut = RegInit(True)
    val mdioOe = RegInit(False)
    val mdioIn = BufferCC(io.mdio.mdio_i, True)
    regs.rwFields("MDIO", 0x030, "PHY management bus pins (bit-banged)",
      (mdc, RegField("MDC", 0, 1, "MDC pin level"), true),
      (mdioOut, RegField("OUT", 1, 1, "MDIO level driven while OE is set"), true),
      (mdioOe, RegField("OE", 2, 1, "drive MDIO"), true),
      (mdioIn, RegField("IN", 3, 1, "MDIO pin level, synchronised (read only)"), false))
    io.mdio.mdc := mdc
    io.mdio.mdio_o := mdioOut
    io.mdio.mdio_oe := mdioOe

    // Counters, 32 bits, wrapping.
    def counter(name: String, offset: Int, doc: String): UInt = {
      val c = Reg(UInt(32 bits)) init 0
      regs.ro(name, offset, c, doc)
      c
    }
    val rxFrames = counter("RX_FRAMES", 0x040, "frames received and delivered to a slot")
    val rxBytes = counter("RX_BYTES", 0x044, "bytes of the frames counted in RX_FRAMES")
    val crcErrors = counter("CRC_ERRORS", 0x048, "frames dropped: bad FCS")
    val runts = counter("RUNTS", 0x04C, s"frames dropped: shorter than ${config.minFrameBytes} bytes")
    val oversize = counter("OVERSIZE", 0x050, s"frames dropped: longer than ${config.rxLimit} bytes")
    val rxDropsFull = counter("RX_DROPS_FULL", 0x054, "good frames dropped: no free slot when they started")
    val txFrames = counter("TX_FRAMES", 0x058, "frames sent")
    val txBytesCount = counter("TX_BYTES", 0x05C, "bytes of the frames counted in TX_FRAMES")
    val txErrors = counter("TX_ERRORS", 0x060, "TX_LEN writes refused (busy, 0, or too long)")
    val filtered = counter("FILTERED", 0x064, "good frames dropped by the receive filter: not for this host's connections, ARP or ICMP echo")
    val icmpLimited = counter("ICMP_LIMITED", 0x068, "ICMP echo requests to this host dropped by the receive filter's rate limit")
    val rxVetoed = (config.rxVeto > 0) generate counter("RX_VETOED", 0x0A0, "good frames not committed: the offload digested them (io.rxVeto)")

    // Receive filter configuration (EthRxFilter): written here, taken by the receive side as a whole at FILTER_APPLY.
    val fEnable = RegInit(False)
    val fConnValid = Reg(Bits(config.filterConns bits)) init 0
    val fIp = Reg(Bits(32 bits)) init 0
    val fIcmp = Reg(UInt(16 bits)) init 0
    val fConnIp = Vec.fill(config.filterConns)(Reg(Bits(32 bits)) init 0)
    val fConnLocal = Vec.fill(config.filterConns)(Reg(Bits(16 bits)) init 0)
    val fConnRemote = Vec.fill(config.filterConns)(Reg(Bits(16 bits)) init 0)
    regs.rwFields("FILTER_CTRL", 0x070, "receive filter: on/off and which connection entries are in use (applied at FILTER_APPLY)",
      (fEnable, RegField("ENABLE", 0, 1, "only ARP, ICMP echo to FILTER_IP (rate-limited) and the connections below take a receive slot"), true),
      (fConnValid, RegField("CONN_VALID", 8, config.filterConns, "bit i: FILTER_CONNi_* is a connection in use"), true))
    regs.rw("FILTER_IP", 0x074, fIp, "receive filter: this host's IPv4 address (first byte on the wire in bits 31..24)")
    regs.rw("FILTER_ICMP", 0x078, fIcmp, s"receive filter: an ICMP echo token every FILTER_ICMP * ${EthRxFilter.tokenPrescale} eth_rx cycles, at most ${EthRxFilter.icmpBucket} saved; 0: no limit")
    val filterApply = regs.writeFlow("FILTER_APPLY", 0x07C, 1, "write (any value): the receive side takes the FILTER_* registers as they are (STATUS.FILTER_PENDING until it has)")
    for (i <- 0 until config.filterConns) {
      regs.rw(s"FILTER_CONN${i}_IP", 0x080 + 8 * i, fConnIp(i), s"receive filter: connection $i's remote IPv4 address")
      regs.rwFields(s"FILTER_CONN${i}_PORTS", 0x084 + 8 * i, s"receive filter: connection $i's ports",
        (fConnLocal(i), RegField("LOCAL", 0, 16, "this host's port"), true),
        (fConnRemote(i), RegField("REMOTE", 16, 16, "the remote port"), true))
    }
    val filterStaged = EthRxFilterConfig(config.filterConns)
    filterStaged.enable := fEnable
    filterStaged.localIp := fIp
    filterStaged.icmpInterval := fIcmp
    for (i <- 0 until config.filterConns) {
      filterStaged.conn(i).valid := fConnValid(i)
      filterStaged.conn(i).remoteIp := fConnIp(i)
      filterStaged.conn(i).remotePort := fConnRemote(i)
      filterStaged.conn(i).localPort := fConnLocal(i)
    }

    val ev = eventFifo.io.pop
    ev.ready := True
    when(ev.valid) {
      switch(ev.kind) {
        is(Ev.COMMIT) { rxFrames := rxFrames + 1; rxBytes := rxBytes + ev.length.resized }
        is(Ev.CRC) { crcErrors := crcErrors + 1 }
        is(Ev.RUNT) { runts := runts + 1 }
        is(Ev.OVERSIZE) { oversize := oversize + 1 }
        is(Ev.FULL) { rxDropsFull := rxDropsFull + 1 }
        is(Ev.FILTERED) { filtered := filtered + 1 }
        is(Ev.ICMP_LIMITED) { icmpLimited := icmpLimited + 1 }
        if (config.rxVeto > 0) is(Ev.VETOED) { rxVetoed := rxVetoed + 1 }
      }
    }

    when(txRefused) { txErrors := txErrors + 1 }
    when(txStart) { txLen := lenValue.resized; txBusy := True; txDone := False }
    when(txAck.valid) { txDone := False }
  }

  // Receive filter configuration: sys -> eth_rx, a snapshot of the FILTER_* registers taken when the crossing is free
  // (a second FILTER_APPLY while one is on its way is served by the next snapshot, which includes its writes).
  val filterCC = new Area {
    val push = Stream(EthRxFilterConfig(config.filterConns))
    push.valid := sysArea.filterPending
    push.payload := sysArea.filterStaged
    when(push.fire) { sysArea.filterPending := False }
    when(sysArea.filterApply.valid) { sysArea.filterPending := True }
    val pop = StreamCCByToggle(push, sysCd, rxCd)
    sysArea.filterBusy := sysArea.filterPending || !push.ready
    pop.ready := True
    val take = new ClockingArea(rxCd) {
      when(pop.valid) { rxArea.filterConfig := pop.payload }
    }
  }

  // Start: sys -> eth_tx. The length register is already stable when the pulse arrives.
  val startCC = new PulseCCByToggle(sysCd, txCd, false)
  startCC.io.pulseIn := sysArea.txStart

  // ---------------------------------------------------------------------------------------------
  // TX reader (eth_tx): addresses -> RAM (1 cycle) -> register -> byte select -> two register stages (s2m, m2s) -> tx.
  // The address stream stays valid from the first byte to the last, and every stage after it has full
  // throughput, so once the first byte is offered valid stays high until `last` is accepted.
  val txArea = new ClockingArea(txCd) {
    val addrWidth = log2Up(config.txBytes)
    val active = RegInit(False)
    val addr = Reg(UInt(addrWidth bits)) init 0
    val lastAddr = Reg(UInt(addrWidth bits)) init 0
    when(startCC.io.pulseOut) {
      active := True
      addr := 0
      lastAddr := (sysArea.txLen - 1).resized
    }
    val cmd = Stream(UInt(addrWidth - 2 bits))
    cmd.valid := active
    cmd.payload := addr(addrWidth - 1 downto 2)
    val isLast = addr === lastAddr
    when(cmd.fire) {
      addr := addr + 1
      when(isLast) { active := False }
    }
    val linked = EthTxLinked()
    linked.lane := addr(1 downto 0)
    linked.last := isLast
    // The RAM's output goes straight into a register (an ECP5 block RAM's clock-to-out is ~6 ns).
    // (a stream read of the RAM: the word and its lane a cycle after the address is taken)
    val ramRsp = Stream(EthTxWord())
    cmd.ready := !ramRsp.valid || ramRsp.ready
    txRam.io.b_en := cmd.ready
    txRam.io.b_addr := cmd.payload
    ramRsp.valid := RegNextWhen(cmd.valid, cmd.ready) init False
    ramRsp.value := txRam.io.b_rdata
    ramRsp.linked := RegNextWhen(linked, cmd.ready)
    val read = ramRsp.m2sPipe()
    val bytes = read.translateWith {
      val f = Fragment(Bits(8 bits))
      f.fragment := read.value.subdivideIn(8 bits)(read.linked.lane)
      f.last := read.linked.last
      f
    }
    io.tx << bytes.s2mPipe().m2sPipe()
    val done = io.tx.fire && io.tx.last
  }

  // Done: eth_tx -> sys.
  val doneCC = new PulseCCByToggle(txCd, sysCd, false)
  doneCC.io.pulseIn := txArea.done
  val txFinish = new Area {
    when(doneCC.io.pulseOut) {
      sysArea.txBusy := False
      sysArea.txDone := True
      sysArea.txFrames := sysArea.txFrames + 1
      sysArea.txBytesCount := sysArea.txBytesCount + sysArea.txLen.resized
    }
  }

  regs.window("TX_BUF", txWindow, config.txBytes, "RW", "TX buffer: the frame from DA to the end of the payload, no FCS; 32-bit accesses, byte masks honoured")
  regs.window("RX_BUF", rxWindow, config.rxSlots * config.slotBytes, "RO", "RX slots: slot i at RX_BUF + i * slot size")

  /** Build constants for the C header (CHeader's `constants`). */
  def headerConstants: Seq[(String, String, String)] = Seq(
    ("ETH_RX_SLOTS", s"${config.rxSlots}U", "receive slots"),
    ("ETH_SLOT_BYTES", s"${config.slotBytes}U", "bytes per receive slot"),
    ("ETH_TX_BUFFER_BYTES", s"${config.txBytes}U", "transmit buffer size"),
    ("ETH_MAX_FRAME", s"${config.rxLimit}U", "longest frame received (no FCS)"),
    ("ETH_MIN_FRAME", s"${config.minFrameBytes}U", "shorter received frames are runts"),
    ("ETH_FILTER_CONNS", s"${config.filterConns}U", "connections the receive filter lets through (FILTER_CONNi_*)"),
    ("ETH_FILTER_TOKEN_CYCLES", s"${EthRxFilter.tokenPrescale}U", "eth_rx cycles per FILTER_ICMP unit"))

  // RX_STATUS.CHECKED, veto builds: io.rxChecked as the descriptor brought it to the oldest waiting frame. (Kept here, at
  // the end: SpinalHDL names conditions by source line, and the builds without it keep their netlist byte for byte.)
  private def checkedField(head: Stream[EthRxDesc]): Seq[(Data, RegField)] =
    if (config.rxVeto > 0) Seq((head.valid && head.checked) -> RegField("CHECKED", 1, 1,
      "veto builds: the offload verified its IPv4 header and TCP checksums (the session's segments; 0: not verified, not bad)"))
    else Nil
}
