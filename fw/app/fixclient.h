/* The SoC's FIX client: one FIX 4.4 session (fw/fix) over one connection of the firmware's TCP (fw/net)
 * to the exchange, with its configuration (build defaults from fw/Makefile, changeable on the console),
 * reconnection with backoff, and the console commands fix, utc, buy, sell, cancel, orders, md.
 *
 * Life cycle: `fix start` (or TF_FIX_AUTOSTART at boot) connects; after the Logon it subscribes to market
 * data for the configured symbols. When the connection drops or the exchange refuses, it reconnects with
 * exponential backoff (FIXCLIENT_BACKOFF_MIN_MS .. FIXCLIENT_BACKOFF_MAX_MS) until `fix stop`, which logs
 * out and stays down. Sequence numbers live in the session and are kept across reconnects within a boot.
 *
 * Wall-clock time: the SoC has no real-time clock. UTC comes from the exchange (every valid message's
 * SendingTime keeps the session's clock, see fix/session.h) or from the console (`utc set`). Until one of
 * them has happened the first Logon carries a 1970 SendingTime, which an exchange that checks latency
 * refuses; its refusal carries its time, so the reconnection after the backoff logs on. Set the clock
 * first (`utc set`) to log on at the first attempt. */
#ifndef TF_APP_FIXCLIENT_H
#define TF_APP_FIXCLIENT_H

#include <stdbool.h>
#include <stdint.h>

#include "fix/app.h"
#include "fix/session.h"
#include "lib/mproto.h"

#define FIXCLIENT_BACKOFF_MIN_MS 500u
#define FIXCLIENT_BACKOFF_MAX_MS 8000u

void fixclient_init(void);
/* Runs the session timers and the reconnection; call from the main loop. */
void fixclient_poll(void);

/* For the offload (and tests): the session and application, and the TCP connection (NULL when down). */
fix_session_t *fixclient_session(void);
fix_app_t *fixclient_app(void);
struct tcp_conn *fixclient_conn(void);
/* The machine protocol's requests status, session.config|set|start|stop, utc.set, orders.send|cancel|list and
 * md (docs/PROTOCOL.md): false when r is not one of them. */
bool fixclient_machine(const mp_req_t *r);
/* Prints a price with the implied decimals. */
void fixclient_print_px(int64_t v);
/* Implied decimals of prices (fix set decimals). */
unsigned fixclient_price_decimals(void);

#include "soc.h"
#ifdef TF_HAS_OFFLOAD
#include "offload/template.h"
/* The connection and identity part of an order template: MACs (the exchange's next hop from the ARP
 * cache), addresses, ports, CompIDs, account, today's date. False when not connected or not resolved. */
bool fixclient_order_spec(ofl_order_spec_t *sp);
/* Its connection part alone (what firmware's own frames need). */
bool fixclient_conn_spec(ofl_conn_t *c);
/* Offload: the connection cannot go on (a frame the engine could not send): it is dropped at the next poll. */
void fixclient_fail(const char *why);
#endif

#endif
