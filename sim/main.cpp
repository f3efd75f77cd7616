// Triggerfish whole-SoC simulation harness (Verilator).
//
// Run-time options (plusargs), so that changing firmware or options never rebuilds the hardware:
//   +firmware=<hex>       firmware image ($readmemh words), loaded into RAM by the RAM model itself
//   +timeout=<cycles>     give up after this many sys cycles (0 = never); a timeout is a failure (exit 124)
//   +trace                write an FST waveform (+trace-file=<path>, default build/sim/trace.fst)
//   +trace-start=<cycle>  first cycle to record (default 0);  +trace-stop=<cycle>  last one (default: end)
//   +uart-in=<text>       type this into the console (\n and \r escapes), after +uart-in-delay=<cycles>
//   +stdin                also forward this terminal's input to the console (make sim sets it)
//   +uart-ctl=<fifo>      type what is written into this FIFO (created if missing) into the console (tests)
//   +uart-tcp=<port>      also serve the console on TCP 127.0.0.1:<port> (0: a free port), one client at a time:
//                         what it sends is typed in, and it receives everything the UART prints (tools/tfctl
//                         connects to socket://127.0.0.1:<port>). The port is printed ("sim: uart-tcp listening
//                         on 127.0.0.1:<port>") and written to +uart-tcp-port-file=<path> when given.
//   +quiet                no harness messages except the final one
//   +pc-hist=<file>       where the CPU's cycles go: every sys cycle counts once for the address of the last
//                         instruction fetched (io_debugPc, RAM only); written at the end as "<hex address> <cycles>"
//                         lines, which tools/pc-hist.py sums per firmware function (+pc-hist-from=<cycle> skips
//                         the cycles before, e.g. the boot). +pc-hist-gpio=<bit> counts only the cycles while
//                         that GPIO output is high, and only of the windows that end with output <bit>-1 high: a
//                         firmware built with -DTF_PROF holds bit 7 high from a receive slot, and sets bit 6 as it
//                         ends the window in the 35=W callback, so that only the market data path is counted
//   +sys-period-ps=<ps>   sys clock period (default: the build's TF_SYS_CLOCK_HZ); Ethernet clocks are 8 ns
//   +uart-divisor=<n>     sys cycles per bit of the console's UART (default: the build's TF_UART_DIVISOR), for a
//                         firmware built with UART_DIVISOR=<n> (fw/Makefile): a board's console speed, e.g. 434 for
//                         115200 baud at the Zynq boards' 50 MHz
//   Ethernet (GMII port, sim/eth): +tap= +slirp +pcap= +eth-ctl= +eth-frame-log= ... (sim/eth/README.md), and an
//                         impaired wire in simulated time: +impair-rx= +impair-tx= +impair-seed= +pcap-host=
// Clocks: every clock has its own period; the harness steps from one clock edge to the next (in ps), so
// when sys and Ethernet share a period they share the evaluation. The UART transmit pin is decoded to stdout. The run ends when the firmware writes SYSCTRL.SIM_EXIT:
// the harness exits with the firmware's code. At the end it prints cycles and cycles/second.
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <signal.h>
#include <termios.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <deque>
#include <memory>
#include <string>

#include "VSoc.h"
#include "soc.h"
#ifdef TF_HAS_ETH
#include "eth_port.h"
#endif
#include "verilated.h"
#include "verilated_fst_c.h"

static volatile sig_atomic_t interrupted = 0;
static void on_signal(int) { interrupted = 1; }

static struct termios saved_termios;
static bool termios_saved = false;
static void restore_terminal() {
    if (termios_saved) tcsetattr(STDIN_FILENO, TCSANOW, &saved_termios);
}

// The console on a TCP port: a listening socket and at most one client, all non-blocking. Output the client
// cannot take at once waits in `pending` (a slow client delays nothing in the simulation).
struct UartTcp {
    int listen_fd = -1, client = -1;
    std::string pending;
    uint16_t port = 0;
    bool open(uint16_t want, std::string &err) {
        listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
        if (listen_fd < 0) { err = strerror(errno); return false; }
        int one = 1;
        setsockopt(listen_fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
        sockaddr_in a{};
        a.sin_family = AF_INET;
        a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        a.sin_port = htons(want);
        socklen_t len = sizeof a;
        if (bind(listen_fd, (sockaddr *)&a, sizeof a) != 0 || listen(listen_fd, 1) != 0 ||
            getsockname(listen_fd, (sockaddr *)&a, &len) != 0) {
            err = strerror(errno);
            return false;
        }
        port = ntohs(a.sin_port);
        return true;
    }
    void drop() {
        if (client >= 0) close(client);
        client = -1;
        pending.clear();
    }
    void flush() {
        while (client >= 0 && !pending.empty()) {
            ssize_t n = send(client, pending.data(), pending.size(), MSG_NOSIGNAL | MSG_DONTWAIT);
            if (n > 0) pending.erase(0, (size_t)n);
            else if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) break;
            else { drop(); break; }
        }
        if (pending.size() > (1u << 20)) drop();  // a client that reads nothing for a megabyte is gone
    }
    void put(uint8_t c) {
        if (client < 0) return;
        pending.push_back((char)c);
        if (c == '\n' || pending.size() >= 512) flush();
    }
    // Accepts a client when there is none; reads what it sent into `in` (at most max bytes).
    void poll(std::deque<uint8_t> &in, size_t max) {
        if (listen_fd < 0) return;
        if (client < 0) {
            client = accept4(listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
            if (client >= 0) {
                int one = 1;
                setsockopt(client, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
            }
        }
        if (client < 0) return;
        flush();
        if (client < 0 || max == 0) return;
        char buf[256];
        ssize_t n = recv(client, buf, max < sizeof buf ? max : sizeof buf, MSG_DONTWAIT);
        if (n == 0 || (n < 0 && errno != EAGAIN && errno != EWOULDBLOCK)) { drop(); return; }
        for (ssize_t i = 0; i < n; i++) in.push_back((uint8_t)buf[i]);
    }
};

// Decodes 8N1 from the UART transmit pin, sampling in the middle of each bit.
struct UartRx {
    int divisor;
    int state = -1;  // -1 idle, 0 start bit, 1..8 data, 9 stop
    int count = 0;
    uint8_t byte = 0;
    std::string line;  // current output line, for "where it stopped"
    std::string last_line;
    UartTcp *tcp = nullptr;
    explicit UartRx(int d) : divisor(d) {}
    void tick(bool txd) {
        if (state < 0) {
            if (!txd) { state = 0; count = divisor / 2; }
            return;
        }
        if (--count > 0) return;
        count = divisor;
        if (state == 0) {
            if (txd) state = -1;  // glitch
            else state = 1;
        } else if (state <= 8) {
            byte = (uint8_t)((byte >> 1) | (txd ? 0x80 : 0));
            state++;
        } else {
            state = -1;
            fputc(byte, stdout);
            if (tcp) tcp->put(byte);
            if (byte == '\n') {
                fflush(stdout);
                if (!line.empty()) last_line = line;
                line.clear();
            } else if (byte != '\r') {
                line.push_back((char)byte);
            }
        }
    }
    std::string where() const { return line.empty() ? last_line : line; }
};

// Drives 8N1 onto the UART receive pin from a queue of characters.
struct UartTx {
    int divisor;
    std::deque<uint8_t> queue;
    int bit = -1;  // -1 idle, 0 start, 1..8 data, 9 stop
    int count = 0;
    uint8_t byte = 0;
    bool level = true;
    int gap = 0;
    explicit UartTx(int d) : divisor(d) {}
    bool tick() {
        if (bit < 0) {
            if (gap > 0) { gap--; return true; }
            if (queue.empty()) return true;
            byte = queue.front();
            queue.pop_front();
            bit = 0;
            count = divisor;
            level = false;
            return level;
        }
        if (--count > 0) return level;
        count = divisor;
        bit++;
        if (bit <= 8) level = (byte >> (bit - 1)) & 1;
        else if (bit == 9) level = true;
        else { bit = -1; gap = divisor * 2; level = true; }
        return level;
    }
};

static std::string unescape(const std::string &s) {
    std::string out;
    for (size_t i = 0; i < s.size(); i++) {
        if (s[i] == '\\' && i + 1 < s.size()) {
            char c = s[++i];
            out.push_back(c == 'n' ? '\n' : c == 'r' ? '\r' : c == 't' ? '\t' : c);
        } else {
            out.push_back(s[i]);
        }
    }
    return out;
}

// Plusargs: "+name" flags and "+name=value" options (the last one given wins).
static int g_argc;
static char **g_argv;
static const char *plus_value(const char *name) {
    const char *found = nullptr;
    size_t n = strlen(name);
    for (int i = 1; i < g_argc; i++)
        if (g_argv[i][0] == '+' && strncmp(g_argv[i] + 1, name, n) == 0 && g_argv[i][1 + n] == '=') found = g_argv[i] + 2 + n;
    return found;
}
static uint64_t plus_u64(const char *name, uint64_t dflt) {
    const char *v = plus_value(name);
    return v && *v ? strtoull(v, nullptr, 0) : dflt;
}
static std::string plus_str(const char *name, const std::string &dflt) {
    const char *v = plus_value(name);
    return v ? std::string(v) : dflt;
}
static bool plus_flag(const char *name) {
    for (int i = 1; i < g_argc; i++)
        if (g_argv[i][0] == '+' && strcmp(g_argv[i] + 1, name) == 0) return true;
    return false;
}

int main(int argc, char **argv) {
    g_argc = argc;
    g_argv = argv;
    auto ctx = std::make_unique<VerilatedContext>();
    ctx->commandArgs(argc, argv);
    ctx->traceEverOn(true);
    auto top = std::make_unique<VSoc>(ctx.get(), "Soc");

    const bool quiet = plus_flag("quiet");
    const std::string firmware = plus_str("firmware", "");
    const uint64_t timeout = plus_u64("timeout", 0);
    const bool trace = plus_flag("trace");
    const std::string trace_file = plus_str("trace-file", "build/sim/trace.fst");
    const uint64_t trace_start = plus_u64("trace-start", 0);
    const uint64_t trace_stop = plus_u64("trace-stop", UINT64_MAX);
    const std::string pc_hist_file = plus_str("pc-hist", "");
    const uint64_t pc_hist_from = plus_u64("pc-hist-from", 0);
    const int pc_hist_gpio = (int)plus_u64("pc-hist-gpio", 64);  // 64: every cycle
    const uint32_t pc_hist_base = 0x80000000u;  // the RAM (memory.ld); fetches elsewhere are not counted
    std::vector<uint32_t> pc_window;  // the cycles of the open window (+pc-hist-gpio)
    std::vector<uint64_t> pc_hist(pc_hist_file.empty() ? 0 : (1u << 20) / 4);  // up to 1 MiB of RAM, per word
    const std::string uart_in = unescape(plus_str("uart-in", ""));
    const uint64_t uart_in_delay = plus_u64("uart-in-delay", 0);
    const bool use_stdin = plus_flag("stdin");
    const std::string uart_ctl = plus_str("uart-ctl", "");
    int uart_ctl_fd = -1;
    if (!uart_ctl.empty()) {
        if (access(uart_ctl.c_str(), F_OK) != 0 && mkfifo(uart_ctl.c_str(), 0600) != 0) {
            fprintf(stderr, "sim: cannot create the console FIFO %s: %s\n", uart_ctl.c_str(), strerror(errno));
            return 2;
        }
        uart_ctl_fd = open(uart_ctl.c_str(), O_RDWR | O_NONBLOCK);  // RDWR: no EOF when writers come and go
        if (uart_ctl_fd < 0) {
            fprintf(stderr, "sim: cannot open %s: %s\n", uart_ctl.c_str(), strerror(errno));
            return 2;
        }
    }

    UartTcp uart_tcp;
    const char *uart_tcp_arg = plus_value("uart-tcp");
    if (uart_tcp_arg) {
        std::string err;
        if (!uart_tcp.open((uint16_t)strtoul(uart_tcp_arg, nullptr, 0), err)) {
            fprintf(stderr, "sim: cannot listen on 127.0.0.1:%s for the console: %s\n", uart_tcp_arg, err.c_str());
            return 2;
        }
        fprintf(stderr, "sim: uart-tcp listening on 127.0.0.1:%u\n", (unsigned)uart_tcp.port);
        const std::string port_file = plus_str("uart-tcp-port-file", "");
        if (!port_file.empty()) {
            std::string tmp = port_file + ".tmp";
            FILE *f = fopen(tmp.c_str(), "w");
            if (!f || fprintf(f, "%u\n", (unsigned)uart_tcp.port) < 0 || fclose(f) != 0 || rename(tmp.c_str(), port_file.c_str()) != 0) {
                fprintf(stderr, "sim: cannot write %s\n", port_file.c_str());
                return 2;
            }
        }
    }

    if (firmware.empty()) {
        fprintf(stderr, "sim: no firmware: pass +firmware=<path to firmware.hex>\n");
        return 2;
    }
    if (access(firmware.c_str(), R_OK) != 0) {
        fprintf(stderr, "sim: cannot read firmware image %s\n", firmware.c_str());
        return 2;
    }
    signal(SIGINT, on_signal);
    signal(SIGTERM, on_signal);
    if (use_stdin && isatty(STDIN_FILENO)) {
        struct termios t;
        tcgetattr(STDIN_FILENO, &saved_termios);
        termios_saved = true;
        t = saved_termios;
        t.c_lflag &= ~(ICANON | ECHO);
        tcsetattr(STDIN_FILENO, TCSANOW, &t);
        atexit(restore_terminal);
    }
    if (use_stdin) fcntl(STDIN_FILENO, F_SETFL, fcntl(STDIN_FILENO, F_GETFL) | O_NONBLOCK);

    std::unique_ptr<VerilatedFstC> tfp;
    if (trace) {
        tfp = std::make_unique<VerilatedFstC>();
        top->trace(tfp.get(), 99);
        tfp->open(trace_file.c_str());
        if (!quiet) fprintf(stderr, "sim: tracing to %s from cycle %llu\n", trace_file.c_str(), (unsigned long long)trace_start);
    }

    const int uart_divisor = (int)plus_u64("uart-divisor", TF_UART_DIVISOR);
    if (uart_divisor < 4) { fprintf(stderr, "sim: +uart-divisor=%d: at least 4 (the UART's minimum)\n", uart_divisor); return 2; }
    UartRx uart_rx(uart_divisor);
    UartTx uart_tx(uart_divisor);
    if (uart_tcp.listen_fd >= 0) uart_rx.tcp = &uart_tcp;
    bool uart_in_queued = uart_in.empty();

    top->clk = 0;
    top->reset = 1;
    top->io_uart_rxd = 1;
    top->io_gpio_in = 0;
#ifdef TF_HAS_ETH
    tfeth::EthConfig eth_cfg = tfeth::EthConfig::from_args(argc, argv);
    tfeth::EthPort eth(eth_cfg);
    if (!eth.ok()) {
        fprintf(stderr, "sim: ethernet: %s\n", eth.error().c_str());
        return 2;
    }
    top->io_eth_gmii_rx_clk = 0;
    top->io_eth_gmii_gtx_clk = 0;
    top->io_eth_gmii_rx_dv = 0;
    top->io_eth_gmii_rx_data = 0;
#endif
    top->eval();  // initial blocks: the RAM loads +firmware here

    // Clock scheduler, in picoseconds. Half periods: sys, and (with Ethernet) the 125 MHz GMII clocks.
    const uint64_t sys_half = plus_u64("sys-period-ps", 1000000000000ull / TF_SYS_CLOCK_HZ) / 2;
    uint64_t next_sys = sys_half;  // the first rising edge is at one half period
    bool sys_level = false;
#ifdef TF_HAS_ETH
    const uint64_t eth_half = 4000;
    uint64_t next_eth = eth_half;
    bool eth_level = false;
    uint64_t eth_cycle = 0;
#endif
    auto t0 = std::chrono::steady_clock::now();
    uint64_t cycle = 0, now_ps = 0;
    int exit_code = -1;
    const char *why = nullptr;
    while (exit_code < 0) {
        now_ps = next_sys;
#ifdef TF_HAS_ETH
        if (next_eth < now_ps) now_ps = next_eth;
        if (next_eth == now_ps) {
            eth_level = !eth_level;
            if (eth_level) {  // rising edge: the PHY samples what the SoC drove, and drives the next byte
                eth.tx_edge(now_ps / 1000, top->io_eth_gmii_tx_en, top->io_eth_gmii_tx_data);
                uint8_t dv, d;
                eth.rx_edge(now_ps / 1000, dv, d);
                top->io_eth_gmii_rx_dv = dv;
                top->io_eth_gmii_rx_data = d;
                eth_cycle++;
            }
            top->io_eth_gmii_rx_clk = eth_level;
            top->io_eth_gmii_gtx_clk = eth_level;
            next_eth += eth_half;
        }
#endif
        bool sys_rise = false;
        if (next_sys == now_ps) {
            sys_level = !sys_level;
            sys_rise = sys_level;
            top->clk = sys_level;
            next_sys += sys_half;
        }
        top->eval();
        if (tfp && cycle >= trace_start && cycle <= trace_stop) tfp->dump(now_ps / 1000);
        if (!sys_rise) continue;

        // After each sys rising edge.
        cycle++;
        if (cycle == 16) top->reset = 0;
        if (!pc_hist.empty() && cycle >= pc_hist_from) {
            uint32_t w = (uint32_t)(top->io_debugPc - pc_hist_base) >> 2;
            if (pc_hist_gpio >= 64) {
                if (w < pc_hist.size()) pc_hist[w]++;
            } else if ((uint64_t)top->io_gpio_out >> pc_hist_gpio & 1) {
                pc_window.push_back(w);
            } else if (!pc_window.empty()) {  // the window closed: counted when the firmware flagged it
                if (pc_hist_gpio > 0 && ((uint64_t)top->io_gpio_out >> (pc_hist_gpio - 1) & 1))
                    for (uint32_t x : pc_window)
                        if (x < pc_hist.size()) pc_hist[x]++;
                pc_window.clear();
            }
        }
        uart_rx.tick(top->io_uart_txd);
        top->io_uart_rxd = uart_tx.tick();
        if (!uart_in_queued && cycle >= uart_in_delay) {
            for (char c : uart_in) uart_tx.queue.push_back((uint8_t)c);
            uart_in_queued = true;
        }
        if ((cycle & 0xFFF) == 0) {
#ifdef TF_HAS_ETH
            eth.poll(now_ps / 1000);
            top->io_gpio_in = eth.gpio_in();  // (the control channel's gpio-in; read every 4096 sys cycles, as it is polled)
            if (eth.exit_requested() >= 0) { why = "exit requested on the Ethernet control channel"; exit_code = eth.exit_requested(); }
#endif
            if (uart_ctl_fd >= 0 && uart_tx.queue.empty()) {
                char buf[256];
                ssize_t n = read(uart_ctl_fd, buf, sizeof buf);
                for (ssize_t i = 0; i < n; i++) uart_tx.queue.push_back((uint8_t)(buf[i] == '\n' ? '\r' : buf[i]));
            }
            uart_tcp.poll(uart_tx.queue, uart_tx.queue.empty() ? 256 : 0);
            if ((cycle & 0xFFFF) == 0) {
                if (use_stdin && uart_tx.queue.empty()) {
                    char buf[64];
                    ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
                    for (ssize_t i = 0; i < n; i++) uart_tx.queue.push_back((uint8_t)(buf[i] == '\n' ? '\r' : buf[i]));
                }
                if (interrupted) { why = "interrupted"; exit_code = 130; }
            }
        }
        if (top->io_simExit_valid) exit_code = top->io_simExit_payload;
        if (timeout && cycle >= timeout && exit_code < 0) { why = "timeout"; exit_code = 124; }
    }
    fflush(stdout);
    uart_tcp.flush();
    if (!pc_hist.empty()) {
        FILE *f = fopen(pc_hist_file.c_str(), "w");
        if (!f) fprintf(stderr, "sim: cannot write %s: %s\n", pc_hist_file.c_str(), strerror(errno));
        for (size_t w = 0; f && w < pc_hist.size(); w++)
            if (pc_hist[w]) fprintf(f, "%08x %llu\n", (unsigned)(pc_hist_base + 4 * w), (unsigned long long)pc_hist[w]);
        if (f) fclose(f);
    }
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (tfp) tfp->close();
    if (why) {
        fprintf(stderr, "\nsim: %s after %llu cycles; last pc 0x%08x; last console line: \"%s\"\n", why,
                (unsigned long long)cycle, (unsigned)top->io_debugPc, uart_rx.where().c_str());
    }
#ifdef TF_HAS_ETH
    if (!quiet) eth.print_stats(stderr);
    eth.finish();
#endif
    fprintf(stderr, "sim: exit code %d after %llu cycles (%.3f ms simulated) in %.2f s (%.0f cycles/s)\n", exit_code,
            (unsigned long long)cycle, now_ps / 1e9, secs, cycle / (secs > 0 ? secs : 1));
    top->final();
    return exit_code;
}
