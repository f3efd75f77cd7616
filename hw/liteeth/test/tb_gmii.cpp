// Triggerfish: standalone Verilator test of the generated LiteEth GMII raw-stream MAC.
//
// Drives the GMII pins of liteeth_mac_gmii (gen_mac.py --phy gmii), class name Vdut (--prefix Vdut).
//   RX: random good frames (60..1514 bytes without FCS) and frames with a corrupted FCS, with
//       preamble/SFD/FCS on gmii_rx_*, checked byte by byte on the rx_* stream (last, error, sof).
//   TX: frames pushed into tx_* (isolated ones for latency, then back to back with valid held),
//       decoded on gmii_tx_*: preamble, SFD, data, zero padding to 60, FCS, inter-frame gap.
// Cycle convention (both domains): "cycle c" is the clock period that ends with rising edge c. A pin
// value is "on the pins in cycle c" if the DUT (or the PHY, for TX pins) samples it at edge c; a stream
// beat happens in cycle c if valid (& ready) are seen just before edge c. Latencies are differences of
// cycle numbers in the same domain.
// Plusargs: +seed=N +rx_good=N +rx_bad=N +tx_iso=N +tx_burst=N
// Poison mode (+poison=1, only in a build with -DTB_POISON, for a DUT generated with --tx-poison): about half of the
// TX frames are sent with tx_poison = 1 on their last byte's handshake; tx_poison is random in every other cycle
// (including a last byte held while tx_ready is low). Expected on the wire: the normal frame with its last FCS byte
// XOR 0xFF. After the back-to-back frames come +tx_short=N (default 100) more, back to back and 1..20 bytes long,
// so that a frame's last byte is taken while the previous frame's FCS is still in the pipeline; they are left out of
// the gap and line-rate figures, and the poison draws use their own generator, so that every latency and gap figure
// is the one the same seed gives without poison.
// Prints "PASS name ..." / "FAIL name ..." lines, exit code 1 if any FAIL.

#include "Vdut.h"
#include "verilated.h"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <map>
#include <random>
#include <string>
#include <vector>

#ifndef TB_POISON
#define TB_POISON 0
#endif

typedef std::vector<uint8_t> Bytes;

static uint32_t crc32(const Bytes& b) {
    uint32_t c = 0xffffffffu;
    for (uint8_t x : b) {
        c ^= x;
        for (int k = 0; k < 8; k++) c = (c >> 1) ^ (0xedb88320u & (0u - (c & 1u)));
    }
    return ~c;
}

static Bytes with_fcs(const Bytes& b) {
    Bytes r = b;
    uint32_t c = crc32(b);
    for (int i = 0; i < 4; i++) r.push_back((c >> (8 * i)) & 0xff);
    return r;
}

static int arg_int(const char* name, int def) {
    const char* v = Verilated::commandArgsPlusMatch(name);
    if (v && v[0]) {
        const char* eq = strchr(v, '=');
        if (eq) return atoi(eq + 1);
    }
    return def;
}

struct Stats {
    std::vector<long> v;
    void add(long x) { v.push_back(x); }
    long mn() const { long m = v.empty() ? -1 : v[0]; for (long x : v) if (x < m) m = x; return m; }
    long mx() const { long m = v.empty() ? -1 : v[0]; for (long x : v) if (x > m) m = x; return m; }
    std::string str() const {
        char b[96];
        snprintf(b, sizeof b, "min %ld max %ld (n=%zu)", mn(), mx(), v.size());
        return b;
    }
};

static int n_pass = 0, n_fail = 0;
static void check(bool ok, const char* name, const std::string& detail) {
    printf("%s %s: %s\n", ok ? "PASS" : "FAIL", name, detail.c_str());
    if (ok) n_pass++; else n_fail++;
}

int main(int argc, char** argv) {
    Verilated::commandArgs(argc, argv);
    const int seed     = arg_int("seed", 1);
    const int rx_good  = arg_int("rx_good", 200);
    const int rx_bad   = arg_int("rx_bad", 50);
    const int tx_iso   = arg_int("tx_iso", 20);
    const int tx_burst = arg_int("tx_burst", 200);
    const bool poison  = arg_int("poison", 0) != 0;
    const int tx_short = poison ? arg_int("tx_short", 100) : 0;
    if (poison && !TB_POISON) {
        printf("FAIL poison: +poison=1 needs a testbench built with -DTB_POISON (a DUT with the tx_poison port)\n");
        return 1;
    }
    std::mt19937 rng(seed);
    std::mt19937 prng(seed * 7919u + 13u);  // poison mode only: leaves rng's sequence (the stimulus) alone
    auto prnd = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(prng); };
    auto rnd = [&](int lo, int hi) { return std::uniform_int_distribution<int>(lo, hi)(rng); };
    auto rand_frame = [&](int lo, int hi) {
        Bytes f(rnd(lo, hi));
        for (auto& x : f) x = rnd(0, 255);
        return f;
    };

    Vdut* dut = new Vdut;
    const int RESET_CYCLES = 8, START = 16;

    // ---------------------------------------------------------------- RX stimulus (built ahead)
    struct RxExp { Bytes data; bool bad; long first_da_cycle; };
    std::vector<RxExp> rx_exp;
    std::vector<std::pair<int, int>> rx_pins;  // per cycle after reset: (dv, data)
    {
        std::vector<bool> kinds(rx_good, false);
        kinds.insert(kinds.end(), rx_bad, true);
        std::shuffle(kinds.begin(), kinds.end(), rng);
        for (size_t i = 0; i < kinds.size(); i++) {
            int idle = rnd(12, 40);
            for (int k = 0; k < idle; k++) rx_pins.push_back({0, rnd(0, 255)});
            for (int k = 0; k < 7; k++) rx_pins.push_back({1, 0x55});
            rx_pins.push_back({1, 0xd5});
            RxExp e;
            e.data = rand_frame(60, 1514);
            e.bad = kinds[i];
            e.first_da_cycle = START + (long)rx_pins.size();  // rx_pins[k] is on the pins in cycle START+k
            Bytes w = with_fcs(e.data);
            if (e.bad) w[w.size() - 1 - rnd(0, 3)] ^= (uint8_t)rnd(1, 255);
            for (uint8_t x : w) rx_pins.push_back({1, x});
            rx_exp.push_back(e);
        }
        for (int k = 0; k < 100; k++) rx_pins.push_back({0, 0});
    }

    // ---------------------------------------------------------------- TX stimulus
    struct TxFrame { Bytes data; bool iso; long valid_cycle; bool poison; };
    std::vector<TxFrame> tx_frames;
    for (int i = 0; i < tx_iso; i++) tx_frames.push_back({rand_frame(i < 5 ? 1 : 14, i < 10 ? 59 : 1514), true, -1, false});
    for (int i = 0; i < tx_burst; i++) {
        int kind = rnd(0, 9);  // 30% short frames (padding), rest 60..1514
        tx_frames.push_back({kind < 3 ? rand_frame(14, 59) : rand_frame(60, 1514), false, -1, false});
    }
    const size_t tx_main = tx_frames.size();  // iso + burst: the frames of the latency, gap and line-rate figures
    for (int i = 0; i < tx_short; i++) {
        Bytes f(prnd(1, 20));
        for (auto& x : f) x = prnd(0, 255);
        tx_frames.push_back({f, false, -1, false});
    }
    if (poison) for (auto& f : tx_frames) f.poison = prnd(0, 1);

    // ---------------------------------------------------------------- state
    long rx_cyc = 0, tx_cyc = 0;
    // RX checker
    size_t rx_idx = 0;       // frame being received on the stream
    size_t rx_pos = 0;       // byte index in it
    long rx_first_beat = -1;
    size_t sof_idx = 0;
    int rx_good_ok = 0, rx_good_bad = 0, rx_bad_flagged = 0, rx_bad_missed = 0, rx_extra = 0;
    std::string rx_first_err;
    Stats rx_lat, sof_lat;
    // TX driver
    size_t tx_idx = 0, tx_pos = 0;
    long tx_idle_until = START + 20;
    bool tx_started_frame = false;
    // TX monitor
    bool prev_en = false;
    long en_rise = -1, last_fall = -1;
    Bytes wire;
    size_t mon_idx = 0;
    int tx_ok = 0, tx_badf = 0;
    std::string tx_first_err;
    Stats tx_lat_en, tx_lat_da, ifg_all, ifg_burst;
    long burst_start = -1, burst_end = -1;
    long burst_wire_bytes = 0;
    int pois_ok[3] = {0, 0, 0}, pois_n[3] = {0, 0, 0}, clean_ok = 0, clean_n = 0;  // [iso, burst, short]
    long poison_garbage = 0;  // cycles with tx_poison random (not a last-byte handshake)

    bool rst_seen_rx = false, rst_seen_tx = false, rst_stuck = false;
    dut->rst = 1;
    dut->gmii_rx_clk = 0;
    dut->gmii_gtx_clk = 0;
    dut->gmii_rx_dv = 0;
    dut->gmii_rx_data = 0;
    dut->tx_valid = 0;
    dut->tx_data = 0;
    dut->tx_last = 0;
#if TB_POISON
    dut->tx_poison = 0;
#endif
    dut->eval();

    const long MAX_CYCLES = 50000000;
    bool rx_done = false, tx_done = false;
    long done_cycle = -1;
    for (long n = 0; n < MAX_CYCLES; n++) {
        // ---------------- RX rising edge (t = 8n ns)
        {
            long c = rx_cyc;
            // resets: eth_*_rst must be high while rst is (after the first edge) and low 2 edges after it falls
            if (c >= 1 && c <= RESET_CYCLES) { rst_seen_rx |= dut->eth_rx_rst; rst_seen_tx |= dut->eth_tx_rst; }
            if (c >= RESET_CYCLES + 3 && (dut->eth_rx_rst || dut->eth_tx_rst)) rst_stuck = true;
            if (c >= START) {
                // sample the stream (values seen just before edge c)
                bool v = dut->rx_valid, l = dut->rx_last, er = dut->rx_error;
                uint8_t d = dut->rx_data;
                if (dut->rx_sof) {
                    if (sof_idx < rx_exp.size()) sof_lat.add(c - (rx_exp[sof_idx].first_da_cycle));
                    sof_idx++;
                }
                if (v) {
                    if (rx_idx >= rx_exp.size()) {
                        rx_extra++;
                    } else {
                        RxExp& e = rx_exp[rx_idx];
                        if (rx_pos == 0) { rx_first_beat = c; rx_lat.add(c - e.first_da_cycle); }
                        static bool frame_ok = true;
                        if (rx_pos == 0) frame_ok = true;
                        char msg[160];
                        if (rx_pos >= e.data.size() || d != e.data[rx_pos]) {
                            if (frame_ok && rx_first_err.empty()) {
                                snprintf(msg, sizeof msg, "frame %zu byte %zu: got %02x", rx_idx, rx_pos, d);
                                rx_first_err = msg;
                            }
                            frame_ok = false;
                        }
                        bool exp_last = rx_pos == e.data.size() - 1;
                        if (l != exp_last) {
                            if (frame_ok && rx_first_err.empty()) {
                                snprintf(msg, sizeof msg, "frame %zu byte %zu/%zu: last=%d", rx_idx, rx_pos, e.data.size(), l);
                                rx_first_err = msg;
                            }
                            frame_ok = false;
                        }
                        if (er && !l) frame_ok = false;
                        rx_pos++;
                        if (l || rx_pos >= e.data.size()) {
                            if (!e.bad) { if (frame_ok && l && !er) rx_good_ok++; else rx_good_bad++; }
                            else { if (l && er) rx_bad_flagged++; else rx_bad_missed++; if (!frame_ok) rx_good_bad++; }
                            rx_idx++; rx_pos = 0;
                        }
                    }
                }
            }
            dut->gmii_rx_clk = 1;
            dut->rst = c < RESET_CYCLES;
            dut->eval();
            // pins for cycle c+1
            long k = (c + 1) - START;
            if (k >= 0 && k < (long)rx_pins.size()) {
                dut->gmii_rx_dv = rx_pins[k].first;
                dut->gmii_rx_data = rx_pins[k].second;
            } else {
                dut->gmii_rx_dv = 0;
                dut->gmii_rx_data = 0;
                if (k >= (long)rx_pins.size()) rx_done = true;
            }
            dut->eval();
            rx_cyc++;
        }
        // ---------------- TX rising edge (t = 8n + 3 ns)
        {
            long c = tx_cyc;
            bool en = dut->gmii_tx_en;
            uint8_t td = dut->gmii_tx_data;
            bool hs = dut->tx_valid && dut->tx_ready;
            // monitor (PHY samples gmii_tx_* at edge c)
            if (c >= START) {
                if (en && !prev_en) {
                    en_rise = c;
                    wire.clear();
                    if (last_fall >= 0 && mon_idx < tx_main) {
                        ifg_all.add(c - last_fall);
                        if (mon_idx > (size_t)tx_iso) ifg_burst.add(c - last_fall);
                    }
                    if (mon_idx < tx_frames.size() && tx_frames[mon_idx].iso) {
                        tx_lat_en.add(c - tx_frames[mon_idx].valid_cycle);
                        tx_lat_da.add(c + 8 - tx_frames[mon_idx].valid_cycle);
                    }
                    if (mon_idx == (size_t)tx_iso) burst_start = c;
                }
                if (en) wire.push_back(td);
                if (!en && prev_en) {
                    last_fall = c;
                    // decode
                    std::string err;
                    if (mon_idx >= tx_frames.size()) err = "unexpected frame";
                    else {
                        const Bytes& f = tx_frames[mon_idx].data;
                        Bytes pay = f;
                        if (pay.size() < 60) pay.resize(60, 0);
                        Bytes exp = {0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0xd5};
                        Bytes wf = with_fcs(pay);
                        exp.insert(exp.end(), wf.begin(), wf.end());
                        if (tx_frames[mon_idx].poison) exp.back() ^= 0xff;  // poisoned: last FCS byte inverted
                        if (wire.size() != exp.size()) {
                            char m[96]; snprintf(m, sizeof m, "frame %zu: %zu bytes on wire, expected %zu", mon_idx, wire.size(), exp.size());
                            err = m;
                        } else {
                            for (size_t i = 0; i < exp.size(); i++)
                                if (wire[i] != exp[i]) {
                                    char m[128];
                                    const char* part = i < 7 ? "preamble" : i == 7 ? "SFD" : i < 8 + f.size() ? "data" : i < 8 + pay.size() ? "padding" : "FCS";
                                    snprintf(m, sizeof m, "frame %zu (len %zu%s): wire byte %zu (%s) %02x != %02x", mon_idx, f.size(),
                                             tx_frames[mon_idx].poison ? ", poisoned" : "", i, part, wire[i], exp[i]);
                                    err = m;
                                    break;
                                }
                        }
                        if (mon_idx >= (size_t)tx_iso && mon_idx < tx_main) burst_wire_bytes += exp.size();
                        int grp = tx_frames[mon_idx].iso ? 0 : mon_idx < tx_main ? 1 : 2;
                        if (tx_frames[mon_idx].poison) { pois_n[grp]++; if (err.empty()) pois_ok[grp]++; }
                        else { clean_n++; if (err.empty()) clean_ok++; }
                    }
                    if (err.empty()) tx_ok++; else { tx_badf++; if (tx_first_err.empty()) tx_first_err = err; }
                    mon_idx++;
                    if (mon_idx == tx_main) burst_end = c;
                    if (mon_idx == tx_frames.size()) tx_done = true;
                }
                prev_en = en;
            }
            dut->gmii_gtx_clk = 1;
            dut->eval();
            // driver: advance on handshake, then set inputs for cycle c+1
            if (hs && tx_idx < tx_frames.size()) {
                tx_pos++;
                if (tx_pos == tx_frames[tx_idx].data.size()) {
                    tx_pos = 0;
                    tx_idx++;
                    tx_started_frame = false;
                    if (tx_idx < tx_frames.size() && tx_frames[tx_idx].iso) tx_idle_until = c + 1 + rnd(100, 160);  // > padding (59) + FCS + IFG of a 1-byte frame
                    else if (tx_idx == (size_t)tx_iso) tx_idle_until = c + 1 + 120;  // let the last isolated frame finish
                }
            }
            bool drive = tx_idx < tx_frames.size() && (c + 1) >= tx_idle_until;
            if (drive) {
                const Bytes& f = tx_frames[tx_idx].data;
                if (!tx_started_frame) { tx_frames[tx_idx].valid_cycle = c + 1; tx_started_frame = true; }
                dut->tx_valid = 1;
                dut->tx_data = f[tx_pos];
                dut->tx_last = tx_pos == f.size() - 1;
            } else {
                dut->tx_valid = 0;
                dut->tx_data = 0;
                dut->tx_last = 0;
            }
            dut->eval();
#if TB_POISON
            // tx_ready for cycle c+1 is settled now (it does not depend on tx_poison): the frame's verdict only on
            // its last byte's handshake, random garbage in every other cycle.
            if (poison) {
                if (dut->tx_valid && dut->tx_last && dut->tx_ready) dut->tx_poison = tx_frames[tx_idx].poison;
                else { dut->tx_poison = prnd(0, 1); poison_garbage++; }
                dut->eval();
            }
#endif
            tx_cyc++;
        }
        // ---------------- falling edges
        dut->gmii_rx_clk = 0;
        dut->eval();
        dut->gmii_gtx_clk = 0;
        dut->eval();
        if (rx_done && tx_done) {
            if (done_cycle < 0) done_cycle = n;
            if (n > done_cycle + 50) break;
        }
    }

    printf("RX: %d good frames sent, %d with a corrupted FCS; TX: %d isolated + %d back-to-back frames",
           rx_good, rx_bad, tx_iso, tx_burst);
    if (poison) printf(" + %d short back-to-back frames; poison mode", tx_short);
    printf("\n");
    char m[768];
    check(rst_seen_rx && rst_seen_tx && !rst_stuck, "resets",
          (std::string("eth_rx_rst/eth_tx_rst asserted during rst: ") + (rst_seen_rx ? "yes/" : "NO/") + (rst_seen_tx ? "yes" : "NO") +
           (rst_stuck ? "; still asserted after release" : "; released")).c_str());
    snprintf(m, sizeof m, "%d/%d intact, last on the final byte, error clear%s%s", rx_good_ok, rx_good,
             rx_first_err.empty() ? "" : "; first mismatch: ", rx_first_err.c_str());
    check(rx_good_ok == rx_good && rx_good_bad == 0, "rx_good_frames", m);
    snprintf(m, sizeof m, "%d/%d bad-FCS frames flagged with error on the last beat (%d passed as good)",
             rx_bad_flagged, rx_bad, rx_bad_missed);
    check(rx_bad_flagged == rx_bad && rx_bad_missed == 0, "rx_bad_fcs_flagged", m);
    snprintf(m, sizeof m, "%zu/%d frames delivered, %d beats outside any frame", rx_idx, rx_good + rx_bad, rx_extra);
    check(rx_idx == (size_t)(rx_good + rx_bad) && rx_extra == 0, "rx_frame_count", m);
    snprintf(m, sizeof m, "%zu pulses for %d frames; first DA byte on pins -> rx_sof: %s", sof_idx, rx_good + rx_bad, sof_lat.str().c_str());
    check(sof_idx == (size_t)(rx_good + rx_bad) && sof_lat.mn() == sof_lat.mx(), "rx_sof", m);
    snprintf(m, sizeof m, "first DA byte on pins -> first rx stream beat: %s cycles (edge sampling the pin byte to edge "
             "capturing the beat; the beat is driven %ld cycles after the pin-sampling edge)", rx_lat.str().c_str(), rx_lat.mn() - 1);
    check(!rx_lat.v.empty() && rx_lat.mn() == rx_lat.mx(), "rx_latency", m);
    snprintf(m, sizeof m, "%d/%zu frames decoded OK (preamble, SFD, data, padding to 60, FCS)%s%s", tx_ok, tx_frames.size(),
             tx_first_err.empty() ? "" : "; first error: ", tx_first_err.c_str());
    check(tx_ok == (int)tx_frames.size() && tx_badf == 0, "tx_frames", m);
    snprintf(m, sizeof m, "inter-frame gap (TX_EN low cycles): all %s; back-to-back %s", ifg_all.str().c_str(), ifg_burst.str().c_str());
    check(!ifg_all.v.empty() && ifg_all.mn() >= 12, "tx_ifg", m);
    if (burst_end > burst_start && burst_start >= 0) {
        long cyc = burst_end - burst_start;
        long ideal = burst_wire_bytes + 12L * (tx_burst - 1);
        snprintf(m, sizeof m, "back-to-back: %ld wire bytes (preamble..FCS) in %ld cycles from first TX_EN to last fall; ideal with 12-cycle IFG %ld (%.2f%%)",
                 burst_wire_bytes, cyc, ideal, 100.0 * ideal / cyc);
        check(cyc <= ideal + (tx_burst - 1), "tx_line_rate", m);
    } else {
        check(false, "tx_line_rate", "burst not observed");
    }
    if (poison) {
        int pn = pois_n[0] + pois_n[1] + pois_n[2], pok = pois_ok[0] + pois_ok[1] + pois_ok[2];
        snprintf(m, sizeof m, "%d/%d poisoned frames with the last FCS byte inverted (isolated %d/%d, back-to-back %d/%d, "
                 "short back-to-back %d/%d), %d/%d clean frames good; tx_poison random in the other %ld cycles",
                 pok, pn, pois_ok[0], pois_n[0], pois_ok[1], pois_n[1], pois_ok[2], pois_n[2], clean_ok, clean_n, poison_garbage);
        check(pok == pn && clean_ok == clean_n && pois_n[0] > 0 && pois_n[1] > 0 && pois_n[2] > 0 && clean_n > 0
              && pn + clean_n == (int)tx_frames.size(), "tx_poison", m);
    }
    snprintf(m, sizeof m, "tx_valid -> TX_EN rising: %s cycles; tx_valid -> first DA byte on pins: %s cycles (edge sampling "
             "the first tx_valid to the edge where the PHY samples TX_EN=1 / the DA byte; pins change %ld / %ld cycles after the "
             "valid-sampling edge)", tx_lat_en.str().c_str(), tx_lat_da.str().c_str(), tx_lat_en.mn() - 1, tx_lat_da.mn() - 1);
    check(!tx_lat_en.v.empty() && tx_lat_en.mn() == tx_lat_en.mx(), "tx_latency", m);
    printf("RESULT %d passed, %d failed\n", n_pass, n_fail);
    dut->final();
    delete dut;
    return n_fail ? 1 : 0;
}
