"""The machine protocol's codec (docs/PROTOCOL.md), with no I/O: requests to bytes, lines to replies and events,
and the console command lines that the typed calls send.

A machine line starts with '@' and holds one JSON object. The firmware reads a restricted subset of JSON (a flat
object of printable-ASCII strings without '"' or '\\' and integers 0..2**31-1, a line of at most 127
characters with its '@'); encode_request refuses anything outside it before it reaches the wire.
"""
import json
import re
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation

PROTOCOL_VERSION = 1
LINE_MAX = 127           # characters of a request line, '@' included (the console's line buffer holds 127)
INT_MAX = 2**31 - 1
SYMBOL_MAX = 15          # FIX_SYMBOL_MAX - 1 in the firmware
_TEXT = re.compile(r'^[ !#-\[\]-~]*$')  # printable ASCII without '"' and '\'
_WORD = re.compile(r'^[!-~]+$')         # a console argument: printable, no space


class ProtocolError(ValueError):
    """A line or a request that the protocol does not allow."""


@dataclass
class Reply:
    id: "int | None"
    ok: bool
    data: dict = field(default_factory=dict)

    @property
    def error(self):
        return None if self.ok else self.data.get("error")

    @property
    def msg(self):
        return self.data.get("msg", "")


@dataclass
class Event:
    name: str
    seq: int
    data: dict = field(default_factory=dict)

    def __getitem__(self, key):
        return self.data[key]

    def get(self, key, default=None):
        return self.data.get(key, default)


def encode_request(req_id, cmd, **members):
    """The bytes of one request line: '@{"id":..,"cmd":..,...}' and CR LF."""
    obj = {"id": req_id, "cmd": cmd}
    for k, v in members.items():
        if k in obj:
            raise ProtocolError(f"member {k!r} given twice")
        obj[k] = v
    for k, v in obj.items():
        if not isinstance(k, str) or not _TEXT.match(k) or not k:
            raise ProtocolError(f"key {k!r}: printable ASCII without quotes or backslashes")
        if isinstance(v, bool) or not isinstance(v, (int, str)):
            raise ProtocolError(f"{k}: only strings and integers travel (prices as decimal strings), not {type(v).__name__}")
        if isinstance(v, int) and not 0 <= v <= INT_MAX:
            raise ProtocolError(f"{k}: integers are 0..{INT_MAX}")
        if isinstance(v, str) and not _TEXT.match(v):
            raise ProtocolError(f"{k}: {v!r} is not printable ASCII without quotes or backslashes")
    line = "@" + json.dumps(obj, separators=(",", ":"))
    if len(line) > LINE_MAX:
        raise ProtocolError(f"request of {len(line)} characters (at most {LINE_MAX})")
    return line.encode("ascii") + b"\r\n"


def decode_line(line):
    """A Reply or an Event for a machine line, None for a human one. Raises ProtocolError for a broken machine line."""
    if isinstance(line, bytes):
        line = line.decode("ascii", errors="replace")
    line = line.strip("\r\n")
    if not line.startswith("@"):
        return None
    try:
        obj = json.loads(line[1:])
    except ValueError as e:
        raise ProtocolError(f"machine line is not JSON: {line[:80]!r} ({e})") from None
    if not isinstance(obj, dict):
        raise ProtocolError(f"machine line is not an object: {line[:80]!r}")
    if "ev" in obj:
        name, seq = obj.pop("ev"), obj.pop("seq", None)
        if not isinstance(name, str) or not isinstance(seq, int) or isinstance(seq, bool):
            raise ProtocolError(f"event without a name and a sequence number: {line[:80]!r}")
        return Event(name, seq, obj)
    if "id" in obj and isinstance(obj.get("ok"), bool):
        rid = obj.pop("id")
        if rid is not None and (not isinstance(rid, int) or isinstance(rid, bool)):
            raise ProtocolError(f"reply with a bad id: {line[:80]!r}")
        return Reply(rid, obj.pop("ok"), obj)
    raise ProtocolError(f"machine line is neither a reply nor an event: {line[:80]!r}")


class LineSplitter:
    """Bytes in, whole lines out (CR, LF or CR LF end a line)."""

    def __init__(self, max_line=1 << 16):
        self.buf = bytearray()
        self.max_line = max_line

    def feed(self, data):
        self.buf += data
        lines = []
        while True:
            cut = [i for i in (self.buf.find(b"\n"), self.buf.find(b"\r")) if i >= 0]
            if not cut:
                break
            i = min(cut)
            lines.append(bytes(self.buf[:i]).decode("ascii", errors="replace"))
            del self.buf[:i + 1]
        if len(self.buf) > self.max_line:  # a runaway line: keep its end only
            del self.buf[:-self.max_line]
        return [ln for ln in lines if ln]


# ---- prices and console lines -----------------------------------------------------------------------------

def price(v, decimals=None):
    """A price as the firmware reads it: a positive decimal string, e.g. price('100.10') == '100.10',
    price(Decimal('99.5')) == '99.5'. Floats are refused (binary fractions are not prices)."""
    if isinstance(v, float):
        raise ProtocolError(f"price {v!r}: give prices as strings or Decimal, not float")
    try:
        d = Decimal(str(v).strip())
    except InvalidOperation:
        raise ProtocolError(f"price {v!r} is not a decimal number") from None
    if not d.is_finite() or d <= 0:
        raise ProtocolError(f"price {v!r} must be positive")
    s = format(d, "f")
    if len(s.replace(".", "")) > 18:
        raise ProtocolError(f"price {v!r}: at most 18 digits")
    if decimals is not None and "." in s and len(s.split(".")[1].rstrip("0")) > decimals:
        raise ProtocolError(f"price {v!r} has more than {decimals} decimals")
    return s


def _word(name, v, maxlen=None):
    v = str(v)
    if not _WORD.match(v) or (maxlen and len(v) > maxlen):
        raise ProtocolError(f"{name} {v!r}: 1..{maxlen or 'n'} printable characters without spaces")
    return v


def _qty(v):
    if isinstance(v, bool) or not isinstance(v, int) or not 0 < v <= 0xFFFFFFFF:
        raise ProtocolError(f"quantity {v!r}: a positive integer")
    return str(v)


def _side(v):
    if v not in ("buy", "sell"):
        raise ProtocolError(f"side {v!r}: buy or sell")
    return v


def arm_line(side, symbol, qty, stop, limit, repeat=False):
    return " ".join(["stop", _side(side), _word("symbol", symbol, SYMBOL_MAX), _qty(qty), price(stop), price(limit)]
                    + (["repeat"] if repeat else []))


def order_line(side, symbol, qty, px):
    return " ".join([_side(side), _word("symbol", symbol, SYMBOL_MAX), _qty(qty), price(px)])


SESSION_OPTIONS = ("sender", "target", "heartbeat", "host", "port", "symbols", "account", "decimals")


def session_lines(**opts):
    """`fix set` lines for session options (sender target heartbeat host port symbols account decimals), checked."""
    lines = []
    for k, v in opts.items():
        if k not in SESSION_OPTIONS:
            raise ProtocolError(f"unknown session option {k!r} ({' '.join(SESSION_OPTIONS)})")
        if k in ("heartbeat", "port", "decimals"):
            if isinstance(v, bool) or not isinstance(v, int) and not (isinstance(v, str) and v.isdigit()):
                raise ProtocolError(f"{k} {v!r}: a number")
            v = str(int(v))
        elif k == "host":
            parts = str(v).split(".")
            if len(parts) != 4 or not all(p.isdigit() and int(p) < 256 for p in parts):
                raise ProtocolError(f"host {v!r}: an IPv4 address A.B.C.D as the appliance reaches it")
        elif k == "symbols":
            if isinstance(v, (list, tuple)):
                v = ",".join(v)
            syms = str(v).split(",")
            if not 1 <= len(syms) <= 4 or not all(_WORD.match(s) and len(s) <= SYMBOL_MAX and "=" not in s for s in syms):
                raise ProtocolError(f"symbols {v!r}: 1..4 comma-separated names of 1..{SYMBOL_MAX} characters")
        v = _word(k, v)
        lines.append(f"fix set {k} {v}")
    return lines
