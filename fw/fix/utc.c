/* UTC timestamp conversion for FIX (see utc.h). Algorithms after H. Hinnant, "chrono-compatible
 * low-level date algorithms" (days_from_civil / civil_from_days), restricted to years >= 0. */
#include "fix/utc.h"

#include <string.h>

#include "lib/udiv.h"

int32_t fix_days_from_civil(int32_t y, uint32_t m, uint32_t d)
{
    y -= m <= 2;
    const int32_t era = y / 400; /* y >= 0 in our range */
    const uint32_t yoe = (uint32_t)(y - era * 400);
    const uint32_t doy = (153u * (m > 2 ? m - 3 : m + 9) + 2u) / 5u + d - 1u;
    const uint32_t doe = yoe * 365u + yoe / 4u - yoe / 100u + doy;
    return era * 146097 + (int32_t)doe - 719468;
}

void fix_civil_from_days(int32_t z, int32_t *y, uint32_t *m, uint32_t *d)
{
    z += 719468;
    const int32_t era = z / 146097; /* z >= 0 in our range */
    const uint32_t doe = (uint32_t)(z - era * 146097);
    const uint32_t yoe = (doe - doe / 1460u + doe / 36524u - doe / 146096u) / 365u;
    const uint32_t doy = doe - (365u * yoe + yoe / 4u - yoe / 100u);
    const uint32_t mp = (5u * doy + 2u) / 153u;
    *d = doy - (153u * mp + 2u) / 5u + 1u;
    *m = mp < 10 ? mp + 3 : mp - 9;
    *y = (int32_t)yoe + era * 400 + (*m <= 2);
}

static void put2(char *p, uint32_t v) { p[0] = (char)('0' + v / 10u); p[1] = (char)('0' + v % 10u); }

void fix_utc_format(char out[FIX_UTC_TS_LEN], uint64_t epoch_ms)
{
    /* One 64-by-16-bit division (three 32-bit ones), then 32-bit arithmetic only (seconds fit in 32 bits until 2106). */
    const uint64_t secs64 = tf_udiv64_u16(epoch_ms, 1000u);
    const uint32_t ms = (uint32_t)(epoch_ms - secs64 * 1000u);
    const uint32_t secs = secs64 > UINT32_MAX ? UINT32_MAX : (uint32_t)secs64;
    const uint32_t days = secs / 86400u;
    uint32_t sod = secs - days * 86400u;
    int32_t y;
    uint32_t m, d;
    fix_civil_from_days((int32_t)days, &y, &m, &d);
    uint32_t yy = (uint32_t)y;
    if (yy > 9999u) yy = 9999u;
    put2(out, yy / 100u);
    put2(out + 2, yy % 100u);
    put2(out + 4, m);
    put2(out + 6, d);
    out[8] = '-';
    put2(out + 9, sod / 3600u);
    sod %= 3600u;
    out[11] = ':';
    put2(out + 12, sod / 60u);
    out[14] = ':';
    put2(out + 15, sod % 60u);
    out[17] = '.';
    out[18] = (char)('0' + ms / 100u);
    put2(out + 19, ms % 100u);
}

static bool digits(const char *s, size_t n, uint32_t *out)
{
    uint32_t v = 0;
    for (size_t i = 0; i < n; i++) {
        if (s[i] < '0' || s[i] > '9') return false;
        v = v * 10u + (uint32_t)(s[i] - '0');
    }
    *out = v;
    return true;
}

/* Epoch ms of the date "YYYYMMDD" at s (already checked), from a one-entry cache: a session's timestamps
 * share their date, so the calendar arithmetic runs once a day. */
static uint64_t date_ms(const char *s)
{
    static char cached[8];
    static uint64_t cached_ms;
    static bool valid;
    if (!valid || memcmp(cached, s, 8) != 0) {
        uint32_t y = 0, mo = 0, d = 0;
        (void)digits(s, 4, &y);
        (void)digits(s + 4, 2, &mo);
        (void)digits(s + 6, 2, &d);
        cached_ms = (uint64_t)(uint32_t)fix_days_from_civil((int32_t)y, mo, d) * 86400000u;
        memcpy(cached, s, 8);
        valid = true;
    }
    return cached_ms;
}

__attribute__((optimize("O2"))) bool fix_utc_parse(const char *s, size_t len, uint64_t *epoch_ms)
{
    uint32_t y, mo, d, h, mi, se, ms = 0;
    if (len < 17) return false;
    if (!digits(s, 4, &y) || !digits(s + 4, 2, &mo) || !digits(s + 6, 2, &d) || s[8] != '-' ||
        !digits(s + 9, 2, &h) || s[11] != ':' || !digits(s + 12, 2, &mi) || s[14] != ':' ||
        !digits(s + 15, 2, &se))
        return false;
    if (len > 17) {
        /* Fraction: ".s" .. ".sssssssss"; keep milliseconds. */
        size_t fl = len - 18;
        if (s[17] != '.' || fl < 1 || fl > 9) return false;
        for (size_t i = 0; i < fl; i++) { /* the first three digits kept, no division per digit */
            char c = s[18 + i];
            if (c < '0' || c > '9') return false;
            if (i < 3) ms = ms * 10u + (uint32_t)(c - '0');
        }
        if (fl == 1) ms *= 100u;
        else if (fl == 2) ms *= 10u;
    }
    if (y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31 || h > 23 || mi > 59 || se > 60) return false;
    *epoch_ms = (uint64_t)date_ms(s) + (h * 3600u + mi * 60u + se) * 1000u + ms;
    return true;
}
