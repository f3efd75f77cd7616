// sim/eth/eth_crc.h - Ethernet FCS (CRC-32, IEEE 802.3: reflected polynomial 0xEDB88320,
// initial value and final XOR 0xFFFFFFFF). The FCS goes on the wire least significant byte first.
#pragma once
#include <cstddef>
#include <cstdint>

namespace tfeth {

inline const uint32_t *crc32_table() {
    static uint32_t table[256];
    static bool done = false;
    if (!done) {
        for (uint32_t i = 0; i < 256; i++) {
            uint32_t c = i;
            for (int k = 0; k < 8; k++) c = (c & 1) ? (c >> 1) ^ 0xEDB88320u : c >> 1;
            table[i] = c;
        }
        done = true;
    }
    return table;
}

// CRC-32 of len bytes (the value whose bytes, LSB first, form the FCS).
inline uint32_t crc32(const uint8_t *p, size_t len) {
    const uint32_t *t = crc32_table();
    uint32_t c = 0xFFFFFFFFu;
    for (size_t i = 0; i < len; i++) c = t[(c ^ p[i]) & 0xFF] ^ (c >> 8);
    return c ^ 0xFFFFFFFFu;
}

// True when the last 4 of len bytes are the correct FCS of the bytes before them.
inline bool fcs_ok(const uint8_t *p, size_t len) {
    if (len < 4) return false;
    uint32_t c = crc32(p, len - 4);
    const uint8_t *f = p + len - 4;
    return f[0] == (c & 0xFF) && f[1] == ((c >> 8) & 0xFF) && f[2] == ((c >> 16) & 0xFF) && f[3] == (c >> 24);
}

}  // namespace tfeth
