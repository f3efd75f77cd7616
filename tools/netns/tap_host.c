/* tools/netns/tap_host.c - runs the firmware network stack (fw/net) on a Linux TAP device.
 * Input: Ethernet frames read from /dev/net/tun (IFF_TAP|IFF_NO_PI), the monotonic clock,
 * command-line options (device, addresses, test peer and port, byte count).
 * Output: frames written to the TAP; on stdout one line per check (ARP, REFUSED, ECHO,
 * CLOSE), a final "RESULT PASS|FAIL" line and the stack's non-zero counters.
 * Exit status 0 when every check passed.
 *
 * Sequence: resolve the peer by ARP; optionally connect to a closed port and expect a
 * refusal; connect to the echo port, send --bytes of a known pattern, compare everything
 * echoed back, close, expect a clean close; then keep answering (ping) until SIGTERM/SIGINT
 * or --linger-ms. --loss-pct N drops N% of the frames in each direction (retransmission
 * and out-of-order paths against the real kernel; netem is not always available). Build (see tap_selftest.sh):
 *   gcc -std=gnu11 -O2 -Wall -Wextra -Werror -Ifw -o build/netns/tap_host tools/netns/tap_host.c fw/net/\*.c */
#include <errno.h>
#include <fcntl.h>
#include <linux/if.h>
#include <linux/if_tun.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <time.h>
#include <unistd.h>
#include <arpa/inet.h>
#include "net/net.h"

static int tap_fd = -1;
static volatile sig_atomic_t stop_flag;
static uint32_t rng_state;
static unsigned loss_pct;               /* --loss-pct: drop this share of frames each way */
static uint32_t loss_rng = 0x9e3779b9u;
static unsigned dropped_rx, dropped_tx;

static bool lose(void)
{
    if (loss_pct == 0)
        return false;
    loss_rng ^= loss_rng << 13;
    loss_rng ^= loss_rng >> 17;
    loss_rng ^= loss_rng << 5;
    return loss_rng % 100 < loss_pct;
}

static uint64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000u + (uint64_t)ts.tv_nsec / 1000000u;
}

static void tap_tx(void *ctx, const uint8_t *frame, size_t len)
{
    (void)ctx;
    if (lose()) {
        dropped_tx++;
        return;
    }
    ssize_t n = write(tap_fd, frame, len);
    if (n != (ssize_t)len)
        fprintf(stderr, "tap_host: write: %s\n", n < 0 ? strerror(errno) : "short");
}

static uint32_t host_rand(void *ctx)
{
    (void)ctx;
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 17;
    rng_state ^= rng_state << 5;
    return rng_state;
}

/* ---- test state ---- */
enum phase { PH_ARP, PH_REFUSED, PH_ECHO, PH_DONE };
static enum phase phase;
static bool arp_ok, arp_failed;
static bool fail;
static struct net_stack stack;
static struct tcp_conn *conn;
static size_t total_bytes, sent, received;
static bool closed_ok, got_error;
static enum tcp_error last_error;
static uint64_t echo_start;

static uint8_t pattern(size_t i) { return (uint8_t)((i * 7u) ^ (i >> 8) ^ (i >> 16)); }

static void on_arp(void *ctx, uint32_t ip, bool ok)
{
    (void)ctx;
    (void)ip;
    if (ok)
        arp_ok = true;
    else
        arp_failed = true;
}

static void cb_connected(struct tcp_conn *c, void *user)
{
    (void)user;
    printf("TCP connected from local port %u\n", tcp_local_port(c));
    fflush(stdout);
}

static void pump_send(void)
{
    uint8_t chunk[1024];
    while (conn && sent < total_bytes && tcp_get_state(conn) == TCP_ESTABLISHED) {
        size_t n = total_bytes - sent;
        if (n > sizeof(chunk))
            n = sizeof(chunk);
        for (size_t i = 0; i < n; i++)
            chunk[i] = pattern(sent + i);
        size_t k = tcp_send(conn, chunk, n);
        sent += k;
        if (k < n)
            break;
    }
}

static void cb_data(struct tcp_conn *c, void *user, const uint8_t *d, size_t n)
{
    (void)user;
    for (size_t i = 0; i < n; i++) {
        if (received + i >= total_bytes || d[i] != pattern(received + i)) {
            if (!fail)
                printf("ECHO FAIL: byte %zu differs or is extra\n", received + i);
            fail = true;
            break;
        }
    }
    received += n;
    if (received >= total_bytes && tcp_get_state(c) == TCP_ESTABLISHED) {
        uint64_t ms = now_ms() - echo_start;
        printf("ECHO ok: %zu bytes sent and %zu echoed identical in %llu ms\n", sent, received,
               (unsigned long long)ms);
        fflush(stdout);
        tcp_close(c);
    }
}

static void cb_closed(struct tcp_conn *c, void *user)
{
    (void)c;
    (void)user;
    closed_ok = true;
    conn = NULL;
}

static void cb_error(struct tcp_conn *c, void *user, enum tcp_error e)
{
    (void)c;
    (void)user;
    got_error = true;
    last_error = e;
    conn = NULL;
}

static const struct tcp_callbacks cbs = {cb_connected, cb_data, cb_closed, cb_error};

static void on_signal(int sig)
{
    (void)sig;
    stop_flag = 1;
}

static int tap_open(const char *name)
{
    int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK);
    if (fd < 0) {
        perror("tap_host: /dev/net/tun");
        return -1;
    }
    struct ifreq ifr;
    memset(&ifr, 0, sizeof(ifr));
    ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
    snprintf(ifr.ifr_name, IFNAMSIZ, "%s", name);
    if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
        perror("tap_host: TUNSETIFF");
        close(fd);
        return -1;
    }
    return fd;
}

static uint32_t parse_ip(const char *s)
{
    struct in_addr a;
    if (inet_pton(AF_INET, s, &a) != 1) {
        fprintf(stderr, "tap_host: bad address %s\n", s);
        exit(2);
    }
    return ntohl(a.s_addr);
}

static void usage(void)
{
    fprintf(stderr,
            "usage: tap_host --dev IF --ip A.B.C.D [--prefix N] [--gw A.B.C.D] --peer A.B.C.D --port P\n"
            "                [--bytes N] [--refused-port P] [--linger-ms N] [--timeout-ms N] [--loss-pct N]\n");
    exit(2);
}

int main(int argc, char **argv)
{
    const char *dev = NULL;
    uint32_t ip = 0, gw = 0, peer = 0, prefix = 24;
    unsigned port = 0, refused_port = 0;
    uint64_t linger_ms = 0, timeout_ms = 60000;
    total_bytes = 102400;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        const char *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!v)
            usage();
        if (!strcmp(a, "--dev")) dev = v;
        else if (!strcmp(a, "--ip")) ip = parse_ip(v);
        else if (!strcmp(a, "--prefix")) prefix = (uint32_t)atoi(v);
        else if (!strcmp(a, "--gw")) gw = parse_ip(v);
        else if (!strcmp(a, "--peer")) peer = parse_ip(v);
        else if (!strcmp(a, "--port")) port = (unsigned)atoi(v);
        else if (!strcmp(a, "--bytes")) total_bytes = (size_t)atol(v);
        else if (!strcmp(a, "--refused-port")) refused_port = (unsigned)atoi(v);
        else if (!strcmp(a, "--linger-ms")) linger_ms = (uint64_t)atoll(v);
        else if (!strcmp(a, "--timeout-ms")) timeout_ms = (uint64_t)atoll(v);
        else if (!strcmp(a, "--loss-pct")) loss_pct = (unsigned)atoi(v);
        else usage();
        i++;
    }
    if (!dev || !ip || !peer || !port || prefix > 32)
        usage();

    tap_fd = tap_open(dev);
    if (tap_fd < 0)
        return 1;
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);

    /* per-run randomness: a restarted runner must get a fresh port and ISN */
    int ufd = open("/dev/urandom", O_RDONLY);
    if (ufd < 0 || read(ufd, &rng_state, sizeof(rng_state)) != (ssize_t)sizeof(rng_state))
        rng_state = (uint32_t)now_ms() ^ (uint32_t)getpid();
    if (ufd >= 0)
        close(ufd);
    if (rng_state == 0)
        rng_state = 1;

    static const struct net_ops ops = {tap_tx, host_rand, on_arp, NULL}; /* NULL: frames built in the stack's own buffer */
    struct net_config cfg = {ip, prefix ? 0xFFFFFFFFu << (32 - prefix) : 0, gw};
    uint8_t mac[6] = {0x02, 0x54, 0x46, 0, 0, 0};
    uint32_t r = host_rand(NULL);
    mac[3] = (uint8_t)r;
    mac[4] = (uint8_t)(r >> 8);
    mac[5] = (uint8_t)(r >> 16);
    uint64_t t0 = now_ms();
    net_init(&stack, mac, &cfg, &ops, NULL, t0);
    printf("tap_host: %s mac %02x:%02x:%02x:%02x:%02x:%02x, stack %zu bytes\n", dev, mac[0], mac[1], mac[2], mac[3],
           mac[4], mac[5], sizeof(stack));
    arp_announce(&stack);
    uint8_t m[6];
    if (arp_resolve(&stack, peer, m) == ARP_FOUND)
        arp_ok = true;
    phase = PH_ARP;
    uint64_t phase_start = t0, done_at = 0;
    bool done_printed = false;

    static uint8_t frame[ETH_FRAME_MAX + 64];
    while (!stop_flag) {
        struct pollfd pfd = {tap_fd, POLLIN, 0};
        poll(&pfd, 1, 2);
        uint64_t now = now_ms();
        for (;;) {
            ssize_t n = read(tap_fd, frame, sizeof(frame));
            if (n <= 0)
                break;
            if (lose()) {
                dropped_rx++;
                continue;
            }
            net_input(&stack, frame, (size_t)n, now);
        }
        net_poll(&stack, now);
        pump_send();

        switch (phase) {
        case PH_ARP:
            if (arp_ok) {
                arp_lookup(&stack, peer, m);
                printf("ARP ok: %s is at %02x:%02x:%02x:%02x:%02x:%02x\n", inet_ntoa((struct in_addr){htonl(peer)}),
                       m[0], m[1], m[2], m[3], m[4], m[5]);
                phase_start = now;
                if (refused_port) {
                    conn = tcp_connect(&stack, peer, (uint16_t)refused_port, &cbs, NULL);
                    phase = PH_REFUSED;
                } else {
                    phase = PH_ECHO;
                }
            } else if (arp_failed) {
                printf("ARP FAIL: no answer from the peer\n");
                fail = true;
                phase = PH_DONE;
            }
            break;
        case PH_REFUSED:
            if (got_error) {
                if (last_error == TCP_ERR_REFUSED) {
                    printf("REFUSED ok: connection to closed port %u refused by RST\n", refused_port);
                } else {
                    printf("REFUSED FAIL: error %d\n", (int)last_error);
                    fail = true;
                }
                got_error = false;
                phase = PH_ECHO;
                phase_start = now;
            } else if (closed_ok) {
                printf("REFUSED FAIL: connected to port %u\n", refused_port);
                fail = true;
                phase = PH_DONE;
            }
            break;
        case PH_ECHO:
            if (!conn && !got_error && !closed_ok && sent == 0) {
                conn = tcp_connect(&stack, peer, (uint16_t)port, &cbs, NULL);
                echo_start = now;
                if (!conn) {
                    printf("ECHO FAIL: tcp_connect refused locally\n");
                    fail = true;
                    phase = PH_DONE;
                }
            } else if (got_error) {
                printf("ECHO FAIL: connection error %d after %zu/%zu bytes echoed\n", (int)last_error, received,
                       total_bytes);
                fail = true;
                phase = PH_DONE;
            } else if (closed_ok) {
                if (received == total_bytes && sent == total_bytes) {
                    printf("CLOSE ok: FIN exchanged both ways, on_closed called\n");
                } else {
                    printf("CLOSE FAIL: closed after %zu/%zu bytes\n", received, total_bytes);
                    fail = true;
                }
                phase = PH_DONE;
            }
            break;
        case PH_DONE:
            break;
        }
        if (phase != PH_DONE && now - phase_start > timeout_ms) {
            printf("TIMEOUT in phase %d (sent %zu, echoed %zu)\n", (int)phase, sent, received);
            fail = true;
            phase = PH_DONE;
        }
        if (phase == PH_DONE && !done_printed) {
            done_printed = true;
            done_at = now;
            printf("RESULT %s\n", fail ? "FAIL" : "PASS");
            fflush(stdout);
        }
        if (done_printed && now - done_at >= linger_ms)
            break;
    }
    if (!done_printed) {
        printf("RESULT FAIL (stopped before the end)\n");
        fail = true;
    }
    const struct net_counters *c = net_get_counters(&stack);
    printf("counters:");
    for (unsigned i = 0; i < NET_COUNTER_COUNT; i++)
        if (net_counter_get(c, i))
            printf(" %s=%u", net_counter_name(i), net_counter_get(c, i));
    printf("\n");
    if (loss_pct)
        printf("loss: dropped %u received and %u sent frames on purpose\n", dropped_rx, dropped_tx);
    close(tap_fd);
    return fail ? 1 : 0;
}
