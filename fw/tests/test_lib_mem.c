/* Host tests of the firmware's memcpy and memset (lib/mem.c, the target's memcpy and memset): every offset of source
 * and destination within a word, every length up to 40 and some longer, against a byte-at-a-time reference; nothing
 * outside the range is touched. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>
#include <cmocka.h>

#include "lib/mem.h"

#define AREA 160
static _Alignas(4) uint8_t got[AREA], want[AREA], src[AREA];

static void fill(uint8_t *p, size_t n, uint32_t seed) {
    for (size_t i = 0; i < n; i++) {
        seed = seed * 1103515245u + 12345u;
        p[i] = (uint8_t)(seed >> 16);
    }
}

static const size_t lengths[] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 11, 12, 13, 15, 16, 17, 31, 32, 33, 39, 40, 64, 97, 128};

static void test_memcpy_every_alignment(void **state) {
    (void)state;
    fill(src, AREA, 7);
    for (size_t so = 0; so < 4; so++)
        for (size_t dof = 0; dof < 4; dof++)
            for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
                size_t n = lengths[li];
                fill(got, AREA, (uint32_t)(so * 131 + dof * 17 + n));
                memcpy(want, got, AREA);
                for (size_t i = 0; i < n; i++) want[8 + dof + i] = src[so + i];
                void *r = tf_memcpy(got + 8 + dof, src + so, n);
                assert_ptr_equal(r, got + 8 + dof);
                if (memcmp(got, want, AREA) != 0)
                    fail_msg("tf_memcpy: source offset %zu, destination offset %zu, %zu bytes", so, dof, n);
            }
}

static void test_memset_every_alignment(void **state) {
    (void)state;
    static const int values[] = {0, 0xA5, 0xFF, -1, 0x1234}; /* (unsigned char)c is what is stored */
    for (size_t vi = 0; vi < sizeof values / sizeof values[0]; vi++)
        for (size_t dof = 0; dof < 4; dof++)
            for (size_t li = 0; li < sizeof lengths / sizeof lengths[0]; li++) {
                size_t n = lengths[li];
                fill(got, AREA, (uint32_t)(vi * 7 + dof * 3 + n));
                memcpy(want, got, AREA);
                for (size_t i = 0; i < n; i++) want[8 + dof + i] = (uint8_t)values[vi];
                void *r = tf_memset(got + 8 + dof, values[vi], n);
                assert_ptr_equal(r, got + 8 + dof);
                if (memcmp(got, want, AREA) != 0)
                    fail_msg("tf_memset: value %d, offset %zu, %zu bytes", values[vi], dof, n);
            }
}

int main(void) {
    const struct CMUnitTest tests[] = {cmocka_unit_test(test_memcpy_every_alignment),
                                       cmocka_unit_test(test_memset_every_alignment)};
    return cmocka_run_group_tests(tests, NULL, NULL);
}
