/* FIX client glue (see fixclient.h). In: TCP events and bytes from fw/net, the time (timer_ms), console
 * commands. Out: bytes to TCP, lines on the console. */
#include "app/fixclient.h"

#include "app/digestion.h"

#include <stdio.h>
#include <string.h>

#include "app/netif.h"
#include "app/offload.h"
#include "app/risk.h"
#include "app/stops.h"
#include "drivers/offload_rx.h"
#include "drivers/sysctrl.h"
#include "drivers/timer.h"
#include "fix/utc.h"
#include "lib/console.h"
#include "lib/cyclestat.h"
#include "lib/mproto.h"
#include "lib/prof.h"
#include "lib/parse.h"
#include "net/arp.h"
#include "net/ipv4.h"

/* Build-time defaults (fw/Makefile: FIX_SENDER, FIX_TARGET, FIX_HEARTBEAT, FIX_HOST, FIX_PORT, FIX_SYMBOLS,
 * FIX_ACCOUNT, FIX_PRICE_DECIMALS, FIX_AUTOSTART). */
#ifndef TF_FIX_SENDER
#define TF_FIX_SENDER "TFISH1"
#endif
#ifndef TF_FIX_TARGET
#define TF_FIX_TARGET "EXCH"
#endif
#ifndef TF_FIX_HEARTBEAT
#define TF_FIX_HEARTBEAT 30
#endif
#ifndef TF_FIX_HOST
#define TF_FIX_HOST "10.77.0.1"
#endif
#ifndef TF_FIX_PORT
#define TF_FIX_PORT 9876
#endif
#ifndef TF_FIX_SYMBOLS
#define TF_FIX_SYMBOLS "MSFT"
#endif
#ifndef TF_FIX_ACCOUNT
#define TF_FIX_ACCOUNT "TFISH"
#endif
#ifndef TF_FIX_PRICE_DECIMALS
#define TF_FIX_PRICE_DECIMALS 4
#endif
#ifndef TF_FIX_AUTOSTART
#define TF_FIX_AUTOSTART 0
#endif

#define SYMBOLS_MAX 4
#define SYMBOLS_TEXT_MAX (SYMBOLS_MAX * FIX_SYMBOL_MAX)

static struct {
    char sender[FIX_COMPID_MAX + 1];
    char target[FIX_COMPID_MAX + 1];
    uint32_t heartbeat_s;
    uint32_t host;
    uint16_t port;
    char symbols[SYMBOLS_TEXT_MAX]; /* comma separated */
    char account[FIX_ID_MAX];
    uint32_t price_decimals;
    uint32_t skew_s; /* the peer's SendingTime against our clock: 0 the session's default, UINT32_MAX no check */
} cfg;

typedef enum { FC_OFF = 0, FC_CONNECTING, FC_ONLINE, FC_WAIT } fc_state_t;
static const char *const fc_state_names[] = {"off", "connecting", "online", "waiting to reconnect"};

/* Last market data per subscribed symbol, for `md`. */
typedef struct {
    char symbol[FIX_SYMBOL_MAX];
    uint32_t updates;
    int64_t px[3]; /* bid, offer, trade: the last seen (0: none yet) */
} md_last_t;

static struct {
    fc_state_t state;
    bool want_up;       /* started and not stopped: reconnect when the connection drops */
    bool send_failed;   /* the TCP send buffer refused part of a message: the connection is broken */
    bool closing;       /* tcp_close issued, waiting for on_closed */
    struct tcp_conn *conn;
    struct tcp_backoff backoff;
    uint32_t connects, logons, disconnects;
    uint32_t md_msgs, execs;
    bool watch;         /* print every market data message */
    const char *utc_source;
    /* Cost of one 35=W through the whole firmware receive path: from the cycle netif_poll took the frame's
     * receive slot to the entry of the market data callback, for frames that carry exactly one FIX message. */
    cyclestat_t w_cost;
    cyclestat_t w_cost180;    /* the same for 35=W of 170..190 bytes, the size the target is set for */
    uint32_t w_dt;            /* slot to callback of the last 35=W */
    uint32_t cb_md, cb_other; /* callbacks during the current on_data */
    md_last_t md[SYMBOLS_MAX];
} fc;

#ifdef TF_PROF
uint32_t tf_prof[TF_PROF_MARKS], tf_prof_base;
int tf_prof_exec_seen;
static uint32_t prof_last[TF_PROF_MARKS];
#endif
static fix_session_t session;
static fix_app_t app;
static char clordid_prefix[9];

fix_session_t *fixclient_session(void) { return &session; }
fix_app_t *fixclient_app(void) { return &app; }
struct tcp_conn *fixclient_conn(void) { return fc.state == FC_ONLINE ? fc.conn : NULL; }
unsigned fixclient_price_decimals(void) { return cfg.price_decimals; }

static uint64_t now_ms(void) { return timer_ms(); }

static void print_utc(uint64_t utc_ms) {
    char ts[FIX_UTC_TS_LEN + 1];
    fix_utc_format(ts, utc_ms);
    ts[FIX_UTC_TS_LEN] = 0;
    printf("%s", ts);
}

void fixclient_print_px(int64_t v) {
    char buf[32];
    size_t n = fix_fmt_decimal(buf, v, cfg.price_decimals);
    buf[n] = 0;
    printf("%s", buf);
}
#define print_px fixclient_print_px

/* Splits cfg.symbols ("A,B,C") into out[] (pointers into buf). */
static size_t split_symbols(char *buf, const char *out[SYMBOLS_MAX]) {
    strcpy(buf, cfg.symbols);
    size_t n = 0;
    for (char *p = buf; *p && n < SYMBOLS_MAX;) {
        out[n++] = p;
        char *comma = strchr(p, ',');
        if (!comma) break;
        *comma = 0;
        p = comma + 1;
    }
    return n;
}

/* ---- session <-> TCP ---- */

#ifndef TF_HAS_OFFLOAD
static void sess_send(void *ctx, const uint8_t *data, size_t len) {
    (void)ctx;
    if (!fc.conn || fc.send_failed || fc.closing) return;
    size_t n = tcp_send(fc.conn, data, len);
    if (n != len) {
        /* A partial FIX message on the wire cannot be taken back: drop the connection (fixclient_poll). */
        printf("fix: TCP send buffer full (%lu of %lu): dropping the connection\n", (unsigned long)n,
               (unsigned long)len);
        fc.send_failed = true;
    }
}

#endif

static void sess_disconnect(void *ctx, const char *reason) {
    (void)ctx;
    printf("fix: disconnecting: %s\n", reason);
    mp_event("session", "what:s arg:u text:s", "disconnecting", 0u, reason);
    if (fc.conn && !fc.closing) {
        fc.closing = true;
        tcp_close(fc.conn);
    }
}

/* ClOrdIDs must be unique across boots for the exchange's day: the prefix is taken once per boot, at the
 * first Logon, from the UTC clock (seconds, base 36, 6 digits: unique for boots a second apart). */
static void make_clordid_prefix(void) {
    static const char digits[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
    uint64_t sec = fix_session_utc(&session, now_ms()) / 1000u;
    uint32_t v = (uint32_t)sec;
    char *p = clordid_prefix;
    *p++ = 'T';
    for (int i = 5; i >= 0; i--) {
        p[i] = digits[v % 36u];
        v /= 36u;
    }
    p[6] = '-';
    p[7] = 0;
    strcpy(app.prefix, clordid_prefix); /* the application copied the (empty) prefix at init */
}

static void sess_event(void *ctx, fix_event_t ev, uint32_t arg, const char *text) {
    (void)ctx;
    switch (ev) {
    case FIX_EV_LOGON: {
        fc.logons++;
        if (!clordid_prefix[0]) make_clordid_prefix();
        tcp_backoff_reset(&fc.backoff);
        printf("fix: logged on to %s as %s (heartbeat %lu s, next out %lu, next in %lu)\n", cfg.target, cfg.sender,
               (unsigned long)cfg.heartbeat_s, (unsigned long)fix_session_next_out(&session),
               (unsigned long)fix_session_next_in(&session));
        char buf[SYMBOLS_TEXT_MAX];
        const char *syms[SYMBOLS_MAX];
        size_t n = split_symbols(buf, syms);
        for (size_t i = 0; i < SYMBOLS_MAX; i++) {
            if (i < n && strcmp(fc.md[i].symbol, syms[i]) != 0) memset(&fc.md[i], 0, sizeof fc.md[i]);
            if (i < n) strncpy(fc.md[i].symbol, syms[i], FIX_SYMBOL_MAX - 1);
            else fc.md[i].symbol[0] = 0;
        }
        int64_t r = -1;
        if (n > 0) {
            r = fix_app_subscribe(&app, syms, n, 1, now_ms());
            if (r < 0) printf("fix: market data request failed (%ld)\n", (long)r);
            else printf("fix: subscribed to market data for %s (MD%ld)\n", cfg.symbols, (long)r);
        }
        /* md_req: the number of the market data request (MDReqID MD<n>) for `symbols`, -1 when none was sent */
        mp_event("logon", "target:s symbols:s md_req:i", cfg.target, cfg.symbols, r < 0 ? -1 : (int32_t)r);
        break;
    }
    case FIX_EV_LOGOUT:
        printf("fix: logged out%s%s\n", text && text[0] ? ": " : "", text ? text : "");
        mp_event("logout", "text:s", text ? text : "");
        break;
    case FIX_EV_REJECT_RECEIVED:
        printf("fix: message %lu rejected: %s\n", (unsigned long)arg, text ? text : "");
        break;
    case FIX_EV_REJECT_SENT: printf("fix: rejected a message (reason %lu: %s)\n", (unsigned long)arg, text ? text : ""); break;
    case FIX_EV_GARBLED: printf("fix: garbled message dropped (%lu)\n", (unsigned long)arg); break;
    case FIX_EV_RESEND_REQUESTED: printf("fix: gap, resend requested from %lu\n", (unsigned long)arg); break;
    case FIX_EV_SEQ_RESET: printf("fix: sequence reset, next in %lu\n", (unsigned long)arg); break;
    case FIX_EV_ORDER_GAPFILLED:
        printf("fix: order message %lu gap-filled, not resent\n", (unsigned long)arg);
        break;
    }
    /* what the session met besides logon and logout, as the machine protocol's "session" event */
    static const char *const what[] = {[FIX_EV_REJECT_RECEIVED] = "reject_received", [FIX_EV_REJECT_SENT] = "reject_sent",
                                       [FIX_EV_GARBLED] = "garbled", [FIX_EV_RESEND_REQUESTED] = "resend_requested",
                                       [FIX_EV_SEQ_RESET] = "seq_reset", [FIX_EV_ORDER_GAPFILLED] = "order_gapfilled"};
    if ((unsigned)ev < sizeof what / sizeof what[0] && what[ev])
        mp_event("session", "what:s arg:u text:s", what[ev], arg, text ? text : "");
}

#ifdef TF_HAS_OFFLOAD
/* Every message the session sends goes through the order engine (app/offload.h): new ones numbered by it. */
static void sess_send_engine(const uint8_t *data, size_t len, bool numbered) {
    if (!fc.conn || fc.send_failed || fc.closing) return;
    if (!offload_send(data, len, numbered)) {
        printf("fix: the order engine cannot send: dropping the connection\n");
        fc.send_failed = true;
    }
}
static void sess_send_kept(void *ctx, const uint8_t *data, size_t len) {
    (void)ctx;
    sess_send_engine(data, len, false);
}
static void sess_send_numbered(void *ctx, const uint8_t *data, size_t len) {
    (void)ctx;
    sess_send_engine(data, len, true);
}
static void sess_before_send(void *ctx) {
    (void)ctx;
    offload_before_send();
}
static const fix_session_ops_t sess_ops = {sess_send_kept, sess_disconnect, sess_event, sess_before_send,
                                           sess_send_numbered};

void fixclient_fail(const char *why) {
    if (!fc.send_failed) printf("fix: %s: dropping the connection\n", why);
    fc.send_failed = true;
}

bool fixclient_conn_spec(ofl_conn_t *c) {
    struct net_stack *ns = netif_stack();
    if (fc.state != FC_ONLINE || !arp_lookup(ns, ipv4_next_hop(ns, cfg.host), c->dst_mac)) return false;
    memcpy(c->src_mac, ns->mac, 6);
    c->src_ip = net_get_config(ns)->ip;
    c->dst_ip = cfg.host;
    c->src_port = tcp_local_port(fc.conn);
    c->dst_port = cfg.port;
    return true;
}

bool fixclient_order_spec(ofl_order_spec_t *sp) {
    memset(sp, 0, sizeof *sp);
    if (!fixclient_conn_spec(&sp->conn)) return false;
    sp->sender = cfg.sender;
    sp->target = cfg.target;
    sp->account = cfg.account;
    sp->utc_day_ms = fix_session_utc(&session, now_ms());
    return true;
}
#else
static const fix_session_ops_t sess_ops = {sess_send, sess_disconnect, sess_event, NULL, NULL};
#endif

/* ---- application callbacks ---- */

static const char *const entry_names[3] = {"bid", "offer", "trade"};

/* The message's first bid, offer and trade with a price (FIX lists the best level first) become the symbol's last;
 * `seen`: the kinds the message has given already. The hardware's top of book keeps the same (BookRx). */
static void md_note(md_last_t *last, const fix_md_entry_t *e, unsigned *seen) {
    unsigned k = (unsigned)(e->type - '0');
    if (k > 2 || !e->has_price || (*seen >> k & 1u)) return;
    *seen |= 1u << k;
    last->px[k] = e->price;
}

static void on_market_data(void *ctx, const fix_md_snapshot_t *md) {
    (void)ctx;
    fc.w_dt = sysctrl_cycles32() - netif_rx_cycle();
#ifdef TF_PROF
    TF_PROF_MARK(7);
    if (TF_PROF_W) TF_PROF_WINDOW(2);
    for (int i = 0; i < TF_PROF_MARKS; i++) prof_last[i] = tf_prof[i] - tf_prof_base;
#endif
    fc.md_msgs++;
    fc.cb_md++;
    stops_on_market_data(md);
    md_last_t *last = NULL;
    for (size_t i = 0; i < SYMBOLS_MAX; i++)
        if (fc.md[i].symbol[0] && strcmp(fc.md[i].symbol, md->symbol) == 0) last = &fc.md[i];
    if (last) {
        last->updates++;
        unsigned seen = 0;
        for (size_t i = 0; i < md->n; i++) md_note(last, &md->e[i], &seen);
        fix_md_entry_t e; /* and the entries past the kept ones */
        for (fix_cursor_t it = {0}; seen != 7u && fix_md_next_more(md, &it, &e);) md_note(last, &e, &seen);
    }
    if (fc.watch) {
        printf("md: %s", md->symbol);
        for (size_t i = 0; i < md->n; i++) {
            const fix_md_entry_t *e = &md->e[i];
            if (e->type < '0' || e->type > '2' || !e->has_price) continue;
            printf(" %s ", entry_names[e->type - '0']);
            print_px(e->price);
            printf(" x %ld", (long)e->size);
        }
        printf("\n");
    }
}

/* Order states, as the console and the machine protocol name them. */
static const char *const ord_names[] = {"free", "pending_new", "new", "partial", "filled", "pending_cancel", "canceled", "rejected"};
static const char *ord_state_name(fix_ord_state_t s) { return ord_names[s & 7]; }

/* An order in the machine protocol (docs/PROTOCOL.md): the listing's "order" events carry the whole record. */
static void order_event(int idx, const fix_order_t *o) {
    mp_event("order", "order:i clordid:s side:s sym:s qty:i px:p state:s cum:i leaves:i msgseq:u", (int32_t)idx, o->clordid,
             o->side == '1' ? "buy" : "sell", o->symbol, (int32_t)o->qty, o->price, ord_state_name(o->state),
             (int32_t)o->cum_qty, (int32_t)o->leaves_qty, o->seq);
}

static void on_execution(void *ctx, const fix_order_t *o, const fix_exec_event_t *ev) {
    (void)ctx;
#ifdef TF_PROF_EXEC
    tf_prof_exec_seen = 1;
#endif
    fc.execs++;
    fc.cb_other++;
    if (!o) {
        printf("exec: %c for an unknown order: %s\n", ev->exec_type ? ev->exec_type : ev->msg_type, ev->text);
        return;
    }
    int idx = (int)(o - app.orders);
    bool fill = ev->msg_type == '8' && (ev->exec_type == 'F' || ev->exec_type == '1' || ev->exec_type == '2');
#ifdef TF_HAS_RISK
    risk_on_execution(idx, o, fill, ev->last_qty); /* an order the risk gate booked: its fills and its end */
#endif
    printf("exec: order %d %s %s %s ", idx, o->clordid, o->side == '1' ? "buy" : "sell", o->symbol);
    if (fill) {
        printf("fill %ld @ ", (long)ev->last_qty);
        print_px(ev->last_px);
        printf(", ");
    }
    printf("%s (cum %ld, leaves %ld)%s%s\n", ord_state_name(o->state), (long)o->cum_qty, (long)o->leaves_qty,
           ev->text[0] ? ": " : "", ev->text);
    /* short: every byte on the UART costs the CPU 100 cycles (the lines are written while it waits) */
    mp_event(fill ? "order.fill" : ev->msg_type != '8' ? "order.cancel_reject" : o->state == FIX_ORD_NEW ? "order.new"
             : o->state == FIX_ORD_CANCELED ? "order.canceled" : o->state == FIX_ORD_REJECTED ? "order.rejected"
             : "order.update",
             "order:i clordid:s state:s cum:i leaves:i last_qty:i last_px:p text:s", (int32_t)idx, o->clordid,
             ord_state_name(o->state), (int32_t)o->cum_qty, (int32_t)o->leaves_qty, fill ? (int32_t)ev->last_qty : 0,
             fill ? ev->last_px : 0, ev->text);
}

static void on_md_reject(void *ctx, const char *md_req_id, char reason, const char *text) {
    (void)ctx;
    printf("fix: MD request %s rejected (281=%c) %s\n", md_req_id, reason ? reason : '?', text ? text : "");
}

static const fix_app_ops_t app_ops = {on_market_data, on_execution, on_md_reject};

/* ---- TCP callbacks ---- */

static void tcp_connected(struct tcp_conn *c, void *user) {
    (void)c;
    (void)user;
    fc.state = FC_ONLINE;
    printf("fix: TCP connected (local port %u), sending Logon\n", (unsigned)tcp_local_port(fc.conn));
#ifdef TF_HAS_OFFLOAD
    /* The offload's parser follows the connection from its first byte (no entry armed: nothing fires). */
    offload_rx_conn_t oc = {netif_stack()->mac, net_get_config(netif_stack())->ip, cfg.host, tcp_local_port(fc.conn),
                            cfg.port, tcp_hw_rcv_nxt(fc.conn), cfg.price_decimals};
#ifdef TF_HAS_DIGESTION
    digestion_conn_up(); /* staged for the parser's CONFIG */
#endif
#ifdef OFFLOAD_RX_BOOK_SLOTS
    { /* the hardware top of book's slots: the symbols `md` lists after the Logon, in the same order */
        char buf[SYMBOLS_TEXT_MAX];
        const char *syms[SYMBOLS_MAX];
        size_t n = split_symbols(buf, syms);
        for (size_t i = 0; i < SYMBOLS_MAX && i < OFFLOAD_RX_BOOK_SLOTS; i++) {
            offload_rx_book_stage((unsigned)i, i < n ? syms[i] : "");
#ifdef TF_HAS_RISK
            risk_book_slot((unsigned)i, i < n ? syms[i] : "");
#endif
        }
    }
#endif
    if (!offload_rx_follow(&oc)) printf("fix: offload parser refused\n");
    offload_conn_up();
#endif
    fix_session_connected(&session, now_ms());
}

/* Counts "\x01" "35=" in a segment: how many FIX messages begin in it. */
static unsigned count_msg_types(const uint8_t *d, size_t len) {
    unsigned n = 0;
    for (size_t i = 0; i + 3 < len; i++)
        if (d[i] == 1 && d[i + 1] == '3' && d[i + 2] == '5' && d[i + 3] == '=') n++;
    return n;
}

static void tcp_data(struct tcp_conn *c, void *user, const uint8_t *data, size_t len) {
    (void)user;
    TF_PROF_MARK(1);
#ifdef TF_HAS_OFFLOAD
    offload_sync(); /* the orders' ACK; adopt the orders the hardware sent before their execution reports are read
                     * (the rest of offload_poll, FIN and stops to load, waits for the main loop: 365 cycles a
                     * 35=W, README's w_cost table) */
#endif
    stops_flush_events(); /* the fires just adopted, before their execution reports */
    fc.cb_md = fc.cb_other = 0;
    TF_PROF_MARK(2);
    fix_session_on_bytes(&session, data, len, c->stack->now_ms); /* the frame's time: no timer division here */
    /* A segment holding exactly one whole message, a 35=W, with nothing printed: the firmware's cost of a
     * market data message from its receive slot to the application callback (counted after the fact, so
     * that the check costs nothing on the measured path). */
    if (fc.cb_md == 1 && fc.cb_other == 0 && !fc.watch && data[0] == '8' && count_msg_types(data, len) == 1)
    {
        cyclestat_add(&fc.w_cost, fc.w_dt);
        if (len >= 170 && len <= 190) cyclestat_add(&fc.w_cost180, fc.w_dt);
    }
}

static void connection_gone(const char *why) {
#ifdef TF_HAS_OFFLOAD
    offload_conn_down();
    (void)offload_rx_stop();
#ifdef TF_HAS_DIGESTION
    digestion_conn_down();
#endif
#endif
    fc.conn = NULL;
    fc.closing = false;
    fc.send_failed = false;
    fc.disconnects++;
    fix_session_disconnected(&session);
    if (fc.want_up) {
        tcp_backoff_failed(&fc.backoff, now_ms(), sysctrl_cycles32());
        fc.state = FC_WAIT;
        printf("fix: connection %s; reconnecting in %lu ms\n", why,
               (unsigned long)(fc.backoff.next_ms > now_ms() ? fc.backoff.next_ms - now_ms() : 0));
    } else {
        fc.state = FC_OFF;
        printf("fix: connection %s; stopped\n", why);
    }
    mp_event("disconnected", "why:s reconnecting:b", why, fc.want_up);
}

static void tcp_closed(struct tcp_conn *c, void *user) {
    (void)c;
    (void)user;
    connection_gone("closed");
}

static void tcp_error(struct tcp_conn *c, void *user, enum tcp_error err) {
    (void)c;
    (void)user;
    static const char *const names[] = {"ok", "refused", "reset by the peer", "timed out", "unreachable (no ARP answer)"};
    connection_gone((unsigned)err < 5 ? names[err] : "failed");
}

#if NET_TCP_SKIP_HELD > 0
static void tcp_skipped(struct tcp_conn *c, void *user, uint32_t seq, uint32_t len) {
    (void)c;
    (void)user;
#ifdef TF_HAS_DIGESTION
    digestion_skipped(seq, len); /* the hardware's messages in those bytes, in stream order */
#else
    (void)seq;
    (void)len;
#endif
}
static const struct tcp_callbacks tcp_cb = {tcp_connected, tcp_data, tcp_closed, tcp_error, tcp_skipped};
#else
static const struct tcp_callbacks tcp_cb = {tcp_connected, tcp_data, tcp_closed, tcp_error};
#endif

/* ---- life cycle ---- */

static void session_setup(bool reset_app) {
    fix_session_config_t sc;
    memset(&sc, 0, sizeof sc);
    sc.sender_comp_id = cfg.sender;
    sc.target_comp_id = cfg.target;
    sc.heartbeat_s = cfg.heartbeat_s;
    sc.max_skew_ms = cfg.skew_s == UINT32_MAX ? UINT32_MAX : cfg.skew_s * 1000u;
    /* keep the UTC clock and sequence numbers of an earlier session object */
    bool had_utc = fix_session_utc_valid(&session);
    uint64_t utc = fix_session_utc(&session, now_ms());
    uint32_t out = fix_session_next_out(&session), in = fix_session_next_in(&session);
    fix_session_init(&session, &sc, &sess_ops, NULL);
#ifdef TF_HAS_OFFLOAD
    size_t cap;
    uint8_t *tx = offload_tx_buffer(&cap); /* messages built where the engine's frame is (no copy, no buffer) */
    fix_session_set_tx(&session, tx, cap);
#elif defined(FIX_TX_EXTERNAL)
#error "FIX_TX_EXTERNAL: the session builds its messages in the offload's frame scratch, which this SoC has not"
#endif
    mp_decimals = cfg.price_decimals;
    if (had_utc) fix_session_set_utc(&session, now_ms(), utc);
    if (out >= 1 && in >= 1) fix_session_set_seqnums(&session, out, in);
    if (reset_app) {
        fix_app_config_t ac = {cfg.account, clordid_prefix, cfg.price_decimals, 0};
        fix_app_init(&app, &session, &ac, &app_ops, NULL);
    } else {
        fix_session_set_app(&session, &app.handler, &app); /* keep the order table */
    }
}

static void start_connect(void) {
    uint32_t ip = cfg.host;
    fc.conn = tcp_connect(netif_stack(), ip, cfg.port, &tcp_cb, NULL);
    fc.closing = false;
    fc.send_failed = false;
    if (!fc.conn) {
        printf("fix: no TCP connection slot; retrying\n");
        tcp_backoff_failed(&fc.backoff, now_ms(), sysctrl_cycles32());
        fc.state = FC_WAIT;
        return;
    }
    fc.connects++;
    fc.state = FC_CONNECTING;
    printf("fix: connecting to %lu.%lu.%lu.%lu:%u\n", (unsigned long)(ip >> 24), (unsigned long)((ip >> 16) & 255),
           (unsigned long)((ip >> 8) & 255), (unsigned long)(ip & 255), (unsigned)cfg.port);
}

void fixclient_init(void) {
    strncpy(cfg.sender, TF_FIX_SENDER, FIX_COMPID_MAX);
    strncpy(cfg.target, TF_FIX_TARGET, FIX_COMPID_MAX);
    cfg.heartbeat_s = TF_FIX_HEARTBEAT;
    if (!tf_parse_ipv4(TF_FIX_HOST, &cfg.host)) cfg.host = 0;
    cfg.port = TF_FIX_PORT;
    strncpy(cfg.symbols, TF_FIX_SYMBOLS, SYMBOLS_TEXT_MAX - 1);
    strncpy(cfg.account, TF_FIX_ACCOUNT, FIX_ID_MAX - 1);
    cfg.price_decimals = TF_FIX_PRICE_DECIMALS;
    fc.utc_source = "unknown";
    tcp_backoff_init(&fc.backoff, FIXCLIENT_BACKOFF_MIN_MS, FIXCLIENT_BACKOFF_MAX_MS);
    session_setup(true);
    if (TF_FIX_AUTOSTART) {
        fc.want_up = true;
        start_connect();
    }
}

/* Not inlined into main (link-time optimisation would: its one caller): the frames of what it inlines would then
 * stay in main's, under every call of the main loop (fw/Makefile LTO; the deepest stack use 1,324 bytes that way). */
__attribute__((noinline)) void fixclient_poll(void) {
    uint64_t now = now_ms(); /* (not the stack's, older: the session's own times come from now_ms) */
    if (fc.send_failed && fc.conn) {
        tcp_abort(fc.conn);
        connection_gone("aborted");
    }
    if (fc.state == FC_ONLINE) TF_LOOP(TF_LOOP_SESSION, fix_session_poll(&session, now));
#ifdef TF_HAS_OFFLOAD
    TF_LOOP(TF_LOOP_OFFLOAD, offload_poll(); offload_resync(); offload_fire_pending());
#ifdef TF_HAS_DIGESTION
    TF_LOOP(TF_LOOP_DIGEST_POLL, digestion_poll());
#endif
#endif
    TF_LOOP(TF_LOOP_EVENTS, stops_flush_events());
    if (fc.state == FC_WAIT && fc.want_up && tcp_backoff_due(&fc.backoff, now)) start_connect();
    if (fix_session_utc_valid(&session) && strcmp(fc.utc_source, "unknown") == 0) fc.utc_source = "the exchange";
}

/* ---- console ---- */

static void print_config(void) {
    uint32_t ip = cfg.host;
    printf("fix: sender %s target %s heartbeat %lu s exchange %lu.%lu.%lu.%lu:%u symbols %s account %s decimals %lu\n",
           cfg.sender, cfg.target, (unsigned long)cfg.heartbeat_s, (unsigned long)(ip >> 24),
           (unsigned long)((ip >> 16) & 255), (unsigned long)((ip >> 8) & 255), (unsigned long)(ip & 255),
           (unsigned)cfg.port, cfg.symbols, cfg.account, (unsigned long)cfg.price_decimals);
    if (cfg.skew_s == UINT32_MAX) printf("fix: SendingTime not checked against our clock\n");
    else printf("fix: SendingTime within %lu s of our clock\n",
                (unsigned long)(cfg.skew_s ? cfg.skew_s : FIX_DEFAULT_MAX_SKEW_MS / 1000u));
}

/* `fix` for a machine request: the cost of a 35=W (both sizes), as "counters" events (the session's state and
 * counters are in the status request's reply). */
static void status_events(void) {
    for (int i = 0; i < 2; i++) {
        const cyclestat_t *w = i ? &fc.w_cost180 : &fc.w_cost;
        mp_event("counters", "group:s count:u min:u avg:u max:u", i ? "w_cost_170_190" : "w_cost", w->count, w->min,
                 cyclestat_mean(w), w->max);
    }
#ifdef TF_PROF
    mp_event("counters", "group:s m0:u m1:u m2:u m3:u m4:u m5:u m6:u m7:u", "prof", prof_last[0], prof_last[1],
             prof_last[2], prof_last[3], prof_last[4], prof_last[5], prof_last[6], prof_last[7]);
#endif
}

static void print_status(void) {
    static const char *const sess_names[] = {"disconnected", "logon sent", "active", "logout sent",
                                             "logout received"};
    if (mp_in_request) {
        status_events();
        return;
    }
    fix_sess_state_t st = fix_session_state(&session);
    printf("fix: client %s, session %s, next out %lu, next in %lu\n", fc_state_names[fc.state],
           (unsigned)st < 5 ? sess_names[st] : "?", (unsigned long)fix_session_next_out(&session),
           (unsigned long)fix_session_next_in(&session));
    if (fc.conn && fc.state == FC_ONLINE)
        printf("fix: TCP %s local port %u, rto %lu ms, unacked %lu bytes\n", tcp_state_name(tcp_get_state(fc.conn)),
               (unsigned)tcp_local_port(fc.conn), (unsigned long)tcp_current_rto(fc.conn),
               (unsigned long)tcp_send_unacked(fc.conn));
    printf("fix: connects %lu, logons %lu, disconnects %lu, market data %lu, execution reports %lu\n",
           (unsigned long)fc.connects, (unsigned long)fc.logons, (unsigned long)fc.disconnects,
           (unsigned long)fc.md_msgs, (unsigned long)fc.execs);
#ifdef TF_PROF
    printf("prof:");
    for (int i = 0; i < TF_PROF_MARKS; i++) printf(" %lu", (unsigned long)prof_last[i]);
    printf("\n");
#endif
    for (int i = 0; i < 2; i++) {
        const cyclestat_t *w = i ? &fc.w_cost180 : &fc.w_cost;
        if (!w->count) continue;
        printf("fix: 35=W %s cost (receive slot to callback, one message per frame): min %lu / avg %lu / max %lu cycles over %lu;",
               i ? "170-190 B" : "all", (unsigned long)w->min, (unsigned long)cyclestat_mean(w), (unsigned long)w->max,
               (unsigned long)w->count);
        for (unsigned k = 0; k < CYCLESTAT_BUCKETS; k++)
            if (w->hist[k]) printf(" %luk+:%lu", (unsigned long)(cyclestat_bucket_floor(k) >> 10), (unsigned long)w->hist[k]);
        printf("\n");
    }
}

static int set_option(const char *key, const char *val) {
    uint32_t v;
    if (strcmp(key, "sender") == 0 || strcmp(key, "target") == 0) {
        if (strlen(val) == 0 || strlen(val) > FIX_COMPID_MAX || strchr(val, 1) || strchr(val, '=')) {
            printf("error: bad CompID\n");
            return 1;
        }
        strcpy(key[0] == 's' ? cfg.sender : cfg.target, val);
    } else if (strcmp(key, "heartbeat") == 0) {
        if (!tf_parse_u32(val, &v) || v == 0 || v > 3600) {
            printf("error: heartbeat is 1..3600 seconds\n");
            return 1;
        }
        cfg.heartbeat_s = v;
    } else if (strcmp(key, "skew") == 0) {
        /* off: for a peer whose clock is not ours to trust, or a simulated SoC whose clock runs slower than the
         * exchange's (the bench's burst) */
        if (strcmp(val, "off") == 0) v = UINT32_MAX;
        else if (!tf_parse_u32(val, &v) || v == 0 || v > 86400) {
            printf("error: skew is 1..86400 seconds or off\n");
            return 1;
        }
        cfg.skew_s = v;
    } else if (strcmp(key, "host") == 0) {
        if (!tf_parse_ipv4(val, &v)) {
            printf("error: host is A.B.C.D\n");
            return 1;
        }
        cfg.host = v;
    } else if (strcmp(key, "port") == 0) {
        if (!tf_parse_u32(val, &v) || v == 0 || v > 65535) {
            printf("error: port is 1..65535\n");
            return 1;
        }
        cfg.port = (uint16_t)v;
    } else if (strcmp(key, "symbols") == 0) {
        size_t n = 1, len = strlen(val), seg = 0;
        for (size_t i = 0; i < len; i++) {
            if (val[i] == ',') {
                if (seg == 0) n = SYMBOLS_MAX + 1;
                n++;
                seg = 0;
            } else if (val[i] <= ' ' || val[i] == '=' || ++seg >= FIX_SYMBOL_MAX) {
                n = SYMBOLS_MAX + 1;
            }
        }
        if (len == 0 || seg == 0 || n > SYMBOLS_MAX) {
            printf("error: symbols is 1..%d comma-separated names of 1..%d characters\n", SYMBOLS_MAX,
                   FIX_SYMBOL_MAX - 1);
            return 1;
        }
        strcpy(cfg.symbols, val);
    } else if (strcmp(key, "account") == 0) {
        if (strlen(val) == 0 || strlen(val) >= FIX_ID_MAX || strchr(val, '=')) {
            printf("error: account is 1..%d characters\n", FIX_ID_MAX - 1);
            return 1;
        }
        strcpy(cfg.account, val);
    } else if (strcmp(key, "decimals") == 0) {
        if (!tf_parse_u32(val, &v) || v > FIX_MAX_DECIMALS) {
            printf("error: decimals is 0..%d\n", FIX_MAX_DECIMALS);
            return 1;
        }
        cfg.price_decimals = v;
    } else {
        printf("error: unknown option '%s'\n", key);
        return 1;
    }
    /* the account and the price decimals belong to the order table: a new one (old orders are forgotten) */
    session_setup(strcmp(key, "account") == 0 || strcmp(key, "decimals") == 0);
    return 0;
}

static int cmd_fix(int argc, char **argv) {
    const char *sub = argc > 1 ? argv[1] : "status";
    if (strcmp(sub, "status") == 0 && argc <= 2) {
        print_status();
        return 0;
    }
    if (strcmp(sub, "config") == 0 && argc == 2) {
        print_config();
        return 0;
    }
    if (strcmp(sub, "start") == 0 && argc == 2) {
        if (fc.state != FC_OFF) {
            printf("fix: already %s\n", fc_state_names[fc.state]);
            return 1;
        }
        if (cfg.host == 0) {
            printf("error: no exchange address (fix set host A.B.C.D)\n");
            return 1;
        }
        fc.want_up = true;
        tcp_backoff_reset(&fc.backoff);
        start_connect();
        return 0;
    }
    if ((strcmp(sub, "stop") == 0 || strcmp(sub, "logout") == 0) && argc == 2) {
        fc.want_up = false;
        if (fc.state == FC_WAIT || fc.state == FC_OFF) {
            fc.state = FC_OFF;
            printf("fix: stopped\n");
        } else if (fix_session_state(&session) == FIX_SESS_ACTIVE) {
            printf("fix: logging out\n");
            fix_session_logout(&session, NULL, now_ms());
        } else if (fc.conn) {
            sess_disconnect(NULL, "stopped by the operator");
        }
        return 0;
    }
    if (strcmp(sub, "set") == 0 && argc == 4) {
        if (fc.state != FC_OFF) {
            printf("error: session not stopped (fix stop)\n");
            return 1;
        }
        return set_option(argv[2], argv[3]);
    }
    if (strcmp(sub, "seq") == 0 && argc == 4) {
        uint32_t out, in;
        if (!tf_parse_u32(argv[2], &out) || !tf_parse_u32(argv[3], &in) || out == 0 || in == 0) {
            printf("usage: fix seq <out> <in>\n");
            return 1;
        }
        if (fc.state != FC_OFF) {
            printf("error: session not stopped (fix stop)\n");
            return 1;
        }
        fix_session_set_seqnums(&session, out, in);
        return 0;
    }
#ifdef TF_HAS_OFFLOAD
    if (strcmp(sub, "hw") == 0 && argc == 2) {
        offload_rx_counters_t c;
        offload_rx_counters(&c);
        if (mp_in_request) { /* one "counters" event; expects/fw_expects: 0 while the parser follows no connection */
            uint32_t seq = 0, res = 0;
            bool following = offload_rx_state(&seq, &res);
            mp_event("counters", "group:s segments:u in_order:u out_of_order:u bad:u ignored:u w_hw:u w_fw:u fix_errors:u "
                     "fires:u following:b expects:u fw_expects:u enabled:b fin:b", "offload_rx", c.seg_seen, c.seg_inorder,
                     c.seg_ooo, c.seg_bad, c.seg_ignored, c.w_msgs, fc.md_msgs, c.fix_errors, c.fires, following, seq,
                     following && fc.conn && fc.state == FC_ONLINE ? tcp_hw_rcv_nxt(fc.conn) : 0u, (res & 2u) != 0, (res & 1u) != 0);
            return 0;
        }
        printf("offload rx: segments %lu (in order %lu, out of order %lu, bad %lu, ignored %lu)\n",
               (unsigned long)c.seg_seen, (unsigned long)c.seg_inorder, (unsigned long)c.seg_ooo,
               (unsigned long)c.seg_bad, (unsigned long)c.seg_ignored);
        printf("offload rx: 35=W parsed by hardware %lu, by firmware %lu; FIX errors %lu, fires %lu\n",
               (unsigned long)c.w_msgs, (unsigned long)fc.md_msgs, (unsigned long)c.fix_errors, (unsigned long)c.fires);
        uint32_t seq, res;
        if (offload_rx_state(&seq, &res))
            printf("offload rx: expects sequence %lu (firmware %lu), %s%s\n", (unsigned long)seq,
                   (unsigned long)(fc.conn && fc.state == FC_ONLINE ? tcp_hw_rcv_nxt(fc.conn) : 0),
                   (res & 2u) ? "enabled" : "disabled", (res & 1u) ? ", FIN seen" : "");
        return 0;
    }
#endif
    if (strcmp(sub, "watch") == 0 && argc == 3 && (strcmp(argv[2], "on") == 0 || strcmp(argv[2], "off") == 0)) {
        fc.watch = argv[2][1] == 'n';
        return 0;
    }
    printf("usage: fix [status|config|start|stop|set <option> <value>|seq <out> <in>|watch on|off|hw]\n");
    return 1;
}
TF_COMMAND(fix, "the FIX session (fix help)", cmd_fix);

static int cmd_utc(int argc, char **argv) {
    if (argc == 1) {
        if (!fix_session_utc_valid(&session)) {
            printf("utc: unknown\n");
            return 0;
        }
        printf("utc: ");
        print_utc(fix_session_utc(&session, now_ms()));
        printf(" (from %s)\n", fc.utc_source);
        return 0;
    }
    uint64_t utc;
    if (argc == 3 && strcmp(argv[1], "set") == 0 && fix_utc_parse(argv[2], strlen(argv[2]), &utc)) {
        fix_session_set_utc(&session, now_ms(), utc);
        fc.utc_source = "the console";
        return 0;
    }
    printf("usage: utc [set YYYYMMDD-HH:MM:SS]\n");
    return 1;
}
TF_COMMAND(utc, "show or set the UTC clock: utc [set YYYYMMDD-HH:MM:SS]", cmd_utc);

static int new_order(char side, int argc, char **argv) {
    uint32_t qty;
    int64_t px;
    if (argc != 4 || strlen(argv[1]) == 0 || strlen(argv[1]) >= FIX_SYMBOL_MAX || !tf_parse_u32(argv[2], &qty) ||
        qty == 0 || fix_parse_decimal(argv[3], strlen(argv[3]), cfg.price_decimals, &px) != FIX_OK || px <= 0) {
        printf("usage: %s <symbol> <quantity> <limit price, at most %lu decimals>\n", argv[0],
               (unsigned long)cfg.price_decimals);
        return 1;
    }
    if (fix_session_state(&session) != FIX_SESS_ACTIVE) {
        printf("error: not logged on\n");
        return 1;
    }
    int idx = fix_app_new_order(&app, argv[1], side, qty, px, stops_keep(STOPS_MAX), now_ms()); /* the armed stops' entries */
    if (idx < 0) {
        printf("error: order not sent (%d: %s)\n", idx, idx == FIX_E_FULL ? "order table full" : "bad order");
        return 1;
    }
    const fix_order_t *o = fix_app_order(&app, idx);
    printf("order %d: sent %s %s %lu %s @ ", idx, o->clordid, side == '1' ? "buy" : "sell", (unsigned long)qty, o->symbol);
    print_px(px);
    printf(" (MsgSeqNum %lu)\n", (unsigned long)o->seq);
    mp_result = idx;
    return 0;
}
static int cmd_buy(int argc, char **argv) { return new_order('1', argc, argv); }
static int cmd_sell(int argc, char **argv) { return new_order('2', argc, argv); }
TF_COMMAND(buy, "limit buy: buy <symbol> <qty> <price>", cmd_buy);
TF_COMMAND(sell, "limit sell: sell <symbol> <qty> <price>", cmd_sell);

static int cmd_cancel(int argc, char **argv) {
    uint32_t idx;
    if (argc != 2 || !tf_parse_u32(argv[1], &idx) || idx >= FIX_APP_MAX_ORDERS) {
        printf("usage: cancel <order>\n");
        return 1;
    }
    int r = fix_app_cancel(&app, (int)idx, now_ms());
    if (r < 0) {
        printf("error: cannot cancel order %lu (%s)\n", (unsigned long)idx,
               fix_session_state(&session) != FIX_SESS_ACTIVE ? "not logged on" : "not open");
        return 1;
    }
    printf("order %lu: cancel requested\n", (unsigned long)idx);
    return 0;
}
TF_COMMAND(cancel, "cancel <order>", cmd_cancel);

/* The order table and the market data, as machine-protocol events ("order", "md": docs/PROTOCOL.md) for people and
 * programs alike; the number listed is the result (mp_result) of a machine request. */
static int cmd_orders(int argc, char **argv) {
    (void)argc;
    (void)argv;
    int32_t n = 0;
    for (int i = 0; i < FIX_APP_MAX_ORDERS; i++)
        if (app.orders[i].state != FIX_ORD_FREE) order_event(i, &app.orders[i]), n++;
    mp_result = n;
    return 0;
}
TF_COMMAND(orders, "list the orders of this boot", cmd_orders);

static int cmd_md(int argc, char **argv) {
    (void)argc;
    (void)argv;
    int32_t n = 0;
    /* the last bid, offer and trade seen per subscribed symbol ("0": none yet); while the hardware digests market
     * data firmware does not see it, and the hardware's top of book (the same values, from every 35=W the parser
     * committed) is the source where the SoC has one */
    for (int i = 0; i < SYMBOLS_MAX; i++) {
        const md_last_t *m = &fc.md[i];
        if (!m->symbol[0]) continue;
        uint32_t updates = m->updates;
        const int64_t *px = m->px;
        const char *src = "fw";
#ifdef OFFLOAD_RX_BOOK_SLOTS
        offload_rx_book_t b;
        int64_t hw[3];
        if (digestion_wanted() && strlen(m->symbol) <= OFFLOAD_RX_SYM_CHARS && offload_rx_book_read((unsigned)i, &b)) {
            for (int t = 0; t < 3; t++) hw[t] = (b.have >> t & 1u) ? b.px[t] : 0;
            updates = b.updates, px = hw, src = "hw";
        }
#endif
        mp_event("md", "sym:s updates:u bid:p offer:p trade:p src:s", m->symbol, updates, px[0], px[1], px[2], src), n++;
    }
    mp_result = n;
    return 0;
}
TF_COMMAND(md, "last market data per symbol", cmd_md);

/* ---- machine protocol (docs/PROTOCOL.md): what only the FIX client knows ---- */

bool fixclient_machine(const mp_req_t *r) {
    static const char *const sess_names[] = {"disconnected", "logon_sent", "active", "logout_sent", "logout_received"};
    static const char *const client_names[] = {"off", "connecting", "online", "waiting"};
    if (!strcmp(r->cmd, "status")) {
        char ts[FIX_UTC_TS_LEN + 1] = "";
        if (fix_session_utc_valid(&session)) fix_utc_format(ts, fix_session_utc(&session, now_ms()));
        ts[FIX_UTC_TS_LEN] = 0;
        mp_reply(r->id, "proto:u client:s session:s next_out:u next_in:u md_msgs:u execs:u utc:s seq:u", MP_VERSION,
                 client_names[fc.state], sess_names[fix_session_state(&session) % 5], fix_session_next_out(&session),
                 fix_session_next_in(&session), fc.md_msgs, fc.execs, ts, mp_event_seq());
    } else {
        return false;
    }
    return true;
}
