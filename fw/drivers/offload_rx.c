/* OFFLOAD_RX driver (see offload_rx.h). */
#include "drivers/offload_rx.h"

#ifdef TF_HAS_OFFLOAD
#include <stddef.h>

#include "drivers/sysctrl.h"
#include "offload/price.h"

static uint32_t rd(uint32_t r) { return tf_read32(OFFLOAD_RX_BASE + r); }
static void wr(uint32_t r, uint32_t v) { tf_write32(OFFLOAD_RX_BASE + r, v); }

#define CMD_CONFIG 1u
#define CMD_LOAD_SEQ 2u
#define CMD_WRITE_ENTRY 3u
#define CMD_DISARM 5u
#define CMD_DISARM_ALL 6u
#define CMD_READ_STATE 7u
#define CMD_DIGEST_SYNC 8u

static bool busy(void) { return (rd(OFFLOAD_RX_CMD_STATUS) >> OFFLOAD_RX_CMD_STATUS_BUSY_SHIFT) & OFFLOAD_RX_CMD_STATUS_BUSY_MASK; }

/* Issues a command and waits for it (applied between frames: at most one frame time, ~12 us at 1 Gb/s).
 * Returns false when refused or when it reports an error (RESULT bit 0 for CONFIG). */
static bool command(uint32_t op, uint32_t entry, uint32_t *result) {
    uint32_t t0 = sysctrl_cycles32();
    while (busy())
        if (sysctrl_cycles32() - t0 > 1000000u) return false;
    wr(OFFLOAD_RX_CMD, op | (entry << 8));
    uint32_t st = rd(OFFLOAD_RX_CMD_STATUS);
    if ((st >> OFFLOAD_RX_CMD_STATUS_REFUSED_SHIFT) & OFFLOAD_RX_CMD_STATUS_REFUSED_MASK) return false;
    while (busy())
        if (sysctrl_cycles32() - t0 > 1000000u) return false;
    uint32_t res = (rd(OFFLOAD_RX_CMD_STATUS) >> OFFLOAD_RX_CMD_STATUS_RESULT_SHIFT) & OFFLOAD_RX_CMD_STATUS_RESULT_MASK;
    if (result) *result = res;
    return !(op == CMD_CONFIG && (res & 1u));
}

/* Writes the first 4 * words characters of s into consecutive registers from base, four to a register (the first
 * in bits 7:0), NUL padded past its end. */
static void wr_chars(uint32_t base, const char *s, unsigned words) {
    for (unsigned w = 0; w < words; w++) {
        uint32_t v = 0;
        for (unsigned k = 0; k < 4 && *s; k++) v |= (uint32_t)(uint8_t)*s++ << (8 * k);
        wr(base + 4 * w, v);
    }
}

bool offload_rx_follow(const offload_rx_conn_t *c) {
    const uint8_t *m = c->our_mac;
    wr(OFFLOAD_RX_OUR_MAC_HI, ((uint32_t)m[0] << 8) | m[1]);
    wr(OFFLOAD_RX_OUR_MAC_LO, ((uint32_t)m[2] << 24) | ((uint32_t)m[3] << 16) | ((uint32_t)m[4] << 8) | m[5]);
    wr(OFFLOAD_RX_OUR_IP, c->our_ip);
    wr(OFFLOAD_RX_OUR_PORT, c->our_port);
    wr(OFFLOAD_RX_PEER_IP, c->peer_ip);
    wr(OFFLOAD_RX_PEER_PORT, c->peer_port);
    wr(OFFLOAD_RX_FIX_CFG, (c->decimals & 15u) | ((uint32_t)'2' << 8));
    wr(OFFLOAD_RX_CTRL, 1u);
    wr(OFFLOAD_RX_RCV_NXT, c->rcv_nxt);
    return command(CMD_CONFIG, 0, NULL) && command(CMD_LOAD_SEQ, 0, NULL);
}

bool offload_rx_stop(void) {
    wr(OFFLOAD_RX_CTRL, 0u);
    return command(CMD_CONFIG, 0, NULL);
}

bool offload_rx_write_entry(unsigned i, const char *symbol, char side, int64_t stop, unsigned tmpl) {
    wr_chars(OFFLOAD_RX_ENTRY_SYM0, symbol, 2);
    wr(OFFLOAD_RX_ENTRY_STOP_LO, (uint32_t)stop);
    wr(OFFLOAD_RX_ENTRY_STOP_HI, (uint32_t)((uint64_t)stop >> 32));
    wr(OFFLOAD_RX_ENTRY_CFG, (side == '2' ? 1u : 0u) | 2u /* one-shot */ | 4u /* arm */ | ((tmpl & 15u) << 4));
    uint32_t res = 1;
    return command(CMD_WRITE_ENTRY, i, &res) && !(res & 1u);
}

bool offload_rx_disarm(unsigned i, bool *was_armed) {
    uint32_t res = 0;
    bool ok = command(CMD_DISARM, i, &res);
    if (was_armed) *was_armed = res & 1u;
    return ok;
}

bool offload_rx_disarm_all(void) { return command(CMD_DISARM_ALL, 0, NULL); }

bool offload_rx_pop_fire(unsigned *trigger, int64_t *price, uint32_t *stamp) {
    uint32_t st = rd(OFFLOAD_RX_FIRE_STATUS);
    if (!((st >> OFFLOAD_RX_FIRE_STATUS_VALID_SHIFT) & 1u)) return false;
    *trigger = (st >> OFFLOAD_RX_FIRE_STATUS_TRIGGER_SHIFT) & OFFLOAD_RX_FIRE_STATUS_TRIGGER_MASK;
    *price = -1;
    if ((st >> OFFLOAD_RX_FIRE_STATUS_RECORD_VALID_SHIFT) & 1u) /* BCD digits (offload/price.h); not BCD: unknown */
        ofl_price_from_bcd(((uint64_t)rd(OFFLOAD_RX_FIRE_PRICE_HI) << 32) | rd(OFFLOAD_RX_FIRE_PRICE_LO), price);
    *stamp = rd(OFFLOAD_RX_FIRE_STAMP);
    wr(OFFLOAD_RX_FIRE_POP, 1u);
    return true;
}

void offload_rx_counters(offload_rx_counters_t *c) {
    c->seg_seen = rd(OFFLOAD_RX_SEG_SEEN);
    c->seg_inorder = rd(OFFLOAD_RX_SEG_INORDER);
    c->seg_ooo = rd(OFFLOAD_RX_SEG_OOO);
    c->seg_bad = rd(OFFLOAD_RX_SEG_BAD);
    c->seg_ignored = rd(OFFLOAD_RX_SEG_IGNORED);
    c->w_msgs = rd(OFFLOAD_RX_W_MSGS);
    c->fix_errors = rd(OFFLOAD_RX_FIX_ERRORS);
    c->fires = rd(OFFLOAD_RX_FIRES);
}

bool offload_rx_load_seq(uint32_t rcv_nxt) {
    wr(OFFLOAD_RX_RCV_NXT, rcv_nxt);
    return command(CMD_LOAD_SEQ, 0, NULL);
}

bool offload_rx_state(uint32_t *rcv_nxt, uint32_t *result) {
    if (!command(CMD_READ_STATE, 0, result)) return false;
    *rcv_nxt = rd(OFFLOAD_RX_RESULT_SEQ);
    return true;
}
#ifdef OFFLOAD_RX_DIGEST
bool offload_rx_digest_stage(bool enable, const char *ours, const char *theirs) {
    size_t lo = 0, lt = 0;
    while (ours[lo]) lo++;
    while (theirs[lt]) lt++;
    if (lo == 0 || lo > OFFLOAD_RX_DIGEST_COMPID || lt == 0 || lt > OFFLOAD_RX_DIGEST_COMPID) return false;
    wr_chars(OFFLOAD_RX_DIGEST_OURS0, ours, OFFLOAD_RX_DIGEST_COMPID / 4);
    wr_chars(OFFLOAD_RX_DIGEST_THEIRS0, theirs, OFFLOAD_RX_DIGEST_COMPID / 4);
    wr(OFFLOAD_RX_DIGEST_CFG, (enable ? 1u : 0u) | ((uint32_t)lo << 8) | ((uint32_t)lt << 16));
    return true;
}

bool offload_rx_digest_apply(uint32_t rcv_nxt) { return command(CMD_CONFIG, 0, NULL) && offload_rx_load_seq(rcv_nxt); }

bool offload_rx_digest_pop(ofl_digest_desc_t *x) {
    uint32_t st = rd(OFFLOAD_RX_DIGEST_STATUS);
    if (!((st >> OFFLOAD_RX_DIGEST_STATUS_VALID_SHIFT) & 1u)) return false;
    uint32_t len = rd(OFFLOAD_RX_DIGEST_LEN);
    x->seq = rd(OFFLOAD_RX_DIGEST_SEQ);
    x->len = (uint16_t)((len >> OFFLOAD_RX_DIGEST_LEN_LENGTH_SHIFT) & OFFLOAD_RX_DIGEST_LEN_LENGTH_MASK);
    x->skip = (uint16_t)((len >> OFFLOAD_RX_DIGEST_LEN_SKIP_SHIFT) & OFFLOAD_RX_DIGEST_LEN_SKIP_MASK);
    uint32_t tail = rd(OFFLOAD_RX_DIGEST_TAIL);
    x->tail = (uint16_t)((tail >> OFFLOAD_RX_DIGEST_TAIL_TAIL_SHIFT) & OFFLOAD_RX_DIGEST_TAIL_TAIL_MASK);
    x->held = (uint16_t)((tail >> OFFLOAD_RX_DIGEST_TAIL_HELD_SHIFT) & OFFLOAD_RX_DIGEST_TAIL_HELD_MASK);
    x->first = rd(OFFLOAD_RX_DIGEST_FIRST);
    x->hw_count = (uint8_t)((st >> OFFLOAD_RX_DIGEST_STATUS_HW_COUNT_SHIFT) & OFFLOAD_RX_DIGEST_STATUS_HW_COUNT_MASK);
    x->digested = (st >> OFFLOAD_RX_DIGEST_STATUS_DIGESTED_SHIFT) & 1u;
    x->garbled = (st >> OFFLOAD_RX_DIGEST_STATUS_GARBLED_SHIFT) & 1u;
    x->synced = (st >> OFFLOAD_RX_DIGEST_STATUS_SYNCED_SHIFT) & 1u;
    wr(OFFLOAD_RX_DIGEST_POP, 1u);
    return true;
}

bool offload_rx_digest_synced(void) {
    return (rd(OFFLOAD_RX_DIGEST_STATUS) >> OFFLOAD_RX_DIGEST_STATUS_SYNCED_NOW_SHIFT) & 1u;
}

bool offload_rx_digest_sync(uint32_t pos, uint32_t msg) {
    wr(OFFLOAD_RX_DIGEST_SYNC_POS, pos);
    wr(OFFLOAD_RX_DIGEST_SYNC_MSG, msg);
    uint32_t res = 1;
    return command(CMD_DIGEST_SYNC, 0, &res) && !(res & 1u);
}

uint32_t offload_rx_digest_drops(void) { return rd(OFFLOAD_RX_DIGEST_DROPS); }
#endif
#ifdef OFFLOAD_RX_BOOK_SLOTS
void offload_rx_book_stage(unsigned k, const char *symbol) {
    size_t n = 0;
    while (symbol[n]) n++;
    wr_chars(OFFLOAD_RX_BOOK_SYM0_LO + 8u * k, n <= OFFLOAD_RX_SYM_CHARS ? symbol : "", 2);
}

bool offload_rx_book_read(unsigned k, offload_rx_book_t *b) {
    if (!command(CMD_READ_STATE, k, NULL)) return false;
    uint32_t flags = rd(OFFLOAD_RX_BOOK_FLAGS);
    b->updates = rd(OFFLOAD_RX_BOOK_UPDATES);
    b->have = (uint8_t)(flags & 7u);
    for (unsigned t = 0; t < 3; t++) {
        uint64_t mag = ((uint64_t)rd(OFFLOAD_RX_BOOK_BID_HI + 8u * t) << 32) | rd(OFFLOAD_RX_BOOK_BID_LO + 8u * t);
        for (uint32_t s = (flags >> (12 + 4 * t)) & 15u; s; s--) mag *= 10u; /* the fraction digits it lacks */
        /* the floor at the implied decimals, as fix_parse_decimal_trunc gives it: a negative value with digits cut
         * is one lower */
        b->px[t] = (flags >> (4 + t) & 1u) ? -(int64_t)mag - (int64_t)(flags >> (8 + t) & 1u) : (int64_t)mag;
    }
    return true;
}
#endif
#endif
