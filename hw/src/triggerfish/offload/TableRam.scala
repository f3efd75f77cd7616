// The trigger table's lookup RAMs: simple dual port, one clock, read latency 2 (address in cycle c, data in c+2).
package triggerfish.offload

import spinal.core._

/** A write into a TableRam. */
case class TableRowWrite(aw: Int, dw: Int) extends Bundle {
  val address = UInt(aw bits)
  val data = Bits(dw bits)
}

/** A block RAM whose read data leave through the RAM's own output register. On ECP5 the block RAM's clock-to-out
  * without it is about 5.8 ns (nextpnr's timing model, speed 6), which leaves almost nothing of a 125 MHz cycle for
  * the route to the next register; with it the data are out early. Yosys does not put data into that register
  * itself, so the ECP5 synthesis flows define TF_ECP5 (tools/fpga-lib.sh) and get DP16KD cells in 512 x 36
  * pseudo dual port mode with REGMODE OUTREG; everything else (simulation, other FPGAs) gets the same behaviour
  * from plain Verilog: the RAM, a read register, an output register.
  * A read of the address written in the same cycle returns undefined data (no_rw_check): the user substitutes
  * the written word (OffloadRx's rowOf). Contents start at zero on ECP5. */
class TableRam(addrWidth: Int, dataWidth: Int) extends BlackBox {
  require(addrWidth <= 9, "TableRam: up to 512 words (one DP16KD deep in x36 mode)")
  addGeneric("AW", addrWidth)
  addGeneric("DW", dataWidth)
  setDefinitionName("TfTableRam")
  val io = new Bundle {
    val clk = in Bool()
    val we = in Bool()
    val wa = in UInt (addrWidth bits)
    val wd = in Bits (dataWidth bits)
    val re = in Bool()
    val ra = in UInt (addrWidth bits)
    val rd = out Bits (dataWidth bits)
  }
  noIoPrefix()
  mapCurrentClockDomain(io.clk)

  private def ebrInstance: String = {
    val a = (0 to 13).map(i => if (i < 5) s".ADA$i(${if (i < 4) "we" else "1'b0"})" else s".ADA$i(wa9[${i - 5}])").mkString(", ")
    val b = (0 to 13).map(i => if (i < 5) s".ADB$i(1'b0)" else s".ADB$i(ra9[${i - 5}])").mkString(", ")
    val di = (0 to 17).map(k => s".DIA$k(wdp[i*36+$k])").mkString(", ") + ",\n        " +
      (0 to 17).map(k => s".DIB$k(wdp[i*36+${k + 18}])").mkString(", ")
    val dout = (0 to 17).map(k => s".DOA$k(rdp[i*36+$k])").mkString(", ") + ",\n        " +
      (0 to 17).map(k => s".DOB$k(rdp[i*36+${k + 18}])").mkString(", ")
    s"""      DP16KD #(.DATA_WIDTH_A(36), .DATA_WIDTH_B(36), .REGMODE_A("OUTREG"), .REGMODE_B("OUTREG"),
      |        .RESETMODE("SYNC"), .ASYNC_RESET_RELEASE("SYNC"), .CSDECODE_A("0b000"), .CSDECODE_B("0b000"),
      |        .WRITEMODE_A("NORMAL"), .WRITEMODE_B("NORMAL"), .GSR("AUTO")) ram (
      |        .CLKA(clk), .CEA(we), .WEA(1'b1), .OCEA(1'b1), .RSTA(1'b0), .CSA0(1'b0), .CSA1(1'b0), .CSA2(1'b0),
      |        $a,
      |        $di,
      |        .CLKB(clk), .CEB(re), .WEB(1'b0), .OCEB(1'b1), .RSTB(1'b0), .CSB0(1'b0), .CSB1(1'b0), .CSB2(1'b0),
      |        $b,
      |        $dout);""".stripMargin
  }

  setInlineVerilog(
    s"""// Triggerfish trigger table RAM (OffloadRx): write port, read port with read and output registers.
       |module TfTableRam #(parameter AW = 9, parameter DW = 64) (
       |  input clk, input we, input [AW-1:0] wa, input [DW-1:0] wd, input re, input [AW-1:0] ra, output [DW-1:0] rd);
       |`ifdef TF_ECP5
       |  localparam NB = (DW + 35) / 36;
       |  wire [NB*36-1:0] wdp = {{(NB*36-DW){1'b0}}, wd};
       |  wire [NB*36-1:0] rdp;
       |  wire [8:0] wa9 = {{(9-AW){1'b0}}, wa};
       |  wire [8:0] ra9 = {{(9-AW){1'b0}}, ra};
       |  genvar i;
       |  generate for (i = 0; i < NB; i = i + 1) begin : ebr
       |$ebrInstance
       |  end endgenerate
       |  assign rd = rdp[DW-1:0];
       |`else
       |  (* no_rw_check *) reg [DW-1:0] mem [0:(1<<AW)-1];
       |  reg [DW-1:0] q1, q2;
       |  always @(posedge clk) begin
       |    if (we) mem[wa] <= wd;
       |    if (re) q1 <= mem[ra];
       |    q2 <= q1;
       |  end
       |  assign rd = q2;
       |`endif
       |endmodule
       |""".stripMargin)
}
