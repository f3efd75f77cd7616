// sim/eth/test/dev_model.h - a tiny stand-in for the SoC on the GMII pins, for the plug-in's tests.
// It decodes the RX pins (what EthPort drives), answers ARP for its address and ICMP echo, echoes
// frames of EtherType 0x88B5 back (MACs swapped), and can send hand-made UDP/TCP segments.
#pragma once
#include <arpa/inet.h>

#include <cstdint>
#include <cstdio>
#include <cstring>
#include <functional>
#include <string>
#include <vector>

#include "eth_crc.h"
#include "eth_gmii.h"

namespace tfeth_test {
using namespace tfeth;

inline uint16_t rd16(const uint8_t *p) { return (uint16_t)(p[0] << 8 | p[1]); }
inline uint32_t rd32(const uint8_t *p) { return (uint32_t)p[0] << 24 | p[1] << 16 | p[2] << 8 | p[3]; }
inline void wr16(uint8_t *p, uint16_t v) { p[0] = v >> 8; p[1] = (uint8_t)v; }
inline void wr32(uint8_t *p, uint32_t v) { p[0] = v >> 24; p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v; }
inline uint32_t csum_add(uint32_t s, const uint8_t *p, size_t n) {
    for (size_t i = 0; i + 1 < n; i += 2) s += rd16(p + i);
    if (n & 1) s += (uint32_t)p[n - 1] << 8;
    return s;
}
inline uint16_t csum_fold(uint32_t s) {
    while (s >> 16) s = (s & 0xFFFF) + (s >> 16);
    return (uint16_t)~s;
}
inline uint32_t ip4(const char *s) { in_addr a; inet_pton(AF_INET, s, &a); return ntohl(a.s_addr); }

struct Device {
    uint8_t mac[6] = {0x02, 0x54, 0x46, 0x00, 0x00, 0x02};
    uint32_t ip = 0;
    uint8_t peer_mac[6] = {0};
    bool peer_known = false;
    GmiiDeserializer rx;
    GmiiSerializer tx;
    uint64_t arp_req_in = 0, arp_reply_out = 0, arp_reply_in = 0, icmp_in = 0, icmp_out = 0, echo_88b5 = 0,
             bad_fcs_in = 0, frames_in = 0, sent = 0;
    std::vector<std::vector<uint8_t>> received;  // good frames without FCS, if keep_frames
    bool keep_frames = false;
    std::function<void(const uint8_t *, size_t)> on_frame;  // every good frame (after the built-in handling)

    // One cycle: the RX pins as the SoC samples them; returns the TX pins it drives.
    void edge(uint8_t rx_dv, uint8_t rx_data, bool &tx_en, uint8_t &tx_data) {
        if (rx.edge(rx_dv, rx_data) & GmiiDeserializer::kEnd) frame_in();
        uint8_t dv;
        tx.edge(dv, tx_data);
        tx_en = dv;
    }
    void send(const std::vector<uint8_t> &f) {
        GmiiSerializer::Item it;
        it.bytes = make_wire(f.data(), f.size(), kMinFrame);
        tx.push(std::move(it));
        sent++;
    }
    std::vector<uint8_t> eth_hdr(const uint8_t *dst, uint16_t type) const {
        std::vector<uint8_t> f(14);
        memcpy(&f[0], dst, 6);
        memcpy(&f[6], mac, 6);
        wr16(&f[12], type);
        return f;
    }
    void send_arp_request(uint32_t target) {
        static const uint8_t bc[6] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};
        auto f = eth_hdr(bc, 0x0806);
        uint8_t a[28] = {0, 1, 8, 0, 6, 4, 0, 1};
        memcpy(a + 8, mac, 6);
        wr32(a + 14, ip);
        wr32(a + 24, target);
        f.insert(f.end(), a, a + 28);
        send(f);
    }
    // IPv4 + (UDP or TCP) to the peer MAC; payload appended. TCP: flags, seq, ack given.
    void send_ip(uint8_t proto, uint32_t dst, uint16_t sport, uint16_t dport, const std::string &payload,
                 uint8_t tcp_flags = 0, uint32_t seq = 0, uint32_t ack = 0) {
        auto f = eth_hdr(peer_mac, 0x0800);
        size_t l4 = proto == 17 ? 8 : 20;
        std::vector<uint8_t> ipb(20 + l4 + payload.size(), 0);
        ipb[0] = 0x45;
        wr16(&ipb[2], (uint16_t)ipb.size());
        wr16(&ipb[4], 0x1234);
        ipb[8] = 64;
        ipb[9] = proto;
        wr32(&ipb[12], ip);
        wr32(&ipb[16], dst);
        wr16(&ipb[10], csum_fold(csum_add(0, &ipb[0], 20)));
        uint8_t *h = &ipb[20];
        wr16(h, sport);
        wr16(h + 2, dport);
        memcpy(h + l4, payload.data(), payload.size());
        size_t seglen = l4 + payload.size();
        if (proto == 17) {
            wr16(h + 4, (uint16_t)seglen);
        } else {
            wr32(h + 4, seq);
            wr32(h + 8, ack);
            h[12] = 5 << 4;
            h[13] = tcp_flags;
            wr16(h + 14, 65535);
        }
        uint32_t s = csum_add(0, &ipb[12], 8) + proto + (uint32_t)seglen;
        uint16_t c = csum_fold(csum_add(s, h, seglen));
        wr16(h + (proto == 17 ? 6 : 16), proto == 17 && c == 0 ? 0xFFFF : c);
        f.insert(f.end(), ipb.begin(), ipb.end());
        send(f);
    }

private:
    void frame_in() {
        BurstInfo bi = parse_burst(rx.burst());
        if (bi.status != BurstInfo::kOk) { bad_fcs_in++; return; }
        frames_in++;
        const uint8_t *p = rx.burst().data() + bi.frame_offset;
        size_t n = bi.frame_len;
        if (keep_frames) received.emplace_back(p, p + n);
        handle(p, n);
        if (on_frame) on_frame(p, n);
    }
    void handle(const uint8_t *p, size_t n) {
        if (n < 14) return;
        uint16_t type = rd16(p + 12);
        if (type == 0x88B5) {  // echo back
            std::vector<uint8_t> f(p, p + n);
            memcpy(&f[0], p + 6, 6);
            memcpy(&f[6], mac, 6);
            echo_88b5++;
            send(f);
            return;
        }
        if (type == 0x0806 && n >= 42) {
            const uint8_t *a = p + 14;
            uint16_t op = rd16(a + 6);
            if (op == 1 && rd32(a + 24) == ip) {
                arp_req_in++;
                auto f = eth_hdr(a + 8, 0x0806);
                uint8_t r[28];
                memcpy(r, a, 6);
                wr16(r + 6, 2);
                memcpy(r + 8, mac, 6);
                wr32(r + 14, ip);
                memcpy(r + 18, a + 8, 10);
                f.insert(f.end(), r, r + 28);
                arp_reply_out++;
                send(f);
            } else if (op == 2 && rd32(a + 24) == ip) {
                arp_reply_in++;
                memcpy(peer_mac, a + 8, 6);
                peer_known = true;
            }
            return;
        }
        if (type == 0x0800 && n >= 34) {
            const uint8_t *iph = p + 14;
            size_t ihl = (iph[0] & 15) * 4;
            size_t tot = rd16(iph + 2);
            if (rd32(iph + 16) != ip || tot + 14 > n || iph[9] != 1) return;
            const uint8_t *ic = iph + ihl;
            if (ic[0] != 8) return;  // echo request only
            icmp_in++;
            std::vector<uint8_t> f(p, p + 14 + tot);
            memcpy(&f[0], p + 6, 6);
            memcpy(&f[6], mac, 6);
            uint8_t *ip2 = &f[14];
            memcpy(ip2 + 16, iph + 12, 4);
            wr32(ip2 + 12, ip);
            ip2[8] = 64;
            wr16(ip2 + 10, 0);
            wr16(ip2 + 10, csum_fold(csum_add(0, ip2, ihl)));
            uint8_t *ic2 = ip2 + ihl;
            ic2[0] = 0;
            wr16(ic2 + 2, 0);
            wr16(ic2 + 2, csum_fold(csum_add(0, ic2, tot - ihl)));
            icmp_out++;
            send(f);
        }
    }
};

}  // namespace tfeth_test
