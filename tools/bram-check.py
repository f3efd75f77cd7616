#!/usr/bin/env python3
"""Check that a board's firmware went into its bitstream's RAM (tools/board.sh ram_patch).

The ECP5 board builds place and route the SoC with a placeholder in the RAM (random words from a fixed seed) and
write the firmware into the routed design's block RAMs afterwards (yowasp-ecpbram). This checks the result
independently of that tool, from the two textual configurations (nextpnr's --textcfg format, `.bram_init N`
blocks of 2,048 9-bit words per DP16KD):

  - before: every 512-word bit slice of the placeholder (bit i of words 512c .. 512c+511) is found in exactly one
    place among the block RAMs, in one of the DP16KD's data widths (1, 2, 4, 9, 18, 36 bits);
  - after: each of those places holds the same slice of the firmware (zeros past the image's end), no slice of the
    placeholder is left anywhere, and every other bit of every block RAM is as it was.

The layout of the init words for a data width (which bit of which 9-bit word holds bit j of address k) is the
DP16KD's: in width W, data bits are packed W to an address, with 8 of every 9 bits used for widths 1, 2 and 4
(Lattice TN1264, ECP5 memory usage guide, and the Trellis database's BRAM init format).

usage: bram-check.py --placeholder P.hex --firmware F.hex --before A.config --after B.config
Exit 0 and one line of figures when everything holds, 1 with the first discrepancies otherwise.
"""
import argparse
import sys

WIDTHS = ((1, 8, 32), (2, 8, 32), (4, 8, 32), (9, 9, 36), (18, 9, 36), (36, 9, 36))  # width, bits used a word, slices
SLICE = 512
INIT_WORDS = 2048


def read_hex(path, width_bits):
    words = []
    with open(path) as f:
        for n, line in enumerate(f, 1):
            line = line.strip()
            if not line:
                continue
            try:
                v = int(line, 16)
            except ValueError:
                sys.exit(f"{path}:{n}: not a hex word: {line!r}")
            if v >> width_bits:
                sys.exit(f"{path}:{n}: wider than {width_bits} bits: {line}")
            words.append(v)
    return words


def read_brams(path):
    """{block RAM number: list of 2,048 9-bit init words} from a textual configuration."""
    brams, cur = {}, None
    with open(path) as f:
        for line in f:
            if line.startswith("."):
                cur = None
                if line.startswith(".bram_init "):
                    cur = brams.setdefault(int(line.split()[1]), [])
                continue
            if cur is not None and line.strip():
                cur.extend(int(w, 16) for w in line.split())
    for n, words in brams.items():
        if len(words) != INIT_WORDS:
            sys.exit(f"{path}: block RAM {n} has {len(words)} init words, not {INIT_WORDS}")
    return brams


def positions():
    """For each (width, slice j): the (init word, bit) of addresses 0..511 of that slice."""
    out = []
    for w, nw, count in WIDTHS:
        for j in range(count):
            pos = []
            for k in range(SLICE):
                bn = k * w + (j % w) + (j // w) * SLICE * w
                pos.append((bn // nw, bn % nw))
            out.append(((w, j), pos))
    return out


def slices_of(words, nbits):
    """{(bit i, chunk c): tuple of 512 bits} of a word list (length a multiple of 512)."""
    out = {}
    for c in range(len(words) // SLICE):
        chunk = words[c * SLICE:(c + 1) * SLICE]
        for i in range(nbits):
            out[(i, c)] = tuple((v >> i) & 1 for v in chunk)
    return out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--placeholder", required=True)
    ap.add_argument("--firmware", required=True)
    ap.add_argument("--before", required=True)
    ap.add_argument("--after", required=True)
    a = ap.parse_args()

    ph = read_hex(a.placeholder, 32)
    fw = read_hex(a.firmware, 32)
    if len(ph) % SLICE:
        sys.exit(f"{a.placeholder}: {len(ph)} words, not a multiple of {SLICE}")
    if len(fw) > len(ph):
        sys.exit(f"{a.firmware}: {len(fw)} words, more than the RAM's {len(ph)}")
    fw_padded = fw + [0] * (len(ph) - len(fw))
    ph_slices = slices_of(ph, 32)
    fw_slices = slices_of(fw_padded, 32)
    by_bits = {}
    for key, bits in ph_slices.items():
        if bits in by_bits:
            sys.exit(f"{a.placeholder}: bit slices {by_bits[bits]} and {key} are equal: not a usable placeholder")
        by_bits[bits] = key

    before, after = read_brams(a.before), read_brams(a.after)
    if sorted(before) != sorted(after):
        sys.exit(f"the two configurations have different block RAMs: {sorted(before)} / {sorted(after)}")
    pos = positions()
    found = {}      # placeholder slice -> (bram, width, j)
    errors = []
    changed_ok = {}  # bram -> set of (word, bit) the firmware is allowed to have changed
    for n in sorted(before):
        b = before[n]
        for (w, j), p in pos:
            bits = tuple((b[word] >> bit) & 1 for word, bit in p)
            key = by_bits.get(bits)
            if key is None:
                continue
            if key in found and found[key][0] != n:
                errors.append(f"placeholder slice {key} found twice: block RAMs {found[key][0]} and {n}")
                continue
            if key in found:
                continue  # the same bits seen again in another width of the same block RAM
            found[key] = (n, w, j)
            want = fw_slices[key]
            got = tuple((after[n][word] >> bit) & 1 for word, bit in p)
            if got != want:
                errors.append(f"block RAM {n} (width {w}, slice {j}): holds not the firmware's bit {key[0]} of words "
                              f"{key[1] * SLICE}..{key[1] * SLICE + SLICE - 1}")
            changed_ok.setdefault(n, set()).update(p)
    missing = sorted(set(ph_slices) - set(found))
    if missing:
        errors.append(f"{len(missing)} of the placeholder's {len(ph_slices)} bit slices are in no block RAM of the "
                      f"routed design (first: bit {missing[0][0]}, words from {missing[0][1] * SLICE})")
    for n in sorted(after):
        allowed = changed_ok.get(n, set())
        for word in range(INIT_WORDS):
            diff = before[n][word] ^ after[n][word]
            for bit in range(9):
                if (diff >> bit) & 1 and (word, bit) not in allowed:
                    errors.append(f"block RAM {n}: init word {word} bit {bit} changed outside the RAM's slices")
                    break
        for (w, j), p in pos:
            if n in changed_ok:
                continue
            bits = tuple((after[n][word] >> bit) & 1 for word, bit in p)
            if bits in by_bits:
                errors.append(f"block RAM {n} still holds placeholder slice {by_bits[bits]}")
    if errors:
        for e in errors[:10]:
            print(e)
        if len(errors) > 10:
            print(f"... and {len(errors) - 10} more")
        return 1
    rams = sorted({v[0] for v in found.values()})
    widths = sorted({v[1] for v in found.values()})
    print(f"RAM image checked in the bitstream's configuration: {len(found)} bit slices of {SLICE} words in {len(rams)} "
          f"block RAMs (data width {'/'.join(map(str, widths))}) hold the firmware ({len(fw)} words, zeros to "
          f"{len(ph)}) where the placeholder was; {len(before) - len(rams)} other block RAMs unchanged")
    return 0


if __name__ == "__main__":
    sys.exit(main())
