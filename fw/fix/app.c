/* FIX 4.4 application layer: market data request/snapshot, orders, execution reports (see app.h). */
#include "fix/app.h"

#include <string.h>

#include "lib/hints.h"
#include "lib/prof.h"

static void copy_str(char *dst, size_t cap, const char *src)
{
    size_t n = src ? strlen(src) : 0;
    if (n >= cap) n = cap - 1;
    memcpy(dst, src ? src : "", n);
    dst[n] = '\0';
}

static void copy_field(char *dst, size_t cap, const fix_field_t *f)
{
    size_t n = f ? f->len : 0;
    if (n >= cap) n = cap - 1;
    if (n) memcpy(dst, f->val, n);
    dst[n] = '\0';
}

#if TF_MEM_WORDS
/* copy_field in line, a byte at a time (the receive path's short values, the Symbol and MDReqID of a 35=W: a few
 * bytes, without the call to memcpy). */
static inline __attribute__((always_inline)) void copy_field_short(char *dst, size_t cap, const fix_field_t *f)
{
    size_t n = f ? f->len : 0;
    if (n >= cap) n = cap - 1;
    char *const end = dst + n;
    if (n) {
        const char *s = f->val;
        do {
            char c = *s++;
            __asm__("" : "+r"(c)); /* a byte loop, not a call to memcpy */
            *dst++ = c;
        } while (dst < end);
    }
    *end = '\0';
}
#else
#define copy_field_short copy_field
#endif

static void on_order_dropped(void *ctx, uint32_t seq);
static void on_sent(void *ctx, uint32_t seq, const fix_field_t *type, const uint8_t *msg, size_t len);

void fix_app_init(fix_app_t *a, fix_session_t *s, const fix_app_config_t *cfg, const fix_app_ops_t *ops, void *ctx)
{
    memset(a, 0, sizeof *a);
    a->s = s;
    copy_str(a->account, sizeof a->account, cfg->account);
    copy_str(a->prefix, sizeof a->prefix, cfg->clordid_prefix);
    a->price_dec = cfg->price_decimals > FIX_MAX_DECIMALS ? FIX_MAX_DECIMALS : cfg->price_decimals;
    a->qty_dec = cfg->qty_decimals > FIX_MAX_DECIMALS ? FIX_MAX_DECIMALS : cfg->qty_decimals;
    a->ops = *ops;
    a->ctx = ctx;
    a->next_id = 1;
    a->next_md_req = 1;
    a->handler.on_message = fix_app_on_message;
    a->handler.on_order_dropped = on_order_dropped;
    a->handler.on_sent = on_sent;
    fix_session_set_app(s, &a->handler, a);
}

/* ================= Sending ================= */

int64_t fix_app_subscribe(fix_app_t *a, const char *const *symbols, size_t n_symbols, unsigned depth, uint64_t now_ms)
{
    if (n_symbols == 0 || n_symbols > FIX_APP_MAX_SYMBOLS) return FIX_E_RANGE;
    fix_builder_t *b = fix_session_begin(a->s, "V", now_ms);
    if (!b) return FIX_E_MISSING;
    uint32_t id = a->next_md_req;
    char req[FIX_ID_MAX];
    size_t n = 2;
    memcpy(req, "MD", 2);
    n += fix_fmt_uint(req + n, id);
    fix_build_strn(b, 262, req, n);
    fix_build_char(b, 263, '1');
    fix_build_uint(b, 264, depth);
    fix_build_char(b, 265, '0');
    fix_build_uint(b, 267, 3);
    fix_build_char(b, 269, '0');
    fix_build_char(b, 269, '1');
    fix_build_char(b, 269, '2');
    fix_build_uint(b, 146, n_symbols);
    for (size_t i = 0; i < n_symbols; i++) fix_build_str(b, 55, symbols[i]);
    int64_t r = fix_session_end(a->s, FIX_KIND_APP, now_ms);
    if (r < 0) return r;
    a->next_md_req++;
    return id;
}

void fix_app_put_nos_body(fix_builder_t *b, const char *account, const char *clordid, int64_t qty,
                          unsigned qty_dec, int64_t price, unsigned price_dec, char side, const char *symbol,
                          uint64_t transact_utc_ms)
{
    fix_build_str(b, 1, account);
    fix_build_str(b, 11, clordid);
    fix_build_char(b, 21, '1');
    fix_build_decimal(b, 38, qty, qty_dec);
    fix_build_char(b, 40, '2');
    fix_build_decimal(b, 44, price, price_dec);
    fix_build_char(b, 54, side);
    fix_build_str(b, 55, symbol);
    fix_build_char(b, 59, '0');
    fix_build_utc(b, 60, transact_utc_ms);
}

static void make_clordid(fix_app_t *a, char out[FIX_ID_MAX])
{
    size_t n = strlen(a->prefix);
    memcpy(out, a->prefix, n);
    n += fix_fmt_uint(out + n, a->next_id++);
    out[n] = '\0';
}

static bool terminal(fix_ord_state_t st)
{
    return st == FIX_ORD_FILLED || st == FIX_ORD_CANCELED || st == FIX_ORD_REJECTED;
}

/* A new order's entry: a free one, else the finished order's sent first (a free entry's sent_ms is 0), and its
 * number of available entries (free or finished) in *n. -1: none. */
static int pick_order(const fix_app_t *a, unsigned *n)
{
    int best = -1;
    *n = 0;
    for (int i = 0; i < FIX_APP_MAX_ORDERS; i++) {
        const fix_order_t *o = &a->orders[i];
        if (o->state != FIX_ORD_FREE && !terminal(o->state)) continue;
        ++*n;
        if (best < 0 || o->sent_ms < a->orders[best].sent_ms) best = i;
    }
    return best;
}

unsigned fix_app_available(const fix_app_t *a)
{
    unsigned n;
    (void)pick_order(a, &n);
    return n;
}

/* The entry for a new order that leaves `keep` available entries besides it, or -1. */
static int alloc_order(const fix_app_t *a, unsigned keep)
{
    unsigned n;
    int i = pick_order(a, &n);
    return n > keep ? i : -1;
}

int fix_app_new_order(fix_app_t *a, const char *symbol, char side, int64_t qty, int64_t price, unsigned keep,
                      uint64_t now_ms)
{
    if ((side != '1' && side != '2') || qty <= 0 || price <= 0 || !symbol || !symbol[0] ||
        strlen(symbol) >= FIX_SYMBOL_MAX)
        return FIX_E_RANGE;
    int idx = alloc_order(a, keep);
    if (idx < 0) return FIX_E_FULL;
    fix_builder_t *b = fix_session_begin(a->s, "D", now_ms);
    if (!b) return FIX_E_MISSING;
    char id[FIX_ID_MAX];
    uint32_t saved_id = a->next_id;
    make_clordid(a, id);
    fix_app_put_nos_body(b, a->account, id, qty, a->qty_dec, price, a->price_dec, side, symbol,
                         fix_session_utc(a->s, now_ms));
    int64_t seq = fix_session_end(a->s, FIX_KIND_ORDER, now_ms);
    if (seq < 0) {
        a->next_id = saved_id;
        return (int)seq;
    }
    fix_order_t *o = &a->orders[idx];
    memset(o, 0, sizeof *o);
    o->state = FIX_ORD_PENDING_NEW;
    o->prev_state = FIX_ORD_PENDING_NEW;
    memcpy(o->clordid, id, sizeof id);
    copy_str(o->symbol, sizeof o->symbol, symbol);
    o->side = side;
    o->qty = qty;
    o->price = price;
    o->leaves_qty = qty;
    o->seq = (uint32_t)seq;
    o->sent_ms = now_ms;
    return idx;
}

void fix_app_take_clordid(fix_app_t *a, char out[FIX_ID_MAX]) { make_clordid(a, out); }

int fix_app_adopt_order(fix_app_t *a, const char *clordid, const char *symbol, char side, int64_t qty, int64_t price,
                        uint32_t seq, unsigned keep, uint64_t now_ms)
{
    if ((side != '1' && side != '2') || qty <= 0 || !clordid || strlen(clordid) >= FIX_ID_MAX || !symbol ||
        strlen(symbol) >= FIX_SYMBOL_MAX)
        return FIX_E_RANGE;
    int idx = alloc_order(a, keep);
    if (idx < 0) return FIX_E_FULL;
    fix_order_t *o = &a->orders[idx];
    memset(o, 0, sizeof *o);
    o->state = FIX_ORD_PENDING_NEW;
    o->prev_state = FIX_ORD_PENDING_NEW;
    copy_str(o->clordid, sizeof o->clordid, clordid);
    copy_str(o->symbol, sizeof o->symbol, symbol);
    o->side = side;
    o->qty = qty;
    o->price = price;
    o->leaves_qty = qty;
    o->seq = seq;
    o->sent_ms = now_ms;
    return idx;
}

int fix_app_cancel(fix_app_t *a, int idx, uint64_t now_ms)
{
    if (idx < 0 || idx >= FIX_APP_MAX_ORDERS) return FIX_E_RANGE;
    fix_order_t *o = &a->orders[idx];
    if (o->state != FIX_ORD_PENDING_NEW && o->state != FIX_ORD_NEW && o->state != FIX_ORD_PARTIAL) return FIX_E_RANGE;
    fix_builder_t *b = fix_session_begin(a->s, "F", now_ms);
    if (!b) return FIX_E_MISSING;
    char id[FIX_ID_MAX];
    uint32_t saved_id = a->next_id;
    make_clordid(a, id);
    fix_build_str(b, 41, o->clordid);
    if (o->order_id[0]) fix_build_str(b, 37, o->order_id);
    fix_build_str(b, 11, id);
    fix_build_char(b, 54, o->side);
    fix_build_str(b, 55, o->symbol);
    fix_build_decimal(b, 38, o->qty, a->qty_dec);
    fix_build_utc(b, 60, fix_session_utc(a->s, now_ms));
    /* A cancel is resent on a ResendRequest: late, it can only remove risk. */
    int64_t seq = fix_session_end(a->s, FIX_KIND_APP, now_ms);
    if (seq < 0) {
        a->next_id = saved_id;
        return (int)seq;
    }
    memcpy(o->cancel_clordid, id, sizeof id);
    o->prev_state = o->state;
    o->state = FIX_ORD_PENDING_CANCEL;
    return FIX_OK;
}

const fix_order_t *fix_app_order(const fix_app_t *a, int idx)
{
    if (idx < 0 || idx >= FIX_APP_MAX_ORDERS || a->orders[idx].state == FIX_ORD_FREE) return NULL;
    return &a->orders[idx];
}

static int find_by_field(const fix_app_t *a, const fix_field_t *f)
{
    if (!f || f->len == 0) return -1;
    for (int i = 0; i < FIX_APP_MAX_ORDERS; i++) {
        const fix_order_t *o = &a->orders[i];
        if (o->state == FIX_ORD_FREE) continue;
        if (fix_field_eq(f, o->clordid) || (o->cancel_clordid[0] && fix_field_eq(f, o->cancel_clordid))) return i;
    }
    return -1;
}

int fix_app_find(const fix_app_t *a, const char *clordid)
{
    fix_field_t f = {0, (uint16_t)strlen(clordid), clordid};
    return find_by_field(a, &f);
}

/* ================= Receiving ================= */

static fix_app_result_t reject(fix_reject_t *rej, int reason, uint32_t tag, const char *text)
{
    rej->reason = reason;
    rej->tag = tag;
    rej->text = text;
    return FIX_APP_REJECT;
}

static fix_app_result_t reject_code(fix_reject_t *rej, int code, uint32_t tag)
{
    if (code == FIX_E_MISSING) return reject(rej, FIX_RR_REQUIRED_TAG_MISSING, tag, "Required tag missing");
    if (code == FIX_E_RANGE) return reject(rej, FIX_RR_VALUE_INCORRECT, tag, "Value is incorrect (out of range)");
    return reject(rej, FIX_RR_FORMAT, tag, "Incorrect data format for value");
}

/* Tags that may appear in an MDEntry of 35=W (NoMDEntries, 268): 269..299 by a bit mask, the others compared;
 * not a list scanned per field. */
#define MD_MEMBERS_269 ((1u << 0) | (1u << 1) | (1u << 2) | (1u << 3) | (1u << 4) | (1u << 5) | (1u << 6) | \
                        (1u << 7) | (1u << 8) | (1u << 9) | (1u << 10) | (1u << 11) | (1u << 13) | (1u << 14) | \
                        (1u << 15) | (1u << 17) | (1u << 18) | (1u << 19) | (1u << 20) | (1u << 21) | (1u << 22) | \
                        (1u << 23) | (1u << 30)) /* 269-280 282-284 286-292 299 */
static inline bool md_member(uint32_t tag)
{
    uint32_t k = tag - 269u;
    if (k < 32u) return (MD_MEMBERS_269 >> k) & 1u;
    return tag == 15 || tag == 58 || tag == 326 || tag == 336 || tag == 346 || tag == 625;
}

/* The entry starting with the 269 at *at (fields up to the next 269 or non-member tag; *at moves past them, past
 * the fields kept in m->f too): its values into *e. Returns FIX_OK, or the error and the tag of its first bad value
 * in entry order (269, 270, 271, 290). The kept fields are walked by pointer and index in registers, the cursor
 * written when the walk leaves them or ends (through the cursor, its index in memory and a multiply by the field's
 * size per field). Where the RAM has room (TF_MEM_WORDS, fw/Makefile) on_snapshot walks the common entries itself and
 * calls this one for the others (one copy, out of line). */
#if TF_MEM_WORDS
#define ENTRY_INLINE __attribute__((noinline))
#else
#define ENTRY_INLINE
#endif
static ENTRY_INLINE int parse_entry(const fix_msg_t *m, fix_cursor_t *at, unsigned price_dec, unsigned qty_dec,
                                    fix_md_entry_t *e, uint32_t *err_tag)
{
    /* values as (bytes, length): they point into the message, valid wherever the cursor moves */
    const fix_field_t *f = fix_cursor_get(m, at);
    const char *tv = f->val, *pv = NULL, *sv = NULL, *ov = NULL;
    unsigned tl = f->len, pl = 0, sl = 0, ol = 0;
    unsigned i = at->i;
    for (;;) {
        if (i + 1 < m->n) { /* f is &m->f[i] */
            f++;
            i++;
        } else {
            at->i = i;
            f = fix_cursor_next_rest(m, at);
            i = at->i;
        }
        if (!f || f->tag == 269 || !md_member(f->tag)) break;
        if (f->tag == 270) {
            if (!pv) pv = f->val, pl = f->len;
        } else if (f->tag == 271) {
            if (!sv) sv = f->val, sl = f->len;
        } else if (f->tag == 290) {
            if (!ov) ov = f->val, ol = f->len;
        }
    }
    at->i = i;
    int r;
    if (tl != 1) return *err_tag = 269, FIX_E_FORMAT;
    e->type = tv[0];
    e->price = e->size = 0;
    e->position = 0;
    e->has_price = e->has_size = e->price_inexact = false;
    /* each value: fix_parse_decimal first (the common form, no flag to clear), the truncating parser for the rest */
    if (pv) {
        if (fix_parse_decimal(pv, pl, price_dec, &e->price) &&
            (r = fix_parse_decimal_trunc(pv, pl, price_dec, &e->price, &e->price_inexact)))
            return *err_tag = 270, r;
        e->has_price = true;
    }
    if (sv) {
        bool size_inexact; /* a size is not compared: its floor */
        if (fix_parse_decimal(sv, sl, qty_dec, &e->size) &&
            (r = fix_parse_decimal_trunc(sv, sl, qty_dec, &e->size, &size_inexact)))
            return *err_tag = 271, r;
        e->has_size = true;
    }
    if (ov) {
        uint32_t p;
        if (fix_parse_u32(ov, ol, &p) || p > INT32_MAX) return *err_tag = 290, FIX_E_FORMAT;
        e->position = (int32_t)p;
    }
    return FIX_OK;
}

/* One pass over the group: entries start with 269 right after 268 and hold member tags only. The count is
 * checked first, then the first bad value in entry order (269, 270, 271, 290 within an entry) is rejected,
 * as the group accessors did. The snapshot is not cleared: every field the callback reads is written. */
__attribute__((optimize("O2"))) static fix_app_result_t on_snapshot(fix_app_t *a, const fix_msg_t *m, uint32_t seq, fix_reject_t *rej)
{
    TF_PROF_MARK(5);
    fix_md_snapshot_t *md = &a->md;
    const fix_field_t *sym = FIX_MSG_GET_SLOT(m, 55);
    if (!sym) return reject_code(rej, FIX_E_MISSING, 55);
    copy_field_short(md->symbol, sizeof md->symbol, sym);
    md->symbol_cut = sym->len >= sizeof md->symbol;
    copy_field_short(md->md_req_id, sizeof md->md_req_id, FIX_MSG_GET_SLOT(m, 262));
    md->seq = seq; /* (the session's: not read again) */
    const fix_field_t *cf = FIX_MSG_GET_SLOT(m, 268);
    if (!cf) return reject_code(rej, FIX_E_MISSING, 268);
    int64_t cnt;
#if TF_MEM_WORDS
    uint32_t d0;
    if (cf->len == 1 && (d0 = (uint32_t)(uint8_t)cf->val[0] - '0') <= 9) cnt = d0; /* one digit: without the call */
    else
#endif
    if (fix_parse_int(cf->val, cf->len, &cnt) != FIX_OK || cnt < 0) return reject_code(rej, FIX_E_FORMAT, 268);
    fix_cursor_t at = fix_cursor_at(m, (unsigned)(cf - m->f) + 1);
    uint32_t seen = 0, err_tag = 0;
    int err = FIX_OK;
    md->more.i = 0;
    /* Parsed straight into the next slot, e (a spare entry past the kept ones takes the values of entries that are
     * counted but not kept), which is taken only when the whole entry is valid. */
    fix_md_entry_t *e = md->e, *const spare = &md->e[FIX_APP_MAX_MD_ENTRIES];
#if TF_MEM_WORDS
    /* The entries among the kept fields, walked by pointer, each value parsed when its field is reached if it has the
     * common form (fix_parse_decimal_short; a MDEntryPositionNo of 1 to 9 digits), the entry written once; an entry
     * with anything else (a bad or uncommon value, a 269 not one byte, fields up to the end of the kept ones) is
     * parsed again from its 269 by parse_entry, which gives its values or its error. */
    if (at.i < m->n) {
        const fix_field_t *f = &m->f[at.i], *const fend = &m->f[m->n];
        const unsigned pd = a->price_dec, qd = a->qty_dec;
        while (f->tag == 269) {
            seen++;
            if (RARE(seen == FIX_APP_MAX_MD_ENTRIES + 1)) md->more = fix_cursor_at(m, (unsigned)(f - m->f));
            const fix_field_t *g = f + 1;
            int r = FIX_OK;
            uint32_t t = 0;
            if (RARE(f->len != 1)) goto slow;
            /* The values in their usual order (270, 271, 290) straight through, then the entry's other members; a
             * value again or out of that order goes to parse_entry (the first of each is taken). */
            bool hp = false, hs = false;
            if (USUAL(g < fend && g->tag == 270)) {
                if (RARE(!fix_parse_decimal_short(g->val, g->len, pd, &e->price))) goto slow;
                hp = true;
                g++;
            } else {
                e->price = 0;
            }
            if (USUAL(g < fend && g->tag == 271)) {
                if (RARE(!fix_parse_decimal_short(g->val, g->len, qd, &e->size))) goto slow;
                hs = true;
                g++;
            } else {
                e->size = 0;
            }
            if (USUAL(g < fend && g->tag == 290)) {
                uint32_t v;
                if (RARE(!fix_parse_u32_short(g->val, g->len, &v))) goto slow;
                e->position = (int32_t)v; /* (9 digits at most: below INT32_MAX) */
                g++;
            } else {
                e->position = 0;
            }
            for (;; g++) {
                if (RARE(g == fend)) goto slow; /* (the entry may go on past the kept fields) */
                uint32_t tag = g->tag, k = tag - 270u;
                if (USUAL(tag == 269)) break;
                if (RARE(k <= 20u && (((1u << 0) | (1u << 1) | (1u << 20)) >> k) & 1u)) goto slow; /* 270 271 290 */
                if (!md_member(tag)) break;
            }
            e->type = f->val[0];
            e->has_price = hp;
            e->has_size = hs;
            e->price_inexact = false;
            if (0) {
            slow:
                at = fix_cursor_at(m, (unsigned)(f - m->f));
                r = parse_entry(m, &at, pd, qd, e, &t);
                g = at.i < m->n ? &m->f[at.i] : NULL;
            }
            if (!err) { /* only the first bad entry is reported; the count still covers them all */
                if (RARE(r)) {
                    err = r;
                    err_tag = t;
                } else if (e != spare) {
                    e++;
                }
            }
            if (RARE(!g)) goto walk_rest; /* past the kept fields */
            f = g;
        }
        goto group_done;
    }
walk_rest:
#endif
    for (const fix_field_t *f; (f = fix_cursor_get(m, &at)) && f->tag == 269;) {
        seen++;
        if (seen == FIX_APP_MAX_MD_ENTRIES + 1) md->more = at;
        uint32_t t;
        int r = parse_entry(m, &at, a->price_dec, a->qty_dec, e, &t);
        if (err) continue; /* only the first bad entry is reported; the count still covers them all */
        if ((err = r)) {
            err_tag = t;
            continue;
        }
        if (e != spare) e++;
    }
#if TF_MEM_WORDS
group_done:
#endif
    md->n = (uint8_t)(e - md->e);
    if ((int64_t)seen != cnt) return reject(rej, FIX_RR_GROUP_COUNT, 268, "Incorrect NumInGroup count for repeating group");
    if (err) return reject_code(rej, err, err_tag);
    md->count = seen;
    md->msg = m;
    md->price_dec = (uint8_t)a->price_dec;
    md->qty_dec = (uint8_t)a->qty_dec;
    if (a->ops.on_market_data) a->ops.on_market_data(a->ctx, md);
    md->msg = NULL;
    return FIX_APP_OK;
}

bool fix_md_next_more(const fix_md_snapshot_t *md, fix_cursor_t *it, fix_md_entry_t *e)
{
    if (!md->msg || !md->more.i) return false;
    if (it->i == 0) *it = md->more;
    const fix_msg_t *m = md->msg;
    const fix_field_t *f = fix_cursor_get(m, it);
    if (!f || f->tag != 269) return false;
    uint32_t t;
    return parse_entry(m, it, md->price_dec, md->qty_dec, e, &t) == FIX_OK; /* valid: checked before the callback */
}

static uint32_t fnv1a(const fix_field_t *f)
{
    uint32_t h = 2166136261u;
    for (uint16_t i = 0; i < f->len; i++) h = (h ^ (uint8_t)f->val[i]) * 16777619u;
    return h | 1u; /* 0 marks an empty history slot */
}

static bool execid_seen(const fix_app_t *a, uint32_t h)
{
    for (int i = 0; i < FIX_EXECID_HISTORY; i++)
        if (a->execid_hash[i] == h) return true;
    return false;
}

/* AvgPx is an average: keep the configured decimals, drop the rest. */
static int parse_avg_px(const fix_field_t *f, unsigned dec, int64_t *out)
{
    size_t n = f->len, dot = f->len;
    for (size_t i = 0; i < f->len; i++)
        if (f->val[i] == '.') dot = i;
    if (dot < f->len && f->len - dot - 1 > dec) n = dot + 1 + dec;
    if (n == dot + 1) n = dot; /* "12." after cutting with 0 decimals */
    return fix_parse_decimal(f->val, n, dec, out);
}

static fix_ord_state_t state_from_status(char st, fix_ord_state_t cur, bool *ok)
{
    *ok = true;
    switch (st) {
    case '0': return FIX_ORD_NEW;
    case '1': return FIX_ORD_PARTIAL;
    case '2': return FIX_ORD_FILLED;
    case '3': /* done for day */
    case '4':
    case 'C': return FIX_ORD_CANCELED; /* expired */
    case '8': return FIX_ORD_REJECTED;
    case 'A': return FIX_ORD_PENDING_NEW;
    case '6': return FIX_ORD_PENDING_CANCEL;
    case '5': /* replaced */
    case '7': /* stopped */
    case '9': /* suspended */
    case 'B': /* calculated */
    case 'D': /* accepted for bidding */
    case 'E': return cur; /* pending replace */
    default: *ok = false; return cur;
    }
}

static fix_app_result_t on_exec_report(fix_app_t *a, const fix_msg_t *m, fix_reject_t *rej)
{
    static const uint16_t required[] = {37, 17, 150, 39, 54, 55, 151, 14, 6};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!fix_msg_get(m, required[i])) return reject_code(rej, FIX_E_MISSING, required[i]);
    const fix_field_t *exec_id = fix_msg_get(m, 17);
    uint32_t h = fnv1a(exec_id);
    if (fix_msg_get_char(m, 97) == 'Y' && execid_seen(a, h)) return FIX_APP_OK; /* 19a: duplicate */
    fix_exec_event_t ev;
    memset(&ev, 0, sizeof ev);
    ev.msg_type = '8';
    ev.exec_type = fix_msg_get_char(m, 150);
    ev.ord_status = fix_msg_get_char(m, 39);
    if (!ev.exec_type) return reject_code(rej, FIX_E_RANGE, 150);
    copy_field(ev.exec_id, sizeof ev.exec_id, exec_id);
    copy_field(ev.text, sizeof ev.text, fix_msg_get(m, 58));
    int64_t cum, leaves, avg = 0;
    int r;
    if ((r = fix_msg_get_decimal(m, 14, a->qty_dec, &cum))) return reject_code(rej, r, 14);
    if ((r = fix_msg_get_decimal(m, 151, a->qty_dec, &leaves))) return reject_code(rej, r, 151);
    if ((r = parse_avg_px(fix_msg_get(m, 6), a->price_dec, &avg))) return reject_code(rej, r, 6);
    r = fix_msg_get_decimal(m, 32, a->qty_dec, &ev.last_qty);
    if (r && r != FIX_E_MISSING) return reject_code(rej, r, 32);
    r = fix_msg_get_decimal(m, 31, a->price_dec, &ev.last_px);
    if (r && r != FIX_E_MISSING) return reject_code(rej, r, 31);

    int idx = find_by_field(a, fix_msg_get(m, 11));
    if (idx < 0) idx = find_by_field(a, fix_msg_get(m, 41));
    fix_order_t *o = idx >= 0 ? &a->orders[idx] : NULL;
    bool ok;
    fix_ord_state_t st = state_from_status(ev.ord_status, o ? o->state : FIX_ORD_FREE, &ok);
    if (!ok) return reject_code(rej, FIX_E_RANGE, 39);

    a->execid_hash[a->execid_pos] = h;
    a->execid_pos = (uint8_t)((a->execid_pos + 1u) % FIX_EXECID_HISTORY);
    if (o) {
        o->cum_qty = cum;
        o->leaves_qty = leaves;
        o->avg_px = avg;
        copy_field(o->order_id, sizeof o->order_id, fix_msg_get(m, 37));
        if (st != o->state && st != FIX_ORD_PENDING_CANCEL) o->prev_state = st;
        o->state = st;
    }
    if (a->ops.on_execution) a->ops.on_execution(a->ctx, o, &ev);
    return FIX_APP_OK;
}

static fix_app_result_t on_cancel_reject(fix_app_t *a, const fix_msg_t *m, fix_reject_t *rej)
{
    static const uint16_t required[] = {37, 11, 41, 39, 434};
    for (size_t i = 0; i < sizeof required / sizeof required[0]; i++)
        if (!fix_msg_get(m, required[i])) return reject_code(rej, FIX_E_MISSING, required[i]);
    fix_exec_event_t ev;
    memset(&ev, 0, sizeof ev);
    ev.msg_type = '9';
    ev.ord_status = fix_msg_get_char(m, 39);
    copy_field(ev.text, sizeof ev.text, fix_msg_get(m, 58));
    int idx = find_by_field(a, fix_msg_get(m, 41));
    if (idx < 0) idx = find_by_field(a, fix_msg_get(m, 11));
    fix_order_t *o = idx >= 0 ? &a->orders[idx] : NULL;
    if (o) {
        bool ok;
        fix_ord_state_t st = state_from_status(ev.ord_status, o->prev_state, &ok);
        o->state = (ok && st != FIX_ORD_PENDING_CANCEL) ? st : o->prev_state;
        o->cancel_clordid[0] = '\0';
    }
    if (a->ops.on_execution) a->ops.on_execution(a->ctx, o, &ev);
    return FIX_APP_OK;
}

static void reject_order(fix_app_t *a, fix_order_t *o, char msg_type, const char *text)
{
    fix_exec_event_t ev;
    memset(&ev, 0, sizeof ev);
    ev.msg_type = msg_type;
    ev.ord_status = '8';
    copy_str(ev.text, sizeof ev.text, text);
    o->state = FIX_ORD_REJECTED;
    o->leaves_qty = 0;
    if (a->ops.on_execution) a->ops.on_execution(a->ctx, o, &ev);
}

int fix_app_refuse(fix_app_t *a, const char *clordid, const char *text)
{
    int idx = fix_app_find(a, clordid);
    if (idx < 0 || a->orders[idx].state != FIX_ORD_PENDING_NEW || a->orders[idx].seq != 0) return FIX_E_RANGE;
    reject_order(a, &a->orders[idx], '8', text);
    return idx;
}

static fix_order_t *find_by_seq(fix_app_t *a, uint32_t seq)
{
    if (seq == 0) return NULL; /* (an order whose number the transport has not given yet) */
    for (int i = 0; i < FIX_APP_MAX_ORDERS; i++)
        if (a->orders[i].state != FIX_ORD_FREE && a->orders[i].seq == seq) return &a->orders[i];
    return NULL;
}

/* A 35=D numbered by the transport went out: the order it belongs to (by ClOrdID, still without a number)
 * learns its MsgSeqNum, which a session Reject or a gap fill names it by. */
static void on_sent(void *ctx, uint32_t seq, const fix_field_t *type, const uint8_t *msg, size_t len)
{
    fix_app_t *a = ctx;
    fix_field_t f;
    const fix_field_t *id = &f;
    if (!fix_field_eq(type, "D") || fix_raw_get(msg, len, 11, &f, NULL) != FIX_OK) return;
    for (int i = 0; i < FIX_APP_MAX_ORDERS; i++) {
        fix_order_t *o = &a->orders[i];
        if (o->state != FIX_ORD_FREE && o->seq == 0 && strlen(o->clordid) == id->len &&
            memcmp(o->clordid, id->val, id->len) == 0) {
            o->seq = seq;
            return;
        }
    }
}

/* The session gap-filled one of our orders: the counterparty will never see it. */
static void on_order_dropped(void *ctx, uint32_t seq)
{
    fix_app_t *a = ctx;
    fix_order_t *o = find_by_seq(a, seq);
    if (o && o->state == FIX_ORD_PENDING_NEW) reject_order(a, o, 0, "not delivered: gap-filled on resend");
}

fix_app_result_t fix_app_on_message(void *ctx, const fix_msg_t *m, uint32_t seq, uint64_t now_ms, fix_reject_t *rej)
{
    (void)now_ms;
    fix_app_t *a = ctx;
    const fix_field_t *t = &m->f[2];
    if (t->len != 1) return FIX_APP_UNSUPPORTED;
    switch (t->val[0]) {
    case 'W':
        return on_snapshot(a, m, seq, rej);
    case '8':
        return on_exec_report(a, m, rej);
    case '9':
        return on_cancel_reject(a, m, rej);
    case 'Y': {
        char id[FIX_ID_MAX], text[FIX_APP_TEXT_MAX];
        copy_field(id, sizeof id, fix_msg_get(m, 262));
        copy_field(text, sizeof text, fix_msg_get(m, 58));
        if (a->ops.on_md_reject) a->ops.on_md_reject(a->ctx, id, fix_msg_get_char(m, 281), text);
        return FIX_APP_OK;
    }
    case 'j': {
        uint32_t ref;
        if (fix_msg_get_u32(m, 45, &ref) == FIX_OK) {
            fix_order_t *o = find_by_seq(a, ref);
            char text[FIX_APP_TEXT_MAX];
            copy_field(text, sizeof text, fix_msg_get(m, 58));
            if (o && o->state == FIX_ORD_PENDING_NEW) reject_order(a, o, 'j', text);
        }
        return FIX_APP_OK;
    }
    default:
        return FIX_APP_UNSUPPORTED;
    }
}
