/* fuzz/fuzz_console.c - libFuzzer harness of the console and the machine protocol: line editing and command
 * dispatch (lib/console.c), the request parser and the reply/event writer (lib/mproto.c), the machine-line
 * dispatch (app/machine.c) and, behind them, real console commands: the stop commands of app/stops.c (included
 * here so that its static command functions can go into this harness's command table; on the target the linker
 * gathers them).
 * Input: byte 0 bit 0 = parse the rest directly as one request (mp_parse on arbitrary bytes, NUL-terminated);
 * otherwise the rest is typed on the console byte by byte: human lines and '@' machine lines.
 * Checks: ASan/UBSan; the console's line never overflows; a parsed request's members lie in the line, are
 * NUL-terminated, at most MP_MAX_FIELDS, an integer's value is its digits' value; every machine-protocol line
 * written is well formed (mp_check.h); the stop table stays consistent with what the commands accept. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

#include "fuzz.h"
#include "mp_check.h"

/* printf of the included command code: the target's UART driver keeps the last line while a machine request
 * captures it (drivers/uart.c uart_capture); here the same, else the text is dropped. */
static char *cap_buf;
static size_t cap_len, cap_max;
static int fz_printf(const char *restrict fmt, ...)
{
    char txt[512];
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(txt, sizeof txt, fmt, ap);
    va_end(ap);
    FZ_CHECK(n >= 0 && (size_t)n < sizeof txt);
    for (int i = 0; i < n && cap_buf; i++) {
        char c = txt[i];
        if (c == '\n') cap_len = (size_t)-1;
        else if (c != '\r') {
            if (cap_len == (size_t)-1) cap_len = 0;
            if (cap_len + 1 < cap_max) cap_buf[cap_len++] = c, cap_buf[cap_len] = '\0';
        }
    }
    return n;
}
#define printf fz_printf
#include "app/stops.c"
#undef printf

#include "app/machine.h"
#include "drivers/uart.h"
#include "lib/console.h"

/* What app/machine.c and app/stops.c take from the rest of the firmware. */
uint64_t timer_ticks(void) { return 0; }
uint64_t timer_ms(void) { return 0; }
static fix_app_t APP;
fix_app_t *fixclient_app(void) { return &APP; }
unsigned fixclient_price_decimals(void) { return 4; }
void fixclient_print_px(int64_t v)
{
    char t[24];
    size_t n = fix_fmt_decimal(t, v, 4);
    fz_printf("%.*s", (int)n, t);
}
void uart_write(const char *s, size_t n) { mpc_write(s, n); }
bool uart_at_line_start(void) { return mpc_len == 0; }
void uart_capture(char *buf, size_t max)
{
    cap_buf = buf;
    cap_max = max;
    cap_len = 0;
    if (buf) buf[0] = '\0';
}

static char *line_lo, *line_hi; /* the console's line buffer, where every argument must lie */

static int cmd_echo(int argc, char **argv)
{
    FZ_CHECK(argc >= 1 && argc <= TF_CONSOLE_ARGS_MAX);
    for (int i = 0; i < argc; i++) {
        FZ_CHECK(argv[i] >= line_lo && argv[i] < line_hi && strlen(argv[i]) > 0);
        FZ_CHECK(strchr(argv[i], ' ') == NULL);
    }
    FZ_CHECK(argv[argc] == NULL || argc == TF_CONSOLE_ARGS_MAX);
    fz_printf("%s\n", argv[argc - 1]);
    return argc % 2;
}

static const struct tf_command cmds[] = {
    {"stop", "", cmd_stop},
    {"stops", "", cmd_stops},
    {"echo", "", cmd_echo},
};

static struct console con;
static void con_write(const char *s, size_t n) { FZ_CHECK(n < 4096); }

static void check_request(const char *line, size_t cap, const mp_req_t *r)
{
    FZ_CHECK(r->n <= MP_MAX_FIELDS && r->id >= 0 && r->cmd);
    for (unsigned i = 0; i < r->n; i++) {
        const mp_field_t *f = &r->f[i];
        FZ_CHECK(f->key >= line && f->key < line + cap && f->text >= line && f->text < line + cap);
        FZ_CHECK(memchr(f->key, 0, (size_t)(line + cap - f->key)) && memchr(f->text, 0, (size_t)(line + cap - f->text)));
        if (f->type == 'i') {
            char *end;
            long v = strtol(f->text, &end, 10);
            FZ_CHECK(*end == '\0' && f->text[0] >= '0' && f->text[0] <= '9' && v == f->num && v >= 0);
        } else {
            FZ_CHECK(f->type == 's');
        }
        FZ_CHECK(mp_get(r, f->key) != NULL);
    }
}

static void check_stops(void)
{
    FZ_CHECK(stops_keep(STOPS_MAX) <= fix_app_available(&APP)); /* every armed stop has an entry for its order */
    for (unsigned i = 0; i < STOPS_MAX; i++) {
        const stop_t *s = stops_get(i);
        if (s->state == STOP_FREE) continue;
        FZ_CHECK(s->state <= STOP_CANCELED);
        FZ_CHECK(s->side == '1' || s->side == '2');
        FZ_CHECK(s->symbol[0] && memchr(s->symbol, 0, sizeof s->symbol));
        FZ_CHECK(s->qty > 0 && s->stop_px > 0 && s->limit_px > 0);
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size < 1) return 0;
    mpc_init();
    if (data[0] & 1) {
        static char line[4096];
        size_t n = size - 1 < sizeof line - 1 ? size - 1 : sizeof line - 1;
        memcpy(line, data + 1, n);
        line[n] = '\0';
        mp_req_t r;
        if (mp_parse(line, &r) == MP_OK) check_request(line, n + 1, &r);
        else FZ_CHECK(r.id >= -1);
        return 0;
    }
    for (unsigned i = 0; i < STOPS_MAX; i++) memset(stops_slot(i), 0, sizeof(stop_t));
    memset(&APP, 0, sizeof APP); /* an empty order table (no session: nothing is sent) */
    console_init(&con, cmds, sizeof cmds / sizeof cmds[0], con_write, true);
    machine_init(&con, "fuzz");
    line_lo = con.line;
    line_hi = con.line + sizeof con.line;
    for (size_t i = 1; i < size; i++) {
        (void)console_feed(&con, (char)data[i]);
        FZ_CHECK(con.len < TF_CONSOLE_LINE_MAX);
        check_stops();
    }
    return 0;
}
