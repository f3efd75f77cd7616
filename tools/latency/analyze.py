#!/usr/bin/env python3
"""Triggerfish latency analysis: tick-to-trade and friends from a simulation pcap + frame log.

    analyze.py --pcap P --frames F [--stops S] [--path hw|fw] [--fires FILE] [--json OUT] [--plot PNG]
               [--csv OUT] [--clock-mhz MHZ] [--quiet] [--strict]
    analyze.py --pcap P [--frames F] --dump          FIX messages per frame (no frame log needed)

Definitions (docs: /work/shared/DESIGN.md "Latency: how it is measured"; tools/latency/README.md):
    T2T     = order.sof_cycle - (trigger.sof_cycle + 8 + k)   k: frame offset of the SOH ending 270=<price>
    EOF2SOF = order.sof_cycle - trigger.eof_cycle
    SOF2SOF = order.sof_cycle - trigger.sof_cycle

Standard library only; matplotlib (Agg) is imported only for --plot. The summary part is importable:
    from analyze import summarize, format_summary       # records: dicts with "path" and "<metric>_cycles"
"""
import argparse
import bisect
import csv
import json
import os
import re
import statistics
import struct
import sys
from decimal import Decimal, InvalidOperation

METRICS = ("t2t", "eof2sof", "sof2sof")
METRIC_NAMES = {"t2t": "T2T", "eof2sof": "EOF2SOF", "sof2sof": "SOF2SOF"}
PATHS = ("hw", "fw")
RX_FRAME_OFFSET = 8  # 7 preamble bytes + SFD before the destination MAC on the RX pins (sim/eth)
DEFAULT_SOC_MAC = "02:54:46:00:00:02"  # fw/app/netif.c TF_NET_MAC
SOH = 0x01
M32 = 0xFFFFFFFF
MAX_BODY = 1 << 16  # a larger FIX BodyLength is taken as garbage

EXIT_OK, EXIT_INPUT, EXIT_UNTRIGGERED = 0, 2, 3


class InputError(Exception):
    """A problem with the inputs: printed as one clear message, exit status 2."""


class Warnings:
    def __init__(self, stream=None):
        self.items = []
        self.stream = stream

    def __call__(self, msg):
        self.items.append(msg)
        if self.stream is not None:
            print(f"analyze: warning: {msg}", file=self.stream)


# ---------------------------------------------------------------------------------------------
# pcap

PCAP_MAGICS = {
    b"\xd4\xc3\xb2\xa1": ("<", "us"),
    b"\xa1\xb2\xc3\xd4": (">", "us"),
    b"\x4d\x3c\xb2\xa1": ("<", "ns"),
    b"\xa1\xb2\x3c\x4d": (">", "ns"),
}
LINKTYPE_ETHERNET = 1


class PcapRecord:
    __slots__ = ("index", "ts_ns", "orig_len", "data")

    def __init__(self, index, ts_ns, orig_len, data):
        self.index, self.ts_ns, self.orig_len, self.data = index, ts_ns, orig_len, data


def read_pcap(path, warn):
    """Returns (resolution 'us'|'ns', [PcapRecord]) in file order. Raises InputError."""
    try:
        with open(path, "rb") as f:
            blob = f.read()
    except OSError as e:
        raise InputError(f"cannot read pcap {path}: {e.strerror}")
    if len(blob) < 24:
        raise InputError(f"{path}: not a pcap file ({len(blob)} bytes, shorter than the 24-byte header)")
    magic = blob[:4]
    if magic == b"\x0a\x0d\x0d\x0a":
        raise InputError(f"{path}: pcapng is not supported (convert: editcap -F pcap IN OUT)")
    if magic not in PCAP_MAGICS:
        raise InputError(f"{path}: not a pcap file (magic {magic.hex()})")
    endian, res = PCAP_MAGICS[magic]
    _vmaj, _vmin, _zone, _sig, _snap, network = struct.unpack(endian + "HHiIII", blob[4:24])
    linktype = network & 0x0FFFFFFF
    if linktype != LINKTYPE_ETHERNET:
        raise InputError(f"{path}: link type {linktype}, only Ethernet (1) is supported")
    recs = []
    off = 24
    hdr = struct.Struct(endian + "IIII")
    while off < len(blob):
        if off + 16 > len(blob):
            warn(f"{path}: truncated record header at byte {off} (ignored; was the file still being written?)")
            break
        sec, frac, incl, orig = hdr.unpack_from(blob, off)
        off += 16
        if off + incl > len(blob):
            warn(f"{path}: record {len(recs) + 1} truncated ({len(blob) - off} of {incl} bytes; ignored)")
            break
        if incl < orig:
            warn(f"{path}: record {len(recs) + 1} captured {incl} of {orig} bytes (snap length)")
        ts = sec * 1_000_000_000 + (frac if res == "ns" else frac * 1000)
        recs.append(PcapRecord(len(recs), ts, orig, bytes(blob[off:off + incl])))
        off += incl
    return res, recs


# ---------------------------------------------------------------------------------------------
# frame log (sim/eth: +eth-frame-log=FILE)

FRAME_LOG_COLUMNS = ("dir", "seq", "sof_ns", "eof_ns", "sof_cycle", "eof_cycle", "len", "status", "source")


class Frame:
    """One frame on the pins: pcap data + frame-log row (if any)."""
    __slots__ = ("index", "dir", "seq", "sof_ns", "eof_ns", "sof_cycle", "eof_cycle", "len", "status", "source",
                 "data", "usable", "seg", "note", "new_bytes", "dup_bytes")

    def __init__(self, index, data):
        self.index = index
        self.data = data
        self.dir = "?"
        self.seq = None
        self.sof_ns = self.eof_ns = self.sof_cycle = self.eof_cycle = None
        self.len = len(data)
        self.status = "ok"
        self.source = ""
        self.usable = True
        self.seg = None
        self.note = ""
        self.new_bytes = self.dup_bytes = 0

    @property
    def name(self):
        return f"{self.dir}#{self.seq if self.seq is not None else self.index + 1}"


def read_frame_log(path):
    try:
        f = open(path, newline="")
    except OSError as e:
        raise InputError(f"cannot read frame log {path}: {e.strerror}")
    rows = []
    with f:
        r = csv.reader(f)
        header = next(r, None)
        if header is None:
            raise InputError(f"{path}: empty frame log (no header)")
        header = [h.strip() for h in header]
        missing = [c for c in FRAME_LOG_COLUMNS if c not in header]
        if missing:
            raise InputError(f"{path}: not a frame log (missing columns {', '.join(missing)}; "
                             f"expected {','.join(FRAME_LOG_COLUMNS)})")
        col = {c: header.index(c) for c in FRAME_LOG_COLUMNS}
        for lineno, row in enumerate(r, start=2):
            if not row or all(not x.strip() for x in row):
                continue
            if len(row) < len(header):
                raise InputError(f"{path}:{lineno}: {len(row)} columns, expected {len(header)} (truncated line?)")
            try:
                d = {c: row[col[c]].strip() for c in FRAME_LOG_COLUMNS}
                for c in ("seq", "sof_ns", "eof_ns", "sof_cycle", "eof_cycle", "len"):
                    d[c] = int(d[c])
            except ValueError as e:
                raise InputError(f"{path}:{lineno}: bad number ({e})")
            if d["dir"] not in ("rx", "tx"):
                raise InputError(f"{path}:{lineno}: dir must be rx or tx, not {d['dir']!r}")
            d["line"] = lineno
            rows.append(d)
    return rows


def _len_compatible(pcap_len, row):
    st = row["status"]
    if st.startswith("bad-preamble"):
        return True  # the pcap has the whole burst, the log says 0
    if st == "raw":
        return pcap_len in (row["len"], row["len"] - 4)
    return pcap_len == row["len"]


def match_frames(res, recs, rows, pcap_path, log_path):
    """Pairs pcap records with frame-log rows. The harness writes both when a frame is complete (rows in
    completion order) and the pcap in time-stamp (SOF) order, ties in completion order; so the pcap order
    is the rows stably sorted by sof_ns. Checks time stamp (= sof_ns) and length of every pair."""
    if len(recs) != len(rows):
        raise InputError(_count_mismatch(res, recs, rows, pcap_path, log_path))

    def key_ns(ns):
        return ns if res == "ns" else ns // 1000

    rows_sorted = sorted(rows, key=lambda d: d["sof_ns"])
    frames = []
    i = 0
    n = len(recs)
    while i < n:
        k = key_ns(recs[i].ts_ns)
        j = i
        while j < n and key_ns(recs[j].ts_ns) == k:
            j += 1
        group_rows = rows_sorted[i:j]  # must all have this time stamp
        bad = [r for r in group_rows if key_ns(r["sof_ns"]) != k]
        if bad:
            r = bad[0]
            raise InputError(
                f"frame log {log_path} and pcap {pcap_path} do not match: pcap record {i + 1} has time stamp "
                f"{_fmt_ts(recs[i].ts_ns, res)} but the frame-log row in that place ({r['dir']}#{r['seq']}, "
                f"line {r['line']}) has sof_ns {r['sof_ns']}; were they written by the same run?")
        # in order when the lengths agree, else by length within the group (equal time stamps)
        pairs = list(zip(recs[i:j], group_rows))
        if not all(_len_compatible(p.orig_len, r) for p, r in pairs):
            unused = list(group_rows)
            pairs = []
            for p in recs[i:j]:
                cand = next((r for r in unused if _len_compatible(p.orig_len, r)), None)
                if cand is None:
                    raise InputError(
                        f"frame log {log_path} and pcap {pcap_path} do not match: pcap record {p.index + 1} "
                        f"({p.orig_len} bytes at {_fmt_ts(p.ts_ns, res)}) has no frame-log row of that length "
                        f"and time (rows there: " +
                        ", ".join(f"{r['dir']}#{r['seq']} len {r['len']}" for r in group_rows) + ")")
                unused.remove(cand)
                pairs.append((p, cand))
        for p, r in pairs:
            fr = Frame(p.index, p.data)
            fr.dir, fr.seq, fr.sof_ns, fr.eof_ns = r["dir"], r["seq"], r["sof_ns"], r["eof_ns"]
            fr.sof_cycle, fr.eof_cycle, fr.len, fr.status, fr.source = (r["sof_cycle"], r["eof_cycle"], r["len"],
                                                                        r["status"], r["source"])
            if r["status"] == "raw":
                fr.usable = p.orig_len == r["len"] - 4  # the pcap dropped a correct FCS
            else:
                fr.usable = r["status"] in ("ok", "ok-dropped")
            frames.append(fr)
        i = j
    frames.sort(key=lambda f: f.index)
    last = {}
    for f in frames:  # within one direction, frames never overlap: seq follows the pcap order
        if f.seq <= last.get(f.dir, 0):
            raise InputError(f"frame log {log_path}: {f.name} comes after {f.dir}#{last[f.dir]} in the pcap "
                             f"(rows out of order within a direction)")
        last[f.dir] = f.seq
    return frames


def _fmt_ts(ns, res):
    return f"{ns} ns" if res == "ns" else f"{ns // 1000} us"


def _count_mismatch(res, recs, rows, pcap_path, log_path):
    msg = (f"frame log {log_path} ({len(rows)} rows) and pcap {pcap_path} ({len(recs)} records) do not match")
    rows_sorted = sorted(rows, key=lambda d: d["sof_ns"])
    div = 1 if res == "ns" else 1000
    for i in range(min(len(recs), len(rows))):
        if recs[i].ts_ns // div != rows_sorted[i]["sof_ns"] // div:
            r = rows_sorted[i]
            return (msg + f"; first difference at position {i + 1}: pcap {_fmt_ts(recs[i].ts_ns, res)}, "
                    f"frame log {r['dir']}#{r['seq']} sof_ns {r['sof_ns']}")
    if len(recs) > len(rows):
        msg += f"; the pcap has {len(recs) - len(rows)} more at the end (from {_fmt_ts(recs[len(rows)].ts_ns, res)})"
    else:
        r = rows_sorted[len(recs)]
        msg += f"; the frame log has {len(rows) - len(recs)} more at the end (from {r['dir']}#{r['seq']})"
    return msg + " (same run? simulation stopped before both were flushed?)"


def check_clock(frames, warn):
    """The harness counts RX and TX cycles on one 125 MHz Ethernet clock (sim/main.cpp), so cycles of the
    two directions can be subtracted. Checks that ns and cycles agree on one period and one offset."""
    fl = [f for f in frames if f.sof_cycle is not None]
    if len(fl) < 2:
        return 8.0
    a = min(fl, key=lambda f: f.sof_cycle)
    b = max(fl, key=lambda f: f.sof_cycle)
    period = 8.0
    if b.sof_cycle != a.sof_cycle:
        period = (b.sof_ns - a.sof_ns) / (b.sof_cycle - a.sof_cycle)
    off = a.sof_ns - a.sof_cycle * period
    bad = [f for f in fl if abs(f.sof_ns - f.sof_cycle * period - off) > 0.5 or
           abs(f.eof_ns - f.eof_cycle * period - off) > 0.5]
    if bad:
        warn(f"ns and cycle columns of the frame log are not on one clock ({len(bad)} frames off, e.g. "
             f"{bad[0].name}); RX and TX cycle numbers may not be comparable")
    for f in fl:
        if f.dir == "rx" and f.status == "ok" and f.eof_cycle - f.sof_cycle + 1 != RX_FRAME_OFFSET + f.len + 4:
            warn(f"{f.name}: {f.eof_cycle - f.sof_cycle + 1} byte times on the pins, expected "
                 f"8 + {f.len} + 4; the triggering-byte cycle may be off")
            break
    return period


def assign_dir_by_mac(frames, soc_mac):
    mac = bytes(int(x, 16) for x in soc_mac.split(":"))
    for f in frames:
        if len(f.data) < 12:
            continue
        if f.data[6:12] == mac:
            f.dir = "tx"
        elif f.data[0:6] == mac or f.data[0] & 1:
            f.dir = "rx"


def frames_without_log(recs):
    frames = []
    for p in recs:
        fr = Frame(p.index, p.data)
        fr.sof_ns = p.ts_ns
        fr.len = p.orig_len
        frames.append(fr)
    return frames


# ---------------------------------------------------------------------------------------------
# Ethernet / IPv4 / TCP

class Seg:
    __slots__ = ("src", "dst", "sport", "dport", "seq", "ack", "flags", "payload", "poff", "ip_ok", "tcp_ok")

    @property
    def conn(self):
        return (self.src, self.sport, self.dst, self.dport)

    def flag_str(self):
        return "".join(c for c, b in zip("FSRPAU", (1, 2, 4, 8, 16, 32)) if self.flags & b) or "."


def ip_str(b):
    return ".".join(str(x) for x in b)


def inet_csum(b):
    if len(b) % 2:
        b = b + b"\0"
    s = sum(struct.unpack(f"!{len(b) // 2}H", b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def decode_tcp(data):
    """Returns (Seg, None), (None, reason) for a broken IPv4/TCP frame, or (None, None) for other traffic."""
    if len(data) < 14:
        return None, None
    et = struct.unpack_from("!H", data, 12)[0]
    off = 14
    while et in (0x8100, 0x88A8, 0x9100) and len(data) >= off + 4:
        et = struct.unpack_from("!H", data, off + 2)[0]
        off += 4
    if et != 0x0800:
        return None, None
    if len(data) < off + 20:
        return None, "IPv4 header truncated"
    vihl = data[off]
    ihl = (vihl & 15) * 4
    if vihl >> 4 != 4 or ihl < 20 or len(data) < off + ihl:
        return None, "bad IPv4 header"
    total = struct.unpack_from("!H", data, off + 2)[0]
    frag = struct.unpack_from("!H", data, off + 6)[0]
    proto = data[off + 9]
    if proto != 6:
        return None, None
    if frag & 0x3FFF:
        return None, "IPv4 fragment (not reassembled)"
    if total < ihl:
        return None, "IPv4 total length below the header length"
    end = off + total
    if end > len(data):
        return None, f"IPv4 total length {total} beyond the frame"
    t = off + ihl
    if end - t < 20:
        return None, "TCP header truncated"
    doff = (data[t + 12] >> 4) * 4
    if doff < 20 or t + doff > end:
        return None, "bad TCP data offset"
    s = Seg()
    s.src, s.dst = ip_str(data[off + 12:off + 16]), ip_str(data[off + 16:off + 20])
    s.sport, s.dport, s.seq, s.ack = struct.unpack_from("!HHII", data, t)
    s.flags = data[t + 13]
    s.poff = t + doff
    s.payload = data[s.poff:end]
    s.ip_ok = inet_csum(data[off:off + ihl]) == 0
    pseudo = data[off + 12:off + 20] + struct.pack("!BBH", 0, 6, end - t)
    s.tcp_ok = inet_csum(pseudo + data[t:end]) == 0
    return s, None


# ---------------------------------------------------------------------------------------------
# TCP stream reassembly (first copy of every byte counts)

class TcpStream:
    """One direction of one TCP connection. Bytes are delivered in sequence order; each stream byte
    remembers the frame (and the offset in it) of the first copy that carried it."""

    def __init__(self, conn, direction, number):
        self.conn, self.dir, self.number = conn, direction, number
        self.base = None   # sequence number of stream offset 0
        self.next = 0      # stream offset delivered up to
        self.pending = []  # [rel, payload, frame, poff, arrival]
        self.arrival = 0
        self.data = bytearray()
        self.chunk_start = []  # stream offsets (sorted) of delivered chunks
        self.chunk_src = []    # (frame, frame offset of the chunk's first byte)
        self.messages = []
        self.fix = FixParser(self)
        self.has_data = False

    def rel(self, seq):
        r = (seq - self.base) & M32
        return r - (1 << 32) if r >= 1 << 31 else r

    def segment(self, seg, frame):
        """Returns the number of (new, duplicate) payload bytes of this segment at arrival."""
        seq = seg.seq
        if seg.flags & 2:  # SYN
            self.base = (seq + 1) & M32
            seq = self.base
        if not seg.payload:
            return 0, 0
        if self.base is None:
            self.base = seq
        self.has_data = True
        rel = self.rel(seq)
        end = rel + len(seg.payload)
        dup = max(0, min(end, self.next) - rel)
        if end <= self.next:
            return 0, len(seg.payload)
        self.pending.append([rel, seg.payload, frame, seg.poff, self.arrival])
        self.arrival += 1
        self._drain()
        return len(seg.payload) - dup, dup

    def _drain(self):
        while True:
            self.pending = [p for p in self.pending if p[0] + len(p[1]) > self.next]
            cover = [p for p in self.pending if p[0] <= self.next]
            if not cover:
                return
            best = min(cover, key=lambda p: p[4])
            end = best[0] + len(best[1])
            for p in self.pending:  # an earlier copy starting inside owns its bytes
                if p[4] < best[4] and self.next < p[0] < end:
                    end = p[0]
            a = self.next - best[0]
            b = end - best[0]
            self.chunk_start.append(self.next)
            self.chunk_src.append((best[2], best[3] + a))
            self.data += best[1][a:b]
            self.next = end
            self.fix.feed()

    def where(self, off):
        """(frame, offset in the frame) of stream byte off."""
        i = bisect.bisect_right(self.chunk_start, off) - 1
        fr, foff = self.chunk_src[i]
        return fr, foff + (off - self.chunk_start[i])

    def finish(self, warn):
        if self.pending:
            warn(f"{self.dir} {conn_str(self.conn)}: {sum(len(p[1]) for p in self.pending)} bytes after a "
                 f"sequence gap never filled (segment missing from the capture); not analysed")
        self.fix.finish(warn)


def conn_str(c):
    return f"{c[0]}:{c[1]} > {c[2]}:{c[3]}"


# ---------------------------------------------------------------------------------------------
# FIX

class FixMsg:
    __slots__ = ("stream", "start", "end", "fields", "checksum_ok", "note")

    def __init__(self, stream, start, end, fields):
        self.stream, self.start, self.end, self.fields = stream, start, end, fields
        self.checksum_ok = None
        self.note = ""

    def get(self, tag, default=None):
        for t, v, _s, _e in self.fields:
            if t == tag:
                return v
        return default

    @property
    def msg_type(self):
        return self.get("35", "?")

    def text(self):
        return "|".join(f"{t}={v}" for t, v, _s, _e in self.fields) + "|"

    def first_frame(self):
        return self.stream.where(self.start)[0]

    def last_frame(self):
        return self.stream.where(self.end - 1)[0]


class FixParser:
    """Cuts FIX messages out of a reassembled stream: 8=...|9=N|<N bytes>10=ccc|. Falls back to looking
    for |10=ccc| when BodyLength is wrong; skips (and reports) bytes that are not FIX."""

    def __init__(self, stream):
        self.s = stream
        self.pos = 0
        self.skipped = 0

    def feed(self):
        buf = self.s.data
        while True:
            if self.pos >= len(buf):
                return
            if not buf.startswith(b"8=", self.pos):
                nxt = buf.find(b"8=FIX", self.pos)
                if nxt < 0:
                    keep = max(self.pos, len(buf) - 4)
                    self.skipped += keep - self.pos
                    self.pos = keep
                    return
                self.skipped += nxt - self.pos
                self.pos = nxt
            p = self.pos
            e8 = buf.find(b"\x01", p)
            if e8 < 0:
                return
            if not buf.startswith(b"9=", e8 + 1):
                if len(buf) < e8 + 3:
                    return
                self._resync()
                continue
            e9 = buf.find(b"\x01", e8 + 1)
            if e9 < 0:
                if len(buf) - e8 > 16:
                    self._resync()
                    continue
                return
            try:
                body_len = int(bytes(buf[e8 + 3:e9]))
            except ValueError:
                body_len = -1
            if body_len > MAX_BODY:
                body_len = -1
            end = None
            note = ""
            if body_len >= 0:
                tail = e9 + 1 + body_len
                if len(buf) < tail + 7:
                    return
                if _is_checksum(buf, tail):
                    end = tail + 7
            if end is None:  # BodyLength wrong: the first |10=ccc| after 9
                i = buf.find(b"\x0110=", e9)
                while i >= 0 and not _is_checksum(buf, i + 1):
                    i = buf.find(b"\x0110=", i + 1)
                if i < 0:
                    nxt = buf.find(b"8=FIX", p + 1)
                    if nxt >= 0:  # another message starts: this one is broken
                        self.skipped += nxt - p
                        self.pos = nxt
                        continue
                    return
                end = i + 8
                note = f"BodyLength {body_len} does not match"
            msg = FixMsg(self.s, p, end, _fields(buf, p, end))
            msg.note = note
            cks = msg.get("10")
            msg.checksum_ok = cks is not None and cks.isdigit() and int(cks) == sum(buf[p:end - 7]) % 256
            self.s.messages.append(msg)
            self.pos = end

    def _resync(self):
        nxt = self.s.data.find(b"8=FIX", self.pos + 1)
        nxt = nxt if nxt >= 0 else len(self.s.data)
        self.skipped += nxt - self.pos
        self.pos = nxt

    def finish(self, warn):
        rest = len(self.s.data) - self.pos
        if rest > 0:
            warn(f"{self.s.dir} {conn_str(self.s.conn)}: {rest} bytes at the end of the stream are not a "
                 f"complete FIX message")
        if self.skipped:
            warn(f"{self.s.dir} {conn_str(self.s.conn)}: skipped {self.skipped} bytes that are not FIX")


def _is_checksum(buf, i):
    return (buf.startswith(b"10=", i) and len(buf) >= i + 7 and buf[i + 6] == SOH
            and all(0x30 <= c <= 0x39 for c in buf[i + 3:i + 6]))


def _fields(buf, start, end):
    out = []
    i = start
    while i < end:
        j = buf.find(b"\x01", i, end)
        if j < 0:
            j = end
        f = bytes(buf[i:j]).decode("latin-1")
        tag, _eq, val = f.partition("=")
        out.append((tag, val, i, j))
        i = j + 1
    return out


def md_trade_entries(msg):
    """For a 35=W: [(symbol, price Decimal|None, price text, stream offset of the SOH ending 270)] for
    every 269=2 entry that has a 270."""
    sym = msg.get("55")
    out = []
    cur = None
    priced = False
    for t, v, _s, e in msg.fields:
        if t == "269":
            cur, priced = v, False
        elif t == "270" and cur == "2" and not priced:
            priced = True
            try:
                px = Decimal(v)
            except InvalidOperation:
                px = None
            out.append((sym, px, v, e))
    return out


# ---------------------------------------------------------------------------------------------
# analysis

def side_of(v):
    return {"1": "buy", "3": "buy", "2": "sell", "4": "sell", "5": "sell", "6": "sell"}.get(v or "", "?")


def load_stops(path):
    try:
        with open(path) as f:
            data = json.load(f)
    except OSError as e:
        raise InputError(f"cannot read stops file {path}: {e.strerror}")
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: not JSON ({e})")
    if not isinstance(data, list):
        raise InputError(f"{path}: expected a JSON list of {{\"symbol\", \"side\", \"stop\"}}")
    stops = []
    for i, s in enumerate(data):
        if not isinstance(s, dict) or not {"symbol", "side", "stop"} <= set(s):
            raise InputError(f"{path}: entry {i}: expected {{\"symbol\", \"side\", \"stop\"}}, got {s!r}")
        side = str(s["side"]).strip().lower()
        side = {"b": "buy", "1": "buy", "s": "sell", "2": "sell"}.get(side, side)
        if side not in ("buy", "sell"):
            raise InputError(f"{path}: entry {i}: side must be buy or sell, not {s['side']!r}")
        try:
            px = Decimal(str(s["stop"]))
        except InvalidOperation:
            raise InputError(f"{path}: entry {i}: bad stop price {s['stop']!r}")
        repeat = s.get("repeat", False)
        if not isinstance(repeat, bool):
            raise InputError(f"{path}: entry {i}: repeat must be true or false, not {repeat!r}")
        after = s.get("armed_after")
        if after is not None and (not isinstance(after, str) or not after):
            raise InputError(f"{path}: entry {i}: armed_after must be a ClOrdID (a string), not {after!r}")
        stops.append({"symbol": str(s["symbol"]), "side": side, "stop": px, "repeat": repeat,
                      "armed_after": after, "entry": i})
    return stops


def norm_path(v):
    p = str(v).strip().lower()
    p = {"hardware": "hw", "firmware": "fw", "sw": "fw", "software": "fw"}.get(p, p)
    if p not in PATHS:
        raise ValueError(v)
    return p


def load_fires(path):
    """ClOrdID -> hw|fw from JSON ({id: path} or [{clordid, path}]) or CSV (clordid,path; header optional)."""
    try:
        with open(path, newline="") as f:
            text = f.read()
    except OSError as e:
        raise InputError(f"cannot read fires file {path}: {e.strerror}")
    out = {}
    id_keys = ("clordid", "ClOrdID", "cl_ord_id", "11", "id", "order")
    path_keys = ("path", "by", "fired_by", "source")
    try:
        if text.lstrip()[:1] in ("{", "["):
            data = json.loads(text)
            if isinstance(data, dict):
                items = list(data.items())
            elif isinstance(data, list):
                items = []
                for e in data:
                    k = next((e[x] for x in id_keys if isinstance(e, dict) and x in e), None)
                    p = next((e[x] for x in path_keys if isinstance(e, dict) and x in e), None)
                    if k is None or p is None:
                        raise InputError(f"{path}: entry {e!r} has no ClOrdID or path key")
                    items.append((k, p))
            else:
                raise InputError(f"{path}: expected a JSON object or list")
            for k, p in items:
                out[str(k)] = norm_path(p)
        else:
            for n, row in enumerate(csv.reader(text.splitlines()), start=1):
                if not row or row[0].strip().startswith("#"):
                    continue
                if len(row) < 2:
                    raise InputError(f"{path}:{n}: expected ClOrdID,path")
                try:
                    out[row[0].strip()] = norm_path(row[1])
                except ValueError:
                    if n == 1:
                        continue  # header
                    raise
    except json.JSONDecodeError as e:
        raise InputError(f"{path}: not JSON ({e})")
    except ValueError as e:
        raise InputError(f"{path}: path must be hw or fw, not {e.args[0]!r}")
    return out


class Capture:
    """Frames + TCP streams + FIX messages of one capture."""

    def __init__(self, frames, warn, drop_bad_checksums=False):
        """drop_bad_checksums: a frame with a bad IPv4 header or TCP checksum is not used (a wire capture, as the
        simulation's: the receiver drops it, and its retransmission is the copy that counts); otherwise it is used
        and counted (a capture on a host with checksum offload has checksums the NIC fills in later)."""
        self.frames = frames
        self.streams = []
        self.warn = warn
        self.bad = {}
        live = {}
        counts = {}
        for fr in frames:
            seg, why = decode_tcp(fr.data)
            if why:
                self.bad[why] = self.bad.get(why, 0) + 1
                fr.note = why
            if seg is None:
                continue
            fr.seg = seg
            if not fr.usable:
                fr.note = f"status {fr.status}: not used"
                if b"\x0135=D\x01" in seg.payload or b"\x0135=W\x01" in seg.payload:
                    warn(f"{fr.name} ({fr.status}) carries FIX 35=D/W but is not a good frame; not analysed")
                continue
            if not seg.ip_ok or not seg.tcp_ok:
                what = "IPv4 header" if not seg.ip_ok else "TCP"
                fr.note = f"bad {what} checksum" + (": not used (the receiver drops it)" if drop_bad_checksums else "")
                self.bad[fr.note] = self.bad.get(fr.note, 0) + 1
                if drop_bad_checksums:
                    continue
            key = (fr.dir, seg.conn)
            st = live.get(key)
            if st is not None and seg.flags & 2 and st.has_data and ((seg.seq + 1) & M32) != st.base:
                st = None  # a new connection on the same 4-tuple
            if st is None:
                counts[key] = counts.get(key, 0) + 1
                st = TcpStream(seg.conn, fr.dir, counts[key])
                live[key] = st
                self.streams.append(st)
            fr.new_bytes, fr.dup_bytes = st.segment(seg, fr)
        for st in self.streams:
            st.finish(warn)
        for why, n in sorted(self.bad.items()):
            warn(f"{n} frame(s): {why}")

    def messages(self, direction=None):
        out = [m for st in self.streams if direction in (None, st.dir) for m in st.messages]
        out.sort(key=lambda m: (m.first_frame().index, m.stream.where(m.start)[1]))
        return out


# ---------------------------------------------------------------------------------------------
# the SoC console's fire lines (fw/app/stops.c fired(), stops_hw_fired())

# "stop 1: fired by hardware on trade 1169.00: order 3 TF00002 sent, MsgSeqNum 9, 396 cycles from the price to the MAC"
# "stop 0: fired by firmware on trade 100.15: order 2 TF00005 sent"
# "stop 4: fired by hardware on trade 100.15: order TF00007 sent, not tracked (order table: -1), MsgSeqNum ..."
# "stop 2: fired by firmware on trade ?: order NOT sent (-1)"   (no order on the wire: ignored)
FIRE_LINE = re.compile(r"stop (\d+): fired by (hardware|firmware) on trade (\S+?): order (?:-?\d+ )?(?!NOT sent)(\S+) sent"
                       r"(?:, not tracked \([^)]*\))?(?:, MsgSeqNum (\d+), (\d+) cycles from the price to the MAC)?")
# The order engine's fire log: cycles = tx stamp - rx stamp (fw/app/offload.c handle()). The rx stamp is the
# eth_rx cycle the price's SOH was on the parser, 6 cycles after it was on the RX pins (OFFLOAD_RX_STAMP_TO_PINS,
# hw/src/triggerfish/offload/README.md); TX_EN rises 3 cycles after the tx stamp (README-tx.md "Fire log"; 4 while the
# MAC had a buffer in front of its TX CRC inserter). So T2T on the pins = cycles + 6 + 3. A build with early fires reads
# the lean receive tap (EthRxLeanTap), 1 cycle after the pins: cycles + 1 + 3; --soc-header reads the build's constant.
HW_FIRE_LOG_TO_T2T = 9
HW_TX_STAMP_TO_PINS = 3   # TX_EN after the tx stamp; the rx side is the build's OFFLOAD_RX_STAMP_TO_PINS (--soc-header)


def hw_offset_from_header(path):
    """T2T minus the fire log's cycles for the SoC whose generated C header is `path`: its OFFLOAD_RX_STAMP_TO_PINS (6
    on LiteEth's stream, 1 on the lean tap of builds with early fires) plus HW_TX_STAMP_TO_PINS."""
    try:
        with open(path, errors="replace") as f:
            text = f.read()
    except OSError as e:
        raise InputError(f"cannot read SoC header {path}: {e.strerror}")
    m = re.search(r"^#define\s+OFFLOAD_RX_STAMP_TO_PINS\s+(\d+)U?\b", text, re.M)
    if not m:
        raise InputError(f"{path} defines no OFFLOAD_RX_STAMP_TO_PINS (not a SoC header of a build with the offload)")
    return int(m.group(1)) + HW_TX_STAMP_TO_PINS


HW_TOLERANCE = 2


def load_console(path):
    """The fire lines of a SoC console log: {ClOrdID: {"stop", "path", "trade" (text, "?" when unknown),
    "trade_px" (Decimal|None), "msgseqnum", "cycles" (int|None; hardware fires), "line"}}."""
    try:
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise InputError(f"cannot read console log {path}: {e.strerror}")
    out = {}
    for n, line in enumerate(lines, start=1):
        m = FIRE_LINE.search(line)
        if not m:
            continue
        cid = m.group(4)
        if cid in out:
            raise InputError(f"{path}:{n}: ClOrdID {cid} fired twice (first at line {out[cid]['line']})")
        try:
            px = None if m.group(3) == "?" else Decimal(m.group(3))
        except InvalidOperation:
            raise InputError(f"{path}:{n}: bad trade price {m.group(3)!r} in a fire line")
        out[cid] = {"stop": int(m.group(1)), "path": "hw" if m.group(2) == "hardware" else "fw",
                    "trade": m.group(3), "trade_px": px, "msgseqnum": m.group(5),
                    "cycles": int(m.group(6)) if m.group(6) is not None else None, "line": n}
    return out


def load_fire_events(path):
    """The same as load_console from the machine protocol's stop.fired events (docs/PROTOCOL.md): a file of one
    event per line as `tfctl watch --json` writes them ({"ev": "stop.fired", "seq": N, ...}; a leading '@', the
    console's machine line, is allowed; other events and lines that are not JSON objects are skipped). A fire whose
    order has no ClOrdID (a hardware order the order table had no room to track) is left out."""
    try:
        with open(path, errors="replace") as f:
            lines = f.read().splitlines()
    except OSError as e:
        raise InputError(f"cannot read events file {path}: {e.strerror}")
    out = {}
    for n, line in enumerate(lines, start=1):
        line = line.strip().lstrip("@")
        try:
            ev = json.loads(line) if line.startswith("{") else None
        except json.JSONDecodeError:
            ev = None
        if not isinstance(ev, dict) or ev.get("ev") != "stop.fired" or not ev.get("clordid"):
            continue
        cid = str(ev["clordid"])
        if cid in out:
            raise InputError(f"{path}:{n}: ClOrdID {cid} fired twice (first at line {out[cid]['line']})")
        try:
            px = Decimal(str(ev.get("trade")))
            px = px if px > 0 else None  # a fire whose trade the firmware did not know
        except InvalidOperation:
            px = None
        hw = bool(ev.get("by_hw"))
        out[cid] = {"stop": int(ev.get("stop", -1)), "path": "hw" if hw else "fw", "trade": str(px) if px else "?",
                    "trade_px": px, "msgseqnum": str(ev.get("msgseq", "")) or None,
                    "cycles": int(ev["cycles"]) if hw and "cycles" in ev else None, "line": n}
    return out


class Trade:
    """One 269=2 entry with a 270 price of an RX 35=W: the SOH ending its 270 is byte k of frame."""
    __slots__ = ("symbol", "px", "text", "msg", "frame", "k", "cycle")

    def __init__(self, symbol, px, text, msg, frame, k):
        self.symbol, self.px, self.text, self.msg, self.frame, self.k = symbol, px, text, msg, frame, k
        self.cycle = frame.sof_cycle + RX_FRAME_OFFSET + k  # the SOH on the RX pins

    def name(self):
        return f"{self.frame.name} k={self.k} 270={self.text}"


def crosses(side, stop, px):
    """fw/app/stops.c stop_crosses(): a buy stop at or above, a sell stop at or below."""
    return px >= stop if side == "buy" else px <= stop


def analyze(frames, stops=None, path_label=None, fires=None, warn=None, clock_mhz=125.0, console=None,
            hw_offset=HW_FIRE_LOG_TO_T2T, hw_tolerance=HW_TOLERANCE, drop_bad_checksums=False):
    """frames: Frames matched with the frame log (cycles). stops: load_stops() or None; path_label: hw|fw
    or None; fires: load_fires() or None; console: load_console() or None. Returns (per-order records
    (dicts, RECORD_KEYS), the Capture, the number of TX segments that only repeated bytes already sent)."""
    warn = warn or Warnings()
    cap = Capture(frames, warn, drop_bad_checksums)
    trades = {}  # symbol -> [Trade] in the order their SOH was on the pins
    for m in cap.messages("rx"):
        if m.msg_type != "W":
            continue
        for sym, px, text, soh in md_trade_entries(m):
            fr, k = m.stream.where(soh)
            trades.setdefault(sym, []).append(Trade(sym, px, text, m, fr, k))
    for lst in trades.values():
        lst.sort(key=lambda t: t.cycle)

    orders = []
    order_msgs = []
    seen_ids = {}
    for m in cap.messages("tx"):
        if m.msg_type != "D":
            continue
        fr = m.first_frame()
        if m.get("43") == "Y":
            warn(f"{fr.name}: 35=D 11={m.get('11')} with PossDupFlag 43=Y (FIX resend) is not a new order; ignored")
            continue
        rec = order_record(m, fr)
        if rec["clordid"] in seen_ids:
            warn(f"ClOrdID {rec['clordid']} sent again in {fr.name} (first in {seen_ids[rec['clordid']]})")
        seen_ids.setdefault(rec["clordid"], fr.name)
        fire = console.get(rec["clordid"]) if console else None
        if fires and rec["clordid"] in fires:
            rec["path"], rec["path_from"] = fires[rec["clordid"]], "fires"
            if fire and fire["path"] != rec["path"]:
                warn(f"order {rec['clordid']}: the fires file says {rec['path']}, the console {fire['path']}")
        elif fire:
            rec["path"], rec["path_from"] = fire["path"], "console"
        elif path_label:
            rec["path"], rec["path_from"] = path_label, "--path"
        if fire:
            rec.update({"fire_stop": fire["stop"], "fire_path": fire["path"], "fire_trade": fire["trade"],
                        "fire_cycles": fire["cycles"]})
        orders.append((rec, fr))
        order_msgs.append(m)

    if stops is not None:
        answered = answered_before(cap, [(rec, fr, m) for (rec, fr), m in zip(orders, order_msgs)])
        pair_with_stops(orders, trades, stops, console, answered, hw_offset, hw_tolerance)
    else:
        for rec, fr in orders:
            if console is not None and rec["clordid"] not in console:
                rec["no_trigger"] = "not a stop's order (no fire line for it in the console log)"
            else:
                latest_trade_before(rec, fr, trades)
    for rec, fr in orders:
        fill_metrics(rec, fr, clock_mhz)
        if console is not None:
            cross_check(rec, console.get(rec["clordid"]), trades, hw_offset, hw_tolerance)
    records = [r for r, _ in orders]

    if fires:
        missing = sorted(set(fires) - set(seen_ids))
        if missing:
            warn(f"{len(missing)} ClOrdID(s) of the fires file not among the orders: {', '.join(missing[:5])}"
                 + (" ..." if len(missing) > 5 else ""))
    if console:
        missing = sorted(set(console) - set(seen_ids), key=lambda c: console[c]["line"])
        if missing:
            warn(f"{len(missing)} order(s) of the console's fire lines not in the capture: {', '.join(missing[:5])}"
                 + (" ..." if len(missing) > 5 else ""))
    unk = [r for r in records if r["path"] == "unknown"]
    if unk and (fires or path_label or console):
        warn(f"{len(unk)} order(s) without a path (not in the fires file or the console's fire lines, no --path)")
    for r in records:
        if r["t2t_cycles"] is not None and r["t2t_cycles"] < 0:
            warn(f"order {r['clordid']} ({r['tx']}) starts before its triggering byte (T2T {r['t2t_cycles']} "
                 f"cycles): is the trigger right?")
    dup_tx = sum(1 for f in frames if f.dir == "tx" and f.seg is not None and f.dup_bytes and not f.new_bytes)
    return records, cap, dup_tx


def answered_before(cap, orders):
    """For each order (rec, frame, message): (cycle, name) of the last RX TestRequest (35=1) whose Heartbeat (35=0
    with its 112) the SoC sent before the order in its TX stream, or None. Firmware fires a stop while it handles the
    W and writes the order before it handles the next message, so such a TestRequest came before the trade that
    fired a firmware order: the cycle is its first byte on the RX pins. Returns {id(rec): (cycle, name) | None}."""
    reqs = {}  # TestReqID -> [(cycle of the first byte on the RX pins, name)]
    for m in cap.messages("rx"):
        if m.msg_type == "1" and m.get("112"):
            fr, k = m.stream.where(m.start)
            reqs.setdefault(m.get("112"), []).append((fr.sof_cycle + RX_FRAME_OFFSET + k,
                                                      f"{fr.name} 112={m.get('112')}"))
    per_stream = {}  # TX stream -> ([message start offsets], [running max (cycle, name)]), in stream order
    answers = []     # (stream, heartbeat's first frame SOF, (cycle, name))
    for st in cap.streams:
        if st.dir != "tx":
            continue
        starts, best, cur = [], [], None
        for m in st.messages:
            if m.msg_type != "0" or m.get("112") not in reqs:
                continue
            hb_sof = m.first_frame().sof_cycle
            before = [r for r in reqs[m.get("112")] if r[0] < hb_sof]
            if not before:
                continue
            a = max(before)
            answers.append((st, hb_sof, a))
            cur = a if cur is None or a[0] > cur[0] else cur
            starts.append(m.start)
            best.append(cur)
        per_stream[st] = (starts, best)
    out = {}
    for rec, fr, m in orders:
        starts, best = per_stream.get(m.stream, ([], []))
        i = bisect.bisect_left(starts, m.start)
        a = best[i - 1] if i else None
        for st, hb_sof, b in answers:  # another connection's answers, sent before this order
            if st is not m.stream and hb_sof < fr.sof_cycle and (a is None or b[0] > a[0]):
                a = b
        out[id(rec)] = a
    return out


def pair_with_stops(orders, trades, stops, console, answered=None, hw_offset=HW_FIRE_LOG_TO_T2T,
                    hw_tolerance=HW_TOLERANCE):
    """Pairs each order with the trade that fired its stop: the first trade of the order's symbol that crosses
    a stop of the order's side after that stop was armed (the capture's start, or the TX of its armed_after
    order) or last fired. A stop is one-shot per arm: once it paired an order it pairs no other unless it is
    `repeat` (armed again at once by firmware; by a hardware order only after that order went out, since
    firmware re-loads the trigger entry when it handles the fire log). Orders in TX order; with several live
    stops the earliest crossing trade wins. With a console log, only orders with a fire line are stop orders.
    Two bounds from the capture and the console where the arming is not in the capture:
    - a firmware order's trigger comes after every TestRequest firmware answered before the order (answered:
      answered_before());
    - a stop's first arm (no armed_after): a hardware stop fires on the first crossing trade it sees armed, so
      when the fire line's count (the order engine's fire log) and price point at a later crossing trade of the
      window, the stop was armed after the earlier ones, and that trade is the trigger (armed_from = "fire log").
      A stop armed again after a fire is not moved: a fire log that disagrees with it is reported."""
    answered = answered or {}
    tx_sof = {}
    for rec, fr in orders:
        tx_sof.setdefault(rec["clordid"], fr.sof_cycle)
    live = []
    for st in stops:
        e = dict(st, pos=0, after=None, dead=False, known=st["armed_after"] is not None)
        if st["armed_after"] is not None:
            if st["armed_after"] not in tx_sof:
                raise InputError(f"stops entry {st['entry']}: armed_after {st['armed_after']!r} is not an order "
                                 f"(35=D ClOrdID) in the capture")
            e["after"] = tx_sof[st["armed_after"]]
        live.append(e)
    for rec, fr in orders:
        sym, side = rec["symbol"], rec["side"]
        if console is not None and rec["clordid"] not in console:
            rec["no_trigger"] = "not a stop's order (no fire line for it in the console log)"
            continue
        mine = [e for e in live if e["symbol"] == sym and e["side"] == side]
        if not mine:
            rec["no_trigger"] = f"no {side} stop for {sym} in the stops file"
            continue
        if all(e["dead"] for e in mine):
            rec["no_trigger"] = (f"its {side} stop(s) for {sym} fired already (one-shot: a stop armed again needs "
                                 f"\"repeat\": true or another entry with armed_after)")
            continue
        floor = answered.get(id(rec)) if rec["path"] == "fw" else None
        if floor is not None:
            rec["answered_before"] = floor[1]
        fire = console.get(rec["clordid"]) if console else None
        fire_soh = None
        if rec["path"] == "hw" and fire is not None and fire["cycles"] is not None:
            fire_soh = fr.sof_cycle - (fire["cycles"] + hw_offset)
        lst = trades.get(sym, [])
        best = None
        for e in mine:
            if e["dead"]:
                continue
            cands = []  # (trade, index): crossing trades of this stop's window, in order
            for i in range(e["pos"], len(lst)):
                t = lst[i]
                if t.cycle >= fr.sof_cycle:
                    break
                if e["after"] is not None and t.cycle <= e["after"]:
                    continue
                if floor is not None and t.cycle <= floor[0]:
                    continue
                if t.px is not None and crosses(side, e["stop"], t.px):
                    cands.append((t, i))
                    if e["known"] or fire_soh is None:
                        break
            if not cands:
                continue
            pick, armed = cands[0], None
            if not e["known"] and fire_soh is not None and abs(pick[0].cycle - fire_soh) > hw_tolerance:
                later = [c for c in cands[1:] if abs(c[0].cycle - fire_soh) <= hw_tolerance
                         and (fire["trade_px"] is None or c[0].px == fire["trade_px"])]
                if later:
                    pick, armed = later[0], cands[0][0]
            if best is None or pick[0].cycle < best[0].cycle:
                best = (pick[0], e, pick[1], armed)
        if best is None:
            levels = ", ".join(str(e["stop"]) for e in mine if not e["dead"])
            rec["no_trigger"] = (f"no trade of {sym} crossing its {side} stop(s) ({levels}) between their arming "
                                 f"or last fire and this order"
                                 + (f" after {floor[1]} (firmware answered {floor[1]} before this order, so it had "
                                    f"handled every message before it)" if floor is not None else ""))
            continue
        t, e, i, armed = best
        set_trigger(rec, t)
        rec["stop"] = str(e["stop"])
        if armed is not None:
            rec["armed_from"] = "fire log"
            rec["check_note"] = (f"the stop's arming is not in the capture: armed after {armed.name()}, which crossed "
                                 f"it and fired nothing, as the fire log says (its T2T is the fire log's)")
        e["pos"] = i + 1
        e["known"] = True
        if rec["path"] == "hw":
            e["after"] = fr.sof_cycle if e["after"] is None else max(e["after"], fr.sof_cycle)
        if not e["repeat"]:
            e["dead"] = True


def latest_trade_before(rec, fr, trades):
    """Without a stops file: the last trade entry of the most recent RX frame before the order (a guess)."""
    lst = [t for t in trades.get(rec["symbol"], []) if t.frame.sof_cycle < fr.sof_cycle]
    if not lst:
        rec["no_trigger"] = f"no RX 35=W for {rec['symbol']} with a 269=2/270 entry before this order"
        return
    set_trigger(rec, max(lst, key=lambda t: (t.frame.sof_cycle, t.k)))


def set_trigger(rec, t):
    tf, msg = t.frame, t.msg
    rec.update({
        "trigger": tf.name, "trigger_rx_seq": tf.seq, "trigger_k": t.k, "trigger_price": t.text,
        "trigger_msgseqnum": msg.get("34"), "trigger_sof_cycle": tf.sof_cycle, "trigger_eof_cycle": tf.eof_cycle,
        "trigger_byte_cycle": t.cycle, "trigger_split": msg.first_frame() is not msg.last_frame(),
    })


def cross_check(rec, fire, trades, hw_offset, hw_tolerance):
    """Checks the pairing against the console's fire line: its trade price, and for a hardware fire its cycle
    count (the fire log: T2T = cycles + hw_offset, within hw_tolerance). Sets check = agrees|disagrees|unchecked."""
    if fire is None:
        rec["check"] = "unchecked"
        rec["check_note"] = "no fire line in the console log"
        return
    problems = []
    if fire["cycles"] is not None:
        rec["fire_log_t2t_cycles"] = fire["cycles"] + hw_offset
    if rec["trigger"] is None:
        problems.append(f"the console says stop {fire['stop']} fired it on trade {fire['trade']}, the rule found "
                        f"no trigger")
    else:
        try:
            paired_px = Decimal(rec["trigger_price"])
        except InvalidOperation:
            paired_px = None
        if fire["trade_px"] is not None and paired_px != fire["trade_px"]:
            problems.append(f"the console says on trade {fire['trade']}, paired with 270={rec['trigger_price']}")
        if fire["cycles"] is not None and abs(rec["t2t_cycles"] - rec["fire_log_t2t_cycles"]) > hw_tolerance:
            problems.append(f"the fire log's {fire['cycles']} cycles mean T2T {rec['fire_log_t2t_cycles']}, paired "
                            f"T2T {rec['t2t_cycles']}")
    if problems and fire["cycles"] is not None:
        soh = rec["tx_sof_cycle"] - rec["fire_log_t2t_cycles"]
        near = [t for t in trades.get(rec["symbol"], []) if abs(t.cycle - soh) <= hw_tolerance]
        problems.append("the fire log points to " + (", ".join(t.name() for t in near) if near else
                                                      f"cycle {soh}, where no trade price ends"))
    rec["check"] = "disagrees" if problems else "agrees"
    if rec.get("armed_from") and not problems:
        problems.append(rec["check_note"])  # the pairing's arm point from the fire log (pair_with_stops)
    rec["check_note"] = "; ".join(problems) or None


RECORD_KEYS = (
    "clordid", "symbol", "side", "qty", "price", "msgseqnum", "path", "path_from",
    "tx", "tx_seq", "tx_sof_ns", "tx_sof_cycle", "tx_split",
    "trigger", "trigger_rx_seq", "trigger_k", "trigger_price", "trigger_msgseqnum", "trigger_sof_cycle",
    "trigger_eof_cycle", "trigger_byte_cycle", "trigger_split", "stop",
    "fire_stop", "fire_path", "fire_trade", "fire_cycles", "fire_log_t2t_cycles", "check", "check_note", "armed_from",
    "answered_before",
    "t2t_cycles", "eof2sof_cycles", "sof2sof_cycles", "t2t_ns", "eof2sof_ns", "sof2sof_ns", "no_trigger")


def order_record(m, fr):
    rec = dict.fromkeys(RECORD_KEYS)
    rec.update({
        "clordid": m.get("11", ""), "symbol": m.get("55", ""), "side": side_of(m.get("54")),
        "qty": m.get("38"), "price": m.get("44"), "msgseqnum": m.get("34"), "path": "unknown",
        "tx": fr.name, "tx_seq": fr.seq, "tx_sof_ns": fr.sof_ns, "tx_sof_cycle": fr.sof_cycle,
        "tx_split": m.last_frame() is not fr,
    })
    return rec


def fill_metrics(rec, fr, clock_mhz):
    if rec["trigger"] is None:
        return
    o = fr.sof_cycle
    rec["t2t_cycles"] = o - rec["trigger_byte_cycle"]
    rec["eof2sof_cycles"] = o - rec["trigger_eof_cycle"]
    rec["sof2sof_cycles"] = o - rec["trigger_sof_cycle"]
    for mname in METRICS:
        rec[f"{mname}_ns"] = cycles_to_ns(rec[f"{mname}_cycles"], clock_mhz)


def cycles_to_ns(c, clock_mhz):
    return None if c is None else c * 1000.0 / clock_mhz


# ---------------------------------------------------------------------------------------------
# summary (importable: make bench reuses it)

def _stats(vals):
    if not vals:
        return {"min": None, "median": None, "max": None, "mean": None}
    med = statistics.median(vals)
    return {"min": min(vals), "median": int(med) if med == int(med) else med, "max": max(vals),
            "mean": statistics.fmean(vals)}


def in_figures(r):
    """Whether an order's figures count: it has a trigger, and its pairing does not disagree with the fire log (an
    order that disagrees is reported, by ClOrdID and count, and kept in the per-order records, not in statistics)."""
    return r.get("t2t_cycles") is not None and r.get("check") != "disagrees"


def summarize(records, clock_mhz=125.0, paths=PATHS):
    """records: dicts with "path" (hw|fw|anything) and "t2t_cycles", "eof2sof_cycles", "sof2sof_cycles"
    (None when the order has no trigger), optionally "check" (agrees|disagrees|unchecked) and "clordid". Returns
    {path: {metric: {"count", "cycles": {min, median, max, mean}, "ns": {...}}, "orders": N, "without_trigger": M,
    "disagrees_with_fire_log": D, "disagreeing_orders": [ClOrdID]}} for hw, fw and any other path present. The
    statistics leave out the orders without a trigger and those whose pairing disagrees with the fire log."""
    present = [p for p in dict.fromkeys(r.get("path") or "unknown" for r in records) if p not in paths]
    out = {}
    for p in list(paths) + present:
        rs = [r for r in records if (r.get("path") or "unknown") == p]
        bad = [r.get("clordid") for r in rs if r.get("check") == "disagrees"]
        d = {"orders": len(rs), "without_trigger": sum(1 for r in rs if r.get("t2t_cycles") is None),
             "disagrees_with_fire_log": len(bad), "disagreeing_orders": bad}
        for mname in METRICS:
            vals = [r[f"{mname}_cycles"] for r in rs if r.get(f"{mname}_cycles") is not None and in_figures(r)]
            cyc = _stats(vals)
            ns = {k: cycles_to_ns(v, clock_mhz) for k, v in cyc.items()}
            d[mname] = {"count": len(vals), "cycles": cyc, "ns": ns}
        out[p] = d
    return out


def _fmt(v, nd=1):
    if v is None:
        return "-"
    if isinstance(v, int) or (isinstance(v, float) and v == int(v) and nd == 0):
        return str(int(v))
    return f"{v:.{nd}f}"


def format_summary(summary, clock_mhz=125.0):
    head = (f"{'path':<7} {'metric':<8} {'count':>5}  {'min':>8} {'median':>9} {'max':>8} {'mean':>10}  cycles"
            f"  | {'min':>9} {'median':>10} {'max':>9}  ns at {clock_mhz:g} MHz")
    lines = [head, "-" * len(head)]
    for p, d in summary.items():
        for mname in METRICS:
            m = d[mname]
            c, n = m["cycles"], m["ns"]
            lines.append(f"{p:<7} {METRIC_NAMES[mname]:<8} {m['count']:>5}  {_fmt(c['min']):>8} "
                         f"{_fmt(c['median']):>9} {_fmt(c['max']):>8} {_fmt(c['mean'], 1):>10}        "
                         f"| {_fmt(n['min'], 1):>9} {_fmt(n['median'], 1):>10} {_fmt(n['max'], 1):>9}")
        extra = f"{d['orders']} order(s)"
        if d["without_trigger"]:
            extra += f", {d['without_trigger']} WITHOUT TRIGGER"
        if d.get("disagrees_with_fire_log"):
            ids = [str(i) for i in d.get("disagreeing_orders") or []]
            extra += (f", {d['disagrees_with_fire_log']} PAIRED AGAINST THE FIRE LOG (not in the figures"
                      + (f": {', '.join(ids[:10])}{' ...' if len(ids) > 10 else ''}" if ids else "") + ")")
        lines.append(f"{p:<7} {extra}")
    return "\n".join(lines)


def format_order(r):
    head = f"order 11={r['clordid']} 55={r['symbol']} {r['side']} path={r['path']} {r['tx']}"
    if r["trigger"] is None:
        line = f"{head}: NO TRIGGER ({r['no_trigger']})"
    else:
        line = (f"{head} <- {r['trigger']} (k={r['trigger_k']}, 270={r['trigger_price']}"
                f"{', W split over segments' if r['trigger_split'] else ''}): "
                f"T2T {r['t2t_cycles']} EOF2SOF {r['eof2sof_cycles']} SOF2SOF {r['sof2sof_cycles']} cycles")
    if r.get("check") == "agrees":
        line += " [fire log agrees" + (f": T2T {r['fire_log_t2t_cycles']}" if r.get("fire_log_t2t_cycles") is not None
                                       else f": on trade {r['fire_trade']}")
        line += (f"; ARM POINT FROM THE FIRE LOG: {r['check_note']}]" if r.get("armed_from") == "fire log" else "]")
    elif r.get("check") == "disagrees":
        line += f" [DISAGREES WITH THE FIRE LOG: {r['check_note']}]"
    return line


# ---------------------------------------------------------------------------------------------
# plot

SYMLOG_C = 10.0


def _bins(vals, log, n=None):
    """Histogram bin edges: linear (integer-wide at least), geometric for log, symmetric-log with negatives."""
    import math
    lo, hi = min(vals), max(vals)
    n = n or (20 if log else 30)
    if not log:
        if hi == lo:
            lo, hi = lo - 1, hi + 1
        step = max(1.0, (hi - lo) / n)
        return [lo + step * i for i in range(int((hi - lo) / step) + 2)]

    def t(x):
        return math.copysign(math.log10(1 + abs(x) / SYMLOG_C), x) if lo <= 0 else math.log10(x)

    def inv(y):
        return math.copysign(SYMLOG_C * (10 ** abs(y) - 1), y) if lo <= 0 else 10 ** y
    a, b = t(lo), t(hi)
    if b - a < 1e-9:
        a, b = a - 0.05, b + 0.05
    return [inv(a + (b - a) * i / n) for i in range(n + 1)]


def plot_histograms(records, png, clock_mhz=125.0, title=None):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    colors = {"hw": "tab:blue", "fw": "tab:orange"}
    paths = [p for p in dict.fromkeys(r["path"] for r in records)]
    paths.sort(key=lambda p: (PATHS.index(p) if p in PATHS else 9, p))
    fig, axes = plt.subplots(1, len(METRICS), figsize=(5 * len(METRICS), 4), squeeze=False)
    for ax, mname in zip(axes[0], METRICS):
        series = {p: [r[f"{mname}_cycles"] for r in records if r["path"] == p and r[f"{mname}_cycles"] is not None
                      and in_figures(r)] for p in paths}
        series = {p: v for p, v in series.items() if v}
        ax.set_title(METRIC_NAMES[mname])
        ax.set_xlabel(f"cycles (x {1000.0 / clock_mhz:g} ns at {clock_mhz:g} MHz)")
        ax.set_ylabel("orders")
        if not series:
            ax.text(0.5, 0.5, "no data", ha="center", va="center", transform=ax.transAxes)
            continue
        allv = [v for vs in series.values() for v in vs]
        spans = [max(abs(x) for x in vs) or 1 for vs in series.values()]
        use_log = max(spans) >= 100 * min(spans) or (min(allv) > 0 and max(allv) >= 100 * min(allv))
        for p, vs in series.items():
            ax.hist(vs, bins=_bins(vs if use_log else allv, use_log), alpha=0.6, label=f"{p} (n={len(vs)})",
                    color=colors.get(p, None))
        if use_log:
            ax.set_xscale("log" if min(allv) > 0 else "symlog", **({} if min(allv) > 0 else {"linthresh": SYMLOG_C}))
        ax.legend()
    if title:
        fig.suptitle(title)
    fig.tight_layout()
    fig.savefig(png, dpi=100)
    plt.close(fig)


# ---------------------------------------------------------------------------------------------
# dump

def dump(cap, out):
    starts = {}
    for m in cap.messages():
        starts.setdefault(m.first_frame().index, []).append(m)
    for fr in cap.frames:
        t = f"{fr.sof_ns} ns" if fr.sof_ns is not None else ""
        cyc = f" cycle {fr.sof_cycle}" if fr.sof_cycle is not None else ""
        line = f"{fr.name:<8} {t}{cyc} len {fr.len}"
        if fr.status != "ok":
            line += f" [{fr.status}]"
        s = fr.seg
        if s is not None:
            line += (f"  {conn_str(s.conn)} seq {s.seq} ack {s.ack} [{s.flag_str()}] payload {len(s.payload)}")
            if fr.dup_bytes:
                line += f" (retransmitted: {fr.dup_bytes} bytes already seen)"
        elif len(fr.data) >= 14:
            line += f"  ethertype 0x{struct.unpack_from('!H', fr.data, 12)[0]:04x}"
        if fr.note:
            line += f"  ({fr.note})"
        print(line, file=out)
        for m in starts.get(fr.index, []):
            last = m.last_frame()
            cont = f"  (continues to {last.name})" if last is not fr else ""
            bad = "" if m.checksum_ok else "  (BAD CheckSum)"
            note = f"  ({m.note})" if m.note else ""
            print(f"    FIX {m.msg_type:<2} {m.text()}{cont}{bad}{note}", file=out)


# ---------------------------------------------------------------------------------------------
# CLI

def write_csv(records, path):
    with open(path, "w", newline="") as f:
        w = csv.DictWriter(f, fieldnames=RECORD_KEYS, extrasaction="ignore")
        w.writeheader()
        for r in records:
            w.writerow({k: ("" if v is None else v) for k, v in r.items()})


def main(argv=None, out=None, err=None):
    out = out or sys.stdout
    err = err or sys.stderr
    ap = argparse.ArgumentParser(prog="analyze.py", description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--pcap", required=True, help="pcap from the harness (+pcap=FILE), ns or us time stamps")
    ap.add_argument("--frames", help="frame log from the harness (+eth-frame-log=FILE); required except with --dump")
    ap.add_argument("--stops", help="JSON list of {\"symbol\", \"side\": \"buy\"|\"sell\", \"stop\": \"123.45\"}")
    ap.add_argument("--path", choices=PATHS, help="label every order of this run hw or fw")
    ap.add_argument("--fires", help="ClOrdID -> hw|fw (CSV clordid,path or JSON); wins over --path")
    ap.add_argument("--console", help="the SoC's console log: its fire lines label hw/fw, say which orders are stop "
                    "orders, and cross-check every pairing (trade price; hardware: the fire log's cycles)")
    ap.add_argument("--events", help="the machine protocol's events (one JSON object a line, as `tfctl watch --json` "
                    "writes them): their stop.fired events do what --console's fire lines do (not with --console)")
    ap.add_argument("--hw-offset", type=int, default=None,
                    help=f"T2T = fire-log cycles + this (default {HW_FIRE_LOG_TO_T2T}: stamp 6 after the RX pins, TX_EN 3 "
                         "after the tx stamp; LiteEth's stream)")
    ap.add_argument("--soc-header", help="the SoC's generated C header (build/hw/sim/soc.h): the fire log's offset from "
                    "its OFFLOAD_RX_STAMP_TO_PINS (+3), instead of --hw-offset (the simulation's SoC reads the lean tap: 4)")
    ap.add_argument("--hw-tolerance", type=int, default=HW_TOLERANCE,
                    help="cycles the pairing's T2T may differ from the fire log's (default %(default)s)")
    ap.add_argument("--json", help="write the summary and the per-order records as JSON")
    ap.add_argument("--csv", help="write the per-order records as CSV")
    ap.add_argument("--plot", help="write histograms as PNG (needs matplotlib)")
    ap.add_argument("--clock-mhz", type=float, default=125.0, help="clock for the ns columns (default 125)")
    ap.add_argument("--quiet", action="store_true", help="no per-order lines")
    ap.add_argument("--strict", action="store_true", help="exit 3 when an order has no trigger, a pairing disagrees "
                    "with the fire log, or there are no orders")
    ap.add_argument("--drop-bad-checksums", action="store_true", help="frames with a bad IPv4 header or TCP checksum "
                    "are not used, as their receiver drops them (a wire capture: the simulation's); without it they are "
                    "used and counted (a host's capture with checksum offload)")
    ap.add_argument("--dump", action="store_true", help="list frames and the FIX messages starting in them")
    ap.add_argument("--soc-mac", default=DEFAULT_SOC_MAC, help="direction without a frame log (default %(default)s)")
    a = ap.parse_args(argv)
    warn = Warnings(err)
    try:
        if a.clock_mhz <= 0:
            raise InputError("--clock-mhz must be positive")
        if a.hw_tolerance < 0:
            raise InputError("--hw-tolerance must not be negative")
        if a.soc_header and a.hw_offset is not None:
            raise InputError("--hw-offset or --soc-header, not both (both give the fire log's offset)")
        a.hw_offset = hw_offset_from_header(a.soc_header) if a.soc_header else \
            HW_FIRE_LOG_TO_T2T if a.hw_offset is None else a.hw_offset
        res, recs = read_pcap(a.pcap, warn)
        if a.frames:
            rows = read_frame_log(a.frames)
            frames = match_frames(res, recs, rows, a.pcap, a.frames)
            sim_period = check_clock(frames, warn)
        else:
            if not a.dump:
                raise InputError("--frames FILE (the harness's +eth-frame-log) is needed for latency figures; "
                                 "without it only --dump works")
            sim_period = None
            frames = frames_without_log(recs)
            assign_dir_by_mac(frames, a.soc_mac)
        if a.dump:
            dump(Capture(frames, warn), out)
            return EXIT_OK
        stops = load_stops(a.stops) if a.stops else None
        fires = load_fires(a.fires) if a.fires else None
        if a.console and a.events:
            raise InputError("--console or --events, not both (both name the fires)")
        console = load_console(a.console) if a.console else load_fire_events(a.events) if a.events else None
        records, cap, dup_tx = analyze(frames, stops, a.path, fires, warn, a.clock_mhz, console, a.hw_offset,
                                       a.hw_tolerance, a.drop_bad_checksums)
    except InputError as e:
        print(f"analyze: error: {e}", file=err)
        return EXIT_INPUT
    if not a.quiet:
        for r in records:
            print(format_order(r), file=out)
    summ = summarize(records, a.clock_mhz)
    n_rx = sum(1 for f in frames if f.dir == "rx")
    print(f"\n{len(frames)} frames ({n_rx} rx, {len(frames) - n_rx} tx), {len(records)} order(s) (35=D)"
          + (f", {dup_tx} retransmitted TX segment(s) ignored" if dup_tx else ""), file=out)
    print(format_summary(summ, a.clock_mhz), file=out)
    untrig = [r for r in records if r["trigger"] is None]
    if untrig:
        print(f"\n{len(untrig)} order(s) WITHOUT TRIGGER (not in the figures above): " +
              ", ".join(f"{r['clordid']} ({r['tx']}: {r['no_trigger']})" for r in untrig[:10]) +
              (" ..." if len(untrig) > 10 else ""), file=out)
    disagree = [r for r in records if r["check"] == "disagrees"]
    if console is not None:
        n_checked = sum(1 for r in records if r["check"] != "unchecked")
        armed = [r["clordid"] for r in records if r.get("armed_from") == "fire log"]
        print(f"\nfire log cross-check ({a.console or a.events}): {n_checked} order(s) checked, {len(disagree)} "
              f"disagree (not in the figures), {len(records) - n_checked} without a fire line"
              + (f"; {len(armed)} arm point(s) from the fire log ({', '.join(armed[:10])}"
                 f"{' ...' if len(armed) > 10 else ''}: a stop's first arming, not in the capture)" if armed else ""),
              file=out)
        for r in disagree:
            print(f"  PAIRING DISAGREES: order {r['clordid']} ({r['tx']}, path {r['path']}): {r['check_note']}", file=out)
    if not stops and records:
        warn("no --stops: each order is paired with the last trade of the most recent market data frame before it, "
             "a guess (DESIGN.md wants the first crossing after arming)")
    try:
        if a.json:
            doc = {"meta": {"pcap": a.pcap, "frames": a.frames, "stops": a.stops, "fires": a.fires,
                            "path": a.path, "clock_mhz": a.clock_mhz,
                            "sim_period_ns": sim_period, "pcap_resolution": res, "frames_total": len(frames),
                            "orders": len(records), "without_trigger": len(untrig),
                            "console": a.console, "hw_offset": a.hw_offset, "hw_tolerance": a.hw_tolerance,
                            "checked_against_fire_log": sum(1 for r in records if r["check"] in ("agrees", "disagrees")),
                            "disagrees_with_fire_log": len(disagree),
                            "disagreeing_orders": [r["clordid"] for r in disagree],
                            "armed_from_fire_log": [r["clordid"] for r in records if r.get("armed_from") == "fire log"],
                            "retransmitted_tx_segments": dup_tx, "warnings": warn.items}}
            doc.update(summ)
            doc["orders"] = records
            with open(a.json, "w") as f:
                json.dump(doc, f, indent=1)
        if a.csv:
            write_csv(records, a.csv)
        if a.plot:
            try:
                plot_histograms(records, a.plot, a.clock_mhz, title=os.path.basename(a.pcap))
            except ImportError:
                raise InputError("--plot needs matplotlib (use the project venv: ~/.cache/triggerfish/venv/bin/python)")
    except OSError as e:
        print(f"analyze: error: {e.filename}: {e.strerror}", file=err)
        return EXIT_INPUT
    except InputError as e:
        print(f"analyze: error: {e}", file=err)
        return EXIT_INPUT
    if a.strict and (untrig or disagree or not records):
        why = [f"{len(untrig)} order(s) without trigger"] if untrig else []
        why += [f"{len(disagree)} pairing(s) disagree with the fire log"] if disagree else []
        print("analyze: --strict: " + ("; ".join(why) or "no orders"), file=err)
        return EXIT_UNTRIGGERED
    return EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
