/* Machine timer driver (see timer.h). */
#include "drivers/timer.h"

#include "drivers/csr.h"

static volatile timer_handler_t deadline_handler;

static inline uint32_t rd(uint32_t reg) { return tf_read32(MTIMER_BASE + reg); }
static inline void wr(uint32_t reg, uint32_t v) { tf_write32(MTIMER_BASE + reg, v); }

uint64_t timer_ticks(void) {
    uint32_t lo = rd(MTIMER_MTIME_LO); /* latches the high word */
    uint32_t hi = rd(MTIMER_MTIME_HI);
    return ((uint64_t)hi << 32) | lo;
}

#define TICKS_PER_MS (TF_TIMEBASE_HZ / 1000u)
#if TF_MEM_WORDS
/* Where the RAM has room (fw/Makefile): the same millisecond as the last call, and the next one, without a division
 * (the main loop comes back within a millisecond: tf_udiv_incr divided for two 35=W of three), and without a call, so
 * that timer_ms saves no registers (-msave-restore: a shared routine's call each way). The 35=W receive path asks once
 * a frame: timer_ms 69 -> 30 cycles a W, w_cost avg 4,896 -> 4,828 (profiling build, sim/tests/run.sh w_cost with
 * +pc-hist, tools/pc-hist.py), for 48 bytes of code. */
static tf_udiv_incr_t ms; /* (tf_udiv_incr's state: q milliseconds, base = q * TICKS_PER_MS ticks) */

/* dt >= 2 ms since base: tf_udiv_incr's division, out of line */
static __attribute__((noinline)) uint64_t ms_advance(uint64_t dt) { return tf_udiv_incr_div(&ms, dt, TICKS_PER_MS); }

uint64_t timer_ms(void) {
    uint64_t dt = timer_ticks() - ms.base;
    if (dt < TICKS_PER_MS) return ms.q;
    if (dt < 2u * TICKS_PER_MS) { /* exactly one more */
        ms.base += TICKS_PER_MS;
        return ++ms.q;
    }
    return ms_advance(dt);
}
#else
uint64_t timer_ms(void) {
    static tf_udiv_incr_t ms;
    return tf_udiv_incr(&ms, timer_ticks(), TICKS_PER_MS);
}
#endif

static void write_cmp(uint64_t v) {
    /* The usual three-step update so that no intermediate value is below both old and new. */
    wr(MTIMER_MTIMECMP_HI, 0xFFFFFFFFu);
    wr(MTIMER_MTIMECMP_LO, (uint32_t)v);
    wr(MTIMER_MTIMECMP_HI, (uint32_t)(v >> 32));
}

void timer_set_deadline(uint64_t deadline_ticks, timer_handler_t handler) {
    csr_clear(mie, MIE_MTIE);
    deadline_handler = handler;
    write_cmp(deadline_ticks);
    csr_set(mie, MIE_MTIE);
}

void timer_cancel(void) {
    csr_clear(mie, MIE_MTIE);
    write_cmp(UINT64_MAX);
    deadline_handler = 0;
}

void timer_irq(void) {
    timer_handler_t h = deadline_handler;
    /* One-shot: silence the interrupt before calling the handler (which may set a new deadline). */
    csr_clear(mie, MIE_MTIE);
    write_cmp(UINT64_MAX);
    deadline_handler = 0;
    if (h) h(timer_ticks());
}

void timer_delay_ticks(uint64_t ticks) {
    uint64_t end = timer_ticks() + ticks;
    while (timer_ticks() < end) {
    }
}
