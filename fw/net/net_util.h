/* net/net_util.h - small helpers shared by the network stack.
 * Input: raw byte buffers and 32-bit sequence numbers.
 * Output: big-endian loads/stores, Internet checksum (RFC 1071) and
 * sequence-number comparisons modulo 2^32 (RFC 9293 section 3.4). */
#ifndef NET_NET_UTIL_H
#define NET_NET_UTIL_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

/* The loads in line where the RAM has room (TF_MEM_WORDS, fw/Makefile): link-time optimisation otherwise keeps one
 * copy of net_rd32 that the receive path calls four times a segment (IPv4 addresses, TCP sequence and ACK numbers). */
#if defined(TF_MEM_WORDS) && TF_MEM_WORDS
#define NET_LOAD_INLINE inline __attribute__((always_inline))
#else
#define NET_LOAD_INLINE inline
#endif
static NET_LOAD_INLINE uint16_t net_rd16(const uint8_t *p) { return (uint16_t)((p[0] << 8) | p[1]); }
static NET_LOAD_INLINE uint32_t net_rd32(const uint8_t *p)
{
    return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | p[3];
}
static inline void net_wr16(uint8_t *p, uint16_t v) { p[0] = (uint8_t)(v >> 8); p[1] = (uint8_t)v; }
static inline void net_wr32(uint8_t *p, uint32_t v)
{
    p[0] = (uint8_t)(v >> 24); p[1] = (uint8_t)(v >> 16); p[2] = (uint8_t)(v >> 8); p[3] = (uint8_t)v;
}

/* Sequence-space comparisons: a < b when b is "ahead" of a by less than 2^31. */
static inline bool seq_lt(uint32_t a, uint32_t b) { return (uint32_t)(a - b) >= 0x80000000u; }
static inline bool seq_leq(uint32_t a, uint32_t b) { return a == b || seq_lt(a, b); }
static inline bool seq_gt(uint32_t a, uint32_t b) { return seq_lt(b, a); }
static inline bool seq_geq(uint32_t a, uint32_t b) { return seq_leq(b, a); }

/* Adds data to a running one's-complement sum of big-endian 16-bit words.
 * Only the last chunk of a checksummed region may have an odd length. */
uint32_t net_csum_add(uint32_t sum, const uint8_t *data, size_t len);
/* Folds a running sum to 16 bits and complements it (the value to store in a header). */
uint16_t net_csum_fold(uint32_t sum);
/* Sum of the IPv4 pseudo-header used by TCP/UDP checksums (addresses in host order). */
uint32_t net_csum_pseudo(uint32_t src, uint32_t dst, uint8_t proto, uint16_t l4_len);

#endif
