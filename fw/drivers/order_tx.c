/* ORDER_TX driver (see order_tx.h). */
#include "drivers/order_tx.h"

#ifdef TF_HAS_OFFLOAD
#include "drivers/sysctrl.h"
#include "lib/mem.h"
#include "lib/parse.h"

static uint32_t rd(uint32_t r) { return tf_read32(ORDER_TX_BASE + r); }
static void wr(uint32_t r, uint32_t v) { tf_write32(ORDER_TX_BASE + r, v); }
#define BIT(reg, f) (1u << reg##_##f##_SHIFT)

/* Waits until (STATUS & mask) == want, at most ~10 ms of sys cycles. */
static bool wait_status(uint32_t mask, uint32_t want) {
    uint32_t t0 = sysctrl_cycles32();
    while ((rd(ORDER_TX_STATUS) & mask) != want)
        if (sysctrl_cycles32() - t0 > TF_SYS_CLOCK_HZ / 100u) return false;
    return true;
}

void order_tx_enable(bool on) { wr(ORDER_TX_CTRL, on ? BIT(ORDER_TX_CTRL, ENABLE) : 0u); }

bool order_tx_wait_idle(void) { return wait_status(BIT(ORDER_TX_STATUS, IDLE), BIT(ORDER_TX_STATUS, IDLE)); }

static bool command(uint32_t reg, uint32_t v) {
    if (!wait_status(BIT(ORDER_TX_STATUS, CMD_BUSY), 0)) return false;
    wr(reg, v);
    return wait_status(BIT(ORDER_TX_STATUS, CMD_BUSY), 0);
}

bool order_tx_arm(uint32_t mask, bool on) { return command(on ? ORDER_TX_ARM_SET : ORDER_TX_ARM_CLR, mask); }
uint32_t order_tx_armed(void) { return rd(ORDER_TX_ARMED); }

void order_tx_load_frame(unsigned t, const uint8_t *frame, const order_tx_meta_t *m) {
    uint32_t base = ORDER_TX_TEMPLATE + t * ORDER_TX_TEMPLATE_BYTES; /* a long frame runs on into slot t + 1 */
    unsigned i = 0;
#if TF_MEM_WORDS
    if (!((uintptr_t)frame & 3u)) /* whole words as they are (the template RAM is little-endian, as the CPU) */
        for (; i + 4 <= m->len; i += 4) wr(base + i, *(const tf_word_t *)(frame + i));
#endif
    for (; i < m->len; i += 4) {
        uint32_t w = 0;
        for (unsigned k = 0; k < 4 && i + k < m->len; k++) w |= (uint32_t)frame[i + k] << (8 * k);
        wr(base + i, w);
    }
    uint32_t a = ORDER_TX_META + t * 16u;
    wr(a, ((uint32_t)m->len << ORDER_TX_META0_LEN_SHIFT) | ((uint32_t)m->msg_width << ORDER_TX_META0_MSG_WIDTH_SHIFT) |
              ((uint32_t)m->msg_off << ORDER_TX_META0_MSG_OFF_SHIFT) |
              ((uint32_t)(m->cs_off & 0xFFu) << ORDER_TX_META0_CSUM_OFF_SHIFT) |
              ((uint32_t)(m->cs_off >> 8 & 1u) << ORDER_TX_META0_CSUM_OFF8_SHIFT));
    wr(a + 4, ((uint32_t)m->st_off << ORDER_TX_META1_STIME_OFF_SHIFT) | ((uint32_t)m->st_en << ORDER_TX_META1_STIME_EN_SHIFT) |
                  ((uint32_t)m->tt_off << ORDER_TX_META1_TTIME_OFF_SHIFT) | ((uint32_t)m->tt_en << ORDER_TX_META1_TTIME_EN_SHIFT));
    wr(a + 8, ((uint32_t)m->ip_csum << ORDER_TX_META2_IP_CSUM_SHIFT) | ((uint32_t)m->tcp_csum << ORDER_TX_META2_TCP_CSUM_SHIFT));
    wr(a + 12, (uint32_t)m->fix_sum << ORDER_TX_META3_FIX_SUM_SHIFT);
}

void order_tx_load(unsigned t, const ofl_template_t *tp) {
    order_tx_meta_t m = {.len = tp->len, .cs_off = tp->cs_off, .msg_off = tp->msg_off, .msg_width = tp->msg_width,
                         .st_off = tp->st_off, .tt_off = tp->tt_off, .st_en = true, .tt_en = true,
                         .ip_csum = tp->ip_csum, .tcp_csum = tp->tcp_csum, .fix_sum = tp->fix_sum};
    order_tx_load_frame(t, tp->frame, &m);
}

bool order_tx_send(unsigned slot, unsigned mode, bool fin, uint32_t ack) {
    if (slot < ORDER_TX_SEND_SLOT0 || slot >= ORDER_TX_SLOTS || mode > ORDER_TX_SEND_MODE_RAW) return false;
    if (order_tx_send_free() == 0) return false;
    wr(ORDER_TX_SEND_ACK, ack);
    wr(ORDER_TX_SEND, (slot << ORDER_TX_SEND_SLOT_SHIFT) | (mode << ORDER_TX_SEND_MODE_SHIFT) |
                          ((fin ? 1u : 0u) << ORDER_TX_SEND_FIN_SHIFT));
    if (rd(ORDER_TX_STATUS) & BIT(ORDER_TX_STATUS, REFUSED)) { /* (only firmware fills the queue: not expected) */
        wr(ORDER_TX_STATUS_CLR, BIT(ORDER_TX_STATUS, REFUSED));
        return false;
    }
    return true;
}

unsigned order_tx_send_free(void) { return rd(ORDER_TX_SEND_FREE); }

void order_tx_read(unsigned t, uint8_t *out, unsigned len) {
    uint32_t base = ORDER_TX_TEMPLATE + t * ORDER_TX_TEMPLATE_BYTES;
    unsigned i = 0;
#if TF_MEM_WORDS
    if (!((uintptr_t)out & 3u))
        for (; i + 4 <= len; i += 4) *(tf_word_t *)(out + i) = rd(base + i);
#endif
    for (; i < len; i += 4) {
        uint32_t w = rd(base + i);
        for (unsigned k = 0; k < 4 && i + k < len; k++) out[i + k] = (uint8_t)(w >> (8 * k));
    }
}

bool order_tx_set_time(uint32_t tod_ms, uint32_t eth_cycles_per_ms) {
    uint32_t ms = tod_ms % 1000u, s = tod_ms / 1000u;
    uint32_t h = s / 3600u, mi = s / 60u % 60u, se = s % 60u;
    uint32_t lo = ((h % 10u) << 28) | ((mi / 10u) << 24) | ((mi % 10u) << 20) | ((se / 10u) << 16) |
                  ((se % 10u) << 12) | ((ms / 100u) << 8) | ((ms / 10u % 10u) << 4) | (ms % 10u);
    wr(ORDER_TX_MS_DIVISOR, eth_cycles_per_ms - 1u);
    wr(ORDER_TX_TIME_LO, lo);
    return command(ORDER_TX_TIME_SET, h / 10u);
}

/* Not waited for: the engine takes it within a few of its cycles, and every later command waits for it first (the
 * digestion's main loop sets it once a pass, and a command's round trip to the engine's clock was a quarter of the
 * pass). */
bool order_tx_set_ack(uint32_t ack) {
    if (!wait_status(BIT(ORDER_TX_STATUS, CMD_BUSY), 0)) return false;
    wr(ORDER_TX_ACK_SET, ack);
    return true;
}

void order_tx_get_next(order_tx_next_t *n) {
    n->seq = rd(ORDER_TX_NEXT_SEQ);
    n->msgseq = rd(ORDER_TX_NEXT_MSGSEQ);
    n->ip_id = (uint16_t)rd(ORDER_TX_IP_ID);
    n->window = (uint16_t)rd(ORDER_TX_WINDOW);
}

void order_tx_set_next(const order_tx_next_t *n) {
    wr(ORDER_TX_NEXT_SEQ, n->seq);
    wr(ORDER_TX_NEXT_MSGSEQ, n->msgseq);
    wr(ORDER_TX_IP_ID, n->ip_id);
    wr(ORDER_TX_WINDOW, n->window);
}

void order_tx_counters(order_tx_counters_t *c) {
    c->ignored = (uint16_t)rd(ORDER_TX_IGNORED);
    c->not_armed = (uint16_t)rd(ORDER_TX_NOT_ARMED);
    c->log_drops = (uint16_t)rd(ORDER_TX_LOG_DROPS);
    c->rx_overflow = (uint16_t)rd(ORDER_TX_RX_OVERFLOW);
}

bool order_tx_log_pending(void) { return rd(ORDER_TX_LOG_COUNT) != 0; }

bool order_tx_pop(order_tx_record_t *r) {
    if (rd(ORDER_TX_LOG_COUNT) == 0) return false;
    uint32_t w[ORDER_TX_RECORD_WORDS];
    for (unsigned i = 0; i < ORDER_TX_RECORD_WORDS; i++) w[i] = rd(ORDER_TX_LOG_DATA);
    r->seq = w[0];
    r->ack = w[1];
    r->msgseq = w[2];
    uint32_t h = w[7];
    uint32_t hours = ((h >> ORDER_TX_REC_HOURS_SHIFT) & 15u) * 10u + (w[3] >> 28);
    uint32_t min, sec, ms;
    if (tf_bcd_u32(w[3] >> 20, 2, &min) && tf_bcd_u32(w[3] >> 12, 2, &sec) && tf_bcd_u32(w[3], 3, &ms) && (w[3] >> 28) <= 9)
        r->tod_ms = ((hours * 60u + min) * 60u + sec) * 1000u + ms;
    else
        r->tod_ms = ORDER_TX_TOD_BAD;
    r->window = (uint16_t)(w[4] >> 16);
    r->ip_id = (uint16_t)w[4];
    r->rx_stamp = w[5];
    r->tx_stamp = w[6];
    r->is_send = (h >> ORDER_TX_REC_KIND_SHIFT) & 1u;
    r->payload_len = (uint16_t)((h >> ORDER_TX_REC_PLEN_SHIFT) & 0xFFu);
    r->tmpl = (uint8_t)(((h >> ORDER_TX_REC_TMPL_SHIFT) & 15u) | (r->is_send ? ORDER_TX_SEND_SLOT0 : 0u));
    r->status = (h >> ORDER_TX_REC_STATUS_SHIFT) & 15u;
    if (r->is_send) {
        r->payload_len |= (uint16_t)(((h >> ORDER_TX_REC_PLEN8_SHIFT) & 1u) << 8);
        r->trigger = 0;
        r->mode = (h >> ORDER_TX_REC_MODE_SHIFT) & 3u;
        r->fin = (h >> ORDER_TX_REC_FIN_SHIFT) & 1u;
    } else {
        r->trigger = (h >> ORDER_TX_REC_TRIGGER_SHIFT) & 63u;
        r->mode = 0;
        r->fin = false;
    }
    return true;
}

#ifdef TF_HAS_RISK
/* Reads RISK_STATUS until the bits of mask are clear; false after `cycles` sys cycles with them still set. */
static bool risk_status_clears(uint32_t mask, uint32_t cycles) {
    uint32_t t0 = sysctrl_cycles32();
    while (rd(ORDER_TX_RISK_STATUS) & mask)
        if (sysctrl_cycles32() - t0 > cycles) return false;
    return true;
}

static bool risk_wait(void) { return risk_status_clears(BIT(ORDER_TX_RISK_STATUS, BUSY), TF_SYS_CLOCK_HZ / 100u); }

int order_tx_risk_job(const order_tx_risk_job_t *j, unsigned *reason) {
    if (!risk_wait()) return -1;
    wr(ORDER_TX_RISK_A, (j->symbol << ORDER_TX_RISK_A_SYMBOL_SHIFT) | (j->ticket << ORDER_TX_RISK_A_TICKET_SHIFT) |
                            (j->item << ORDER_TX_RISK_A_ITEM_SHIFT) | ((uint32_t)j->sell << ORDER_TX_RISK_A_SELL_SHIFT) |
                            ((uint32_t)j->cancel << ORDER_TX_RISK_A_CANCEL_SHIFT));
    wr(ORDER_TX_RISK_QTY, j->qty);
    wr(ORDER_TX_RISK_V0, j->v[0]);
    wr(ORDER_TX_RISK_V1, j->v[1]);
    wr(ORDER_TX_RISK_V2, j->v[2]);
    wr(ORDER_TX_RISK_GO, j->op);
    if (!risk_wait()) return -1;
    uint32_t st = rd(ORDER_TX_RISK_STATUS);
    if (st & BIT(ORDER_TX_RISK_STATUS, REFUSED)) return -1;
    if (reason) *reason = (st >> ORDER_TX_RISK_STATUS_REASON_SHIFT) & ORDER_TX_RISK_STATUS_REASON_MASK;
    return (st & BIT(ORDER_TX_RISK_STATUS, OK)) ? 1 : 0;
}

void order_tx_risk_ctrl(bool on, bool kill) {
    wr(ORDER_TX_RISK_CTRL, (on ? BIT(ORDER_TX_RISK_CTRL, ENABLE) : 0u) | (kill ? BIT(ORDER_TX_RISK_CTRL, KILL) : 0u));
}
/* The write crosses to the engine's clock and the latch's state crosses back: KILLED is read again until it shows the
 * latch cleared (a few cycles of each clock) or 1,000 sys cycles have passed (KILL or the kill pin still high latch
 * it again at once). Read at once, the status would still show the latch of before the write. */
bool order_tx_risk_kill_reset(void) {
    wr(ORDER_TX_RISK_KILL_RESET, 1u);
    return risk_status_clears(BIT(ORDER_TX_RISK_STATUS, KILLED), 1000u);
}
bool order_tx_risk_killed(void) { return (rd(ORDER_TX_RISK_STATUS) & BIT(ORDER_TX_RISK_STATUS, KILLED)) != 0; }
uint16_t order_tx_risk_refused(void) { return (uint16_t)rd(ORDER_TX_RISK_REFUSED); }
void order_tx_risk_send_gated(uint32_t mask) { wr(ORDER_TX_RISK_SEND_GATED, mask); }
#endif
#endif
