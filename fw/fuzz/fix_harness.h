/* fuzz/fix_harness.h - the framing harness shared by fuzz_session and fuzz_app: a counterparty that wraps
 * fuzzer-chosen bodies in valid frames, so that inputs get past BodyLength and CheckSum and reach the session.
 * Input: a script of records read from the fuzzer's input (fh_step), each one of:
 *   message  [op][type][seq delta][flags][len][len body bytes] (see fh_message for the flags): 8=FIX.4.4|9=..|, then (unless flags say raw)
 *            35=<type>|34=<expected + delta>|49=EXCH|52=<the peer's clock>|56=TFISH|, then the body ('|' in
 *            it becomes SOH), then 10=ccc|; delivered whole or split in two chunks at a chosen point;
 *   time     [op][2 bytes]: the clock moves on (10 ms units) and the session's timers run;
 *   reconnect [op][flag]: TCP drops and comes back (the session logs on again, answered or not);
 *   send     [op][what]: the owner sends something (the fuzzer's own hook, fh_owner_send);
 *   garbage  [op][len][bytes]: unframed bytes into the stream.
 * The session starts logged on (a valid Logon reply) unless the input's first byte says otherwise.
 * Output / checks: everything the session sends is framed correctly (BodyLength, CheckSum recomputed here), is
 * at most FIX_MAX_MSG_LEN bytes, carries our CompIDs, and new (not PossDup) messages use increasing MsgSeqNums;
 * resent messages (43=Y) reuse numbers already sent, contiguously within one answer, gap fills with 123=Y and a
 * NewSeqNo past their own number and not past the next new one, resent messages with OrigSendingTime; a logged-on
 * session silent for more than its HeartBtInt sends something when its timers run; the session is DISCONNECTED
 * whenever it asks for the connection to be closed. */
#ifndef TF_FUZZ_FIX_HARNESS_H
#define TF_FUZZ_FIX_HARNESS_H

#include <string.h>

#include "fix/codec.h"
#include "fix/session.h"
#include "fix/utc.h"
#include "fuzz.h"

#define FH_US "TFISH"
#define FH_THEM "EXCH"
#define FH_T0_UTC 1767623400000ull /* 2026-01-05 14:30:00.000 UTC: the peer's clock at now = 0 */

typedef struct {
    fix_session_t s;
    uint64_t now;
    uint32_t sent, disconnects, events;
    uint32_t last_new_seq; /* MsgSeqNum of the last message sent that was not a PossDup resend */
    uint32_t dup_next;     /* within an answer to a ResendRequest: the MsgSeqNum the next resent message must have */
    uint64_t last_tx_now;  /* when the session last sent something */
    bool connected;
    fix_msg_t out; /* what the session sent, parsed */
} fh_t;

static fh_t FH;

/* Independent of the codec: 8=FIX.4.4 first, 9 = the body's length, 10 = the byte sum modulo 256. */
static inline void fh_check_frame(const uint8_t *m, size_t n)
{
    FZ_CHECK(n >= 20 && n <= FIX_MAX_MSG_LEN);
    FZ_CHECK(memcmp(m, "8=FIX.4.4\x01" "9=", 12) == 0);
    size_t k = 12, bl = 0;
    while (k < n && m[k] >= '0' && m[k] <= '9') bl = bl * 10 + (size_t)(m[k++] - '0');
    FZ_CHECK(k < n && m[k] == FIX_SOH);
    k++;
    FZ_CHECK(k + bl + 7 == n);
    unsigned sum = 0;
    for (size_t j = 0; j < k + bl; j++) sum += m[j];
    char want[8];
    snprintf(want, sizeof want, "10=%03u", sum % 256u);
    FZ_CHECK(memcmp(m + k + bl, want, 6) == 0 && m[n - 1] == FIX_SOH);
}

static inline void fh_send_cb(void *ctx, const uint8_t *d, size_t n)
{
    fh_t *h = ctx;
    FZ_CHECK(h->connected);
    fh_check_frame(d, n);
    FZ_CHECK(fix_parse(&h->out, d, n) == FIX_OK);
    const fix_field_t *f49 = fix_msg_get(&h->out, 49), *f56 = fix_msg_get(&h->out, 56);
    FZ_CHECK(f49 && fix_field_eq(f49, FH_US) && f56 && fix_field_eq(f56, FH_THEM));
    uint32_t seq;
    FZ_CHECK(fix_msg_get_u32(&h->out, 34, &seq) == FIX_OK && seq >= 1);
    if (fix_msg_get_char(&h->out, 43) != 'Y') {
        bool reset = fix_msg_is_type(&h->out, "A") && fix_msg_get_char(&h->out, 141) == 'Y';
        FZ_CHECK(reset || seq > h->last_new_seq);
        h->last_new_seq = seq;
        h->dup_next = 0;
    } else {
        /* a resend: numbers already used, contiguous within one answer; a gap fill moves on to its NewSeqNo */
        FZ_CHECK(seq <= h->last_new_seq);
        FZ_CHECK(h->dup_next == 0 || seq == h->dup_next);
        uint32_t next = seq + 1;
        if (fix_msg_is_type(&h->out, "4")) {
            FZ_CHECK(fix_msg_get_char(&h->out, 123) == 'Y');
            FZ_CHECK(fix_msg_get_u32(&h->out, 36, &next) == FIX_OK && next > seq && next <= h->last_new_seq + 1);
        } else {
            FZ_CHECK(fix_msg_get(&h->out, 122) != NULL);
        }
        h->dup_next = next;
    }
    h->sent++;
    h->last_tx_now = h->now;
}

static inline void fh_disconnect_cb(void *ctx, const char *reason)
{
    fh_t *h = ctx;
    FZ_CHECK(fix_session_state(&h->s) == FIX_SESS_DISCONNECTED);
    FZ_CHECK(reason != NULL);
    h->connected = false; /* the owner closes TCP */
    fix_session_disconnected(&h->s);
    h->disconnects++;
}

static inline void fh_event_cb(void *ctx, fix_event_t ev, uint32_t arg, const char *text)
{
    fh_t *h = ctx;
    FZ_CHECK(ev >= FIX_EV_LOGON && ev <= FIX_EV_ORDER_GAPFILLED);
    if (text) FZ_CHECK(strlen(text) < 4096);
    h->events++;
}

static const fix_session_ops_t fh_ops = {fh_send_cb, fh_disconnect_cb, fh_event_cb, NULL, NULL};

/* Frames [8=<begin>|9=n|][head][body][10=ccc|] into out (cap FIX_MAX_MSG_LEN + 64); '|' in body becomes SOH. */
static inline size_t fh_frame(uint8_t *out, const char *begin, const char *head, size_t hl, const uint8_t *body,
                              size_t bl)
{
    int n = snprintf((char *)out, 32, "8=%s\x01" "9=%zu\x01", begin, hl + bl);
    memcpy(out + n, head, hl);
    n += (int)hl;
    for (size_t i = 0; i < bl; i++) out[n++] = body[i] == '|' ? FIX_SOH : body[i];
    unsigned sum = 0;
    for (int i = 0; i < n; i++) sum += out[i];
    n += snprintf((char *)out + n, 8, "10=%03u", sum % 256u);
    out[n++] = FIX_SOH;
    return (size_t)n;
}

static inline void fh_deliver(const uint8_t *p, size_t n)
{
    if (FH.connected) fix_session_on_bytes(&FH.s, p, n, FH.now);
}

static const char *const fh_types[] = {"0", "1", "2", "3", "4", "5", "A", "W", "8", "9", "j", "Y", "D", "AE", "B", "X"};

/* A message from the counterparty: flags bit 0 PossDup (43=Y|122=...), bit 1 raw (no header added), bit 2 split
 * in two chunks, bit 3 a wrong TargetCompID, bit 4 a SendingTime off by the next byte in minutes, bit 5 a body
 * length of two bytes (up to 1023) instead of one, bit 6 BeginString FIX.4.2. */
static inline void fh_message(fz_in_t *in)
{
    static uint8_t buf[FIX_MAX_MSG_LEN + 512];
    char head[192];
    const char *type = fh_types[fz_u8(in) % (sizeof fh_types / sizeof fh_types[0])];
    int8_t delta = (int8_t)fz_u8(in);
    uint8_t flags = fz_u8(in);
    const uint8_t *body;
    size_t bl = fz_bytes(in, (flags & 32) ? fz_u16(in) % 1024u : fz_u8(in), &body);
    size_t hl = 0;
    if (!(flags & 2)) {
        char ts[FIX_UTC_TS_LEN + 1], orig[FIX_UTC_TS_LEN + 1];
        int64_t skew = (flags & 16) ? ((int64_t)(int8_t)fz_u8(in)) * 60000 : 0;
        fix_utc_format(ts, (uint64_t)((int64_t)(FH_T0_UTC + FH.now) + skew));
        ts[FIX_UTC_TS_LEN] = 0;
        fix_utc_format(orig, FH_T0_UTC + FH.now / 2);
        orig[FIX_UTC_TS_LEN] = 0;
        uint32_t seq = fix_session_next_in(&FH.s) + (uint32_t)(int32_t)delta;
        hl = (size_t)snprintf(head, sizeof head, "35=%s\x01" "34=%lu\x01%s49=" FH_THEM "\x01" "52=%s\x01" "56=%s\x01%s%s%s",
                              type, (unsigned long)seq, (flags & 1) ? "43=Y\x01" : "", ts, (flags & 8) ? "OTHER" : FH_US,
                              (flags & 1) ? "122=" : "", (flags & 1) ? orig : "", (flags & 1) ? "\x01" : "");
    }
    size_t n = fh_frame(buf, (flags & 64) ? "FIX.4.2" : FIX_BEGIN_STRING, head, hl, body, bl);
    if (flags & 4) {
        size_t cut = fz_u8(in) % (n + 1);
        fh_deliver(buf, cut);
        fh_deliver(buf + cut, n - cut);
    } else {
        fh_deliver(buf, n);
    }
}

/* The counterparty's Logon reply: a message record (type A, the expected MsgSeqNum, no flags) through fh_message. */
static inline void fh_logon_reply(void)
{
    static const char body[] = "98=0|108=30|";
    uint8_t rec[4 + sizeof body];
    rec[0] = 6; /* fh_types[6] = "A" */
    rec[1] = 0;
    rec[2] = 0;
    rec[3] = sizeof body - 1;
    memcpy(rec + 4, body, sizeof body - 1);
    fz_in_t r = {rec, 4 + sizeof body - 1};
    fh_message(&r);
}

/* Called at every (re)connection, before the Logon (a fuzzer may set it). */
static void (*fh_connect_hook)(void);

static inline void fh_connect(bool answer)
{
    if (fh_connect_hook) fh_connect_hook();
    FH.connected = true;
    fix_session_connected(&FH.s, FH.now);
    if (answer) fh_logon_reply();
}

static inline void fh_init(fix_session_config_t *cfg)
{
    memset(&FH, 0, sizeof FH);
    memset(cfg, 0, sizeof *cfg);
    cfg->sender_comp_id = FH_US;
    cfg->target_comp_id = FH_THEM;
    cfg->heartbeat_s = 30;
    fix_session_init(&FH.s, cfg, &fh_ops, &FH);
    FH.now = 1000;
}

/* The owner's part of a step (sending something); provided by each fuzzer. */
static void fh_owner_send(uint8_t what);

/* One record of the script; false at the end of the input. */
static inline bool fh_step(fz_in_t *in)
{
    if (!in->n) return false;
    uint8_t op = fz_u8(in);
    FH.dup_next = 0; /* each step's answers stand alone */
    switch (op % 8) {
    case 0: case 1: case 2: case 3:
        fh_message(in);
        break;
    case 4: {
        FH.now += (uint64_t)fz_u16(in) * 10u;
        bool active = fix_session_state(&FH.s) == FIX_SESS_ACTIVE;
        uint32_t sent = FH.sent;
        fix_session_poll(&FH.s, FH.now);
        /* liveness: logged on and silent for more than HeartBtInt (30 s), the session sends something */
        if (active && FH.connected && FH.now - FH.last_tx_now > 31000u) FZ_CHECK(FH.sent > sent || !FH.connected);
        break;
    }
    case 5: {
        uint8_t f = fz_u8(in);
        if (FH.connected) {
            FH.connected = false;
            fix_session_disconnected(&FH.s);
        }
        fh_connect(f & 1);
        break;
    }
    case 6:
        if (FH.connected) fh_owner_send(fz_u8(in));
        break;
    default: {
        const uint8_t *g;
        size_t n = fz_bytes(in, fz_u8(in), &g);
        fh_deliver(g, n);
        break;
    }
    }
    FZ_CHECK(fix_session_state(&FH.s) <= FIX_SESS_LOGOUT_RECEIVED);
    return true;
}

#endif
