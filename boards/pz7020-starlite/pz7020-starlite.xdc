## Puzhi PZ7020-Starlite (xc7z020clg400-2), PL-only design: the pins the Triggerfish top uses.
## Transcribed from litex-hub/litex-boards commit d5e84d9a4de7186e51e704ea97b9a13e923a9525,
## litex_boards/platforms/puzhi_p7_starlite.py (variant xc7z020; not in the 2023.12 PyPI release).
## Port names are the top's (hw/src/triggerfish/boards/Xc7.scala). Every pin is 3.3 V LVCMOS.

## 50 MHz oscillator (U18, IO_L12P_T1_MRCC_34)
set_property -dict { PACKAGE_PIN U18 IOSTANDARD LVCMOS33 } [get_ports { clk_in }]
create_clock -period 20.000 -name clk50 [get_ports { clk_in }]

## LED1, LED2 (active high as litex-boards drives them)
set_property -dict { PACKAGE_PIN R19 IOSTANDARD LVCMOS33 } [get_ports { led[0] }]
set_property -dict { PACKAGE_PIN V13 IOSTANDARD LVCMOS33 } [get_ports { led[1] }]

## Console: a 3.3 V USB-UART on expansion header JM1 (pin 37 = FPGA TX, pin 39 = FPGA RX); the on-board
## CH340 is wired to the PS, which this design does not use.
set_property -dict { PACKAGE_PIN M19 IOSTANDARD LVCMOS33 } [get_ports { uart_tx }]
set_property -dict { PACKAGE_PIN M20 IOSTANDARD LVCMOS33 PULLUP TRUE } [get_ports { uart_rx }]

## RTL8211F, RGMII on PL pins. RXC on N18 (IO_L13P_T2_MRCC_34, clock capable).
set_property -dict { PACKAGE_PIN U14 IOSTANDARD LVCMOS33 } [get_ports { eth_mdc }]
set_property -dict { PACKAGE_PIN U15 IOSTANDARD LVCMOS33 PULLUP TRUE } [get_ports { eth_mdio }]
set_property -dict { PACKAGE_PIN N18 IOSTANDARD LVCMOS33 } [get_ports { rgmii_rx_clk }]
create_clock -period 8.000 -name rgmii_rx_clk [get_ports { rgmii_rx_clk }]
set_property -dict { PACKAGE_PIN P19 IOSTANDARD LVCMOS33 } [get_ports { rgmii_rx_ctl }]
set_property -dict { PACKAGE_PIN Y18 IOSTANDARD LVCMOS33 } [get_ports { rgmii_rx_data[0] }]
set_property -dict { PACKAGE_PIN Y19 IOSTANDARD LVCMOS33 } [get_ports { rgmii_rx_data[1] }]
set_property -dict { PACKAGE_PIN V16 IOSTANDARD LVCMOS33 } [get_ports { rgmii_rx_data[2] }]
set_property -dict { PACKAGE_PIN W16 IOSTANDARD LVCMOS33 } [get_ports { rgmii_rx_data[3] }]
set_property -dict { PACKAGE_PIN V20 IOSTANDARD LVCMOS33 SLEW FAST } [get_ports { rgmii_tx_clk }]
set_property -dict { PACKAGE_PIN W20 IOSTANDARD LVCMOS33 SLEW FAST } [get_ports { rgmii_tx_ctl }]
set_property -dict { PACKAGE_PIN N20 IOSTANDARD LVCMOS33 SLEW FAST } [get_ports { rgmii_tx_data[0] }]
set_property -dict { PACKAGE_PIN P20 IOSTANDARD LVCMOS33 SLEW FAST } [get_ports { rgmii_tx_data[1] }]
set_property -dict { PACKAGE_PIN T20 IOSTANDARD LVCMOS33 SLEW FAST } [get_ports { rgmii_tx_data[2] }]
set_property -dict { PACKAGE_PIN U20 IOSTANDARD LVCMOS33 SLEW FAST } [get_ports { rgmii_tx_data[3] }]
