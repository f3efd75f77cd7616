// The order engine's template RAM: 2048 x 32, one read/write port in sys, one read port in eth_tx whose data leave
// through the block RAM's output register.
package triggerfish.offload

import spinal.core._

/** The templates (OrderEngine: 32 slots of 256 bytes). Port A (sys, the bus window): a write or a read per cycle,
  * read data one cycle after the address (no output register). Port B (eth_tx, the byte pipeline): a read every
  * cycle, data two cycles after the address, from the block RAM's output register: on ECP5 the block RAM's
  * clock-to-out without it (5.8 ns in nextpnr's timing model) was the i5's eth_tx critical path (issue 16's 8 %
  * margin). Yosys does not put data into that register itself (see TableRam), so under TF_ECP5 the RAM is four
  * DP16KD cells in true dual port mode, 2048 x 9 on both ports, one per byte lane (no multiplexer behind either
  * port); everything else (simulation, other FPGAs) gets the same behaviour from plain Verilog.
  * Contents start at zero on ECP5. A read on port A in the cycle of a write to the same address by port B cannot
  * happen (port B never writes); a port B read of a word port A writes in the same cycle returns undefined data
  * (the engine reads only templates firmware does not write: OrderEngine's file header). */
class TemplateRam(sysCd: ClockDomain, txCd: ClockDomain) extends BlackBox {
  setDefinitionName("TfTemplateRam")
  val io = new Bundle {
    val clka = in Bool()
    val ena = in Bool()
    val wea = in Bool()
    val addra = in UInt (11 bits)
    val dia = in Bits (32 bits)
    val doa = out Bits (32 bits)
    val clkb = in Bool()
    val addrb = in UInt (11 bits)
    val dob = out Bits (32 bits)
  }
  noIoPrefix()
  mapClockDomain(sysCd, io.clka)
  mapClockDomain(txCd, io.clkb)
  for (s <- Seq(io.ena, io.wea, io.addra, io.dia, io.doa)) s.addTag(ClockDomainTag(sysCd))
  for (s <- Seq(io.addrb, io.dob)) s.addTag(ClockDomainTag(txCd))

  private def lane(k: Int): String = {
    val ada = (0 to 13).map(i => if (i < 3) s".ADA$i(1'b0)" else s".ADA$i(addra[${i - 3}])").mkString(", ")
    val adb = (0 to 13).map(i => if (i < 3) s".ADB$i(1'b0)" else s".ADB$i(addrb[${i - 3}])").mkString(", ")
    val dia = (0 to 17).map(i => s".DIA$i(${if (i < 8) s"dia[${8 * k + i}]" else "1'b0"})").mkString(", ")
    val dib = (0 to 17).map(i => s".DIB$i(1'b0)").mkString(", ")
    val doa = (0 to 7).map(i => s".DOA$i(doa[${8 * k + i}])").mkString(", ")
    val dob = (0 to 7).map(i => s".DOB$i(dob[${8 * k + i}])").mkString(", ")
    s"""  DP16KD #(.DATA_WIDTH_A(9), .DATA_WIDTH_B(9), .REGMODE_A("NOREG"), .REGMODE_B("OUTREG"),
       |    .RESETMODE("SYNC"), .ASYNC_RESET_RELEASE("SYNC"), .CSDECODE_A("0b000"), .CSDECODE_B("0b000"),
       |    .WRITEMODE_A("NORMAL"), .WRITEMODE_B("NORMAL"), .GSR("AUTO")) lane$k (
       |    .CLKA(clka), .CEA(ena), .WEA(wea), .OCEA(1'b1), .RSTA(1'b0), .CSA0(1'b0), .CSA1(1'b0), .CSA2(1'b0),
       |    $ada,
       |    $dia,
       |    $doa,
       |    .CLKB(clkb), .CEB(1'b1), .WEB(1'b0), .OCEB(1'b1), .RSTB(1'b0), .CSB0(1'b0), .CSB1(1'b0), .CSB2(1'b0),
       |    $adb,
       |    $dib,
       |    $dob);""".stripMargin
  }

  setInlineVerilog(
    s"""// Triggerfish order template RAM (OrderEngine): read/write port A, read port B with read and output registers.
       |module TfTemplateRam (
       |  input clka, input ena, input wea, input [10:0] addra, input [31:0] dia, output [31:0] doa,
       |  input clkb, input [10:0] addrb, output [31:0] dob);
       |`ifdef TF_ECP5
       |${(0 until 4).map(lane).mkString("\n")}
       |`else
       |  reg [31:0] mem [0:2047];
       |  reg [31:0] qa, qb, qb2;
       |  always @(posedge clka) if (ena) begin
       |    if (wea) mem[addra] <= dia;
       |    else qa <= mem[addra];
       |  end
       |  always @(posedge clkb) begin
       |    qb <= mem[addrb];
       |    qb2 <= qb;
       |  end
       |  assign doa = qa;
       |  assign dob = qb2;
       |`endif
       |endmodule
       |""".stripMargin)
}
