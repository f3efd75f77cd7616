/* The SoC header as the stop-logic host programs see it (tests/stops_replay.c, tests/test_app_stops.c): a
 * timebase for drivers/timer.h and no hardware offload, so that app/stops.c builds on the host unchanged. */
#ifndef TF_SOC_H
#define TF_SOC_H
#define TF_TIMEBASE_HZ 1000000UL
#endif
