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
# --no-tx-crc-buffer: TX_EN a cycle sooner (EOF2SOF 12, was 13), as the simulation's MAC (hw/liteeth/README.md)
MAC_FLAGS   := --tx-delay 0 --rx-delay 2 --fast-crc-check --no-tx-crc-buffer
# sys clock from the PLL (VCO 750 MHz / 20). 50 MHz no longer fits: with the RVC CPU and the 80 KiB RAM the
# sys critical path (RAM read -> bank mux -> decompressor -> register file) reaches 44-45 MHz on ECP5-6.
# 37.5 MHz leaves about 15 % margin (41.667 MHz, the next exact setting, about 6 %;
# 40 MHz and 125 MHz have no common VCO in 400..800 MHz). The firmware's clock and time base follow it.
SYS_MHZ     := 37.5
# the stop-order offload datapath in the SoC (receive parser and trigger table, order engine, TX arbiter): in.
# The netlist's version constant is the last commit under hw/ (tools/fpga-lib.sh), so nextpnr gets the same
# netlist for a seed until the hardware changes. At hardware 8826e3dd, seed 1: sys 49.72 / eth_tx 135.03 /
# eth_rx 131.96 MHz (required 37.5/125/125), 364 s. When the version constant was HEAD, seed 1 met twice and
# missed once on branch timing (eth_tx and eth_rx 124.69 MHz: the Ethernet TX buffer's block RAM clock-to-out,
# the header parser's okR); the margin is 7 to 10 MHz at this placement, less on others. The lasting fix:
# block RAM output registers for the TX buffer and the order templates. OFFLOAD=no leaves it out.
OFFLOAD     := yes
# trigger table entries on this board: 32, not the 64 of the simulation SoC. With 64 the SoC fills 81 % of the
# LUTs, nextpnr's router had not converged after 8 minutes (stopped) and placement estimated eth_rx at 95 MHz; 32 halves
# the per-entry state (match, comparison, crossing, pending bits and the fire sequencer's priority logic).
OFFLOAD_ENTRIES := 32
# Ethernet receive slots (2 KiB each, one block RAM): 4, so that the SoC with the offload fits the 56 DP16KD
# (80 KiB RAM 40, Ethernet buffers 6, offload 6 with 32 entries: 52 of 56; see SocConfig.ecp5)
ETH_RX_SLOTS := 4
# clock domains that must meet timing: domain=net as nextpnr names it
CLOCKS      := sys=clk_sys eth_tx=pll_CLKOP|clk_eth_tx|soc_1.eth_mac_eth_tx_clk eth_rx=rgmii_rx_clk|soc_1.eth_mac_eth_rx_clk
# nextpnr seeds tried in order until every domain meets timing (each miss costs about 5 to 20 minutes of nextpnr). 4
# first: at hardware ad1e2e8 (the MAC without its TX CRC buffer, the arbiter's registered ready) seed 4 meets every domain
# (sys 44.59, eth_tx 140.47, eth_rx 136.87 MHz). At hardware 396afeb (the template RAM's output register, the output byte through enables) seed 4 meets every
# domain (sys 42.77, eth_tx 138.79, eth_rx 138.75 MHz). At hardware a60d422 (the arbiter's frame ends, table programming
# one-hot) seed 4 meets every domain (sys 43.41, eth_tx 131.25, eth_rx 137.21 MHz). At hardware d6d93bd (eth_rx and eth_tx paths cut, docs/DESIGN.md "Capacity of the Colorlights") seed 4 meets
# every domain (sys 45.70, eth_tx 134.97, eth_rx 132.28 MHz; 127.28 for eth_rx at 452c3fd). With the RAM's second port for instruction fetch (hw/src/triggerfish/soc/Soc.scala TfRam), seed 3 missed
# eth_rx by a hair (124.98 MHz), seed 2 eth_tx (124.10 MHz), seed 4 met every domain (sys 47.61, eth_tx 129.17,
# eth_rx 128.67 MHz). Before that, 3 first: with the CPU's branch target buffer, branch in execute and early load
# data (hw/cpu GenCpu.scala), seeds 2, 4 and 1 missed eth_rx (119.35, 114.50, 112.33 MHz: the offload's tag scan,
# routing 80 % of the path) and seed 3 met every domain (sys 45.84, eth_tx 128.02, eth_rx 129.12 MHz). Before that,
# 2 first: at hardware bba2bc8 (the order
# engine's digit sums in two steps, the price accumulator's digit registered), seed 4 missed eth_tx (124.08 MHz), seed
# 1 eth_rx (119.53 MHz), seed 2 met every domain (sys 45.95, eth_tx 126.55, eth_rx 127.32 MHz). The eth clocks have 1
# to 5 % of margin on the seeds that meet, and any change of the hardware's sources is a new draw (docs/DESIGN.md
# "Timing"); tools/board.sh keeps each seed's nextpnr log (nextpnr-seedN.log).
SEEDS       := 4 3 2 1
# more weight on timing in nextpnr's placer (default 10): with the 80 KiB SoC the eth_rx path from the RX
# frame buffer's slot logic into a block RAM write enable missed 125 MHz on seeds 1-4 of the 5A-75B
# (102-124 MHz); with 40, seeds 1-3 met it (126-131 MHz)
NEXTPNR_FLAGS := --placer-heap-timingweight 40
# firmware network configuration (console: ifconfig changes it at run time)
NET_MAC     := 02:54:46:00:00:15
NET_IP      := 192.168.1.50
NET_NETMASK := 255.255.255.0
NET_GATEWAY := 192.168.1.1
# the FIX exchange (the PC running tools/exchange); `fix set host`/`fix set port` change it on the console
FIX_HOST    := 192.168.1.10
FIX_PORT    := 9876
# openFPGALoader: the extension board's CMSIS-DAP (DAPLink) probe
OFL_ARGS    := -b colorlight-i5
OFL_SPI     := yes
