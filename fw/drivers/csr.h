/* RISC-V machine-mode CSR access and interrupt enables. */
#ifndef TF_DRIVERS_CSR_H
#define TF_DRIVERS_CSR_H

#include <stdint.h>

#define csr_read(csr) ({ uint32_t v_; __asm__ volatile("csrr %0, " #csr : "=r"(v_)); v_; })
#define csr_write(csr, v) __asm__ volatile("csrw " #csr ", %0" ::"r"((uint32_t)(v)))
#define csr_set(csr, v) __asm__ volatile("csrs " #csr ", %0" ::"r"((uint32_t)(v)))
#define csr_clear(csr, v) __asm__ volatile("csrc " #csr ", %0" ::"r"((uint32_t)(v)))

#define MSTATUS_MIE (1u << 3)
#define MIE_MTIE (1u << 7)
#define MIE_MEIE (1u << 11)
#define MCAUSE_INTERRUPT 0x80000000u
#define MCAUSE_MACHINE_TIMER 7u
#define MCAUSE_MACHINE_EXTERNAL 11u

static inline void irq_global_enable(void) { csr_set(mstatus, MSTATUS_MIE); }
static inline void irq_global_disable(void) { csr_clear(mstatus, MSTATUS_MIE); }
/* Disables interrupts and returns the previous state, for irq_restore. */
static inline uint32_t irq_save(void) {
    uint32_t m;
    __asm__ volatile("csrrc %0, mstatus, %1" : "=r"(m) : "r"(MSTATUS_MIE));
    return m & MSTATUS_MIE;
}
static inline void irq_restore(uint32_t m) { csr_set(mstatus, m); }

#endif
