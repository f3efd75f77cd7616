/* memcpy and memset a 32-bit word at a time where the addresses allow it. picolibc's, built for size, move one byte
 * a turn (about 6 cycles a byte on this CPU), and the firmware copies and clears whole frames and templates on the
 * paths that send orders and adopt what the engine sent. Where the build sets TF_MEM_WORDS (fw/Makefile: where the RAM
 * has room for the code) lib/mem.c makes these the C library's memcpy and memset (the linker takes them
 * instead of picolibc's); the host tests call them by these names. */
#ifndef TF_LIB_MEM_H
#define TF_LIB_MEM_H

#include <stddef.h>
#include <stdint.h>

typedef uint32_t __attribute__((may_alias)) tf_word_t; /* a word of bytes of any type, at an address that is 4-aligned */

/* As memcpy: n bytes from src to dst, which do not overlap. Words while both are at the same offset in a word, else
 * four bytes a turn. */
void *tf_memcpy(void *restrict dst, const void *restrict src, size_t n);
/* As memset: n bytes of dst set to (unsigned char)c. */
void *tf_memset(void *dst, int c, size_t n);

/* n bytes at a and b equal, compared in line (the receive path's short compares of a fixed length: a MAC address,
 * SendingTime's date, where a library memcmp call cost more than the bytes): the differences gathered, one test at
 * the end; unrolled where the RAM has room (TF_MEM_WORDS, fw/Makefile). Any alignment. */
static inline __attribute__((always_inline)) int tf_bytes_eq(const void *a, const void *b, size_t n)
{
    const uint8_t *x = (const uint8_t *)a, *y = (const uint8_t *)b;
    uint32_t diff = 0;
#if TF_MEM_WORDS
#pragma GCC unroll 8
#endif
    for (size_t i = 0; i < n; i++) diff |= (uint32_t)(x[i] ^ y[i]);
    return diff == 0;
}

#endif
