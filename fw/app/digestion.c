/* Market-data digestion on the SoC (see digestion.h). */
#include "app/digestion.h"
#include "lib/prof.h"

#ifdef TF_HAS_DIGESTION
#include <stdio.h>
#include <string.h>

#include "app/fixclient.h"
#include "app/offload.h"
#include "app/netif.h"
#include "app/stops.h"
#include "drivers/offload_rx.h"
#include "lib/mproto.h"
#include "net/tcp.h"
#include "offload/digest.h"

#ifndef TF_DIGEST_DEFAULT
#define TF_DIGEST_DEFAULT 0
#endif

static struct {
    bool want;       /* `offload digest on` */
    bool on;         /* what the parser was last configured with on this connection */
    bool up;
    ofl_digest_t d;
    uint32_t syncs, sync_refused;
    uint64_t sync_try_ms;
} dg = {.want = TF_DIGEST_DEFAULT};

/* What digestion should be now: asked for, and no firmware stop armed (it needs every 35=W). */
static bool wanted(void) {
    if (!dg.want) return false;
    for (unsigned i = 0; i < STOPS_MAX; i++) {
        const stop_t *s = stops_get(i);
        if (s && s->state == STOP_ARMED && !s->hw) return false;
    }
    return true;
}

static bool stage(bool on) {
    fix_session_t *s = fixclient_session();
    if (offload_rx_digest_stage(on, s->sender, s->target)) return on;
    if (on) printf("offload: digestion needs CompIDs of 1 to %u characters (%s, %s): off\n", (unsigned)OFFLOAD_RX_DIGEST_COMPID,
                   s->sender, s->target);
    (void)offload_rx_digest_stage(false, "-", "-");
    return false;
}

void digestion_conn_up(void) {
    ofl_digest_init(&dg.d);
    dg.on = stage(wanted());
    dg.up = true;
    dg.sync_try_ms = 0;
}

void digestion_conn_down(void) {
    dg.up = false;
    ofl_digest_desc_t x;
    while (offload_rx_digest_pop(&x)) {
    }
    ofl_digest_init(&dg.d);
}

static int op_skip(void *ctx, uint32_t seq, uint32_t len) {
    (void)ctx;
    int r = tcp_rx_skip(fixclient_conn(), seq, len);
    return r == TCP_SKIP_OK || r == TCP_SKIP_HELD ? 0 : -1; /* OLD: firmware got those bytes as data, parsed them */
}

static int op_messages(void *ctx, uint32_t first, uint32_t count) {
    (void)ctx;
    /* (the stack's time of this frame or pass: no timer division for every descriptor; never after now_ms()) */
    return fix_session_digested(fixclient_session(), first, count, netif_stack()->now_ms) == FIX_OK ? 0 : -1;
}

static int op_drop(void *ctx) {
    (void)ctx;
    return fix_session_rx_drop_partial(fixclient_session()) == FIX_OK ? 0 : -1;
}

static const ofl_digest_ops_t ops = {op_skip, op_messages, op_drop};

void digestion_take(void) {
    ofl_digest_desc_t x;
    for (;;) {
        bool got = false;
        if (!dg.up || !ofl_digest_room(&dg.d)) break;
        TF_LOOP(TF_LOOP_POP, got = offload_rx_digest_pop(&x));
        if (!got) break;
        TF_LOOP(TF_LOOP_TAKE, ofl_digest_take(&dg.d, &x, &ops, NULL));
    }
}

void digestion_skipped(uint32_t seq, uint32_t len) {
    if (dg.up) ofl_digest_skipped(&dg.d, seq, len, &ops, NULL);
}

void digestion_poll(void) {
    struct tcp_conn *c = fixclient_conn();
    fix_session_t *s = fixclient_session();
    if (!dg.up || !c || tcp_get_state(c) != TCP_ESTABLISHED || fix_session_state(s) != FIX_SESS_ACTIVE) return;
    digestion_take();
    /* only where firmware stands at a message boundary with nothing of the hardware's waiting */
    if (ofl_digest_waiting(&dg.d) || !fix_session_rx_at_boundary(s)) return;
    uint64_t now = netif_stack()->now_ms; /* this main-loop pass's (netif_poll): no timer division every pass */
    bool want = wanted();
#ifdef TF_HAS_EARLY
    bool early = offload_early_pending(); /* early fires' switch (offload.c) is the parser's CONFIG too */
#else
    bool early = false;
#endif
    if (want != dg.on || early) { /* switch at the parser's own position: CONFIG and LOAD_SEQ there lose nothing */
        uint32_t seq, res;
        if (now == dg.sync_try_ms || !offload_rx_state(&seq, &res) || seq != tcp_hw_rcv_nxt(c)) {
            dg.sync_try_ms = now;
            return;
        }
        bool was = dg.on;
        dg.on = stage(want);
        if (!offload_rx_digest_apply(seq)) printf("offload: the parser refused digestion's CONFIG\n");
        if (dg.on != was || want != was) {
            printf("offload: digestion %s\n", dg.on ? "on" : "off");
            mp_event("offload.digest", "on:b", dg.on);
        }
#ifdef TF_HAS_EARLY
        if (early) offload_early_applied();
#endif
        dg.d.disagree = false;
        ofl_digest_at_boundary(&dg.d);
        return;
    }
    if (!dg.on || (offload_rx_digest_synced() && !dg.d.disagree) || now == dg.sync_try_ms) return;
    dg.sync_try_ms = now; /* at most once a millisecond: a refused try means the parser is ahead, and traffic flows */
    if (offload_rx_digest_sync(tcp_hw_rcv_nxt(c), fix_session_next_in(s))) {
        dg.syncs++;
        dg.d.disagree = false;
        ofl_digest_at_boundary(&dg.d);
    } else {
        dg.sync_refused++;
    }
}

void digestion_want(bool on) { dg.want = on; }
bool digestion_wanted(void) { return dg.want; }

#ifdef TF_PROF_LOOP
uint32_t tf_loop_cycles[TF_LOOP_N], tf_loop_calls[TF_LOOP_N], tf_loop_max[TF_LOOP_N];
#endif

void digestion_report(void) {
    const ofl_digest_t *d = &dg.d;
#ifdef TF_PROF_LOOP
    static const char *const names[TF_LOOP_N] = {"console", "descriptors", "rx_frame", "net_poll", "session_poll",
                                                 "offload_poll", "digestion_poll", "events", "(descriptor pop)",
                                                 "(descriptor take)"};
    for (unsigned k = 0; k < TF_LOOP_N; k++) {
        printf("prof: %s cycles %lu calls %lu longest %lu\n", names[k], (unsigned long)tf_loop_cycles[k],
               (unsigned long)tf_loop_calls[k], (unsigned long)tf_loop_max[k]);
        tf_loop_cycles[k] = tf_loop_calls[k] = tf_loop_max[k] = 0;
    }
#endif
    bool synced = dg.up && offload_rx_digest_synced();
    if (mp_in_request) {
        mp_event("counters", "group:s want:b on:b synced:b digested:u passed:u trimmed:u hw_msgs:u bytes:u garbled:u held:u held_taken:u held_fw:u skip_refused:u msg_refused:u syncs:u sync_refused:u fifo_drops:u",
                 "digest", dg.want, dg.on, synced, d->digested, d->passed, d->trimmed, d->hw_msgs,
                 d->bytes, d->garbled, d->held, d->held_taken, d->held_fw, d->skip_refused, d->msg_refused, dg.syncs,
                 dg.sync_refused, offload_rx_digest_drops());
        return;
    }
    printf("offload: digestion %s%s%s; segments digested %lu, passed %lu (%lu trimmed); messages digested %lu (%lu bytes), "
           "garbled %lu; undecided heads %lu (%lu taken by the hardware, %lu firmware's); refused by TCP %lu, by the "
           "session %lu; parser synchronised %lu times (%lu refused), descriptors lost %lu\n",
           dg.on ? "on" : "off", dg.want && !dg.on ? " (asked for: waits for no firmware stop armed)" : "",
           dg.on ? (synced ? ", synchronised" : ", not synchronised") : "",
           (unsigned long)d->digested, (unsigned long)d->passed, (unsigned long)d->trimmed, (unsigned long)d->hw_msgs,
           (unsigned long)d->bytes, (unsigned long)d->garbled, (unsigned long)d->held, (unsigned long)d->held_taken,
           (unsigned long)d->held_fw, (unsigned long)d->skip_refused, (unsigned long)d->msg_refused,
           (unsigned long)dg.syncs, (unsigned long)dg.sync_refused, (unsigned long)offload_rx_digest_drops());
}
#endif
