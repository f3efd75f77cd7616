/* Start-up and run control shared by the firmware: exit codes and tf_exit. */
#ifndef TF_START_H
#define TF_START_H

#include <stdint.h>

#define TF_EXIT_OK 0
#define TF_EXIT_SELFTEST_FAILED 1
#define TF_EXIT_FATAL 0x7F

/* Flushes the console and ends the run (the simulation exits with `code`; a board stops here). */
void tf_exit(int code) __attribute__((noreturn));
void tf_trap_handler(uint32_t mcause, uint32_t mepc, uint32_t mtval);

/* The stack reserve (start/link.ld): from __heap_end up to __stack_top. main paints what the stack has not used
 * with TF_STACK_PAINT at boot, so that `info` can tell how deep it has been used. */
#define TF_STACK_PAINT 0x5AC35AC3u
extern uint32_t __heap_end[], __stack_top[];

#endif
