#!/usr/bin/env bash
# `make demo` as a newcomer runs it: exit status 0, every stage of the story on its output (network, exchange,
# boot, link, ARP, TCP, FIX logon, market data subscription, stops armed, the market, hardware fires with their
# latency, fills, logout, shutdown), the closing table and the files; nothing it started is left running; run
# again, nothing is rebuilt. Then the same story on libslirp (`tools/demo.py --slirp`, the no-root network).
set -u
cd "$(dirname "$0")/../.."
PY=${TRIGGERFISH_VENV:-$HOME/.cache/triggerfish/venv}/bin/python
[ -x "$PY" ] || PY=python3
OUT=build/sim/tests/demo
mkdir -p "$OUT"
failed=0
fail() { echo "FAIL demo: $*"; failed=1; }

check_story() { # check_story <output file> <label>: every stage the issue names, in the demo's words
  local f=$1 what=$2 pat
  for pat in '^== Triggerfish demo' 'network: ' 'exchange: the QuickFIX/J exchange simulator listens' \
             'soc: self-test PASS' 'link up: MAC' 'ARP: .* is at ' 'TCP: connected' 'FIX: logon accepted' \
             'FIX: market data subscription' 'stop order 0 armed' 'stop order 1 armed' \
             'offload: stop order [01] in the hardware trigger table' 'market: MSFT trades at' \
             'FIRE: stop 0 .* sent by the hardware, .* cycles \([0-9]+ ns\)' \
             'FIRE: stop 1 .* sent by the hardware' 'FILL: order 0 ' 'FILL: order 1 ' 'FIX: Logout sent' \
             'TCP: connection closed' 'shutdown: simulation ended, exchange stopped' '^== What happened' \
             'stops fired +2$' 'fills +2$' 'EOF2SOF hardware path .* over 2$' \
             "orders paired with their trigger +2, checked against the console's fire log: all agree$" '^== Files' 'pcap .*demo\.pcap'; do
    grep -qE "$pat" "$f" || fail "$what: no line matching '$pat' in $f"
  done
}

# make's own view of the rule (make -p): the build, the firmware and the exchange jar are all prerequisites
prereq=$(make -pn demo 2>/dev/null | grep -m1 '^demo:')
for need in build/sim/obj/VSoc build/fw/sim/firmware.hex out/exchange/assembly.dest/out.jar; do
  case " $prereq " in *" $need "*) ;; *) fail "the demo rule does not build $need: '$prereq'" ;; esac
done

if [ "$(id -u)" -eq 0 ]; then
  timeout 900 make -s demo > "$OUT/make-demo.out" 2>&1
  rc=$?
  [ $rc -eq 0 ] || { fail "make demo exited $rc"; tail -20 "$OUT/make-demo.out" | sed 's/^/  | /'; }
  check_story "$OUT/make-demo.out" "make demo (TAP)"
  grep -q 'a private namespace tf-demo-[0-9]* with a TAP device' "$OUT/make-demo.out" || fail "make demo: the network line does not say TAP"
  # its own namespace, by the name it printed, is gone (others' demos or benches may run beside this one)
  ns=$(grep -o 'a private namespace tf-demo-[0-9]*' "$OUT/make-demo.out" | head -1 | awk '{print $NF}')
  if [ -n "$ns" ] && ip netns list | awk '{print $1}' | grep -qx "$ns"; then fail "make demo left its network namespace $ns behind"; fi
  # the second run reuses the build: make has nothing left to do but check the packages and run the demo (no
  # "Entering directory" lines: under a make without -s, as `make test-sim`, this make is a sub-make and prints them)
  rebuild=$(make --no-print-directory -n demo 2>/dev/null | grep -vE '^tools/deps\.sh$|tools/demo\.py')
  [ -z "$rebuild" ] || { fail "make demo would rebuild on a second run:"; echo "$rebuild" | head -5 | sed 's/^/  | /'; }
  [ $failed -eq 0 ] && echo "ok demo: make demo on a TAP, every stage, exit 0, nothing left running, nothing rebuilt the second time"
else
  echo "skip demo-tap (make demo on a TAP needs root for a network namespace; the libslirp run below still runs)"
fi

timeout 900 "$PY" tools/demo.py --slirp --out "$OUT/slirp" > "$OUT/slirp.out" 2>&1
rc=$?
[ $rc -eq 0 ] || { fail "tools/demo.py --slirp exited $rc"; tail -20 "$OUT/slirp.out" | sed 's/^/  | /'; }
check_story "$OUT/slirp.out" "demo on libslirp"
grep -q 'network: libslirp (user-mode networking, no root needed)' "$OUT/slirp.out" || fail "the libslirp run does not say so"
if pgrep -f -- "--log-dir [^ ]*(build/demo|$OUT)" > /dev/null; then fail "an exchange simulator from a demo is still running"; fi
[ $failed -eq 0 ] && echo "ok demo: the same story on libslirp"
[ $failed -eq 0 ]
