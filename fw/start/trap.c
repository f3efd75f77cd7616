/* Trap handler: machine timer and external interrupts are dispatched; any exception is fatal and
 * reported (cause, pc, tval) before the run ends with exit code TF_EXIT_FATAL. Also tf_exit/_exit. */
#include <stdint.h>
#include <stdio.h>

#include "drivers/csr.h"
#include "drivers/sysctrl.h"
#include "drivers/timer.h"
#include "drivers/uart.h"
#include "start/start.h"

#define IRQ_COUNT 8
static irq_handler_t irq_handlers[IRQ_COUNT];

void irq_attach(unsigned irq, irq_handler_t handler) {
    if (irq >= IRQ_COUNT) return;
    irq_handlers[irq] = handler;
    sysctrl_write(SYSCTRL_IRQ_ENABLE, sysctrl_read(SYSCTRL_IRQ_ENABLE) | (1u << irq));
    csr_set(mie, MIE_MEIE);
}

void irq_detach(unsigned irq) {
    if (irq >= IRQ_COUNT) return;
    sysctrl_write(SYSCTRL_IRQ_ENABLE, sysctrl_read(SYSCTRL_IRQ_ENABLE) & ~(1u << irq));
    irq_handlers[irq] = 0;
}

void tf_trap_handler(uint32_t mcause, uint32_t mepc, uint32_t mtval) {
    if (mcause & MCAUSE_INTERRUPT) {
        uint32_t code = mcause & 0x7FFFFFFFu;
        if (code == MCAUSE_MACHINE_TIMER) {
            timer_irq();
        } else if (code == MCAUSE_MACHINE_EXTERNAL) {
            uint32_t pending = sysctrl_read(SYSCTRL_IRQ_PENDING) & sysctrl_read(SYSCTRL_IRQ_ENABLE);
            for (unsigned i = 0; i < IRQ_COUNT; i++)
                if ((pending >> i) & 1u) {
                    if (irq_handlers[i]) irq_handlers[i]();
                    else irq_detach(i); /* nobody listens: mask it rather than loop forever */
                }
        }
        return;
    }
    printf("\nFATAL: exception mcause=%lu mepc=0x%08lx mtval=0x%08lx\n", (unsigned long)mcause,
           (unsigned long)mepc, (unsigned long)mtval);
    tf_exit(TF_EXIT_FATAL);
}

void tf_exit(int code) {
    uart_flush(); /* printf writes straight to the UART driver (lib/fmt.c): nothing is held before it */
    sysctrl_sim_exit((uint32_t)code);
    for (;;) __asm__ volatile("wfi");
}

void _exit(int code) { tf_exit(code); }
