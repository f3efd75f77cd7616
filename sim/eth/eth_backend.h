// sim/eth/eth_backend.h - where the frames of the simulated Ethernet port go on the host side.
//   TAP   (eth_tap.cpp):   an existing TAP interface, /dev/net/tun with IFF_TAP | IFF_NO_PI.
//   slirp (eth_slirp.cpp): libslirp user-mode networking, 10.77.0.0/24, host 10.77.0.1, guest 10.77.0.2.
//   MemoryBackend:         frames in/out of std::deques, for tests.
// Frames crossing this interface are Ethernet frames without preamble, SFD and FCS.
#pragma once
#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace tfeth {

class EthBackend {
public:
    using Sink = std::function<void(const uint8_t *p, size_t n)>;
    virtual ~EthBackend() = default;
    virtual const char *name() const = 0;
    // EthPort sets this: the backend calls it for each frame for the SoC (from poll() or from send()).
    void set_sink(Sink s) { sink_ = std::move(s); }
    // A good frame the SoC sent. False when the host could not take it (counted as a drop).
    virtual bool send(const uint8_t *p, size_t n) = 0;
    // Non-blocking host I/O; frames for the SoC go to the sink.
    virtual void poll() = 0;
    // One line of backend-specific state for the statistics (may be empty).
    virtual std::string info() const { return {}; }

protected:
    void deliver(const uint8_t *p, size_t n) { if (sink_) sink_(p, n); }
    Sink sink_;
};

// Attach to an existing TAP interface (must exist unless the process may create it; as root the
// kernel creates a non-persistent one). Returns nullptr and sets *err on failure.
std::unique_ptr<EthBackend> make_tap_backend(const std::string &ifname, std::string *err);

struct SlirpOptions {
    // Host port forwards: "tcp:<hostport>:<guestport>" or "udp:..." or "tcp:<hostaddr>:<hostport>:<guestport>",
    // several separated by commas. Host address defaults to 127.0.0.1; the guest is 10.77.0.2.
    std::string forwards;
    bool restricted = false;  // true: the guest cannot reach anything but forwarded/host services
};
// nullptr and *err when libslirp refuses (or when built with TF_ETH_NO_SLIRP).
std::unique_ptr<EthBackend> make_slirp_backend(const SlirpOptions &opt, std::string *err);

class MemoryBackend : public EthBackend {
public:
    const char *name() const override { return "memory"; }
    bool send(const uint8_t *p, size_t n) override { sent.emplace_back(p, p + n); return true; }
    void poll() override {
        while (!to_soc.empty()) {
            std::vector<uint8_t> f = std::move(to_soc.front());
            to_soc.pop_front();
            deliver(f.data(), f.size());
        }
    }
    std::deque<std::vector<uint8_t>> to_soc;  // the test pushes frames here (host -> SoC)
    std::deque<std::vector<uint8_t>> sent;    // frames the SoC sent (SoC -> host)
};

}  // namespace tfeth
