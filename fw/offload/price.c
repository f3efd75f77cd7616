/* BCD trade price of a fire -> fixed point (see price.h). */
#include "offload/price.h"

#include "lib/parse.h"

bool ofl_price_from_bcd(uint64_t bcd, int64_t *price)
{
    if (bcd == OFL_PRICE_BCD_ALL_ONES) {
        *price = OFL_PRICE_HUGE;
        return true;
    }
    if (bcd >> (4 * OFL_PRICE_BCD_DIGITS)) return false;
    /* two halves of 7 digits in 32-bit arithmetic (a 64-bit multiply per digit costs a library call on RV32) */
    uint32_t hi, lo;
    if (!tf_bcd_u32((uint32_t)(bcd >> 28), 7, &hi) || !tf_bcd_u32((uint32_t)bcd, 7, &lo)) return false;
    *price = (int64_t)hi * 10000000 + lo;
    return true;
}
