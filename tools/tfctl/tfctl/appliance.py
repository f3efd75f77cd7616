"""Appliance: a Triggerfish appliance reached through pyserial's URL handlers: socket://127.0.0.1:PORT for a
simulated SoC (the harness's +uart-tcp), /dev/ttyUSB0 (or any serial port) for a board.

One reader thread splits the UART's output into lines: replies go to the request that waits for them (every
request gets exactly one), events into a queue that events() iterates, human lines into `human` (the last 200).
Event sequence numbers are checked: a jump is recorded in `gaps` (and a boot event, seq 1, in `boots`). A lost
connection is reported through `on_status` and retried every second until close(); requests waiting then fail
with ConnectionLost.
"""
import collections
import queue
import sys
import threading
import time
from datetime import datetime, timezone

import serial

from .protocol import (Event, ProtocolError, Reply, LineSplitter, arm_line, decode_line, encode_request, order_line,
                       session_lines)


class ApplianceError(RuntimeError):
    """The appliance answered a request with an error: .code (e.g. refused, bad_args) and .msg."""

    def __init__(self, code, msg, cmd=""):
        super().__init__(f"{cmd}: {code}: {msg}" if cmd else f"{code}: {msg}")
        self.code, self.msg = code, msg


class ConnectionLost(RuntimeError):
    pass


class _Pending:
    def __init__(self, collect):
        self.done = threading.Event()
        self.reply = None
        self.collect = collect  # name of listing events to gather ("stop", "order", "md") or None
        self.items = []


class Request:
    """A request sent (Appliance.submit): result(timeout) waits for its reply and returns its data (with the
    listing's events when it gathers some), or raises ApplianceError, ConnectionLost or TimeoutError."""

    def __init__(self, tf, rid, cmd, pending):
        self.tf, self.id, self.cmd, self._p = tf, rid, cmd, pending

    def done(self):
        return self._p.done.is_set()

    def result(self, timeout=None):
        p, tf = self._p, self.tf
        if not p.done.wait(timeout or tf.timeout):
            with tf._lock:
                tf._pending.pop(self.id, None)
            raise TimeoutError(f"no reply to {self.cmd} within {timeout or tf.timeout} s")
        if isinstance(p.reply, Exception):
            raise p.reply
        if not p.reply.ok:
            raise ApplianceError(p.reply.error, p.reply.msg, self.cmd)
        if p.collect:
            return p.reply.data, [e.data for e in p.items]
        return p.reply.data


class Appliance:
    def __init__(self, url, timeout=20.0, baudrate=115200, on_status=None, connect_timeout=30.0):
        self.url, self.timeout, self.baudrate = url, timeout, baudrate
        self.on_status = on_status or (lambda msg: print(f"tfctl: {msg}", file=sys.stderr))
        self.human = collections.deque(maxlen=200)
        self.gaps, self.boots, self.bad_lines = [], 0, []
        self.last_seq = None
        self._events = queue.Queue()
        self._pending = {}
        self._next_id = 1
        self._lock = threading.Lock()
        self._send_lock = threading.Lock()
        self._closed = False
        self._port = None
        self._connected = threading.Event()
        deadline = time.monotonic() + connect_timeout
        while True:
            try:
                self._open()
                break
            except (serial.SerialException, OSError) as e:
                if time.monotonic() > deadline:
                    raise ConnectionLost(f"cannot reach {url}: {e}") from None
                time.sleep(0.2)
        self._reader = threading.Thread(target=self._read_loop, name="tfctl-reader", daemon=True)
        self._reader.start()
        self.session = _Session(self)
        self.stops = _Stops(self)
        self.orders = _Orders(self)

    # ---- connection ----
    def _open(self):
        self._port = serial.serial_for_url(self.url, baudrate=self.baudrate, timeout=0.1)
        self._connected.set()

    def close(self):
        self._closed = True
        port, self._port = self._port, None
        if port:
            try:
                port.close()
            except Exception:
                pass
        self._fail_pending("closed")

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()

    def _fail_pending(self, why):
        with self._lock:
            pend, self._pending = self._pending, {}
        for p in pend.values():
            p.reply = ConnectionLost(why)
            p.done.set()

    def _read_loop(self):
        split = LineSplitter()
        while not self._closed:
            port = self._port
            try:
                if port is None:
                    raise serial.SerialException("not connected")
                data = port.read(4096)
            except (serial.SerialException, OSError, TypeError, AttributeError) as e:
                if self._closed:
                    return
                self._connected.clear()
                self.on_status(f"lost the connection to {self.url} ({e}); retrying every second")
                self._fail_pending(f"connection to {self.url} lost")
                split = LineSplitter()
                while not self._closed:
                    time.sleep(1.0)
                    try:
                        self._open()
                        self.on_status(f"connected again to {self.url}")
                        break
                    except (serial.SerialException, OSError):
                        continue
                continue
            for line in split.feed(data):
                self._line(line)

    def _line(self, line):
        try:
            m = decode_line(line)
        except ProtocolError as e:
            self.bad_lines.append(str(e))
            return
        if m is None:
            self.human.append(line)
        elif isinstance(m, Reply):
            with self._lock:
                p = self._pending.pop(m.id, None) if m.id is not None else None
                if p is None and m.id is None and len(self._pending) == 1:  # an error whose id could not be read
                    p = self._pending.pop(next(iter(self._pending)))
            if p:
                p.reply = m
                p.done.set()
        else:
            if m.name == "boot":
                self.boots += 1
                self.last_seq = None
            if self.last_seq is not None and m.seq != self.last_seq + 1:
                self.gaps.append((self.last_seq + 1, m.seq - 1))
            self.last_seq = m.seq
            with self._lock:
                for p in self._pending.values():
                    if p.collect == m.name:
                        p.items.append(m)
            self._events.put(m)

    # ---- requests ----
    def request(self, cmd, _collect=None, _timeout=None, **members):
        """Sends one request and returns its Reply's data; raises ApplianceError for an error reply."""
        return self.submit(cmd, _collect=_collect, _timeout=_timeout, **members).result(_timeout)

    def submit(self, cmd, _collect=None, _timeout=None, **members):
        """Sends one request without waiting for its reply: returns a Request whose result(timeout) waits for it
        (what request() returns). For a command that runs long (ethlat) while its events are read meanwhile."""
        if not self._connected.wait(_timeout or self.timeout):
            raise ConnectionLost(f"not connected to {self.url}")
        with self._lock:
            rid = self._next_id
            self._next_id = rid + 1 if rid < 2**31 - 1 else 1
            p = self._pending[rid] = _Pending(_collect)
        try:
            data = encode_request(rid, cmd, **members)
            with self._send_lock:
                self._port.write(data)
        except (serial.SerialException, OSError, AttributeError, ProtocolError) as e:
            with self._lock:
                self._pending.pop(rid, None)
            if isinstance(e, ProtocolError):
                raise
            raise ConnectionLost(f"cannot write to {self.url}: {e}") from None
        return Request(self, rid, cmd, p)

    def raw(self, data, expect_id=None, timeout=None):
        """Sends bytes as they are (tests of malformed requests) and returns the Reply with expect_id, or the next
        reply whose id could not be read (id null) when expect_id is None."""
        key = expect_id if expect_id is not None else -1
        with self._lock:
            p = self._pending[key] = _Pending(None)
        with self._send_lock:
            self._port.write(data)
        if not p.done.wait(timeout or self.timeout):
            with self._lock:
                self._pending.pop(key, None)
            raise TimeoutError(f"no reply to a raw request within {timeout or self.timeout} s")
        if isinstance(p.reply, Exception):
            raise p.reply
        return p.reply

    def type(self, line):
        """Types a line into the human console, as a person would: no reply, its output goes to the console only
        (a simulation's log), not into a reply."""
        if line.startswith("@") or any(c in line for c in "\r\n"):
            raise ProtocolError("a human console line: one line, not starting with '@'")
        with self._send_lock:
            self._port.write(line.encode("ascii") + b"\r")

    def console(self, line, _collect=None):
        """Runs a console command as if typed; returns {"n": number created or listed, or -1, "msg": its last line}."""
        return self.request("console", _collect=_collect, line=line)

    def status(self):
        s = self.request("status")
        if self.last_seq is None:
            self.last_seq = s.get("seq")
        return s

    def md(self):
        """The last bid, offer and trade per subscribed symbol ("0": none seen yet)."""
        return self.console("md", _collect="md")[1]

    COUNTERS = {"net": "net", "mac": "net", "fix": "fix", "w_cost": "fix", "w_cost_170_190": "fix", "offload": "offload",
                "offload_rx": "fix hw", "info": "info", "risk": "risk"}

    def counters(self, what):
        """A table of counters as {group: {counter: value}} (docs/PROTOCOL.md "counters"): what is a group (net, mac,
        w_cost, w_cost_170_190, offload, offload_rx, info, risk) or the console command that lists it (net, fix, fix hw,
        offload, info, risk); every group that command lists comes back."""
        line = self.COUNTERS.get(what, what)
        if line not in self.COUNTERS.values():
            raise ProtocolError(f"counters: one of {', '.join(sorted(self.COUNTERS))}")
        groups = {}
        for c in self.console(line, _collect="counters")[1]:
            c = dict(c)
            groups[c.pop("group")] = c
        return groups

    def set_utc(self, when=None):
        """Gives the SoC the UTC time (it has no clock of its own): now by default."""
        when = when or datetime.now(timezone.utc)
        return self.console("utc set " + when.strftime("%Y%m%d-%H:%M:%S.") + f"{when.microsecond // 1000:03d}")

    # ---- events ----
    def events(self, timeout=None):
        """Yields events as they come; ends after `timeout` seconds without one (None: never)."""
        while True:
            try:
                yield self._events.get(timeout=timeout)
            except queue.Empty:
                return

    def wait_for(self, name, timeout=30.0, where=None):
        """The next event called `name` (and matching `where`, a function of the event), or TimeoutError. Other
        events are kept in `skipped`."""
        deadline = time.monotonic() + timeout
        self.skipped = getattr(self, "skipped", [])
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError(f"no {name} event within {timeout} s")
            try:
                ev = self._events.get(timeout=left)
            except queue.Empty:
                continue
            if ev.name == name and (where is None or where(ev)):
                return ev
            self.skipped.append(ev)


class _Session:
    def __init__(self, tf):
        self.tf = tf

    def configure(self, **opts):
        """Sets session options (sender target heartbeat host port symbols account decimals) while the session
        is stopped; every option is checked here first, so a bad one changes nothing."""
        for line in session_lines(**opts):
            self.tf.console(line)

    def start(self):
        return self.tf.console("fix start")

    def stop(self):
        return self.tf.console("fix stop")


class _Stops:
    def __init__(self, tf):
        self.tf = tf

    def arm(self, side, symbol, qty, stop, limit, repeat=False):
        """Arms a stop order; returns its number (its stop.armed event follows, and stop.fired when it fires)."""
        return self.tf.console(arm_line(side, symbol, qty, stop, limit, repeat))["n"]

    def disarm(self, n):
        return self.tf.console(f"stop cancel {int(n)}")

    def mode(self, where):
        if where not in ("hw", "fw"):
            raise ProtocolError("stop mode: hw or fw")
        return self.tf.console(f"stop mode {where}")

    def list(self):
        return self.tf.console("stops", _collect="stop")[1]


class _Orders:
    def __init__(self, tf):
        self.tf = tf

    def send(self, side, symbol, qty, px):
        """Sends a limit order; returns its number in the order table."""
        return self.tf.console(order_line(side, symbol, qty, px))["n"]

    def cancel(self, n):
        return self.tf.console(f"cancel {int(n)}")

    def list(self):
        return self.tf.console("orders", _collect="order")[1]
