/* The firmware's side of the differential test of the two trigger paths (hw/test/triggerfish/offload/
 * StopDiffSpec.scala): replays cases of market data and armed stops through the firmware's own FIX session,
 * application layer and stop logic (tests/stops_host.h) and prints what it decided, for the spec to compare with
 * the hardware's reference model and RTL.
 * In (stdin), one item a line:
 *   case <name> <decimals>                  a new session with that many price decimals, every stop free
 *   stop <i> buy|sell <symbol> <stop>       stop i armed (fixed point with the case's decimals)
 *   W <rest of the body>                    a 35=W: the fields after MsgSeqNum, '|' for SOH
 * Out (stdout, lines starting "DIFF "; the stop logic's own console lines are in between):
 *   DIFF msg <case> <k> <the framed message, '|' for SOH>     message k of the case as fed (the other path's input)
 *   DIFF fire <case> <k> <stop> <price>                       stop fired on message k, at that trade price
 *   DIFF answer <case> <k> <message, '|' for SOH>             anything the session sent but an order: a Reject...
 * Exit status 0, or 2 on a malformed input line. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "stops_host.h"

static void print_bar(const char *tag, const char *name, int k, const uint8_t *p, size_t n)
{
    printf("DIFF %s %s %d ", tag, name, k);
    for (size_t i = 0; i < n; i++) putchar(p[i] == 0x01 ? '|' : p[i]);
    putchar('\n');
}

int main(void)
{
    static char line[4 * FIX_MAX_MSG_LEN];
    char name[64] = "";
    int k = 0, lineno = 0;
    bool started = false;
    setvbuf(stdout, NULL, _IOLBF, 0);
    while (fgets(line, sizeof line, stdin)) {
        lineno++;
        size_t len = strlen(line);
        while (len && (line[len - 1] == '\n' || line[len - 1] == '\r')) line[--len] = '\0';
        if (len == 0) continue;
        unsigned dec, i;
        char side[8], sym[FIX_SYMBOL_MAX];
        long long px;
        if (sscanf(line, "case %63s %u", name, &dec) == 2 && dec <= FIX_MAX_DECIMALS) {
            sh_start(dec);
            started = true;
            k = 0;
        } else if (started && sscanf(line, "stop %u %7s %15s %lld", &i, side, sym, &px) == 4 && i < STOPS_MAX &&
                   (!strcmp(side, "buy") || !strcmp(side, "sell"))) {
            sh_arm(i, side[0] == 'b' ? '1' : '2', sym, px);
        } else if (started && line[0] == 'W' && line[1] == ' ') {
            uint8_t msg[FIX_MAX_MSG_LEN + 64];
            size_t n = sh_frame_w(line + 2, msg, sizeof msg);
            if (n == 0) {
                fprintf(stderr, "line %d: message too long\n", lineno);
                return 2;
            }
            print_bar("msg", name, k, msg, n);
            uint32_t fires[STOPS_MAX];
            for (unsigned j = 0; j < STOPS_MAX; j++) fires[j] = stops_get(j)->fires;
            int first = sh_feed(msg, n);
            for (unsigned j = 0; j < STOPS_MAX; j++)
                if (stops_get(j)->fires != fires[j])
                    printf("DIFF fire %s %d %u %lld\n", name, k, j, (long long)stops_get(j)->fired_px);
            for (int m = first; m < SH.nsent; m++)
                if (strcmp(fx_field(&SH, m, 35), "D") != 0) print_bar("answer", name, k, SH.sent[m], SH.sent_len[m]);
            if (SH.nsent > FX_MAX_SENT - 24) { /* room for the next message's answers: a case is short */
                fprintf(stderr, "line %d: too many messages sent in one case\n", lineno);
                return 2;
            }
            k++;
        } else {
            fprintf(stderr, "line %d: not understood: %s\n", lineno, line);
            return 2;
        }
    }
    return 0;
}
