"""Whole-SoC test: bad input on the wire is counted and survived. Through the harness the test injects a frame with
a bad FCS, a runt, an oversize frame, an IPv4 packet with a bad header checksum, an IPv4 fragment, traffic the receive
filter must drop (UDP and a TCP SYN to us, TCP to another address, IPv6), a burst of ICMP echo requests (the filter's
rate limit) and a burst of ARP requests larger than the receive ring; each must show under its own counter (the
firmware's mac and net counters, read through tfctl: sim/tests/soc.py), and the kernel's ping must still work
afterwards."""
import subprocess
import sys
import time

from soc import KIP, ROOT, SOC_IP, SOC_MAC, Rig

rig = Rig("eth-errors", root=True)
with rig:
    rig.start_soc(*rig.netns())
    kmac = rig.kernel_mac()

    def frame(*a):
        return subprocess.run([sys.executable, str(ROOT / "sim/tests/frames.py"), *a], capture_output=True, text=True,
                              check=True).stdout.strip()
    # No IPv6 from the kernel from here on (its router solicitations would add to the filter's count).
    subprocess.run(["sysctl", "-qw", "net.ipv6.conf.tfsim0.disable_ipv6=1"], check=True)
    echo_req = frame("echo", SOC_MAC, kmac, KIP, SOC_IP)
    arp_req = frame("arp", SOC_MAC, kmac, KIP, SOC_IP)
    before = rig.counters("net")["mac"]
    rig.ctl("\n".join([f"inject-badfcs {echo_req}", f"inject-runt {echo_req[:80]}",
                       f"inject {frame('oversize', SOC_MAC, kmac)}",
                       f"inject {frame('echo', SOC_MAC, kmac, KIP, SOC_IP, '--bad-ip-checksum')}",
                       f"inject {frame('echo', SOC_MAC, kmac, KIP, SOC_IP, '--fragment')}",
                       f"inject-burst 10 {frame('udp', SOC_MAC, kmac, KIP, SOC_IP, '5353', '5353')}",
                       f"inject-burst 10 {frame('syn', SOC_MAC, kmac, KIP, SOC_IP, '40000', '80')}",
                       f"inject-burst 5 {frame('syn', SOC_MAC, kmac, KIP, '10.77.0.99', '40000', '9876')}",
                       f"inject-burst 5 {frame('ipv6', SOC_MAC, kmac)}",
                       f"inject-burst 40 {echo_req}",
                       f"inject-burst 40 {arp_req}"]))
    rig.step = "waiting for the harness to take the injections"
    for _ in range(200):  # the harness's own report (its line in the simulation's output)
        if "inject-burst" in rig.sim_log():
            break
        time.sleep(0.1)
    rig.check("inject-burst" in rig.sim_log(), "the harness did not take the injections")
    time.sleep(3)  # let the firmware work through the burst
    c = rig.counters("net")
    mac, net = c["mac"], c["net"]
    filtered, limited = mac["filtered"] - before["filtered"], mac["icmp_limited"] - before["icmp_limited"]
    print(f"  | counters: crc_errors={mac['crc_errors']} runts={mac['runts']} oversize={mac['oversize']} "
          f"ip_bad_checksum={net['ip_bad_checksum']} ip_fragment={net['ip_fragment']} filtered=+{filtered} "
          f"icmp_limited=+{limited} rx_drops_full={mac['rx_drops_full']}")
    for what, v in (("crc_errors", mac["crc_errors"]), ("runts", mac["runts"]), ("oversize", mac["oversize"]),
                    ("ip_bad_checksum", net["ip_bad_checksum"]), ("ip_fragment", net["ip_fragment"])):
        rig.check(v == 1, f"{what} is {v}, expected 1")
    # The receive filter: the 10 UDP datagrams, the 10 SYNs to a port we do not listen on, the 5 SYNs to another
    # address and the 5 IPv6 frames, no more and no less.
    rig.check(filtered == 30, f"the receive filter dropped {filtered} frames, expected the 30 unrelated ones")
    # The echo rate limit: a bucket of 8, of which the two echo requests just before took two (bad IP checksum,
    # fragment; the bad-FCS one and the runt take none), and at most one token earned during the burst (one per
    # 12 * 1024 eth_rx cycles; the burst lasts about 5,000): 40 - 6 = 34 limited, or 33.
    rig.check(limited in (33, 34), f"icmp_limited rose by {limited} for a 40-echo burst, expected 33 or 34")
    rig.check(mac["rx_drops_full"] >= 1, f"a 40-frame ARP burst into an 8-slot ring dropped nothing (rx_drops_full {mac['rx_drops_full']})")
    out = subprocess.run(["ping", "-c", "5", "-i", "0.2", "-W", "5", SOC_IP], capture_output=True, text=True).stdout
    rig.check("5 packets transmitted, 5 received" in out, f"ping after the bad input: {out.strip().splitlines()[-2:]}")
    rig.check_events_complete()
    rig.ok(f"eth-errors (each bad frame counted under its own counter; receive filter {filtered} of 30 unrelated, echo limit "
           f"{limited} of 40, ARP burst dropped {mac['rx_drops_full']} of 40; ping still 5/5)")
