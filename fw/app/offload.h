/* Firmware side of the stop-order offload (DESIGN.md "The offload and the session";
 * hw/src/triggerfish/offload/README-tx.md "Firmware protocol").
 *
 * Ownership of the connection's numbers (TCP sequence, FIX MsgSeqNum, IPv4 id):
 *  - Firmware holds the order engine's lock whenever it sends on the connection itself: the session's
 *    before_send hook takes it (offload_before_send), adopting every order the engine sent before the lock,
 *    so that the firmware's message takes the next free numbers.
 *  - offload_poll() (main loop) loads the hardware stops into the engine and the trigger table, and gives
 *    the lock back when at least one is armed: the TCP lease (tcp_hw_arm) covers every armed order's bytes,
 *    the engine gets NEXT_SEQ = the lease's start and NEXT_MSGSEQ = the session's next number.
 *  - Every SENT fire-log record is adopted: its bytes are rebuilt from the template and the record
 *    (ofl_materialize), handed to TCP (retransmission) and to the FIX store (resend), the MsgSeqNum taken,
 *    and the order entered in the order table so that its execution reports are matched.
 *  - A fire the engine did not send (suppressed under the lock) is sent by firmware instead.
 *  - Orders carry firmware's rcv_nxt as their TCP ACK (the engine's ACK_SET, updated as data arrives), never
 *    more than firmware has received: a frame firmware lost is sent again by the peer.
 * With no hardware stop armed the engine stays locked: firmware owns everything, as without the offload. */
#ifndef TF_APP_OFFLOAD_H
#define TF_APP_OFFLOAD_H

#include <stdbool.h>

#include "soc.h"

#ifdef TF_HAS_OFFLOAD
/* TCP connected (after the parser follows it) / the connection is gone. */
void offload_conn_up(void);
void offload_conn_down(void);
/* The FIX session's before_send hook. */
void offload_before_send(void *ctx);
/* Update the orders' ACK, adopt fires, send fallbacks, load stops, release the lock. */
void offload_poll(void);
/* Main loop only (firmware's received stream fully handed to the session): sets the receive parser to firmware's
 * rcv_nxt when it has fallen behind (segments it skipped as out of order that firmware's TCP delivered later). */
void offload_resync(void);
/* Disarms stop i's entry and template, safe against a fire in flight. Returns false if it had fired. */
bool offload_cancel(unsigned i);
#endif

#endif
