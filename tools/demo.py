#!/usr/bin/env python3
"""`make demo`: the whole story in plain lines, as it happens.

Starts the QuickFIX/J exchange simulator, boots the SoC in Verilator (on a TAP in a private network
namespace as root, else on libslirp), and drives the appliance through tfctl (tools/tfctl, the console UART's
machine protocol, served by the harness on a free TCP port): UTC, FIX logon, market data,
stop orders armed in the hardware trigger table, the scripted market moving through them, the orders the
hardware sends (with their latency) and their fills,
logout. Then stops everything it started and prints a summary with the latencies measured from the
simulation's pcap and frame log (tools/latency) and where the files are.

Usage: tools/demo.py [--out build/demo] [--path tools/exchange/paths/demo.path] [--timeout 240]
The build (SoC model, firmware, exchange jar) must exist: `make demo` builds it first.
"""
import argparse
import ctypes
import datetime
import json
import os
import re
import signal
import subprocess
import sys
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tools", "tfctl"))  # this checkout's tfctl
from tfctl import Appliance  # noqa: E402
from tfctl.protocol import arm_line as tfctl_arm_line  # noqa: E402
SIM = os.path.join(ROOT, "build/sim/obj/VSoc")
# As for sim/tests/run.sh: FW=<firmware without .hex> runs another firmware build, SIM_ARGS more plusargs (measurement:
# SIM_ARGS="+pc-hist=... +uart-divisor=434"; sim/main.cpp)
FW = os.path.join(ROOT, os.environ.get("FW", "build/fw/sim/firmware") + ".hex")  # (relative to the checkout)
SIM_ARGS = os.environ.get("SIM_ARGS", "").split()
JAR = os.path.join(ROOT, "out/exchange/assembly.dest/out.jar")
KERNEL_IP = "10.77.0.1"
CLONE_NEWNET = 0x40000000

# Stop orders the demo arms (against tools/exchange/paths/demo.path: MSFT trades 1170.00 .. 1170.75 .. 1169.00)
STOPS = [("buy", "MSFT", 100, "1170.50", "1171.00"), ("sell", "MSFT", 100, "1169.25", "1169.00")]

T0 = time.monotonic()


def say(msg):
    print(f"  {time.monotonic() - T0:6.1f} s  {msg}", flush=True)


class Demo:
    def __init__(self, args):
        self.args = args
        self.out = os.path.join(ROOT, args.out)
        os.makedirs(self.out, exist_ok=True)
        self.log_path = os.path.join(self.out, "soc.log")
        self.port_file = os.path.join(self.out, "uart.port")
        self.tf = None
        self.ctl_path = os.path.join(self.out, "eth.fifo")
        self.pcap = os.path.join(self.out, "demo.pcap")
        self.frames = os.path.join(self.out, "frames.csv")
        self.exch_dir = os.path.join(self.out, "exchange")
        self.ns = None
        self.sim = self.exch = None
        self.log_pos = 0
        self.lines = []
        self.events = {"fills": 0, "fires": 0, "md": 0, "orders": 0}
        self.fires = []  # (ClOrdID, hw|fw) from the console
        self.slow_steps = []  # steps that did not finish in time and were passed over (reported, not fatal)

    # ---- processes -------------------------------------------------------------------------------
    def netns_prefix(self):
        return ["ip", "netns", "exec", self.ns] if self.ns else []

    def setup_network(self):
        if os.geteuid() == 0 and not self.args.slirp:
            self.ns = f"tf-demo-{os.getpid()}"
            for cmd in (["ip", "netns", "add", self.ns],
                        ["ip", "netns", "exec", self.ns, "ip", "link", "set", "lo", "up"],
                        ["ip", "netns", "exec", self.ns, "ip", "tuntap", "add", "dev", "tfsim0", "mode", "tap"],
                        ["ip", "netns", "exec", self.ns, "ip", "addr", "add", f"{KERNEL_IP}/24", "dev", "tfsim0"],
                        ["ip", "netns", "exec", self.ns, "ip", "link", "set", "tfsim0", "up"]):
                subprocess.run(cmd, check=True)
            say(f"network: a private namespace {self.ns} with a TAP device; the Linux kernel there is {KERNEL_IP}, the SoC 10.77.0.2")
            return ["+tap=tfsim0"]
        say("network: libslirp (user-mode networking, no root needed): the SoC is 10.77.0.2 and reaches the "
            f"host's 127.0.0.1 as {KERNEL_IP}" + ("" if os.geteuid() != 0 else " (--slirp)"))
        return ["+slirp"]

    def start_exchange(self):
        bind = KERNEL_IP if self.ns else "127.0.0.1"
        os.makedirs(self.exch_dir, exist_ok=True)
        self.exch_out = open(os.path.join(self.exch_dir, "stdout.log"), "w")
        cmd = self.netns_prefix() + ["java", "-jar", JAR, "--settings", os.path.join(ROOT, "tools/exchange/exchange.cfg"),
                                     "--bind", bind, "--port", "9876", "--log-dir", self.exch_dir,
                                     "--path", os.path.join(ROOT, self.args.path), "--wait-subscriber"] + \
            (["--loop"] if getattr(self.args, "loop", False) else []) + \
            (["--step-sync"] if getattr(self.args, "step_sync", False) else [])
        self.exch = subprocess.Popen(cmd, stdout=self.exch_out, stderr=subprocess.STDOUT, cwd=ROOT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            if "EXCHANGE READY" in open(self.exch_out.name).read():
                say(f"exchange: the QuickFIX/J exchange simulator listens on {bind}:9876 (pid {self.exch.pid}); "
                    f"its market waits for the first subscriber")
                return
            if self.exch.poll() is not None:
                raise SystemExit("demo: the exchange simulator ended during start-up:\n" + open(self.exch_out.name).read()[-2000:])
            time.sleep(0.1)
        raise SystemExit("demo: the exchange simulator did not start in 60 s")

    def start_soc(self, net):
        for p in (self.port_file, self.ctl_path):
            if os.path.exists(p):
                os.unlink(p)
        self.sim_log = open(self.log_path, "w")
        # the console on a free TCP port of the host (inside the namespace when there is one: tfctl connects there)
        cmd = self.netns_prefix() + [SIM, f"+firmware={FW}", f"+pcap={self.pcap}", f"+eth-frame-log={self.frames}",
                                     "+uart-tcp=0", f"+uart-tcp-port-file={self.port_file}", f"+eth-ctl={self.ctl_path}",
                                     "+timeout=4000000000"] + net + SIM_ARGS
        self.sim = subprocess.Popen(cmd, stdout=self.sim_log, stderr=subprocess.STDOUT, cwd=ROOT)
        say(f"soc: booting the SoC in Verilator (VexRiscv + LiteEth MAC, firmware {os.path.relpath(FW, ROOT)})")

    def write_fifo(self, path, text, seconds=10):
        """Writes to one of the simulation's FIFOs without ever blocking: a FIFO whose reader (the simulation)
        has died would block a plain open() forever."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                fd = os.open(path, os.O_WRONLY | os.O_NONBLOCK)
                break
            except OSError as e:  # ENXIO: no reader yet (or any more); ENOENT: not made yet
                if self.sim.poll() is not None:
                    raise SystemExit(f"demo: the simulation has ended (exit {self.sim.returncode}); "
                                     f"it can no longer take {text.strip()!r}; see {self.log_path}") from e
                if time.monotonic() > deadline:
                    raise SystemExit(f"demo: the simulation did not open {os.path.relpath(path, ROOT)} within {seconds} s "
                                     f"({e.strerror}); see {self.log_path}") from e
                time.sleep(0.05)
        try:
            os.set_blocking(fd, True)  # the reader is there: a short line goes in whole
            os.write(fd, text.encode())
        finally:
            os.close(fd)

    def connect(self):
        """tfctl to the console's TCP port. In a namespace the harness listens on the namespace's loopback: the
        demo's main thread enters the namespace (setns) just to open the connection, then comes back."""
        port = int(open(self.port_file).read())
        url = f"socket://127.0.0.1:{port}"
        if not self.ns:
            self.tf = Appliance(url, timeout=120, on_status=lambda m: say(f"tfctl: {m}"))
            return
        libc = ctypes.CDLL(None, use_errno=True)
        home = os.open("/proc/self/ns/net", os.O_RDONLY)
        fd = os.open(f"/var/run/netns/{self.ns}", os.O_RDONLY)
        try:
            if libc.setns(fd, CLONE_NEWNET) != 0:
                raise SystemExit(f"demo: cannot enter the namespace {self.ns}: {os.strerror(ctypes.get_errno())}")
            self.tf = Appliance(url, timeout=120, on_status=lambda m: say(f"tfctl: {m}"))
        finally:
            libc.setns(home, CLONE_NEWNET)
            os.close(fd)
            os.close(home)

    def console(self, line):
        """A console command through tfctl; its printed line is narrated like the console's own."""
        msg = self.tf.console(line)["msg"]
        if msg:
            self.narrate(msg)
        return msg

    def stop_all(self):
        if self.tf:
            self.tf.close()
            self.tf = None
        if self.sim and self.sim.poll() is None:
            try:
                self.write_fifo(self.ctl_path, "exit 0\n", seconds=2)
                self.sim.wait(timeout=10)
            except (SystemExit, OSError, subprocess.TimeoutExpired):
                self.sim.kill()
                self.sim.wait()
        if self.exch and self.exch.poll() is None:
            self.exch.send_signal(signal.SIGTERM)
            try:
                self.exch.wait(timeout=15)
            except subprocess.TimeoutExpired:
                self.exch.kill()
                self.exch.wait()
        if self.ns:
            subprocess.run(["ip", "netns", "del", self.ns], check=False)
            self.ns = None

    # ---- the story -------------------------------------------------------------------------------
    def new_lines(self):
        with open(self.log_path, errors="replace") as f:
            f.seek(self.log_pos)
            data = f.read()
        cut = data.rfind("\n")
        if cut < 0:
            return []
        self.log_pos += len(data[:cut + 1].encode())
        out = [re.sub(r"^(tf> )+", "", l.rstrip("\r")) for l in data[:cut].split("\n")]
        self.lines += out
        return out

    def narrate(self, line):
        rules = [
            (r"^SELFTEST (PASS|FAIL)", lambda m: f"soc: self-test {m.group(1)}"),
            (r"^net: MAC (\S+), IPv4 (\S+)", lambda m: f"link up: MAC {m.group(1)}, IPv4 {m.group(2)}"),
            (r"^arp: (\S+) is at (\S+)", lambda m: f"ARP: {m.group(1)} is at {m.group(2)}"),
            (r"^fix: connecting to (\S+)", lambda m: f"TCP: connecting to {m.group(1)}"),
            (r"^fix: TCP connected \(local port (\d+)\)", lambda m: f"TCP: connected (SYN, SYN-ACK, ACK) from port {m.group(1)}; FIX Logon sent"),
            (r"^fix: logged on to (\S+) as (\S+) \(heartbeat (\d+) s", lambda m: f"FIX: logon accepted by {m.group(1)} ({m.group(2)}, HeartBtInt {m.group(3)} s)"),
            (r"^fix: subscribed to market data for (\S+)", lambda m: f"FIX: market data subscription (35=V) for {m.group(1)}"),
            (r"^stop (\d+): armed (.*)", lambda m: f"stop order {m.group(1)} armed: {m.group(2)}"),
            (r"^md: (\S+) (.*)", self.md_line),
            (r"^stop (\d+): in the hardware trigger table \(order (\S+), (\d+) bytes\)", lambda m: f"offload: stop order {m.group(1)} in the hardware trigger table, its New Order Single {m.group(2)} prebuilt ({m.group(3)}-byte frame)"),
            (r"^stop (\d+): fired by (\w+) on trade (\S+): order (-?\d+ )?(\S+) sent(?:, not tracked \([^)]*\))?(?:, MsgSeqNum (\d+), (\d+) cycles)?", self.fire_line),
            (r"^exec: order (\d+) (\S+) (\w+) (\S+) fill (\d+) @ (\S+), (.*)", lambda m: self.count("fills", f"FILL: order {m.group(1)} ({m.group(2)}) {m.group(3)} {m.group(5)} {m.group(4)} @ {m.group(6)}: {m.group(7)}")),
            (r"^exec: order (\d+) (\S+) (\w+) (\S+) new ", lambda m: f"exchange: order {m.group(1)} ({m.group(2)}) accepted, resting"),
            (r"^fix: logging out", lambda m: "FIX: Logout sent"),
            (r"^fix: logged out", lambda m: "FIX: Logout answered"),
            (r"^fix: connection closed; stopped", lambda m: "TCP: connection closed (FIN both ways)"),
        ]
        for pat, fn in rules:
            m = re.match(pat, line)
            if m:
                text = fn(m)
                if text:
                    say(text)
                return

    def fire_line(self, m):
        self.fires.append((m.group(5), "hw" if m.group(2) == "hardware" else "fw"))
        how = (f"sent by the hardware, MsgSeqNum {m.group(6)}, {m.group(7)} cycles ({int(m.group(7)) * 8} ns) from the "
               f"trade price in the parser to the order at the MAC" if m.group(2) == "hardware" else "sent by the firmware")
        return self.count("fires", f"FIRE: stop {m.group(1)} on trade {m.group(3)}: New Order Single {m.group(5)} {how}")

    def count(self, key, text):
        self.events[key] += 1
        return text

    def md_line(self, m):
        self.events["md"] += 1
        trade = re.search(r"trade (\S+)", m.group(2))
        last = getattr(self, "last_trade", None)
        if trade and trade.group(1) != last:
            self.last_trade = trade.group(1)
            return f"market: {m.group(1)} trades at {trade.group(1)}  ({m.group(2)})"
        return None

    def wait_for(self, pattern, seconds, what, fatal=True):
        """Waits for a console line. The simulation runs about 100x slower than real time, and slower still on a
        loaded machine: every 30 s of waiting is reported, so a slow step shows as slow, not as hung. After
        `seconds` a fatal step ends the demo; a step the story can do without (fatal=False) is reported and
        the demo goes on."""
        start = time.monotonic()
        deadline = start + seconds
        next_note = start + 30
        rx = re.compile(pattern)
        for l in self.lines:
            if rx.search(l):
                return l
        while time.monotonic() < deadline:
            for l in self.new_lines():
                self.narrate(l)
                if rx.search(l):
                    return l
            if self.sim.poll() is not None:
                raise SystemExit(f"demo: the simulation ended while waiting for {what}; see {self.log_path}")
            if time.monotonic() > next_note:
                say(f"(still waiting for {what} after {time.monotonic() - start:.0f} s: the machine is slow; "
                    f"giving it up to {seconds:.0f} s)")
                next_note += 30
            time.sleep(0.05)
        if fatal:
            raise SystemExit(f"demo: no {what} within {seconds} s; see {self.log_path}")
        say(f"(no {what} within {seconds} s: the machine is slow; going on without it)")
        self.slow_steps.append(what)
        return None

    def pump(self, seconds):
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            for l in self.new_lines():
                self.narrate(l)
            time.sleep(0.05)

    def run(self):
        net = self.setup_network()
        self.start_exchange()
        self.start_soc(net)
        self.wait_for(r"^net: MAC", 300, "network start-up")
        self.pump(0.5)
        self.connect()
        utc = datetime.datetime.now(datetime.timezone.utc)
        say(f"tfctl: utc set {utc.strftime('%Y%m%d-%H:%M:%S.%f')[:-3]}  (the SoC has no clock of its own)")
        self.tf.set_utc(utc)
        self.tf.session.configure(heartbeat=5)
        for side, sym, qty, stop, limit in STOPS:
            self.narrate(self.tf.console(tfctl_arm_line(side, sym, qty, stop, limit))["msg"])
        self.console("fix watch on")
        self.console("fix start")
        self.wait_for(r"^fix: logged on", 300, "FIX logon")
        self.wait_for(r"^fix: subscribed", 120, "market data subscription")
        # the market: wait until both stops have fired and their orders are filled (or the path ends)
        deadline = time.monotonic() + self.args.timeout
        while time.monotonic() < deadline and (self.events["fills"] < len(STOPS)):
            self.pump(0.5)
        self.pump(1.0)
        self.console("fix watch off")
        self.tf.orders.list()
        self.console("fix stop")
        # the session is over once the Logout is answered; the close after it is part of the story, but on a slow
        # machine it may take long: reported, not fatal
        self.wait_for(r"^fix: connection closed; stopped", 180, "the TCP close after Logout", fatal=False)
        self.tf.status()
        self.pump(1.0)
        say("shutdown: simulation ended, exchange stopped" + (", namespace removed" if self.ns else ""))
        self.stop_all()

    def summary(self):
        sim_tail = open(self.log_path, errors="replace").read()
        speed = re.search(r"sim: exit code \d+ after (\d+) cycles \(([\d.]+) ms simulated\) in ([\d.]+) s \((\d+) cycles/s\)", sim_tail)
        wcost = re.search(r"W all cost .*?: (min \d+ / avg \d+ / max \d+ cycles over \d+)", sim_tail)
        res = None
        stops = os.path.join(self.out, "stops.json")
        with open(stops, "w") as f:
            json.dump([{"symbol": s, "side": side, "stop": stop} for side, s, _, stop, _ in STOPS], f)
        lat = os.path.join(ROOT, "tools/latency/analyze.py")
        j = os.path.join(self.out, "latency.json")
        png = os.path.join(self.out, "latency.png")
        fires = os.path.join(self.out, "fires.csv")
        with open(fires, "w") as f:
            f.write("clordid,path\n" + "".join(f"{c},{p}\n" for c, p in self.fires))
        r = subprocess.run([sys.executable, lat, "--pcap", self.pcap, "--frames", self.frames, "--stops", stops,
                            "--fires", fires, "--console", self.log_path, "--json", j, "--plot", png, "--quiet",
                            "--soc-header", os.path.join(ROOT, "build/hw/sim/soc.h")],
                           capture_output=True, text=True, cwd=ROOT)
        if r.returncode == 0:
            res = json.load(open(j))
        print("\n== What happened")
        rows = [("stop orders armed", str(len(STOPS))), ("stops fired", str(self.events["fires"])),
                ("fills", str(self.events["fills"])), ("35=W market data messages", str(self.events["md"]))]
        if wcost:
            rows.append(("firmware cost of one 35=W", wcost.group(1)))
        for path, name in (("hw", "hardware"), ("fw", "firmware")):
            if res and res.get(path, {}).get("eof2sof", {}).get("count"):
                for metric in ("t2t", "eof2sof", "sof2sof"):
                    d = res[path][metric]
                    rows.append((f"{metric.upper()} {name} path (cycles of 8 ns)",
                                 f"min {d['cycles']['min']} / median {d['cycles']['median']} / max {d['cycles']['max']} over {d['count']}"))
        if res:
            n = sum(res.get(p, {}).get("orders", 0) for p in ("hw", "fw"))
            bad = sum(res.get(p, {}).get("disagrees_with_fire_log", 0) for p in ("hw", "fw"))
            rows.append(("orders paired with their trigger", f"{n}, checked against the console's fire log: "
                         + ("all agree" if bad == 0 else f"{bad} DISAGREE (see {os.path.relpath(j, ROOT)})")))
        if r.returncode != 0:
            rows.append(("latency analysis", "failed: " + (r.stderr.strip().splitlines() or ["?"])[-1]))
        if self.slow_steps:
            rows.append(("slow steps passed over", "; ".join(self.slow_steps)))
        if speed:
            rows.append(("simulation", f"{int(speed.group(1)):,} cycles ({speed.group(2)} ms simulated) in {speed.group(3)} s wall"))
        w = max(len(a) for a, _ in rows)
        for a, b in rows:
            print(f"  {a:<{w}}  {b}")
        print("\n== Files")
        for what, p in (("pcap (simulated ns time stamps; Wireshark dissects FIX)", self.pcap), ("frame log", self.frames),
                        ("SoC console", self.log_path), ("exchange message log", os.path.join(self.exch_dir, "log/FIX.4.4-EXCH-TFISH1.messages.log")),
                        ("latency plot", png if os.path.exists(png) else None), ("latency JSON", j if res else None)):
            if p:
                print(f"  {what:<58} {os.path.relpath(p, ROOT)}")
        print("\nT2T: trade price's SOH on the RX pins -> TX_EN of the order; EOF2SOF: last FCS byte of the market data "
              "frame -> TX_EN; SOF2SOF: first preamble byte -> TX_EN (DESIGN.md). Measured on the simulation's pcap and "
              "frame log by tools/latency/analyze.py.")
        return self.events["fills"] >= len(STOPS)


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", default="build/demo")
    ap.add_argument("--path", default="tools/exchange/paths/demo.path")
    ap.add_argument("--timeout", type=float, default=240, help="seconds to wait for the stops to fire and fill")
    ap.add_argument("--slirp", action="store_true", help="use libslirp even as root")
    args = ap.parse_args()
    for p in (SIM, FW, JAR):
        if not os.path.exists(p):
            raise SystemExit(f"demo: {os.path.relpath(p, ROOT)} is missing: run `make demo` (it builds it)")
    print("== Triggerfish demo: a FIX session from the simulated SoC to the exchange simulator")
    d = Demo(args)
    ok = False
    try:
        d.run()
        ok = d.summary()
    finally:
        d.stop_all()
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
