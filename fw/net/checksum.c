/* net/checksum.c - Internet checksum (RFC 1071).
 * Input: byte buffers, IPv4 pseudo-header fields.
 * Output: 32-bit running sums and folded 16-bit checksums. */
#include "net/net_util.h"

#include <string.h>

/* Byte pairs (data[0] the high byte), for a buffer at an odd address. */
static uint32_t csum_bytes(uint32_t sum, const uint8_t *data, size_t len)
{
    size_t i = 0;
    for (; i + 1 < len; i += 2) {
        sum += (uint32_t)((data[i] << 8) | data[i + 1]);
        if (sum & 0x80000000u) /* keep headroom: fold early on long buffers */
            sum = (sum & 0xFFFFu) + (sum >> 16);
    }
    if (i < len)
        sum += (uint32_t)data[i] << 8;
    return sum;
}

/* Word-wise: 32-bit loads summed in the CPU's byte order (the one's complement sum commutes with swapping the
 * bytes of every 16-bit word), folded to 16 bits and swapped back at the end. Same folded checksum as the
 * byte pairs, about a third of the cycles. */
uint32_t net_csum_add(uint32_t sum, const uint8_t *data, size_t len)
{
    if ((uintptr_t)data & 1u) return csum_bytes(sum, data, len);
    /* the 64-bit sum of the words as lo + carries * 2^32: three instructions a word */
    uint32_t lo = 0, carries = 0;
    if (((uintptr_t)data & 2u) && len >= 2) {
        uint16_t h;
        memcpy(&h, data, 2);
        lo = h;
        data += 2;
        len -= 2;
    }
    const uint8_t *p = __builtin_assume_aligned(data, 4);
    if (len >= 16) { /* 16 bytes a turn, the test at the bottom */
        const uint8_t *end = p + (len & ~(size_t)15);
        do {
            uint32_t a, b, c, d;
            memcpy(&a, p, 4);
            memcpy(&b, p + 4, 4);
            memcpy(&c, p + 8, 4);
            memcpy(&d, p + 12, 4);
            lo += a;
            carries += lo < a;
            lo += b;
            carries += lo < b;
            lo += c;
            carries += lo < c;
            lo += d;
            carries += lo < d;
            p += 16;
        } while (p < end);
        len &= 15;
    }
    for (; len >= 4; p += 4, len -= 4) {
        uint32_t a;
        memcpy(&a, p, 4);
        lo += a;
        carries += lo < a;
    }
    if (len >= 2) {
        uint16_t h;
        memcpy(&h, p, 2);
        lo += h;
        carries += lo < h;
        p += 2;
        len -= 2;
    }
    uint32_t w = lo + carries;
    if (w < lo) w++; /* end-around carry */
    w = (w & 0xFFFFu) + (w >> 16);
    w = (w & 0xFFFFu) + (w >> 16);
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
    if (len) w += p[0]; /* the odd last byte is the high byte of its pair: the low byte in swapped order */
    w = (w & 0xFFFFu) + (w >> 16);
    w = ((w & 0xFFu) << 8) | (w >> 8);
#else
    if (len) w += (uint32_t)p[0] << 8;
    w = (w & 0xFFFFu) + (w >> 16);
#endif
    if (sum & 0x80000000u) sum = (sum & 0xFFFFu) + (sum >> 16);
    return sum + w;
}

uint16_t net_csum_fold(uint32_t sum)
{
    while (sum >> 16)
        sum = (sum & 0xFFFFu) + (sum >> 16);
    return (uint16_t)~sum;
}

uint32_t net_csum_pseudo(uint32_t src, uint32_t dst, uint8_t proto, uint16_t l4_len)
{
    uint32_t sum = 0;
    sum += src >> 16;
    sum += src & 0xFFFFu;
    sum += dst >> 16;
    sum += dst & 0xFFFFu;
    sum += proto;
    sum += l4_len;
    return sum;
}
