// sim/eth/test/test_loopback.cpp - the RX driver's pins wired into the TX decoder (same clock).
// Usage: test_loopback <work dir>   (writes loop.pcap, frames.csv, a FIFO there)
#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "check.h"
#include "eth_crc.h"
#include "eth_port.h"

using namespace tfeth;
using namespace tfeth_test;

static const uint64_t kPeriod = 8;

struct Ev {
    EthDir dir;
    uint64_t seq, sof, eof, sof_cycle, eof_cycle;
    size_t len, wire_len, frame_offset;
    std::string status, source;
    bool runt, dropped, forwarded;
    std::vector<uint8_t> frame;
    uint64_t byte0_ns;
};

struct Bench {
    EthPort port;
    MemoryBackend *mem;
    std::vector<Ev> ev;
    uint64_t t = 0, cycles = 0;
    explicit Bench(const EthConfig &c) : port(c) {
        auto m = std::unique_ptr<MemoryBackend>(new MemoryBackend);
        mem = m.get();
        port.attach_backend(std::move(m));
        port.set_frame_hook([this](const EthFrameEvent &e) {
            Ev x{e.dir, e.seq, e.sof_ns, e.eof_ns, e.sof_cycle, e.eof_cycle, e.len, e.wire_len, e.frame_offset,
                 e.status, e.source, e.runt, e.dropped, e.forwarded, std::vector<uint8_t>(e.frame, e.frame + e.len),
                 e.len ? e.frame_byte_ns(0) : 0};
            ev.push_back(std::move(x));
        });
    }
    // Loopback: the RX pins of this edge are the TX pins sampled at this edge.
    void step() {
        t += kPeriod;
        uint8_t dv, d;
        port.rx_edge(t, dv, d);
        port.tx_edge(t, dv, d);
        if (++cycles % 2048 == 0) port.poll(t);
    }
    void run_until_idle(uint64_t max_cycles = 100000000) {
        port.poll(t);
        for (uint64_t i = 0; i < max_cycles; i++) {
            step();
            if (port.rx_idle() && !port.tx_in_frame() && mem->to_soc.empty()) {
                for (int k = 0; k < 4; k++) step();  // let tx_en fall and the decoder finish
                return;
            }
        }
    }
    size_t count(EthDir d) const { return std::count_if(ev.begin(), ev.end(), [d](const Ev &e) { return e.dir == d; }); }
};

static std::string sh(const std::string &cmd) {
    std::string out;
    FILE *p = popen(cmd.c_str(), "r");
    if (!p) return out;
    char buf[4096];
    size_t n;
    while ((n = fread(buf, 1, sizeof buf, p)) > 0) out.append(buf, n);
    pclose(p);
    return out;
}

static std::string hex(const std::vector<uint8_t> &v) {
    std::string s;
    char b[4];
    for (uint8_t x : v) { snprintf(b, sizeof b, "%02x", x); s += b; }
    return s;
}

int main(int argc, char **argv) {
    std::string dir = argc > 1 ? argv[1] : "/tmp";
    std::mt19937_64 rng(12345);

    // ---------------------------------------------------------------- 1. random frames, byte exact
    printf("loopback: random frames from the backend through RX pins -> TX decoder -> backend\n");
    EthConfig cfg;
    cfg.pcap = dir + "/loop.pcap";
    cfg.frame_log = dir + "/frames.csv";
    cfg.quiet = true;
    cfg.rx_queue_max = 100000;
    std::vector<std::vector<uint8_t>> sent;
    {
        Bench b(cfg);
        check(b.port.ok(), "port opens pcap and frame log", "%s", b.port.error().c_str());
        const int N = 3000;
        for (int i = 0; i < N; i++) {
            size_t len = (i % 10 == 0) ? 14 + rng() % 46 : 14 + rng() % (1514 - 14 + 1);  // 10% shorter than 60
            if (i == 1) len = 1514;
            if (i == 2) len = 60;
            if (i == 3) len = 59;
            std::vector<uint8_t> f(len);
            for (auto &x : f) x = (uint8_t)rng();
            b.mem->to_soc.push_back(f);
            sent.push_back(f);
        }
        b.run_until_idle();
        bool exact = b.mem->sent.size() == sent.size();
        size_t bad = 0;
        for (size_t i = 0; exact && i < sent.size(); i++) {
            std::vector<uint8_t> want = sent[i];
            if (want.size() < 60) want.resize(60, 0);
            if (b.mem->sent[i] != want) { exact = false; bad = i; }
        }
        check(exact, "3000 random frames (14..1514 bytes) come back byte-exact, short ones zero-padded to 60",
              "%zu sent, %zu back, first mismatch #%zu", sent.size(), b.mem->sent.size(), bad);
        const EthStats &s = b.port.stats();
        check(s.rx_frames == (uint64_t)N && s.tx_frames == (uint64_t)N && s.tx_good == (uint64_t)N && s.tx_bad_fcs == 0 &&
                  s.tx_runts == 0 && s.tx_forwarded == (uint64_t)N && s.tx_short_ifg == 0 && s.tx_odd_preamble == 0,
              "statistics", "rx %llu tx %llu good %llu badfcs %llu runts %llu fwd %llu shortifg %llu",
              (unsigned long long)s.rx_frames, (unsigned long long)s.tx_frames, (unsigned long long)s.tx_good,
              (unsigned long long)s.tx_bad_fcs, (unsigned long long)s.tx_runts, (unsigned long long)s.tx_forwarded,
              (unsigned long long)s.tx_short_ifg);
        // timing: RX sof == TX sof (same edge), eof - sof = (wire-1) periods, gap = 12 byte times
        std::vector<const Ev *> rx, tx;
        for (auto &e : b.ev) (e.dir == EthDir::kToSoc ? rx : tx).push_back(&e);
        bool timing = rx.size() == (size_t)N && tx.size() == (size_t)N;
        size_t first_bad = 0;
        for (size_t i = 0; timing && i < rx.size(); i++) {
            const Ev &r = *rx[i], &x = *tx[i];
            size_t wire = 8 + std::max<size_t>(sent[i].size(), 60) + 4;
            bool ok = r.sof == x.sof && r.eof == x.eof && r.wire_len == wire && r.eof - r.sof == (wire - 1) * kPeriod &&
                      r.eof_cycle - r.sof_cycle == wire - 1 && r.frame_offset == 8 && r.byte0_ns == r.sof + 8 * kPeriod &&
                      x.byte0_ns == r.byte0_ns && r.seq == i + 1 && x.seq == i + 1;
            if (i > 0) ok = ok && r.sof - rx[i - 1]->eof == (12 + 1) * kPeriod;
            if (!ok) { timing = false; first_bad = i; }
        }
        check(timing, "hook times: RX sof = TX sof, eof - sof = (wire bytes - 1) x 8 ns, gap exactly 12 idle cycles",
              "first bad frame %zu", first_bad);
        check(rx.size() && rx[0]->sof == kPeriod && rx[0]->sof_cycle == 0, "first frame starts at the first edge",
              "sof %llu ns", rx.size() ? (unsigned long long)rx[0]->sof : 0ULL);
        b.port.finish();
        // pcap via tshark: count, lengths, nanosecond time stamps, in order
        std::string out = sh("tshark -r '" + cfg.pcap + "' -T fields -e frame.time_epoch -e frame.len 2>&1");
        std::vector<std::pair<std::string, size_t>> rows;
        size_t pos = 0;
        while (pos < out.size()) {
            size_t e = out.find('\n', pos);
            if (e == std::string::npos) e = out.size();
            std::string line = out.substr(pos, e - pos);
            pos = e + 1;
            char ts[64];
            size_t len;
            if (sscanf(line.c_str(), "%63s %zu", ts, &len) == 2) rows.emplace_back(ts, len);
        }
        check(rows.size() == 2 * (size_t)N, "tshark reads the pcap: one record per frame each way", "%zu records (want %d)",
              rows.size(), 2 * N);
        bool ts_ok = rows.size() == 2 * (size_t)N;
        size_t tbad = 0;
        for (size_t i = 0; ts_ok && i < (size_t)N; i++) {
            // records are in time order; RX and TX of frame i share the time stamp
            uint64_t want = rx[i]->sof;
            char w[64];
            snprintf(w, sizeof w, "%llu.%09llu", (unsigned long long)(want / 1000000000), (unsigned long long)(want % 1000000000));
            size_t wl = std::max<size_t>(sent[i].size(), 60);
            for (int k = 0; k < 2; k++)
                if (rows[2 * i + k].first != w || rows[2 * i + k].second != wl) { ts_ok = false; tbad = i; }
        }
        check(ts_ok, "pcap time stamps = first preamble byte in ns, lengths without FCS", "first bad %zu: %s",
              tbad, rows.size() > 2 * tbad ? rows[2 * tbad].first.c_str() : "-");
        std::string head = sh("od -A n -t x1 -N 4 '" + cfg.pcap + "'");
        check(head.find("4d 3c b2 a1") != std::string::npos, "pcap magic 0xA1B23C4D (ns)", "%s", head.c_str());
        std::string det = sh("tshark -r '" + cfg.pcap + "' -c 1 -V 2>&1 | grep -m1 -E 'Encapsulation type'");
        check(det.find("Ethernet") != std::string::npos, "tshark sees Ethernet", "%s", det.c_str());
        std::string csv = sh("wc -l < '" + cfg.frame_log + "'");
        check(atoi(csv.c_str()) == 2 * N + 1, "frame log CSV has a line per frame", "%s lines", csv.c_str());
    }

    // ---------------------------------------------------------------- 2. injections and commands
    printf("loopback: control commands\n");
    {
        EthConfig c2;
        c2.quiet = true;
        c2.pcap = dir + "/inject.pcap";
        Bench b(c2);
        std::vector<uint8_t> f40(40);
        for (size_t i = 0; i < f40.size(); i++) f40[i] = (uint8_t)(i * 7 + 1);
        std::vector<uint8_t> f100(100);
        for (size_t i = 0; i < f100.size(); i++) f100[i] = (uint8_t)(255 - i);
        std::vector<uint8_t> raw_good = make_wire(f100.data(), 80, 0);  // 80 bytes + correct FCS
        std::vector<uint8_t> raw_bad(f100.begin(), f100.begin() + 70);
        bool c_ok = true;
        c_ok &= b.port.command("inject-runt " + hex(f40), b.t);
        c_ok &= b.port.command("inject-badfcs " + hex(f100), b.t);
        c_ok &= b.port.command("inject " + hex(f40), b.t);  // padded to 60
        c_ok &= b.port.command("inject-raw " + hex(raw_good), b.t);
        c_ok &= b.port.command("inject-raw " + hex(raw_bad), b.t);
        c_ok &= b.port.command("# a comment", b.t);
        c_ok &= b.port.command("inject 01:02:03:04:05:06 0a-0b-0c-0d-0e-0f 88 b5 de ad be ef", b.t);
        check(c_ok, "commands accepted");
        check(!b.port.command("inject 0g", b.t) && !b.port.command("frobnicate", b.t) && !b.port.command("inject 123", b.t),
              "bad commands refused");
        b.run_until_idle();
        const EthStats &s = b.port.stats();
        check(b.mem->sent.size() == 4, "good frames forwarded: runt, padded, raw with FCS, separators", "%zu", b.mem->sent.size());
        if (b.mem->sent.size() == 4) {
            std::vector<uint8_t> pad40 = f40;
            pad40.resize(60, 0);
            check(b.mem->sent[0] == f40, "inject-runt arrives as 40 bytes, not padded", "%zu", b.mem->sent[0].size());
            check(b.mem->sent[1] == pad40, "inject pads 40 -> 60");
            check(b.mem->sent[2] == std::vector<uint8_t>(f100.begin(), f100.begin() + 80), "inject-raw with a correct FCS");
            check(b.mem->sent[3].size() == 60 && b.mem->sent[3][12] == 0x88 && b.mem->sent[3][17] == 0xef,
                  "hex with ':' '-' ' ' separators");
        }
        check(s.tx_bad_fcs == 2 && s.tx_runts == 1 && s.rx_injected == 6 && s.rx_injected_badfcs == 1 &&
                  s.rx_injected_runt == 1 && s.rx_injected_raw == 2 && s.ctl_errors == 3,
              "bad FCS (inject-badfcs, bad raw) counted, not forwarded; runt counted",
              "badfcs %llu runts %llu injected %llu errors %llu", (unsigned long long)s.tx_bad_fcs,
              (unsigned long long)s.tx_runts, (unsigned long long)s.rx_injected, (unsigned long long)s.ctl_errors);
        int marked = 0;
        for (auto &e : b.ev)
            if (e.dir == EthDir::kFromSoc && e.status == "bad-fcs" && e.dropped && !e.forwarded) marked++;
        check(marked == 2, "hook marks the bad-FCS frames", "%d", marked);
        bool runt_marked = false;
        for (auto &e : b.ev)
            if (e.dir == EthDir::kFromSoc && e.runt && e.len == 40 && e.status == "ok") runt_marked = true;
        check(runt_marked, "hook marks the runt");

        // burst at minimum gap, then a wider gap, drop-tx
        size_t before = b.ev.size();
        b.port.command("inject-burst 50 " + hex(f100), b.t);
        b.run_until_idle();
        bool gaps = true;
        std::vector<const Ev *> rx;
        for (size_t i = before; i < b.ev.size(); i++)
            if (b.ev[i].dir == EthDir::kToSoc) rx.push_back(&b.ev[i]);
        for (size_t i = 1; i < rx.size(); i++) gaps &= rx[i]->sof - rx[i - 1]->eof == 13 * kPeriod;
        check(rx.size() == 50 && gaps, "inject-burst 50: back to back, 12 idle byte times apart", "%zu frames", rx.size());
        b.port.command("ifg 20", b.t);
        b.port.command("drop-tx 2", b.t);
        before = b.ev.size();
        size_t fwd_before = b.mem->sent.size();
        b.port.command("inject-burst 5 " + hex(f100), b.t);
        b.run_until_idle();
        rx.clear();
        int dropped = 0;
        for (size_t i = before; i < b.ev.size(); i++) {
            if (b.ev[i].dir == EthDir::kToSoc) rx.push_back(&b.ev[i]);
            else if (b.ev[i].dropped && b.ev[i].status == "ok") dropped++;
        }
        gaps = rx.size() == 5;
        for (size_t i = 1; i < rx.size(); i++) gaps &= rx[i]->sof - rx[i - 1]->eof == 21 * kPeriod;
        check(gaps, "ifg 20: gap of 20 idle byte times");
        check(dropped == 2 && b.mem->sent.size() - fwd_before == 3 && b.port.stats().tx_dropped_ctl == 2,
              "drop-tx 2: two dropped (hook marks them), three forwarded", "dropped %d forwarded %zu", dropped,
              b.mem->sent.size() - fwd_before);
        // drop-rx: frames from the backend
        b.port.command("ifg 12", b.t);
        b.port.command("drop-rx 1", b.t);
        b.mem->to_soc.push_back(f100);
        b.mem->to_soc.push_back(f40);
        b.run_until_idle();
        check(b.port.stats().rx_dropped_ctl == 1 && b.mem->sent.back().size() == 60, "drop-rx 1 drops the first host frame");
        // at <ns>: deferred injection starts on the first edge at or after that time
        uint64_t at = b.t + 8000 + 3;
        b.port.command("at " + std::to_string(at) + " inject " + hex(f100), b.t);
        before = b.ev.size();
        for (int i = 0; i < 2000; i++) b.step();
        b.run_until_idle();
        const Ev *late = nullptr;
        for (size_t i = before; i < b.ev.size(); i++)
            if (b.ev[i].dir == EthDir::kToSoc) late = &b.ev[i];
        check(late && late->sof >= at && late->sof < at + kPeriod, "at <ns> inject: starts on the first edge after <ns>",
              "at %llu, sof %llu", (unsigned long long)at, late ? (unsigned long long)late->sof : 0ULL);
        b.port.command("exit 3", b.t);
        check(b.port.exit_requested() == 3, "exit 3 requested");
        b.port.print_stats(stdout);
        b.port.finish();
        std::string n = sh("tshark -r '" + c2.pcap + "' 2>/dev/null | wc -l");
        size_t want = b.port.stats().rx_frames + b.port.stats().tx_frames;
        check((size_t)atoi(n.c_str()) == want, "pcap has every frame both ways incl. bad FCS and dropped", "%d of %zu",
              atoi(n.c_str()), want);
        std::string runt = sh("tshark -r '" + c2.pcap + "' -T fields -e frame.len 2>/dev/null | head -2 | tr '\\n' ' '");
        check(runt == "40 40 ", "pcap: the runt is 40 bytes both ways", "%s", runt.c_str());
    }

    // ---------------------------------------------------------------- 3. TX decoder on hand-made pins
    printf("TX decoder: malformed bursts from the SoC\n");
    {
        EthConfig c3;
        c3.quiet = true;
        Bench b(c3);
        auto burst = [&](const std::vector<uint8_t> &bytes, int idle_after) {
            for (uint8_t x : bytes) { b.t += 8; b.port.tx_edge(b.t, true, x); }
            for (int i = 0; i < idle_after; i++) { b.t += 8; b.port.tx_edge(b.t, false, 0); }
        };
        std::vector<uint8_t> fr(64);
        for (size_t i = 0; i < fr.size(); i++) fr[i] = (uint8_t)i;
        std::vector<uint8_t> w = make_wire(fr.data(), fr.size(), 0);
        std::vector<uint8_t> good = {0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0xD5};
        good.insert(good.end(), w.begin(), w.end());
        std::vector<uint8_t> nosfd(good.begin(), good.begin() + 7);
        nosfd.insert(nosfd.end(), w.begin(), w.end());
        std::vector<uint8_t> shortpre(good.begin() + 2, good.end());
        std::vector<uint8_t> tiny = {0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0x55, 0xD5, 1, 2, 3};
        burst(good, 12);
        burst(nosfd, 12);
        burst(shortpre, 12);
        burst(tiny, 5);   // followed by a short gap
        burst(good, 12);
        const EthStats &s = b.port.stats();
        check(s.tx_frames == 5 && s.tx_good == 3 && s.tx_bad_preamble == 1 && s.tx_odd_preamble == 1 && s.tx_too_short == 1 &&
                  s.tx_short_ifg == 1 && b.mem->sent.size() == 3,
              "no SFD / 5-byte preamble / 3 bytes / short gap", "frames %llu good %llu badpre %llu oddpre %llu short %llu ifg %llu",
              (unsigned long long)s.tx_frames, (unsigned long long)s.tx_good, (unsigned long long)s.tx_bad_preamble,
              (unsigned long long)s.tx_odd_preamble, (unsigned long long)s.tx_too_short, (unsigned long long)s.tx_short_ifg);
        check(b.ev.size() == 5 && b.ev[0].sof == 8 && b.ev[0].eof == 8 * good.size() && b.ev[0].byte0_ns == 8 * 9,
              "TX hook: sof = tx_en rise edge, eof = last byte edge");
    }

    // ---------------------------------------------------------------- 4. control channel through a FIFO
    printf("control channel: FIFO created by the port, commands written by another party\n");
    {
        std::string fifo = dir + "/ctl.fifo";
        unlink(fifo.c_str());
        EthConfig c4;
        c4.quiet = true;
        c4.ctl = fifo;
        Bench b(c4);
        struct stat sb;
        check(b.port.ok() && stat(fifo.c_str(), &sb) == 0 && S_ISFIFO(sb.st_mode), "FIFO created", "%s", b.port.error().c_str());
        // two separate writers, like two `echo ... > fifo`
        for (int k = 0; k < 2; k++) {
            int fd = open(fifo.c_str(), O_WRONLY | O_NONBLOCK);
            std::string cmds = k == 0 ? "inject ffffffffffff025446000001 88b5 0102\ninject-runt ffffffffffff025446000001 88b5 0102\n"
                                      : "inject-badfcs ffffffffffff025446000001 88b5 0102\ninject-burst 3 ffffffffffff02544600000188b5\nmark done\n";
            ssize_t r = write(fd, cmds.data(), cmds.size());
            (void)r;
            close(fd);
            b.port.poll(b.t);
        }
        b.run_until_idle();
        const EthStats &s = b.port.stats();
        check(s.rx_injected == 6 && s.tx_good == 5 && s.tx_bad_fcs == 1 && s.tx_runts == 1 && s.ctl_errors == 0,
              "commands through the FIFO from two writers", "injected %llu good %llu badfcs %llu",
              (unsigned long long)s.rx_injected, (unsigned long long)s.tx_good, (unsigned long long)s.tx_bad_fcs);
        b.port.finish();
        check(stat(fifo.c_str(), &sb) != 0, "FIFO removed at the end (it created it)");
    }
    {
        std::string file = dir + "/ctl.txt";
        FILE *f = fopen(file.c_str(), "w");
        fprintf(f, "inject 0102030405060708090a0b0c0d0e\n");
        fclose(f);
        EthConfig c5;
        c5.quiet = true;
        c5.ctl = file;
        Bench b(c5);
        b.run_until_idle();
        f = fopen(file.c_str(), "a");
        fprintf(f, "inject 0102030405060708090a0b0c0d0e\nexit 0\n");
        fclose(f);
        b.run_until_idle();
        check(b.port.stats().tx_good == 2 && b.port.exit_requested() == 0, "control channel as a regular file, appended to");
        unlink(file.c_str());
    }

    // ---------------------------------------------------------------- 5. speed
    {
        EthConfig c6;
        c6.quiet = true;
        Bench b(c6);
        auto t0 = std::chrono::steady_clock::now();
        for (int i = 0; i < 10000000; i++) b.step();
        double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        check(s < 5, "10 M idle edges (rx + tx) cost", "%.1f ns per edge pair", s * 1e9 / 1e7);
    }
    return result();
}
