/* The firmware's stop logic (app/stops.c) on the host, behind the real FIX session and application layer
 * (fix/session.c, fix/app.c) of a scripted counterparty (fix_fixtures.h): what app/fixclient.c and the timer
 * give app/stops.c on the target is stubbed here. Market data goes in as the exchange sends it; the stops that
 * fired and anything the session answered come out. Used by tests/stops_replay.c (the differential test of the
 * two trigger paths) and tests/test_app_stops.c. Include after <cmocka.h>. */
#ifndef TF_TESTS_STOPS_HOST_H
#define TF_TESTS_STOPS_HOST_H

#include "app/fixclient.h"
#include "app/stops.h"
#include "drivers/timer.h"
#include "fix_fixtures.h"

static fx_t SH;
static unsigned sh_decimals;

fix_app_t *fixclient_app(void) { return &SH.app; }
unsigned fixclient_price_decimals(void) { return sh_decimals; }
void fixclient_print_px(int64_t v)
{
    char b[32];
    b[fix_fmt_decimal(b, v, sh_decimals)] = '\0';
    printf("%s", b);
}
uint64_t timer_ticks(void) { return SH.now * (TF_TIMEBASE_HZ / 1000u); }
uint64_t timer_ms(void) { return SH.now; } /* what drivers/timer.c gives for those ticks */

static void sh_on_md(void *ctx, const fix_md_snapshot_t *md)
{
    (void)ctx;
    stops_on_market_data(md);
}

/* The machine protocol's events (stop.fired) go to stdout like the console's lines. */
static void sh_mp_write(const char *s, size_t n) { fwrite(s, 1, n, stdout); }

/* A logged-on session with `decimals` price decimals and every stop slot free. */
static inline void sh_start(unsigned decimals)
{
    mp_out_init(sh_mp_write, NULL);
    static const fix_app_ops_t ops = {sh_on_md, NULL, NULL};
    sh_decimals = decimals;
    fix_session_config_t c = fx_default_cfg();
    fx_init(&SH, &c);
    fix_app_config_t ac = {"ACC1", "TF", decimals, 0};
    fix_app_init(&SH.app, &SH.s, &ac, &ops, NULL);
    fx_logon(&SH);
    for (unsigned i = 0; i < STOPS_MAX; i++) memset(stops_slot(i), 0, sizeof(stop_t));
}

/* Arms stop i (firmware path, one-shot) as `stop buy|sell SYM 1 STOP STOP` would. */
static inline void sh_arm(unsigned i, char side, const char *sym, int64_t stop_px)
{
    stop_t *s = stops_slot(i);
    memset(s, 0, sizeof *s);
    snprintf(s->symbol, sizeof s->symbol, "%s", sym);
    s->side = side;
    s->qty = 1;
    s->stop_px = stop_px;
    s->limit_px = stop_px;
    s->order = -1;
    s->state = STOP_ARMED;
}

/* The exchange's message: "35=W|" then the rest of the body after MsgSeqNum (with '|' as SOH); the session's
 * header fields are inserted as the exchange's engine would. The framed bytes go to out (for the other path). */
static inline size_t sh_frame_w(const char *rest, uint8_t *out, size_t cap)
{
    char body[FIX_MAX_MSG_LEN], ts[FIX_UTC_TS_LEN + 1];
    SH.now++;
    fx_peer_time(SH.now, ts);
    int n = snprintf(body, sizeof body, "35=W|34=%u|49=" FX_THEM "|52=%s|56=" FX_US "|%s", fix_session_next_in(&SH.s), ts,
                     rest);
    if (n <= 0 || (size_t)n >= sizeof body) return 0;
    return fx_frame(out, cap, body);
}

/* Feeds framed bytes; returns the index of the first message the session sent in answer. */
static inline int sh_feed(const uint8_t *p, size_t n)
{
    int first = SH.nsent;
    fx_bytes(&SH, SH.now, p, n);
    return first;
}

#endif
