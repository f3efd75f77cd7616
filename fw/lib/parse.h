/* Number parsing for console arguments and configuration: strict (the whole string must be a number),
 * with overflow detection. Decimal, or hexadecimal with 0x. */
#ifndef TF_LIB_PARSE_H
#define TF_LIB_PARSE_H

#include <stdbool.h>
#include <stdint.h>

/* Returns true and sets *out when s is a valid number that fits in 32 bits; false otherwise (out unchanged). */
bool tf_parse_u32(const char *s, uint32_t *out);
/* Dotted-quad IPv4 address into host order (a.b.c.d -> 0xaabbccdd). */
bool tf_parse_ipv4(const char *s, uint32_t *out);
/* MAC address aa:bb:cc:dd:ee:ff. */
bool tf_parse_mac(const char *s, uint8_t out[6]);
/* Packed BCD (one decimal digit a nibble, the last digit in bits 3:0) of `digits` digits (1..8; higher bits are
 * ignored) -> its value in *out. false (out unchanged) when a digit is above 9. The hardware logs decimal digits
 * where a binary value would cost it timing (the fire's trade price, the engine's time of day). */
bool tf_bcd_u32(uint32_t bcd, unsigned digits, uint32_t *out);

#endif
