/* Driver of the offload's receive parser and trigger table (OFFLOAD_RX, hw/src/triggerfish/offload).
 * Everything firmware sets goes through the block's command channel, applied in eth_rx between frames.
 * The FIX client makes it follow the live connection; the stop orders arm its trigger table. */
#ifndef TF_DRIVERS_OFFLOAD_RX_H
#define TF_DRIVERS_OFFLOAD_RX_H

#include <stdbool.h>
#include <stdint.h>

#include "soc.h"

#ifdef TF_HAS_OFFLOAD
typedef struct {
    const uint8_t *our_mac;
    uint32_t our_ip, peer_ip; /* host order */
    uint16_t our_port, peer_port;
    uint32_t rcv_nxt;         /* the peer's next sequence number */
    unsigned decimals;        /* implied decimals of prices */
} offload_rx_conn_t;

/* Follows the connection (enables the parser). Returns false if the block refused a command. */
bool offload_rx_follow(const offload_rx_conn_t *c);
/* Parser off (firmware-only mode). */
bool offload_rx_stop(void);

/* Trigger table entry i: symbol (<= 8 chars), side '1' buy / '2' sell, stop (fixed point with the
 * connection's decimals), one-shot, the order engine template it fires; armed at once. */
bool offload_rx_write_entry(unsigned i, const char *symbol, char side, int64_t stop, unsigned tmpl);
/* Disarms entry i; *was_armed false for a one-shot entry means it fired (or never was armed). Once this
 * returns, no fire for the entry can come. */
bool offload_rx_disarm(unsigned i, bool *was_armed);
bool offload_rx_disarm_all(void);
/* The oldest fire record (trigger, trade price that crossed in fixed point or -1 when not logged, stamp); false when
 * none. */
bool offload_rx_pop_fire(unsigned *trigger, int64_t *price, uint32_t *stamp);

typedef struct {
    uint32_t seg_seen, seg_inorder, seg_ooo, seg_bad, seg_ignored, w_msgs, fix_errors, fires;
} offload_rx_counters_t;
void offload_rx_counters(offload_rx_counters_t *c);
/* The parser's expected sequence number and state bits (READ_STATE). */
bool offload_rx_state(uint32_t *rcv_nxt, uint32_t *result);
/* Sets the parser's expected sequence number (LOAD_SEQ; at a FIX message boundary): resynchronising it. */
bool offload_rx_load_seq(uint32_t rcv_nxt);

#ifdef OFFLOAD_RX_EARLY_CTRL
/* Early fires (DESIGN.md "Early trigger"), staged for the next CONFIG (offload_rx_follow, offload_rx_digest_apply). */
static inline void offload_rx_early_stage(bool on) { tf_write32(OFFLOAD_RX_BASE + OFFLOAD_RX_EARLY_CTRL, on ? 1u : 0u); }
#endif
#ifdef OFFLOAD_RX_DIGEST
#include "offload/digest.h"
/* Market-data digestion (DESIGN.md "Digesting market data"): staged for the next CONFIG (offload_rx_follow, or
 * offload_rx_digest_apply). ours: the exchange's TargetCompID (our SenderCompID), theirs: its SenderCompID, 1 to
 * OFFLOAD_RX_DIGEST_COMPID characters each. False (nothing staged) when a CompID does not fit. */
bool offload_rx_digest_stage(bool enable, const char *ours, const char *theirs);
/* Applies what is staged now: CONFIG, then LOAD_SEQ at rcv_nxt (CONFIG restarts the parser). Only where the parser
 * stands at rcv_nxt, at a FIX message boundary, or it would parse bytes twice or skip some. */
bool offload_rx_digest_apply(uint32_t rcv_nxt);
/* The oldest descriptor, popped; false when none. */
bool offload_rx_digest_pop(ofl_digest_desc_t *x);
/* A descriptor waits (what offload_rx_digest_pop would pop), nothing popped: one register read, in line. */
static inline bool offload_rx_digest_waiting(void) {
    return (tf_read32(OFFLOAD_RX_BASE + OFFLOAD_RX_DIGEST_STATUS) >> OFFLOAD_RX_DIGEST_STATUS_VALID_SHIFT) & 1u;
}
/* The parser follows the session's MsgSeqNum now. */
bool offload_rx_digest_synced(void);
/* DIGEST_SYNC: the session's next incoming MsgSeqNum msg at stream position pos (a message boundary firmware has
 * parsed up to). False when refused (the parser is elsewhere: try again once firmware has caught up). */
bool offload_rx_digest_sync(uint32_t pos, uint32_t msg);
/* Good segments whose descriptor found the hardware's FIFO full (passed without one). */
uint32_t offload_rx_digest_drops(void);
#endif
#ifdef OFFLOAD_RX_BOOK_SLOTS
/* The hardware top of book (DESIGN.md "Top of book"): per slot, the first bid, offer and trade price of the last
 * 35=W of its symbol the parser committed. Slot k's symbol, staged for the next CONFIG (offload_rx_follow): "" or
 * one longer than OFFLOAD_RX_SYM_CHARS leaves the slot unused. A changed symbol clears the slot. */
void offload_rx_book_stage(unsigned k, const char *symbol);
typedef struct {
    uint32_t updates; /* 35=W of the symbol since the slot was set */
    uint8_t have;     /* bit t: px[t] is kept (0 bid, 1 offer, 2 trade) */
    int64_t px[3];    /* fixed point at the connection's decimals, the floor (fix_parse_decimal_trunc's) */
} offload_rx_book_t;
/* Slot k as of the last good segment (READ_STATE: between frames). */
bool offload_rx_book_read(unsigned k, offload_rx_book_t *b);
#endif
#endif

#endif
