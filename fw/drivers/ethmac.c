/* Ethernet MAC frame-buffer driver (see ethmac.h). Frames to send move with 32-bit stores; received ones are read in place. */
#include "drivers/ethmac.h"

#include <string.h>

static uint32_t too_long;

static inline uint32_t rd(uint32_t reg) { return tf_read32(ETH_BASE + reg); }
static inline void wr(uint32_t reg, uint32_t v) { tf_write32(ETH_BASE + reg, v); }

void ethmac_init(void) {
    wr(ETH_IRQ_ENABLE, 0);
    while (rd(ETH_RX_STATUS) & 1u) wr(ETH_RX_RELEASE, 1); /* nothing from before this boot */
    wr(ETH_TX_ACK, 1);
}

size_t ethmac_rx_peek(const uint8_t **frame, bool *sums_ok) {
    uint32_t st = rd(ETH_RX_STATUS);
    if (!((st >> ETH_RX_STATUS_VALID_SHIFT) & ETH_RX_STATUS_VALID_MASK)) return 0;
#ifdef ETH_RX_STATUS_CHECKED_SHIFT
    *sums_ok = (st >> ETH_RX_STATUS_CHECKED_SHIFT) & ETH_RX_STATUS_CHECKED_MASK;
#else
    *sums_ok = false; /* a build whose offload does not vouch for the session's frames */
#endif
    uint32_t slot = (st >> ETH_RX_STATUS_SLOT_SHIFT) & ETH_RX_STATUS_SLOT_MASK;
    size_t len = (st >> ETH_RX_STATUS_LENGTH_SHIFT) & ETH_RX_STATUS_LENGTH_MASK;
    if (len > ETH_MAX_FRAME) {
        too_long++;
        ethmac_rx_release();
        return 0;
    }
    *frame = (const uint8_t *)(uintptr_t)(ETH_BASE + ETH_RX_BUF + slot * ETH_SLOT_BYTES);
    return len;
}

bool ethmac_load(const uint8_t *frame, size_t len) {
    if (len == 0 || len > ETH_TX_BUFFER_BYTES) return false;
    while ((rd(ETH_TX_STATUS) >> ETH_TX_STATUS_BUSY_SHIFT) & ETH_TX_STATUS_BUSY_MASK) {
    }
    volatile uint32_t *dst = (volatile uint32_t *)(ETH_BASE + ETH_TX_BUF);
    size_t words = (len + 3) / 4;
    for (size_t i = 0; i < words; i++) {
        uint32_t w = 0;
        size_t n = len - 4 * i < 4 ? len - 4 * i : 4;
        memcpy(&w, frame + 4 * i, n);
        dst[i] = w;
    }
    return true;
}

bool ethmac_send(const uint8_t *frame, size_t len) {
    if (!ethmac_load(frame, len)) return false;
    ethmac_start(len);
    return true;
}

bool ethmac_tx_busy(void) { return (rd(ETH_TX_STATUS) >> ETH_TX_STATUS_BUSY_SHIFT) & ETH_TX_STATUS_BUSY_MASK; }

void ethmac_read_counters(struct ethmac_counters *c) {
    c->rx_frames = rd(ETH_RX_FRAMES);
    c->rx_bytes = rd(ETH_RX_BYTES);
    c->crc_errors = rd(ETH_CRC_ERRORS);
    c->runts = rd(ETH_RUNTS);
    c->oversize = rd(ETH_OVERSIZE);
    c->rx_drops_full = rd(ETH_RX_DROPS_FULL);
    c->tx_frames = rd(ETH_TX_FRAMES);
    c->tx_bytes = rd(ETH_TX_BYTES);
    c->tx_errors = rd(ETH_TX_ERRORS);
    c->filtered = rd(ETH_FILTERED);
    c->icmp_limited = rd(ETH_ICMP_LIMITED);
}

static uint32_t filter_valid; /* FILTER_CTRL.CONN_VALID as last written */

void ethmac_filter_config(bool enable, uint32_t ip, uint32_t icmp_interval) {
    wr(ETH_FILTER_IP, ip);
    wr(ETH_FILTER_ICMP, icmp_interval > 0xFFFFu ? 0xFFFFu : icmp_interval);
    wr(ETH_FILTER_CTRL, (enable ? 1u : 0u) | filter_valid << ETH_FILTER_CTRL_CONN_VALID_SHIFT);
    wr(ETH_FILTER_APPLY, 1);
}

void ethmac_filter_conn(unsigned i, bool valid, uint32_t remote_ip, uint16_t remote_port, uint16_t local_port) {
    if (i >= ETH_FILTER_CONNS) return;
    uint32_t base = ETH_FILTER_CONN0_IP + 8u * i; /* FILTER_CONNi_IP, then FILTER_CONNi_PORTS */
    wr(base, remote_ip);
    wr(base + 4u, (uint32_t)remote_port << ETH_FILTER_CONN0_PORTS_REMOTE_SHIFT | local_port);
    if (valid) filter_valid |= 1u << i;
    else filter_valid &= ~(1u << i);
    uint32_t ctrl = rd(ETH_FILTER_CTRL) & ~(ETH_FILTER_CTRL_CONN_VALID_MASK << ETH_FILTER_CTRL_CONN_VALID_SHIFT);
    wr(ETH_FILTER_CTRL, ctrl | filter_valid << ETH_FILTER_CTRL_CONN_VALID_SHIFT);
    wr(ETH_FILTER_APPLY, 1);
}

uint32_t ethmac_rx_too_long(void) { return too_long; }
