/* Boot self-test (see selftest.h). Each check prints "selftest: <name> ..." before it starts, so a hang
 * shows where it stopped, and "PASS"/"FAIL <why>" after. Building with -DTF_SELFTEST_BREAK=fail or
 * =hang makes a deliberately broken firmware that the test suite uses to prove failures are caught. */
#include "app/selftest.h"

#include <stdint.h>
#include <stdio.h>

#include "drivers/csr.h"
#include "drivers/sysctrl.h"
#include "drivers/timer.h"
#include "lib/softmath.h"
#include "start/start.h"

#define TF_BREAK_NONE 0
#define TF_BREAK_FAIL 1
#define TF_BREAK_HANG 2
#ifndef TF_SELFTEST_BREAK
#define TF_SELFTEST_BREAK TF_BREAK_NONE
#endif

static uint32_t rng = 0x2545F491u;
static uint32_t next_rand(void) {
    rng ^= rng << 13;
    rng ^= rng >> 17;
    rng ^= rng << 5;
    return rng;
}

#define HW_OP(op, a, b) ({ uint32_t r_; __asm__ volatile(op " %0, %1, %2" : "=r"(r_) : "r"(a), "r"(b)); r_; })

static int check_muldiv_pair(uint32_t a, uint32_t b) {
    int32_t sa = (int32_t)a, sb = (int32_t)b;
    static const char names[] = "mul\0   mulh\0  mulhsu\0div\0   divu\0  rem\0   remu\0  mulhu"; /* 7 apart */
    const uint32_t hw[8] = {HW_OP("mul", a, b), HW_OP("mulh", a, b), HW_OP("mulhsu", a, b), HW_OP("div", a, b),
                            HW_OP("divu", a, b), HW_OP("rem", a, b), HW_OP("remu", a, b), HW_OP("mulhu", a, b)};
    const uint32_t sw[8] = {soft_mul(a, b), soft_mulh(sa, sb), soft_mulhsu(sa, b), (uint32_t)soft_div(sa, sb),
                            soft_divu(a, b), (uint32_t)soft_rem(sa, sb), soft_remu(a, b), soft_mulhu(a, b)};
    for (unsigned k = 0; k < 8; k++)
        if (hw[k] != sw[k]) return printf("FAIL %s %08lx %08lx\n", names + 7 * k, (unsigned long)a, (unsigned long)b), 1;
    return 0;
}

static int test_muldiv(void) {
    static const uint32_t edges[] = {0, 1, 2, 0x7FFFFFFFu, 0x80000000u, 0xFFFFFFFFu, 0xFFFFFFFEu, 12345};
    unsigned n = 0;
    for (unsigned i = 0; i < sizeof edges / sizeof edges[0]; i++)
        for (unsigned j = 0; j < sizeof edges / sizeof edges[0]; j++, n++)
            if (check_muldiv_pair(edges[i], edges[j])) return 1;
    for (unsigned i = 0; i < 300; i++, n++) {
        uint32_t a = next_rand(), b = next_rand() >> (next_rand() & 31);
        if (check_muldiv_pair(a, b)) return 1;
    }
    printf("PASS (%u operand pairs x 8 instructions)\n", n);
    return 0;
}

static volatile uint32_t timer_fired;
static volatile uint64_t timer_fired_at;
static void on_deadline(uint64_t now) {
    timer_fired++;
    timer_fired_at = now;
}

static int test_timer_interrupt(void) {
    const uint64_t delay = TF_TIMEBASE_HZ / 1000u; /* 1 firmware millisecond */
    timer_fired = 0;
    irq_global_enable();
    uint64_t start = timer_ticks();
    uint64_t deadline = start + delay;
    timer_set_deadline(deadline, on_deadline);
#if TF_SELFTEST_BREAK == TF_BREAK_HANG
    timer_cancel(); /* deliberately broken: the interrupt never comes and the wait below never ends */
    while (!timer_fired) {
    }
#endif
    /* The interrupt must not come early... */
    while (timer_ticks() < deadline - delay / 4)
        if (timer_fired) return printf("FAIL fired early at +%lu ticks\n", (unsigned long)(timer_fired_at - start)), 1;
    /* ...and must come: wfi waits for it (bounded by a second deadline check). */
    while (!timer_fired && timer_ticks() < deadline + 10 * delay) __asm__ volatile("wfi");
    if (timer_fired != 1) return printf("FAIL fired %lu times\n", (unsigned long)timer_fired), 1;
    if (timer_fired_at < deadline) return printf("FAIL handler saw mtime before the deadline\n"), 1;
    uint64_t late = timer_fired_at - deadline;
    /* One-shot: no second interrupt. */
    timer_delay_ticks(2 * delay);
    if (timer_fired != 1) return printf("FAIL fired again (%lu)\n", (unsigned long)timer_fired), 1;
    printf("PASS (1 interrupt, handler ran %lu ticks after the deadline)\n", (unsigned long)late);
    return 0;
}

static int test_cycle_counter(void) {
    uint64_t c0 = sysctrl_cycles();
    uint32_t m0 = csr_read(mcycle);
    for (volatile int i = 0; i < 100; i++) {
    }
    uint64_t c1 = sysctrl_cycles();
    uint32_t m1 = csr_read(mcycle);
    uint64_t d = c1 - c0;
    uint32_t dm = m1 - m0;
    if (c1 <= c0) return printf("FAIL not increasing\n"), 1;
    /* The SoC counter and the CPU's mcycle count the same clock: they must agree closely. */
    if (d + 16 < dm || dm + 16 < d) return printf("FAIL sysctrl %lu vs mcycle %lu\n", (unsigned long)d, (unsigned long)dm), 1;
    printf("PASS (%lu cycles for a 100-iteration loop)\n", (unsigned long)d);
    return 0;
}

/* 256 bytes: every lane and a spread of address bits. They are the bottom of the stack reserve, far below the stack
 * pointer while the self-test runs (it uses little stack; the reserve is sized for the deepest use measured, `info`).
 * Afterwards the words the stack had never reached get their paint back and the others a value that is not the paint,
 * so that a self-test run from the console leaves `info`'s deepest use as it was. */
#define RAM_TEST_WORDS 64

static int test_ram(void) {
    volatile uint32_t *w = __heap_end;
    volatile uint8_t *b = (volatile uint8_t *)__heap_end;
    volatile uint16_t *h = (volatile uint16_t *)__heap_end;
    uint32_t painted = 0; /* the words at the bottom the stack has never reached */
    while (painted < RAM_TEST_WORDS && w[painted] == TF_STACK_PAINT) painted++;
    /* Walking ones on one word: every data bit. */
    for (int bit = 0; bit < 32; bit++) {
        w[0] = 1u << bit;
        if (w[0] != (1u << bit)) return printf("FAIL walking one bit %d\n", bit), 1;
    }
    /* Address in address, then its complement: every address bit, no aliasing. */
    for (uint32_t i = 0; i < RAM_TEST_WORDS; i++) w[i] = (uint32_t)(uintptr_t)&w[i];
    for (uint32_t i = 0; i < RAM_TEST_WORDS; i++)
        if (w[i] != (uint32_t)(uintptr_t)&w[i]) return printf("FAIL address pattern at %p\n", (void *)&w[i]), 1;
    for (uint32_t i = 0; i < RAM_TEST_WORDS; i++) w[i] = ~(uint32_t)(uintptr_t)&w[i];
    for (uint32_t i = 0; i < RAM_TEST_WORDS; i++)
        if (w[i] != ~(uint32_t)(uintptr_t)&w[i]) return printf("FAIL inverse pattern at %p\n", (void *)&w[i]), 1;
    /* Byte and halfword lanes: writes touch only their own bytes; reads return the right lane. */
    for (uint32_t i = 0; i < 64; i++) w[i] = 0xA5A5A5A5u;
    for (uint32_t i = 0; i < 64 * 4; i++) b[i] = (uint8_t)(i * 7 + 1);
    for (uint32_t i = 0; i < 64 * 4; i++)
        if (b[i] != (uint8_t)(i * 7 + 1)) return printf("FAIL byte lane %lu\n", (unsigned long)i), 1;
    for (uint32_t i = 0; i < 64; i++) {
        uint32_t e = 0;
        for (int k = 3; k >= 0; k--) e = (e << 8) | (uint8_t)((i * 4 + (uint32_t)k) * 7 + 1);
        if (w[i] != e) return printf("FAIL byte writes into word %lu: %08lx\n", (unsigned long)i, (unsigned long)w[i]), 1;
    }
    for (uint32_t i = 0; i < 64 * 2; i++) h[i] = (uint16_t)(0x1234u + i * 0x101u);
    for (uint32_t i = 0; i < 64 * 2; i++)
        if (h[i] != (uint16_t)(0x1234u + i * 0x101u)) return printf("FAIL halfword lane %lu\n", (unsigned long)i), 1;
#if TF_SELFTEST_BREAK == TF_BREAK_FAIL
    w[0] = 1; /* deliberately broken: the check below must fail */
    if (w[0] != 2) return printf("FAIL deliberately broken build (TF_SELFTEST_BREAK=fail)\n"), 1;
#endif
    for (uint32_t i = 0; i < RAM_TEST_WORDS; i++) w[i] = i < painted ? TF_STACK_PAINT : 0;
    printf("PASS (%u bytes: walking ones, address, inverse, byte and halfword lanes)\n", RAM_TEST_WORDS * 4u);
    return 0;
}

struct check {
    const char *name;
    int (*fn)(void);
};

static const struct check checks[] = {
    {"mul/div", test_muldiv},
    {"cycle counter", test_cycle_counter},
    {"timer interrupt", test_timer_interrupt},
    {"ram", test_ram},
};

int selftest_run(void) {
    int failed = 0;
    uint64_t t0 = sysctrl_cycles();
    for (unsigned i = 0; i < sizeof checks / sizeof checks[0]; i++) {
        printf("selftest: %s ... ", checks[i].name);
        failed += checks[i].fn();
    }
    unsigned n = sizeof checks / sizeof checks[0];
    printf("selftest: %u passed, %d failed (%lu cycles)\n", n - (unsigned)failed, failed,
           (unsigned long)(sysctrl_cycles() - t0));
    return failed;
}
