/* Host tests of the console: line editing, dispatch, argument splitting, errors and limits. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "lib/console.h"
#include "lib/parse.h"

static char out[4096];
static size_t out_len;
static void capture(const char *s, size_t n) {
    if (out_len + n < sizeof out) {
        memcpy(out + out_len, s, n);
        out_len += n;
        out[out_len] = '\0';
    }
}

static int seen_argc;
static char seen_argv[TF_CONSOLE_ARGS_MAX][TF_CONSOLE_LINE_MAX];
static int cmd_record(int argc, char **argv) {
    seen_argc = argc;
    for (int i = 0; i < argc; i++) strcpy(seen_argv[i], argv[i]);
    return 0;
}
static int cmd_fail(int argc, char **argv) {
    (void)argc;
    (void)argv;
    return 7;
}

static const struct tf_command cmds[] = {
    {"rec", "records its arguments", cmd_record},
    {"fail", "always fails", cmd_fail},
};

static struct console con;
static int setup(void **state) {
    (void)state;
    out_len = 0;
    out[0] = '\0';
    seen_argc = -1;
    console_init(&con, cmds, 2, capture, true);
    return 0;
}

static void feed(const char *s) {
    while (*s) console_feed(&con, *s++);
}

static void test_line_runs_command_with_arguments(void **state) {
    (void)state;
    feed("rec  alpha\tbeta 0x10\r");
    assert_int_equal(seen_argc, 4);
    assert_string_equal(seen_argv[0], "rec");
    assert_string_equal(seen_argv[1], "alpha");
    assert_string_equal(seen_argv[2], "beta");
    assert_string_equal(seen_argv[3], "0x10");
    assert_int_equal(con.last_status, 0);
}

static void test_crlf_runs_once(void **state) {
    (void)state;
    feed("rec a\r\n");
    assert_int_equal(seen_argc, 2);
    seen_argc = -1;
    feed("\n"); /* a lone LF after CRLF is an empty line: no command */
    assert_int_equal(seen_argc, -1);
}

static void test_backspace_edits_line(void **state) {
    (void)state;
    feed("recx\b b\x7f" "c\n");
    assert_int_equal(seen_argc, 2);
    assert_string_equal(seen_argv[1], "c");
}

static void test_unknown_command_reports_error(void **state) {
    (void)state;
    feed("nosuch 1 2\n");
    assert_int_equal(con.last_status, -1);
    assert_non_null(strstr(out, "unknown command 'nosuch'"));
}

static void test_command_status_is_kept(void **state) {
    (void)state;
    feed("fail\n");
    assert_int_equal(con.last_status, 7);
}

static void test_too_many_arguments_is_refused(void **state) {
    (void)state;
    feed("rec 1 2 3 4 5 6 7 8\n");
    assert_int_equal(seen_argc, -1);
    assert_int_equal(con.last_status, -2);
    assert_non_null(strstr(out, "too many arguments"));
}

static void test_overlong_line_is_bounded(void **state) {
    (void)state;
    feed("rec ");
    for (int i = 0; i < 3 * TF_CONSOLE_LINE_MAX; i++) console_feed(&con, 'x');
    feed("\n");
    assert_int_equal(seen_argc, 2);
    assert_int_equal(strlen(seen_argv[1]), TF_CONSOLE_LINE_MAX - 1 - 4);
    assert_non_null(strchr(out, '\a'));
}

static void test_help_lists_commands(void **state) {
    (void)state;
    feed("help\n");
    assert_non_null(strstr(out, "rec - records its arguments"));
    assert_non_null(strstr(out, "fail - always fails"));
}

static void test_parse_u32(void **state) {
    (void)state;
    uint32_t v = 99;
    assert_true(tf_parse_u32("0", &v) && v == 0);
    assert_true(tf_parse_u32("4294967295", &v) && v == 0xFFFFFFFFu);
    assert_true(tf_parse_u32("0xdeadBEEF", &v) && v == 0xDEADBEEFu);
    v = 5;
    assert_false(tf_parse_u32("4294967296", &v));
    assert_false(tf_parse_u32("0x100000000", &v));
    assert_false(tf_parse_u32("12a", &v));
    assert_false(tf_parse_u32("", &v));
    assert_false(tf_parse_u32("0x", &v));
    assert_false(tf_parse_u32("-1", &v));
    assert_int_equal(v, 5);
}

/* Packed BCD against the decimal text printf makes of the value, for every width 1..8; a digit above 9 in any
 * position of the width is refused and leaves the output alone; bits above the width are ignored. */
static void test_bcd_u32(void **state) {
    (void)state;
    uint32_t seed = 12345;
    for (unsigned digits = 1; digits <= 8; digits++)
        for (int i = 0; i < 2000; i++) {
            seed = seed * 1103515245u + 12345u;
            uint32_t lim = 1;
            for (unsigned k = 0; k < digits; k++) lim *= 10u;
            uint32_t v = i == 0 ? 0 : i == 1 ? lim - 1 : (seed >> 3) % lim;
            char text[12];
            snprintf(text, sizeof text, "%0*u", (int)digits, (unsigned)v);
            uint32_t packed = 0; /* the text's digits, then noise above the width */
            for (const char *p = text; *p; p++) packed = packed << 4 | (uint32_t)(*p - '0');
            if (digits < 8) packed |= (seed | 1u) << (4 * digits);
            uint32_t got = 77;
            assert_true(tf_bcd_u32(packed, digits, &got));
            assert_int_equal(got, v);
            for (unsigned nib = 0; nib < digits; nib++) {
                uint32_t bad = (packed & ~(0xFu << (4 * nib))) | (10u + (seed >> 28) % 6u) << (4 * nib);
                got = 77;
                assert_false(tf_bcd_u32(bad, digits, &got));
                assert_int_equal(got, 77);
            }
        }
}

static void test_parse_ipv4_and_mac(void **state) {
    (void)state;
    uint32_t ip = 0;
    assert_true(tf_parse_ipv4("10.77.0.2", &ip));
    assert_int_equal(ip, 0x0A4D0002u);
    assert_false(tf_parse_ipv4("10.77.0", &ip));
    assert_false(tf_parse_ipv4("10.77.0.256", &ip));
    assert_false(tf_parse_ipv4("10.77.0.1.5", &ip));
    assert_false(tf_parse_ipv4("10..0.1", &ip));
    uint8_t mac[6] = {0};
    assert_true(tf_parse_mac("02:54:46:00:00:0a", mac));
    assert_int_equal(mac[0], 0x02);
    assert_int_equal(mac[5], 0x0a);
    assert_false(tf_parse_mac("02:54:46:00:00", mac));
    assert_false(tf_parse_mac("02:54:46:00:00:0g", mac));
}

int main(void) {
    const struct CMUnitTest tests[] = {
        cmocka_unit_test_setup(test_line_runs_command_with_arguments, setup),
        cmocka_unit_test_setup(test_crlf_runs_once, setup),
        cmocka_unit_test_setup(test_backspace_edits_line, setup),
        cmocka_unit_test_setup(test_unknown_command_reports_error, setup),
        cmocka_unit_test_setup(test_command_status_is_kept, setup),
        cmocka_unit_test_setup(test_too_many_arguments_is_refused, setup),
        cmocka_unit_test_setup(test_overlong_line_is_bounded, setup),
        cmocka_unit_test_setup(test_help_lists_commands, setup),
        cmocka_unit_test(test_parse_u32),
        cmocka_unit_test(test_parse_ipv4_and_mac),
        cmocka_unit_test(test_bcd_u32),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
