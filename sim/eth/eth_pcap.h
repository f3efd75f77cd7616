// sim/eth/eth_pcap.h - classic pcap writer, nanosecond time stamps (magic 0xA1B23C4D),
// LINKTYPE_ETHERNET (1): each record is an Ethernet frame WITHOUT preamble, SFD and FCS.
// Records are written in time-stamp order: the caller says up to which time nothing earlier can
// still arrive (release()), everything else waits in a small buffer.
#pragma once
#include <cstdint>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

namespace tfeth {

class PcapWriter {
public:
    PcapWriter() = default;
    ~PcapWriter() { close(); }
    PcapWriter(const PcapWriter &) = delete;
    PcapWriter &operator=(const PcapWriter &) = delete;

    bool open(const std::string &path, std::string *err = nullptr);
    bool is_open() const { return f_ != nullptr; }
    // Queue a record with time stamp ts_ns (simulated ns since time 0 = 1970-01-01 in the file).
    void add(uint64_t ts_ns, const uint8_t *p, size_t n);
    // Write every queued record with a time stamp < horizon_ns (UINT64_MAX: all of them).
    void release(uint64_t horizon_ns);
    void flush();   // fflush if anything was written since the last flush
    void close();   // writes everything still queued
    uint64_t records() const { return written_; }

private:
    FILE *f_ = nullptr;
    std::multimap<uint64_t, std::vector<uint8_t>> pending_;
    uint64_t written_ = 0;
    bool dirty_ = false;
};

}  // namespace tfeth
