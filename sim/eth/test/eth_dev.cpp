// sim/eth/test/eth_dev.cpp - the plug-in attached to a real backend, with a tiny device model on the
// pins in place of the SoC (dev_model.h: ARP, ICMP echo, echoes EtherType 0x88B5 frames).
// Usage: eth_dev --ip <a.b.c.d> [--seconds <s>] [plusargs for EthPort: +tap=<if> +slirp +pcap=<f> +eth-ctl=<p> ...]
// Prints "READY" once the port is open, and at the end the device counters ("DEV ...") and the port's
// statistics. Ends after --seconds, on SIGTERM/SIGINT, or on the control command "exit <code>".
#include <signal.h>
#include <unistd.h>

#include <chrono>
#include <cstdlib>
#include <cstring>

#include "dev_model.h"
#include "eth_port.h"

using namespace tfeth;
using namespace tfeth_test;

static volatile sig_atomic_t stop = 0;
static void on_sig(int) { stop = 1; }

int main(int argc, char **argv) {
    double seconds = 30;
    const char *ip = "10.88.0.2";
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "--ip") && i + 1 < argc) ip = argv[++i];
        else if (!strcmp(argv[i], "--seconds") && i + 1 < argc) seconds = atof(argv[++i]);
        else if (argv[i][0] != '+') { fprintf(stderr, "usage: eth_dev --ip <addr> [--seconds s] +tap=<if>|+slirp ...\n%s", EthConfig::help()); return 2; }
    }
    EthConfig cfg = EthConfig::from_args(argc, argv);
    EthPort port(cfg);
    if (!port.ok()) { fprintf(stderr, "eth_dev: %s\n", port.error().c_str()); return 2; }
    signal(SIGTERM, on_sig);
    signal(SIGINT, on_sig);
    Device dev;
    dev.ip = ip4(ip);
    printf("READY\n");
    fflush(stdout);
    auto t0 = std::chrono::steady_clock::now();
    uint64_t t = 0;
    bool tx_en = false;
    uint8_t tx_d = 0;
    int code = 0;
    for (uint64_t cyc = 0;; cyc++) {
        t += 8;
        uint8_t dv, d;
        port.rx_edge(t, dv, d);
        port.tx_edge(t, tx_en, tx_d);  // the pins the device drove on the previous edge
        dev.edge(dv, d, tx_en, tx_d);
        if ((cyc & 1023) == 0) {
            port.poll(t);
            if (port.exit_requested() >= 0) { code = port.exit_requested(); break; }
            if (stop) break;
            if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > seconds) break;
            if (port.rx_idle() && !dev.tx.busy() && !dev.rx.in_burst() && !port.tx_in_frame()) usleep(200);
        }
    }
    printf("DEV arp_req_in=%llu arp_reply_out=%llu icmp_in=%llu icmp_out=%llu echo_88b5=%llu bad_fcs_in=%llu frames_in=%llu sim_ns=%llu\n",
           (unsigned long long)dev.arp_req_in, (unsigned long long)dev.arp_reply_out, (unsigned long long)dev.icmp_in,
           (unsigned long long)dev.icmp_out, (unsigned long long)dev.echo_88b5, (unsigned long long)dev.bad_fcs_in,
           (unsigned long long)dev.frames_in, (unsigned long long)t);
    fflush(stdout);
    port.print_stats(stdout);
    port.finish();
    return code;
}
