// sim/eth/eth_impair.h - an impaired wire for one direction of the simulated Ethernet port: seeded loss,
// duplication, reordering, delay and bit corruption, all in simulated time (the kernel here has no netem,
// and the simulation runs about 1,000 times slower than real time, so wall-clock impairment would be
// meaningless). EthPort keeps one Impairment for each direction (rx = host -> SoC, tx = SoC -> host).
//
// Settings ("key=value,key=value"; see Impairment::keys_help()):
//   loss=P  dup=P  reorder=P  corrupt=P          probabilities per frame, 0..1
//   corrupt-bits=N                               bits flipped in a corrupted frame (1..64, default 1)
//   corrupt-fcs=bad|good                         bad (default): the FCS is that of the frame before the
//                                                flips, so the receiving MAC discards it; good: the FCS is
//                                                recomputed, the error gets past the MAC (IP/TCP checksums
//                                                must catch it)
//   delay=T  jitter=T                            every frame waits delay + uniform(0..jitter); order kept
//   reorder-delay=T                              a frame picked by `reorder` waits this much more (default
//                                                100us), so the frames after it overtake it
//   seed=N                                       restarts this direction's random stream
// T is a time in simulated ns, or with a unit: 250ns, 40us, 2ms, 1s.
//
// The random stream (std::mt19937_64, seeded with splitmix64(seed ^ (direction index + 1))) is drawn in this
// order for every frame offered, whatever the outcome, so that a fixed seed gives the same decisions for
// the same frames whatever the probabilities are:
//   u_loss, u_dup, u_reorder, u_corrupt, u_jitter           (u = (next() >> 11) * 2^-53, in [0,1))
// then, for a corrupted frame (u_corrupt < corrupt, and not lost), corrupt-bits draws next() % (8 * len),
// redrawn while a bit was already picked. A frame is lost when u_loss < loss (nothing else applies);
// duplicated when u_dup < dup (the copy is identical, corruption included, and follows it); held back by
// reorder-delay when u_reorder < reorder; corrupted when u_corrupt < corrupt. Its release time is
// max(now + delay + u_jitter * jitter, the previous release time) (+ reorder-delay when held back; the
// frames not held keep their order among themselves).
#pragma once
#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace tfeth {

struct ImpairConfig {
    double loss = 0, dup = 0, reorder = 0, corrupt = 0;
    unsigned corrupt_bits = 1;
    bool corrupt_fcs_good = false;
    uint64_t delay_ns = 0, jitter_ns = 0, reorder_delay_ns = 100000;
    bool active() const { return loss > 0 || dup > 0 || reorder > 0 || corrupt > 0 || delay_ns > 0 || jitter_ns > 0; }
    std::string describe() const;  // "loss=0.05,dup=0.01,..." (every key, loadable by apply())
};

struct ImpairStats {
    uint64_t offered = 0;      // frames that reached the impairment
    uint64_t lost = 0;         // dropped on purpose
    uint64_t duplicated = 0;   // frames delivered twice (the extra copies)
    uint64_t held = 0;         // frames held back by reorder-delay
    uint64_t overtaken = 0;    // deliveries of a frame after a frame offered later than it (real reordering)
    uint64_t corrupted = 0;    // frames with flipped bits (a duplicate of one counts once)
    uint64_t bits_flipped = 0;
    uint64_t delivered = 0;    // frames released (copies included)
    uint64_t delay_ns_sum = 0; // of the released frames: release time - offer time
};

class Impairment {
public:
    struct Frame {
        uint64_t id;                   // 1, 2, ... in the order offered
        uint64_t offered_ns, release_ns;
        std::vector<uint8_t> bytes;    // the frame as it is delivered (after the flips)
        std::vector<uint32_t> flipped; // bit positions (byte * 8 + bit, bit 0 = LSB), in the order drawn
        bool corrupt = false, dup = false, held = false;
    };

    explicit Impairment(unsigned dir_index = 0) : dir_(dir_index) { reseed(1); }
    // Parses "key=value,..." into cfg (keys not given keep their value). False and *err on an unknown key,
    // a probability outside 0..1, a bad number or time; cfg is unchanged then. *seed is set when seed= is given.
    static bool parse(const std::string &spec, ImpairConfig &cfg, bool *seed_given, uint64_t *seed, std::string *err);
    static const char *keys_help();
    // apply(): parse(spec) into this direction's settings (and reseed when seed= is given).
    bool apply(const std::string &spec, std::string *err);
    void reseed(uint64_t seed);
    const ImpairConfig &config() const { return cfg_; }
    void set_config(const ImpairConfig &c) { cfg_ = c; }
    bool active() const { return cfg_.active(); }
    uint64_t seed() const { return seed_; }

    // A frame arrives at now_ns. Returns what happened to it (for the log): the frames it became are queued.
    // A lost frame returns an empty vector; otherwise one Frame (two when duplicated), copies of the queued ones.
    std::vector<Frame> offer(const uint8_t *p, size_t n, uint64_t now_ns);
    // True when a frame is due at now_ns; pop() takes the next one (release order, then offer order).
    bool due(uint64_t now_ns) const { return !q_.empty() && q_.front().release_ns <= now_ns; }
    Frame pop();
    size_t queued() const { return q_.size(); }
    uint64_t next_release_ns() const { return q_.empty() ? UINT64_MAX : q_.front().release_ns; }
    const ImpairStats &stats() const { return st_; }

    static double unit(uint64_t x) { return (double)(x >> 11) * (1.0 / 9007199254740992.0); }
    static uint64_t splitmix64(uint64_t x);

private:
    unsigned dir_;
    uint64_t seed_ = 1;
    ImpairConfig cfg_;
    std::mt19937_64 rng_;
    std::vector<Frame> q_;  // sorted by (release_ns, id)
    uint64_t next_id_ = 0, last_release_ = 0, max_delivered_id_ = 0;
    ImpairStats st_;
};

}  // namespace tfeth
