// sim/eth/eth_port.h - the Ethernet plug-in of the Verilator harness: one GMII port of the SoC.
//
//   host backend (TAP / slirp / none)  <->  EthPort  <->  GMII pins of the SoC
//                                              |-> pcap (+pcap=), frame log (hook, +eth-frame-log=)
//                       control channel (+eth-ctl=) -> inject frames / drop / mark / exit
//
// RX = towards the SoC (gmii_rx_*, the harness drives them), TX = from the SoC (gmii_tx_*, sampled).
// The harness calls, per rising edge of each clock, in simulated-time order:
//   gmii_rx_clk: port.rx_edge(t_ns, dv, data); then drive gmii_rx_dv = dv, gmii_rx_data = data
//                (t_ns = the time of the rising edge at which the SoC samples these values);
//   gmii_gtx_clk: port.tx_edge(t_ns, gmii_tx_en, gmii_tx_data) with the values the SoC drives
//                (t_ns = the time of the rising edge at which they are sampled);
//   every few thousand cycles: port.poll(t_ns)  (host I/O, control channel, pcap flush);
//   at the end: port.print_stats(stderr); port.finish() (the destructor also finishes).
// Time stamps (pcap, frame log, hooks) are exactly the t_ns values passed in; the "cycle" numbers
// count the rx_edge (resp. tx_edge) calls from 0. See sim/eth/README.md.
#pragma once
#include <cstdint>
#include <cstdio>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

#include "eth_backend.h"
#include "eth_gmii.h"
#include "eth_impair.h"
#include "eth_pcap.h"

namespace tfeth {

struct EthConfig {
    std::string tap;           // +tap=<ifname>          attach to this existing TAP interface
    bool slirp = false;        // +slirp                 libslirp user networking (10.77.0.2 = SoC)
    std::string slirp_fwd;     // +slirp-fwd=tcp:<hostport>:<guestport>[,udp:...]  host -> guest forwards
    bool slirp_restrict = false;  // +slirp-restrict    the guest may only reach forwarded/host services
    std::string pcap;          // +pcap=<file>           both directions, ns simulated time stamps
    std::string ctl;           // +eth-ctl=<path>        control channel (FIFO created if missing)
    std::string frame_log;     // +eth-frame-log=<file>  CSV, one line per frame each way
    unsigned ifg = kMinIfg;    // +eth-ifg=<n>           idle byte times between frames to the SoC
    size_t rx_queue_max = 1024;  // +eth-rx-queue=<n>    frames from the host waiting for the pins
    bool verbose = false;      // +eth-verbose           log every frame
    bool quiet = false;        // +quiet                 only errors and the statistics
    std::string impair_rx;     // +impair-rx=<spec>      impaired wire host -> SoC (eth_impair.h: loss=P,dup=P,...)
    std::string impair_tx;     // +impair-tx=<spec>      impaired wire SoC -> host
    uint64_t impair_seed = 1;  // +impair-seed=<n>       the seed of both directions (a spec's seed= wins)
    std::string pcap_host;     // +pcap-host=<file>      frames as the host side sends/receives them (before
                               //                        the RX impairment, after the TX one)

    // Parses the plusargs above ("+name=value", the last one wins; "+name" flags).
    static EthConfig from_args(int argc, char **argv);
    bool enabled() const {
        return !tap.empty() || slirp || !pcap.empty() || !ctl.empty() || !frame_log.empty() || !impair_rx.empty() ||
               !impair_tx.empty() || !pcap_host.empty();
    }
    static const char *help();  // the plusargs, one per line, for a --help text
};

enum class EthDir { kToSoc, kFromSoc };  // RX pins, TX pins

struct EthFrameEvent {
    EthDir dir;
    uint64_t seq;                   // 1, 2, ... per direction (rx#, tx# in the log)
    uint64_t sof_ns, eof_ns;        // first preamble byte / last byte (the last FCS byte) on the pins;
                                    // for TX sof_ns is the edge at which tx_en was first seen high
    uint64_t sof_cycle, eof_cycle;  // the same as rx_edge/tx_edge call numbers
    const uint8_t *wire;            // every byte on the pins: preamble, SFD, frame, FCS
    size_t wire_len;
    const uint64_t *byte_ns;        // t_ns of each wire byte (wire_len entries); byte i is on the pins
                                    // at cycle sof_cycle + i (bytes are back to back)
    size_t frame_offset;            // index in wire of the first byte after the SFD (8 normally)
    const uint8_t *frame;           // frame without preamble/SFD/FCS (RX: after padding)
    size_t len;                     // (inject-raw: all bytes after the SFD)
    const char *source;             // RX: "tap" "slirp" "memory" "inject" "inject-badfcs" "inject-runt"
                                    //     "inject-raw" "inject-burst" "api"; TX: "soc"
    const char *status;             // "ok" "bad-fcs" "bad-preamble" "too-short" (TX); RX: "ok" "bad-fcs" "raw",
                                    // and for frames the impaired wire corrupted "corrupt" (FCS recomputed) or
                                    // "corrupt-bad-fcs" (FCS of the frame before the flips)
    bool runt;                      // shorter than 60 bytes + FCS
    bool dropped;                   // TX: not forwarded (drop-tx, or not ok)
    bool forwarded;                 // TX: handed to the backend
    // t_ns at which frame byte k (0 = first byte after the SFD) was on the pins.
    uint64_t frame_byte_ns(size_t k) const { return byte_ns[frame_offset + k]; }
};

struct EthStats {
    // towards the SoC
    uint64_t rx_frames = 0, rx_bytes = 0;   // frames put on the pins; bytes after SFD without FCS
    uint64_t rx_from_backend = 0, rx_injected = 0;
    uint64_t rx_injected_badfcs = 0, rx_injected_runt = 0, rx_injected_raw = 0;
    uint64_t rx_dropped_overflow = 0, rx_dropped_ctl = 0;
    uint64_t rx_corrupted_ctl = 0;          // corrupt-rx-match
    uint64_t rx_flood = 0;                  // frames of the `flood` command (other traffic on the wire)
    // from the SoC
    uint64_t tx_frames = 0;                 // bursts with tx_en high
    uint64_t tx_good = 0, tx_bytes = 0;     // good FCS; their bytes without FCS
    uint64_t tx_bad_fcs = 0, tx_bad_preamble = 0, tx_too_short = 0, tx_runts = 0;
    uint64_t tx_odd_preamble = 0;           // SFD after other than 7 x 0x55 (accepted)
    uint64_t tx_short_ifg = 0;              // fewer than 12 idle cycles since the previous frame
    uint64_t tx_dropped_ctl = 0, tx_forwarded = 0, tx_backend_errors = 0, tx_overlong = 0;
    // control channel
    uint64_t ctl_commands = 0, ctl_errors = 0;
    // impaired wire (the rest is in EthPort::impairment(dir).stats())
    uint64_t tx_impair_fcs_discards = 0;    // corrupted with a bad FCS: the host's MAC would discard them
};

class EthPort {
public:
    // Opens what cfg asks for (backend, pcap, control channel, frame log). Check ok()/error().
    explicit EthPort(const EthConfig &cfg);
    ~EthPort();
    EthPort(const EthPort &) = delete;
    EthPort &operator=(const EthPort &) = delete;

    bool ok() const { return error_.empty(); }
    const std::string &error() const { return error_; }

    // ---- per clock edge (see the top of this file) ----
    void rx_edge(uint64_t now_ns, uint8_t &dv, uint8_t &data);
    void tx_edge(uint64_t now_ns, bool en, uint8_t data);
    void poll(uint64_t now_ns);

    // ---- programmatic use (tests, the harness) ----
    enum class Kind { kNormal, kBadFcs, kRunt, kRaw };
    // Queue a frame for the SoC: kNormal pads to 60 and appends the FCS, kBadFcs the same with a wrong
    // FCS, kRunt no padding + FCS, kRaw the bytes as given after the SFD. Returns the rx# it will get.
    uint64_t send_to_soc(const uint8_t *p, size_t n, Kind kind = Kind::kNormal, const char *source = "api");
    // One control-channel line, executed now (t_ns = now_ns). False on a bad command.
    bool command(const std::string &line, uint64_t now_ns);
    // Called for every frame, RX when its last byte is on the pins, TX when tx_en fell.
    void set_frame_hook(std::function<void(const EthFrameEvent &)> hook) { hook_ = std::move(hook); }
    // Replace the backend (e.g. a MemoryBackend in tests, or nullptr for none).
    void attach_backend(std::unique_ptr<EthBackend> b);
    EthBackend *backend() const { return backend_.get(); }
    // The SoC's GPIO input pins, as the control channel's gpio-in set them (the harness drives them every edge).
    uint32_t gpio_in() const { return gpio_in_; }

    bool rx_idle() const { return !ser_.busy(); }        // nothing queued or on the RX pins
    bool tx_in_frame() const { return des_.in_burst(); }
    int exit_requested() const { return exit_code_; }    // -1, or the code of a ctl "exit <code>"
    const EthStats &stats() const { return st_; }
    // The impaired wire of a direction (kToSoc = rx, kFromSoc = tx): settings and counts.
    const Impairment &impairment(EthDir d) const { return d == EthDir::kToSoc ? imp_rx_ : imp_tx_; }
    void print_stats(FILE *f) const;
    void finish();  // flush and close pcap/frame log/ctl (idempotent)

private:
    struct RxMeta {
        uint64_t seq;
        const char *source;
        Kind kind;
        bool log;
        std::vector<uint8_t> frame;  // without FCS (raw: everything)
        const char *status = nullptr;  // set for frames the impaired wire corrupted
    };
    struct Deferred {
        uint64_t at_ns;
        std::string line;
    };
    void logf(uint64_t t, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
    void from_backend(const uint8_t *p, size_t n);
    void rx_enqueue_host(const uint8_t *p, size_t n, const char *status, const Impairment::Frame *imp);
    void rx_impair_release(uint64_t now_ns);
    bool tx_to_host(const uint8_t *p, size_t n, uint64_t now_ns);
    void tx_impair_release(uint64_t now_ns);
    void impair_log(const char *dir, const std::vector<Impairment::Frame> &fs, uint64_t id_lost, size_t len, uint64_t now_ns);
    void print_impair(FILE *f, const char *name, const Impairment &imp) const;
    void rx_complete();
    void tx_complete();
    void pcap_release();
    void ctl_open(const std::string &path);
    void ctl_read(uint64_t now_ns);
    void run_deferred(uint64_t now_ns);
    bool exec(const std::string &line, uint64_t now_ns);

    EthConfig cfg_;
    std::string error_;
    std::unique_ptr<EthBackend> backend_;
    PcapWriter pcap_;
    PcapWriter pcap_host_;
    Impairment imp_rx_{0}, imp_tx_{1};
    FILE *flog_ = nullptr;
    std::function<void(const EthFrameEvent &)> hook_;
    EthStats st_;
    int exit_code_ = -1;
    bool finished_ = false;

    // RX driver
    GmiiSerializer ser_;
    std::deque<RxMeta> rxq_;  // metadata of the frames in ser_, same order
    RxMeta rx_cur_;
    bool rx_active_ = false;
    uint64_t rx_seq_ = 0, rx_cycle_ = 0, rx_sof_ns_ = 0, rx_sof_cycle_ = 0;
    std::vector<uint8_t> rx_wire_;
    std::vector<uint64_t> rx_byte_ns_;
    uint64_t drop_rx_ = 0;
    uint64_t corrupt_rx_match_ = 0;  // corrupt-rx-match: how many more host frames containing corrupt_rx_pattern_
    bool corrupt_rx_fcs_ = true;     // ... sent with the FCS of the frame before the flip (else the FCS recomputed)
    std::string corrupt_rx_pattern_;

    // TX decoder
    GmiiDeserializer des_;
    uint64_t tx_seq_ = 0, tx_cycle_ = 0, tx_sof_ns_ = 0, tx_sof_cycle_ = 0, tx_eof_ns_ = 0, tx_eof_cycle_ = 0;
    std::vector<uint64_t> tx_byte_ns_;
    uint64_t drop_tx_ = 0;
    uint32_t gpio_in_ = 0;           // gpio-in: the SoC's input pins (a button, the risk gate's kill pin)
    uint64_t drop_tx_match_ = 0;     // drop-tx-match: how many more frames containing drop_tx_pattern_
    std::string drop_tx_pattern_;

    // control channel
    int ctl_fd_ = -1, ctl_wfd_ = -1;
    bool ctl_created_ = false;
    std::string ctl_path_, ctl_buf_;
    std::vector<Deferred> deferred_;  // sorted by at_ns
    // `flood <percent> <hex>...`: other traffic on the wire in simulated time, one frame whenever the wire to the SoC
    // is idle and the share allows, the frames in turn; the host's frames wait behind at most one of them.
    std::vector<std::vector<uint8_t>> flood_frames_;
    unsigned flood_pct_ = 0;
    uint64_t flood_next_ns_ = 0;
    size_t flood_idx_ = 0;
    void flood_one(uint64_t now_ns);
    uint64_t last_ns_ = 0;
};

}  // namespace tfeth
