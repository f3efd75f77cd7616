// sim/eth/eth_tap.cpp - TAP backend: /dev/net/tun, IFF_TAP | IFF_NO_PI, non-blocking.
#include <fcntl.h>
#include <net/if.h>  // if_nametoindex
#include <linux/if.h>
#include <linux/if_tun.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "eth_backend.h"

namespace tfeth {

namespace {

class TapBackend : public EthBackend {
public:
    TapBackend(int fd, std::string ifname) : fd_(fd), ifname_(std::move(ifname)) {}
    ~TapBackend() override { if (fd_ >= 0) close(fd_); }
    const char *name() const override { return "tap"; }

    bool send(const uint8_t *p, size_t n) override {
        ssize_t r = write(fd_, p, n);
        if (r == (ssize_t)n) return true;
        write_errors_++;
        if (write_errors_ <= 5)
            fprintf(stderr, "eth: tap %s: write of %zu bytes: %s\n", ifname_.c_str(), n,
                    r < 0 ? strerror(errno) : "short write");
        return false;
    }

    void poll() override {
        uint8_t buf[65536];
        for (int i = 0; i < 256; i++) {  // bounded: the simulation must go on
            ssize_t r = read(fd_, buf, sizeof buf);
            if (r > 0) { deliver(buf, (size_t)r); continue; }
            if (r < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR) {
                read_errors_++;
                if (read_errors_ <= 5) fprintf(stderr, "eth: tap %s: read: %s\n", ifname_.c_str(), strerror(errno));
            }
            break;
        }
    }

    std::string info() const override {
        char b[128];
        snprintf(b, sizeof b, "tap %s: write errors %llu, read errors %llu", ifname_.c_str(),
                 (unsigned long long)write_errors_, (unsigned long long)read_errors_);
        return b;
    }

private:
    int fd_;
    std::string ifname_;
    uint64_t write_errors_ = 0, read_errors_ = 0;
};

}  // namespace

std::unique_ptr<EthBackend> make_tap_backend(const std::string &ifname, std::string *err) {
    if (ifname.empty() || ifname.size() >= IFNAMSIZ) {
        if (err) *err = "bad TAP interface name '" + ifname + "'";
        return nullptr;
    }
    bool existed = if_nametoindex(ifname.c_str()) != 0;
    int fd = open("/dev/net/tun", O_RDWR | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
        if (err) *err = std::string("/dev/net/tun: ") + strerror(errno);
        return nullptr;
    }
    struct ifreq ifr;
    memset(&ifr, 0, sizeof ifr);
    ifr.ifr_flags = IFF_TAP | IFF_NO_PI;
    strncpy(ifr.ifr_name, ifname.c_str(), IFNAMSIZ - 1);
    if (ioctl(fd, TUNSETIFF, &ifr) < 0) {
        if (err) *err = "TUNSETIFF " + ifname + ": " + strerror(errno) +
                        (errno == EPERM ? " (needs root or a TAP owned by this user)" : "") +
                        (errno == EBUSY ? " (another process has it open)" : "") +
                        (errno == EINVAL ? " (exists but is not a TAP without packet info?)" : "");
        close(fd);
        return nullptr;
    }
    if (!existed)
        fprintf(stderr, "eth: tap %s did not exist: created it (it goes away when the simulation ends; "
                        "bring it up and address it yourself)\n", ifr.ifr_name);
    return std::unique_ptr<EthBackend>(new TapBackend(fd, ifr.ifr_name));
}

}  // namespace tfeth
