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

uint64_t timer_ms(void) {
    static tf_udiv_incr_t ms;
    return tf_udiv_incr(&ms, timer_ticks(), TF_TIMEBASE_HZ / 1000u);
}

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
