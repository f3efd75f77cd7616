/* Market-data digestion on the SoC (DESIGN.md "Digesting market data"): the receive parser digests the session's
 * market data (35=W) in hardware and firmware takes its descriptors (offload/digest.c) in stream order with the
 * receive slots' frames. Off by default (`offload digest on`): firmware then sees no digested 35=W, so its own
 * stops and the market-data table (`md`) get nothing from them; digestion stays off while a firmware stop is armed.
 * Only in SoC builds whose offload digests (OFFLOAD_RX_DIGEST in soc.h). */
#ifndef TF_APP_DIGESTION_H
#define TF_APP_DIGESTION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "soc.h"

#include "drivers/offload_rx.h"

#if defined(TF_HAS_OFFLOAD) && defined(OFFLOAD_RX_DIGEST)
#define TF_HAS_DIGESTION 1
/* The connection is up: stage digestion for the CONFIG the parser gets when it starts following it. */
void digestion_conn_up(void);
void digestion_conn_down(void);
/* Takes the hardware's descriptors (offload/digest.h): before any receive slot's frame goes to the stack. */
void digestion_take(void);
/* The same, for the receive path (netif_poll, once a pass): where the RAM has room (TF_MEM_WORDS, fw/Makefile) the
 * call only when a descriptor waits, which the register tells in line (on the 35=W receive path none waits for two W
 * in five, and digestion_take's call saves registers through the -msave-restore routines): digestion_take and
 * offload_rx_digest_pop 64 -> 49 cycles a W, w_cost avg 4,828 -> 4,805 (profiling build, sim/tests/run.sh w_cost with
 * +pc-hist, tools/pc-hist.py), for 24 bytes of code. */
static inline void digestion_take_waiting(void) {
#if TF_MEM_WORDS
    if (!offload_rx_digest_waiting()) return;
#endif
    digestion_take();
}
/* TCP skipped [seq, seq + len) of the connection (its on_skipped): the session takes the messages that end in it. */
void digestion_skipped(uint32_t seq, uint32_t len);
/* Main loop, with firmware's received stream fully handed to the session: resynchronises the parser, switches
 * digestion on or off. */
void digestion_poll(void);
/* `offload digest on|off`: asked for or not (applied at the next quiet moment, or when the connection comes). */
void digestion_want(bool on);
bool digestion_wanted(void);
/* The `offload` command's line (a machine-protocol "counters" event, group digest). */
void digestion_report(void);
#endif

#endif
