#!/usr/bin/env bash
# `make test`: runs every suite, even after one fails, and prints each suite's counts and a total.
#   1. SpinalSim unit tests of the hardware blocks (hw/test, Mill + ScalaTest + Verilator)
#   2. firmware host unit tests (fw/tests, cmocka, with ASan/UBSan)
#   3. the firmware network stack against the Linux kernel through a TAP device (root only)
#   4. exchange simulator tests (tools/exchange, JUnit, QuickFIX/J on loopback)
#   5. the LiteEth MAC on its own (hw/liteeth/test: frames through the GMII pins, the CRC fix)
#   6. the harness's Ethernet plug-in (sim/eth/test: GMII models, pcap, libslirp, TAP when root)
#   7. whole-SoC simulation tests (sim/tests, Verilator; the network ones need root)
#   8. the latency analysis tool (tools/latency, unittest on synthetic captures)
#   9. the benchmark's Linux baseline (tools/bench: its QuickFIX/J client in JUnit, the pcap pairing in unittest)
#  10. board builds (tools/test-boards.sh): both Colorlight bitstreams meeting timing, both Zynq syntheses
# TF_TESTS="hw fw" runs a subset. Logs: build/test-logs/<suite>.log.
set -u
cd "$(dirname "$0")/.."
LOGS=build/test-logs
mkdir -p "$LOGS"
SUITES=${TF_TESTS:-hw fw net exchange liteeth simeth sim latency bench boards}
total_pass=0; total_fail=0; summary=()

record() { # record <suite> <passed> <failed> <rc>
  local p=${2:-0} f=${3:-0}
  if [ "$4" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi # a suite that failed without counting counts once
  total_pass=$((total_pass + p)); total_fail=$((total_fail + f))
  summary+=("$(printf '%-34s %4d passed, %d failed' "$1" "$p" "$f")")
}

run() { # run <suite> <log> <command...>: shows progress lines, keeps the whole log
  local name=$1 log=$2; shift 2
  echo "== $name"
  local start=$SECONDS
  "$@" > "$log" 2>&1
  local rc=$?
  echo "   ($((SECONDS - start)) s, log $log)"
  return $rc
}

for s in $SUITES; do case $s in
hw)
  run "SpinalSim hardware unit tests" $LOGS/hw.log ./mill -i hw.test; rc=$?
  sed -i 's/\x1b\[[0-9;]*m//g' $LOGS/hw.log
  grep -E '^\[[0-9]+\] (- |[A-Za-z]+Spec:|.*FAILED|.*did not)' $LOGS/hw.log | sed 's/^\[[0-9]*\] /   /'
  line=$(grep -o 'Tests: succeeded [0-9]*, failed [0-9]*' $LOGS/hw.log | tail -1)
  record "SpinalSim hardware unit tests" "$(echo "$line" | sed -n 's/.*succeeded \([0-9]*\).*/\1/p')" \
         "$(echo "$line" | sed -n 's/.*failed \([0-9]*\).*/\1/p')" $rc ;;
fw)
  run "firmware host tests (cmocka)" $LOGS/fw.log make -s -C fw host-test; rc=$?
  grep -E '^== |^\[  (PASSED|FAILED)|^\[  ERROR|^\[   LINE' $LOGS/fw.log | sed 's/^/   /'
  line=$(grep -o 'firmware host tests: [0-9]* passed, [0-9]* failed' $LOGS/fw.log | tail -1)
  record "firmware host tests" "$(echo "$line" | sed -n 's/.*: \([0-9]*\) passed.*/\1/p')" \
         "$(echo "$line" | sed -n 's/.*passed, \([0-9]*\) failed/\1/p')" $rc ;;
net)
  if [ "$(id -u)" -ne 0 ]; then echo "== network stack vs Linux kernel: skipped (needs root for a namespace)"; continue; fi
  run "network stack vs Linux kernel (TAP)" $LOGS/net.log tools/netns/tap_selftest.sh; rc=$?
  sed 's/^/   /' $LOGS/net.log | grep -E '\[ok\]|\[FAIL\]|tap_selftest:'
  record "network stack vs Linux kernel" "$(grep -c '\[ok\]' $LOGS/net.log)" "$(grep -c '\[FAIL\]' $LOGS/net.log)" $rc ;;
exchange)
  run "exchange simulator tests (JUnit)" $LOGS/exchange.log ./mill -i exchange.test; rc=$?
  sed -i 's/\x1b\[[0-9;]*m//g' $LOGS/exchange.log
  grep -o 'Test run .* finished: .*total' $LOGS/exchange.log | sed 's/^/   /'
  t=$(grep -o 'finished: [0-9]* failed, [0-9]* ignored, [0-9]* total' $LOGS/exchange.log | awk '{f+=$2; t+=$6} END {print t+0, f+0}')
  record "exchange simulator tests" "$(( ${t% *} - ${t#* } ))" "${t#* }" $rc ;;
liteeth)
  run "LiteEth MAC (GMII, standalone)" $LOGS/liteeth.log hw/liteeth/test/run.sh; rc=$?
  grep -E '^\s*\[(ok|FAIL)|PASS|FAIL|latency' $LOGS/liteeth.log | sed 's/^/   /' | head -30
  line=$(grep -oE '^[0-9]+ passed, [0-9]+ failed' $LOGS/liteeth.log | tail -1)
  record "LiteEth MAC (standalone)" "${line%% *}" "$(echo "$line" | sed -n 's/.*passed, \([0-9]*\) failed/\1/p')" $rc ;;
simeth)
  run "harness Ethernet plug-in" $LOGS/simeth.log sim/eth/test/run.sh; rc=$?
  grep -E '^\s*\[FAIL' $LOGS/simeth.log | sed 's/^/   /'
  line=$(grep -oE '^[0-9]+ passed, [0-9]+ failed' $LOGS/simeth.log | tail -1)
  record "harness Ethernet plug-in" "${line%% *}" "$(echo "$line" | sed -n 's/.*passed, \([0-9]*\) failed/\1/p')" $rc ;;
sim)
  run "whole-SoC simulation tests" $LOGS/sim.log make -s test-sim-run; rc=$?
  grep -E '^(ok|FAIL|  )' $LOGS/sim.log | sed 's/^/   /'
  line=$(grep -o 'simulation tests: [0-9]* passed, [0-9]* failed' $LOGS/sim.log | tail -1)
  if [ -z "$line" ]; then tail -20 $LOGS/sim.log | sed 's/^/   | /'; fi
  record "whole-SoC simulation tests" "$(echo "$line" | sed -n 's/.*: \([0-9]*\) passed.*/\1/p')" \
         "$(echo "$line" | sed -n 's/.*passed, \([0-9]*\) failed/\1/p')" $rc ;;
latency)
  VENV=${TRIGGERFISH_VENV:-$HOME/.cache/triggerfish/venv}
  run "latency analysis tool" $LOGS/latency.log "$VENV/bin/python" -m unittest -v tools/latency/test_analyze.py; rc=$?
  grep -E 'FAIL|ERROR' $LOGS/latency.log | grep -v '^Ran' | sed 's/^/   /' | head -20
  n=$(sed -n 's/^Ran \([0-9]*\) test.*/\1/p' $LOGS/latency.log | tail -1)
  f=$(sed -n 's/^FAILED (\(failures\|errors\)=\([0-9]*\).*/\2/p' $LOGS/latency.log | tail -1)
  sk=$(grep -c '\.\.\. skipped' $LOGS/latency.log)
  record "latency analysis tool" $(( ${n:-0} - ${f:-0} - sk )) "${f:-0}" $rc ;;
bench)
  VENV=${TRIGGERFISH_VENV:-$HOME/.cache/triggerfish/venv}
  run "Linux baseline client (JUnit)" $LOGS/bench-client.log ./mill -i baseline.test; rc=$?
  sed -i 's/\x1b\[[0-9;]*m//g' $LOGS/bench-client.log
  grep -o 'Test run .* finished: .*total' $LOGS/bench-client.log | sed 's/^/   /'
  t=$(grep -o 'finished: [0-9]* failed, [0-9]* ignored, [0-9]* total' $LOGS/bench-client.log | awk '{f+=$2; t+=$6} END {print t+0, f+0}')
  record "Linux baseline client" "$(( ${t% *} - ${t#* } ))" "${t#* }" $rc
  run "Linux baseline pairing, bench clock (unittest)" $LOGS/bench-pairing.log "$VENV/bin/python" -m unittest -v tools/bench/test_linux_baseline.py tools/bench/test_bench.py; rc=$?
  grep -E 'FAIL|ERROR' $LOGS/bench-pairing.log | grep -v '^Ran' | sed 's/^/   /' | head -20
  n=$(sed -n 's/^Ran \([0-9]*\) test.*/\1/p' $LOGS/bench-pairing.log | tail -1)
  f=$(sed -n 's/^FAILED (\(failures\|errors\)=\([0-9]*\).*/\2/p' $LOGS/bench-pairing.log | tail -1)
  record "Linux baseline pairing" $(( ${n:-0} - ${f:-0} )) "${f:-0}" $rc ;;
boards)
  run "board builds (ECP5 bitstreams, Zynq synthesis)" $LOGS/boards.log tools/test-boards.sh; rc=$?
  grep -E '^\[(ok|FAIL)\]|^     ' $LOGS/boards.log | sed 's/^/   /'
  line=$(grep -oE '^[0-9]+ passed, [0-9]+ failed' $LOGS/boards.log | tail -1)
  record "board builds" "${line%% *}" "$(echo "$line" | sed -n 's/.*passed, \([0-9]*\) failed/\1/p')" $rc ;;
*) echo "unknown suite $s (hw fw net exchange liteeth simeth sim latency bench boards)"; exit 2 ;;
esac; done

echo
echo "== summary"
for l in "${summary[@]}"; do echo "   $l"; done
echo "$total_pass passed, $total_fail failed"
[ "$total_fail" -eq 0 ]
