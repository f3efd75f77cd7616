// Check of the DP16KD model (sim/gate/ecp5_models.v) against what synth_ecp5 makes of two memories whose
// behaviour is known independently (tools/gate-sim.sh check):
//   rom: 2048 x 8, $readmemh("bram_check.hex"), one read register: block RAM in x9 mode, contents only through
//        the INITVAL parameters yosys wrote; read data one cycle after the address
//   nib: 4096 x 4, $readmemh("bram_check4.hex"), the same in x4 mode (the firmware RAM's lanes are x4)
//   tab: the project's trigger table RAM (TfTableRam from the board's Top.v, TF_ECP5: DP16KD x36 with REGMODE
//        OUTREG, instantiated directly), 512 x 64: read data two cycles after the address, contents start at zero
//   tpl: the order engine's template RAM (TfTemplateRam from the board's Top.v; TF_ECP5: four DP16KD in x9 true dual
//        port mode, port B with REGMODE OUTREG), 2048 x 32, both ports on clk here: port A writes and reads (read
//        data one cycle after the address), port B reads (two cycles after), contents start at zero
//   l32, l64: 32 x 8 and 64 x 3, $readmemh("bram_check32.hex" / "bram_check64.hex"), written at a clock edge while
//        lwe, read asynchronously (the data of the address in the same cycle): distributed RAM (xc7: RAM32M and
//        RAM64M, whose contents start from their INIT_A..D parameters; ECP5: TRELLIS_DPR16X4)
module BramCheck(input clk, input [10:0] ra, output reg [7:0] rq, input [11:0] na, output reg [3:0] nq,
                 input we, input [8:0] wa, input [63:0] wd, input re, input [8:0] ta, output [63:0] td,
                 input lwe, input [5:0] lwa, input [7:0] lwd, input [5:0] la, output [7:0] l32q, output [2:0] l64q,
                 input pen, input pwe, input [10:0] paa, input [31:0] pda, output [31:0] pqa, input [10:0] pab, output [31:0] pqb);
  reg [7:0] rom [0:2047];
  initial $readmemh("build/gate/check/bram_check.hex", rom);
  always @(posedge clk) rq <= rom[ra];
  reg [3:0] nib [0:4095];
  initial $readmemh("build/gate/check/bram_check4.hex", nib);
  always @(posedge clk) nq <= nib[na];
  reg [7:0] l32 [0:31];
  initial $readmemh("build/gate/check/bram_check32.hex", l32);
  always @(posedge clk) if (lwe) l32[lwa[4:0]] <= lwd;
  assign l32q = l32[la[4:0]];
  reg [2:0] l64 [0:63];
  initial $readmemh("build/gate/check/bram_check64.hex", l64);
  always @(posedge clk) if (lwe) l64[lwa] <= lwd[2:0];
  assign l64q = l64[la];
  TfTableRam #(.AW(9), .DW(64)) tab(.clk(clk), .we(we), .wa(wa), .wd(wd), .re(re), .ra(ta), .rd(td));
  TfTemplateRam tpl(.clka(clk), .ena(pen), .wea(pwe), .addra(paa), .dia(pda), .doa(pqa), .clkb(clk), .addrb(pab), .dob(pqb));
endmodule
