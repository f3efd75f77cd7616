/* net/arp.h - ARP for IPv4 over Ethernet (RFC 826).
 * Input: received ARP packets, resolve requests from IPv4 output, the time (net_poll).
 * Output: replies to requests for our address, requests (with retries), a small cache,
 * and a resolved/failed event per resolution (to TCP and to net_ops.arp_result).
 *
 * Limits: NET_ARP_ENTRIES cache entries (oldest replaced when full), NET_ARP_PENDING
 * resolutions in progress at once. A resolution sends NET_ARP_TRIES requests
 * NET_ARP_RETRY_MS apart and fails NET_ARP_RETRY_MS after the last one.
 * Aging: an entry older than NET_ARP_TTL_MS is still used but a refresh resolution
 * is started; if the refresh fails the entry is removed. */
#ifndef NET_ARP_H
#define NET_ARP_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "net/eth.h"

#ifndef NET_ARP_ENTRIES
#define NET_ARP_ENTRIES   8
#endif
#ifndef NET_ARP_PENDING
#define NET_ARP_PENDING   4
#endif
#ifndef NET_ARP_TRIES
#define NET_ARP_TRIES     3
#endif
#ifndef NET_ARP_RETRY_MS
#define NET_ARP_RETRY_MS  1000u
#endif
#ifndef NET_ARP_TTL_MS
#define NET_ARP_TTL_MS    60000u
#endif

#define ARP_PKT_LEN       28
#define ARP_OP_REQUEST    1
#define ARP_OP_REPLY      2

struct net_stack;

struct arp_entry {
    bool used;
    uint32_t ip;                  /* host byte order */
    uint8_t mac[ETH_ADDR_LEN];
    uint64_t updated_ms;          /* last time the mapping was confirmed */
};

struct arp_pending {
    bool used;
    uint32_t ip;
    uint8_t tries;                /* requests sent so far */
    uint64_t next_ms;             /* time of the next retry (or of failure after the last try) */
};

enum arp_result {
    ARP_FOUND = 0,                /* mac_out filled */
    ARP_IN_PROGRESS = 1,          /* a request is out; an event follows (resolved or failed) */
    ARP_NO_SLOT = -1              /* pending table full: try again later */
};

/* Cache lookup, or start/continue a resolution. Uses the stack's current time. */
enum arp_result arp_resolve(struct net_stack *s, uint32_t ip, uint8_t mac_out[ETH_ADDR_LEN]);
/* Cache lookup only (stale entries included). */
bool arp_lookup(const struct net_stack *s, uint32_t ip, uint8_t mac_out[ETH_ADDR_LEN]);
/* Inserts or refreshes a mapping (used for static entries and by the input path). */
void arp_cache_put(struct net_stack *s, uint32_t ip, const uint8_t mac[ETH_ADDR_LEN]);
void arp_flush(struct net_stack *s);
/* Sends a gratuitous ARP request announcing our address. */
void arp_announce(struct net_stack *s);

/* Internal, called by net.c. */
void arp_input(struct net_stack *s, const struct eth_hdr *eh);
void arp_poll(struct net_stack *s);

#endif
