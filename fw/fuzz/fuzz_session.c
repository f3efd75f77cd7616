/* fuzz/fuzz_session.c - libFuzzer harness of the FIX session layer (fix/session.c) through the framing harness
 * (fix_harness.h): sequences of well-framed messages with fuzzer-chosen types, MsgSeqNums, flags and bodies,
 * mixed with garbage, timer runs, reconnects and messages the owner sends (orders, other application messages,
 * Logout), so that the resend store, gap fills and sequence resets are exercised.
 * Input: byte 0 bit 0 = start without the Logon reply; byte 0 bit 1 = reset_on_logon; then fh_step records.
 * Checks: ASan/UBSan, and the harness's checks of everything sent (fix_harness.h). */
#include "fix_harness.h"

/* The application: every message it is given is in sequence, so MsgSeqNums only go up (within a connection when
 * reset_on_logon restarts them), and the session hands on the message's own; 58=R... asks for a session Reject,
 * 58=U... for a Business Message Reject. */
static uint32_t last_app_seq;
static fix_app_result_t on_app(void *ctx, const fix_msg_t *m, uint32_t given, uint64_t now_ms, fix_reject_t *rej)
{
    uint32_t seq;
    FZ_CHECK(fix_msg_get_u32(m, 34, &seq) == FIX_OK);
    FZ_CHECK(given == seq); /* the MsgSeqNum the session hands on is the message's */
    FZ_CHECK(seq > last_app_seq);
    FZ_CHECK(seq < fix_session_next_in(&FH.s) || fix_session_state(&FH.s) != FIX_SESS_ACTIVE || seq == fix_session_next_in(&FH.s));
    last_app_seq = seq;
    const fix_field_t *t = fix_msg_get(m, 58);
    if (t && t->len && t->val[0] == 'R') {
        rej->reason = FIX_RR_VALUE_INCORRECT;
        rej->tag = 58;
        rej->text = "fuzz";
        return FIX_APP_REJECT;
    }
    return t && t->len && t->val[0] == 'U' ? FIX_APP_UNSUPPORTED : FIX_APP_OK;
}
static const fix_app_handler_t app = {on_app, NULL, NULL};

static void on_connect(void)
{
    if (FH.s.cfg.reset_on_logon) last_app_seq = 0; /* both sides start again at 1 */
}

static void fh_owner_send(uint8_t what)
{
    static const char *const types[] = {"D", "F", "B", "V"};
    if (what % 8 == 7) { /* the owner logs out (or gives up on the Logon) */
        fix_session_logout(&FH.s, "fuzz", FH.now);
        return;
    }
    const char *t = types[what % 4];
    fix_builder_t *b = fix_session_begin(&FH.s, t, FH.now);
    if (!b) return;
    fix_build_str(b, 11, "FZ1");
    fix_build_uint(b, 38, what);
    if (what & 0x80) { /* a big one, so that the store wraps and evicts */
        static char text[600];
        memset(text, 'x', sizeof text - 1);
        fix_build_str(b, 58, text + (what & 0x3f) * 4);
    }
    int64_t seq = fix_session_end(&FH.s, t[0] == 'D' ? FIX_KIND_ORDER : FIX_KIND_APP, FH.now);
    FZ_CHECK(seq > 0 || seq == FIX_E_FULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fz_in_t in = {data, size};
    uint8_t mode = fz_u8(&in);
    fix_session_config_t cfg;
    fh_init(&cfg);
    cfg.reset_on_logon = mode & 2;
    if (mode & 4) cfg.resend_order_max_age_ms = 5000;
    fix_session_init(&FH.s, &cfg, &fh_ops, &FH);
    fix_session_set_app(&FH.s, &app, NULL);
    last_app_seq = 0;
    fh_connect_hook = on_connect;
    fh_connect(!(mode & 1));
    FZ_CHECK((mode & 1) || fix_session_state(&FH.s) == FIX_SESS_ACTIVE); /* the harness's Logon reply is valid */
    for (unsigned steps = 0; steps < 4096 && fh_step(&in); steps++) {
    }
    return 0;
}
