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
};

void ethmac_init(void);
/* Copies the oldest received frame (no FCS) into buf and gives its slot back. Returns its length, 0 when
 * no frame waits. A frame longer than cap is dropped (slot released) and counted in *truncated. */
size_t ethmac_receive(uint8_t *buf, size_t cap);
/* Sends one frame (DA..payload, no FCS; the MAC pads to 60). Waits for the previous one to leave the
 * buffer. Returns false if the frame is too long for the transmit buffer. */
bool ethmac_send(const uint8_t *frame, size_t len);
void ethmac_read_counters(struct ethmac_counters *c);
uint32_t ethmac_rx_too_long(void); /* frames dropped by ethmac_receive for lack of room */

#endif
