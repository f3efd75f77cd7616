/* net/icmp.c - ICMP echo reply.
 * Input: ICMP message addressed to us (checked IPv4 header).
 * Output: echo reply to the requester's MAC, counters. */
#include <string.h>
#include "net/net.h"
#include "net/icmp.h"
#include "net/net_util.h"

void icmp_input(struct net_stack *s, const struct ipv4_hdr *ih)
{
    const uint8_t *m = ih->payload;
    size_t len = ih->payload_len;
    s->cnt.icmp_rx++;
    if (len < ICMP_HDR_LEN || net_csum_fold(net_csum_add(0, m, len)) != 0) {
        s->cnt.icmp_bad++;
        return;
    }
    if (m[0] != ICMP_ECHO_REQUEST || m[1] != 0) {
        s->cnt.icmp_other++;
        return;
    }
    s->cnt.icmp_echo_req++;
    if (len > IPV4_PAYLOAD_MAX) {   /* cannot happen with a 1500 MTU, kept for safety */
        s->cnt.ip_tx_too_big++;
        return;
    }
    uint8_t *r = ipv4_tx_payload(s);
    memcpy(r, m, len);                 /* id, sequence and data unchanged */
    r[0] = ICMP_ECHO_REPLY;
    r[1] = 0;
    net_wr16(r + 2, 0);
    net_wr16(r + 2, net_csum_fold(net_csum_add(0, r, len)));
    s->cnt.icmp_echo_reply++;
    ipv4_send_to_mac(s, ih->eth->src, ih->src, IP_PROTO_ICMP, len);
}
