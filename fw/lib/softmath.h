/* Reference integer arithmetic written with shifts and adds only, following the RISC-V M extension's
 * definitions (including division by zero and signed overflow). The self-test compares the CPU's
 * MUL/MULH/MULHSU/MULHU/DIV/DIVU/REM/REMU against these. */
#ifndef TF_LIB_SOFTMATH_H
#define TF_LIB_SOFTMATH_H

#include <stdint.h>

uint32_t soft_mul(uint32_t a, uint32_t b);       /* low 32 bits of a*b */
uint32_t soft_mulhu(uint32_t a, uint32_t b);     /* high 32 bits, unsigned x unsigned */
uint32_t soft_mulh(int32_t a, int32_t b);        /* high 32 bits, signed x signed */
uint32_t soft_mulhsu(int32_t a, uint32_t b);     /* high 32 bits, signed x unsigned */
uint32_t soft_divu(uint32_t a, uint32_t b);      /* b == 0 -> 0xFFFFFFFF */
uint32_t soft_remu(uint32_t a, uint32_t b);      /* b == 0 -> a */
int32_t soft_div(int32_t a, int32_t b);          /* b == 0 -> -1; INT32_MIN / -1 -> INT32_MIN */
int32_t soft_rem(int32_t a, int32_t b);          /* b == 0 -> a; INT32_MIN % -1 -> 0 */

#endif
