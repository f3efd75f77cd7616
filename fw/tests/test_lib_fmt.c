/* Host tests of the firmware's printf (lib/fmt.c) against the host C library's vsnprintf: every conversion the
 * firmware's formats use, flags, widths and precisions given as digits or '*', edge values, random combinations;
 * and the unsupported conversions, which are copied as written. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <cmocka.h>

#include "lib/fmt.h"

struct buf {
    char s[512];
    size_t n;
};

static size_t writes; /* calls of the sink */

static void put(void *ctx, const char *s, size_t n) {
    struct buf *b = ctx;
    if (n == 0) fail_msg("tf_vfmt wrote an empty run");
    writes++;
    for (size_t i = 0; i < n; i++)
        if (b->n + 1 < sizeof b->s) b->s[b->n++] = s[i];
    b->s[b->n] = '\0';
}

static int ours(struct buf *b, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    b->n = 0;
    b->s[0] = '\0';
    int n = tf_vfmt(put, b, fmt, ap);
    va_end(ap);
    return n;
}

/* The format is a variable on purpose: the unsupported and deliberately odd formats must reach both printfs. */
#define SAME(fmt, ...)                                                                                                 \
    do {                                                                                                               \
        char want[512];                                                                                                \
        struct buf got;                                                                                                \
        const char *f_ = (fmt);                                                                                        \
        int wn = snprintf(want, sizeof want, f_, __VA_ARGS__);                                                        \
        int gn = ours(&got, f_, __VA_ARGS__);                                                                         \
        if (strcmp(want, got.s) != 0 || wn != gn)                                                                      \
            fail_msg("format \"%s\": libc \"%s\" (%d), ours \"%s\" (%d)", f_, want, wn, got.s, gn);                    \
    } while (0)

#pragma GCC diagnostic ignored "-Wformat-nonliteral"
#pragma GCC diagnostic ignored "-Wformat-security"

static void test_firmware_conversions(void **state) {
    (void)state;
    static const unsigned long ul[] = {0, 1, 9, 10, 99, 1000, 4294967295ul, ULONG_MAX, 123456789ul};
    for (size_t i = 0; i < sizeof ul / sizeof ul[0]; i++) {
        SAME("%lu", ul[i]);
        SAME("x=%08lx.", ul[i]);
        SAME("%04lx", ul[i]);
        SAME("%ld", (long)ul[i]);
        SAME("%u|%d|%x|%X", (unsigned)ul[i], (int)ul[i], (unsigned)ul[i], (unsigned)ul[i]);
        SAME("%02x", (unsigned)(ul[i] & 255));
    }
    SAME("%d %d %ld %ld", INT_MIN, INT_MAX, LONG_MIN, LONG_MAX);
    SAME("[%s] [%-20s] [%-20s] [%20s]", "abc", "name", "a name longer than twenty", "r");
    SAME("%c%c%c", 'a', ' ', '~');
    SAME("100%% of %s", "it");
    SAME("%s", "");
    SAME("no conversion at all %s", "");
    int x = 0;
    SAME("%p", (void *)&x);
}

static void test_flags_width_precision(void **state) {
    (void)state;
    SAME("[%5d] [%-5d] [%05d] [%-05d] [%5.3d] [%.3d] [%.0d] [%.0d]", 42, 42, -42, 42, -7, 7, 0, 5);
    SAME("[%*d] [%-*d] [%*d] [%.*d]", 6, 13, 6, 13, -6, 13, 4, 13);
    SAME("[%.3s] [%.*s] [%.*s] [%10.2s] [%-10.2s]", "abcdef", 2, "abcdef", -1, "abc", "xyz", "xyz");
    SAME("[%3c] [%-3c]", 'q', 'q');
    SAME("[%08x] [%8x] [%-8x] [%.8x] [%0*x]", 0xBEEFu, 0xBEEFu, 0xBEEFu, 0xBEEFu, 10, 0xBEEFu);
    SAME("[%hhu] [%hhd] [%hu] [%hd] [%hhx]", 300, 200, 70000, 40000, 0x1FF);
    SAME("[%zu] [%5zu]", (size_t)123, sizeof(long));
    SAME("[%i] [%0i]", -3, 4);
}

static uint64_t rng = 0x9E3779B97F4A7C15ull;
static uint64_t next64(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void test_random_combinations(void **state) {
    (void)state;
    static const char *const flags[] = {"", "-", "0", "-0"};
    static const char *const widths[] = {"", "1", "3", "8", "12"};
    static const char *const precs[] = {"", ".", ".0", ".1", ".5", ".11"};
    static const char convs[] = "diuxX";
    for (int i = 0; i < 20000; i++) {
        char f[32];
        snprintf(f, sizeof f, "<%%%s%s%s%s%c>", flags[next64() % 4], widths[next64() % 5], precs[next64() % 6],
                 next64() & 1 ? "l" : "", convs[next64() % 5]);
        uint64_t r = next64() >> (next64() & 63);
        if (strstr(f, "l")) SAME(f, (long)r);
        else SAME(f, (int)r);
    }
    for (int i = 0; i < 2000; i++) {
        char f[32];
        snprintf(f, sizeof f, "<%%%s%s%ss>", next64() & 1 ? "-" : "", widths[next64() % 5], precs[next64() % 6]);
        SAME(f, "string");
    }
}

static int ours_n(char *s, size_t size, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    int n = tf_vsnprintf(s, size, fmt, ap);
    va_end(ap);
    return n;
}

/* tf_vsnprintf (the target's snprintf) against libc's snprintf at every buffer size from 0 past the output's length:
 * the same characters, the same NUL, the same return value, and nothing written past size (nor anything at size 0). */
#define SAME_TRUNCATED(fmt, ...)                                                                                       \
    for (size_t size = 0; size < 24; size++) {                                                                         \
        char want[32], got[32];                                                                                        \
        memset(want, '#', sizeof want);                                                                                \
        memset(got, '#', sizeof got);                                                                                  \
        int wn = snprintf(want, size, fmt, __VA_ARGS__), gn = ours_n(got, size, fmt, __VA_ARGS__);                     \
        if (wn != gn || memcmp(want, got, sizeof want) != 0)                                                           \
            fail_msg("format \"%s\" size %zu: libc %d \"%.*s\", ours %d \"%.*s\"", fmt, size, wn, (int)sizeof want, want, \
                     gn, (int)sizeof got, got);                                                                        \
    }

static void test_snprintf_truncation(void **state) {
    (void)state;
    SAME_TRUNCATED("risk: %s", "max-qty");
    SAME_TRUNCATED("refusal %u:", 4294967295u);
    SAME_TRUNCATED("%u", 0u);
    SAME_TRUNCATED("%08lx|%-6s|%d", 0xbeeful, "ab", -12);
}

static void test_unsupported_copied_as_written(void **state) {
    (void)state;
    struct buf b;
    const char *f = "a %llu b %f c %";
    int n = ours(&b, f, 1ull, 2.0);
    assert_string_equal(b.s, "a %llu b %f c %");
    assert_int_equal(n, (int)strlen("a %llu b %f c %"));
}

/* A sink is called once per run of plain text and once per converted value, never per character of them (the
 * console pays a call per run). */
static void test_runs_written_whole(void **state) {
    (void)state;
    struct buf b;
    writes = 0;
    int n = ours(&b, "order %s sent at %lu cycles", "TTP-12345", 123456789ul);
    assert_string_equal(b.s, "order TTP-12345 sent at 123456789 cycles");
    assert_int_equal(n, (int)strlen(b.s));
    assert_int_equal(writes, 5);
    writes = 0;
    ours(&b, "%d|%x", -42, 255u); /* the sign is a run of its own */
    assert_string_equal(b.s, "-42|ff");
    assert_int_equal(writes, 4);
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_runs_written_whole),cmocka_unit_test(test_firmware_conversions), cmocka_unit_test(test_flags_width_precision),
                                       cmocka_unit_test(test_random_combinations),
                                       cmocka_unit_test(test_unsupported_copied_as_written),
                                       cmocka_unit_test(test_snprintf_truncation)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
