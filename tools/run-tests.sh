#!/usr/bin/env bash
# `make test`: runs every suite, even after one fails, and prints each suite's counts and a total:
#   "N passed, M failed, K skipped". A skipped test is counted as skipped, never as passed.
#   0. a checkout under a path with a space: tools/nospace.sh gives make and Verilator paths without one
#   1. SpinalSim unit tests of the hardware blocks (hw/test, Mill + ScalaTest + Verilator)
#   2. firmware host unit tests (fw/tests, cmocka, with ASan/UBSan)
#      coverage-guided fuzzing of the firmware (fw/fuzz, libFuzzer + ASan/UBSan): each fuzzer one test, ~50 s each
#   3. the firmware network stack against the Linux kernel through a TAP device (root only)
#   4. exchange simulator tests (tools/exchange, JUnit, QuickFIX/J on loopback)
#   5. the LiteEth MAC on its own (hw/liteeth/test: frames through the GMII pins, the CRC fix)
#   6. the harness's Ethernet plug-in (sim/eth/test: GMII models, pcap, libslirp, TAP when root)
#   7. whole-SoC simulation tests (sim/tests, Verilator; the network ones need root)
#   8. the latency analysis tool (tools/latency, unittest on synthetic captures)
#      tfctl, the machine protocol's host library and CLI (tools/tfctl/tests, pytest: codec, settings, client)
#   9. the benchmark's Linux baseline and burst phase (tools/bench: its QuickFIX/J client in JUnit, the pcap pairing,
#      the burst and fuzzing figures in unittest)
#  10. board builds (tools/test-boards.sh): both Colorlight bitstreams meeting timing, both Zynq syntheses
#  11. gate-level simulation (tools/test-gate.sh): the Colorlight i5 netlist after synth_ecp5 and the PYNQ-Z1 netlist
#      after synth_xilinx, each with yosys's cell models, boot the self-test from their block RAMs, answer ARP through
#      their RGMII / RMII pins, log on to the exchange the harness plays and fire a hardware stop on its 35=W (the
#      35=D checked). The two netlists build and run side by side, one core each, niced. With both simulators
#      cached about 32 minutes (the PYNQ-Z1's run, 3.3 times slower since its netlist has the risk gate); cold,
#      their builds add 20 to 49 minutes (the PYNQ-Z1's is the longer; sim/gate/README.md). So it is started first,
#      in the background, and finished (waited for, checked) in its place at the end.
# TF_TESTS="hw fw" runs a subset. Logs: build/test-logs/<suite>.log.
# Every suite runs under a wall-clock limit (the table in limit_for; TF_LIMIT_<suite>=seconds overrides it): a
# suite that reaches it is stopped and fails, with the last lines of its log, which say where it was.
set -u
cd "$(dirname "$0")/.."
LOGS=build/test-logs
mkdir -p "$LOGS"
SUITES=${TF_TESTS:-tools hw fw fuzz net exchange liteeth simeth sim latency tfctl bench boards gate}
VENV=${TRIGGERFISH_VENV:-$HOME/.cache/triggerfish/venv}
total_pass=0; total_fail=0; total_skip=0; summary=(); failed_logs=(); cur_log=""

limit_for() { # limit_for <suite>: seconds
  local var="TF_LIMIT_$1"
  if [ -n "${!var:-}" ]; then echo "${!var}"; return; fi
  case $1 in
    hw|sim|boards) echo 4800 ;;   # cold: Mill and Verilator builds; the board suite builds four boards
    gate) echo 4800 ;;            # cold: synthesis, flattening and Verilator builds of two netlists (20 to 49 min loaded)
    exchange|bench|liteeth) echo 1200 ;;
    *) echo 900 ;;
  esac
}

record() { # record <suite> <passed> <failed> <skipped> <rc>
  local p=${2:-0} f=${3:-0} k=${4:-0}
  if [ "$5" -ne 0 ] && [ "$f" -eq 0 ]; then f=1; fi # a suite that failed without counting counts once
  total_pass=$((total_pass + p)); total_fail=$((total_fail + f)); total_skip=$((total_skip + k))
  if [ "$f" -ne 0 ] && [ -n "$cur_log" ]; then failed_logs+=("$1|$cur_log"); fi
  summary+=("$(printf '%-34s %4d passed, %d failed, %d skipped' "$1" "$p" "$f" "$k")")
}

run() { # run <suite> <name> <log> <command...>: shows progress lines, keeps the whole log, enforces the limit
  local suite=$1 name=$2 log=$3; shift 3
  cur_log=$log
  local lim; lim=$(limit_for "$suite")
  echo "== $name"
  local start=$SECONDS
  timeout -k 30 "$lim" "$@" > "$log" 2>&1
  local rc=$?
  echo "   ($((SECONDS - start)) s, log $log)"
  if [ $rc -eq 124 ] || [ $rc -eq 137 ]; then
    echo "   FAIL: stopped at the suite's wall-clock limit of $lim s; the log's last lines:"
    tail -8 "$log" | sed 's/^/   | /'
  fi
  return $rc
}

# Python's unittest: "Ran N tests" and a closing "OK (skipped=K)" or "FAILED (failures=F, errors=E, skipped=K)"
# -> "passed failed skipped"; no closing line (a crash) counts as one failure.
unittest_counts() {
  local n status
  n=$(sed -n 's/^Ran \([0-9]*\) test.*/\1/p' "$1" | tail -1)
  status=$(grep -E '^(OK|FAILED)( \(|$)' "$1" | tail -1)
  echo "${n:-0} $status" | awk '{
    n = $1; f = 0; k = 0; x = 0
    if ($2 != "OK" && $2 != "FAILED") f = 1
    while (match($0, /(failures|errors|unexpected successes|skipped|expected failures)=[0-9]+/)) {
      kv = substr($0, RSTART, RLENGTH); $0 = substr($0, RSTART + RLENGTH)
      split(kv, a, "="); key = a[1]; v = a[2] + 0
      if (key == "skipped") k += v; else if (key == "expected failures") x += v; else f += v
    }
    p = n - f - k - x; print (p < 0 ? 0 : p), f, k }'
}
# pytest's closing line "N passed, M failed, K skipped, E errors in T s" (any order, parts absent when zero)
pytest_counts() {
  local last; last=$(grep -E '^=+ .* in [0-9.]+s' "$1" | tail -1)
  [ -n "$last" ] || { echo "0 1 0"; return; }
  awk -v l="$last" 'BEGIN { p = f = k = 0
    if (match(l, /[0-9]+ passed/)) p = substr(l, RSTART, RLENGTH) + 0
    if (match(l, /[0-9]+ failed/)) f += substr(l, RSTART, RLENGTH) + 0
    if (match(l, /[0-9]+ errors?/)) f += substr(l, RSTART, RLENGTH) + 0
    if (match(l, /[0-9]+ skipped/)) k = substr(l, RSTART, RLENGTH) + 0
    print p, f, k }'
}
# JUnit through Mill: "Test run <class> finished: F failed, I ignored, T total" per class; ignored are skipped.
junit_counts() {
  grep -o 'finished: [0-9]* failed, [0-9]* ignored, [0-9]* total' "$1" \
    | awk '{f += $2; i += $4; t += $6} END {print t - f - i, f + 0, i + 0}'
}
# plain_counts <log> <line prefix regex>: the last "N passed, M failed[, K skipped]" line with that prefix
plain_counts() {
  grep -E "${2}[0-9]+ passed, [0-9]+ failed" "$1" | tail -1 \
    | grep -oE '[0-9]+ passed, [0-9]+ failed(, [0-9]+ skipped)?' | tr -d , | awk '{print $1, $3, $5 + 0}'
}
rec() { # rec <suite title> "<p f k>" <rc>
  local c=($2); record "$1" "${c[0]:-0}" "${c[1]:-0}" "${c[2]:-0}" "$3"
}

# The gate-level suite's runs take one core each for up to half an hour (the PYNQ-Z1's), niced: with other suites
# to run, they start first, in the background (TF_GATE_PHASE=start: the sources generated, the jobs started), and the
# suite's place in the list waits for them and makes its checks (TF_GATE_PHASE=finish). A start that fails leaves the
# suite to run whole in its place, where its failure is reported.
gate_bg=0
if [ "$SUITES" != gate ] && [[ " $SUITES " == *" gate "* ]]; then
  if run gate "gate-level simulation: sources generated, builds and runs started in the background" \
       $LOGS/gate-start.log env TF_GATE_PHASE=start tools/test-gate.sh; then gate_bg=1
  else echo "   the start failed: the suite runs whole in its place"; fi
fi

for s in $SUITES; do case $s in
hw)
  run hw "SpinalSim hardware unit tests" $LOGS/hw.log ./mill -i hw.test; rc=$?
  sed -i 's/\x1b\[[0-9;]*m//g' $LOGS/hw.log
  grep -E '^\[[0-9]+\] (- |[A-Za-z]+Spec:|.*FAILED|.*did not|.*IGNORED|.*CANCELED)' $LOGS/hw.log | sed 's/^\[[0-9]*\] /   /'
  c=$(grep -o 'Tests: succeeded [0-9]*, failed [0-9]*, canceled [0-9]*, ignored [0-9]*, pending [0-9]*' $LOGS/hw.log | tail -1 \
      | awk '{gsub(",", ""); print $3, $5, $7 + $9 + $11}')
  rec "SpinalSim hardware unit tests" "$c" $rc ;;
fw)
  run fw "firmware host tests (cmocka)" $LOGS/fw.log make -s -C fw host-test; rc=$?
  grep -E '^== |^\[  (PASSED|FAILED|SKIPPED)|^\[  ERROR|^\[   LINE' $LOGS/fw.log | sed 's/^/   /'
  rec "firmware host tests" "$(plain_counts $LOGS/fw.log 'firmware host tests: ')" $rc ;;
fuzz)
  run fuzz "firmware fuzzers (libFuzzer, ${TF_FUZZ_SECONDS:-50} s each)" $LOGS/fuzz.log fw/fuzz/run.sh -t "${TF_FUZZ_SECONDS:-50}"; rc=$?
  grep -E '^\[(ok|FAIL)\]|^       ' $LOGS/fuzz.log | sed 's/^/   /'
  rec "firmware fuzzers" "$(plain_counts $LOGS/fuzz.log 'fuzzers: ')" $rc ;;
net)
  if [ "$(id -u)" -ne 0 ]; then
    echo "== network stack vs Linux kernel: skipped (needs root for a namespace)"
    record "network stack vs Linux kernel" 0 0 1 0; continue
  fi
  run net "network stack vs Linux kernel (TAP)" $LOGS/net.log tools/netns/tap_selftest.sh; rc=$?
  sed 's/^/   /' $LOGS/net.log | grep -E '\[ok\]|\[FAIL\]|tap_selftest:'
  record "network stack vs Linux kernel" "$(grep -c '\[ok\]' $LOGS/net.log)" "$(grep -c '\[FAIL\]' $LOGS/net.log)" 0 $rc ;;
exchange)
  run exchange "exchange simulator tests (JUnit)" $LOGS/exchange.log ./mill -i exchange.test; rc=$?
  sed -i 's/\x1b\[[0-9;]*m//g' $LOGS/exchange.log
  grep -o 'Test run .* finished: .*total' $LOGS/exchange.log | sed 's/^/   /'
  rec "exchange simulator tests" "$(junit_counts $LOGS/exchange.log)" $rc ;;
tools)
  run tools "a checkout under a path with spaces (tools/nospace.sh)" $LOGS/tools.log tools/test-nospace.sh; rc=$?
  grep -E '^(FAIL|skip)' $LOGS/tools.log | sed 's/^/   /'
  rec "paths with spaces (tools/nospace.sh)" "$(plain_counts $LOGS/tools.log '^')" $rc ;;
liteeth)
  run liteeth "LiteEth MAC (GMII, standalone)" $LOGS/liteeth.log hw/liteeth/test/run.sh; rc=$?
  grep -E '^\s*\[(ok|FAIL)|PASS|FAIL|latency' $LOGS/liteeth.log | sed 's/^/   /' | head -30
  rec "LiteEth MAC (standalone)" "$(plain_counts $LOGS/liteeth.log '^')" $rc ;;
simeth)
  run simeth "harness Ethernet plug-in" $LOGS/simeth.log sim/eth/test/run.sh; rc=$?
  grep -E '^\s*\[(FAIL|skip)' $LOGS/simeth.log | sed 's/^/   /'
  rec "harness Ethernet plug-in" "$(plain_counts $LOGS/simeth.log '^')" $rc ;;
sim)
  run sim "whole-SoC simulation tests" $LOGS/sim.log make -s test-sim-run; rc=$?
  grep -E '^(ok|FAIL|skip|  )' $LOGS/sim.log | sed 's/^/   /'
  line=$(grep -o 'simulation tests: [0-9]* passed' $LOGS/sim.log | tail -1)
  if [ -z "$line" ]; then tail -20 $LOGS/sim.log | sed 's/^/   | /'; fi
  rec "whole-SoC simulation tests" "$(plain_counts $LOGS/sim.log 'simulation tests: ')" $rc ;;
latency)
  run latency "latency analysis tool" $LOGS/latency.log "$VENV/bin/python" -m unittest -v tools/latency/test_analyze.py; rc=$?
  grep -E 'FAIL|ERROR|skipped' $LOGS/latency.log | grep -v '^Ran' | sed 's/^/   /' | head -20
  rec "latency analysis tool" "$(unittest_counts $LOGS/latency.log)" $rc ;;
tfctl)
  run tfctl "tfctl library and CLI (pytest)" $LOGS/tfctl.log env PYTHONPATH=tools/tfctl "$VENV/bin/python" -m pytest -v -p no:cacheprovider tools/tfctl/tests; rc=$?
  grep -E 'FAILED|ERROR|SKIPPED' $LOGS/tfctl.log | sed 's/^/   /' | head -20
  rec "tfctl library and CLI" "$(pytest_counts $LOGS/tfctl.log)" $rc ;;
bench)
  run bench "Linux baseline client (JUnit)" $LOGS/bench-client.log ./mill -i baseline.test; rc=$?
  sed -i 's/\x1b\[[0-9;]*m//g' $LOGS/bench-client.log
  grep -o 'Test run .* finished: .*total' $LOGS/bench-client.log | sed 's/^/   /'
  rec "Linux baseline client" "$(junit_counts $LOGS/bench-client.log)" $rc
  run bench "Linux baseline pairing, bench clock, burst figures (unittest)" $LOGS/bench-pairing.log "$VENV/bin/python" -m unittest -v tools/bench/test_linux_baseline.py tools/bench/test_bench.py tools/bench/test_burst.py tools/bench/test_fuzz.py; rc=$?
  grep -E 'FAIL|ERROR|skipped' $LOGS/bench-pairing.log | grep -v '^Ran' | sed 's/^/   /' | head -20
  rec "Linux baseline pairing" "$(unittest_counts $LOGS/bench-pairing.log)" $rc ;;
boards)
  run boards "board builds (ECP5 bitstreams, Zynq synthesis)" $LOGS/boards.log tools/test-boards.sh; rc=$?
  grep -E '^\[(ok|FAIL|skip)\]|^     |^== cache' $LOGS/boards.log | sed 's/^/   /'
  rec "board builds" "$(plain_counts $LOGS/boards.log '^')" $rc ;;
gate)
  run gate "gate-level simulation (Colorlight i5 and PYNQ-Z1 netlists, yosys cell models)" $LOGS/gate.log \
    env TF_GATE_PHASE=$([ $gate_bg = 1 ] && echo finish || echo all) tools/test-gate.sh; rc=$?
  grep -E '^\[(ok|FAIL|skip)\]|^   ' $LOGS/gate.log | sed 's/^/   /'
  rec "gate-level simulation" "$(plain_counts $LOGS/gate.log 'gate-level simulation: ')" $rc ;;
*) echo "unknown suite $s (tools hw fw fuzz net exchange liteeth simeth sim latency tfctl bench boards gate)"; exit 2 ;;
esac; done

echo
echo "== summary"
for l in "${summary[@]}"; do echo "   $l"; done
# the failing checks again, last: a CI report that keeps only the output's tail still names them
for fl in "${failed_logs[@]}"; do
  echo "   failed in ${fl%%|*} (${fl#*|}):"
  grep -E '\[FAIL\]|FAILED|[Ff]ailed:|FAIL:|Error:|error:' "${fl#*|}" | grep -vE ' 0 failed|failed, 0 ' | head -6 | cut -c1-240 | sed 's/^/     /'
done
echo "$total_pass passed, $total_fail failed, $total_skip skipped"
[ "$total_fail" -eq 0 ]
