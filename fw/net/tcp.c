/* net/tcp.c - TCP client: connection state machine, send ring, timers.
 * Input: checked IPv4 packets of protocol 6, owner calls (tcp.h), time via tcp_poll,
 * ARP events.
 * Output: segments through ipv4_send (RST replies through ipv4_send_to_mac),
 * owner callbacks, counters. See tcp.h for the behaviour and limits. */
#include <string.h>
#include "net/net.h"
#include "net/net_util.h"

#define RING_MASK   (NET_TCP_SNDBUF - 1u)
#define TCP_OPT_NOP 1
#define TCP_OPT_MSS 2
#define TCP_OPT_SACK_PERM 4
#define TCP_OPT_SACK 5
#define MAX_BACKOFF 16

struct seg {
    uint16_t sport, dport;
    uint32_t seq, ack;
    uint8_t flags;
    uint16_t wnd;
    const uint8_t *data;
    size_t dlen;
    const uint8_t *opt;
    size_t optlen;
};

static uint64_t now_of(const struct tcp_conn *c) { return c->stack->now_ms; }

static void conn_free(struct tcp_conn *c)
{
    struct net_stack *s = c->stack;
    uint32_t gen = c->gen + 1;
    memset(c, 0, offsetof(struct tcp_conn, sndbuf));
    c->stack = s;
    c->gen = gen;
    c->state = TCP_CLOSED;
}

/* Frees the slot, then tells the owner (who may reuse the slot from the callback). */
static void conn_fail(struct tcp_conn *c, enum tcp_error err)
{
    const struct tcp_callbacks *cb = c->cb;
    void *user = c->user;
    conn_free(c);
    if (cb && cb->on_error)
        cb->on_error(c, user, err);
}

static void conn_done(struct tcp_conn *c)
{
    const struct tcp_callbacks *cb = c->cb;
    void *user = c->user;
    conn_free(c);
    if (cb && cb->on_closed)
        cb->on_closed(c, user);
}

uint32_t tcp_current_rto(const struct tcp_conn *c)
{
    uint32_t r = c->rto_ms;
    for (unsigned i = 0; i < c->backoff && r < NET_TCP_RTO_MAX_MS; i++)
        r *= 2;
    if (r < NET_TCP_RTO_MIN_MS)
        r = NET_TCP_RTO_MIN_MS;
    if (r > NET_TCP_RTO_MAX_MS)
        r = NET_TCP_RTO_MAX_MS;
    return r;
}

static void arm_rto(struct tcp_conn *c) { c->rto_deadline = now_of(c) + tcp_current_rto(c); }

/* RFC 6298 section 2, in integer ms: srtt8 = 8*SRTT, rttvar4 = 4*RTTVAR = K*RTTVAR. */
static void rtt_update(struct tcp_conn *c, uint64_t sample)
{
    uint32_t r = sample > 120000u ? 120000u : (uint32_t)sample;
    if (r == 0)
        r = 1;
    if (!c->rtt_valid) {
        c->srtt8 = r * 8;
        c->rttvar4 = r * 2;
        c->rtt_valid = true;
    } else {
        uint32_t srtt = c->srtt8 / 8;
        uint32_t delta = r > srtt ? r - srtt : srtt - r;
        c->rttvar4 = c->rttvar4 - c->rttvar4 / 4 + delta;
        c->srtt8 = c->srtt8 - c->srtt8 / 8 + r;
    }
    uint32_t rto = c->srtt8 / 8 + (c->rttvar4 > 1 ? c->rttvar4 : 1);
    if (rto < NET_TCP_RTO_MIN_MS)
        rto = NET_TCP_RTO_MIN_MS;
    if (rto > NET_TCP_RTO_MAX_MS)
        rto = NET_TCP_RTO_MAX_MS;
    c->rto_ms = rto;
}

/* Writes a TCP header at t; returns its length. Options: a SYN's (syn_opt: MSS, and SACK-permitted with NET_TCP_SACK),
 * or one SACK block [sack[0], sack[1]) (sack not NULL), each padded with NOPs to a multiple of 4 bytes. */
static size_t build_header(uint8_t *t, uint16_t sport, uint16_t dport, uint32_t seq, uint32_t ack,
                           uint8_t flags, uint16_t wnd, bool syn_opt, const uint32_t *sack)
{
    size_t hl = TCP_HDR_LEN;
    if (syn_opt) {
        t[hl] = TCP_OPT_MSS;
        t[hl + 1] = 4;
        net_wr16(t + hl + 2, NET_TCP_MSS);
        hl += 4;
#if NET_TCP_SACK
        t[hl] = TCP_OPT_NOP;
        t[hl + 1] = TCP_OPT_NOP;
        t[hl + 2] = TCP_OPT_SACK_PERM;
        t[hl + 3] = 2;
        hl += 4;
#endif
    } else if (sack != NULL) {
        t[hl] = TCP_OPT_NOP;
        t[hl + 1] = TCP_OPT_NOP;
        t[hl + 2] = TCP_OPT_SACK;
        t[hl + 3] = 10;
        net_wr32(t + hl + 4, sack[0]);
        net_wr32(t + hl + 8, sack[1]);
        hl += 12;
    }
    net_wr16(t + 0, sport);
    net_wr16(t + 2, dport);
    net_wr32(t + 4, seq);
    net_wr32(t + 8, ack);
    t[12] = (uint8_t)((hl / 4) << 4);
    t[13] = flags;
    net_wr16(t + 14, wnd);
    net_wr16(t + 16, 0);
    net_wr16(t + 18, 0);
    return hl;
}

static void set_checksum(const struct net_stack *s, uint8_t *t, uint32_t dst, size_t len)
{
    uint32_t sum = net_csum_pseudo(s->cfg.ip, dst, IP_PROTO_TCP, (uint16_t)len);
    net_wr16(t + 16, net_csum_fold(net_csum_add(sum, t, len)));
}

/* Sends one segment of connection c starting at seq with len payload bytes from the ring. */
static bool conn_send(struct tcp_conn *c, uint32_t seq, uint8_t flags, size_t len)
{
    struct net_stack *s = c->stack;
    uint8_t *t = ipv4_tx_payload(s);
    bool syn = (flags & TCP_FLAG_SYN) != 0;
    uint32_t ack = (flags & TCP_FLAG_ACK) ? c->rcv_nxt : 0;
    uint32_t blk[2];
    const uint32_t *sack = NULL;
    if (c->sack_ok && flags == TCP_FLAG_ACK && len == 0 && c->ooo_len > 0 && seq_gt(c->ooo_seq, c->rcv_nxt)) {
        blk[0] = c->ooo_seq; /* a pure ACK (the engine's frames keep their fixed header) while bytes are held */
        blk[1] = c->ooo_seq + c->ooo_len;
        sack = blk;
        s->cnt.tcp_sack_out++;
    }
    size_t hl = build_header(t, c->local_port, c->remote_port, seq, ack, flags,
                             (uint16_t)NET_TCP_RCV_WND, syn, sack);
    if (len) {
        size_t idx = seq & RING_MASK;
        size_t first = NET_TCP_SNDBUF - idx;
        if (first > len)
            first = len;
        memcpy(t + hl, c->sndbuf + idx, first);
        memcpy(t + hl + first, c->sndbuf, len - first);
    }
    set_checksum(s, t, c->remote_ip, hl + len);
    if (flags & TCP_FLAG_ACK) {
        c->ack_pending = false;
#if NET_TCP_SKIP_HELD > 0
        c->skip_unacked = 0;
        c->delack_deadline = 0;
#endif
    }
    if (flags & TCP_FLAG_RST)
        s->cnt.tcp_rst_out++;
    s->cnt.tcp_tx++;
    return ipv4_send(s, c->remote_ip, IP_PROTO_TCP, hl + len);
}

static void send_ack(struct tcp_conn *c) { conn_send(c, c->snd_nxt, TCP_FLAG_ACK, 0); }

/* RST in answer to a segment that belongs to no connection (RFC 9293 3.10.7.1). */
static void send_rst_reply(struct net_stack *s, const struct ipv4_hdr *ih, const struct seg *g)
{
    uint8_t *t = ipv4_tx_payload(s);
    uint32_t seq = 0, ack = 0;
    uint8_t flags = TCP_FLAG_RST;
    if (g->flags & TCP_FLAG_ACK) {
        seq = g->ack;
    } else {
        ack = g->seq + (uint32_t)g->dlen + ((g->flags & TCP_FLAG_SYN) ? 1u : 0u) +
              ((g->flags & TCP_FLAG_FIN) ? 1u : 0u);
        flags |= TCP_FLAG_ACK;
    }
    size_t hl = build_header(t, g->dport, g->sport, seq, ack, flags, 0, false, NULL);
    set_checksum(s, t, ih->src, hl);
    s->cnt.tcp_rst_out++;
    s->cnt.tcp_tx++;
    ipv4_send_to_mac(s, ih->eth->src, ih->src, IP_PROTO_TCP, hl);
}

/* The states in which the peer's data is still taken (its FIN not received yet). */
static bool receiving_state(enum tcp_state st)
{
    return st == TCP_ESTABLISHED || st == TCP_FIN_WAIT_1 || st == TCP_FIN_WAIT_2;
}

static bool sending_state(enum tcp_state st)
{
    return st == TCP_ESTABLISHED || st == TCP_CLOSE_WAIT || st == TCP_FIN_WAIT_1 || st == TCP_CLOSING ||
           st == TCP_LAST_ACK;
}

/* Sends whatever the peer's window allows, then the FIN when queued and due. */
static void tcp_output(struct tcp_conn *c)
{
    if (!sending_state(c->state) || c->hw_armed || c->fin_sent)
        return;
    for (;;) {
        uint32_t unsent = seq_lt(c->snd_nxt, c->snd_end) ? c->snd_end - c->snd_nxt : 0;
        uint32_t inflight = c->snd_nxt - c->snd_una;
        uint32_t usable = c->snd_wnd > inflight ? c->snd_wnd - inflight : 0;
        uint32_t n = unsent;
        if (n > usable)
            n = usable;
        if (n > c->snd_mss)
            n = c->snd_mss;
        if (n == 0) {
            if (unsent && c->snd_wnd == 0 && inflight == 0 && c->persist_deadline == 0)
                c->persist_deadline = now_of(c) + tcp_current_rto(c);
            break;
        }
        bool last = n == unsent;
        bool fin = last && c->fin_queued;
        uint8_t flags = (uint8_t)(TCP_FLAG_ACK | (last ? TCP_FLAG_PSH : 0) | (fin ? TCP_FLAG_FIN : 0));
        if (!c->rtt_timing) {
            c->rtt_timing = true;
            c->rtt_seq = c->snd_nxt + n;
            c->rtt_start_ms = now_of(c);
        }
        conn_send(c, c->snd_nxt, flags, n);
        c->snd_nxt += n;
        c->stack->cnt.tcp_tx_bytes += n;
        if (fin) {
            c->fin_sent = true;
            c->snd_nxt++;
        }
        if (c->rto_deadline == 0)
            arm_rto(c);
        if (fin)
            return;
    }
    if (c->fin_queued && !c->fin_sent && c->snd_nxt == c->snd_end) {
        conn_send(c, c->snd_nxt, TCP_FLAG_FIN | TCP_FLAG_ACK, 0);
        c->fin_sent = true;
        c->snd_nxt++;
        if (c->rto_deadline == 0)
            arm_rto(c);
    }
}

/* Resends the oldest unacknowledged segment (SYN, data and/or FIN). */
static void retransmit(struct tcp_conn *c)
{
    if (c->state == TCP_SYN_SENT) {
        conn_send(c, c->iss, TCP_FLAG_SYN, 0);
        return;
    }
    uint32_t data_end = seq_lt(c->snd_nxt, c->snd_end) ? c->snd_nxt : c->snd_end;
    uint32_t n = seq_lt(c->snd_una, data_end) ? data_end - c->snd_una : 0;
    if (n > c->snd_mss)
        n = c->snd_mss;
    uint8_t flags = TCP_FLAG_ACK;
    if (n)
        flags |= TCP_FLAG_PSH;
    if (c->fin_sent && c->snd_una + n == c->snd_end)
        flags |= TCP_FLAG_FIN;
    if (n == 0 && !(flags & TCP_FLAG_FIN))
        return;
    conn_send(c, c->snd_una, flags, n);
}

/* The option of this kind and length among a segment's options, NULL when absent (or the list is malformed first). */
static const uint8_t *find_opt(const uint8_t *opt, size_t len, uint8_t want, uint8_t want_len)
{
    size_t i = 0;
    while (i < len) {
        uint8_t kind = opt[i];
        if (kind == 0)
            break;
        if (kind == 1) {
            i++;
            continue;
        }
        if (i + 1 >= len)
            break;
        uint8_t l = opt[i + 1];
        if (l < 2 || i + l > len)
            break;
        if (kind == want && l == want_len)
            return opt + i;
        i += l;
    }
    return NULL;
}

static uint16_t parse_mss(const uint8_t *opt, size_t len)
{
    const uint8_t *o = find_opt(opt, len, TCP_OPT_MSS, 4);
    return o ? net_rd16(o + 2) : 0;
}

static void enter_time_wait(struct tcp_conn *c)
{
    c->state = TCP_TIME_WAIT;
    c->rto_deadline = 0;
    c->persist_deadline = 0;
    if (c->ack_pending)
        send_ack(c);
    if (NET_TCP_TIME_WAIT_MS == 0) {
        conn_done(c);
        return;
    }
    c->linger_deadline = now_of(c) + NET_TCP_TIME_WAIT_MS;
    if (c->cb && c->cb->on_closed)
        c->cb->on_closed(c, c->user);
}

static void syn_sent_input(struct tcp_conn *c, const struct ipv4_hdr *ih, const struct seg *g)
{
    struct net_stack *s = c->stack;
    if ((g->flags & TCP_FLAG_ACK) && g->ack != c->iss + 1) {
        if (!(g->flags & TCP_FLAG_RST))
            send_rst_reply(s, ih, g);
        return;
    }
    if (g->flags & TCP_FLAG_RST) {
        if (g->flags & TCP_FLAG_ACK) {
            s->cnt.tcp_rst_in++;
            conn_fail(c, TCP_ERR_REFUSED);
        }
        return;
    }
    if (!(g->flags & TCP_FLAG_SYN) || !(g->flags & TCP_FLAG_ACK))
        return;   /* simultaneous open not supported */
    uint16_t mss = parse_mss(g->opt, g->optlen);
    if (mss == 0)
        mss = NET_TCP_DEFAULT_MSS;
    if (mss > NET_TCP_MSS)
        mss = NET_TCP_MSS;
    if (mss < 64)
        mss = 64;
    c->snd_mss = mss;
    c->sack_ok = NET_TCP_SACK && find_opt(g->opt, g->optlen, TCP_OPT_SACK_PERM, 2) != NULL;
    c->irs = g->seq;
    c->rcv_nxt = g->seq + 1;
    c->snd_una = g->ack;
    c->snd_end = c->snd_nxt;
    c->snd_wnd = g->wnd;
    c->snd_wl1 = g->seq;
    c->snd_wl2 = g->ack;
    if (c->rtt_timing)
        rtt_update(c, now_of(c) - c->rtt_start_ms);
    c->rtt_timing = false;
    c->rto_deadline = 0;
    c->retries = 0;
    c->backoff = 0;
    c->state = TCP_ESTABLISHED;
    send_ack(c);
    if (c->cb && c->cb->on_connected)
        c->cb->on_connected(c, c->user);
}

/* Keeps out-of-order payload in one contiguous range (NET_TCP_OOO_BUF bytes at most). */
static void ooo_hold(struct tcp_conn *c, uint32_t seq, const uint8_t *data, size_t dlen)
{
#if NET_TCP_OOO_BUF > 0
    uint32_t wnd_end = c->rcv_nxt + NET_TCP_RCV_WND;
    if (dlen == 0)
        return;
    if (seq_gt(seq + (uint32_t)dlen, wnd_end))
        dlen = wnd_end - seq;                      /* seq itself is inside the window */
    if (c->ooo_len == 0) {
        c->ooo_seq = seq;
    } else if (seq != c->ooo_seq + c->ooo_len) {
        return;                                    /* not extending the held range: dropped */
    }
    uint32_t room = NET_TCP_OOO_BUF - c->ooo_len;
    if (dlen > room)
        dlen = room;
    memcpy(c->ooo_buf + c->ooo_len, data, dlen);
    c->ooo_len += (uint32_t)dlen;
    c->stack->cnt.tcp_ooo_held++;
#else
    (void)c;
    (void)seq;
    (void)data;
    (void)dlen;
#endif
}

#if NET_TCP_SKIP_HELD > 0
static bool skip_apply(struct tcp_conn *c, uint32_t gen);
#endif

/* Delivers len in-order bytes that start at rcv_nxt: rcv_nxt moves over them and on_data gets them, except the ranges
 * of held skips inside them (a receive offload's bytes, tcp_rx_skip), which are skipped where they start. Returns
 * false when the connection went away in a callback. */
static inline __attribute__((always_inline)) bool deliver_body(struct tcp_conn *c, uint32_t gen, const uint8_t *data,
                                                              uint32_t len, bool ooo)
{
    while (len > 0) {
        uint32_t n = len;
#if NET_TCP_SKIP_HELD > 0
        for (unsigned i = 0; i < c->skip_n; i++) /* skips at or before rcv_nxt are applied already */
            if (seq_gt(c->skip_seq[i], c->rcv_nxt) && seq_lt(c->skip_seq[i], c->rcv_nxt + n)) n = c->skip_seq[i] - c->rcv_nxt;
#endif
        c->rcv_nxt += n;
        c->stack->cnt.tcp_rx_bytes += n;
        if (ooo) c->stack->cnt.tcp_ooo_delivered += n;
        if (c->cb && c->cb->on_data) {
            c->cb->on_data(c, c->user, data, n);
            if (c->gen != gen)
                return false;
        }
        data += n;
        len -= n;
#if NET_TCP_SKIP_HELD > 0
        uint32_t at = c->rcv_nxt;
        if (!skip_apply(c, gen))
            return false;
        uint32_t moved = c->rcv_nxt - at; /* over skips (and held data they reached): those bytes of ours are old */
        if (moved >= len)
            break;
        data += moved;
        len -= moved;
#endif
    }
    return true;
}

static __attribute__((noinline)) bool deliver(struct tcp_conn *c, uint32_t gen, const uint8_t *data, uint32_t len,
                                              bool ooo)
{
    return deliver_body(c, gen, data, len, ooo);
}
/* A segment's in-order data (sync_input) goes through a copy in line where the RAM has room (TF_MEM_WORDS,
 * fw/Makefile): deliver's call saved registers through the -msave-restore routines before the owner's callback. The
 * 35=W receive path: netif_poll and deliver 538 -> 516 cycles a W and 9 of the shared routines' (profiling build,
 * sim/tests/run.sh w_cost with +pc-hist, tools/pc-hist.py), for 112 bytes of code. */
#if defined(TF_MEM_WORDS) && TF_MEM_WORDS
#define DELIVER_IN_ORDER deliver_body
#else
#define DELIVER_IN_ORDER deliver
#endif

/* After in-order data: delivers the held range if the hole is now filled. Returns false when
 * the connection went away in the callback. */
static bool ooo_deliver(struct tcp_conn *c, uint32_t gen)
{
#if NET_TCP_OOO_BUF > 0
    if (c->ooo_len == 0 || seq_gt(c->ooo_seq, c->rcv_nxt))
        return true;
    uint32_t skip = c->rcv_nxt - c->ooo_seq;
    uint32_t len = c->ooo_len;
    c->ooo_len = 0;
    if (skip >= len)
        return true;                               /* all of it arrived again in order */
    return deliver(c, gen, c->ooo_buf + skip, len - skip, true);
#else
    (void)c;
    (void)gen;
    return true;
#endif
}

#if NET_TCP_SKIP_HELD > 0
/* Skipped bytes wait for their ACK, as Linux's delayed ACK: at once from two full segments' worth. */
static void skip_ack(struct tcp_conn *c, uint32_t n)
{
    c->skip_unacked += n;
    if (c->skip_unacked >= 2u * NET_TCP_MSS)
        c->ack_pending = true;
    else if (!c->delack_deadline)
        c->delack_deadline = now_of(c) + NET_TCP_DELACK_MS;
}

/* Applies every held skip rcv_nxt has reached, and the held out-of-order data each one reaches in turn. Returns
 * false when the connection went away in a callback. */
static bool skip_apply(struct tcp_conn *c, uint32_t gen)
{
    for (unsigned i = 0; i < c->skip_n;) {
        uint32_t from = c->skip_seq[i], end = from + c->skip_len[i];
        if (seq_gt(from, c->rcv_nxt)) {
            i++;
            continue;
        }
        c->skip_n--;
        c->skip_seq[i] = c->skip_seq[c->skip_n];
        c->skip_len[i] = c->skip_len[c->skip_n];
        if (seq_gt(end, c->rcv_nxt)) {
            uint32_t n = end - c->rcv_nxt;
            from = c->rcv_nxt;
            c->rcv_nxt = end;
            skip_ack(c, n);
            if (c->cb && c->cb->on_skipped) {
                c->cb->on_skipped(c, c->user, from, n);
                if (c->gen != gen)
                    return false;
            }
            if (!ooo_deliver(c, gen))
                return false;
        }
        i = 0; /* rcv_nxt moved: a range passed over before may apply now */
    }
    return true;
}

int tcp_rx_skip(struct tcp_conn *c, uint32_t seq, uint32_t len)
{
    if (!c || !receiving_state(c->state))
        return TCP_SKIP_STATE;
    if (len == 0 || seq_leq(seq + len, c->rcv_nxt))
        return TCP_SKIP_OLD;
    if (seq_gt(seq + len, c->rcv_nxt + NET_TCP_RCV_WND))
        return TCP_SKIP_WINDOW;
    bool now = seq_leq(seq, c->rcv_nxt);
    /* held ranges that touch the new one join it (a run of digested segments is one range; one that bridges two joins
     * all three): absorbed in one pass, then the whole appended. Held ranges never touch one another, so one pass does. */
    uint32_t end = seq + len;
    for (unsigned i = 0; i < c->skip_n;) {
        uint32_t from = c->skip_seq[i], to = from + c->skip_len[i];
        if (to != seq && from != end) {
            i++;
            continue;
        }
        if (to == seq)
            seq = from;
        else
            end = to;
        c->skip_n--;
        c->skip_seq[i] = c->skip_seq[c->skip_n];
        c->skip_len[i] = c->skip_len[c->skip_n];
    }
    if (c->skip_n == NET_TCP_SKIP_HELD) /* only when nothing joined: nothing changed */
        return TCP_SKIP_FULL;
    c->skip_seq[c->skip_n] = seq;
    c->skip_len[c->skip_n++] = end - seq;
    uint32_t gen = c->gen;
    if (skip_apply(c, gen) && c->ack_pending)
        send_ack(c);
    return now ? TCP_SKIP_OK : TCP_SKIP_HELD;
}
#endif

/* seq_leq(rcv_nxt, x) && seq_lt(x, rcv_nxt + NET_TCP_RCV_WND): d = x - rcv_nxt (mod 2^32) in [0, 2^31] and d - WND
 * "negative", which for a window below 2^31 is d < WND. One compare, which the compiler puts in line (it called the
 * two compares' function): the 35=W receive path's netif_poll and in_rcv_window 507 -> 492 cycles a W, w_cost avg
 * 4,712 -> 4,689 (profiling build, sim/tests/run.sh w_cost with +pc-hist, tools/pc-hist.py), 72 bytes less code. */
_Static_assert(NET_TCP_RCV_WND > 0 && NET_TCP_RCV_WND < 0x80000000u, "in_rcv_window: a window below 2^31");
static bool in_rcv_window(const struct tcp_conn *c, uint32_t x) { return x - c->rcv_nxt < NET_TCP_RCV_WND; }

/* Segment processing in synchronized states (RFC 9293 3.10.7.4), owner callbacks included. */
static void sync_input(struct tcp_conn *c, struct seg *g)
{
    struct net_stack *s = c->stack;
    uint32_t gen = c->gen;
    uint32_t seq = g->seq;
    uint32_t seg_len = (uint32_t)g->dlen + ((g->flags & TCP_FLAG_SYN) ? 1u : 0u) +
                       ((g->flags & TCP_FLAG_FIN) ? 1u : 0u);
    bool ok = seg_len == 0 ? in_rcv_window(c, seq)
                           : in_rcv_window(c, seq) || in_rcv_window(c, seq + seg_len - 1);
    if (!ok) {
        if (!(g->flags & TCP_FLAG_RST)) {
            if (seq_leq(seq + seg_len, c->rcv_nxt))
                s->cnt.tcp_dup_data++;
            else
                s->cnt.tcp_out_of_window++;
            send_ack(c);
        }
        return;
    }
    if (g->flags & TCP_FLAG_RST) {
        if (seq == c->rcv_nxt) {
            s->cnt.tcp_rst_in++;
            if (c->state == TCP_TIME_WAIT)
                conn_free(c);
            else
                conn_fail(c, TCP_ERR_RESET);
        } else {
            s->cnt.tcp_challenge_ack++;
            send_ack(c);
        }
        return;
    }
    if (g->flags & TCP_FLAG_SYN) {
        s->cnt.tcp_challenge_ack++;
        send_ack(c);
        return;
    }
    if (!(g->flags & TCP_FLAG_ACK))
        return;

    /* ACK field */
    uint32_t ack = g->ack;
    if (seq_gt(ack, c->snd_nxt)) {
        /* (a FIN the hardware is sending counts as one more number: tcp_hw_fin_wanted) */
        uint32_t lease_end = c->snd_nxt + c->hw_max + (c->fin_queued && !c->fin_sent ? 1u : 0u);
        if (!(c->hw_armed && seq_leq(ack, lease_end))) {
            s->cnt.tcp_bad_ack++;
            send_ack(c);
            return;
        }
        /* the hardware's segment ACKed before tcp_adopt_sent: ignore the ACK field */
    } else if (seq_gt(ack, c->snd_una)) {
        if (c->rtt_timing && seq_geq(ack, c->rtt_seq)) {
            rtt_update(c, now_of(c) - c->rtt_start_ms);
            c->rtt_timing = false;
        }
        c->snd_una = ack;
        c->dupacks = 0;
        c->retries = 0;
        c->backoff = 0;
        c->persist_deadline = 0;
        if (c->snd_una == c->snd_nxt)
            c->rto_deadline = 0;
        else
            arm_rto(c);
    } else if (ack == c->snd_una) {
        if (g->dlen == 0 && !(g->flags & TCP_FLAG_FIN) && g->wnd == c->snd_wnd && c->snd_nxt != c->snd_una) {
            if (++c->dupacks == NET_TCP_DUPACK_THRESH) {
                s->cnt.tcp_fast_retransmit++;
                c->rtt_timing = false;
                retransmit(c);
                arm_rto(c);
            }
        }
        if (g->wnd == 0)
            c->retries = 0;   /* the peer answers our probes: it is alive */
    }
    if (ack == c->snd_una &&
        (seq_lt(c->snd_wl1, seq) || (c->snd_wl1 == seq && seq_leq(c->snd_wl2, ack)))) {
        c->snd_wnd = g->wnd;
        c->snd_wl1 = seq;
        c->snd_wl2 = ack;
        if (g->wnd != 0)
            c->persist_deadline = 0;
    }
    bool fin_acked = c->fin_sent && c->snd_una == c->snd_nxt;
    switch (c->state) {
    case TCP_FIN_WAIT_1:
        if (fin_acked) {
            c->state = TCP_FIN_WAIT_2;
            c->linger_deadline = now_of(c) + NET_TCP_FIN_WAIT2_MS;
        }
        break;
    case TCP_CLOSING:
        if (fin_acked) {
            enter_time_wait(c);
            return;
        }
        break;
    case TCP_LAST_ACK:
        if (fin_acked) {
            conn_done(c);
            return;
        }
        break;
    default:
        break;
    }

    /* Payload: only the byte at rcv_nxt onwards, in order. */
    bool fin = (g->flags & TCP_FLAG_FIN) != 0;
    bool receiving = receiving_state(c->state);
    if ((g->dlen > 0 || fin) && seq_gt(seq, c->rcv_nxt)) {
        s->cnt.tcp_out_of_order++;
        if (receiving)
            ooo_hold(c, seq, g->data, g->dlen);
        send_ack(c);                   /* duplicate ACK: tells the peer where the hole is */
        return;
    }
    if (g->dlen > 0 && receiving) {
        const uint8_t *data = g->data;
        size_t dlen = g->dlen;
        uint32_t skip = c->rcv_nxt - seq;
        if (skip > 0) {
            s->cnt.tcp_dup_data++;
            data += skip;
            dlen -= skip;
        }
        if (dlen > NET_TCP_RCV_WND) {
            dlen = NET_TCP_RCV_WND;
            fin = false;
        }
        seq = c->rcv_nxt;
        if (dlen > 0) {
            if (c->state == TCP_FIN_WAIT_2)   /* the peer is still sending: keep waiting */
                c->linger_deadline = now_of(c) + NET_TCP_FIN_WAIT2_MS;
            c->ack_pending = true;
            if (!DELIVER_IN_ORDER(c, gen, data, (uint32_t)dlen, false))
                return;
            seq += (uint32_t)dlen;
            if (!ooo_deliver(c, gen))
                return;
#if NET_TCP_SKIP_HELD > 0
            if (!skip_apply(c, gen))
                return;
#endif
            if (c->rcv_nxt != seq) {
                seq = c->rcv_nxt;      /* held bytes followed: a FIN in this segment is now old */
                fin = false;
            }
        } else {
            seq += (uint32_t)dlen;
        }
    } else {
        seq += (uint32_t)g->dlen;
    }

    /* FIN, when it is the next thing in sequence and the peer's stream has not ended yet: after its FIN
     * (LAST_ACK, CLOSING, TIME_WAIT) a FIN at the next number is bogus (a retransmission has the old one) */
    if (fin && receiving && seq == c->rcv_nxt) {
        c->rcv_nxt++;
        c->ack_pending = true;
        fin_acked = c->fin_sent && c->snd_una == c->snd_nxt;
        switch (c->state) {
        case TCP_ESTABLISHED:
            /* passive close: close our side too once the buffer has drained */
            c->state = TCP_LAST_ACK;
            c->fin_queued = true;
            break;
        case TCP_FIN_WAIT_1:
            if (fin_acked) {
                enter_time_wait(c);
                return;
            }
            c->state = TCP_CLOSING;
            break;
        case TCP_FIN_WAIT_2:
            enter_time_wait(c);
            return;
        default:
            break;
        }
    }
    tcp_output(c);
    if (c->gen == gen && c->ack_pending)
        send_ack(c);
}

void tcp_input(struct net_stack *s, const struct ipv4_hdr *ih)
{
    const uint8_t *t = ih->payload;
    size_t len = ih->payload_len;
    struct seg g;
    s->cnt.tcp_rx++;
    if (len < TCP_HDR_LEN) {
        s->cnt.tcp_bad_header++;
        return;
    }
    size_t hl = (size_t)(t[12] >> 4) * 4;
    if (hl < TCP_HDR_LEN || hl > len) {
        s->cnt.tcp_bad_header++;
        return;
    }
    if (ih->eth != NULL && ih->eth->sums_ok) {
        s->cnt.tcp_sum_verified++; /* the receiver summed it at line rate */
    } else if (net_csum_fold(net_csum_add(net_csum_pseudo(ih->src, ih->dst, IP_PROTO_TCP, (uint16_t)len), t, len)) != 0) {
        s->cnt.tcp_bad_checksum++;
        return;
    }
    g.sport = net_rd16(t);
    g.dport = net_rd16(t + 2);
    g.seq = net_rd32(t + 4);
    g.ack = net_rd32(t + 8);
    g.flags = t[13] & 0x3F;
    g.wnd = net_rd16(t + 14);
    g.opt = t + TCP_HDR_LEN;
    g.optlen = hl - TCP_HDR_LEN;
    g.data = t + hl;
    g.dlen = len - hl;

    struct tcp_conn *c = NULL;
    for (unsigned i = 0; i < NET_TCP_MAX_CONNS; i++) {
        struct tcp_conn *x = &s->tcp[i];
        if (x->state != TCP_CLOSED && x->local_port == g.dport && x->remote_port == g.sport &&
            x->remote_ip == ih->src) {
            c = x;
            break;
        }
    }
    if (!c) {
        s->cnt.tcp_no_conn++;
        if (!(g.flags & TCP_FLAG_RST))
            send_rst_reply(s, ih, &g);
        return;
    }
    if (c->state == TCP_SYN_SENT)
        syn_sent_input(c, ih, &g);
    else
        sync_input(c, &g);
}

void tcp_poll(struct net_stack *s)
{
    for (unsigned i = 0; i < NET_TCP_MAX_CONNS; i++) {
        struct tcp_conn *c = &s->tcp[i];
        uint64_t now = s->now_ms;
        if (c->state == TCP_CLOSED)
            continue;
        if (c->linger_deadline && now >= c->linger_deadline) {
            if (c->state == TCP_TIME_WAIT) {
                conn_free(c);              /* on_closed was called when entering TIME_WAIT */
                continue;
            }
            if (c->state == TCP_FIN_WAIT_2) {
                conn_done(c);
                continue;
            }
            c->linger_deadline = 0;
        }
        if (c->rto_deadline && now >= c->rto_deadline) {
            unsigned limit = c->state == TCP_SYN_SENT ? NET_TCP_SYN_RETRIES : NET_TCP_DATA_RETRIES;
            if (c->retries >= limit) {
                s->cnt.tcp_timeout++;
                conn_fail(c, TCP_ERR_TIMEOUT);
                continue;
            }
            c->retries++;
            if (c->backoff < MAX_BACKOFF)
                c->backoff++;
            c->rtt_timing = false;    /* Karn: no sample from a retransmitted sequence */
            c->dupacks = 0;
            s->cnt.tcp_retransmit++;
            retransmit(c);
            arm_rto(c);
        }
#if NET_TCP_SKIP_HELD > 0
        if (c->delack_deadline && now >= c->delack_deadline)
            send_ack(c);
#endif
        if (c->persist_deadline && now >= c->persist_deadline) {
            c->persist_deadline = 0;
            if (sending_state(c->state) && !c->hw_armed && c->snd_wnd == 0 && c->snd_nxt == c->snd_una &&
                seq_lt(c->snd_nxt, c->snd_end)) {
                s->cnt.tcp_window_probe++;
                conn_send(c, c->snd_nxt, TCP_FLAG_ACK | TCP_FLAG_PSH, 1);
                c->snd_nxt++;
                c->stack->cnt.tcp_tx_bytes++;
                c->rtt_timing = false;
                if (c->backoff < MAX_BACKOFF)
                    c->backoff++;
                arm_rto(c);
            }
        }
    }
}

void tcp_arp_event(struct net_stack *s, uint32_t ip, bool ok)
{
    uint32_t gens[NET_TCP_MAX_CONNS];
    bool match[NET_TCP_MAX_CONNS];
    for (unsigned i = 0; i < NET_TCP_MAX_CONNS; i++) {
        struct tcp_conn *c = &s->tcp[i];
        match[i] = c->state == TCP_SYN_SENT && ipv4_next_hop(s, c->remote_ip) == ip;
        gens[i] = c->gen;
    }
    for (unsigned i = 0; i < NET_TCP_MAX_CONNS; i++) {
        struct tcp_conn *c = &s->tcp[i];
        if (!match[i] || c->gen != gens[i] || c->state != TCP_SYN_SENT)
            continue;
        if (ok) {
            /* the SYN could not leave before: send it now and restart its timer */
            c->rtt_timing = conn_send(c, c->iss, TCP_FLAG_SYN, 0) && c->retries == 0;
            c->rtt_start_ms = s->now_ms;
            arm_rto(c);
        } else {
            conn_fail(c, TCP_ERR_UNREACHABLE);
        }
    }
}

struct tcp_conn *tcp_connect(struct net_stack *s, uint32_t ip, uint16_t port,
                             const struct tcp_callbacks *cb, void *user)
{
    if (s->cfg.ip == 0 || ip == 0 || port == 0)
        return NULL;
    struct tcp_conn *c = NULL;
    for (unsigned i = 0; i < NET_TCP_MAX_CONNS && !c; i++)
        if (s->tcp[i].state == TCP_CLOSED)
            c = &s->tcp[i];
    for (unsigned i = 0; i < NET_TCP_MAX_CONNS && !c; i++)
        if (s->tcp[i].state == TCP_TIME_WAIT) {
            c = &s->tcp[i];
            conn_free(c);
        }
    if (!c)
        return NULL;
    uint16_t lport = 0;
    for (unsigned tries = 0; tries < 32 && lport == 0; tries++) {
        uint16_t p = (uint16_t)(NET_TCP_PORT_MIN + (s->ops->rand32(s->ctx) & 0x3FFFu));
        bool used = false;
        for (unsigned i = 0; i < NET_TCP_MAX_CONNS; i++)
            if (s->tcp[i].state != TCP_CLOSED && s->tcp[i].local_port == p)
                used = true;
        if (!used)
            lport = p;
    }
    if (lport == 0)
        return NULL;
    c->state = TCP_SYN_SENT;
    c->cb = cb;
    c->user = user;
    c->remote_ip = ip;
    c->remote_port = port;
    c->local_port = lport;
    c->iss = s->ops->rand32(s->ctx);
    c->snd_una = c->iss;
    c->snd_nxt = c->iss + 1;
    c->snd_end = c->iss + 1;
    c->snd_mss = NET_TCP_DEFAULT_MSS;
    c->rto_ms = NET_TCP_RTO_INIT_MS;
    c->rtt_seq = c->iss + 1;
    c->rtt_start_ms = s->now_ms;
    c->rtt_timing = conn_send(c, c->iss, TCP_FLAG_SYN, 0);
    arm_rto(c);
    return c;
}

size_t tcp_send_space(const struct tcp_conn *c)
{
    if (!c || c->state != TCP_ESTABLISHED || c->fin_queued)
        return 0;
    return NET_TCP_SNDBUF - (size_t)(c->snd_end - c->snd_una);
}

size_t tcp_send_unacked(const struct tcp_conn *c)
{
    if (!c || c->state == TCP_CLOSED || c->state == TCP_SYN_SENT || !seq_lt(c->snd_una, c->snd_end))
        return 0;
    return c->snd_end - c->snd_una;
}

size_t tcp_send_unsent(const struct tcp_conn *c)
{
    if (!c || c->state == TCP_CLOSED || !seq_lt(c->snd_nxt, c->snd_end))
        return 0;
    return c->snd_end - c->snd_nxt;
}

size_t tcp_send(struct tcp_conn *c, const void *data, size_t len)
{
    if (!c || c->hw_armed)
        return 0;
    size_t n = tcp_send_space(c);
    if (n > len)
        n = len;
    if (n == 0)
        return 0;
    size_t idx = c->snd_end & RING_MASK;
    size_t first = NET_TCP_SNDBUF - idx;
    if (first > n)
        first = n;
    memcpy(c->sndbuf + idx, data, first);
    memcpy(c->sndbuf, (const uint8_t *)data + first, n - first);
    c->snd_end += (uint32_t)n;
    tcp_output(c);
    return n;
}

void tcp_close(struct tcp_conn *c)
{
    if (!c)
        return;
    switch (c->state) {
    case TCP_SYN_SENT:
        conn_free(c);          /* nothing established: silently forget (no callback) */
        break;
    case TCP_ESTABLISHED:
        c->fin_queued = true;
        c->state = TCP_FIN_WAIT_1;
        tcp_output(c);
        break;
    case TCP_CLOSE_WAIT:
        c->fin_queued = true;
        c->state = TCP_LAST_ACK;
        tcp_output(c);
        break;
    default:
        break;
    }
}

void tcp_abort(struct tcp_conn *c)
{
    if (!c || c->state == TCP_CLOSED)
        return;
    if (c->state != TCP_SYN_SENT && c->state != TCP_TIME_WAIT)
        conn_send(c, c->snd_nxt, TCP_FLAG_RST | TCP_FLAG_ACK, 0);
    conn_free(c);
}

enum tcp_state tcp_get_state(const struct tcp_conn *c) { return c ? c->state : TCP_CLOSED; }

uint16_t tcp_local_port(const struct tcp_conn *c) { return c ? c->local_port : 0; }

uint32_t tcp_hw_rcv_nxt(const struct tcp_conn *c) { return c ? c->rcv_nxt : 0; }

const char *tcp_state_name(enum tcp_state st)
{
    static const char *const names[] = {"CLOSED", "SYN_SENT", "ESTABLISHED", "FIN_WAIT_1", "FIN_WAIT_2",
                                        "CLOSING", "TIME_WAIT", "CLOSE_WAIT", "LAST_ACK"};
    return (unsigned)st < sizeof(names) / sizeof(names[0]) ? names[st] : "?";
}

bool tcp_hw_arm(struct tcp_conn *c, size_t max_len, uint32_t *seq_out)
{
    if (!c || c->state != TCP_ESTABLISHED || c->fin_queued)
        return false;
    if (c->snd_nxt != c->snd_end || max_len > tcp_send_space(c))
        return false;
    c->hw_armed = true;
    c->hw_seq = c->snd_nxt;
    c->hw_max = (uint32_t)max_len;
    if (seq_out)
        *seq_out = c->hw_seq;
    return true;
}

bool tcp_hw_extend(struct tcp_conn *c, size_t n)
{
    if (!c || !c->hw_armed || c->hw_max + n > tcp_send_space(c))
        return false;
    c->hw_max += (uint32_t)n;
    return true;
}

void tcp_hw_shrink(struct tcp_conn *c, size_t n)
{
    if (!c || !c->hw_armed)
        return;
    c->hw_max = n < c->hw_max ? c->hw_max - (uint32_t)n : 0;
}

bool tcp_hw_fin_wanted(const struct tcp_conn *c, uint32_t *seq_out)
{
    if (!c || !c->hw_armed || !c->fin_queued || c->fin_sent || !sending_state(c->state) || c->snd_nxt != c->snd_end)
        return false;
    if (seq_out)
        *seq_out = c->snd_end;
    return true;
}

int tcp_adopt_fin(struct tcp_conn *c, uint32_t seq)
{
    if (!c || !c->hw_armed || c->state == TCP_CLOSED)
        return TCP_ADOPT_NOT_ARMED;
    uint32_t want;
    if (!tcp_hw_fin_wanted(c, &want) || seq != want)
        return TCP_ADOPT_BAD_SEQ;
    c->fin_sent = true;
    c->snd_nxt = c->snd_end + 1;
    c->hw_seq = c->snd_nxt;
    if (c->rto_deadline == 0)
        arm_rto(c);
    return TCP_ADOPT_OK;
}

void tcp_hw_disarm(struct tcp_conn *c)
{
    if (!c || !c->hw_armed)
        return;
    c->hw_armed = false;
    tcp_output(c);   /* a FIN queued meanwhile may go now */
}

int tcp_adopt_sent(struct tcp_conn *c, uint32_t seq, const uint8_t *data, size_t len)
{
    if (!c || !c->hw_armed || c->state == TCP_CLOSED)
        return TCP_ADOPT_NOT_ARMED;
    if (seq != c->hw_seq || seq != c->snd_end)
        return TCP_ADOPT_BAD_SEQ;
    if (len > c->hw_max)
        return TCP_ADOPT_TOO_LONG;
    size_t idx = c->snd_end & RING_MASK;
    size_t first = NET_TCP_SNDBUF - idx;
    if (first > len)
        first = len;
    memcpy(c->sndbuf + idx, data, first);
    memcpy(c->sndbuf, data + first, len - first);
    c->snd_end += (uint32_t)len;
    c->snd_nxt += (uint32_t)len;
    c->hw_seq += (uint32_t)len;     /* the lease goes on after the adopted bytes */
    c->hw_max -= (uint32_t)len;
    c->stack->cnt.tcp_adopted_bytes += (uint32_t)len;
    if (len && c->rto_deadline == 0)
        arm_rto(c);
    tcp_output(c);
    return TCP_ADOPT_OK;
}

void tcp_backoff_init(struct tcp_backoff *b, uint32_t min_ms, uint32_t max_ms)
{
    b->min_ms = min_ms ? min_ms : 1;
    b->max_ms = max_ms < b->min_ms ? b->min_ms : max_ms;
    b->cur_ms = b->min_ms;
    b->next_ms = 0;
}

void tcp_backoff_failed(struct tcp_backoff *b, uint64_t now_ms, uint32_t rnd)
{
    uint32_t jitter = rnd % (b->cur_ms / 4 + 1);
    b->next_ms = now_ms + b->cur_ms + jitter;
    b->cur_ms = b->cur_ms > b->max_ms / 2 ? b->max_ms : b->cur_ms * 2;
}

bool tcp_backoff_due(const struct tcp_backoff *b, uint64_t now_ms) { return now_ms >= b->next_ms; }

void tcp_backoff_reset(struct tcp_backoff *b)
{
    b->cur_ms = b->min_ms;
    b->next_ms = 0;
}
