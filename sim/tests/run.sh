#!/usr/bin/env bash
# Runs every whole-SoC simulation test (sim/tests/test_*.sh and test_*.py), or those named (`run.sh offload burst`:
# test_NAME.sh or .py, else accept_NAME.sh or .py: the acceptance tests of open issues, not in the default list), and
# prints one count line:
#   "simulation tests: N passed, M failed, K skipped"
# A test passes with exit 0, is skipped with exit 77 (it prints "skip <name> (<why>)"; the network tests
# need root), and fails otherwise. A passing test may also skip a part of itself: each "skip ..." line it
# prints counts as one skipped check beside its pass.
# Each test runs under a wall-clock limit (TEST_LIMIT_<name> seconds, else the table below, else 900): a test
# that reaches it is stopped (SIGTERM to its process group, so its traps clean up) and fails with the last
# lines it printed, which say where it was (lib.sh's soc_wait_for and soc.py's Rig name what they were waiting for).
# The Python tests (sim/tests/soc.py: the SoC driven through tfctl) run on the project's venv (make deps).
cd "$(dirname "$0")/../.."
pass=0; fail=0; skip=0
limit_for() { # the wall-clock limit of a test, in seconds
  local name=$1 var="TEST_LIMIT_${1//-/_}"
  if [ -n "${!var:-}" ]; then echo "${!var}"; return; fi
  case $name in
    demo) echo 1800 ;;                      # make demo on a TAP, then on libslirp
    burst) echo 4200 ;;                     # issue 15's acceptance test: 2,000 W into a SoC ~1,000x slower than real time
    fix_session|offload|flood|digest) echo 1200 ;;
    soak) echo 900 ;;                       # 180 s of trading through the impaired wire, boot and logon through it too
    *) echo 600 ;;
  esac
}
mkdir -p build/sim/tests
tests=()
PY=${TRIGGERFISH_VENV:-$HOME/.cache/triggerfish/venv}/bin/python
[ -x "$PY" ] || PY=python3
if [ $# -eq 0 ]; then
  tests=($(ls sim/tests/test_*.sh sim/tests/test_*.py | sort))
else
  for n in "$@"; do
    t=""
    for f in "sim/tests/test_$n.sh" "sim/tests/test_$n.py" "sim/tests/accept_$n.sh" "sim/tests/accept_$n.py"; do
      [ -f "$f" ] && { t=$f; break; }
    done
    [ -n "$t" ] || { echo "run.sh: no sim/tests/test_$n.sh, test_$n.py, accept_$n.sh or accept_$n.py" >&2; exit 2; }
    tests+=("$t")
  done
fi
for t in "${tests[@]}"; do
  name=$(basename "$t"); name=${name%.*}; name=${name#test_}; name=${name#accept_}
  lim=$(limit_for "$name")
  out=build/sim/tests/$name.out
  start=$SECONDS
  case $t in *.py) run=("$PY" -u "$t") ;; *) run=(bash "$t") ;; esac
  timeout -k 20 "$lim" "${run[@]}" > "$out" 2>&1
  rc=$?
  cat "$out"
  parts=$(grep -c '^skip ' "$out")
  case $rc in
    0) pass=$((pass + 1)); skip=$((skip + parts)) ;;
    77) skip=$((skip + 1)) ;;
    124|137) fail=$((fail + 1))
       echo "FAIL $name: stopped at its wall-clock limit of $lim s (after $((SECONDS - start)) s); its last lines:"
       tail -5 "$out" | sed 's/^/  | /' ;;
    *) fail=$((fail + 1))
       grep -q "^FAIL" "$out" || echo "FAIL $name: exit $rc without a FAIL line" ;;
  esac
done
echo "simulation tests: $pass passed, $fail failed, $skip skipped"
[ $fail -eq 0 ]
