/* net/ipv4.c - IPv4 header checks, dispatch to ICMP/TCP, header building, next hop.
 * Input: IPv4 packets from Ethernet; packets built by ICMP/TCP at ipv4_tx_payload().
 * Output: checked headers to icmp_input/tcp_input (drops counted), frames to net_tx_frame. */
#include <string.h>
#include "net/net.h"
#include "net/icmp.h"
#include "net/net_util.h"

int ipv4_parse(const uint8_t *pkt, size_t len, struct ipv4_hdr *out) { return ipv4_parse_sum(pkt, len, out, false); }

int ipv4_parse_sum(const uint8_t *pkt, size_t len, struct ipv4_hdr *out, bool sum_ok)
{
    if (len < IPV4_HDR_LEN || (pkt[0] >> 4) != 4)
        return NET_CTR_ip_bad_header;
    size_t ihl = (size_t)(pkt[0] & 0x0F) * 4;
    size_t total = net_rd16(pkt + 2);
    if (ihl < IPV4_HDR_LEN || ihl > len || total < ihl || total > len)
        return NET_CTR_ip_bad_header;
    if (!sum_ok && net_csum_fold(net_csum_add(0, pkt, ihl)) != 0)
        return NET_CTR_ip_bad_checksum;
    uint16_t frag = net_rd16(pkt + 6);
    if ((frag & 0x2000u) || (frag & 0x1FFFu))   /* MF set or offset != 0 */
        return NET_CTR_ip_fragment;
    out->proto = pkt[9];
    out->src = net_rd32(pkt + 12);
    out->dst = net_rd32(pkt + 16);
    out->payload = pkt + ihl;
    out->payload_len = total - ihl;   /* Ethernet padding beyond total is ignored */
    return 0;
}

void ipv4_input(struct net_stack *s, const struct eth_hdr *eh)
{
    struct ipv4_hdr ih;
    s->cnt.ip_rx++;
    int r = ipv4_parse_sum(eh->payload, eh->payload_len, &ih, eh->sums_ok); /* (a checked frame's sum: verified) */
    if (r != 0) {
        switch (r) {
        case NET_CTR_ip_bad_checksum: s->cnt.ip_bad_checksum++; break;
        case NET_CTR_ip_fragment:     s->cnt.ip_fragment++; break;
        default:                      s->cnt.ip_bad_header++; break;
        }
        return;
    }
    ih.eth = eh;
    if (s->cfg.ip == 0 || ih.dst != s->cfg.ip) {
        s->cnt.ip_not_for_us++;
        return;
    }
    if ((eh->payload[0] & 0x0F) > 5)
        s->cnt.ip_options++;
    switch (ih.proto) {
    case IP_PROTO_ICMP: icmp_input(s, &ih); break;
    case IP_PROTO_TCP:  tcp_input(s, &ih); break;
    default:            s->cnt.ip_unknown_proto++; break;
    }
}

uint8_t *ipv4_tx_payload(struct net_stack *s)
{
#ifdef NET_TX_EXTERNAL
    s->tx_frame = s->ops->tx_buffer(s->ctx);
#else
    s->tx_frame = s->ops->tx_buffer ? s->ops->tx_buffer(s->ctx) : s->txbuf;
#endif
    return s->tx_frame + ETH_HDR_LEN + IPV4_HDR_LEN;
}

uint32_t ipv4_next_hop(const struct net_stack *s, uint32_t dst)
{
    if (((dst ^ s->cfg.ip) & s->cfg.netmask) == 0)
        return dst;
    return s->cfg.gateway;
}

bool ipv4_send_to_mac(struct net_stack *s, const uint8_t mac[ETH_ADDR_LEN], uint32_t dst,
                      uint8_t proto, size_t len)
{
    if (len > IPV4_PAYLOAD_MAX) {
        s->cnt.ip_tx_too_big++;
        return false;
    }
    uint8_t *f = s->tx_frame; /* the payload is there already: ipv4_tx_payload() */
    uint8_t *ip = f + ETH_HDR_LEN;
    eth_build(f, mac, s->mac, ETH_TYPE_IPV4);
    ip[0] = 0x45;
    ip[1] = 0;
    net_wr16(ip + 2, (uint16_t)(IPV4_HDR_LEN + len));
    net_wr16(ip + 4, s->ip_id++);
    net_wr16(ip + 6, 0x4000);          /* DF: we never fragment */
    ip[8] = IPV4_TTL;
    ip[9] = proto;
    net_wr16(ip + 10, 0);
    net_wr32(ip + 12, s->cfg.ip);
    net_wr32(ip + 16, dst);
    net_wr16(ip + 10, net_csum_fold(net_csum_add(0, ip, IPV4_HDR_LEN)));
    s->cnt.ip_tx++;
    net_tx_frame(s, f, ETH_HDR_LEN + IPV4_HDR_LEN + len);
    return true;
}

bool ipv4_send(struct net_stack *s, uint32_t dst, uint8_t proto, size_t len)
{
    uint8_t mac[ETH_ADDR_LEN];
    uint32_t hop = ipv4_next_hop(s, dst);
    if (hop == 0 || arp_resolve(s, hop, mac) != ARP_FOUND) {
        s->cnt.ip_tx_no_arp++;
        return false;
    }
    return ipv4_send_to_mac(s, mac, dst, proto, len);
}
