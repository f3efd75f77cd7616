/* Start-up: the CPU resets to the first word of RAM (TF_RAM_BASE). Sets gp, sp and tp (picolibc keeps
 * errno in thread-local storage), points mtvec at the trap entry, zeroes .tbss/.bss, calls main and
 * ends the run with main's return value. The trap entry saves the caller-saved registers and calls
 * tf_trap_handler(mcause, mepc, mtval) (start/trap.c). */
    .section .text.start, "ax"
    .global _start
_start:
    .option push
    .option norelax
    la gp, __global_pointer$
    .option pop
    la sp, __stack_top
    la tp, __tls_base
    la t0, tf_trap_entry
    csrw mtvec, t0
    la t0, __zero_start
    la t1, __zero_end
1:  bgeu t0, t1, 2f
    sw zero, 0(t0)
    addi t0, t0, 4
    j 1b
2:  call main
    call tf_exit
3:  j 3b

    .section .text.trap, "ax"
    .balign 4
    .global tf_trap_entry
tf_trap_entry:
    addi sp, sp, -64
    sw ra, 0(sp)
    sw t0, 4(sp)
    sw t1, 8(sp)
    sw t2, 12(sp)
    sw a0, 16(sp)
    sw a1, 20(sp)
    sw a2, 24(sp)
    sw a3, 28(sp)
    sw a4, 32(sp)
    sw a5, 36(sp)
    sw a6, 40(sp)
    sw a7, 44(sp)
    sw t3, 48(sp)
    sw t4, 52(sp)
    sw t5, 56(sp)
    sw t6, 60(sp)
    csrr a0, mcause
    csrr a1, mepc
    csrr a2, mtval
    call tf_trap_handler
    lw ra, 0(sp)
    lw t0, 4(sp)
    lw t1, 8(sp)
    lw t2, 12(sp)
    lw a0, 16(sp)
    lw a1, 20(sp)
    lw a2, 24(sp)
    lw a3, 28(sp)
    lw a4, 32(sp)
    lw a5, 36(sp)
    lw a6, 40(sp)
    lw a7, 44(sp)
    lw t3, 48(sp)
    lw t4, 52(sp)
    lw t5, 56(sp)
    lw t6, 60(sp)
    addi sp, sp, 64
    mret
