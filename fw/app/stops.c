/* Stop orders (see stops.h). */
#include "app/stops.h"

#include <stdio.h>
#include <string.h>

#include "app/fixclient.h"
#include "app/offload.h"
#include "app/risk.h"
#include "drivers/timer.h"
#include "lib/console.h"
#include "lib/mproto.h"
#include "lib/parse.h"
#include "lib/prof.h"

static stop_t stops[STOPS_MAX];
static uint32_t fw_fires, hw_fires;
#ifdef TF_HAS_OFFLOAD
static bool hw_mode = true; /* new stops go to the hardware (`stop mode`) */
#else
static const bool hw_mode = false;
#endif

const stop_t *stops_get(unsigned i) { return i < STOPS_MAX ? &stops[i] : NULL; }
stop_t *stops_slot(unsigned i) { return i < STOPS_MAX ? &stops[i] : NULL; }

unsigned stops_keep(unsigned i) {
    unsigned n = 0;
    for (unsigned k = 0; k < STOPS_MAX; k++) n += k != i && stops[k].state == STOP_ARMED;
    return n;
}

uint32_t stops_hw_armed(void) {
    uint32_t m = 0;
    for (unsigned i = 0; i < STOPS_MAX; i++)
        if (stops[i].state == STOP_ARMED && stops[i].hw) m |= 1u << i;
    return m;
}

bool stop_crosses(char side, int64_t stop_px, int64_t trade_px) {
    return side == '1' ? trade_px >= stop_px : trade_px <= stop_px;
}

/* The price as written is px, or strictly between px and px + 1 when inexact (nonzero digits past the
 * configured decimals, or a magnitude past INT64_MAX): exactly, price >= stop is px >= stop, and price <= stop
 * is px < stop. Never rounded. */
bool stop_crosses_md(char side, int64_t stop_px, int64_t trade_px, bool inexact) {
    if (side == '1') return trade_px >= stop_px;
    return inexact ? trade_px < stop_px : trade_px <= stop_px;
}

#define print_px fixclient_print_px

/* A stop's record in the machine protocol (docs/PROTOCOL.md): the events stop.armed, stop.canceled and the
 * listing's stop events. */
static void stop_event(const char *name, unsigned i) {
    static const char *const names[] = {"free", "armed", "fired", "canceled"};
    const stop_t *s = &stops[i];
    mp_event(name, "stop:u state:s side:s sym:s qty:u stop_px:p limit_px:p hw:b fires:u by_hw:b trade:p order:i", i,
             names[s->state], s->side == '1' ? "buy" : "sell", s->symbol, s->qty, s->stop_px, s->limit_px, s->hw, s->fires,
             s->by_hw, s->fired_px, (int32_t)s->order);
}

/* Hardware fires waiting for their stop.fired event (stops_flush_events), with the fire log's MsgSeqNum and
 * cycle count. */
static uint32_t fired_pending;
static uint32_t fired_msgseq[STOPS_MAX], fired_cycles[STOPS_MAX];

static void fired_event(unsigned i, uint32_t msgseq, uint32_t cycles) {
    const stop_t *s = &stops[i];
    const fix_order_t *o = fix_app_order(fixclient_app(), s->order);
    mp_event("stop.fired", "stop:u by_hw:b trade:p order:i clordid:s msgseq:u cycles:u armed:b", i, s->by_hw, s->fired_px,
             (int32_t)s->order, o ? o->clordid : "", o ? o->seq : msgseq, cycles, s->state == STOP_ARMED);
}

/* Is no order table entry left for stop i's order (besides those the other armed stops keep; i = STOPS_MAX: a new
 * stop)? Then says so: "error: order table full: N live orders, M armed stops" for a new stop, "stop i: disarmed,
 * order table full: ..." for a repeating stop after its fire. */
static bool table_full(unsigned i) {
    unsigned avail = fix_app_available(fixclient_app()), keep = stops_keep(i);
    if (avail > keep) return false;
    if (i < STOPS_MAX) printf("stop %u: disarmed, ", i);
    else printf("error: ");
    printf("order table full: %u live orders, %u armed stops\n", FIX_APP_MAX_ORDERS - avail, keep);
    return true;
}

static __attribute__((noinline)) void flush_events(void) {
    for (unsigned i = 0; fired_pending; i++)
        if (fired_pending & (1u << i)) {
            fired_pending &= ~(1u << i);
            fired_event(i, fired_msgseq[i], fired_cycles[i]);
        }
}

/* The check in line (the link inlines it), the work out of line: every received segment calls it, few have fires. */
void stops_flush_events(void) {
    if (fired_pending) flush_events();
}

/* A stop fired, its order in the order table (order: the entry the stop kept for it; negative only for a hardware
 * order the table could not take). A one-shot stop is done; a repeating one is armed again (the hardware gets a
 * new order) when an entry is left for its next order, else it is disarmed, and says so.
 * hw_clordid: the ClOrdID of the order the hardware sent (with its MsgSeqNum and cycles), NULL when firmware sent it. */
static void fired(unsigned i, int64_t trade_px, int order, const char *hw_clordid, uint32_t msgseq, uint32_t cycles) {
    bool hw = hw_clordid != NULL;
    stop_t *s = &stops[i];
    s->state = STOP_FIRED;
    s->fired_px = trade_px;
    s->by_hw = hw;
    s->order = order;
    s->fires++;
    printf("stop %u: fired by %s on trade ", i, hw ? "hardware" : "firmware");
    if (trade_px >= 0) print_px(trade_px);
    else printf("?");
    const fix_order_t *o = fix_app_order(fixclient_app(), order);
    if (o) printf(": order %d %s sent", order, o->clordid);
    else printf(": order %s sent, not tracked (order table: %d)", hw_clordid, order); /* on the wire all the same */
    if (hw) printf(", MsgSeqNum %lu, %lu cycles from the price to the MAC", (unsigned long)msgseq, (unsigned long)cycles);
    printf("\n");
    if (s->repeat && !table_full(i)) s->state = STOP_ARMED;
}

void stops_hw_fired(unsigned i, int64_t trade_px, int order, const char *clordid, uint32_t msgseq, uint32_t cycles) {
    hw_fires++;
    fired(i, trade_px, order, clordid, msgseq, cycles);
    fired_msgseq[i] = msgseq;
    fired_cycles[i] = cycles;
    fired_pending |= 1u << i;
}

#ifdef TF_HAS_RISK
void stops_refused(unsigned i, const char *reason) {
    if (i >= STOPS_MAX || stops[i].state != STOP_ARMED) return;
    stops[i].state = STOP_CANCELED;
    printf("stop %u: refused by the risk gate (%s): retired\n", i, reason);
    stop_event("stop.refused", i);
}
#endif

void stops_fire_fw(unsigned i, int64_t trade_px) {
    stop_t *s = &stops[i];
    /* the entry it kept: only the session can refuse the order (nothing can be sent now) */
    int order = fix_app_new_order(fixclient_app(), s->symbol, s->side, s->qty, s->limit_px, stops_keep(i), timer_ms());
#ifdef TF_PROF_FIRE
    TF_PROF_WINDOW(2); /* (lib/prof.h) */
#endif
    if (order < 0) { /* not spent: the next trade that crosses it fires it */
        printf("stop %u: order NOT sent (%d), still armed\n", i, order);
        return;
    }
    fw_fires++;
    fired(i, trade_px, order, NULL, 0, 0);
    stops_flush_events(); /* in order */
    fired_event(i, 0, 0);
}

static void md_entry(const fix_md_snapshot_t *md, const fix_md_entry_t *e) {
    if (e->type != '2' || !e->has_price || md->symbol_cut) return;
    for (unsigned i = 0; i < STOPS_MAX; i++) {
        stop_t *s = &stops[i];
        if (s->state == STOP_ARMED && !s->hw && strcmp(s->symbol, md->symbol) == 0 &&
            stop_crosses_md(s->side, s->stop_px, e->price, e->price_inexact))
            stops_fire_fw(i, e->price);
    }
}

/* Every trade entry of the 35=W in order, the kept ones and then those past them. */
void stops_on_market_data(const fix_md_snapshot_t *md) {
    for (unsigned k = 0; k < md->n; k++) md_entry(md, &md->e[k]);
    fix_md_entry_t e;
    for (fix_cursor_t it = {0}; fix_md_next_more(md, &it, &e);) md_entry(md, &e);
}

/* The stop table, as one machine-protocol "stop" event per stop (docs/PROTOCOL.md), for people and programs alike;
 * the number listed is the result (mp_result) of a machine request. */
static int cmd_stops(int argc, char **argv) {
    (void)argc;
    (void)argv;
    int32_t n = 0;
    for (unsigned i = 0; i < STOPS_MAX; i++)
        if (stops[i].state != STOP_FREE) stop_event("stop", i), n++;
    if (!mp_in_request) /* a program counts the listing's events */
        printf("stops: %ld; fired by firmware %lu, by hardware %lu; new stops go to the %s\n", (long)n, (unsigned long)fw_fires,
                (unsigned long)hw_fires, hw_mode ? "hardware" : "firmware");
    mp_result = n;
    return 0;
}
TF_COMMAND(stops, "list the stop orders", cmd_stops);

int cmd_stop(int argc, char **argv) {
    unsigned dec = fixclient_price_decimals();
    if (argc == 3 && strcmp(argv[1], "cancel") == 0) {
        uint32_t i;
        if (!tf_parse_u32(argv[2], &i) || i >= STOPS_MAX || stops[i].state != STOP_ARMED) {
            printf("error: no armed stop %s\n", argv[2]);
            return 1;
        }
#ifdef TF_HAS_OFFLOAD
        if (stops[i].hw) (void)offload_cancel(i); /* a fire in flight is adopted meanwhile */
        if (stops[i].state != STOP_ARMED) {
            printf("error: stop %lu had fired\n", (unsigned long)i);
            return 1;
        }
#endif
        stops[i].state = STOP_CANCELED;
        printf("stop %lu: canceled\n", (unsigned long)i);
        stop_event("stop.canceled", i);
        return 0;
    }
#ifdef TF_HAS_OFFLOAD
    if (argc == 3 && strcmp(argv[1], "mode") == 0 && (!strcmp(argv[2], "hw") || !strcmp(argv[2], "fw"))) {
        hw_mode = argv[2][0] == 'h';
        printf("new stops go to the %s\n", hw_mode ? "hardware" : "firmware");
        return 0;
    }
#endif
    uint32_t qty;
    int64_t stop_px, limit_px;
    bool repeat = argc == 7 && strcmp(argv[6], "repeat") == 0;
    if (repeat) argc--;
    char side = argc == 6 && strcmp(argv[1], "buy") == 0 ? '1' : argc == 6 && strcmp(argv[1], "sell") == 0 ? '2' : 0;
    if (!side || strlen(argv[2]) == 0 || strlen(argv[2]) >= FIX_SYMBOL_MAX || !tf_parse_u32(argv[3], &qty) || qty == 0 ||
        fix_parse_decimal(argv[4], strlen(argv[4]), dec, &stop_px) != FIX_OK || stop_px <= 0 ||
        fix_parse_decimal(argv[5], strlen(argv[5]), dec, &limit_px) != FIX_OK || limit_px <= 0) {
        printf("usage: stop buy|sell SYM QTY STOP LIMIT [repeat] | cancel N | mode hw|fw\n");
        return 1;
    }
#ifdef TF_HAS_RISK
    if (risk_killed()) {
        printf("error: the risk gate's kill switch is on (risk reset ends it)\n");
        return 1;
    }
#endif
    unsigned i = 0;
    while (i < STOPS_MAX && stops[i].state == STOP_ARMED) i++;
    if (i == STOPS_MAX) {
        printf("error: all %d stop slots are armed\n", STOPS_MAX);
        return 1;
    }
    /* its order's entry in the order table: one left for each armed stop */
    if (table_full(STOPS_MAX)) return 1;
    /* reuse free slots first, then the oldest finished ones */
    for (unsigned j = 0; j < STOPS_MAX; j++)
        if (stops[j].state == STOP_FREE) {
            i = j;
            break;
        }
    /* the trigger table takes symbols of up to 8 characters from 0x21..0x5F, stops below 10^14 */
    bool hw = hw_mode && strlen(argv[2]) <= 8 && stop_px < 100000000000000LL;
    for (const char *c = argv[2]; hw && *c; c++) hw = *c >= 0x21 && *c <= 0x5F;
    if (hw_mode && !hw) {
        printf("error: the hardware takes symbols of up to 8 characters (no lowercase); `stop mode fw` for this one\n");
        return 1;
    }
    stop_t *s = &stops[i];
    memset(s, 0, sizeof *s);
    s->hw = hw;
    s->repeat = repeat;
    strcpy(s->symbol, argv[2]);
    s->side = side;
    s->qty = qty;
    s->stop_px = stop_px;
    s->limit_px = limit_px;
    s->order = -1;
    s->state = STOP_ARMED;
    printf("stop %u: armed %s %s %lu, stop ", i, side == '1' ? "buy" : "sell", s->symbol, (unsigned long)qty);
    print_px(stop_px);
    printf(" limit ");
    print_px(limit_px);
    printf(" (%s%s)\n", hw ? "hardware" : "firmware", repeat ? ", repeating" : "");
    mp_result = (int32_t)i;
    stop_event("stop.armed", i);
    return 0;
}

TF_COMMAND(stop, "arm a stop order (stop help)", cmd_stop);
