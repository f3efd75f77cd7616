/* FIX 4.4 session layer, initiator side. Transport-agnostic.
 *
 * In:  fix_session_connected()   when the TCP connection is up (sends Logon),
 *      fix_session_on_bytes()    with any chunk of the received TCP byte stream,
 *      fix_session_poll()        periodically with monotonic milliseconds (timers),
 *      fix_session_disconnected() when TCP went down,
 *      fix_session_begin()/fix_session_end() to send an application message.
 * Out: ops.send(ctx, bytes, len)       one complete FIX message per call,
 *      ops.disconnect(ctx, reason)     the owner must close the TCP connection (the session is
 *                                      already DISCONNECTED when this is called),
 *      ops.on_event(ctx, ev, arg, txt) optional notifications (logon, logout, reject received...),
 *      app handler                     every in-sequence application message.
 * Time: now_ms is monotonic milliseconds (any epoch). UTC for SendingTime is now_ms + an offset learned
 * from the counterparty's SendingTime (52): set from its first message (normally the Logon reply),
 * moved forward when a later message shows we are behind, moved back when we are ahead by more
 * than FIX_UTC_SLEW_MS. Until then (or fix_session_set_utc) SendingTime starts at 1970, so a
 * counterparty that checks latency rejects the first Logon; its Logout teaches us the clock and the
 * next connection logs on.
 *
 * Behaviour (FIX 4.4 session rules, initiator):
 *  - Sequence numbers persist across reconnects within a boot unless cfg.reset_on_logon (141=Y).
 *  - Too-high MsgSeqNum: one ResendRequest 7=<expected> 16=0 and the message is ignored (not queued:
 *    the counterparty resends everything from the gap on). ResendRequest, SequenceReset-Reset, Logout
 *    and a Logon reply are processed first even when too high.
 *  - Too-low MsgSeqNum without PossDupFlag: Logout with text, then disconnect. With 43=Y: ignored.
 *  - Garbled frames (bad BodyLength/CheckSum, 8/9/35 not first, 10 not last) are dropped; expected seq unchanged.
 *  - An invalid Logon reply, or a first message that is not a Logon (nor a Logout refusing ours), is answered
 *    with a Logout naming the problem before the connection closes (test case 1B.d/e).
 *  - Answering a ResendRequest: stored application messages are resent with 43=Y and 122; admin
 *    messages, messages no longer in the store and orders (35=D/G) are replaced by SequenceReset
 *    GapFill. Orders are resent only if cfg.resend_order_max_age_ms > 0 and they are younger than
 *    that; the default 0 gap-fills every order (a stale order must never reach the market late),
 *    and the application is told (app->on_order_dropped). Cancels (35=F) are always resent.
 *  - Hardware offload: fix_session_reserve_seqnum() hands out MsgSeqNums, fix_session_record_sent()
 *    stores what the hardware sent. A reserved number that is never recorded is gap-filled if the
 *    counterparty asks for it, so the hardware must not send a reserved number after the counterparty
 *    could have asked for it (see fix_session_fill_gap to release reserved numbers).
 */
#ifndef TF_FIX_SESSION_H
#define TF_FIX_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fix/codec.h"

/* ---- Documented limits (override with -D) ---- */
#ifndef FIX_TX_MAX
#define FIX_TX_MAX FIX_MAX_MSG_LEN /* largest message the session builds or resends */
#endif
#ifndef FIX_STORE_SLOTS
#define FIX_STORE_SLOTS 32 /* sent application messages kept for resend */
#endif
#ifndef FIX_STORE_BYTES
#define FIX_STORE_BYTES 4096 /* bytes of sent application messages kept for resend */
#endif
#define FIX_COMPID_MAX 24    /* SenderCompID/TargetCompID, chars */
#define FIX_TESTREQID_MAX 16 /* our TestReqID, chars */
#define FIX_UTC_SLEW_MS 1000 /* clock offset moved back only beyond this */

#define FIX_DEFAULT_HEARTBEAT_S 30
#define FIX_DEFAULT_LOGON_TIMEOUT_MS 10000
#define FIX_DEFAULT_LOGOUT_TIMEOUT_MS 10000
#define FIX_DEFAULT_MAX_SKEW_MS 120000 /* as QuickFIX's MaxLatency */

/* SessionRejectReason (373) values used */
enum {
    FIX_RR_INVALID_TAG = 0,
    FIX_RR_REQUIRED_TAG_MISSING = 1,
    FIX_RR_TAG_NOT_DEFINED = 2,
    FIX_RR_UNDEFINED_TAG = 3,
    FIX_RR_NO_VALUE = 4,
    FIX_RR_VALUE_INCORRECT = 5,
    FIX_RR_FORMAT = 6,
    FIX_RR_COMPID = 9,
    FIX_RR_SENDING_TIME = 10,
    FIX_RR_INVALID_MSGTYPE = 11,
    FIX_RR_DUPLICATE_TAG = 13,
    FIX_RR_GROUP_COUNT = 16,
    FIX_RR_OTHER = 99,
};

typedef enum {
    FIX_SESS_DISCONNECTED = 0,
    FIX_SESS_LOGON_SENT,       /* Logon sent, waiting for the reply */
    FIX_SESS_ACTIVE,           /* logged on */
    FIX_SESS_LOGOUT_SENT,      /* we sent Logout, waiting for the reply */
    FIX_SESS_LOGOUT_RECEIVED,  /* peer sent Logout, we answered, waiting for it to close */
} fix_sess_state_t;

typedef enum {
    FIX_EV_LOGON = 1,        /* logon accepted */
    FIX_EV_LOGOUT,           /* Logout exchange completed, text = peer's 58 if any */
    FIX_EV_REJECT_RECEIVED,  /* peer sent 35=3; arg = RefSeqNum, text = 58 */
    FIX_EV_REJECT_SENT,      /* we sent 35=3 or 35=j; arg = 373 (or 380 + 1000 for 35=j), text = its 58 */
    FIX_EV_GARBLED,          /* a garbled frame was dropped; arg = total dropped */
    FIX_EV_RESEND_REQUESTED, /* we sent a ResendRequest; arg = BeginSeqNo */
    FIX_EV_SEQ_RESET,        /* expected MsgSeqNum changed by a SequenceReset; arg = new value */
    FIX_EV_ORDER_GAPFILLED,  /* a stored order was gap-filled instead of resent; arg = its MsgSeqNum */
} fix_event_t;

/* Kinds of sent messages, for the resend store. */
typedef enum {
    FIX_KIND_ADMIN = 0, /* never stored, always gap-filled */
    FIX_KIND_APP,       /* stored, resent with PossDupFlag */
    FIX_KIND_ORDER,     /* stored, resent only if younger than cfg.resend_order_max_age_ms */
} fix_msg_kind_t;

typedef struct {
    const char *sender_comp_id;       /* 49 we send (and 56 we expect) */
    const char *target_comp_id;       /* 56 we send (and 49 we expect) */
    uint32_t heartbeat_s;             /* 108; 0 -> FIX_DEFAULT_HEARTBEAT_S */
    uint32_t test_request_grace_ms;   /* silence beyond HeartBtInt before TestRequest; 0 -> 20% of it */
    uint32_t logon_timeout_ms;        /* 0 -> default */
    uint32_t logout_timeout_ms;       /* 0 -> default */
    uint32_t max_skew_ms;             /* SendingTime accuracy; 0 -> default, UINT32_MAX disables */
    uint32_t resend_order_max_age_ms; /* 0 (default, safe): never resend an order, gap-fill it */
    bool reset_on_logon;              /* send 141=Y and restart both sequence numbers at 1 */
} fix_session_config_t;

typedef struct {
    void (*send)(void *ctx, const uint8_t *data, size_t len);
    void (*disconnect)(void *ctx, const char *reason);
    void (*on_event)(void *ctx, fix_event_t ev, uint32_t arg, const char *text); /* optional */
    /* Optional: called before every message is built (new, resent or gap fill), before its MsgSeqNum is
     * taken. With a hardware offload that shares the numbers, the owner stops it here and adopts what it sent
     * (fix_session_reserve_seqnum + fix_session_record_sent), so the message gets the next free number. */
    void (*before_send)(void *ctx);
    /* Optional: the transport numbers our new messages (the order engine owns the outgoing MsgSeqNum, DESIGN.md
     * "The offload and the session"). When set, every new message (not a resend or gap fill) goes here instead
     * of send, with 34 written as FIX_NUMBERED_WIDTH '0's for the transport to fill in; it takes no number and is
     * not stored until the transport hands it back as sent with its number (fix_session_adopt). Resends and gap
     * fills keep their own numbers and go through send. */
    void (*send_numbered)(void *ctx, const uint8_t *data, size_t len);
} fix_session_ops_t;

/* Digits of the MsgSeqNum placeholder of a message numbered by the transport (zero padding is legal FIX):
 * up to 99,999,999 messages on a session, as the order engine's order templates. */
#define FIX_NUMBERED_WIDTH 8

/* What an application handler asks the session to answer. */
typedef enum {
    FIX_APP_OK = 0,
    FIX_APP_REJECT,      /* session Reject 35=3 with rej->reason (373), rej->tag (371), rej->text */
    FIX_APP_UNSUPPORTED, /* Business Message Reject 35=j 380=3 */
} fix_app_result_t;

typedef struct {
    int reason;
    uint32_t tag;
    const char *text;
} fix_reject_t;

typedef struct {
    /* seq: the message's MsgSeqNum, as the session read and checked it (never 0) */
    fix_app_result_t (*on_message)(void *ctx, const fix_msg_t *m, uint32_t seq, uint64_t now_ms, fix_reject_t *rej);
    void (*on_order_dropped)(void *ctx, uint32_t seq); /* optional, see header comment */
    /* optional: a message numbered by the transport was sent with MsgSeqNum seq (fix_session_adopt): its MsgType
     * and its bytes (fields found with fix_raw_get) */
    void (*on_sent)(void *ctx, uint32_t seq, const fix_field_t *type, const uint8_t *msg, size_t len);
} fix_app_handler_t;

/* ---- Resend store (internal layout, public for static allocation) ---- */
typedef struct {
    uint32_t seq;
    uint16_t off;
    uint16_t len : 14;  /* (FIX_STORE_BYTES < 16384) */
    uint16_t kind : 2;  /* fix_msg_kind_t */
    uint64_t sent_ms;
} fix_store_slot_t;     /* 16 bytes */

typedef struct {
    fix_store_slot_t slot[FIX_STORE_SLOTS];
    uint16_t head;  /* oldest slot */
    uint16_t count;
    uint16_t wr;    /* next byte write offset */
    uint8_t bytes[FIX_STORE_BYTES];
} fix_store_t;

typedef struct {
    fix_session_config_t cfg;
    char sender[FIX_COMPID_MAX + 1];
    char target[FIX_COMPID_MAX + 1];
    uint8_t sender_len, target_len; /* their lengths (every message received is compared with them) */
    fix_session_ops_t ops;
    void *ctx;
    const fix_app_handler_t *app;
    void *app_ctx;

    fix_sess_state_t state;
    uint32_t next_out;   /* MsgSeqNum of our next message */
    uint32_t next_in;    /* MsgSeqNum expected from the peer */
    uint64_t state_ms;   /* when LOGON_SENT / LOGOUT_* started */
    uint64_t last_rx_ms; /* last valid message received */
    uint64_t last_tx_ms; /* last message sent (by us or by the hardware) */
    bool test_req_pending;
    uint64_t test_req_ms;
    uint32_t test_req_count;
    char test_req_id[FIX_TESTREQID_MAX];
    bool resend_pending; /* our ResendRequest not yet satisfied */
    uint32_t resend_end; /* highest too-high MsgSeqNum seen while pending */
    bool utc_valid;
    int64_t utc_offset_ms; /* UTC epoch ms = now_ms + offset */

    fix_stream_t framer; /* receive side: zero-copy framing and parsing */
    fix_msg_t msg; /* message being processed; a stored message being resent (after the ResendRequest is read) */
    fix_builder_t b;
    uint8_t *tx;     /* where messages are built: tx_own, or the owner's buffer (fix_session_set_tx) */
    uint16_t tx_cap; /* its bytes */
#ifndef FIX_TX_EXTERNAL
    uint8_t tx_own[FIX_TX_MAX];
#endif
    fix_store_t store;
} fix_session_t;

void fix_session_init(fix_session_t *s, const fix_session_config_t *cfg, const fix_session_ops_t *ops, void *ctx);
void fix_session_set_app(fix_session_t *s, const fix_app_handler_t *app, void *app_ctx);
/* Where the session builds every message it sends (new, resent, gap fill): cap bytes at buf, at most FIX_TX_MAX
 * used; a longer message is refused as one over FIX_TX_MAX (FIX_E_FULL, nothing sent). By default (init) the
 * session's own FIX_TX_MAX-byte buffer; built with FIX_TX_EXTERNAL the session has none and sends nothing until this
 * is called (after every fix_session_init). The firmware builds in the order engine's frame scratch
 * (app/offload.c), where the message is framed without a copy. buf must stay as it is from ops.before_send until
 * ops.send / ops.send_numbered returns. */
void fix_session_set_tx(fix_session_t *s, uint8_t *buf, size_t cap);

/* Transport events */
void fix_session_connected(fix_session_t *s, uint64_t now_ms);
void fix_session_disconnected(fix_session_t *s);
void fix_session_on_bytes(fix_session_t *s, const uint8_t *data, size_t len, uint64_t now_ms);
void fix_session_poll(fix_session_t *s, uint64_t now_ms);

/* Starts a Logout (ACTIVE), or disconnects (LOGON_SENT). */
void fix_session_logout(fix_session_t *s, const char *text, uint64_t now_ms);

/* Application messages: begin writes the standard header (8,9,35,34,49,52,56) and returns the builder
 * for the body, NULL unless logged on. end sends it, stores it by kind and returns its MsgSeqNum (0 when the
 * transport numbers it: ops.send_numbered; the number comes with fix_session_adopt), or FIX_E_FULL (too big:
 * nothing sent, no number used). No other session call in between. */
fix_builder_t *fix_session_begin(fix_session_t *s, const char *msg_type, uint64_t now_ms);
int64_t fix_session_end(fix_session_t *s, fix_msg_kind_t kind, uint64_t now_ms);

/* UTC clock */
void fix_session_set_utc(fix_session_t *s, uint64_t now_ms, uint64_t utc_ms);
uint64_t fix_session_utc(const fix_session_t *s, uint64_t now_ms);
bool fix_session_utc_valid(const fix_session_t *s);

/* Hardware offload hooks */
uint32_t fix_session_reserve_seqnum(fix_session_t *s, uint32_t n); /* returns the first of n */
/* Records a complete message sent by someone else with a reserved MsgSeqNum (for resend). */
int fix_session_record_sent(fix_session_t *s, const uint8_t *msg, size_t len, uint64_t now_ms);
/* A message numbered by the transport (ops.send_numbered, or an order the hardware built and sent) has gone out
 * with MsgSeqNum next_out: the session takes the number, stores the message for resend by its kind (35=D/G
 * orders, other application messages; session messages are not stored) and tells the application handler
 * (on_sent). Returns the MsgSeqNum, FIX_E_FORMAT (not a FIX message) or FIX_E_RANGE (34 is not next_out:
 * nothing taken). */
int64_t fix_session_adopt(fix_session_t *s, const uint8_t *msg, size_t len, uint64_t now_ms);
/* Messages the receive parser digested (DESIGN.md "Digesting market data"): `count` 35=W of this session with
 * MsgSeqNums first .. first + count - 1 that hardware verified (CheckSum, CompIDs, MsgSeqNum in sequence, no
 * PossDup) and firmware never sees; their bytes went past the framer (tcp_rx_skip), which must stand at a message
 * boundary. They count as received now: the peer is alive, next_in moves past them. Returns FIX_OK, or FIX_E_RANGE
 * (nothing taken) when the session is not active, the framer holds part of a message, count is 0 or first is not
 * next_in: the parser and the session disagree, and the owner resynchronises the parser. */
int fix_session_digested(fix_session_t *s, uint32_t first, uint32_t count, uint64_t now_ms);
/* The receive parser took the message whose head the framer holds (an undecided head: DESIGN.md "Digesting market
 * data"): the framer drops it. FIX_OK, or FIX_E_RANGE when it holds nothing (the two sides disagree). */
int fix_session_rx_drop_partial(fix_session_t *s);
/* Sends SequenceReset-GapFill 34=seq 36=seq+n for reserved numbers that will never be used. */
int fix_session_fill_gap(fix_session_t *s, uint32_t seq, uint32_t n, uint64_t now_ms);

/* State */
fix_sess_state_t fix_session_state(const fix_session_t *s);
uint32_t fix_session_next_out(const fix_session_t *s);
uint32_t fix_session_next_in(const fix_session_t *s);
/* True when no partial message is held: everything received so far ends at a message boundary (the byte after
 * it starts the next message). The stop-order offload resynchronises its parser only there. */
bool fix_session_rx_at_boundary(const fix_session_t *s);
/* Manual resynchronisation (operator action), both values >= 1. */
void fix_session_set_seqnums(fix_session_t *s, uint32_t next_out, uint32_t next_in);

#endif
