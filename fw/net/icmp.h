/* net/icmp.h - ICMP echo responder (RFC 792).
 * Input: ICMP messages addressed to us. Output: echo replies (same id, sequence
 * and payload, new checksum) sent back to the requester's MAC; counters. Other
 * ICMP types are counted and ignored. */
#ifndef NET_ICMP_H
#define NET_ICMP_H

#include "net/ipv4.h"

#define ICMP_HDR_LEN        8
#define ICMP_ECHO_REPLY     0
#define ICMP_ECHO_REQUEST   8

void icmp_input(struct net_stack *s, const struct ipv4_hdr *ih);

#endif
