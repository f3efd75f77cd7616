// The gate-level test bench's top for the Zynq-7000 boards (tools/gate-sim.sh, FAMILY xc7): the board's netlist
// after synth_xilinx (module Top) and the clock and lock the MMCME2_BASE stand-in hands to it
// (sim/gate/xc7_models.v). The harness (gate_main.cpp, built with -DGATE_XC7) drives these ports: the RMII PHY's
// 50 MHz REF_CLK (both Ethernet directions), its receive pins, the UART; the buttons stay released. MDIO has no PHY behind it (pulled up, as
// on the board). The 125 MHz input only feeds the MMCM stand-in and is held still.
module GateTb(
  input mmcm_clkout0, input mmcm_locked,
  input clk_in, input btn_reset, input btn_kill,
  output uart_tx, input uart_rx, output [3:0] led,
  output eth_mdc,
  input rmii_ref_clk, input rmii_crs_dv, input [1:0] rmii_rx_data,
  output rmii_tx_en, output [1:0] rmii_tx_data);
  wire mdio;
  assign (pull1, pull0) mdio = 1'b1;
  Top top(.clk_in(clk_in), .btn_reset(btn_reset), .btn_kill(btn_kill), .uart_tx(uart_tx), .uart_rx(uart_rx), .led(led),
          .eth_mdc(eth_mdc), .eth_mdio(mdio),
          .rmii_ref_clk(rmii_ref_clk), .rmii_crs_dv(rmii_crs_dv), .rmii_rx_data(rmii_rx_data),
          .rmii_tx_en(rmii_tx_en), .rmii_tx_data(rmii_tx_data));
endmodule
