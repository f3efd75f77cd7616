#!/usr/bin/env bash
# Whole-SoC test: the firmware boots, prints its banner, passes every self-test check, answers the
# console and exits 0 through the simulation-control register. FW (env) picks the image to run.
# Its subject is the human console (the banner, the self-test's lines, `info` typed as a person would): it reads
# the console's text on purpose, where the other whole-SoC tests use tfctl (sim/tests/soc.py).
set -u
source "$(dirname "$0")/lib.sh"
FW=${FW:-build/fw/sim/firmware}
log=build/sim/tests/selftest.log
mkdir -p build/sim/tests
run_sim "$log" "$FW.hex" +timeout=20000000 +uart-in='info\rselftest\rinfo\rexit\r' +uart-in-delay=2500000
rc=$?
fail() {
  echo "FAIL selftest: $*"
  echo "---- last console output ($log):"; tail -15 "$log" | sed 's/^/  | /'
  exit 1
}
if [ $rc -eq 124 ]; then
  failed_check=$(grep -o 'selftest: [a-z/ ]* \.\.\. *$' "$log" | tail -1 | sed 's/ \.\.\. *$//')
  fail "the simulation timed out${failed_check:+ during \"$failed_check\"}; stopped in $(where_stopped "$log" "$FW.elf")"
fi
grep -q '^Triggerfish firmware' "$log" || fail "no banner"
bad=$(grep -E '^selftest: .* FAIL' "$log" | head -1)
[ -z "$bad" ] || fail "check failed: ${bad#selftest: }"
[ $rc -eq 0 ] || fail "firmware exited with code $rc"
[ "$(grep -c 'selftest: 4 passed, 0 failed' "$log")" -eq 2 ] || fail "self-test summary missing (at boot and from the console)"
grep -q 'uptime [0-9]* ms' "$log" || fail "console did not answer 'info'"
# `info`'s free RAM against the same figure computed from the ELF's symbols by fw/ram-report.sh
free=$(sed -n 's/.*RAM free \([0-9]*\) bytes.*/\1/p' "$log" | head -1)
want=$(sh fw/ram-report.sh "$FW.elf" | sed -n 's/.*; free \([0-9]*\) bytes.*/\1/p')
[ -n "$free" ] || fail "'info' printed no free RAM figure"
[ "$free" = "$want" ] || fail "'info' says $free bytes of RAM free, fw/ram-report.sh says $want"
# the self-test's RAM check uses the bottom of the stack reserve: run from the console, it must leave the stack's
# high-water mark readable (not below the first figure, not the whole reserve)
read -r used1 used2 size <<< "$(sed -n 's/.*stack: \([0-9]*\) of \([0-9]*\) bytes.*/\1 \2/p' "$log" | tr '\n' ' ' | awk '{ print $1, $3, $2 }')"
[ -n "$used2" ] || fail "'info' after the console's selftest printed no stack figure"
[ "$used2" -ge "$used1" ] && [ "$used2" -lt "$size" ] || fail "stack use $used1 then $used2 of $size bytes after the console's selftest"
echo "ok selftest ($(grep -o 'sim: exit code .*' "$log"); RAM free $free bytes)"
