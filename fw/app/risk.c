/* Firmware side of the pre-trade risk gate (see risk.h). */
#include "app/risk.h"

#ifdef TF_HAS_RISK
#include <stdio.h>
#include <string.h>

#include "app/fixclient.h"
#include "app/stops.h"
#include "drivers/order_tx.h"
#include "drivers/timer.h"
#include "fix/codec.h"
#include "lib/console.h"
#include "lib/mproto.h"
#include "lib/parse.h"

#define AUDIT 8 /* the last refusals kept for `risk` */

/* An order as its ticket was prepared (sym: the symbol's index, -1 unknown). */
typedef struct {
    int8_t sym;
    char side;
    uint32_t qty;
    int64_t price;
} ticket_t;

typedef struct {
    ticket_t order;
    uint8_t reason, ticket;
} refusal_t;

/* What firmware wrote into the gate (the gate's registers are write-only): shown by `risk`. */
static struct {
    bool on, kill;
    bool keep; /* `risk on-refuse keep`: a stop refused for a reason that can pass by itself stays armed */
    char sym[RISK_SYMBOLS][FIX_SYMBOL_MAX];
    int64_t max_long[RISK_SYMBOLS], max_short[RISK_SYMBOLS], ref[RISK_SYMBOLS]; /* -1: not set */
    bool restricted[RISK_SYMBOLS];
    int64_t max_qty, max_notional, collar_bps, max_credit, rate, burst, poison_cap; /* -1: not set */
    uint32_t booked;  /* order table entries whose order went through the gate (bit idx) */
    uint32_t refused; /* REFUSED records handled */
    uint32_t fed, feed_errors;
    bool killed_seen; /* the kill's stops and cancels are done (until risk reset) */
    refusal_t audit[AUDIT];
    ticket_t ticket[RISK_TICKETS]; /* as prepared */
    unsigned audit_n; /* refusals logged (the last AUDIT kept) */
#ifdef OFFLOAD_RX_BOOK_SLOTS
    char book[RISK_BOOK_SLOTS][FIX_SYMBOL_MAX]; /* the hardware top of book's slots' symbols (market references) */
    int8_t book_sym[RISK_BOOK_SLOTS];           /* the symbol index each slot's trades are the reference of, -1 none */
#endif
} rk;

static const char *const reason_names[] = {"accepted", "killed", "no_ticket", "restricted", "max_qty", "max_notional",
                                           "collar", "long_limit", "short_limit", "credit", "throttle", "poison"};
const char *risk_reason_name(unsigned r) { return r < sizeof reason_names / sizeof *reason_names ? reason_names[r] : "?"; }

static void init_once(void) {
    static bool done;
    if (done) return;
    done = true;
    for (unsigned i = 0; i < RISK_SYMBOLS; i++) rk.max_long[i] = rk.max_short[i] = rk.ref[i] = -1;
#ifdef OFFLOAD_RX_BOOK_SLOTS
    for (unsigned k = 0; k < RISK_BOOK_SLOTS; k++) rk.book_sym[k] = -1;
#endif
    rk.max_qty = rk.max_notional = rk.collar_bps = rk.max_credit = rk.rate = rk.burst = rk.poison_cap = -1;
}

static int symbol_index(const char *s) {
    for (unsigned i = 0; i < RISK_SYMBOLS; i++)
        if (rk.sym[i][0] && strcmp(rk.sym[i], s) == 0) return (int)i;
    return -1;
}

static void kill_now(const char *by);
static int job(unsigned op, unsigned symbol, unsigned ticket, unsigned item, bool sell, bool cancel, uint32_t qty,
               uint64_t value, unsigned *reason);

#ifdef OFFLOAD_RX_BOOK_SLOTS
/* Ties each book slot to the symbol of its name that has limits: the gate takes the slot's trades (the hardware's top
 * of book) as that symbol's reference price, the collar's centre, as soon as each trade's segment is verified. */
static void map_book(void) {
    for (unsigned k = 0; k < RISK_BOOK_SLOTS; k++) {
        int s = k < OFFLOAD_RX_BOOK_SLOTS && rk.book[k][0] ? symbol_index(rk.book[k]) : -1;
        unsigned why;
        if (s == rk.book_sym[k]) continue;
        if (job(RISK_OP_MAP, s < 0 ? 0u : (unsigned)s, k, s >= 0, false, false, 0, 0, &why) == 1) rk.book_sym[k] = (int8_t)s;
        else printf("risk: book slot %u (%s): the gate did not take its market reference\n", k, rk.book[k]);
    }
}

void risk_book_slot(unsigned k, const char *symbol) {
    init_once();
    if (k >= RISK_BOOK_SLOTS) return;
    strncpy(rk.book[k], symbol, FIX_SYMBOL_MAX - 1);
    map_book();
}

/* A book slot's trades are symbol s's reference. */
static bool market_ref(unsigned s) {
    for (unsigned k = 0; k < RISK_BOOK_SLOTS; k++)
        if (rk.book_sym[k] == (int)s) return true;
    return false;
}
#else
static bool market_ref(unsigned s) { (void)s; return false; }
#endif

static int job(unsigned op, unsigned symbol, unsigned ticket, unsigned item, bool sell, bool cancel, uint32_t qty,
               uint64_t value, unsigned *reason) {
    order_tx_risk_job_t j = {op, symbol, ticket, item, sell, cancel, qty, {(uint32_t)value, (uint32_t)(value >> 32), 0}};
    return order_tx_risk_job(&j, reason);
}

void risk_prepare(unsigned ticket, const char *symbol, char side, uint32_t qty, int64_t price) {
    init_once();
    int s = symbol_index(symbol);
    unsigned reason = 0;
    if (ticket < RISK_TICKETS) rk.ticket[ticket] = (ticket_t){(int8_t)s, side, qty, price};
    int rc = job(RISK_OP_PREPARE, s < 0 ? 255u : (unsigned)s, ticket, 0, side == '2', false, qty, (uint64_t)price, &reason);
    if (!rk.on) return;
    if (rc != 1) printf("risk: ticket %u (%s): not prepared (%s): the gate will refuse its order\n", ticket, symbol,
                        s < 0 ? "no limits for this symbol: risk set max-long/max-short" : rc < 0 ? "no answer" : "refused");
    else if (reason) printf("risk: ticket %u (%s): the gate would refuse its order now (%s)\n", ticket, symbol, risk_reason_name(reason));
}

static const char *sym_name(int s) { return s >= 0 ? rk.sym[s] : "?"; }

/* "refused ticket T buy SYM QTY @ PX: REASON" (the console's line, and the audit ring's as `risk` shows it). */
static void print_refusal(const char *head, const refusal_t *a) {
    printf("risk: %s ticket %u %s %s %lu @ ", head, a->ticket, a->order.side == '1' ? "buy" : "sell", sym_name(a->order.sym),
           (unsigned long)a->order.qty);
    fixclient_print_px(a->order.price);
    printf(": %s\n", risk_reason_name(a->reason));
}

void risk_refused(unsigned ticket, unsigned reason) {
    if (ticket >= RISK_TICKETS) return;
    refusal_t *a = &rk.audit[rk.audit_n++ % AUDIT];
    *a = (refusal_t){rk.ticket[ticket], (uint8_t)reason, (uint8_t)ticket};
    rk.refused++;
    print_refusal("refused", a);
    mp_event("risk.refused", "ticket:u reason:s sym:s side:s qty:u px:p", ticket, risk_reason_name(reason),
             sym_name(a->order.sym), a->order.side == '1' ? "buy" : "sell", a->order.qty, a->order.price);
}

bool risk_killed(void) { return rk.kill || order_tx_risk_killed(); }

_Static_assert(FIX_APP_MAX_ORDERS <= 32, "rk.booked has a bit per order table entry");

void risk_booked(int idx) {
    if (rk.on && idx >= 0 && idx < FIX_APP_MAX_ORDERS) rk.booked |= 1u << idx;
}

/* Fills move quantity from open to the position; the end of the order (canceled, rejected, expired) releases what
 * was still open. Only for orders the gate booked. */
void risk_on_execution(int idx, const fix_order_t *o, bool fill, int64_t last_qty) {
    if (idx < 0 || idx >= FIX_APP_MAX_ORDERS || !(rk.booked & (1u << idx))) return;
    int s = symbol_index(o->symbol);
    int64_t q = 0;
    bool cancel = false;
    if (fill) q = last_qty;
    else if (o->state == FIX_ORD_CANCELED || o->state == FIX_ORD_REJECTED) q = o->qty - o->cum_qty, cancel = true;
    if (o->state == FIX_ORD_FILLED || cancel) rk.booked &= ~(1u << idx);
    if (q <= 0 || s < 0) return;
    if (job(RISK_OP_FEEDBACK, (unsigned)s, 0, 0, o->side == '2', cancel, (uint32_t)q, (uint64_t)o->price, NULL) == 1) rk.fed++;
    else {
        rk.feed_errors++;
        printf("risk: the gate refused the %s of %ld of order %d\n", cancel ? "release" : "fill", (long)q, idx);
    }
}

static void show_limit(const char *name, int64_t v, bool px) {
    printf(" %s ", name);
    if (v < 0) printf("-");
    else if (px) fixclient_print_px(v);
    else printf("%lu", (unsigned long)v);
}

static int show(void) {
    init_once();
    bool killed = order_tx_risk_killed();
    if (mp_in_request) {
        mp_event("counters", "group:s on:b kill:b killed:b refused:u hw_refused:u fed:u feed_errors:u", "risk", rk.on, rk.kill,
                 killed, rk.refused, (uint32_t)order_tx_risk_refused(), rk.fed, rk.feed_errors);
        return 0;
    }
    printf("risk: gate %s%s%s%s, refused %lu (engine's count %u), fills and cancels fed %lu (%lu refused)\n",
           rk.on ? "on" : "off", rk.kill ? ", KILL on" : "", killed ? ", killed (risk reset ends it)" : "",
           rk.keep ? ", refused stops kept" : "",
           (unsigned long)rk.refused, (unsigned)order_tx_risk_refused(), (unsigned long)rk.fed, (unsigned long)rk.feed_errors);
    printf("risk:");
    show_limit("max-qty", rk.max_qty, false);
    show_limit("max-notional", rk.max_notional, true);
    show_limit("collar-bps", rk.collar_bps, false);
    show_limit("max-credit", rk.max_credit, true);
    show_limit("max-orders-per-s", rk.rate, false);
    show_limit("burst", rk.burst, false);
    show_limit("poison-cap", rk.poison_cap, false);
    printf("\n");
    for (unsigned i = 0; i < RISK_SYMBOLS; i++)
        if (rk.sym[i][0]) {
            printf("risk: %2u %-8s", i, rk.sym[i]);
            show_limit("max-long", rk.max_long[i], false);
            show_limit("max-short", rk.max_short[i], false);
            show_limit("ref", rk.ref[i], true);
            if (market_ref(i)) printf(" (follows the market's trades)");
            printf("%s\n", rk.restricted[i] ? " restricted" : "");
        }
    unsigned n = rk.audit_n < AUDIT ? rk.audit_n : AUDIT;
    for (unsigned k = 0; k < n; k++) {
        char head[20];
        snprintf(head, sizeof head, "refusal %u:", rk.audit_n - n + k);
        print_refusal(head, &rk.audit[(rk.audit_n - n + k) % AUDIT]);
    }
    return 0;
}

#define RISK_USAGE                                                                                                      \
    "usage: risk [on|off|kill|reset] | risk set max-qty N | max-notional PX | collar-bps N | max-credit PX | "        \
    "max-orders-per-s N | burst N | poison-cap N | max-long SYM N | max-short SYM N | restrict SYM 0|1 | ref SYM PX | " \
    "risk on-refuse keep|retire\n"

/* `risk set ITEM [SYM] VALUE`: the gate validates every value too; a refused one changes nothing. */
static int set(int argc, char **argv) {
    static const struct { const char *name; uint8_t item; bool sym, px; } items[] = {
        {"max-qty", RISK_C_MAX_QTY, false, false},         {"max-notional", RISK_C_MAX_NOTIONAL, false, true},
        {"collar-bps", RISK_C_COLLAR_BPS, false, false},   {"max-credit", RISK_C_MAX_CREDIT, false, true},
        {"max-orders-per-s", RISK_C_RATE, false, false},   {"burst", RISK_C_BURST, false, false},
        {"poison-cap", RISK_C_POISON_CAP, false, false},   {"max-long", RISK_C_MAX_LONG, true, false},
        {"max-short", RISK_C_MAX_SHORT, true, false},      {"restrict", RISK_C_RESTRICT, true, false},
        {"ref", RISK_C_REFERENCE, true, true}};
    unsigned k = 0;
    while (k < sizeof items / sizeof *items && strcmp(argv[2], items[k].name) != 0) k++;
    if (k == sizeof items / sizeof *items || argc != (items[k].sym ? 5 : 4)) {
        printf(RISK_USAGE);
        return 1;
    }
    const char *text = argv[argc - 1];
    int64_t v;
    uint32_t u;
    if (items[k].px) {
        if (fix_parse_decimal(text, strlen(text), fixclient_price_decimals(), &v) != FIX_OK || v <= 0) {
            printf("error: risk set %s: %s is not a positive price\n", items[k].name, text);
            return 1;
        }
    } else if (!tf_parse_u32(text, &u)) {
        printf("error: risk set %s: %s is not a whole number\n", items[k].name, text);
        return 1;
    } else v = u;
    int s = -1;
    if (items[k].sym) {
        const char *name = argv[3];
        s = symbol_index(name);
        if (s < 0) { /* a new symbol takes the first free index */
            if (strlen(name) == 0 || strlen(name) >= FIX_SYMBOL_MAX) {
                printf("error: risk set %s: bad symbol %s\n", items[k].name, name);
                return 1;
            }
            for (unsigned i = 0; i < RISK_SYMBOLS && s < 0; i++)
                if (!rk.sym[i][0]) s = (int)i;
            if (s < 0) {
                printf("error: risk set %s: all %u symbols have limits already\n", items[k].name, (unsigned)RISK_SYMBOLS);
                return 1;
            }
        }
    }
    unsigned why;
    int rc = job(RISK_OP_CONFIG, s < 0 ? 0u : (unsigned)s, 0, items[k].item, false, false, 0, (uint64_t)v, &why);
    if (rc != 1) {
        printf("error: risk set %s %s: %s, nothing changed\n", items[k].name, text,
               rc < 0 ? "the gate did not answer" : "the gate refuses this value (zero, or out of range)");
        return 1;
    }
    if (s >= 0 && !rk.sym[s][0]) {
        strcpy(rk.sym[s], argv[3]);
#ifdef OFFLOAD_RX_BOOK_SLOTS
        map_book(); /* a symbol of the book's: its trades become its reference */
#endif
    }
    int64_t *slot[] = {&rk.max_qty, &rk.max_notional, &rk.collar_bps, NULL, NULL, &rk.max_credit, &rk.rate, &rk.burst,
                       &rk.poison_cap, NULL, NULL};
    unsigned it = items[k].item;
    if (it == RISK_C_MAX_LONG) rk.max_long[s] = v;
    else if (it == RISK_C_MAX_SHORT) rk.max_short[s] = v;
    else if (it == RISK_C_REFERENCE) rk.ref[s] = v;
    else if (it == RISK_C_RESTRICT) rk.restricted[s] = v != 0;
    else *slot[it] = v;
    printf("risk: %s%s%s set\n", items[k].name, s >= 0 ? " " : "", s >= 0 ? rk.sym[s] : "");
    return 0;
}

void risk_defaults(struct console *con) {
#ifdef TF_RISK_DEFAULTS
    static const char defaults[] = TF_RISK_DEFAULTS; /* "ITEM [SYM] VALUE;..." */
    char line[64];
    for (const char *p = defaults; *p;) {
        size_t n = strcspn(p, ";");
        if (n + 10 > sizeof line) printf("risk: build default '%.*s': too long, skipped\n", (int)n, p);
        else {
            memcpy(line, "risk set ", 9);
            memcpy(line + 9, p, n);
            line[9 + n] = 0;
            if (console_execute(con, line) != 0) printf("risk: build default '%.*s' refused\n", (int)n, p);
        }
        p += n + (p[n] == ';');
    }
#else
    (void)con;
#endif
}

/* A stop refused for this reason stays armed (`risk on-refuse keep`): the reasons that can pass later without a new
 * limit, as the market moves (collar), orders settle (positions, credit) or tokens come back (throttle). The rest
 * (kill, no ticket, restricted, quantity, notional) would refuse every later fire too: such a stop is retired. */
bool risk_keeps(unsigned reason) {
    return rk.keep && (reason == RISK_R_COLLAR || reason == RISK_R_LONG_LIMIT || reason == RISK_R_SHORT_LIMIT ||
                       reason == RISK_R_CREDIT || reason == RISK_R_THROTTLE);
}

static int cmd_risk(int argc, char **argv) {
    init_once();
    if (argc == 1) return show();
    if (argc == 3 && strcmp(argv[1], "on-refuse") == 0 && (!strcmp(argv[2], "keep") || !strcmp(argv[2], "retire"))) {
        rk.keep = argv[2][0] == 'k';
        printf("risk: refused stops %s\n", rk.keep ? "kept" : "retired");
        return 0;
    }
    if (argc >= 4 && strcmp(argv[1], "set") == 0) return set(argc, argv);
    if (argc == 2 && (strcmp(argv[1], "on") == 0 || strcmp(argv[1], "off") == 0)) {
        rk.on = argv[1][1] == 'n';
        order_tx_risk_ctrl(rk.on, rk.kill);
        printf("risk: gate %s\n", rk.on ? "on: every hardware order is checked" : "off: orders are not checked");
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "kill") == 0) {
        rk.kill = true;
        order_tx_risk_ctrl(rk.on, true);
        kill_now("the console");
        return 0;
    }
    if (argc == 2 && strcmp(argv[1], "reset") == 0) {
        rk.kill = false;
        order_tx_risk_ctrl(rk.on, false);
        bool still = !order_tx_risk_kill_reset();
        rk.killed_seen = still;
        printf("risk: kill %s\n", still ? "not ended: the kill pin is still high" : "ended");
        return still ? 1 : 0;
    }
    printf(RISK_USAGE);
    return 1;
}
TF_COMMAND(risk, "the pre-trade risk gate: limits, refusals, kill switch (risk help)", cmd_risk);

/* The engine refuses every order and disarms every template from the second eth_tx cycle after the kill (register or
 * pin); firmware then retires the armed stops and cancels the working orders. */
static void kill_now(const char *by) {
    unsigned stops = 0, cancels = 0;
    for (unsigned i = 0; i < STOPS_MAX; i++) {
        char arg[4];
        char *av[3] = {"stop", "cancel", arg}; /* (the console's own command: no second copy of it on the boards) */
        if (stops_get(i)->state != STOP_ARMED) continue;
        snprintf(arg, sizeof arg, "%u", i);
        if (cmd_stop(3, av) == 0) stops++;
    }
    fix_app_t *app = fixclient_app();
    for (int i = 0; i < FIX_APP_MAX_ORDERS; i++) {
        fix_ord_state_t s = app->orders[i].state;
        if ((s == FIX_ORD_PENDING_NEW || s == FIX_ORD_NEW || s == FIX_ORD_PARTIAL) &&
            fix_app_cancel(app, i, timer_ms()) >= 0)
            cancels++;
    }
    rk.killed_seen = true;
    printf("risk: KILL by %s: every order refused, %u stop(s) disarmed, %u cancel(s) sent; risk reset ends it\n", by,
           stops, cancels);
    mp_event("risk.kill", "by:s stops:u cancels:u", by, stops, cancels);
}

/* The kill pin: the gate latched a kill firmware did not ask for. */
void risk_poll(void) {
    if (!rk.killed_seen && !rk.kill && order_tx_risk_killed()) kill_now("the kill pin");
}
#endif
