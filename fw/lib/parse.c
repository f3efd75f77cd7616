/* Strict number parsing (see parse.h). In: text. Out: values or false. */
#include "lib/parse.h"

#include <stddef.h>

static int hexval(char c) {
    if (c >= '0' && c <= '9') return c - '0';
    if (c >= 'a' && c <= 'f') return c - 'a' + 10;
    if (c >= 'A' && c <= 'F') return c - 'A' + 10;
    return -1;
}

bool tf_parse_u32(const char *s, uint32_t *out) {
    if (s == NULL || *s == '\0') return false;
    uint64_t v = 0;
    if (s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) {
        s += 2;
        if (*s == '\0') return false;
        for (; *s; s++) {
            int d = hexval(*s);
            if (d < 0) return false;
            v = v * 16 + (uint64_t)d;
            if (v > 0xFFFFFFFFull) return false;
        }
    } else {
        for (; *s; s++) {
            if (*s < '0' || *s > '9') return false;
            v = v * 10 + (uint64_t)(*s - '0');
            if (v > 0xFFFFFFFFull) return false;
        }
    }
    *out = (uint32_t)v;
    return true;
}

bool tf_parse_ipv4(const char *s, uint32_t *out) {
    if (s == NULL) return false;
    uint32_t v = 0;
    for (int part = 0; part < 4; part++) {
        uint32_t octet = 0;
        int digits = 0;
        while (*s >= '0' && *s <= '9') {
            octet = octet * 10 + (uint32_t)(*s++ - '0');
            if (++digits > 3 || octet > 255) return false;
        }
        if (digits == 0) return false;
        v = (v << 8) | octet;
        if (part < 3 && *s++ != '.') return false;
    }
    if (*s != '\0') return false;
    *out = v;
    return true;
}

bool tf_parse_mac(const char *s, uint8_t out[6]) {
    if (s == NULL) return false;
    uint8_t tmp[6];
    for (int i = 0; i < 6; i++) {
        int hi = hexval(s[0]), lo = hexval(s[1]);
        if (hi < 0 || lo < 0) return false;
        tmp[i] = (uint8_t)(hi * 16 + lo);
        s += 2;
        if (i < 5 && *s++ != ':') return false;
    }
    if (*s != '\0') return false;
    for (int i = 0; i < 6; i++) out[i] = tmp[i];
    return true;
}

bool tf_bcd_u32(uint32_t bcd, unsigned digits, uint32_t *out) {
    uint32_t v = 0;
    for (unsigned i = digits; i-- > 0;) {
        uint32_t d = (bcd >> (4 * i)) & 0xFu;
        if (d > 9) return false;
        v = v * 10u + d;
    }
    *out = v;
    return true;
}
