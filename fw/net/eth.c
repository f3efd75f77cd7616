/* net/eth.c - Ethernet II header parse/build and destination filter.
 * Input: frame bytes. Output: struct eth_hdr, built headers, accept decision. */
#include <string.h>
#include "net/eth.h"
#include "net/net_util.h"
#include "lib/mem.h"

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

bool eth_is_broadcast(const uint8_t mac[ETH_ADDR_LEN])
{
    return (mac[0] & mac[1] & mac[2] & mac[3] & mac[4] & mac[5]) == 0xFF;
}

bool eth_accept(const uint8_t our_mac[ETH_ADDR_LEN], const uint8_t dst[ETH_ADDR_LEN])
{
#if defined(TF_MEM_WORDS) && TF_MEM_WORDS
    /* Both at even addresses (a receive slot's frame, the stack's own address): three halfwords a side instead of six
     * bytes (the receive slots answer halfword loads: ethmac.h). The 35=W receive path: eth_accept 41 -> 19 cycles a W
     * (profiling build, sim/tests/run.sh w_cost with +pc-hist, tools/pc-hist.py), and 64 bytes less code (the byte
     * compare was unrolled where the check was put in line). */
    typedef uint16_t __attribute__((may_alias)) half_t;
    if (!(((uintptr_t)dst | (uintptr_t)our_mac) & 1u)) {
        const half_t *d = (const half_t *)dst, *o = (const half_t *)our_mac;
        return ((d[0] ^ o[0]) | (d[1] ^ o[1]) | (d[2] ^ o[2])) == 0 || eth_is_broadcast(dst);
    }
#endif
    return tf_bytes_eq(dst, our_mac, ETH_ADDR_LEN) || eth_is_broadcast(dst); /* every received frame: in line */
}
