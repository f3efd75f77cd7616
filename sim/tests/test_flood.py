"""Whole-SoC test of the receive filter under a flood (issue 15): while the exchange's market data flows, the harness
puts other traffic on the wire to the SoC at half the line rate, in simulated time (its `flood 50` command: one frame
whenever the wire is idle and the share allows, so the exchange's frames wait behind at most one of them): UDP
datagrams and TCP SYNs to the SoC's address on ports it does not use, and TCP to another address. Two hardware stops
are armed (sim/tests/offload.path crosses both). Checked, through tfctl (sim/tests/soc.py):
 - both stops fire, by the hardware, and their orders are filled;
 - the session stays up (no disconnected event, the status says active) and no event was missed;
 - the receive filter's FILTERED counter rose by exactly the number of flood frames the harness put on the wire, and
   not one frame was dropped for lack of a receive slot (RX_DROPS_FULL unchanged);
 - the exchange's log: no Reject, no ResendRequest, the SoC's MsgSeqNums without a gap.
"""
import re
import subprocess
import sys
import time
from datetime import datetime, timezone

from soc import KIP, ROOT, SOC_IP, SOC_MAC, Rig

rig = Rig("flood", root=True)
with rig:
    net = rig.netns()
    subprocess.run(["sysctl", "-qw", "net.ipv6.conf.tfsim0.disable_ipv6=1"], check=True)  # no IPv6 chatter counted
    rig.start_exchange("--path", "sim/tests/offload.path", "--loop", "--wait-subscriber")
    tf = rig.start_soc(*net, cycles=4000000000)
    tf.set_utc(datetime.now(timezone.utc))
    tf.session.configure(heartbeat=5)
    kmac = rig.kernel_mac()

    def frame(*a):
        return subprocess.run([sys.executable, str(ROOT / "sim/tests/frames.py"), *a], capture_output=True, text=True,
                              check=True).stdout.strip()
    flood = [frame("udp", SOC_MAC, kmac, KIP, SOC_IP, "5353", "5353"),
             frame("syn", SOC_MAC, kmac, KIP, SOC_IP, "40000", "80"),
             frame("syn", SOC_MAC, kmac, KIP, "10.77.0.99", "40001", "9876")]
    before = rig.counters("net")["mac"]
    rig.ctl("flood 50 " + " ".join(flood))
    rig.console("fix start")
    logon = rig.wait("logon", 90, "the logon with the wire half full of other traffic")
    for i, (side, stop, limit) in enumerate((("buy", "100.10", "100.40"), ("sell", "99.60", "99.30"))):
        n = tf.stops.arm(side, "MSFT", 100, stop, limit)
        rig.check(n == i, f"stop {side} got number {n}, want {i}")
        rig.wait("stop.loaded", 30, f"stop {i} loaded into the hardware", lambda e: e["stop"] == i)
    fires = []
    for i in range(2):
        ev = rig.wait("stop.fired", 120, f"stop {i}'s fire", lambda e: e["stop"] == i)
        rig.check(ev["by_hw"] is True and ev["clordid"], f"stop {i} was not fired by the hardware: {ev.data}")
        fires.append(ev)
    for ev in fires:
        fill = rig.wait("order.fill", 60, f"the fill of {ev['clordid']}",
                        lambda e: e["clordid"] == ev["clordid"] and e["state"] == "filled", since=ev.seq)
        rig.check(fill["cum"] == 100 and fill["leaves"] == 0, f"the order of stop {ev['stop']}: {fill.data}")
    st = tf.status()
    rig.check(st["session"] == "active", f"the session is not active under the flood: {st}")
    rig.check(not rig.find("disconnected"), f"the session was disconnected: {[e.data for e in rig.find('disconnected')]}")

    rig.ctl("flood off")
    time.sleep(1)  # the last flood frame reaches the filter
    rig.ctl("stats")
    for _ in range(50):
        m = re.findall(r"eth: flood: (\d+) frames to the SoC", rig.sim_log())
        if m:
            break
        time.sleep(0.1)
    rig.check(bool(m), "the harness did not report its flood frames")
    offered = int(m[-1])
    after = rig.counters("net")["mac"]
    filtered = after["filtered"] - before["filtered"]
    full = after["rx_drops_full"] - before["rx_drops_full"]
    print(f"   | flood: {offered} frames at 50 % of the line; filtered {filtered}; rx_drops_full +{full}; "
          f"frames delivered to the CPU +{after['rx_frames'] - before['rx_frames']}")
    rig.check(offered > 1000, f"only {offered} flood frames: the flood did not run long enough to mean anything")
    rig.check(filtered == offered, f"the receive filter dropped {filtered} frames, the harness flooded {offered}")
    rig.check(full == 0, f"{full} frame(s) dropped for lack of a receive slot under the flood")

    since = rig.last_seq()
    rig.console("fix stop")
    rig.wait("logout", 30, "the Logout answer", since=since)
    rig.check_events_complete()
    msgs = rig.check_exchange_log()
    rig.ok(f"flood ({offered} unrelated frames at half the line rate, every one filtered; both hardware stops fired and "
           f"filled; the session kept)")
