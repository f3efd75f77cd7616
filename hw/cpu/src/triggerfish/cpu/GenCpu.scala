// Triggerfish CPU configuration: VexRiscv RV32IMC for firmware that reacts in well under a microsecond.
//
// Choices (why):
// - IBusSimple/DBusSimple straight to tightly coupled on-chip RAM (one-cycle latency, no caches): every
//   instruction fetch and load takes the same time, so the firmware's reaction time has no cache-miss jitter.
// - Full bypassing and a barrel shifter: fewer pipeline stalls on the hot paths (protocol parsing).
// - Branches and jumps predicted in the fetch stage by a 64-entry branch target buffer (DYNAMIC_TARGET; taken
//   branches, calls and the loops of the byte parsers then cost no refetch when predicted), branches resolved in
//   the execute stage (earlyBranch: a misprediction costs one cycle less) and a load's data bypassed from the
//   memory stage (earlyInjection: a load followed by its use stalls one cycle less). Together they took a 35=W of
//   180 bytes through the firmware's receive path from 10,595 to 9,163 cycles on average (sim/tests/run.sh w_cost,
//   the same firmware, one session): the BTB alone -3.5 %, with 256 entries no better than with 64.
// - Single-cycle multiplier (DSP blocks on ECP5) and an iterative divider: RV32IM.
// - Compressed instructions (C): the firmware (TCP/IP + FIX engine + console) is a quarter smaller, which
//   is what lets it live in on-chip RAM on the LFE5U-25F (56 BRAM blocks shared with the MAC and offload).
// - Machine mode only: mtvec/mepc/mcause/mtval/mstatus/mie/mip, mcycle/minstret, ecall; machine timer
//   and external interrupt lines come in from the SoC (the SoC implements mtime/mtimecmp itself).
// Output: one Verilog file with a VexRiscv module whose ports are clk, reset, iBus_*, dBus_*,
// timerInterrupt, externalInterrupt, softwareInterrupt. The SoC (Scala 2.13) instantiates it as a BlackBox.
package triggerfish.cpu

import spinal.core._
import vexriscv._
import vexriscv.plugin._

object GenCpu {
  def main(args: Array[String]): Unit = {
    def arg(name: String, default: String): String = {
      val i = args.indexOf("--" + name)
      if (i >= 0 && i + 1 < args.length) args(i + 1) else default
    }
    val outDir = arg("out", "build/cpu")
    val resetVector = BigInt(arg("reset-vector", "80000000"), 16)
    val historyEntries = 64  // the branch target buffer's lines (256 measured no faster)
    val config = VexRiscvConfig(plugins = List(
      new IBusSimplePlugin(
        resetVector = resetVector,
        cmdForkOnSecondStage = false,
        cmdForkPersistence = false,
        prediction = DYNAMIC_TARGET,
        historyRamSizeLog2 = log2Up(historyEntries),
        catchAccessFault = false,
        compressedGen = true
      ),
      new DBusSimplePlugin(catchAddressMisaligned = false, catchAccessFault = false, earlyInjection = true),
      new CsrPlugin(CsrPluginConfig.small(mtvecInit = resetVector + 0x20).copy(
        mtvecAccess = CsrAccess.READ_WRITE,
        mscratchGen = true,
        mcycleAccess = CsrAccess.READ_ONLY,
        minstretAccess = CsrAccess.READ_ONLY,
        ucycleAccess = CsrAccess.READ_ONLY,
        ecallGen = true,
        wfiGenAsWait = true,
        misaExtensionsInit = (1 << ('I' - 'A')) | (1 << ('M' - 'A')) | (1 << ('C' - 'A')),
        misaAccess = CsrAccess.READ_ONLY
      )),
      new DecoderSimplePlugin(catchIllegalInstruction = true),
      new RegFilePlugin(regFileReadyKind = plugin.SYNC, zeroBoot = false),
      new IntAluPlugin,
      new SrcPlugin(separatedAddSub = false, executeInsertion = true),
      new FullBarrelShifterPlugin,
      new HazardSimplePlugin(
        bypassExecute = true,
        bypassMemory = true,
        bypassWriteBack = true,
        bypassWriteBackBuffer = true
      ),
      new MulPlugin,
      new DivPlugin,
      new BranchPlugin(earlyBranch = true, catchAddressMisaligned = true)
    ))
    SpinalConfig(targetDirectory = outDir, defaultConfigForClockDomains =
      ClockDomainConfig(resetKind = spinal.core.SYNC)).generateVerilog(new TfVexRiscv(config, historyEntries).setDefinitionName("VexRiscv"))
  }
}

// VexRiscv with its branch target buffer in LUT RAM: yosys would put the 64 x 59-bit history in two block RAMs, the
// last two the Colorlight i5 has free, where LUT RAM holds it in about 60 cells (64 x 59 bits in 16 x 4 ones).
class TfVexRiscv(config: VexRiscvConfig, historyEntries: Int) extends VexRiscv(config) {
  // (runs after the plugins are built: VexRiscv builds them in a pre-pop task registered before this one)
  Component.current.addPrePopTask(() => {
    val lineBits = (30 - log2Up(historyEntries)) + 2 + 1 + 32  // source tag, branchWish, last2Bytes, target
    val found = scala.collection.mutable.ArrayBuffer[Mem[_]]()
    dslBody.walkDeclarations {
      case m: Mem[_] if m.wordCount == historyEntries && m.width == lineBits => found += m
      case _ =>
    }
    assert(found.size == 1, s"expected one $historyEntries x $lineBits branch history memory in the CPU, found ${found.size}")
    found.head.addAttribute("ram_style", "distributed")
  })
}
