/* Machine timer: monotonic time in mtime ticks (TF_TIMEBASE_HZ per firmware second: the true clock on
 * boards, scaled in simulation so that a firmware second is close to a wall-clock second) and one-shot
 * deadline interrupts. */
#ifndef TF_DRIVERS_TIMER_H
#define TF_DRIVERS_TIMER_H

#include <stdint.h>

#include "lib/udiv.h"
#include "soc.h"

uint64_t timer_ticks(void);
_Static_assert(TF_TIMEBASE_HZ / 1000u > 0 && TF_TIMEBASE_HZ / 1000u < 65536u, "timer_ms divides by a 16-bit value");
/* Milliseconds since boot: mtime / (TF_TIMEBASE_HZ / 1000), exactly, kept incrementally so that a call within the same
 * millisecond as the last costs no division (the receive path asks once a frame). Main loop only: not reentrant. */
uint64_t timer_ms(void);
static inline uint64_t timer_us(void) { return timer_ticks() * 1000000u / TF_TIMEBASE_HZ; }

typedef void (*timer_handler_t)(uint64_t now_ticks);
/* Calls `handler` from the timer interrupt once mtime >= deadline. Replaces any earlier deadline. */
void timer_set_deadline(uint64_t deadline_ticks, timer_handler_t handler);
void timer_cancel(void);
void timer_irq(void); /* from the trap handler */
void timer_delay_ticks(uint64_t ticks); /* busy wait */

#endif
