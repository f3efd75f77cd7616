#!/usr/bin/env bash
# Runs the firmware's libFuzzer harnesses (fw/fuzz/README.md), one after the other, each for a bounded time.
#   fw/fuzz/run.sh [-t SECONDS] [-r RUNS] [-o DIR] [-j REPORT.json] [NAME...]   (NAME: codec session app tcp console;
#   default all)
# Each fuzzer starts from its seeds (fw/fuzz/corpus/NAME) and its regression inputs (fw/fuzz/regress/NAME: every
# input that once crashed, replayed first, every run) and grows a working corpus in DIR/NAME/corpus (DIR defaults
# to build/fuzz; emptied first, so that runs are alike). Per fuzzer it prints executions, exec/s, coverage (cov:
# edges, ft: features), corpus size and the verdict; a crash, leak, timeout (an input running over 10 s) or
# out-of-memory is a failure: libFuzzer's report is in DIR/NAME/log and the input is saved under DIR/NAME/ (its
# path printed), to be kept as a regression input: cp it into fw/fuzz/regress/NAME/ with the fix.
# Last line: "fuzzers: P passed, F failed, 0 skipped" (each fuzzer one test). -j writes the figures as JSON.
set -u
cd "$(dirname "$0")/../.."
secs=50 runs=-1 out=build/fuzz json=
while getopts "t:r:o:j:" o; do case $o in
  t) secs=$OPTARG ;; r) runs=$OPTARG ;; o) out=$OPTARG ;; j) json=$OPTARG ;;
  *) echo "usage: $0 [-t SECONDS] [-r RUNS] [-o DIR] [-j REPORT.json] [NAME...]" >&2; exit 2 ;;
esac; done
shift $((OPTIND - 1))
names=${*:-codec session app tcp console}

echo "== building the fuzzers (clang, libFuzzer, ASan, UBSan)"
if ! make -s -C fw -j2 fuzz-build; then
  echo "fuzzers: 0 passed, 1 failed, 0 skipped (the build failed)"; exit 1
fi

pass=0 fail=0 rows=()
for n in $names; do
  bin=build/fw/fuzz/fuzz_$n
  dir=$out/$n
  if [ ! -x "$bin" ]; then echo "[FAIL] $n: no fuzzer $bin"; fail=$((fail + 1)); continue; fi
  rm -rf "$dir"; mkdir -p "$dir/corpus"
  seeds=(fw/fuzz/corpus/$n); [ -d fw/fuzz/regress/$n ] && seeds+=(fw/fuzz/regress/$n)
  nseed=$(ls fw/fuzz/corpus/$n | wc -l); nreg=$( (ls fw/fuzz/regress/$n 2>/dev/null || true) | wc -l)
  start=$SECONDS
  # -close_fd_mask=1: the firmware code's printf output (stdout) is dropped; libFuzzer reports on stderr.
  # The outer timeout only catches a libFuzzer that hangs outside an input (-timeout handles those inside one).
  timeout -k 10 $((secs + 120)) "$bin" -max_total_time="$secs" -runs="$runs" -timeout=10 -rss_limit_mb=2048 \
    -max_len=8192 -close_fd_mask=1 -print_final_stats=1 -artifact_prefix="$dir/" "$dir/corpus" "${seeds[@]}" \
    > "$dir/log" 2>&1
  rc=$?
  el=$((SECONDS - start))
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$dir/log" | tail -1)
  eps=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$dir/log" | tail -1)
  last=$(grep -E '^#[0-9]+[[:space:]]+(INITED|NEW|REDUCE|pulse|DONE)' "$dir/log" | tail -1)
  cov=$(echo "$last" | sed -n 's/.* cov: \([0-9]*\).*/\1/p')
  ft=$(echo "$last" | sed -n 's/.* ft: \([0-9]*\).*/\1/p')
  corp=$(echo "$last" | sed -n 's/.* corp: \([0-9]*\)\/.*/\1/p')
  artifact=$(sed -n 's/.*Test unit written to \(.*\)$/\1/p' "$dir/log" | tail -1)
  kind=
  if [ -n "$artifact" ] || [ $rc -ne 0 ]; then
    kind=$(grep -oE 'FZ_CHECK failed: .*' "$dir/log" | head -1)
    [ -n "$kind" ] || kind=$(grep -oE 'runtime error: .*|ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer): [a-z-]+( [a-z-]+)?' "$dir/log" | head -1)
    [ $rc -eq 124 ] || [ $rc -eq 137 ] && kind="stopped at the wall-clock limit of $((secs + 120)) s"
    echo "[FAIL] $n: ${kind:-exit $rc} after ${execs:-?} executions, ${el} s"
    grep -E '^ +#[0-9]+ .* in [A-Za-z_].* (fw|fuzz)/' "$dir/log" | grep -v 'fuzzer::' | head -6 | sed 's/^ */       /'
    echo "       input saved: ${artifact:-none}; log: $dir/log"
    echo "       replay: $bin ${artifact:-<input>}"
    fail=$((fail + 1)); verdict=false
  else
    echo "[ok] $n: ${execs:-0} executions (${eps:-0}/s), cov ${cov:-?}, ft ${ft:-?}, corpus ${corp:-?} (from $nseed seeds, $nreg regression inputs), ${el} s"
    pass=$((pass + 1)); verdict=true
  fi
  rows+=("$(printf '"%s": {"passed": %s, "seconds": %s, "executions": %s, "exec_per_s": %s, "cov": %s, "ft": %s, "corpus": %s, "seeds": %s, "regressions": %s, "crashes": %s, "failure": "%s", "input": "%s"}' \
    "$n" "$verdict" "$el" "${execs:-0}" "${eps:-0}" "${cov:-0}" "${ft:-0}" "${corp:-0}" "$nseed" "$nreg" \
    "$([ $verdict = true ] && echo 0 || echo 1)" "$(echo "$kind" | tr -d '"\\')" "$artifact")")
done
if [ -n "$json" ]; then
  mkdir -p "$(dirname "$json")"
  { echo "{\"seconds_each\": $secs, \"fuzzers\": {"; (IFS=,; echo "${rows[*]}"); echo "}}"; } > "$json"
fi
echo "fuzzers: $pass passed, $fail failed, 0 skipped"
[ $fail -eq 0 ]
