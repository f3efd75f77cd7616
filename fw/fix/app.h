/* FIX 4.4 application layer for the initiator: market data and orders over a fix_session_t.
 *
 * In:  fix_app_subscribe()   -> sends Market Data Request 35=V (snapshot + updates, entries 0/1/2),
 *      fix_app_new_order()   -> sends New Order Single 35=D (limit, day), field order per DESIGN.md,
 *      fix_app_cancel()      -> sends Order Cancel Request 35=F,
 *      messages from the session (installed as its application handler by fix_app_init):
 *      35=W snapshot, 35=8 Execution Report, 35=9 Order Cancel Reject, 35=Y MD Request Reject,
 *      35=j Business Message Reject (of one of our orders).
 * Out: ops.on_market_data(ctx, snapshot) and ops.on_execution(ctx, order, event) callbacks,
 *      a fixed-size order table (fix_app_order / fix_app_find): an order takes a free entry, else the finished one
 *      sent first, and only while it leaves `keep` available entries for orders to come (armed stops': app/stops.c).
 * Prices and quantities are fixed-point int64 with cfg.price_decimals / cfg.qty_decimals; a value with
 * more decimals than configured is rejected (session Reject 373=5), except AvgPx (6), which is an
 * average and is truncated, and market data (35=W 270/271), which is taken truncated with a flag
 * (fix_md_entry_t.price_inexact) so that a stop compares the price exactly.
 * ClOrdIDs are cfg.clordid_prefix + a counter; the owner makes the prefix unique per boot.
 */
#ifndef TF_FIX_APP_H
#define TF_FIX_APP_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "fix/codec.h"
#include "fix/session.h"

/* ---- Documented limits (override with -D) ---- */
#ifndef FIX_APP_MAX_ORDERS
#define FIX_APP_MAX_ORDERS 32 /* live + finished orders kept; finished ones are reused oldest first */
#endif
#ifndef FIX_APP_MAX_SYMBOLS
#define FIX_APP_MAX_SYMBOLS 8 /* symbols in one Market Data Request */
#endif
#ifndef FIX_APP_MAX_MD_ENTRIES
#define FIX_APP_MAX_MD_ENTRIES 16 /* entries kept from one 35=W (more are counted, not kept) */
#endif
#define FIX_SYMBOL_MAX 16      /* Symbol (55), chars */
#define FIX_ID_MAX 24          /* ClOrdID, OrderID, MDReqID, Account, chars */
#define FIX_EXECID_HISTORY 32  /* ExecIDs remembered to drop PossResend duplicates */
#define FIX_APP_TEXT_MAX 48

typedef enum {
    FIX_ORD_FREE = 0,
    FIX_ORD_PENDING_NEW,
    FIX_ORD_NEW,
    FIX_ORD_PARTIAL,
    FIX_ORD_FILLED,
    FIX_ORD_PENDING_CANCEL,
    FIX_ORD_CANCELED,
    FIX_ORD_REJECTED,
} fix_ord_state_t;

typedef struct { /* (the states a byte each and seq before the 64-bit members: 144 bytes, not 160) */
    uint8_t state;      /* fix_ord_state_t */
    uint8_t prev_state; /* fix_ord_state_t, restored by an Order Cancel Reject */
    char clordid[FIX_ID_MAX];
    char cancel_clordid[FIX_ID_MAX];
    char order_id[FIX_ID_MAX];
    char symbol[FIX_SYMBOL_MAX];
    char side; /* '1' buy, '2' sell */
    uint32_t seq; /* MsgSeqNum of the 35=D */
    int64_t qty, price;
    int64_t cum_qty, leaves_qty, avg_px;
    uint64_t sent_ms;
} fix_order_t;
_Static_assert(FIX_ORD_REJECTED <= 255, "an order's state is a byte");
_Static_assert(FIX_ID_MAX != 24 || FIX_SYMBOL_MAX != 16 || sizeof(fix_order_t) == 144, "an order table entry: 144 bytes");

typedef struct {
    char msg_type;   /* '8' execution report, '9' cancel reject, 'j' business reject, 0 not delivered */
    char exec_type;  /* 150, for '8' */
    char ord_status; /* 39 */
    int64_t last_qty, last_px; /* 32, 31 (0 if absent) */
    char exec_id[FIX_ID_MAX];
    char text[FIX_APP_TEXT_MAX]; /* 58 */
} fix_exec_event_t;

typedef struct { /* (the 64-bit members first: 24 bytes, not 32) */
    int64_t price; /* 270 */
    int64_t size;  /* 271 */
    int32_t position; /* 290, 0 if absent */
    char type; /* 269: '0' bid, '1' offer, '2' trade, ... */
    bool has_price, has_size;
    /* A price or size written with more decimals than configured, or too large for int64, is taken, never
     * refused (valid market data): the floor of the value at the configured decimals, a magnitude past
     * INT64_MAX held there, and price_inexact says that this changed it (the price lies strictly between
     * price and price + 1). Stops compare it exactly with that flag (stop_crosses_md). */
    bool price_inexact;
} fix_md_entry_t;
_Static_assert(sizeof(fix_md_entry_t) == 24, "no padding in a market data entry");

typedef struct {
    char symbol[FIX_SYMBOL_MAX];
    bool symbol_cut; /* the Symbol was longer than FIX_SYMBOL_MAX - 1: symbol holds its start, and equals no other */
    char md_req_id[FIX_ID_MAX];
    uint32_t seq;     /* MsgSeqNum */
    uint32_t count;   /* NoMDEntries (268) */
    uint8_t n;        /* entries kept */
    fix_md_entry_t e[FIX_APP_MAX_MD_ENTRIES + 1]; /* the last one is scratch for entries counted, not kept */
    /* During the callback only: the message, for the entries past the kept ones (fix_md_next_more). */
    const fix_msg_t *msg;
    fix_cursor_t more; /* the first entry not kept (more.i is 0 if all are kept) */
    uint8_t price_dec, qty_dec;
} fix_md_snapshot_t;

/* In an on_market_data callback: the entries counted but not kept, one at a time, in message order (start with
 * it->i = 0), past the fields the parser kept too. Returns false when there are no more. Stops see every trade of
 * a 35=W this way. */
bool fix_md_next_more(const fix_md_snapshot_t *md, fix_cursor_t *it, fix_md_entry_t *e);

typedef struct {
    void (*on_market_data)(void *ctx, const fix_md_snapshot_t *md);
    /* o is NULL for an execution report about an order we do not know. */
    void (*on_execution)(void *ctx, const fix_order_t *o, const fix_exec_event_t *ev);
    void (*on_md_reject)(void *ctx, const char *md_req_id, char reason, const char *text); /* optional */
} fix_app_ops_t;

typedef struct {
    const char *account;        /* 1 */
    const char *clordid_prefix; /* at most 8 chars */
    unsigned price_decimals;    /* implied decimals of prices, <= FIX_MAX_DECIMALS */
    unsigned qty_decimals;      /* implied decimals of quantities */
} fix_app_config_t;

typedef struct {
    fix_session_t *s;
    char account[FIX_ID_MAX];
    char prefix[9];
    unsigned price_dec, qty_dec;
    fix_app_ops_t ops;
    void *ctx;
    fix_app_handler_t handler;
    uint32_t next_id;     /* ClOrdID counter */
    uint32_t next_md_req; /* MDReqID counter */
    uint32_t execid_hash[FIX_EXECID_HISTORY];
    uint8_t execid_pos;
    fix_order_t orders[FIX_APP_MAX_ORDERS];
    fix_md_snapshot_t md;
} fix_app_t;

void fix_app_init(fix_app_t *a, fix_session_t *s, const fix_app_config_t *cfg, const fix_app_ops_t *ops, void *ctx);

/* 35=V 262=MD<n> 263=1 264=depth 265=0 267=3 269=0 269=1 269=2 146=n 55=...
 * Returns n (the MDReqID number) or a negative FIX_E_* code. */
int64_t fix_app_subscribe(fix_app_t *a, const char *const *symbols, size_t n_symbols, unsigned depth, uint64_t now_ms);

/* Order table entries a new order could take: free ones and those of finished orders (filled, canceled, rejected). */
unsigned fix_app_available(const fix_app_t *a);

/* Limit day order. side '1' buy / '2' sell. Taken only while more than `keep` entries are available (the order
 * leaves them to orders to come), else FIX_E_FULL. Returns the order index (>= 0) or a negative FIX_E_* code. */
int fix_app_new_order(fix_app_t *a, const char *symbol, char side, int64_t qty, int64_t price, unsigned keep,
                      uint64_t now_ms);
/* Cancel request for order idx (must be pending new, new or partially filled). */
int fix_app_cancel(fix_app_t *a, int idx, uint64_t now_ms);

/* Hardware offload: a ClOrdID for an order the hardware will send (the counter moves on), and the order
 * table entry for an order the hardware sent with MsgSeqNum seq (pending new, like fix_app_new_order's, and
 * leaving `keep` entries the same way), so that its execution reports are matched. Returns the index, FIX_E_RANGE
 * or FIX_E_FULL. */
void fix_app_take_clordid(fix_app_t *a, char out[FIX_ID_MAX]);
int fix_app_adopt_order(fix_app_t *a, const char *clordid, const char *symbol, char side, int64_t qty, int64_t price,
                        uint32_t seq, unsigned keep, uint64_t now_ms);

/* An order refused before it left (the risk gate in the order engine: its transport-numbered message was never sent
 * and never got a number): rejected here, with `text`, as the exchange would (on_execution: state rejected). Returns
 * its index, or FIX_E_RANGE when no order has this ClOrdID or it was sent (it has a MsgSeqNum). */
int fix_app_refuse(fix_app_t *a, const char *clordid, const char *text);
const fix_order_t *fix_app_order(const fix_app_t *a, int idx);
int fix_app_find(const fix_app_t *a, const char *clordid); /* index or -1 */

/* Body of a New Order Single after the standard header, in DESIGN.md order:
 * 1, 11, 21=1, 38, 40=2, 44, 54, 55, 59=0, 60. Shared with the offload template builder. */
void fix_app_put_nos_body(fix_builder_t *b, const char *account, const char *clordid, int64_t qty,
                          unsigned qty_dec, int64_t price, unsigned price_dec, char side, const char *symbol,
                          uint64_t transact_utc_ms);

/* The session application handler (installed by fix_app_init; exposed for tests). */
fix_app_result_t fix_app_on_message(void *ctx, const fix_msg_t *m, uint32_t seq, uint64_t now_ms, fix_reject_t *rej);

#endif
