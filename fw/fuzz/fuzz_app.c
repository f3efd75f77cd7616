/* fuzz/fuzz_app.c - libFuzzer harness of the application's receive path: the FIX application layer (fix/app.c:
 * market data snapshots, execution reports, cancel rejects, MD request rejects, business rejects) and the firmware
 * stop orders it feeds (app/stops.c), behind a logged-on session and the framing harness (fix_harness.h).
 * What app/fixclient.c does between them on the target (counters, the `md` table, printing) is not compiled here:
 * its callbacks are replaced by this file's, which call stops_on_market_data as fixclient's on_market_data does.
 * Input: byte 0 mode (unused bits reserved), then 4 stops of 5 bytes ([bit 0 side, bits 1-2 symbol, bit 5 repeat]
 * [stop price, u32, 4 implied decimals]; 0xffffffff leaves the slot free), then fh_step records; the owner's
 * sends are orders, cancels, subscriptions and adopted (hardware) orders.
 * Checks: ASan/UBSan, the harness's checks, and the stop rule against an oracle computed here from each snapshot
 * (a buy stop fires on a trade at or above its price, a sell stop at or below, only for its own symbol; a one-shot
 * stop once), the order table's bounds and states, and the entries armed stops keep: every fire's order is in the
 * order table; a crossed stop that did not fire as often as the oracle says is still armed (its order could not be
 * entered: an execution report made a finished order live again) or a repeating stop disarmed after a fire for want
 * of an entry for its next order; the owner's orders leave the armed stops' entries (as the console's do). */
#include "app/fixclient.h"
#include "app/stops.h"
#include "drivers/timer.h"
#include "fix/app.h"
#include "fix_harness.h"
#include "mp_check.h"

#define DECIMALS 4
static const char *const symbols[] = {"MSFT", "MSF", "MSFTX", "AAPL"};

static fix_app_t APP;
static uint32_t md_calls, exec_calls;

/* What app/stops.c takes from the rest of the firmware. */
uint64_t timer_ticks(void) { return FH.now * 1000u; }
uint64_t timer_ms(void) { return FH.now; } /* what drivers/timer.c gives for those ticks */
fix_app_t *fixclient_app(void) { return &APP; }
unsigned fixclient_price_decimals(void) { return DECIMALS; }
void fixclient_print_px(int64_t v)
{
    char t[24];
    size_t n = fix_fmt_decimal(t, v, DECIMALS);
    printf("%.*s", (int)n, t);
}

static bool crosses(char side, int64_t stop, int64_t trade) { return side == '1' ? trade >= stop : trade <= stop; }
/* The price as written against the stop, exactly: `trade` is its floor at DECIMALS, `inexact` says digits were cut. A
 * buy stop is crossed when the price is at or above it (the floor is, as the stop has DECIMALS); a sell stop when the
 * price is at or below it: a cut price lies strictly above its floor, so the floor must then be below the stop. */
static bool crosses_exact(char side, int64_t stop, int64_t trade, bool inexact)
{
    if (side == '1') return trade >= stop;
    return inexact ? trade < stop : trade <= stop;
}

static void on_md(void *ctx, const fix_md_snapshot_t *md)
{
    md_calls++;
    FZ_CHECK(md->n <= FIX_APP_MAX_MD_ENTRIES);
    FZ_CHECK(memchr(md->symbol, 0, sizeof md->symbol) != NULL);
    uint32_t want[STOPS_MAX], before[STOPS_MAX];
    for (unsigned i = 0; i < STOPS_MAX; i++) {
        const stop_t *s = stops_get(i);
        before[i] = s->fires;
        want[i] = 0;
        /* a Symbol cut to fit the snapshot equals no stop's */
        if (s->state != STOP_ARMED || s->hw || md->symbol_cut || strcmp(s->symbol, md->symbol) != 0) continue;
        /* every trade entry: the kept ones and those past them */
        for (unsigned k = 0; k < md->n; k++) {
            const fix_md_entry_t *e = &md->e[k];
            if (e->type == '2' && e->has_price && crosses_exact(s->side, s->stop_px, e->price, e->price_inexact)) want[i]++;
        }
        fix_md_entry_t more;
        for (fix_cursor_t it = {0}; fix_md_next_more(md, &it, &more);)
            if (more.type == '2' && more.has_price && crosses_exact(s->side, s->stop_px, more.price, more.price_inexact))
                want[i]++;
        if (!s->repeat && want[i] > 1) want[i] = 1;
    }
    stops_on_market_data(md);
    for (unsigned i = 0; i < STOPS_MAX; i++) {
        const stop_t *s = stops_get(i);
        uint32_t got = s->fires - before[i];
        FZ_CHECK(got <= want[i]);
        if (got < want[i]) FZ_CHECK(s->state == STOP_ARMED || (s->repeat && s->state == STOP_FIRED && got > 0));
        if (got) {
            FZ_CHECK(crosses(s->side, s->stop_px, s->fired_px));
            const fix_order_t *o = fix_app_order(&APP, s->order);
            FZ_CHECK(o && o->qty == s->qty && o->price == s->limit_px && strcmp(o->symbol, s->symbol) == 0);
        }
    }
}

static void on_exec(void *ctx, const fix_order_t *o, const fix_exec_event_t *ev)
{
    exec_calls++;
    FZ_CHECK(ev->msg_type == '8' || ev->msg_type == '9' || ev->msg_type == 'j');
    FZ_CHECK(memchr(ev->text, 0, sizeof ev->text) && memchr(ev->exec_id, 0, sizeof ev->exec_id));
    if (o) {
        FZ_CHECK(o >= APP.orders && o < APP.orders + FIX_APP_MAX_ORDERS);
        FZ_CHECK(o->state > FIX_ORD_FREE && o->state <= FIX_ORD_REJECTED);
        FZ_CHECK(memchr(o->clordid, 0, sizeof o->clordid) && memchr(o->order_id, 0, sizeof o->order_id));
    }
}

static void on_md_reject(void *ctx, const char *id, char reason, const char *text)
{
    FZ_CHECK(id && strlen(id) < FIX_ID_MAX);
}

static const fix_app_ops_t app_ops = {on_md, on_exec, on_md_reject};

/* An owner's order (r: what fix_app_new_order or fix_app_adopt_order returned, keep: the armed stops' entries
 * before it) took an entry only while it left the armed stops theirs. */
static void check_kept(int r, unsigned keep)
{
    unsigned avail = fix_app_available(&APP);
    if (r >= 0) FZ_CHECK(avail >= keep);
    else if (r == FIX_E_FULL) FZ_CHECK(avail <= keep);
}

static void fh_owner_send(uint8_t what)
{
    const char *sym = symbols[(what >> 2) % 4];
    unsigned keep = stops_keep(STOPS_MAX);
    switch (what % 4) {
    case 0:
        check_kept(fix_app_new_order(&APP, sym, (what & 16) ? '2' : '1', 100, 1000000 + (what >> 5), keep, FH.now), keep);
        break;
    case 1:
        (void)fix_app_cancel(&APP, (what >> 2) % FIX_APP_MAX_ORDERS, FH.now);
        break;
    case 2: {
        const char *syms[2] = {symbols[0], symbols[1 + (what >> 2) % 3]};
        (void)fix_app_subscribe(&APP, syms, 1 + (what >> 4) % 2, 1, FH.now);
        break;
    }
    default: {
        char id[FIX_ID_MAX];
        fix_app_take_clordid(&APP, id);
        uint32_t seq = fix_session_reserve_seqnum(&FH.s, 1);
        FH.last_new_seq = seq; /* the hardware's order used it */
        check_kept(fix_app_adopt_order(&APP, id, sym, '1', 10, 1000000, seq, keep, FH.now), keep);
        if (what & 0x80) (void)fix_session_fill_gap(&FH.s, seq, 1, FH.now);
        break;
    }
    }
    for (unsigned i = 0; i < FIX_APP_MAX_ORDERS; i++) FZ_CHECK(APP.orders[i].state <= FIX_ORD_REJECTED);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in_t in = {data, size};
    (void)fz_u8(&in);
    fix_session_config_t cfg;
    fh_init(&cfg);
    mpc_init();
    mp_decimals = DECIMALS;
    fix_app_config_t ac = {"ACC", "FZ-", DECIMALS, 0};
    memset(&APP, 0, sizeof APP);
    fix_app_init(&APP, &FH.s, &ac, &app_ops, NULL);
    for (unsigned i = 0; i < STOPS_MAX; i++) memset(stops_slot(i), 0, sizeof(stop_t));
    for (unsigned i = 0; i < 4; i++) {
        uint8_t b = fz_u8(&in);
        uint32_t px = fz_u32(&in);
        if (px == 0xffffffffu || px == 0) continue;
        stop_t *s = stops_slot(i);
        s->state = STOP_ARMED;
        s->side = (b & 1) ? '2' : '1';
        strcpy(s->symbol, symbols[(b >> 1) % 4]);
        s->qty = 10;
        s->stop_px = px;
        s->limit_px = px;
        s->order = -1;
        s->repeat = b & 32;
    }
    fh_connect(true);
    FZ_CHECK(fix_session_state(&FH.s) == FIX_SESS_ACTIVE);
    for (unsigned steps = 0; steps < 4096 && fh_step(&in); steps++) {
    }
    return 0;
}
