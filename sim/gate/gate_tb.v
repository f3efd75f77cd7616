// The gate-level test bench's top (tools/gate-sim.sh): the board's synthesised netlist (module Top, written by
// yosys after synth_ecp5) and the clocks the EHXPLLL stand-in hands to it (sim/gate/ecp5_models.v). The
// harness (gate_main.cpp) drives these ports; MDIO has no PHY behind it (pulled up, as on the board).
module GateTb(
  input pll_clkop, input pll_clkos, input pll_lock,
  input clk25, input btn_n,
  output uart_tx, input uart_rx, output led_n,
  output eth_rst_n, output eth_mdc,
  input rgmii_rx_clk, input rgmii_rx_ctl, input [3:0] rgmii_rx_data,
  output rgmii_tx_clk, output rgmii_tx_ctl, output [3:0] rgmii_tx_data);
  wire mdio;
  assign (pull1, pull0) mdio = 1'b1;
  Top top(.clk25(clk25), .btn_n(btn_n), .uart_tx(uart_tx), .uart_rx(uart_rx), .led_n(led_n),
          .eth_rst_n(eth_rst_n), .eth_mdc(eth_mdc), .eth_mdio(mdio),
          .rgmii_rx_clk(rgmii_rx_clk), .rgmii_rx_ctl(rgmii_rx_ctl), .rgmii_rx_data(rgmii_rx_data),
          .rgmii_tx_clk(rgmii_tx_clk), .rgmii_tx_ctl(rgmii_tx_ctl), .rgmii_tx_data(rgmii_tx_data));
endmodule
