/* Stop orders: a buy stop sends a limit buy when a trade prints at or above its stop price, a sell stop a
 * limit sell when a trade prints at or below it (DESIGN.md). One-shot: a stop that fired is done, unless
 * armed with `repeat` (it is armed again with a new order after each fire: benchmarks).
 *
 * Two paths decide and send, selectable at run time (`stop mode`):
 *  - firmware: every 35=W the FIX client parses goes through stops_on_market_data(), and a crossing trade
 *    entry (269=2) sends the order through the FIX session like a console order;
 *  - hardware (when the SoC has the offload datapath): the stop is armed in the trigger table with a
 *    prebuilt frame, and the hardware fires it; firmware learns of it from the fire log.
 * Every armed stop keeps an entry of the order table (fix_app's `keep`) for the order it will send, so that a fire
 * always finds its entry and every order sent is tracked: arming is refused when no entry is left for it ("order
 * table full: N live orders, M armed stops"), other orders leave the armed stops' entries alone, and a repeating
 * stop that finds none for its next order after a fire is disarmed (said on the console, and by stop.disarmed).
 * In:  console commands (stop, stops), market data from fixclient. Out: orders through fix_app. */
#ifndef TF_APP_STOPS_H
#define TF_APP_STOPS_H

#include <stdbool.h>
#include <stdint.h>

#include "fix/app.h"

#ifndef STOPS_MAX
#define STOPS_MAX 16
#endif

typedef enum { STOP_FREE = 0, STOP_ARMED, STOP_FIRED, STOP_CANCELED } stop_state_t;

typedef struct {
    stop_state_t state;
    char symbol[FIX_SYMBOL_MAX];
    char side;        /* '1' buy stop, '2' sell stop */
    int64_t stop_px;  /* fixed point, the FIX client's price decimals */
    int64_t limit_px; /* limit price of the order it sends */
    uint32_t qty;
    int order;        /* fix_app order index once fired, else -1 */
    int64_t fired_px; /* the trade price that crossed */
    bool by_hw;       /* fired by the hardware */
    bool hw;          /* armed in the hardware trigger table (else the firmware path watches it) */
    bool repeat;      /* armed again after each fire (benchmarks), else one-shot */
    uint32_t fires;
} stop_t;

/* Market data from the FIX client (firmware path). */
void stops_on_market_data(const fix_md_snapshot_t *md);
/* Does this trade price cross the stop? (shared with the host tests and the hardware's reference) */
bool stop_crosses(char side, int64_t stop_px, int64_t trade_px);
/* The same for a market data price (fix_md_entry_t: truncated, inexact when digits were dropped), exactly. */
bool stop_crosses_md(char side, int64_t stop_px, int64_t trade_px, bool inexact);
const stop_t *stops_get(unsigned i);
stop_t *stops_slot(unsigned i);
/* Bit i set for each armed stop that is the hardware's (one loop: the offload asks on every segment). */
uint32_t stops_hw_armed(void);
/* The order table entries the armed stops other than stop i keep for their orders (i = STOPS_MAX: all of them):
 * the `keep` of an order sent or adopted for stop i (or for no stop). */
unsigned stops_keep(unsigned i);

/* From the offload (app/offload.c): stop i's order went out from hardware (the trade price that crossed,
 * or -1 if unknown; its order table index, adopted into the entry the stop kept (negative: not tracked, the table
 * had none: a stop that was not armed) and ClOrdID; its MsgSeqNum; trade price on the parser -> order at the MAC,
 * in eth cycles). stops_fire_fw: a firmware stop's trade: its order goes out through the session into the entry it
 * kept; if the session cannot send it, the stop stays armed (said on the console). */
void stops_hw_fired(unsigned i, int64_t trade_px, int order, const char *clordid, uint32_t msgseq, uint32_t cycles);
#ifdef TF_HAS_RISK
/* From the offload: the risk gate refused stop i's order (nothing was sent): the stop is retired (canceled), and
 * says so (stop.refused). */
void stops_refused(unsigned i, const char *reason);
#endif
void stops_fire_fw(unsigned i, int64_t trade_px);
/* Writes the machine protocol's stop.fired events of hardware fires (deferred: a fire is adopted in the middle of
 * other work, a stop's cancel or a frame queued, and a line on the UART takes the CPU 100 cycles a character).
 * Call after offload_poll. */
void stops_flush_events(void);
/* The console's `stop` command (argv[0] "stop"): arm, cancel, mode (the host tests run it as the console does). */
int cmd_stop(int argc, char **argv);


#endif
