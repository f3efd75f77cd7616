/* See mem.h. */
#include "lib/mem.h"

#include <stdint.h>

/* The loops below are what memcpy and memset are: GCC must not turn them back into calls of themselves. */
#define NO_LIBCALL __attribute__((optimize("no-tree-loop-distribute-patterns")))

/* (Loops run to an end pointer: GCC's code for counted ones computed the count with a multiply.) */
NO_LIBCALL void *tf_memcpy(void *restrict dst, const void *restrict src, size_t n)
{
    uint8_t *d = dst, *const e = d + n;
    const uint8_t *s = src;
    if (n >= 8) {
        if (!(((uintptr_t)d ^ (uintptr_t)s) & 3u)) {
            for (; (uintptr_t)d & 3u; d++, s++) *d = *s;
            for (uint8_t *const we = e - 3; d < we; d += 4, s += 4) *(tf_word_t *)d = *(const tf_word_t *)s;
        } else { /* at different offsets in a word: four bytes a turn */
            for (uint8_t *const we = e - 3; d < we; d += 4, s += 4) {
                d[0] = s[0];
                d[1] = s[1];
                d[2] = s[2];
                d[3] = s[3];
            }
        }
    }
    for (; d != e; d++, s++) *d = *s;
    return dst;
}

NO_LIBCALL void *tf_memset(void *dst, int c, size_t n)
{
    uint8_t *d = dst, *const e = d + n;
    if (n >= 8) {
        for (; (uintptr_t)d & 3u; d++) *d = (uint8_t)c;
        const uint32_t w = (uint8_t)c * 0x01010101u;
        for (uint8_t *const we = e - 3; d < we; d += 4) *(tf_word_t *)d = w;
    }
    for (; d != e; d++) *d = (uint8_t)c;
    return dst;
}

#if !defined(TF_HOST) && TF_MEM_WORDS
void *memcpy(void *restrict dst, const void *restrict src, size_t n) __attribute__((alias("tf_memcpy")));
void *memset(void *dst, int c, size_t n) __attribute__((alias("tf_memset")));
#endif
