"""The whole-SoC tests' start-up and plumbing, shared by the Python tests in sim/tests (test_*.py, run by run.sh).

The SoC (the Verilator model and the firmware) is driven through tfctl, the console UART's machine protocol
(docs/PROTOCOL.md), which the harness serves on a free TCP port (+uart-tcp=0): typed replies and a stream of events
with sequence numbers, not text typed into a FIFO and grepped back. Every event the test receives is kept in order
(Rig.events) and written to build/sim/tests/NAME.events.jsonl (one JSON object per event, as `tfctl watch --json`
prints them); Rig.wait() finds one in that history or waits for it. The human console still goes to the log
(build/sim/tests/NAME.log), which a failure shows.

    rig = Rig("offload", root=True)            # prints "skip offload (...)" and exits 77 without root
    with rig:
        rig.netns()                            # a private namespace with a TAP (this process enters it)
        rig.start_exchange("--path", "sim/tests/offload.path", "--loop", "--wait-subscriber")
        rig.start_soc("+eth-frame-log=...")    # boots it, connects tfctl, waits until the firmware answers
        rig.console("fix start")
        rig.wait("logon", 60, "the logon")
        ...
        rig.ok("offload (...)")

A check that fails calls rig.fail(why): "FAIL NAME: why", the console's and the exchange's last lines, everything
stopped, exit 1. SIGTERM (run.sh's wall-clock limit) stops everything too and says what the test was doing.
"""
import ctypes
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "tools" / "tfctl"))  # this checkout's tfctl
from tfctl import Appliance, ApplianceError, ConnectionLost  # noqa: E402

OUT = ROOT / "build" / "sim" / "tests"
SIM = ROOT / os.environ.get("SIM_BIN", "build/sim/obj/VSoc")
FW = ROOT / (os.environ.get("FW", "build/fw/sim/firmware") + ".hex")
FW_ELF = ROOT / (os.environ.get("FW", "build/fw/sim/firmware") + ".elf")
# More plusargs for every SoC a test starts, for measurement (SIM_ARGS="+pc-hist=build/sim/w.pc"; sim/main.cpp).
SIM_ARGS = os.environ.get("SIM_ARGS", "").split()
EXCHANGE_JAR = ROOT / os.environ.get("EXCHANGE_JAR", "out/exchange/assembly.dest/out.jar")
VENV_PY = Path(os.environ.get("TRIGGERFISH_VENV", Path.home() / ".cache/triggerfish/venv")) / "bin" / "python"
PY = str(VENV_PY) if VENV_PY.exists() else sys.executable
KIP, SOC_IP, SOC_MAC = "10.77.0.1", "10.77.0.2", "02:54:46:00:00:02"
CLONE_NEWNET = 0x40000000


class Failed(Exception):
    pass


def fix_msgs(path):
    """The messages of a QuickFIX message log, one per line, SOH shown as '|'."""
    with open(path, "rb") as f:
        return f.read().replace(b"\x01", b"|").decode("ascii", errors="replace").splitlines()


def last_md(msgs, symbol, sender="EXCH"):
    """What `md` must show for symbol after msgs (exchange_msgs: the exchange's log): the number of 35=W the sender sent
    for it, and the last one's first bid, offer and trade price (269 = 0, 1, 2; the exchange lists the best level
    first), as Decimals, None where it has none. Firmware's `md` and the hardware's top of book keep the same."""
    from decimal import Decimal
    ws = [m for m in msgs if "|35=W|" in m and f"|49={sender}|" in m and f"|55={symbol}|" in m]
    px = [None, None, None]
    kind = -1  # (269 = 0, 1, 2; -1: none, or another type)
    for field in (ws[-1].split("|") if ws else []):
        tag, _, v = field.partition("=")
        if tag == "269":
            kind = "012".find(v) if len(v) == 1 else -1
        elif tag == "270" and kind >= 0 and px[kind] is None:
            px[kind] = Decimal(v)
    return len(ws), px


def md_row(tf, symbol):
    """`md`'s row for symbol (tfctl's md()), or None."""
    return next((m for m in tf.md() if m["sym"] == symbol), None)


def md_problem(row, msgs, symbol, src):
    """None, or what is wrong with an `md` row (tfctl's md()) for symbol against the exchange's log (last_md), the row
    from `src` ("hw": the hardware's top of book, "fw": firmware's)."""
    from decimal import Decimal
    n, px = last_md(msgs, symbol)
    if row is None:
        return f"`md` has no row for {symbol}"
    got = (row.get("src"), row["updates"], [Decimal(row[k]) for k in ("bid", "offer", "trade")])
    want = (src, n, [p if p is not None else Decimal(0) for p in px])
    return None if got == want else f"`md` for {symbol}: (source, updates, bid/offer/trade) {got}, the exchange's log says {want}"


def seq_check(path, sender):
    """(ok, text) of sim/tests/seqnums.py: the sender's MsgSeqNums in a QuickFIX message log without a gap."""
    r = subprocess.run([sys.executable, str(ROOT / "sim/tests/seqnums.py"), str(path), sender], capture_output=True, text=True)
    return r.returncode == 0, (r.stdout + r.stderr).strip()


class Rig:
    def __init__(self, name, root=False):
        self.name = name
        if root and os.geteuid() != 0:
            print(f"skip {name} (needs root for a network namespace)")
            sys.exit(77)
        OUT.mkdir(parents=True, exist_ok=True)
        self.step = "starting"
        self.tf = self.sim = self.exch = self.ns = None
        self.events = []
        self.log = OUT / f"{name}.log"
        self.pcap = OUT / f"{name}.pcap"
        self.ctl_path = OUT / f"{name}.ethctl"
        self.exch_dir = OUT / f"{name}-exchange"
        self.exch_out = self.exch_dir / "stdout.log"
        self.exch_msglog = self.exch_dir / "log" / "FIX.4.4-EXCH-TFISH1.messages.log"
        self.exch_ready_seen = 0
        shutil.rmtree(self.exch_dir, ignore_errors=True)  # an earlier run's logs would answer this one's checks
        self._ev_file = open(OUT / f"{name}.events.jsonl", "w")
        signal.signal(signal.SIGTERM, self._sigterm)

    # ---- life cycle ------------------------------------------------------------------------------------
    def __enter__(self):
        return self

    def __exit__(self, typ, exc, tb):
        if typ is Failed:
            self._report(str(exc))
        elif typ is not None and typ not in (SystemExit, KeyboardInterrupt):
            self._report(f"{typ.__name__}: {exc} (while {self.step})")
        self.close()
        if typ is not None and typ is not SystemExit:
            sys.exit(1)
        return False

    def _sigterm(self, *_):
        print(f"stopped by SIGTERM (the wall-clock limit?) while: {self.step}", flush=True)
        self.close()
        os._exit(143)

    def fail(self, why):
        raise Failed(why)

    def check(self, cond, why):
        if not cond:
            self.fail(why)

    def _report(self, why):
        print(f"FAIL {self.name}: {why}")
        if self.log.exists():
            lines = [l for l in self.log.read_text(errors="replace").splitlines() if not l.startswith("md:")]
            print(f"---- console ({self.log.relative_to(ROOT)}):")
            for l in lines[-30:]:
                print("  | " + l)
        if self.exch and self.exch_out.exists():
            print(f"---- exchange ({self.exch_out.relative_to(ROOT)}):")
            for l in self.exch_out.read_text(errors="replace").splitlines()[-10:]:
                print("  | " + l)
        sys.stdout.flush()

    def ok(self, text):
        print(f"ok {text}", flush=True)

    def close(self):
        if self.tf:
            self.tf.close()
            self.tf = None
        self.stop_soc()
        self.stop_exchange()
        if self.ns:
            subprocess.run(["ip", "netns", "del", self.ns], check=False)
            self.ns = None
        self._ev_file.flush()

    # ---- network namespace -----------------------------------------------------------------------------
    def netns(self):
        """A namespace tf-NAME-<pid> with a TAP tfsim0 (10.77.0.1/24 on the kernel's side), which this process
        enters: the exchange, the simulation, tfctl's connection to the console and the kernel's tools all run
        there. Returns the SoC's plusarg for the TAP."""
        self.ns = f"tf-{self.name}-{os.getpid()}"
        for cmd in (["ip", "netns", "add", self.ns], ["ip", "netns", "exec", self.ns, "ip", "link", "set", "lo", "up"],
                    ["ip", "netns", "exec", self.ns, "ip", "tuntap", "add", "dev", "tfsim0", "mode", "tap"],
                    ["ip", "netns", "exec", self.ns, "ip", "addr", "add", f"{KIP}/24", "dev", "tfsim0"],
                    ["ip", "netns", "exec", self.ns, "ip", "link", "set", "tfsim0", "up"]):
            r = subprocess.run(cmd, capture_output=True, text=True)
            if r.returncode:
                self.fail(f"{' '.join(cmd)}: {r.stderr.strip()}")
        libc = ctypes.CDLL(None, use_errno=True)
        fd = os.open(f"/var/run/netns/{self.ns}", os.O_RDONLY)
        try:
            if libc.setns(fd, CLONE_NEWNET) != 0:
                self.fail(f"cannot enter the namespace {self.ns}: {os.strerror(ctypes.get_errno())}")
        finally:
            os.close(fd)
        return ["+tap=tfsim0"]

    def kernel_mac(self):
        """The MAC of the kernel's end of the TAP (netlink: /sys still shows the namespace this process came from)."""
        out = json.loads(subprocess.run(["ip", "-j", "link", "show", "tfsim0"], capture_output=True, text=True).stdout)
        return out[0]["address"]

    # ---- the SoC -----------------------------------------------------------------------------------------
    def start_soc(self, *plusargs, cycles=400000000, boot_s=120):
        """Boots the SoC with the console on a free TCP port, connects tfctl, and returns once the firmware
        answers a status request (what is sent before its UART is up is lost: asked again every 2 s). The network
        is the plusargs' (netns()'s TAP, +slirp, or none: only what the control channel injects)."""
        self.step = "starting the SoC"
        for p in (self.ctl_path, OUT / f"{self.name}.uart-port"):
            if p.exists():
                p.unlink()
        port_file = OUT / f"{self.name}.uart-port"
        net = list(plusargs)
        self._sim_log = open(self.log, "w")
        self.sim = subprocess.Popen([str(SIM), f"+firmware={FW}", f"+pcap={self.pcap}", f"+eth-ctl={self.ctl_path}",
                                     "+uart-tcp=0", f"+uart-tcp-port-file={port_file}", f"+timeout={cycles}"] + net + SIM_ARGS,
                                    stdout=self._sim_log, stderr=subprocess.STDOUT, cwd=ROOT)
        deadline = time.monotonic() + 60
        while not (port_file.exists() and port_file.read_text().strip()):
            if self.sim.poll() is not None:
                self.fail(f"the simulation ended during start-up (exit {self.sim.returncode})")
            if time.monotonic() > deadline:
                self.fail("the simulation did not open its console port in 60 s")
            time.sleep(0.1)
        self.url = f"socket://127.0.0.1:{int(port_file.read_text())}"
        self.tf = Appliance(self.url, timeout=60, on_status=lambda m: print(f"   | tfctl: {m}", flush=True))
        self.step = "waiting for the firmware to answer on its console"
        deadline = time.monotonic() + boot_s
        while True:
            try:
                self.status = self.tf.request("status", _timeout=2)
                break
            except (TimeoutError, ConnectionLost, ApplianceError):
                pass  # lost, or cut by the UART's start (an error without an id): ask again
            if self.sim.poll() is not None:
                self.fail(f"the simulation ended during boot (exit {self.sim.returncode})")
            if time.monotonic() > deadline:
                self.fail(f"the firmware did not answer a status request within {boot_s} s")
        if self.tf.last_seq is None:
            self.tf.last_seq = self.status["seq"]  # tfctl connected after the boot event: count from here
        self.pump()  # the boot event, when tfctl connected before the firmware started
        self.boots = self.tf.boots
        self.tf.gaps.clear()
        return self.tf

    def stop_soc(self):
        if self.sim and self.sim.poll() is None:
            try:
                self.ctl("exit 0", seconds=2)
                self.sim.wait(timeout=5)
            except (Failed, OSError, subprocess.TimeoutExpired):
                self.sim.terminate()
                try:
                    self.sim.wait(timeout=10)
                except subprocess.TimeoutExpired:
                    self.sim.kill()
                    self.sim.wait()

    def ctl(self, text, seconds=10):
        """Lines to the harness's Ethernet control channel (a FIFO): never blocks on a simulation that died."""
        deadline = time.monotonic() + seconds
        while True:
            try:
                fd = os.open(self.ctl_path, os.O_WRONLY | os.O_NONBLOCK)
                break
            except OSError as e:
                if self.sim.poll() is not None or time.monotonic() > deadline:
                    self.fail(f"the harness's control channel did not take {text.splitlines()[0]!r} ({e.strerror})")
                time.sleep(0.05)
        try:
            os.set_blocking(fd, True)
            os.write(fd, (text.rstrip("\n") + "\n").encode())
        finally:
            os.close(fd)

    def sim_log(self):
        """The simulation's output: the harness's own lines (sim:, eth:) and the human console."""
        return self.log.read_text(errors="replace")

    # ---- the console: requests and events ----------------------------------------------------------------
    def console(self, line, timeout=60):
        """A console command through the machine protocol; fails the test when the firmware refuses it."""
        self.step = f"running '{line}'"
        try:
            return self.tf.request("console", _timeout=timeout, line=line)
        except (ApplianceError, TimeoutError, ConnectionLost) as e:
            self.fail(f"'{line}': {e}")

    def counters(self, what):
        self.step = f"reading the {what} counters"
        try:
            groups = self.tf.counters(what)
        except (ApplianceError, TimeoutError, ConnectionLost) as e:
            self.fail(f"counters {what}: {e}")
        self.pump()
        return groups

    def pump(self, block=0.0):
        """Moves the events tfctl received into the history; waits up to `block` seconds for the first."""
        got = False
        if self.tf is None:  # closed: the history is complete
            return got
        for ev in self.tf.events(timeout=block if block > 0 else 0.001):
            self.events.append(ev)
            self._ev_file.write(json.dumps({"ev": ev.name, "seq": ev.seq, **ev.data}) + "\n")
            got = True
            block = 0
        self._ev_file.flush()
        return got

    def find(self, name, where=None, since=0):
        """The events called `name` (matching `where`, a function of the event) with seq > since, in order."""
        self.pump()
        return [e for e in self.events if e.name == name and e.seq > since and (where is None or where(e))]

    def wait(self, name, timeout, what, where=None, since=0, fatal=True):
        """The first event `name` matching `where` with seq > since, received already or within `timeout` s."""
        self.step = f"waiting up to {timeout} s for {what} (event {name})"
        deadline = time.monotonic() + timeout
        while True:
            found = self.find(name, where, since)
            if found:
                return found[0]
            if self.sim.poll() is not None:
                self.fail(f"the simulation ended (exit {self.sim.returncode}) while waiting for {what}")
            if time.monotonic() > deadline:
                if fatal:
                    self.fail(f"no {what} within {timeout} s")
                return None
            self.pump(block=min(0.5, max(0.01, deadline - time.monotonic())))

    def hw_latency(self, frames, stops, fires, bad_tcp_ok=False):
        """The hardware orders' latency from the capture (tools/latency/analyze.py: the pcap, the harness's frame log
        `frames`, the stops as armed: [{symbol, side, stop[, armed_after]}], the fired orders' ClOrdIDs, this run's
        events), after close(). Fails the test when analyze.py does or a capture frame has a bad TCP checksum (unless
        bad_tcp_ok: a test that corrupted one on purpose).
        Returns (its JSON's "hw" summary, its hardware orders with a T2T, its printed text)."""
        stops_json, fires_csv = OUT / f"{self.name}.stops.json", OUT / f"{self.name}.fires.csv"
        lat = OUT / f"{self.name}.latency.json"
        stops_json.write_text(json.dumps(stops))
        fires_csv.write_text("".join(f"{c},hw\n" for c in fires))
        r = subprocess.run([PY, str(ROOT / "tools/latency/analyze.py"), "--pcap", str(self.pcap), "--frames", str(frames),
                            "--stops", str(stops_json), "--fires", str(fires_csv), "--events",
                            str(OUT / f"{self.name}.events.jsonl"), "--json", str(lat), "--quiet", "--drop-bad-checksums",
                            "--soc-header", str(ROOT / "build/hw/sim/soc.h")], capture_output=True, text=True)
        (OUT / f"{self.name}.latency.txt").write_text(r.stdout + r.stderr)
        self.check(r.returncode == 0, f"analyze.py failed: {(r.stdout + r.stderr).strip().splitlines()[-3:]}")
        self.check(bad_tcp_ok or "bad TCP checksum" not in r.stdout + r.stderr, "the capture has frames with a bad TCP checksum")
        doc = json.loads(lat.read_text())
        return doc["hw"], [o for o in doc["orders"] if o["path"] == "hw" and o.get("t2t_cycles") is not None], r.stdout

    def last_seq(self):
        self.pump()
        return self.events[-1].seq if self.events else self.tf.last_seq or 0

    def check_events_complete(self):
        """No event missed over the run (tfctl checks every sequence number) and no reboot."""
        self.pump()
        self.check(self.tf.gaps == [], f"events missed (sequence numbers skipped): {self.tf.gaps}")
        self.check(self.tf.boots == self.boots, "the firmware restarted (a boot event) during the test")

    # ---- the exchange simulator (tools/exchange, QuickFIX/J) ---------------------------------------------
    def start_exchange(self, *args, settings="tools/exchange/exchange.cfg", port=9876):
        """Starts it (on 10.77.0.1 inside the namespace, else on 127.0.0.1) with its logs in
        build/sim/tests/NAME-exchange/, and waits for its ready line (a restart waits for the next one)."""
        self.step = "starting the exchange"
        if not EXCHANGE_JAR.exists():
            self.fail(f"no exchange jar ({EXCHANGE_JAR.relative_to(ROOT)}): make {EXCHANGE_JAR.relative_to(ROOT)}")
        self.exch_dir.mkdir(parents=True, exist_ok=True)
        out = open(self.exch_out, "a")
        self.exch = subprocess.Popen(["java", "-jar", str(EXCHANGE_JAR), "--settings", settings, "--bind",
                                      KIP if self.ns else "127.0.0.1", "--port", str(port), "--log-dir", str(self.exch_dir)]
                                     + list(args), stdout=out, stderr=subprocess.STDOUT, cwd=ROOT)
        deadline = time.monotonic() + 60
        while self.exch_out.read_text(errors="replace").count("EXCHANGE READY") <= self.exch_ready_seen:
            if self.exch.poll() is not None:
                self.fail("the exchange ended during start-up: " + self.exch_out.read_text(errors="replace")[-500:])
            if time.monotonic() > deadline:
                self.fail("the exchange did not start in 60 s")
            time.sleep(0.1)
        self.exch_ready_seen += 1

    def stop_exchange(self):
        """SIGTERM: the exchange logs its sessions out first."""
        if self.exch and self.exch.poll() is None:
            self.exch.terminate()
            try:
                self.exch.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.exch.kill()
                self.exch.wait()

    def kill_exchange(self):
        """SIGKILL: a crash (no Logout; the kernel closes the connection)."""
        if self.exch and self.exch.poll() is None:
            self.exch.kill()
            self.exch.wait()

    def exchange_msgs(self):
        return fix_msgs(self.exch_msglog) if self.exch_msglog.exists() else []

    def check_exchange_log(self):
        """The exchange's message log against the SoC's session: no Reject (35=3 or 35=j) sent to the SoC, no
        ResendRequest to it, the SoC's MsgSeqNums without a gap. Fails the test otherwise; returns the messages."""
        msgs = self.exchange_msgs()
        rej = [m for m in msgs if re.search(r"\|35=(3|j)\|.*\|49=EXCH\|", m)]
        self.check(not rej, f"exchange log: {len(rej)} Reject(s) sent to the SoC: {rej[:2]}")
        resends = sum(1 for m in msgs if "|35=2|" in m and "|49=EXCH|" in m)
        self.check(resends == 0, f"exchange log: {resends} ResendRequest(s) to the SoC")
        ok, seqtext = seq_check(self.exch_msglog, "TFISH1")
        self.check(ok, f"exchange log: the SoC's MsgSeqNums are not continuous: {seqtext}")
        return msgs

    def session_log_problems(self, msgs):
        """What the exchange's message log (msgs: exchange_msgs) says against a session that ended cleanly: a gap in
        either side's MsgSeqNums (sim/tests/seqnums.py), or a Logout other than the SoC's final one and its answer.
        A list of texts, empty when there is none."""
        out = []
        for side in ("TFISH1", "EXCH"):
            ok, text = seq_check(self.exch_msglog, side)
            if not ok:
                out.append(f"exchange log: {side}'s MsgSeqNums: {text}")
        lo = [re.search(r"\|49=([A-Z0-9]*)\|", m).group(1) for m in msgs if "|35=5|" in m]
        if lo != ["TFISH1", "EXCH"]:
            why = [re.search(r"\|58=([^|]*)\|", m) for m in msgs if "|35=5|" in m and "|49=EXCH|" in m]
            out.append(f"exchange log: Logouts {lo} (want only the SoC's final one, then the answer): "
                       f"{why[0].group(1) if why and why[0] else ''}")
        return out

    def sim_time_exchange_cfg(self):
        """The exchange's settings (in its log folder) for a SoC whose clock runs in simulated time, 100 to 1,000 times
        slower than the exchange's wall clock: QuickFIX/J's SendingTime check off and its heartbeat timers 1,000 times
        longer, so that the simulator's speed, not the SoC, would otherwise end the session. Returns the file."""
        self.exch_dir.mkdir(parents=True, exist_ok=True)
        cfg = self.exch_dir / "exchange.cfg"
        base = (ROOT / "tools/exchange/exchange.cfg").read_text()
        cfg.write_text(re.sub(r"(?m)^CheckLatency=Y$", "CheckLatency=N\nTestRequestDelayMultiplier=1000\nHeartBeatTimeoutMultiplier=1000", base))
        self.check("HeartBeatTimeoutMultiplier=1000" in cfg.read_text(), f"could not set the simulation's timers in {cfg}")
        return cfg

    def control_fifo(self):
        """A new FIFO for the exchange's --control (tools/exchange/README.md); exch_ctl writes commands to it."""
        self.exch_dir.mkdir(parents=True, exist_ok=True)
        self.exch_fifo = self.exch_dir / "control.fifo"
        if self.exch_fifo.exists():
            self.exch_fifo.unlink()
        os.mkfifo(self.exch_fifo)
        return self.exch_fifo

    def exch_ctl(self, line):
        """One command line to the running exchange's control FIFO (control_fifo)."""
        deadline = time.monotonic() + 10
        while True:
            try:
                fd = os.open(self.exch_fifo, os.O_WRONLY | os.O_NONBLOCK)
                break
            except OSError:
                if time.monotonic() > deadline:
                    self.fail("the exchange did not read its control FIFO")
                time.sleep(0.05)
        os.set_blocking(fd, True)
        os.write(fd, (line + "\n").encode())
        os.close(fd)


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]
