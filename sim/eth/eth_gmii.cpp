// sim/eth/eth_gmii.cpp - burst parsing and wire-frame construction (see eth_gmii.h).
#include "eth_gmii.h"

#include "eth_crc.h"

namespace tfeth {

BurstInfo parse_burst(const uint8_t *p, size_t n) {
    BurstInfo bi;
    size_t i = 0;
    while (i < n && p[i] == kPreambleByte) i++;
    bi.preamble_len = i;
    if (i == 0 || i >= n || p[i] != kSfd) { bi.status = BurstInfo::kBadPreamble; return bi; }
    bi.frame_offset = i + 1;
    size_t rest = n - bi.frame_offset;
    if (rest < 4 + 14) { bi.status = BurstInfo::kTooShort; bi.frame_len = rest >= 4 ? rest - 4 : 0; return bi; }
    bi.frame_len = rest - 4;
    bi.status = fcs_ok(p + bi.frame_offset, rest) ? BurstInfo::kOk : BurstInfo::kBadFcs;
    return bi;
}

const char *burst_status_name(BurstInfo::Status s) {
    switch (s) {
        case BurstInfo::kOk: return "ok";
        case BurstInfo::kBadFcs: return "bad-fcs";
        case BurstInfo::kBadPreamble: return "bad-preamble";
        case BurstInfo::kTooShort: return "too-short";
    }
    return "?";
}

std::vector<uint8_t> make_wire(const uint8_t *p, size_t n, size_t pad_to, bool bad_fcs) {
    std::vector<uint8_t> w(p, p + n);
    if (w.size() < pad_to) w.resize(pad_to, 0);
    uint32_t c = crc32(w.data(), w.size());
    if (bad_fcs) c = ~c;
    for (int k = 0; k < 4; k++) w.push_back((uint8_t)(c >> (8 * k)));
    return w;
}

}  // namespace tfeth
