/* tests/test_net_tcp.c - host tests of the TCP client.
 * Input: hand-built segments from a simulated peer, fake time driving the timers.
 * Output: cmocka assertions on every field of the segments the stack sends, on the
 * data delivered to the owner and on the callbacks and counters. */
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>
#include "net_test_util.h"

#define PORT 9000
#define PISS 0x70000000u      /* peer's ISN */

static uint8_t F[ETH_FRAME_MAX];
static uint32_t ISS;          /* our ISN, from the SYN */
static uint16_t LPORT;        /* our source port */
static uint32_t PSEQ;         /* next sequence number the peer sends */
static uint64_t NOW;
static bool PEER_SACK;        /* the peer's SYN-ACK carries SACK-permitted (open_conn) */

static int setup(void **state)
{
    (void)state;
    NOW = 1000;
    PEER_SACK = false;
    t_setup(NOW);
    return 0;
}

/* Peer -> us segment on the test connection. */
static void peer(uint32_t seq, uint32_t ack, uint8_t flags, uint16_t wnd, const void *data, size_t dlen)
{
    size_t n = t_mk_tcp_from(F, T_PEER_IP, PORT, LPORT, seq, ack, flags, wnd, 0, data, dlen);
    t_input(F, n, NOW);
}

static void poll_at(uint64_t t)
{
    NOW = t;
    net_poll(&T.stack, NOW);
}

static void check_seg(unsigned i, uint32_t seq, uint32_t ack, uint8_t flags, size_t dlen)
{
    struct t_tcp s = t_tcp_of(i);
    assert_memory_equal(s.eth_dst, T_PEER_MAC, 6);
    assert_int_equal(s.dst, T_PEER_IP);
    assert_int_equal(s.sport, LPORT);
    assert_int_equal(s.dport, PORT);
    assert_int_equal(s.seq, seq);
    assert_int_equal(s.ack, ack);
    assert_int_equal(s.flags, flags);
    assert_int_equal(s.dlen, dlen);
    if (!(flags & TCP_FLAG_RST))
        assert_int_equal(s.wnd, NET_TCP_RCV_WND);
}

/* Opens the test connection: SYN, SYN-ACK (after rtt_ms), ACK. */
static struct tcp_conn *open_conn_rtt(uint16_t peer_mss, uint16_t peer_wnd, unsigned rtt_ms)
{
    arp_cache_put(&T.stack, T_PEER_IP, T_PEER_MAC);
    struct tcp_conn *c = tcp_connect(&T.stack, T_PEER_IP, PORT, &t_cbs, NULL);
    assert_non_null(c);
    assert_int_equal(T.ncap, 1);
    struct t_tcp s = t_tcp_of(0);
    ISS = s.seq;
    LPORT = s.sport;
    assert_true(LPORT >= NET_TCP_PORT_MIN);
    assert_int_equal(s.dport, PORT);
    assert_int_equal(s.flags, TCP_FLAG_SYN);
    assert_int_equal(s.ack, 0);
    assert_int_equal(s.mss, 1460);
    assert_int_equal(s.sack_perm, NET_TCP_SACK != 0);
    assert_int_equal(s.wnd, NET_TCP_RCV_WND);
    assert_int_equal(s.dlen, 0);
    assert_int_equal(tcp_get_state(c), TCP_SYN_SENT);
    NOW += rtt_ms;
    /* Linux's SYN-ACK lays its options out this way: MSS, then SACK-permitted behind two NOPs */
    const uint8_t opts[8] = {2, 4, (uint8_t)(peer_mss >> 8), (uint8_t)peer_mss, 1, 1, 4, 2};
    size_t n = t_mk_tcp_opts(F, T_PEER_IP, PORT, LPORT, PISS, ISS + 1, TCP_FLAG_SYN | TCP_FLAG_ACK, peer_wnd,
                             peer_mss ? opts : opts + 4, (peer_mss ? 4u : 0u) + (PEER_SACK ? 4u : 0u), NULL, 0);
    t_input(F, n, NOW);
    PSEQ = PISS + 1;
    assert_int_equal(T.ncap, 2);
    check_seg(1, ISS + 1, PSEQ, TCP_FLAG_ACK, 0);
    assert_int_equal(T.connected, 1);
    assert_ptr_equal(T.conn, c);
    assert_int_equal(tcp_get_state(c), TCP_ESTABLISHED);
    t_clear();
    return c;
}

static struct tcp_conn *open_conn(uint16_t peer_mss, uint16_t peer_wnd) { return open_conn_rtt(peer_mss, peer_wnd, 10); }

static uint8_t PAT[20000];
static void fill_pat(void)
{
    for (unsigned i = 0; i < sizeof(PAT); i++)
        PAT[i] = (uint8_t)(i * 31 + (i >> 8));
}

/* ---------------- open ---------------- */

static void test_handshake(void **state)
{
    (void)state;
    struct tcp_conn *c = open_conn(1460, 65535);
    assert_int_equal(tcp_send_unacked(c), 0);
    assert_int_equal(tcp_send_space(c), NET_TCP_SNDBUF);
    assert_int_equal(net_get_counters(&T.stack)->tcp_tx, 2);
    assert_int_equal(net_get_counters(&T.stack)->tcp_rx, 1);
    poll_at(NOW + 100000);             /* nothing in flight: no timer fires */
    assert_int_equal(T.ncap, 0);
    assert_int_equal(T.errors, 0);
}

static void test_random_port_and_isn_per_boot(void **state)
{
    (void)state;
    arp_cache_put(&T.stack, T_PEER_IP, T_PEER_MAC);
    assert_non_null(tcp_connect(&T.stack, T_PEER_IP, PORT, &t_cbs, NULL));
    struct t_tcp a = t_tcp_of(0);
    t_setup(1000);
    T.rng = 999;                       /* another boot, another seed */
    arp_cache_put(&T.stack, T_PEER_IP, T_PEER_MAC);
    assert_non_null(tcp_connect(&T.stack, T_PEER_IP, PORT, &t_cbs, NULL));
    struct t_tcp b = t_tcp_of(0);
    assert_int_not_equal(a.sport, b.sport);
    assert_int_not_equal(a.seq, b.seq);
    assert_true(a.sport >= 49152 && b.sport >= 49152);
#if NET_TCP_MAX_CONNS == 2
    /* two connections at once get different ports; a third has no slot */
    assert_non_null(tcp_connect(&T.stack, T_PEER_IP, PORT, &t_cbs, NULL));
    assert_int_not_equal(t_tcp_of(1).sport, b.sport);
#endif
    assert_null(tcp_connect(&T.stack, T_PEER_IP, PORT, &t_cbs, NULL)); /* no slot left (the SoC has one) */
}

static void test_connect_waits_for_arp(void **state)
{
    (void)state;
    struct tcp_conn *c = tcp_connect(&T.stack, T_PEER_IP, PORT, &t_cbs, NULL);
    assert_non_null(c);
    assert_int_equal(T.ncap, 1);                     /* ARP request, no SYN yet */
    assert_int_equal(net_rd16(T.cap[0] + 12), ETH_TYPE_ARP);
    size_t n = t_mk_arp(F, T_OUR_MAC, ARP_OP_REPLY, T_PEER_MAC, T_PEER_IP, T_OUR_MAC, T_OUR_IP);
    t_input(F, n, 1050);
    assert_int_equal(T.ncap, 2);                     /* SYN right after the reply */
    struct t_tcp s = t_tcp_of(1);
    assert_int_equal(s.flags, TCP_FLAG_SYN);
    assert_memory_equal(s.eth_dst, T_PEER_MAC, 6);
    /* the SYN timer restarted at the reply */
    poll_at(2049);
    assert_int_equal(T.ncap, 2);
    poll_at(2050);
    assert_int_equal(T.ncap, 3);
    assert_int_equal(t_tcp_of(2).seq, s.seq);
}

static void test_connect_arp_fails(void **state)
{
    (void)state;
    struct tcp_conn *c = tcp_connect(&T.stack, T_PEER_IP, PORT, &t_cbs, NULL);
    assert_non_null(c);
    for (uint64_t t = 1000; t <= 4000; t += 100)
        poll_at(t);
    assert_int_equal(T.errors, 1);
    assert_int_equal(T.last_err, TCP_ERR_UNREACHABLE);
    assert_int_equal(tcp_get_state(c), TCP_CLOSED);
    for (unsigned i = 0; i < T.ncap; i++)
        assert_int_equal(net_rd16(T.cap[i] + 12), ETH_TYPE_ARP);   /* 3 ARP requests, no SYN */
    assert_int_equal(T.ncap, 3);
}

static void test_syn_retransmit_backoff_then_timeout(void **state)
{
    (void)state;
    arp_cache_put(&T.stack, T_PEER_IP, T_PEER_MAC);
    struct tcp_conn *c = tcp_connect(&T.stack, T_PEER_IP, PORT, &t_cbs, NULL);
    assert_non_null(c);
    uint32_t iss = t_tcp_of(0).seq;
    uint64_t t = 1000, rto = 1000;
    for (unsigned k = 1; k <= NET_TCP_SYN_RETRIES; k++) {
        poll_at(t + rto - 1);
        assert_int_equal(T.ncap, k);
        poll_at(t + rto);
        assert_int_equal(T.ncap, k + 1);
        struct t_tcp s = t_tcp_of(k);
        assert_int_equal(s.flags, TCP_FLAG_SYN);
        assert_int_equal(s.seq, iss);
        assert_int_equal(s.mss, 1460);
        t += rto;
        rto *= 2;
    }
    assert_int_equal(t, 1000 + 31000);
    poll_at(t + rto - 1);
    assert_int_equal(T.errors, 0);
    poll_at(t + rto);                                 /* 63 s after the first SYN */
    assert_int_equal(T.errors, 1);
    assert_int_equal(T.last_err, TCP_ERR_TIMEOUT);
    assert_int_equal(T.ncap, NET_TCP_SYN_RETRIES + 1);
    assert_int_equal(tcp_get_state(c), TCP_CLOSED);
    assert_int_equal(net_get_counters(&T.stack)->tcp_timeout, 1);
}

static void test_connection_refused(void **state)
{
    (void)state;
    arp_cache_put(&T.stack, T_PEER_IP, T_PEER_MAC);
    struct tcp_conn *c = tcp_connect(&T.stack, T_PEER_IP, PORT, &t_cbs, NULL);
    struct t_tcp s = t_tcp_of(0);
    ISS = s.seq;
    LPORT = s.sport;
    /* RST with an unacceptable ACK is ignored */
    peer(0, ISS + 5, TCP_FLAG_RST | TCP_FLAG_ACK, 0, NULL, 0);
    assert_int_equal(T.errors, 0);
    assert_int_equal(T.ncap, 1);
    /* a SYN-ACK with a wrong ACK gets a RST (seq = its ack) */
    peer(PISS, ISS + 7, TCP_FLAG_SYN | TCP_FLAG_ACK, 1000, NULL, 0);
    assert_int_equal(T.ncap, 2);
    check_seg(1, ISS + 7, 0, TCP_FLAG_RST, 0);
    assert_int_equal(tcp_get_state(c), TCP_SYN_SENT);
    /* the kernel's answer to a SYN on a closed port */
    peer(0, ISS + 1, TCP_FLAG_RST | TCP_FLAG_ACK, 0, NULL, 0);
    assert_int_equal(T.errors, 1);
    assert_int_equal(T.last_err, TCP_ERR_REFUSED);
    assert_int_equal(tcp_get_state(c), TCP_CLOSED);
    poll_at(100000);
    assert_int_equal(T.ncap, 2);
}

/* ---------------- data ---------------- */

static void test_send_data_and_ack(void **state)
{
    (void)state;
    fill_pat();
    struct tcp_conn *c = open_conn(1460, 65535);
    assert_int_equal(tcp_send(c, PAT, 100), 100);
    assert_int_equal(T.ncap, 1);
    check_seg(0, ISS + 1, PSEQ, TCP_FLAG_ACK | TCP_FLAG_PSH, 100);
    assert_memory_equal(t_tcp_of(0).data, PAT, 100);
    assert_int_equal(tcp_send_unacked(c), 100);
    assert_int_equal(tcp_send_space(c), NET_TCP_SNDBUF - 100);
    NOW += 5;
    peer(PSEQ, ISS + 101, TCP_FLAG_ACK, 65535, NULL, 0);
    assert_int_equal(T.ncap, 1);                     /* a pure ACK is not answered */
    assert_int_equal(tcp_send_unacked(c), 0);
    poll_at(NOW + 100000);
    assert_int_equal(T.ncap, 1);                     /* no retransmission */
    assert_int_equal(net_get_counters(&T.stack)->tcp_tx_bytes, 100);
}

static void test_segmentation_mss_and_window(void **state)
{
    (void)state;
    fill_pat();
    struct tcp_conn *c = open_conn(536, 1000);
    assert_int_equal(tcp_send(c, PAT, 1200), 1200);
    assert_int_equal(T.ncap, 2);                     /* 536 + 464 = the 1000-byte window */
    check_seg(0, ISS + 1, PSEQ, TCP_FLAG_ACK, 536);
    check_seg(1, ISS + 537, PSEQ, TCP_FLAG_ACK, 464);
    assert_memory_equal(t_tcp_of(1).data, PAT + 536, 464);
    peer(PSEQ, ISS + 537, TCP_FLAG_ACK, 1000, NULL, 0);   /* window slides by 536 */
    assert_int_equal(T.ncap, 3);
    check_seg(2, ISS + 1001, PSEQ, TCP_FLAG_ACK | TCP_FLAG_PSH, 200);
    assert_memory_equal(t_tcp_of(2).data, PAT + 1000, 200);
    peer(PSEQ, ISS + 1201, TCP_FLAG_ACK, 1000, NULL, 0);
    assert_int_equal(tcp_send_unacked(c), 0);
}

static void test_send_buffer_bounded(void **state)
{
    (void)state;
    fill_pat();
    struct tcp_conn *c = open_conn(1460, 0);         /* peer window 0: everything stays queued */
    assert_int_equal(tcp_send(c, PAT, sizeof(PAT)), NET_TCP_SNDBUF);
    assert_int_equal(tcp_send(c, PAT, 10), 0);
    assert_int_equal(tcp_send_space(c), 0);
    assert_int_equal(tcp_send_unsent(c), NET_TCP_SNDBUF);
    assert_int_equal(T.ncap, 0);
    /* window opens: data flows in MSS segments, ring wrap-around preserved */
    peer(PSEQ, ISS + 1, TCP_FLAG_ACK, 3000, NULL, 0);
    assert_int_equal(T.ncap, 3);
    check_seg(0, ISS + 1, PSEQ, TCP_FLAG_ACK, 1460);
    check_seg(1, ISS + 1461, PSEQ, TCP_FLAG_ACK, 1460);
    check_seg(2, ISS + 2921, PSEQ, TCP_FLAG_ACK, 80);
    peer(PSEQ, ISS + 3001, TCP_FLAG_ACK, 3000, NULL, 0);
    assert_int_equal(tcp_send_space(c), 3000);
    assert_int_equal(tcp_send(c, PAT + NET_TCP_SNDBUF, 3000), 3000);
    /* drain everything and check the bytes, including those across the ring end */
    uint32_t acked = 3000;
    size_t total = NET_TCP_SNDBUF + 3000;
    while (acked < total) {
        unsigned before = T.ncap;
        peer(PSEQ, ISS + 1 + acked, TCP_FLAG_ACK, 3000, NULL, 0);
        for (unsigned i = before; i < T.ncap; i++) {
            struct t_tcp s = t_tcp_of(i);
            assert_memory_equal(s.data, PAT + (s.seq - ISS - 1), s.dlen);
        }
        struct t_tcp last = t_tcp_of(T.ncap - 1);
        acked = last.seq + (uint32_t)last.dlen - ISS - 1;
        if (T.ncap > 40)
            t_clear();
    }
    assert_int_equal(acked, total);
}

static void test_receive_in_order(void **state)
{
    (void)state;
    open_conn(1460, 65535);
    peer(PSEQ, ISS + 1, TCP_FLAG_ACK | TCP_FLAG_PSH, 65535, "hello", 5);
    assert_int_equal(T.rx_len, 5);
    assert_memory_equal(T.rx, "hello", 5);
    assert_int_equal(T.ncap, 1);
    check_seg(0, ISS + 1, PSEQ + 5, TCP_FLAG_ACK, 0);
    peer(PSEQ + 5, ISS + 1, TCP_FLAG_ACK, 65535, " world", 6);
    assert_int_equal(T.rx_len, 11);
    assert_memory_equal(T.rx, "hello world", 11);
    check_seg(1, ISS + 1, PSEQ + 11, TCP_FLAG_ACK, 0);
    assert_int_equal(net_get_counters(&T.stack)->tcp_rx_bytes, 11);
}

static void test_out_of_order_not_delivered_early(void **state)
{
    (void)state;
    open_conn(1460, 65535);
    peer(PSEQ + 4, ISS + 1, TCP_FLAG_ACK, 65535, "EFGH", 4);     /* hole before it */
    assert_int_equal(T.rx_len, 0);                               /* held, not delivered */
    assert_int_equal(T.ncap, 1);
    check_seg(0, ISS + 1, PSEQ, TCP_FLAG_ACK, 0);                 /* duplicate ACK */
    peer(PSEQ + 8, ISS + 1, TCP_FLAG_ACK, 65535, "IJ", 2);       /* extends the held range */
    check_seg(1, ISS + 1, PSEQ, TCP_FLAG_ACK, 0);
    peer(PSEQ + 20, ISS + 1, TCP_FLAG_ACK, 65535, "zz", 2);      /* second hole: dropped */
    check_seg(2, ISS + 1, PSEQ, TCP_FLAG_ACK, 0);
    assert_int_equal(T.rx_len, 0);
    const struct net_counters *k = net_get_counters(&T.stack);
    assert_int_equal(k->tcp_out_of_order, 3);
    assert_int_equal(k->tcp_ooo_held, 2);
    /* the hole is filled: everything up to the held end is delivered in order, one ACK */
    peer(PSEQ, ISS + 1, TCP_FLAG_ACK, 65535, "ABCD", 4);
    assert_int_equal(T.rx_len, 10);
    assert_memory_equal(T.rx, "ABCDEFGHIJ", 10);
    assert_int_equal(T.ncap, 4);
    check_seg(3, ISS + 1, PSEQ + 10, TCP_FLAG_ACK, 0);
    assert_int_equal(k->tcp_ooo_delivered, 6);
    assert_int_equal(k->tcp_rx_bytes, 10);
    peer(PSEQ + 4, ISS + 1, TCP_FLAG_ACK, 65535, "EFGH", 4);     /* peer retransmits anyway */
    assert_int_equal(T.rx_len, 10);
    check_seg(4, ISS + 1, PSEQ + 10, TCP_FLAG_ACK, 0);
    /* held range partly overtaken by an in-order segment: only the rest is delivered */
    peer(PSEQ + 14, ISS + 1, TCP_FLAG_ACK, 65535, "OPQR", 4);
    peer(PSEQ + 10, ISS + 1, TCP_FLAG_ACK, 65535, "KLMNOP", 6);
    assert_int_equal(T.rx_len, 18);
    assert_memory_equal(T.rx, "ABCDEFGHIJKLMNOPQR", 18);
    check_seg(6, ISS + 1, PSEQ + 18, TCP_FLAG_ACK, 0);
    /* an out-of-order FIN is not taken */
    peer(PSEQ + 20, ISS + 1, TCP_FLAG_ACK | TCP_FLAG_FIN, 65535, NULL, 0);
    check_seg(7, ISS + 1, PSEQ + 18, TCP_FLAG_ACK, 0);
    assert_int_equal(T.closed, 0);
    assert_int_equal(tcp_get_state(T.conn), TCP_ESTABLISHED);
}

/* SACK (RFC 2018): with the peer's permission, each duplicate ACK names the held range as one block, the ACK after
 * the hole is filled names none; a second hole's segment (dropped) leaves the block as it was. */
static void test_sack_reports_held_range(void **state)
{
    (void)state;
    PEER_SACK = true;
    open_conn(1460, 65535);
    peer(PSEQ + 4, ISS + 1, TCP_FLAG_ACK, 65535, "EFGH", 4);
    check_seg(0, ISS + 1, PSEQ, TCP_FLAG_ACK, 0);
    struct t_tcp a = t_tcp_of(0);
    assert_int_equal(a.sack_blocks, 1);
    assert_int_equal(a.sack_l, PSEQ + 4);
    assert_int_equal(a.sack_r, PSEQ + 8);
    peer(PSEQ + 8, ISS + 1, TCP_FLAG_ACK, 65535, "IJ", 2);       /* extends it */
    a = t_tcp_of(1);
    assert_int_equal(a.sack_blocks, 1);
    assert_int_equal(a.sack_l, PSEQ + 4);
    assert_int_equal(a.sack_r, PSEQ + 10);
    peer(PSEQ + 20, ISS + 1, TCP_FLAG_ACK, 65535, "zz", 2);      /* a second hole: dropped, not reported */
    a = t_tcp_of(2);
    assert_int_equal(a.sack_blocks, 1);
    assert_int_equal(a.sack_l, PSEQ + 4);
    assert_int_equal(a.sack_r, PSEQ + 10);
    peer(PSEQ, ISS + 1, TCP_FLAG_ACK, 65535, "ABCD", 4);         /* the hole filled */
    check_seg(3, ISS + 1, PSEQ + 10, TCP_FLAG_ACK, 0);
    a = t_tcp_of(3);
    assert_int_equal(a.sack_blocks, 0);
    assert_int_equal(a.optlen, 0);
    assert_memory_equal(T.rx, "ABCDEFGHIJ", 10);
    assert_int_equal(net_get_counters(&T.stack)->tcp_sack_out, NET_TCP_SACK ? 3 : 0);
}

/* Without the peer's SACK-permitted no ACK carries a SACK option. */
static void test_no_sack_without_permission(void **state)
{
    (void)state;
    open_conn(1460, 65535);
    peer(PSEQ + 4, ISS + 1, TCP_FLAG_ACK, 65535, "EFGH", 4);
    check_seg(0, ISS + 1, PSEQ, TCP_FLAG_ACK, 0);
    struct t_tcp a = t_tcp_of(0);
    assert_int_equal(a.sack_blocks, 0);
    assert_int_equal(a.optlen, 0);
    assert_int_equal(net_get_counters(&T.stack)->tcp_sack_out, 0);
}

static void test_duplicate_reacked(void **state)
{
    (void)state;
    open_conn(1460, 65535);
    peer(PSEQ, ISS + 1, TCP_FLAG_ACK, 65535, "ABCD", 4);
    peer(PSEQ, ISS + 1, TCP_FLAG_ACK, 65535, "ABCD", 4);         /* our ACK was lost */
    assert_int_equal(T.rx_len, 4);
    assert_int_equal(T.data_calls, 1);
    assert_int_equal(T.ncap, 2);
    check_seg(1, ISS + 1, PSEQ + 4, TCP_FLAG_ACK, 0);
    assert_int_equal(net_get_counters(&T.stack)->tcp_dup_data, 1);
    /* overlap: old "CD" + new "EF" -> only "EF" delivered */
    peer(PSEQ + 2, ISS + 1, TCP_FLAG_ACK, 65535, "CDEF", 4);
    assert_int_equal(T.rx_len, 6);
    assert_memory_equal(T.rx, "ABCDEF", 6);
    check_seg(2, ISS + 1, PSEQ + 6, TCP_FLAG_ACK, 0);
    /* far outside the window: re-ACKed, not delivered */
    peer(PSEQ + 6 + 100000, ISS + 1, TCP_FLAG_ACK, 65535, "ZZ", 2);
    check_seg(3, ISS + 1, PSEQ + 6, TCP_FLAG_ACK, 0);
    assert_int_equal(T.rx_len, 6);
    assert_int_equal(net_get_counters(&T.stack)->tcp_out_of_window, 1);
    /* a retransmitted SYN-ACK (our handshake ACK lost) is re-ACKed too */
    peer(PISS, ISS + 1, TCP_FLAG_SYN | TCP_FLAG_ACK, 65535, NULL, 0);
    check_seg(4, ISS + 1, PSEQ + 6, TCP_FLAG_ACK, 0);
    assert_int_equal(tcp_get_state(T.conn), TCP_ESTABLISHED);
}

static void test_window_edge_trimmed(void **state)
{
    (void)state;
    open_conn(1460, 65535);
    static uint8_t big[NET_TCP_RCV_WND + 10];
    memset(big, 'x', sizeof(big));
    /* more than the advertised window: only the window is delivered (a peer should never do this) */
    size_t n = t_mk_tcp_from(F, T_PEER_IP, PORT, LPORT, PSEQ, ISS + 1, TCP_FLAG_ACK, 65535, 0, big, 1400);
    t_input(F, n, NOW);
    assert_int_equal(T.rx_len, 1400);
    check_seg(0, ISS + 1, PSEQ + 1400, TCP_FLAG_ACK, 0);
}

/* The receive window's edges (in_rcv_window, one compare): its last byte is taken (held out of order), the byte past
 * it is out of the window; a segment that ends at rcv_nxt is a duplicate, one that reaches rcv_nxt is delivered from
 * there; a bare ACK at the window's end is out of it. */
static void test_rcv_window_edges(void **state)
{
    (void)state;
    open_conn(1460, 65535);
    const struct net_counters *k = net_get_counters(&T.stack);
    peer(PSEQ + NET_TCP_RCV_WND - 1, ISS + 1, TCP_FLAG_ACK, 65535, "L", 1);
    assert_int_equal(k->tcp_out_of_order, 1);
    assert_int_equal(k->tcp_out_of_window, 0);
    peer(PSEQ + NET_TCP_RCV_WND, ISS + 1, TCP_FLAG_ACK, 65535, "P", 1);
    assert_int_equal(k->tcp_out_of_order, 1);
    assert_int_equal(k->tcp_out_of_window, 1);
    peer(PSEQ - 2, ISS + 1, TCP_FLAG_ACK, 65535, "ab", 2);
    assert_int_equal(k->tcp_dup_data, 1);
    assert_int_equal(T.rx_len, 0);
    peer(PSEQ - 2, ISS + 1, TCP_FLAG_ACK, 65535, "abc", 3);
    assert_int_equal(k->tcp_dup_data, 2);
    assert_int_equal(T.rx_len, 1);
    assert_memory_equal(T.rx, "c", 1);
    peer(PSEQ + 1 + NET_TCP_RCV_WND, ISS + 1, TCP_FLAG_ACK, 65535, NULL, 0);
    assert_int_equal(k->tcp_out_of_window, 2);
    peer(PSEQ + NET_TCP_RCV_WND, ISS + 1, TCP_FLAG_ACK, 65535, NULL, 0); /* rcv_nxt + WND - 1: in */
    assert_int_equal(k->tcp_out_of_window, 2);
    assert_int_equal(k->tcp_dup_data, 2);
}

static void test_echo_from_callback_piggybacks_ack(void **state);

/* ---------------- retransmission ---------------- */

static void test_rtt_estimate(void **state)
{
    (void)state;
    fill_pat();
    struct tcp_conn *c = open_conn_rtt(1460, 65535, 300);
    /* first sample R=300: SRTT=300, RTTVAR=150, RTO = 300 + 4*150 = 900 */
    assert_int_equal(tcp_current_rto(c), 900);
    tcp_send(c, PAT, 10);
    NOW += 100;
    peer(PSEQ, ISS + 11, TCP_FLAG_ACK, 65535, NULL, 0);
    /* R=100: RTTVAR = 3/4*150 + 1/4*200 = 162.5, SRTT = 7/8*300 + 100/8 = 275, RTO = 275 + 650 = 925 */
    assert_int_equal(tcp_current_rto(c), 925);
    /* tiny RTTs clamp to the minimum */
    for (int i = 0; i < 40; i++) {
        tcp_send(c, PAT, 1);
        NOW += 1;
        peer(PSEQ, ISS + 12 + (uint32_t)i, TCP_FLAG_ACK, 65535, NULL, 0);
    }
    assert_int_equal(tcp_current_rto(c), NET_TCP_RTO_MIN_MS);
}

static void test_retransmit_backoff_then_timeout(void **state)
{
    (void)state;
    fill_pat();
    struct tcp_conn *c = open_conn(1460, 65535);
    assert_int_equal(tcp_current_rto(c), NET_TCP_RTO_MIN_MS);   /* 10 ms RTT -> clamped to 200 */
    tcp_send(c, PAT, 50);
    uint64_t t = NOW;
    uint32_t rto = NET_TCP_RTO_MIN_MS;
    for (unsigned k = 1; k <= NET_TCP_DATA_RETRIES; k++) {
        poll_at(t + rto - 1);
        assert_int_equal(T.ncap, k);
        poll_at(t + rto);
        assert_int_equal(T.ncap, k + 1);
        check_seg(k, ISS + 1, PSEQ, TCP_FLAG_ACK | TCP_FLAG_PSH, 50);
        assert_memory_equal(t_tcp_of(k).data, PAT, 50);
        t += rto;
        rto *= 2;
    }
    assert_int_equal(net_get_counters(&T.stack)->tcp_retransmit, NET_TCP_DATA_RETRIES);
    poll_at(t + rto - 1);
    assert_int_equal(T.errors, 0);
    poll_at(t + rto);
    assert_int_equal(T.errors, 1);
    assert_int_equal(T.last_err, TCP_ERR_TIMEOUT);
    assert_int_equal(tcp_get_state(c), TCP_CLOSED);
}

static void test_ack_resets_backoff(void **state)
{
    (void)state;
    fill_pat();
    struct tcp_conn *c = open_conn(1460, 65535);
    tcp_send(c, PAT, 1000);
    tcp_send(c, PAT + 1000, 1000);   /* two segments */
    assert_int_equal(T.ncap, 2);
    uint64_t t0 = NOW;
    poll_at(t0 + 200);               /* first retransmission: oldest segment only */
    poll_at(t0 + 600);               /* second, after 400 */
    assert_int_equal(T.ncap, 4);
    check_seg(2, ISS + 1, PSEQ, TCP_FLAG_ACK | TCP_FLAG_PSH, 1460);   /* oldest MSS worth */
    check_seg(3, ISS + 1, PSEQ, TCP_FLAG_ACK | TCP_FLAG_PSH, 1460);
    assert_memory_equal(t_tcp_of(3).data, PAT, 1460);
    assert_int_equal(tcp_current_rto(c), 800);
    peer(PSEQ, ISS + 1001, TCP_FLAG_ACK, 65535, NULL, 0);   /* Karn: no RTT sample, backoff cleared */
    assert_int_equal(tcp_current_rto(c), NET_TCP_RTO_MIN_MS);
    poll_at(NOW + 199);
    assert_int_equal(T.ncap, 4);
    poll_at(NOW + 1);
    assert_int_equal(T.ncap, 5);
    check_seg(4, ISS + 1001, PSEQ, TCP_FLAG_ACK | TCP_FLAG_PSH, 1000);
    assert_memory_equal(t_tcp_of(4).data, PAT + 1000, 1000);
}

static void test_fast_retransmit(void **state)
{
    (void)state;
    fill_pat();
    struct tcp_conn *c = open_conn(536, 65535);
    tcp_send(c, PAT, 536 * 4);
    assert_int_equal(T.ncap, 4);
    peer(PSEQ, ISS + 537, TCP_FLAG_ACK, 65535, NULL, 0);     /* first arrived, second lost */
    peer(PSEQ, ISS + 537, TCP_FLAG_ACK, 65535, NULL, 0);     /* dup 1 */
    peer(PSEQ, ISS + 537, TCP_FLAG_ACK, 65535, NULL, 0);     /* dup 2 */
    assert_int_equal(T.ncap, 4);
    peer(PSEQ, ISS + 537, TCP_FLAG_ACK, 65535, NULL, 0);     /* dup 3 */
    assert_int_equal(T.ncap, 5);
    check_seg(4, ISS + 537, PSEQ, TCP_FLAG_ACK | TCP_FLAG_PSH, 536);
    assert_memory_equal(t_tcp_of(4).data, PAT + 536, 536);
    assert_int_equal(net_get_counters(&T.stack)->tcp_fast_retransmit, 1);
    peer(PSEQ, ISS + 1 + 536 * 4, TCP_FLAG_ACK, 65535, NULL, 0);
    assert_int_equal(tcp_send_unacked(c), 0);
}

static void test_peer_zero_window(void **state)
{
    (void)state;
    fill_pat();
    struct tcp_conn *c = open_conn(1460, 0);
    assert_int_equal(tcp_send(c, PAT, 10), 10);
    assert_int_equal(T.ncap, 0);                     /* window closed: nothing goes out */
    poll_at(NOW + 199);
    assert_int_equal(T.ncap, 0);
    poll_at(NOW + 1);                                /* persist timer: 1-byte probe */
    assert_int_equal(T.ncap, 1);
    check_seg(0, ISS + 1, PSEQ, TCP_FLAG_ACK | TCP_FLAG_PSH, 1);
    assert_int_equal(t_tcp_of(0).data[0], PAT[0]);
    assert_int_equal(net_get_counters(&T.stack)->tcp_window_probe, 1);
    peer(PSEQ, ISS + 1, TCP_FLAG_ACK, 0, NULL, 0);   /* still closed, byte not taken */
    assert_int_equal(T.ncap, 1);
    poll_at(NOW + 399);                              /* backed off: 400 */
    assert_int_equal(T.ncap, 1);
    poll_at(NOW + 1);
    assert_int_equal(T.ncap, 2);
    check_seg(1, ISS + 1, PSEQ, TCP_FLAG_ACK | TCP_FLAG_PSH, 1);
    /* probes never time the connection out while the peer answers */
    for (int i = 0; i < 20; i++) {
        peer(PSEQ, ISS + 1, TCP_FLAG_ACK, 0, NULL, 0);
        NOW += NET_TCP_RTO_MAX_MS;
        size_t n = t_mk_arp(F, T_OUR_MAC, ARP_OP_REPLY, T_PEER_MAC, T_PEER_IP, T_OUR_MAC, T_OUR_IP);
        t_input(F, n, NOW);                          /* the peer keeps its ARP entry fresh */
        poll_at(NOW);
    }
    assert_int_equal(T.errors, 0);
    t_clear();
    /* window opens and the probe byte was taken: the other 9 follow */
    peer(PSEQ, ISS + 2, TCP_FLAG_ACK, 1000, NULL, 0);
    assert_int_equal(T.ncap, 1);
    check_seg(0, ISS + 2, PSEQ, TCP_FLAG_ACK | TCP_FLAG_PSH, 9);
    assert_memory_equal(t_tcp_of(0).data, PAT + 1, 9);
}

static void test_bad_checksum_counted(void **state)
{
    (void)state;
    open_conn(1460, 65535);
    size_t n = t_mk_tcp_from(F, T_PEER_IP, PORT, LPORT, PSEQ, ISS + 1, TCP_FLAG_ACK, 65535, 0, "data", 4);
    F[14 + 20 + 20 + 3] ^= 0x55;                     /* corrupt the payload */
    t_input(F, n, NOW);
    n = t_mk_tcp_from(F, T_PEER_IP, PORT, LPORT, PSEQ, ISS + 1, TCP_FLAG_ACK, 65535, 0, NULL, 0);
    F[14 + 20 + 12] = 0x40;                          /* data offset 16 bytes: invalid */
    t_input(F, n, NOW);
    assert_int_equal(T.ncap, 0);
    assert_int_equal(T.rx_len, 0);
    const struct net_counters *c = net_get_counters(&T.stack);
    assert_int_equal(c->tcp_bad_checksum, 1);
    assert_int_equal(c->tcp_bad_header, 1);
}

/* A frame the receiver vouches for (the offload's RX_STATUS.CHECKED) is not summed again: the same corrupt segment
 * is delivered when so marked (the stack trusts the flag, which is why only the hardware may set it) and dropped
 * when not; the header checks still apply to a marked frame. */
static void test_checked_frame_not_summed(void **state)
{
    (void)state;
    open_conn(1460, 65535);
    size_t n = t_mk_tcp_from(F, T_PEER_IP, PORT, LPORT, PSEQ, ISS + 1, TCP_FLAG_ACK, 65535, 0, "data", 4);
    F[14 + 20 + 20 + 3] ^= 0x55;                     /* the payload no longer matches the checksum */
    t_input(F, n, NOW);
    assert_int_equal(T.rx_len, 0);
    net_input_checked(&T.stack, F, n, NOW, true);
    assert_int_equal(T.rx_len, 4);
    assert_memory_equal(T.rx, "dat4", 4);            /* 'a' ^ 0x55, as it came */
    n = t_mk_tcp_from(F, T_PEER_IP, PORT, LPORT, PSEQ + 4, ISS + 1, TCP_FLAG_ACK, 65535, 0, NULL, 0);
    F[14 + 20 + 12] = 0x40;                          /* data offset 16 bytes: invalid, marked or not */
    net_input_checked(&T.stack, F, n, NOW, true);
    const struct net_counters *c = net_get_counters(&T.stack);
    assert_int_equal(c->tcp_bad_checksum, 1);
    assert_int_equal(c->tcp_sum_verified, 1);
    assert_int_equal(c->tcp_bad_header, 1);
}

/* The same for the IPv4 header's checksum (the receiver verified both): a marked segment whose header checksum is
 * wrong is delivered, the same segment unmarked is dropped and counted as an IPv4 checksum error. */
static void test_checked_frame_ip_header_not_summed(void **state)
{
    (void)state;
    open_conn(1460, 65535);
    size_t n = t_mk_tcp_from(F, T_PEER_IP, PORT, LPORT, PSEQ, ISS + 1, TCP_FLAG_ACK, 65535, 0, "data", 4);
    F[14 + 10] ^= 0x40;                              /* the IPv4 header checksum */
    t_input(F, n, NOW);
    assert_int_equal(T.rx_len, 0);
    assert_int_equal(net_get_counters(&T.stack)->ip_bad_checksum, 1);
    net_input_checked(&T.stack, F, n, NOW, true);
    assert_int_equal(T.rx_len, 4);
    assert_memory_equal(T.rx, "data", 4);
    assert_int_equal(net_get_counters(&T.stack)->ip_bad_checksum, 1);
}

static void test_ack_of_unsent_data(void **state)
{
    (void)state;
    open_conn(1460, 65535);
    peer(PSEQ, ISS + 1000, TCP_FLAG_ACK, 65535, "x", 1);
    assert_int_equal(T.ncap, 1);
    check_seg(0, ISS + 1, PSEQ, TCP_FLAG_ACK, 0);    /* data not accepted either */
    assert_int_equal(T.rx_len, 0);
    assert_int_equal(net_get_counters(&T.stack)->tcp_bad_ack, 1);
}

static void test_stale_arp_refresh_keeps_segment_intact(void **state)
{
    (void)state;
    fill_pat();
    struct tcp_conn *c = open_conn(1460, 65535);
    NOW += NET_ARP_TTL_MS;                           /* the peer's ARP entry is now stale */
    net_poll(&T.stack, NOW);
    assert_int_equal(tcp_send(c, PAT, 300), 300);
    assert_int_equal(T.ncap, 2);                     /* refresh request, then the segment */
    assert_int_equal(net_rd16(T.cap[0] + 12), ETH_TYPE_ARP);
    check_seg(1, ISS + 1, PSEQ, TCP_FLAG_ACK | TCP_FLAG_PSH, 300);   /* checksums verified */
    assert_memory_equal(t_tcp_of(1).data, PAT, 300);
}

/* ---------------- close ---------------- */

static void test_active_close(void **state)
{
    (void)state;
    struct tcp_conn *c = open_conn(1460, 65535);
    tcp_close(c);
    assert_int_equal(tcp_get_state(c), TCP_FIN_WAIT_1);
    assert_int_equal(T.ncap, 1);
    check_seg(0, ISS + 1, PSEQ, TCP_FLAG_ACK | TCP_FLAG_FIN, 0);
    assert_int_equal(tcp_send(c, "x", 1), 0);
    peer(PSEQ, ISS + 2, TCP_FLAG_ACK, 65535, NULL, 0);
    assert_int_equal(tcp_get_state(c), TCP_FIN_WAIT_2);
    assert_int_equal(T.closed, 0);
    peer(PSEQ, ISS + 2, TCP_FLAG_ACK, 65535, "bye", 3);   /* half-close: peer may still send */
    assert_int_equal(T.rx_len, 3);
    check_seg(1, ISS + 2, PSEQ + 3, TCP_FLAG_ACK, 0);
    peer(PSEQ + 3, ISS + 2, TCP_FLAG_ACK | TCP_FLAG_FIN, 65535, NULL, 0);
    assert_int_equal(T.ncap, 3);
    check_seg(2, ISS + 2, PSEQ + 4, TCP_FLAG_ACK, 0);
    assert_int_equal(T.closed, 1);
    assert_int_equal(tcp_get_state(c), TCP_TIME_WAIT);
    /* FIN retransmitted (our ACK lost): ACKed again */
    peer(PSEQ + 3, ISS + 2, TCP_FLAG_ACK | TCP_FLAG_FIN, 65535, NULL, 0);
    check_seg(3, ISS + 2, PSEQ + 4, TCP_FLAG_ACK, 0);
    poll_at(NOW + NET_TCP_TIME_WAIT_MS);
    assert_int_equal(tcp_get_state(c), TCP_CLOSED);
    assert_int_equal(T.closed, 1);
    assert_int_equal(T.errors, 0);
    /* afterwards the port is closed: RST */
    peer(PSEQ + 4, ISS + 2, TCP_FLAG_ACK, 65535, "late", 4);
    check_seg(4, ISS + 2, 0, TCP_FLAG_RST, 0);
}

static void test_close_after_data_and_fin_retransmit(void **state)
{
    (void)state;
    struct tcp_conn *c = open_conn(1460, 65535);
    tcp_send(c, "logout", 6);
    tcp_close(c);
    assert_int_equal(T.ncap, 2);
    check_seg(0, ISS + 1, PSEQ, TCP_FLAG_ACK | TCP_FLAG_PSH, 6);
    check_seg(1, ISS + 7, PSEQ, TCP_FLAG_ACK | TCP_FLAG_FIN, 0);
    peer(PSEQ, ISS + 7, TCP_FLAG_ACK, 65535, NULL, 0);   /* data ACKed, FIN lost */
    poll_at(NOW + 200);
    assert_int_equal(T.ncap, 3);
    check_seg(2, ISS + 7, PSEQ, TCP_FLAG_ACK | TCP_FLAG_FIN, 0);
    /* simultaneous close: the peer's FIN crosses ours */
    peer(PSEQ, ISS + 7, TCP_FLAG_ACK | TCP_FLAG_FIN, 65535, NULL, 0);
    assert_int_equal(tcp_get_state(c), TCP_CLOSING);
    check_seg(3, ISS + 8, PSEQ + 1, TCP_FLAG_ACK, 0);
    peer(PSEQ + 1, ISS + 8, TCP_FLAG_ACK, 65535, NULL, 0);
    assert_int_equal(tcp_get_state(c), TCP_TIME_WAIT);
    assert_int_equal(T.closed, 1);
}

static void test_fin_piggybacked_on_queued_data(void **state)
{
    (void)state;
    fill_pat();
    struct tcp_conn *c = open_conn(1460, 0);
    tcp_send(c, PAT, 20);
    tcp_close(c);
    assert_int_equal(T.ncap, 0);
    peer(PSEQ, ISS + 1, TCP_FLAG_ACK, 1000, NULL, 0);
    assert_int_equal(T.ncap, 1);
    check_seg(0, ISS + 1, PSEQ, TCP_FLAG_ACK | TCP_FLAG_PSH | TCP_FLAG_FIN, 20);
    poll_at(NOW + 200);                              /* retransmission keeps the FIN */
    check_seg(1, ISS + 1, PSEQ, TCP_FLAG_ACK | TCP_FLAG_PSH | TCP_FLAG_FIN, 20);
    peer(PSEQ, ISS + 22, TCP_FLAG_ACK | TCP_FLAG_FIN, 1000, NULL, 0);
    assert_int_equal(tcp_get_state(c), TCP_TIME_WAIT);
    check_seg(2, ISS + 22, PSEQ + 1, TCP_FLAG_ACK, 0);
}

static void test_passive_close(void **state)
{
    (void)state;
    struct tcp_conn *c = open_conn(1460, 65535);
    peer(PSEQ, ISS + 1, TCP_FLAG_ACK | TCP_FLAG_PSH | TCP_FLAG_FIN, 65535, "end", 3);
    assert_int_equal(T.rx_len, 3);
    assert_int_equal(T.ncap, 1);                     /* one segment: ACK of data+FIN and our FIN */
    check_seg(0, ISS + 1, PSEQ + 4, TCP_FLAG_ACK | TCP_FLAG_FIN, 0);
    assert_int_equal(tcp_get_state(c), TCP_LAST_ACK);
    assert_int_equal(T.closed, 0);
    peer(PSEQ + 4, ISS + 2, TCP_FLAG_ACK, 65535, NULL, 0);
    assert_int_equal(T.closed, 1);
    assert_int_equal(tcp_get_state(c), TCP_CLOSED);
    assert_int_equal(T.errors, 0);
}

static void test_passive_close_sends_queued_data_first(void **state)
{
    (void)state;
    fill_pat();
    struct tcp_conn *c = open_conn(1460, 10);
    tcp_send(c, PAT, 30);
    assert_int_equal(T.ncap, 1);                     /* 10 bytes fit the window */
    peer(PSEQ, ISS + 11, TCP_FLAG_ACK | TCP_FLAG_FIN, 10, NULL, 0);
    assert_int_equal(tcp_get_state(c), TCP_LAST_ACK);
    check_seg(1, ISS + 11, PSEQ + 1, TCP_FLAG_ACK, 10);
    peer(PSEQ + 1, ISS + 21, TCP_FLAG_ACK, 10, NULL, 0);
    check_seg(2, ISS + 21, PSEQ + 1, TCP_FLAG_ACK | TCP_FLAG_PSH | TCP_FLAG_FIN, 10);
    peer(PSEQ + 1, ISS + 32, TCP_FLAG_ACK, 10, NULL, 0);
    assert_int_equal(T.closed, 1);
}

/* Found by fw/fuzz (fuzz_tcp, regress/tcp/second-fin-after-fin): a FIN at the sequence number after the peer's
 * FIN is not a retransmission (that would be at the old number) but a bogus segment; the peer's stream ended at its
 * first FIN, so nothing after it is acknowledged (Linux drops such a segment in LAST_ACK, CLOSING and TIME_WAIT). */
static void test_second_fin_after_fin_not_acked(void **state)
{
    (void)state;
    struct tcp_conn *c = open_conn(1460, 65535);
    peer(PSEQ, ISS + 1, TCP_FLAG_ACK | TCP_FLAG_FIN, 65535, NULL, 0);
    check_seg(0, ISS + 1, PSEQ + 1, TCP_FLAG_ACK | TCP_FLAG_FIN, 0);
    assert_int_equal(tcp_get_state(c), TCP_LAST_ACK);
    peer(PSEQ + 1, ISS + 1, TCP_FLAG_ACK | TCP_FLAG_FIN, 65535, NULL, 0);   /* a "FIN" beyond the FIN */
    for (unsigned i = 1; i < T.ncap; i++)
        assert_int_equal(t_tcp_of(i).ack, PSEQ + 1);
    assert_int_equal(tcp_hw_rcv_nxt(c), PSEQ + 1);
    assert_int_equal(tcp_get_state(c), TCP_LAST_ACK);
    peer(PSEQ + 1, ISS + 2, TCP_FLAG_ACK, 65535, NULL, 0);                 /* our FIN ACKed: closed as usual */
    assert_int_equal(T.closed, 1);
    assert_int_equal(tcp_get_state(c), TCP_CLOSED);
}

static void test_rst_received(void **state)
{
    (void)state;
    struct tcp_conn *c = open_conn(1460, 65535);
    peer(PSEQ + 100, 0, TCP_FLAG_RST, 0, NULL, 0);     /* in window, not exact: challenge ACK */
    assert_int_equal(T.errors, 0);
    assert_int_equal(T.ncap, 1);
    check_seg(0, ISS + 1, PSEQ, TCP_FLAG_ACK, 0);
    assert_int_equal(net_get_counters(&T.stack)->tcp_challenge_ack, 1);
    peer(PSEQ - 100, 0, TCP_FLAG_RST, 0, NULL, 0);     /* outside: silently ignored */
    assert_int_equal(T.ncap, 1);
    assert_int_equal(T.errors, 0);
    peer(PSEQ, 0, TCP_FLAG_RST, 0, NULL, 0);           /* exact */
    assert_int_equal(T.errors, 1);
    assert_int_equal(T.last_err, TCP_ERR_RESET);
    assert_int_equal(tcp_get_state(c), TCP_CLOSED);
    assert_int_equal(T.ncap, 1);
    assert_int_equal(net_get_counters(&T.stack)->tcp_rst_in, 1);
}

static void test_rst_sent_for_closed_port(void **state)
{
    (void)state;
    LPORT = 1234;
    peer(5000, 6000, TCP_FLAG_ACK | TCP_FLAG_PSH, 65535, "data", 4);
    assert_int_equal(T.ncap, 1);
    check_seg(0, 6000, 0, TCP_FLAG_RST, 0);
    assert_int_equal(t_tcp_of(0).sport, 1234);
    peer(5000, 0, TCP_FLAG_SYN, 65535, NULL, 0);         /* someone connects to us */
    assert_int_equal(T.ncap, 2);
    check_seg(1, 0, 5001, TCP_FLAG_RST | TCP_FLAG_ACK, 0);
    peer(5000, 0, TCP_FLAG_FIN, 65535, "ab", 2);
    check_seg(2, 0, 5003, TCP_FLAG_RST | TCP_FLAG_ACK, 0);
    peer(5000, 0, TCP_FLAG_RST, 0, NULL, 0);             /* never answer a RST */
    assert_int_equal(T.ncap, 3);
    const struct net_counters *c = net_get_counters(&T.stack);
    assert_int_equal(c->tcp_no_conn, 4);
    assert_int_equal(c->tcp_rst_out, 3);
}

static void test_abort_sends_rst(void **state)
{
    (void)state;
    struct tcp_conn *c = open_conn(1460, 65535);
    tcp_send(c, "abc", 3);
    tcp_abort(c);
    assert_int_equal(T.ncap, 2);
    check_seg(1, ISS + 4, PSEQ, TCP_FLAG_RST | TCP_FLAG_ACK, 0);
    assert_int_equal(tcp_get_state(c), TCP_CLOSED);
    assert_int_equal(T.errors + T.closed, 0);
    poll_at(NOW + 100000);
    assert_int_equal(T.ncap, 2);
}

/* ---------------- bytes a receive offload consumed (tcp_rx_skip) ---------------- */

/* At rcv_nxt: skipped at once, told to the owner in stream order, ACKed within the delayed-ACK time. */
static void test_skip_at_rcv_nxt_delayed_ack(void **state)
{
    (void)state;
    struct tcp_conn *c = open_conn(1460, 65535);
    peer(PSEQ, ISS + 1, TCP_FLAG_ACK | TCP_FLAG_PSH, 65535, "ABCD", 4);
    check_seg(0, ISS + 1, PSEQ + 4, TCP_FLAG_ACK, 0);              /* data: ACKed at once, as before */
    assert_int_equal(tcp_rx_skip(c, PSEQ + 4, 100), TCP_SKIP_OK);
    assert_int_equal(T.skip_calls, 1);
    assert_int_equal(T.skip_last_seq, PSEQ + 4);
    assert_int_equal(tcp_hw_rcv_nxt(c), PSEQ + 104);
    assert_int_equal(T.ncap, 1);                                   /* its ACK waits */
    poll_at(NOW + NET_TCP_DELACK_MS - 1);
    assert_int_equal(T.ncap, 1);
    poll_at(NOW + 1);
    assert_int_equal(T.ncap, 2);
    check_seg(1, ISS + 1, PSEQ + 104, TCP_FLAG_ACK, 0);
    poll_at(NOW + 1000);                                           /* once */
    assert_int_equal(T.ncap, 2);
    peer(PSEQ + 104, ISS + 1, TCP_FLAG_ACK, 65535, "EF", 2);        /* the stream goes on after the skipped bytes */
    assert_int_equal(T.rx_len, 106);
    assert_memory_equal(T.rx, "ABCD", 4);
    assert_memory_equal(T.rx + 104, "EF", 2);
    for (unsigned i = 4; i < 104; i++) assert_int_equal(T.rx[i], '#');
    check_seg(2, ISS + 1, PSEQ + 106, TCP_FLAG_ACK, 0);
}

/* Two full segments' worth of skipped bytes are ACKed at once; a segment we send carries the ACK (no extra one). */
static void test_skip_ack_every_second_full_segment(void **state)
{
    (void)state;
    struct tcp_conn *c = open_conn(1460, 65535);
    assert_int_equal(tcp_rx_skip(c, PSEQ, NET_TCP_MSS), TCP_SKIP_OK);
    assert_int_equal(T.ncap, 0);
    assert_int_equal(tcp_rx_skip(c, PSEQ + NET_TCP_MSS, NET_TCP_MSS), TCP_SKIP_OK);
    assert_int_equal(T.ncap, 1);
    check_seg(0, ISS + 1, PSEQ + 2 * NET_TCP_MSS, TCP_FLAG_ACK, 0);
    assert_int_equal(tcp_rx_skip(c, PSEQ + 2 * NET_TCP_MSS, 50), TCP_SKIP_OK);
    assert_int_equal(tcp_send(c, PAT, 10), 10);                    /* our data carries the ACK of those 50 */
    assert_int_equal(T.ncap, 2);
    check_seg(1, ISS + 1, PSEQ + 2 * NET_TCP_MSS + 50, TCP_FLAG_ACK | TCP_FLAG_PSH, 10);
    poll_at(NOW + NET_TCP_DELACK_MS);
    assert_int_equal(T.ncap, 2);                                   /* no delayed ACK left to send */
}

/* Ahead of rcv_nxt (the segment before it was lost on the way to firmware): held; the retransmission fills the
 * hole, then the skip applies, then the out-of-order data held behind it is delivered, in stream order. */
static void test_skip_held_until_the_hole_is_filled(void **state)
{
    (void)state;
    struct tcp_conn *c = open_conn(1460, 65535);
    assert_int_equal(tcp_rx_skip(c, PSEQ + 4, 10), TCP_SKIP_HELD);
    assert_int_equal(tcp_hw_rcv_nxt(c), PSEQ);
    assert_int_equal(T.skip_calls, 0);
    assert_int_equal(T.ncap, 0);
    peer(PSEQ + 14, ISS + 1, TCP_FLAG_ACK, 65535, "XY", 2);          /* after the skipped range: held out of order */
    check_seg(0, ISS + 1, PSEQ, TCP_FLAG_ACK, 0);
    assert_int_equal(T.rx_len, 0);
    peer(PSEQ, ISS + 1, TCP_FLAG_ACK, 65535, "ABCD", 4);             /* the lost segment again */
    assert_int_equal(T.rx_len, 16);
    assert_memory_equal(T.rx, "ABCD##########XY", 16);
    assert_int_equal(T.skip_calls, 1);
    assert_int_equal(T.skip_last_seq, PSEQ + 4);
    assert_int_equal(T.ncap, 2);
    check_seg(1, ISS + 1, PSEQ + 16, TCP_FLAG_ACK, 0);
}

/* Held ranges that touch join, given in any order (a range that bridges two joins all three), and apply as one when
 * rcv_nxt reaches them; a range partly before rcv_nxt skips only the rest. */
static void test_skip_ranges_in_stream_order(void **state)
{
    (void)state;
    struct tcp_conn *c = open_conn(1460, 65535);
    assert_int_equal(tcp_rx_skip(c, PSEQ + 20, 5), TCP_SKIP_HELD);
    assert_int_equal(tcp_rx_skip(c, PSEQ + 10, 4), TCP_SKIP_HELD);
    assert_int_equal(tcp_rx_skip(c, PSEQ + 14, 6), TCP_SKIP_HELD);   /* bridges the two */
    for (unsigned i = 0; i < NET_TCP_SKIP_HELD - 1; i++)             /* one range held: room for the rest */
        assert_int_equal(tcp_rx_skip(c, PSEQ + 100 + 10 * i, 5), TCP_SKIP_HELD);
    peer(PSEQ, ISS + 1, TCP_FLAG_ACK, 65535, "0123456789", 10);
    assert_int_equal(T.rx_len, 25);
    assert_int_equal(T.skip_calls, 1);
    assert_int_equal(T.skip_last_seq, PSEQ + 10);
    assert_int_equal(tcp_hw_rcv_nxt(c), PSEQ + 25);
    assert_int_equal(tcp_rx_skip(c, PSEQ + 20, 10), TCP_SKIP_OK);   /* 20..25 known: 25..30 skipped */
    assert_int_equal(T.skip_last_seq, PSEQ + 25);
    assert_int_equal(tcp_hw_rcv_nxt(c), PSEQ + 30);
    assert_int_equal(T.rx_len, 30);
}

/* A passed segment of a receive offload: its head finishes a message the offload owns (skipped at rcv_nxt before the
 * segment comes), its tail starts one (held); only the middle reaches on_data, and the tail is skipped where it starts. */
static void test_skip_head_and_tail_of_a_segment(void **state)
{
    (void)state;
    struct tcp_conn *c = open_conn(1460, 65535);
    assert_int_equal(tcp_rx_skip(c, PSEQ, 3), TCP_SKIP_OK);
    assert_int_equal(tcp_rx_skip(c, PSEQ + 8, 2), TCP_SKIP_HELD);
    peer(PSEQ, ISS + 1, TCP_FLAG_ACK | TCP_FLAG_PSH, 65535, "0123456789", 10);
    assert_int_equal(T.rx_len, 10);
    assert_memory_equal(T.rx, "###34567##", 10);
    assert_int_equal(T.skip_calls, 2);
    assert_int_equal(T.skip_last_seq, PSEQ + 8);
    assert_int_equal(tcp_hw_rcv_nxt(c), PSEQ + 10);
    check_seg(T.ncap - 1, ISS + 1, PSEQ + 10, TCP_FLAG_ACK, 0);
}

/* A held skip inside a segment (or inside held out-of-order data): the bytes before it are delivered, the range is
 * skipped where it starts, the bytes after it are delivered; none of the skipped bytes reaches on_data. */
static void test_skip_inside_data(void **state)
{
    (void)state;
    struct tcp_conn *c = open_conn(1460, 65535);
    assert_int_equal(tcp_rx_skip(c, PSEQ + 4, 3), TCP_SKIP_HELD);
    peer(PSEQ, ISS + 1, TCP_FLAG_ACK, 65535, "0123456789", 10);
    assert_int_equal(T.rx_len, 10);
    assert_memory_equal(T.rx, "0123###789", 10);
    assert_int_equal(tcp_hw_rcv_nxt(c), PSEQ + 10);
    assert_int_equal(tcp_rx_skip(c, PSEQ + 16, 2), TCP_SKIP_HELD);
    peer(PSEQ + 14, ISS + 1, TCP_FLAG_ACK, 65535, "456789", 6);      /* out of order: held */
    assert_int_equal(T.rx_len, 10);
    peer(PSEQ + 10, ISS + 1, TCP_FLAG_ACK, 65535, "0123", 4);        /* fills the hole */
    assert_int_equal(T.rx_len, 20);
    assert_memory_equal(T.rx + 10, "012345##89", 10);
    assert_int_equal(tcp_hw_rcv_nxt(c), PSEQ + 20);
    assert_int_equal(T.skip_calls, 2);
}

/* With every slot held, a range that touches a held one still joins it (FULL only when nothing joins); one that bridges
 * two frees a slot; the joined ranges apply as one when rcv_nxt reaches them. */
static void test_skip_join_when_full(void **state)
{
    (void)state;
    struct tcp_conn *c = open_conn(1460, 65535);
    for (unsigned i = 0; i < NET_TCP_SKIP_HELD; i++) assert_int_equal(tcp_rx_skip(c, PSEQ + 100 + 10 * i, 5), TCP_SKIP_HELD);
    assert_int_equal(tcp_rx_skip(c, PSEQ + 95, 5), TCP_SKIP_HELD);    /* before 100..105: joins, 95..105 */
    assert_int_equal(tcp_rx_skip(c, PSEQ + 115, 2), TCP_SKIP_HELD);   /* after 110..115: joins, 110..117 */
    assert_int_equal(tcp_rx_skip(c, PSEQ + 500, 5), TCP_SKIP_FULL);   /* touches none: refused */
    assert_int_equal(tcp_rx_skip(c, PSEQ + 105, 5), TCP_SKIP_HELD);   /* bridges 95..105 and 110..117: 95..117 */
    assert_int_equal(tcp_rx_skip(c, PSEQ + 500, 5), TCP_SKIP_HELD);   /* the freed slot */
    assert_int_equal(tcp_rx_skip(c, PSEQ + 600, 5), TCP_SKIP_FULL);
    uint8_t data[95];
    memset(data, 'a', sizeof data);
    peer(PSEQ, ISS + 1, TCP_FLAG_ACK, 65535, data, sizeof data);
    assert_int_equal(T.skip_calls, 1);
    assert_int_equal(T.skip_last_seq, PSEQ + 95);
    assert_int_equal(tcp_hw_rcv_nxt(c), PSEQ + 117);
}

/* What is refused changes nothing. */
static void test_skip_refusals(void **state)
{
    (void)state;
    assert_int_equal(tcp_rx_skip(NULL, 0, 1), TCP_SKIP_STATE);
    struct tcp_conn *c = open_conn(1460, 65535);
    assert_int_equal(tcp_rx_skip(c, PSEQ, 0), TCP_SKIP_OLD);
    assert_int_equal(tcp_rx_skip(c, PSEQ - 10, 10), TCP_SKIP_OLD);
    assert_int_equal(tcp_rx_skip(c, PSEQ + NET_TCP_RCV_WND - 5, 10), TCP_SKIP_WINDOW);
    for (unsigned i = 0; i < NET_TCP_SKIP_HELD; i++) assert_int_equal(tcp_rx_skip(c, PSEQ + 100 + 10 * i, 5), TCP_SKIP_HELD);
    assert_int_equal(tcp_rx_skip(c, PSEQ + 500, 5), TCP_SKIP_FULL);
    assert_int_equal(tcp_hw_rcv_nxt(c), PSEQ);
    assert_int_equal(T.skip_calls, 0);
    assert_int_equal(T.ncap, 0);
    peer(PSEQ, ISS + 1, TCP_FLAG_ACK | TCP_FLAG_FIN, 65535, NULL, 0); /* the peer closes: nothing more is received */
    assert_int_equal(tcp_rx_skip(c, PSEQ + 1, 5), TCP_SKIP_STATE);
}

/* ---------------- callbacks re-entering the stack ---------------- */

static void echo_on_data(struct tcp_conn *c, void *user, const uint8_t *d, size_t n)
{
    (void)user;
    t_on_data(c, NULL, d, n);
    assert_int_equal(tcp_send(c, d, n), n);
}

static const struct tcp_callbacks echo_cbs = {t_on_connected, echo_on_data, t_on_closed, t_on_error, NULL};

static void test_echo_from_callback_piggybacks_ack(void **state)
{
    (void)state;
    struct tcp_conn *c = open_conn(1460, 65535);
    c->cb = &echo_cbs;   /* white-box: swap callbacks of the open connection */
    peer(PSEQ, ISS + 1, TCP_FLAG_ACK, 65535, "ping", 4);
    assert_int_equal(T.ncap, 1);                     /* echo carries the ACK: no separate pure ACK */
    check_seg(0, ISS + 1, PSEQ + 4, TCP_FLAG_ACK | TCP_FLAG_PSH, 4);
    assert_memory_equal(t_tcp_of(0).data, "ping", 4);
}

static void abort_on_data(struct tcp_conn *c, void *user, const uint8_t *d, size_t n)
{
    (void)user;
    (void)d;
    (void)n;
    tcp_abort(c);
}

static const struct tcp_callbacks abort_cbs = {t_on_connected, abort_on_data, t_on_closed, t_on_error, NULL};

static void test_abort_from_callback(void **state)
{
    (void)state;
    struct tcp_conn *c = open_conn(1460, 65535);
    c->cb = &abort_cbs;
    peer(PSEQ, ISS + 1, TCP_FLAG_ACK | TCP_FLAG_FIN, 65535, "x", 1);
    assert_int_equal(tcp_get_state(c), TCP_CLOSED);
    assert_int_equal(T.ncap, 1);                     /* only the RST */
    check_seg(0, ISS + 1, PSEQ + 1, TCP_FLAG_RST | TCP_FLAG_ACK, 0);
}

static struct tcp_backoff RB;
static void reconnect_on_error(struct tcp_conn *c, void *user, enum tcp_error e)
{
    (void)c;
    (void)user;
    t_on_error(c, user, e);
    T.conn = tcp_connect(&T.stack, T_PEER_IP, PORT, &t_cbs, NULL);
}

static const struct tcp_callbacks reconnect_cbs = {t_on_connected, t_on_data, t_on_closed, reconnect_on_error, NULL};

static void test_reconnect_from_error_callback(void **state)
{
    (void)state;
    struct tcp_conn *c = open_conn(1460, 65535);
    c->cb = &reconnect_cbs;
    uint16_t old_port = LPORT;
    peer(PSEQ, 0, TCP_FLAG_RST, 0, NULL, 0);
    assert_int_equal(T.errors, 1);
    assert_non_null(T.conn);
    assert_int_equal(tcp_get_state(T.conn), TCP_SYN_SENT);
    assert_int_equal(T.ncap, 1);
    struct t_tcp s = t_tcp_of(0);
    assert_int_equal(s.flags, TCP_FLAG_SYN);
    assert_int_not_equal(s.sport, old_port);
}

static void test_backoff_helper(void **state)
{
    (void)state;
    tcp_backoff_init(&RB, 500, 4000);
    assert_true(tcp_backoff_due(&RB, 0));
    tcp_backoff_failed(&RB, 1000, 0);
    assert_false(tcp_backoff_due(&RB, 1499));
    assert_true(tcp_backoff_due(&RB, 1500));
    tcp_backoff_failed(&RB, 2000, 0);                /* 1000 */
    assert_false(tcp_backoff_due(&RB, 2999));
    assert_true(tcp_backoff_due(&RB, 3000));
    tcp_backoff_failed(&RB, 3000, 0);                /* 2000 */
    tcp_backoff_failed(&RB, 5000, 0);                /* 4000 */
    tcp_backoff_failed(&RB, 9000, 0);                /* capped at 4000 */
    assert_false(tcp_backoff_due(&RB, 12999));
    assert_true(tcp_backoff_due(&RB, 13000));
    tcp_backoff_failed(&RB, 20000, 12345);           /* jitter <= cur/4 */
    assert_true(RB.next_ms >= 24000 && RB.next_ms <= 25000);
    tcp_backoff_reset(&RB);
    assert_true(tcp_backoff_due(&RB, 0));
    assert_int_equal(RB.cur_ms, 500);
}

/* ---------------- hardware-sent segments ---------------- */

static void test_hw_adopt(void **state)
{
    (void)state;
    fill_pat();
    struct tcp_conn *c = open_conn(1460, 65535);
    tcp_send(c, PAT, 100);
    uint32_t seq;
    assert_true(tcp_hw_arm(c, 200, &seq));
    assert_int_equal(seq, ISS + 101);
    assert_int_equal(tcp_hw_rcv_nxt(c), PSEQ);
    assert_int_equal(tcp_send(c, "no", 2), 0);       /* firmware cannot take the armed range */
    /* the peer ACKs our 100 bytes and the 60 hardware bytes before firmware adopts them */
    peer(PSEQ, ISS + 161, TCP_FLAG_ACK, 65535, "md", 2);
    assert_int_equal(T.rx_len, 2);
    assert_int_equal(net_get_counters(&T.stack)->tcp_bad_ack, 0);
    assert_int_equal(tcp_adopt_sent(c, seq + 1, PAT + 100, 60), TCP_ADOPT_BAD_SEQ);
    assert_int_equal(tcp_adopt_sent(c, seq, PAT + 100, 201), TCP_ADOPT_TOO_LONG);
    assert_int_equal(tcp_adopt_sent(c, seq, PAT + 100, 60), TCP_ADOPT_OK);
    assert_int_equal(tcp_adopt_sent(c, seq, PAT + 100, 60), TCP_ADOPT_BAD_SEQ); /* that range is taken now */
    assert_int_equal(net_get_counters(&T.stack)->tcp_adopted_bytes, 60);
    assert_int_equal(tcp_send_unacked(c), 160);      /* the early ACK was ignored, kept for retransmit */
    assert_int_equal(tcp_send(c, "no", 2), 0);       /* the lease goes on for the other 140 bytes */
    assert_int_equal(tcp_adopt_sent(c, seq + 60, PAT + 160, 141), TCP_ADOPT_TOO_LONG);
    assert_true(tcp_hw_extend(c, 1));                /* another order armed: 141 bytes now */
    assert_false(tcp_hw_extend(c, 65536));           /* more than the send buffer */
    assert_int_equal(tcp_adopt_sent(c, seq + 60, PAT + 160, 142), TCP_ADOPT_TOO_LONG);
    tcp_hw_disarm(c);
    assert_false(tcp_hw_extend(c, 1));
    assert_int_equal(tcp_adopt_sent(c, seq + 60, PAT + 160, 10), TCP_ADOPT_NOT_ARMED);
    t_clear();
    /* firmware continues right after the hardware bytes: no gap, no overlap */
    assert_int_equal(tcp_send(c, PAT + 160, 40), 40);
    check_seg(0, ISS + 161, PSEQ + 2, TCP_FLAG_ACK | TCP_FLAG_PSH, 40);
    /* retransmission covers the adopted bytes */
    poll_at(NOW + 200);
    check_seg(1, ISS + 1, PSEQ + 2, TCP_FLAG_ACK | TCP_FLAG_PSH, 200);
    assert_memory_equal(t_tcp_of(1).data, PAT, 200);
    peer(PSEQ + 2, ISS + 201, TCP_FLAG_ACK, 65535, NULL, 0);
    assert_int_equal(tcp_send_unacked(c), 0);
}


/* Everything sent by the hardware (a lease that starts empty and grows per frame): the FIN too. The stack queues
 * it on close, sends nothing itself, says when and where it is due, adopts it, and retransmits it afterwards. */
static void test_hw_sends_everything_fin_included(void **state)
{
    (void)state;
    fill_pat();
    struct tcp_conn *c = open_conn(1460, 65535);
    uint32_t seq, f;
    assert_true(tcp_hw_arm(c, 0, &seq));             /* an empty lease */
    assert_int_equal(seq, ISS + 1);
    assert_int_equal(tcp_send(c, "no", 2), 0);
    assert_true(tcp_hw_extend(c, 50));
    assert_int_equal(tcp_adopt_sent(c, seq, PAT, 50), TCP_ADOPT_OK);
    assert_false(tcp_hw_fin_wanted(c, &f));          /* no close yet */
    assert_int_equal(tcp_adopt_fin(c, seq + 50), TCP_ADOPT_BAD_SEQ);
    t_clear();
    tcp_close(c);
    assert_int_equal(tcp_get_state(c), TCP_FIN_WAIT_1);
    assert_int_equal(T.ncap, 0);                     /* the stack does not send the FIN itself */
    assert_true(tcp_hw_fin_wanted(c, &f));
    assert_int_equal(f, ISS + 51);
    /* the peer ACKs data and FIN before the adoption: tolerated, not a bad ACK */
    peer(PSEQ, ISS + 52, TCP_FLAG_ACK, 65535, NULL, 0);
    assert_int_equal(net_get_counters(&T.stack)->tcp_bad_ack, 0);
    assert_int_equal(tcp_adopt_fin(c, f + 1), TCP_ADOPT_BAD_SEQ);
    assert_int_equal(tcp_adopt_fin(c, f), TCP_ADOPT_OK);
    assert_int_equal(tcp_adopt_fin(c, f), TCP_ADOPT_BAD_SEQ);   /* once */
    assert_false(tcp_hw_fin_wanted(c, &f));
    /* that early ACK was ignored: the data and the FIN are retransmitted by the stack */
    t_clear();
    poll_at(NOW + 1000);
    assert_true(T.ncap >= 1);
    check_seg(0, ISS + 1, PSEQ, TCP_FLAG_ACK | TCP_FLAG_PSH | TCP_FLAG_FIN, 50);
    peer(PSEQ, ISS + 52, TCP_FLAG_ACK, 65535, NULL, 0);
    assert_int_equal(tcp_get_state(c), TCP_FIN_WAIT_2);
    peer(PSEQ, ISS + 52, TCP_FLAG_ACK | TCP_FLAG_FIN, 65535, NULL, 0);
    assert_int_equal(tcp_get_state(c), TCP_TIME_WAIT);
    assert_int_equal(T.closed, 1);
    assert_int_equal(tcp_adopt_fin(NULL, 0), TCP_ADOPT_NOT_ARMED);
    assert_false(tcp_hw_fin_wanted(NULL, NULL));
}

/* An offload order ACKed bytes that firmware then lost (receive buffer overflow): they are given up. */
static void test_hw_arm_rules(void **state)
{
    (void)state;
    fill_pat();
    struct tcp_conn *c = open_conn(1460, 0);
    uint32_t seq;
    tcp_send(c, PAT, 10);                            /* not sent: zero window */
    assert_false(tcp_hw_arm(c, 100, &seq));          /* unsent bytes would collide */
    peer(PSEQ, ISS + 1, TCP_FLAG_ACK, 65535, NULL, 0);
    assert_true(tcp_hw_arm(c, 100, &seq));
    assert_int_equal(seq, ISS + 11);
    /* peer FIN while armed: our FIN waits for the lease to end */
    peer(PSEQ, ISS + 11, TCP_FLAG_ACK | TCP_FLAG_FIN, 65535, NULL, 0);
    assert_int_equal(tcp_get_state(c), TCP_LAST_ACK);
    check_seg(T.ncap - 1, ISS + 11, PSEQ + 1, TCP_FLAG_ACK, 0);
    tcp_hw_disarm(c);                                /* hardware did not fire */
    check_seg(T.ncap - 1, ISS + 11, PSEQ + 1, TCP_FLAG_ACK | TCP_FLAG_FIN, 0);
    assert_false(tcp_hw_arm(c, 100, &seq));          /* closing */
    assert_false(tcp_hw_arm(NULL, 100, &seq));
    assert_int_equal(tcp_adopt_sent(NULL, 0, NULL, 0), TCP_ADOPT_NOT_ARMED);
    /* no lease: ACK beyond snd_nxt is refused */
    peer(PSEQ + 1, ISS + 50, TCP_FLAG_ACK, 65535, NULL, 0);
    assert_int_equal(net_get_counters(&T.stack)->tcp_bad_ack, 1);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_handshake, setup),
        cmocka_unit_test_setup(test_random_port_and_isn_per_boot, setup),
        cmocka_unit_test_setup(test_connect_waits_for_arp, setup),
        cmocka_unit_test_setup(test_connect_arp_fails, setup),
        cmocka_unit_test_setup(test_syn_retransmit_backoff_then_timeout, setup),
        cmocka_unit_test_setup(test_connection_refused, setup),
        cmocka_unit_test_setup(test_send_data_and_ack, setup),
        cmocka_unit_test_setup(test_segmentation_mss_and_window, setup),
        cmocka_unit_test_setup(test_send_buffer_bounded, setup),
        cmocka_unit_test_setup(test_receive_in_order, setup),
        cmocka_unit_test_setup(test_out_of_order_not_delivered_early, setup),
        cmocka_unit_test_setup(test_skip_at_rcv_nxt_delayed_ack, setup),
        cmocka_unit_test_setup(test_skip_ack_every_second_full_segment, setup),
        cmocka_unit_test_setup(test_skip_held_until_the_hole_is_filled, setup),
        cmocka_unit_test_setup(test_skip_ranges_in_stream_order, setup),
        cmocka_unit_test_setup(test_skip_head_and_tail_of_a_segment, setup),
        cmocka_unit_test_setup(test_skip_inside_data, setup),
        cmocka_unit_test_setup(test_skip_join_when_full, setup),
        cmocka_unit_test_setup(test_skip_refusals, setup),
        cmocka_unit_test_setup(test_duplicate_reacked, setup),
        cmocka_unit_test_setup(test_window_edge_trimmed, setup),
        cmocka_unit_test_setup(test_rcv_window_edges, setup),
        cmocka_unit_test_setup(test_rtt_estimate, setup),
        cmocka_unit_test_setup(test_retransmit_backoff_then_timeout, setup),
        cmocka_unit_test_setup(test_ack_resets_backoff, setup),
        cmocka_unit_test_setup(test_fast_retransmit, setup),
        cmocka_unit_test_setup(test_peer_zero_window, setup),
        cmocka_unit_test_setup(test_bad_checksum_counted, setup),
        cmocka_unit_test_setup(test_sack_reports_held_range, setup),
        cmocka_unit_test_setup(test_no_sack_without_permission, setup),
        cmocka_unit_test_setup(test_checked_frame_not_summed, setup),
        cmocka_unit_test_setup(test_checked_frame_ip_header_not_summed, setup),
        cmocka_unit_test_setup(test_ack_of_unsent_data, setup),
        cmocka_unit_test_setup(test_stale_arp_refresh_keeps_segment_intact, setup),
        cmocka_unit_test_setup(test_active_close, setup),
        cmocka_unit_test_setup(test_close_after_data_and_fin_retransmit, setup),
        cmocka_unit_test_setup(test_fin_piggybacked_on_queued_data, setup),
        cmocka_unit_test_setup(test_passive_close, setup),
        cmocka_unit_test_setup(test_passive_close_sends_queued_data_first, setup),
        cmocka_unit_test_setup(test_second_fin_after_fin_not_acked, setup),
        cmocka_unit_test_setup(test_rst_received, setup),
        cmocka_unit_test_setup(test_rst_sent_for_closed_port, setup),
        cmocka_unit_test_setup(test_abort_sends_rst, setup),
        cmocka_unit_test_setup(test_echo_from_callback_piggybacks_ack, setup),
        cmocka_unit_test_setup(test_abort_from_callback, setup),
        cmocka_unit_test_setup(test_reconnect_from_error_callback, setup),
        cmocka_unit_test_setup(test_backoff_helper, setup),
        cmocka_unit_test_setup(test_hw_adopt, setup),
        cmocka_unit_test_setup(test_hw_arm_rules, setup),
        cmocka_unit_test_setup(test_hw_sends_everything_fin_included, setup),
    };
    return cmocka_run_group_tests_name("net_tcp", tests, NULL, NULL);
}
