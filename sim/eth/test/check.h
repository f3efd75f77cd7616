// sim/eth/test/check.h - minimal checks: one line each, a RESULT line for run.sh to add up.
#pragma once
#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace tfeth_test {
inline int &passes() { static int n = 0; return n; }
inline int &fails() { static int n = 0; return n; }
inline bool check(bool ok, const char *name, const char *fmt = "", ...) {
    char buf[512];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    for (size_t n = strlen(buf); n > 0 && (buf[n - 1] == '\n' || buf[n - 1] == ' '); n--) buf[n - 1] = 0;
    printf("  [%s] %s%s%s\n", ok ? "ok" : "FAIL", name, buf[0] ? ": " : "", buf);
    fflush(stdout);
    (ok ? passes() : fails())++;
    return ok;
}
inline int result() {
    printf("RESULT passed=%d failed=%d\n", passes(), fails());
    return fails() ? 1 : 0;
}
}  // namespace tfeth_test
