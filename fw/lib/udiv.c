/* 64-bit unsigned division by shift and subtract (see udiv.h). On the target this file also defines libgcc's
 * __udivdi3 and __umoddi3, so that the linker takes these (about 150 bytes) instead of libgcc's (about 2 KiB
 * with their count-leading-zeros table): the firmware divides 64-bit values only off the hot paths (console,
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
    for (int i = 63; i >= 0; i--) {
        uint64_t carry = r >> 63;
        r = (r << 1) | ((n >> i) & 1u);
        if (carry || r >= d) {
            r -= d;
            q |= (uint64_t)1 << i;
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
#endif
