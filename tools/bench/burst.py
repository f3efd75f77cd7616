#!/usr/bin/env python3
"""Burst phase of `make bench` (issue 15, "Measure: Burst"): N 35=W into the live session with hardware stops armed.

For each shape (a fresh exchange and a fresh SoC each, so that one shape's end cannot spoil the next):
  1. the QuickFIX/J exchange (tools/exchange, --control FIFO, no price path) and the SoC (Verilator, on a TAP in a
     private namespace as root, else libslirp) start; the SoC logs on (`fix set heartbeat H`) and subscribes;
  2. four one-shot stops are armed in the hardware trigger table (STOPS), market-data digestion is switched on
     (`offload digest on`; --digest off leaves every W to firmware), and the console's counters are read
     (`fix`, `fix hw`, `net`, `offload`);
  3. the exchange is told `burst N <shape> cross=... testreq=...` (tools/exchange/README.md): N W messages whose
     last trade crosses the stops at known messages (cross_points()), a TestRequest after the middle one;
     `segment` is one message per TCP segment, `coalesced` full segments (Nagle on, everything written at once);
  4. when the exchange says every byte was acknowledged (BURST ACKED), or the session ended, or the time limit
     passed, the counters are read again, the SoC logs out and everything stops;
  5. the figures come from the simulation's pcap and frame log (simulated time; tools/latency/analyze.py reads
     them), the console and the exchange's stdout: burst_figures().

Usage: tools/bench/burst.py [--messages 10000] [--shapes segment,coalesced] [--heartbeat 30] [--minutes 25]
                            [--inflight 0] [--digest on|off] [--out build/bench/burst] [--slirp] [--refigure]
Writes OUT/burst.json ({shape: figures}) and, per shape, OUT/<shape>/ (pcap, frame log, console soc.log, exchange
stdout and FIX logs, latency.json of the fires). burst_md() is report.md's section; bench.py calls both.
"""
import argparse
import json
import os
import re
import shutil
import signal
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.dirname(HERE))
import demo  # noqa: E402  (tools/demo.py: network, SoC process, tfctl to the console)
sys.path.insert(0, os.path.join(os.path.dirname(HERE), "latency"))
import analyze  # noqa: E402  (pcap, frame log, TCP streams, FIX messages, order/trigger pairing)
sys.path.insert(0, HERE)
import soc_latency  # noqa: E402  (the `offload` command's lines, as the whole-SoC run reads them)
import report_merge  # noqa: E402  (report.md's sections)

ROOT = demo.ROOT
SIM_MHZ = 125.0    # the simulation's sys clock (build/hw/sim/soc.h TF_SYS_CLOCK_HZ); sim_sys_mhz() reads it
BOARD_MHZ = 37.5   # the boards' sys clock (boards/colorlight-*/README.md)
SHAPES = ("segment", "coalesced")
# One-shot stops (side, stop, limit), armed in the hardware; CROSSES[i] is the trade price of the burst message that
# crosses STOPS[i] and no stop not yet fired (crossings come in this order: 100.15 crosses 100.10 only, 99.85 crosses
# 99.90 only, 100.25 crosses 100.20 (100.10 has fired), 99.75 crosses 99.80). Every other burst message trades at
# 99.99 or 100.01 with bid 99.95 and ask 100.05, crossing nothing. The exchange rests liquidity at 99.95 / 100.05, so
# each order (limit beyond the quote) fills, and its fill prints 99.95 or 100.05: no stop crosses there either.
STOPS = [("buy", "100.10", "100.40"), ("sell", "99.90", "99.60"), ("buy", "100.20", "100.50"), ("sell", "99.80", "99.50")]
CROSSES = ["100.15", "99.85", "100.25", "99.75"]
CROSS_AT = (0.01, 0.25, 0.50, 0.75)   # where in the burst, as fractions of N


def cross_points(n):
    """The 1-based indices of the crossing messages in a burst of n: 1 %, 25 %, 50 % and 75 % of the way (at least
    message 1, strictly increasing; fewer when n is too small to hold four)."""
    out = []
    for f in CROSS_AT:
        i = max(1, round(n * f))
        if out and i <= out[-1]:
            i = out[-1] + 1
        if i > n:
            break
        out.append(i)
    return out


def burst_command(n, shape, inflight=0):
    """The exchange's control line for this burst (tools/exchange/src/.../Burst.java)."""
    cross = ",".join(f"{i}:{px}" for i, px in zip(cross_points(n), CROSSES))
    tr = sorted({max(1, n // 2), n})
    return (f"burst {n} {shape} symbol=MSFT bid=99.95 ask=100.05 cross={cross} testreq={','.join(map(str, tr))}"
            + (f" inflight={inflight}" if shape == "segment" else ""))


def sim_sys_mhz(soc_h=os.path.join(ROOT, "build/hw/sim/soc.h")):
    try:
        with open(soc_h) as f:
            m = re.search(r"#define TF_SYS_CLOCK_HZ\s+(\d+)", f.read())
        return int(m.group(1)) / 1e6 if m else SIM_MHZ
    except OSError:
        return SIM_MHZ


# ---- the exchange's stdout ---------------------------------------------------------------------------------------
BURST_RE = re.compile(r"^BURST (\w+)\s*(.*)$")
KV_RE = re.compile(r"(\w+)=(\S+)")
FILL_RE = re.compile(r"^FILL (\S+) (\d+) @ (\S+) buyer=([^/\s]+)/(\S+) seller=([^/\s]+)/(\S+)")


def _kv(text):
    d = {}
    for k, v in KV_RE.findall(text):
        d[k] = int(v) if re.fullmatch(r"-?\d+", v) else v
    return d


def parse_exchange(lines, who="TFISH1"):
    """The burst's events in the exchange's stdout (one burst): {"start", "crosses" [{index, seq, px}], "testreqs"
    [{id, after, seq}], "heartbeats" {id: delay_ms}, "end" ("sent"|"aborted"), "sent" {...}, "drain" ("acked"|"lost"
    |None) with its fields, "logouts" (LOGOUT lines of `who` after the burst's start), "fills" {clordid: [px]}
    (fills of `who`'s orders after the start), "errors" [lines]}."""
    r = {"start": None, "crosses": [], "testreqs": [], "heartbeats": {}, "end": None, "sent": None, "drain": None,
         "drain_info": None, "logouts": 0, "fills": {}, "errors": []}
    for line in lines:
        line = line.rstrip("\n")
        m = BURST_RE.match(line)
        if m:
            ev, kv = m.group(1), _kv(m.group(2))
            if ev == "START":
                r["start"] = kv
            elif ev == "CROSS":
                r["crosses"].append(kv)
            elif ev == "TESTREQ":
                r["testreqs"].append(kv)
            elif ev == "HEARTBEAT":
                r["heartbeats"][kv["id"]] = kv.get("delay_ms")
            elif ev in ("SENT", "ABORTED"):
                r["end"], r["sent"] = ev.lower(), kv
            elif ev in ("ACKED", "LOST"):
                r["drain"], r["drain_info"] = ev.lower(), kv
            elif ev in ("ERROR", "WARN"):
                r["errors"].append(line)
            continue
        if r["start"] is None:
            continue
        if line.startswith(f"LOGOUT {who}"):
            r["logouts"] += 1
        m = FILL_RE.match(line)
        if m:
            for owner, cid in ((m.group(4), m.group(5)), (m.group(6), m.group(7))):
                if owner == who:
                    r["fills"].setdefault(cid, []).append(m.group(3))
        if line.startswith("CONTROL ERROR"):
            r["errors"].append(line)
    return r


# ---- the SoC's console -------------------------------------------------------------------------------------------
COUNTER_RES = [
    (re.compile(r"fix: client (.+?), session (.+?), next out (\d+), next in (\d+)"),
     ("client", "session", "next_out", "next_in")),
    (re.compile(r"fix: connects (\d+), logons (\d+), disconnects (\d+), market data (\d+), execution reports (\d+)"),
     ("connects", "logons", "disconnects", "md_msgs", "exec_reports")),
    (re.compile(r"offload rx: 35=W parsed by hardware (\d+), by firmware (\d+); FIX errors (\d+), fires (\d+)"),
     ("hw_w_msgs", "fw_w_msgs", "hw_fix_errors", "hw_fires")),
    (re.compile(r"mac: rx_frames (\d+) rx_bytes (\d+) crc_errors (\d+) runts (\d+) oversize (\d+) rx_drops_full (\d+)"),
     ("rx_frames", "rx_bytes", "crc_errors", "runts", "oversize", "rx_drops_full")),
    (re.compile(r"mac: tx_frames (\d+) tx_bytes (\d+) tx_errors (\d+) rx_too_long (\d+)"),
     ("tx_frames", "tx_bytes", "tx_errors", "rx_too_long")),
    # `offload` with market-data digestion in the SoC (fw/app/digestion.c digestion_report)
    (re.compile(r"offload: digestion (on|off)\b.*?; segments digested (\d+), passed (\d+) \((\d+) trimmed\); messages "
                r"digested (\d+) \((\d+) bytes\), garbled (\d+); undecided heads (\d+) \((\d+) taken by the hardware, "
                r"(\d+) firmware's\); refused by TCP (\d+), by the session (\d+);.*descriptors lost (\d+)"),
     ("digest", "dg_segments", "dg_passed", "dg_trimmed", "dg_hw_msgs", "dg_bytes", "dg_garbled", "dg_held",
      "dg_held_taken", "dg_held_fw", "dg_skip_refused", "dg_msg_refused", "dg_fifo_drops")),
    # `offload` (fw/app/offload.c cmd_offload), the patterns the whole-SoC run reads it with
    (soc_latency.ORDERS_RE, ("hw_orders", "hw_not_sent", "hw_errors", "hw_late_cancels")),
    (soc_latency.FIRES_RE,
     ("table_fires", "table_fires_sent", "table_fires_logged_not_sent", "table_fires_poisoned", "table_fires_ignored",
      "table_fires_not_armed",
      "table_fires_log_drops", "table_fires_rx_overflow")),
]
# `net -a`: the stack's counters, one "net: <name> <value>" line each (fw/app/netif.c, fw/net/counters.h)
NET_LINE_RE = re.compile(r"net: (\w+)\s+(\d+)\s*$")
EVENT_RES = [
    re.compile(r"fix: disconnecting: (.*)"),
    re.compile(r"fix: connection (.*?); (?:stopped|reconnecting.*)"),
    re.compile(r"fix: logged out(.*)"),
    re.compile(r"fix: TCP send buffer full.*"),
    re.compile(r"fix: gap detected.*"),
    re.compile(r"fix: rejected a message.*"),
    re.compile(r"fix: the exchange rejected.*"),
    re.compile(r"fix: dropped a garbled message.*"),
]


def parse_counters(lines):
    """The last value of each console counter in these lines (those the burst needs; see COUNTER_RES)."""
    out = {}
    for line in lines:
        for rx, names in COUNTER_RES:
            m = rx.search(line)
            if m:
                for k, v in zip(names, m.groups()):
                    out[k] = 0 if v is None else int(v) if v.isdigit() else v   # (None: an optional field not printed)
        m = NET_LINE_RE.search(line)
        if m:
            out[m.group(1)] = int(m.group(2))
    return out


def session_events(lines):
    """The console's lines that tell how a session ended or went wrong (disconnect, gap, reject), in order."""
    return [line.strip() for line in lines if any(rx.search(line) for rx in EVENT_RES)]


def counter_delta(before, after, key):
    if key not in after:
        return None
    return after[key] - before.get(key, 0)


# ---- the capture -------------------------------------------------------------------------------------------------
def load_frames(pcap, frame_log):
    warn = analyze.Warnings()
    res, recs = analyze.read_pcap(pcap, warn)
    rows = analyze.read_frame_log(frame_log)
    return analyze.match_frames(res, recs, rows, pcap, frame_log), warn


def capture_figures(cap, first_seq, last_seq, sys_mhz, written_at_once=False):
    """What the capture (analyze.Capture, frames with simulated times) shows of the burst: the 35=W the exchange sent
    with MsgSeqNum first_seq..last_seq. Returns {
      "w_on_wire": burst W seen (first copies), "segments": frames that first carried burst bytes, "retransmitted":
      frames that carried only burst bytes already seen, "msgs_per_segment" {min, median, max} (W completed per
      first-copy segment), "max_payload", "first_byte_ns", "acked": burst W the SoC acknowledged (a whole message
      below the highest ACK), "last_ack_ns" (the first SoC frame acknowledging the last of them), "digest_ns",
      "digest_sys_cycles", "testreqs" [{id, rx_ns, answer_ns, delay_ms, queued_ns, exchange_delay_ms}]: every
      TestRequest the SoC received (the burst's and QuickFIX/J's own) and its Heartbeat, "logout_rx"/"logout_tx":
      first 35=5 each way (ns)}.
    The SoC acknowledges data after its FIX layer has handled it (fw/net/tcp.c: on_data, then the ACK), so the ACK of
    the last burst byte marks the end of the digestion.
    delay_ms runs from the TestRequest's arrival at the SoC; but a TestRequest waits first in the exchange's kernel
    behind the W written before it. exchange_delay_ms is the delay the exchange sees, in simulated time, for the
    burst's own TestRequests (112=BURST-TR-K, written right after message K): from queued_ns, the simulated time the
    exchange wrote it, to the Heartbeat. The exchange writes faster than the simulation runs, so that is the burst's
    first byte on the wire when the burst was written at once (coalesced), and the first byte of message K on the
    wire when each message waited for the SoC's ACKs (segment: it goes out as it is written)."""
    inrange = [m for m in cap.messages("rx") if m.msg_type == "W" and _seq(m) is not None and first_seq <= _seq(m) <= last_seq]
    w = [m for m in inrange if is_burst_w(m)]
    out = {"w_on_wire": len(w), "other_w": len(inrange) - len(w), "segments": 0, "retransmitted": 0, "msgs_per_segment": None, "max_payload": 0,
           "first_byte_ns": None, "acked": 0, "last_ack_ns": None, "digest_ns": None, "digest_sys_cycles": None,
           "testreqs": [], "logout_rx": None, "logout_tx": None}
    out["testreqs"] = testreq_delays(cap)
    for d, key in (("rx", "logout_rx"), ("tx", "logout_tx")):
        lo = [m for m in cap.messages(d) if m.msg_type == "5"]
        if lo:
            out[key] = lo[0].first_frame().sof_ns
            out[key + "_text"] = lo[0].get("58")
    if not w:
        return out
    queue_testreqs(out["testreqs"], w, written_at_once)
    st = w[0].stream
    lo, hi = w[0].start, w[-1].end
    ends = {}
    for m in w:
        fr = m.last_frame()
        ends[fr.index] = ends.get(fr.index, 0) + 1
    first = None
    for fr in cap.frames:
        s = fr.seg
        if fr.dir != "rx" or s is None or not s.payload or s.conn != st.conn or st.base is None:
            continue
        a = st.rel(s.seq)
        b = a + len(s.payload)
        if b <= lo or a >= hi:
            continue
        if fr.new_bytes:
            out["segments"] += 1
            out["max_payload"] = max(out["max_payload"], len(s.payload))
            if first is None or fr.sof_ns < first.sof_ns:
                first = fr
        else:
            out["retransmitted"] += 1
    counts = list(ends.values())
    out["msgs_per_segment"] = {"min": min(counts), "median": statistics.median(counts), "max": max(counts)}
    out["first_byte_ns"] = first.sof_ns if first else None
    # the SoC's ACKs of that stream: (time, acknowledged stream offset), in time order
    acks = []
    rev = (st.conn[2], st.conn[3], st.conn[0], st.conn[1])
    for fr in cap.frames:
        s = fr.seg
        if fr.dir != "tx" or s is None or s.conn != rev or not (s.flags & 0x10):
            continue
        acks.append((fr.sof_ns, st.rel(s.ack)))
    acks.sort()
    top = max((a for _, a in acks), default=None)   # an ACK past the burst (of what followed it) covers all of it
    if top is not None:
        top = min(top, hi)
    if top is not None:
        done = [m for m in w if m.end <= top]
        out["acked"] = len(done)
        if done:
            end = done[-1].end
            out["last_ack_ns"] = next(t for t, a in acks if a >= end)
    if written_at_once:
        queue_testreqs(out["testreqs"], w, True, out["first_byte_ns"])
    if out["first_byte_ns"] is not None and out["last_ack_ns"] is not None:
        out["digest_ns"] = out["last_ack_ns"] - out["first_byte_ns"]
        out["digest_sys_cycles"] = round(out["digest_ns"] * sys_mhz / 1000)
    return out


def is_burst_w(m):
    """A burst message (Burst.java): every entry's size (271) is 100. The other W in its sequence range come from the
    real book (the rested liquidity, the fills of the stops' orders), whose bid and offer sizes are the market maker's
    1,000,000 less what traded."""
    sizes = [v for t, v, _s, _e in m.fields if t == "271"]
    return bool(sizes) and all(v == "100" for v in sizes)


def burst_seqs(exch, n):
    """The MsgSeqNums of the burst's first and last message: from the exchange's BURST SENT (or ABORTED) line; for a
    burst the time limit cut short (no such line yet) from its first crossing (message `index` has MsgSeqNum `seq`)
    and n, the burst's size (the capture holds only what was sent). (-1, -1) when neither is known."""
    sent = exch.get("sent") or {}
    if sent.get("first_seq") is not None and sent.get("last_seq") is not None:
        return sent["first_seq"], sent["last_seq"]
    for c in exch.get("crosses") or []:
        if isinstance(c.get("seq"), int) and isinstance(c.get("index"), int):
            first = c["seq"] - c["index"] + 1
            return first, first + n - 1
    return -1, -1


def _seq(m):
    try:
        return int(m.get("34"))
    except (TypeError, ValueError):
        return None


def queue_testreqs(trs, w, written_at_once, first_byte_ns=None):
    """Sets queued_ns and exchange_delay_ms of the burst's TestRequests (capture_figures explains them); w: the burst's
    W in order."""
    for t in trs:
        m = re.fullmatch(r"BURST-TR-(\d+)", t["id"] or "")
        if not m or not 1 <= int(m.group(1)) <= len(w):
            continue
        q = first_byte_ns if written_at_once else w[int(m.group(1)) - 1].first_frame().sof_ns
        if q is None:
            continue
        t["queued_ns"] = q
        t["exchange_delay_ms"] = None if t["answer_ns"] is None else round((t["answer_ns"] - q) / 1e6, 6)


def testreq_delays(cap):
    """Every TestRequest (35=1) the SoC received and the Heartbeat (35=0, same 112) it answered with: the time from
    the last byte of the TestRequest on the RX pins to the first byte of the Heartbeat on the TX pins."""
    hb = {}
    for m in cap.messages("tx"):
        if m.msg_type == "0" and m.get("112") is not None:
            hb.setdefault(m.get("112"), m.first_frame().sof_ns)
    out = []
    for m in cap.messages("rx"):
        if m.msg_type != "1":
            continue
        tid = m.get("112")
        rx = m.last_frame().eof_ns
        ans = hb.get(tid)
        out.append({"id": tid, "rx_ns": rx, "answer_ns": ans,
                    "delay_ms": None if ans is None else round((ans - rx) / 1e6, 6), "queued_ns": None,
                    "exchange_delay_ms": None})
    return out


def fires_in_burst(records, burst_w_seqs, crosses, fills):
    """The orders whose triggering W (analyze.py's pairing) is a burst message: [{clordid, path, index (1-based in the
    burst), trigger_msgseqnum, trigger_price, t2t_cycles, eof2sof_cycles, filled}], and per crossing message the
    order it fired, if any. burst_w_seqs: the burst's W MsgSeqNums in order; crosses: the exchange's BURST CROSS
    events; fills: {clordid: [px]}."""
    pos = {s: i + 1 for i, s in enumerate(burst_w_seqs)}
    fires = []
    for r in records:
        try:
            s = int(r.get("trigger_msgseqnum"))
        except (TypeError, ValueError):
            continue
        if s not in pos:
            continue
        fires.append({"clordid": r["clordid"], "path": r.get("path"), "index": pos[s], "trigger_msgseqnum": s,
                      "trigger_price": r.get("trigger_price"), "t2t_cycles": r.get("t2t_cycles"),
                      "eof2sof_cycles": r.get("eof2sof_cycles"), "filled": r["clordid"] in fills})
    fires.sort(key=lambda f: f["index"])
    by_seq = {}
    for f in fires:
        by_seq.setdefault(f["trigger_msgseqnum"], []).append(f["clordid"])
    cross = [{"index": c.get("index"), "seq": c.get("seq"), "px": str(c.get("px")),
              "orders": by_seq.get(c.get("seq"), [])} for c in crosses]
    return fires, cross


def rates(msgs, sys_cycles, sim_mhz, board_mhz=BOARD_MHZ):
    """Messages per second of simulated time at the simulation's sys clock, the sys cycles per message, and the rate
    at the boards' clock assuming the same cycles per message (firmware-bound: the wire is not the limit)."""
    if not msgs or not sys_cycles:
        return {"w_per_s_sim": None, "sys_cycles_per_w": None, "w_per_s_board": None}
    cpm = sys_cycles / msgs
    return {"w_per_s_sim": round(msgs * sim_mhz * 1e6 / sys_cycles, 1), "sys_cycles_per_w": round(cpm),
            "w_per_s_board": round(msgs * board_mhz * 1e6 / sys_cycles, 1)}


def burst_figures(shape, n, exch, before, after, events, capfig, fires, cross, sim_mhz, heartbeat_s, inflight=None,
                  board_mhz=BOARD_MHZ):
    """report.json's burst[shape]: the run's figures from its parts (parse_exchange(), parse_counters() before and
    after the burst, session_events() after its start, capture_figures(), fires_in_burst())."""
    digested = counter_delta(before, after, "md_msgs")
    hw_w = counter_delta(before, after, "hw_w_msgs")
    drops = counter_delta(before, after, "rx_drops_full")
    # (None: the exchange has not said, the burst being cut short by the time limit; the capture's count is w_on_wire)
    sent = None if exch.get("sent") is None else exch["sent"].get("n", exch["sent"].get("sent", 0))
    # with digestion on, the W the receive parser digested never reach the FIX layer: they count beside firmware's
    digest_on = after.get("digest") == "on"
    digested_hw = counter_delta(before, after, "dg_hw_msgs") if digest_on else None
    taken = None if digested is None else digested + (digested_hw or 0)
    # rate: the W the SoC took (firmware's parser and, with digestion, the hardware's) over the time from the burst's
    # first byte on the wire to the SoC's ACK of the last burst W it acknowledged
    rate = rates(taken, capfig.get("digest_sys_cycles"), sim_mhz, board_mhz)
    td = [t for t in capfig.get("testreqs", []) if t["rx_ns"] is not None and capfig.get("first_byte_ns") is not None
          and t["rx_ns"] >= capfig["first_byte_ns"]]
    # the delay the exchange sees where it is known (the burst's own TestRequests), else from the arrival at the SoC
    answered = [t["exchange_delay_ms"] if t.get("exchange_delay_ms") is not None else t["delay_ms"]
                for t in td if t["delay_ms"] is not None]
    arrival = [t["delay_ms"] for t in td if t["delay_ms"] is not None]
    survived = (exch.get("end") == "sent" and exch.get("drain") == "acked" and exch.get("logouts", 0) == 0
                and after.get("session") == "active")
    if survived:
        how = None
    elif exch.get("logouts"):
        how = "the exchange logged the session out" + (f" ({capfig['logout_rx_text']})" if capfig.get("logout_rx_text") else "")
    elif exch.get("drain") == "lost":
        how = "not every byte was acknowledged: " + str((exch.get("drain_info") or {}).get("reason", "?")).replace("_", " ")
    elif exch.get("end") == "aborted":
        how = "the session ended during the burst: " + str((exch.get("sent") or {}).get("reason", "?")).replace("_", " ")
    elif exch.get("drain") is None:
        how = "the burst was not acknowledged within the time limit"
        if exch.get("end") is None and after.get("session") == "active":
            how = "not over within the time limit (the session active then)"
    else:
        how = f"the SoC's session is {after.get('session', 'unknown')}"
    return {
        "shape": shape, "messages_asked": n, "messages_sent": sent, "w_on_wire": capfig.get("w_on_wire"),
        "segments": capfig.get("segments"), "msgs_per_segment": capfig.get("msgs_per_segment"),
        "max_segment_payload": capfig.get("max_payload"), "retransmitted_segments": capfig.get("retransmitted"),
        "inflight_bytes": inflight if shape == "segment" else None,
        "digested_fw": digested, "parsed_hw": hw_w, "acked_by_soc": capfig.get("acked"),
        "digestion": digest_on, "digested_hw": digested_hw, "taken": taken,
        "digest_segments": {k: counter_delta(before, after, "dg_" + k) for k in
                            ("segments", "passed", "trimmed", "garbled", "held", "held_taken", "held_fw", "skip_refused",
                             "msg_refused", "fifo_drops")}
        if digest_on else None,
        "digest_sim_ms": None if capfig.get("digest_ns") is None else round(capfig["digest_ns"] / 1e6, 3),
        "digest_sys_cycles": capfig.get("digest_sys_cycles"), "sim_sys_mhz": sim_mhz, "board_sys_mhz": board_mhz,
        **rate,
        "rx_drops_full": drops, "tcp_out_of_order": counter_delta(before, after, "tcp_out_of_order"),
        "testreq": {"in_burst": len(td), "answered": len(answered),
                    "max_delay_sim_ms": max(answered) if answered else None,
                    "max_delay_board_ms": round(max(answered) * sim_mhz / board_mhz, 3) if answered else None,
                    "max_delay_from_arrival_sim_ms": max(arrival) if arrival else None,
                    "unanswered": [t["id"] for t in td if t["delay_ms"] is None],
                    "exchange_wall_ms": exch.get("heartbeats", {}), "all": td},
        "session_survived": survived, "session_end": how, "heartbeat_s": heartbeat_s,
        "liveness_ok": bool(td) and not [t for t in td if t["delay_ms"] is None]
                       and max(answered) * sim_mhz / board_mhz <= heartbeat_s * 1000,
        "other_w": capfig.get("other_w"),
        "console_events": events, "exchange_errors": exch.get("errors", []),
        "fires": fires, "crossings": cross,
    }


# ---- the run -----------------------------------------------------------------------------------------------------
SIM_TIMERS = ("CheckLatency=N\n"
              "# the exchange's heartbeat timers run on the wall clock, the SoC's on simulated time (100 to 1,000 times\n"
              "# slower here): liveness is judged on the capture's simulated times instead (TestRequest answer delays)\n"
              "TestRequestDelayMultiplier=1000\nHeartBeatTimeoutMultiplier=1000")


def exchange_settings(out, base=os.path.join(ROOT, "tools/exchange/exchange.cfg")):
    """tools/exchange/exchange.cfg for a simulated SoC, written into out: CheckLatency=N and the heartbeat timers
    1,000 times longer. The SoC's clock is set once from the host and then runs in simulated time, 100 to 1,000 times
    slower than the exchange's: after two minutes of a burst every SendingTime it writes is "too old" for QuickFIX/J's
    120 s check, and a wall-clock minute without a message from it is a fraction of a simulated second. Either would
    end the session on the simulator's speed, not the SoC's. The TestRequest answer delays are measured in simulated
    time from the capture instead (burst_figures: testreq, liveness_ok)."""
    with open(base) as f:
        text = f.read()
    text, n = re.subn(r"(?m)^CheckLatency=Y$", SIM_TIMERS, text)
    if n != 1:
        raise SystemExit(f"burst: {base} has no 'CheckLatency=Y' line to replace")
    path = os.path.join(out, "exchange.cfg")
    with open(path, "w") as f:
        f.write("# written by tools/bench/burst.py: tools/exchange/exchange.cfg with the simulation's timers\n" + text)
    return path


class BurstRun(demo.Demo):
    """One shape: exchange + SoC + burst, in OUT/<shape>."""

    def __init__(self, args, shape):
        args.out = os.path.relpath(os.path.join(args.out_base, shape), ROOT)
        super().__init__(args)
        self.shape = shape
        self.pcap = os.path.join(self.out, "burst.pcap")
        self.ctl_exch = os.path.join(self.out, "exchange.fifo")
        self.exch_lines = 0

    def narrate(self, line):
        if re.search(r"fix: (disconnecting|connection|logged|gap|TCP send)|stop \d+: fired", line):
            demo.say(f"soc: {line}")

    def start_exchange(self):
        bind = demo.KERNEL_IP if self.ns else "127.0.0.1"
        os.makedirs(self.exch_dir, exist_ok=True)
        if os.path.exists(self.ctl_exch):
            os.unlink(self.ctl_exch)
        os.mkfifo(self.ctl_exch)
        self.exch_out = open(os.path.join(self.exch_dir, "stdout.log"), "w")
        # in our own namespace the demo's port is ours; on libslirp (the host's loopback) any free port
        port = "9876" if self.ns else "0"
        cmd = self.netns_prefix() + ["java", "-jar", demo.JAR, "--settings", exchange_settings(self.out),
                                     "--bind", bind, "--port", port, "--log-dir", self.exch_dir, "--control", self.ctl_exch]
        self.exch = subprocess.Popen(cmd, stdout=self.exch_out, stderr=subprocess.STDOUT, cwd=ROOT)
        deadline = time.monotonic() + 60
        while time.monotonic() < deadline:
            m = re.search(r"EXCHANGE READY port=(\d+)", open(self.exch_out.name).read())
            if m:
                self.exch_port = int(m.group(1))
                demo.say(f"exchange: listening on {bind}:{self.exch_port} (pid {self.exch.pid})")
                return
            if self.exch.poll() is not None:
                raise SystemExit("burst: the exchange ended during start-up:\n" + open(self.exch_out.name).read()[-2000:])
            time.sleep(0.1)
        raise SystemExit("burst: the exchange did not start in 60 s")

    def exchange_lines(self):
        with open(self.exch_out.name, errors="replace") as f:
            return f.read().splitlines()

    def exchange_control(self, line):
        fd = os.open(self.ctl_exch, os.O_WRONLY | os.O_NONBLOCK)   # the exchange holds it open for reading
        try:
            os.set_blocking(fd, True)
            os.write(fd, (line + "\n").encode())
        finally:
            os.close(fd)

    def type(self, line):
        """A console line typed through tfctl (tools/tfctl: `type`): its output goes to the console log, where the
        counters, stop and fire lines are read, not into a reply."""
        self.tf.type(line)

    def ask(self, cmds, until, seconds=120):
        """Types commands and waits until a console line after them matches `until`; returns the lines since."""
        start = len(self.lines)
        for c in cmds:
            self.type(c)
        deadline = time.monotonic() + seconds
        rx = re.compile(until)
        while time.monotonic() < deadline:
            self.pump(0.3)
            if any(rx.search(l) for l in self.lines[start:]):
                self.pump(0.5)
                return self.lines[start:]
            if self.sim.poll() is not None:
                break
        demo.say(f"(the console did not answer {cmds} within {seconds} s)")
        return self.lines[start:]

    def counters(self):
        return parse_counters(self.ask(["fix", "fix hw", "net -a", "offload"],
                                       r"offload: this connection's fires of the trigger table"))

    def run(self):
        a = self.args
        net = self.setup_network()
        self.start_exchange()
        self.start_soc(net)
        self.wait_for(r"^net: MAC", 300, "network start-up")
        self.pump(0.5)
        self.connect()   # tfctl on the console's TCP port (tools/demo.py)
        self.tf.set_utc()
        self.type(f"fix set heartbeat {a.heartbeat}")
        # the SoC's clock, set once from the host, runs in simulated time, 100 to 1,000 times slower than the
        # exchange's: over minutes of wall time the exchange's SendingTime runs ahead of it by more than the session's
        # 120 s and the SoC would end the session ("SendingTime accuracy problem"), as the exchange would without
        # CheckLatency=N (exchange_settings). Liveness is judged in simulated time instead (burst_md).
        self.type("fix set skew off")
        if self.exch_port != 9876:
            self.type(f"fix set port {self.exch_port}")
        self.type("fix start")
        self.wait_for(r"^fix: subscribed", 300, "FIX logon and market data subscription")
        self.type("stop mode hw")
        for side, stop, limit in STOPS:
            self.type(f"stop {side} MSFT 100 {stop} {limit}")
        t = time.monotonic()
        while time.monotonic() < t + 180 and sum(1 for l in self.lines if re.search(r"stop \d+: in the hardware trigger table", l)) < len(STOPS):
            self.pump(0.5)
        loaded = sum(1 for l in self.lines if re.search(r"stop \d+: in the hardware trigger table", l))
        demo.say(f"soc: {loaded} of {len(STOPS)} stops in the hardware trigger table")
        if a.digest == "on":
            # the receive parser digests the session's market data (docs/DESIGN.md); firmware gets descriptors
            lines = self.ask(["offload digest on"], r"offload: digestion (on|off)$|offload: digestion needs|usage|unknown",
                             seconds=180)
            if not any(re.search(r"offload: digestion on$", l) for l in lines):
                raise SystemExit("burst: digestion did not switch on (the simulation's SoC is built with --digest: "
                                 f"the Makefile's SIM_SOC_FLAGS); the console said: {[l for l in lines if l.strip()][-3:]}")
            demo.say("soc: market-data digestion on")
        self.before = self.counters()
        self.mark = len(self.lines)
        cmd = burst_command(a.messages, self.shape, a.inflight)
        demo.say(f"exchange: {cmd}")
        self.exchange_control(cmd)
        t0 = time.monotonic()
        deadline = t0 + a.minutes * 60
        next_note = t0 + 60
        while time.monotonic() < deadline:
            self.pump(1.0)
            ex = parse_exchange(self.exchange_lines())
            if ex["drain"] is not None or ex["end"] == "aborted" or ex["logouts"]:
                break
            if ex["errors"] and ex["start"] is None:
                raise SystemExit(f"burst: the exchange refused the burst: {ex['errors']}")
            if self.sim.poll() is not None:
                raise SystemExit(f"burst: the simulation ended; see {self.log_path}")
            if time.monotonic() > next_note:
                sent = sum(1 for l in self.exchange_lines() if l.startswith("BURST SENT"))
                demo.say(f"{self.shape}: {time.monotonic() - t0:.0f} s{' (all written)' if sent else ''}")
                next_note += 60
        self.wall_s = round(time.monotonic() - t0)
        self.exch_cut = len(self.exchange_lines())   # the measurement ends here: the final Logout is not the burst's
        demo.say(f"{self.shape}: burst over after {self.wall_s} s: {', '.join(l for l in self.exchange_lines() if l.startswith('BURST ') and not l.startswith(('BURST CROSS', 'BURST TESTREQ')))}")
        self.pump(2.0)
        self.after = self.counters()
        self.events = session_events(self.lines[self.mark:])
        self.type("fix stop")
        self.wait_for(r"fix: connection (closed|reset by the peer); stopped|fix: stopped", 120, "the end of the session",
                      fatal=False)
        self.pump(1.0)
        self.stop_all()
        # the SoC's C header as built: the fire log's offset for the analysis (a --refigure reads this copy)
        shutil.copyfile(os.path.join(ROOT, "build/hw/sim/soc.h"), os.path.join(self.out, "soc.h"))
        with open(os.path.join(self.out, "run.json"), "w") as f:   # what figures() needs besides the files
            json.dump({"before": self.before, "after": self.after, "events": self.events, "exch_cut": self.exch_cut,
                       "wall_s": self.wall_s}, f, indent=1)

    def reload(self):
        """The state run() saved (--refigure: the figures again from a run's files, measuring nothing)."""
        with open(os.path.join(self.out, "run.json")) as f:
            st = json.load(f)
        self.before, self.after, self.events = st["before"], st["after"], st["events"]
        self.exch_cut, self.wall_s = st["exch_cut"], st["wall_s"]
        self.exch_out = open(os.path.join(self.exch_dir, "stdout.log"))

    def figures(self):
        a = self.args
        exch = parse_exchange(self.exchange_lines()[:self.exch_cut])
        late = parse_exchange(self.exchange_lines())   # fills and Heartbeats that came after the cut count too
        exch["fills"], exch["heartbeats"] = late["fills"], late["heartbeats"]
        frames, _ = load_frames(self.pcap, self.frames)
        stops = os.path.join(self.out, "stops.json")
        with open(stops, "w") as f:
            json.dump([{"symbol": "MSFT", "side": s, "stop": p} for s, p, _ in STOPS], f)
        try:
            console = analyze.load_console(self.log_path)
            # the fire log's offset from the run's copy of the SoC's C header (analyze.py --soc-header; a run saved
            # before the copy was kept read LiteEth's stream: the default offset)
            hdr = os.path.join(self.out, "soc.h")
            offset = analyze.hw_offset_from_header(hdr) if os.path.exists(hdr) else analyze.HW_FIRE_LOG_TO_T2T
            records, cap, _ = analyze.analyze(frames, analyze.load_stops(stops), None, None, analyze.Warnings(),
                                              125.0, console, offset)
        except analyze.InputError as e:
            raise SystemExit(f"burst: analyze: {e}")
        with open(os.path.join(self.out, "latency.json"), "w") as f:
            json.dump({"orders": records}, f, indent=1)
        first, last = burst_seqs(exch, a.messages)
        capfig = capture_figures(cap, first, last, a.sim_mhz, written_at_once=self.shape == "coalesced")
        w_seqs = sorted(_seq(m) for m in cap.messages("rx") if m.msg_type == "W" and _seq(m) is not None
                        and first <= _seq(m) <= last and is_burst_w(m))
        fires, cross = fires_in_burst(records, w_seqs, exch["crosses"], exch["fills"])
        fig = burst_figures(self.shape, a.messages, exch, self.before, self.after, self.events, capfig, fires, cross,
                            a.sim_mhz, a.heartbeat, a.inflight)
        fig["wall_seconds"] = self.wall_s
        fig["dir"] = os.path.relpath(self.out, ROOT)
        return fig


def run_shapes(args):
    results = {}
    path = os.path.join(args.out_base, "burst.json")
    for shape in args.shapes:
        demo.say(f"== burst, {shape}: {args.messages} W")
        r = BurstRun(args, shape)
        if args.refigure:
            r.reload()
        else:
            try:
                r.run()
            finally:
                r.stop_all()
        results[shape] = r.figures()
        with open(path, "w") as f:   # after each shape, so that a later failure keeps this one
            json.dump(results, f, indent=1)
        demo.say(f"{shape}: " + summary_line(results[shape]))
    return results


def summary_line(f):
    mps = f.get("msgs_per_segment") or {}
    dg = (f" (firmware {f['digested_fw']}, digested by the hardware {f['digested_hw']})" if f.get("digestion") else "")
    return (f"sent {f['messages_sent']}, taken {f.get('taken', f['digested_fw'])}{dg}, {f['w_per_s_sim']} W/s at {f['sim_sys_mhz']:g} MHz "
            f"({f['w_per_s_board']} at {f['board_sys_mhz']:g}), RX drops {f['rx_drops_full']}, TestRequest answer "
            f"max {f['testreq']['max_delay_sim_ms']} ms simulated, session {'kept' if f['session_survived'] else 'LOST: ' + str(f['session_end'])}, "
            f"{len(f['fires'])} fires in the burst, {f['segments']} segments ({mps.get('min')}..{mps.get('max')} W each)")


def load(out):
    """burst.json of a run (OUT/burst/burst.json), or None."""
    try:
        with open(os.path.join(out, "burst", "burst.json")) as f:
            return json.load(f)
    except (OSError, ValueError):
        return None


def _n(v, fmt="{:,}"):
    return "-" if v is None else fmt.format(v)


def burst_md(b):
    """report.md's section of the burst phase (b: burst.json, {shape: burst_figures()})."""
    lines = ["", BURST_HEADING + " market data into the live session with hardware stops armed (issue 15)", "",
             "N 35=W from the QuickFIX/J exchange at once, one message per TCP segment (`segment`: TCP_NODELAY, each "
             "message written when the SoC has acknowledged the bytes before it, so the kernel never merges two) and in "
             "full segments (`coalesced`: Nagle on, all written at once). Four one-shot hardware stops are crossed at "
             "1 %, 25 %, 50 % and 75 % of the burst; a TestRequest follows the middle message. Rates are the W the "
             "firmware digested (console `fix`: market data) over simulated time, from the burst's first byte on the "
             "wire to the SoC's ACK of the last burst message it acknowledged (it ACKs after its FIX layer has handled "
             "the data); with market-data digestion on (`offload digest on`), also the W the receive parser digested, "
             "which never reach the FIX layer (console `offload`: messages digested). The boards' figure assumes the same sys cycles per message at their sys clock. Target (issue "
             "15): at least 100,000 W/s at the boards' sys clock, 0 drops, session kept.", "",
             "| shape | digestion | sent | on the wire (segments, W per segment) | by firmware's parser | digested by the hardware | parsed by hardware "
             "| W/s simulated (sys) | W/s at the boards' sys | sys cycles per W | RX drops | TestRequest answer, max "
             "(simulated) | session | fires in the burst (T2T cycles) |",
             "|---|---|---|---|---|---|---|---|---|---|---|---|---|---|"]
    for shape, f in b.items():
        mps = f.get("msgs_per_segment") or {}
        seg = f"{_n(f['w_on_wire'])} ({_n(f['segments'])}, {mps.get('min', '-')}..{mps.get('max', '-')})"
        tr = f["testreq"]
        trs = ("-" if not tr["in_burst"] else
               f"{_n(tr['max_delay_sim_ms'], '{:,.1f}')} ms ({_n(tr.get('max_delay_board_ms'), '{:,.1f}')} ms at the boards' sys)"
               + (f", {len(tr['unanswered'])} unanswered" if tr["unanswered"] else ""))
        fires = ", ".join(f"#{x['index']} {x['t2t_cycles']}" + ("" if x["filled"] else " (not filled)") for x in f["fires"]) or "none"
        sess = ("kept" if f["session_survived"] else f["session_end"] if str(f["session_end"]).startswith("not over")
                else f"lost: {f['session_end']}")
        dg = f.get("digest_segments") or {}
        dgs = (f"on ({_n(dg.get('segments'))} segments digested, {_n(dg.get('passed'))} passed)" if f.get("digestion")
               else "off")
        lines.append(f"| {shape} | {dgs} | {_n(f['messages_sent'])} of {_n(f['messages_asked'])} | {seg} | {_n(f['digested_fw'])} | "
                     f"{_n(f.get('digested_hw'))} | "
                     f"{_n(f['parsed_hw'])} | {_n(f['w_per_s_sim'], '{:,.0f}')} at {f['sim_sys_mhz']:g} MHz | "
                     f"{_n(f['w_per_s_board'], '{:,.0f}')} at {f['board_sys_mhz']:g} MHz | {_n(f['sys_cycles_per_w'])} | "
                     f"{_n(f['rx_drops_full'])} | {trs} | {sess} | {fires} |")
    lines += ["", "Crossings: burst message (1-based), its trade price, the orders it fired:", ""]
    for shape, f in b.items():
        cr = "; ".join(f"#{c['index']} @ {c['px']}: {', '.join(c['orders']) or 'no order'}" for c in f["crossings"])
        lines.append(f"- {shape}: {cr or 'no crossing sent'}")
    hb = {f["heartbeat_s"] for f in b.values()}
    lines += ["", f"HeartBtInt {', '.join(str(h) for h in sorted(hb))} s. The simulation runs 100 to 1,000 times slower than "
              "the exchange's wall clock, so the exchange runs with CheckLatency=N and its heartbeat timers 1,000 times "
              "longer (burst.exchange_settings): otherwise it would end the session on the simulator's speed. Liveness "
              "is judged in simulated time instead: the TestRequests sent after the middle and the last message, from "
              "the simulated time the exchange wrote them (the burst's first byte when it was written at once; message "
              "K's first byte when each waited for the ACKs) to the first byte of the SoC's Heartbeat, scaled to the "
              "boards' sys clock and held against HeartBtInt: " + "; ".join(f"{sh} {'within' if f.get('liveness_ok') else 'NOT within'} it"
                                                  for sh, f in b.items()) + ".",
              "", "\"by firmware's parser\" is the console's count of every W; "
              + "; ".join(f"{sh}: {f.get('other_w') or 0} of them came from the real book (the rested liquidity, fills)"
                          for sh, f in b.items()) + ".", ""]
    return lines


BURST_HEADING = "## Burst:"


def merge_md(text, section):
    """report.md's text with its burst section (from BURST_HEADING to the next "## " heading) replaced by section
    (lines), or section appended when there was none (bench.py --burst-only on an earlier report)."""
    return report_merge.replace_section(text, BURST_HEADING, section)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--messages", type=int, default=10000, help="W messages per burst")
    ap.add_argument("--shapes", default=",".join(SHAPES), help="segment, coalesced or both (comma separated)")
    ap.add_argument("--heartbeat", type=int, default=30, help="the SoC's HeartBtInt (s)")
    ap.add_argument("--minutes", type=float, default=25, help="wall-clock limit of each burst (from the command to "
                    "the last ACK); a burst still going then is measured as far as it got")
    ap.add_argument("--inflight", type=int, default=0, help="segment shape: bytes the SoC may leave unacknowledged "
                    "when the next message is written (0: each message once the previous one is acknowledged)")
    ap.add_argument("--digest", choices=("on", "off"), default="on", help="market-data digestion by the receive "
                    "parser (`offload digest on`; off: firmware parses every W, the comparison)")
    ap.add_argument("--out", default="build/bench/burst")
    ap.add_argument("--slirp", action="store_true", help="use libslirp even as root")
    ap.add_argument("--refigure", action="store_true", help="measure nothing: the figures again from the files of the "
                    "last run in --out (its run.json, capture, console and exchange logs)")
    args = ap.parse_args(argv)
    args.shapes = [s for s in args.shapes.split(",") if s]
    if not args.shapes or any(s not in SHAPES for s in args.shapes) or args.messages < 1:
        raise SystemExit("burst: --shapes takes segment, coalesced or both; --messages at least 1")
    for p in () if args.refigure else (demo.SIM, demo.FW, demo.JAR):
        if not os.path.exists(p):
            raise SystemExit(f"burst: {os.path.relpath(p, ROOT)} is missing (make bench builds it)")
    args.out_base = os.path.join(ROOT, args.out)
    os.makedirs(args.out_base, exist_ok=True)
    args.sim_mhz = sim_sys_mhz()
    res = run_shapes(args)
    print("\n".join(burst_md(res)))
    return res


if __name__ == "__main__":
    main()
