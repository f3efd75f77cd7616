/* fuzz/fuzz.h - shared by the libFuzzer harnesses (fuzz_*.c): a reader over the fuzzer's input and the check that
 * stops a run when an invariant breaks (libFuzzer then saves the input as a crash).
 * Input: the bytes libFuzzer hands LLVMFuzzerTestOneInput. Output: values taken from them (zero once used up). */
#ifndef TF_FUZZ_FUZZ_H
#define TF_FUZZ_FUZZ_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* An invariant of the code under test: its failure is a defect, reported like a sanitizer finding. */
#define FZ_CHECK(cond)                                                                                     \
    do {                                                                                                   \
        if (!(cond)) {                                                                                     \
            fprintf(stderr, "FZ_CHECK failed: %s (%s:%d)\n", #cond, __FILE__, __LINE__);                 \
            abort();                                                                                       \
        }                                                                                                  \
    } while (0)

typedef struct {
    const uint8_t *p;
    size_t n;
} fz_in_t;

static inline uint8_t fz_u8(fz_in_t *in)
{
    if (!in->n) return 0;
    in->n--;
    return *in->p++;
}

static inline uint16_t fz_u16(fz_in_t *in)
{
    uint16_t hi = fz_u8(in);
    return (uint16_t)(hi << 8 | fz_u8(in));
}

static inline uint32_t fz_u32(fz_in_t *in)
{
    uint32_t hi = fz_u16(in);
    return hi << 16 | fz_u16(in);
}

/* Up to max bytes (fewer when the input ends): returns how many, *out points at them. */
static inline size_t fz_bytes(fz_in_t *in, size_t max, const uint8_t **out)
{
    size_t k = max < in->n ? max : in->n;
    *out = in->p;
    in->p += k;
    in->n -= k;
    return k;
}

#endif
