/* Host tests of the machine protocol (lib/mproto, docs/PROTOCOL.md): the request parser's subset of JSON and
 * what it refuses, the reply and event lines byte for byte, and the console's routing of '@' lines (no echo,
 * no prompt, over-long and non-ASCII lines discarded whole, the human console unaffected). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lib/console.h"
#include "lib/mproto.h"

static char out[4096];
static size_t out_len;
static void capture(const char *s, size_t n) {
    if (out_len + n < sizeof out) {
        memcpy(out + out_len, s, n);
        out_len += n;
        out[out_len] = '\0';
    }
}
static int line_starts;
static void on_line_start(void) { line_starts++; }

static int setup(void **state) {
    (void)state;
    out_len = 0;
    out[0] = '\0';
    line_starts = 0;
    mp_out_init(capture, on_line_start);
    mp_decimals = 4;
    return 0;
}

static int parse(const char *text, mp_req_t *r) {
    static char buf[256];
    strcpy(buf, text);
    return mp_parse(buf, r);
}

static void test_parses_a_flat_request(void **state) {
    (void)state;
    mp_req_t r;
    assert_int_equal(parse(" { \"id\" : 42 , \"cmd\":\"console\",\"line\":\"stop buy MSFT 100 100.10 100.40\" } ", &r), MP_OK);
    assert_int_equal(r.id, 42);
    assert_string_equal(r.cmd, "console");
    assert_int_equal(r.n, 3);
    assert_string_equal(mp_get_str(&r, "line"), "stop buy MSFT 100 100.10 100.40");
    const mp_field_t *f = mp_get(&r, "id");
    assert_non_null(f);
    assert_int_equal(f->type, 'i');
    assert_string_equal(f->text, "42");
    assert_null(mp_get_str(&r, "id"));  /* an integer is not a string */
    assert_null(mp_get(&r, "absent"));
}

static void test_integer_limits(void **state) {
    (void)state;
    mp_req_t r;
    assert_int_equal(parse("{\"id\":2147483647,\"cmd\":\"status\"}", &r), MP_OK);
    assert_int_equal(r.id, 2147483647);
    assert_int_equal(parse("{\"id\":2147483648,\"cmd\":\"status\"}", &r), MP_E_JSON);
    assert_int_equal(parse("{\"id\":0,\"cmd\":\"status\"}", &r), MP_OK);
    assert_int_equal(r.id, 0);
}

static void test_refuses_what_is_not_the_subset(void **state) {
    (void)state;
    static const char *const bad[] = {
        "",                                              /* empty */
        "{\"id\":1,\"cmd\":\"status\"",                   /* unterminated */
        "{\"id\":1,\"cmd\":\"status\"} x",                /* trailing garbage */
        "{\"id\":1,\"cmd\":\"status\",}",                 /* trailing comma */
        "{\"id\":1 \"cmd\":\"status\"}",                  /* missing comma */
        "{\"id\":1,\"cmd\":\"sta\\\"tus\"}",              /* escape */
        "{\"id\":1,\"cmd\":\"status\",\"x\":{}}",         /* nesting */
        "{\"id\":1,\"cmd\":\"status\",\"x\":[1]}",        /* array */
        "{\"id\":1,\"cmd\":\"status\",\"x\":true}",       /* literals are not in the subset */
        "{\"id\":1,\"cmd\":\"status\",\"x\":null}",
        "{\"id\":1,\"cmd\":\"status\",\"x\":1.5}",        /* fractions: prices go as strings */
        "{\"id\":1,\"cmd\":\"status\",\"x\":-1}",         /* no sign */
        "{\"id\":1,\"cmd\":\"status\",\"x\":1e3}",
        "{\"id\":1,\"cmd\":\"status\",\"id\":2}",         /* duplicate key */
        "{id:1,\"cmd\":\"status\"}",                      /* unquoted key */
        "[1,2]",
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        mp_req_t r;
        int e = parse(bad[i], &r);
        if (e != MP_E_JSON) fail_msg("'%s' gave %d, want bad_json", bad[i], e);
    }
    mp_req_t r;
    assert_int_equal(parse("{\"id\":1,\"cmd\":\"status\",\"x\":{}}", &r), MP_E_JSON);
    assert_int_equal(r.id, 1); /* read before the error: the error reply carries it */
}

static void test_id_and_cmd_are_required(void **state) {
    (void)state;
    mp_req_t r;
    assert_int_equal(parse("{\"cmd\":\"status\"}", &r), MP_E_ID);
    assert_int_equal(r.id, -1);
    assert_int_equal(parse("{\"id\":\"7\",\"cmd\":\"status\"}", &r), MP_E_ID);
    assert_int_equal(parse("{\"id\":7}", &r), MP_E_CMD);
    assert_int_equal(parse("{\"id\":7,\"cmd\":3}", &r), MP_E_CMD);
    assert_string_equal(mp_err_code(MP_E_JSON), "bad_json");
    assert_string_equal(mp_err_code(MP_E_ID), "bad_id");
    assert_string_equal(mp_err_code(MP_E_CMD), "bad_cmd");
    assert_string_equal(mp_err_code(MP_E_FIELDS), "too_many_fields");
}

static void test_too_many_members(void **state) {
    (void)state;
    mp_req_t r;
    char buf[256] = "{\"id\":1,\"cmd\":\"x\"";
    for (int i = 0; i < MP_MAX_FIELDS - 2; i++) sprintf(buf + strlen(buf), ",\"k%d\":%d", i, i);
    strcat(buf, "}");
    assert_int_equal(parse(buf, &r), MP_OK);
    buf[strlen(buf) - 1] = '\0';
    strcat(buf, ",\"one\":\"more\"}");
    assert_int_equal(parse(buf, &r), MP_E_FIELDS);
}

static void test_reply_and_event_lines(void **state) {
    (void)state;
    mp_reply(5, "n:i msg:s", -1, "stop 0: armed");
    mp_event("stop.armed", "stop:u sym:s stop_px:p hw:b", 3u, "MSFT", (int64_t)1001000, 1);
    mp_event("md", "trade:p", (int64_t)-25);
    mp_error(-1, "too_long", "line discarded");
    mp_error(9, "refused", "say \"no\"\\\x01");
    assert_string_equal(out, "@{\"id\":5,\"ok\":true,\"n\":-1,\"msg\":\"stop 0: armed\"}\r\n"
                             "@{\"ev\":\"stop.armed\",\"seq\":1,\"stop\":3,\"sym\":\"MSFT\",\"stop_px\":\"100.1\",\"hw\":true}\r\n"
                             "@{\"ev\":\"md\",\"seq\":2,\"trade\":\"-0.0025\"}\r\n"
                             "@{\"id\":null,\"ok\":false,\"error\":\"too_long\",\"msg\":\"line discarded\"}\r\n"
                             "@{\"id\":9,\"ok\":false,\"error\":\"refused\",\"msg\":\"say ?no???\"}\r\n");
    assert_int_equal(line_starts, 5);
    assert_int_equal(mp_event_seq(), 2);
}

static void test_event_built_member_by_member(void **state) {
    (void)state;
    uint32_t seq = mp_event_seq() + 1;
    mp_event_open("counters");
    mp_members("group:s up:b", "net", 0);
    mp_member_u("eth_rx", 4000000000u);
    mp_member_u("tcp_rst_out", 0);
    mp_event_close();
    mp_event_open("counters"); /* no member: an empty record is still one line */
    mp_event_close();
    char want[256];
    sprintf(want, "@{\"ev\":\"counters\",\"seq\":%u,\"group\":\"net\",\"up\":false,\"eth_rx\":4000000000,\"tcp_rst_out\":0}\r\n"
                  "@{\"ev\":\"counters\",\"seq\":%u}\r\n", (unsigned)seq, (unsigned)seq + 1);
    assert_string_equal(out, want);
    assert_int_equal(line_starts, 2);
    assert_int_equal(mp_event_seq(), seq + 1);
}

/* ---- the console's routing of machine lines ---- */

static char seen_line[TF_CONSOLE_LINE_MAX];
static int machine_calls, null_calls;
static void on_machine(char *line) {
    machine_calls++;
    if (!line) null_calls++;
    else strcpy(seen_line, line);
}
static int ran;
static int cmd_rec(int argc, char **argv) {
    (void)argc;
    (void)argv;
    ran++;
    return 0;
}
static const struct tf_command cmds[] = {{"rec", "records", cmd_rec}};
static struct console con;

static int setup_console(void **state) {
    setup(state);
    console_init(&con, cmds, 1, capture, true);
    con.machine = on_machine;
    machine_calls = null_calls = ran = 0;
    seen_line[0] = '\0';
    return 0;
}

static void feed(const char *s) {
    while (*s) console_feed(&con, *s++);
}

static void test_console_routes_machine_lines_without_echo(void **state) {
    (void)state;
    feed("@{\"id\":1,\"cmd\":\"status\"}\r\n");
    assert_int_equal(machine_calls, 1);
    assert_string_equal(seen_line, "{\"id\":1,\"cmd\":\"status\"}");
    assert_int_equal(out_len, 0); /* no echo, no prompt */
    feed("rec\r");
    assert_int_equal(ran, 1);
    assert_string_equal(out, "rec\r\ntf> "); /* the human console as before */
}

static void test_console_discards_overlong_and_binary_lines_whole(void **state) {
    (void)state;
    char big[10 * 1024 + 3];
    big[0] = '@';
    memset(big + 1, 'x', sizeof big - 3);
    big[sizeof big - 2] = '\r';
    big[sizeof big - 1] = '\0';
    feed(big);
    assert_int_equal(machine_calls, 1);
    assert_int_equal(null_calls, 1);
    feed("@{\"id\":2,\xc3\xa9}\r");
    assert_int_equal(null_calls, 2);
    feed("@{\"id\":3,\"cmd\":\"status\"}\r"); /* and the next line is whole again */
    assert_int_equal(machine_calls, 3);
    assert_string_equal(seen_line, "{\"id\":3,\"cmd\":\"status\"}");
    feed("rec\r");
    assert_int_equal(ran, 1);
}

static void test_at_sign_inside_a_human_line_is_human(void **state) {
    (void)state;
    feed("rec @x\r");
    assert_int_equal(machine_calls, 0);
    assert_int_equal(ran, 1);
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_parses_a_flat_request, setup),
        cmocka_unit_test_setup(test_integer_limits, setup),
        cmocka_unit_test_setup(test_refuses_what_is_not_the_subset, setup),
        cmocka_unit_test_setup(test_id_and_cmd_are_required, setup),
        cmocka_unit_test_setup(test_too_many_members, setup),
        cmocka_unit_test_setup(test_reply_and_event_lines, setup),
        cmocka_unit_test_setup(test_event_built_member_by_member, setup),
        cmocka_unit_test_setup(test_console_routes_machine_lines_without_echo, setup_console),
        cmocka_unit_test_setup(test_console_discards_overlong_and_binary_lines_whole, setup_console),
        cmocka_unit_test_setup(test_at_sign_inside_a_human_line_is_human, setup_console),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
