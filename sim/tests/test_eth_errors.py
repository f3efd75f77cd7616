"""Whole-SoC test: bad input on the wire is counted and survived. Through the harness the test injects a frame with
a bad FCS, a runt, an oversize frame, an IPv4 packet with a bad header checksum, an IPv4 fragment and a burst larger
than the receive ring; each must show under its own counter (the firmware's mac and net counters, read through
tfctl: sim/tests/soc.py), and the kernel's ping must still work afterwards."""
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
    echo_req = frame("echo", SOC_MAC, kmac, KIP, SOC_IP)
    rig.ctl("\n".join([f"inject-badfcs {echo_req}", f"inject-runt {echo_req[:80]}",
                       f"inject {frame('oversize', SOC_MAC, kmac)}",
                       f"inject {frame('echo', SOC_MAC, kmac, KIP, SOC_IP, '--bad-ip-checksum')}",
                       f"inject {frame('echo', SOC_MAC, kmac, KIP, SOC_IP, '--fragment')}",
                       f"inject-burst 40 {echo_req}"]))
    rig.step = "waiting for the harness to take the injections"
    for _ in range(200):  # the harness's own report (its line in the simulation's output)
        if "inject-burst" in rig.sim_log():
            break
        time.sleep(0.1)
    rig.check("inject-burst" in rig.sim_log(), "the harness did not take the injections")
    time.sleep(3)  # let the firmware work through the burst
    c = rig.counters("net")
    mac, net = c["mac"], c["net"]
    print(f"  | counters: crc_errors={mac['crc_errors']} runts={mac['runts']} oversize={mac['oversize']} "
          f"ip_bad_checksum={net['ip_bad_checksum']} ip_fragment={net['ip_fragment']} rx_drops_full={mac['rx_drops_full']}")
    for what, v in (("crc_errors", mac["crc_errors"]), ("runts", mac["runts"]), ("oversize", mac["oversize"]),
                    ("ip_bad_checksum", net["ip_bad_checksum"]), ("ip_fragment", net["ip_fragment"])):
        rig.check(v == 1, f"{what} is {v}, expected 1")
    rig.check(mac["rx_drops_full"] >= 1, f"a 40-frame burst into an 8-slot ring dropped nothing (rx_drops_full {mac['rx_drops_full']})")
    out = subprocess.run(["ping", "-c", "5", "-i", "0.2", "-W", "5", SOC_IP], capture_output=True, text=True).stdout
    rig.check("5 packets transmitted, 5 received" in out, f"ping after the bad input: {out.strip().splitlines()[-2:]}")
    rig.check_events_complete()
    rig.ok(f"eth-errors (each bad frame counted under its own counter, burst dropped {mac['rx_drops_full']} of 40, ping still 5/5)")
