"""Whole-SoC test without root: the harness's libslirp backend (user-mode networking on the same addresses as the
TAP tests: slirp is 10.77.0.1, the SoC 10.77.0.2). The firmware resolves 10.77.0.1 by ARP through slirp (its arp
event). A host connection to a forwarded port (no listener there) is dropped by the receive filter, which counts it,
and the firmware does not answer; with the filter off (`net filter off`) it reaches the firmware's TCP, which refuses
it (RST), counted by the firmware (tcp_rst_out in its net counters). The SoC is driven through tfctl (sim/tests/soc.py).
As a user without root, +tap falls back to libslirp and says so (the harness's own output; checked when we are
root and can drop it)."""
import os
import shutil
import socket
import subprocess
import tempfile
import time

from soc import FW, KIP, SIM, Rig, free_port

rig = Rig("slirp")
with rig:
    port = free_port()
    rig.start_soc("+slirp", f"+slirp-fwd=tcp:{port}:9")
    since = rig.last_seq()
    rig.console(f"arp resolve {KIP}")
    arp = rig.wait("arp", 30, "the firmware's ARP resolution of slirp's address", lambda e: e["ip"] == KIP, since)
    rig.check(arp["ok"] and len(arp["mac"]) == 17, f"the firmware did not resolve slirp's address: {arp.data}")
    # The receive filter on (the default): slirp's SYN to port 9 takes no receive slot and gets no answer.
    with socket.create_connection(("127.0.0.1", port), timeout=20):
        for _ in range(40):
            c = rig.counters("net")
            if c["mac"]["filtered"] >= 1:
                break
            time.sleep(0.5)
    rig.check(c["mac"]["filtered"] >= 1, f"the receive filter did not drop the SYN to a port without a listener: {c['mac']}")
    rig.check(c["net"]["tcp_rst_out"] == 0, "the firmware answered a SYN the receive filter should have dropped")
    rig.console("net filter off")
    refused = False
    with socket.create_connection(("127.0.0.1", port), timeout=20) as s:
        s.settimeout(20)
        try:
            refused = s.recv(1) == b""  # slirp accepts at once, then closes when the guest answers the SYN with RST
        except ConnectionResetError:
            refused = True
    rig.check(refused, "the forwarded connection was not refused by the firmware")
    rst = rig.counters("net")["net"]["tcp_rst_out"]
    rig.check(rst >= 1, f"the firmware did not count the RST it sent (tcp_rst_out {rst})")
    rig.check_events_complete()
    rig.close()
    fallback = ""
    if os.geteuid() == 0 and shutil.which("setpriv"):
        # the unprivileged user may not be able to enter the checkout (a clone under /root is mode 700): it runs
        # copies of the model and the firmware from a folder of its own
        d = tempfile.mkdtemp(prefix="tf-slirp-user.")
        try:
            os.chmod(d, 0o755)
            shutil.copy(SIM, os.path.join(d, "VSoc"))
            shutil.copy(FW, os.path.join(d, "firmware.hex"))
            os.chmod(os.path.join(d, "VSoc"), 0o755)
            os.chmod(os.path.join(d, "firmware.hex"), 0o644)
            out = subprocess.run(["setpriv", "--reuid=65534", "--regid=65534", "--clear-groups", "./VSoc",
                                  "+firmware=firmware.hex", "+tap=tfnope", "+timeout=20000"], cwd=d, stdout=subprocess.PIPE,
                                 stderr=subprocess.STDOUT, text=True).stdout
        finally:
            shutil.rmtree(d, ignore_errors=True)
        eth = [l for l in out.splitlines() if "eth:" in l][:2]
        rig.check("falling back to libslirp" in out and "eth: backend slirp" in out,
                  f"without root, +tap did not fall back to libslirp: {eth}")
        fallback = "; without root +tap falls back to it"
    else:
        print("skip slirp-fallback (checking that +tap falls back to libslirp without root needs root and setpriv to drop it)")
    rig.ok(f"slirp (ARP through libslirp; a forwarded connection dropped by the receive filter, and with the filter off "
           f"refused by the firmware's TCP{fallback})")
