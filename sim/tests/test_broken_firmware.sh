#!/usr/bin/env bash
# Proves the test suite catches a broken firmware: a self-test that fails and one that hangs must each
# make the self-test check fail, with a message naming the check and (for the hang) where it stopped.
# (Through test_selftest.sh, whose subject is the human console's text: no tfctl here, on purpose.)
set -u
cd "$(dirname "$0")/../.."
ok=0
for mode in fail hang; do
  make -s -C fw TARGET=sim BREAK=$mode >/dev/null || { echo "FAIL broken-firmware: could not build BREAK=$mode"; exit 1; }
  out=$(FW=build/fw/sim-break-$mode/firmware sim/tests/test_selftest.sh 2>&1); rc=$?
  echo "$out" | head -1 | sed "s/^/  [BREAK=$mode] /"
  if [ $rc -eq 0 ]; then echo "FAIL broken-firmware: BREAK=$mode was not caught"; exit 1; fi
  case $mode in
    fail) echo "$out" | grep -q 'check failed: ram \.\.\. FAIL deliberately broken' || { echo "FAIL broken-firmware: message does not name the failing check"; exit 1; } ;;
    hang) echo "$out" | grep -q 'timed out during "selftest: timer interrupt"; stopped in \(.* (inlined by) \)\{0,1\}test_timer_interrupt at .*selftest.c:[0-9]*' \
            || { echo "FAIL broken-firmware: message does not say where the hang stopped"; echo "$out"; exit 1; } ;;
  esac
  ok=$((ok + 1))
done
echo "ok broken-firmware (failing and hanging self-tests are both reported)"
