#!/usr/bin/env python3
"""The soak: the whole SoC trades against the QuickFIX/J exchange through an impaired wire, with hardware and
firmware stops armed (repeating) and fired again and again, driven through tfctl (the machine protocol on the
console's TCP port, +uart-tcp=0). Run by sim/tests/test_soak.sh (a few minutes, `make test`) and by
tools/bench/bench.py (the long soak, `make bench`).

  1. The SoC on a TAP in a private network namespace (root; else libslirp) with the harness's impaired wire both
     ways: +impair-rx/+impair-tx (default 5 % loss, 1 % duplication, 10 % reordering, 0.1 % corruption with the
     FCS recomputed, so that the IP and TCP checksums must catch it), a fixed seed.
  2. The exchange with sim/tests/soak.path looping (a market that crosses every stop on each pass), its
     wall-clock checks relaxed as in accept_burst.sh (CheckLatency=N, heartbeat timers x1000): the SoC's clock runs
     in simulated time, far slower than the exchange's.
  3. tfctl: UTC, HeartBtInt, four one-shot stops (a buy and a sell in the hardware trigger table, a buy and a
     sell in firmware), fix start; then the market runs for --seconds of wall time, the events collected all
     along. A stop that fired is armed again (the same kind, a new arming) once a stop of the other side has
     fired: the market has come back, so its next fire needs a new crossing trade. (A repeating stop would fire
     again on every 35=W while the snapshot's last trade stays beyond it: orders without end.)
     An arming the firmware refuses because the order table has no entry left for the stop's order ("order table
     full": the entries of live orders and of armed stops) is counted and tried again every 10 s.
     --resting: the orders' limits are far from the market (buys at 99.00, sells at 101.00): every order rests in the
     book, working, so the firmware's order table (8 entries in the SoC build) fills, and armings are refused.
  4. At the end: the session must be active; `fix stop`; the simulation and the exchange are stopped.
Counted from the exchange's message log and stdout and from the SoC's events and harness statistics:
  - orders lost 0: every order the SoC reported sending (each stop.fired's ClOrdID) reached the exchange's book;
  - every fire tracked: each stop.fired names its order (a ClOrdID in the order table): no firmware stop spent
    without an order, no hardware order the order table did not take (untracked);
  - orders duplicated 0: each ClOrdID in one original 35=D (PossDup resends aside) and one ORDER line at the
    exchange; no order rejected as a duplicate;
  - no false fire: each fire's trade crosses its stop and is a price the exchange published, and each arming
    fired at most once (a duplicated or corrupted segment must not fire anything);
  - the session alive at the end; every reconnect follows a disconnection the exchange made (its Logout, or it
    closed the connection), each counted;
  - every MsgSeqNum gap recovered: both sides' numbers continuous over the exchange's log (sim/tests/seqnums.py:
    each number sent once, or covered by a GapFill / PossDup resend), ResendRequests and GapFills counted.
Prints the counts (frames impaired per kind and direction, orders, fires, resends, TCP retransmissions) and
writes them to --json. Exit 0 when every check holds, 1 otherwise, 77 when something it needs is missing.
"""
import argparse
import ctypes
import datetime
import json
import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import time
from decimal import Decimal

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
sys.path.insert(0, os.path.join(ROOT, "tools", "tfctl"))
sys.path.insert(0, os.path.join(ROOT, "sim", "tests"))
SIM = os.path.join(ROOT, os.environ.get("SIM_BIN", "build/sim/obj/VSoc"))
FW = os.path.join(ROOT, os.environ.get("FW", "build/fw/sim/firmware") + ".hex")
JAR = os.path.join(ROOT, os.environ.get("EXCHANGE_JAR", "out/exchange/assembly.dest/out.jar"))
KERNEL_IP = "10.77.0.1"
CLONE_NEWNET = 0x40000000
IMPAIR = "loss=0.05,dup=0.01,reorder=0.1,corrupt=0.001,corrupt-fcs=good"
# (mode, side, stop, limit): against soak.path, buys at 100.10 fire on the trades at 100.15 and above, sells at
# 99.60 on 99.55 and below; the firmware's at 100.05 / 99.65. Their limits cross the quotes that follow.
STOPS = [("hw", "buy", "100.10", "100.40"), ("hw", "sell", "99.60", "99.30"),
         ("fw", "buy", "100.05", "100.40"), ("fw", "sell", "99.65", "99.30")]
QTY = 100
RESTING_LIMIT = {"buy": "99.00", "sell": "101.00"}  # --resting: never filled by soak.path's quotes
REARM_RETRY_S = 10
T0 = time.monotonic()


def say(msg):
    print(f"  {time.monotonic() - T0:7.1f} s  {msg}", flush=True)


def fields(msg):
    out = {}
    for f in msg.split("\x01"):
        if "=" in f:
            k, v = f.split("=", 1)
            out.setdefault(k, v)
    return out


def utc_seconds(utc):
    """'YYYYMMDD-HH:MM:SS.sss' (the SoC's clock in its status) -> seconds since the epoch; 0 when unknown."""
    try:
        return datetime.datetime.strptime(utc, "%Y%m%d-%H:%M:%S.%f").replace(tzinfo=datetime.timezone.utc).timestamp()
    except ValueError:
        return 0.0


def all_fields(msg):
    return [tuple(f.split("=", 1)) for f in msg.split("\x01") if "=" in f]


class Soak:
    def __init__(self, a):
        self.a = a
        self.out = os.path.abspath(a.out)
        self.ns = None
        self.sim = self.exch = self.tf = None
        self.events = []
        self.problems = []
        self.fire_problems = []
        self.pending_arms = []
        self.refused_arms = 0  # armings refused: the order table had no entry left for the stop's order
        self.notes = []

    # ---- processes -----------------------------------------------------------------------------------
    def pre(self):
        return ["ip", "netns", "exec", self.ns] if self.ns else []

    def start(self):
        if os.path.exists(self.out):
            shutil.rmtree(self.out)
        os.makedirs(self.out)
        net = ["+slirp"]
        bind = "127.0.0.1"
        self.xport = 9876
        if os.geteuid() == 0 and not self.a.slirp:
            self.ns = f"tf-soak-{os.getpid()}"
            for cmd in (["ip", "netns", "add", self.ns], ["ip", "link", "set", "lo", "up"],
                        ["ip", "tuntap", "add", "dev", "tfsim0", "mode", "tap"],
                        ["ip", "addr", "add", f"{KERNEL_IP}/24", "dev", "tfsim0"], ["ip", "link", "set", "tfsim0", "up"]):
                subprocess.run(cmd if cmd[1] == "netns" else self.pre() + cmd, check=True)
            net = ["+tap=tfsim0"]
            bind = KERNEL_IP
        else:  # on the host's loopback (libslirp): a free port, so that other tests may run at the same time
            with socket.socket() as so:
                so.bind(("127.0.0.1", 0))
                self.xport = so.getsockname()[1]
        # the exchange, its wall-clock checks relaxed (the SoC's clock is simulated time)
        cfg = os.path.join(self.out, "exchange.cfg")
        text = open(os.path.join(ROOT, "tools/exchange/exchange.cfg")).read()
        if "CheckLatency=Y" not in text:
            raise SystemExit("soak: tools/exchange/exchange.cfg has no CheckLatency=Y line to relax")
        text = text.replace("CheckLatency=Y", "CheckLatency=N\nTestRequestDelayMultiplier=1000\nHeartBeatTimeoutMultiplier=1000")
        open(cfg, "w").write(text)
        self.exch_dir = os.path.join(self.out, "exchange")
        os.makedirs(self.exch_dir)
        self.exch_out = os.path.join(self.exch_dir, "stdout.log")
        self.exch = subprocess.Popen(self.pre() + ["java", "-jar", JAR, "--settings", cfg, "--bind", bind, "--port", str(self.xport),
                                                   "--log-dir", self.exch_dir, "--path", os.path.join(ROOT, "sim/tests/soak.path"),
                                                   "--loop", "--wait-subscriber"],
                                     stdout=open(self.exch_out, "w"), stderr=subprocess.STDOUT, cwd=ROOT)
        self.wait_text(self.exch_out, "EXCHANGE READY", 60, self.exch, "the exchange")
        self.msglog = os.path.join(self.exch_dir, "log", "FIX.4.4-EXCH-TFISH1.messages.log")
        # the SoC, through the impaired wire
        self.soc_log = os.path.join(self.out, "soc.log")
        self.ctl = os.path.join(self.out, "eth.ctl")
        self.port_file = os.path.join(self.out, "uart.port")
        spec_rx, spec_tx = self.a.impair_rx or self.a.impair, self.a.impair_tx or self.a.impair
        cmd = self.pre() + [SIM, f"+firmware={FW}", "+uart-tcp=0", f"+uart-tcp-port-file={self.port_file}",
                            f"+eth-ctl={self.ctl}", f"+impair-rx={spec_rx}", f"+impair-tx={spec_tx}",
                            f"+impair-seed={self.a.seed}", f"+timeout={self.a.timeout_cycles}"] + net
        if self.a.pcap:
            cmd += [f"+pcap={os.path.join(self.out, 'soc.pcap')}"]
        self.sim = subprocess.Popen(cmd, stdout=open(self.soc_log, "w"), stderr=subprocess.STDOUT, cwd=ROOT)
        say(f"SoC on {'a TAP in ' + self.ns if self.ns else 'libslirp'}; impaired wire to the SoC: {spec_rx}; "
            f"from the SoC: {spec_tx}; seed {self.a.seed}")
        self.wait_text(self.port_file, "", 120, self.sim, "the simulation's console port", nonempty=True)
        self.wait_text(self.soc_log, '"ev":"boot"', 300, self.sim, "the firmware's boot")
        self.connect()

    def wait_text(self, path, text, seconds, proc, what, nonempty=False):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            if os.path.exists(path):
                data = open(path, errors="replace").read()
                if (nonempty and data.strip()) or (text and text in data):
                    return
            if proc.poll() is not None:
                raise SystemExit(f"soak: {what}: the process ended (exit {proc.returncode}): "
                                 + (open(path, errors="replace").read()[-800:] if os.path.exists(path) else ""))
            time.sleep(0.1)
        raise SystemExit(f"soak: {what}: not ready within {seconds} s")

    def connect(self):
        from tfctl import Appliance
        url = f"socket://127.0.0.1:{int(open(self.port_file).read())}"
        status = lambda m: say(f"tfctl: {m}")  # noqa: E731
        if not self.ns:
            self.tf = Appliance(url, timeout=300, on_status=status)
            return
        libc = ctypes.CDLL(None, use_errno=True)
        home = os.open("/proc/self/ns/net", os.O_RDONLY)
        fd = os.open(f"/var/run/netns/{self.ns}", os.O_RDONLY)
        try:  # the harness listens on the namespace's loopback: enter it to connect, then come back
            if libc.setns(fd, CLONE_NEWNET) != 0:
                raise SystemExit(f"soak: cannot enter {self.ns}: {os.strerror(ctypes.get_errno())}")
            self.tf = Appliance(url, timeout=300, on_status=status)
        finally:
            libc.setns(home, CLONE_NEWNET)
            os.close(fd)
            os.close(home)

    def eth_ctl(self, line):
        fd = os.open(self.ctl, os.O_WRONLY | os.O_NONBLOCK)
        try:
            os.write(fd, (line + "\n").encode())
        finally:
            os.close(fd)

    def stop_all(self):
        if self.tf:
            self.tf.close()
            self.tf = None
        if self.sim and self.sim.poll() is None:
            try:
                self.eth_ctl("exit 0")
                self.sim.wait(timeout=30)
            except (OSError, subprocess.TimeoutExpired):
                self.sim.kill()
                self.sim.wait()
        if self.exch and self.exch.poll() is None:
            self.exch.send_signal(signal.SIGTERM)
            try:
                self.exch.wait(timeout=20)
            except subprocess.TimeoutExpired:
                self.exch.kill()
                self.exch.wait()
        if self.ns:
            subprocess.run(["ip", "netns", "del", self.ns], check=False)
            self.ns = None

    # ---- the run -------------------------------------------------------------------------------------
    def arm(self, st):
        mode, side, stop, limit = st
        if self.a.resting:
            limit = RESTING_LIMIT[side]
        self.tf.stops.mode(mode)
        return self.tf.stops.arm(side, "MSFT", QTY, stop, limit)

    def on_armed(self, d):
        """A stop.armed event: slot d["stop"] holds a new arming from here on in the event stream (slots of fired
        stops are reused, and a fire of the slot's previous arming may still be ahead in the queue: only the
        events' order says which arming a fire belongs to)."""
        st = ("hw" if d.get("hw") else "fw", d.get("side"), str(d.get("stop_px")), str(d.get("limit_px")))
        self.armings.append(st)
        self.stop_ids[d.get("stop")] = (st[0], st[1], Decimal(st[2]), len(self.armings) - 1)

    def on_fire(self, d):
        n = d.get("stop")
        if n not in self.stop_ids:
            self.fire_problems.append(f"stop {n} fired, but the soak never armed it")
            return
        mode, side, px, k = self.stop_ids[n]
        d["_arming"] = k
        d["_def"] = (mode, side, str(px))
        self.fired_armings[k] = self.fired_armings.get(k, 0) + 1
        if self.fired_armings[k] > 1:
            self.fire_problems.append(f"arming {k} (stop {n}, {mode} {side} {px}) fired {self.fired_armings[k]} times")
            return
        other = "sell" if side == "buy" else "buy"
        self.rearm[side].append(self.armings[k])
        for st in self.rearm[other]:  # the market came back: the other side's fired stops again
            if self.a.rearm:
                self.pending_arms.append(st)
        self.rearm[other] = []

    def take(self, seconds):
        """Collects events for up to `seconds` (less when one comes that ends the wait: returns it)."""
        for ev in self.tf.events(timeout=seconds):
            self.events.append(ev)
            if ev.name == "stop.armed":
                self.on_armed(ev.data)
            if ev.name == "stop.fired":
                self.on_fire(ev.data)
            if ev.name in ("stop.fired", "logon", "disconnected", "logout"):
                d = ev.data
                if ev.name == "stop.fired":
                    say(f"fire: stop {d.get('stop')} by {'hardware' if d.get('by_hw') else 'firmware'} on trade "
                        f"{d.get('trade')}: order {d.get('clordid')}")
                else:
                    say(f"{ev.name}: {json.dumps({k: v for k, v in d.items() if k != 'seq'})}")
            return ev
        return None

    def wait_event(self, name, seconds):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            ev = self.take(min(5, deadline - time.monotonic()))
            if ev is not None and ev.name == name:
                return ev
            if self.sim.poll() is not None:
                raise SystemExit(f"soak: the simulation ended while waiting for {name}")
        raise SystemExit(f"soak: no {name} event within {seconds} s")

    def run(self):
        tf = self.tf
        tf.status()
        tf.set_utc()
        tf.session.configure(heartbeat=self.a.heartbeat, port=self.xport)
        self.stop_ids = {}   # stop number -> the arming it holds now: (mode, side, stop price, arming number)
        self.armings = []    # (mode, side, stop, limit) of each arming, in order
        self.fired_armings = {}  # arming number -> fires
        self.rearm = {"buy": [], "sell": []}  # stops waiting for the market to come back
        for st in STOPS:
            self.arm(st)
        while self.take(1) is not None and len(self.armings) < len(STOPS):
            pass
        say(f"armed {len(STOPS)} stops: " + ", ".join(f"{n}: {m} {s} {p}" for n, (m, s, p, _) in self.stop_ids.items()))
        tf.session.start()
        self.wait_event("logon", 600)
        self.t_start = time.monotonic()
        st0 = tf.status()
        self.utc0 = st0.get("utc", "")
        say(f"logged on; trading for {self.a.seconds:g} s of wall time" +
            (f" or {self.a.soc_minutes:g} minutes of the SoC's clock, whichever comes first" if self.a.soc_minutes else ""))
        next_status = time.monotonic() + 30
        self.soc_elapsed = 0.0
        while time.monotonic() - self.t_start < self.a.seconds:
            if self.a.soc_minutes and self.soc_elapsed >= self.a.soc_minutes * 60:
                say(f"the SoC's clock has run {self.soc_elapsed:.0f} s: the soak's length")
                break
            self.take(1)
            waiting = []  # armings refused for want of an order table entry: tried again later
            while self.pending_arms:
                st = self.pending_arms.pop(0)
                if isinstance(st, tuple) and len(st) == 5:  # (..., time of the next try)
                    if time.monotonic() < st[4]:
                        waiting.append(st)
                        continue
                    st = st[:4]
                try:
                    n = self.arm(st)
                    say(f"armed again: stop {n}: {st[0]} {st[1]} {st[2]}")
                except Exception as e:  # noqa: BLE001 - reported; the soak goes on
                    if "order table full" in str(e):
                        self.refused_arms += 1
                        say(f"arming {st[0]} {st[1]} {st[2]} refused ({str(e).strip()}): again in {REARM_RETRY_S} s")
                        waiting.append(st + (time.monotonic() + REARM_RETRY_S,))
                    else:
                        self.problems.append(f"could not arm {st} again: {e}")
            self.pending_arms = waiting
            if self.sim.poll() is not None:
                self.problems.append(f"the simulation ended during the soak (exit {self.sim.returncode})")
                return
            if time.monotonic() > next_status:
                next_status += 30
                try:
                    st = tf.status()
                    self.soc_elapsed = utc_seconds(st.get("utc", "")) - utc_seconds(self.utc0)
                    say(f"status: session {st['session']}, out {st['next_out']}, in {st['next_in']}, md {st['md_msgs']}, "
                        f"execs {st['execs']}, utc {st['utc']}")
                except Exception as e:  # noqa: BLE001 - a slow answer is reported, the soak goes on
                    say(f"status: no answer ({e})")
        # the end: the session must be up; then the SoC logs out
        self.wall = time.monotonic() - self.t_start
        for _ in range(3):
            try:
                self.final = tf.status()
                break
            except Exception as e:  # noqa: BLE001
                say(f"final status: {e}")
                self.final = {}
        self.utc1 = self.final.get("utc", "")
        if self.final.get("session") != "active":
            self.problems.append(f"the session at the end: {self.final.get('session')} (client {self.final.get('client')})")
        try:
            self.eth_ctl("impair")
            self.eth_ctl("impair off")
            for row in tf.stops.list():  # nothing armed may fire during the logout
                if row.get("state") == "armed":
                    try:
                        tf.stops.disarm(row["stop"])
                    except Exception as e:  # noqa: BLE001 - it fired meanwhile: its event says so
                        say(f"stop {row['stop']}: {e}")
            self.take(5)
            tf.session.stop()
            self.wait_event("disconnected", 300)
        except SystemExit as e:
            self.problems.append(f"the end of the session: {e}")
        except Exception as e:  # noqa: BLE001
            self.problems.append(f"the end of the session: {e}")
        for _ in range(10):  # the last events (fires and fills just before the logout)
            if self.take(3) is None:
                break
        try:  # the network counters, typed: their lines go to the console's log
            tf.type("net")
            time.sleep(3)
        except Exception:  # noqa: BLE001
            pass

    # ---- the checks ----------------------------------------------------------------------------------
    def analyze(self):
        from seqnums import check as seq_check  # sim/tests/seqnums.py
        r = {"wall_s": round(getattr(self, "wall", 0), 1), "seed": self.a.seed,
             "impair_rx": self.a.impair_rx or self.a.impair, "impair_tx": self.a.impair_tx or self.a.impair}
        msgs = []
        if os.path.exists(self.msglog):
            for line in open(self.msglog, errors="replace"):
                i = line.find("8=FIX")
                if i >= 0:
                    msgs.append(line[i:].rstrip("\n"))
        soc = [m for m in msgs if fields(m).get("49") == "TFISH1"]
        exch = [m for m in msgs if fields(m).get("49") == "EXCH"]
        exch_out = open(self.exch_out, errors="replace").read().splitlines() if os.path.exists(self.exch_out) else []
        # orders
        fires = [e.data for e in self.events if e.name == "stop.fired"]
        sent_ids = [f.get("clordid") for f in fires if f.get("clordid")]
        untracked = sum(1 for f in fires if not f.get("clordid"))
        # (a hardware fire without a ClOrdID is on the wire but not in the order table; a firmware stop's fire without
        # one sent no order at all: fix_app_new_order found the order table full)
        untracked_hw = sum(1 for f in fires if not f.get("clordid") and f.get("by_hw"))
        d_orig = [fields(m).get("11") for m in soc if fields(m).get("35") == "D" and fields(m).get("43") != "Y"]
        d_resent = [fields(m).get("11") for m in soc if fields(m).get("35") == "D" and fields(m).get("43") == "Y"]
        book = [l for l in exch_out if l.startswith("ORDER ")]
        book_ids = []
        for l in book:
            m = re.search(r"TFISH1/(\S+)", l)
            if m:
                book_ids.append(m.group(1))
        dup_rejects = [m for m in exch if fields(m).get("35") == "8" and fields(m).get("103") == "6"]
        lost = sorted(set(sent_ids) - set(d_orig))
        not_in_book = sorted(set(sent_ids) - set(book_ids)) if book_ids or sent_ids else []
        dups = sorted({i for i in d_orig if d_orig.count(i) > 1} | {i for i in book_ids if book_ids.count(i) > 1})
        r["orders"] = {"fires": len(fires), "sent_by_soc": len(sent_ids) + untracked_hw, "untracked": untracked_hw,
                       "fw_fires_no_order": untracked - untracked_hw, "arms_refused_table_full": self.refused_arms,
                       "at_exchange": len(set(d_orig)), "in_book": len(set(book_ids)), "possdup_resends": len(d_resent),
                       "lost": len(lost), "duplicated": len(dups) + len(dup_rejects)}
        if untracked_hw:
            self.problems.append(f"{untracked_hw} hardware fire(s) sent but not entered in the order table: untracked")
        if untracked - untracked_hw:
            self.problems.append(f"{untracked - untracked_hw} firmware stop fire(s) sent no order: the stop was spent")
        if self.refused_arms:
            self.notes.append(f"{self.refused_arms} arming(s) refused, the order table full (live orders and armed "
                              "stops' entries): tried again later")
        if lost:
            self.problems.append(f"orders lost: {len(lost)} ClOrdID(s) the SoC sent never reached the exchange: {lost[:5]}")
        if book_ids and not_in_book:
            self.problems.append(f"orders not in the exchange's book: {not_in_book[:5]}")
        if dups or dup_rejects:
            self.problems.append(f"orders duplicated: {dups[:5]}, duplicate-ClOrdID rejects {len(dup_rejects)}")
        extra = sorted(set(d_orig) - set(sent_ids))
        r["orders"]["not_reported_by_soc"] = len(extra)
        if len(extra) > untracked:
            self.problems.append(f"{len(extra)} order(s) at the exchange the SoC never reported firing: {extra[:5]}")
        # fires: each crosses its stop; no stop fired more often than crossing trade prints reached it
        prints = []  # trade prices the exchange sent the SoC in 35=W (originals)
        for m in exch:
            f = fields(m)
            if f.get("35") != "W" or f.get("43") == "Y":
                continue
            af = all_fields(m)
            for k, (tag, v) in enumerate(af):
                if tag == "269" and v == "2":
                    for tag2, v2 in af[k + 1:]:
                        if tag2 == "270":
                            prints.append(Decimal(v2))
                            break
                        if tag2 == "269":
                            break
        false_fires = list(self.fire_problems)
        by = {"hw": 0, "fw": 0, "hw_stops_sent_by_fw": 0}
        for f in fires:
            if "_def" not in f:
                continue
            mode, side, px = f["_def"]
            px = Decimal(px)
            if f.get("by_hw"):
                by["hw"] += 1
            elif mode == "hw":
                by["hw_stops_sent_by_fw"] += 1  # triggered by the hardware while firmware held the engine
            else:
                by["fw"] += 1
            t = Decimal(str(f.get("trade", "0")))
            if not (t >= px if side == "buy" else t <= px):
                false_fires.append(f"stop {f.get('stop')} ({mode} {side} {px}) fired on trade {t}, which does not cross it")
            elif t not in prints:
                false_fires.append(f"stop {f.get('stop')} fired on trade {t}, a price the exchange never printed")
        r["fires"] = {"hw": by["hw"], "fw": by["fw"], "hw_stops_sent_by_fw": by["hw_stops_sent_by_fw"],
                      "false": len(false_fires), "armings": len(self.armings), "trade_prints": len(prints)}
        if false_fires:
            self.problems.append(f"false fires: {false_fires[:3]}")
        if by["hw"] == 0 or by["fw"] == 0:
            self.problems.append(f"the stops did not fire both ways (hardware {by['hw']}, firmware {by['fw']})")
        # the session: reconnects, and who ended each connection
        logons = [e for e in self.events if e.name == "logon"]
        discs = [e.data for e in self.events if e.name == "disconnected"]
        exch_logouts = [m for m in exch if fields(m).get("35") == "5"]
        soc_logouts = [m for m in soc if fields(m).get("35") == "5"]
        reconnects = max(0, len(logons) - 1)
        # a disconnection the exchange made: its Logout (not an answer to ours) or its closing the connection
        by_exchange = sum(1 for d in discs if d.get("reconnecting") and d.get("why") in ("closed", "reset by the peer"))
        r["session"] = {"logons": len(logons), "reconnects": reconnects, "disconnects": len(discs),
                        "disconnects_by_exchange": by_exchange, "exchange_logouts": len(exch_logouts),
                        "soc_logouts": len(soc_logouts), "active_at_end": self.final.get("session") == "active" if hasattr(self, "final") else False,
                        "why": [d.get("why") for d in discs]}
        started, pending_exch = [], False  # Logouts the SoC started (not answers to the exchange's)
        for m in msgs:
            f = fields(m)
            if f.get("35") != "5":
                continue
            if f.get("49") == "EXCH":
                pending_exch = True
            elif pending_exch:
                pending_exch = False
            else:
                started.append(f.get("58", ""))
        r["session"]["logouts_started_by_soc"] = len(started)
        if len(started) > 1:  # the final one is the only one it may start
            self.problems.append(f"the SoC started {len(started)} Logouts: it ended a session itself: {started[:3]}")
        if reconnects > by_exchange:
            self.problems.append(f"{reconnects} reconnect(s), only {by_exchange} after the exchange ended the connection: "
                                 f"{[d.get('why') for d in discs]}")
        # MsgSeqNums: each side's continuous (gaps recovered by ResendRequest / GapFill)
        r["resends"] = {"resend_requests_by_soc": sum(1 for m in soc if fields(m).get("35") == "2"),
                        "resend_requests_by_exchange": sum(1 for m in exch if fields(m).get("35") == "2"),
                        "gapfills_by_soc": sum(1 for m in soc if fields(m).get("35") == "4" and fields(m).get("123") == "Y"),
                        "gapfills_by_exchange": sum(1 for m in exch if fields(m).get("35") == "4" and fields(m).get("123") == "Y"),
                        "possdup_by_soc": sum(1 for m in soc if fields(m).get("43") == "Y"),
                        "possdup_by_exchange": sum(1 for m in exch if fields(m).get("43") == "Y")}
        for side, lst in (("TFISH1", soc), ("EXCH", exch)):
            ok, summary = seq_check(lst, side)
            r["resends"][f"seqnums_{side}"] = summary
            if not ok:
                self.problems.append(f"MsgSeqNums of {side}: {summary}")
        rejects = [m for m in msgs if fields(m).get("35") in ("3", "j")]
        r["session"]["rejects"] = len(rejects)
        if rejects:
            self.problems.append(f"{len(rejects)} session-level Reject(s): {rejects[0][:160].replace(chr(1), '|')}")
        # the wire: the harness's counts (the `impair` command's lines and the final statistics)
        log = open(self.soc_log, errors="replace").read()
        wire = {}
        for d, name in (("rx", "to SoC"), ("tx", "from SoC")):
            lines = re.findall(r"eth: impair %s \(%s\): (.*)" % (name, d), log)
            if lines:
                wire[d] = {k.replace(" ", "_"): int(v) for v, k in
                           [(m.group(2), m.group(1)) for m in re.finditer(r"(offered|lost|duplicated|reordered|held back|corrupted|delivered) (\d+)", lines[-1])]}
        r["wire"] = wire
        m = re.search(r"sim: exit code .* after (\d+) cycles \(([\d.]+) ms simulated\) in ([\d.]+) s", log)
        if m:
            r["sim"] = {"cycles": int(m.group(1)), "simulated_ms": float(m.group(2)), "wall_s": float(m.group(3))}
        r["soc_utc"] = [getattr(self, "utc0", ""), getattr(self, "utc1", "")]
        u0, u1 = utc_seconds(r["soc_utc"][0]), utc_seconds(r["soc_utc"][1])
        r["soc_clock_s"] = round(u1 - u0, 1) if u0 and u1 else None  # the SoC's own clock (its time base) while trading
        r["soc_clock_target_s"] = self.a.soc_minutes * 60 or None
        r["net"] = {k: int(v) for k, v in re.findall(r"^net: (\w+) +(\d+)\s*$", log, re.M)}
        r["mac"] = {k: int(v) for k, v in re.findall(r"(crc_errors|rx_drops_full|rx_frames|tx_frames) (\d+)", log)}
        if not wire.get("rx", {}).get("lost") or not wire.get("tx", {}).get("lost"):
            self.problems.append(f"the wire lost nothing in some direction: the soak did not test what it should ({wire})")
        r["problems"] = self.problems
        r["notes"] = self.notes
        return r


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--out", default="build/sim/tests/soak")
    ap.add_argument("--seconds", type=float, default=180, help="wall time of trading after the logon (at most)")
    ap.add_argument("--soc-minutes", type=float, default=0, help="stop when the SoC's own clock has run this long "
                    "(its time base, on which its FIX session runs: about 3 times slower than the wall clock here)")
    ap.add_argument("--seed", type=int, default=368, help="the wire's seed (368: both directions corrupt a frame early, the 56th to the SoC and the 25th from it, besides their losses)")
    ap.add_argument("--impair", default=IMPAIR, help="both directions (eth_impair.h keys)")
    ap.add_argument("--impair-rx", default="")
    ap.add_argument("--impair-tx", default="")
    ap.add_argument("--heartbeat", type=int, default=5, help="HeartBtInt of the SoC's session (its seconds)")
    ap.add_argument("--timeout-cycles", type=int, default=0, help="the harness's +timeout (0: none)")
    ap.add_argument("--pcap", action="store_true", help="also write the pins' pcap (large on a long soak)")
    ap.add_argument("--slirp", action="store_true", help="libslirp even as root")
    ap.add_argument("--json", default="")
    ap.add_argument("--no-rearm", dest="rearm", action="store_false", help="arm each stop once only")
    ap.add_argument("--resting", action="store_true", help="orders that rest in the book, working (limits buy 99.00, "
                    "sell 101.00): the order table fills")
    a = ap.parse_args()
    for p, what in ((SIM, "the Verilator model"), (FW, "the firmware"), (JAR, "the exchange jar")):
        if not os.path.exists(p):
            print(f"skip soak (no {what}: {os.path.relpath(p, ROOT)})")
            return 77
    if not shutil.which("java"):
        print("skip soak (no java)")
        return 77
    s = Soak(a)
    r = None
    try:
        s.start()
        s.run()
    except SystemExit as e:
        s.problems.append(str(e))
    finally:
        s.stop_all()
        r = s.analyze()
    if a.json:
        with open(a.json, "w") as f:
            json.dump(r, f, indent=1)
    o, fi, se, rs = r["orders"], r["fires"], r["session"], r["resends"]
    print(f"   | wire to the SoC:   {r['wire'].get('rx')}")
    print(f"   | wire from the SoC: {r['wire'].get('tx')}")
    print(f"   | orders: {o['sent_by_soc']} sent by the SoC, {o['at_exchange']} at the exchange, {o['in_book']} in its book, "
          f"lost {o['lost']}, duplicated {o['duplicated']}, PossDup resends {o['possdup_resends']}; untracked "
          f"{o['untracked']}, firmware fires without an order {o['fw_fires_no_order']}, armings refused (order table "
          f"full) {o['arms_refused_table_full']}")
    print(f"   | fires: {fi['hw']} by hardware, {fi['fw']} by firmware stops, {fi['hw_stops_sent_by_fw']} hardware stops sent by "
          f"firmware (engine locked); false {fi['false']} ({fi['armings']} armings, {fi['trade_prints']} trade entries in 35=W)")
    print(f"   | session: {se['logons']} logon(s), {se['reconnects']} reconnect(s) ({se['disconnects_by_exchange']} after the "
          f"exchange ended it), {se['rejects']} Reject(s), active at the end: {se['active_at_end']}")
    print(f"   | resends: ResendRequests SoC {rs['resend_requests_by_soc']} / exchange {rs['resend_requests_by_exchange']}, "
          f"GapFills SoC {rs['gapfills_by_soc']} / exchange {rs['gapfills_by_exchange']}, PossDup SoC {rs['possdup_by_soc']} / "
          f"exchange {rs['possdup_by_exchange']}; {rs.get('seqnums_TFISH1')}; {rs.get('seqnums_EXCH')}")
    if r.get("sim"):
        print(f"   | simulated {r['sim']['simulated_ms']:.1f} ms at 125 MHz ({r['sim']['cycles']} cycles) in {r['sim']['wall_s']:.0f} s "
              f"of wall time; the SoC's clock ran {r['soc_clock_s']} s while trading ({r['soc_utc'][0]} .. {r['soc_utc'][1]})")
    net = r.get("net", {})
    print(f"   | SoC's TCP: {net.get('tcp_retransmit', 0)} retransmissions on timeout, {net.get('tcp_fast_retransmit', 0)} fast; "
          f"MAC: {r.get('mac', {})}; counters {net}")
    for n in r["notes"]:
        print(f"   | note: {n}")
    for p in r["problems"]:
        print(f"   | FAILED CHECK: {p}")
    return 1 if r["problems"] else 0


if __name__ == "__main__":
    sys.exit(main())
