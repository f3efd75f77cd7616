/* Optional marks along the receive path, for finding where its cycles go: build with CFLAGS_EXTRA=-DTF_PROF
 * (make -C fw TARGET=sim OUT=../build/fw/prof CFLAGS_EXTRA=-DTF_PROF); `fix status` then prints, for the last
 * 35=W, the cycle of each mark counted from the frame's receive slot (the mark's number is its position):
 * 0 frame copied from the MAC, 1 TCP delivered the data, 2 after offload_poll, 3 FIX message framed and parsed,
 * 4 session checks done, 5 application handler entered, 6 SendingTime checked, 7 market data callback.
 * TF_PROF_INSTRET counts retired instructions instead of cycles. Without TF_PROF the marks compile to nothing.
 * TF_PROF_WINDOW(1) holds GPIO output 7 high from the receive slot; TF_PROF_WINDOW(0) ends that window and
 * TF_PROF_WINDOW(2) ends it in the callback, flagged with output 6, so that the simulation's PC histogram counts the
 * market data path alone (sim/main.cpp +pc-hist-gpio=7, tools/pc-hist.py).
 * Other paths through the same window, for the firmware-stop path's cost: CFLAGS_EXTRA="-DTF_PROF -DTF_PROF_EXEC"
 * counts instead every frame that carried an execution report or a cancel reject, from its receive slot to the end of
 * its handling (its console lines included); "-DTF_PROF -DTF_PROF_FIRE" the frame whose 35=W fired a firmware stop,
 * from its receive slot to the stop's order queued to the engine (`tools/bench/soc_latency.py --paths fw` with
 * FW and SIM_ARGS as above). */
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
#include "soc.h"
#define TF_PROF_WINDOW(on) tf_write32(GPIO_BASE + GPIO_OUT, (on) == 1 ? 0x80u : (on) == 2 ? 0x40u : 0u)
#if defined(TF_PROF_EXEC) || defined(TF_PROF_FIRE)
#define TF_PROF_W 0 /* the 35=W callback does not close the window */
#else
#define TF_PROF_W 1
#endif
extern int tf_prof_exec_seen; /* TF_PROF_EXEC: the frame being handled carried an execution report */
#else
#define TF_PROF_WINDOW(on) ((void)0)
#define TF_PROF_MARK(i) ((void)0)
#define TF_PROF_BASE() ((void)0)
#endif

/* Where the main loop's cycles go: build with CFLAGS_EXTRA=-DTF_PROF_LOOP; each TF_LOOP(k, statement) adds the
 * statement's cycles and one call to region k, and `offload` prints the regions since its last call (then clears
 * them), so a run that reads `offload` before and after a burst gets the burst's profile (the longest call apart:
 * the console's includes the commands, which wait for the UART). Nothing without the flag. */
enum {
    TF_LOOP_CONSOLE, TF_LOOP_DESC, TF_LOOP_RX, TF_LOOP_NET_POLL, TF_LOOP_SESSION, TF_LOOP_OFFLOAD,
    TF_LOOP_DIGEST_POLL, TF_LOOP_EVENTS, TF_LOOP_POP, TF_LOOP_TAKE, TF_LOOP_N
};
#ifdef TF_PROF_LOOP
extern uint32_t tf_loop_cycles[TF_LOOP_N], tf_loop_calls[TF_LOOP_N], tf_loop_max[TF_LOOP_N];
static inline uint32_t tf_loop_read(void)
{
    uint32_t v;
    __asm__ volatile("csrr %0, mcycle" : "=r"(v));
    return v;
}
#define TF_LOOP(k, stmt)                                                                                              \
    do {                                                                                                              \
        uint32_t t0_ = tf_loop_read();                                                                                \
        stmt;                                                                                                         \
        uint32_t dt_ = tf_loop_read() - t0_;                                                                          \
        tf_loop_cycles[k] += dt_;                                                                                     \
        tf_loop_calls[k]++;                                                                                           \
        if (dt_ > tf_loop_max[k]) tf_loop_max[k] = dt_;                                                               \
    } while (0)
#else
#define TF_LOOP(k, stmt) stmt
#endif

#endif
