"""Whole-SoC test on a real network peer: the Linux kernel in a private namespace, through a TAP.
The firmware resolves the kernel's address by ARP (its `arp` event names the kernel's MAC); the kernel's
ping -c 20 to the SoC gets 20 replies and the firmware counts 20 echo replies (its `net` counters); the kernel's
ARP table shows the SoC; the pcap of the run opens in tshark and shows ARP and ICMP with simulated time stamps.
The SoC is driven through tfctl (sim/tests/soc.py)."""
import re
import shutil
import subprocess

from soc import KIP, SOC_IP, SOC_MAC, Rig

rig = Rig("ping", root=True)
with rig:
    rig.start_soc(*rig.netns())
    kmac = rig.kernel_mac()
    since = rig.last_seq()
    rig.console(f"arp resolve {KIP}")
    arp = rig.wait("arp", 30, f"the firmware's ARP resolution of {KIP}", lambda e: e["ip"] == KIP, since)
    rig.check(arp["ok"] and arp["mac"] == kmac, f"the firmware resolved {KIP} to {arp['mac']!r} (ok {arp['ok']}); the kernel has {kmac}")

    out = subprocess.run(["ping", "-c", "20", "-i", "0.2", "-W", "5", SOC_IP], capture_output=True, text=True).stdout
    for l in out.strip().splitlines()[-2:]:
        print("  | " + l)
    rig.check("20 packets transmitted, 20 received" in out, "ping did not get 20 replies")
    neigh = subprocess.run(["ip", "neigh", "show", SOC_IP], capture_output=True, text=True).stdout
    rig.check(f"lladdr {SOC_MAC}" in neigh, f"the kernel's ARP table does not show {SOC_IP} at {SOC_MAC}: {neigh.strip()}")
    m = re.search(r"^rtt.* = [\d.]+/([\d.]+)/", out, re.M)
    rtt = f"{m.group(1)} ms average (wall clock)" if m else "?"

    net = rig.counters("net")["net"]
    rig.check(net["icmp_echo_req"] >= 20 and net["icmp_echo_reply"] >= 20,
              f"the firmware counted {net['icmp_echo_req']} echo requests and {net['icmp_echo_reply']} replies (want 20 or more)")
    rig.check_events_complete()
    rig.close()

    # The pcap: ARP and ICMP both ways, nanosecond simulated time stamps (the run lasts well under a second).
    rig.check(shutil.which("tshark"), "tshark is not installed")

    def tshark(*a):
        return subprocess.run(["tshark", "-r", str(rig.pcap), *a], capture_output=True, text=True).stdout.splitlines()
    arps, req, rep = (len(tshark("-Y", f)) for f in ("arp", "icmp.type == 8", "icmp.type == 0"))
    stamps = tshark("-T", "fields", "-e", "frame.time_epoch")
    last = float(stamps[-1]) if stamps else -1
    prec = len(stamps[0].split(".")[1]) if stamps and "." in stamps[0] else 0
    rig.check(arps >= 2 and req >= 20 and rep >= 20, f"pcap has {arps} ARP, {req} echo requests, {rep} replies")
    rig.check(0 < last < 10, f"pcap time stamps are not simulated time (last {last} s)")
    rig.check(prec >= 9, "pcap time stamps are not in nanoseconds")
    rt = [float(x) * 1000 for x in tshark("-Y", "icmp.type == 0", "-T", "fields", "-e", "icmp.resptime") if x]  # ms -> us
    sim_rtt = f"{min(rt):.0f}/{sum(rt) / len(rt):.0f}/{max(rt):.0f} us min/avg/max simulated" if rt else "?"
    rig.ok(f"ping (20/20 replies, {net['icmp_echo_reply']} counted by the firmware, round trip {sim_rtt}, {rtt}; "
           f"pcap: {arps} ARP, {req} requests, {rep} replies, last frame at {last}s simulated)")
