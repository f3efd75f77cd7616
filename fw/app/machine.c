/* Machine protocol dispatch (see machine.h, docs/PROTOCOL.md). In: request lines from the console. Out: replies
 * and the boot event on the UART.
 *
 * The firmware holds each command once: a request that changes something carries the console command itself
 * ({"id":N,"cmd":"console","line":"stop buy MSFT 100 100.10 100.40"}), which runs exactly as if typed, with
 * what it prints captured: the reply is ok or error "refused", the command's last printed line as "msg" and
 * the number of what it created or listed (a stop, an order; else -1) as "n". Its effects and the lists
 * (stops, orders, md) come as typed events, and so do the tables of counters (net, offload, fix, fix hw, info:
 * a "counters" event per table, for a request only; a person gets the printed table). The query status
 * answers typed data. The host library (tools/tfctl) builds the console lines from typed calls. */
#include "app/machine.h"

#include <string.h>

#include "app/stops.h"
#include "drivers/uart.h"
#include "lib/mproto.h"
#include "soc.h"
#ifdef TF_HAS_ETH
#include "app/fixclient.h"
#endif

static struct console *console;

static void line_start(void) {
    if (!uart_at_line_start()) uart_write("\r\n", 2); /* never share a line with human output */
}

static void machine_line(char *line) {
    mp_req_t r;
    char msg[80];
    if (!line) {
        mp_error(-1, "too_long", "line discarded");
        return;
    }
    int e = mp_parse(line, &r);
    if (e != MP_OK) {
        mp_error(r.id, mp_err_code(e), "");
        return;
    }
#ifdef TF_HAS_ETH
    if (fixclient_machine(&r)) return;
#endif
    if (strcmp(r.cmd, "console") != 0) {
        mp_error(r.id, "unknown_command", r.cmd);
        return;
    }
    char *cl = (char *)mp_get_str(&r, "line");
    if (!cl || r.n != 3) {
        mp_error(r.id, "bad_args", "line");
        return;
    }
    mp_result = -1;
    mp_in_request = true;
    uart_capture(msg, sizeof msg);
    int rc = console_execute(console, cl);
    uart_capture(NULL, 0);
    mp_in_request = false;
    if (rc) mp_error(r.id, "refused", msg);
    else mp_reply(r.id, "n:i msg:s", mp_result, msg);
}

void machine_init(struct console *con, const char *fw) {
    console = con;
    mp_out_init(uart_write, line_start);
    con->machine = machine_line;
    mp_event("boot", "proto:u fw:s", MP_VERSION, fw);
}
