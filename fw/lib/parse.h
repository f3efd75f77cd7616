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

#endif
