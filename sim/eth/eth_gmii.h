// sim/eth/eth_gmii.h - byte-level GMII models, one call per clock edge, no time or host I/O.
//   GmiiSerializer: queue of frames -> (dv, data) pins: 7 x 0x55, 0xD5, the bytes given, then
//                   at least `ifg` idle byte times (dv=0, data=0).
//   GmiiDeserializer: (en, data) pins -> bursts (every byte while en was high, preamble included).
//   parse_burst(): checks preamble/SFD and FCS of a burst.
// EthPort uses these for its RX driver and TX decoder; the tests use them to model the SoC's side.
#pragma once
#include <cstddef>
#include <cstdint>
#include <deque>
#include <vector>

namespace tfeth {

constexpr unsigned kPreambleLen = 7;  // 0x55 bytes before the SFD
constexpr uint8_t kPreambleByte = 0x55;
constexpr uint8_t kSfd = 0xD5;
constexpr unsigned kMinIfg = 12;      // byte times
constexpr size_t kMinFrame = 60;      // without FCS (64 with it)

class GmiiSerializer {
public:
    struct Item {
        std::vector<uint8_t> bytes;  // what follows the SFD (the caller appends the FCS)
        uint64_t tag = 0;            // the caller's identifier
    };
    enum : unsigned { kStart = 1, kLast = 2 };  // edge() result bits

    explicit GmiiSerializer(unsigned ifg = kMinIfg) : ifg_(ifg) {}
    void set_ifg(unsigned ifg) { ifg_ = ifg; }
    unsigned ifg() const { return ifg_; }
    void push(Item it) { queue_.push_back(std::move(it)); }
    size_t queued() const { return queue_.size() + (active_ ? 1 : 0); }
    bool busy() const { return active_ || gap_ > 0 || !queue_.empty(); }
    // The item on the pins (valid while a frame is being sent, including its last edge).
    const Item &current() const { return cur_; }
    // Position on the wire of the byte just produced (0 = first preamble byte).
    size_t position() const { return pos_ - 1; }

    // One clock: the next pin values. Returns kStart on the edge that drives the first preamble
    // byte and kLast on the edge that drives the last byte of the item.
    unsigned edge(uint8_t &dv, uint8_t &data) {
        if (!active_) {
            if (gap_ > 0) { gap_--; dv = 0; data = 0; return 0; }
            if (queue_.empty()) { dv = 0; data = 0; return 0; }
            cur_ = std::move(queue_.front());
            queue_.pop_front();
            active_ = true;
            pos_ = 0;
        }
        unsigned r = pos_ == 0 ? (unsigned)kStart : 0u;
        size_t total = kPreambleLen + 1 + cur_.bytes.size();
        dv = 1;
        data = pos_ < kPreambleLen ? kPreambleByte : pos_ == kPreambleLen ? kSfd : cur_.bytes[pos_ - kPreambleLen - 1];
        pos_++;
        if (pos_ == total) { active_ = false; gap_ = ifg_; r |= kLast; }
        return r;
    }

private:
    unsigned ifg_;
    std::deque<Item> queue_;
    Item cur_;
    bool active_ = false;
    size_t pos_ = 0;
    unsigned gap_ = 0;
};

class GmiiDeserializer {
public:
    explicit GmiiDeserializer(size_t max_len = 16384) : max_len_(max_len) {}
    enum : unsigned { kStart = 1, kEnd = 2 };  // edge() result bits
    // One clock with the sampled pins. kStart when en rose on this edge; kEnd when en fell on this
    // edge (the burst is then complete in burst(), valid until the next edge with en high).
    unsigned edge(bool en, uint8_t data) {
        unsigned r = 0;
        if (en) {
            if (!in_) { in_ = true; burst_.clear(); overflow_ = false; r |= kStart; idle_before_ = idle_; }
            if (burst_.size() < max_len_) burst_.push_back(data); else overflow_ = true;
            idle_ = 0;
        } else {
            if (in_) { in_ = false; r |= kEnd; }
            if (idle_ < UINT64_MAX) idle_++;
        }
        return r;
    }
    bool in_burst() const { return in_; }
    const std::vector<uint8_t> &burst() const { return burst_; }
    bool overflow() const { return overflow_; }
    // Idle edges (en low) before the current/last burst; UINT64_MAX/large before the first one.
    uint64_t idle_before() const { return idle_before_; }

private:
    size_t max_len_;
    bool in_ = false, overflow_ = false;
    std::vector<uint8_t> burst_;
    uint64_t idle_ = UINT64_MAX / 2, idle_before_ = 0;
};

struct BurstInfo {
    enum Status { kOk, kBadFcs, kBadPreamble, kTooShort };
    Status status = kOk;
    size_t preamble_len = 0;   // 0x55 bytes before the SFD
    size_t frame_offset = 0;   // index of the first byte after the SFD
    size_t frame_len = 0;      // bytes after the SFD, FCS excluded (0 when kBadPreamble/kTooShort)
    bool runt() const { return status == kOk && frame_len < kMinFrame; }
};

// Looks for 0x55... 0xD5 at the start of a burst, then checks the FCS of the rest.
BurstInfo parse_burst(const uint8_t *p, size_t n);
inline BurstInfo parse_burst(const std::vector<uint8_t> &b) { return parse_burst(b.data(), b.size()); }
const char *burst_status_name(BurstInfo::Status s);

// A frame as it should go on the wire after the SFD: payload zero-padded to pad_to bytes (0: no
// padding), then the FCS (bad_fcs: inverted, so always wrong).
std::vector<uint8_t> make_wire(const uint8_t *p, size_t n, size_t pad_to, bool bad_fcs = false);

}  // namespace tfeth
