// Triggerfish whole-SoC simulation harness (Verilator).
//
// Run-time options (plusargs), so that changing firmware or options never rebuilds the hardware:
//   +firmware=<hex>       firmware image ($readmemh words), loaded into RAM by the RAM model itself
//   +timeout=<cycles>     give up after this many sys cycles (0 = never); a timeout is a failure (exit 124)
//   +trace                write an FST waveform (+trace-file=<path>, default build/sim/trace.fst)
//   +trace-start=<cycle>  first cycle to record (default 0);  +trace-stop=<cycle>  last one (default: end)
//   +uart-in=<text>       type this into the console (\n and \r escapes), after +uart-in-delay=<cycles>
//   +stdin                also forward this terminal's input to the console (make sim sets it)
//   +quiet                no harness messages except the final one
// The UART transmit pin is decoded to stdout. The run ends when the firmware writes SYSCTRL.SIM_EXIT:
// the harness exits with the firmware's code. At the end it prints cycles and cycles/second.
#include <fcntl.h>
#include <signal.h>
#include <termios.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <memory>
#include <string>

#include "VSoc.h"
#include "soc.h"
#include "verilated.h"
#include "verilated_fst_c.h"

static volatile sig_atomic_t interrupted = 0;
static void on_signal(int) { interrupted = 1; }

static struct termios saved_termios;
static bool termios_saved = false;
static void restore_terminal() {
    if (termios_saved) tcsetattr(STDIN_FILENO, TCSANOW, &saved_termios);
}

// Decodes 8N1 from the UART transmit pin, sampling in the middle of each bit.
struct UartRx {
    int divisor;
    int state = -1;  // -1 idle, 0 start bit, 1..8 data, 9 stop
    int count = 0;
    uint8_t byte = 0;
    std::string line;  // current output line, for "where it stopped"
    std::string last_line;
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
    const std::string uart_in = unescape(plus_str("uart-in", ""));
    const uint64_t uart_in_delay = plus_u64("uart-in-delay", 0);
    const bool use_stdin = plus_flag("stdin");

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

    UartRx uart_rx(TF_UART_DIVISOR);
    UartTx uart_tx(TF_UART_DIVISOR);
    bool uart_in_queued = uart_in.empty();

    top->clk = 0;
    top->reset = 1;
    top->io_uart_rxd = 1;
    top->io_gpio_in = 0;
    top->eval();  // initial blocks: the RAM loads +firmware here

    auto t0 = std::chrono::steady_clock::now();
    uint64_t cycle = 0;
    int exit_code = -1;
    const char *why = nullptr;
    // One sys clock period = 10 time units (ns at the nominal 100 MHz).
    while (exit_code < 0) {
        if (cycle == 16) top->reset = 0;
        top->clk = 1;
        top->eval();
        bool tracing = tfp && cycle >= trace_start && cycle <= trace_stop;
        if (tracing) tfp->dump(cycle * 10);
        top->clk = 0;
        top->eval();
        if (tracing) tfp->dump(cycle * 10 + 5);
        cycle++;

        uart_rx.tick(top->io_uart_txd);
        top->io_uart_rxd = uart_tx.tick();
        if (!uart_in_queued && cycle >= uart_in_delay) {
            for (char c : uart_in) uart_tx.queue.push_back((uint8_t)c);
            uart_in_queued = true;
        }
        if ((cycle & 0xFFFF) == 0) {
            if (use_stdin && uart_tx.queue.empty()) {
                char buf[64];
                ssize_t n = read(STDIN_FILENO, buf, sizeof buf);
                for (ssize_t i = 0; i < n; i++) uart_tx.queue.push_back((uint8_t)(buf[i] == '\n' ? '\r' : buf[i]));
            }
            if (interrupted) { why = "interrupted"; exit_code = 130; }
        }
        if (top->io_simExit_valid) exit_code = top->io_simExit_payload;
        if (timeout && cycle >= timeout && exit_code < 0) { why = "timeout"; exit_code = 124; }
    }
    fflush(stdout);
    double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (tfp) tfp->close();
    if (why) {
        fprintf(stderr, "\nsim: %s after %llu cycles; last pc 0x%08x; last console line: \"%s\"\n", why,
                (unsigned long long)cycle, (unsigned)top->io_debugPc, uart_rx.where().c_str());
    }
    fprintf(stderr, "sim: exit code %d after %llu cycles in %.2f s (%.0f cycles/s)\n", exit_code,
            (unsigned long long)cycle, secs, cycle / (secs > 0 ? secs : 1));
    top->final();
    return exit_code;
}
