/* The pre-trade risk gate, firmware's side (SoCs built with it: TF_HAS_RISK; hw/src/triggerfish/offload/README-tx.md
 * "Risk gate"). The gate in the order engine checks every hardware fire before its first byte; firmware configures
 * its limits (console `risk set`), prepares each armed stop's order as a ticket, feeds fills and cancels back so that
 * open orders count until they settle, logs every refusal, and works the kill switch.
 *
 * Symbols: the gate keeps limits and usage for RISK_SYMBOLS symbols by index; firmware gives each symbol an index the
 * first time `risk set` names it. A stop on a symbol without an index is prepared as unknown: the gate refuses its
 * fires (NO_TICKET) while it is on.
 * In: console (`risk`), the offload (tickets, REFUSED records), the FIX client (execution reports).
 * Out: the engine's RISK_* registers, console lines, machine-protocol events risk.refused and risk.kill. */
#ifndef TF_APP_RISK_H
#define TF_APP_RISK_H

#include <stdbool.h>
#include <stdint.h>

#include "soc.h"

#ifdef TF_HAS_RISK
#include "fix/app.h"

/* Ticket t (template slot: 0..15 a hardware stop's, 16..31 a firmware order's in the send ring) describes this order;
 * says so on the console when the gate would refuse it now. */
void risk_prepare(unsigned ticket, const char *symbol, char side, uint32_t qty, int64_t price);
/* A REFUSED record of ticket t (the order as prepared) with the gate's reason: console, audit ring, risk.refused. */
void risk_refused(unsigned ticket, unsigned reason);
/* Order idx (the order table's) went out through the gate: its fills and its end are fed back. */
void risk_booked(int idx);
/* An execution report of order idx: fills (last_qty) and the end of the order (what is left open) are fed back. */
void risk_on_execution(int idx, const fix_order_t *o, bool fill, int64_t last_qty);
const char *risk_reason_name(unsigned reason);
/* Main loop: a kill by the pin (the gate's latch set without `risk kill`) gets the same stops and cancels. */
void risk_poll(void);
/* A hardware stop refused for this reason stays armed (`risk on-refuse keep`); else it is retired. */
bool risk_keeps(unsigned reason);
/* The kill switch is on, or the gate's latch is set: no stop may be armed. */
bool risk_killed(void);
struct console;
/* Boot: the build's limits (TF_RISK_DEFAULTS, fw/Makefile RISK_DEFAULTS), each through `risk set` on this console. */
void risk_defaults(struct console *con);
#ifdef OFFLOAD_RX_BOOK_SLOTS
/* Book slot k follows this symbol ("": none; the FIX client, at each connection): where the symbol has limits, the
 * gate takes the slot's trades as its reference price (the collar's centre; `risk set ref` sets it until the next
 * trade). */
void risk_book_slot(unsigned k, const char *symbol);
#endif
#endif

#endif
