// sim/eth/eth_port.cpp - see eth_port.h and README.md.
#include "eth_port.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdarg>
#include <cstdlib>
#include <cstring>
#include <sstream>

#include "eth_crc.h"

namespace tfeth {

// ---------------------------------------------------------------------------------------------
// plusargs

static const char *arg_value(int argc, char **argv, const char *name) {
    const char *found = nullptr;
    size_t n = strlen(name);
    for (int i = 1; i < argc; i++)
        if (argv[i][0] == '+' && strncmp(argv[i] + 1, name, n) == 0 && argv[i][1 + n] == '=') found = argv[i] + 2 + n;
    return found;
}
static bool arg_flag(int argc, char **argv, const char *name) {
    for (int i = 1; i < argc; i++)
        if (argv[i][0] == '+' && strcmp(argv[i] + 1, name) == 0) return true;
    return false;
}

EthConfig EthConfig::from_args(int argc, char **argv) {
    EthConfig c;
    const char *v;
    if ((v = arg_value(argc, argv, "tap"))) c.tap = v;
    c.slirp = arg_flag(argc, argv, "slirp");
    if ((v = arg_value(argc, argv, "slirp-fwd"))) { c.slirp_fwd = v; c.slirp = true; }
    c.slirp_restrict = arg_flag(argc, argv, "slirp-restrict");
    if ((v = arg_value(argc, argv, "pcap"))) c.pcap = v;
    if ((v = arg_value(argc, argv, "eth-ctl"))) c.ctl = v;
    if ((v = arg_value(argc, argv, "eth-frame-log"))) c.frame_log = v;
    if ((v = arg_value(argc, argv, "eth-ifg")) && *v) c.ifg = (unsigned)strtoul(v, nullptr, 0);
    if ((v = arg_value(argc, argv, "eth-rx-queue")) && *v) c.rx_queue_max = strtoull(v, nullptr, 0);
    c.verbose = arg_flag(argc, argv, "eth-verbose");
    c.quiet = arg_flag(argc, argv, "quiet");
    if ((v = arg_value(argc, argv, "impair"))) c.impair_rx = c.impair_tx = v;
    if ((v = arg_value(argc, argv, "impair-rx"))) c.impair_rx = v;
    if ((v = arg_value(argc, argv, "impair-tx"))) c.impair_tx = v;
    if ((v = arg_value(argc, argv, "impair-seed"))) c.impair_seed = strtoull(v, nullptr, 0);
    if ((v = arg_value(argc, argv, "pcap-host"))) c.pcap_host = v;
    return c;
}

const char *EthConfig::help() {
    return "  +tap=<ifname>         Ethernet to this existing TAP interface (root, or a TAP owned by the user)\n"
           "  +slirp                Ethernet to libslirp user networking: SoC 10.77.0.2, host 10.77.0.1 (= 127.0.0.1)\n"
           "  +slirp-fwd=tcp:<hostport>:<guestport>[,...]  forward 127.0.0.1:<hostport> to 10.77.0.2:<guestport>\n"
           "  +slirp-restrict       slirp: no outbound connections except to forwarded services\n"
           "  +pcap=<file>          every frame both ways, simulated ns time stamps (no preamble, no FCS)\n"
           "  +eth-ctl=<path>       control channel (a FIFO, created if missing): inject, drop-tx, ... ('help')\n"
           "  +eth-frame-log=<file> CSV: dir,seq,sof_ns,eof_ns,sof_cycle,eof_cycle,len,status,source\n"
           "  +eth-ifg=<n>          idle byte times between frames to the SoC (default 12)\n"
           "  +eth-rx-queue=<n>     frames from the host waiting for the pins before drops (default 1024)\n"
           "  +eth-verbose          log every frame\n"
           "  +impair-rx=<spec>     impaired wire host -> SoC, in simulated time: loss=P,dup=P,reorder=P,corrupt=P,\n"
           "                        corrupt-bits=N,corrupt-fcs=bad|good,delay=T,jitter=T,reorder-delay=T,seed=N\n"
           "  +impair-tx=<spec>     the same SoC -> host;  +impair=<spec> both;  +impair-seed=<n> (default 1)\n"
           "  +pcap-host=<file>     frames as the host sends them (before +impair-rx) and receives them (after +impair-tx)\n";
}

// ---------------------------------------------------------------------------------------------

EthPort::EthPort(const EthConfig &cfg) : cfg_(cfg), ser_(cfg.ifg), des_(16384) {
    std::string err;
    if (!cfg_.tap.empty() && cfg_.slirp) {
        error_ = "+tap and +slirp are exclusive";
        return;
    }
    if (!cfg_.tap.empty()) {
        auto b = make_tap_backend(cfg_.tap, &err);
        if (!b && geteuid() != 0) {
            // No root, so no TAP: fall back to user-mode networking on the same addresses, and say so.
            fprintf(stderr, "eth: cannot open TAP %s without root (%s); falling back to libslirp user-mode networking\n",
                    cfg_.tap.c_str(), err.c_str());
            cfg_.tap.clear();
            cfg_.slirp = true;
        } else if (!b) {
            error_ = err;
            return;
        } else {
            attach_backend(std::move(b));
        }
    }
    if (cfg_.slirp) {
        SlirpOptions o;
        o.forwards = cfg_.slirp_fwd;
        o.restricted = cfg_.slirp_restrict;
        auto b = make_slirp_backend(o, &err);
        if (!b) { error_ = err; return; }
        attach_backend(std::move(b));
    }
    if (!cfg_.pcap.empty() && !pcap_.open(cfg_.pcap, &err)) { error_ = "pcap " + err; return; }
    if (!cfg_.pcap_host.empty() && !pcap_host_.open(cfg_.pcap_host, &err)) { error_ = "pcap-host " + err; return; }
    imp_rx_.reseed(cfg_.impair_seed);
    imp_tx_.reseed(cfg_.impair_seed);
    if (!cfg_.impair_rx.empty() && !imp_rx_.apply(cfg_.impair_rx, &err)) { error_ = "+impair-rx: " + err; return; }
    if (!cfg_.impair_tx.empty() && !imp_tx_.apply(cfg_.impair_tx, &err)) { error_ = "+impair-tx: " + err; return; }
    if (!cfg_.frame_log.empty()) {
        flog_ = fopen(cfg_.frame_log.c_str(), "w");
        if (!flog_) { error_ = "frame log " + cfg_.frame_log + ": " + strerror(errno); return; }
        fprintf(flog_, "dir,seq,sof_ns,eof_ns,sof_cycle,eof_cycle,len,status,source\n");
    }
    if (!cfg_.ctl.empty()) ctl_open(cfg_.ctl);
    if (ok() && !cfg_.quiet)
        fprintf(stderr, "eth: backend %s%s%s%s%s%s%s\n", backend_ ? backend_->name() : "none",
                cfg_.tap.empty() ? "" : " ", cfg_.tap.c_str(), cfg_.pcap.empty() ? "" : ", pcap ", cfg_.pcap.c_str(),
                cfg_.ctl.empty() ? "" : ", control ", cfg_.ctl.c_str());
    if (ok() && !cfg_.quiet && imp_rx_.active())
        fprintf(stderr, "eth: impaired wire to the SoC (rx): %s, seed %llu\n", imp_rx_.config().describe().c_str(),
                (unsigned long long)imp_rx_.seed());
    if (ok() && !cfg_.quiet && imp_tx_.active())
        fprintf(stderr, "eth: impaired wire from the SoC (tx): %s, seed %llu\n", imp_tx_.config().describe().c_str(),
                (unsigned long long)imp_tx_.seed());
}

EthPort::~EthPort() { finish(); }

void EthPort::attach_backend(std::unique_ptr<EthBackend> b) {
    backend_ = std::move(b);
    if (backend_) backend_->set_sink([this](const uint8_t *p, size_t n) { from_backend(p, n); });
}

void EthPort::logf(uint64_t t, const char *fmt, ...) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    fprintf(stderr, "eth: [%llu ns] %s\n", (unsigned long long)t, buf);
}

// ---------------------------------------------------------------------------------------------
// RX: host/injection -> SoC

uint64_t EthPort::send_to_soc(const uint8_t *p, size_t n, Kind kind, const char *source) {
    RxMeta m;
    m.seq = ++rx_seq_;
    m.source = source;
    m.kind = kind;
    m.log = cfg_.verbose || strncmp(source, "inject", 6) == 0;
    GmiiSerializer::Item it;
    it.tag = m.seq;
    switch (kind) {
        case Kind::kNormal: it.bytes = make_wire(p, n, kMinFrame, false); break;
        case Kind::kBadFcs: it.bytes = make_wire(p, n, kMinFrame, true); break;
        case Kind::kRunt: it.bytes = make_wire(p, n, 0, false); break;
        case Kind::kRaw: it.bytes.assign(p, p + n); break;
    }
    m.frame.assign(it.bytes.begin(), kind == Kind::kRaw ? it.bytes.end() : it.bytes.end() - 4);
    ser_.push(std::move(it));
    rxq_.push_back(std::move(m));
    return rx_seq_;
}

void EthPort::from_backend(const uint8_t *p, size_t n) {
    if (drop_rx_ > 0) {
        drop_rx_--;
        st_.rx_dropped_ctl++;
        logf(last_ns_, "drop-rx: dropped a %zu-byte frame from %s (%llu more to drop)", n,
             backend_ ? backend_->name() : "?", (unsigned long long)drop_rx_);
        return;
    }
    st_.rx_from_backend++;
    if (pcap_host_.is_open()) { pcap_host_.add(last_ns_, p, n); pcap_host_.release(UINT64_MAX); }
    std::vector<uint8_t> flipped;
    if (corrupt_rx_match_ > 0 && n >= 34 && p[12] == 0x08 && p[13] == 0x00 &&
        std::search(p, p + n, corrupt_rx_pattern_.begin(), corrupt_rx_pattern_.end()) != p + n) {
        // the IPv4 datagram's last byte, bit 0 flipped: after every field of the segment's last message
        size_t at = 14 + (((size_t)p[16] << 8) | p[17]) - 1;
        if (at < n) {
            corrupt_rx_match_--;
            st_.rx_corrupted_ctl++;
            logf(last_ns_, "corrupt-rx-match: a %zu-byte frame from the host, byte %zu bit 0 flipped, %s (%llu more)", n, at,
                 corrupt_rx_fcs_ ? "bad FCS" : "FCS recomputed (TCP checksum bad)", (unsigned long long)corrupt_rx_match_);
            if (corrupt_rx_fcs_) {   // the FCS of the frame as the host sent it: the SoC's MAC sees a bad FCS
                std::vector<uint8_t> wire = make_wire(p, n, kMinFrame, false);
                wire[at] ^= 1u;
                send_to_soc(wire.data(), wire.size(), Kind::kRaw, backend_ ? backend_->name() : "backend");
                rxq_.back().frame.assign(wire.begin(), wire.end() - 4);
                rxq_.back().status = "corrupt-match-bad-fcs";
                rxq_.back().log = true;
                return;
            }
            flipped.assign(p, p + n);
            flipped[at] ^= 1u;
            p = flipped.data();
        }
    }
    if (imp_rx_.active() || imp_rx_.queued()) {
        uint64_t id = imp_rx_.stats().offered + 1;
        std::vector<Impairment::Frame> fs = imp_rx_.offer(p, n, last_ns_);
        impair_log("rx", fs, id, n, last_ns_);
        rx_impair_release(last_ns_);
        return;
    }
    rx_enqueue_host(p, n, nullptr, nullptr);
}

// A frame from the host (through the impaired wire when imp is set) onto the queue for the RX pins.
void EthPort::rx_enqueue_host(const uint8_t *p, size_t n, const char *status, const Impairment::Frame *imp) {
    if (ser_.queued() >= cfg_.rx_queue_max) {
        if (st_.rx_dropped_overflow++ < 10 || cfg_.verbose)
            logf(last_ns_, "RX queue full (%zu frames): dropped a %zu-byte frame from the host", ser_.queued(), n);
        return;
    }
    const char *src = backend_ ? backend_->name() : "backend";
    if (!imp || !imp->corrupt || imp_rx_.config().corrupt_fcs_good) {
        send_to_soc(p, n, Kind::kNormal, src);
    } else {
        // the FCS of the frame as the host sent it, then the flips: the SoC's MAC sees a bad FCS
        std::vector<uint8_t> orig(p, p + n);
        for (uint32_t b : imp->flipped) orig[b / 8] ^= (uint8_t)(1u << (b % 8));
        std::vector<uint8_t> wire = make_wire(orig.data(), n, kMinFrame, false);
        for (uint32_t b : imp->flipped) wire[b / 8] ^= (uint8_t)(1u << (b % 8));
        uint64_t seq = send_to_soc(wire.data(), wire.size(), Kind::kRaw, src);
        rxq_.back().frame.assign(wire.begin(), wire.end() - 4);  // as a frame: without its (bad) FCS
    (void)seq;
    }
    if (status) rxq_.back().status = status;
    if (imp && imp->corrupt) rxq_.back().log = true;
}

void EthPort::rx_impair_release(uint64_t now_ns) {
    while (imp_rx_.due(now_ns)) {
        Impairment::Frame f = imp_rx_.pop();
        const char *status = !f.corrupt ? nullptr : imp_rx_.config().corrupt_fcs_good ? "corrupt" : "corrupt-bad-fcs";
        rx_enqueue_host(f.bytes.data(), f.bytes.size(), status, &f);
    }
}

void EthPort::impair_log(const char *dir, const std::vector<Impairment::Frame> &fs, uint64_t id, size_t len,
                         uint64_t now_ns) {
    if (cfg_.quiet) return;
    if (fs.empty()) {
        logf(now_ns, "impair %s frame %llu (%zu bytes): lost", dir, (unsigned long long)id, len);
        return;
    }
    const Impairment::Frame &f = fs[0];
    if (!f.corrupt && fs.size() == 1 && !f.held && !cfg_.verbose) return;
    std::string what;
    if (f.corrupt) {
        what += " corrupted, bits";
        for (size_t i = 0; i < f.flipped.size(); i++) what += (i ? "," : " ") + std::to_string(f.flipped[i]);
    }
    if (fs.size() > 1) what += " duplicated";
    if (f.held) what += " held back";
    logf(now_ns, "impair %s frame %llu (%zu bytes):%s, out at %llu ns", dir, (unsigned long long)f.id, len,
         what.empty() ? " delayed" : what.c_str(), (unsigned long long)f.release_ns);
}

void EthPort::flood_one(uint64_t now_ns) {
    const std::vector<uint8_t> &f = flood_frames_[flood_idx_++ % flood_frames_.size()];
    send_to_soc(f.data(), f.size(), Kind::kNormal, "flood");
    rxq_.back().log = cfg_.verbose;
    st_.rx_flood++;
    // its time on the wire at 1 Gb/s (8 ns a byte: preamble and SFD, the frame padded to 60, FCS, the gap), stretched
    // so that the flood takes flood_pct_ % of the line
    uint64_t wire = 8 + std::max<size_t>(f.size(), kMinFrame) + 4 + ser_.ifg();
    flood_next_ns_ = now_ns + wire * 8 * 100 / flood_pct_;
}

void EthPort::rx_edge(uint64_t now_ns, uint8_t &dv, uint8_t &data) {
    last_ns_ = now_ns;
    uint64_t cyc = rx_cycle_++;
    if (!deferred_.empty() && deferred_.front().at_ns <= now_ns) run_deferred(now_ns);
    if (imp_rx_.due(now_ns)) rx_impair_release(now_ns);
    if (flood_pct_ && ser_.queued() == 0 && now_ns >= flood_next_ns_) flood_one(now_ns);
    unsigned r = ser_.edge(dv, data);
    if (!dv) return;
    if (r & GmiiSerializer::kStart) {
        rx_cur_ = std::move(rxq_.front());
        rxq_.pop_front();
        rx_active_ = true;
        rx_sof_ns_ = now_ns;
        rx_sof_cycle_ = cyc;
        rx_wire_.clear();
        rx_byte_ns_.clear();
        if (rx_cur_.log) logf(now_ns, "rx#%llu (%s, %zu bytes) starts on the RX pins", (unsigned long long)rx_cur_.seq,
                              rx_cur_.source, rx_cur_.frame.size());
    }
    rx_wire_.push_back(data);
    rx_byte_ns_.push_back(now_ns);
    if (r & GmiiSerializer::kLast) rx_complete();
}

void EthPort::rx_complete() {
    rx_active_ = false;
    uint64_t eof_ns = rx_byte_ns_.back();
    uint64_t eof_cycle = rx_sof_cycle_ + rx_wire_.size() - 1;
    const RxMeta &m = rx_cur_;
    st_.rx_frames++;
    st_.rx_bytes += m.frame.size();
    const uint8_t *after_sfd = rx_wire_.data() + kPreambleLen + 1;
    size_t after_len = rx_wire_.size() - kPreambleLen - 1;
    // pcap: without FCS; raw frames lose their last 4 bytes only when they are a correct FCS
    size_t plen = m.kind == Kind::kRaw ? (fcs_ok(after_sfd, after_len) ? after_len - 4 : after_len) : m.frame.size();
    if (m.status) plen = m.frame.size();  // corrupted on the way (impaired wire, corrupt-rx-match): without its FCS
    pcap_.add(rx_sof_ns_, after_sfd, plen);
    pcap_release();
    const char *status = m.status ? m.status : m.kind == Kind::kBadFcs ? "bad-fcs" : m.kind == Kind::kRaw ? "raw" : "ok";
    bool runt = m.kind != Kind::kRaw && m.frame.size() < kMinFrame;
    if (flog_)
        fprintf(flog_, "rx,%llu,%llu,%llu,%llu,%llu,%zu,%s,%s\n", (unsigned long long)m.seq,
                (unsigned long long)rx_sof_ns_, (unsigned long long)eof_ns, (unsigned long long)rx_sof_cycle_,
                (unsigned long long)eof_cycle, m.frame.size(), status, m.source);
    if (hook_) {
        EthFrameEvent e;
        e.dir = EthDir::kToSoc;
        e.seq = m.seq;
        e.sof_ns = rx_sof_ns_;
        e.eof_ns = eof_ns;
        e.sof_cycle = rx_sof_cycle_;
        e.eof_cycle = eof_cycle;
        e.wire = rx_wire_.data();
        e.wire_len = rx_wire_.size();
        e.byte_ns = rx_byte_ns_.data();
        e.frame_offset = kPreambleLen + 1;
        e.frame = m.frame.data();
        e.len = m.frame.size();
        e.source = m.source;
        e.status = status;
        e.runt = runt;
        e.dropped = false;
        e.forwarded = true;
        hook_(e);
    }
}

// ---------------------------------------------------------------------------------------------
// TX: SoC -> host

void EthPort::tx_edge(uint64_t now_ns, bool en, uint8_t data) {
    uint64_t cyc = tx_cycle_++;
    if (imp_tx_.due(now_ns)) tx_impair_release(now_ns);
    unsigned r = des_.edge(en, data);
    if (r & GmiiDeserializer::kStart) {
        tx_sof_ns_ = now_ns;
        tx_sof_cycle_ = cyc;
        tx_byte_ns_.clear();
        if (tx_seq_ > 0 && des_.idle_before() < kMinIfg) {
            st_.tx_short_ifg++;
            if (st_.tx_short_ifg <= 10 || cfg_.verbose)
                logf(now_ns, "tx#%llu starts after only %llu idle cycles (< %u)", (unsigned long long)tx_seq_ + 1,
                     (unsigned long long)des_.idle_before(), kMinIfg);
        }
    }
    if (en) {
        if (tx_byte_ns_.size() < 16384) tx_byte_ns_.push_back(now_ns);
        tx_eof_ns_ = now_ns;
        tx_eof_cycle_ = cyc;
    }
    if (r & GmiiDeserializer::kEnd) tx_complete();
}

void EthPort::tx_complete() {
    const std::vector<uint8_t> &b = des_.burst();
    uint64_t seq = ++tx_seq_;
    st_.tx_frames++;
    BurstInfo bi = parse_burst(b);
    const uint8_t *frame = b.data() + bi.frame_offset;
    size_t len = bi.status == BurstInfo::kBadPreamble ? 0 : bi.frame_len;
    bool runt = bi.runt();
    bool forwarded = false, dropped = false;
    if (des_.overflow()) {
        st_.tx_overlong++;
        logf(tx_sof_ns_, "tx#%llu: tx_en high for more than %zu bytes (truncated)", (unsigned long long)seq, b.size());
    }
    switch (bi.status) {
        case BurstInfo::kOk:
            st_.tx_good++;
            st_.tx_bytes += len;
            if (bi.preamble_len != kPreambleLen) {
                st_.tx_odd_preamble++;
                if (st_.tx_odd_preamble <= 10)
                    logf(tx_sof_ns_, "tx#%llu: preamble of %zu bytes (expected %u), accepted", (unsigned long long)seq,
                         bi.preamble_len, kPreambleLen);
            }
            if (runt) {
                st_.tx_runts++;
                logf(tx_sof_ns_, "tx#%llu: runt, %zu bytes + FCS (minimum 60 + 4), forwarded", (unsigned long long)seq, len);
            }
            if (drop_tx_match_ > 0 &&
                std::search(frame, frame + len, drop_tx_pattern_.begin(), drop_tx_pattern_.end()) != frame + len) {
                drop_tx_match_--;
                st_.tx_dropped_ctl++;
                dropped = true;
                logf(tx_sof_ns_, "tx#%llu (%zu bytes) dropped by drop-tx-match '%s' (%llu more to drop); still in the pcap",
                     (unsigned long long)seq, len, drop_tx_pattern_.c_str(), (unsigned long long)drop_tx_match_);
            } else if (drop_tx_ > 0) {
                drop_tx_--;
                st_.tx_dropped_ctl++;
                dropped = true;
                logf(tx_sof_ns_, "tx#%llu (%zu bytes) dropped by drop-tx (%llu more to drop); still in the pcap at %llu ns",
                     (unsigned long long)seq, len, (unsigned long long)drop_tx_, (unsigned long long)tx_sof_ns_);
            } else if (imp_tx_.active() || imp_tx_.queued()) {
                // through the impaired wire: to the host when it is due (tx_impair_release)
                uint64_t id = imp_tx_.stats().offered + 1;
                std::vector<Impairment::Frame> fs = imp_tx_.offer(frame, len, tx_eof_ns_);
                impair_log("tx", fs, id, len, tx_eof_ns_);
                if (fs.empty()) dropped = true;
                if (imp_tx_.due(tx_eof_ns_)) tx_impair_release(tx_eof_ns_);
            } else {
                forwarded = tx_to_host(frame, len, tx_eof_ns_);
            }
            if (cfg_.verbose && !dropped)
                logf(tx_sof_ns_, "tx#%llu: %zu bytes%s", (unsigned long long)seq, len, forwarded ? " forwarded" : "");
            break;
        case BurstInfo::kBadFcs:
            st_.tx_bad_fcs++;
            dropped = true;
            logf(tx_sof_ns_, "tx#%llu: BAD FCS (%zu bytes + FCS), not forwarded", (unsigned long long)seq, len);
            break;
        case BurstInfo::kBadPreamble:
            st_.tx_bad_preamble++;
            dropped = true;
            logf(tx_sof_ns_, "tx#%llu: no preamble/SFD (%zu bytes, first 0x%02x), not forwarded", (unsigned long long)seq,
                 b.size(), b.empty() ? 0 : b[0]);
            break;
        case BurstInfo::kTooShort:
            st_.tx_too_short++;
            dropped = true;
            logf(tx_sof_ns_, "tx#%llu: only %zu bytes after the SFD, not forwarded", (unsigned long long)seq,
                 b.size() - bi.frame_offset);
            break;
    }
    // pcap: the frame without preamble and FCS (a burst without SFD: all of it)
    if (bi.status == BurstInfo::kBadPreamble) pcap_.add(tx_sof_ns_, b.data(), b.size());
    else pcap_.add(tx_sof_ns_, frame, len);
    pcap_release();
    const char *status = burst_status_name(bi.status);
    if (flog_)
        fprintf(flog_, "tx,%llu,%llu,%llu,%llu,%llu,%zu,%s%s,soc\n", (unsigned long long)seq,
                (unsigned long long)tx_sof_ns_, (unsigned long long)tx_eof_ns_, (unsigned long long)tx_sof_cycle_,
                (unsigned long long)tx_eof_cycle_, len, status, dropped && bi.status == BurstInfo::kOk ? "-dropped" : "");
    if (hook_) {
        EthFrameEvent e;
        e.dir = EthDir::kFromSoc;
        e.seq = seq;
        e.sof_ns = tx_sof_ns_;
        e.eof_ns = tx_eof_ns_;
        e.sof_cycle = tx_sof_cycle_;
        e.eof_cycle = tx_eof_cycle_;
        e.wire = b.data();
        e.wire_len = std::min(b.size(), tx_byte_ns_.size());
        e.byte_ns = tx_byte_ns_.data();
        e.frame_offset = bi.frame_offset;
        e.frame = frame;
        e.len = len;
        e.source = "soc";
        e.status = status;
        e.runt = runt;
        e.dropped = dropped;
        e.forwarded = forwarded;
        hook_(e);
    }
}

// A good frame from the SoC to the host (after the impaired wire, if any). True when the backend took it.
bool EthPort::tx_to_host(const uint8_t *p, size_t n, uint64_t now_ns) {
    if (pcap_host_.is_open()) { pcap_host_.add(now_ns, p, n); pcap_host_.release(UINT64_MAX); }
    if (!backend_) return false;
    if (backend_->send(p, n)) { st_.tx_forwarded++; return true; }
    st_.tx_backend_errors++;
    return false;
}

void EthPort::tx_impair_release(uint64_t now_ns) {
    while (imp_tx_.due(now_ns)) {
        Impairment::Frame f = imp_tx_.pop();
        if (f.corrupt && !imp_tx_.config().corrupt_fcs_good) {
            // a bad FCS: the host's MAC discards it (it is still in the host pcap, corrupted)
            st_.tx_impair_fcs_discards++;
            if (pcap_host_.is_open()) { pcap_host_.add(now_ns, f.bytes.data(), f.bytes.size()); pcap_host_.release(UINT64_MAX); }
            continue;
        }
        tx_to_host(f.bytes.data(), f.bytes.size(), now_ns);
    }
}

void EthPort::pcap_release() {
    uint64_t h = UINT64_MAX;
    if (rx_active_) h = std::min(h, rx_sof_ns_);
    if (des_.in_burst()) h = std::min(h, tx_sof_ns_);
    pcap_.release(h);
}

// ---------------------------------------------------------------------------------------------
// host I/O and control channel

void EthPort::poll(uint64_t now_ns) {
    last_ns_ = std::max(last_ns_, now_ns);
    if (ctl_fd_ >= 0) ctl_read(now_ns);
    if (!deferred_.empty() && deferred_.front().at_ns <= now_ns) run_deferred(now_ns);
    if (backend_) backend_->poll();
    if (imp_rx_.due(now_ns)) rx_impair_release(now_ns);
    pcap_.flush();
    pcap_host_.flush();
    if (flog_) fflush(flog_);
}

void EthPort::ctl_open(const std::string &path) {
    struct stat sb;
    if (stat(path.c_str(), &sb) != 0) {
        if (mkfifo(path.c_str(), 0600) != 0) { error_ = "control channel " + path + ": mkfifo: " + strerror(errno); return; }
        ctl_created_ = true;
        stat(path.c_str(), &sb);
    }
    ctl_path_ = path;
    ctl_fd_ = open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (ctl_fd_ < 0) { error_ = "control channel " + path + ": " + strerror(errno); return; }
    // Holding a write end open ourselves means a writer closing never gives us EOF: every
    // `echo cmd > fifo` is read, and reads return EAGAIN when there is nothing.
    if (S_ISFIFO(sb.st_mode)) ctl_wfd_ = open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
}

void EthPort::ctl_read(uint64_t now_ns) {
    char buf[65536];
    for (int i = 0; i < 64; i++) {
        ssize_t r = read(ctl_fd_, buf, sizeof buf);
        if (r <= 0) break;  // EAGAIN (FIFO) or end of the regular file (more may be appended later)
        ctl_buf_.append(buf, (size_t)r);
    }
    size_t pos;
    while ((pos = ctl_buf_.find('\n')) != std::string::npos) {
        std::string line = ctl_buf_.substr(0, pos);
        ctl_buf_.erase(0, pos + 1);
        command(line, now_ns);
    }
}

void EthPort::run_deferred(uint64_t now_ns) {
    while (!deferred_.empty() && deferred_.front().at_ns <= now_ns) {
        Deferred d = std::move(deferred_.front());
        deferred_.erase(deferred_.begin());
        exec(d.line, now_ns);
    }
}

static bool parse_hex(const std::string &s, std::vector<uint8_t> &out) {
    out.clear();
    int hi = -1;
    for (char c : s) {
        int v;
        if (c >= '0' && c <= '9') v = c - '0';
        else if (c >= 'a' && c <= 'f') v = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') v = c - 'A' + 10;
        else if (c == ' ' || c == '\t' || c == ':' || c == '-' || c == '.' || c == ',' || c == '\r') {
            if (hi >= 0) return false;  // separators only between whole bytes
            continue;
        } else return false;
        if (hi < 0) hi = v;
        else { out.push_back((uint8_t)(hi << 4 | v)); hi = -1; }
    }
    return hi < 0 && !out.empty();
}

static bool parse_u64(const std::string &s, uint64_t &v) {
    if (s.empty()) return false;
    char *e = nullptr;
    errno = 0;
    v = strtoull(s.c_str(), &e, 0);
    return errno == 0 && e && *e == 0;
}

bool EthPort::command(const std::string &raw, uint64_t now_ns) {
    std::string line = raw;
    while (!line.empty() && (line.back() == '\r' || line.back() == ' ' || line.back() == '\t')) line.pop_back();
    size_t b = line.find_first_not_of(" \t");
    if (b == std::string::npos || line[b] == '#') return true;
    line.erase(0, b);
    st_.ctl_commands++;
    if (line.compare(0, 3, "at ") == 0) {
        std::istringstream is(line.substr(3));
        std::string t;
        is >> t;
        uint64_t at;
        std::string rest;
        std::getline(is, rest);
        size_t rb = rest.find_first_not_of(" \t");
        if (!parse_u64(t, at) || rb == std::string::npos) {
            st_.ctl_errors++;
            logf(now_ns, "ctl: error: want 'at <ns> <command>': %s", line.c_str());
            return false;
        }
        rest.erase(0, rb);
        if (at <= now_ns) return exec(rest, now_ns);
        Deferred d{at, rest};
        auto it = std::upper_bound(deferred_.begin(), deferred_.end(), d,
                                   [](const Deferred &x, const Deferred &y) { return x.at_ns < y.at_ns; });
        deferred_.insert(it, d);
        logf(now_ns, "ctl: at %llu ns: %s", (unsigned long long)at, rest.c_str());
        return true;
    }
    return exec(line, now_ns);
}

bool EthPort::exec(const std::string &line, uint64_t now_ns) {
    std::string cmd, rest;
    size_t sp = line.find_first_of(" \t");
    cmd = line.substr(0, sp);
    if (sp != std::string::npos) {
        size_t rb = line.find_first_not_of(" \t", sp);
        if (rb != std::string::npos) rest = line.substr(rb);
    }
    auto fail = [&](const char *why) {
        st_.ctl_errors++;
        logf(now_ns, "ctl: error: %s: %s", why, line.c_str());
        return false;
    };
    std::vector<uint8_t> f;
    if (cmd == "inject" || cmd == "inject-badfcs" || cmd == "inject-runt" || cmd == "inject-raw") {
        if (!parse_hex(rest, f)) return fail("bad hex bytes");
        Kind k = cmd == "inject" ? Kind::kNormal : cmd == "inject-badfcs" ? Kind::kBadFcs : cmd == "inject-runt" ? Kind::kRunt : Kind::kRaw;
        const char *src = cmd == "inject" ? "inject" : cmd == "inject-badfcs" ? "inject-badfcs" : cmd == "inject-runt" ? "inject-runt" : "inject-raw";
        uint64_t seq = send_to_soc(f.data(), f.size(), k, src);
        st_.rx_injected++;
        if (k == Kind::kBadFcs) st_.rx_injected_badfcs++;
        if (k == Kind::kRunt) st_.rx_injected_runt++;
        if (k == Kind::kRaw) st_.rx_injected_raw++;
        logf(now_ns, "ctl: %s: %zu bytes queued as rx#%llu (%zu frames queued)", cmd.c_str(), f.size(),
             (unsigned long long)seq, ser_.queued());
        return true;
    }
    if (cmd == "inject-burst") {
        std::istringstream is(rest);
        std::string ns, hex;
        is >> ns;
        std::getline(is, hex);
        uint64_t n;
        if (!parse_u64(ns, n) || n == 0 || n > 100000) return fail("want 'inject-burst <n 1..100000> <hex>'");
        if (!parse_hex(hex, f)) return fail("bad hex bytes");
        uint64_t first = 0;
        for (uint64_t i = 0; i < n; i++) {
            uint64_t s = send_to_soc(f.data(), f.size(), Kind::kNormal, "inject-burst");
            rxq_.back().log = cfg_.verbose;  // one log line for the burst, not one per frame
            if (i == 0) first = s;
        }
        st_.rx_injected += n;
        logf(now_ns, "ctl: inject-burst: %llu x %zu bytes queued as rx#%llu..rx#%llu (gap %u)", (unsigned long long)n,
             f.size(), (unsigned long long)first, (unsigned long long)rx_seq_, ser_.ifg());
        return true;
    }
    if (cmd == "gpio-in") {
        uint64_t v;
        if (!parse_u64(rest, v) || v > 0xFFFFFFFFull) return fail("want 'gpio-in <value>'");
        gpio_in_ = (uint32_t)v;
        logf(now_ns, "ctl: gpio-in: the SoC's input pins are 0x%x", gpio_in_);
        return true;
    }
    if (cmd == "corrupt-rx-match") {
        uint64_t n;
        std::istringstream in(rest);
        std::string count, how, pat;
        in >> count >> how;
        std::getline(in >> std::ws, pat);
        if (!parse_u64(count, n) || (how != "fcs" && how != "tcp") || pat.empty())
            return fail("want 'corrupt-rx-match <n> fcs|tcp <text>'");
        corrupt_rx_match_ = n;
        corrupt_rx_fcs_ = how == "fcs";
        corrupt_rx_pattern_ = pat;
        logf(now_ns, "ctl: corrupt-rx-match: the next %llu IPv4 frames from the host containing '%s' get their datagram's "
             "last byte corrupted (%s)", (unsigned long long)n, pat.c_str(), how == "fcs" ? "bad FCS" : "bad TCP checksum");
        return true;
    }
    if (cmd == "drop-tx-match") {
        uint64_t n;
        std::string count = rest.substr(0, rest.find(' '));
        std::string pat = rest.find(' ') == std::string::npos ? "" : rest.substr(rest.find(' ') + 1);
        if (!parse_u64(count, n) || pat.empty()) return fail("want 'drop-tx-match <n> <text>'");
        drop_tx_match_ = n;
        drop_tx_pattern_ = pat;
        logf(now_ns, "ctl: drop-tx-match: the next %llu frames from the SoC containing '%s' are dropped",
             (unsigned long long)n, pat.c_str());
        return true;
    }
    if (cmd == "drop-tx" || cmd == "drop-rx") {
        uint64_t n;
        if (!parse_u64(rest, n)) return fail("want a count");
        (cmd == "drop-tx" ? drop_tx_ : drop_rx_) = n;
        logf(now_ns, "ctl: %s: the next %llu frames %s are dropped", cmd.c_str(), (unsigned long long)n,
             cmd == "drop-tx" ? "from the SoC" : "from the host");
        return true;
    }
    if (cmd == "ifg") {
        uint64_t n;
        if (!parse_u64(rest, n) || n > 1000000) return fail("want 'ifg <byte times>'");
        ser_.set_ifg((unsigned)n);
        logf(now_ns, "ctl: ifg: %llu idle byte times between frames to the SoC%s", (unsigned long long)n,
             n < kMinIfg ? " (BELOW the 802.3 minimum of 12)" : "");
        return true;
    }
    if (cmd == "impair") {
        // impair [rx|tx|both <spec>] | impair off: the settings take effect for the next frame offered;
        // frames already on the impaired wire keep their release times
        std::string which = rest.substr(0, rest.find_first_of(" \t"));
        std::string spec = rest.find_first_of(" \t") == std::string::npos ? "" : rest.substr(rest.find_first_of(" \t") + 1);
        if (rest.empty()) {
            print_impair(stderr, "to SoC (rx)", imp_rx_);
            print_impair(stderr, "from SoC (tx)", imp_tx_);
            return true;
        }
        if (which == "off" && spec.empty()) { which = "both"; spec = "off"; }
        if (which != "rx" && which != "tx" && which != "both")
            return fail("want 'impair rx|tx|both <key=value,...>' or 'impair off'");
        std::string err;
        ImpairConfig crx = imp_rx_.config(), ctx = imp_tx_.config();
        bool sg = false;
        uint64_t sd = 0;
        if ((which != "tx" && !Impairment::parse(spec, crx, &sg, &sd, &err)) ||
            (which != "rx" && !Impairment::parse(spec, ctx, &sg, &sd, &err))) {
            st_.ctl_errors++;
            logf(now_ns, "ctl: error: impair: %s (nothing changed): %s", err.c_str(), line.c_str());
            return false;
        }
        if (which != "tx") { imp_rx_.set_config(crx); if (sg) imp_rx_.reseed(sd); }
        if (which != "rx") { imp_tx_.set_config(ctx); if (sg) imp_tx_.reseed(sd); }
        if (which != "tx") logf(now_ns, "ctl: impair rx: %s, seed %llu", crx.describe().c_str(), (unsigned long long)imp_rx_.seed());
        if (which != "rx") logf(now_ns, "ctl: impair tx: %s, seed %llu", ctx.describe().c_str(), (unsigned long long)imp_tx_.seed());
        return true;
    }
    if (cmd == "mark") {
        logf(now_ns, "mark: %s", rest.c_str());
        return true;
    }
    if (cmd == "stats") {
        print_stats(stderr);
        return true;
    }
    if (cmd == "flood") {
        std::istringstream is(rest);
        std::string pct;
        is >> pct;
        if (pct == "off") {
            logf(now_ns, "ctl: flood off after %llu frames", (unsigned long long)st_.rx_flood);
            flood_pct_ = 0;
            return true;
        }
        uint64_t p;
        if (!parse_u64(pct, p) || p == 0 || p > 100) return fail("want 'flood <percent 1..100> <hex> [<hex>...]' or 'flood off'");
        std::vector<std::vector<uint8_t>> frames;
        std::string hex;
        while (is >> hex) {
            std::vector<uint8_t> b;
            if (!parse_hex(hex, b) || b.size() < 14 || b.size() > 1514) return fail("flood: bad frame (hex, 14..1514 bytes)");
            frames.push_back(std::move(b));
        }
        if (frames.empty()) return fail("want 'flood <percent 1..100> <hex> [<hex>...]' or 'flood off'");
        flood_frames_ = std::move(frames);
        flood_pct_ = (unsigned)p;
        flood_next_ns_ = now_ns;
        logf(now_ns, "ctl: flood: %zu frame(s) in turn at %u %% of the line", flood_frames_.size(), flood_pct_);
        return true;
    }
    if (cmd == "pcap-flush") {
        pcap_release();
        pcap_.flush();
        if (flog_) fflush(flog_);
        return true;
    }
    if (cmd == "exit") {
        uint64_t n = 0;
        if (!rest.empty() && !parse_u64(rest, n)) return fail("want 'exit [code]'");
        exit_code_ = (int)(n & 0xFF);
        logf(now_ns, "ctl: exit %d requested", exit_code_);
        return true;
    }
    if (cmd == "help") {
        fprintf(stderr,
                "eth: control commands (one per line; hex bytes may be separated by spaces or ':'):\n"
                "  inject <hex>           frame to the SoC, padded to 60, correct FCS\n"
                "  inject-badfcs <hex>    the same with a wrong FCS\n"
                "  inject-runt <hex>      no padding, correct FCS\n"
                "  inject-raw <hex>       exactly these bytes after the SFD (no FCS added)\n"
                "  inject-burst <n> <hex> n copies at the current gap\n"
                "  flood <pct> <hex>...   other traffic: the frames in turn at pct %% of the line when the wire is idle\n"
                "  flood off              stop it (stats counts its frames)\n"
                "  drop-tx <n> | drop-rx <n>  drop the next n frames from the SoC | from the host\n"
                "  drop-tx-match <n> <text>   drop the next n frames from the SoC whose bytes contain text\n"
                "  corrupt-rx-match <n> fcs|tcp <text>  flip bit 0 of the IPv4 datagram's last byte in the next n host\n"
                "                             frames containing text; fcs: the FCS as sent (bad), tcp: recomputed\n"
                "  gpio-in <value>            set the SoC's GPIO input pins (bit 7: the risk gate's kill pin, if it has one)\n"
                "  ifg <n>                idle byte times between frames to the SoC (default 12)\n"
                "  impair rx|tx|both <k=v,...>  impaired wire (loss dup reorder corrupt corrupt-bits corrupt-fcs\n"
                "                         delay jitter reorder-delay seed); 'impair off'; 'impair' shows it\n"
                "  at <ns> <command>      run the command when simulated time reaches <ns>\n"
                "  mark <text>            log the text with the simulated time\n"
                "  stats | pcap-flush | exit [code] | help\n");
        return true;
    }
    return fail("unknown command");
}

// ---------------------------------------------------------------------------------------------

void EthPort::print_stats(FILE *f) const {
    const EthStats &s = st_;
    auto u = [](uint64_t v) { return (unsigned long long)v; };
    fprintf(f,
            "eth: to SoC:   %llu frames, %llu bytes (from %s %llu, injected %llu: bad-fcs %llu, runt %llu, raw %llu); "
            "dropped: queue full %llu, drop-rx %llu; corrupt-rx-match %llu\n",
            u(s.rx_frames), u(s.rx_bytes), backend_ ? backend_->name() : "host", u(s.rx_from_backend), u(s.rx_injected),
            u(s.rx_injected_badfcs), u(s.rx_injected_runt), u(s.rx_injected_raw), u(s.rx_dropped_overflow),
            u(s.rx_dropped_ctl), u(s.rx_corrupted_ctl));
    fprintf(f,
            "eth: from SoC: %llu frames, %llu good (%llu bytes), BAD FCS %llu, bad preamble %llu, too short %llu, runts %llu, "
            "odd preamble %llu, short gap %llu; forwarded %llu, drop-tx %llu, host errors %llu\n",
            u(s.tx_frames), u(s.tx_good), u(s.tx_bytes), u(s.tx_bad_fcs), u(s.tx_bad_preamble), u(s.tx_too_short),
            u(s.tx_runts), u(s.tx_odd_preamble), u(s.tx_short_ifg), u(s.tx_forwarded), u(s.tx_dropped_ctl),
            u(s.tx_backend_errors));
    if (s.rx_flood) fprintf(f, "eth: flood: %llu frames to the SoC\n", u(s.rx_flood));
    print_impair(f, "to SoC (rx)", imp_rx_);
    print_impair(f, "from SoC (tx)", imp_tx_);
    if (s.tx_impair_fcs_discards)
        fprintf(f, "eth: impair from SoC (tx): %llu corrupted frames with a bad FCS discarded by the host's MAC\n",
                u(s.tx_impair_fcs_discards));
    if (pcap_host_.is_open())
        fprintf(f, "eth: pcap-host %s: %llu frames written\n", cfg_.pcap_host.c_str(), u(pcap_host_.records()));
    if (s.ctl_commands || s.ctl_errors)
        fprintf(f, "eth: control: %llu commands, %llu errors\n", u(s.ctl_commands), u(s.ctl_errors));
    if (backend_) {
        std::string i = backend_->info();
        if (!i.empty()) fprintf(f, "eth: %s\n", i.c_str());
    }
    if (pcap_.is_open()) fprintf(f, "eth: pcap %s: %llu frames written\n", cfg_.pcap.c_str(), u(pcap_.records()));
}

// One line per direction that is or was impaired: "eth: impair to SoC (rx): offered N, lost N, ..."
void EthPort::print_impair(FILE *f, const char *name, const Impairment &imp) const {
    const ImpairStats &s = imp.stats();
    if (!imp.active() && s.offered == 0) return;
    auto u = [](uint64_t v) { return (unsigned long long)v; };
    fprintf(f,
            "eth: impair %s: offered %llu, lost %llu, duplicated %llu, reordered %llu (held back %llu), corrupted %llu "
            "(%llu bits), delivered %llu, on the wire %zu, mean delay %llu ns; now %s, seed %llu\n",
            name, u(s.offered), u(s.lost), u(s.duplicated), u(s.overtaken), u(s.held), u(s.corrupted), u(s.bits_flipped),
            u(s.delivered), imp.queued(), u(s.delivered ? s.delay_ns_sum / s.delivered : 0), imp.config().describe().c_str(),
            u(imp.seed()));
}

void EthPort::finish() {
    if (finished_) return;
    finished_ = true;
    pcap_.close();
    pcap_host_.close();
    if (flog_) { fclose(flog_); flog_ = nullptr; }
    if (ctl_fd_ >= 0) close(ctl_fd_);
    if (ctl_wfd_ >= 0) close(ctl_wfd_);
    ctl_fd_ = ctl_wfd_ = -1;
    if (ctl_created_) unlink(ctl_path_.c_str());
}

}  // namespace tfeth
