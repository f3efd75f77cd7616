#!/usr/bin/env bash
# Whole-SoC test of the machine protocol through tools/tfctl (pytest: tools/tfctl/soc_tests): the session from a
# settings file, malformed requests refused one by one with the console still answering, a hardware stop armed,
# fired and filled with its events in order and no gap in their sequence numbers. libslirp and free ports (no
# root needed, tests may run at once); exit 77 when pytest is missing.
set -u
cd "$(dirname "$0")/../.."
PY=${TRIGGERFISH_VENV:-$HOME/.cache/triggerfish/venv}/bin/python
[ -x "$PY" ] || PY=python3
if ! "$PY" -c 'import pytest, serial' 2>/dev/null; then echo "skip tfctl (no pytest or pyserial: make deps)"; exit 77; fi
mkdir -p build/sim/tests
PYTHONPATH=tools/tfctl${PYTHONPATH:+:$PYTHONPATH} "$PY" -m pytest -q -s -p no:cacheprovider tools/tfctl/soc_tests \
  --junitxml=build/sim/tests/tfctl.junit.xml > build/sim/tests/tfctl.pytest.log 2>&1
rc=$?
tail -25 build/sim/tests/tfctl.pytest.log | sed 's/^/  | /'
case $rc in
  0) if grep -q ' skipped' build/sim/tests/tfctl.pytest.log; then echo "skip tfctl ($(grep -o 'SKIPPED.*' build/sim/tests/tfctl.pytest.log | head -1))"; exit 77; fi
     echo "ok tfctl (session from a settings file, 6 malformed requests refused, hardware stop fired and filled, events without a gap)" ;;
  *) echo "FAIL tfctl: pytest exit $rc (build/sim/tests/tfctl.pytest.log)"; exit 1 ;;
esac
