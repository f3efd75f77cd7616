/* net/net.h - the network stack as a whole (Ethernet, ARP, IPv4, ICMP, TCP client).
 * Input: received Ethernet frames (net_input), the monotonic time in ms (net_input,
 * net_poll), the configuration (MAC, address, netmask, gateway), random numbers.
 * Output: frames through net_ops.tx, TCP callbacks, ARP events, counters.
 *
 * Transport-agnostic: no hardware, no OS, no malloc. The owner allocates one
 * struct net_stack (statically), calls net_init(), feeds every received frame to
 * net_input() and calls net_poll() regularly (every few ms; timers have 1 ms resolution).
 * Frames passed to tx are only valid during the call.
 *
 * Memory: sizeof(struct net_stack) is about NET_TCP_MAX_CONNS * (NET_TCP_SNDBUF + NET_TCP_OOO_BUF)
 * + 2 KB: 26992 bytes with the defaults (2 connections, 8 KB send ring, 4 KB out-of-order hold). 1.5 KB of the 2 KB
 * is the frame buffer txbuf, which a stack compiled with NET_TX_EXTERNAL does not have (net_ops.tx_buffer). */
#ifndef NET_NET_H
#define NET_NET_H

#include <stdint.h>
#include <stddef.h>
#include <stdbool.h>
#include "net/counters.h"
#include "net/eth.h"
#include "net/arp.h"
#include "net/ipv4.h"
#include "net/tcp.h"

/* Addresses in host byte order: 10.77.0.2 is 0x0A4D0002 (NET_IP4(10,77,0,2)). */
#define NET_IP4(a, b, c, d) (((uint32_t)(a) << 24) | ((uint32_t)(b) << 16) | ((uint32_t)(c) << 8) | (uint32_t)(d))

struct net_config {
    uint32_t ip;        /* 0 = no address: nothing is answered, no connection opens */
    uint32_t netmask;
    uint32_t gateway;   /* 0 = no gateway: off-subnet destinations are unreachable */
};

struct net_ops {
    /* Sends one frame (header included, no FCS, >= 60 bytes). Required. */
    void (*tx)(void *ctx, const uint8_t *frame, size_t len);
    /* 32 random bits (ISN, source ports, IP id start). Required; should differ per boot. */
    uint32_t (*rand32)(void *ctx);
    /* Optional (may be NULL): an ARP resolution finished (ok) or timed out (!ok). */
    void (*arp_result)(void *ctx, uint32_t ip, bool ok);
    /* Optional (NULL: the stack's own txbuf): where the next IPv4 frame is to be built, writable now (e.g. the
     * MAC's transmit buffer once the previous frame has left it: no copy); tx is then called with that pointer.
     * ARP frames are built in the stack's arp_txbuf still, and may be passed to tx while an IPv4 frame is half built
     * there (an ARP refresh). Required when the stack is compiled with NET_TX_EXTERNAL (no txbuf of its own). */
    uint8_t *(*tx_buffer)(void *ctx);
};

struct net_stack {
    uint8_t mac[ETH_ADDR_LEN];
    struct net_config cfg;
    const struct net_ops *ops;
    void *ctx;
    uint64_t now_ms;                    /* time of the last net_input/net_poll */
    uint16_t ip_id;
    struct net_counters cnt;
    struct arp_entry arp[NET_ARP_ENTRIES];
    struct arp_pending arp_pend[NET_ARP_PENDING];
    struct tcp_conn tcp[NET_TCP_MAX_CONNS];
    uint8_t *tx_frame;                  /* the IPv4 frame being built (ipv4_tx_payload): txbuf or ops->tx_buffer's */
#ifndef NET_TX_EXTERNAL
    uint8_t txbuf[ETH_FRAME_MAX];       /* IPv4 frames are built here (without ops->tx_buffer) */
#endif
    uint8_t arp_txbuf[ETH_FRAME_MIN];   /* ARP has its own: a request may go out while an
                                           IPv4 packet is half built in txbuf (ARP refresh) */
};

void net_init(struct net_stack *s, const uint8_t mac[ETH_ADDR_LEN], const struct net_config *cfg,
              const struct net_ops *ops, void *ctx, uint64_t now_ms);
/* Changes address/netmask/gateway at run time (open connections keep their 4-tuple). */
void net_set_config(struct net_stack *s, const struct net_config *cfg);
const struct net_config *net_get_config(const struct net_stack *s);
/* One received frame (without FCS). Never keeps a pointer to it. */
void net_input(struct net_stack *s, const uint8_t *frame, size_t len, uint64_t now_ms);
/* The same, for a frame whose IPv4 header and TCP checksums the receiver has verified (sums_ok: the hardware's
 * RX_STATUS.CHECKED): a TCP segment's checksum is then not summed again (counted in tcp_sum_verified). Everything
 * else is checked as net_input checks it. */
void net_input_checked(struct net_stack *s, const uint8_t *frame, size_t len, uint64_t now_ms, bool sums_ok);
/* Runs timers (ARP retries, TCP retransmission, persist, TIME_WAIT). */
void net_poll(struct net_stack *s, uint64_t now_ms);
const struct net_counters *net_get_counters(const struct net_stack *s);

/* Internal: hands a finished frame (length <= ETH_FRAME_MAX) to ops->tx, padding it to 60
 * bytes in place (buffer must hold ETH_FRAME_MIN bytes), and counts it. */
void net_tx_frame(struct net_stack *s, uint8_t *frame, size_t len);
/* Internal: an ARP resolution finished; tells TCP and the owner. */
void net_arp_event(struct net_stack *s, uint32_t ip, bool ok);

#endif
