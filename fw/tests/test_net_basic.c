/* tests/test_net_basic.c - host tests of Ethernet, ARP, IPv4, ICMP and counters.
 * Input: hand-built frames and fake time. Output: cmocka assertions on the exact bytes
 * the stack sends and on its counters. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "net_test_util.h"

static uint8_t F[ETH_FRAME_MAX];

static int setup(void **state)
{
    (void)state;
    t_setup(1000);
    return 0;
}

/* ---------------- ARP ---------------- */

static void test_arp_request_answered(void **state)
{
    (void)state;
    size_t n = t_mk_arp(F, eth_broadcast_addr, ARP_OP_REQUEST, T_PEER_MAC, T_PEER_IP, NULL, T_OUR_IP);
    t_input(F, n, 1000);
    assert_int_equal(T.ncap, 1);
    assert_int_equal(T.cap_len[0], 60);
    static const uint8_t expect[42] = {
        0x02, 0x54, 0x46, 0x00, 0x00, 0x01, 0x02, 0x54, 0x46, 0x00, 0x00, 0x02, 0x08, 0x06,
        0x00, 0x01, 0x08, 0x00, 0x06, 0x04, 0x00, 0x02,
        0x02, 0x54, 0x46, 0x00, 0x00, 0x02, 10, 77, 0, 2,
        0x02, 0x54, 0x46, 0x00, 0x00, 0x01, 10, 77, 0, 1};
    assert_memory_equal(T.cap[0], expect, sizeof(expect));
    for (size_t i = 42; i < 60; i++)
        assert_int_equal(T.cap[0][i], 0);
    const struct net_counters *c = net_get_counters(&T.stack);
    assert_int_equal(c->arp_rx, 1);
    assert_int_equal(c->arp_req_in, 1);
    assert_int_equal(c->arp_reply_out, 1);
    assert_int_equal(c->eth_tx, 1);
    /* the requester was learned (RFC 826 merge) */
    uint8_t mac[6];
    assert_true(arp_lookup(&T.stack, T_PEER_IP, mac));
    assert_memory_equal(mac, T_PEER_MAC, 6);
}

static void test_arp_request_for_other_ignored(void **state)
{
    (void)state;
    size_t n = t_mk_arp(F, eth_broadcast_addr, ARP_OP_REQUEST, T_PEER_MAC, T_PEER_IP, NULL, NET_IP4(10, 77, 0, 3));
    t_input(F, n, 1000);
    assert_int_equal(T.ncap, 0);
    assert_int_equal(net_get_counters(&T.stack)->arp_req_other, 1);
    assert_false(arp_lookup(&T.stack, T_PEER_IP, NULL));
}

static void test_arp_malformed(void **state)
{
    (void)state;
    size_t n = t_mk_arp(F, eth_broadcast_addr, ARP_OP_REQUEST, T_PEER_MAC, T_PEER_IP, NULL, T_OUR_IP);
    F[14 + 5] = 16;                       /* protocol address length 16: not IPv4 */
    t_input(F, n, 1000);
    t_input(F, 14 + 20, 1000);            /* truncated */
    n = t_mk_arp(F, eth_broadcast_addr, 3, T_PEER_MAC, T_PEER_IP, NULL, T_OUR_IP);   /* op 3 */
    t_input(F, n, 1000);
    assert_int_equal(T.ncap, 0);
    assert_int_equal(net_get_counters(&T.stack)->arp_bad, 3);
}

static void check_arp_request(unsigned i, uint32_t target)
{
    const uint8_t *f = T.cap[i];
    assert_memory_equal(f, eth_broadcast_addr, 6);
    assert_memory_equal(f + 6, T_OUR_MAC, 6);
    assert_int_equal(net_rd16(f + 12), ETH_TYPE_ARP);
    assert_int_equal(net_rd16(f + 14 + 6), ARP_OP_REQUEST);
    assert_memory_equal(f + 14 + 8, T_OUR_MAC, 6);
    assert_int_equal(net_rd32(f + 14 + 14), T_OUR_IP);
    static const uint8_t zero[6] = {0};
    assert_memory_equal(f + 14 + 18, zero, 6);
    assert_int_equal(net_rd32(f + 14 + 24), target);
}

static void test_arp_resolve_retries_then_fails(void **state)
{
    (void)state;
    uint8_t mac[6];
    assert_int_equal(arp_resolve(&T.stack, T_PEER_IP, mac), ARP_IN_PROGRESS);
    assert_int_equal(T.ncap, 1);
    check_arp_request(0, T_PEER_IP);
    /* asking again while pending sends nothing more */
    assert_int_equal(arp_resolve(&T.stack, T_PEER_IP, mac), ARP_IN_PROGRESS);
    assert_int_equal(T.ncap, 1);
    net_poll(&T.stack, 1999);
    assert_int_equal(T.ncap, 1);
    net_poll(&T.stack, 2000);
    assert_int_equal(T.ncap, 2);
    check_arp_request(1, T_PEER_IP);
    net_poll(&T.stack, 2999);
    assert_int_equal(T.ncap, 2);
    net_poll(&T.stack, 3000);
    assert_int_equal(T.ncap, 3);
    check_arp_request(2, T_PEER_IP);
    assert_int_equal(T.arp_events, 0);
    net_poll(&T.stack, 3999);
    assert_int_equal(T.arp_events, 0);
    net_poll(&T.stack, 4000);         /* 3 tries, 1 s apart, then failure */
    assert_int_equal(T.ncap, 3);
    assert_int_equal(T.arp_events, 1);
    assert_int_equal(T.arp_last_ip, T_PEER_IP);
    assert_false(T.arp_last_ok);
    const struct net_counters *c = net_get_counters(&T.stack);
    assert_int_equal(c->arp_req_out, 3);
    assert_int_equal(c->arp_resolve_fail, 1);
    net_poll(&T.stack, 10000);
    assert_int_equal(T.ncap, 3);
    assert_int_equal(T.arp_events, 1);
}

static void test_arp_resolve_answered(void **state)
{
    (void)state;
    uint8_t mac[6];
    assert_int_equal(arp_resolve(&T.stack, T_PEER_IP, mac), ARP_IN_PROGRESS);
    net_poll(&T.stack, 2000);         /* second try */
    assert_int_equal(T.ncap, 2);
    size_t n = t_mk_arp(F, T_OUR_MAC, ARP_OP_REPLY, T_PEER_MAC, T_PEER_IP, T_OUR_MAC, T_OUR_IP);
    t_input(F, n, 2100);
    assert_int_equal(T.arp_events, 1);
    assert_true(T.arp_last_ok);
    assert_int_equal(T.arp_last_ip, T_PEER_IP);
    assert_int_equal(net_get_counters(&T.stack)->arp_reply_in, 1);
    memset(mac, 0, 6);
    assert_int_equal(arp_resolve(&T.stack, T_PEER_IP, mac), ARP_FOUND);
    assert_memory_equal(mac, T_PEER_MAC, 6);
    net_poll(&T.stack, 10000);        /* no more retries */
    assert_int_equal(T.ncap, 2);
    assert_int_equal(T.arp_events, 1);
}

static void test_arp_learning_rules(void **state)
{
    (void)state;
    size_t n = t_mk_arp(F, T_OUR_MAC, ARP_OP_REPLY, T_GW_MAC, T_GW_IP, T_OUR_MAC, T_OUR_IP);
    t_input(F, n, 1000);
    /* a reply to us that nobody asked for is still "for us": RFC 826 adds it */
    assert_true(arp_lookup(&T.stack, T_GW_IP, NULL));
    /* a broadcast gratuitous ARP from a host we don't know is not added */
    n = t_mk_arp(F, eth_broadcast_addr, ARP_OP_REQUEST, T_PEER_MAC, T_PEER_IP, NULL, T_PEER_IP);
    t_input(F, n, 1000);
    assert_false(arp_lookup(&T.stack, T_PEER_IP, NULL));
}

static void test_arp_aging_refresh(void **state)
{
    (void)state;
    uint8_t mac[6];
    arp_cache_put(&T.stack, T_PEER_IP, T_PEER_MAC);
    net_poll(&T.stack, 1000 + NET_ARP_TTL_MS - 1);
    assert_int_equal(arp_resolve(&T.stack, T_PEER_IP, mac), ARP_FOUND);
    assert_int_equal(T.ncap, 0);
    net_poll(&T.stack, 1000 + NET_ARP_TTL_MS);
    /* stale: still used, but a refresh request goes out */
    assert_int_equal(arp_resolve(&T.stack, T_PEER_IP, mac), ARP_FOUND);
    assert_memory_equal(mac, T_PEER_MAC, 6);
    assert_int_equal(T.ncap, 1);
    check_arp_request(0, T_PEER_IP);
    /* nobody answers: the entry goes away after the last try */
    net_poll(&T.stack, 1000 + NET_ARP_TTL_MS + 1000);
    net_poll(&T.stack, 1000 + NET_ARP_TTL_MS + 2000);
    assert_int_equal(T.ncap, 3);
    assert_true(arp_lookup(&T.stack, T_PEER_IP, NULL));
    net_poll(&T.stack, 1000 + NET_ARP_TTL_MS + 3000);
    assert_int_equal(T.ncap, 3);
    assert_false(arp_lookup(&T.stack, T_PEER_IP, NULL));
}

static void test_arp_cache_full_replaces_oldest(void **state)
{
    (void)state;
    uint8_t mac[6] = {2, 0, 0, 0, 0, 0};
    for (unsigned i = 0; i < NET_ARP_ENTRIES; i++) {
        mac[5] = (uint8_t)i;
        net_poll(&T.stack, 1000 + i);
        arp_cache_put(&T.stack, NET_IP4(10, 77, 0, 100 + i), mac);
    }
    mac[5] = 0xee;
    arp_cache_put(&T.stack, NET_IP4(10, 77, 0, 99), mac);
    assert_false(arp_lookup(&T.stack, NET_IP4(10, 77, 0, 100), NULL));   /* oldest gone */
    assert_true(arp_lookup(&T.stack, NET_IP4(10, 77, 0, 101), NULL));
    assert_true(arp_lookup(&T.stack, NET_IP4(10, 77, 0, 99), mac));
    assert_int_equal(mac[5], 0xee);
}

static void test_gratuitous_arp(void **state)
{
    (void)state;
    arp_announce(&T.stack);
    assert_int_equal(T.ncap, 1);
    check_arp_request(0, T_OUR_IP);
}

/* ---------------- Ethernet ---------------- */

static void test_eth_filter(void **state)
{
    (void)state;
    static const uint8_t other[6] = {0x02, 0, 0, 0, 0, 0x99};
    static const uint8_t mcast[6] = {0x01, 0x00, 0x5e, 0, 0, 1};
    size_t n = t_mk_arp(F, other, ARP_OP_REQUEST, T_PEER_MAC, T_PEER_IP, NULL, T_OUR_IP);
    t_input(F, n, 1000);
    n = t_mk_arp(F, mcast, ARP_OP_REQUEST, T_PEER_MAC, T_PEER_IP, NULL, T_OUR_IP);
    t_input(F, n, 1000);
    t_input(F, 13, 1000);
    t_input(NULL, 0, 1000);
    n = t_mk_arp(F, T_OUR_MAC, ARP_OP_REQUEST, T_PEER_MAC, T_PEER_IP, NULL, T_OUR_IP);
    net_wr16(F + 12, 0x86dd);             /* IPv6 */
    t_input(F, n, 1000);
    const struct net_counters *c = net_get_counters(&T.stack);
    assert_int_equal(T.ncap, 0);
    assert_int_equal(c->eth_rx, 5);
    assert_int_equal(c->eth_not_for_us, 2);
    assert_int_equal(c->eth_runt, 2);
    assert_int_equal(c->eth_unknown_type, 1);
    /* a unicast request to our MAC is answered */
    n = t_mk_arp(F, T_OUR_MAC, ARP_OP_REQUEST, T_PEER_MAC, T_PEER_IP, NULL, T_OUR_IP);
    t_input(F, n, 1000);
    assert_int_equal(T.ncap, 1);
}

/* ---------------- ICMP / IPv4 ---------------- */

static void check_echo_reply(unsigned i, uint16_t id, uint16_t seq, const uint8_t *data, size_t dlen)
{
    const uint8_t *ip = t_ip_of(i, 1);
    assert_memory_equal(T.cap[i], T_PEER_MAC, 6);      /* back to the requester's MAC */
    assert_int_equal(net_rd32(ip + 16), T_PEER_IP);
    assert_int_equal(net_rd16(ip + 2), 20 + 8 + dlen);
    const uint8_t *m = ip + 20;
    assert_int_equal(m[0], 0);
    assert_int_equal(m[1], 0);
    assert_int_equal(net_rd16(m + 4), id);
    assert_int_equal(net_rd16(m + 6), seq);
    assert_memory_equal(m + 8, data, dlen);
    assert_int_equal(net_csum_fold(net_csum_add(0, m, 8 + dlen)), 0);
}

static void test_icmp_echo(void **state)
{
    (void)state;
    uint8_t data[56];
    for (unsigned i = 0; i < sizeof(data); i++)
        data[i] = (uint8_t)(i * 7 + 1);
    size_t n = t_mk_echo(F, 0xbeef, 3, data, sizeof(data));
    t_input(F, n, 1000);
    assert_int_equal(T.ncap, 1);
    assert_int_equal(T.cap_len[0], 14 + 20 + 8 + 56);
    check_echo_reply(0, 0xbeef, 3, data, sizeof(data));
    /* exact ICMP checksum: the request's plus 0x0800 (type 8 -> 0), RFC 1624 */
    uint16_t req_ck = net_rd16(F + 14 + 20 + 2);
    uint32_t expect = (uint32_t)req_ck + 0x0800u;
    expect = (expect & 0xFFFF) + (expect >> 16);
    assert_int_equal(net_rd16(T.cap[0] + 14 + 20 + 2), expect);
    const struct net_counters *c = net_get_counters(&T.stack);
    assert_int_equal(c->icmp_echo_req, 1);
    assert_int_equal(c->icmp_echo_reply, 1);
    assert_int_equal(c->ip_tx, 1);
}

/* net_ops.tx_buffer (the firmware's MAC transmit buffer): IPv4 frames are built in the buffer it gives and tx gets
 * that very buffer; ARP frames still come from the stack's own. */
static uint8_t ext_buf[ETH_FRAME_MAX];
static unsigned ext_calls, ext_frames;
static uint8_t *ext_tx_buffer(void *ctx)
{
    (void)ctx;
    ext_calls++;
    memset(ext_buf, 0xEE, sizeof ext_buf); /* what was there before must not leak into the frame */
    return ext_buf;
}
static void ext_tx(void *ctx, const uint8_t *frame, size_t len)
{
    if (frame == ext_buf) ext_frames++;
    t_tx(ctx, frame, len);
}
static const struct net_ops ext_ops = {ext_tx, t_rand, t_arp_result, ext_tx_buffer};

static void test_ipv4_built_in_the_tx_buffer_given(void **state)
{
    (void)state;
    struct net_config cfg = {T_OUR_IP, T_MASK, T_GW_IP};
    net_init(&T.stack, T_OUR_MAC, &cfg, &ext_ops, &T, 1000);
    ext_calls = ext_frames = 0;
    uint8_t data[5] = {9, 8, 7, 6, 5};
    size_t n = t_mk_echo(F, 0x1234, 9, data, sizeof(data));
    t_input(F, n, 1000);
    assert_int_equal(T.ncap, 1);
    assert_int_equal(ext_calls, 1);
    assert_int_equal(ext_frames, 1);
    check_echo_reply(0, 0x1234, 9, data, sizeof(data));
    assert_int_equal(T.cap[0][14 + 20 + 8 + 5], 0); /* padded with zeros in that buffer, not its old bytes */
    /* an ARP request (a TCP connect to an unresolved peer) comes from the stack's own buffer */
    T.ncap = 0;
    struct tcp_callbacks cb = {0};
    assert_non_null(tcp_connect(&T.stack, T_PEER_IP, 9876, &cb, NULL));
    assert_int_equal(T.ncap, 1);
    assert_int_equal(net_rd16(T.cap[0] + 12), ETH_TYPE_ARP);
    assert_int_equal(ext_frames, 1);
}

static void test_icmp_echo_padded_frame(void **state)
{
    (void)state;
    const uint8_t data[4] = {1, 2, 3, 4};
    size_t n = t_mk_echo(F, 1, 1, data, 4);   /* 46 bytes, padded to 60 */
    assert_int_equal(n, 60);
    F[50] = 0xAA;                             /* garbage in the padding must be ignored */
    t_input(F, n, 1000);
    assert_int_equal(T.ncap, 1);
    check_echo_reply(0, 1, 1, data, 4);
    assert_int_equal(T.cap_len[0], 60);
    assert_int_equal(T.cap[0][14 + 20 + 12], 0);   /* our padding is zero */
}

static void test_icmp_bad_checksum_and_other_types(void **state)
{
    (void)state;
    const uint8_t data[8] = {0};
    size_t n = t_mk_echo(F, 1, 1, data, 8);
    F[14 + 20 + 9] ^= 1;                      /* payload bit flip: ICMP checksum now wrong */
    t_input(F, n, 1000);
    uint8_t m[8] = {13, 0, 0, 0, 0, 0, 0, 0};  /* timestamp request: not handled */
    net_wr16(m + 2, net_csum_fold(net_csum_add(0, m, 8)));
    n = t_mk_ip(F, T_PEER_MAC, T_PEER_IP, T_OUR_IP, 1, 0, NULL, 0, m, 8);
    t_input(F, n, 1000);
    assert_int_equal(T.ncap, 0);
    const struct net_counters *c = net_get_counters(&T.stack);
    assert_int_equal(c->icmp_bad, 1);
    assert_int_equal(c->icmp_other, 1);
}

static void test_ipv4_bad_checksum(void **state)
{
    (void)state;
    const uint8_t data[8] = {9, 9, 9, 9, 9, 9, 9, 9};
    size_t n = t_mk_echo(F, 7, 7, data, 8);
    F[14 + 10] ^= 0x40;
    t_input(F, n, 1000);
    assert_int_equal(T.ncap, 0);
    const struct net_counters *c = net_get_counters(&T.stack);
    assert_int_equal(c->ip_rx, 1);
    assert_int_equal(c->ip_bad_checksum, 1);
    assert_int_equal(c->icmp_rx, 0);
}

static void test_ipv4_fragments_dropped(void **state)
{
    (void)state;
    uint8_t m[16] = {8, 0};
    net_wr16(m + 2, net_csum_fold(net_csum_add(0, m, 16)));
    size_t n = t_mk_ip(F, T_PEER_MAC, T_PEER_IP, T_OUR_IP, 1, 0x2000, NULL, 0, m, 16);   /* MF */
    t_input(F, n, 1000);
    n = t_mk_ip(F, T_PEER_MAC, T_PEER_IP, T_OUR_IP, 1, 0x0003, NULL, 0, m, 16);          /* offset 24 */
    t_input(F, n, 1000);
    n = t_mk_ip(F, T_PEER_MAC, T_PEER_IP, T_OUR_IP, 1, 0x4000, NULL, 0, m, 16);          /* DF only: fine */
    t_input(F, n, 1000);
    assert_int_equal(T.ncap, 1);
    assert_int_equal(net_get_counters(&T.stack)->ip_fragment, 2);
    assert_int_equal(net_get_counters(&T.stack)->icmp_echo_reply, 1);
}

static void test_ipv4_options_skipped(void **state)
{
    (void)state;
    uint8_t m[8 + 5] = {8, 0, 0, 0, 0x12, 0x34, 0, 9, 'h', 'e', 'l', 'l', 'o'};
    net_wr16(m + 2, net_csum_fold(net_csum_add(0, m, sizeof(m))));
    const uint8_t opt[8] = {0x01, 0x01, 0x01, 0x94, 0x04, 0x00, 0x00, 0x00};   /* NOPs, Router Alert, EOL */
    size_t n = t_mk_ip(F, T_PEER_MAC, T_PEER_IP, T_OUR_IP, 1, 0, opt, sizeof(opt), m, sizeof(m));
    t_input(F, n, 1000);
    assert_int_equal(T.ncap, 1);
    check_echo_reply(0, 0x1234, 9, (const uint8_t *)"hello", 5);
    assert_int_equal(net_get_counters(&T.stack)->ip_options, 1);
}

static void test_ipv4_other_drops(void **state)
{
    (void)state;
    uint8_t m[8] = {8, 0};
    net_wr16(m + 2, net_csum_fold(net_csum_add(0, m, 8)));
    size_t n = t_mk_ip(F, T_PEER_MAC, T_PEER_IP, NET_IP4(10, 77, 0, 3), 1, 0, NULL, 0, m, 8);
    t_input(F, n, 1000);                                   /* not for us */
    n = t_mk_ip(F, T_PEER_MAC, T_PEER_IP, NET_IP4(10, 77, 0, 255), 1, 0, NULL, 0, m, 8);
    t_input(F, n, 1000);                                   /* subnet broadcast: not answered */
    n = t_mk_ip(F, T_PEER_MAC, T_PEER_IP, T_OUR_IP, 17, 0, NULL, 0, m, 8);
    t_input(F, n, 1000);                                   /* UDP: unknown protocol */
    n = t_mk_ip(F, T_PEER_MAC, T_PEER_IP, T_OUR_IP, 1, 0, NULL, 0, m, 8);
    F[14] = 0x65;                                          /* version 6 */
    t_input(F, n, 1000);
    n = t_mk_ip(F, T_PEER_MAC, T_PEER_IP, T_OUR_IP, 1, 0, NULL, 0, m, 8);
    net_wr16(F + 14 + 2, 200);                             /* total length beyond the frame */
    t_input(F, n, 1000);
    n = t_mk_ip(F, T_PEER_MAC, T_PEER_IP, T_OUR_IP, 1, 0, NULL, 0, m, 8);
    F[14] = 0x44;                                          /* IHL 4 */
    t_input(F, n, 1000);
    const struct net_counters *c = net_get_counters(&T.stack);
    assert_int_equal(T.ncap, 0);
    assert_int_equal(c->ip_not_for_us, 2);
    assert_int_equal(c->ip_unknown_proto, 1);
    assert_int_equal(c->ip_bad_header, 3);
}

static void test_next_hop_and_runtime_config(void **state)
{
    (void)state;
    assert_int_equal(ipv4_next_hop(&T.stack, T_PEER_IP), T_PEER_IP);
    assert_int_equal(ipv4_next_hop(&T.stack, NET_IP4(192, 168, 1, 5)), T_GW_IP);
    /* sending off-subnet ARPs for the gateway, not the destination */
    uint8_t *p = ipv4_tx_payload(&T.stack);
    memset(p, 0, 8);
    assert_false(ipv4_send(&T.stack, NET_IP4(192, 168, 1, 5), 1, 8));
    assert_int_equal(T.ncap, 1);
    check_arp_request(0, T_GW_IP);
    /* once the gateway is known the packet goes to its MAC */
    arp_cache_put(&T.stack, T_GW_IP, T_GW_MAC);
    assert_true(ipv4_send(&T.stack, NET_IP4(192, 168, 1, 5), 1, 8));
    assert_int_equal(T.ncap, 2);
    assert_memory_equal(T.cap[1], T_GW_MAC, 6);
    const uint8_t *ip = t_ip_of(1, 1);
    assert_int_equal(net_rd32(ip + 16), NET_IP4(192, 168, 1, 5));
    uint16_t id1 = net_rd16(ip + 4);
    assert_true(ipv4_send(&T.stack, NET_IP4(192, 168, 1, 5), 1, 8));
    assert_int_equal(net_rd16(T.cap[2] + 14 + 4), (uint16_t)(id1 + 1));
    /* a wider netmask at run time makes it on-link */
    struct net_config cfg = {T_OUR_IP, NET_IP4(0, 0, 0, 0), 0};
    net_set_config(&T.stack, &cfg);
    assert_int_equal(ipv4_next_hop(&T.stack, NET_IP4(192, 168, 1, 5)), NET_IP4(192, 168, 1, 5));
    cfg.netmask = T_MASK;
    net_set_config(&T.stack, &cfg);
    assert_int_equal(ipv4_next_hop(&T.stack, NET_IP4(192, 168, 1, 5)), 0);   /* no gateway */
    assert_false(ipv4_send(&T.stack, NET_IP4(192, 168, 1, 5), 1, 8));
    assert_int_equal(T.ncap, 3);   /* nothing sent, no ARP for 0.0.0.0 */
    /* too big */
    assert_false(ipv4_send_to_mac(&T.stack, T_PEER_MAC, T_PEER_IP, 1, IPV4_PAYLOAD_MAX + 1));
    assert_int_equal(net_get_counters(&T.stack)->ip_tx_too_big, 1);
}

static void test_no_address_answers_nothing(void **state)
{
    (void)state;
    struct net_config cfg = {0, 0, 0};
    net_set_config(&T.stack, &cfg);
    size_t n = t_mk_arp(F, eth_broadcast_addr, ARP_OP_REQUEST, T_PEER_MAC, T_PEER_IP, NULL, 0);
    t_input(F, n, 1000);
    const uint8_t data[4] = {0};
    n = t_mk_echo(F, 1, 1, data, 4);
    t_input(F, n, 1000);
    assert_int_equal(T.ncap, 0);
    assert_null(tcp_connect(&T.stack, T_PEER_IP, 9000, &t_cbs, NULL));
}

static void test_counter_table(void **state)
{
    (void)state;
    assert_string_equal(net_counter_name(NET_CTR_ip_bad_checksum), "ip_bad_checksum");
    assert_string_equal(net_counter_name(0), "eth_rx");
    assert_null(net_counter_name(NET_COUNTER_COUNT));
    assert_non_null(net_counter_desc(NET_COUNTER_COUNT - 1));
    const uint8_t data[4] = {0};
    size_t n = t_mk_echo(F, 1, 1, data, 4);
    F[14 + 10] ^= 1;
    t_input(F, n, 1000);
    const struct net_counters *c = net_get_counters(&T.stack);
    assert_int_equal(net_counter_get(c, NET_CTR_ip_bad_checksum), 1);
    assert_int_equal(net_counter_get(c, NET_CTR_eth_rx), 1);
    assert_int_equal(net_counter_get(c, NET_COUNTER_COUNT), 0);
    assert_int_equal(sizeof(struct net_counters), NET_COUNTER_COUNT * sizeof(uint32_t));
}

static void test_checksum_odd_and_known(void **state)
{
    (void)state;
    /* RFC 1071 example: 00 01 f2 03 f4 f5 f6 f7 -> sum 0xddf2, checksum 0x220d */
    const uint8_t d[8] = {0x00, 0x01, 0xf2, 0x03, 0xf4, 0xf5, 0xf6, 0xf7};
    assert_int_equal(net_csum_fold(net_csum_add(0, d, 8)), 0x220d);
    const uint8_t o[3] = {0x12, 0x34, 0x56};
    assert_int_equal(net_csum_fold(net_csum_add(0, o, 3)), (uint16_t)~(0x1234 + 0x5600));
    assert_true(seq_lt(0xFFFFFFF0u, 0x10));
    assert_true(seq_gt(0x10, 0xFFFFFFF0u));
    assert_true(seq_leq(5, 5));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_arp_request_answered, setup),
        cmocka_unit_test_setup(test_arp_request_for_other_ignored, setup),
        cmocka_unit_test_setup(test_arp_malformed, setup),
        cmocka_unit_test_setup(test_arp_resolve_retries_then_fails, setup),
        cmocka_unit_test_setup(test_arp_resolve_answered, setup),
        cmocka_unit_test_setup(test_arp_learning_rules, setup),
        cmocka_unit_test_setup(test_arp_aging_refresh, setup),
        cmocka_unit_test_setup(test_arp_cache_full_replaces_oldest, setup),
        cmocka_unit_test_setup(test_gratuitous_arp, setup),
        cmocka_unit_test_setup(test_eth_filter, setup),
        cmocka_unit_test_setup(test_icmp_echo, setup),
        cmocka_unit_test_setup(test_ipv4_built_in_the_tx_buffer_given, setup),
        cmocka_unit_test_setup(test_icmp_echo_padded_frame, setup),
        cmocka_unit_test_setup(test_icmp_bad_checksum_and_other_types, setup),
        cmocka_unit_test_setup(test_ipv4_bad_checksum, setup),
        cmocka_unit_test_setup(test_ipv4_fragments_dropped, setup),
        cmocka_unit_test_setup(test_ipv4_options_skipped, setup),
        cmocka_unit_test_setup(test_ipv4_other_drops, setup),
        cmocka_unit_test_setup(test_next_hop_and_runtime_config, setup),
        cmocka_unit_test_setup(test_no_address_answers_nothing, setup),
        cmocka_unit_test_setup(test_counter_table, setup),
        cmocka_unit_test_setup(test_checksum_odd_and_known, setup),
    };
    return cmocka_run_group_tests_name("net_basic", tests, NULL, NULL);
}
