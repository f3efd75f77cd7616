// The SoC's own peripherals. Each is a PipelinedMemoryBus slave (12-bit local address) whose registers
// are described once in a RegMap (see RegMap.scala); tests in hw/test drive them against reference models.
package triggerfish.soc

import spinal.core._
import spinal.lib._
import spinal.lib.bus.simple._

object PeriphBus {
  val config = PipelinedMemoryBusConfig(addressWidth = 12, dataWidth = 32)
}

/** System control: identity, clock, the free-running cycle counter, the interrupt controller,
  * scratch, and the simulation-control register through which firmware reports its exit code.
  * In:  bus; irq sources (level, active high).  Out: external interrupt to the CPU; simExit flow. */
case class SysCtrl(sysClockHz: Long, timebaseHz: Long, versionHash: BigInt, irqCount: Int = 8) extends Component {
  val io = new Bundle {
    val bus = slave(PipelinedMemoryBus(PeriphBus.config))
    val irqSources = in Bits (irqCount bits)
    val externalInterrupt = out Bool()
    val simExit = master Flow (UInt(8 bits))
  }
  val factory = new PipelinedMemoryBusSlaveFactory(io.bus)
  val regs = new RegMap("SYSCTRL", "identity, cycle counter, interrupt controller, simulation control", factory)

  regs.ro("ID", 0x00, B(0x54464953L, 32 bits), "0x54464953 ('TFIS')")
  regs.ro("VERSION", 0x04, B(versionHash & 0xFFFFFFFFL, 32 bits), "build version: first 8 hex digits of the git commit")
  regs.ro("SYS_CLOCK_HZ", 0x08, U(sysClockHz, 32 bits), "the sys clock frequency this build was made for")
  regs.ro("TIMEBASE_HZ", 0x0C, U(timebaseHz, 32 bits), "mtime ticks per firmware second (scaled in simulation)")

  // 64-bit cycle counter: reading CYCLE_LO latches the high word into CYCLE_HI (one consistent value).
  val cycles = Reg(UInt(64 bits)) init 0
  cycles := cycles + 1
  val cyclesHiLatch = Reg(UInt(32 bits)) init 0
  regs.ro("CYCLE_LO", 0x10, cycles(31 downto 0), "cycle counter, low word; reading it latches the high word")
  regs.ro("CYCLE_HI", 0x14, cyclesHiLatch, "cycle counter, high word as latched by the last CYCLE_LO read")
  regs.onRead(0x10) { cyclesHiLatch := cycles(63 downto 32) }

  // Interrupt controller: level sources, a pending view and an enable mask; any enabled pending raises
  // the CPU's external interrupt.
  val irqEnable = Reg(Bits(irqCount bits)) init 0
  regs.ro("IRQ_PENDING", 0x20, io.irqSources, "interrupt sources now asserted (level)")
  regs.rw("IRQ_ENABLE", 0x24, irqEnable, "interrupt enable mask")
  io.externalInterrupt := RegNext((io.irqSources & irqEnable).orR) init False

  val scratch = Reg(Bits(32 bits)) init 0
  regs.rw("SCRATCH", 0x28, scratch, "free for firmware (survives nothing)")

  // Simulation control: a write of (0x100 | code) ends the simulation with exit code `code`.
  val exitWrite = regs.writeFlow("SIM_EXIT", 0x30, 32, "write 0x100|code: the simulation exits with code (boards ignore it)")
  io.simExit.valid := RegNext(exitWrite.valid && exitWrite.payload(8)) init False
  io.simExit.payload := RegNext(exitWrite.payload(7 downto 0).asUInt) init 0
}

/** RISC-V machine timer: mtime counts sys clock cycles; the interrupt is level, mtime >= mtimecmp.
  * 64-bit values are accessed as two words; reading MTIME_LO latches the high word. */
case class MachineTimer() extends Component {
  val io = new Bundle {
    val bus = slave(PipelinedMemoryBus(PeriphBus.config))
    val interrupt = out Bool()
  }
  val factory = new PipelinedMemoryBusSlaveFactory(io.bus)
  val regs = new RegMap("MTIMER", "RISC-V machine timer (mtime/mtimecmp)", factory)
  val mtime = Reg(UInt(64 bits)) init 0
  val mtimecmp = Reg(UInt(64 bits)) init U"64'hFFFFFFFFFFFFFFFF"
  val hiLatch = Reg(UInt(32 bits)) init 0
  val nextTime = mtime + 1
  mtime := nextTime
  regs.ro("MTIME_LO", 0x00, mtime(31 downto 0), "mtime low word; reading it latches the high word")
  regs.ro("MTIME_HI", 0x04, hiLatch, "mtime high word as latched by the last MTIME_LO read")
  regs.onRead(0x00) { hiLatch := mtime(63 downto 32) }
  val wLo = regs.writeFlow("MTIME_LO_SET", 0x08, 32, "write: set mtime low word")
  val wHi = regs.writeFlow("MTIME_HI_SET", 0x0C, 32, "write: set mtime high word")
  when(wLo.valid) { mtime(31 downto 0) := wLo.payload.asUInt }
  when(wHi.valid) { mtime(63 downto 32) := wHi.payload.asUInt }
  regs.rw("MTIMECMP_LO", 0x10, mtimecmp(31 downto 0), "mtimecmp low word")
  regs.rw("MTIMECMP_HI", 0x14, mtimecmp(63 downto 32), "mtimecmp high word")
  io.interrupt := RegNext(mtime >= mtimecmp) init False
}

/** UART, 8N1, with transmit and receive FIFOs. The bit time is DIVISOR sys clock cycles (>= 4).
  * DATA write pushes a byte to transmit (dropped and counted if the FIFO is full: check TX_FREE);
  * DATA read pops a received byte, bit 31 set when the byte is valid.
  * In: bus, rxd.  Out: txd, interrupt (rx not empty & enabled, or tx FIFO empty & enabled). */
case class Uart(defaultDivisor: Int, fifoDepth: Int = 16) extends Component {
  require(defaultDivisor >= 4)
  val io = new Bundle {
    val bus = slave(PipelinedMemoryBus(PeriphBus.config))
    val txd = out Bool()
    val rxd = in Bool()
    val interrupt = out Bool()
  }
  val factory = new PipelinedMemoryBusSlaveFactory(io.bus)
  val regs = new RegMap("UART", "serial console, 8N1", factory)

  val divisor = Reg(UInt(16 bits)) init defaultDivisor
  val txFifo = StreamFifo(Bits(8 bits), fifoDepth)
  val rxFifo = StreamFifo(Bits(8 bits), fifoDepth)
  val rxOverruns = Reg(UInt(16 bits)) init 0
  val rxFramingErrors = Reg(UInt(16 bits)) init 0
  val txDrops = Reg(UInt(16 bits)) init 0
  val irqEnable = Reg(Bits(2 bits)) init 0

  // Transmitter: start bit, 8 data bits LSB first, stop bit.
  val tx = new Area {
    val busy = Reg(Bool()) init False
    val shift = Reg(Bits(10 bits)) init B"1111111111"
    val bitCount = Reg(UInt(4 bits)) init 0
    val tick = Reg(UInt(16 bits)) init 0
    txFifo.io.pop.ready := !busy
    when(!busy && txFifo.io.pop.valid) {
      busy := True
      shift := B"1" ## txFifo.io.pop.payload ## B"0"
      bitCount := 0
      tick := 0
    }
    when(busy) {
      tick := tick + 1
      when(tick === divisor - 1) {
        tick := 0
        shift := B"1" ## shift(9 downto 1)
        bitCount := bitCount + 1
        when(bitCount === 9) { busy := False }
      }
    }
    io.txd := RegNext(!busy || shift(0)) init True
  }

  // Receiver: synchronise, find the start bit's falling edge, sample each bit in its middle.
  val rx = new Area {
    val line = BufferCC(io.rxd, init = True)
    val busy = Reg(Bool()) init False
    val tick = Reg(UInt(16 bits)) init 0
    val bitIndex = Reg(UInt(4 bits)) init 0
    val data = Reg(Bits(8 bits)) init 0
    rxFifo.io.push.valid := False
    rxFifo.io.push.payload := data
    when(!busy) {
      when(!line) { busy := True; tick := (divisor >> 1).resized; bitIndex := 0 }
    } otherwise {
      tick := tick - 1
      when(tick === 0) {
        tick := divisor - 1
        bitIndex := bitIndex + 1
        switch(bitIndex) {
          is(0) { when(line) { busy := False } } // glitch, not a start bit
          for (i <- 1 to 8) is(i) { data := line ## data(7 downto 1) }
          is(9) {
            busy := False
            when(!line) { rxFramingErrors := rxFramingErrors + 1 } otherwise {
              rxFifo.io.push.valid := True
              when(!rxFifo.io.push.ready) { rxOverruns := rxOverruns + 1 }
            }
          }
        }
      }
    }
  }

  // Bus side
  val txWrite = regs.writeFlow("DATA_TX", 0x00, 8, "write: push a byte to transmit")
  txFifo.io.push.valid := txWrite.valid
  txFifo.io.push.payload := txWrite.payload
  when(txWrite.valid && !txFifo.io.push.ready) { txDrops := txDrops + 1 }
  regs.ro("DATA_RX", 0x00, "read: pop a received byte",
    rxFifo.io.pop.payload -> RegField("BYTE", 0, 8, "the byte"),
    rxFifo.io.pop.valid -> RegField("VALID", 31, 1, "set when BYTE holds a received byte"))
  rxFifo.io.pop.ready := regs.isReading(0x00)
  val txFree = (U(fifoDepth, 8 bits) - txFifo.io.occupancy.resize(8))
  regs.ro("STATUS", 0x04, "FIFO state",
    txFree -> RegField("TX_FREE", 0, 8, "free places in the transmit FIFO"),
    rxFifo.io.occupancy.resize(8) -> RegField("RX_COUNT", 8, 8, "bytes waiting in the receive FIFO"),
    (txFifo.io.occupancy === 0 && !tx.busy) -> RegField("TX_IDLE", 16, 1, "transmitter idle and FIFO empty"))
  regs.rw("DIVISOR", 0x08, divisor, "sys clock cycles per bit (>= 4)")
  regs.rw("IRQ_ENABLE", 0x0C, irqEnable, "bit 0: interrupt while the receive FIFO is not empty; bit 1: while the transmit FIFO is empty")
  regs.ro("ERRORS", 0x10, "error counters (16 bits each, wrapping)",
    rxOverruns -> RegField("RX_OVERRUN", 0, 16, "received bytes dropped, receive FIFO full"),
    rxFramingErrors -> RegField("RX_FRAMING", 16, 16, "bytes with a bad stop bit"))
  regs.ro("TX_DROPS", 0x14, txDrops, "bytes written while the transmit FIFO was full")
  io.interrupt := (irqEnable(0) && rxFifo.io.pop.valid) || (irqEnable(1) && txFifo.io.occupancy === 0)
}

/** General-purpose outputs (LEDs) and inputs (buttons, synchronised). */
case class Gpio(width: Int) extends Component {
  val io = new Bundle {
    val bus = slave(PipelinedMemoryBus(PeriphBus.config))
    val outputs = out Bits (width bits)
    val inputs = in Bits (width bits)
  }
  val factory = new PipelinedMemoryBusSlaveFactory(io.bus)
  val regs = new RegMap("GPIO", "LEDs and buttons", factory)
  val outReg = Reg(Bits(width bits)) init 0
  regs.rw("OUT", 0x00, outReg, "output levels")
  regs.ro("IN", 0x04, BufferCC(io.inputs), "input levels (synchronised)")
  io.outputs := outReg
}
