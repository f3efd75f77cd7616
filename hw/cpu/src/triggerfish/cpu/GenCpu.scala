// Triggerfish CPU configuration: VexRiscv RV32IMC for firmware that reacts in well under a microsecond.
//
// Choices (why):
// - IBusSimple/DBusSimple straight to tightly coupled on-chip RAM (one-cycle latency, no caches): every
//   instruction fetch and load takes the same time, so the firmware's reaction time has no cache-miss jitter.
// - Full bypassing and a barrel shifter: fewer pipeline stalls on the hot paths (protocol parsing).
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
    val config = VexRiscvConfig(plugins = List(
      new IBusSimplePlugin(
        resetVector = resetVector,
        cmdForkOnSecondStage = false,
        cmdForkPersistence = false,
        prediction = STATIC,
        catchAccessFault = false,
        compressedGen = true
      ),
      new DBusSimplePlugin(catchAddressMisaligned = false, catchAccessFault = false),
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
      new BranchPlugin(earlyBranch = false, catchAddressMisaligned = true)
    ))
    SpinalConfig(targetDirectory = outDir, defaultConfigForClockDomains =
      ClockDomainConfig(resetKind = spinal.core.SYNC)).generateVerilog(new VexRiscv(config).setDefinitionName("VexRiscv"))
  }
}
