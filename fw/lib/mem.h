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

#endif
