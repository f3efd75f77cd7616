/* net/ipv4.h - IPv4 input checks and output (RFC 791), no fragmentation.
 * Input: the payload of an Ethernet frame of type 0x0800.
 * Output: the checked header handed to ICMP/TCP, or a drop counted by reason
 * (bad header, bad checksum, fragment, not for us, unknown protocol).
 * Options (IHL > 5) are accepted and skipped. Ethernet padding is trimmed using
 * the total length.
 *
 * Sending: the upper layer writes its header+payload at ipv4_tx_payload() and calls
 * ipv4_send(); the IPv4 header (id, TTL 64, DF, checksum) and the Ethernet header
 * are filled in and the frame goes to net_ops.tx. The next hop is the destination when
 * it is on our subnet, else the gateway (net_config, changeable at run time). */
#ifndef NET_IPV4_H
#define NET_IPV4_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "net/eth.h"

#define IPV4_HDR_LEN       20
#define IPV4_PAYLOAD_MAX   (ETH_MTU - IPV4_HDR_LEN)    /* 1480 */
#define IPV4_TTL           64
#define IP_PROTO_ICMP      1
#define IP_PROTO_TCP       6

struct net_stack;

/* (The received header's identification and TTL are not kept: nothing read them, and every segment paid for them:
 * the 35=W receive path's netif_poll 492 -> 478 cycles a W, profiling build, sim/tests/run.sh w_cost with +pc-hist,
 * tools/pc-hist.py; 24 bytes less code.) */
struct ipv4_hdr {
    uint32_t src, dst;          /* host byte order */
    uint8_t proto;
    const uint8_t *payload;     /* after options, into the received frame */
    size_t payload_len;         /* from the total length (padding removed) */
    const struct eth_hdr *eth;  /* the frame it came in */
};

/* Checks a header without side effects: 0 ok, else the NET_CTR_ip_* index of the reason.
 * Does not check the destination address. */
int ipv4_parse(const uint8_t *pkt, size_t len, struct ipv4_hdr *out);
/* The same, the header checksum not summed when sum_ok: the receiver verified it (eth_hdr.sums_ok). */
int ipv4_parse_sum(const uint8_t *pkt, size_t len, struct ipv4_hdr *out, bool sum_ok);

/* Where the upper layer builds its packet (IPV4_PAYLOAD_MAX bytes). */
uint8_t *ipv4_tx_payload(struct net_stack *s);
/* Sends the packet built at ipv4_tx_payload() to dst. Returns true when handed to tx;
 * false when the next hop MAC is not known yet (an ARP resolution is started) or len too big. */
bool ipv4_send(struct net_stack *s, uint32_t dst, uint8_t proto, size_t len);
/* Same, to a known next-hop MAC (replies to the MAC the request came from). */
bool ipv4_send_to_mac(struct net_stack *s, const uint8_t mac[ETH_ADDR_LEN], uint32_t dst,
                      uint8_t proto, size_t len);
/* The address to ARP for when sending to dst (dst itself on our subnet, else the gateway). */
uint32_t ipv4_next_hop(const struct net_stack *s, uint32_t dst);

/* Internal, called by net.c. */
void ipv4_input(struct net_stack *s, const struct eth_hdr *eh);

#endif
