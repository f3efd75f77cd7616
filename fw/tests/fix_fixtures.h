/* Test helpers for the FIX engine tests: a scripted counterparty.
 * In:  message bodies written as strings with '|' for SOH ("35=0|34=2|...").
 * Out: complete messages with BodyLength and CheckSum computed here (independently of fix/codec.c),
 *      a capture of everything the session sends and asks (disconnect, events), and checks of the
 *      sent bytes against patterns in which a value "*" matches anything.
 * Include after <cmocka.h>. Functions are static inline so that each test file uses what it needs. */
#ifndef TF_TESTS_FIX_FIXTURES_H
#define TF_TESTS_FIX_FIXTURES_H

#include <stdio.h>
#include <string.h>

#include "fix/app.h"
#include "fix/codec.h"
#include "fix/session.h"
#include "fix/utc.h"

#define FX_US "TFISH"            /* our SenderCompID */
#define FX_THEM "EXCH"           /* the counterparty */
#define FX_T0_NOW 1000u          /* monotonic ms at which the peer's Logon reply arrives */
#define FX_T0_UTC "20260105-14:30:00.000"
#define FX_MAX_SENT 128

/* Builds 8=FIX.4.4|9=n|<body>10=ccc| from body with '|' as SOH. Returns the length. */
static inline size_t fx_frame(uint8_t *out, size_t cap, const char *body)
{
    size_t bl = strlen(body);
    char head[32];
    int hl = snprintf(head, sizeof head, "8=FIX.4.4|9=%zu|", bl);
    size_t n = 0;
    if ((size_t)hl + bl + 8 > cap) return 0;
    memcpy(out, head, (size_t)hl);
    n = (size_t)hl;
    memcpy(out + n, body, bl);
    n += bl;
    for (size_t i = 0; i < n; i++)
        if (out[i] == '|') out[i] = 0x01;
    unsigned sum = 0;
    for (size_t i = 0; i < n; i++) sum += out[i];
    n += (size_t)snprintf((char *)out + n, cap - n, "10=%03u|", sum % 256u);
    out[n - 1] = 0x01;
    return n;
}

/* The counterparty's clock: the same as ours after it taught us its time at FX_T0_NOW. */
static inline void fx_peer_time(uint64_t now, char out[FIX_UTC_TS_LEN + 1])
{
    uint64_t t0;
    fix_utc_parse(FX_T0_UTC, strlen(FX_T0_UTC), &t0);
    fix_utc_format(out, t0 + now - FX_T0_NOW);
    out[FIX_UTC_TS_LEN] = '\0';
}

typedef struct {
    fix_session_t s;
    fix_app_t app;
    uint8_t sent[FX_MAX_SENT][FIX_MAX_MSG_LEN];
    size_t sent_len[FX_MAX_SENT];
    int nsent;
#ifdef FIX_TX_EXTERNAL
    uint8_t tx[FIX_TX_MAX]; /* where the session builds (the firmware's is the order engine's frame scratch) */
#endif
    int disconnects;
    char disconnect_reason[64];
    int events[64];
    uint32_t event_arg[64];
    int nevents;
    uint64_t now;
} fx_t;

static inline void fx_send_cb(void *ctx, const uint8_t *d, size_t n)
{
    fx_t *t = ctx;
    assert_true(t->nsent < FX_MAX_SENT);
    assert_true(n <= FIX_MAX_MSG_LEN);
    memcpy(t->sent[t->nsent], d, n);
    t->sent_len[t->nsent++] = n;
}

static inline void fx_disconnect_cb(void *ctx, const char *reason)
{
    fx_t *t = ctx;
    t->disconnects++;
    snprintf(t->disconnect_reason, sizeof t->disconnect_reason, "%s", reason);
}

static inline void fx_event_cb(void *ctx, fix_event_t ev, uint32_t arg, const char *text)
{
    fx_t *t = ctx;
    (void)text;
    if (t->nevents < 64) {
        t->event_arg[t->nevents] = arg;
        t->events[t->nevents++] = (int)ev;
    }
}

static inline bool fx_has_event(const fx_t *t, fix_event_t ev)
{
    for (int i = 0; i < t->nevents; i++)
        if (t->events[i] == (int)ev) return true;
    return false;
}

static const fix_session_ops_t fx_ops = {fx_send_cb, fx_disconnect_cb, fx_event_cb, NULL, NULL};

static inline fix_session_config_t fx_default_cfg(void)
{
    fix_session_config_t c;
    memset(&c, 0, sizeof c);
    c.sender_comp_id = FX_US;
    c.target_comp_id = FX_THEM;
    c.heartbeat_s = 30;
    return c;
}

static inline void fx_init(fx_t *t, const fix_session_config_t *cfg)
{
    memset(t, 0, sizeof *t);
    fix_session_init(&t->s, cfg, &fx_ops, t);
#ifdef FIX_TX_EXTERNAL
    fix_session_set_tx(&t->s, t->tx, sizeof t->tx);
#endif
}

/* Feeds raw bytes to the session. */
static inline void fx_bytes(fx_t *t, uint64_t now, const void *p, size_t n)
{
    t->now = now;
    fix_session_on_bytes(&t->s, p, n, now);
}

/* Feeds a message given with its complete body (no header inserted). */
static inline void fx_in_raw(fx_t *t, uint64_t now, const char *body)
{
    uint8_t buf[FIX_MAX_MSG_LEN + 64];
    size_t n = fx_frame(buf, sizeof buf, body);
    assert_true(n > 0);
    fx_bytes(t, now, buf, n);
}

/* Feeds a message from the counterparty: body starts "35=x|34=n|"; 49, 52 (peer clock), 56 are
 * inserted after 34. */
static inline void fx_in(fx_t *t, uint64_t now, const char *body)
{
    char full[FIX_MAX_MSG_LEN];
    const char *p = strchr(body, '|');
    assert_non_null(p);
    p = strchr(p + 1, '|');
    assert_non_null(p);
    size_t head = (size_t)(p + 1 - body);
    char ts[FIX_UTC_TS_LEN + 1];
    fx_peer_time(now, ts);
    int n = snprintf(full, sizeof full, "%.*s49=" FX_THEM "|52=%s|56=" FX_US "|%s", (int)head, body, ts, p + 1);
    assert_true(n > 0 && (size_t)n < sizeof full);
    fx_in_raw(t, now, full);
}

/* Message i as text, SOH shown as '|'. */
static inline const char *fx_text(const fx_t *t, int i)
{
    static char buf[FIX_MAX_MSG_LEN + 1];
    assert_true(i >= 0 && i < t->nsent);
    size_t n = t->sent_len[i];
    for (size_t k = 0; k < n; k++) buf[k] = t->sent[i][k] == 0x01 ? '|' : (char)t->sent[i][k];
    buf[n] = '\0';
    return buf;
}

/* Checks the framing of a message independently of the codec (8 first, 9 = body length, 10 = checksum). */
static inline bool fx_framed(const uint8_t *m, size_t n)
{
    if (n < 20 || memcmp(m, "8=FIX.4.4\x01" "9=", 12) != 0) return false;
    size_t k = 12, bl = 0;
    while (k < n && m[k] >= '0' && m[k] <= '9') bl = bl * 10 + (size_t)(m[k++] - '0');
    if (k >= n || m[k] != 0x01) return false;
    k++;
    if (k + bl + 7 != n) return false;
    unsigned sum = 0;
    for (size_t j = 0; j < k + bl; j++) sum += m[j];
    char want[8];
    snprintf(want, sizeof want, "10=%03u", sum % 256u);
    return memcmp(m + k + bl, want, 6) == 0 && m[n - 1] == 0x01;
}

/* The framing of message i sent by the session (fx_framed). */
static inline bool fx_framing_ok(const fx_t *t, int i)
{
    return fx_framed(t->sent[i], t->sent_len[i]);
}

/* The value of the first tag in message i ("" if absent). */
static inline const char *fx_field(const fx_t *t, int i, unsigned tag)
{
    static char out[FIX_MAX_MSG_LEN];
    const char *txt = fx_text(t, i);
    char pat[16];
    int pl = snprintf(pat, sizeof pat, "|%u=", tag);
    const char *p = strstr(txt, pat);
    out[0] = '\0';
    if (!p) return out;
    p += pl;
    size_t n = strcspn(p, "|");
    memcpy(out, p, n);
    out[n] = '\0';
    return out;
}

/* Compares message i from 35= up to (excluding) 10= with pattern; a pattern value "*" matches any
 * value. Prints both on mismatch. */
static inline bool fx_matches(const fx_t *t, int i, const char *pattern)
{
    if (i < 0 || i >= t->nsent) {
        fprintf(stderr, "message %d not sent (%d sent)\n", i, t->nsent);
        return false;
    }
    if (!fx_framing_ok(t, i)) {
        fprintf(stderr, "bad framing: %s\n", fx_text(t, i));
        return false;
    }
    const char *txt = fx_text(t, i);
    const char *a = strstr(txt, "|35=");
    const char *end = strstr(txt, "|10=");
    a++;
    end++;
    const char *p = pattern;
    bool ok = true;
    while (*p && ok) {
        const char *pe = strchr(p, '|');
        const char *ae = memchr(a, '|', (size_t)(end - a));
        if (!pe || !ae) {
            ok = false;
            break;
        }
        const char *peq = memchr(p, '=', (size_t)(pe - p));
        if (peq && peq[1] == '*' && peq + 2 == pe) {
            size_t tl = (size_t)(peq - p + 1);
            ok = strncmp(p, a, tl) == 0;
        } else {
            ok = (pe - p) == (ae - a) && strncmp(p, a, (size_t)(pe - p)) == 0;
        }
        p = pe + 1;
        a = ae + 1;
    }
    if (ok && a != end) ok = false;
    if (!ok) fprintf(stderr, "message %d mismatch\n  want: %s\n  got:  %s\n", i, pattern, txt);
    return ok;
}

#define FX_EXPECT(t, i, pattern) assert_true(fx_matches((t), (i), (pattern)))

/* Connects, checks our Logon, feeds the peer's Logon reply (34=1) at FX_T0_NOW. */
static inline void fx_logon(fx_t *t)
{
    fix_session_connected(&t->s, FX_T0_NOW - 10);
    assert_int_equal(t->nsent, 1);
    assert_string_equal(fx_field(t, 0, 35), "A");
    char body[96];
    snprintf(body, sizeof body, "35=A|34=%u|98=0|108=30|", fix_session_next_in(&t->s));
    fx_in(t, FX_T0_NOW, body);
    assert_int_equal(fix_session_state(&t->s), FIX_SESS_ACTIVE);
}

#endif
