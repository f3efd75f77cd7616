/* Driver of the offload's receive parser and trigger table (OFFLOAD_RX, hw/src/triggerfish/offload).
 * Everything firmware sets goes through the block's command channel, applied in eth_rx between frames.
 * This step of the offload only follows the live connection (parser on, no entry armed: nothing fires),
 * so that the hardware's count of well-formed 35=W can be compared with the firmware's. */
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

typedef struct {
    uint32_t seg_seen, seg_inorder, seg_ooo, seg_bad, seg_ignored, w_msgs, fix_errors, fires;
} offload_rx_counters_t;
void offload_rx_counters(offload_rx_counters_t *c);
/* The parser's expected sequence number and state bits (READ_STATE). */
bool offload_rx_state(uint32_t *rcv_nxt, uint32_t *result);
#endif

#endif
