/* Firmware side of the stop-order offload (see offload.h). */
#include "app/offload.h"

#ifdef TF_HAS_OFFLOAD
#include <stdio.h>
#include <string.h>

#include "app/fixclient.h"
#include "app/netif.h"
#include "app/stops.h"
#include "drivers/offload_rx.h"
#include "drivers/order_tx.h"
#include "drivers/sysctrl.h"
#include "drivers/timer.h"
#include "lib/console.h"
#include "lib/mproto.h"
#include "net/tcp.h"
#include "offload/template.h"

/* The engine's millisecond: eth_tx cycles (125 MHz) per firmware millisecond (the time base is scaled in
 * simulation, where every clock ticks at the same rate). */
#define ETH_CYCLES_PER_MS ((uint32_t)((uint64_t)TF_TIMEBASE_HZ * 125000u / TF_SYS_CLOCK_HZ))

typedef struct {
    uint16_t len, fix_len;
    uint8_t msg_off, msg_width, cs_off, st_off, tt_off;
} meta_t;

static struct {
    bool up;          /* connection established: the engine is set up for it */
    bool locked;      /* firmware holds the engine's lock */
    uint32_t loaded;  /* stops whose template and trigger entry are in hardware */
    uint32_t fallback;/* stops the hardware triggered but did not send: firmware sends them */
    int64_t fallback_px[STOPS_MAX]; /* the trade price that triggered each (the parser's record; -1 unknown) */
    bool time_ok;     /* the engine's clock has been set from the session's UTC on this connection */
    uint64_t time_set_ms;
    meta_t meta[STOPS_MAX];
    uint32_t sent, not_sent, errors, locks;
    uint32_t resyncs;       /* times the parser was set to firmware's rcv_nxt after it fell behind */
    uint32_t ooo_seen;      /* the stack's tcp_ooo_delivered when the parser was last checked */
    uint64_t resync_check_ms;
    uint32_t ack;     /* the ACK orders carry (ACK_SET): firmware's rcv_nxt when last written */
    uint32_t lat_min, lat_max, lat_n;
    uint64_t lat_sum;
} ofl;

static ofl_template_t tp; /* scratch: building a template, or rebuilding what was sent (in place) */

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

/* Orders carry firmware's rcv_nxt as their TCP ACK (the engine's ACK_SET), not the receive parser's: the
 * parser sees every frame on the wire, firmware may lose one (no free receive slot), and an order that
 * acknowledged it would stop the peer from sending it again. A lower ACK is always safe. */
static void set_ack(bool force) {
    struct tcp_conn *c = fixclient_conn();
    if (!c || tcp_get_state(c) == TCP_CLOSED || (!force && c->rcv_nxt == ofl.ack)) return;
    if (!order_tx_set_ack(c->rcv_nxt)) error("the engine refused the ACK", 0);
    ofl.ack = c->rcv_nxt;
}

/* One fire-log record. Runs under the lock or with the lease on: no firmware send in here. */
static void handle(const order_tx_record_t *r) {
    unsigned i = r->tmpl;
    stop_t *st = stops_slot(i);
    unsigned trig;
    int64_t px = -1;
    uint32_t stamp;
    while (offload_rx_pop_fire(&trig, &px, &stamp) && trig != i) px = -1; /* the parser's record: the price */
    if (r->status != ORDER_TX_REC_STATUS_SENT) {
        ofl.not_sent++;
        if (st && st->state == STOP_ARMED && st->hw) {
            ofl.fallback |= 1u << i;
            ofl.fallback_px[i] = px; /* the fire is reported with the trade that made it */
        }
        printf("offload: stop %u triggered, not sent by the engine (status %u)%s\n", i, r->status,
               ofl.fallback & (1u << i) ? ": firmware sends it" : "");
        return;
    }
    ofl.sent++;
    ofl.loaded &= ~(1u << i);
    const meta_t *m = &ofl.meta[i];
    order_tx_read(i, tp.frame, m->len);
    tp.len = m->len;
    tp.fix_len = m->fix_len;
    tp.msg_off = m->msg_off;
    tp.msg_width = m->msg_width;
    tp.cs_off = m->cs_off;
    tp.st_off = m->st_off;
    tp.tt_off = m->tt_off;
    ofl_patch_t p = {r->seq, r->ack, r->window, r->ip_id, r->msgseq, r->tod_ms};
    if (ofl_materialize(&tp, &p, tp.frame) != m->len) {
        error("cannot rebuild a sent order", i);
        return;
    }
    const uint8_t *fix = tp.frame + OFL_FIX_OFF;
    struct tcp_conn *c = fixclient_conn();
    if (c && tcp_get_state(c) != TCP_CLOSED) {
        int rc = tcp_adopt_sent(c, r->seq, fix, m->fix_len);
        if (rc != TCP_ADOPT_OK) error("TCP refused the hardware's segment", rc);
    }
    fix_session_t *s = fixclient_session();
    uint64_t now = timer_ms();
    if (fix_session_next_out(s) != r->msgseq) error("the engine used an unexpected MsgSeqNum", (long)r->msgseq);
    else fix_session_reserve_seqnum(s, 1);
    int rc = fix_session_record_sent(s, fix, m->fix_len, now);
    if (rc < 0) error("the FIX store refused the hardware's message", rc);
    char id[FIX_ID_MAX];
    clordid_of(fix, m->fix_len, id);
    int order = st ? fix_app_adopt_order(fixclient_app(), id, st->symbol, st->side, st->qty, st->limit_px, r->msgseq, now)
                   : -1;
    uint32_t lat = r->tx_stamp - r->rx_stamp;
    if (ofl.lat_n == 0 || lat < ofl.lat_min) ofl.lat_min = lat;
    if (lat > ofl.lat_max) ofl.lat_max = lat;
    ofl.lat_sum += lat;
    ofl.lat_n++;
    stops_hw_fired(i, px, order, id, r->msgseq, lat);
}

static void drain(void) {
    order_tx_record_t r;
    while (order_tx_pop(&r)) handle(&r);
}

static void take_lock(void) {
    if (!ofl.up || ofl.locked) return;
    if (!order_tx_lock()) error("the engine did not lock", 0);
    ofl.locked = true;
    ofl.locks++;
    drain();
    struct tcp_conn *c = fixclient_conn();
    order_tx_next_t n;
    order_tx_get_next(&n);
    if (c && c->hw_armed && n.seq != c->hw_seq) error("TCP sequence: engine and firmware differ", (long)(n.seq - c->hw_seq));
    if (n.msgseq != fix_session_next_out(fixclient_session())) error("MsgSeqNum: engine and firmware differ", (long)n.msgseq);
    netif_stack()->ip_id = n.ip_id;
    if (c) tcp_hw_disarm(c);
}

void offload_before_send(void *ctx) {
    (void)ctx;
    take_lock();
}

void offload_conn_up(void) {
    memset(&ofl, 0, sizeof ofl);
    order_tx_enable(true);
    if (!order_tx_lock()) error("the engine did not lock", 0);
    ofl.locked = true;
    (void)order_tx_arm(0xFFFFu, false);
    order_tx_record_t r;
    while (order_tx_pop(&r)) {} /* records of an earlier connection were handled when it went */
    ofl.up = true;
    set_time();
}

void offload_conn_down(void) {
    if (!ofl.up) return;
    take_lock();
    (void)offload_rx_disarm_all();
    (void)order_tx_arm(0xFFFFu, false);
    drain();
    ofl.up = false;
    ofl.loaded = 0;
    ofl.fallback = 0;
}

/* Builds stop i's order and puts it in the engine and the trigger table: under the lock, or while the
 * engine owns the numbers if the TCP lease can grow by the order's bytes (template i is disarmed: it was
 * sent, or never armed). */
static bool load(unsigned i, const stop_t *st) {
    ofl_order_spec_t sp;
    char id[FIX_ID_MAX];
    if (!ofl.time_ok) return false;               /* its SendingTime would be the engine's unset clock */
    if (!fixclient_order_spec(&sp)) return false; /* no ARP entry for the exchange yet */
    fix_app_take_clordid(fixclient_app(), id);
    sp.clordid = id;
    sp.symbol = st->symbol;
    sp.side = st->side;
    sp.qty = st->qty;
    sp.qty_dec = 0;
    sp.price = st->limit_px;
    sp.price_dec = fixclient_price_decimals();
    int rc = ofl_build_template(&tp, &sp);
    if (rc != OFL_OK) {
        error("cannot build the order template", rc);
        return false;
    }
    if (!ofl.locked && !tcp_hw_extend(fixclient_conn(), tp.fix_len)) return false;
    meta_t *m = &ofl.meta[i];
    *m = (meta_t){tp.len, tp.fix_len, tp.msg_off, tp.msg_width, tp.cs_off, tp.st_off, tp.tt_off};
    order_tx_load(i, &tp);
    if (!offload_rx_write_entry(i, st->symbol, st->side, st->stop_px, i) || !order_tx_arm(1u << i, true)) {
        error("the trigger table or the engine refused the stop", i);
        return false;
    }
    ofl.loaded |= 1u << i;
    printf("stop %u: in the hardware trigger table (order %s, %u bytes)\n", i, id, (unsigned)tp.len);
    mp_event("stop.loaded", "stop:u clordid:s", i, id);
    return true;
}

/* Hardware stops that should be in the engine. */
static uint32_t wanted(void) { return stops_hw_armed() & ~ofl.fallback; }

static void release(void) {
    struct tcp_conn *c = fixclient_conn();
    if (!ofl.locked || !c || fix_session_state(fixclient_session()) != FIX_SESS_ACTIVE) return;
    uint32_t want = wanted();
    for (unsigned i = 0; i < STOPS_MAX; i++)
        if ((want & ~ofl.loaded & (1u << i)) && !load(i, stops_get(i))) return;
    uint32_t armed = order_tx_armed() & want;
    if (!armed) return; /* nothing for the engine to send: firmware keeps the lock */
    size_t budget = 0;
    for (unsigned i = 0; i < STOPS_MAX; i++)
        if (armed & (1u << i)) budget += ofl.meta[i].fix_len;
    uint32_t seq;
    if (!tcp_hw_arm(c, budget, &seq)) return; /* firmware bytes not sent yet, or no room: later */
    order_tx_next_t n = {seq, fix_session_next_out(fixclient_session()), netif_stack()->ip_id, NET_TCP_RCV_WND};
    order_tx_set_next(&n);
    set_ack(true);
    order_tx_unlock();
    ofl.locked = false;
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

void offload_poll(void) {
    if (!ofl.up) return;
    set_ack(false);
    if (!ofl.locked) drain();
    while (ofl.fallback) {
        unsigned i = (unsigned)__builtin_ctz(ofl.fallback);
        ofl.fallback &= ~(1u << i);
        ofl.loaded &= ~(1u << i);
        (void)order_tx_arm(1u << i, false); /* its trigger entry disarmed itself: nothing can fire it meanwhile */
        stops_fire_fw(i, ofl.fallback_px[i]);
    }
    /* the engine's clock runs on its own between settings: every second it gets firmware's UTC again (which
     * follows the exchange's; in the simulation the engine's clock runs at the simulator's speed) */
    /* (until it has been set once on this connection: at every poll, so that no order goes out with the unset clock) */
    if (!ofl.time_ok || (int64_t)(netif_stack()->now_ms - ofl.time_set_ms) >= 1000) set_time(); /* the stack's ms: no timer division */
    uint32_t todo = wanted() & ~ofl.loaded;
    for (unsigned i = 0; !ofl.locked && todo; i++, todo >>= 1)
        if ((todo & 1u) && fixclient_conn() && !load(i, stops_get(i))) take_lock(); /* no room in the lease */
    release();
}

bool offload_cancel(unsigned i) {
    if (!ofl.up || !(ofl.loaded & (1u << i))) return true;
    take_lock();
    bool was = false;
    (void)offload_rx_disarm(i, &was);
    (void)order_tx_arm(1u << i, false);
    drain();
    ofl.fallback &= ~(1u << i);
    bool fired = !(ofl.loaded & (1u << i));
    ofl.loaded &= ~(1u << i);
    return !fired;
}

static int cmd_offload(int argc, char **argv) {
    (void)argv;
    if (argc != 1) {
        printf("usage: offload\n");
        return 1;
    }
    if (mp_in_request) { /* the machine protocol: one "counters" event (lat_*: 0 while lat_n is 0) */
        mp_event("counters", "group:s up:b locked:b loaded:u armed:u sent:u not_sent:u errors:u locks:u lat_n:u lat_min:u lat_avg:u lat_max:u",
                 "offload", ofl.up, ofl.locked, ofl.loaded, order_tx_armed(), ofl.sent, ofl.not_sent, ofl.errors, ofl.locks,
                 ofl.lat_n, ofl.lat_min, ofl.lat_n ? (uint32_t)(ofl.lat_sum / ofl.lat_n) : 0u, ofl.lat_max);
        return 0;
    }
    printf("offload: %s, engine %s, stops loaded 0x%04lx, armed 0x%04lx\n", ofl.up ? "on the connection" : "idle",
           ofl.locked ? "locked by firmware" : "owns the next numbers", (unsigned long)ofl.loaded,
           (unsigned long)order_tx_armed());
    printf("offload: orders sent by hardware %lu, triggered but not sent %lu, errors %lu, locks %lu\n",
           (unsigned long)ofl.sent, (unsigned long)ofl.not_sent, (unsigned long)ofl.errors, (unsigned long)ofl.locks);
    printf("offload: parser resynchronised %lu times\n", (unsigned long)ofl.resyncs);
    if (ofl.lat_n)
        printf("offload: trade price SOH on the parser -> order byte 0 at the MAC: min %lu avg %lu max %lu cycles\n",
               (unsigned long)ofl.lat_min, (unsigned long)(ofl.lat_sum / ofl.lat_n), (unsigned long)ofl.lat_max);
    return 0;
}
TF_COMMAND(offload, "the stop-order offload: orders sent by hardware, latency, state", cmd_offload);
#endif
