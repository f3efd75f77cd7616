// sim/eth/eth_slirp.cpp - libslirp backend (Debian libslirp-dev 4.7.0, link -lslirp).
// QEMU-style user networking in this process, on the same addresses as the TAP tests: network 10.77.0.0/24, slirp itself (gateway, "host")
// 10.77.0.1, DNS 10.77.0.3, DHCP hands out 10.77.0.2 (the guest address the forwards point to).
// Connections from the guest to 10.77.0.1:<port> reach the host's 127.0.0.1:<port>.
// slirp's clock is the host's monotonic wall clock (the exchange and slirp's TCP timers live in wall
// time; DESIGN.md "Time": the firmware's timers are scaled so a simulated second is close to a wall one).
// Build with -DTF_ETH_NO_SLIRP to leave libslirp out (make_slirp_backend then fails cleanly).
#include "eth_backend.h"

#ifdef TF_ETH_NO_SLIRP
namespace tfeth {
std::unique_ptr<EthBackend> make_slirp_backend(const SlirpOptions &, std::string *err) {
    if (err) *err = "built without libslirp (TF_ETH_NO_SLIRP)";
    return nullptr;
}
}  // namespace tfeth
#else

#include <arpa/inet.h>
#include <poll.h>
#include <slirp/libslirp.h>  // needs no glib headers
#include <time.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <list>
#include <sstream>

namespace tfeth {

namespace {

int64_t mono_ns() {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

class SlirpBackend : public EthBackend {
public:
    ~SlirpBackend() override {
        if (slirp_) slirp_cleanup(slirp_);
    }
    const char *name() const override { return "slirp"; }

    bool init(const SlirpOptions &opt, std::string *err) {
        memset(&cb_, 0, sizeof cb_);
        cb_.send_packet = [](const void *buf, size_t len, void *op) -> ssize_t {
            auto *self = static_cast<SlirpBackend *>(op);
            self->to_guest_++;
            self->deliver(static_cast<const uint8_t *>(buf), len);
            return (ssize_t)len;
        };
        cb_.guest_error = [](const char *msg, void *) { fprintf(stderr, "eth: slirp: guest error: %s\n", msg); };
        cb_.clock_get_ns = [](void *) -> int64_t { return mono_ns(); };
        cb_.timer_new = [](SlirpTimerCb cb, void *cb_opaque, void *op) -> void * {
            auto *self = static_cast<SlirpBackend *>(op);
            self->timers_.push_back(Timer{cb, cb_opaque, -1});
            return &self->timers_.back();
        };
        cb_.timer_free = [](void *t, void *op) {
            auto *self = static_cast<SlirpBackend *>(op);
            self->timers_.remove_if([t](const Timer &x) { return &x == t; });
        };
        cb_.timer_mod = [](void *t, int64_t expire_ms, void *) { static_cast<Timer *>(t)->expire_ms = expire_ms; };
        cb_.register_poll_fd = [](int, void *) {};
        cb_.unregister_poll_fd = [](int, void *) {};
        cb_.notify = [](void *) {};

        SlirpConfig cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.version = 4;
        cfg.restricted = opt.restricted ? 1 : 0;
        cfg.in_enabled = true;
        inet_pton(AF_INET, "10.77.0.0", &cfg.vnetwork);
        inet_pton(AF_INET, "255.255.255.0", &cfg.vnetmask);
        inet_pton(AF_INET, "10.77.0.1", &cfg.vhost);
        inet_pton(AF_INET, "10.77.0.2", &cfg.vdhcp_start);
        inet_pton(AF_INET, "10.77.0.3", &cfg.vnameserver);
        cfg.in6_enabled = false;
        cfg.vhostname = "triggerfish-host";
        cfg.if_mtu = 1500;
        cfg.if_mru = 1500;
        cfg.disable_host_loopback = false;
        cfg.enable_emu = false;
        slirp_ = slirp_new(&cfg, &cb_, this);
        if (!slirp_) {
            if (err) *err = "slirp_new failed";
            return false;
        }
        std::stringstream ss(opt.forwards);
        std::string item;
        while (std::getline(ss, item, ',')) {
            if (item.empty()) continue;
            if (!add_forward(item, err)) return false;
        }
        return true;
    }

    bool send(const uint8_t *p, size_t n) override {
        from_guest_++;
        slirp_input(slirp_, p, (int)n);
        return true;
    }

    void poll() override {
        int64_t now_ms = mono_ns() / 1000000;
        for (auto it = timers_.begin(); it != timers_.end();) {
            auto cur = it++;  // the callback may free or re-arm it
            if (cur->expire_ms >= 0 && cur->expire_ms <= now_ms) {
                cur->expire_ms = -1;
                cur->cb(cur->cb_opaque);
            }
        }
        fds_.clear();
        uint32_t timeout = 0;
        slirp_pollfds_fill(slirp_, &timeout, add_poll, this);
        int r = fds_.empty() ? 0 : ::poll(fds_.data(), fds_.size(), 0);
        slirp_pollfds_poll(slirp_, r < 0 ? 1 : 0, get_revents, this);
    }

    std::string info() const override {
        char b[160];
        snprintf(b, sizeof b, "slirp: %llu frames to slirp, %llu from slirp, %zu forwards",
                 (unsigned long long)from_guest_, (unsigned long long)to_guest_, forwards_);
        return b;
    }

private:
    struct Timer {
        SlirpTimerCb cb;
        void *cb_opaque;
        int64_t expire_ms;
    };

    bool add_forward(const std::string &spec, std::string *err) {
        // [tcp|udp]:[hostaddr:]hostport:guestport
        std::vector<std::string> f;
        std::stringstream ss(spec);
        std::string x;
        while (std::getline(ss, x, ':')) f.push_back(x);
        bool udp = false;
        if (!f.empty() && (f[0] == "tcp" || f[0] == "udp")) { udp = f[0] == "udp"; f.erase(f.begin()); }
        std::string haddr = "127.0.0.1";
        if (f.size() == 3) { haddr = f[0]; f.erase(f.begin()); }
        char *e1 = nullptr, *e2 = nullptr;
        long hp = f.size() == 2 ? strtol(f[0].c_str(), &e1, 10) : -1;
        long gp = f.size() == 2 ? strtol(f[1].c_str(), &e2, 10) : -1;
        struct in_addr ha, ga;
        if (hp < 0 || hp > 65535 || gp <= 0 || gp > 65535 || *e1 || *e2 || inet_pton(AF_INET, haddr.c_str(), &ha) != 1) {
            if (err) *err = "bad slirp forward '" + spec + "' (want tcp:<hostport>:<guestport>)";
            return false;
        }
        inet_pton(AF_INET, "10.77.0.2", &ga);
        if (slirp_add_hostfwd(slirp_, udp ? 1 : 0, ha, (int)hp, ga, (int)gp) < 0) {
            if (err) *err = "slirp forward '" + spec + "': cannot listen on " + haddr + ":" + std::to_string(hp);
            return false;
        }
        fprintf(stderr, "eth: slirp: forwarding %s %s:%ld -> 10.77.0.2:%ld\n", udp ? "udp" : "tcp", haddr.c_str(), hp, gp);
        forwards_++;
        return true;
    }

    static int add_poll(int fd, int events, void *op) {
        auto *self = static_cast<SlirpBackend *>(op);
        struct pollfd p;
        p.fd = fd;
        p.events = (short)(((events & SLIRP_POLL_IN) ? POLLIN : 0) | ((events & SLIRP_POLL_OUT) ? POLLOUT : 0) |
                           ((events & SLIRP_POLL_PRI) ? POLLPRI : 0));
        p.revents = 0;
        self->fds_.push_back(p);
        return (int)self->fds_.size() - 1;
    }
    static int get_revents(int idx, void *op) {
        auto *self = static_cast<SlirpBackend *>(op);
        if (idx < 0 || (size_t)idx >= self->fds_.size()) return 0;
        short r = self->fds_[idx].revents;
        return ((r & POLLIN) ? SLIRP_POLL_IN : 0) | ((r & POLLOUT) ? SLIRP_POLL_OUT : 0) |
               ((r & POLLPRI) ? SLIRP_POLL_PRI : 0) | ((r & POLLERR) ? SLIRP_POLL_ERR : 0) |
               ((r & POLLHUP) ? SLIRP_POLL_HUP : 0);
    }

    Slirp *slirp_ = nullptr;
    SlirpCb cb_;
    std::list<Timer> timers_;
    std::vector<struct pollfd> fds_;
    uint64_t from_guest_ = 0, to_guest_ = 0;
    size_t forwards_ = 0;
};

}  // namespace

std::unique_ptr<EthBackend> make_slirp_backend(const SlirpOptions &opt, std::string *err) {
    std::unique_ptr<SlirpBackend> b(new SlirpBackend);
    if (!b->init(opt, err)) return nullptr;
    return b;
}

}  // namespace tfeth
#endif
