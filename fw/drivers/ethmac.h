/* Ethernet MAC frame buffers (hw/src/triggerfish/eth/EthFrameBuffers.scala): receive frames from the
 * slot ring, send one frame at a time from the transmit buffer, read the hardware counters. */
#ifndef TF_DRIVERS_ETHMAC_H
#define TF_DRIVERS_ETHMAC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "soc.h"

struct ethmac_counters {
    uint32_t rx_frames, rx_bytes, crc_errors, runts, oversize, rx_drops_full, tx_frames, tx_bytes, tx_errors;
    uint32_t filtered, icmp_limited; /* dropped by the receive filter */
};

void ethmac_init(void);
/* The oldest received frame (no FCS) where it is, in its receive slot: no copy (the slots are read by the CPU's
 * ordinary loads; a byte or halfword load takes its lane of the word the bus returns). Returns its length and sets
 * *frame, 0 when no frame waits. The bytes stay valid until ethmac_rx_release() gives the slot back. A frame longer
 * than ETH_MAX_FRAME (the hardware stores none) would be released here and counted (ethmac_rx_too_long).
 * *sums_ok: the offload verified the frame's IPv4 header and TCP checksums (RX_STATUS.CHECKED, digestion builds;
 * always false elsewhere). */
size_t ethmac_rx_peek(const uint8_t **frame, bool *sums_ok);
static inline void ethmac_rx_release(void) { tf_write32(ETH_BASE + ETH_RX_RELEASE, 1); }
/* Sends one frame (DA..payload, no FCS; the MAC pads to 60). Waits for the previous one to leave the
 * buffer. Returns false if the frame is too long for the transmit buffer. */
bool ethmac_send(const uint8_t *frame, size_t len);
/* The two halves of ethmac_send, for callers that time the start: load waits for the buffer and copies
 * the frame (false if too long); start sends the loaded len bytes (inline: one store, so a timed start
 * is not skewed by a call). */
bool ethmac_load(const uint8_t *frame, size_t len);
static inline void ethmac_start(size_t len) { tf_write32(ETH_BASE + ETH_TX_LEN, (uint32_t)len); }
bool ethmac_tx_busy(void);
/* The transmit buffer itself, for a frame built in place (byte stores honoured; reads return what was written):
 * wait for ethmac_tx_busy() to clear before the first write, then ethmac_start(len). */
static inline uint8_t *ethmac_tx_buffer(void) { return (uint8_t *)(uintptr_t)(ETH_BASE + ETH_TX_BUF); }
void ethmac_read_counters(struct ethmac_counters *c);
uint32_t ethmac_rx_too_long(void); /* frames longer than ETH_MAX_FRAME dropped by ethmac_rx_peek */

/* The receive filter (EthRxFilter in the frame buffers): enabled, only ARP, ICMP echo requests to ip (at most one per
 * icmp_interval * ETH_FILTER_TOKEN_CYCLES eth_rx cycles after a burst of 8; 0: no limit), IPv4 with options to ip,
 * and TCP of the connections set with ethmac_filter_conn take a receive slot; the rest is dropped and counted in
 * hardware. Each call takes effect as a whole a few cycles later. */
void ethmac_filter_config(bool enable, uint32_t ip, uint32_t icmp_interval);
/* Connection entry i (< ETH_FILTER_CONNS): TCP from remote_ip:remote_port to local_port is let through. */
void ethmac_filter_conn(unsigned i, bool valid, uint32_t remote_ip, uint16_t remote_port, uint16_t local_port);

#endif
