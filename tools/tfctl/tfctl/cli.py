"""tfctl: the command line over the library (tools/tfctl/README.md).

    tfctl --url socket://127.0.0.1:5555 status
    tfctl stop buy MSFT 100 --stop 100.10 --limit 100.40
    tfctl apply session.cfg --start
    tfctl watch
Every command takes --json (machine-readable output: one JSON object, or one per event for watch). The URL
comes from --url or $TFCTL_URL: socket://HOST:PORT (a simulation started with +uart-tcp) or a serial port.
"""
import argparse
import json
import os
import sys
import time

from . import protocol
from .appliance import Appliance, ApplianceError, ConnectionLost
from .settings import SettingsError, read_settings

ETH_NS_PER_CYCLE = 8  # the hardware's fire-to-order count is in 125 MHz Ethernet cycles


def _out(args, obj, text):
    """obj as JSON with --json, else text (a function of nothing: built only when shown)."""
    print(json.dumps(obj) if args.json else (text() if callable(text) else text))


def cmd_status(tf, args):
    s = tf.status()
    _out(args, s, lambda: f"session {s['session']} (client {s['client']}), next out {s['next_out']}, next in {s['next_in']}; "
                  f"{s['md_msgs']} market data, {s['execs']} execution reports; UTC {s['utc'] or 'unknown'}; "
                  f"event seq {s['seq']}")


def cmd_counters(tf, args):
    groups = tf.counters(args.what)
    _out(args, groups, lambda: _counters_text(groups))


def _counters_text(groups):
    return "\n".join(f"{g}: " + ", ".join(f"{k} {v}" for k, v in c.items()) for g, c in groups.items())


def cmd_console(tf, args):
    r, items = tf.console(" ".join(args.line), _collect="counters")  # a table of counters comes as events
    groups = {c["group"]: {k: v for k, v in c.items() if k != "group"} for c in items}
    if groups:
        r = dict(r, counters=groups)
    _out(args, r, lambda: "\n".join(t for t in (r["msg"], _counters_text(groups)) if t))


def cmd_stop(tf, args):
    n = tf.stops.arm(args.side, args.symbol, args.qty, args.stop, args.limit, args.repeat)
    _out(args, {"stop": n}, f"stop {n} armed")


def cmd_disarm(tf, args):
    r = tf.stops.disarm(args.n)
    _out(args, r, r["msg"])


def _stop_text(s):
    t = f"{s['stop']:2} {'hw' if s['hw'] else 'fw'} {s['side']:4} {s['sym']:8} {s['qty']:>6} stop {s['stop_px']} limit {s['limit_px']}  {s['state']}"
    if s["fires"]:
        t += f", fired {s['fires']}x by {'hardware' if s['by_hw'] else 'firmware'} on {s['trade']}"
    return t


def cmd_stops(tf, args):
    rows = tf.stops.list()
    _out(args, rows, "\n".join(_stop_text(s) for s in rows) or "no stop orders")


def _order_text(o):
    return (f"{o['order']:2} {o['clordid']:16} {o['side']:4} {o['sym']:8} {o['qty']:>6} @ {o['px']}  {o['state']}, "
            f"cum {o['cum']}, leaves {o['leaves']}")


def cmd_orders(tf, args):
    rows = tf.orders.list()
    _out(args, rows, "\n".join(_order_text(o) for o in rows) or "no orders")


def cmd_order(tf, args):
    n = tf.orders.send(args.side, args.symbol, args.qty, args.price)
    _out(args, {"order": n}, f"order {n} sent")


def cmd_cancel(tf, args):
    r = tf.orders.cancel(args.n)
    _out(args, r, r["msg"])


def cmd_md(tf, args):
    rows = tf.md()
    _out(args, rows, "\n".join(f"{m['sym']:8} {m['updates']:>6} updates  bid {m['bid']}  offer {m['offer']}  trade {m['trade']}"
                               + ("  (hardware top of book)" if m.get("src") == "hw" else "") for m in rows) or "no market data yet")


def cmd_session(tf, args):
    r = tf.session.start() if args.action == "start" else tf.session.stop()
    _out(args, r, r["msg"] or f"session {args.action}")


def cmd_utc(tf, args):
    r = tf.set_utc()
    _out(args, r, "UTC set")


def cmd_apply(tf, args):
    opts = read_settings(args.file, args.target)
    s = tf.status()
    if s["client"] != "off":
        if not args.restart:
            raise SystemExit(f"tfctl: the session is {s['client']}: stop it first (tfctl session stop) or pass --restart")
        tf.session.stop()
        deadline = time.monotonic() + 60
        while tf.status()["client"] != "off":
            if time.monotonic() > deadline:
                raise SystemExit("tfctl: the session did not stop within 60 s")
            time.sleep(0.5)
    tf.session.configure(**opts)
    if args.start:
        tf.set_utc()
        tf.session.start()
    _out(args, opts, "applied: " + ", ".join(f"{k} {v}" for k, v in opts.items()) + ("; session started" if args.start else ""))


class Board:
    """What `tfctl watch` shows, kept from the events."""

    def __init__(self):
        self.session, self.stops, self.fires, self.fills, self.md = "?", {}, [], [], {}
        self.link = "connected"

    def apply(self, ev):
        if ev.name == "logon":
            self.session = f"logged on to {ev['target']}"
        elif ev.name == "logout":
            self.session = "logged out" + (f": {ev['text']}" if ev.get("text") else "")
        elif ev.name == "disconnected":
            self.session = f"disconnected ({ev['why']})" + (", reconnecting" if ev.get("reconnecting") else "")
        elif ev.name in ("stop", "stop.armed", "stop.canceled"):
            self.stops[ev["stop"]] = ev.data
        elif ev.name == "stop.fired":
            # `armed`: a repeating stop armed again (false: one-shot, or disarmed for want of an order table entry)
            self.stops[ev["stop"]] = dict(self.stops.get(ev["stop"], {}), state="armed" if ev.get("armed") else "fired",
                                          by_hw=ev.get("by_hw"), trade=ev.get("trade"))
            self.fires.append(ev.data)
        elif ev.name == "order.fill":
            self.fills.append(ev.data)
        elif ev.name == "md":
            self.md[ev["sym"]] = ev.data

    def render(self):
        def section(title, rows):
            return ["", title] + (rows or ["  -"])
        out = [f"link: {self.link}", f"session: {self.session}"]
        out += section("last trade per symbol:", [f"  {m['sym']:8} {m['trade']:>10}  (bid {m['bid']}, offer {m['offer']}; "
                                                  f"{m['updates']} updates)" for m in self.md.values()])
        out += section("armed stops:", [f"  {_stop_text(s)}" for s in self.stops.values()
                                        if s.get("state") == "armed" and "sym" in s])
        fires = []
        for f in self.fires[-10:]:
            lat = f", {f['cycles']} cycles ({f['cycles'] * ETH_NS_PER_CYCLE} ns) price to MAC" if f.get("by_hw") else ""
            fires.append(f"  stop {f['stop']} on {f['trade']}: {'hardware' if f.get('by_hw') else 'firmware'}, "
                         f"order {f.get('clordid') or '-'}{lat}")
        out += section("fires:", fires)
        out += section("fills:", [f"  {o['clordid']} {o['last_qty']} @ {o['last_px']} ({o['state']})" for o in self.fills[-10:]])
        return "\n".join(out)


def cmd_watch(tf, args):
    board = Board()
    relist = [False]

    def link(msg):  # the library reports a lost connection to the UART and each retry that reaches it again
        stamp = time.strftime("%H:%M:%S")
        board.link = f"{msg} ({stamp})"
        if "connected again" in msg:
            relist[0] = True  # what changed meanwhile: read the session and the stops again
        print(f"tfctl: {stamp} {msg}", file=sys.stderr, flush=True)
    tf.on_status = link

    def refresh():
        st = tf.status()
        board.session = st["session"]
        board.stops = {s["stop"]: s for s in tf.stops.list()}
    refresh()
    tty = sys.stdout.isatty() and not args.json
    end = time.monotonic() + args.duration if args.duration else None
    next_md = 0.0
    seen = 0
    while end is None or time.monotonic() < end:
        if time.monotonic() >= next_md:
            try:
                if relist[0]:
                    relist[0] = False
                    refresh()
                for m in tf.md():
                    board.md[m["sym"]] = m
            except (ApplianceError, TimeoutError, ConnectionLost) as e:
                board.session = f"(no answer: {e})"
            next_md = time.monotonic() + args.md_every
        for ev in tf.events(timeout=0.5):
            board.apply(ev)
            seen += 1
            if args.json:
                print(json.dumps({"ev": ev.name, "seq": ev.seq, **ev.data}), flush=True)
            elif not tty:
                print(f"{ev.seq:6} {ev.name:14} " + " ".join(f"{k}={v}" for k, v in ev.data.items()), flush=True)
            if args.count and seen >= args.count:
                return
            if time.monotonic() >= next_md:
                break
        if tf.gaps:
            print(f"tfctl: events missed: {tf.gaps}", file=sys.stderr)
            tf.gaps.clear()
        if tty:
            sys.stdout.write("\x1b[H\x1b[2J" + board.render() + "\n")
            sys.stdout.flush()


def main(argv=None):
    ap = argparse.ArgumentParser(prog="tfctl", description="Drive a Triggerfish appliance through its machine protocol.")
    ap.add_argument("--url", default=os.environ.get("TFCTL_URL"),
                    help="socket://HOST:PORT (simulation, +uart-tcp) or a serial port (default: $TFCTL_URL)")
    ap.add_argument("--json", action="store_true", help="machine-readable output")
    ap.add_argument("--timeout", type=float, default=20.0, help="seconds to wait for a reply (default 20)")
    sub = ap.add_subparsers(dest="cmd", required=True)
    common = argparse.ArgumentParser(add_help=False)  # --json after the command too
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS, help="machine-readable output")
    _add = sub.add_parser
    sub.add_parser = lambda *a, **k: _add(*a, parents=[common], **k)
    sub.add_parser("status", help="session state, sequence numbers, counters").set_defaults(fn=cmd_status)
    p = sub.add_parser("counters", help="a table of counters: net (and mac), fix (w_cost), offload_rx, offload, info")
    p.add_argument("what", choices=sorted(Appliance.COUNTERS))
    p.set_defaults(fn=cmd_counters)
    p = sub.add_parser("stop", help="arm a stop order: stop buy|sell SYMBOL QTY --stop PX --limit PX")
    p.add_argument("side", choices=["buy", "sell"])
    p.add_argument("symbol")
    p.add_argument("qty", type=int)
    p.add_argument("--stop", required=True)
    p.add_argument("--limit", required=True)
    p.add_argument("--repeat", action="store_true", help="armed again after each fire")
    p.set_defaults(fn=cmd_stop)
    p = sub.add_parser("disarm", help="cancel an armed stop")
    p.add_argument("n", type=int)
    p.set_defaults(fn=cmd_disarm)
    sub.add_parser("stops", help="the stop table").set_defaults(fn=cmd_stops)
    sub.add_parser("orders", help="the order table").set_defaults(fn=cmd_orders)
    for side in ("buy", "sell"):
        p = sub.add_parser(side, help=f"send a limit {side} order")
        p.add_argument("symbol")
        p.add_argument("qty", type=int)
        p.add_argument("price")
        p.set_defaults(fn=cmd_order, side=side)
    p = sub.add_parser("cancel", help="cancel an open order")
    p.add_argument("n", type=int)
    p.set_defaults(fn=cmd_cancel)
    sub.add_parser("md", help="last bid, offer and trade per symbol").set_defaults(fn=cmd_md)
    p = sub.add_parser("session", help="start or stop the FIX session")
    p.add_argument("action", choices=["start", "stop"])
    p.set_defaults(fn=cmd_session)
    sub.add_parser("utc", help="give the SoC this host's UTC time").set_defaults(fn=cmd_utc)
    p = sub.add_parser("apply", help="configure the session from a QuickFIX-style settings file")
    p.add_argument("file")
    p.add_argument("--target", help="the session's TargetCompID when the file has several")
    p.add_argument("--start", action="store_true", help="then set UTC and start the session")
    p.add_argument("--restart", action="store_true", help="stop a running session first")
    p.set_defaults(fn=cmd_apply)
    p = sub.add_parser("watch", help="live table of session, market, stops, fires and fills (--json: the events)")
    p.add_argument("--duration", type=float, help="seconds, then exit (default: until Ctrl-C)")
    p.add_argument("--count", type=int, help="exit after this many events")
    p.add_argument("--md-every", type=float, default=2.0, help="seconds between market data summaries")
    p.set_defaults(fn=cmd_watch)
    p = sub.add_parser("console", help="run a console command as if typed")
    p.add_argument("line", nargs="+")
    p.set_defaults(fn=cmd_console)
    args = ap.parse_args(argv)
    if not args.url:
        ap.error("no appliance: --url socket://127.0.0.1:PORT (or a serial port), or set TFCTL_URL")
    try:
        with Appliance(args.url, timeout=args.timeout, connect_timeout=5) as tf:
            args.fn(tf, args)
    except KeyboardInterrupt:
        return 130
    except (ApplianceError, protocol.ProtocolError, SettingsError, ConnectionLost, TimeoutError) as e:
        print(f"tfctl: {e}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
