// sim/eth/eth_impair.cpp - see eth_impair.h.
#include "eth_impair.h"

#include <algorithm>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace tfeth {

uint64_t Impairment::splitmix64(uint64_t x) {
    x += 0x9E3779B97F4A7C15ull;
    x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
    x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
    return x ^ (x >> 31);
}

void Impairment::reseed(uint64_t seed) {
    seed_ = seed;
    rng_.seed(splitmix64(seed ^ (uint64_t)(dir_ + 1)));
}

const char *Impairment::keys_help() {
    return "loss=P dup=P reorder=P corrupt=P (probabilities per frame, 0..1), corrupt-bits=N (1..64), "
           "corrupt-fcs=bad|good, delay=T jitter=T reorder-delay=T (T: ns, or 250ns 40us 2ms 1s), seed=N";
}

std::string ImpairConfig::describe() const {
    char b[320];
    snprintf(b, sizeof b,
             "loss=%g,dup=%g,reorder=%g,corrupt=%g,corrupt-bits=%u,corrupt-fcs=%s,delay=%lluns,jitter=%lluns,"
             "reorder-delay=%lluns",
             loss, dup, reorder, corrupt, corrupt_bits, corrupt_fcs_good ? "good" : "bad", (unsigned long long)delay_ns,
             (unsigned long long)jitter_ns, (unsigned long long)reorder_delay_ns);
    return b;
}

static bool parse_prob(const std::string &v, double &out) {
    if (v.empty()) return false;
    char *e = nullptr;
    errno = 0;
    double d = strtod(v.c_str(), &e);
    if (errno || !e || *e || !std::isfinite(d) || d < 0 || d > 1) return false;
    out = d;
    return true;
}

static bool parse_uint(const std::string &v, uint64_t &out) {
    if (v.empty() || v[0] == '-' || v[0] == '+') return false;
    char *e = nullptr;
    errno = 0;
    unsigned long long x = strtoull(v.c_str(), &e, 0);
    if (errno || !e || *e) return false;
    out = x;
    return true;
}

// "1500", "1500ns", "40us", "2ms", "1s" -> ns
static bool parse_time(const std::string &v, uint64_t &ns) {
    size_t i = 0;
    while (i < v.size() && v[i] >= '0' && v[i] <= '9') i++;
    if (i == 0) return false;
    std::string num = v.substr(0, i), unit = v.substr(i);
    uint64_t x;
    if (!parse_uint(num, x)) return false;
    uint64_t mul = unit.empty() || unit == "ns" ? 1 : unit == "us" ? 1000 : unit == "ms" ? 1000000 : unit == "s" ? 1000000000 : 0;
    if (!mul || x > UINT64_MAX / mul / 4) return false;
    ns = x * mul;
    return true;
}

bool Impairment::parse(const std::string &spec, ImpairConfig &cfg, bool *seed_given, uint64_t *seed, std::string *err) {
    ImpairConfig c = cfg;
    bool sg = false;
    uint64_t sd = 0;
    auto bad = [&](const std::string &why) {
        if (err) *err = why;
        return false;
    };
    std::string s = spec;
    for (char &ch : s)
        if (ch == ' ' || ch == '\t') ch = ',';
    size_t pos = 0;
    bool any = false;
    while (pos <= s.size()) {
        size_t end = s.find(',', pos);
        if (end == std::string::npos) end = s.size();
        std::string item = s.substr(pos, end - pos);
        pos = end + 1;
        if (item.empty()) continue;
        any = true;
        if (item == "off" || item == "none") {
            uint64_t rd = c.reorder_delay_ns;
            c = ImpairConfig();
            c.reorder_delay_ns = rd;
            continue;
        }
        size_t eq = item.find('=');
        if (eq == std::string::npos) return bad("'" + item + "' is not key=value (keys: " + keys_help() + ")");
        std::string k = item.substr(0, eq), v = item.substr(eq + 1);
        if (k == "loss" || k == "dup" || k == "reorder" || k == "corrupt") {
            double d;
            if (!parse_prob(v, d)) return bad(k + "=" + v + ": a probability is a number from 0 to 1");
            (k == "loss" ? c.loss : k == "dup" ? c.dup : k == "reorder" ? c.reorder : c.corrupt) = d;
        } else if (k == "corrupt-bits") {
            uint64_t n;
            if (!parse_uint(v, n) || n < 1 || n > 64) return bad(k + "=" + v + ": want 1..64 bits");
            c.corrupt_bits = (unsigned)n;
        } else if (k == "corrupt-fcs") {
            if (v == "bad") c.corrupt_fcs_good = false;
            else if (v == "good") c.corrupt_fcs_good = true;
            else return bad(k + "=" + v + ": want bad (the MAC discards the frame) or good (recomputed)");
        } else if (k == "delay" || k == "jitter" || k == "reorder-delay") {
            uint64_t ns;
            if (!parse_time(v, ns)) return bad(k + "=" + v + ": want a time (ns, or with a unit: 250ns 40us 2ms 1s)");
            (k == "delay" ? c.delay_ns : k == "jitter" ? c.jitter_ns : c.reorder_delay_ns) = ns;
        } else if (k == "seed") {
            if (!parse_uint(v, sd)) return bad(k + "=" + v + ": want an unsigned integer");
            sg = true;
        } else {
            return bad("unknown key '" + k + "' (keys: " + keys_help() + ")");
        }
    }
    if (!any) return bad(std::string("empty setting (keys: ") + keys_help() + ")");
    cfg = c;
    if (seed_given) *seed_given = sg;
    if (seed && sg) *seed = sd;
    return true;
}

bool Impairment::apply(const std::string &spec, std::string *err) {
    bool sg = false;
    uint64_t sd = 0;
    if (!parse(spec, cfg_, &sg, &sd, err)) return false;
    if (sg) reseed(sd);
    return true;
}

std::vector<Impairment::Frame> Impairment::offer(const uint8_t *p, size_t n, uint64_t now_ns) {
    std::vector<Frame> out;
    st_.offered++;
    uint64_t id = ++next_id_;
    // the draws, in the documented order, whatever the outcome
    double u_loss = unit(rng_()), u_dup = unit(rng_()), u_reorder = unit(rng_()), u_corrupt = unit(rng_()),
           u_jitter = unit(rng_());
    if (u_loss < cfg_.loss) {
        st_.lost++;
        return out;
    }
    Frame f;
    f.id = id;
    f.offered_ns = now_ns;
    f.bytes.assign(p, p + n);
    if (u_corrupt < cfg_.corrupt && n > 0) {
        f.corrupt = true;
        uint64_t nbits = 8 * (uint64_t)n;
        unsigned want = (unsigned)std::min<uint64_t>(cfg_.corrupt_bits, nbits);
        while (f.flipped.size() < want) {
            uint32_t b = (uint32_t)(rng_() % nbits);
            if (std::find(f.flipped.begin(), f.flipped.end(), b) != f.flipped.end()) continue;
            f.flipped.push_back(b);
            f.bytes[b / 8] ^= (uint8_t)(1u << (b % 8));
        }
        st_.corrupted++;
        st_.bits_flipped += f.flipped.size();
    }
    uint64_t rel = now_ns + cfg_.delay_ns + (uint64_t)(u_jitter * (double)cfg_.jitter_ns);
    rel = std::max(rel, last_release_);
    if (u_reorder < cfg_.reorder) {
        f.held = true;
        st_.held++;
        rel += cfg_.reorder_delay_ns;
    } else {
        last_release_ = rel;
    }
    f.release_ns = rel;
    out.push_back(f);
    if (u_dup < cfg_.dup) {
        Frame d = f;
        d.dup = true;
        st_.duplicated++;
        out.push_back(d);
    }
    for (const Frame &x : out) {
        auto it = std::upper_bound(q_.begin(), q_.end(), x.release_ns,
                                   [](uint64_t t, const Frame &y) { return t < y.release_ns; });
        q_.insert(it, x);
    }
    return out;
}

Impairment::Frame Impairment::pop() {
    Frame f = std::move(q_.front());
    q_.erase(q_.begin());
    st_.delivered++;
    st_.delay_ns_sum += f.release_ns - f.offered_ns;
    if (f.id < max_delivered_id_) st_.overtaken++;
    max_delivered_id_ = std::max(max_delivered_id_, f.id);
    return f;
}

}  // namespace tfeth
