# Colorlight i5: build settings, read by tools/board.sh (make bitstream/flash BOARD=colorlight-i5).
# "KEY := value" lines only. SEEDS, SYS_MHZ, NET_* and CABLE can be overridden from make's command line.
BOARD_NAME  := Colorlight i5 v7.0
FAMILY      := ecp5
PART        := LFE5U-25F-6BG381C
DEVICE      := 25k
PACKAGE     := CABGA381
SPEED       := 6
LPF         := colorlight-i5.lpf
# LiteEth variant; the B50612D delays TXC itself (litex-boards' colorlight_i5 target: tx_delay=0), the FPGA
# delays the received data by 2 ns.
ETH_PHY     := rgmii_ecp5
MAC_FLAGS   := --tx-delay 0 --rx-delay 2 --fast-crc-check
# sys clock (the PLL makes it and 125 MHz from the 25 MHz oscillator); the firmware's time base is the same.
SYS_MHZ     := 37.5
# clock domains that must meet timing: domain=net as nextpnr names it
CLOCKS      := sys=clk_sys eth_tx=pll_CLKOP|clk_eth_tx eth_rx=rgmii_rx_clk
# nextpnr seeds tried in order until every domain meets timing
SEEDS       := 1 2 3 4
# firmware network configuration (console: ifconfig changes it at run time)
NET_MAC     := 02:54:46:00:00:15
NET_IP      := 192.168.1.50
NET_NETMASK := 255.255.255.0
NET_GATEWAY := 192.168.1.1
# openFPGALoader: the extension board's CMSIS-DAP (DAPLink) probe
OFL_ARGS    := -b colorlight-i5
OFL_SPI     := yes
