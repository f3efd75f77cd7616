// sim/eth/eth_pcap.cpp - see eth_pcap.h.
#include "eth_pcap.h"

#include <cerrno>
#include <cstring>

namespace tfeth {

static void put32(uint8_t *b, uint32_t v) { memcpy(b, &v, 4); }  // native order, as the magic says
static void put16(uint8_t *b, uint16_t v) { memcpy(b, &v, 2); }

bool PcapWriter::open(const std::string &path, std::string *err) {
    close();
    f_ = fopen(path.c_str(), "wb");
    if (!f_) {
        if (err) *err = path + ": " + strerror(errno);
        return false;
    }
    uint8_t h[24];
    put32(h + 0, 0xA1B23C4Du);  // nanosecond-resolution pcap
    put16(h + 4, 2);
    put16(h + 6, 4);
    put32(h + 8, 0);        // thiszone
    put32(h + 12, 0);       // sigfigs
    put32(h + 16, 262144);  // snaplen
    put32(h + 20, 1);       // LINKTYPE_ETHERNET
    fwrite(h, 1, sizeof h, f_);
    fflush(f_);
    return true;
}

void PcapWriter::add(uint64_t ts_ns, const uint8_t *p, size_t n) {
    if (!f_) return;
    pending_.emplace(ts_ns, std::vector<uint8_t>(p, p + n));
}

void PcapWriter::release(uint64_t horizon_ns) {
    if (!f_) return;
    while (!pending_.empty() && (horizon_ns == UINT64_MAX || pending_.begin()->first < horizon_ns)) {
        auto it = pending_.begin();
        uint8_t h[16];
        put32(h + 0, (uint32_t)(it->first / 1000000000u));
        put32(h + 4, (uint32_t)(it->first % 1000000000u));
        put32(h + 8, (uint32_t)it->second.size());
        put32(h + 12, (uint32_t)it->second.size());
        fwrite(h, 1, sizeof h, f_);
        fwrite(it->second.data(), 1, it->second.size(), f_);
        pending_.erase(it);
        written_++;
        dirty_ = true;
    }
}

void PcapWriter::flush() {
    if (f_ && dirty_) { fflush(f_); dirty_ = false; }
}

void PcapWriter::close() {
    if (!f_) return;
    release(UINT64_MAX);
    fclose(f_);
    f_ = nullptr;
}

}  // namespace tfeth
