/* BCD trade price of a fire -> fixed point (see price.h). */
#include "offload/price.h"

bool ofl_price_from_bcd(uint64_t bcd, int64_t *price)
{
    if (bcd == OFL_PRICE_BCD_ALL_ONES) {
        *price = OFL_PRICE_HUGE;
        return true;
    }
    if (bcd >> (4 * OFL_PRICE_BCD_DIGITS)) return false;
    /* two halves of 7 digits in 32-bit arithmetic (a 64-bit multiply per digit costs a library call on RV32) */
    uint32_t part[2];
    for (int h = 0; h < 2; h++) {
        uint32_t w = (uint32_t)(bcd >> (28 * (1 - h))) & 0x0FFFFFFFu, v = 0;
        for (int i = 6; i >= 0; i--) {
            uint32_t d = (w >> (4 * i)) & 0xFu;
            if (d > 9) return false;
            v = v * 10u + d;
        }
        part[h] = v;
    }
    *price = (int64_t)part[0] * 10000000 + part[1];
    return true;
}
