/* UTC timestamps for FIX, without libc time functions and without floating point.
 * In:  milliseconds since 1970-01-01T00:00:00Z (uint64), or FIX UTCTimestamp text.
 * Out: "YYYYMMDD-HH:MM:SS.sss" (21 chars, no terminator written beyond the 21) or epoch milliseconds.
 * Uses the days-from-civil / civil-from-days algorithms (proleptic Gregorian calendar).
 * Valid range: parsing 1970..9999, formatting 1970..2105 (32-bit seconds after one 64-bit division). */
#ifndef TF_FIX_UTC_H
#define TF_FIX_UTC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define FIX_UTC_TS_LEN 21 /* YYYYMMDD-HH:MM:SS.sss */

/* Days since 1970-01-01 of a civil date (m 1..12, d 1..31). */
int32_t fix_days_from_civil(int32_t y, uint32_t m, uint32_t d);
/* Inverse of fix_days_from_civil. */
void fix_civil_from_days(int32_t days, int32_t *y, uint32_t *m, uint32_t *d);

/* Writes exactly FIX_UTC_TS_LEN chars into out (no NUL). */
void fix_utc_format(char out[FIX_UTC_TS_LEN], uint64_t epoch_ms);

/* Parses "YYYYMMDD-HH:MM:SS" or "YYYYMMDD-HH:MM:SS.sss" (a longer fraction is truncated to ms).
 * Returns false on any format or range error. */
bool fix_utc_parse(const char *s, size_t len, uint64_t *epoch_ms);

#endif
