/* Driver of the offload's order engine (ORDER_TX, hw/src/triggerfish/offload/README-tx.md): templates and
 * their metadata, arming, the connection's sequence numbers (handed to the engine once, while it is idle), the
 * send queue, the engine's time of day, and the fire log. The ownership protocol itself is in app/offload.c. */
#ifndef TF_DRIVERS_ORDER_TX_H
#define TF_DRIVERS_ORDER_TX_H

#include <stdbool.h>
#include <stdint.h>

#include "soc.h"

#ifdef TF_HAS_OFFLOAD
#include "offload/template.h"

/* CTRL: ENABLE (IRQ off). Disabled, the engine ignores fires (counted) and keeps queued frames; enabled, it takes
 * the numbers written with order_tx_set_next meanwhile before it sends anything. */
void order_tx_enable(bool on);
/* Waits (about 10 ms at most) until the disabled engine is idle: the frame in flight, if any, has left and every
 * record is in the log. False if it did not get there (or the engine is enabled). */
bool order_tx_wait_idle(void);
/* ARM_SET / ARM_CLR / TIME_SET: waits for the command channel. */
bool order_tx_arm(uint32_t mask, bool on);
uint32_t order_tx_armed(void);
/* Writes template t (frame and metadata) from a built template; only while it is disarmed. Slots
 * ORDER_TX_SEND_SLOT0..ORDER_TX_SLOTS-1 are the send ring (never armed; write one only while no SEND of it is
 * queued or in flight, i.e. after its record). */
void order_tx_load(unsigned t, const ofl_template_t *tp);
/* A template's metadata (README-tx.md "Templates"), for frames that are not built as ofl_template_t. */
typedef struct {
    uint16_t len;       /* frame bytes: 55..ORDER_TX_TEMPLATE_BYTES (orders), ORDER_TX_SEND_MIN_LEN..ORDER_TX_SEND_MAX_LEN (send ring) */
    uint16_t cs_off;    /* first CheckSum digit (9 bits: up to 510) */
    uint8_t msg_off, msg_width, st_off, tt_off;   /* 8-bit offsets: the fields must lie in the first 256 bytes */
    bool st_en, tt_en;
    uint16_t ip_csum, tcp_csum;
    uint8_t fix_sum;
} order_tx_meta_t;
/* Writes frame[0..m->len) and the metadata into slot t; a send-ring frame longer than ORDER_TX_TEMPLATE_BYTES
 * continues in slot t + 1 (t + 1 < ORDER_TX_SLOTS). */
void order_tx_load_frame(unsigned t, const uint8_t *frame, const order_tx_meta_t *m);
/* The send queue: SEND_ACK = ack, then SEND of send-ring slot `slot` (ORDER_TX_SEND_SLOT0..ORDER_TX_SLOTS-1)
 * with `mode` (ORDER_TX_SEND_MODE_NUMBER, _KEEP, _RAW) and FIN. False when the queue had no room (nothing
 * queued; STATUS.REFUSED is cleared again) or the arguments are out of range. The frame goes out after any
 * fire, while the engine is enabled; its record comes through order_tx_pop (is_send). */
bool order_tx_send(unsigned slot, unsigned mode, bool fin, uint32_t ack);
/* SEND_FREE: SEND writes the queue will take now. */
unsigned order_tx_send_free(void);
/* Reads template t's frame bytes back (firmware keeps no copy). */
void order_tx_read(unsigned t, uint8_t *out, unsigned len);
/* Sets the engine's time of day (ms since midnight UTC) and its millisecond divisor. */
bool order_tx_set_time(uint32_t tod_ms, uint32_t eth_cycles_per_ms);
/* ACK_SET: the TCP ACK orders carry from now on (instead of the receive parser's); forgotten on disable. */
bool order_tx_set_ack(uint32_t ack);

/* The numbers the next frame takes (written only while the engine is idle, order_tx_wait_idle; the engine takes
 * them when it is enabled). */
typedef struct {
    uint32_t seq, msgseq;
    uint16_t ip_id, window;
} order_tx_next_t;
void order_tx_get_next(order_tx_next_t *n);
void order_tx_set_next(const order_tx_next_t *n);

/* A fire log record (README-tx.md "Fire log"). */
#define ORDER_TX_TOD_BAD 0xFFFFFFFFu /* not a time of day: the template patch refuses it */
typedef struct {
    uint32_t seq, ack, msgseq;
    uint32_t tod_ms;   /* time of day the engine wrote; ORDER_TX_TOD_BAD when its digits are not BCD */
    uint16_t window, ip_id;
    uint32_t rx_stamp, tx_stamp;   /* rx_stamp: 0 for a send frame */
    uint16_t payload_len;          /* TCP payload bytes (up to ORDER_TX_SEND_MAX_LEN - 54 for a send frame) */
    uint8_t tmpl;                  /* template 0..15 (a fire) or send-ring slot 16..31 */
    uint8_t trigger, status;       /* trigger: fire records only */
    bool is_send;                  /* a send frame's record (SEND), not a fire's */
    uint8_t mode;                  /* send records: the SEND mode */
    bool fin;                      /* send records: FIN (the sequence space taken is payload_len + 1) */
} order_tx_record_t;
/* The engine's counters of fires that got no record (16 bits each, wrapping): while disabled (IGNORED), for a template
 * not armed (NOT_ARMED), the log full (LOG_DROPS), the eth_rx fire queue full (RX_OVERFLOW). */
typedef struct {
    uint16_t ignored, not_armed, log_drops, rx_overflow;
} order_tx_counters_t;
void order_tx_counters(order_tx_counters_t *c);
/* Takes the oldest complete record; false when none is waiting. */
bool order_tx_pop(order_tx_record_t *r);
/* A record is waiting (order_tx_pop would take one). */
bool order_tx_log_pending(void);

#ifdef TF_HAS_RISK
/* The pre-trade risk gate in the engine (README-tx.md "Risk gate"). A job: op RISK_OP_*, its fields (those an op does
 * not use are ignored) and the 80-bit value v[0..2] (least significant word first). Waits for the answer (at most
 * ~10 ms); returns 1 applied, 0 refused by the gate (nothing changed), -1 no answer. *reason: PREPARE's static
 * checks now. */
typedef struct {
    unsigned op, symbol, ticket, item;
    bool sell, cancel;
    uint32_t qty;
    uint32_t v[3];
} order_tx_risk_job_t;
int order_tx_risk_job(const order_tx_risk_job_t *j, unsigned *reason);
void order_tx_risk_ctrl(bool on, bool kill);
bool order_tx_risk_kill_reset(void); /* true: the latch is clear (waits for the crossing, at most 1,000 cycles) */
bool order_tx_risk_killed(void);
uint16_t order_tx_risk_refused(void);
void order_tx_risk_send_gated(uint32_t mask);
#endif
#endif

#endif
