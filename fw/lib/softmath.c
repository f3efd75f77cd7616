/* Shift-and-add reference arithmetic (see softmath.h). No multiply or divide instruction is used. */
#include "lib/softmath.h"

/* 64-bit product of two 32-bit unsigned values, as (hi, lo), by shift and add. */
static void mul64(uint32_t a, uint32_t b, uint32_t *hi, uint32_t *lo) {
    uint32_t rh = 0, rl = 0, ah = 0, al = a;
    while (b != 0) {
        if (b & 1u) {
            uint32_t nl = rl + al;
            rh = rh + ah + (nl < rl);
            rl = nl;
        }
        ah = (ah << 1) | (al >> 31);
        al <<= 1;
        b >>= 1;
    }
    *hi = rh;
    *lo = rl;
}

uint32_t soft_mul(uint32_t a, uint32_t b) {
    uint32_t hi, lo;
    mul64(a, b, &hi, &lo);
    return lo;
}

uint32_t soft_mulhu(uint32_t a, uint32_t b) {
    uint32_t hi, lo;
    mul64(a, b, &hi, &lo);
    return hi;
}

/* Two's complement of a 64-bit (hi, lo) pair. */
static void neg64(uint32_t *hi, uint32_t *lo) {
    *lo = ~*lo + 1u;
    *hi = ~*hi + (*lo == 0);
}

static uint32_t uabs(int32_t v) { return v < 0 ? 0u - (uint32_t)v : (uint32_t)v; }

uint32_t soft_mulh(int32_t a, int32_t b) {
    uint32_t hi, lo;
    mul64(uabs(a), uabs(b), &hi, &lo);
    if ((a < 0) != (b < 0)) neg64(&hi, &lo);
    return hi;
}

uint32_t soft_mulhsu(int32_t a, uint32_t b) {
    uint32_t hi, lo;
    mul64(uabs(a), b, &hi, &lo);
    if (a < 0) neg64(&hi, &lo);
    return hi;
}

/* Restoring division. */
static void udivmod(uint32_t n, uint32_t d, uint32_t *q, uint32_t *r) {
    uint32_t quot = 0, rem = 0;
    for (int i = 31; i >= 0; i--) {
        uint32_t carry = rem >> 31;
        rem = (rem << 1) | ((n >> i) & 1u);
        if (carry || rem >= d) {
            rem -= d;
            quot |= 1u << i;
        }
    }
    *q = quot;
    *r = rem;
}

uint32_t soft_divu(uint32_t a, uint32_t b) {
    if (b == 0) return 0xFFFFFFFFu;
    uint32_t q, r;
    udivmod(a, b, &q, &r);
    return q;
}

uint32_t soft_remu(uint32_t a, uint32_t b) {
    if (b == 0) return a;
    uint32_t q, r;
    udivmod(a, b, &q, &r);
    return r;
}

int32_t soft_div(int32_t a, int32_t b) {
    if (b == 0) return -1;
    if (a == INT32_MIN && b == -1) return INT32_MIN;
    uint32_t q, r;
    udivmod(uabs(a), uabs(b), &q, &r);
    return ((a < 0) != (b < 0)) ? (int32_t)(0u - q) : (int32_t)q;
}

int32_t soft_rem(int32_t a, int32_t b) {
    if (b == 0) return a;
    if (a == INT32_MIN && b == -1) return 0;
    uint32_t q, r;
    udivmod(uabs(a), uabs(b), &q, &r);
    return a < 0 ? (int32_t)(0u - r) : (int32_t)r;
}
