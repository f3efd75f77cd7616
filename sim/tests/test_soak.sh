#!/usr/bin/env bash
# The short soak (issue 19): the whole SoC trades against the QuickFIX/J exchange through the harness's impaired wire
# (5 % loss, 1 % duplication, 10 % reordering, 0.1 % corruption with the FCS recomputed, both ways, a fixed seed),
# with hardware and firmware stops armed and fired again and again, driven through tfctl. sim/tests/soak.py does it
# and checks: orders lost 0, duplicated 0 (each ClOrdID once), no false fire, the session alive at the end,
# reconnects only after the exchange ended a connection, both sides' MsgSeqNums continuous (gaps recovered by
# ResendRequest / GapFill); it prints the counts. The long soak is `make bench` (tools/bench/bench.py).
# SOAK_SECONDS sets the wall time of trading (default 180), SOAK_SEED the wire's seed (default 368: a frame corrupted early each way).
set -u
cd "$(dirname "$0")/../.."
PY=${TRIGGERFISH_VENV:-$HOME/.cache/triggerfish/venv}/bin/python
[ -x "$PY" ] || PY=python3
if ! "$PY" -c 'import serial' 2>/dev/null; then echo "skip soak (no pyserial for tfctl: make deps)"; exit 77; fi
TF_STEP="the soak (sim/tests/soak.py; its output is build/sim/tests/soak.out)"
"$PY" sim/tests/soak.py --out build/sim/tests/soak --seconds "${SOAK_SECONDS:-180}" --seed "${SOAK_SEED:-368}" \
  --json build/sim/tests/soak.json > build/sim/tests/soak.log 2>&1
rc=$?
grep -E '^\s+\|' build/sim/tests/soak.log
case $rc in
  0) echo "ok soak ($(sed -n 's/.*| orders: \([0-9]*\) sent by the SoC.*lost \([0-9]*\), duplicated \([0-9]*\).*/\1 orders, lost \2, duplicated \3/p' build/sim/tests/soak.log); $(sed -n 's/.*| fires: \([0-9]*\) by hardware, \([0-9]*\) by firmware.*false \([0-9]*\).*/\1 hardware and \2 firmware fires, \3 false/p' build/sim/tests/soak.log); session alive, MsgSeqNums continuous)" ;;
  77) grep '^skip' build/sim/tests/soak.log; exit 77 ;;
  *) echo "FAIL soak: exit $rc: $(grep 'FAILED CHECK' build/sim/tests/soak.log | head -3 | sed 's/.*FAILED CHECK: //' | tr '\n' ';')"
     tail -5 build/sim/tests/soak.log | sed 's/^/  | /'; exit 1 ;;
esac
