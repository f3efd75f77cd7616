/* Cycle statistics of a repeated firmware path (for example a 35=W from its receive slot to the
 * application callback): count, min, max, total and a log2 histogram, all in sys clock cycles.
 * In: one measured interval per cyclestat_add. Out: the fields, and the mean by cyclestat_mean (32-bit
 * arithmetic only: no 64-bit division is linked for it). */
#ifndef TF_LIB_CYCLESTAT_H
#define TF_LIB_CYCLESTAT_H

#include <stdint.h>

/* Bucket k (1 <= k < CYCLESTAT_BUCKETS-1) holds intervals in [1024 << (k-1), 1024 << k); bucket 0 those
 * below 1024, the last one those from 1024 << (CYCLESTAT_BUCKETS-2) on: <1k 1k 2k 4k 8k 16k 32k >=64k. */
#define CYCLESTAT_BUCKETS 8

typedef struct {
    uint32_t count, min, max;
    uint64_t total;
    uint32_t hist[CYCLESTAT_BUCKETS];
} cyclestat_t;

void cyclestat_reset(cyclestat_t *s);
void cyclestat_add(cyclestat_t *s, uint32_t cycles);
/* total / count rounded down; 0 when empty. */
uint32_t cyclestat_mean(const cyclestat_t *s);
/* Lower bound of bucket k in cycles (0, 1024, 2048, ...). */
uint32_t cyclestat_bucket_floor(unsigned k);

#endif
