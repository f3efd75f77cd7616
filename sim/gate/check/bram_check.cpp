// Drives BramCheck (bram_check.v) after synth_ecp5, simulated with the cell models, and compares every read with
// the expectation: the hex file for the ROM, the words written for the trigger table RAM and the template RAM (zero
// before any write; the template RAM through both its ports),
// the hex files and then the words written for the distributed RAMs (read asynchronously: no clock edge).
// Prints "bram check: <n> reads, <m> mismatches"; exit 1 on any mismatch.
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <random>
#include <vector>

#include "VBramCheck.h"
#include "verilated.h"

int main(int argc, char **argv) {
    Verilated::commandArgs(argc, argv);
    if (argc < 5) { fprintf(stderr, "usage: bram_check <x9 hex file> <x4 hex file> <32 x 8 hex file> <64 x 3 hex file>\n"); return 2; }
    auto load = [](const char *path, size_t n) {
        std::vector<unsigned> h;
        std::ifstream in(path);
        unsigned v;
        while (in >> std::hex >> v) h.push_back(v);
        if (h.size() != n) { fprintf(stderr, "bram check: %zu words in %s, want %zu\n", h.size(), path, n); exit(2); }
        return h;
    };
    std::vector<unsigned> hex = load(argv[1], 2048), hex4 = load(argv[2], 4096), l32 = load(argv[3], 32), l64 = load(argv[4], 64);
    VBramCheck t;
    long reads = 0, bad = 0;
    auto tick = [&] { t.clk = 1; t.eval(); t.clk = 0; t.eval(); };
    t.clk = 0; t.we = 0; t.re = 0; t.lwe = 0; t.pen = 0; t.pwe = 0; t.eval();
    // distributed RAMs: every word as the hex files give it, then random writes (one a clock edge), each address
    // read back after every write (asynchronous reads: the address set and evaluated, no edge)
    auto check_lut = [&](const char *phase) {
        for (unsigned a = 0; a < 64; a++) {
            t.la = a; t.eval(); reads++;
            if ((a < 32 && t.l32q != l32[a]) || t.l64q != l64[a]) {
                if (bad++ < 10) printf("%s: l32[%u] = %02x (want %02x), l64[%u] = %x (want %x)\n", phase, a % 32, t.l32q, l32[a % 32], a, t.l64q, l64[a]);
            }
        }
    };
    check_lut("distributed RAMs at start");
    std::mt19937_64 lrng(7);
    for (int i = 0; i < 300; i++) {
        unsigned a = lrng() % 64, d = lrng() % 256;
        t.lwe = 1; t.lwa = a; t.lwd = d; tick(); t.lwe = 0;
        l32[a % 32] = d; l64[a] = d & 7;
        if (i % 30 == 29) check_lut("distributed RAMs after writes"); /* (the last after the 300th write) */
    }
    // ROM: address in cycle c, data after the edge
    for (unsigned a = 0; a < 2048; a++) {
        t.ra = a; tick(); reads++;
        if (t.rq != hex[a]) { if (bad++ < 10) printf("rom[%u] = %02x, want %02x\n", a, t.rq, hex[a]); }
    }
    for (unsigned a = 0; a < 4096; a++) {
        t.na = a; tick(); reads++;
        if (t.nq != hex4[a]) { if (bad++ < 10) printf("nib[%u] = %x, want %x\n", a, t.nq, hex4[a]); }
    }
    // table: zero at start; read latency 2 (TableRam.scala): the address in cycle c, the data in cycle c+2, i.e.
    // after the second clock edge; here, after the tick that presents address a, the data of address a-1
    std::vector<uint64_t> want(512, 0);
    std::mt19937_64 rng(19);
    auto check_all = [&](const char *phase) {
        for (unsigned a = 0; a < 512 + 1; a++) {
            t.re = a < 512; t.ta = a < 512 ? a : 0; tick();
            if (a >= 1) {
                reads++;
                if (t.td != want[a - 1]) { if (bad++ < 10) printf("%s: table[%u] = %016llx, want %016llx\n", phase, a - 1, (unsigned long long)t.td, (unsigned long long)want[a - 1]); }
            }
        }
        t.re = 0;
    };
    check_all("after configuration");
    for (unsigned a = 0; a < 512; a++) { want[a] = rng(); t.we = 1; t.wa = a; t.wd = want[a]; tick(); }
    t.we = 0;
    check_all("after writes");
    for (int i = 0; i < 200; i++) { unsigned a = rng() % 512; want[a] = rng(); t.we = 1; t.wa = a; t.wd = want[a]; tick(); }
    t.we = 0;
    check_all("after rewrites");
    // template RAM: zero at start; port A's data after the edge that presents the address, port B's one edge later
    // (its output register): after the tick that presents address a on both ports, port A shows word a and port B
    // word a-1
    std::vector<uint32_t> tw(2048, 0);
    auto check_tpl = [&](const char *phase) {
        t.pwe = 0;
        for (unsigned a = 0; a < 2048 + 1; a++) {
            t.pen = a < 2048; t.paa = a % 2048; t.pab = a % 2048; tick();
            if (a < 2048) {
                reads++;
                if (t.pqa != tw[a]) { if (bad++ < 10) printf("%s: template port A [%u] = %08x, want %08x\n", phase, a, t.pqa, tw[a]); }
            }
            if (a >= 1) {
                reads++;
                if (t.pqb != tw[a - 1]) { if (bad++ < 10) printf("%s: template port B [%u] = %08x, want %08x\n", phase, a - 1, t.pqb, tw[a - 1]); }
            }
        }
        t.pen = 0;
    };
    check_tpl("template RAM at start");
    for (unsigned a = 0; a < 2048; a++) { tw[a] = (uint32_t)rng(); t.pen = 1; t.pwe = 1; t.paa = a; t.pda = tw[a]; tick(); }
    check_tpl("template RAM after writes");
    for (int i = 0; i < 300; i++) { unsigned a = rng() % 2048; tw[a] = (uint32_t)rng(); t.pen = 1; t.pwe = 1; t.paa = a; t.pda = tw[a]; tick(); }
    check_tpl("template RAM after rewrites");
    printf("bram check: %ld reads, %ld mismatches\n", reads, bad);
    return bad ? 1 : 0;
}
