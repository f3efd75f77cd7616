// Lint-only stubs (ports and parameters only, NO behaviour) for the vendor primitives that the
// generated LiteEth variants instantiate. Used by run.sh for `verilator --lint-only`.
// Simulation of these variants needs real models (Lattice/Xilinx cell libraries or yosys' cells_sim).
/* verilator lint_off UNUSEDSIGNAL */
/* verilator lint_off UNUSEDPARAM */
/* verilator lint_off UNDRIVEN */
// ---- Lattice ECP5 (rgmii_ecp5)
module ODDRX1F (input D0, input D1, input SCLK, input RST, output Q); endmodule
module IDDRX1F (input D, input SCLK, input RST, output Q0, output Q1); endmodule
module DELAYG #(parameter DEL_MODE = "USER_DEFINED", parameter DEL_VALUE = 0) (input A, output Z); endmodule
module FD1S3BX (input D, input CK, input PD, output Q); endmodule
// ---- Xilinx 7-series (mii, rmii)
module FDPE #(parameter INIT = 1'b1) (input C, input CE, input D, input PRE, output Q); endmodule
module ODDR #(parameter DDR_CLK_EDGE = "OPPOSITE_EDGE", parameter INIT = 1'b0, parameter SRTYPE = "SYNC")
  (input C, input CE, input D1, input D2, input R, input S, output Q); endmodule
module IDDR #(parameter DDR_CLK_EDGE = "OPPOSITE_EDGE", parameter INIT_Q1 = 1'b0, parameter INIT_Q2 = 1'b0, parameter SRTYPE = "SYNC")
  (input C, input CE, input D, input R, input S, output Q1, output Q2); endmodule
// ---- Xilinx 7-series (rgmii_s7)
module IDELAYE2 #(parameter IDELAY_TYPE = "FIXED", parameter IDELAY_VALUE = 0, parameter REFCLK_FREQUENCY = 200.0)
  (input C, input LD, input CE, input LDPIPEEN, input INC, input IDATAIN, output DATAOUT); endmodule
module IBUF (input I, output O); endmodule
module OBUF (input I, output O); endmodule
