/* net/counters.h - event and drop counters of the network stack.
 * Input: incremented by eth/arp/ipv4/icmp/tcp as frames come and go.
 * Output: a read-only struct (net_counters()) and a name table so a console
 * can print every counter without knowing the list (net_counter_get/name). */
#ifndef NET_COUNTERS_H
#define NET_COUNTERS_H

#include <stdint.h>

/* X(field, description). Every drop reason has its own counter. Counters wrap at 2^32. */
#define NET_COUNTER_LIST(X)                                                        \
    X(eth_rx,             "Ethernet frames received")                              \
    X(eth_runt,           "dropped: frame shorter than an Ethernet header")        \
    X(eth_not_for_us,     "dropped: destination MAC neither ours nor broadcast")   \
    X(eth_unknown_type,   "dropped: EtherType neither IPv4 nor ARP")               \
    X(eth_tx,             "Ethernet frames sent")                                  \
    X(arp_rx,             "ARP packets received")                                  \
    X(arp_bad,            "dropped: malformed ARP (length, hw/proto type, op)")   \
    X(arp_req_in,         "ARP requests received for our address")                 \
    X(arp_req_other,      "ARP requests received for another address")             \
    X(arp_reply_in,       "ARP replies received")                                  \
    X(arp_req_out,        "ARP requests sent (including retries)")                 \
    X(arp_reply_out,      "ARP replies sent")                                      \
    X(arp_resolve_fail,   "ARP resolutions that timed out")                        \
    X(arp_pending_full,   "ARP resolutions refused: pending table full")           \
    X(ip_rx,              "IPv4 packets received")                                 \
    X(ip_bad_header,      "dropped: IPv4 version/IHL/length invalid")              \
    X(ip_bad_checksum,    "dropped: IPv4 header checksum wrong")                   \
    X(ip_fragment,        "dropped: IPv4 fragment (MF set or offset != 0)")        \
    X(ip_not_for_us,      "dropped: IPv4 destination not our address")             \
    X(ip_unknown_proto,   "dropped: IPv4 protocol neither ICMP nor TCP")           \
    X(ip_options,         "IPv4 packets with options (skipped, accepted)")         \
    X(ip_tx,              "IPv4 packets sent")                                     \
    X(ip_tx_no_arp,       "IPv4 packets not sent: next hop MAC unknown yet")       \
    X(ip_tx_too_big,      "IPv4 packets not sent: larger than the MTU")            \
    X(icmp_rx,            "ICMP messages received")                                \
    X(icmp_bad,           "dropped: ICMP truncated or checksum wrong")             \
    X(icmp_echo_req,      "ICMP echo requests received")                           \
    X(icmp_echo_reply,    "ICMP echo replies sent")                                \
    X(icmp_other,         "ICMP messages of other types (ignored)")                \
    X(tcp_rx,             "TCP segments received")                                 \
    X(tcp_bad_header,     "dropped: TCP header truncated or data offset invalid")  \
    X(tcp_bad_checksum,   "dropped: TCP checksum wrong")                           \
    X(tcp_sum_verified,   "TCP segments whose checksum the receiver verified")     \
    X(tcp_no_conn,        "TCP segments for no connection (answered with RST)")    \
    X(tcp_tx,             "TCP segments sent")                                     \
    X(tcp_rx_bytes,       "TCP payload bytes delivered in order")                  \
    X(tcp_tx_bytes,       "TCP payload bytes sent (first transmissions)")          \
    X(tcp_retransmit,     "TCP retransmissions on timeout")                        \
    X(tcp_fast_retransmit,"TCP fast retransmissions (3 duplicate ACKs)")           \
    X(tcp_dup_data,       "TCP old/duplicate segments (re-ACKed)")                 \
    X(tcp_out_of_order,   "TCP out-of-order segments (dup ACK sent)")              \
    X(tcp_ooo_held,       "TCP out-of-order segments held for later delivery")     \
    X(tcp_ooo_delivered,  "TCP held out-of-order bytes delivered after the hole")  \
    X(tcp_sack_out,       "TCP ACKs sent with a SACK block (the held range)")      \
    X(tcp_out_of_window,  "TCP segments outside the receive window (re-ACKed)")    \
    X(tcp_bad_ack,        "TCP segments acknowledging unsent data (re-ACKed)")     \
    X(tcp_rst_in,         "TCP resets received and accepted")                      \
    X(tcp_rst_out,        "TCP resets sent")                                       \
    X(tcp_challenge_ack,  "TCP challenge ACKs for in-window RST/SYN (RFC 5961)")   \
    X(tcp_timeout,        "TCP connections aborted after too many retransmits")    \
    X(tcp_window_probe,   "TCP zero-window probes sent")                           \
    X(tcp_adopted_bytes,  "TCP payload bytes sent by hardware and adopted")          \

struct net_counters {
#define NET_COUNTER_FIELD(name, desc) uint32_t name;
    NET_COUNTER_LIST(NET_COUNTER_FIELD)
#undef NET_COUNTER_FIELD
};

enum {
#define NET_COUNTER_ENUM(name, desc) NET_CTR_##name,
    NET_COUNTER_LIST(NET_COUNTER_ENUM)
#undef NET_COUNTER_ENUM
    NET_COUNTER_COUNT
};

/* Value of counter number idx (0..NET_COUNTER_COUNT-1), 0 when out of range. */
uint32_t net_counter_get(const struct net_counters *c, unsigned idx);
/* Field name ("ip_bad_checksum") and one-line description of counter idx; NULL when out of range.
 * Build with -DNET_COUNTERS_NO_DESC to drop the descriptions (about 2 KB) from the image. */
const char *net_counter_name(unsigned idx);
const char *net_counter_desc(unsigned idx);

#endif
