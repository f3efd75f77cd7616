#!/usr/bin/env python3
"""Triggerfish benchmark: the Linux software baseline (the 2018 paper's "QuickFIX on a Linux PC").

A QuickFIX/J stop-order client (tools/bench/baseline) on the Linux kernel's TCP trades against the exchange
simulator (tools/exchange). Each sits in its own network namespace, joined by a veth pair. tcpdump
captures on the exchange's end of that pair with nanosecond time stamps. For every New Order Single
(35=D) the client sent, the latency is the capture time of the 35=D minus the capture time of the
35=W that triggered it. This is how the paper timed its client with Wireshark on the server.

    linux_baseline.py [--fires 1000] [--warmup 20000] [--step-ms MS] [--out DIR] [--json FILE]   (root)
    linux_baseline.py --analyze PCAP [--stops LIST] [--port 9876] [--warmup N]                (any user)

Exit status: 0 OK; 1 when the run fails (the exchange does not start, the client fails, too few fires,
or a D without a trigger); 2 for usage or input errors. Standard library only. The pcap, TCP and FIX
parsing is tools/latency/analyze.py's. See tools/bench/README.md.
"""
import argparse
import bisect
import csv
import json
import os
import platform
import shutil
import signal
import statistics
import subprocess
import sys
import time
from decimal import Decimal, InvalidOperation

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.join(ROOT, "tools", "latency"))
import analyze  # noqa: E402  (tools/latency/analyze.py: pcap reader, TCP reassembly, FIX parser)

DEFAULT_STOPS = "buy:MSFT:1170.50:10:1171.50,sell:MSFT:1169.50:10:1168.50"
DEFAULT_PATH = os.path.join(HERE, "paths", "swing.path")
EXCHANGE_JAR = os.path.join(ROOT, "out", "exchange", "assembly.dest", "out.jar")
CLIENT_JAR = os.path.join(ROOT, "out", "baseline", "assembly.dest", "out.jar")
EXCHANGE_CFG = os.path.join(ROOT, "tools", "exchange", "exchange.cfg")
EXCH_IP, CLIENT_IP, PREFIX_LEN = "10.79.0.1", "10.79.0.2", 24
EXCH_IF, CLIENT_IF = "tfbx0", "tfbc0"
PAPER_US = {"fpga_server_side": 148, "software_server_side": 684}


class BaselineError(Exception):
    """The run failed: printed as one message, exit status 1."""


class InputError(Exception):
    """Bad arguments or input files: exit status 2."""


# ---------------------------------------------------------------------------------------------
# stops (the client's --stops syntax: side:symbol:stop:qty:limit, armed one at a time, round robin)

def parse_stops(text):
    stops = []
    for item in (s.strip() for s in text.split(",")):
        if not item:
            continue
        t = item.split(":")
        if len(t) != 5:
            raise InputError(f"stop {item!r}: expected side:symbol:stop:qty:limit")
        side = {"buy": "buy", "b": "buy", "1": "buy", "sell": "sell", "s": "sell", "2": "sell"}.get(t[0].lower())
        if side is None:
            raise InputError(f"stop {item!r}: side must be buy or sell")
        try:
            stop = Decimal(t[2])
        except InvalidOperation:
            raise InputError(f"stop {item!r}: bad stop price {t[2]!r}")
        stops.append({"symbol": t[1], "side": side, "stop": stop, "text": item})
    if not stops:
        raise InputError("no stops")
    return stops


def crosses(stop, price):
    if price is None:
        return False
    return price >= stop["stop"] if stop["side"] == "buy" else price <= stop["stop"]


# ---------------------------------------------------------------------------------------------
# the capture: W and D messages with their capture times

class Md:
    """A 35=W from the exchange: capture time of the frame that completes it, symbol, trade prices."""
    __slots__ = ("ts", "frame", "symbol", "trades", "seqnum")

    def __init__(self, ts, frame, symbol, trades, seqnum):
        self.ts, self.frame, self.symbol, self.trades, self.seqnum = ts, frame, symbol, trades, seqnum


class Order:
    """A 35=D from the client: capture time of the frame that carries its first byte."""
    __slots__ = ("ts", "frame", "clordid", "side", "symbol", "seqnum")

    def __init__(self, ts, frame, clordid, side, symbol, seqnum):
        self.ts, self.frame, self.clordid, self.side, self.symbol, self.seqnum = ts, frame, clordid, side, symbol, seqnum


def read_capture(pcap, exch_port, warn):
    """Returns ([Md], [Order], info) in stream order. The exchange is the side whose TCP port is exch_port."""
    try:
        res, recs = analyze.read_pcap(pcap, warn)
    except analyze.InputError as e:
        raise InputError(str(e))
    frames = analyze.frames_without_log(recs)
    for fr in frames:
        seg, _why = analyze.decode_tcp(fr.data)
        if seg is None:
            continue
        if seg.sport == exch_port:
            fr.dir = "rx"    # exchange -> client (the client plays the SoC's part in analyze.py's terms)
        elif seg.dport == exch_port:
            fr.dir = "tx"
    quiet = []   # checksums: the kernel leaves them to the (virtual) NIC, so captured ones are not final
    cap = analyze.Capture(frames, quiet.append)
    for w in quiet:
        if "checksum" not in w:
            warn(w)
    mds, orders = [], []
    for m in cap.messages():
        t = m.msg_type
        if m.stream.dir == "rx" and t == "W":
            fr = m.last_frame()
            trades = [px for sym, px, _text, _off in analyze.md_trade_entries(m)]
            mds.append(Md(fr.sof_ns, fr.index + 1, m.get("55"), trades, m.get("34")))
        elif m.stream.dir == "tx" and t == "D":
            if m.get("43") == "Y":
                continue   # a FIX resend of an order already counted
            fr = m.first_frame()
            orders.append(Order(fr.sof_ns, fr.index + 1, m.get("11"), analyze.side_of(m.get("54")), m.get("55"),
                                m.get("34")))
    conns = {frozenset([(st.conn[0], st.conn[1]), (st.conn[2], st.conn[3])]) for st in cap.streams}
    info = {"resolution": res, "records": len(recs), "tcp_connections": len(conns)}
    return mds, orders, info


# ---------------------------------------------------------------------------------------------
# pairing

def pair(mds, orders, stops, prefix=None):
    """Pairs each order with the 35=W that triggered it. The client holds one stop at a time, taking
    `stops` round robin (order k fires stop k mod n). It looks at each 35=W in turn and fires on the first
    one whose trade crosses the armed stop, then arms the next stop for the following 35=W. So the trigger
    of order k is the first crossing 35=W after the trigger of order k-1. This is also the last crossing
    35=W before the order, unless the client was behind and a newer crossing 35=W had already arrived
    (counted in `behind`; the paper's rule "the last W before the D" would pick that newer one).
    Returns (pairs, problems): pairs are dicts, problems are strings (orders without a trigger)."""
    pairs, problems = [], []
    md_ts = [m.ts for m in mds]
    crossing = [[i for i, m in enumerate(mds) if m.symbol == s["symbol"] and any(crosses(s, p) for p in m.trades)]
                for s in stops]
    nxt = 0   # index of the first 35=W the client still looks at
    for k, o in enumerate(orders):
        s = stops[k % len(stops)]
        want = f"{prefix}{k + 1}" if prefix is not None else None
        if (o.side, o.symbol) != (s["side"], s["symbol"]) or (want is not None and o.clordid != want):
            problems.append(f"order {k + 1} (ClOrdID {o.clordid}, {o.side} {o.symbol}, frame {o.frame}) is not "
                            f"stop {k % len(stops)} ({s['text']}"
                            + (f", ClOrdID {want}" if want else "") + "): the stop list does not match the client's")
            break   # the rest cannot be paired reliably
        cand = crossing[k % len(stops)]
        j = bisect.bisect_left(cand, nxt)
        if j == len(cand) or mds[cand[j]].ts > o.ts:
            problems.append(f"order {k + 1} (ClOrdID {o.clordid}, frame {o.frame}): no 35=W crossing {s['text']} "
                            f"between the previous trigger and the order")
            continue
        w = mds[cand[j]]
        nxt = cand[j] + 1
        # the newest crossing W captured before the order
        last_i = bisect.bisect_right(md_ts, o.ts) - 1
        jl = bisect.bisect_right(cand, last_i) - 1
        behind = cand[jl] != cand[j]
        pairs.append({"k": k + 1, "clordid": o.clordid, "side": o.side, "stop": str(s["stop"]),
                      "trade": str(next(p for p in w.trades if crosses(s, p))),
                      "w_frame": w.frame, "d_frame": o.frame, "w_ts_ns": w.ts, "d_ts_ns": o.ts,
                      "ns": o.ts - w.ts, "behind": behind})
    return pairs, problems


def stats(vals):
    if not vals:
        return {"min": None, "median": None, "max": None, "mean": None, "p90": None, "p99": None}
    v = sorted(vals)

    def pct(p):   # nearest rank
        return v[max(0, min(len(v) - 1, -(-len(v) * p // 100) - 1))]

    med = statistics.median(v)
    return {"min": v[0], "median": int(med) if med == int(med) else med, "max": v[-1],
            "mean": round(statistics.fmean(v), 1), "p90": pct(90), "p99": pct(99)}


def us(ns):
    return "-" if ns is None else f"{ns / 1000:.1f} µs"


def evaluate(pcap, stops, exch_port=9876, prefix=None, warmup=0, want=None, warn=None):
    """Reads the capture, pairs, and returns the result dict. Raises BaselineError if an order has no
    trigger or fewer than `want` orders (after the warm-up) were measured."""
    warnings = []

    def w(msg):
        warnings.append(msg)
        if warn:
            warn(msg)

    mds, orders, info = read_capture(pcap, exch_port, w)
    pairs, problems = pair(mds, orders, stops, prefix)
    measured = pairs[warmup:]
    ns = [p["ns"] for p in measured]
    neg = [p for p in pairs if p["ns"] < 0]
    if neg:
        problems.append(f"{len(neg)} order(s) captured before their trigger (e.g. ClOrdID {neg[0]['clordid']})")
    res = {
        "what": "Linux software baseline: QuickFIX/J stop client on the kernel's TCP; 35=W -> 35=D at the "
                "exchange's network interface (tcpdump)",
        "count": len(measured),
        "ns": stats(ns),
        "pcap": os.path.abspath(pcap),
        "warmup": min(warmup, len(pairs)),
        "all": {"count": len(pairs), "ns": stats([p["ns"] for p in pairs])},
        "orders": len(orders),
        "market_data": len(mds),
        "behind": sum(p["behind"] for p in measured),
        "trigger_interval_ns": stats([b["w_ts_ns"] - a["w_ts_ns"] for a, b in zip(measured, measured[1:])]),
        "problems": problems,
        "warnings": warnings,
        "capture": info,
        "stops": [s["text"] for s in stops],
        "paper_us": PAPER_US,
        "pairs": pairs,
    }
    if problems:
        raise BaselineError("; ".join(problems[:3]) + (f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""),
                            res)
    if not orders:
        raise BaselineError(f"no orders (35=D) in {pcap}", res)
    if want is not None and len(measured) < want:
        raise BaselineError(f"only {len(measured)} orders measured after {res['warmup']} warm-up fires, "
                            f"{want} wanted", res)
    return res


def summary_line(res):
    n = res["ns"]
    return (f"linux baseline: {res['count']} fires (after {res['warmup']} warm-up), 35=W -> 35=D at the exchange's "
            f"interface: min {us(n['min'])}, median {us(n['median'])}, mean {us(n['mean'])}, p99 {us(n['p99'])}, "
            f"max {us(n['max'])} (paper: {PAPER_US['software_server_side']} µs software, "
            f"{PAPER_US['fpga_server_side']} µs FPGA)")


REPORT_STATS = ("min", "median", "mean", "p99", "max")


def report_figures(res):
    """The figures bench.py's report quotes from a baseline result (evaluate()'s dict or its JSON): orders measured,
    warm-up fires left out, and min / median / mean / p99 / max in µs (0.1 µs). InputError when it has none."""
    if not isinstance(res, dict) or not isinstance(res.get("ns"), dict):
        raise InputError("not a Linux baseline result (no \"ns\" figures)")
    n = res["ns"]
    missing = [k for k in REPORT_STATS if not isinstance(n.get(k), (int, float))]
    if not res.get("count") or missing:
        raise InputError(f"the Linux baseline result has no measured orders (count {res.get('count')!r}"
                         + (f", no {', '.join(missing)}" if missing else "") + ")")
    return {"count": res["count"], "warmup": res.get("warmup"), "behind": res.get("behind"),
            "us": {k: round(n[k] / 1000, 1) for k in REPORT_STATS}}


# ---------------------------------------------------------------------------------------------
# the market: the exchange's path format, generated from a template

def read_template(path):
    """The steps of a market path (tools/exchange/README.md): [(delay_ms, rest of the line)]; one pass of
    it must fire the client once per step with a trade."""
    try:
        with open(path) as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise InputError(f"cannot read market path {path}: {e.strerror}")
    steps = []
    for n, line in enumerate(lines, start=1):
        text = line.split("#", 1)[0].strip()
        if not text:
            continue
        delay, _sp, rest = text.partition(" ")
        if not delay.isdigit() or not rest.strip():
            raise InputError(f"{path}:{n}: expected <delay_ms> <symbol> <bid|-> <ask|-> [trade <price> <qty>] ...")
        steps.append((int(delay), rest.strip()))
    if not any(" trade " in f" {r} " for _d, r in steps):
        raise InputError(f"{path}: no step with a trade: nothing would fire")
    return steps


def make_market(template, warmup, fires, warmup_step_ms, out_path, template_name, measure_step_ms=None):
    """Writes the market the exchange plays. First a warm-up section: the template's steps every
    warmup_step_ms, for all but the last max(50, 5%) of the warm-up fires. The margin makes every measured
    fire fall in the next section, even if the lagging cold client fires on some of its own fills. Then
    the measured section: the template at its own pace (or every measure_step_ms), 1.5 times the passes
    the rest needs. The exchange loops the file as a safety net."""
    per_pass = sum(1 for _d, r in template if " trade " in f" {r} ")
    margin = min(warmup, max(50, warmup // 20))
    warm_passes = (warmup - margin) // per_pass
    meas_passes = ((fires + margin) * 3 // 2 + 100 + per_pass - 1) // per_pass
    delays = [measure_step_ms if measure_step_ms is not None else d for d, _r in template]
    with open(out_path, "w") as f:
        f.write(f"# generated by tools/bench/linux_baseline.py from {template_name}\n")
        f.write(f"# warm-up: {warm_passes} passes every {warmup_step_ms} ms; then {meas_passes} passes "
                f"with steps of {'/'.join(map(str, delays))} ms\n")
        for _ in range(warm_passes):
            for _d, rest in template:
                f.write(f"{warmup_step_ms} {rest}\n")
        for _ in range(meas_passes):
            for d, (_t, rest) in zip(delays, template):
                f.write(f"{d} {rest}\n")
    return {"template": template_name, "warmup_passes": warm_passes, "warmup_step_ms": warmup_step_ms,
            "measure_passes": meas_passes, "steps_per_pass": len(template), "measure_step_ms": delays}


# ---------------------------------------------------------------------------------------------
# the run

def sh(*cmd, check=True):
    r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    if check and r.returncode != 0:
        raise BaselineError(f"{' '.join(cmd)} failed ({r.returncode}): {r.stdout.strip()}")
    return r.stdout


def tail(path, n=8):
    try:
        with open(path, errors="replace") as f:
            return "".join(f.readlines()[-n:]).rstrip()
    except OSError:
        return ""


def wait_for_line(path, prefix, proc, timeout, what):
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        try:
            with open(path, errors="replace") as f:
                for line in f:
                    if line.startswith(prefix) or prefix in line:
                        return line.strip()
        except OSError:
            pass
        if proc.poll() is not None:
            raise BaselineError(f"{what} ended during start-up (status {proc.returncode}):\n{tail(path)}")
        time.sleep(0.05)
    raise BaselineError(f"{what} not up in {timeout} s (no '{prefix}' in {path}):\n{tail(path)}")


def stop_process(proc, sig, name, timeout=10):
    """Ends a process this script started, by its PID; SIGKILL if it does not go in time."""
    if proc is None or proc.poll() is not None:
        return
    try:
        os.kill(proc.pid, sig)
        proc.wait(timeout)
    except subprocess.TimeoutExpired:
        print(f"linux_baseline: {name} (pid {proc.pid}) did not stop; killing it", file=sys.stderr)
        os.kill(proc.pid, signal.SIGKILL)
        proc.wait(5)
    except ProcessLookupError:
        pass


def timestamp_type(ns, iface):
    """adapter_unsynced when the interface offers it (a NIC with hardware time stamps), else the kernel's."""
    out = sh("ip", "netns", "exec", ns, "tcpdump", "-J", "-i", iface, check=False)
    types = [ln.split()[0] for ln in out.splitlines()[1:] if ln.strip()]
    return ("adapter_unsynced" if "adapter_unsynced" in types else None), types


def loadavg():
    try:
        with open("/proc/loadavg") as f:
            return [float(x) for x in f.read().split()[:3]]
    except OSError:
        return None


def java_version():
    r = subprocess.run(["java", "-version"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
    return r.stdout.splitlines()[0] if r.stdout else "?"


def run(args, stops):
    if os.geteuid() != 0:
        raise BaselineError("needs root for its network namespaces (ip netns); or analyse a capture: --analyze PCAP")
    for tool in ("ip", "tcpdump", "java"):
        if shutil.which(tool) is None:
            raise BaselineError(f"{tool} not found (make deps installs it)")
    for jar, hint in ((args.exchange_jar, "./mill -i exchange.assembly"), (args.client_jar, "./mill -i baseline.assembly")):
        if not os.path.isfile(jar):
            raise BaselineError(f"no jar at {jar} (build it: {hint}, or make bench-linux)")
    template = read_template(args.path)
    out = os.path.abspath(args.out)
    os.makedirs(out, exist_ok=True)
    market = os.path.join(out, "market.path")
    market_info = make_market(template, args.warmup, args.fires, args.warmup_step_ms, market,
                              os.path.relpath(os.path.abspath(args.path), ROOT), args.step_ms)
    pcap = os.path.join(out, "exchange-side.pcap")
    fires_csv = os.path.join(out, "client-fires.csv")
    for f in (pcap, fires_csv):
        if os.path.exists(f):
            os.remove(f)
    tag = os.getpid()
    ns_ex, ns_cl = f"tfb-ex-{tag}", f"tfb-cl-{tag}"
    procs = {}
    t_start = time.monotonic()
    load_before = loadavg()
    say = (lambda m: None) if args.quiet else (lambda m: print(f"{time.monotonic() - t_start:7.1f} s  {m}", flush=True))
    try:
        # two hosts: the exchange's namespace and the client's, one veth pair between them
        sh("ip", "netns", "add", ns_ex)
        sh("ip", "netns", "add", ns_cl)
        sh("ip", "-n", ns_ex, "link", "add", EXCH_IF, "type", "veth", "peer", "name", CLIENT_IF, "netns", ns_cl)
        for ns, ifc, ip in ((ns_ex, EXCH_IF, EXCH_IP), (ns_cl, CLIENT_IF, CLIENT_IP)):
            sh("ip", "-n", ns, "link", "set", "lo", "up")
            sh("ip", "-n", ns, "addr", "add", f"{ip}/{PREFIX_LEN}", "dev", ifc)
            sh("ip", "-n", ns, "link", "set", ifc, "up")
        say(f"network: namespaces {ns_ex} (exchange {EXCH_IP}, {EXCH_IF}) and {ns_cl} (client {CLIENT_IP}), a veth pair")

        ts_type, ts_types = timestamp_type(ns_ex, EXCH_IF)
        cmd = ["ip", "netns", "exec", ns_ex, "tcpdump", "-i", EXCH_IF, "-n", "-Z", "root", "-B", "8192",
               "--time-stamp-precision=nano", "-w", pcap] + (["-j", ts_type] if ts_type else []) + \
              ["tcp", "port", str(args.port)]
        tcpdump_log = os.path.join(out, "tcpdump.log")
        procs["tcpdump"] = subprocess.Popen(cmd, stdout=subprocess.DEVNULL, stderr=open(tcpdump_log, "w"))
        wait_for_line(tcpdump_log, "listening on", procs["tcpdump"], 15, "tcpdump")
        say(f"capture: tcpdump on {EXCH_IF} (exchange side), ns precision, time stamps: "
            f"{ts_type or 'host (the kernel; ' + EXCH_IF + ' offers ' + ', '.join(ts_types or ['?']) + ')'}")

        exch_out = os.path.join(out, "exchange.out")
        cmd = ["ip", "netns", "exec", ns_ex, "java", "-jar", args.exchange_jar, "--settings", EXCHANGE_CFG,
               "--bind", EXCH_IP, "--port", str(args.port), "--path", market, "--loop", "--wait-subscriber",
               "--log-dir", os.path.join(out, "exchange")]
        procs["exchange"] = subprocess.Popen(cmd, stdout=open(exch_out, "w"), stderr=subprocess.STDOUT)
        wait_for_line(exch_out, "EXCHANGE READY", procs["exchange"], 60, "the exchange")
        say(f"exchange: listening on {EXCH_IP}:{args.port} (pid {procs['exchange'].pid}); market {market_info['template']}: "
            f"{market_info['warmup_passes']} warm-up passes every {args.warmup_step_ms} ms, then steps of "
            f"{'/'.join(map(str, market_info['measure_step_ms']))} ms")

        total = args.fires + args.warmup
        client_out = os.path.join(out, "client.out")
        cmd = ["ip", "netns", "exec", ns_cl, "java"] + args.client_java_opts.split() + [
            "-jar", args.client_jar, "--host", EXCH_IP, "--port", str(args.port), "--stops",
            ",".join(s["text"] for s in stops), "--fires", str(total), "--prefix", args.prefix,
            "--fires-csv", fires_csv, "--timeout-s", str(args.timeout)]
        procs["client"] = subprocess.Popen(cmd, stdout=open(client_out, "w"), stderr=subprocess.STDOUT)
        say(f"client: QuickFIX/J stop client (pid {procs['client'].pid}), {total} fires wanted "
            f"({args.warmup} warm-up + {args.fires})")
        wait_for_line(client_out, "CLIENT SUBSCRIBED", procs["client"], 60, "the client")
        t_md = time.monotonic()
        try:
            rc = procs["client"].wait(args.timeout + 30)
        except subprocess.TimeoutExpired:
            raise BaselineError(f"the client did not finish in {args.timeout + 30} s:\n{tail(client_out)}")
        if rc != 0:
            raise BaselineError(f"the client failed (status {rc}):\n{tail(client_out)}")
        t_fires = time.monotonic() - t_md
        done = [ln for ln in tail(client_out, 50).splitlines() if ln.startswith("CLIENT DONE")]
        say(f"client: {done[-1] if done else 'done'}")
        time.sleep(0.5)   # the last packets (logout) into the capture
    finally:
        stop_process(procs.get("tcpdump"), signal.SIGINT, "tcpdump")
        stop_process(procs.get("client"), signal.SIGTERM, "the client")
        stop_process(procs.get("exchange"), signal.SIGTERM, "the exchange")
        for ns in (ns_cl, ns_ex):
            subprocess.run(["ip", "netns", "del", ns], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    cap_summary = tail(os.path.join(out, "tcpdump.log"), 3).replace("\n", "; ")
    if "0 packets dropped by kernel" not in cap_summary:
        print(f"linux_baseline: warning: tcpdump says: {cap_summary}", file=sys.stderr)
    say(f"shutdown: processes stopped, namespaces removed; tcpdump: {cap_summary}")

    res = evaluate(pcap, stops, args.port, args.prefix, args.warmup, args.fires,
                   warn=lambda m: print(f"linux_baseline: warning: {m}", file=sys.stderr))
    res["client_callback_ns"] = client_callback(fires_csv, args.warmup)
    step_ns = min(market_info["measure_step_ms"]) * 1_000_000
    gap = res["trigger_interval_ns"]["min"]
    if gap is not None and gap < step_ns // 2:
        msg = (f"two measured triggers only {gap / 1e6:.2f} ms apart (steps are {step_ns / 1e6:g} ms): some "
               f"measured fires may come from the warm-up section or from the client's own fills")
        res["warnings"].append(msg)
        print(f"linux_baseline: warning: {msg}", file=sys.stderr)
    res["run"] = {
        "seconds_total": round(time.monotonic() - t_start, 1),
        "seconds_firing": round(t_fires, 1),
        "market": market_info,
        "network": f"veth pair between two network namespaces ({EXCH_IP} exchange, {CLIENT_IP} client)",
        "capture": {"interface": EXCH_IF, "side": "exchange", "time_stamp_type": ts_type or "host",
                    "interface_offers": ts_types, "precision": "ns", "tcpdump": cap_summary},
        "kernel": platform.release(), "java": java_version(), "cpus": os.cpu_count(),
        "loadavg_before": load_before, "loadavg_after": loadavg(),
        "client_java_opts": args.client_java_opts,
    }
    return res


def client_callback(path, warmup):
    """The client's own view: ns from QuickFIX/J's fromApp(35=W) to the return of Session.send(35=D)."""
    try:
        with open(path) as f:
            rows = f.read().splitlines()[1:]
    except OSError:
        return None
    vals = [int(r.rsplit(",", 1)[1]) for r in rows if r][warmup:]
    return {"count": len(vals), "ns": stats(vals)}


PAIR_COLUMNS = ("k", "clordid", "side", "stop", "trade", "w_frame", "d_frame", "w_ts_ns", "d_ts_ns", "ns", "behind")


def write_pairs(pairs, path):
    with open(path, "w", newline="") as f:
        w = csv.writer(f)
        w.writerow(PAIR_COLUMNS)
        for p in pairs:
            w.writerow([int(p[c]) if c == "behind" else p[c] for c in PAIR_COLUMNS])


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--fires", type=int, default=1000, help="orders to measure after the warm-up (default 1000)")
    ap.add_argument("--warmup", type=int, default=20000,
                    help="first fires left out of the figures while the JVMs compile (default 20000, most of them "
                         "on a fast market: see --warmup-step-ms)")
    ap.add_argument("--stops", default=DEFAULT_STOPS, help=f"the client's stops, side:symbol:stop:qty:limit,... "
                                                           f"(default {DEFAULT_STOPS}, which fits the default path)")
    ap.add_argument("--path", default=DEFAULT_PATH,
                    help="market path template: its steps fast for the warm-up, then at their own pace "
                         "(default tools/bench/paths/swing.path)")
    ap.add_argument("--warmup-step-ms", type=int, default=2,
                    help="market step during the warm-up, ms (default 2)")
    ap.add_argument("--step-ms", type=int,
                    help="market step while measuring, ms (default: the template's, 10 for swing.path)")
    ap.add_argument("--port", type=int, default=9876, help="the exchange's TCP port (default 9876)")
    ap.add_argument("--prefix", default="BL", help="ClOrdID prefix of the client's orders (default BL)")
    ap.add_argument("--out", default=os.path.join(ROOT, "build", "bench", "linux-baseline"),
                    help="folder for the pcap, logs and JSON (default build/bench/linux-baseline)")
    ap.add_argument("--json", help="where to write the JSON result (default OUT/linux-baseline.json; - for stdout)")
    ap.add_argument("--csv", help="one line per order: W and D frames, capture times, latency "
                                  "(default OUT/linux-baseline-pairs.csv)")
    ap.add_argument("--timeout", type=int, default=300, help="seconds the client may take for its fires (default 300)")
    ap.add_argument("--exchange-jar", default=EXCHANGE_JAR)
    ap.add_argument("--client-jar", default=CLIENT_JAR)
    ap.add_argument("--client-java-opts", default="", help="JVM options for the client, e.g. '-XX:+UseParallelGC'")
    ap.add_argument("--analyze", metavar="PCAP", help="only analyse an existing capture (no root needed)")
    ap.add_argument("--quiet", action="store_true", help="only the summary line")
    args = ap.parse_args(argv)
    try:
        stops = parse_stops(args.stops)
        if args.fires <= 0 or args.warmup < 0 or args.warmup_step_ms < 0 or (args.step_ms or 0) < 0:
            raise InputError("--fires must be positive; --warmup, --warmup-step-ms and --step-ms not negative")
        if args.analyze:
            res = evaluate(args.analyze, stops, args.port, args.prefix, args.warmup, None,
                           warn=lambda m: print(f"linux_baseline: warning: {m}", file=sys.stderr))
            json_path = args.json
        else:
            res = run(args, stops)
            json_path = args.json or os.path.join(os.path.abspath(args.out), "linux-baseline.json")
    except InputError as e:
        print(f"linux_baseline: {e}", file=sys.stderr)
        return 2
    except BaselineError as e:
        print(f"linux_baseline: FAILED: {e.args[0]}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("linux_baseline: interrupted (processes stopped, namespaces removed)", file=sys.stderr)
        return 130
    pairs = res.pop("pairs")
    csv_path = args.csv or (None if args.analyze else os.path.join(os.path.abspath(args.out), "linux-baseline-pairs.csv"))
    if csv_path:
        write_pairs(pairs, csv_path)
        res["pairs_csv"] = csv_path
    text = json.dumps(res, indent=1)
    if json_path == "-":
        print(text)
    elif json_path:
        with open(json_path, "w") as f:
            f.write(text + "\n")
    print(summary_line(res) + (f"; JSON {json_path}" if json_path and json_path != "-" else ""))
    return 0


if __name__ == "__main__":
    sys.exit(main())
