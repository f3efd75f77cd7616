// The firmware into the block RAMs at simulation start (tools/gate-sim.sh).
//
// The gate-level netlists are synthesised with the RAM holding a placeholder: random 32-bit words from a fixed seed
// (yowasp-ecpbram -g), the same for every firmware, so that a firmware change does not change the netlist or the
// simulator built from it. The block RAM models (sim/gate/ecp5_models.v DP16KD, sim/gate/xc7_models.v
// gate_xc7_bram), built with GATE_RAM_PATCH, hand their initial contents to gate_ram_cell/put, ask gate_ram_patch
// and read the result back with gate_ram_get, once, in their initial block (the first eval).
//
// What gate_ram_patch does is what the ECP5 bitstream flow does to the routed design (tools/board.sh ram_patch,
// checked there by tools/bram-check.py): the RAM is split into bit slices, bit i of words 512c .. 512c+511; every
// slice of the placeholder is looked for among a block RAM's bits in each data width the primitive has, and where it
// is found, the same slice of the firmware (zeros past the image's end) is written in its place. In data width W,
// the bits of address k are bits kW .. kW+W-1 of the block RAM's array of units, which are 9-bit words with 8 bits
// used for widths 1, 2 and 4 on the DP16KD (Lattice TN1264; the Trellis database's init format), and the data bytes
// on the RAMB18E1/RAMB36E1 (Xilinx UG473: parity bits apart, not used by the byte-wide RAM lanes).
//
// gate_ram_report (gate_main.cpp, after the first eval) then checks that every slice of the placeholder was found
// in exactly one block RAM, and prints what was patched.
#include "gate_ram.h"

#include <array>
#include <cstdio>
#include <cstdlib>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace {

const int SLICE = 512;
typedef std::array<uint64_t, SLICE / 64> Bits;

struct Cell {
    std::string name;
    int kind;                       // 0: DP16KD (2,048 9-bit words), 1: RAMB18E1/RAMB36E1 (data bytes)
    std::vector<uint32_t> units, out;
    int patched = 0;
};

struct State {
    bool loaded = false;
    std::string placeholder_path, firmware_path;
    std::vector<uint32_t> ph, fw;   // fw padded with zeros to ph's length
    std::map<Bits, int> slice_of;   // the placeholder's slices: bits -> slice id (chunk * 32 + bit)
    std::vector<int> where;         // slice id -> cell index, -1: not found
    std::vector<Cell> cells;
    std::vector<std::string> errors;
    std::set<int> widths;
};
State &st() { static State s; return s; }

std::vector<uint32_t> read_words(const std::string &path) {
    FILE *f = fopen(path.c_str(), "r");
    if (!f) { fprintf(stderr, "gate: cannot read %s\n", path.c_str()); exit(2); }
    std::vector<uint32_t> w;
    char line[256];
    int n = 0;
    while (fgets(line, sizeof line, f)) {
        n++;
        std::string s(line);
        while (!s.empty() && (s.back() == '\n' || s.back() == '\r' || s.back() == ' ')) s.pop_back();
        if (s.empty()) continue;
        char *end;
        unsigned long long v = strtoull(s.c_str(), &end, 16);
        if (*end || v >> 32) { fprintf(stderr, "gate: %s:%d: not a 32-bit hex word: %s\n", path.c_str(), n, s.c_str()); exit(2); }
        w.push_back((uint32_t)v);
    }
    fclose(f);
    return w;
}

void load() {
    State &s = st();
    if (s.loaded) return;
    s.loaded = true;
    if (s.placeholder_path.empty() || s.firmware_path.empty()) {
        fprintf(stderr, "gate: this simulator's block RAMs hold the netlist's placeholder: give +ram-placeholder=FILE and "
                        "+ram-firmware=FILE (tools/gate-sim.sh run does)\n");
        exit(2);
    }
    s.ph = read_words(s.placeholder_path);
    s.fw = read_words(s.firmware_path);
    if (s.ph.empty() || s.ph.size() % SLICE) {
        fprintf(stderr, "gate: %s: %zu words, not a multiple of %d\n", s.placeholder_path.c_str(), s.ph.size(), SLICE); exit(2);
    }
    if (s.fw.size() > s.ph.size()) {
        fprintf(stderr, "gate: %s: %zu words, more than the RAM's %zu\n", s.firmware_path.c_str(), s.fw.size(), s.ph.size()); exit(2);
    }
    s.fw.resize(s.ph.size(), 0);
    for (size_t c = 0; c < s.ph.size() / SLICE; c++)
        for (int i = 0; i < 32; i++) {
            Bits b{};
            for (int k = 0; k < SLICE; k++) b[k / 64] |= (uint64_t)((s.ph[c * SLICE + k] >> i) & 1) << (k % 64);
            int id = (int)c * 32 + i;
            if (!s.slice_of.emplace(b, id).second) {
                fprintf(stderr, "gate: %s: two bit slices are equal: not a usable placeholder\n", s.placeholder_path.c_str()); exit(2);
            }
        }
    s.where.assign(s.slice_of.size(), -1);
}

}  // namespace

void gate_ram_setup(const std::string &placeholder, const std::string &firmware) {
    st().placeholder_path = placeholder;
    st().firmware_path = firmware;
}

extern "C" int gate_ram_cell(const char *name, int kind, int units) {
    load();
    State &s = st();
    Cell c;
    c.name = name;
    c.kind = kind;
    c.units.assign(units, 0);
    s.cells.push_back(c);
    return (int)s.cells.size() - 1;
}

extern "C" void gate_ram_put(int h, int i, int v) { st().cells.at(h).units.at(i) = (uint32_t)v; }

extern "C" int gate_ram_get(int h, int i) { return (int)st().cells.at(h).out.at(i); }

extern "C" int gate_ram_patch(int h) {
    State &s = st();
    Cell &c = s.cells.at(h);
    c.out = c.units;
    // {data width, bits used of each unit}: the DP16KD's 9-bit words carry 8 bits in widths 1, 2 and 4
    static const int ecp5[][2] = {{1, 8}, {2, 8}, {4, 8}, {9, 9}, {18, 9}, {36, 9}};
    static const int xc7[][2] = {{1, 8}, {2, 8}, {4, 8}, {8, 8}, {16, 8}, {32, 8}, {64, 8}};
    const int (*widths)[2] = c.kind == 0 ? ecp5 : xc7;
    const int nwidths = c.kind == 0 ? 6 : 7;
    const size_t n = c.units.size();
    for (int wi = 0; wi < nwidths; wi++) {
        const int w = widths[wi][0], used = widths[wi][1];
        const size_t count = n * used / SLICE;
        // a width the block RAM's bits do not fill whole slices of (64 on a RAMB18E1: 32 slices) is not one of its
        // widths; the addresses below would run past its array
        if (count == 0 || count % (size_t)w != 0) continue;
        for (size_t j = 0; j < count; j++) {
            // the unit and bit of addresses 0..511 of slice j in width w
            size_t unit[SLICE]; int bit[SLICE];
            Bits b{};
            for (int k = 0; k < SLICE; k++) {
                size_t bn = (size_t)k * w + j % w + j / w * SLICE * w;
                unit[k] = bn / used; bit[k] = (int)(bn % used);
                if (unit[k] >= n) { fprintf(stderr, "gate: RAM patch: %s width %d slice %zu past the array\n", c.name.c_str(), w, j); abort(); }
                b[k / 64] |= (uint64_t)((c.units[unit[k]] >> bit[k]) & 1) << (k % 64);
            }
            auto it = s.slice_of.find(b);
            if (it == s.slice_of.end()) continue;
            const int id = it->second, chunk = id / 32, i = id % 32;
            if (s.where[id] == h) continue;  // the same bits seen in another width of this block RAM
            if (s.where[id] >= 0) {
                s.errors.push_back("placeholder slice bit " + std::to_string(i) + " of words from " + std::to_string(chunk * SLICE)
                                   + " found twice: " + s.cells[s.where[id]].name + " and " + c.name);
                continue;
            }
            s.where[id] = h;
            s.widths.insert(w);
            c.patched++;
            for (int k = 0; k < SLICE; k++) {
                uint32_t v = (s.fw[(size_t)chunk * SLICE + k] >> i) & 1;
                c.out[unit[k]] = (c.out[unit[k]] & ~(1u << bit[k])) | (v << bit[k]);
            }
        }
    }
    return c.patched;
}

bool gate_ram_report() {
    State &s = st();
    if (!s.loaded) return true;  // a simulator built without GATE_RAM_PATCH, or no block RAM
    size_t missing = 0;
    int first = -1;
    for (size_t id = 0; id < s.where.size(); id++)
        if (s.where[id] < 0) { missing++; if (first < 0) first = (int)id; }
    int brams = 0;
    for (auto &c : s.cells) brams += c.patched > 0;
    for (auto &e : s.errors) fprintf(stderr, "gate: RAM image: %s\n", e.c_str());
    if (missing) {
        fprintf(stderr, "gate: RAM image: %zu of the placeholder's %zu bit slices are in no block RAM of the netlist (first: bit %d, "
                        "words from %d): %s is not the placeholder this netlist was synthesised with\n",
                missing, s.where.size(), first % 32, first / 32 * SLICE, s.placeholder_path.c_str());
    }
    if (missing || !s.errors.empty()) return false;
    std::string ws;
    for (int w : s.widths) ws += (ws.empty() ? "" : "/") + std::to_string(w);
    size_t fw_words = s.fw.size();
    while (fw_words && s.fw[fw_words - 1] == 0) fw_words--;
    printf("gate: RAM image: the firmware (%s, %zu words to its last non-zero one) written at start into the %zu bit slices "
           "of %d words where the netlist's placeholder was, in %d of %zu block RAMs (data width %s)\n",
           s.firmware_path.c_str(), fw_words, s.where.size(), SLICE, brams, s.cells.size(), ws.c_str());
    return true;
}
