/* Code-layout and scheduling hints for the receive path (fix/codec.c, fix/app.c and the in-line parsers of
 * fix/codec.h), in one place. */
#ifndef LIB_HINTS_H
#define LIB_HINTS_H

#include <stdint.h>

/* A condition the receive path's messages do not meet (an error, a tag it does not read without a loop): the code
 * for the common case laid out to fall through, without a taken branch (the CPU's predictor has 64 entries, shared
 * with everything else the path runs). */
#define RARE(c) __builtin_expect(!!(c), 0)
/* The common case, laid out to fall through. */
#define USUAL(c) __builtin_expect(!!(c), 1)

/* A multiply issued where it stands, not next to its use: the CPU's multiply result is not ready for the next two
 * instructions (they stall), and the compiler's schedule puts the use right after it. The empty volatile asm takes
 * the product there; the code between it and the use hides the latency. */
#define MUL_EARLY(x) __extension__({ uint32_t mul_early_ = (x); __asm__ volatile("" : "+r"(mul_early_)); mul_early_; })

#endif
