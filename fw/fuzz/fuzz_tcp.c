/* fuzz/fuzz_tcp.c - libFuzzer harness of the network receive path: Ethernet, ARP, IPv4, ICMP and TCP
 * (the files of net/) with one connection to the peer, as the firmware uses it (the firmware's limits: one connection,
 * 4 KiB send ring, 512-byte out-of-order hold). The harness builds the frames (tests/net_test_util.h) and computes
 * every checksum, so that fuzzer-chosen TCP headers and IPv4 fields reach TCP's state machine.
 * Input: byte 0 = the peer's MSS option and whether it answers the SYN; then records:
 *   segment [op][flags][seq delta i16 from rcv_nxt][ack delta i16 from snd_una][window u16][len u16 % 1461]
 *           [option byte count][options]: to our connection; the payload is the peer's stream at that sequence;
 *   frame   [op][fix checksums][len u16][bytes]: a raw Ethernet frame (our MAC prepended half of the time);
 *   time    [op][u16]: the clock moves on (ms) and the stack's timers run;
 *   owner   [op][what][n]: send, close, abort, reconnect, or hand sequence space to the hardware and take it back.
 * Checks: ASan/UBSan; every frame sent is 60..1514 bytes with valid IPv4 and TCP checksums; data is delivered to the
 * owner only in order, without gaps or repeats (the peer's byte at sequence s is pat(s), as in test_net_fuzz.c);
 * the send-side sequence bookkeeping stays ordered; every byte we send (first time or again) is the byte the owner or
 * the hardware wrote at that sequence number, and no ACK we send covers a byte the owner was not given. */
#include <stdbool.h>
#include <string.h>

#include "fuzz.h"

/* tests/net_test_util.h builds frames for cmocka tests: its assertions become the fuzzer's checks. */
#define assert_true(c) FZ_CHECK(c)
#define assert_int_equal(a, b) FZ_CHECK((a) == (b))
#define assert_memory_equal(a, b, n) FZ_CHECK(memcmp((a), (b), (n)) == 0)
#define assert_non_null(p) FZ_CHECK((p) != NULL)
#include "tests/net_test_util.h"

static uint8_t pat(uint32_t seq) { return (uint8_t)(seq * 2654435761u >> 24); }

static struct tcp_conn *conn;
static uint32_t expect_seq; /* the peer's sequence number of the next byte we should be given */
static bool established;

/* Our stream as the owner (tcp_send) and the hardware (tcp_adopt_sent) wrote it, by sequence number (the send ring
 * is 4 KiB, so 64 KiB of history holds everything that may still be sent). */
#define HIST 65536u
static uint8_t hist[HIST];
static uint32_t acked_hi; /* the highest ACK we sent on conn */
static bool acked_any;

/* A segment we send on conn: its payload is our stream at its sequence number, within what was written, and its
 * ACK acknowledges nothing the owner was not given (checked after each step: delivery may follow the ACK). */
static void check_our_segment(const uint8_t *ip)
{
    const uint8_t *t = ip + 20;
    size_t tl = net_rd16(ip + 2) - 20u, hl = (size_t)(t[12] >> 4) * 4;
    if (!conn || conn->state == TCP_CLOSED || net_rd16(t) != conn->local_port || net_rd16(t + 2) != conn->remote_port)
        return;
    FZ_CHECK(hl >= 20 && hl <= tl);
    uint32_t seq = net_rd32(t + 4);
    size_t dlen = tl - hl;
    if (dlen) {
        FZ_CHECK(!(t[13] & TCP_FLAG_SYN));
        FZ_CHECK(seq_leq(conn->iss + 1, seq) && seq_leq(seq + (uint32_t)dlen, conn->snd_end));
        for (size_t i = 0; i < dlen; i++) FZ_CHECK(t[hl + i] == hist[(seq + i) % HIST]);
    }
    if ((t[13] & TCP_FLAG_ACK) && established) {
        uint32_t ack = net_rd32(t + 8);
        if (!acked_any || seq_gt(ack, acked_hi)) acked_hi = ack;
        acked_any = true;
    }
}

static void fz_tx(void *ctx, const uint8_t *f, size_t len)
{
    FZ_CHECK(len >= ETH_FRAME_MIN && len <= ETH_FRAME_MAX);
    if (net_rd16(f + 12) != ETH_TYPE_IPV4) return;
    const uint8_t *ip = f + 14;
    FZ_CHECK(net_csum_fold(net_csum_add(0, ip, 20)) == 0);
    size_t tot = net_rd16(ip + 2);
    FZ_CHECK(tot >= 20 && 14 + tot <= len);
    if (ip[9] == IP_PROTO_TCP) {
        size_t tl = tot - 20;
        uint32_t sum = net_csum_pseudo(net_rd32(ip + 12), net_rd32(ip + 16), 6, (uint16_t)tl);
        FZ_CHECK(net_csum_fold(net_csum_add(sum, ip + 20, tl)) == 0);
        check_our_segment(ip);
    }
}

static uint32_t rng;
static uint32_t fz_rand(void *ctx)
{
    rng = rng * 1664525u + 1013904223u;
    return rng;
}

static const struct net_ops fz_ops = {fz_tx, fz_rand, NULL, NULL};

static struct net_stack S;

static void c_connected(struct tcp_conn *c, void *u)
{
    FZ_CHECK(c == conn);
    expect_seq = c->irs + 1;
    established = true;
    acked_any = false;
}

static void c_data(struct tcp_conn *c, void *u, const uint8_t *d, size_t n)
{
    FZ_CHECK(established && n > 0);
    for (size_t i = 0; i < n; i++) FZ_CHECK(d[i] == pat(expect_seq + (uint32_t)i));
    expect_seq += (uint32_t)n;
}

static void c_gone(struct tcp_conn *c)
{
    FZ_CHECK(c == conn);
    conn = NULL;
    established = false;
}
static void c_closed(struct tcp_conn *c, void *u) { c_gone(c); }
static void c_error(struct tcp_conn *c, void *u, enum tcp_error e)
{
    FZ_CHECK(e >= TCP_ERR_REFUSED && e <= TCP_ERR_UNREACHABLE);
    c_gone(c);
}

static const struct tcp_callbacks cbs = {c_connected, c_data, c_closed, c_error};

static void check_invariants(void)
{
    for (unsigned i = 0; i < NET_TCP_MAX_CONNS; i++) {
        const struct tcp_conn *c = &S.tcp[i];
        if (c->state == TCP_CLOSED || c->state == TCP_SYN_SENT) continue;
        FZ_CHECK(seq_leq(c->snd_una, c->snd_nxt));
        FZ_CHECK(seq_leq(c->snd_nxt, c->snd_end + 1));
        FZ_CHECK(seq_leq(c->snd_una, c->snd_end + 1));
        if (seq_leq(c->snd_una, c->snd_end)) FZ_CHECK(c->snd_end - c->snd_una <= NET_TCP_SNDBUF);
        if (!c->fin_sent) FZ_CHECK(seq_leq(c->snd_nxt, c->snd_end));
    }
}

static uint8_t F[ETH_FRAME_MAX + 64];
static uint8_t PAY[2 * NET_TCP_SNDBUF];
static uint64_t now;

/* A segment from the peer to conn with fuzzer-chosen header fields and options, valid checksums. */
static void peer_segment(fz_in_t *in)
{
    uint8_t flags = fz_u8(in);
    int16_t dseq = (int16_t)fz_u16(in), dack = (int16_t)fz_u16(in);
    uint16_t wnd = fz_u16(in);
    size_t dlen = fz_u16(in) % 1461u;
    const uint8_t *opt;
    size_t ol = fz_bytes(in, fz_u8(in) % 41u, &opt);
    if (!conn) return;
    uint32_t seq = (conn->state == TCP_SYN_SENT ? fz_rand(NULL) : conn->rcv_nxt) + (uint32_t)(int32_t)dseq;
    uint32_t ack = (conn->state == TCP_SYN_SENT ? conn->iss + 1 : conn->snd_una) + (uint32_t)(int32_t)dack;
    uint8_t t[20 + 40 + 1460];
    size_t hl = 20 + (ol + 3) / 4 * 4;
    net_wr16(t, conn->remote_port);
    net_wr16(t + 2, conn->local_port);
    net_wr32(t + 4, seq);
    net_wr32(t + 8, ack);
    t[12] = (uint8_t)((hl / 4) << 4);
    t[13] = flags;
    net_wr16(t + 14, wnd);
    net_wr16(t + 16, 0);
    net_wr16(t + 18, 0);
    memset(t + 20, 0, hl - 20);
    memcpy(t + 20, opt, ol);
    /* the payload is the peer's stream at seq (after a SYN, whose sequence number counts, at seq + 1) */
    uint32_t s0 = seq + ((flags & TCP_FLAG_SYN) ? 1u : 0u);
    for (size_t i = 0; i < dlen; i++) t[hl + i] = pat(s0 + (uint32_t)i);
    uint32_t sum = net_csum_pseudo(conn->remote_ip, T_OUR_IP, 6, (uint16_t)(hl + dlen));
    net_wr16(t + 16, net_csum_fold(net_csum_add(sum, t, hl + dlen)));
    size_t n = t_mk_ip(F, T_PEER_MAC, conn->remote_ip, T_OUR_IP, 6, 0x4000, NULL, 0, t, hl + dlen);
    net_input(&S, F, n, now);
}

/* Recomputes IPv4 and TCP/ICMP checksums of a raw frame, as far as its lengths allow. */
static void fix_checksums(uint8_t *f, size_t len)
{
    if (len < 34 || net_rd16(f + 12) != ETH_TYPE_IPV4) return;
    uint8_t *ip = f + 14;
    size_t ihl = (size_t)(ip[0] & 15) * 4, tot = net_rd16(ip + 2);
    if (ihl < 20 || 14 + ihl > len) return;
    net_wr16(ip + 10, 0);
    net_wr16(ip + 10, net_csum_fold(net_csum_add(0, ip, ihl)));
    if (tot < ihl || 14 + tot > len) return;
    uint8_t *l4 = ip + ihl;
    size_t l4len = tot - ihl;
    if (ip[9] == IP_PROTO_TCP && l4len >= 20) {
        net_wr16(l4 + 16, 0);
        uint32_t sum = net_csum_pseudo(net_rd32(ip + 12), net_rd32(ip + 16), 6, (uint16_t)l4len);
        net_wr16(l4 + 16, net_csum_fold(net_csum_add(sum, l4, l4len)));
    } else if (ip[9] == IP_PROTO_ICMP && l4len >= 8) {
        net_wr16(l4 + 2, 0);
        net_wr16(l4 + 2, net_csum_fold(net_csum_add(0, l4, l4len)));
    }
}

static void raw_frame(fz_in_t *in)
{
    uint8_t mode = fz_u8(in);
    const uint8_t *b;
    size_t off = (mode & 2) ? 6 : 0;
    size_t n = fz_bytes(in, fz_u16(in) % (ETH_FRAME_MAX + 1u - off), &b);
    if (off) memcpy(F, T_OUR_MAC, 6);
    memcpy(F + off, b, n);
    n += off;
    if (mode & 1) fix_checksums(F, n);
    net_input(&S, F, n, now);
}

static void record_at(uint32_t at, const uint8_t *d, size_t n)
{
    for (size_t i = 0; i < n; i++) hist[(at + i) % HIST] = d[i];
}


static void connect_peer(void)
{
    conn = tcp_connect(&S, T_PEER_IP, 9876, &cbs, NULL);
    established = false;
}

static void owner(fz_in_t *in)
{
    uint8_t what = fz_u8(in);
    size_t n = fz_u16(in) % (NET_TCP_SNDBUF + 1u);
    const uint8_t *src = PAY + (what >> 3) * 97u; /* a different part of PAY each time */
    uint32_t seq;
    if (!conn) {
        if (what % 8 == 3) connect_peer();
        return;
    }
    switch (what % 8) {
    case 0: case 1: /* written into the history first: tcp_send sends at once, at snd_end */
        record_at(conn->snd_end, src, n);
        FZ_CHECK(tcp_send(conn, src, n) <= n);
        break;
    case 2: tcp_close(conn); break;
    case 3: tcp_abort(conn); conn = NULL; established = false; break;
    case 4:
        if (tcp_hw_arm(conn, 1 + n % 600, &seq)) {
            if (what & 8) {
                record_at(seq, src, 1 + n % 300);
                (void)tcp_adopt_sent(conn, seq, src, 1 + n % 300);
            }
            if (what & 16) (void)tcp_hw_extend(conn, n % 64);
            tcp_hw_disarm(conn);
        }
        break;
    default: (void)tcp_send_space(conn); (void)tcp_send_unacked(conn); (void)tcp_send_unsent(conn); break;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in_t in = {data, size};
    uint8_t mode = fz_u8(&in);
    struct net_config cfg = {T_OUR_IP, T_MASK, T_GW_IP};
    memset(&S, 0, sizeof S);
    rng = 12345;
    now = 1;
    for (size_t i = 0; i < sizeof PAY; i++) PAY[i] = (uint8_t)i;
    net_init(&S, T_OUR_MAC, &cfg, &fz_ops, NULL, now);
    arp_cache_put(&S, T_PEER_IP, T_PEER_MAC);
    connect_peer();
    FZ_CHECK(conn != NULL);
    if (!(mode & 1)) { /* the peer answers the SYN */
        size_t n = t_mk_tcp_from(F, T_PEER_IP, 9876, conn->local_port, 0x10000000u * (mode >> 4), conn->iss + 1,
                                 TCP_FLAG_SYN | TCP_FLAG_ACK, 65535, (mode & 2) ? 0 : 536u + (mode & 12) * 64u, NULL, 0);
        net_input(&S, F, n, now);
        FZ_CHECK(established);
    }
    for (unsigned steps = 0; steps < 2048 && in.n; steps++) {
        uint8_t op = fz_u8(&in);
        switch (op % 8) {
        case 0: case 1: case 2: case 3: peer_segment(&in); break;
        case 4: raw_frame(&in); break;
        case 5: now += fz_u16(&in); net_poll(&S, now); break;
        default: owner(&in); break;
        }
        check_invariants();
        if (conn && established && acked_any) FZ_CHECK(seq_leq(acked_hi, expect_seq + 1)); /* + 1: the peer's FIN */
        if (conn && tcp_get_state(conn) == TCP_CLOSED) {
            conn = NULL;
            established = false;
        }
    }
    return 0;
}
