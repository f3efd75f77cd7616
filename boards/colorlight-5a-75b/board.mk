# Colorlight 5A-75B v8.0: build settings, read by tools/board.sh (make bitstream/flash BOARD=colorlight-5a-75b).
# "KEY := value" lines only. SEEDS, SYS_MHZ, NET_* and CABLE can be overridden from make's command line.
BOARD_NAME  := Colorlight 5A-75B v8.0
FAMILY      := ecp5
PART        := LFE5U-25F-6BG256C
DEVICE      := 25k
PACKAGE     := CABGA256
SPEED       := 6
LPF         := colorlight-5a-75b.lpf
# LiteEth variant; TX clock delay left to the PHY, as litex-boards' colorlight_5a_75x target does
# (tx_delay=0); the FPGA delays the received data by 2 ns.
ETH_PHY     := rgmii_ecp5
MAC_FLAGS   := --tx-delay 0 --rx-delay 2 --fast-crc-check
SYS_MHZ     := 37.5
CLOCKS      := sys=clk_sys eth_tx=pll_CLKOP|clk_eth_tx eth_rx=rgmii_rx_clk
SEEDS       := 1 2 3 4
NET_MAC     := 02:54:46:00:00:75
NET_IP      := 192.168.1.51
NET_NETMASK := 255.255.255.0
NET_GATEWAY := 192.168.1.1
# openFPGALoader: openFPGALoader's "colorlight" board entry (5A-75B) with a JTAG cable on J27/J31/J32/J30
# (the board has no probe of its own); CABLE=ft232 by default, e.g. make flash ... CABLE=dirtyJtag
OFL_ARGS    := -b colorlight -c {CABLE}
CABLE       := ft232
OFL_SPI     := yes
