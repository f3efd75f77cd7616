/* UTC timestamp conversion for FIX (see utc.h). Algorithms after H. Hinnant, "chrono-compatible
 * low-level date algorithms" (days_from_civil / civil_from_days), restricted to years >= 0. */
#include "fix/utc.h"

#include <string.h>

#include "lib/mem.h"
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

static void put2(char *p, uint32_t v)
{
    uint32_t q = tf_div10(v);
    p[0] = (char)('0' + q);
    p[1] = (char)('0' + v - q * 10u);
}

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

/* The value of the two digits at s, or 100 when either is not a digit. */
static inline __attribute__((always_inline)) uint32_t two_digits_at(const char *s)
{
    uint32_t a = (uint32_t)(uint8_t)s[0] - '0', b = (uint32_t)(uint8_t)s[1] - '0';
    return a <= 9 && b <= 9 ? a * 10u + b : 100u;
}

static uint32_t two_digits(const char *s) { return two_digits_at(s); }

/* fix_utc_parse's three: in line where the RAM has room (TF_MEM_WORDS, fw/Makefile), calls elsewhere. */
#if TF_MEM_WORDS
#define TWO_DIGITS_HOT two_digits_at
#else
#define TWO_DIGITS_HOT two_digits
#endif

/* The date's epoch ms, cached by the date's 8 characters: a session's timestamps share their date, so the date is
 * compared, not parsed, and the calendar arithmetic (and its divisions) runs once a day. Zeros: none (a cached date
 * is 8 digits). */
static char cached_date[8];
static uint64_t cached_ms;

/* The date's 8 characters at s into the cache (false, the cache unchanged, when they are not a date). Out of line:
 * it runs once a day, and fix_utc_parse without its calls saves fewer registers on every message. */
static __attribute__((noinline)) bool cache_date(const char *s)
{
    uint32_t cy = two_digits(s), yy = two_digits(s + 2), mo = two_digits(s + 4), d = two_digits(s + 6);
    uint32_t y = cy * 100u + yy;
    if (cy > 99 || yy > 99 || y < 1970 || mo < 1 || mo > 12 || d < 1 || d > 31) return false;
    cached_ms = (uint64_t)(uint32_t)fix_days_from_civil((int32_t)y, mo, d) * 86400000u;
    memcpy(cached_date, s, sizeof cached_date);
    return true;
}

/* Digit pairs read at their fixed places, no loop per digit; the fraction keeps its first three digits; the date
 * parsed only when it is not the cached one (compared in line: a memcmp call cost more than its 8 bytes). Built for
 * size (the RAM is short). */
bool fix_utc_parse(const char *s, size_t len, uint64_t *epoch_ms)
{
    if (len < 17 || s[8] != '-' || s[11] != ':' || s[14] != ':') return false;
    uint32_t h = TWO_DIGITS_HOT(s + 9), mi = TWO_DIGITS_HOT(s + 12), se = TWO_DIGITS_HOT(s + 15), ms = 0;
    if (h > 23 || mi > 59 || se > 60) return false; /* (a non-digit reads as 100) */
    if (len > 17) {
        /* Fraction: ".s" .. ".sssssssss"; keep milliseconds. */
        size_t fl = len - 18;
        if (s[17] != '.' || fl < 1 || fl > 9) return false;
#if TF_MEM_WORDS
        if (fl == 3) { /* milliseconds, the usual form: three digits at their places, no loop (34 -> 9 cycles) */
            uint32_t a = (uint32_t)(uint8_t)s[18] - '0', b = (uint32_t)(uint8_t)s[19] - '0', c = (uint32_t)(uint8_t)s[20] - '0';
            if (a > 9 || b > 9 || c > 9) return false;
            ms = a * 100u + b * 10u + c;
        } else
#endif
        for (size_t i = 0; i < fl; i++) {
            uint32_t c = (uint32_t)(uint8_t)s[18 + i] - '0';
            if (c > 9) return false;
            if (i < 3) ms = ms * 10u + c;
        }
        if (fl == 1) ms *= 100u;
        else if (fl == 2) ms *= 10u;
    }
    if (!tf_bytes_eq(s, cached_date, sizeof cached_date) && !cache_date(s)) return false;
    *epoch_ms = cached_ms + (h * 3600u + mi * 60u + se) * 1000u + ms;
    return true;
}
