/* Stop orders: a buy stop sends a limit buy when a trade prints at or above its stop price, a sell stop a
 * limit sell when a trade prints at or below it (DESIGN.md). One-shot: a stop that fired is done.
 *
 * Two paths decide and send, selectable at run time (`stop mode`):
 *  - firmware: every 35=W the FIX client parses goes through stops_on_market_data(), and a crossing trade
 *    entry (269=2) sends the order through the FIX session like a console order;
 *  - hardware (when the SoC has the offload datapath): the stop is armed in the trigger table with a
 *    prebuilt frame, and the hardware fires it; firmware learns of it from the fire log.
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
} stop_t;

/* Market data from the FIX client (firmware path). */
void stops_on_market_data(const fix_md_snapshot_t *md);
/* Does this trade price cross the stop? (shared with the host tests and the hardware's reference) */
bool stop_crosses(char side, int64_t stop_px, int64_t trade_px);
const stop_t *stops_get(unsigned i);

#endif
