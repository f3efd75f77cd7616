/* net/checksum.c - Internet checksum (RFC 1071).
 * Input: byte buffers, IPv4 pseudo-header fields.
 * Output: 32-bit running sums and folded 16-bit checksums. */
#include "net/net_util.h"

uint32_t net_csum_add(uint32_t sum, const uint8_t *data, size_t len)
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
