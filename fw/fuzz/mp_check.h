/* fuzz/mp_check.h - checks what the machine protocol writes (lib/mproto.c), for the fuzzers whose code emits its
 * replies and events: every line is "@{" ... "}\r\n", printable ASCII in between, with balanced quotes (the writer
 * replaces '"', '\\' and control characters in strings by '?', so no value can break a line or a string). */
#ifndef TF_FUZZ_MP_CHECK_H
#define TF_FUZZ_MP_CHECK_H

#include <string.h>

#include "fuzz.h"
#include "lib/mproto.h"

static char mpc_line[4096];
static size_t mpc_len;
static unsigned mpc_lines;

static void mpc_end_line(void)
{
    FZ_CHECK(mpc_len >= 5 && memcmp(mpc_line, "@{", 2) == 0 && memcmp(mpc_line + mpc_len - 3, "}\r\n", 3) == 0);
    unsigned quotes = 0;
    for (size_t i = 0; i + 2 < mpc_len; i++) {
        FZ_CHECK(mpc_line[i] >= 0x20 && mpc_line[i] <= 0x7e);
        quotes += mpc_line[i] == '"';
    }
    FZ_CHECK(quotes % 2 == 0);
    mpc_len = 0;
    mpc_lines++;
}

static void mpc_write(const char *s, size_t n)
{
    for (size_t i = 0; i < n; i++) {
        FZ_CHECK(mpc_len < sizeof mpc_line);
        mpc_line[mpc_len++] = s[i];
        if (s[i] == '\n') mpc_end_line();
    }
}

/* Before the next record: the previous one must have been ended. */
static void mpc_line_start(void) { FZ_CHECK(mpc_len == 0); }

static inline void mpc_init(void)
{
    mpc_len = 0;
    mp_out_init(mpc_write, mpc_line_start);
}

#endif
