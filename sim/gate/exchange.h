// A scripted FIX 4.4 exchange for the gate-level harness (gate_main.cpp, +fix-exchange=1), written from the
// specifications: Ethernet II, ARP (RFC 826), IPv4 (RFC 791, header checksum RFC 1071), TCP
// (RFC 9293, the checksum over the pseudo header), FIX 4.4 (BodyLength, CheckSum, the standard header). It plays
// the exchange the firmware connects to (the board's FIX_HOST and FIX_PORT):
//   - answers ARP requests for its address;
//   - accepts the SoC's SYN (SYN/ACK with an MSS option), acknowledges every data segment at once;
//   - answers the SoC's Logon (35=A) with a Logon (98=0, the HeartBtInt the SoC asked for), takes any 35=V;
//   - once the console has shown +fix-w-after= (and the end of that line), and +fix-w-delay= sys cycles later,
//     sends one 35=W per price of +fix-trades= (a trade entry 269=2 for +fix-symbol=), +fix-w-gap= sys cycles apart;
//   - checks every segment the SoC sends (IPv4 header and TCP checksums computed here, sequence continuity, the
//     FIX framing and the SoC's MsgSeqNums) and the 35=D the SoC sends against what the test expects
//     (+fix-expect=side,symbol,qty,price: the stop the test armed) and against what the exchange itself sent and
//     received: TCP seq = the next byte of the SoC's stream, ack = the exchange's sequence number at the start of
//     the last 35=W (the SoC's receive point when the hardware fired on it: the W that fired is not acknowledged
//     by its own order), MsgSeqNum = the SoC's last one + 1; and that no 35=D came before the last W.
// Lines: "gate: exchange: <what happened>" and, per check, "gate: exchange: check <name>: ok|FAIL <details>".
// It knows nothing of the PHY: it takes whole frames and gives whole frames (destination MAC .. payload, no
// preamble, SFD or FCS), and the harness's PHY adapter puts them on the board's pins and takes them off: the
// Colorlight i5's RGMII (4 bits at each edge of 125 MHz) or the PYNQ-Z1's RMII (2 bits per 50 MHz REF_CLK cycle).
// The one thing it is told about the PHY is the name of the Ethernet clock its cycle counts are in.
#pragma once
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <string>
#include <utility>
#include <vector>

namespace gx {

using Bytes = std::vector<uint8_t>;

static inline uint32_t get16(const uint8_t *p) { return (uint32_t)p[0] << 8 | p[1]; }
static inline uint32_t get32(const uint8_t *p) { return get16(p) << 16 | get16(p + 2); }
static inline void put16(Bytes &b, uint32_t v) { b.push_back((uint8_t)(v >> 8)); b.push_back((uint8_t)v); }
static inline void put32(Bytes &b, uint32_t v) { put16(b, v >> 16); put16(b, v & 0xFFFF); }

// RFC 1071: the 16-bit ones' complement sum (not complemented), continuing from sum
static inline uint32_t ocsum(const uint8_t *p, size_t n, uint32_t sum = 0) {
    for (size_t i = 0; i + 1 < n; i += 2) sum += get16(p + i);
    if (n & 1) sum += (uint32_t)p[n - 1] << 8;
    while (sum >> 16) sum = (sum & 0xFFFF) + (sum >> 16);
    return sum;
}
// TCP checksum over the pseudo header (source, destination, zero, protocol 6, TCP length) and the segment
static inline uint16_t tcp_csum(uint32_t src, uint32_t dst, const uint8_t *seg, size_t n) {
    uint8_t ph[12] = {(uint8_t)(src >> 24), (uint8_t)(src >> 16), (uint8_t)(src >> 8), (uint8_t)src,
                      (uint8_t)(dst >> 24), (uint8_t)(dst >> 16), (uint8_t)(dst >> 8), (uint8_t)dst,
                      0, 6, (uint8_t)(n >> 8), (uint8_t)n};
    return (uint16_t)~ocsum(seg, n, ocsum(ph, 12));
}

static inline std::string ipstr(uint32_t ip) {
    char b[20];
    snprintf(b, sizeof b, "%u.%u.%u.%u", ip >> 24, (ip >> 16) & 255, (ip >> 8) & 255, ip & 255);
    return b;
}
static inline bool parse_ip(const std::string &s, uint32_t *ip) {
    unsigned a, b, c, d;
    char x;
    if (sscanf(s.c_str(), "%u.%u.%u.%u%c", &a, &b, &c, &d, &x) != 4 || a > 255 || b > 255 || c > 255 || d > 255) return false;
    *ip = a << 24 | b << 16 | c << 8 | d;
    return true;
}
// a FIX decimal ("100.4", "100.4000", "-1.5") as an integer scaled by 10^8; false if it is not one
static inline bool parse_px(const std::string &s, long long *v) {
    size_t i = 0;
    bool neg = i < s.size() && s[i] == '-';
    if (neg) i++;
    long long ip = 0, fp = 0;
    int fd = 0, digits = 0;
    bool dot = false;
    for (; i < s.size(); i++) {
        char c = s[i];
        if (c == '.' && !dot) { dot = true; continue; }
        if (c < '0' || c > '9') return false;
        digits++;
        if (!dot) { ip = ip * 10 + (c - '0'); if (ip > 1000000000LL) return false; }
        else if (fd < 8) { fp = fp * 10 + (c - '0'); fd++; }
        else if (c != '0') return false;  // finer than 10^-8: not what this test sends or expects
    }
    if (!digits) return false;
    while (fd < 8) { fp *= 10; fd++; }
    *v = (neg ? -1 : 1) * (ip * 100000000LL + fp);
    return true;
}

struct FixMsg {
    std::vector<std::pair<int, std::string>> f;
    const std::string *get(int tag) const {
        for (auto &p : f) if (p.first == tag) return &p.second;
        return nullptr;
    }
    std::string str(int tag) const { const std::string *s = get(tag); return s ? *s : std::string("(none)"); }
};

class Exchange {
public:
    struct Frame { Bytes data; int tag; };  // data: destination MAC .. payload (the harness adds preamble and FCS)

    bool enabled = false;
    std::deque<Frame> out;       // frames for the harness to send, in order
    bool done = false;           // the 35=D came and was checked
    int failures = 0;

    // eth_clock: the Ethernet clock the harness counts in (on_tx's sof_eth, on_sent's eth), for the lines it prints
    Exchange(uint64_t sys_hz, const char *eth_clock) : sys_hz_(sys_hz), eth_clock_(eth_clock) {}

    // plusargs: see gate_main.cpp; false and a message when a setting is bad
    bool configure(const std::string &mac, const std::string &ip, uint64_t port, const std::string &comp_id,
                   const std::string &soc_comp_id, const std::string &symbol, const std::string &trades,
                   const std::string &w_after, uint64_t w_delay, uint64_t w_gap, const std::string &expect,
                   std::string *err) {
        enabled = true;
        if (mac.size() != 12) { *err = "+fix-mac= is 12 hex digits"; return false; }
        for (int i = 0; i < 6; i++) {
            char *e;
            std::string h = mac.substr(2 * i, 2);
            mac_[i] = (uint8_t)strtoul(h.c_str(), &e, 16);
            if (*e) { *err = "+fix-mac= is 12 hex digits"; return false; }
        }
        if (!parse_ip(ip, &ip_)) { *err = "+fix-ip= is A.B.C.D"; return false; }
        if (port == 0 || port > 65535) { *err = "+fix-port= is 1..65535"; return false; }
        port_ = (uint16_t)port;
        if (comp_id.empty() || soc_comp_id.empty() || symbol.empty()) { *err = "+fix-comp-id=, +fix-soc-comp-id= and +fix-symbol= must not be empty"; return false; }
        comp_id_ = comp_id; soc_comp_id_ = soc_comp_id; symbol_ = symbol;
        size_t p = 0;
        while (p <= trades.size() && !trades.empty()) {
            size_t q = trades.find(',', p);
            std::string t = trades.substr(p, q == std::string::npos ? std::string::npos : q - p);
            long long v;
            if (!parse_px(t, &v)) { *err = "+fix-trades= is a comma-separated list of prices: " + t; return false; }
            trades_.push_back(t);
            if (q == std::string::npos) break;
            p = q + 1;
        }
        if (trades_.empty()) { *err = "+fix-trades= names no price"; return false; }
        if (w_after.empty()) { *err = "+fix-w-after= is empty"; return false; }
        w_after_ = w_after; w_delay_ = w_delay; w_gap_ = w_gap;
        // side,symbol,qty,price
        std::vector<std::string> e;
        p = 0;
        for (;;) {
            size_t q = expect.find(',', p);
            e.push_back(expect.substr(p, q == std::string::npos ? std::string::npos : q - p));
            if (q == std::string::npos) break;
            p = q + 1;
        }
        if (e.size() != 4 || (e[0] != "1" && e[0] != "2") || e[1].empty() || e[2].empty() || !parse_px(e[3], &exp_px_)) {
            *err = "+fix-expect= is side(1|2),symbol,qty,price";
            return false;
        }
        exp_side_ = e[0]; exp_symbol_ = e[1]; exp_qty_ = e[2]; exp_px_text_ = e[3];
        return true;
    }

    // a frame the SoC sent (without its FCS), fcs_ok as the harness found it; cycle: sys cycles, sof_eth: the
    // Ethernet cycle of its first preamble byte on the transmit pins
    void on_tx(const Bytes &fr, bool fcs_ok, uint64_t cycle, uint64_t sof_eth) {
        cycle_ = cycle;
        if (!fcs_ok || fr.size() < 14) return;
        if (memcmp(fr.data(), mac_, 6) != 0 && !(fr[0] == 0xFF && fr[1] == 0xFF && fr[2] == 0xFF)) return;
        uint32_t type = get16(&fr[12]);
        if (type == 0x0806) arp(fr);
        else if (type == 0x0800) ipv4(fr, sof_eth);
    }

    // every console character (the whole console so far)
    void on_console(const std::string &console) {
        if (w_armed_ || !logged_on_) return;
        if (!w_seen_) {
            size_t at = console.find(w_after_);
            if (at == std::string::npos) return;
            w_seen_ = true;
            w_line_at_ = at;
        }
        if (console.find('\n', w_line_at_) == std::string::npos) return;
        w_armed_ = true;
        w_next_ = cycle_ + w_delay_;
        say("the console showed '%s': the first 35=W in %llu sys cycles", w_after_.c_str(), (unsigned long long)w_delay_);
    }

    // every sys cycle
    void tick(uint64_t cycle) {
        cycle_ = cycle;
        if (!w_armed_ || w_sent_ >= trades_.size() || cycle < w_next_) return;
        const std::string &px = trades_[w_sent_];
        w_sent_++;
        bool last = w_sent_ == trades_.size();
        std::string body = "55=" + symbol_ + "\x01";
        if (!md_req_id_.empty()) body += "262=" + md_req_id_ + "\x01";
        body += "268=1\x01" "269=2\x01" "270=" + px + "\x01" "271=100\x01";
        if (w_sent_ == 1) first_w_cycle_ = cycle;
        if (last) { last_w_seq_ = snd_nxt_; last_w_sent_ = true; last_w_cycle_ = cycle; t2t_mark_ = "270=" + px + "\x01"; }
        say("35=W %s trade %s (MsgSeqNum %u, TCP seq %u)%s", symbol_.c_str(), px.c_str(), out_seq_, snd_nxt_,
            last ? ", the last" : "");
        send_fix("W", body, last ? 2 : 1);
        w_next_ = cycle + w_gap_;
    }

    // the harness finished putting a frame with this tag on the receive pins at Ethernet cycle eth
    void on_sent(int tag, uint64_t eth) {
        if (tag == 2) last_w_eof_eth_ = eth;
    }

    // T2T's start (docs/DESIGN.md): the bytes of the last 35=W's frame that end with the crossing price's SOH
    // ("270=<price>" SOH); the harness tells the Ethernet cycle that SOH has gone onto the receive pins
    const std::string &t2t_mark() const { return t2t_mark_; }
    void on_mark(uint64_t eth) { t2t_mark_eth_ = eth; }

    // the summary at the end of the run
    void finish() {
        if (!enabled) return;
        if (!done) check("order", false, "no 35=D from the SoC (logged on: %s, W sent: %u of %zu)", logged_on_ ? "yes" : "no",
                         w_sent_, trades_.size());
        say("%d segments from the SoC checked, %d checksum errors, %d out of sequence", segments_, bad_csum_, bad_seq_);
    }

private:
    uint64_t sys_hz_;
    const char *eth_clock_;
    uint8_t mac_[6] = {0};
    uint32_t ip_ = 0;
    uint16_t port_ = 0;
    std::string comp_id_, soc_comp_id_, symbol_, w_after_;
    std::vector<std::string> trades_;
    uint64_t w_delay_ = 0, w_gap_ = 0;
    std::string exp_side_, exp_symbol_, exp_qty_, exp_px_text_;
    long long exp_px_ = 0;

    uint64_t cycle_ = 0;
    uint8_t soc_mac_[6] = {0};
    uint32_t soc_ip_ = 0;
    uint16_t soc_port_ = 0;
    bool syn_seen_ = false, established_ = false, logged_on_ = false;
    uint32_t iss_ = 0x47A7E000u, snd_nxt_ = 0, rcv_nxt_ = 0;
    uint16_t ip_id_ = 0x1000;
    std::string stream_;            // the SoC's bytes not yet framed
    uint32_t out_seq_ = 1;          // the exchange's next MsgSeqNum
    uint32_t soc_last_seq_ = 0;     // the SoC's last MsgSeqNum
    std::string md_req_id_;
    bool w_seen_ = false, w_armed_ = false, last_w_sent_ = false;
    size_t w_line_at_ = 0;
    uint64_t w_next_ = 0;
    unsigned w_sent_ = 0;
    uint32_t last_w_seq_ = 0;
    uint64_t last_w_eof_eth_ = 0, first_w_cycle_ = 0, last_w_cycle_ = 0, t2t_mark_eth_ = 0;
    std::string t2t_mark_;
    int segments_ = 0, bad_csum_ = 0, bad_seq_ = 0;

    void say(const char *fmt, ...) __attribute__((format(printf, 2, 3))) {
        va_list ap;
        va_start(ap, fmt);
        printf("gate: exchange: ");
        vprintf(fmt, ap);
        printf(" (cycle %llu)\n", (unsigned long long)cycle_);
        va_end(ap);
        fflush(stdout);
    }
    void check(const char *name, bool ok, const char *fmt, ...) __attribute__((format(printf, 4, 5))) {
        va_list ap;
        va_start(ap, fmt);
        printf("gate: exchange: check %s: %s ", name, ok ? "ok" : "FAIL");
        vprintf(fmt, ap);
        printf("\n");
        va_end(ap);
        fflush(stdout);
        if (!ok) failures++;
    }

    Bytes eth_header(const uint8_t *dst, uint32_t type) {
        Bytes b(dst, dst + 6);
        b.insert(b.end(), mac_, mac_ + 6);
        put16(b, type);
        return b;
    }

    void arp(const Bytes &fr) {
        if (fr.size() < 42) return;
        const uint8_t *a = &fr[14];
        if (get16(a) != 1 || get16(a + 2) != 0x0800 || a[4] != 6 || a[5] != 4) return;
        if (get16(a + 6) != 1 || get32(a + 24) != ip_) return;  // a request for our address
        Bytes b = eth_header(a + 8, 0x0806);
        put16(b, 1); put16(b, 0x0800); b.push_back(6); b.push_back(4); put16(b, 2);
        b.insert(b.end(), mac_, mac_ + 6); put32(b, ip_);
        b.insert(b.end(), a + 8, a + 18);  // the requester's MAC and IPv4 address
        say("ARP: %s is at our MAC, told %s", ipstr(ip_).c_str(), ipstr(get32(a + 14)).c_str());
        out.push_back({b, 0});
    }

    void send_tcp(uint8_t flags, const std::string &payload, int tag, bool mss = false) {
        Bytes tcp;
        put16(tcp, port_); put16(tcp, soc_port_); put32(tcp, snd_nxt_); put32(tcp, rcv_nxt_);
        tcp.push_back((uint8_t)((mss ? 6 : 5) << 4)); tcp.push_back(flags); put16(tcp, 65535);
        put16(tcp, 0); put16(tcp, 0);
        if (mss) { tcp.push_back(2); tcp.push_back(4); put16(tcp, 1460); }
        tcp.insert(tcp.end(), payload.begin(), payload.end());
        uint16_t c = tcp_csum(ip_, soc_ip_, tcp.data(), tcp.size());
        tcp[16] = (uint8_t)(c >> 8); tcp[17] = (uint8_t)c;
        Bytes b = eth_header(soc_mac_, 0x0800);
        size_t ip0 = b.size();
        b.push_back(0x45); b.push_back(0); put16(b, (uint32_t)(20 + tcp.size())); put16(b, ip_id_++);
        put16(b, 0x4000); b.push_back(64); b.push_back(6); put16(b, 0); put32(b, ip_); put32(b, soc_ip_);
        uint16_t ic = (uint16_t)~ocsum(&b[ip0], 20);
        b[ip0 + 10] = (uint8_t)(ic >> 8); b[ip0 + 11] = (uint8_t)ic;
        b.insert(b.end(), tcp.begin(), tcp.end());
        snd_nxt_ += (uint32_t)payload.size() + ((flags & 0x02) ? 1 : 0);
        out.push_back({b, tag});
    }

    std::string utc_now() {
        // a fixed day; the time of day advances with the simulation
        uint64_t ms = 12 * 3600000ull + cycle_ * 1000 / sys_hz_;
        char t[32];
        snprintf(t, sizeof t, "20261126-%02llu:%02llu:%02llu.%03llu", (unsigned long long)(ms / 3600000 % 24),
                 (unsigned long long)(ms / 60000 % 60), (unsigned long long)(ms / 1000 % 60), (unsigned long long)(ms % 1000));
        return t;
    }

    // FIX 4.4: 8, 9 (the body's length: from after 9's SOH to the SOH before 10), 35 first in the body, 10 (the sum of
    // every byte before it, mod 256, three digits)
    void send_fix(const char *type, const std::string &fields, int tag) {
        std::string body = std::string("35=") + type + "\x01" "34=" + std::to_string(out_seq_++) + "\x01" "49=" + comp_id_ +
                           "\x01" "52=" + utc_now() + "\x01" "56=" + soc_comp_id_ + "\x01" + fields;
        std::string m = "8=FIX.4.4\x01" "9=" + std::to_string(body.size()) + "\x01" + body;
        unsigned sum = 0;
        for (unsigned char c : m) sum += c;
        char cs[8];
        snprintf(cs, sizeof cs, "%03u", sum % 256);
        m += std::string("10=") + cs + "\x01";
        send_tcp(0x18, m, tag);  // PSH ACK
    }

    // one FIX message off the front of stream_: 1 framed (into *m), 0 more bytes needed, -1 malformed (why in *err)
    int frame(FixMsg *m, size_t *len, std::string *err) {
        static const std::string begin = "8=FIX.4.4\x01" "9=";
        if (stream_.size() < begin.size()) return 0;
        if (stream_.compare(0, begin.size(), begin) != 0) { *err = "does not start with 8=FIX.4.4|9="; return -1; }
        size_t p = begin.size(), n = 0;
        while (p < stream_.size() && stream_[p] >= '0' && stream_[p] <= '9' && p < begin.size() + 6) n = n * 10 + (size_t)(stream_[p++] - '0');
        if (p == stream_.size()) return 0;
        if (stream_[p] != 1 || p == begin.size()) { *err = "bad BodyLength"; return -1; }
        size_t body = p + 1, end = body + n;
        if (stream_.size() < end + 7) return 0;
        if (stream_.compare(end, 3, "10=") != 0 || stream_[end + 6] != 1) { *err = "BodyLength " + std::to_string(n) + " does not end where 10= begins"; return -1; }
        unsigned sum = 0;
        for (size_t i = 0; i < end; i++) sum += (unsigned char)stream_[i];
        std::string cs = stream_.substr(end + 3, 3);
        char want[8];
        snprintf(want, sizeof want, "%03u", sum % 256);
        if (cs != want) { *err = "CheckSum " + cs + ", the bytes sum to " + want; return -1; }
        m->f.clear();
        size_t q = 0;
        std::string s = stream_.substr(0, end + 7);
        while (q < s.size()) {
            size_t eq = s.find('=', q), soh = s.find('\x01', q);
            if (eq == std::string::npos || soh == std::string::npos || eq > soh) { *err = "a field without '='"; return -1; }
            m->f.push_back({atoi(s.substr(q, eq - q).c_str()), s.substr(eq + 1, soh - eq - 1)});
            q = soh + 1;
        }
        if (m->f.size() < 4 || m->f[2].first != 35) { *err = "35 is not the first field of the body"; return -1; }
        *len = end + 7;
        return 1;
    }

    static std::string printable(const std::string &s) {
        std::string o = s;
        for (auto &c : o) if (c == 1) c = '|';
        return o;
    }

    void ipv4(const Bytes &fr, uint64_t sof_eth) {
        if (fr.size() < 34) return;
        const uint8_t *ip = &fr[14];
        size_t ihl = (size_t)(ip[0] & 15) * 4, tot = get16(ip + 2);
        if ((ip[0] >> 4) != 4 || ihl < 20 || tot < ihl || 14 + tot > fr.size() || ip[9] != 6 || get32(ip + 16) != ip_) return;
        const uint8_t *tcp = ip + ihl;
        size_t tlen = tot - ihl;
        if (tlen < 20 || get16(tcp + 2) != port_) return;
        uint32_t src = get32(ip + 12);
        segments_++;
        bool ip_ok = ocsum(ip, ihl) == 0xFFFF;
        bool tcp_ok = tcp_csum(src, ip_, tcp, tlen) == 0;
        if (!ip_ok || !tcp_ok) bad_csum_++;
        uint32_t seq = get32(tcp + 4), ack = get32(tcp + 8);
        size_t doff = (size_t)(tcp[12] >> 4) * 4;
        uint8_t flags = tcp[13];
        if (doff < 20 || doff > tlen) return;
        std::string payload((const char *)tcp + doff, tlen - doff);
        if (!ip_ok || !tcp_ok) say("a TCP segment with a bad %s checksum", ip_ok ? "TCP" : "IPv4 header");
        if ((flags & 0x02) && !(flags & 0x10)) {  // SYN
            if (!ip_ok || !tcp_ok) return;
            memcpy(soc_mac_, &fr[6], 6);
            soc_ip_ = src;
            soc_port_ = (uint16_t)get16(tcp);
            rcv_nxt_ = seq + 1;
            snd_nxt_ = iss_;
            syn_seen_ = true;
            say("SYN from %s:%u (seq %u): SYN/ACK", ipstr(src).c_str(), soc_port_, seq);
            send_tcp(0x12, "", 0, true);
            return;
        }
        if (!syn_seen_ || get16(tcp) != soc_port_ || src != soc_ip_) return;
        if ((flags & 0x10) && !established_ && ack == iss_ + 1) { established_ = true; say("connection established"); }
        if (flags & 0x04) { say("RST from the SoC"); return; }
        if (payload.empty()) return;
        bool in_order = seq == rcv_nxt_;
        if (!in_order) {
            bad_seq_++;
            say("a segment of %zu bytes at seq %u, expected %u: not taken", payload.size(), seq, rcv_nxt_);
            send_tcp(0x10, "", 0);
            return;
        }
        rcv_nxt_ += (uint32_t)payload.size();
        stream_ += payload;
        std::string reply;
        for (;;) {
            FixMsg m;
            size_t len = 0;
            std::string err;
            int r = frame(&m, &len, &err);
            if (r == 0) break;
            if (r < 0) {
                say("a malformed FIX message from the SoC: %s: %s", err.c_str(), printable(stream_.substr(0, 120)).c_str());
                if (last_w_sent_ && !done) { check("fix", false, "a malformed message after the last 35=W: %s", err.c_str()); done = true; }
                stream_.clear();
                break;
            }
            std::string raw = stream_.substr(0, len);
            stream_.erase(0, len);
            on_fix(m, raw, fr, ip_ok, tcp_ok, seq, ack, sof_eth, &reply);
        }
        if (!reply.empty()) return;  // acknowledged by the answer
        send_tcp(0x10, "", 0);
    }

    void on_fix(const FixMsg &m, const std::string &raw, const Bytes &fr, bool ip_ok, bool tcp_ok, uint32_t seq,
                uint32_t ack, uint64_t sof_eth, std::string *reply) {
        const std::string &type = m.f[2].second;
        uint32_t msgseq = (uint32_t)strtoul(m.str(34).c_str(), nullptr, 10);
        say("from the SoC: %s", printable(raw).c_str());
        bool seq_ok = msgseq == soc_last_seq_ + 1;
        uint32_t want_seq = soc_last_seq_ + 1;
        if (!seq_ok && type != "D") say("MsgSeqNum %u, expected %u", msgseq, want_seq);
        soc_last_seq_ = msgseq;
        if (type == "A") {
            if (m.str(49) != soc_comp_id_ || m.str(56) != comp_id_) { say("Logon from %s to %s: not answered", m.str(49).c_str(), m.str(56).c_str()); return; }
            std::string hb = m.get(108) ? *m.get(108) : "30";
            send_fix("A", "98=0\x01" "108=" + hb + "\x01", 0);
            *reply = "A";
            logged_on_ = true;
            say("Logon answered (HeartBtInt %s)", hb.c_str());
        } else if (type == "V") {
            if (m.get(262)) md_req_id_ = *m.get(262);
            say("market data request %s taken", md_req_id_.c_str());
        } else if (type == "D") {
            order(m, raw, fr, ip_ok, tcp_ok, seq, ack, sof_eth, msgseq, want_seq);
        }
    }

    void order(const FixMsg &m, const std::string &raw, const Bytes &fr, bool ip_ok, bool tcp_ok, uint32_t seq, uint32_t ack,
               uint64_t sof_eth, uint32_t msgseq, uint32_t want_seq) {
        if (done) { say("another 35=D (ignored)"); return; }
        done = true;
        // the segment holds this message alone (the hardware's order frame)
        size_t tlen = get16(&fr[16]) - (size_t)(fr[14] & 15) * 4;
        size_t doff = (size_t)(fr[14 + (fr[14] & 15) * 4 + 12] >> 4) * 4;
        bool alone = tlen - doff == raw.size();
        if (last_w_sent_)
            check("before-last-w", true, "the 35=D came after the last 35=W: none in the %llu sys cycles from the first "
                  "35=W to the last (the trades before the last do not cross the stop)",
                  (unsigned long long)(last_w_cycle_ - first_w_cycle_));
        else
            check("before-last-w", false, "a 35=D came %llu sys cycles after the first 35=W, BEFORE the last (the trades "
                  "before the last do not cross the stop)", (unsigned long long)(cycle_ - first_w_cycle_));
        check("frame", ip_ok && tcp_ok && memcmp(&fr[0], mac_, 6) == 0 && memcmp(&fr[6], soc_mac_, 6) == 0 && alone,
              "good FCS (the harness), IPv4 header checksum %s, TCP checksum %s, from the SoC's MAC to the exchange's %s, the message alone in its segment %s",
              ip_ok ? "good" : "BAD", tcp_ok ? "good" : "BAD", memcmp(&fr[6], soc_mac_, 6) == 0 && memcmp(&fr[0], mac_, 6) == 0 ? "yes" : "NO", alone ? "yes" : "NO");
        uint32_t seq_want = rcv_nxt_ - (uint32_t)(tlen - doff);
        check("tcp", seq == seq_want && ack == last_w_seq_, "seq %u (the next byte of the SoC's stream: %u), ack %u (the exchange's "
              "sequence number at the start of the last 35=W: %u)", seq, seq_want, ack, last_w_seq_);
        // BodyLength and CheckSum: frame() accepted the message only with both right
        check("fix", m.str(49) == soc_comp_id_ && m.str(56) == comp_id_ && msgseq == want_seq,
              "BodyLength %s and CheckSum %s right; 49=%s 56=%s, MsgSeqNum %u (the SoC's last + 1: %u)", m.str(9).c_str(),
              m.str(10).c_str(), m.str(49).c_str(), m.str(56).c_str(), msgseq, want_seq);
        long long px = 0;
        bool px_ok = m.get(44) && parse_px(*m.get(44), &px) && px == exp_px_;
        bool qty_ok = m.get(38) && strtoul(m.get(38)->c_str(), nullptr, 10) == strtoul(exp_qty_.c_str(), nullptr, 10) &&
                      m.get(38)->find_first_not_of("0123456789.") == std::string::npos;
        check("order", m.str(54) == exp_side_ && m.str(55) == exp_symbol_ && qty_ok && px_ok && m.str(40) == "2",
              "35=D side 54=%s (want %s), 55=%s (want %s), 38=%s (want %s), 40=%s (want 2, limit), 44=%s (want %s), 11=%s",
              m.str(54).c_str(), exp_side_.c_str(), m.str(55).c_str(), exp_symbol_.c_str(), m.str(38).c_str(),
              exp_qty_.c_str(), m.str(40).c_str(), m.str(44).c_str(), exp_px_text_.c_str(), m.str(11).c_str());
        // (an early fire's order starts while the crossing 35=W is still arriving: then its first byte comes first)
        if (last_w_eof_eth_ && sof_eth > last_w_eof_eth_)
            say("from the last byte of the crossing 35=W's frame on the receive pins to the first preamble byte of the "
                "35=D on the transmit pins: %llu Ethernet cycles (%s)", (unsigned long long)(sof_eth - last_w_eof_eth_), eth_clock_);
        else if (last_w_eof_eth_)
            say("the first preamble byte of the 35=D on the transmit pins came %llu Ethernet cycles (%s) BEFORE the last byte "
                "of the crossing 35=W's frame on the receive pins", (unsigned long long)(last_w_eof_eth_ - sof_eth), eth_clock_);
        if (t2t_mark_eth_ && sof_eth > t2t_mark_eth_)
            say("T2T: from the crossing price's SOH (after %s) on the receive pins to the first preamble byte of the 35=D on "
                "the transmit pins: %llu Ethernet cycles (%s)", t2t_mark_.substr(0, t2t_mark_.size() - 1).c_str(),
                (unsigned long long)(sof_eth - t2t_mark_eth_), eth_clock_);
        else
            say("T2T: no measure (the crossing price's SOH %s)", t2t_mark_eth_ ? "came after the 35=D's first byte" : "was not seen on the pins");
    }
};

}  // namespace gx
