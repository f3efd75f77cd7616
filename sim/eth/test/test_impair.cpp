// sim/eth/test/test_impair.cpp - the impaired wire (eth_impair.h) on its own and in the port (loopback:
// the RX pins wired into the TX decoder), checked against a reference written here from the documented draw
// order (eth_impair.h) and against binomial bounds that know nothing of the implementation.
// Usage: test_impair <work dir>
#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "check.h"
#include "eth_crc.h"
#include "eth_port.h"

using namespace tfeth;
using namespace tfeth_test;

static const uint64_t kPeriod = 8;
typedef unsigned long long ull;

// ---- the reference: eth_impair.h's documented algorithm, written again from its comment ----------------
struct RefOutcome {
    bool lost = false, dup = false, held = false, corrupt = false;
    std::vector<uint32_t> bits;
    double u_jitter = 0;
};
static uint64_t ref_splitmix(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}
static std::vector<RefOutcome> reference(uint64_t seed, unsigned dir, double loss, double dup, double reorder,
                                         double corrupt, unsigned nbits_flip, const std::vector<size_t> &lens) {
    std::mt19937_64 g(ref_splitmix(seed ^ (dir + 1)));
    auto u = [&]() { return (double)(g() >> 11) / 9007199254740992.0; };
    std::vector<RefOutcome> out;
    for (size_t len : lens) {
        RefOutcome o;
        double ul = u(), ud = u(), ur = u(), uc = u();
        o.u_jitter = u();
        o.lost = ul < loss;
        if (!o.lost) {
            o.dup = ud < dup;
            o.held = ur < reorder;
            o.corrupt = uc < corrupt;
            while (o.corrupt && o.bits.size() < nbits_flip) {
                uint32_t b = (uint32_t)(g() % (8 * len));
                if (std::find(o.bits.begin(), o.bits.end(), b) == o.bits.end()) o.bits.push_back(b);
            }
        }
        out.push_back(o);
    }
    return out;
}
// |observed - n p| within 5 standard deviations of a binomial(n, p)
static bool binomial_ok(uint64_t observed, uint64_t n, double p, double *sigmas) {
    double mean = n * p, sd = std::sqrt(n * p * (1 - p));
    *sigmas = sd > 0 ? std::fabs(observed - mean) / sd : (observed == mean ? 0 : 1e9);
    return *sigmas <= 5;
}

static std::vector<uint8_t> random_frame(std::mt19937_64 &r, size_t len, uint32_t index) {
    std::vector<uint8_t> f(len);
    for (auto &x : f) x = (uint8_t)r();
    memcpy(f.data() + 14, &index, 4);  // unique content
    return f;
}

// ---- the port in loopback ---------------------------------------------------------------------------------
struct Bench {
    EthPort port;
    MemoryBackend *mem;
    uint64_t t = 0, cycles = 0;
    std::vector<std::pair<std::string, std::vector<uint8_t>>> rx_ev;  // status, frame as on the RX pins
    explicit Bench(const EthConfig &c) : port(c) {
        auto m = std::unique_ptr<MemoryBackend>(new MemoryBackend);
        mem = m.get();
        port.attach_backend(std::move(m));
        port.set_frame_hook([this](const EthFrameEvent &e) {
            if (e.dir == EthDir::kToSoc) rx_ev.emplace_back(e.status, std::vector<uint8_t>(e.frame, e.frame + e.len));
        });
    }
    void step() {
        t += kPeriod;
        uint8_t dv, d;
        port.rx_edge(t, dv, d);
        port.tx_edge(t, dv, d);
        if (++cycles % 2048 == 0) port.poll(t);
    }
    void run_until_idle() {
        port.poll(t);
        uint64_t quiet = 0;
        for (uint64_t i = 0; i < 200000000 && quiet < 64; i++) {
            step();
            bool idle = port.rx_idle() && !port.tx_in_frame() && mem->to_soc.empty() &&
                        port.impairment(EthDir::kToSoc).queued() == 0 && port.impairment(EthDir::kFromSoc).queued() == 0;
            quiet = idle ? quiet + 1 : 0;
        }
    }
};

static std::vector<std::vector<uint8_t>> read_pcap(const std::string &path) {
    std::vector<std::vector<uint8_t>> recs;
    FILE *f = fopen(path.c_str(), "rb");
    if (!f) return recs;
    uint8_t gh[24];
    if (fread(gh, 1, 24, f) == 24) {
        uint32_t h[4];
        while (fread(h, 4, 4, f) == 4) {
            std::vector<uint8_t> r(h[2]);
            if (fread(r.data(), 1, r.size(), f) != r.size()) break;
            recs.push_back(std::move(r));
        }
    }
    fclose(f);
    return recs;
}
static size_t hamming(const std::vector<uint8_t> &a, const std::vector<uint8_t> &b) {
    if (a.size() != b.size()) return SIZE_MAX;
    size_t d = 0;
    for (size_t i = 0; i < a.size(); i++) d += __builtin_popcount(a[i] ^ b[i]);
    return d;
}
static std::vector<uint8_t> padded(std::vector<uint8_t> f) {
    if (f.size() < kMinFrame) f.resize(kMinFrame, 0);
    return f;
}

int main(int argc, char **argv) {
    std::string dir = argc > 1 ? argv[1] : "/tmp";
    std::mt19937_64 rng(777);

    // ---------------------------------------------------------------- settings
    printf("impair: settings\n");
    {
        ImpairConfig c;
        std::string err;
        bool sg = false;
        uint64_t sd = 0;
        bool ok = Impairment::parse("loss=0.05,dup=0.01,reorder=0.1,corrupt=0.001,delay=40us,jitter=2ms,reorder-delay=1s,"
                                    "corrupt-bits=3,corrupt-fcs=good,seed=99",
                                    c, &sg, &sd, &err);
        check(ok && c.loss == 0.05 && c.dup == 0.01 && c.reorder == 0.1 && c.corrupt == 0.001 && c.delay_ns == 40000 &&
                  c.jitter_ns == 2000000 && c.reorder_delay_ns == 1000000000 && c.corrupt_bits == 3 &&
                  c.corrupt_fcs_good && sg && sd == 99,
              "every key parses (times with units)", "%s", err.c_str());
        ImpairConfig before = c;
        const char *bad[] = {"loss=1.5", "loss=-0.1", "dup=abc", "reorder=", "lose=0.1", "loss", "corrupt-bits=0",
                             "corrupt-bits=65", "corrupt-fcs=maybe", "delay=5m", "delay=-3", "seed=x", "", "loss=nan",
                             "loss=0.1,bogus=1"};
        int refused = 0;
        for (const char *b : bad) {
            std::string e;
            if (!Impairment::parse(b, c, nullptr, nullptr, &e) && !e.empty()) refused++;
            else printf("    accepted '%s'\n", b);
        }
        check(refused == (int)(sizeof bad / sizeof bad[0]), "bad settings are refused with a reason",
              "%d of %zu refused", refused, sizeof bad / sizeof bad[0]);
        check(c.describe() == before.describe(), "a refused setting changes nothing (also its valid keys)");
        std::string e;
        Impairment::parse("lose=0.1", c, nullptr, nullptr, &e);
        check(e.find("unknown key 'lose'") != std::string::npos, "the error names the unknown key", "%s", e.c_str());
        Impairment::parse("loss=2", c, nullptr, nullptr, &e);
        check(e.find("0 to 1") != std::string::npos, "the error says a probability is 0..1", "%s", e.c_str());
        ImpairConfig d;
        check(Impairment::parse(c.describe(), d, nullptr, nullptr, &e) && d.describe() == c.describe(),
              "describe() reads back as the same settings", "%s", c.describe().c_str());
    }

    // ---------------------------------------------------------------- counts against the reference
    printf("impair: decisions against the reference and binomial bounds\n");
    {
        const int N = 50000;
        const double L = 0.05, D = 0.01, R = 0.1, C = 0.001;
        Impairment imp(0);
        std::string err;
        check(imp.apply("loss=0.05,dup=0.01,reorder=0.1,corrupt=0.001,seed=4242", &err), "apply", "%s", err.c_str());
        std::vector<size_t> lens;
        std::vector<std::vector<uint8_t>> orig;
        uint64_t got_lost = 0, got_dup = 0, got_held = 0, got_corrupt = 0;
        std::vector<RefOutcome> seen;
        for (int i = 0; i < N; i++) {
            size_t len = 60 + rng() % 1455;
            lens.push_back(len);
            orig.push_back(random_frame(rng, len, (uint32_t)i));
            auto fs = imp.offer(orig.back().data(), len, (uint64_t)i * 1000);
            RefOutcome o;
            o.lost = fs.empty();
            if (!fs.empty()) {
                o.dup = fs.size() == 2;
                o.held = fs[0].held;
                o.corrupt = fs[0].corrupt;
                o.bits = fs[0].flipped;
            }
            seen.push_back(o);
            got_lost += o.lost;
            got_dup += o.dup;
            got_held += o.held;
            got_corrupt += o.corrupt;
        }
        std::vector<RefOutcome> ref = reference(4242, 0, L, D, R, C, 1, lens);
        size_t mism = 0, first = SIZE_MAX;
        for (int i = 0; i < N; i++) {
            bool same = ref[i].lost == seen[i].lost && ref[i].dup == seen[i].dup && ref[i].held == seen[i].held &&
                        ref[i].corrupt == seen[i].corrupt && ref[i].bits == seen[i].bits;
            if (!same) { mism++; first = std::min(first, (size_t)i); }
        }
        check(mism == 0, "50,000 frames, seed 4242: every decision (and flipped bit) is the reference's", "%zu differ, first #%zu",
              mism, first);
        const ImpairStats &s = imp.stats();
        check(s.offered == (uint64_t)N && s.lost == got_lost && s.duplicated == got_dup && s.held == got_held &&
                  s.corrupted == got_corrupt && s.bits_flipped == got_corrupt,
              "the statistics count what happened", "offered %llu lost %llu dup %llu held %llu corrupt %llu",
              (ull)s.offered, (ull)s.lost, (ull)s.duplicated, (ull)s.held, (ull)s.corrupted);
        double sl, sdp, sr, sc;
        bool bl = binomial_ok(got_lost, N, L, &sl), bd = binomial_ok(got_dup, N - got_lost, D, &sdp),
             br = binomial_ok(got_held, N - got_lost, R, &sr), bc = binomial_ok(got_corrupt, N - got_lost, C, &sc);
        check(bl && bd && br && bc, "counts within 5 sigma of the binomial expectation",
              "lost %llu (%.1f sd) dup %llu (%.1f) held %llu (%.1f) corrupt %llu (%.1f)", (ull)got_lost, sl, (ull)got_dup, sdp,
              (ull)got_held, sr, (ull)got_corrupt, sc);
        printf("    lost %llu, duplicated %llu, held %llu, corrupted %llu of %d\n", (ull)got_lost, (ull)got_dup,
               (ull)got_held, (ull)got_corrupt, N);
        // the same seed and frames again: the same decisions; another seed: others
        Impairment again(0), other(0);
        again.apply("loss=0.05,dup=0.01,reorder=0.1,corrupt=0.001,seed=4242", &err);
        other.apply("loss=0.05,dup=0.01,reorder=0.1,corrupt=0.001,seed=4243", &err);
        size_t same = 0, diff = 0;
        for (int i = 0; i < 2000; i++) {
            auto a = again.offer(orig[i].data(), lens[i], 0);
            auto b = other.offer(orig[i].data(), lens[i], 0);
            same += (a.empty() == seen[i].lost);
            diff += (a.empty() != b.empty());
        }
        check(same == 2000 && diff > 0, "a seed reproduces its decisions; another seed makes others", "%zu same, %zu differ", same, diff);
    }

    // ---------------------------------------------------------------- corruption flips exactly the reported bits
    printf("impair: corruption\n");
    {
        Impairment imp(1);
        std::string err;
        imp.apply("corrupt=0.3,corrupt-bits=3,seed=7", &err);
        size_t n_corrupt = 0, exact = 0, clean_exact = 0, clean = 0;
        for (int i = 0; i < 3000; i++) {
            std::vector<uint8_t> f = random_frame(rng, 60 + rng() % 200, (uint32_t)i);
            auto fs = imp.offer(f.data(), f.size(), 0);
            const auto &x = fs.at(0);
            if (x.corrupt) {
                n_corrupt++;
                std::set<uint32_t> diffbits;
                for (size_t k = 0; k < f.size(); k++)
                    for (int b = 0; b < 8; b++)
                        if ((f[k] ^ x.bytes[k]) >> b & 1) diffbits.insert((uint32_t)(k * 8 + b));
                std::set<uint32_t> reported(x.flipped.begin(), x.flipped.end());
                if (diffbits == reported && reported.size() == 3) exact++;
            } else {
                clean++;
                clean_exact += x.bytes == f;
            }
        }
        check(n_corrupt > 0 && exact == n_corrupt, "each corrupted frame differs in exactly the 3 reported bits",
              "%zu of %zu", exact, n_corrupt);
        check(clean_exact == clean, "frames not corrupted are delivered unchanged", "%zu of %zu", clean_exact, clean);
        // a 1-byte frame with corrupt-bits=64: only its 8 bits can flip, each once
        Impairment one(0);
        one.apply("corrupt=1,corrupt-bits=64", &err);
        uint8_t b = 0x5A;
        auto fs = one.offer(&b, 1, 0);
        check(fs.size() == 1 && fs[0].flipped.size() == 8 && fs[0].bytes[0] == (uint8_t)~0x5A,
              "corrupt-bits larger than the frame flips each of its bits once", "flipped %zu", fs.empty() ? 0 : fs[0].flipped.size());
    }

    // ---------------------------------------------------------------- reordering and delay
    printf("impair: reordering and delay\n");
    {
        Impairment imp(0);
        std::string err;
        imp.apply("reorder=0.3,reorder-delay=50us,delay=20us,jitter=10us,seed=11", &err);
        const int N = 5000;
        std::vector<uint64_t> offered_at(N + 1);
        std::vector<bool> held(N + 1);
        std::vector<Impairment::Frame> out;
        uint64_t t = 0;
        for (int i = 0; i < N; i++) {
            t += 1000 + rng() % 20000;  // 1 to 21 us apart
            uint8_t b[64] = {0};
            memcpy(b, &i, 4);
            while (imp.due(t)) out.push_back(imp.pop());
            auto fs = imp.offer(b, sizeof b, t);
            offered_at[fs.at(0).id] = t;
            held[fs.at(0).id] = fs[0].held;
        }
        while (imp.queued()) out.push_back(imp.pop());
        std::map<uint64_t, int> times;
        for (auto &f : out) times[f.id]++;
        bool once = out.size() == (size_t)N && times.size() == (size_t)N && times.begin()->first == 1 &&
                    times.rbegin()->first == (uint64_t)N;
        for (auto &kv : times) once = once && kv.second == 1;
        check(once, "5,000 frames, 30 % held back: every frame delivered exactly once", "%zu delivered, %zu distinct",
              out.size(), times.size());
        uint64_t overtaken = 0, maxid = 0, prev_unheld = 0;
        bool unheld_in_order = true, delays_ok = true, release_order = true;
        uint64_t prev_rel = 0;
        for (auto &f : out) {
            if (f.id < maxid) overtaken++;
            maxid = std::max(maxid, f.id);
            if (!held[f.id]) {
                unheld_in_order = unheld_in_order && f.id > prev_unheld;
                prev_unheld = f.id;
            }
            uint64_t d = f.release_ns - offered_at[f.id];
            uint64_t lo = 20000 + (held[f.id] ? 50000 : 0);
            if (d < lo) delays_ok = false;  // at least delay (+ reorder-delay); more only to keep the order
            if (!held[f.id] && d > 20000 + 10000 && f.release_ns > prev_rel + 10000 + 20000) delays_ok = false;
            release_order = release_order && f.release_ns >= prev_rel;
            prev_rel = f.release_ns;
        }
        check(overtaken > 0 && overtaken == imp.stats().overtaken, "frames really are overtaken, and counted",
              "%llu overtaken (stats %llu), %llu held", (ull)overtaken, (ull)imp.stats().overtaken, (ull)imp.stats().held);
        check(unheld_in_order, "the frames not held back keep their order");
        check(delays_ok && release_order, "each frame waits delay (20 us) + jitter, held ones 50 us more, released in time order");
        // only delay: exact
        Impairment dl(1);
        dl.apply("delay=3ms", &err);
        uint8_t b[60] = {0};
        auto fs = dl.offer(b, 60, 12345);
        check(fs.size() == 1 && fs[0].release_ns == 12345 + 3000000 && !dl.due(12345 + 2999999) && dl.due(12345 + 3000000),
              "delay=3ms: due exactly 3,000,000 ns later");
    }

    // ---------------------------------------------------------------- in the port: loopback, both directions
    printf("impair: the port (loopback: RX pins -> TX decoder)\n");
    {
        // host -> SoC impaired, SoC -> host clean: what reaches the pins comes back unchanged
        EthConfig c;
        c.quiet = true;
        c.rx_queue_max = 100000;
        c.pcap = dir + "/impair-rx.pcap";
        c.pcap_host = dir + "/impair-rx-host.pcap";
        c.impair_rx = "loss=0.05,dup=0.02,reorder=0.1,corrupt=0.02,corrupt-fcs=good,reorder-delay=30us,seed=5";
        Bench b(c);
        check(b.port.ok(), "port with +impair-rx", "%s", b.port.error().c_str());
        const int N = 2000;
        std::vector<std::vector<uint8_t>> sent;
        std::vector<size_t> lens;
        for (int i = 0; i < N; i++) {
            sent.push_back(random_frame(rng, 60 + rng() % 300, (uint32_t)i));
            lens.push_back(sent.back().size());
        }
        // fed in four batches, so that held-back frames have others to be overtaken by
        for (int k = 0; k < 4; k++) {
            for (int i = k * N / 4; i < (k + 1) * N / 4; i++) b.mem->to_soc.push_back(sent[i]);
            b.port.poll(b.t);
            for (int s = 0; s < 1000; s++) b.step();
        }
        b.run_until_idle();
        b.port.finish();
        const Impairment &irx = b.port.impairment(EthDir::kToSoc);
        const Impairment &itx = b.port.impairment(EthDir::kFromSoc);
        std::vector<RefOutcome> ref = reference(5, 0, 0.05, 0.02, 0.1, 0.02, 1, lens);
        uint64_t r_lost = 0, r_dup = 0, r_corrupt = 0, r_deliv = 0;
        for (auto &o : ref) {
            r_lost += o.lost;
            r_dup += o.dup;
            r_corrupt += o.corrupt;
            r_deliv += o.lost ? 0 : o.dup ? 2 : 1;
        }
        const ImpairStats &s = irx.stats();
        check(s.offered == (uint64_t)N && s.lost == r_lost && s.duplicated == r_dup && s.corrupted == r_corrupt &&
                  s.delivered == r_deliv,
              "rx counts are the reference's", "lost %llu/%llu dup %llu/%llu corrupt %llu/%llu delivered %llu/%llu", (ull)s.lost,
              (ull)r_lost, (ull)s.duplicated, (ull)r_dup, (ull)s.corrupted, (ull)r_corrupt, (ull)s.delivered, (ull)r_deliv);
        check(s.overtaken > 0, "rx frames were reordered on the pins", "%llu", (ull)s.overtaken);
        check(!itx.active() && itx.stats().offered == 0 && b.mem->sent.size() == r_deliv,
              "the other direction is untouched: every frame on the pins came back", "%zu back, tx offered %llu",
              b.mem->sent.size(), (ull)itx.stats().offered);
        // what the pins saw (the pcap): each frame as delivered: lost ones absent, duplicates twice, the corrupted
        // ones one bit off, in the order delivered (= the order the TX side got them)
        std::vector<std::vector<uint8_t>> recs = read_pcap(c.pcap);
        std::vector<std::vector<uint8_t>> rx_recs;
        for (size_t i = 0; i + 1 < recs.size(); i += 2) rx_recs.push_back(recs[i]);  // RX, TX of the same frame, same stamp
        bool pairs = recs.size() == 2 * r_deliv;
        for (size_t i = 0; pairs && i + 1 < recs.size(); i += 2) pairs = recs[i] == recs[i + 1];
        check(pairs, "pcap: each delivered frame on the RX pins (and back on TX)", "%zu records, want %llu", recs.size(),
              (ull)(2 * r_deliv));
        std::map<int, int> copies;
        size_t corrupt_seen = 0, bad_match = 0, corrupt_status = 0;
        std::vector<int> order;
        for (size_t k = 0; k < rx_recs.size(); k++) {
            int best = -1;
            size_t bd = SIZE_MAX;
            for (int i = 0; i < N && bd > 0; i++) {
                size_t h = hamming(padded(sent[i]), rx_recs[k]);
                if (h < bd) { bd = h; best = i; }
            }
            if (bd > 1) { bad_match++; continue; }
            copies[best]++;
            order.push_back(best);
            if (bd == 1) {
                corrupt_seen++;
                if (!ref[best].bits.empty() && rx_recs[k] != padded(sent[best])) {
                    uint32_t bit = ref[best].bits[0];
                    std::vector<uint8_t> fix = rx_recs[k];
                    fix[bit / 8] ^= (uint8_t)(1u << (bit % 8));
                    if (fix != padded(sent[best])) bad_match++;
                }
            }
        }
        for (auto &e : b.rx_ev) corrupt_status += e.first == "corrupt";
        bool counts_ok = bad_match == 0;
        size_t seen_dup = 0, absent = 0;
        for (int i = 0; i < N; i++) {
            int want = ref[i].lost ? 0 : ref[i].dup ? 2 : 1;
            if (copies[i] != want) counts_ok = false;
            seen_dup += copies[i] == 2;
            absent += copies[i] == 0;
        }
        check(counts_ok, "pcap: lost frames absent, duplicates twice, every other frame once, each as the reference says",
              "%zu absent, %zu twice, %zu unmatched", absent, seen_dup, bad_match);
        uint64_t want_corrupt_recs = 0;
        for (auto &o : ref) want_corrupt_recs += o.corrupt ? (o.dup ? 2 : 1) : 0;
        check(corrupt_seen == want_corrupt_recs && corrupt_status == want_corrupt_recs,
              "pcap: corrupted frames one bit off (the reference's bit), hook status 'corrupt'", "%zu in pcap, %zu by status, want %llu",
              corrupt_seen, corrupt_status, (ull)want_corrupt_recs);
        size_t inversions = 0;
        for (size_t k = 1; k < order.size(); k++) inversions += order[k] < order[k - 1];
        check(inversions > 0 && inversions <= irx.stats().overtaken, "pcap: frames in the order delivered (reordered)",
              "%zu places out of order", inversions);
        std::vector<std::vector<uint8_t>> host = read_pcap(c.pcap_host);
        // host pcap: the host's frames as sent (before the RX impairment), then the ones it got back, in time order
        size_t host_from = 0;
        for (auto &r : host)
            for (int i = 0; i < N; i++)
                if (r == sent[i]) { host_from++; break; }
        check(host.size() == (size_t)N + r_deliv && host_from >= (size_t)N,
              "pcap-host: every frame the host sent, unimpaired, and every frame it got back", "%zu records (want %llu)",
              host.size(), (ull)(N + r_deliv));
    }
    {
        // SoC -> host impaired with corrupt-fcs=bad on RX: the TX decoder (the SoC's MAC here) sees a bad FCS
        EthConfig c;
        c.quiet = true;
        c.rx_queue_max = 100000;
        c.impair_rx = "corrupt=0.1,seed=8";  // corrupt-fcs=bad (the default)
        c.impair_tx = "loss=0.2,dup=0.1,seed=9";
        Bench b(c);
        const int N = 1000;
        std::vector<size_t> lens;
        for (int i = 0; i < N; i++) {
            b.mem->to_soc.push_back(random_frame(rng, 60 + rng() % 100, (uint32_t)i));
            lens.push_back(b.mem->to_soc.back().size());
        }
        b.run_until_idle();
        std::vector<RefOutcome> rref = reference(8, 0, 0, 0, 0, 0.1, 1, lens);
        uint64_t rc = 0;
        for (auto &o : rref) rc += o.corrupt;
        const EthStats &st = b.port.stats();
        check(st.tx_bad_fcs == rc && b.port.impairment(EthDir::kToSoc).stats().corrupted == rc,
              "corrupt-fcs=bad: the receiving MAC sees exactly the corrupted frames with a bad FCS", "bad FCS %llu, corrupted %llu",
              (ull)st.tx_bad_fcs, (ull)rc);
        // the TX impairment saw the good frames only (N - rc): its decisions are its own stream's (direction 1, seed 9)
        std::vector<size_t> txlens(N - rc, 60);
        std::vector<RefOutcome> tref = reference(9, 1, 0.2, 0.1, 0, 0, 1, txlens);
        uint64_t tl = 0, td = 0;
        for (auto &o : tref) { tl += o.lost; td += o.dup; }
        const ImpairStats &ts = b.port.impairment(EthDir::kFromSoc).stats();
        check(ts.offered == N - rc && ts.lost == tl && ts.duplicated == td && b.mem->sent.size() == N - rc - tl + td,
              "tx: its own stream (direction 1), independent of rx's: lost and duplicated as the reference",
              "offered %llu lost %llu/%llu dup %llu/%llu to the host %zu", (ull)ts.offered, (ull)ts.lost, (ull)tl,
              (ull)ts.duplicated, (ull)td, b.mem->sent.size());
        // the same seed in both directions gives different decisions
        std::vector<RefOutcome> r0 = reference(3, 0, 0.5, 0, 0, 0, 1, txlens), r1 = reference(3, 1, 0.5, 0, 0, 0, 1, txlens);
        size_t differ = 0;
        for (size_t i = 0; i < r0.size(); i++) differ += r0[i].lost != r1[i].lost;
        Impairment i0(0), i1(1);
        std::string err;
        i0.apply("loss=0.5,seed=3", &err);
        i1.apply("loss=0.5,seed=3", &err);
        size_t differ_impl = 0;
        uint8_t fr[60] = {0};
        for (size_t i = 0; i < r0.size(); i++) differ_impl += i0.offer(fr, 60, 0).empty() != i1.offer(fr, 60, 0).empty();
        check(differ > 0 && differ_impl == differ, "one seed, two directions: two different streams", "%zu of %zu differ",
              differ_impl, r0.size());
    }

    // ---------------------------------------------------------------- control channel and plusargs
    printf("impair: control channel and plusargs\n");
    {
        EthConfig c;
        c.quiet = true;
        Bench b(c);
        const Impairment &irx = b.port.impairment(EthDir::kToSoc);
        const Impairment &itx = b.port.impairment(EthDir::kFromSoc);
        check(!irx.active() && !itx.active(), "no impairment unless asked for");
        bool ok1 = b.port.command("impair rx loss=0.25,seed=17", 0);
        check(ok1 && irx.config().loss == 0.25 && irx.seed() == 17 && !itx.active(), "impair rx: only rx changes");
        bool ok2 = b.port.command("impair both dup=0.5", 0);
        check(ok2 && irx.config().loss == 0.25 && irx.config().dup == 0.5 && itx.config().dup == 0.5,
              "impair both: keys not given keep their values");
        uint64_t errs = b.port.stats().ctl_errors;
        std::string before = irx.config().describe() + itx.config().describe();
        bool b1 = b.port.command("impair rx loss=1.01", 0), b2 = b.port.command("impair tx dup=0.1,frobnicate=1", 0),
             b3 = b.port.command("impair sideways loss=0.1", 0), b4 = b.port.command("impair rx", 0);
        check(!b1 && !b2 && !b3 && !b4 && b.port.stats().ctl_errors == errs + 4 &&
                  irx.config().describe() + itx.config().describe() == before,
              "bad impair commands are errors and change nothing");
        // at run time: the new settings apply to the next frames
        b.port.command("impair rx loss=1", 0);
        for (int i = 0; i < 10; i++) b.mem->to_soc.push_back(std::vector<uint8_t>(60, (uint8_t)i));
        b.run_until_idle();
        size_t during = b.mem->sent.size();
        b.port.command("impair off", b.t);
        for (int i = 0; i < 10; i++) b.mem->to_soc.push_back(std::vector<uint8_t>(60, (uint8_t)i));
        b.run_until_idle();
        check(during == 0 && b.mem->sent.size() == 10 && !irx.active() && !itx.active(),
              "loss=1 drops every frame; impair off lets them all through", "%zu then %zu", during, b.mem->sent.size());

        const char *args1[] = {"prog", "+impair-rx=loss=0.1,dup=2"};
        EthPort p1(EthConfig::from_args(2, (char **)args1));
        check(!p1.ok() && p1.error().find("+impair-rx") != std::string::npos && p1.error().find("0 to 1") != std::string::npos,
              "+impair-rx with a bad probability: the port does not open, and says why", "%s", p1.error().c_str());
        const char *args2[] = {"prog", "+impair-tx=loss=0.1,colour=red"};
        EthPort p2(EthConfig::from_args(2, (char **)args2));
        check(!p2.ok() && p2.error().find("unknown key 'colour'") != std::string::npos, "+impair-tx with an unknown key",
              "%s", p2.error().c_str());
        const char *args3[] = {"prog", "+impair=loss=0.05,dup=0.01,reorder=0.1,corrupt=0.001", "+impair-seed=77",
                               "+impair-tx=dup=0.2"};
        EthPort p3(EthConfig::from_args(4, (char **)args3));
        const Impairment &r3 = p3.impairment(EthDir::kToSoc), &t3 = p3.impairment(EthDir::kFromSoc);
        check(p3.ok() && r3.config().loss == 0.05 && r3.config().corrupt == 0.001 && r3.seed() == 77 && t3.config().dup == 0.2 &&
                  t3.config().loss == 0 && t3.seed() == 77,
              "+impair sets both, +impair-tx overrides tx, +impair-seed seeds both", "%s", p3.error().c_str());
    }
    return result();
}
