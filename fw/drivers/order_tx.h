/* Driver of the offload's order engine (ORDER_TX, hw/src/triggerfish/offload/README-tx.md): templates and
 * their metadata, arming, the lock that hands the connection's sequence numbers between firmware and the
 * engine, the engine's time of day, and the fire log. The ownership protocol itself is in app/engine.c. */
#ifndef TF_DRIVERS_ORDER_TX_H
#define TF_DRIVERS_ORDER_TX_H

#include <stdbool.h>
#include <stdint.h>

#include "soc.h"

#ifdef TF_HAS_OFFLOAD
#include "offload/template.h"

/* CTRL: ENABLE, IRQ off, HOLD 0 (a fire while firmware holds the lock is suppressed and logged). */
void order_tx_enable(bool on);
/* Takes the lock and waits for LOCKED (the order in flight, if any, has left and is logged). */
bool order_tx_lock(void);
void order_tx_unlock(void);
/* ARM_SET / ARM_CLR / TIME_SET: waits for the command channel. */
bool order_tx_arm(uint32_t mask, bool on);
uint32_t order_tx_armed(void);
/* Writes template t (frame and metadata) from a built template; only while it is disarmed. */
void order_tx_load(unsigned t, const ofl_template_t *tp);
/* Reads template t's frame bytes back (firmware keeps no copy). */
void order_tx_read(unsigned t, uint8_t *out, unsigned len);
/* Sets the engine's time of day (ms since midnight UTC) and its millisecond divisor. */
bool order_tx_set_time(uint32_t tod_ms, uint32_t eth_cycles_per_ms);
/* ACK_SET: the TCP ACK orders carry from now on (instead of the receive parser's); forgotten on disable. */
bool order_tx_set_ack(uint32_t ack);

/* The numbers the next order takes (write only under the lock). */
typedef struct {
    uint32_t seq, msgseq;
    uint16_t ip_id, window;
} order_tx_next_t;
void order_tx_get_next(order_tx_next_t *n);
void order_tx_set_next(const order_tx_next_t *n);

/* A fire log record (README-tx.md "Fire log"). */
typedef struct {
    uint32_t seq, ack, msgseq;
    uint32_t tod_ms;   /* time of day the engine wrote */
    uint16_t window, ip_id;
    uint32_t rx_stamp, tx_stamp;
    uint8_t payload_len, tmpl, trigger, status;
} order_tx_record_t;
/* Takes the oldest complete record; false when none is waiting. */
bool order_tx_pop(order_tx_record_t *r);
#endif

#endif
