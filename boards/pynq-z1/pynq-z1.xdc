## PYNQ-Z1 (xc7z020clg400-1), PL-only design: the pins the Triggerfish top uses.
## On-board pins transcribed from litex-boards 2023.12 (PyPI sdist), litex_boards/platforms/digilent_pynq_z1.py
## (same in litex-hub/litex-boards commit 296c99f06538f42f839bbcd949ae3d7d34bf15c8); the pin functions
## (IO_L12P_T1_MRCC_34 ...) from Digilent's Arty Z7-20 master XDC, whose PL pinout the PYNQ-Z1 shares.
## Port names are the top's (hw/src/triggerfish/boards/Xc7.scala). Every pin is 3.3 V LVCMOS.

## 125 MHz from the on-board Ethernet PHY's CLK125 (H16, IO_L13P_T2_MRCC_35)
set_property -dict { PACKAGE_PIN H16 IOSTANDARD LVCMOS33 } [get_ports { clk_in }]
create_clock -period 8.000 -name clk125 [get_ports { clk_in }]

## LD0..LD3 (active high) and BTN0 (active high): the SoC reset
set_property -dict { PACKAGE_PIN R14 IOSTANDARD LVCMOS33 } [get_ports { led[0] }]
set_property -dict { PACKAGE_PIN P14 IOSTANDARD LVCMOS33 } [get_ports { led[1] }]
set_property -dict { PACKAGE_PIN N16 IOSTANDARD LVCMOS33 } [get_ports { led[2] }]
set_property -dict { PACKAGE_PIN M14 IOSTANDARD LVCMOS33 } [get_ports { led[3] }]
set_property -dict { PACKAGE_PIN D19 IOSTANDARD LVCMOS33 } [get_ports { btn_reset }]
## BTN1 (active high): the risk gate's kill switch (D20, as BTN0's neighbour in Digilent's PYNQ-Z1 master XDC)
set_property -dict { PACKAGE_PIN D20 IOSTANDARD LVCMOS33 } [get_ports { btn_kill }]

## Console: a 3.3 V USB-UART on PMOD JA, as litex-boards' serial (JA1 = FPGA TX, JA2 = FPGA RX)
set_property -dict { PACKAGE_PIN Y18 IOSTANDARD LVCMOS33 } [get_ports { uart_tx }]
set_property -dict { PACKAGE_PIN Y19 IOSTANDARD LVCMOS33 PULLUP TRUE } [get_ports { uart_rx }]

## RMII PHY module (LAN8720 class) wired to PMOD JB and the bottom row of JA (boards/pynq-z1/README.md)
## REF_CLK: 50 MHz from the module into JA7 = U18 (IO_L12P_T1_MRCC_34, clock capable)
set_property -dict { PACKAGE_PIN U18 IOSTANDARD LVCMOS33 } [get_ports { rmii_ref_clk }]
create_clock -period 20.000 -name rmii_ref_clk [get_ports { rmii_ref_clk }]
set_property -dict { PACKAGE_PIN U19 IOSTANDARD LVCMOS33 } [get_ports { eth_mdc }]
set_property -dict { PACKAGE_PIN W18 IOSTANDARD LVCMOS33 PULLUP TRUE } [get_ports { eth_mdio }]
set_property -dict { PACKAGE_PIN W14 IOSTANDARD LVCMOS33 } [get_ports { rmii_tx_data[0] }]
set_property -dict { PACKAGE_PIN Y14 IOSTANDARD LVCMOS33 } [get_ports { rmii_tx_data[1] }]
set_property -dict { PACKAGE_PIN T11 IOSTANDARD LVCMOS33 } [get_ports { rmii_tx_en }]
set_property -dict { PACKAGE_PIN V16 IOSTANDARD LVCMOS33 } [get_ports { rmii_rx_data[0] }]
set_property -dict { PACKAGE_PIN W16 IOSTANDARD LVCMOS33 } [get_ports { rmii_rx_data[1] }]
set_property -dict { PACKAGE_PIN V12 IOSTANDARD LVCMOS33 } [get_ports { rmii_crs_dv }]
