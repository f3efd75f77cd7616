/* The SoC's network interface: the fw/net stack on the Ethernet MAC, its configuration (build defaults,
 * changeable on the console) and its console commands. */
#ifndef TF_APP_NETIF_H
#define TF_APP_NETIF_H

#include "net/net.h"

void netif_init(void);
/* Moves received frames into the stack and runs its timers; call from the main loop. */
void netif_poll(void);
struct net_stack *netif_stack(void);
/* Cycle counter (low 32 bits) when netif_poll took the frame being processed from its receive slot. */
uint32_t netif_rx_cycle(void);

#endif
