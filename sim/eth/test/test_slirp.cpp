// sim/eth/test/test_slirp.cpp - the plug-in on libslirp with the device model (dev_model.h) as
// 10.77.0.2 on the pins. No root needed. Checks, each through the GMII pins:
//   ARP for 10.77.0.1; UDP to 10.77.0.1:<port> reaches the host's 127.0.0.1:<port> and the answer comes
//   back; a TCP SYN to 10.77.0.1:<port> gets a SYN-ACK when a host program listens on 127.0.0.1:<port>
//   and the data then sent reaches it; +slirp-fwd=tcp:<hostport>:7000 turns a host connect to
//   127.0.0.1:<hostport> into a SYN to 10.77.0.2:7000; the pcap opens in tshark.
// Usage: test_slirp <work dir>
#include <fcntl.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstring>
#include <functional>
#include <string>

#include "check.h"
#include "dev_model.h"
#include "eth_port.h"

using namespace tfeth;
using namespace tfeth_test;

static int free_port(int type) {
    int s = socket(AF_INET, type, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(s, (sockaddr *)&a, sizeof a);
    socklen_t l = sizeof a;
    getsockname(s, (sockaddr *)&a, &l);
    close(s);
    return ntohs(a.sin_port);
}
static int bound_socket(int type, int port) {
    int s = socket(AF_INET, type | SOCK_NONBLOCK, 0);
    int one = 1;
    setsockopt(s, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((uint16_t)port);
    if (bind(s, (sockaddr *)&a, sizeof a) < 0) { close(s); return -1; }
    if (type == SOCK_STREAM) listen(s, 4);
    return s;
}

struct Rig {
    EthPort port;
    Device dev;
    uint64_t t = 0, cyc = 0;
    bool tx_en = false;
    uint8_t tx_d = 0;
    explicit Rig(const EthConfig &c) : port(c) {}
    // Runs the pins until cond() or the wall-clock limit.
    bool run(const std::function<bool()> &cond, double secs = 5) {
        auto t0 = std::chrono::steady_clock::now();
        for (;;) {
            for (int i = 0; i < 1024; i++) {
                t += 8;
                uint8_t dv, d;
                port.rx_edge(t, dv, d);
                port.tx_edge(t, tx_en, tx_d);
                dev.edge(dv, d, tx_en, tx_d);
            }
            port.poll(t);
            if (cond()) return true;
            if (std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count() > secs) return false;
            if (port.rx_idle() && !dev.tx.busy()) usleep(100);
        }
    }
};

int main(int argc, char **argv) {
    std::string dir = argc > 1 ? argv[1] : "/tmp";
    printf("slirp: plug-in on libslirp, device model 10.77.0.2 on the pins\n");
    int fwd_port = free_port(SOCK_STREAM);
    EthConfig cfg;
    cfg.slirp = true;
    cfg.slirp_fwd = "tcp:" + std::to_string(fwd_port) + ":7000";
    cfg.pcap = dir + "/slirp.pcap";
    cfg.quiet = true;
    Rig r(cfg);
    if (!check(r.port.ok(), "slirp backend starts", "%s", r.port.error().c_str())) return result();
    r.dev.ip = ip4("10.77.0.2");
    const uint32_t host = ip4("10.77.0.1");

    // TCP/UDP frames addressed to the device, decoded by the test
    struct Seen { bool synack = false; uint32_t their_seq = 0, ack = 0; bool udp_reply = false; std::string udp_data;
                  bool fwd_syn = false; uint16_t fwd_sport = 0; } seen;
    r.dev.on_frame = [&](const uint8_t *p, size_t n) {
        if (n < 34 || rd16(p + 12) != 0x0800) return;
        const uint8_t *ip = p + 14;
        size_t ihl = (ip[0] & 15) * 4;
        const uint8_t *l4 = ip + ihl;
        if (ip[9] == 6) {
            uint8_t flags = l4[13];
            if ((flags & 0x12) == 0x12 && rd16(l4 + 2) == 40001) { seen.synack = true; seen.their_seq = rd32(l4 + 4); seen.ack = rd32(l4 + 8); }
            if ((flags & 0x12) == 0x02 && rd16(l4 + 2) == 7000) { seen.fwd_syn = true; seen.fwd_sport = rd16(l4); }
        } else if (ip[9] == 17 && rd16(l4 + 2) == 40002) {
            seen.udp_reply = true;
            size_t ulen = rd16(l4 + 4);
            seen.udp_data.assign((const char *)l4 + 8, ulen - 8);
        }
    };

    // 1. ARP
    r.dev.send_arp_request(host);
    bool ok = r.run([&] { return r.dev.peer_known; });
    char mac[32];
    snprintf(mac, sizeof mac, "%02x:%02x:%02x:%02x:%02x:%02x", r.dev.peer_mac[0], r.dev.peer_mac[1], r.dev.peer_mac[2],
             r.dev.peer_mac[3], r.dev.peer_mac[4], r.dev.peer_mac[5]);
    check(ok, "ARP request for 10.77.0.1 answered", "slirp MAC %s", mac);

    // 2. UDP to the host's loopback and back
    int uport = free_port(SOCK_DGRAM);
    int us = bound_socket(SOCK_DGRAM, uport);
    r.dev.send_ip(17, host, 40002, (uint16_t)uport, "hello-udp");
    char buf[256];
    sockaddr_in from{};
    socklen_t fl = sizeof from;
    ssize_t got = -1;
    r.run([&] { got = recvfrom(us, buf, sizeof buf, 0, (sockaddr *)&from, &fl); return got > 0; });
    check(got == 9 && memcmp(buf, "hello-udp", 9) == 0, "UDP from the pins to 10.77.0.1:port reaches 127.0.0.1:port",
          "%zd bytes", got);
    if (got > 0) sendto(us, "pong", 4, 0, (sockaddr *)&from, fl);
    ok = r.run([&] { return seen.udp_reply; });
    check(ok && seen.udp_data == "pong", "the host's UDP answer comes back to the pins", "'%s'", seen.udp_data.c_str());
    close(us);

    // 3. TCP to a host listener: SYN -> SYN-ACK, then data
    int tport = free_port(SOCK_STREAM);
    int ls = bound_socket(SOCK_STREAM, tport);
    r.dev.send_ip(6, host, 40001, (uint16_t)tport, "", 0x02, 1000, 0);
    ok = r.run([&] { return seen.synack; });
    check(ok && seen.ack == 1001, "TCP SYN to 10.77.0.1:port: SYN-ACK when 127.0.0.1:port listens", "ack %u", seen.ack);
    int cs = -1;
    r.run([&] { cs = accept(ls, nullptr, nullptr); return cs >= 0; }, 2);
    r.dev.send_ip(6, host, 40001, (uint16_t)tport, "hello-tcp", 0x18, 1001, seen.their_seq + 1);
    got = -1;
    if (cs >= 0) {
        fcntl(cs, F_SETFL, O_NONBLOCK);
        r.run([&] { got = recv(cs, buf, sizeof buf, 0); return got > 0; });
    }
    check(cs >= 0 && got == 9 && memcmp(buf, "hello-tcp", 9) == 0, "TCP data from the pins reaches the host program",
          "accept %d, %zd bytes", cs, got);
    if (cs >= 0) close(cs);
    close(ls);

    // 4. host port forward -> SYN to 10.77.0.2:7000
    int c = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK, 0);
    sockaddr_in a{};
    a.sin_family = AF_INET;
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    a.sin_port = htons((uint16_t)fwd_port);
    connect(c, (sockaddr *)&a, sizeof a);
    ok = r.run([&] { return seen.fwd_syn; });
    check(ok, "+slirp-fwd=tcp:<hostport>:7000: a host connect becomes a SYN to 10.77.0.2:7000", "port %d", fwd_port);
    close(c);

    check(r.dev.bad_fcs_in == 0 && r.port.stats().tx_bad_fcs == 0, "no bad FCS");
    r.port.print_stats(stdout);
    r.port.finish();
    std::string cmd = "tshark -r '" + cfg.pcap + "' -Y 'tcp.flags.syn==1' 2>/dev/null | wc -l";
    FILE *p = popen(cmd.c_str(), "r");
    int syns = 0;
    if (p) { if (fscanf(p, "%d", &syns) != 1) syns = -1; pclose(p); }
    check(syns >= 3, "tshark finds the SYNs in the pcap", "%d", syns);
    return result();
}
