/* net/arp.c - ARP replies, requests with retries, cache with aging.
 * Input: ARP packets (after the MAC filter), resolve calls, time.
 * Output: ARP frames, cache updates, resolved/failed events (net_arp_event). */
#include <string.h>
#include "net/net.h"
#include "net/net_util.h"

static struct arp_entry *find_entry(struct net_stack *s, uint32_t ip)
{
    for (unsigned i = 0; i < NET_ARP_ENTRIES; i++)
        if (s->arp[i].used && s->arp[i].ip == ip)
            return &s->arp[i];
    return NULL;
}

static struct arp_pending *find_pending(struct net_stack *s, uint32_t ip)
{
    for (unsigned i = 0; i < NET_ARP_PENDING; i++)
        if (s->arp_pend[i].used && s->arp_pend[i].ip == ip)
            return &s->arp_pend[i];
    return NULL;
}

bool arp_lookup(const struct net_stack *s, uint32_t ip, uint8_t mac_out[ETH_ADDR_LEN])
{
    for (unsigned i = 0; i < NET_ARP_ENTRIES; i++)
        if (s->arp[i].used && s->arp[i].ip == ip) {
            if (mac_out)
                memcpy(mac_out, s->arp[i].mac, ETH_ADDR_LEN);
            return true;
        }
    return false;
}

void arp_cache_put(struct net_stack *s, uint32_t ip, const uint8_t mac[ETH_ADDR_LEN])
{
    struct arp_entry *e = find_entry(s, ip);
    if (!e) {
        e = &s->arp[0];
        for (unsigned i = 0; i < NET_ARP_ENTRIES; i++) {
            if (!s->arp[i].used) { e = &s->arp[i]; break; }
            if (s->arp[i].updated_ms < e->updated_ms)
                e = &s->arp[i];   /* oldest, replaced when the table is full */
        }
    }
    e->used = true;
    e->ip = ip;
    memcpy(e->mac, mac, ETH_ADDR_LEN);
    e->updated_ms = s->now_ms;
}

void arp_flush(struct net_stack *s)
{
    memset(s->arp, 0, sizeof(s->arp));
}

/* Builds and sends one ARP packet. */
static void arp_send(struct net_stack *s, uint16_t op, const uint8_t eth_dst[ETH_ADDR_LEN],
                     const uint8_t tha[ETH_ADDR_LEN], uint32_t tpa)
{
    static const uint8_t zero[ETH_ADDR_LEN] = {0};
    uint8_t *f = s->arp_txbuf;
    uint8_t *a = f + ETH_HDR_LEN;
    eth_build(f, eth_dst, s->mac, ETH_TYPE_ARP);
    net_wr16(a + 0, 1);               /* hardware: Ethernet */
    net_wr16(a + 2, ETH_TYPE_IPV4);   /* protocol: IPv4 */
    a[4] = ETH_ADDR_LEN;
    a[5] = 4;
    net_wr16(a + 6, op);
    memcpy(a + 8, s->mac, ETH_ADDR_LEN);
    net_wr32(a + 14, s->cfg.ip);
    memcpy(a + 18, tha ? tha : zero, ETH_ADDR_LEN);
    net_wr32(a + 24, tpa);
    if (op == ARP_OP_REQUEST)
        s->cnt.arp_req_out++;
    else
        s->cnt.arp_reply_out++;
    net_tx_frame(s, f, ETH_HDR_LEN + ARP_PKT_LEN);
}

void arp_announce(struct net_stack *s)
{
    if (s->cfg.ip != 0)
        arp_send(s, ARP_OP_REQUEST, eth_broadcast_addr, NULL, s->cfg.ip);
}

enum arp_result arp_resolve(struct net_stack *s, uint32_t ip, uint8_t mac_out[ETH_ADDR_LEN])
{
    struct arp_entry *e = find_entry(s, ip);
    bool stale = e && s->now_ms - e->updated_ms >= NET_ARP_TTL_MS;
    if (e && mac_out)
        memcpy(mac_out, e->mac, ETH_ADDR_LEN);
    if (e && !stale)
        return ARP_FOUND;
    if (!find_pending(s, ip)) {
        struct arp_pending *p = NULL;
        for (unsigned i = 0; i < NET_ARP_PENDING; i++)
            if (!s->arp_pend[i].used) { p = &s->arp_pend[i]; break; }
        if (!p) {
            s->cnt.arp_pending_full++;
            return e ? ARP_FOUND : ARP_NO_SLOT;
        }
        p->used = true;
        p->ip = ip;
        p->tries = 1;
        p->next_ms = s->now_ms + NET_ARP_RETRY_MS;
        arp_send(s, ARP_OP_REQUEST, eth_broadcast_addr, NULL, ip);
    }
    return e ? ARP_FOUND : ARP_IN_PROGRESS;   /* a stale entry is still used while refreshing */
}

void arp_poll(struct net_stack *s)
{
    for (unsigned i = 0; i < NET_ARP_PENDING; i++) {
        struct arp_pending *p = &s->arp_pend[i];
        if (!p->used || s->now_ms < p->next_ms)
            continue;
        if (p->tries >= NET_ARP_TRIES) {
            uint32_t ip = p->ip;
            struct arp_entry *e = find_entry(s, ip);
            p->used = false;
            if (e)
                e->used = false;       /* failed refresh: forget the stale mapping */
            s->cnt.arp_resolve_fail++;
            net_arp_event(s, ip, false);
        } else {
            p->tries++;
            p->next_ms = s->now_ms + NET_ARP_RETRY_MS;
            arp_send(s, ARP_OP_REQUEST, eth_broadcast_addr, NULL, p->ip);
        }
    }
}

void arp_input(struct net_stack *s, const struct eth_hdr *eh)
{
    const uint8_t *a = eh->payload;
    s->cnt.arp_rx++;
    if (eh->payload_len < ARP_PKT_LEN || net_rd16(a) != 1 || net_rd16(a + 2) != ETH_TYPE_IPV4 ||
        a[4] != ETH_ADDR_LEN || a[5] != 4) {
        s->cnt.arp_bad++;
        return;
    }
    uint16_t op = net_rd16(a + 6);
    const uint8_t *sha = a + 8;
    uint32_t spa = net_rd32(a + 14);
    uint32_t tpa = net_rd32(a + 24);
    if ((op != ARP_OP_REQUEST && op != ARP_OP_REPLY) || eth_is_broadcast(sha) || (sha[0] & 1)) {
        s->cnt.arp_bad++;
        return;
    }
    bool for_us = s->cfg.ip != 0 && tpa == s->cfg.ip;
    if (op == ARP_OP_REQUEST) {
        if (!for_us) {
            s->cnt.arp_req_other++;
        } else {
            s->cnt.arp_req_in++;
            arp_send(s, ARP_OP_REPLY, sha, sha, spa);
        }
    } else {
        s->cnt.arp_reply_in++;
    }
    if (spa == 0 || spa == s->cfg.ip)
        return;   /* probe (RFC 5227) or someone claiming our address: learn nothing */
    /* RFC 826 merge: refresh a known sender; add it when the packet was meant for us. */
    struct arp_pending *p = find_pending(s, spa);
    if (find_entry(s, spa) || for_us || p)
        arp_cache_put(s, spa, sha);
    if (p) {
        p->used = false;
        net_arp_event(s, spa, true);
    }
}
