// Check of the DP16KD model (sim/gate/ecp5_models.v) against what synth_ecp5 makes of two memories whose
// behaviour is known independently (tools/gate-sim.sh check):
//   rom: 2048 x 8, $readmemh("bram_check.hex"), one read register: block RAM in x9 mode, contents only through
//        the INITVAL parameters yosys wrote; read data one cycle after the address
//   nib: 4096 x 4, $readmemh("bram_check4.hex"), the same in x4 mode (the firmware RAM's lanes are x4)
//   tab: the project's trigger table RAM (TfTableRam from the board's Top.v, TF_ECP5: DP16KD x36 with REGMODE
//        OUTREG, instantiated directly), 512 x 64: read data two cycles after the address, contents start at zero
module BramCheck(input clk, input [10:0] ra, output reg [7:0] rq, input [11:0] na, output reg [3:0] nq,
                 input we, input [8:0] wa, input [63:0] wd, input re, input [8:0] ta, output [63:0] td);
  reg [7:0] rom [0:2047];
  initial $readmemh("build/gate/check/bram_check.hex", rom);
  always @(posedge clk) rq <= rom[ra];
  reg [3:0] nib [0:4095];
  initial $readmemh("build/gate/check/bram_check4.hex", nib);
  always @(posedge clk) nq <= nib[na];
  TfTableRam #(.AW(9), .DW(64)) tab(.clk(clk), .we(we), .wa(wa), .wd(wd), .re(re), .ra(ta), .rd(td));
endmodule
