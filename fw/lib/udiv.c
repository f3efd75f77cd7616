/* 64-bit unsigned division by shift and subtract (see udiv.h). On the target this file also defines libgcc's
 * __udivdi3, __umoddi3 and __ctzsi2, so that the linker takes these (about 200 bytes) instead of libgcc's
 * (about 2.3 KiB with their count-leading-zeros table): the firmware divides 64-bit values only off the hot paths (console,
 * clock set-up, template building), where 64 iterations do not matter. */
#include "lib/udiv.h"

uint64_t tf_udivmod64(uint64_t n, uint64_t d, uint64_t *rem)
{
    if ((n >> 32) == 0 && (d >> 32) == 0 && d != 0) { /* 32-bit operands: the CPU's divider */
        uint32_t q = (uint32_t)n / (uint32_t)d;
        if (rem) *rem = (uint32_t)n - q * (uint32_t)d;
        return q;
    }
    uint64_t q = 0, r = 0;
    for (int i = 0; i < 64; i++) { /* constant shifts only: no libgcc __ashldi3 */
        uint64_t carry = r >> 63;
        r = (r << 1) | (n >> 63);
        n <<= 1;
        q <<= 1;
        if (carry || r >= d) {
            r -= d;
            q |= 1u;
        }
    }
    if (rem) *rem = r;
    return q; /* d == 0: all ones and the dividend back, as RISC-V's DIVU/REMU do for 32 bits */
}

#ifndef TF_HOST
uint64_t __udivdi3(uint64_t n, uint64_t d);
uint64_t __umoddi3(uint64_t n, uint64_t d);
uint64_t __udivdi3(uint64_t n, uint64_t d) { return tf_udivmod64(n, d, 0); }
uint64_t __umoddi3(uint64_t n, uint64_t d)
{
    uint64_t r;
    (void)tf_udivmod64(n, d, &r);
    return r;
}

/* libgcc's count-trailing-zeros pulls in a 256-byte table; __builtin_ctz (offload.c) needs only this. */
int __ctzsi2(uint32_t x);
int __ctzsi2(uint32_t x)
{
    int n = 0;
    while (!(x & 1u) && n < 32) {
        x >>= 1;
        n++;
    }
    return n;
}
#endif
