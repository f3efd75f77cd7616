// Gate-level simulation harness (tools/gate-sim.sh): drives the ECP5 board netlist (GateTb around yosys's Top)
// the way the Colorlight i5 board does, with the clocks its EHXPLLL makes, and watches its pins. Built with
// -DGATE_XC7 it drives the PYNQ-Z1's netlist (gate_tb_xc7.v) instead: the MMCM stand-in's CLKOUT0 (sys) and
// LOCKED, and an RMII PHY whose 50 MHz REF_CLK clocks both Ethernet directions (below: "RMII").
//   clocks    the PLL stand-in's CLKOP (125 MHz, RGMII transmit) and CLKOS (sys, +sys-hz=) and LOCK (low for the
//             first +lock-cycles= sys cycles); the PHY's receive clock RXC, 125 MHz (+rx-clock=0 holds it still).
//             The harness steps from one clock edge to the next (times in fs); RXC has CLKOP's edges (the two are
//             asynchronous on the board, the phase between them is not something this simulation checks), so one
//             evaluation serves both. +eth-idle-div=N (default 1): while the Ethernet is idle, CLKOP and RXC run at
//             125/N MHz; they run at 125 MHz while a frame goes in or out and for +eth-guard= Ethernet cycles
//             (default 2048) after, from the start, and from +eth-in-after's moment on. Idle means: the harness
//             sends nothing, TX_EN is low. The SoC's clock domain crossings work at any ratio; what the slower
//             idle clock changes is only how many Ethernet cycles pass between two frames.
//   RMII      (-DGATE_XC7) REF_CLK 50 MHz in place of CLKOP and RXC (+eth-idle-div= as above, "at 50 MHz" in the
//             last line); transmit: TX_EN and TXD[1:0] sampled at the rising edge, dibits least significant
//             first; receive: CRS_DV and RXD[1:0] driven at the falling edge, frames at least 48 REF_CLK cycles
//             (12 byte times) apart.
//   UART      uart_tx decoded at +baud= (8N1, sampled mid-bit on the sys clock) to stdout, a line at a time, or at
//             +uart-divisor=<sys cycles per bit> (a firmware built with fw/Makefile's UART_DIVISOR=, at least 4);
//             +uart-in=<text> (\r, \n escapes) typed into uart_rx after +uart-in-delay= sys cycles, or when the
//             console output has shown +uart-in-after=<text>.
//   Ethernet  RGMII transmit pins sampled at both CLKOP edges (data low nibble at the rising edge, high nibble at
//             the falling one; TX_CTL = TX_EN at the rising edge); each frame is printed as
//             "gate: tx frame <n> bytes fcs ok|BAD <first bytes>". +eth-in=<hex> sends that frame (destination
//             MAC .. payload, the harness adds preamble and FCS) on the RGMII receive pins, DDR, once the console
//             has shown +eth-in-after=<text>; +eth-in-count=N sends it N times, 20000 sys cycles apart.
//   exchange  +fix-exchange=1: the scripted FIX exchange of exchange.h answers on the Ethernet pins, RGMII or (with
//             -DGATE_XC7) RMII: it takes and gives whole frames, the PHY adapters above and below put them on the
//             pins and take them off (ARP, TCP, Logon), and sends 35=W trades: +fix-mac=<12 hex digits> +fix-ip=A.B.C.D +fix-port= (the board's FIX_HOST and
//             FIX_PORT), +fix-comp-id= (the exchange's CompID) +fix-soc-comp-id= (the SoC's), +fix-symbol=,
//             +fix-trades=<price>,<price>... (one 35=W each, the last one expected to fire the stop),
//             +fix-w-after=<console text> (the first W once that line has ended, +fix-w-delay= sys cycles later, then
//             every +fix-w-gap= sys cycles), +fix-expect=<side 1|2>,<symbol>,<qty>,<price> (the 35=D expected).
//             Frames go out in order, at least 16 (RMII: 48) receive clock cycles apart. The run ends (besides +until and +until-tx)
//             only once the exchange has received and checked a 35=D; status 1 if any of its checks failed.
//   kill pin  (-DGATE_XC7) +kill-after=<text>: the board's kill button (btn_kill, the risk gate's kill pin) pressed
//             once the console has shown that text and the end of its line, held +kill-hold= sys cycles (default
//             1000), then released; "gate: kill pin pressed|released at cycle <n>".
//   end       +until=<text>: stop with status 0 once the console has shown it and the end of its line;
//             +until-tx=<hex>: once a frame the SoC sent (with its FCS) contains these bytes; both given: once
//             both happened; +timeout=<sys cycles>: stop with status 124. The last line is "gate: done|done
//             (exchange checks failed)|TIMEOUT after <cycles> sys cycles in <s> s (<cycles/s>), <n> frames sent
//             by the SoC, <e> Ethernet cycles (<f> at 125 MHz)".
#include <algorithm>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cctype>
#include <cstring>
#include <deque>
#include <memory>
#include <string>
#include <vector>

#include "exchange.h"

#ifdef GATE_XC7
#define SYS_CLK mmcm_clkout0
#define SYS_LOCK mmcm_locked
#define ETH_CLK rmii_ref_clk
static const uint64_t ETH_HALF_FS = 10000000;  // REF_CLK, 50 MHz
static const int ETH_IFG = 48;                 // receive clock cycles between two frames (12 bytes)
static const char *const ETH_FAST = "50 MHz";
#else
#define SYS_CLK pll_clkos
#define SYS_LOCK pll_lock
#define ETH_CLK pll_clkop
static const uint64_t ETH_HALF_FS = 4000000;   // CLKOP and RXC, 125 MHz
static const int ETH_IFG = 16;
static const char *const ETH_FAST = "125 MHz";
#endif
#include "VGateTb.h"
#include "gate_ram.h"
#include "verilated.h"

static std::string plusarg(const char *name, const char *dflt) {
    const char *v = Verilated::commandArgsPlusMatch(name);
    std::string s(v ? v : "");
    std::string key = std::string("+") + name + "=";
    if (s.compare(0, key.size(), key) == 0) return s.substr(key.size());
    return dflt;
}
static uint64_t plusnum(const char *name, uint64_t dflt) {
    std::string s = plusarg(name, "");
    if (s.empty()) return dflt;
    char *end;
    unsigned long long v = strtoull(s.c_str(), &end, 0);
    if (*end) { fprintf(stderr, "gate: +%s=%s is not a number\n", name, s.c_str()); exit(2); }
    return v;
}
static std::string unescape(const std::string &s) {
    std::string o;
    for (size_t i = 0; i < s.size(); i++) {
        if (s[i] == '\\' && i + 1 < s.size()) {
            char c = s[++i];
            o.push_back(c == 'r' ? '\r' : c == 'n' ? '\n' : c);
        } else o.push_back(s[i]);
    }
    return o;
}
static uint32_t crc32(const std::vector<uint8_t> &d, size_t n) {
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < n; i++) {
        c ^= d[i];
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xEDB88320u & (0u - (c & 1)));
    }
    return ~c;
}

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    gate_ram_setup(plusarg("ram-placeholder", ""), plusarg("ram-firmware", ""));
    auto top = std::make_unique<VGateTb>();
    const uint64_t sys_hz = plusnum("sys-hz", 37500000);
    const uint64_t baud = plusnum("baud", 115200);
    const uint64_t timeout = plusnum("timeout", 0);
    const uint64_t lock_cycles = plusnum("lock-cycles", 16);
    const bool rx_clock = plusnum("rx-clock", 1) != 0;
    const uint64_t idle_div = plusnum("eth-idle-div", 1);
    const uint64_t eth_guard = plusnum("eth-guard", 2048);
    if (idle_div < 1 || idle_div > 1000) { fprintf(stderr, "gate: +eth-idle-div=%llu: 1 to 1000\n", (unsigned long long)idle_div); exit(2); }
    const std::string until = plusarg("until", "");
    std::string until_tx = plusarg("until-tx", "");
    for (auto &c : until_tx) c = (char)tolower((unsigned char)c);
    bool seen_text = until.empty(), seen_tx = until_tx.empty();
    const std::string uart_in = unescape(plusarg("uart-in", ""));
    const uint64_t uart_in_delay = plusnum("uart-in-delay", 0);
    const std::string uart_in_after = plusarg("uart-in-after", "");
    std::string eth_in_hex = plusarg("eth-in", "");
    const std::string eth_in_after = plusarg("eth-in-after", "");
    uint64_t eth_in_count = plusnum("eth-in-count", eth_in_hex.empty() ? 0 : 1);
    const std::string kill_after = plusarg("kill-after", "");
    const uint64_t kill_hold = plusnum("kill-hold", 1000);
#ifndef GATE_XC7
    if (!kill_after.empty()) { fprintf(stderr, "gate: +kill-after=: this board's top has no kill pin\n"); exit(2); }
#endif
    if (kill_hold == 0) { fprintf(stderr, "gate: +kill-hold=0: the button must be held for at least one cycle\n"); exit(2); }
    gx::Exchange ex(sys_hz, ETH_FAST);
    if (plusnum("fix-exchange", 0)) {
        std::string err;
        if (!ex.configure(plusarg("fix-mac", ""), plusarg("fix-ip", ""), plusnum("fix-port", 0), plusarg("fix-comp-id", ""),
                          plusarg("fix-soc-comp-id", ""), plusarg("fix-symbol", ""), plusarg("fix-trades", ""),
                          plusarg("fix-w-after", ""), plusnum("fix-w-delay", 100000), plusnum("fix-w-gap", 200000),
                          plusarg("fix-expect", ""), &err)) {
            fprintf(stderr, "gate: %s\n", err.c_str());
            exit(2);
        }
    }

    // a frame as it goes on the wire: preamble, SFD, the frame padded to 60 bytes, FCS
    auto wire = [](std::vector<uint8_t> f) {
        std::vector<uint8_t> w;
        while (f.size() < 60) f.push_back(0);
        uint32_t fcs = crc32(f, f.size());
        for (int i = 0; i < 4; i++) f.push_back((uint8_t)(fcs >> (8 * i)));
        for (int i = 0; i < 7; i++) w.push_back(0x55);
        w.push_back(0xD5);
        w.insert(w.end(), f.begin(), f.end());
        return w;
    };
    std::vector<uint8_t> eth_in_frame;
    if (!eth_in_hex.empty()) {
        std::vector<uint8_t> f;
        for (size_t i = 0; i + 1 < eth_in_hex.size(); i += 2) f.push_back((uint8_t)strtoul(eth_in_hex.substr(i, 2).c_str(), nullptr, 16));
        eth_in_frame = wire(f);
    }
    // the frames waiting for the receive pins, in order (tag: the exchange's, told when the frame has gone)
    std::deque<std::pair<std::vector<uint8_t>, int>> rxq;
    std::vector<uint8_t> eth_frame;
    int eth_tag = 0;
    size_t eth_mark_end = 0;  // with the last 35=W's frame: the position after its crossing price's SOH (T2T's start)
    int ifg = 0;  // receive clock cycles still to wait before the next frame

    // clocks, in femtoseconds: half periods and next edge times
    const uint64_t sys_half = (uint64_t)(5e14 / (double)sys_hz + 0.5), eth_half = ETH_HALF_FS;
    uint64_t t_sys = sys_half, t_eth = eth_half, now = 0;
    uint64_t guard = eth_guard, eth_cycles = 0, eth_fast = 0;  // Ethernet cycles of 125 MHz still due; counts
    top->SYS_CLK = 0; top->ETH_CLK = 0; top->SYS_LOCK = 0; top->uart_rx = 1;
#ifdef GATE_XC7
    top->clk_in = 0; top->btn_reset = 0; top->btn_kill = 0; top->rmii_crs_dv = 0; top->rmii_rx_data = 0;
    int rx_dibit = 0, tx_dibit = 0; uint8_t tx_byte = 0;
#else
    top->clk25 = 0; top->btn_n = 1; top->rgmii_rx_clk = 0; top->rgmii_rx_ctl = 0; top->rgmii_rx_data = 0;
#endif
    top->eval();
    // (the block RAM models' initial blocks have run: the firmware is in the RAM, gate_ram.cpp)
    if (!gate_ram_report()) exit(2);

    const uint64_t div = plusnum("uart-divisor", (sys_hz + baud / 2) / baud);
    if (div < 4) { fprintf(stderr, "gate: UART divisor %llu (+baud= or +uart-divisor=): at least 4 sys cycles a bit\n", (unsigned long long)div); exit(2); }
    int rx_state = -1; uint64_t rx_count = 0; uint8_t rx_byte = 0;  // UART decoder
    std::string console, line, out_line;
    size_t uart_in_pos = 0; uint64_t tx_bit_count = 0; int tx_bit = -1; uint16_t tx_shift = 0;  // UART typing
    bool typing = uart_in_after.empty() && !uart_in.empty();
    bool sending = false; size_t eth_pos = 0; uint64_t eth_wait = 0;
    std::vector<uint8_t> txf; bool tx_en = false; uint8_t tx_lo = 0; int txframes = 0; uint64_t tx_sof = 0;
    uint64_t cycles = 0;
    uint64_t kill_left = 0; bool kill_done = kill_after.empty();  // sys cycles the button is still held; pressed once
    int status = -1;
    auto t0 = std::chrono::steady_clock::now();

    while (status < 0 && !Verilated::gotFinish()) {
        uint64_t t = std::min(t_sys, t_eth);
        now = t;
        bool sys_edge = t == t_sys, tx_edge = t == t_eth, rx_edge = rx_clock && tx_edge;
        if (sys_edge) { top->SYS_CLK = !top->SYS_CLK; t_sys += sys_half; }
        if (tx_edge) {
            top->ETH_CLK = !top->ETH_CLK;
            bool fast = idle_div == 1 || sending || tx_en || guard > 0;
            t_eth += fast ? eth_half : eth_half * idle_div;
            if (top->ETH_CLK) { eth_cycles++; if (fast) eth_fast++; if (guard) guard--; }
        }
#ifdef GATE_XC7
        // RMII receive: the next dibit at the falling edge, for the PHY's rising edge
        if (rx_edge && !top->ETH_CLK) {
            if (sending) {
                top->rmii_crs_dv = 1;
                top->rmii_rx_data = (eth_frame[eth_pos] >> (2 * rx_dibit)) & 3;
                if (++rx_dibit == 4) {
                    rx_dibit = 0;
                    if (++eth_pos == eth_mark_end && ex.enabled) ex.on_mark(eth_cycles);
                    if (eth_pos == eth_frame.size()) {
                        sending = false; eth_pos = 0; guard = eth_guard; ifg = ETH_IFG + 1;
                        if (ex.enabled) ex.on_sent(eth_tag, eth_cycles);
                    }
                }
            } else { top->rmii_crs_dv = 0; top->rmii_rx_data = 0; if (ifg) ifg--; }
        }
#else
        if (rx_edge) {
            top->rgmii_rx_clk = !top->rgmii_rx_clk;
            // RGMII receive: low nibble and RX_DV for the rising edge, high nibble and DV^ER for the falling one
            if (sending) {
                uint8_t b = eth_frame[eth_pos];
                top->rgmii_rx_ctl = 1;
                top->rgmii_rx_data = top->rgmii_rx_clk ? (b & 0xF) : (b >> 4);
                if (!top->rgmii_rx_clk && ++eth_pos == eth_mark_end && ex.enabled) ex.on_mark(eth_cycles);
                if (!top->rgmii_rx_clk && eth_pos == eth_frame.size()) {
                    sending = false; eth_pos = 0; guard = eth_guard; ifg = ETH_IFG;
                    if (ex.enabled) ex.on_sent(eth_tag, eth_cycles);
                }
            } else if (top->rgmii_rx_clk) { top->rgmii_rx_ctl = 0; top->rgmii_rx_data = 0; if (ifg) ifg--; }
        }
#endif
        top->eval();
        if (tx_edge) {
            if (top->ETH_CLK) {
#ifdef GATE_XC7
                bool en = top->rmii_tx_en;
                if (en) {
                    if (!tx_en) { tx_sof = eth_cycles; tx_dibit = 0; tx_byte = 0; }
                    tx_byte |= (uint8_t)((top->rmii_tx_data & 3) << (2 * tx_dibit));
                    if (++tx_dibit == 4) { txf.push_back(tx_byte); tx_dibit = 0; tx_byte = 0; }
                }
                (void)tx_lo;
#else
                bool en = top->rgmii_tx_ctl;
                if (en) { tx_lo = top->rgmii_tx_data & 0xF; if (!tx_en) tx_sof = eth_cycles; }
#endif
                if (!en && tx_en) {  // end of a frame
                    size_t p = 0;
                    while (p < txf.size() && txf[p] == 0x55) p++;
                    bool sfd = p < txf.size() && txf[p] == 0xD5;
                    std::vector<uint8_t> fr(txf.begin() + (sfd ? p + 1 : 0), txf.end());
                    bool ok = sfd && fr.size() >= 64 && crc32(fr, fr.size() - 4) ==
                        (uint32_t)(fr[fr.size() - 4] | fr[fr.size() - 3] << 8 | fr[fr.size() - 2] << 16 | (uint32_t)fr[fr.size() - 1] << 24);
                    txframes++;
                    printf("gate: tx frame %zu bytes fcs %s at cycle %llu:", fr.size(), ok ? "ok" : "BAD", (unsigned long long)cycles);
                    std::string hex;
                    char h[4];
                    for (size_t i = 0; i < fr.size(); i++) { snprintf(h, sizeof h, "%02x", fr[i]); hex += h; if (i < 64) printf(" %s", h); }
                    printf("\n");
                    if (ok && !seen_tx && hex.find(until_tx) != std::string::npos) seen_tx = true;
                    fflush(stdout);
                    if (ex.enabled) {
                        std::vector<uint8_t> body(fr.begin(), fr.end() - (fr.size() >= 4 ? 4 : fr.size()));
                        ex.on_tx(body, ok, cycles, tx_sof);
                    }
                    if (seen_text && seen_tx && (!ex.enabled || ex.done)) status = 0;
                    txf.clear();
                }
                tx_en = en;
                if (en) guard = eth_guard;
            }
#ifndef GATE_XC7
            else if (tx_en) {
                txf.push_back((uint8_t)(tx_lo | (top->rgmii_tx_data & 0xF) << 4));
            }
#endif
        }
        if (!(sys_edge && top->SYS_CLK)) continue;

        // one sys cycle
        cycles++;
        if (cycles == lock_cycles) top->SYS_LOCK = 1;
        bool txd = top->uart_tx;
        if (rx_state < 0) {
            if (!txd) { rx_state = 0; rx_count = div / 2; }
        } else if (--rx_count == 0) {
            rx_count = div;
            if (rx_state == 0) rx_state = txd ? -1 : 1;
            else if (rx_state <= 8) { rx_byte = (uint8_t)(rx_byte >> 1 | (txd ? 0x80 : 0)); rx_state++; }
            else {
                rx_state = -1;
                char c = (char)rx_byte;
                // the console's lines are printed whole: the harness's own lines go between them, never inside
                out_line.push_back(c);
                if (c == '\n') { fputs(out_line.c_str(), stdout); out_line.clear(); fflush(stdout); }
                console.push_back(c);
                if (console.size() > 65536) console.erase(0, 32768);
                if (!seen_text && c == '\n' && console.find(until) != std::string::npos) { seen_text = true; if (seen_tx && (!ex.enabled || ex.done)) status = 0; }
                if (ex.enabled) ex.on_console(console);
                if (!typing && !uart_in_after.empty() && uart_in_pos == 0 && console.find(uart_in_after) != std::string::npos) typing = true;
                if (!kill_done && c == '\n' && console.find(kill_after) != std::string::npos) {
                    kill_done = true; kill_left = kill_hold;
#ifdef GATE_XC7
                    top->btn_kill = 1;
#endif
                    printf("gate: kill pin pressed at cycle %llu\n", (unsigned long long)cycles); fflush(stdout);
                }
                if (!sending && eth_in_count && !eth_in_after.empty() && console.find(eth_in_after) != std::string::npos && eth_wait == 0) { eth_wait = 1; guard = eth_guard; }
            }
        }
        if (kill_left && --kill_left == 0) {
#ifdef GATE_XC7
            top->btn_kill = 0;
#endif
            printf("gate: kill pin released at cycle %llu\n", (unsigned long long)cycles); fflush(stdout);
        }
        // the console input
        if (typing && cycles >= uart_in_delay) {
            if (tx_bit < 0 && uart_in_pos < uart_in.size()) {
                tx_shift = (uint16_t)(0x200 | (uint8_t)uart_in[uart_in_pos++] << 1);  // start, 8 data, stop
                tx_bit = 0; tx_bit_count = div;
            }
            if (tx_bit >= 0) {
                top->uart_rx = (tx_shift >> tx_bit) & 1;
                if (--tx_bit_count == 0) { tx_bit_count = div; if (++tx_bit == 10) { tx_bit = -1; top->uart_rx = 1; } }
            }
        }
        // the Ethernet input
        if (eth_wait && !sending && eth_in_count) {
            if (--eth_wait == 0) { rxq.push_back({eth_in_frame, 0}); guard = eth_guard; eth_in_count--; if (eth_in_count) eth_wait = 20000; }
        }
        if (ex.enabled) {
            ex.tick(cycles);
            while (!ex.out.empty()) { rxq.push_back({wire(ex.out.front().data), ex.out.front().tag}); ex.out.pop_front(); guard = eth_guard; }
        }
        if (!sending && ifg == 0 && !rxq.empty()) {
            eth_frame = std::move(rxq.front().first); eth_tag = rxq.front().second; rxq.pop_front();
            eth_mark_end = 0;
            if (eth_tag == 2 && ex.enabled && !ex.t2t_mark().empty()) {
                const std::string &m = ex.t2t_mark();
                auto at = std::search(eth_frame.begin(), eth_frame.end(), m.begin(), m.end());
                if (at != eth_frame.end()) eth_mark_end = (size_t)(at - eth_frame.begin()) + m.size();
            }
            sending = true; guard = eth_guard; eth_pos = 0;
#ifdef GATE_XC7
            rx_dibit = 0;
#endif
        }
        if (timeout && cycles >= timeout) status = 124;
    }
    fputs(out_line.c_str(), stdout);
    ex.finish();
    if (status == 0 && ex.failures) status = 1;
    double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    printf("\ngate: %s after %llu sys cycles in %.1f s (%.0f cycles/s), %d frames sent by the SoC, %llu Ethernet cycles (%llu at %s)\n",
           status == 0 ? "done" : status == 1 ? "done (exchange checks failed)" : "TIMEOUT", (unsigned long long)cycles, s, cycles / (s > 0 ? s : 1), txframes,
           (unsigned long long)eth_cycles, (unsigned long long)eth_fast, ETH_FAST);
    top->final();
    return status;
}
