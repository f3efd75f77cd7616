/* fuzz/stub/soc.h - host stand-in for the SoC header the hardware build generates (build/hw/<target>/soc.h), for
 * the fuzzers that compile app/ files on the host. It describes a SoC without the offload and without Ethernet
 * (TF_HAS_OFFLOAD and TF_HAS_ETH undefined: the firmware-only paths); the timer counts in microseconds, and
 * timer_ticks() is the harness's clock. No register is touched: the files compiled here read none. */
#ifndef TF_FUZZ_STUB_SOC_H
#define TF_FUZZ_STUB_SOC_H

#define TF_TIMEBASE_HZ 1000000u

#endif
