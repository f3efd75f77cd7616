/* Cycle statistics (see cyclestat.h). */
#include "lib/cyclestat.h"

#include <string.h>

void cyclestat_reset(cyclestat_t *s) { memset(s, 0, sizeof *s); }

void cyclestat_add(cyclestat_t *s, uint32_t cycles)
{
    if (s->count == 0 || cycles < s->min) s->min = cycles;
    if (cycles > s->max) s->max = cycles;
    s->count++;
    s->total += cycles;
    unsigned k = 0;
    for (uint32_t v = cycles >> 10; v && k < CYCLESTAT_BUCKETS - 1; v >>= 1) k++;
    s->hist[k]++;
}

uint32_t cyclestat_bucket_floor(unsigned k) { return k == 0 ? 0 : 1024u << (k - 1); }

/* 64-by-32 division by shift and subtract: the quotient fits 32 bits because the mean is at most max. */
uint32_t cyclestat_mean(const cyclestat_t *s)
{
    if (s->count == 0) return 0;
    uint64_t n = s->total;
    uint32_t d = s->count, hi = (uint32_t)(n >> 32), lo = (uint32_t)n, q = 0;
    uint32_t rem = hi % d; /* < d: the quotient's upper 32 bits are 0 since total <= count * max */
    for (int i = 31; i >= 0; i--) {
        uint32_t carry = rem >> 31;
        rem = (rem << 1) | ((lo >> i) & 1u);
        q <<= 1;
        if (carry || rem >= d) {
            rem -= d;
            q |= 1u;
        }
    }
    return q;
}
