/* The FIX session layer against an independent oracle: the conformance cases in fix_session_cases.txt, written
 * from the FIX "Session-level Test Cases and Expected Behaviors" with every expected message spelt out byte for
 * byte (BodyLength and CheckSum included), replayed against fix/session.c. One cmocka test per case.
 *
 * Unlike test_fix_session.c (scripted with this project's helpers, header fields inserted and SendingTime
 * matched by pattern), nothing here is produced by the code under test or by a helper that knows its layout:
 * the runner feeds the file's bytes and compares the session's output with the file's bytes. The file format
 * is described at its top. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fix/codec.h"
#include "fix_fixtures.h"
#include "fix/session.h"
#include "fix/utc.h"

#define MAX_CASES 128
#define MAX_LINES 48
#define MAX_SENT 32
#define LINE_MAX 512

typedef struct {
    char id[16];
    char name[160];
    int first_line; /* line number in the file, for messages */
    int nlines;
    char line[MAX_LINES][LINE_MAX];
    int lineno[MAX_LINES];
} tcase_t;

static tcase_t cases[MAX_CASES];
static int ncases;
static char case_file[512];

/* What the session did, captured by its ops. */
static struct {
    uint8_t sent[MAX_SENT][FIX_MAX_MSG_LEN];
    size_t sent_len[MAX_SENT];
    int nsent, matched;
    int closes, closes_checked;
    char reason[96];
} cap;

static fix_session_t S;

static void cap_send(void *ctx, const uint8_t *d, size_t n)
{
    (void)ctx;
    assert_true(cap.nsent < MAX_SENT);
    assert_true(n <= FIX_MAX_MSG_LEN);
    memcpy(cap.sent[cap.nsent], d, n);
    cap.sent_len[cap.nsent++] = n;
}

static void cap_close(void *ctx, const char *reason)
{
    (void)ctx;
    cap.closes++;
    snprintf(cap.reason, sizeof cap.reason, "%s", reason);
}

static const fix_session_ops_t ops = {cap_send, cap_close, NULL, NULL, NULL};

/* The same cases with the session's new messages numbered by the transport (as the order engine does,
 * ops.send_numbered): a model engine takes each message with its MsgSeqNum placeholder, writes its next number
 * (set from the session's next_out at the first message after a connect, as firmware sets the engine's) at the
 * fixed width, fixes the CheckSum, and hands it back as sent (fix_session_adopt) before the next line of the
 * case. For the comparison with the file the zero padding is taken out again (BodyLength and CheckSum
 * recomputed): the messages must be the file's, with the numbers the file expects. */
static const char *show(const uint8_t *m, size_t n);
static bool numbered;
static struct {
    bool set;
    uint32_t next;
    uint8_t q[MAX_SENT][FIX_MAX_MSG_LEN];
    size_t qlen[MAX_SENT];
    int nq;
} eng;

static void eng_queue(void *ctx, const uint8_t *d, size_t n)
{
    (void)ctx;
    assert_true(eng.nq < MAX_SENT && n <= FIX_MAX_MSG_LEN);
    memcpy(eng.q[eng.nq], d, n);
    eng.qlen[eng.nq++] = n;
}

static const fix_session_ops_t ops_numbered = {cap_send, cap_close, NULL, NULL, eng_queue};

static unsigned sum256(const uint8_t *m, size_t n)
{
    unsigned v = 0;
    for (size_t i = 0; i < n; i++) v += m[i];
    return v % 256u;
}

/* The engine: every queued message sent with its number and adopted, in order. */
static void eng_run(void)
{
    for (int i = 0; i < eng.nq; i++) {
        uint8_t *m = eng.q[i];
        size_t n = eng.qlen[i];
        assert_true(fx_framed(m, n));
        if (!eng.set) eng.next = fix_session_next_out(&S), eng.set = true;
        const char pat[] = "\x01" "34=00000000\x01";
        uint8_t *at = NULL;
        for (size_t k = 0; k + sizeof pat - 1 <= n; k++)
            if (memcmp(m + k, pat, sizeof pat - 1) == 0) { at = m + k + 4; break; }
        if (!at) fail_msg("a message numbered by the transport has no 8-digit placeholder: %s", show(m, n));
        for (unsigned d = 0, v = eng.next; d < FIX_NUMBERED_WIDTH; d++, v /= 10) at[FIX_NUMBERED_WIDTH - 1 - d] = (uint8_t)('0' + v % 10);
        unsigned cs = sum256(m, n - 7);
        m[n - 4] = (uint8_t)('0' + cs / 100), m[n - 3] = (uint8_t)('0' + cs / 10 % 10), m[n - 2] = (uint8_t)('0' + cs % 10);
        assert_true(fx_framed(m, n));
        /* what the counterparty gets, without the padding */
        uint8_t *o = cap.sent[cap.nsent];
        assert_true(cap.nsent < MAX_SENT);
        size_t lead = 0;
        while (lead < FIX_NUMBERED_WIDTH - 1 && at[lead] == '0') lead++;
        size_t a = (size_t)(at - m), on = 0;
        memcpy(o, m, a), on = a;
        memcpy(o + on, at + lead, n - a - lead), on += n - a - lead;
        /* BodyLength: from after "9=nnn<SOH>" to the SOH before "10=" */
        uint8_t *nine = o + 10; /* after "8=FIX.4.4<SOH>" */
        while (*nine != 1) nine++;
        size_t body_from = (size_t)(nine - o) + 1, body = on - 7 - body_from;
        char bl[12];
        int bn = snprintf(bl, sizeof bl, "9=%zu", body);
        size_t old_bn = (size_t)(nine - (o + 10));
        memmove(o + 10 + bn, nine, on - (size_t)(nine - o));   /* (the width of BodyLength may change) */
        on = on - old_bn + (size_t)bn;
        memcpy(o + 10, bl, (size_t)bn);
        cs = sum256(o, on - 7);
        o[on - 4] = (uint8_t)('0' + cs / 100), o[on - 3] = (uint8_t)('0' + cs / 10 % 10), o[on - 2] = (uint8_t)('0' + cs % 10);
        cap.sent_len[cap.nsent++] = on;
        int64_t r = fix_session_adopt(&S, m, n, 0);
        if (r != (int64_t)eng.next) fail_msg("fix_session_adopt gave %lld for MsgSeqNum %u", (long long)r, eng.next);
        eng.next++;
    }
    eng.nq = 0;
}

/* '|' -> SOH. Returns the length. */
static size_t to_wire(const char *txt, uint8_t *out, size_t cap_)
{
    size_t n = strlen(txt);
    assert_true(n <= cap_);
    for (size_t i = 0; i < n; i++) out[i] = txt[i] == '|' ? 0x01 : (uint8_t)txt[i];
    return n;
}

static const char *show(const uint8_t *m, size_t n)
{
    static char buf[2][FIX_MAX_MSG_LEN + 1];
    static int w;
    char *b = buf[w ^= 1];
    if (n > FIX_MAX_MSG_LEN) n = FIX_MAX_MSG_LEN;
    for (size_t i = 0; i < n; i++) b[i] = m[i] == 0x01 ? '|' : (char)m[i];
    b[n] = '\0';
    return b;
}

static fix_sess_state_t state_named(const char *s, int lineno)
{
    static const char *const names[] = {"DISCONNECTED", "LOGON_SENT", "ACTIVE", "LOGOUT_SENT", "LOGOUT_RECEIVED"};
    for (int i = 0; i < 5; i++)
        if (strcmp(s, names[i]) == 0) return (fix_sess_state_t)i;
    fail_msg("%s:%d: unknown state '%s'", case_file, lineno, s);
    return FIX_SESS_DISCONNECTED;
}

/* Before every stimulus: everything the session did so far is accounted for by the file. */
static void all_accounted(const tcase_t *c, int lineno)
{
    if (cap.matched < cap.nsent) {
        for (int i = cap.matched; i < cap.nsent; i++)
            print_error("  unexpected message %d: %s\n", i, show(cap.sent[i], cap.sent_len[i]));
        fail_msg("%s:%d (case %s): %d message(s) sent that the case does not expect", case_file, lineno, c->id,
                 cap.nsent - cap.matched);
    }
    if (cap.closes != cap.closes_checked)
        fail_msg("%s:%d (case %s): the session closed the connection (%s) where the case does not expect it",
                 case_file, lineno, c->id, cap.reason);
}

static uint64_t num(const char **p, int lineno)
{
    char *end;
    unsigned long long v = strtoull(*p, &end, 10);
    if (end == *p) fail_msg("%s:%d: a number is missing", case_file, lineno);
    *p = end;
    while (**p == ' ') (*p)++;
    return v;
}

static void run_case(void **st)
{
    const tcase_t *c = *st;
    memset(&cap, 0, sizeof cap);
    fix_session_config_t cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.sender_comp_id = "TFISH";
    cfg.target_comp_id = "EXCH";
    cfg.heartbeat_s = 30;
    fix_session_init(&S, &cfg, numbered ? &ops_numbered : &ops, NULL);
#ifdef FIX_TX_EXTERNAL
    static uint8_t tx[FIX_TX_MAX];
    fix_session_set_tx(&S, tx, sizeof tx);
#endif
    memset(&eng, 0, sizeof eng);

    for (int i = 0; i < c->nlines; i++) {
        const char *l = c->line[i];
        const int ln = c->lineno[i];
        if (numbered) eng_run();
        char verb[16];
        int vl = 0;
        while (l[vl] && l[vl] != ' ' && vl < 15) {
            verb[vl] = l[vl];
            vl++;
        }
        verb[vl] = '\0';
        const char *p = l + vl;
        while (*p == ' ') p++;
        const bool stimulus = !strcmp(verb, "clock") || !strcmp(verb, "connect") || !strcmp(verb, "in") ||
                              !strcmp(verb, "poll") || !strcmp(verb, "app") || !strcmp(verb, "logout");
        if (stimulus) all_accounted(c, ln);

        if (!strcmp(verb, "clock")) {
            uint64_t now = num(&p, ln), utc;
            if (!fix_utc_parse(p, strlen(p), &utc)) fail_msg("%s:%d: bad UTC '%s'", case_file, ln, p);
            fix_session_set_utc(&S, now, utc);
        } else if (!strcmp(verb, "connect")) {
            eng.set = false; /* (the owner sets the engine's numbers for each connection) */
            fix_session_connected(&S, num(&p, ln));
        } else if (!strcmp(verb, "in")) {
            uint64_t now = num(&p, ln);
            uint8_t m[LINE_MAX];
            size_t n = to_wire(p, m, sizeof m);
            fix_session_on_bytes(&S, m, n, now);
        } else if (!strcmp(verb, "poll")) {
            fix_session_poll(&S, num(&p, ln));
        } else if (!strcmp(verb, "app")) {
            uint64_t now = num(&p, ln);
            char type[8];
            size_t tl = strcspn(p, " ");
            assert_true(tl > 0 && tl < sizeof type);
            memcpy(type, p, tl);
            type[tl] = '\0';
            p += tl;
            while (*p == ' ') p++;
            fix_builder_t *b = fix_session_begin(&S, type, now);
            if (!b) fail_msg("%s:%d (case %s): the session refused to send (not logged on)", case_file, ln, c->id);
            while (*p) { /* tag=value| ... */
                const char *eq = strchr(p, '='), *bar = strchr(p, '|');
                if (!eq || !bar || eq > bar) fail_msg("%s:%d: bad field list", case_file, ln);
                fix_build_strn(b, (uint32_t)strtoul(p, NULL, 10), eq + 1, (size_t)(bar - eq - 1));
                p = bar + 1;
            }
            const bool order = !strcmp(type, "D") || !strcmp(type, "G");
            if (fix_session_end(&S, order ? FIX_KIND_ORDER : FIX_KIND_APP, now) < 0)
                fail_msg("%s:%d (case %s): the message did not fit", case_file, ln, c->id);
        } else if (!strcmp(verb, "logout")) {
            uint64_t now = num(&p, ln);
            fix_session_logout(&S, *p ? p : NULL, now);
        } else if (!strcmp(verb, "out")) {
            uint8_t want[LINE_MAX];
            size_t wn = to_wire(p, want, sizeof want);
            if (!fx_framed(want, wn)) /* checked with nothing from the codec: a slip in the file cannot make a case pass */
                fail_msg("%s:%d: the expected message itself is not well framed (9 or 10 wrong in the file)",
                         case_file, ln);
            if (cap.matched >= cap.nsent)
                fail_msg("%s:%d (case %s): expected a message, none was sent\n  want: %s", case_file, ln, c->id,
                         show(want, wn));
            const uint8_t *got = cap.sent[cap.matched];
            size_t gn = cap.sent_len[cap.matched];
            if (gn != wn || memcmp(got, want, wn) != 0)
                fail_msg("%s:%d (case %s): message %d differs\n  want: %s\n  got:  %s", case_file, ln, c->id,
                         cap.matched, show(want, wn), show(got, gn));
            cap.matched++;
        } else if (!strcmp(verb, "closed")) {
            if (cap.closes != cap.closes_checked + 1)
                fail_msg("%s:%d (case %s): expected the session to close the connection once, it closed %d time(s)",
                         case_file, ln, c->id, cap.closes - cap.closes_checked);
            cap.closes_checked = cap.closes;
        } else if (!strcmp(verb, "state")) {
            fix_sess_state_t want = state_named(p, ln);
            if (fix_session_state(&S) != want)
                fail_msg("%s:%d (case %s): state %d, expected %s", case_file, ln, c->id, fix_session_state(&S), p);
        } else if (!strcmp(verb, "next_in") || !strcmp(verb, "next_out")) {
            uint32_t want = (uint32_t)num(&p, ln);
            uint32_t got = verb[5] == 'i' ? fix_session_next_in(&S) : fix_session_next_out(&S);
            if (got != want) fail_msg("%s:%d (case %s): %s is %u, expected %u", case_file, ln, c->id, verb, got, want);
        } else {
            fail_msg("%s:%d: unknown line '%s'", case_file, ln, l);
        }
    }
    if (numbered) eng_run();
    all_accounted(c, c->lineno[c->nlines - 1]);
}

static void run_case_direct(void **st)
{
    numbered = false;
    run_case(st);
}

static void run_case_numbered(void **st)
{
    numbered = true;
    run_case(st);
}

/* The cases file sits beside this source file. */
static void load_cases(void)
{
    const char *src = __FILE__;
    const char *slash = strrchr(src, '/');
    snprintf(case_file, sizeof case_file, "%.*sfix_session_cases.txt", slash ? (int)(slash - src + 1) : 0, src);
    FILE *f = fopen(case_file, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s (run from fw/, as `make -C fw host-test` does)\n", case_file);
        exit(1);
    }
    char buf[LINE_MAX];
    int lineno = 0;
    tcase_t *c = NULL;
    while (fgets(buf, sizeof buf, f)) {
        lineno++;
        size_t n = strlen(buf);
        if (n == sizeof buf - 1 && buf[n - 1] != '\n') {
            fprintf(stderr, "%s:%d: line too long\n", case_file, lineno);
            exit(1);
        }
        while (n && (buf[n - 1] == '\n' || buf[n - 1] == '\r' || buf[n - 1] == ' ')) buf[--n] = '\0';
        if (n == 0 || buf[0] == '#') continue;
        if (!strncmp(buf, "case ", 5)) {
            if (ncases == MAX_CASES) {
                fprintf(stderr, "%s: more than %d cases\n", case_file, MAX_CASES);
                exit(1);
            }
            c = &cases[ncases++];
            const char *id = buf + 5;
            size_t il = strcspn(id, " ");
            snprintf(c->id, sizeof c->id, "%.*s", (int)(il < sizeof c->id ? il : sizeof c->id - 1), id);
            snprintf(c->name, sizeof c->name, "%.*s", (int)(sizeof c->name - 1), id);
            c->first_line = lineno;
            continue;
        }
        if (!c || c->nlines == MAX_LINES) {
            fprintf(stderr, "%s:%d: %s\n", case_file, lineno, c ? "too many lines in one case" : "line before any case");
            exit(1);
        }
        memcpy(c->line[c->nlines], buf, n + 1);
        c->lineno[c->nlines++] = lineno;
    }
    fclose(f);
}

int main(void)
{
    load_cases();
    if (ncases < 40) {
        fprintf(stderr, "%s: only %d cases read (expected the whole set)\n", case_file, ncases);
        return 1;
    }
    static struct CMUnitTest tests[2 * MAX_CASES];
    static char names[MAX_CASES][sizeof cases[0].name + 32];
    for (int i = 0; i < ncases; i++) {
        tests[i] = (struct CMUnitTest){cases[i].name, run_case_direct, NULL, NULL, &cases[i]};
        snprintf(names[i], sizeof names[i], "%s (numbered by the transport)", cases[i].name);
        tests[ncases + i] = (struct CMUnitTest){names[i], run_case_numbered, NULL, NULL, &cases[i]};
    }
    return _cmocka_run_group_tests("fix_session_cases", tests, 2 * (size_t)ncases, NULL, NULL);
}
