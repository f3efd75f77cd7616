#!/usr/bin/env bash
# Whole-SoC test without root: the harness's libslirp backend (user-mode networking on the same
# addresses as the TAP tests: slirp is 10.77.0.1, the SoC 10.77.0.2). The firmware resolves 10.77.0.1 by
# ARP through slirp. A host connection to a forwarded port (no listener there) is dropped by the receive filter,
# which counts it, and the firmware does not answer; with the filter off (`net filter off`) it reaches the
# firmware's TCP, which refuses it (RST), counted by the firmware.
set -u
cd "$(dirname "$0")/../.."
source sim/tests/lib.sh
PORT=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
fail() { echo "FAIL slirp: $*"; tail -15 "$SOC_LOG" | sed 's/^/  | /'; soc_stop; exit 1; }
trap soc_stop EXIT
soc_start slirp +slirp-fwd=tcp:$PORT:9 || fail "could not start the SoC"
soc_console "arp resolve 10.77.0.1"
soc_wait_for "arp: 10.77.0.1 is at [0-9a-f:]{17}" 30 || fail "the firmware did not resolve slirp's address"
counter() { sed -n "s/^.*$1 \([0-9]*\).*/\1/p" "$SOC_LOG" | tail -1; }
# The receive filter on (the default): slirp's SYN to port 9 takes no receive slot and gets no answer.
python3 - "$PORT" <<'PY' &
import socket, sys, time
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=20)
time.sleep(8)
PY
held=$!
filtered=0
for _ in $(seq 1 20); do
  sleep 0.5; soc_console "net"; sleep 0.5
  filtered=$(counter filtered); [ "${filtered:-0}" -ge 1 ] && break
done
kill "$held" 2>/dev/null; wait "$held" 2>/dev/null
[ "${filtered:-0}" -ge 1 ] || fail "the receive filter did not drop the SYN to a port without a listener (filtered ${filtered:-none})"
[ -z "$(sed -n 's/^.*net: tcp_rst_out *\([0-9]*\).*/\1/p' "$SOC_LOG")" ] || fail "the firmware answered a SYN the receive filter should have dropped"
soc_console "net filter off"
soc_wait_for "net: receive filter off" 10 || fail "net filter off was not confirmed"
python3 - "$PORT" <<'PY' || fail "the forwarded connection was not refused by the firmware"
import socket, sys
s = socket.create_connection(("127.0.0.1", int(sys.argv[1])), timeout=20)
s.settimeout(20)
try:
    data = s.recv(1)   # slirp accepts at once, then closes when the guest answers the SYN with RST
    sys.exit(0 if data == b"" else 1)
except ConnectionResetError:
    sys.exit(0)
PY
soc_console "net"
soc_wait_for "net: tcp_rst_out +[1-9]" 20 || fail "the firmware did not count the RST it sent"
# As a user without root, +tap falls back to libslirp and says so (checked when we are root and can drop it).
fallback=""
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
  # the unprivileged user may not be able to enter the checkout (a clone under /root is mode 700): it runs
  # copies of the model and the firmware from a folder of its own
  nobody_dir=$(mktemp -d /tmp/tf-slirp-user.XXXXXX) && chmod 755 "$nobody_dir"
  cp "$SIM_BIN" "$nobody_dir/VSoc" && cp "${FW:-build/fw/sim/firmware}.hex" "$nobody_dir/firmware.hex" && chmod 755 "$nobody_dir/VSoc" && chmod 644 "$nobody_dir/firmware.hex"
  out=$(cd "$nobody_dir" && setpriv --reuid=65534 --regid=65534 --clear-groups ./VSoc \
        +firmware=firmware.hex +tap=tfnope +timeout=20000 2>&1)
  rm -rf "$nobody_dir"
  echo "$out" | grep -q "falling back to libslirp" && echo "$out" | grep -q "eth: backend slirp" \
    || fail "without root, +tap did not fall back to libslirp: $(echo "$out" | grep eth: | head -2)"
  fallback="; without root +tap falls back to it"
else
  echo "skip slirp-fallback (checking that +tap falls back to libslirp without root needs root and setpriv to drop it)"
fi
echo "ok slirp (ARP through libslirp; a forwarded connection dropped by the receive filter, and with the filter off refused by the firmware's TCP$fallback)"
