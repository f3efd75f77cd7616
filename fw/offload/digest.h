/* Market-data digestion, firmware's half (DESIGN.md "Digesting market data").
 *
 * The receive parser digests in-order segments of the session that hold only good 35=W of it: such a frame takes no
 * receive slot, and firmware gets a descriptor instead. Every good in-order segment of the session gets one, in
 * stream order; a passed segment's descriptor says which of its bytes are the hardware's: `skip` leading bytes
 * (the rest of a message the hardware owns, then the messages it completed before the first byte firmware owns),
 * `tail` trailing bytes that start one it takes. `held` of firmware's bytes, just before the tail, start a message whose
 * owner is undecided (cut before its head shows a W of this session): they reach the session's framer like any
 * others, and the hardware takes the message if it completes it verified, which the next descriptor shows (digested,
 * or a skip); the framer then drops what it holds of it, as TCP reaches the range that finishes it. Otherwise (no
 * skip) the message is firmware's, and the framer completes it from the next frame.
 *
 * Each descriptor becomes byte ranges TCP skips (tcp_rx_skip) and messages the session takes (fix_session_digested):
 *   digested: TCP skips [seq, seq + len); its HW_COUNT messages from FIRST end inside that range;
 *   passed:   TCP skips [seq, seq + skip) and [seq + len - tail, seq + len); the messages the hardware completed
 *             (HW_COUNT from FIRST) end inside [seq, seq + skip).
 * TCP applies a skip when rcv_nxt reaches it, in stream order with the data it delivers (a skip inside a segment cuts
 * the delivery there), and says so (on_skipped): only then does the session take the messages that end in it. So the
 * FIX layer sees whole messages only, and the session's MsgSeqNums stay in stream order, whatever order the frames
 * reach firmware in (a frame lost for want of a receive slot and sent again, held out-of-order data). The one rule
 * for the owner: take every descriptor the hardware holds before giving a receive slot's frame to TCP (a frame's
 * descriptor is queued no later than its slot is committed, and both cross to sys through the same kind of FIFO,
 * so it is visible once the slot is).
 *
 * Transport-agnostic: TCP and the session are reached through ops. Host-tested (fw/tests/test_offload_digest.c). */
#ifndef TF_OFFLOAD_DIGEST_H
#define TF_OFFLOAD_DIGEST_H

#include <stdbool.h>
#include <stdint.h>

/* One descriptor, as the hardware gives it (OFFLOAD_RX DIGEST_STATUS .. DIGEST_FIRST). */
typedef struct {
    uint32_t seq;        /* the segment's first sequence number */
    uint32_t first;      /* the MsgSeqNum of the first message the hardware completed in it (hw_count > 0) */
    uint16_t len;        /* payload bytes */
    uint16_t skip, tail; /* passed: the hardware's leading and trailing bytes */
    uint16_t held;       /* passed: firmware's last bytes before the tail start a message of undecided owner */
    uint8_t hw_count;    /* messages the hardware completed and verified in it */
    bool digested;       /* no slot frame: every byte is the hardware's */
    bool garbled;        /* a message the hardware owned failed in it (dropped; the session sees the gap) */
    bool synced;         /* the parser followed the session's MsgSeqNum at the segment's end */
} ofl_digest_desc_t;

typedef struct {
    /* TCP: rcv_nxt moves over [seq, seq + len) now or when it gets there (tcp_rx_skip): 0 taken, < 0 refused */
    int (*skip)(void *ctx, uint32_t seq, uint32_t len);
    /* the session takes MsgSeqNums first .. first + count - 1 (fix_session_digested): 0 taken, < 0 refused */
    int (*messages)(void *ctx, uint32_t first, uint32_t count);
    /* the hardware took the undecided message firmware holds the head of: the framer drops it (0; < 0: none held) */
    int (*drop)(void *ctx);
} ofl_digest_ops_t;

#ifndef OFL_DIGEST_PENDING
#define OFL_DIGEST_PENDING 16u   /* descriptors whose messages wait for TCP to reach them */
#endif

typedef struct {
    struct {
        uint32_t end;            /* the messages end before this sequence number */
        uint32_t first, count;
        bool drop;               /* it finishes the undecided message firmware holds the head of */
    } pend[OFL_DIGEST_PENDING];  /* in stream order */
    uint8_t head, n;
    bool holding;                /* the last descriptor left the head of an undecided message with firmware */
    /* counters (the `offload` command shows them) */
    uint32_t digested, passed, trimmed, hw_msgs, garbled, bytes;
    uint32_t held, held_taken, held_fw; /* undecided heads; then taken by the hardware, or firmware's */
    uint32_t skip_refused, msg_refused; /* TCP or the session disagreed with a descriptor (the parser is resynchronised) */
    bool disagree;                      /* set when either refused; the owner clears it when it resynchronises */
} ofl_digest_t;

void ofl_digest_init(ofl_digest_t *d);
/* Room for another descriptor (its messages may have to wait): take no more from the hardware while false. */
static inline bool ofl_digest_room(const ofl_digest_t *d) { return d->n < OFL_DIGEST_PENDING; }
/* Messages waiting for TCP to reach them. */
static inline unsigned ofl_digest_waiting(const ofl_digest_t *d) { return d->n; }
/* Takes a descriptor, in the hardware's order (only with room). */
void ofl_digest_take(ofl_digest_t *d, const ofl_digest_desc_t *x, const ofl_digest_ops_t *ops, void *ctx);
/* TCP skipped [seq, seq + len) (its on_skipped): the session takes the messages that end in it, in order. */
void ofl_digest_skipped(ofl_digest_t *d, uint32_t seq, uint32_t len, const ofl_digest_ops_t *ops, void *ctx);
/* The owner resynchronised the parser or switched digestion, where firmware stands at a message boundary: nothing
 * undecided is held. */
static inline void ofl_digest_at_boundary(ofl_digest_t *d) { d->holding = false; }

#endif
