/* net/net.c - stack set-up, frame dispatch and timers.
 * Input: frames (net_input), time (net_poll), configuration.
 * Output: dispatch to ARP/IPv4 by EtherType after the MAC filter; frames to ops->tx. */
#include <string.h>
#include "net/net.h"

void net_init(struct net_stack *s, const uint8_t mac[ETH_ADDR_LEN], const struct net_config *cfg,
              const struct net_ops *ops, void *ctx, uint64_t now_ms)
{
    memset(s, 0, sizeof(*s));
    memcpy(s->mac, mac, ETH_ADDR_LEN);
    if (cfg)
        s->cfg = *cfg;
    s->ops = ops;
    s->ctx = ctx;
    s->now_ms = now_ms;
    s->ip_id = (uint16_t)ops->rand32(ctx);
    for (unsigned i = 0; i < NET_TCP_MAX_CONNS; i++)
        s->tcp[i].stack = s;
}

void net_set_config(struct net_stack *s, const struct net_config *cfg) { s->cfg = *cfg; }

const struct net_config *net_get_config(const struct net_stack *s) { return &s->cfg; }

const struct net_counters *net_get_counters(const struct net_stack *s) { return &s->cnt; }

void net_input(struct net_stack *s, const uint8_t *frame, size_t len, uint64_t now_ms)
{
    net_input_checked(s, frame, len, now_ms, false);
}

void net_input_checked(struct net_stack *s, const uint8_t *frame, size_t len, uint64_t now_ms, bool sums_ok)
{
    struct eth_hdr eh;
    if (now_ms > s->now_ms)
        s->now_ms = now_ms;
    s->cnt.eth_rx++;
    if (!eth_parse(frame, len, &eh)) {
        s->cnt.eth_runt++;
        return;
    }
    eh.sums_ok = sums_ok;
    if (!eth_accept(s->mac, eh.dst)) {
        s->cnt.eth_not_for_us++;
        return;
    }
    switch (eh.type) {
    case ETH_TYPE_ARP:  arp_input(s, &eh); break;
    case ETH_TYPE_IPV4: ipv4_input(s, &eh); break;
    default:            s->cnt.eth_unknown_type++; break;
    }
}

void net_poll(struct net_stack *s, uint64_t now_ms)
{
    if (now_ms > s->now_ms)
        s->now_ms = now_ms;
    arp_poll(s);
    tcp_poll(s);
}

void net_tx_frame(struct net_stack *s, uint8_t *frame, size_t len)
{
    if (len < ETH_FRAME_MIN) {
        memset(frame + len, 0, ETH_FRAME_MIN - len);
        len = ETH_FRAME_MIN;
    }
    s->cnt.eth_tx++;
    s->ops->tx(s->ctx, frame, len);
}

void net_arp_event(struct net_stack *s, uint32_t ip, bool ok)
{
    tcp_arp_event(s, ip, ok);
    if (s->ops->arp_result)
        s->ops->arp_result(s->ctx, ip, ok);
}
