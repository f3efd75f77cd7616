#!/usr/bin/env bash
# sim/eth/test/run.sh - builds and runs the Ethernet plug-in's tests; prints "N passed, M failed, K skipped".
# Builds into build/sim-eth/ (host g++, -lslirp). The TAP test needs root (skipped otherwise).
#   test_loopback  RX driver -> TX decoder on the same clock: 3000 random frames byte-exact, padding,
#                  FCS/runt/preamble handling, control commands, FIFO, pcap through tshark (ns stamps)
#   test_impair    the impaired wire (+impair-rx/-tx): decisions against a reference, binomial bounds, flipped
#                  bits, reordering without loss, both directions independent, pcap, control channel, plusargs
#   test_slirp     libslirp backend: ARP, UDP and TCP to the host's loopback, +slirp-fwd
#   test_tap.sh    the kernel through a TAP in a private namespace: ping, inject, pcap
set -u
HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../../.." && pwd)
B="$ROOT/build/sim-eth"
mkdir -p "$B"
CXX=${CXX:-g++}
FLAGS=(-std=gnu++17 -O2 -g -Wall -Wextra -Werror -I"$ROOT/sim/eth")
SRCS=("$ROOT"/sim/eth/*.cpp)
PASS=0
FAIL=0
SKIP=0
add() { # add <output file>: its "RESULT passed=N failed=M [skipped=K]" line
    local r
    r=$(grep -E '^RESULT passed=' "$1" | tail -1)
    if [ -z "$r" ]; then FAIL=$((FAIL+1)); echo "  [FAIL] no RESULT line (crashed?)"; return; fi
    PASS=$((PASS + $(echo "$r" | sed 's/.*passed=\([0-9]*\).*/\1/')))
    FAIL=$((FAIL + $(echo "$r" | sed 's/.*failed=\([0-9]*\).*/\1/')))
    case $r in *skipped=*) SKIP=$((SKIP + $(echo "$r" | sed 's/.*skipped=\([0-9]*\).*/\1/'))) ;; esac
}
build() { # build <name> <main source>
    if "$CXX" "${FLAGS[@]}" -o "$B/$1" "$2" "${OBJS[@]}" -lslirp 2>"$B/$1.build.log"; then
        echo "  [ok] build $1"; PASS=$((PASS+1)); return 0
    fi
    cat "$B/$1.build.log"; echo "  [FAIL] build $1"; FAIL=$((FAIL+1)); return 1
}

echo "== building (build/sim-eth)"
: >"$B/objs.build.log"
OBJS=()
for src in "${SRCS[@]}"; do  # the plug-in itself, compiled once
    o="$B/$(basename "${src%.cpp}").o"
    "$CXX" "${FLAGS[@]}" -c "$src" -o "$o" 2>>"$B/objs.build.log" || { cat "$B/objs.build.log"; echo "  [FAIL] build $src"; }
    OBJS+=("$o")
done
build test_loopback "$HERE/test_loopback.cpp"; L=$?
build test_impair "$HERE/test_impair.cpp"; I=$?
build test_slirp "$HERE/test_slirp.cpp"; S=$?
build eth_dev "$HERE/eth_dev.cpp"; D=$?
# the sources also build without libslirp
if "$CXX" "${FLAGS[@]}" -DTF_ETH_NO_SLIRP -c "$ROOT/sim/eth/eth_slirp.cpp" -o "$B/eth_slirp_none.o" 2>"$B/noslirp.log"; then
    echo "  [ok] build with -DTF_ETH_NO_SLIRP"; PASS=$((PASS+1))
else cat "$B/noslirp.log"; echo "  [FAIL] build with -DTF_ETH_NO_SLIRP"; FAIL=$((FAIL+1)); fi

if [ $L -eq 0 ]; then
    echo "== test_loopback"
    "$B/test_loopback" "$B" >"$B/test_loopback.out" 2>"$B/test_loopback.err"
    grep -E '^\s+\[|^[a-zA-Z]' "$B/test_loopback.out" | grep -v '^RESULT\|^eth:'
    add "$B/test_loopback.out"
fi
if [ $I -eq 0 ]; then
    echo "== test_impair"
    timeout 300 "$B/test_impair" "$B" >"$B/test_impair.out" 2>"$B/test_impair.err"
    grep -v '^RESULT' "$B/test_impair.out"
    add "$B/test_impair.out"
fi
if [ $S -eq 0 ]; then
    echo "== test_slirp"
    timeout 120 "$B/test_slirp" "$B" >"$B/test_slirp.out" 2>"$B/test_slirp.err"
    grep -v '^RESULT' "$B/test_slirp.out"
    add "$B/test_slirp.out"
fi
if [ $D -eq 0 ]; then
    echo "== test_tap.sh"
    timeout 180 "$HERE/test_tap.sh" "$B" >"$B/test_tap.out" 2>&1
    grep -v '^RESULT' "$B/test_tap.out"
    add "$B/test_tap.out"
fi
echo "$PASS passed, $FAIL failed, $SKIP skipped"
[ "$FAIL" -eq 0 ]
