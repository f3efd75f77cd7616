/* Firmware side of the stop-order offload (DESIGN.md "The offload and the session";
 * hw/src/triggerfish/offload/README-tx.md "Firmware protocol").
 *
 * Ownership of the connection's numbers (TCP sequence, FIX MsgSeqNum, IPv4 id): the order engine's, from the first
 * frame firmware sends on the connection (its Logon) to the connection's end.
 *  - Every frame that consumes sequence space goes out through the engine: the session's new messages numbered by
 *    it (offload_send, numbered), its resends and gap fills with their own numbers, our FIN. Firmware writes each
 *    as a template into the engine's send ring and queues it (SEND); fires go before queued frames.
 *  - Every fire-log record is adopted, firmware's frames as the orders: its bytes are rebuilt from the template and
 *    the record (ofl_materialize), handed to TCP (retransmission, the FIN) and to the session (the number, the
 *    resend store), and a fired order is entered in the order table so that its execution reports are matched.
 *  - Pure ACKs, retransmissions of bytes already sent, ARP and ICMP stay on the CPU's frame path.
 *  - Orders carry firmware's rcv_nxt as their TCP ACK (the engine's ACK_SET), firmware's frames rcv_nxt as it was
 *    when they were queued (SEND_ACK): never more than firmware has received.
 *  - There is no lock: the engine never waits for firmware and nothing is suppressed for ownership. A stop's cancel
 *    races its fire and the trigger table decides (offload_cancel); the connection going disables the engine. */
#ifndef TF_APP_OFFLOAD_H
#define TF_APP_OFFLOAD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "soc.h"

#ifdef TF_HAS_OFFLOAD
/* TCP connected (after the parser follows it) / the connection is gone. */
void offload_conn_up(void);
void offload_conn_down(void);
/* Queues one FIX message of the session to the engine (numbered: the engine writes its MsgSeqNum; else it keeps
 * its own). False when the engine cannot take it (nothing queued: the connection must go). */
bool offload_send(const uint8_t *fix, size_t n, bool numbered);
/* Where the session builds its messages (fix_session_set_tx): the FIX part of the frame scratch, *cap bytes (the
 * longest frame's), so that offload_send frames a message where it lies, without a copy. The scratch is also where
 * records are rebuilt: offload_before_send (the session's before_send) makes room in the send ring first, so that
 * nothing rebuilds a record there until the message is queued. */
uint8_t *offload_tx_buffer(size_t *cap);
void offload_before_send(void);
/* Update the orders' ACK, adopt the records, queue the FIN when due, load stops (the main loop). */
void offload_poll(void);
/* The part of offload_poll that received data needs first: the orders' ACK, and the records adopted (the orders the
 * hardware sent, before their execution reports are read). Called for every segment the session gets. */
void offload_sync(void);
/* Main loop only (firmware's received stream fully handed to the session): sets the receive parser to firmware's
 * rcv_nxt when it has fallen behind (segments it skipped as out of order that firmware's TCP delivered later). */
void offload_resync(void);
/* Main loop: the orders of stops whose fire the engine could not send (a MsgSeqNum wider than the template's field),
 * sent by firmware (from here, not from the record's handling inside the receive path: the stack's depth). */
void offload_fire_pending(void);
/* Disarms stop i's entry and template, safe against a fire in flight. Returns false if it had fired. */
bool offload_cancel(unsigned i);
#ifdef TF_HAS_EARLY
/* Early fires (`offload early on|off`; DESIGN.md "Early trigger"): the setting is staged in the parser's EARLY_CTRL at
 * once and applied by its next CONFIG: the connection's (offload_rx_follow) or, on a connection, the parser switch at
 * a message boundary (digestion_poll), which asks offload_early_pending and reports with offload_early_applied. */
bool offload_early_pending(void);
void offload_early_applied(void);
#endif
#endif

#endif
