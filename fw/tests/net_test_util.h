/* tests/net_test_util.h - harness for the net/ host tests.
 * Input: hand-built frames (ARP, IPv4, ICMP, TCP from a simulated peer), fake time.
 * Output: a stack whose transmitted frames are captured and decoded (with checksum
 * checks), a deterministic random source, and logs of ARP and TCP callbacks.
 * Include after <cmocka.h>. Everything is static inline so each test binary may use a subset. */
#ifndef TESTS_NET_TEST_UTIL_H
#define TESTS_NET_TEST_UTIL_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include <string.h>
#include "net/net.h"
#include "net/net_util.h"

#define T_OUR_IP   NET_IP4(10, 77, 0, 2)
#define T_PEER_IP  NET_IP4(10, 77, 0, 1)
#define T_GW_IP    NET_IP4(10, 77, 0, 254)
#define T_MASK     NET_IP4(255, 255, 255, 0)
#define T_CAP_MAX  64
#define T_RX_MAX   65536

static const uint8_t T_OUR_MAC[6] = {0x02, 0x54, 0x46, 0x00, 0x00, 0x02};
static const uint8_t T_PEER_MAC[6] = {0x02, 0x54, 0x46, 0x00, 0x00, 0x01};
static const uint8_t T_GW_MAC[6] = {0x02, 0x54, 0x46, 0x00, 0x00, 0xfe};

struct t_harness {
    struct net_stack stack;
    uint8_t cap[T_CAP_MAX][ETH_FRAME_MAX];
    size_t cap_len[T_CAP_MAX];
    unsigned ncap;
    uint32_t rng;
    /* ARP results */
    unsigned arp_events;
    uint32_t arp_last_ip;
    bool arp_last_ok;
    /* TCP callbacks */
    unsigned connected, closed, errors;
    enum tcp_error last_err;
    uint8_t rx[T_RX_MAX];
    size_t rx_len;
    unsigned data_calls;
    unsigned skip_calls;
    uint32_t skip_last_seq;
    struct tcp_conn *conn;
};

static struct t_harness T;

static inline void t_tx(void *ctx, const uint8_t *frame, size_t len)
{
    struct t_harness *h = ctx;
    assert_true(len <= ETH_FRAME_MAX);
    assert_true(len >= ETH_FRAME_MIN);
    assert_true(h->ncap < T_CAP_MAX);
    memcpy(h->cap[h->ncap], frame, len);
    h->cap_len[h->ncap++] = len;
}

static inline uint32_t t_rand(void *ctx)
{
    struct t_harness *h = ctx;
    h->rng = h->rng * 1664525u + 1013904223u;
    return h->rng;
}

static inline void t_arp_result(void *ctx, uint32_t ip, bool ok)
{
    struct t_harness *h = ctx;
    h->arp_events++;
    h->arp_last_ip = ip;
    h->arp_last_ok = ok;
}

static const struct net_ops t_ops = {t_tx, t_rand, t_arp_result, NULL};

static inline void t_setup(uint64_t now)
{
    struct net_config cfg = {T_OUR_IP, T_MASK, T_GW_IP};
    memset(&T, 0, sizeof(T));
    T.rng = 12345;
    net_init(&T.stack, T_OUR_MAC, &cfg, &t_ops, &T, now);
}

static inline void t_clear(void) { T.ncap = 0; }

/* ---------------- frame builders (peer -> us) ---------------- */

static inline size_t t_mk_arp(uint8_t *f, const uint8_t *eth_dst, uint16_t op, const uint8_t *sha, uint32_t spa,
                              const uint8_t *tha, uint32_t tpa)
{
    static const uint8_t zero[6] = {0};
    eth_build(f, eth_dst, sha, ETH_TYPE_ARP);
    uint8_t *a = f + 14;
    net_wr16(a, 1);
    net_wr16(a + 2, 0x0800);
    a[4] = 6;
    a[5] = 4;
    net_wr16(a + 6, op);
    memcpy(a + 8, sha, 6);
    net_wr32(a + 14, spa);
    memcpy(a + 18, tha ? tha : zero, 6);
    net_wr32(a + 24, tpa);
    memset(f + 42, 0, 18);   /* Ethernet padding, as on the wire */
    return 60;
}

/* IPv4 packet with optional options (optlen multiple of 4) and flags/fragment field. */
static inline size_t t_mk_ip(uint8_t *f, const uint8_t *src_mac, uint32_t src, uint32_t dst, uint8_t proto,
                             uint16_t frag, const uint8_t *opt, size_t optlen, const uint8_t *l4, size_t l4len)
{
    eth_build(f, T_OUR_MAC, src_mac, ETH_TYPE_IPV4);
    uint8_t *ip = f + 14;
    size_t ihl = 20 + optlen;
    ip[0] = (uint8_t)(0x40 | (ihl / 4));
    ip[1] = 0;
    net_wr16(ip + 2, (uint16_t)(ihl + l4len));
    net_wr16(ip + 4, 0x1234);
    net_wr16(ip + 6, frag);
    ip[8] = 64;
    ip[9] = proto;
    net_wr16(ip + 10, 0);
    net_wr32(ip + 12, src);
    net_wr32(ip + 16, dst);
    if (optlen)
        memcpy(ip + 20, opt, optlen);
    net_wr16(ip + 10, net_csum_fold(net_csum_add(0, ip, ihl)));
    memcpy(ip + ihl, l4, l4len);
    size_t len = 14 + ihl + l4len;
    if (len < 60) {
        memset(f + len, 0, 60 - len);
        len = 60;
    }
    return len;
}

static inline size_t t_mk_echo(uint8_t *f, uint16_t id, uint16_t seq, const uint8_t *data, size_t dlen)
{
    uint8_t m[1500];
    m[0] = 8;
    m[1] = 0;
    net_wr16(m + 2, 0);
    net_wr16(m + 4, id);
    net_wr16(m + 6, seq);
    memcpy(m + 8, data, dlen);
    net_wr16(m + 2, net_csum_fold(net_csum_add(0, m, 8 + dlen)));
    return t_mk_ip(f, T_PEER_MAC, T_PEER_IP, T_OUR_IP, 1, 0, NULL, 0, m, 8 + dlen);
}

/* TCP segment from src_ip:sport to us:dport with the given options (optlen a multiple of 4, at most 40). */
static inline size_t t_mk_tcp_opts(uint8_t *f, uint32_t src_ip, uint16_t sport, uint16_t dport, uint32_t seq,
                                   uint32_t ack, uint8_t flags, uint16_t wnd, const uint8_t *opts, size_t optlen,
                                   const void *data, size_t dlen)
{
    uint8_t t[1500];
    size_t hl = 20 + optlen;
    net_wr16(t, sport);
    net_wr16(t + 2, dport);
    net_wr32(t + 4, seq);
    net_wr32(t + 8, ack);
    t[12] = (uint8_t)((hl / 4) << 4);
    t[13] = flags;
    net_wr16(t + 14, wnd);
    net_wr16(t + 16, 0);
    net_wr16(t + 18, 0);
    if (optlen)
        memcpy(t + 20, opts, optlen);
    if (dlen)
        memcpy(t + hl, data, dlen);
    uint32_t sum = net_csum_pseudo(src_ip, T_OUR_IP, 6, (uint16_t)(hl + dlen));
    net_wr16(t + 16, net_csum_fold(net_csum_add(sum, t, hl + dlen)));
    return t_mk_ip(f, T_PEER_MAC, src_ip, T_OUR_IP, 6, 0x4000, NULL, 0, t, hl + dlen);
}

/* TCP segment from src_ip:sport to us:dport. mss = 0: no option. */
static inline size_t t_mk_tcp_from(uint8_t *f, uint32_t src_ip, uint16_t sport, uint16_t dport, uint32_t seq,
                                   uint32_t ack, uint8_t flags, uint16_t wnd, uint16_t mss, const void *data,
                                   size_t dlen)
{
    uint8_t o[4] = {2, 4, (uint8_t)(mss >> 8), (uint8_t)mss};
    return t_mk_tcp_opts(f, src_ip, sport, dport, seq, ack, flags, wnd, o, mss ? 4 : 0, data, dlen);
}

/* ---------------- decoding what the stack sent ---------------- */

struct t_tcp {
    const uint8_t *eth_dst;
    uint32_t src, dst;
    uint16_t sport, dport;
    uint32_t seq, ack;
    uint8_t flags;
    uint16_t wnd;
    uint16_t mss;           /* MSS option, 0 when absent */
    bool sack_perm;         /* SACK-permitted option present */
    unsigned sack_blocks;   /* SACK option: blocks (0 when absent), the first at sack_l..sack_r */
    uint32_t sack_l, sack_r;
    size_t optlen;          /* option bytes (header length - 20) */
    const uint8_t *data;
    size_t dlen;
};

/* Checks the IPv4 header (checksum, version, DF, TTL) of captured frame i and returns the IP header. */
static inline const uint8_t *t_ip_of(unsigned i, uint8_t proto)
{
    assert_true(i < T.ncap);
    const uint8_t *f = T.cap[i];
    assert_int_equal(net_rd16(f + 12), 0x0800);
    assert_memory_equal(f + 6, T_OUR_MAC, 6);
    const uint8_t *ip = f + 14;
    assert_int_equal(ip[0], 0x45);
    assert_int_equal(net_csum_fold(net_csum_add(0, ip, 20)), 0);
    assert_int_equal(ip[8], 64);
    assert_int_equal(ip[9], proto);
    assert_int_equal(net_rd16(ip + 6), 0x4000);
    assert_int_equal(net_rd32(ip + 12), T_OUR_IP);
    assert_true(14u + net_rd16(ip + 2) <= T.cap_len[i]);
    return ip;
}

static inline struct t_tcp t_tcp_of(unsigned i)
{
    struct t_tcp r;
    const uint8_t *ip = t_ip_of(i, 6);
    size_t tlen = net_rd16(ip + 2) - 20u;
    const uint8_t *t = ip + 20;
    uint32_t sum = net_csum_pseudo(net_rd32(ip + 12), net_rd32(ip + 16), 6, (uint16_t)tlen);
    assert_int_equal(net_csum_fold(net_csum_add(sum, t, tlen)), 0);
    memset(&r, 0, sizeof(r));
    r.eth_dst = T.cap[i];
    r.src = net_rd32(ip + 12);
    r.dst = net_rd32(ip + 16);
    r.sport = net_rd16(t);
    r.dport = net_rd16(t + 2);
    r.seq = net_rd32(t + 4);
    r.ack = net_rd32(t + 8);
    size_t hl = (size_t)(t[12] >> 4) * 4;
    r.flags = t[13];
    r.wnd = net_rd16(t + 14);
    r.optlen = hl - 20;
    for (size_t i = 20; i < hl;) { /* the options, as RFC 9293 3.1 lays them out; a malformed list fails the test */
        if (t[i] == 0)
            break;
        if (t[i] == 1) {
            i++;
            continue;
        }
        assert_true(i + 1 < hl && t[i + 1] >= 2 && i + t[i + 1] <= hl);
        if (t[i] == 2 && t[i + 1] == 4)
            r.mss = net_rd16(t + i + 2);
        if (t[i] == 4 && t[i + 1] == 2)
            r.sack_perm = true;
        if (t[i] == 5) {
            assert_true(t[i + 1] >= 10 && (t[i + 1] - 2) % 8 == 0);
            r.sack_blocks = (unsigned)(t[i + 1] - 2) / 8;
            r.sack_l = net_rd32(t + i + 2);
            r.sack_r = net_rd32(t + i + 6);
        }
        i += t[i + 1];
    }
    r.data = t + hl;
    r.dlen = tlen - hl;
    return r;
}

/* ---------------- TCP callbacks into the harness ---------------- */

static inline void t_on_connected(struct tcp_conn *c, void *user)
{
    (void)user;
    T.connected++;
    T.conn = c;
}

static inline void t_on_data(struct tcp_conn *c, void *user, const uint8_t *d, size_t n)
{
    (void)c;
    (void)user;
    assert_true(T.rx_len + n <= T_RX_MAX);
    memcpy(T.rx + T.rx_len, d, n);
    T.rx_len += n;
    T.data_calls++;
}

static inline void t_on_closed(struct tcp_conn *c, void *user)
{
    (void)c;
    (void)user;
    T.closed++;
}

static inline void t_on_error(struct tcp_conn *c, void *user, enum tcp_error e)
{
    (void)c;
    (void)user;
    T.errors++;
    T.last_err = e;
}

/* Bytes a receive offload consumed: '#' in place of each of them in T.rx, so that the order shows. */
static inline void t_on_skipped(struct tcp_conn *c, void *user, uint32_t seq, uint32_t n)
{
    (void)c;
    (void)user;
    assert_true(T.rx_len + n <= T_RX_MAX);
    memset(T.rx + T.rx_len, '#', n);
    T.rx_len += n;
    T.skip_calls++;
    T.skip_last_seq = seq;
}

#if NET_TCP_SKIP_HELD > 0
static const struct tcp_callbacks t_cbs = {t_on_connected, t_on_data, t_on_closed, t_on_error, t_on_skipped};
#else /* (the fuzzers build with the firmware's limits) */
static const struct tcp_callbacks t_cbs = {t_on_connected, t_on_data, t_on_closed, t_on_error};
#endif

static inline void t_input(const uint8_t *f, size_t len, uint64_t now) { net_input(&T.stack, f, len, now); }

#endif
