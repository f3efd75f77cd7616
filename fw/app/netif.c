/* Network interface glue (see netif.h). In: frames from the MAC, time from the machine timer.
 * Out: frames to the MAC; console commands net, ifconfig, arp. */
#include "app/netif.h"

#include "app/digestion.h"

#include <stdio.h>
#include <string.h>

#include "drivers/ethmac.h"
#include "drivers/sysctrl.h"
#include "drivers/timer.h"
#include "lib/console.h"
#include "lib/mproto.h"
#include "lib/parse.h"
#include "lib/prof.h"

/* Build-time configuration (fw/Makefile: NET_MAC, NET_IP, NET_NETMASK, NET_GATEWAY). */
#ifndef TF_NET_MAC
#define TF_NET_MAC "02:54:46:00:00:02"
#endif
#ifndef TF_NET_IP
#define TF_NET_IP "10.77.0.2"
#endif
#ifndef TF_NET_NETMASK
#define TF_NET_NETMASK "255.255.255.0"
#endif
#ifndef TF_NET_GATEWAY
#define TF_NET_GATEWAY "0.0.0.0"
#endif

static struct net_stack stack;
static uint32_t entropy = 0x9E3779B9u;

static void stir(uint32_t v) { entropy = (entropy ^ v) * 0x01000193u + 0x7F4A7C15u; }

/* The receive filter (ethmac_filter_*): on unless the build says TF_NET_FILTER=0; ICMP echo requests limited to one
 * per TF_NET_ICMP_INTERVAL * 1024 eth_rx cycles after a burst of 8 (12: about 10,000 a second at 125 MHz, which no
 * ping reaches and a flood at line rate exceeds 150 times). */
#ifndef TF_NET_FILTER
#define TF_NET_FILTER 1
#endif
#ifndef TF_NET_ICMP_INTERVAL
#define TF_NET_ICMP_INTERVAL 12
#endif
_Static_assert(NET_TCP_MAX_CONNS <= ETH_FILTER_CONNS, "every connection needs a receive filter entry");
static bool filter_on = TF_NET_FILTER;

static void filter_update(void) { ethmac_filter_config(filter_on, net_get_config(&stack)->ip, TF_NET_ICMP_INTERVAL); }

/* Every connection firmware opens starts with our SYN: its 4-tuple goes into the receive filter's entry of the same
 * index as the connection's slot before the SYN leaves, so the answer finds the filter open (an entry is replaced
 * when its slot opens the next connection). */
static void filter_learn(const uint8_t *f) {
    uint32_t rip = (uint32_t)f[30] << 24 | (uint32_t)f[31] << 16 | (uint32_t)f[32] << 8 | f[33];
    uint16_t lport = (uint16_t)(f[34] << 8 | f[35]), rport = (uint16_t)(f[36] << 8 | f[37]);
    for (unsigned i = 0; i < NET_TCP_MAX_CONNS; i++) {
        const struct tcp_conn *c = &stack.tcp[i];
        if (c->state != TCP_CLOSED && c->remote_ip == rip && c->remote_port == rport && c->local_port == lport) {
            ethmac_filter_conn(i, true, rip, rport, lport);
            return;
        }
    }
}

/* Zero-copy transmit: the stack builds each IPv4 frame in the MAC's transmit buffer (tx_buffer waits until the previous
 * frame has left it), so that tx only starts it. ARP frames come from the stack's own small buffer and are copied; one
 * that comes while an IPv4 frame is half built in the MAC's buffer (an ARP refresh on the way out) is held and sent
 * right after that frame, or at the end of the stack's call when the frame was not sent (no ARP entry yet). */
static bool building;                     /* an IPv4 frame is being built in the MAC's buffer */
static uint8_t arp_held[ETH_MIN_FRAME];   /* the ARP frame held meanwhile (a newer one replaces it: ARP retries) */
static size_t arp_held_len;

static void send_held(void) {
    if (arp_held_len) ethmac_send(arp_held, arp_held_len);
    arp_held_len = 0;
}

static uint8_t *tx_buffer(void *ctx) {
    (void)ctx;
    send_held();
    while (ethmac_tx_busy()) {
    }
    building = true;
    return ethmac_tx_buffer();
}

static void tx(void *ctx, const uint8_t *frame, size_t len) {
    (void)ctx;
    /* IPv4 (no options) TCP with SYN set: a connection we open */
    if (len >= 54 && frame[12] == 0x08 && frame[13] == 0x00 && frame[14] == 0x45 && frame[23] == 6 && (frame[47] & 0x02))
        filter_learn(frame);
    if (frame == ethmac_tx_buffer()) {
        building = false;
        ethmac_start(len);
        send_held();
    } else if (building && len <= sizeof arp_held) {
        memcpy(arp_held, frame, len);
        arp_held_len = len;
    } else {
        ethmac_send(frame, len);
    }
}

/* Random numbers for ISNs and ports: xorshift stirred with the cycle counter at every received frame,
 * whose arrival time depends on the peer, so each boot differs even in a deterministic simulation. */
static uint32_t rand32(void *ctx) {
    (void)ctx;
    stir(sysctrl_cycles32());
    uint32_t x = entropy;
    x ^= x << 13;
    x ^= x >> 17;
    x ^= x << 5;
    entropy = x;
    return x;
}

static void print_ip(uint32_t ip) {
    printf("%lu.%lu.%lu.%lu", (unsigned long)(ip >> 24), (unsigned long)((ip >> 16) & 255),
           (unsigned long)((ip >> 8) & 255), (unsigned long)(ip & 255));
}

static void print_mac(const uint8_t *m) {
    printf("%02x:%02x:%02x:%02x:%02x:%02x", m[0], m[1], m[2], m[3], m[4], m[5]);
}

/* "MAC m, IPv4 a netmask n gateway g" of the running stack. */
static void print_config(void) {
    const struct net_config *cfg = net_get_config(&stack);
    printf("MAC ");
    print_mac(stack.mac);
    printf(", IPv4 ");
    print_ip(cfg->ip);
    printf(" netmask ");
    print_ip(cfg->netmask);
    printf(" gateway ");
    print_ip(cfg->gateway);
    printf("\n");
}

/* Decimal digits of v at p; returns the end. */
static char *fmt_u8(char *p, unsigned v) {
    if (v >= 100) *p++ = (char)('0' + v / 100);
    if (v >= 10) *p++ = (char)('0' + v / 10 % 10);
    *p++ = (char)('0' + v % 10);
    return p;
}

/* An ARP resolution ended: a console line and the machine protocol's "arp" event (ip, mac: "" when it did not
 * answer, ok). */
static void arp_result(void *ctx, uint32_t ip, bool ok) {
    (void)ctx;
    static const char hex[] = "0123456789abcdef";
    uint8_t mac[ETH_ADDR_LEN];
    char ips[16], macs[18] = "", *p = ips;
    for (int sh = 24; sh >= 0; sh -= 8) {
        p = fmt_u8(p, (ip >> sh) & 255u);
        *p++ = sh ? '.' : '\0';
    }
    ok = ok && arp_lookup(&stack, ip, mac);
    for (int i = 0; ok && i < ETH_ADDR_LEN; i++) {
        macs[3 * i] = hex[mac[i] >> 4];
        macs[3 * i + 1] = hex[mac[i] & 15];
        macs[3 * i + 2] = i < ETH_ADDR_LEN - 1 ? ':' : '\0';
    }
    printf("arp: %s %s%s\n", ips, ok ? "is at " : "did not answer", macs);
    mp_event("arp", "ip:s mac:s ok:b", ips, macs, ok);
}

static const struct net_ops ops = {tx, rand32, arp_result, tx_buffer};

static uint64_t now_ms(void) { return timer_ms(); }

void netif_init(void) {
    uint8_t mac[6];
    struct net_config cfg = {0, 0, 0};
    if (!tf_parse_mac(TF_NET_MAC, mac) || !tf_parse_ipv4(TF_NET_IP, &cfg.ip) ||
        !tf_parse_ipv4(TF_NET_NETMASK, &cfg.netmask) || !tf_parse_ipv4(TF_NET_GATEWAY, &cfg.gateway)) {
        printf("net: bad build configuration (MAC %s IP %s netmask %s gateway %s); network off\n", TF_NET_MAC,
               TF_NET_IP, TF_NET_NETMASK, TF_NET_GATEWAY);
        cfg.ip = 0;
    }
    stir(sysctrl_cycles32());
    ethmac_init();
    net_init(&stack, mac, &cfg, &ops, NULL, now_ms());
    filter_update();
    printf("net: ");
    print_config();
    if (cfg.ip) arp_announce(&stack);
}

/* One received frame per call: the main loop's other work (the console, the FIX session's timers, the offload's
 * fire log) runs between frames. Draining every waiting frame here starves it whenever frames
 * come in faster than firmware handles them (long whole-SoC runs: the console stopped taking input). */
static uint32_t rx_cycle;
uint32_t netif_rx_cycle(void) { return rx_cycle; }

/* Not inlined into main (link-time optimisation would: its one caller): the frames of what it inlines would then
 * stay in main's, under every call of the main loop (fw/Makefile LTO; the deepest stack use 1,324 bytes that way). */
__attribute__((noinline)) void netif_poll(void) {
    rx_cycle = sysctrl_cycles32(); /* the cycle this frame's receive slot is taken (when there is one) */
    TF_PROF_BASE();
    TF_PROF_WINDOW(1);
    uint64_t now = now_ms(); /* once a pass (timer_ms divides only when a millisecond has passed since its last call) */
    const uint8_t *frame;
    bool sums_ok;
    size_t len = ethmac_rx_peek(&frame, &sums_ok);
    if (!len) TF_PROF_WINDOW(0);
#ifdef TF_NO_HW_SUMS
    sums_ok = false; /* for measurement (CFLAGS_EXTRA=-DTF_NO_HW_SUMS): every segment summed here, as without the offload */
#endif
#ifdef TF_HAS_DIGESTION
    TF_LOOP(TF_LOOP_DESC, digestion_take_waiting()); /* the slot was seen first: the descriptors up to its frame's are visible now */
#endif
    if (len) { /* parsed where the MAC put it (zero-copy): the slot goes back once the stack is done with it */
        TF_PROF_MARK(0);
        TF_LOOP(TF_LOOP_RX, net_input_checked(&stack, frame, len, now, sums_ok));
        ethmac_rx_release();
        stir(sysctrl_cycles32()); /* once the frame is handled, off the path to the application's callbacks (the
                                   * 35=W receive path: 11 cycles of stir and the counter's read, out of line) */
    }
#ifdef TF_PROF_EXEC
    TF_PROF_WINDOW(tf_prof_exec_seen ? 2 : 0);
    tf_prof_exec_seen = 0;
#else
    TF_PROF_WINDOW(0);
#endif
    TF_LOOP(TF_LOOP_NET_POLL, net_poll(&stack, now));
    building = false; /* a frame built but not sent (no ARP entry yet) is dropped, as the stack's own buffer was */
    send_held();
}

struct net_stack *netif_stack(void) { return &stack; }

static int cmd_net(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "filter") == 0) {
        if (strcmp(argv[2], "on") != 0 && strcmp(argv[2], "off") != 0) {
            printf("usage: net filter on|off\n");
            return 1;
        }
        filter_on = strcmp(argv[2], "on") == 0;
        filter_update();
        printf("net: receive filter %s\n", filter_on ? "on" : "off");
        return 0;
    }
    struct ethmac_counters h;
    ethmac_read_counters(&h);
    const struct net_counters *c = net_get_counters(&stack);
    /* the MAC's counters, in the order of struct ethmac_counters, then rx_too_long */
    _Static_assert(sizeof h == 11 * sizeof(uint32_t), "struct ethmac_counters: 11 counters");
    static const char *const mac_names[] = {"rx_frames", "rx_bytes", "crc_errors", "runts", "oversize", "rx_drops_full",
                                            "tx_frames", "tx_bytes", "tx_errors", "filtered", "icmp_limited", "rx_too_long"};
    uint32_t mac[12];
    memcpy(mac, &h, sizeof h);
    mac[11] = ethmac_rx_too_long();
    if (mp_in_request) { /* the machine protocol: two "counters" events, every counter by its name */
        for (unsigned g = 0; g < 2; g++) {
            mp_event_open("counters");
            mp_members("group:s", g ? "net" : "mac");
            if (!g) mp_member_u("filter_on", filter_on);
            for (unsigned i = 0; i < (g ? NET_COUNTER_COUNT : 12u); i++)
                mp_member_u(g ? net_counter_name(i) : mac_names[i], g ? net_counter_get(c, i) : mac[i]);
            mp_event_close();
        }
        return 0;
    }
    /* three lines: receive, transmit, the receive filter */
    static const uint8_t order[12] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 11, 9, 10};
    for (unsigned k = 0; k < 12; k++) {
        if (k == 10) printf("mac: filter %s", filter_on ? "on" : "off");
        printf("%s %s %lu%s", k == 0 || k == 6 ? "mac:" : "", mac_names[order[k]], (unsigned long)mac[order[k]],
               k == 5 || k == 9 || k == 11 ? "\n" : "");
    }
    for (unsigned i = 0; i < NET_COUNTER_COUNT; i++) {
        uint32_t v = net_counter_get(c, i);
        if (v != 0 || (argc > 1 && strcmp(argv[1], "-a") == 0)) printf("net: %-20s %lu\n", net_counter_name(i), (unsigned long)v);
    }
    return 0;
}
TF_COMMAND(net, "network counters: net [-a]; the receive filter: net filter on|off", cmd_net);

static int cmd_ifconfig(int argc, char **argv) {
    struct net_config cfg = *net_get_config(&stack);
    if (argc == 1) {
        print_config();
        return 0;
    }
    for (int i = 1; i + 1 < argc; i += 2) {
        uint32_t v;
        if (strcmp(argv[i], "mac") == 0) {
            if (!tf_parse_mac(argv[i + 1], stack.mac)) goto bad;
            continue;
        }
        if (!tf_parse_ipv4(argv[i + 1], &v)) goto bad;
        if (strcmp(argv[i], "ip") == 0) cfg.ip = v;
        else if (strcmp(argv[i], "netmask") == 0) cfg.netmask = v;
        else if (strcmp(argv[i], "gateway") == 0) cfg.gateway = v;
        else goto bad;
    }
    if ((argc - 1) % 2 != 0) goto bad;
    net_set_config(&stack, &cfg);
    filter_update();
    return 0;
bad:
    printf("usage: ifconfig [ip A.B.C.D] [netmask A.B.C.D] [gateway A.B.C.D] [mac aa:bb:cc:dd:ee:ff]\n");
    return 1;
}
TF_COMMAND(ifconfig, "ifconfig [ip|netmask|gateway|mac X]", cmd_ifconfig);

static int cmd_arp(int argc, char **argv) {
    if (argc == 3 && strcmp(argv[1], "resolve") == 0) {
        uint32_t ip;
        uint8_t mac[ETH_ADDR_LEN];
        if (!tf_parse_ipv4(argv[2], &ip)) {
            printf("usage: arp resolve A.B.C.D\n");
            return 1;
        }
        arp_flush(&stack);
        enum arp_result r = arp_resolve(&stack, ip, mac);
        if (r == ARP_FOUND) arp_result(NULL, ip, true);
        else if (r == ARP_NO_SLOT) printf("arp: too many resolutions pending\n");
        else printf("arp: resolving...\n");
        return 0;
    }
    if (argc != 1) {
        printf("usage: arp [resolve A.B.C.D]\n");
        return 1;
    }
    for (unsigned i = 0; i < NET_ARP_ENTRIES; i++) {
        const struct arp_entry *e = &stack.arp[i];
        if (!e->used) continue;
        print_ip(e->ip);
        printf(" ");
        print_mac(e->mac);
        printf("\n");
    }
    return 0;
}
TF_COMMAND(arp, "ARP cache: arp [resolve A.B.C.D]", cmd_arp);

/* Latency probe of the CPU frame path, for sim/tests/test_eth_latency.py. For each of n frames the harness
 * injects: busy-poll RX_STATUS and note the cycle the frame became visible, release it, then send a
 * prepared 60-byte frame (EtherType 0x88B5, local experimental) and note the cycle of the TX_LEN write.
 * The network stack is not run meanwhile. The test matches these cycles with the harness's frame log
 * (the pins). Prints one line per frame; for a machine request, the events ethlat.ready and one ethlat per frame
 * instead (the request is answered when the last frame is done). */
static int cmd_ethlat(int argc, char **argv) {
    uint32_t n;
    if (argc != 2 || !tf_parse_u32(argv[1], &n) || n == 0 || n > 1000) {
        printf("usage: ethlat <frames 1..1000>\n");
        return 1;
    }
    static const uint8_t probe[60] = {0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0x02, 0x54, 0x46, 0x00, 0x00, 0x02, 0x88, 0xb5};
    ethmac_filter_config(false, 0, 0); /* the probes are EtherType 0x88B5: the receive filter would drop them */
    if (mp_in_request) mp_event("ethlat.ready", "frames:u", n);
    else printf("ethlat: ready for %lu frames\n", (unsigned long)n);
    for (uint32_t i = 0; i < n; i++) {
        ethmac_load(probe, sizeof probe);
        uint32_t t_rx;
        while (!(tf_read32(ETH_BASE + ETH_RX_STATUS) & 1u)) {
        }
        t_rx = sysctrl_cycles32();
        tf_write32(ETH_BASE + ETH_RX_RELEASE, 1);
        uint32_t t_tx = sysctrl_cycles32();
        ethmac_start(sizeof probe);
        if (mp_in_request) mp_event("ethlat", "frame:u rx:u tx:u", i, t_rx, t_tx); /* short: 100 cycles a character */
        else printf("ethlat: %lu rx_visible %lu tx_len %lu\n", (unsigned long)i, (unsigned long)t_rx, (unsigned long)t_tx);
        while (ethmac_tx_busy()) {
        }
    }
    filter_update();
    return 0;
}
TF_COMMAND(ethlat, "CPU frame path: ethlat <frames>", cmd_ethlat);
