#!/usr/bin/env bash
# Runs every whole-SoC simulation test (sim/tests/test_*.sh) and prints one count line.
cd "$(dirname "$0")/../.."
pass=0; fail=0
for t in sim/tests/test_*.sh; do
  if bash "$t"; then pass=$((pass + 1)); else fail=$((fail + 1)); fi
done
echo "simulation tests: $pass passed, $fail failed"
[ $fail -eq 0 ]
