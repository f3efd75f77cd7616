/* net/eth.c - Ethernet II header parse/build and destination filter.
 * Input: frame bytes. Output: struct eth_hdr, built headers, accept decision. */
#include <string.h>
#include "net/eth.h"
#include "net/net_util.h"

const uint8_t eth_broadcast_addr[ETH_ADDR_LEN] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff};

bool eth_parse(const uint8_t *frame, size_t len, struct eth_hdr *out)
{
    if (frame == NULL || len < ETH_HDR_LEN)
        return false;
    out->dst = frame;
    out->src = frame + 6;
    out->type = net_rd16(frame + 12);
    out->payload = frame + ETH_HDR_LEN;
    out->payload_len = len - ETH_HDR_LEN;
    out->sums_ok = false;
    return true;
}

void eth_build(uint8_t *frame, const uint8_t dst[ETH_ADDR_LEN], const uint8_t src[ETH_ADDR_LEN], uint16_t type)
{
    memcpy(frame, dst, ETH_ADDR_LEN);
    memcpy(frame + 6, src, ETH_ADDR_LEN);
    net_wr16(frame + 12, type);
}

/* Byte compares in line: every received frame takes eth_accept, and a library memcmp call cost more than the
 * six bytes (the addresses need not be aligned). */
static inline bool mac_eq(const uint8_t a[ETH_ADDR_LEN], const uint8_t b[ETH_ADDR_LEN])
{
    uint32_t d = 0;
#if TF_MEM_WORDS /* unrolled where the RAM has room (fw/Makefile) */
#pragma GCC unroll 6
#endif
    for (unsigned i = 0; i < ETH_ADDR_LEN; i++) d |= (uint32_t)(a[i] ^ b[i]);
    return d == 0;
}

bool eth_is_broadcast(const uint8_t mac[ETH_ADDR_LEN])
{
    return (mac[0] & mac[1] & mac[2] & mac[3] & mac[4] & mac[5]) == 0xFF;
}

bool eth_accept(const uint8_t our_mac[ETH_ADDR_LEN], const uint8_t dst[ETH_ADDR_LEN])
{
    return mac_eq(dst, our_mac) || eth_is_broadcast(dst);
}
