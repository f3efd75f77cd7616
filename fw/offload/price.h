/* The trade price the receive parser logs with a fire (OFFLOAD_RX.FIRE_PRICE_HI/LO, hw/src/triggerfish/offload/README.md
 * "Logged price"): the 14 decimal digits of its fixed-point value as BCD, the last digit in bits 3:0, all ones for a
 * price of 10^14 or more (fixed point), 0 for a negative one. The hardware logs digits because it only shifts them
 * in (its 48-bit binary accumulator was the receive clock's critical path); firmware converts them here.
 * Transport-agnostic and host-tested (fw/tests/test_offload_price.c). */
#ifndef TF_OFFLOAD_PRICE_H
#define TF_OFFLOAD_PRICE_H

#include <stdbool.h>
#include <stdint.h>

#define OFL_PRICE_BCD_DIGITS 14
#define OFL_PRICE_BCD_ALL_ONES ((1ull << (4 * OFL_PRICE_BCD_DIGITS)) - 1u)
#define OFL_PRICE_HUGE ((int64_t)((1ull << 48) - 1u)) /* what a price of 10^14 or more is reported as */

/* The logged digits (56 bits) -> the fixed-point value in *price: OFL_PRICE_HUGE for all ones. false (and *price
 * untouched) when a digit is above 9 or a bit above the 56 is set: not a price the parser logs. */
bool ofl_price_from_bcd(uint64_t bcd, int64_t *price);

#endif
