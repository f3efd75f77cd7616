/* 64-bit unsigned division without libgcc (RV32IM would call its __udivdi3: about 1 KiB of code with a
 * 256-byte table, hundreds of cycles).
 * tf_udiv64_u16: n / d for 0 < d < 2^16 with three 32-bit divisions (the hot paths: milliseconds, seconds). */
#ifndef TF_LIB_UDIV_H
#define TF_LIB_UDIV_H

#include <stdint.h>

static inline uint64_t tf_udiv64_u16(uint64_t n, uint32_t d)
{
    uint32_t hi = (uint32_t)(n >> 32), lo = (uint32_t)n;
    uint32_t qh = hi / d, r = hi % d;
    uint32_t x = (r << 16) | (lo >> 16); /* < d << 16: each partial quotient fits 16 bits */
    uint32_t q1 = x / d;
    x = ((x % d) << 16) | (lo & 0xFFFFu);
    return ((uint64_t)qh << 32) | (q1 << 16) | (x / d);
}

/* floor(ticks / d) for a tick counter that only goes forward (milliseconds from mtime), incrementally: the state
 * keeps the last quotient q and q * d, so a call within the same quotient as the last costs a subtraction and a
 * compare, and a later one a 32-bit division of the ticks since (tf_udiv64_u16 past 2^32 of them). Exact for every
 * call sequence whose ticks do not decrease. Start from {0, 0}. */
typedef struct {
    uint64_t q;    /* the last quotient */
    uint64_t base; /* q * d */
} tf_udiv_incr_t;
/* tf_udiv_incr's step for dt = ticks - st->base >= d: the new quotient (timer_ms calls it out of line). */
static inline __attribute__((always_inline)) uint64_t tf_udiv_incr_div(tf_udiv_incr_t *st, uint64_t dt, uint32_t d)
{
    uint64_t q = (dt >> 32) ? tf_udiv64_u16(dt, d) : (uint32_t)dt / d;
    st->q += q;
    st->base += q * d;
    return st->q;
}
static inline uint64_t tf_udiv_incr(tf_udiv_incr_t *st, uint64_t ticks, uint32_t d)
{
    uint64_t dt = ticks - st->base;
    if (dt >= d) tf_udiv_incr_div(st, dt, d);
    return st->q;
}

/* v / 10 for every 32-bit v by a multiply (0xCCCCCCCD = ceil(2^35 / 10)): the CPU's divider takes about 34 cycles,
 * its multiplier a few, and -Os keeps divu for a constant divisor (smaller code). For the digit loops that print
 * numbers: a digit is v - 10 * (v / 10). */
static inline uint32_t tf_div10(uint32_t v) { return (uint32_t)(((uint64_t)v * 0xCCCCCCCDu) >> 35); }

/* Any 64-bit division, by shift and subtract (64 iterations): for code off the hot paths. rem may be NULL.
 * d == 0 gives all ones and n as the remainder. */
uint64_t tf_udivmod64(uint64_t n, uint64_t d, uint64_t *rem);

#endif
