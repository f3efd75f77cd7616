/* Optional marks along the receive path, for finding where its cycles go: build with CFLAGS_EXTRA=-DTF_PROF
 * (make -C fw TARGET=sim OUT=../build/fw/prof CFLAGS_EXTRA=-DTF_PROF); `fix status` then prints, for the last
 * 35=W, the cycle of each mark counted from the frame's receive slot (the mark's number is its position):
 * 0 frame copied from the MAC, 1 TCP delivered the data, 2 after offload_poll, 3 FIX message framed and parsed,
 * 4 session checks done, 5 application handler entered, 6 SendingTime checked, 7 market data callback.
 * TF_PROF_INSTRET counts retired instructions instead of cycles. Without TF_PROF the marks compile to nothing. */
#ifndef TF_LIB_PROF_H
#define TF_LIB_PROF_H

#include <stdint.h>

#ifdef TF_PROF
#define TF_PROF_MARKS 8
extern uint32_t tf_prof[TF_PROF_MARKS];
static inline uint32_t tf_prof_read(void)
{
    uint32_t v;
#ifdef TF_PROF_INSTRET
    __asm__ volatile("csrr %0, minstret" : "=r"(v));
#else
    __asm__ volatile("csrr %0, mcycle" : "=r"(v));
#endif
    return v;
}
extern uint32_t tf_prof_base; /* when the receive slot was taken */
#define TF_PROF_MARK(i) (tf_prof[i] = tf_prof_read())
#define TF_PROF_BASE() (tf_prof_base = tf_prof_read())
#else
#define TF_PROF_MARK(i) ((void)0)
#define TF_PROF_BASE() ((void)0)
#endif

#endif
