# PYNQ-Z1, PL only: build settings, read by tools/board.sh (make bitstream/flash BOARD=pynq-z1).
# "KEY := value" lines only. SEEDS, SYS_MHZ, NET_* and CABLE can be overridden from make's command line.
BOARD_NAME  := PYNQ-Z1 (PL only, RMII PMOD PHY)
FAMILY      := xc7
PART        := xc7z020clg400-1
# openXC7 (when installed): chip database <NEXTPNR_XILINX_CHIPDB>/xc7z020clg400.bin, prjxray part
XC7_CHIPDB  := xc7z020clg400
XC7_DB_PART := xc7z020clg400-1
XDC         := pynq-z1.xdc
# LiteEth RMII (100 Mb/s): both Ethernet domains run on the module's 50 MHz REF_CLK.
ETH_PHY     := rmii
MAC_FLAGS   := --fast-crc-check
# sys clock from the 125 MHz on H16 through the MMCM
SYS_MHZ     := 50
# the stop-order offload datapath in the SoC: the xc7z020 has room (140 RAMB36)
OFFLOAD     := yes
# Market-data digestion (the parser digests the session's 35=W; firmware takes descriptors) with 16 receive slots
# (2 KiB each) and 128 KiB of RAM (the simulation's SoC digests with 96 KiB): the xc7z020's 140 RAMB36
# have the room the LFE5U-25F lacks
DIGEST      := yes
ETH_RX_SLOTS := 16
RAM_KIB     := 128
# The pre-trade risk gate in the order engine (hw/src/triggerfish/risk/README.md), BTN1 its kill switch. Its Ethernet
# runs at 50 MHz (RMII); the gate reaches 92.89 MHz on ECP5 alone, not the 125 MHz the other boards' Ethernet needs.
# Its limits at boot: fw/Makefile's RISK_DEFAULTS; off after boot until `risk on` (README.md "Risk gate").
RISK        := yes
# Early fires (issue 16; hw/src/triggerfish/offload/README.md "Early trigger"): the order starts at the SOH after a
# crossing price and the segment's verdict ends or poisons it (a bad FCS). The MAC is the variant with the poison
# input and the raw receive stream the lean tap reads (gen_mac.py --tx-poison --rx-raw); firmware's `offload early on`
# turns them on (off at boot). Needs DIGEST (the parser's switch). The xc7z020 has the room the Colorlights lack.
EARLY       := yes
CLOCKS      := sys=clk_sys eth=rmii_ref_clk
SEEDS       := 1
NET_MAC     := 02:54:46:00:00:21
NET_IP      := 192.168.1.52
NET_NETMASK := 255.255.255.0
NET_GATEWAY := 192.168.1.1
# the FIX exchange (the PC running tools/exchange); `fix set host`/`fix set port` change it on the console
FIX_HOST    := 192.168.1.10
FIX_PORT    := 9876
# openFPGALoader: the on-board Digilent FT2232 JTAG; the PL is device 1 of the Zynq chain (after the ARM DAP)
OFL_ARGS    := -c digilent --index-chain 1
OFL_SPI     := no
