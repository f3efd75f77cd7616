/* Firmware side of the stop-order offload (see offload.h). */
#include "app/offload.h"

#ifdef TF_HAS_OFFLOAD
#include <stdio.h>
#include <string.h>

#include "app/digestion.h"
#include "app/fixclient.h"
#include "app/netif.h"
#include "app/risk.h"
#include "app/stops.h"
#include "drivers/offload_rx.h"
#include "drivers/order_tx.h"
#include "drivers/sysctrl.h"
#include "drivers/timer.h"
#include "lib/console.h"
#include "lib/mproto.h"
#include "lib/parse.h"
#include "net/tcp.h"
#include "offload/template.h"

/* The engine's millisecond: eth_tx cycles (125 MHz) per firmware millisecond (the time base is scaled in
 * simulation, where every clock ticks at the same rate). */
#define ETH_CYCLES_PER_MS ((uint32_t)((uint64_t)TF_TIMEBASE_HZ * 125000u / TF_SYS_CLOCK_HZ))

/* A loaded stop's template (its FIX message's length: len - OFL_FIX_OFF). */
typedef struct {
    uint16_t len;
    uint8_t msg_off, msg_width, cs_off, st_off, tt_off;
} meta_t;

/* A firmware frame in the engine's send ring, from its SEND until its record (what rebuilding it needs: its FIX
 * message's length is len - OFL_FIX_OFF, its CheckSum's digits the last 4 bytes but the SOH, ofl_build_frame; a
 * numbered frame's msg_off is below 256, send_frame, any other's 0). */
typedef struct {
    uint16_t len;
    uint8_t msg_off, msg_width, mode; /* OFL_MSG_* */
    bool fin;
} ring_t;
#define FIX_LEN(len) ((uint16_t)((len) - OFL_FIX_OFF))
#define RING_SLOTS (ORDER_TX_SLOTS - ORDER_TX_SEND_SLOT0)

/* The hardware's counts of the trigger table's fires: its FIRES counter, and the engine's counters of fires that got
 * no record (wrapping; differences count). */
typedef struct {
    uint32_t fires;
    order_tx_counters_t eng;
} fire_counts_t;

/* The send-ring slots a frame of len bytes takes from slot k: two for more than one template's bytes. */
static uint32_t ring_mask(unsigned k, unsigned len) { return (len > ORDER_TX_TEMPLATE_BYTES ? 3u : 1u) << k; }

static struct {
    bool up;          /* connection established: the engine is set up for it */
    bool started;     /* the engine owns the connection's numbers (set at the first frame firmware sent on it) */
    bool fin_queued;  /* our FIN is in the send queue */
    uint32_t loaded;  /* stops whose template and trigger entry are in hardware */
    uint32_t ring_busy;   /* send-ring slots holding a frame not logged yet (bit k: slot SLOT0 + k) */
    unsigned ring_next;   /* where the next frame goes (the ring is used in order) */
    ring_t ring[RING_SLOTS];
    uint32_t fw_frames, fw_bytes, ring_waits;
    uint32_t stamp_scratch;
    bool time_ok;     /* the engine's clock has been set from the session's UTC on this connection */
    uint64_t time_set_ms;
    meta_t meta[STOPS_MAX];
    uint32_t sent, not_sent, errors;
    uint32_t refused;       /* fires the risk gate refused */
    uint32_t gated;         /* send-ring slots holding a new order the risk gate checks (RISK_SEND_GATED, bit k) */
    uint32_t late_cancels;  /* cancels that came after the stop had fired (its order went out all the same) */
    uint32_t fire_pending;  /* stops whose fire the engine could not send: firmware sends them (the trade: fired_px) */
    fire_counts_t fires0;   /* the hardware's counts when the connection came up */
    uint32_t resyncs;       /* times the parser was set to firmware's rcv_nxt after it fell behind */
    uint32_t ooo_seen;      /* the stack's tcp_ooo_delivered when the parser was last checked */
    uint64_t resync_check_ms;
    uint32_t ack;     /* the ACK orders carry (ACK_SET): firmware's rcv_nxt when last written */
    uint32_t lat_min, lat_max, lat_n;
    uint64_t lat_sum;
} ofl;

#ifdef TF_HAS_EARLY
#ifndef TF_HAS_DIGESTION
#error "early fires are switched on a connection by digestion's parser switch (fw/app/digestion.c digestion_poll)"
#endif
/* Early fires: a setting (kept across connections) and the per-minute cap of poisoned orders (Eurex-style etiquette:
 * an exchange counts the frames it drops). At the cap, early fires turn themselves off and say so. */
#define EARLY_CAP_DEFAULT 10u
static struct {
    bool want;           /* asked for (EARLY_CTRL staged to this) */
    bool on;             /* applied by the parser's last CONFIG */
    uint32_t cap;        /* poisoned orders a minute that turn early fires off (0: no cap) */
    uint32_t sent, poisoned;  /* this connection's SENT_EARLY and POISONED records */
    uint32_t win_n;      /* poisoned in the current minute */
    uint64_t win_ms;     /* its start */
    uint32_t capped;     /* times the cap turned early fires off */
} early = {.cap = EARLY_CAP_DEFAULT};

static void early_want(bool on) {
    early.want = on;
    offload_rx_early_stage(on);
}

bool offload_early_pending(void) { return early.want != early.on; }

void offload_early_applied(void) {
    early.on = early.want;
    if (!mp_in_request) printf("offload: early fires %s\n", early.on ? "on" : "off");
    mp_event("offload.early", "on:b", early.on);
}

/* A POISONED record: the early order went out with a bad FCS (its segment's verdict was bad or late), nothing of it
 * counts: no number was taken, the parser's entry is still armed and the engine armed the template again, so the
 * stop stays loaded and the retransmitted segment fires it again. A stop cancelled meanwhile (no longer loaded: the
 * cancel found the entry armed) has its template disarmed again. */
static void early_poisoned(unsigned i) {
    early.poisoned++;
    if (!(ofl.loaded & (1u << i))) (void)order_tx_arm(1u << i, false);
    uint64_t now = timer_ms();
    if (early.win_n == 0 || now - early.win_ms >= 60000u) early.win_ms = now, early.win_n = 0;
    early.win_n++;
    if (early.cap && early.win_n >= early.cap && early.want) {
        early_want(false);
        early.capped++;
        printf("offload: early fires off: %lu poisoned in a minute (cap)\n", (unsigned long)early.win_n);
        mp_event("offload.early_cap", "poisoned:u cap:u", early.win_n, early.cap);
    }
}
#endif

static ofl_template_t tp; /* scratch: building a template, or rebuilding what was sent (in place) */
/* Digits of the MsgSeqNum field in the orders of stops loaded from now on (`offload digits`; 0: the template's
 * default): a setting, so not in ofl, which each connection clears. */
static uint8_t msgseq_digits;

static void error(const char *what, long v) {
    ofl.errors++;
    printf("offload: %s (%ld)\n", what, v);
}

static void set_time(void) {
    fix_session_t *s = fixclient_session();
    if (!fix_session_utc_valid(s)) return;
    uint64_t now = timer_ms();
    if (!order_tx_set_time((uint32_t)(fix_session_utc(s, now) % 86400000u), ETH_CYCLES_PER_MS)) {
        error("the engine refused the time", 0);
        return;
    }
    ofl.time_ok = true;
    ofl.time_set_ms = now;
}

/* The ClOrdID (11) of a FIX message. */
static void clordid_of(const uint8_t *m, size_t len, char out[FIX_ID_MAX]) {
    out[0] = 0;
    for (size_t i = 0; i + 4 < len; i++)
        if (m[i] == 1 && m[i + 1] == '1' && m[i + 2] == '1' && m[i + 3] == '=') {
            size_t k = 0;
            for (i += 4; i < len && m[i] != 1 && k + 1 < FIX_ID_MAX; i++) out[k++] = (char)m[i];
            out[k] = 0;
            return;
        }
}

#ifdef TF_HAS_RISK
/* A new order (35=D) firmware queues is checked by the risk gate as ticket SLOT0 + k (its symbol, side, quantity and
 * limit price from the message; one whose fields do not parse is prepared as nothing, so that the gate refuses it);
 * any other frame in slot k is not. */
static void gate_send(unsigned k, const uint8_t *fix, size_t n, unsigned mode) {
    static const uint32_t tags[5] = {35, 55, 54, 38, 44};
    fix_field_t f[5];
    char sym[FIX_SYMBOL_MAX] = "";
    uint32_t q = 0;
    int64_t p = 0;
    int rc = fix && mode == OFL_MSG_NUMBERED ? fix_raw_get_tags(fix, n, 5, tags, f, NULL) : FIX_E_FORMAT;
    bool order = (rc == FIX_OK || rc == FIX_E_MISSING) && fix_field_eq(&f[0], "D");
    if (order) {
        if (rc == FIX_OK && f[1].len < sizeof sym && fix_parse_u32(f[3].val, f[3].len, &q) == FIX_OK &&
            fix_parse_decimal(f[4].val, f[4].len, fixclient_price_decimals(), &p) == FIX_OK)
            memcpy(sym, f[1].val, f[1].len), sym[f[1].len] = 0;
        else q = 0; /* (no symbol, no quantity: the gate refuses the ticket, NO_TICKET) */
        risk_prepare(ORDER_TX_SEND_SLOT0 + k, sym, rc == FIX_OK ? f[2].val[0] : '1', q, p);
    }
    uint32_t g = order ? ofl.gated | (1u << k) : ofl.gated & ~(1u << k);
    if (g != ofl.gated) order_tx_risk_send_gated(ofl.gated = g);
}
#endif

/* set_ack and offload_sync in line in their callers where the RAM has room (TF_MEM_WORDS, fw/Makefile): every
 * received segment takes offload_sync (fixclient.c tcp_data), whose calls saved registers through the -msave-restore
 * routines. The 35=W receive path: offload_sync and set_ack 62 -> 0 cycles a W, tcp_data 427 -> 447, order_tx_set_ack
 * 15, w_cost avg 4,805 -> 4,702 (profiling build, sim/tests/run.sh w_cost with +pc-hist, tools/pc-hist.py; 41 cycles
 * of the 103 were fewer digestion descriptors taken on the path in that run), for 64 bytes of code. */
#if TF_MEM_WORDS
#define SYNC_INLINE inline __attribute__((always_inline))
#else
#define SYNC_INLINE
#endif

/* Orders carry firmware's rcv_nxt as their TCP ACK (the engine's ACK_SET), not the receive parser's: the
 * parser sees every frame on the wire, firmware may lose one (no free receive slot), and an order that
 * acknowledged it would stop the peer from sending it again. A lower ACK is always safe. (Firmware's own frames
 * carry rcv_nxt as it was when they were queued: SEND_ACK.) */
static SYNC_INLINE void set_ack(bool force) {
    struct tcp_conn *c = fixclient_conn();
    if (!c || tcp_get_state(c) == TCP_CLOSED || (!force && c->rcv_nxt == ofl.ack)) return;
    if (!order_tx_set_ack(c->rcv_nxt)) error("the engine refused the ACK", 0);
    ofl.ack = c->rcv_nxt;
}

/* What every SENT record takes, a fire's or a firmware frame's: the frame is read back from its template (tp holds
 * the template's metadata), rebuilt with the record's values (ofl_materialize) and adopted by TCP (retransmission;
 * the FIN) and, when the engine numbered it, by the session (its number, the resend store, the order table).
 * Returns the FIX message as sent (tp.fix_len bytes), or NULL when it could not be rebuilt. */
static const uint8_t *adopt(const order_tx_record_t *r) {
    ofl_patch_t p = {r->seq, r->ack, r->window, r->ip_id, r->msgseq, r->tod_ms};
    order_tx_read(r->tmpl, tp.frame, tp.len);
    if (ofl_materialize(&tp, &p, tp.frame) != tp.len) {
        error("cannot rebuild a sent frame", r->tmpl);
        return NULL;
    }
    const uint8_t *fix = tp.frame + OFL_FIX_OFF;
    struct tcp_conn *c = fixclient_conn();
    if (c && tcp_get_state(c) != TCP_CLOSED) {
        int rc = tp.fix_len ? tcp_adopt_sent(c, r->seq, fix, tp.fix_len) : TCP_ADOPT_OK;
        if (rc == TCP_ADOPT_OK && tp.fin) rc = tcp_adopt_fin(c, r->seq + tp.fix_len);
        if (rc != TCP_ADOPT_OK) error("TCP refused a frame as the engine sent it", rc);
    }
    if (tp.msg_mode == OFL_MSG_NUMBERED &&
        fix_session_adopt(fixclient_session(), fix, tp.fix_len, timer_ms()) != (int64_t)r->msgseq)
        error("the session refused the engine's MsgSeqNum", (long)r->msgseq);
    return fix;
}

/* A firmware frame's record. */
static void handle_send(const order_tx_record_t *r) {
    unsigned k = r->tmpl - ORDER_TX_SEND_SLOT0;
    if (k >= RING_SLOTS || !(ofl.ring_busy & (1u << k))) {
        error("a send record for a slot firmware did not fill", r->tmpl);
        return;
    }
    const ring_t *g = &ofl.ring[k];
    const uint16_t fix_len = FIX_LEN(g->len);
    ofl.ring_busy &= ~ring_mask(k, g->len);
#ifdef TF_HAS_RISK
    if (r->status == ORDER_TX_REC_STATUS_REFUSED) { /* a new order the risk gate refused: not sent, no number taken */
        char id[FIX_ID_MAX], text[24];
        tcp_hw_shrink(fixclient_conn(), fix_len);
        order_tx_read(r->tmpl, tp.frame, g->len);
        clordid_of(tp.frame + OFL_FIX_OFF, fix_len, id);
        risk_refused(r->tmpl, r->ip_id);
        snprintf(text, sizeof text, "risk: %s", risk_reason_name(r->ip_id));
        if (fix_app_refuse(fixclient_app(), id, text) < 0) error("a refused order firmware does not know", r->tmpl);
        return;
    }
#endif
    if (r->status != ORDER_TX_REC_STATUS_SENT) { /* the numbers were not taken: the message never left */
        error("the engine did not send a firmware frame: the session cannot go on", r->status);
        fixclient_fail("a firmware frame the engine did not send");
        return;
    }
    memset(&tp, 0, sizeof tp);
    tp.len = g->len;
    tp.fix_len = fix_len;
    tp.msg_off = g->msg_off;
    tp.msg_width = g->msg_width;
    tp.msg_mode = g->mode;
    tp.cs_off = fix_len ? g->len - 4u : 0u;
    tp.fin = g->fin;
    const uint8_t *fix = adopt(r);
    if (!fix) return;
#ifdef TF_HAS_RISK
    if (ofl.gated & (1u << k)) { /* a new order the gate accepted: its fills and its end are fed back */
        char id[FIX_ID_MAX];
        clordid_of(fix, fix_len, id);
        risk_booked(fix_app_find(fixclient_app(), id));
    }
#endif
    ofl.fw_frames++;
    ofl.fw_bytes += fix_len;
}

static void unload(unsigned i);

#ifdef TF_HAS_EARLY
#define POISONED_N early.poisoned
#define ORDER_SENT_EARLY(status) ((status) == ORDER_TX_REC_STATUS_SENT_EARLY) /* sent after a good verdict: as SENT */
#else
#define POISONED_N 0u
#define ORDER_SENT_EARLY(status) false
#endif

/* One fire-log record. */
static void handle(const order_tx_record_t *r) {
    if (r->is_send) {
        handle_send(r);
        return;
    }
    unsigned i = r->tmpl;
    stop_t *st = stops_slot(i);
    unsigned trig;
    int64_t px = -1;
#ifdef TF_HAS_EARLY
    if (r->status == ORDER_TX_REC_STATUS_POISONED) { /* (the parser logs an early fire at a good verdict only) */
        early_poisoned(i);
        return;
    }
    if (r->status == ORDER_TX_REC_STATUS_SENT_EARLY) early.sent++;
#endif
    while (offload_rx_pop_fire(&trig, &px, &ofl.stamp_scratch) && trig != i) px = -1; /* the parser's record: the price */
#ifdef TF_HAS_RISK
    if (r->status == ORDER_TX_REC_STATUS_REFUSED) { /* the risk gate refused it: nothing sent, no number taken */
        ofl.refused++;
        if (st) risk_refused(i, r->ip_id);
        /* kept (`risk on-refuse keep`): the engine left the template armed; the trigger table's one-shot entry,
         * spent by the fire, is written armed again (applied between segments: the next crossing trade fires) */
        if (st && risk_keeps(r->ip_id) && offload_rx_write_entry(i, st->symbol, st->side, st->stop_px, i)) {
            printf("stop %u: refused (%s): kept armed\n", i, risk_reason_name(r->ip_id));
            return;
        }
        (void)order_tx_arm(1u << i, false); /* (the engine leaves the template armed) the stop is retired */
        unload(i);
        if (st) stops_refused(i, risk_reason_name(r->ip_id));
        return;
    }
#endif
    if (r->status != ORDER_TX_REC_STATUS_SENT && !ORDER_SENT_EARLY(r->status)) {
        /* The engine could not send it (a MsgSeqNum wider than the template's field, bad metadata), and took no
         * number: the template leaves the engine and its bytes the TCP lease, and the crossing is not lost:
         * firmware sends the stop's order itself (a repeating stop is then loaded again, with the number now). */
        ofl.not_sent++;
        error("a stop triggered, the engine could not send its order", (long)r->status);
        (void)order_tx_arm(1u << i, false);
        unload(i);
        if (st && st->state == STOP_ARMED) { /* sent from the main loop (offload_fire_pending): not this deep */
            st->fired_px = px;
            ofl.fire_pending |= 1u << i;
        }
        return;
    }
    ofl.sent++;
    ofl.loaded &= ~(1u << i);
    const meta_t *m = &ofl.meta[i];
    memset(&tp, 0, sizeof tp);
    tp.len = m->len;
    tp.fix_len = FIX_LEN(m->len);
    tp.msg_off = m->msg_off;
    tp.msg_width = m->msg_width;
    tp.msg_mode = OFL_MSG_NUMBERED;
    tp.cs_off = m->cs_off;
    tp.st_off = m->st_off;
    tp.tt_off = m->tt_off;
    tp.st_en = tp.tt_en = true;
    const uint8_t *fix = adopt(r);
    if (!fix) return;
    uint64_t now = timer_ms();
    char id[FIX_ID_MAX];
    clordid_of(fix, tp.fix_len, id);
    int order = st ? fix_app_adopt_order(fixclient_app(), id, st->symbol, st->side, st->qty, st->limit_px, r->msgseq,
                                         stops_keep(i), now) : -1; /* into the entry the armed stop kept */
    uint32_t lat = r->tx_stamp - r->rx_stamp;
    if (ofl.lat_n == 0 || lat < ofl.lat_min) ofl.lat_min = lat;
    if (lat > ofl.lat_max) ofl.lat_max = lat;
    ofl.lat_sum += lat;
    ofl.lat_n++;
    stops_hw_fired(i, px, order, id, r->msgseq, lat);
#ifdef TF_HAS_RISK
    risk_booked(order);
#endif
}

/* Out of line: offload_sync calls it only when the log holds a record, and every segment takes offload_sync. */
static __attribute__((noinline)) void drain(void) {
    order_tx_record_t r;
    while (order_tx_pop(&r)) handle(&r);
}

static void fire_counts(fire_counts_t *f) {
    offload_rx_counters_t rc;
    offload_rx_counters(&rc);
    f->fires = rc.fires;
    order_tx_counters(&f->eng);
}

/* Every fire of the trigger table on this connection, as the hardware counted it: `fires` from the trigger table; the
 * engine either logged it (sent: ofl.sent; not sent: ofl.not_sent) or counted it (the rest). */
static void fire_account(fire_counts_t *a) {
    const fire_counts_t *b = &ofl.fires0;
    fire_counts(a);
    a->fires -= b->fires;
    a->eng.ignored = (uint16_t)(a->eng.ignored - b->eng.ignored);
    a->eng.not_armed = (uint16_t)(a->eng.not_armed - b->eng.not_armed);
    a->eng.log_drops = (uint16_t)(a->eng.log_drops - b->eng.log_drops);
    a->eng.rx_overflow = (uint16_t)(a->eng.rx_overflow - b->eng.rx_overflow);
}

void offload_conn_up(void) {
    memset(&ofl, 0, sizeof ofl);
#ifdef TF_HAS_EARLY
    if (early.on != early.want) offload_early_applied(); /* (offload_rx_follow's CONFIG applied what is staged) */
    early.sent = early.poisoned = early.win_n = 0;
#endif
#ifdef TF_HAS_RISK
    /* no send-ring slot is gated (ofl.gated is 0 again): the engine's mask too, or a slot an earlier connection's
     * order left gated would have this connection's first frames in it (its Logout...) refused as tickets */
    order_tx_risk_send_gated(0);
#endif
    fire_counts(&ofl.fires0);
    order_tx_enable(false);
    (void)order_tx_arm(0xFFFFu, false);
    order_tx_record_t r;
    while (order_tx_pop(&r)) {} /* records of an earlier connection were handled when it went */
    ofl.up = true;
    set_time();
}

/* The engine takes the connection's numbers, once, at the first frame firmware sends on it (the Logon: the
 * session has set its next MsgSeqNum by then), while it is disabled and idle (since offload_conn_up); it takes them
 * when it is enabled. Firmware's TCP gives it a lease that grows with every frame and order (tcp_hw_arm with 0,
 * tcp_hw_extend) and never sends new data itself. There is no lock: from here on only the engine uses the numbers. */
static bool start(void) {
    if (ofl.started) return true;
    struct tcp_conn *c = fixclient_conn();
    uint32_t seq;
    if (!ofl.up || !c) return false;
    if (!order_tx_wait_idle()) {
        error("the engine is not idle", 0);
        return false;
    }
    if (!tcp_hw_arm(c, 0, &seq)) return false;
    order_tx_next_t n = {seq, fix_session_next_out(fixclient_session()), netif_stack()->ip_id, NET_TCP_RCV_WND};
    order_tx_set_next(&n);
    order_tx_enable(true);
    set_ack(true);
    ofl.started = true;
    return true;
}

/* The connection went: the trigger table fires no more (DISARM_ALL is applied after the last segment's fires), the
 * frames already queued go out (to a connection that is gone: harmless; the FIN among them) until every one has
 * its record (SEND_FREE alone would miss the one the engine has taken and not sent yet: disabled, it would keep it
 * and send it with the next connection's numbers), then the engine is disabled (a fire still on its way is
 * ignored: its stop was not sent and stays firmware's) and its last records are taken. */
void offload_conn_down(void) {
    if (!ofl.up) return;
    if (!offload_rx_disarm_all()) error("the trigger table did not disarm", 0);
    uint64_t t0 = timer_ms();
    while ((ofl.ring_busy || order_tx_send_free() < ORDER_TX_SEND_DEPTH) && timer_ms() < t0 + 10) drain();
    if (ofl.ring_busy) error("queued frames got no record", (long)ofl.ring_busy);
    order_tx_enable(false);
    if (!order_tx_wait_idle()) error("the engine did not stop", 0);
    drain();
    (void)order_tx_arm(0xFFFFu, false);
    ofl.up = ofl.started = false;
    ofl.loaded = 0;
    ofl.ring_busy = 0;
}

/* The first of the slots a frame of len bytes takes, in ring order, once they are free (len 0: once those of a
 * frame of any length are: offload_before_send); records are taken meanwhile while the ring is full (the engine
 * sends a queued frame within microseconds). -1: none came free. */
static int ring_free(unsigned len) {
    uint64_t t0 = 0;
    for (;;) {
        const unsigned k = ofl.ring_next, k2 = k + 2 > RING_SLOTS ? 0 : k; /* (a long frame's two slots wrap whole) */
        const unsigned first = len > ORDER_TX_TEMPLATE_BYTES ? k2 : k;
        const uint32_t mask = len ? ring_mask(first, len) : ring_mask(k, 1) | ring_mask(k2, ORDER_TX_TEMPLATE_BYTES + 1);
        if (!(ofl.ring_busy & mask)) return (int)first;
        if (t0 == 0) t0 = timer_ms() + 1, ofl.ring_waits++;
        if (timer_ms() > t0 + 50) return -1;
        drain();
    }
}

/* Takes the slots for a frame of len bytes (ring_free). -1: none came free. */
static int ring_take(unsigned len) {
    int k = ring_free(len);
    if (k >= 0) {
        ofl.ring_next = ((unsigned)k + (len > ORDER_TX_TEMPLATE_BYTES ? 2u : 1u)) % RING_SLOTS;
        ofl.ring_busy |= ring_mask((unsigned)k, len);
    }
    return k;
}

/* The session builds its messages in tp's FIX part (offload_tx_buffer): framed there by ofl_build_frame in place. */
uint8_t *offload_tx_buffer(size_t *cap) {
    *cap = OFL_FRAME_MAX - OFL_FIX_OFF;
    return tp.frame + OFL_FIX_OFF;
}

/* Before the session builds a message in tp: the send ring's next slots free for the longest frame (one slot at
 * ring_next and the two a long frame takes), records taken meanwhile (handling a record rebuilds its frame in tp),
 * so that send_frame's ring_take finds them free and handles no record while the message lies in tp. (A ring still
 * full after 50 ms: send_frame waits again and fails, as it did.) */
void offload_before_send(void) { (void)ring_free(0); }

/* Queues one firmware frame to the engine: the FIX message fix[0..n) (or none: the FIN), numbered by the engine
 * or keeping its own number. False (nothing queued) when the engine cannot take it: the caller drops the
 * connection, as for a full TCP send buffer. */
static bool send_frame(const uint8_t *fix, size_t n, unsigned mode, bool fin) {
    ofl_conn_t cn;
    struct tcp_conn *c = fixclient_conn();
    const bool in_tp = n && fix == tp.frame + OFL_FIX_OFF; /* built in place: a record handled now would overwrite it */
    if (!start() || !fixclient_conn_spec(&cn)) {
        error("the engine cannot send on the connection", 0);
        return false;
    }
    int rc = ofl_build_frame(&tp, &cn, fix, n, mode, fin);
    if (rc != OFL_OK || (mode == OFL_MSG_NUMBERED && tp.msg_off >= 256)) {
        error("cannot build a frame of firmware's message", rc);
        return false;
    }
    if (n && !tcp_hw_extend(c, n)) {
        error("TCP send buffer full", (long)n);
        return false;
    }
    const uint16_t len = tp.len;
    const uint32_t waits = ofl.ring_waits;
    int k = ring_take(len);
    if (k < 0) {
        error("the send ring stayed full", 0);
        return false;
    }
    /* A full ring made ring_take take records (drain), and handling a record rebuilds its frame in tp: build this
     * one again (the same inputs give the same frame), unless the message was in tp (offload_before_send found the
     * ring full for 50 ms: it is lost). From here on nothing of tp is read after a drain. */
    if (ofl.ring_waits != waits &&
        (in_tp || (rc = ofl_build_frame(&tp, &cn, fix, n, mode, fin)) != OFL_OK || tp.len != len)) {
        ofl.ring_busy &= ~ring_mask((unsigned)k, len);
        error(in_tp ? "the send ring stayed full" : "cannot build a frame of firmware's message", rc);
        return false;
    }
    const ring_t queued = {tp.len, (uint8_t)tp.msg_off, tp.msg_width, (uint8_t)mode, fin};
#ifdef TF_HAS_RISK
    gate_send((unsigned)k, fix, n, mode);
#endif
    unsigned slot = ORDER_TX_SEND_SLOT0 + (unsigned)k;
    order_tx_meta_t m = {tp.len, (uint16_t)(n ? tp.cs_off : 0), (uint8_t)tp.msg_off, tp.msg_width, 0, 0, false, false,
                         tp.ip_csum, tp.tcp_csum, tp.fix_sum};
    order_tx_load_frame(slot, tp.frame, &m);
    static const unsigned hw_mode[] = {ORDER_TX_SEND_MODE_NUMBER, ORDER_TX_SEND_MODE_KEEP, ORDER_TX_SEND_MODE_RAW};
    uint64_t t0 = timer_ms();
    while (!order_tx_send(slot, hw_mode[mode], fin, c->rcv_nxt)) {
        if (timer_ms() > t0 + 50) {
            ofl.ring_busy &= ~ring_mask((unsigned)k, len);
            error("the send queue stayed full", 0);
            return false;
        }
        drain();
    }
    ofl.ring[k] = queued;
    return true;
}

bool offload_send(const uint8_t *fix, size_t n, bool numbered) {
    return send_frame(fix, n, numbered ? OFL_MSG_NUMBERED : OFL_MSG_KEEP, false);
}

/* Builds stop i's order and puts it in the engine and the trigger table; the TCP lease grows by its bytes
 * (template i is disarmed: it was sent, or never armed). */
static bool load(unsigned i, const stop_t *st) {
    ofl_order_spec_t sp;
    char id[FIX_ID_MAX];
    if (!ofl.time_ok) return false;               /* its SendingTime would be the engine's unset clock */
    if (!ofl.started) return false;               /* the engine does not own the numbers yet */
    if (!fixclient_order_spec(&sp)) return false; /* no ARP entry for the exchange yet */
    fix_app_take_clordid(fixclient_app(), id);
    sp.clordid = id;
    sp.symbol = st->symbol;
    sp.side = st->side;
    sp.qty = st->qty;
    sp.qty_dec = 0;
    sp.price = st->limit_px;
    sp.price_dec = fixclient_price_decimals();
    sp.msgseq_width = msgseq_digits;
    int rc = ofl_build_template(&tp, &sp);
    if (rc != OFL_OK) {
        error("cannot build the order template", rc);
        return false;
    }
    if (!tcp_hw_extend(fixclient_conn(), tp.fix_len)) return false;
    meta_t *m = &ofl.meta[i];
    *m = (meta_t){tp.len, (uint8_t)tp.msg_off, tp.msg_width, (uint8_t)tp.cs_off, (uint8_t)tp.st_off,
                  (uint8_t)tp.tt_off};
    order_tx_load(i, &tp);
#ifdef TF_HAS_RISK
    risk_prepare(i, st->symbol, st->side, st->qty, st->limit_px);
#endif
    if (!offload_rx_write_entry(i, st->symbol, st->side, st->stop_px, i) || !order_tx_arm(1u << i, true)) {
        error("the trigger table or the engine refused the stop", i);
        (void)order_tx_arm(1u << i, false);
        unload(i); /* its bytes leave the lease (meta[i] has them): the next poll leases it again */
        return false;
    }
    ofl.loaded |= 1u << i;
    printf("stop %u: in the hardware trigger table (order %s, %u bytes)\n", i, id, (unsigned)tp.len);
    mp_event("stop.loaded", "stop:u clordid:s", i, id);
    return true;
}


/* The parser follows the in-order stream as it passes on the wire and skips segments from the future. When
 * firmware's TCP later delivers such segments from its out-of-order queue (after a loss or a reordering), the
 * kernel never sends them again: the parser would wait for bytes that never come and fire no more on this
 * connection. So whenever firmware has delivered out-of-order bytes (and once a second anyway), the parser's
 * expected sequence number is compared with firmware's rcv_nxt; if it is behind, it is set there, at a FIX
 * message boundary (README.md "Firmware protocol" 6). Only forward: nothing is parsed twice, nothing fires twice. */
void offload_resync(void) {
    struct tcp_conn *c = fixclient_conn();
    uint32_t ooo = net_get_counters(netif_stack())->tcp_ooo_delivered;
    uint64_t now = timer_ms();
    if (!ofl.up || !c || tcp_get_state(c) != TCP_ESTABLISHED) return;
    if (ooo == ofl.ooo_seen && now - ofl.resync_check_ms < 1000u) return;
    if (!fix_session_rx_at_boundary(fixclient_session())) return; /* next time */
    ofl.ooo_seen = ooo;
    ofl.resync_check_ms = now;
    uint32_t seq, res, nxt = tcp_hw_rcv_nxt(c);
    if (!offload_rx_state(&seq, &res) || (res & 1u) || (int32_t)(seq - nxt) >= 0) return; /* FIN seen, or not behind */
    if (!offload_rx_load_seq(nxt)) {
        error("the parser refused LOAD_SEQ", (long)nxt);
        return;
    }
    ofl.resyncs++;
    printf("offload: the parser expected sequence %lu, behind firmware's %lu: resynchronised\n", (unsigned long)seq,
           (unsigned long)nxt);
}

SYNC_INLINE void offload_sync(void) {
    if (!ofl.up) return;
    set_ack(false);
    if (order_tx_log_pending()) drain();
}

void offload_poll(void) {
#ifdef TF_HAS_RISK
    risk_poll();
#endif
    if (!ofl.up) return;
    offload_sync();
    /* the engine's clock runs on its own between settings: every second it gets firmware's UTC again (which
     * follows the exchange's; in the simulation the engine's clock runs at the simulator's speed) */
    /* (until it has been set once on this connection: at every poll, so that no order goes out with the unset clock) */
    if (!ofl.time_ok || (int64_t)(netif_stack()->now_ms - ofl.time_set_ms) >= 1000) set_time(); /* the stack's ms: no timer division */
    struct tcp_conn *c = fixclient_conn();
    uint32_t fin_seq;
    if (ofl.started && !ofl.fin_queued && tcp_hw_fin_wanted(c, &fin_seq)) { /* our FIN: through the engine too */
        if (send_frame(NULL, 0, OFL_MSG_NONE, true)) ofl.fin_queued = true;
        else fixclient_fail("the engine cannot send the FIN");
    }
    uint32_t todo = stops_hw_armed() & ~ofl.loaded & ~ofl.fire_pending; /* (pending: fired, its order not sent yet) */
    for (unsigned i = 0; todo && c; i++, todo >>= 1)
        if ((todo & 1u) && !load(i, stops_get(i))) break; /* later (no clock, no ARP entry, no room) */
}

void offload_fire_pending(void) {
    for (unsigned i = 0; ofl.fire_pending >> i; i++) {
        if (!(ofl.fire_pending & (1u << i))) continue;
        ofl.fire_pending &= ~(1u << i);
        stop_t *st = stops_slot(i);
        if (st && st->state == STOP_ARMED) stops_fire_fw(i, st->fired_px);
    }
}

/* A stop's cancel races its fire, and the hardware decides: the trigger table's entry is disarmed first (DISARM is
 * applied between segments, after the last segment's fires) and says whether it was still armed. If it was, no fire
 * of it is on its way: the engine's template is disarmed and its bytes leave the TCP lease (canceled). If it was
 * not, the stop has fired and its order is on its way or out (a fire waits at most for the frame on the wire): its
 * record is awaited and handled as any fire's (too late to cancel). Nothing waits on the engine, no fire is held. */
/* Stop i's order will never be sent: it leaves the hardware's stops and its bytes leave the TCP lease. */
static void unload(unsigned i) {
    ofl.loaded &= ~(1u << i);
    tcp_hw_shrink(fixclient_conn(), FIX_LEN(ofl.meta[i].len));
}

bool offload_cancel(unsigned i) {
    if (!ofl.up || !(ofl.loaded & (1u << i))) return true;
    bool was = false;
    if (!offload_rx_disarm(i, &was)) error("the trigger table did not answer DISARM", i);
    if (was) {
        if (!order_tx_arm(1u << i, false)) error("the engine did not disarm a template", i);
        unload(i);
        return true;
    }
    uint64_t t0 = timer_ms();
    while ((ofl.loaded & (1u << i)) && timer_ms() < t0 + 10) drain();
    if (ofl.loaded & (1u << i)) { /* no record: the fire was lost on its way (counted by the engine), nothing was sent */
        error("a stop fired and its order's record did not come", i);
        (void)order_tx_arm(1u << i, false);
        drain();
        if (ofl.loaded & (1u << i)) {
            unload(i);
            return true;
        }
    }
    ofl.late_cancels++;
    return false;
}

static int cmd_offload(int argc, char **argv) {
#ifdef TF_HAS_DIGESTION
    if (argc == 3 && strcmp(argv[1], "digest") == 0 && (strcmp(argv[2], "on") == 0 || strcmp(argv[2], "off") == 0)) {
        digestion_want(strcmp(argv[2], "on") == 0);
        if (!mp_in_request)
            printf("offload: digestion %s%s\n", digestion_wanted() ? "asked for" : "off",
                   digestion_wanted() ? " (firmware stops and `md` get no digested market data; it waits while a firmware stop is armed)" : "");
        return 0;
    }
#ifdef TF_HAS_EARLY
    if (argc == 3 && strcmp(argv[1], "early") == 0 && (strcmp(argv[2], "on") == 0 || strcmp(argv[2], "off") == 0)) {
        early_want(strcmp(argv[2], "on") == 0);
        return 0; /* (offload_early_applied says when it is applied: at a message boundary, or a connection's start) */
    }
    if (argc == 4 && strcmp(argv[1], "early") == 0 && strcmp(argv[2], "cap") == 0) {
        uint32_t n;
        if (!tf_parse_u32(argv[3], &n) || n > 100000u) {
            printf("usage: offload early cap <0..100000>\n");
            return 1;
        }
        early.cap = n;
        return 0;
    }
#define OFFLOAD_USAGE "usage: offload [digest on|off | early on|off | early cap <n> | digits <1..10>]\n"
#else
#define OFFLOAD_USAGE "usage: offload [digest on|off | digits <1..10>]\n"
#endif
#else
#define OFFLOAD_USAGE "usage: offload [digits <1..10>]\n"
#endif
    if (argc == 3 && strcmp(argv[1], "digits") == 0) {
        uint32_t d;
        if (!tf_parse_u32(argv[2], &d) || d < 1 || d > 10) {
            printf(OFFLOAD_USAGE);
            return 1;
        }
        msgseq_digits = (uint8_t)d; /* the MsgSeqNum field's digits in the orders of stops loaded from now on */
        return 0;
    }
    if (argc != 1) {
        printf(OFFLOAD_USAGE);
        return 1;
    }
    if (ofl.up) drain(); /* every record the engine has written is counted */
    fire_counts_t a;
    fire_account(&a);
    if (mp_in_request) { /* the machine protocol: one "counters" event (lat_*: 0 while lat_n is 0) */
        mp_event("counters", "group:s up:b loaded:u armed:u table_fires:u sent:u not_sent:u ignored:u not_armed:u log_drops:u rx_overflow:u errors:u late_cancels:u fw_frames:u fw_bytes:u ring_waits:u lat_n:u lat_min:u lat_avg:u lat_max:u",
                 "offload", ofl.up, ofl.loaded, order_tx_armed(), a.fires, ofl.sent, ofl.not_sent, (uint32_t)a.eng.ignored,
                 (uint32_t)a.eng.not_armed, (uint32_t)a.eng.log_drops, (uint32_t)a.eng.rx_overflow, ofl.errors, ofl.late_cancels,
                 ofl.fw_frames, ofl.fw_bytes, ofl.ring_waits,
                 ofl.lat_n, ofl.lat_min, ofl.lat_n ? (uint32_t)(ofl.lat_sum / ofl.lat_n) : 0u, ofl.lat_max);
#ifdef TF_HAS_EARLY
        mp_event("counters", "group:s want:b on:b cap:u sent_early:u poisoned:u minute:u capped:u", "early", early.want,
                 early.on, early.cap, early.sent, early.poisoned, early.win_n, early.capped);
#endif
#ifdef TF_HAS_DIGESTION
        digestion_report();
#endif
        return 0;
    }
    printf("offload: %s, engine %s, stops loaded 0x%04lx, armed 0x%04lx\n", ofl.up ? "on the connection" : "idle",
           ofl.started ? "owns the connection's numbers" : "not started", (unsigned long)ofl.loaded,
           (unsigned long)order_tx_armed());
    printf("offload: orders sent by hardware %lu, triggered but not sent %lu, errors %lu, late cancels %lu\n",
           (unsigned long)ofl.sent, (unsigned long)ofl.not_sent, (unsigned long)ofl.errors, (unsigned long)ofl.late_cancels);
    printf("offload: this connection's fires of the trigger table %lu: sent %lu, logged not sent %lu, poisoned %lu, ignored %u, "
           "template not armed %u, log full %u, fire queue full %u\n", (unsigned long)a.fires, (unsigned long)ofl.sent,
           (unsigned long)ofl.not_sent, (unsigned long)POISONED_N, (unsigned)a.eng.ignored, (unsigned)a.eng.not_armed, (unsigned)a.eng.log_drops,
           (unsigned)a.eng.rx_overflow);
    printf("offload: parser resynchronised %lu times; firmware frames sent by the engine %lu (%lu bytes), ring full %lu times\n",
           (unsigned long)ofl.resyncs, (unsigned long)ofl.fw_frames, (unsigned long)ofl.fw_bytes, (unsigned long)ofl.ring_waits);
#ifdef TF_HAS_EARLY
    printf("offload: early fires %s (asked %s), cap %lu a minute (hit %lu times); sent early %lu, poisoned %lu (%lu this minute)\n",
           early.on ? "on" : "off", early.want ? "on" : "off", (unsigned long)early.cap, (unsigned long)early.capped,
           (unsigned long)early.sent, (unsigned long)early.poisoned, (unsigned long)early.win_n);
#endif
    if (ofl.lat_n)
        printf("offload: trade price SOH on the parser -> order byte 0 at the MAC: min %lu avg %lu max %lu cycles\n",
               (unsigned long)ofl.lat_min, (unsigned long)(ofl.lat_sum / ofl.lat_n), (unsigned long)ofl.lat_max);
#ifdef TF_HAS_DIGESTION
    digestion_report();
#endif
    return 0;
}
#if defined(TF_HAS_DIGESTION) && defined(TF_HAS_EARLY)
#define OFFLOAD_HELP_DIGEST "; offload digest|early on|off; offload early cap <n>"
#elif defined(TF_HAS_DIGESTION)
#define OFFLOAD_HELP_DIGEST "; offload digest on|off"
#else
#define OFFLOAD_HELP_DIGEST ""
#endif
TF_COMMAND(offload, "the stop-order offload: orders sent by hardware, latency, state" OFFLOAD_HELP_DIGEST, cmd_offload);
#endif
