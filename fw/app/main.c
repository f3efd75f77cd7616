/* Triggerfish firmware entry: banner, boot self-test, then the UART console. */
#include <stdio.h>
#include <string.h>

#include "app/fixclient.h"
#include "app/machine.h"
#include "app/netif.h"
#include "app/risk.h"
#include "app/selftest.h"
#include "drivers/sysctrl.h"
#include "drivers/timer.h"
#include "drivers/uart.h"
#include "lib/console.h"
#include "lib/fmt.h"
#include "lib/mproto.h"
#include "lib/parse.h"
#include "lib/prof.h"
#include "start/start.h"

#ifndef TF_FW_VERSION
#define TF_FW_VERSION "unknown"
#endif

static int boot_selftest_failed;

/* Stack high-water mark: the unused stack is painted at boot; `info` reports how deep it has been used. */

static void stack_paint(void) {
    uint32_t *sp;
    __asm__ volatile("mv %0, sp" : "=r"(sp));
    for (uint32_t *p = __heap_end; p < sp - 16; p++) *p = TF_STACK_PAINT;
}

/* Free RAM: between the end of .bss and the stack reserve (start/link.ld; fw/ram-report.sh gives the same figure from
 * the ELF at every link). */
extern uint32_t __zero_end[];
static uint32_t ram_free(void) { return (uint32_t)((__heap_end - __zero_end) * 4); }

static unsigned long stack_used(void) {
    const uint32_t *p = __heap_end;
    while (p < __stack_top && *p == TF_STACK_PAINT) p++;
    return (unsigned long)((__stack_top - p) * 4);
}

static void banner(void) {
    printf("\nTriggerfish firmware %s (target %s)\n", TF_FW_VERSION, TF_TARGET_NAME);
    printf("  hardware id %08lx version %08lx\n", (unsigned long)sysctrl_read(SYSCTRL_ID),
           (unsigned long)sysctrl_read(SYSCTRL_VERSION));
#ifdef TF_UART_DIVISOR_FW
    /* built with another console speed (fw/Makefile UART_DIVISOR=): the SoC's default baud rate is not this one */
#define TF_UART_SPEED "UART %lu sys cycles a bit (UART_DIVISOR)\n"
#define TF_UART_SPEED_ARG TF_UART_DIVISOR_FW
#else
#define TF_UART_SPEED "UART %lu baud\n"
#define TF_UART_SPEED_ARG TF_UART_BAUD
#endif
    printf("  sys clock %lu Hz, timebase %lu ticks/s, RAM %lu KiB at 0x%08lx, " TF_UART_SPEED,
           (unsigned long)sysctrl_read(SYSCTRL_SYS_CLOCK_HZ), (unsigned long)sysctrl_read(SYSCTRL_TIMEBASE_HZ),
           (unsigned long)(TF_RAM_BYTES / 1024), (unsigned long)TF_RAM_BASE, (unsigned long)TF_UART_SPEED_ARG);
}

static int cmd_info(int argc, char **argv) {
    (void)argc;
    (void)argv;
    if (mp_in_request) { /* the machine protocol: one "counters" event */
        mp_event("counters", "group:s uptime_ms:u stack_used:u stack_size:u ram_free:u", "info", (uint32_t)timer_ms(),
                 (uint32_t)stack_used(), (uint32_t)((__stack_top - __heap_end) * 4), ram_free());
        return 0;
    }
    banner();
    printf("  uptime %lu ms, cycles %lu\n", (unsigned long)timer_ms(), (unsigned long)sysctrl_cycles());
    printf("  stack: %lu of %lu bytes used at most; RAM free %lu bytes\n", stack_used(),
           (unsigned long)((__stack_top - __heap_end) * 4), (unsigned long)ram_free());
#if UART_TX_RING
    printf("  console: %u-byte transmit ring, %lu bytes held, full %lu times\n", (unsigned)UART_TX_RING,
           (unsigned long)uart_tx_held(), (unsigned long)uart_tx_waits());
#endif
    return 0;
}
TF_COMMAND(info, "build, clock, uptime, stack", cmd_info);

static int cmd_selftest(int argc, char **argv) {
    (void)argc;
    (void)argv;
    boot_selftest_failed = selftest_run();
    return boot_selftest_failed ? 1 : 0;
}
TF_COMMAND(selftest, "run the self-test again", cmd_selftest);

static int cmd_exit(int argc, char **argv) {
    uint32_t code = boot_selftest_failed ? TF_EXIT_SELFTEST_FAILED : TF_EXIT_OK;
    if (argc > 1 && !tf_parse_u32(argv[1], &code)) {
        printf("error: exit code must be a number\n");
        return 1;
    }
    printf("exit %lu\n", (unsigned long)code);
    tf_exit((int)code);
}
TF_COMMAND(exit, "end the simulation: exit [code]", cmd_exit);

static int cmd_leds(int argc, char **argv) {
    uint32_t v;
    if (argc != 2 || !tf_parse_u32(argv[1], &v)) {
        printf("usage: leds <value>\n");
        return 1;
    }
    tf_write32(GPIO_BASE + GPIO_OUT, v);
    return 0;
}
TF_COMMAND(leds, "leds <value>", cmd_leds);

extern const struct tf_command __tf_commands_start[], __tf_commands_end[];

/* Through printf's output, which adds the CR before each LF, so that a machine request's console command is captured
 * whole (drivers/uart.h uart_capture): the console's own CRs are left out. */
static void console_out(const char *s, size_t n) {
    while (n) {
        size_t k = 0;
        while (k < n && s[k] != '\r') k++;
        tf_stdout_write(s, k);
        if (k < n) k++;
        s += k;
        n -= k;
    }
}

static struct console con;

/* Everything done once at boot, in a function of its own: inlined into main (link-time optimisation inlines what is
 * called once), its locals would stay in main's frame, under every call of the main loop (the stack's deepest use grew
 * by 220 bytes that way). */
static __attribute__((noinline)) void boot(void) {
#ifdef TF_HAS_ETH
    netif_init();
    fixclient_init();
#endif
    console_init(&con, __tf_commands_start, (size_t)(__tf_commands_end - __tf_commands_start), console_out, true);
    machine_init(&con, TF_FW_VERSION);
#ifdef TF_HAS_RISK
    risk_defaults(&con); /* the build's risk limits (fw/Makefile RISK_DEFAULTS) */
#endif
    console_prompt(&con);
}

static __attribute__((noinline)) int boot_selftest(void) {
    banner();
    int failed = selftest_run();
    printf(failed ? "SELFTEST FAIL\n" : "SELFTEST PASS\n");
    return failed;
}

int main(void) {
    stack_paint();
    uart_init();
    boot_selftest_failed = boot_selftest();
#ifdef TF_EXIT_AFTER_SELFTEST
    return boot_selftest_failed ? TF_EXIT_SELFTEST_FAILED : TF_EXIT_OK;
#endif
    boot();
    for (;;) {
        int c;
        TF_LOOP(TF_LOOP_CONSOLE, while ((c = uart_getc()) >= 0) /* everything typed so far, echoed slowly under load */
                                     if (console_feed(&con, (char)c)) break); /* a command ran: the network's turn */
#ifdef TF_HAS_ETH
        netif_poll();
        fixclient_poll();
#endif
    }
}
