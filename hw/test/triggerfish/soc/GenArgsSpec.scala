// The generators' command line (GenArgs, SocOptions): what GenSoc and GenBoard make of their SoC options, each
// case written out by hand from the usage lines, and the refusals, each naming the option.
package triggerfish.soc

import org.scalatest.funsuite.AnyFunSuite

class GenArgsSpec extends AnyFunSuite {
  def args(s: String*) = new GenArgs("Gen", s.toArray)
  def refused(f: => Any): String = intercept[RuntimeException](f).getMessage

  test("values: a value that starts with -- is no value (mill drops an empty argument)") {
    val a = args("--board", "pynq-z1", "--digest", "--ram-kib", "128", "--offload")
    assert(a.arg("board").contains("pynq-z1"))
    assert(a.arg("digest").isEmpty && a.yesNo("digest").isEmpty) // `--digest ""` from tools/board.sh
    assert(a.yesNo("offload").isEmpty)                           // the last argument, bare
    assert(a.count("ram-kib").contains(128))
    assert(a.arg("version").isEmpty)
    assert(refused(a.need("out")) == "Gen: --out is required")
  }

  test("yes|no and counts: anything else is refused with the option's name") {
    assert(args("--digest", "yes").yesNo("digest").contains(true))
    assert(args("--digest", "no").yesNo("digest").contains(false))
    assert(refused(args("--digest", "on").yesNo("digest")) == "Gen: --digest yes|no, not on")
    for (bad <- Seq("0", "-4", "16k", "1.5", "99999999999"))
      assert(refused(args("--eth-rx-slots", bad).count("eth-rx-slots")) ==
        s"Gen: --eth-rx-slots takes a positive whole number, not $bad")
    assert(refused(args("--ram-kib", "x").socOptions) == "Gen: --ram-kib takes a positive whole number, not x")
  }

  test("SocOptions: each option sets its one field, the others stay as the base has them") {
    val base = SocConfig.ecp5 // 80 KiB, the offload with 32 entries, 4 receive slots, no digestion
    assert(args().socOptions(base) == base)
    val c = args("--digest", "yes", "--ram-kib", "128", "--eth-rx-slots", "16").socOptions(base)
    assert(c.ramBytes == 131072)
    assert(c.eth.get == base.eth.get.copy(offloadDigest = true, offloadBook = 4, buffers = base.eth.get.buffers.copy(rxSlots = 16)))
    assert(c.copy(ramBytes = base.ramBytes, eth = base.eth) == base)
    val e = args("--offload", "no", "--offload-entries", "8").socOptions(base).eth.get
    assert(!e.offload && e.offloadEntries == 8 && !e.offloadDigest && e.buffers == base.eth.get.buffers)
    // the simulation's SoC as the Makefile asks for it (SIM_SOC_FLAGS)
    val sim = args("--digest", "yes", "--ram-kib", "96", "--eth-rx-slots", "16", "--book", "yes").socOptions(SocConfig.sim)
    assert(sim.ramBytes == 96 * 1024 && sim.eth.get.offloadDigest && sim.eth.get.buffers.rxSlots == 16)
    assert(sim.eth.get.offloadBook == 4 && base.eth.get.offloadBook == 0)
    // digestion brings the top of book (a board's DIGEST := yes) unless --book no
    assert(args("--digest", "yes").socOptions(base).eth.get.offloadBook == 4)
    assert(args("--digest", "yes", "--book", "no").socOptions(SocConfig.sim).eth.get.offloadBook == 0)
    assert(args("--digest", "no").socOptions(base).eth.get.offloadBook == 0)
    // a SoC without Ethernet has nothing for the Ethernet options to change
    assert(args("--digest", "yes").socOptions(base.copy(eth = None)).eth.isEmpty)
  }

  test("SocOptions: the SoC's own checks still apply") {
    assert(intercept[IllegalArgumentException](args("--offload", "no", "--digest", "yes").socOptions(SocConfig.ecp5))
      .getMessage.contains("offloadDigest needs the offload"))
    assert(intercept[IllegalArgumentException](args("--book", "yes").socOptions(SocConfig.ecp5))
      .getMessage.contains("offloadBook needs offloadDigest"))
    assert(refused(args("--book", "4").socOptions) == "Gen: --book yes|no, not 4")
    assert(intercept[IllegalArgumentException](args("--ram-kib", "90").socOptions(SocConfig.ecp5))
      .getMessage.contains("ramBytes must be a multiple of 4 KiB"))
  }
}
