/* FIX 4.4 initiator session (see session.h for what goes in and out and the rules applied). */
#include "fix/session.h"

#include <string.h>

#include "fix/utc.h"
#include "lib/mem.h"
#include "lib/prof.h"

_Static_assert(FIX_STORE_BYTES < 16384, "store offsets are 16-bit, lengths 14-bit");
_Static_assert(FIX_KIND_ORDER < 4, "a store slot's kind is 2 bits");
_Static_assert(FIX_TX_MAX <= 65535, "store lengths are 16-bit");

/* ================= Resend store ================= */

static void store_clear(fix_store_t *st)
{
    st->head = 0;
    st->count = 0;
    st->wr = 0;
}


static void store_pop(fix_store_t *st)
{
    st->head = (uint16_t)((st->head + 1u) % FIX_STORE_SLOTS);
    st->count--;
}

static bool store_overlaps(const fix_store_t *st, uint32_t off, uint32_t len)
{
    for (uint16_t i = 0; i < st->count; i++) {
        const fix_store_slot_t *sl = &st->slot[(st->head + i) % FIX_STORE_SLOTS];
        if (sl->off < off + len && off < (uint32_t)sl->off + sl->len) return true;
    }
    return false;
}

__attribute__((noinline)) static fix_store_slot_t *store_find(fix_store_t *st, uint32_t seq)
{
    for (uint16_t i = 0; i < st->count; i++) {
        fix_store_slot_t *sl = &st->slot[(st->head + i) % FIX_STORE_SLOTS];
        if (sl->seq == seq) return sl;
    }
    return NULL;
}

/* Keeps a copy, evicting the oldest messages as needed. Too big: not stored (gap-filled later). */
static void store_add(fix_store_t *st, uint32_t seq, const uint8_t *p, size_t len, fix_msg_kind_t kind, uint64_t now)
{
    if (len > FIX_STORE_BYTES || len > FIX_TX_MAX) return;
    uint32_t off = st->wr;
    if (off + len > FIX_STORE_BYTES) off = 0;
    while (st->count && (st->count == FIX_STORE_SLOTS || store_overlaps(st, off, (uint32_t)len))) store_pop(st);
    fix_store_slot_t *sl = &st->slot[(st->head + st->count) % FIX_STORE_SLOTS];
    st->count++;
    sl->seq = seq;
    sl->off = (uint16_t)off;
    sl->len = (uint16_t)len;
    sl->kind = (uint8_t)kind;
    sl->sent_ms = now;
    memcpy(st->bytes + off, p, len);
    st->wr = (uint16_t)((off + len) % FIX_STORE_BYTES);
}

/* ================= Helpers ================= */

static void event(fix_session_t *s, fix_event_t ev, uint32_t arg, const char *text)
{
    if (s->ops.on_event) s->ops.on_event(s->ctx, ev, arg, text);
}

static void do_disconnect(fix_session_t *s, const char *reason)
{
    if (s->state == FIX_SESS_DISCONNECTED) return;
    s->state = FIX_SESS_DISCONNECTED;
    s->ops.disconnect(s->ctx, reason);
}

static uint32_t hb_ms(const fix_session_t *s) { return s->cfg.heartbeat_s * 1000u; }

uint64_t fix_session_utc(const fix_session_t *s, uint64_t now_ms)
{
    return (uint64_t)((int64_t)now_ms + s->utc_offset_ms);
}

bool fix_session_utc_valid(const fix_session_t *s) { return s->utc_valid; }

void fix_session_set_utc(fix_session_t *s, uint64_t now_ms, uint64_t utc_ms)
{
    s->utc_offset_ms = (int64_t)utc_ms - (int64_t)now_ms;
    s->utc_valid = true;
}

static void learn_utc(fix_session_t *s, uint64_t now, uint64_t their_utc)
{
    int64_t sample = (int64_t)their_utc - (int64_t)now;
    if (!s->utc_valid || sample > s->utc_offset_ms || s->utc_offset_ms - sample > FIX_UTC_SLEW_MS) {
        s->utc_offset_ms = sample;
        s->utc_valid = true;
    }
}

/* Standard header, in the order DESIGN.md gives: 8, 9, 35, 34, 49, 52, 56. */
/* Every message starts here: the owner's before_send hook runs first (the hardware offload may have sent
 * messages with numbers it reserved and recorded meanwhile), then a new message takes next_out as it is
 * after the hook. */
static void before_send(fix_session_t *s)
{
    if (s->ops.before_send) s->ops.before_send(s->ctx);
}

static fix_builder_t *begin_msg(fix_session_t *s, const char *type, uint32_t seq, uint64_t now)
{
    const bool fresh = seq == s->next_out;
    before_send(s);
    if (fresh) seq = s->next_out;
    fix_builder_t *b = &s->b;
    fix_build_begin(b, s->tx, s->tx_cap, type);
    if (fresh && s->ops.send_numbered) fix_build_uint_padded(b, 34, 0, FIX_NUMBERED_WIDTH); /* the transport's */
    else fix_build_uint(b, 34, seq);
    fix_build_str(b, 49, s->sender);
    fix_build_utc(b, 52, fix_session_utc(s, now));
    fix_build_str(b, 56, s->target);
    return b;
}

/* Header of a resent message or gap fill: its old MsgSeqNum, PossDupFlag=Y, a fresh SendingTime.
 * The caller has run before_send and adds OrigSendingTime (122) next. */
static fix_builder_t *begin_possdup(fix_session_t *s, const char *type, uint32_t seq, uint64_t now)
{
    fix_builder_t *b = &s->b;
    fix_build_begin(b, s->tx, s->tx_cap, type);
    fix_build_uint(b, 34, seq);
    fix_build_char(b, 43, 'Y');
    fix_build_str(b, 49, s->sender);
    fix_build_utc(b, 52, fix_session_utc(s, now));
    fix_build_str(b, 56, s->target);
    return b;
}

/* Sends the built message; a new message (not a resend) takes next_out. */
static int64_t send_built(fix_session_t *s, bool new_seq, fix_msg_kind_t kind, uint64_t now)
{
    size_t n = fix_build_end(&s->b);
    if (!n) return FIX_E_FULL;
    if (new_seq && s->ops.send_numbered) { /* numbered, stored and handed to the app when adopted */
        s->last_tx_ms = now;
        s->ops.send_numbered(s->ctx, s->tx, n);
        return 0;
    }
    uint32_t seq = s->next_out;
    if (new_seq) {
        s->next_out++;
        if (kind != FIX_KIND_ADMIN) store_add(&s->store, seq, s->tx, n, kind, now);
    }
    s->last_tx_ms = now;
    s->ops.send(s->ctx, s->tx, n);
    return seq;
}

static void send_admin(fix_session_t *s, uint64_t now) { (void)send_built(s, true, FIX_KIND_ADMIN, now); }

static void send_logon(fix_session_t *s, uint64_t now)
{
    fix_builder_t *b = begin_msg(s, "A", s->next_out, now);
    fix_build_char(b, 98, '0');
    fix_build_uint(b, 108, s->cfg.heartbeat_s);
    if (s->cfg.reset_on_logon) fix_build_char(b, 141, 'Y');
    send_admin(s, now);
}

static void send_heartbeat(fix_session_t *s, const fix_field_t *test_req_id, uint64_t now)
{
    fix_builder_t *b = begin_msg(s, "0", s->next_out, now);
    if (test_req_id) fix_build_strn(b, 112, test_req_id->val, test_req_id->len);
    send_admin(s, now);
}

static void send_test_request(fix_session_t *s, uint64_t now)
{
    char id[FIX_TESTREQID_MAX];
    memcpy(id, "TEST", 4);
    size_t n = 4 + fix_fmt_uint(id + 4, ++s->test_req_count);
    id[n] = '\0';
    memcpy(s->test_req_id, id, n + 1);
    fix_builder_t *b = begin_msg(s, "1", s->next_out, now);
    fix_build_strn(b, 112, id, n);
    send_admin(s, now);
    s->test_req_pending = true;
    s->test_req_ms = now;
}

static void send_logout(fix_session_t *s, const char *text, uint64_t now)
{
    fix_builder_t *b = begin_msg(s, "5", s->next_out, now);
    if (text) fix_build_str(b, 58, text);
    send_admin(s, now);
}

static void send_resend_request(fix_session_t *s, uint32_t seen_seq, uint64_t now)
{
    if (seen_seq > s->resend_end) s->resend_end = seen_seq;
    if (s->resend_pending) return; /* one request with 16=0 covers every later gap */
    fix_builder_t *b = begin_msg(s, "2", s->next_out, now);
    fix_build_uint(b, 7, s->next_in);
    fix_build_char(b, 16, '0');
    send_admin(s, now);
    s->resend_pending = true;
    event(s, FIX_EV_RESEND_REQUESTED, s->next_in, NULL);
}

static void send_reject(fix_session_t *s, uint32_t ref_seq, uint32_t ref_tag, const fix_field_t *ref_type,
                        int reason, const char *text, uint64_t now)
{
    fix_builder_t *b = begin_msg(s, "3", s->next_out, now);
    fix_build_uint(b, 45, ref_seq);
    if (ref_tag) fix_build_uint(b, 371, ref_tag);
    if (ref_type && ref_type->len) fix_build_strn(b, 372, ref_type->val, ref_type->len);
    fix_build_uint(b, 373, (uint32_t)reason);
    if (text) fix_build_str(b, 58, text);
    send_admin(s, now);
    event(s, FIX_EV_REJECT_SENT, (uint32_t)reason, text);
}

static void send_business_reject(fix_session_t *s, uint32_t ref_seq, const fix_field_t *ref_type, uint64_t now)
{
    fix_builder_t *b = begin_msg(s, "j", s->next_out, now);
    fix_build_uint(b, 45, ref_seq);
    fix_build_strn(b, 372, ref_type->val, ref_type->len);
    fix_build_char(b, 380, '3');
    fix_build_str(b, 58, "Unsupported Message Type");
    (void)send_built(s, true, FIX_KIND_APP, now);
    event(s, FIX_EV_REJECT_SENT, 1003, "Unsupported Message Type");
}

static void send_gap_fill(fix_session_t *s, uint32_t seq, uint32_t new_seq, uint64_t now)
{
    before_send(s);
    fix_builder_t *b = begin_possdup(s, "4", seq, now);
    fix_build_utc(b, 122, fix_session_utc(s, now));
    fix_build_char(b, 123, 'Y');
    fix_build_uint(b, 36, new_seq);
    (void)send_built(s, false, FIX_KIND_ADMIN, now);
}

static bool is_header_tag(uint32_t t)
{
    return t == 8 || t == 9 || t == 35 || t == 34 || t == 49 || t == 52 || t == 56 || t == 43 || t == 97 ||
           t == 122 || t == 10;
}

/* Rebuilds stored message seq with PossDupFlag=Y, OrigSendingTime = its SendingTime, a fresh 52. The owner's
 * before_send runs before the stored copy is read (the owner may adopt what the hardware sent there, which adds to
 * the store and may evict this message: then it is not resent). */
static bool resend_stored(fix_session_t *s, uint32_t seq, uint64_t now)
{
    before_send(s);
    const fix_store_slot_t *sl = store_find(&s->store, seq);
    fix_msg_t *o = &s->msg; /* (the ResendRequest's fields were read: nothing reads them after do_resend) */
    if (!sl || fix_parse(o, s->store.bytes + sl->off, sl->len) != FIX_OK || o->n < 3) return false;
    const fix_field_t *type = &o->f[2];
    const fix_field_t *orig = fix_msg_get(o, 52);
    char t[8];
    if (type->len >= sizeof t) return false;
    memcpy(t, type->val, type->len);
    t[type->len] = '\0';
    fix_builder_t *b = begin_possdup(s, t, seq, now);
    if (orig) fix_build_strn(b, 122, orig->val, orig->len);
    fix_cursor_t c = fix_cursor_at(o, 3); /* every field, kept or not */
    for (const fix_field_t *f; (f = fix_cursor_get(o, &c)); fix_cursor_next(o, &c))
        if (!is_header_tag(f->tag)) fix_build_strn(b, f->tag, f->val, f->len);
    return send_built(s, false, FIX_KIND_APP, now) >= 0;
}

static bool resendable(const fix_session_t *s, const fix_store_slot_t *sl, uint64_t now)
{
    if (!sl) return false;
    if (sl->kind == FIX_KIND_APP) return true;
    if (sl->kind == FIX_KIND_ORDER)
        return s->cfg.resend_order_max_age_ms && now - sl->sent_ms <= s->cfg.resend_order_max_age_ms;
    return false;
}

/* Smallest stored MsgSeqNum >= q, or 0 if none. */
static uint32_t store_next_seq(const fix_store_t *st, uint32_t q)
{
    uint32_t best = 0;
    for (uint16_t i = 0; i < st->count; i++) {
        uint32_t v = st->slot[(st->head + i) % FIX_STORE_SLOTS].seq;
        if (v >= q && (best == 0 || v < best)) best = v;
    }
    return best;
}

/* Answers the peer's ResendRequest for [begin, end] (end 0 = everything sent). Runs in
 * O(FIX_STORE_SLOTS^2) whatever the range: numbers not in the store are skipped in one step. */
static void do_resend(fix_session_t *s, uint32_t begin, uint32_t end, uint64_t now)
{
    uint32_t last = s->next_out - 1;
    if (end == 0 || end > last) end = last;
    if (begin == 0) begin = 1;
    uint32_t gap = 0; /* first number of the pending gap, 0 if none */
    uint32_t q = begin;
    while (q <= end && q != 0) {
        uint32_t nx = store_next_seq(&s->store, q);
        if (nx == 0 || nx > end) break; /* the rest is a gap */
        if (nx > q && !gap) gap = q;
        q = nx;
        const fix_store_slot_t *sl = store_find(&s->store, q);
        const unsigned kind = sl->kind; /* (sending may change the store: the owner's before_send adopts there) */
        if (resendable(s, sl, now)) {
            if (gap) send_gap_fill(s, gap, q, now);
            gap = 0;
            if (resend_stored(s, q, now)) {
                q++;
                continue;
            }
        }
        if (kind == FIX_KIND_ORDER) {
            event(s, FIX_EV_ORDER_GAPFILLED, q, NULL);
            if (s->app && s->app->on_order_dropped) s->app->on_order_dropped(s->app_ctx, q);
        }
        if (!gap) gap = q;
        q++;
    }
    if (begin <= end) {
        if (!gap && q <= end) gap = q;
        if (gap) send_gap_fill(s, gap, end + 1, now);
    }
}

/* ================= Public: lifecycle ================= */

static uint8_t copy_id(char *dst, const char *src)
{
    size_t n = src ? strlen(src) : 0;
    if (n > FIX_COMPID_MAX) n = FIX_COMPID_MAX;
    memcpy(dst, src ? src : "", n);
    dst[n] = '\0';
    return (uint8_t)n;
}

void fix_session_init(fix_session_t *s, const fix_session_config_t *cfg, const fix_session_ops_t *ops, void *ctx)
{
    memset(s, 0, sizeof *s);
    s->cfg = *cfg;
    if (!s->cfg.heartbeat_s) s->cfg.heartbeat_s = FIX_DEFAULT_HEARTBEAT_S;
    if (!s->cfg.test_request_grace_ms) s->cfg.test_request_grace_ms = hb_ms(s) / 5u;
    if (!s->cfg.logon_timeout_ms) s->cfg.logon_timeout_ms = FIX_DEFAULT_LOGON_TIMEOUT_MS;
    if (!s->cfg.logout_timeout_ms) s->cfg.logout_timeout_ms = FIX_DEFAULT_LOGOUT_TIMEOUT_MS;
    if (!s->cfg.max_skew_ms) s->cfg.max_skew_ms = FIX_DEFAULT_MAX_SKEW_MS;
    s->sender_len = copy_id(s->sender, cfg->sender_comp_id);
    s->target_len = copy_id(s->target, cfg->target_comp_id);
    s->cfg.sender_comp_id = s->sender;
    s->cfg.target_comp_id = s->target;
    s->ops = *ops;
    s->ctx = ctx;
    s->state = FIX_SESS_DISCONNECTED;
    s->next_out = 1;
    s->next_in = 1;
    fix_stream_init(&s->framer);
    store_clear(&s->store);
#ifndef FIX_TX_EXTERNAL
    fix_session_set_tx(s, s->tx_own, sizeof s->tx_own);
#endif
}

void fix_session_set_tx(fix_session_t *s, uint8_t *buf, size_t cap)
{
    s->tx = buf;
    s->tx_cap = (uint16_t)(!buf ? 0 : cap > FIX_TX_MAX ? FIX_TX_MAX : cap);
}

void fix_session_set_app(fix_session_t *s, const fix_app_handler_t *app, void *app_ctx)
{
    s->app = app;
    s->app_ctx = app_ctx;
}

void fix_session_connected(fix_session_t *s, uint64_t now_ms)
{
    if (s->cfg.reset_on_logon) {
        s->next_out = 1;
        s->next_in = 1;
        store_clear(&s->store);
    }
    fix_stream_init(&s->framer);
    s->test_req_pending = false;
    s->resend_pending = false;
    s->resend_end = 0;
    s->last_rx_ms = now_ms;
    s->state = FIX_SESS_LOGON_SENT;
    s->state_ms = now_ms;
    send_logon(s, now_ms);
}

void fix_session_disconnected(fix_session_t *s) { s->state = FIX_SESS_DISCONNECTED; }

void fix_session_logout(fix_session_t *s, const char *text, uint64_t now_ms)
{
    if (s->state == FIX_SESS_ACTIVE) {
        send_logout(s, text, now_ms);
        s->state = FIX_SESS_LOGOUT_SENT;
        s->state_ms = now_ms;
    } else if (s->state == FIX_SESS_LOGON_SENT) {
        do_disconnect(s, "logout before logon completed");
    }
}

void fix_session_poll(fix_session_t *s, uint64_t now)
{
    switch (s->state) {
    case FIX_SESS_DISCONNECTED:
        return;
    case FIX_SESS_LOGON_SENT:
        if (now - s->state_ms >= s->cfg.logon_timeout_ms) do_disconnect(s, "no Logon reply");
        return;
    case FIX_SESS_LOGOUT_SENT:
    case FIX_SESS_LOGOUT_RECEIVED:
        if (now - s->state_ms >= s->cfg.logout_timeout_ms) do_disconnect(s, "Logout timeout");
        return;
    case FIX_SESS_ACTIVE:
        break;
    }
    uint64_t limit = (uint64_t)hb_ms(s) + s->cfg.test_request_grace_ms;
    if (s->test_req_pending) {
        if (now - s->test_req_ms >= limit) {
            do_disconnect(s, "no reply to TestRequest");
            return;
        }
    } else if (now - s->last_rx_ms >= limit) {
        send_test_request(s, now);
    }
    if (now - s->last_tx_ms >= hb_ms(s)) send_heartbeat(s, NULL, now);
}

/* ================= Receiving ================= */

static bool valid_msg_type(const fix_field_t *t)
{
    if (t->len == 1) {
        char c = t->val[0];
        return (c >= '0' && c <= '9') || (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z');
    }
    if (t->len == 2) {
        char a = t->val[0], c = t->val[1];
        return (a == 'A' && c >= 'A' && c <= 'Z') || (a == 'B' && c >= 'A' && c <= 'H');
    }
    return false;
}

static inline __attribute__((always_inline)) void after_in_seq_body(fix_session_t *s)
{
    if (s->resend_pending && s->next_in > s->resend_end) {
        s->resend_pending = false;
        s->resend_end = 0;
    }
}
static void after_in_seq(fix_session_t *s) { after_in_seq_body(s); }
/* Every application message in sequence (process) takes a copy in line where the RAM has room (TF_MEM_WORDS,
 * fw/Makefile): the 35=W receive path's tcp_data and after_in_seq 453 -> 444 cycles a W (profiling build,
 * sim/tests/run.sh w_cost with +pc-hist, tools/pc-hist.py), for 8 bytes of code. */
#if TF_MEM_WORDS
#define AFTER_IN_SEQ_APP after_in_seq_body
#else
#define AFTER_IN_SEQ_APP after_in_seq
#endif

static void handle_logout(fix_session_t *s, const fix_msg_t *m, uint64_t now)
{
    const fix_field_t *t = fix_msg_get(m, 58);
    char text[48];
    size_t n = 0;
    if (t) {
        n = t->len < sizeof text - 1 ? t->len : sizeof text - 1;
        memcpy(text, t->val, n);
    }
    text[n] = '\0';
    if (s->state == FIX_SESS_LOGOUT_SENT) {
        event(s, FIX_EV_LOGOUT, 0, text);
        do_disconnect(s, "logout complete");
        return;
    }
    send_logout(s, NULL, now);
    event(s, FIX_EV_LOGOUT, 0, text);
    s->state = FIX_SESS_LOGOUT_RECEIVED; /* the acceptor closes; poll() closes after the timeout */
    s->state_ms = now;
}

static void handle_resend_request(fix_session_t *s, const fix_msg_t *m, uint32_t seq, const fix_field_t *type,
                                  uint64_t now)
{
    uint32_t begin, end;
    int rb = fix_msg_get_u32(m, 7, &begin), re = fix_msg_get_u32(m, 16, &end);
    if (rb || re) {
        uint32_t tag = rb ? 7 : 16;
        int r = rb ? rb : re;
        send_reject(s, seq, tag, type, r == FIX_E_MISSING ? FIX_RR_REQUIRED_TAG_MISSING : FIX_RR_FORMAT,
                    r == FIX_E_MISSING ? "Required tag missing" : "Incorrect data format for value", now);
        return;
    }
    do_resend(s, begin, end, now);
}

static void handle_sequence_reset(fix_session_t *s, const fix_msg_t *m, uint32_t seq, const fix_field_t *type,
                                  bool gap_fill, uint64_t now)
{
    uint32_t new_seq;
    int r = fix_msg_get_u32(m, 36, &new_seq);
    if (r) {
        send_reject(s, seq, 36, type, r == FIX_E_MISSING ? FIX_RR_REQUIRED_TAG_MISSING : FIX_RR_FORMAT,
                    r == FIX_E_MISSING ? "Required tag missing" : "Incorrect data format for value", now);
        if (seq == s->next_in) s->next_in++;
        return;
    }
    if (gap_fill ? new_seq <= seq : new_seq < s->next_in) {
        /* 10e / 11c: an attempt to lower the sequence number; expected MsgSeqNum unchanged. The text is the one
         * the FIX session test cases give. */
        static const char lower[] = "attempt to lower sequence number, invalid value NewSeqNum=";
        char text[sizeof lower + 10];
        memcpy(text, lower, sizeof lower - 1);
        text[sizeof lower - 1 + fix_fmt_uint(text + sizeof lower - 1, new_seq)] = '\0';
        send_reject(s, seq, 36, type, FIX_RR_VALUE_INCORRECT, text, now);
        return;
    }
    s->next_in = new_seq;
    event(s, FIX_EV_SEQ_RESET, new_seq, gap_fill ? "GapFill" : "Reset");
    after_in_seq(s);
}

/* 1B.d: an invalid Logon reply is answered with a Logout naming the problem, then the connection closes. */
static void refuse_logon(fix_session_t *s, const char *text, uint64_t now)
{
    send_logout(s, text, now);
    do_disconnect(s, "invalid Logon reply");
}

static bool accept_logon(fix_session_t *s, const fix_msg_t *m, uint64_t now)
{
    uint32_t hb;
    const char em = fix_msg_get_char(m, 98);
    const int rh = fix_msg_get_u32(m, 108, &hb);
    if (em != '0' || rh != FIX_OK) {
        refuse_logon(s,
                     !em || rh == FIX_E_MISSING ? "Required tag missing"
                     : em != '0'                ? "Unsupported EncryptMethod"
                                                : "Incorrect data format for value",
                     now);
        return false;
    }
    s->state = FIX_SESS_ACTIVE;
    s->last_rx_ms = now;
    s->test_req_pending = false;
    event(s, FIX_EV_LOGON, s->next_in, NULL);
    return true;
}

static void deliver_app(fix_session_t *s, const fix_msg_t *m, uint32_t seq, const fix_field_t *type, uint64_t now)
{
    fix_reject_t rej = {FIX_RR_OTHER, 0, NULL};
    fix_app_result_t r = FIX_APP_UNSUPPORTED;
    if (s->app && s->app->on_message) r = s->app->on_message(s->app_ctx, m, seq, now, &rej);
    if (s->state == FIX_SESS_DISCONNECTED) return;
    if (r == FIX_APP_REJECT)
        send_reject(s, seq, rej.tag, type, rej.reason, rej.text, now);
    else if (r == FIX_APP_UNSUPPORTED)
        send_business_reject(s, seq, type, now);
}

/* MsgType is the single character c (what fix_field_eq(type, "c") tells, without strlen and memcmp). Always in line
 * where the RAM has room (TF_MEM_WORDS, fw/Makefile): link-time optimisation otherwise makes it a function called four
 * times a message (128 bytes of code on the Colorlights). */
#if TF_MEM_WORDS
#define TYPE_IS_INLINE inline __attribute__((always_inline))
#else
#define TYPE_IS_INLINE inline
#endif
static TYPE_IS_INLINE bool type_is(const fix_field_t *type, char c) { return type->len == 1 && type->val[0] == c; }

#define TOO_LONG_STR2(x) #x
#define TOO_LONG_STR(x) TOO_LONG_STR2(x)
#define TOO_LONG_TEXT "Message longer than " TOO_LONG_STR(FIX_MAX_MSG_LEN) " bytes: not processed"

/* One framed, valid message, already parsed into s->msg by the stream; too_long: a message longer than
 * FIX_MAX_MSG_LEN, of which s->msg holds the fields of the first bytes (FIX_FRAME_TOO_LONG). */
static void process(fix_session_t *s, uint64_t now, bool too_long)
{
    fix_msg_t *m = &s->msg;
    TF_PROF_MARK(3);
    /* 2n: BeginString, BodyLength, MsgType must be the first three fields, else garbled. */
    if (m->n < 3 || m->f[0].tag != 8 || m->f[1].tag != 9 || m->f[2].tag != 35 || m->f[2].len == 0) {
        s->framer.garbled++;
        event(s, FIX_EV_GARBLED, s->framer.garbled, "8/9/35 not first");
        return;
    }
    s->last_rx_ms = now;
    s->test_req_pending = false; /* the peer is alive */
    const fix_field_t *type = &m->f[2];
    /* MsgType's character when it is one ('\0' for a longer one): read once where the RAM has room (TF_MEM_WORDS,
     * fw/Makefile; the stores between type_is's reads made each one load it again from the receive slot). The 35=W
     * receive path: tcp_data 444 -> 438 cycles a W (profiling build, sim/tests/run.sh w_cost with +pc-hist,
     * tools/pc-hist.py), 40 bytes less code there; the Colorlights' build keeps type_is's calls (26 bytes smaller
     * there). */
#if TF_MEM_WORDS
    const char mt = type->len == 1 ? type->val[0] : '\0';
#define MSG_TYPE_IS(c) (mt == (c))
#define MSG_TYPE_CHAR mt
#else
#define MSG_TYPE_IS(c) type_is(type, (c))
#define MSG_TYPE_CHAR (type->len == 1 ? type->val[0] : '\0')
#endif
#if TF_MEM_WORDS /* its 7 bytes compared in line, unrolled (fix_field_eq_n's loop for any length cost 30 cycles more) */
    const bool begin_ok = m->f[0].len == sizeof FIX_BEGIN_STRING - 1 &&
                          tf_bytes_eq(m->f[0].val, FIX_BEGIN_STRING, sizeof FIX_BEGIN_STRING - 1);
#else
    const bool begin_ok = fix_field_eq_n(&m->f[0], FIX_BEGIN_STRING, sizeof FIX_BEGIN_STRING - 1);
#endif
    if (!begin_ok) { /* 2h */
        send_logout(s, "Incorrect BeginString", now);
        do_disconnect(s, "Incorrect BeginString");
        return;
    }
    uint32_t seq;
    const fix_field_t *f34 = FIX_MSG_GET_SLOT(m, 34);
#if TF_MEM_WORDS /* 1 to 9 digits in line (fix_parse_u32_short, codec.h), anything else through the call */
    const bool seq_ok = f34 && (fix_parse_u32_short(f34->val, f34->len, &seq) ||
                                fix_parse_u32(f34->val, f34->len, &seq) == FIX_OK);
#else
    const bool seq_ok = f34 && fix_parse_u32(f34->val, f34->len, &seq) == FIX_OK;
#endif
    if (!seq_ok || seq == 0) {
        send_logout(s, "MsgSeqNum missing or invalid", now);
        do_disconnect(s, "MsgSeqNum missing or invalid");
        return;
    }
    const bool logon = MSG_TYPE_IS('A');
    const bool in_logon = s->state == FIX_SESS_LOGON_SENT;
    uint64_t sending;
    const fix_field_t *f52 = FIX_MSG_GET_SLOT(m, 52);
    const bool time_ok = f52 && fix_utc_parse(f52->val, f52->len, &sending);

    if (in_logon && !logon) { /* 1B.e: the first message must be the Logon reply */
        if (time_ok) learn_utc(s, now, sending);
        if (MSG_TYPE_IS('5')) { /* the acceptor refused our Logon and ends the session itself */
            event(s, FIX_EV_LOGOUT, 0, "Logon refused");
        } else {
            send_logout(s, "first message not a logon", now);
        }
        do_disconnect(s, "first message is not a Logon");
        return;
    }
    /* 2i: CompIDs */
    if (!fix_field_eq_n(FIX_MSG_GET_SLOT(m, 49), s->target, s->target_len) ||
        !fix_field_eq_n(FIX_MSG_GET_SLOT(m, 56), s->sender, s->sender_len)) {
        if (in_logon) {
            refuse_logon(s, "CompID problem", now);
            return;
        }
        send_reject(s, seq, 0, type, FIX_RR_COMPID, "CompID problem", now);
        if (seq == s->next_in) s->next_in++;
        send_logout(s, "CompID problem", now);
        do_disconnect(s, "CompID problem");
        return;
    }
    /* 2k: SendingTime present, well formed, within tolerance of our clock */
    if (!time_ok) {
        if (in_logon) {
            refuse_logon(s, f52 ? "Incorrect data format for value" : "Required tag missing", now);
            return;
        }
        send_reject(s, seq, 52, type, f52 ? FIX_RR_FORMAT : FIX_RR_REQUIRED_TAG_MISSING,
                    f52 ? "Incorrect data format for value" : "Required tag missing", now);
        if (seq == s->next_in) s->next_in++;
        return;
    }
    if (s->utc_valid && s->cfg.max_skew_ms != UINT32_MAX) {
        int64_t d = (int64_t)sending - (int64_t)fix_session_utc(s, now);
        if (d > (int64_t)s->cfg.max_skew_ms || -d > (int64_t)s->cfg.max_skew_ms) {
            if (!in_logon) {
                send_reject(s, seq, 52, type, FIX_RR_SENDING_TIME, "SendingTime accuracy problem", now);
                if (seq == s->next_in) s->next_in++;
                send_logout(s, "SendingTime accuracy problem", now);
                do_disconnect(s, "SendingTime accuracy problem");
                return;
            }
            s->utc_valid = false; /* our clock was a guess: take the peer's */
        }
    }
    TF_PROF_MARK(6);
    learn_utc(s, now, sending);

    const fix_field_t *f43 = FIX_MSG_GET_SLOT(m, 43);
    const bool possdup = f43 && type_is(f43, 'Y');
    const bool seqreset = MSG_TYPE_IS('4');
    const bool gap_fill = seqreset && fix_msg_get_char(m, 123) == 'Y';

    /* 11: SequenceReset-Reset ignores MsgSeqNum */
    if (seqreset && !gap_fill) {
        handle_sequence_reset(s, m, seq, type, false, now);
        return;
    }
    if (logon && in_logon) {
        if (!accept_logon(s, m, now)) return;
        if (seq < s->next_in) {
            send_logout(s, "MsgSeqNum too low", now);
            do_disconnect(s, "MsgSeqNum too low");
        } else if (seq > s->next_in) {
            send_resend_request(s, seq, now); /* 1S b */
        } else {
            s->next_in++;
        }
        return;
    }
    if (seq > s->next_in) { /* 2b */
        if (MSG_TYPE_IS('5')) {
            handle_logout(s, m, now);
            return;
        }
        if (MSG_TYPE_IS('2')) handle_resend_request(s, m, seq, type, now); /* 20: simultaneous */
        send_resend_request(s, seq, now);
        return;
    }
    if (seq < s->next_in) {
        if (possdup) return; /* 2e, 10c: a duplicate, ignore */
        char text[64];
        size_t n = 0;
        memcpy(text + n, "MsgSeqNum too low, expecting ", 29);
        n += 29;
        n += fix_fmt_uint(text + n, s->next_in);
        memcpy(text + n, " but received ", 14);
        n += 14;
        n += fix_fmt_uint(text + n, seq);
        text[n] = '\0';
        send_logout(s, text, now); /* 2c, 10d */
        do_disconnect(s, "MsgSeqNum too low");
        return;
    }

    /* In sequence from here. */
    if (too_long) { /* its MsgSeqNum is counted and the peer told: not a gap, not a silent loss */
        send_reject(s, seq, 0, type, FIX_RR_OTHER, TOO_LONG_TEXT, now); /* (the event says so: reject_sent) */
        s->next_in++;
        after_in_seq(s);
        return;
    }
    if (possdup && !seqreset) {
        const fix_field_t *f122 = fix_msg_get(m, 122);
        uint64_t orig;
        if (!f122) { /* 2g */
            send_reject(s, seq, 122, type, FIX_RR_REQUIRED_TAG_MISSING, "Required tag missing", now);
            s->next_in++;
            return;
        }
        if (!fix_utc_parse(f122->val, f122->len, &orig) || orig > sending) { /* 2f */
            send_reject(s, seq, 122, type, FIX_RR_SENDING_TIME, "SendingTime accuracy problem", now);
            s->next_in++;
            return;
        }
    }
    if (m->err == FIX_PERR_BAD_TAG || m->err == FIX_PERR_EMPTY_VALUE) {
        static const uint8_t reason[] = {0, FIX_RR_INVALID_TAG, FIX_RR_NO_VALUE};
        static const char *const text[] = {NULL, "Invalid tag number", "Tag specified without a value"};
        send_reject(s, seq, m->err_tag, type, reason[m->err], text[m->err], now);
        s->next_in++;
        after_in_seq(s);
        return;
    }
    /* 14h, for the tags the session relies on: slots 0.. FIX_SLOT_ONCE_N-1 are these tags in this order, and the
     * parser marks a slot whose tag occurs twice. */
    static const uint16_t once[FIX_SLOT_ONCE_N] = {34, 35, 43, 49, 52, 56, 97, 122};
    for (size_t i = 0; m->dup && i < FIX_SLOT_ONCE_N; i++) {
        if (fix_msg_dup(m, (int)i)) {
            send_reject(s, seq, once[i], type, FIX_RR_DUPLICATE_TAG, "Tag appears more than once", now);
            s->next_in++;
            after_in_seq(s);
            return;
        }
    }

    if (seqreset) { /* GapFill, 10b/10e */
        handle_sequence_reset(s, m, seq, type, true, now);
        return;
    }
    s->next_in++;
    AFTER_IN_SEQ_APP(s);
    switch (MSG_TYPE_CHAR) { /* ('\0': not one character, or NUL) */
    case '0': /* 4: any message proves the peer alive; test_req_pending is already cleared */
        return;
    case '1': { /* TestRequest: Heartbeat echoing 112 */
        const fix_field_t *id = fix_msg_get(m, 112);
        if (!id) send_reject(s, seq, 112, type, FIX_RR_REQUIRED_TAG_MISSING, "Required tag missing", now);
        else send_heartbeat(s, id, now);
        return;
    }
    case '2':
        handle_resend_request(s, m, seq, type, now);
        return;
    case '3': { /* 7 */
        uint32_t ref = 0;
        (void)fix_msg_get_u32(m, 45, &ref);
        const fix_field_t *t = fix_msg_get(m, 58);
        char text[48];
        size_t n = t ? (t->len < sizeof text - 1 ? t->len : sizeof text - 1) : 0;
        if (t) memcpy(text, t->val, n);
        text[n] = '\0';
        event(s, FIX_EV_REJECT_RECEIVED, ref, text);
        return;
    }
    case '5':
        handle_logout(s, m, now);
        return;
    case 'A': /* a Logon while logged on */
        send_logout(s, "Unexpected Logon", now);
        do_disconnect(s, "unexpected Logon");
        return;
    default:
        break;
    }
    if (!valid_msg_type(type)) { /* 2l */
        send_reject(s, seq, 35, type, FIX_RR_INVALID_MSGTYPE, "Invalid MsgType", now);
        return;
    }
    TF_PROF_MARK(4);
    deliver_app(s, m, seq, type, now);
#undef MSG_TYPE_IS
#undef MSG_TYPE_CHAR
}

void fix_session_on_bytes(fix_session_t *s, const uint8_t *data, size_t len, uint64_t now_ms)
{
    while (s->state != FIX_SESS_DISCONNECTED) {
        fix_frame_res_t r = fix_stream_next(&s->framer, &data, &len, &s->msg);
        if (r == FIX_FRAME_NEED_MORE) return;
        if (r == FIX_FRAME_GARBLED) {
            event(s, FIX_EV_GARBLED, s->framer.garbled, NULL);
            continue;
        }
        process(s, now_ms, r == FIX_FRAME_TOO_LONG);
    }
}

/* ================= Public: sending ================= */

fix_builder_t *fix_session_begin(fix_session_t *s, const char *msg_type, uint64_t now_ms)
{
    if (s->state != FIX_SESS_ACTIVE) return NULL;
    return begin_msg(s, msg_type, s->next_out, now_ms);
}

int64_t fix_session_end(fix_session_t *s, fix_msg_kind_t kind, uint64_t now_ms)
{
    return send_built(s, true, kind, now_ms);
}

/* ================= Public: offload hooks ================= */

uint32_t fix_session_reserve_seqnum(fix_session_t *s, uint32_t n)
{
    uint32_t first = s->next_out;
    s->next_out += n;
    return first;
}

/* The resend store's kind of a sent message, by its MsgType. */
static fix_msg_kind_t kind_of(const fix_field_t *t)
{
    bool admin = t->len == 1 && strchr("012345A", t->val[0]);
    return admin ? FIX_KIND_ADMIN : (fix_field_eq(t, "D") || fix_field_eq(t, "G")) ? FIX_KIND_ORDER : FIX_KIND_APP;
}

/* A message handed back as sent (record_sent, adopt): walked in place (fix_raw_get), not parsed into a fix_msg_t,
 * as the transport hands it back while the session may be processing s->msg. FIX_E_FORMAT unless well formed with
 * MsgType the third field; FIX_E_RANGE without a MsgSeqNum of 32 bits. */
static int sent_header(const uint8_t *msg, size_t len, fix_field_t *type, uint32_t *seq)
{
    static const uint32_t tags[2] = {35, 34};
    fix_field_t f[2];
    unsigned at[2];
    int r = fix_raw_get_tags(msg, len, 2, tags, f, at);
    if (r == FIX_E_FORMAT || f[0].tag == 0 || at[0] != 2) return FIX_E_FORMAT; /* not a message, or 35 not third */
    if (r != FIX_OK || fix_parse_u32(f[1].val, f[1].len, seq) != FIX_OK) return FIX_E_RANGE;
    *type = f[0];
    return FIX_OK;
}

int fix_session_record_sent(fix_session_t *s, const uint8_t *msg, size_t len, uint64_t now_ms)
{
    fix_field_t type;
    uint32_t seq;
    int r = sent_header(msg, len, &type, &seq);
    if (r) return r;
    if (seq == 0 || seq >= s->next_out) return FIX_E_RANGE;
    if (store_find(&s->store, seq)) return FIX_E_RANGE; /* never the same number twice */
    fix_msg_kind_t kind = kind_of(&type);
    if (kind != FIX_KIND_ADMIN) store_add(&s->store, seq, msg, len, kind, now_ms);
    s->last_tx_ms = now_ms;
    return FIX_OK;
}

int64_t fix_session_adopt(fix_session_t *s, const uint8_t *msg, size_t len, uint64_t now_ms)
{
    fix_field_t type;
    uint32_t seq;
    int r = sent_header(msg, len, &type, &seq);
    if (r) return r;
    if (seq != s->next_out) return FIX_E_RANGE;
    s->next_out++;
    fix_msg_kind_t kind = kind_of(&type);
    if (kind != FIX_KIND_ADMIN) store_add(&s->store, seq, msg, len, kind, now_ms);
    if (now_ms > s->last_tx_ms) s->last_tx_ms = now_ms; /* (it was queued no later than it went) */
    if (s->app && s->app->on_sent) s->app->on_sent(s->app_ctx, seq, &type, msg, len);
    return seq;
}

int fix_session_fill_gap(fix_session_t *s, uint32_t seq, uint32_t n, uint64_t now_ms)
{
    if (s->state == FIX_SESS_DISCONNECTED || n == 0 || seq == 0 || seq + n > s->next_out) return FIX_E_RANGE;
    send_gap_fill(s, seq, seq + n, now_ms);
    return FIX_OK;
}

/* ================= Public: state ================= */

fix_sess_state_t fix_session_state(const fix_session_t *s) { return s->state; }
uint32_t fix_session_next_out(const fix_session_t *s) { return s->next_out; }
bool fix_session_rx_at_boundary(const fix_session_t *s) { return s->framer.len == 0; }

int fix_session_digested(fix_session_t *s, uint32_t first, uint32_t count, uint64_t now_ms)
{
    if (s->state != FIX_SESS_ACTIVE || s->framer.len != 0 || count == 0 || first != s->next_in)
        return FIX_E_RANGE;
    s->next_in += count;
    s->last_rx_ms = now_ms;
    s->test_req_pending = false; /* the peer is alive */
    after_in_seq(s);
    return FIX_OK;
}
uint32_t fix_session_next_in(const fix_session_t *s) { return s->next_in; }
int fix_session_rx_drop_partial(fix_session_t *s) { return fix_stream_drop_partial(&s->framer) ? FIX_OK : FIX_E_RANGE; }

void fix_session_set_seqnums(fix_session_t *s, uint32_t next_out, uint32_t next_in)
{
    if (next_out) s->next_out = next_out;
    if (next_in) s->next_in = next_in;
}
