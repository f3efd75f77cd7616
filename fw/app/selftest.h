/* Boot self-test: the CPU's M extension against a reference, the machine timer interrupt, the cycle
 * counter, and RAM patterns (word and byte lanes). Prints one line per check; returns the number failed. */
#ifndef TF_APP_SELFTEST_H
#define TF_APP_SELFTEST_H

int selftest_run(void);

#endif
