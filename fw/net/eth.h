/* net/eth.h - Ethernet II framing.
 * Input: a received frame (without preamble/FCS) or the fields of a header to build.
 * Output: the parsed header (destination, source, EtherType, payload) or 14 built bytes.
 * Frames we send are zero-padded to the 60-byte minimum (the MAC appends the FCS). */
#ifndef NET_ETH_H
#define NET_ETH_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>

#define ETH_ADDR_LEN     6
#define ETH_HDR_LEN      14
#define ETH_MTU          1500            /* largest IPv4 packet we send or accept */
#define ETH_FRAME_MAX    (ETH_HDR_LEN + ETH_MTU)   /* 1514, no FCS */
#define ETH_FRAME_MIN    60              /* without FCS; shorter frames are padded */
#define ETH_TYPE_IPV4    0x0800u
#define ETH_TYPE_ARP     0x0806u

struct eth_hdr {
    const uint8_t *dst;      /* points into the frame */
    const uint8_t *src;
    uint16_t type;
    const uint8_t *payload;
    size_t payload_len;
    bool sums_ok;            /* the receiver verified its IPv4 header and TCP checksums (net_input_checked) */
};

extern const uint8_t eth_broadcast_addr[ETH_ADDR_LEN];

/* Splits a frame; false when shorter than the header. No filtering here. */
bool eth_parse(const uint8_t *frame, size_t len, struct eth_hdr *out);
/* Writes the 14-byte header at frame[0..13]. */
void eth_build(uint8_t *frame, const uint8_t dst[ETH_ADDR_LEN], const uint8_t src[ETH_ADDR_LEN], uint16_t type);
bool eth_is_broadcast(const uint8_t mac[ETH_ADDR_LEN]);
/* Accepts frames for our unicast address or broadcast (multicast is dropped). */
bool eth_accept(const uint8_t our_mac[ETH_ADDR_LEN], const uint8_t dst[ETH_ADDR_LEN]);

#endif
