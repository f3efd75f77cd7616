/* System control: identity, cycle counter, external interrupt controller, simulation exit. */
#ifndef TF_DRIVERS_SYSCTRL_H
#define TF_DRIVERS_SYSCTRL_H

#include <stdint.h>

#include "soc.h"

static inline uint32_t sysctrl_read(uint32_t reg) { return tf_read32(SYSCTRL_BASE + reg); }
static inline void sysctrl_write(uint32_t reg, uint32_t v) { tf_write32(SYSCTRL_BASE + reg, v); }

/* Free-running 64-bit sys clock cycle counter (reading LO latches HI). */
static inline uint64_t sysctrl_cycles(void) {
    uint32_t lo = sysctrl_read(SYSCTRL_CYCLE_LO);
    uint32_t hi = sysctrl_read(SYSCTRL_CYCLE_HI);
    return ((uint64_t)hi << 32) | lo;
}
/* Low 32 bits only: cheap, for short intervals. */
static inline uint32_t sysctrl_cycles32(void) { return sysctrl_read(SYSCTRL_CYCLE_LO); }

/* Ends the simulation with `code` (0 = success). On a board the write has no effect. */
static inline void sysctrl_sim_exit(uint32_t code) { sysctrl_write(SYSCTRL_SIM_EXIT, 0x100u | (code & 0xFFu)); }

/* External interrupt sources (TF_IRQ_*): a handler per source, called from the trap handler. */
typedef void (*irq_handler_t)(void);
void irq_attach(unsigned irq, irq_handler_t handler);
void irq_detach(unsigned irq);

#endif
