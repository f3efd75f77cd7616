# Puzhi PZ7020-Starlite, PL only: build settings, read by tools/board.sh
# (make bitstream/flash BOARD=pz7020-starlite). "KEY := value" lines only.
BOARD_NAME  := Puzhi PZ7020-Starlite (PL only, RGMII)
FAMILY      := xc7
PART        := xc7z020clg400-2
# openXC7 (when installed): chip database <NEXTPNR_XILINX_CHIPDB>/xc7z020clg400.bin, prjxray part
XC7_CHIPDB  := xc7z020clg400
XC7_DB_PART := xc7z020clg400-1
XDC         := pz7020-starlite.xdc
# LiteEth RGMII for 7-series: TXC forwarded from the MMCM's 90-degree (2 ns) 125 MHz clock, RX data delayed
# 2 ns by IDELAYE2 (litex-boards' puzhi_p7_starlite target uses LiteEth's defaults, tx_delay = rx_delay = 2 ns).
ETH_PHY     := rgmii_s7
MAC_FLAGS   := --tx-delay 2 --rx-delay 2 --fast-crc-check
SYS_MHZ     := 50
# the stop-order offload datapath in the SoC: the xc7z020 has room (140 RAMB36)
OFFLOAD     := yes
# Market-data digestion (the parser digests the session's 35=W; firmware takes descriptors) with 16 receive slots
# (2 KiB each) and 128 KiB of RAM (the simulation's SoC digests with 96 KiB): the xc7z020's 140 RAMB36
# have the room the LFE5U-25F lacks
DIGEST      := yes
ETH_RX_SLOTS := 16
RAM_KIB     := 128
# Early fires (issue 16; hw/src/triggerfish/offload/README.md "Early trigger"): the order starts at the SOH after a
# crossing price and the segment's verdict ends or poisons it (a bad FCS). The MAC is the variant with the poison
# input and the raw receive stream the lean tap reads (gen_mac.py --tx-poison --rx-raw); firmware's `offload early on`
# turns them on (off at boot). Needs DIGEST (the parser's switch). The xc7z020 has the room the Colorlights lack.
EARLY       := yes
CLOCKS      := sys=clk_sys eth_tx=clk_eth_tx eth_rx=rgmii_rx_clk
SEEDS       := 1
NET_MAC     := 02:54:46:00:00:27
NET_IP      := 192.168.1.53
NET_NETMASK := 255.255.255.0
NET_GATEWAY := 192.168.1.1
# the FIX exchange (the PC running tools/exchange); `fix set host`/`fix set port` change it on the console
FIX_HOST    := 192.168.1.10
FIX_PORT    := 9876
# openFPGALoader: the on-board FT232 JTAG, PL = device 1 of the Zynq chain (as litex-boards' target)
OFL_ARGS    := -c ft232 --index-chain 1
OFL_SPI     := no
