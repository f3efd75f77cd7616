"""Whole-SoC session through tfctl (run by sim/tests/test_tfctl.sh): the simulated SoC on libslirp with its
console on a free TCP port (+uart-tcp=0), the QuickFIX/J exchange simulator on another free port.

  1. `tfctl apply` configures the session from a QuickFIX-style settings file (in a folder whose name has
     spaces) and starts it; the logon event comes.
  2. Malformed requests each get an error reply and change nothing: bad JSON, an unknown command, wrong types,
     a bad id, a 10 KB line; the console answers status after each, and no event is produced by them.
  3. A hardware stop is armed; the scripted market crosses it; the events stop.armed, stop.fired (by the
     hardware, with its cycle count), order.new and order.fill of that order come in that order.
  4. The session is stopped (its disconnected event). From the library's return after the CLI's turn (what came
     while no client was connected is not kept) to the end, the event sequence numbers have no gap.
Paths are relative to the checkout (this file's location); nothing depends on where the clone lives.
"""
import os
import shutil
import socket
import subprocess
import time
from pathlib import Path

import pytest

from tfctl import Appliance, ApplianceError
from tfctl.cli import main as tfctl_main

ROOT = Path(__file__).resolve().parents[3]
SIM = ROOT / os.environ.get("SIM_BIN", "build/sim/obj/VSoc")
FW = ROOT / (os.environ.get("FW", "build/fw/sim/firmware") + ".hex")
JAR = ROOT / os.environ.get("EXCHANGE_JAR", "out/exchange/assembly.dest/out.jar")
OUT = ROOT / "build/sim/tests/tfctl"


def free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def wait_file(path, proc, what, timeout):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if path.exists() and path.read_text().strip():
            return path.read_text()
        if proc.poll() is not None:
            pytest.fail(f"{what} ended (exit {proc.returncode}) before it was ready")
        time.sleep(0.1)
    pytest.fail(f"{what} not ready within {timeout} s")


@pytest.fixture(scope="module")
def rig():
    for p, what in ((SIM, "the Verilator model (make build/sim/obj/VSoc)"), (FW, "the firmware (make firmware)"),
                    (JAR, "the exchange simulator (make out/exchange/assembly.dest/out.jar)")):
        if not p.exists():
            pytest.skip(f"no {what}")
    if not shutil.which("java"):
        pytest.skip("no java")
    if OUT.exists():
        shutil.rmtree(OUT)
    OUT.mkdir(parents=True)
    procs = []
    try:
        xport = free_port()
        exch_log = open(OUT / "exchange.out", "w")
        exch = subprocess.Popen(["java", "-jar", str(JAR), "--settings", "tools/exchange/exchange.cfg", "--bind", "127.0.0.1",
                                 "--port", str(xport), "--log-dir", str(OUT / "exchange"), "--path", "sim/tests/offload.path",
                                 "--loop", "--wait-subscriber"], cwd=ROOT, stdout=exch_log, stderr=subprocess.STDOUT)
        procs.append(exch)
        deadline = time.monotonic() + 60
        while "EXCHANGE READY" not in (OUT / "exchange.out").read_text():
            if exch.poll() is not None or time.monotonic() > deadline:
                pytest.fail("the exchange did not start: " + (OUT / "exchange.out").read_text()[-500:])
            time.sleep(0.1)
        port_file = OUT / "uart.port"
        soc_log = open(OUT / "soc.log", "w")
        soc = subprocess.Popen([str(SIM), f"+firmware={FW}", "+slirp", "+uart-tcp=0", f"+uart-tcp-port-file={port_file}",
                                f"+pcap={OUT / 'soc.pcap'}", "+timeout=6000000000"], cwd=ROOT, stdout=soc_log,
                               stderr=subprocess.STDOUT)
        procs.append(soc)
        uport = int(wait_file(port_file, soc, "the simulation", 60))
        deadline = time.monotonic() + 120  # what is typed before the firmware's UART is up is lost: wait for its boot event
        while '"ev":"boot"' not in (OUT / "soc.log").read_text():
            if soc.poll() is not None or time.monotonic() > deadline:
                pytest.fail("the firmware did not boot: " + (OUT / "soc.log").read_text()[-500:])
            time.sleep(0.1)
        yield {"url": f"socket://127.0.0.1:{uport}", "xport": xport, "soc": soc}
    finally:
        for p in reversed(procs):  # by PID: the simulation, then the exchange
            if p.poll() is None:
                p.terminate()
                try:
                    p.wait(20)
                except subprocess.TimeoutExpired:
                    p.kill()
                    p.wait()


def test_session_from_settings_fire_and_fill(rig, tmp_path):
    tf = Appliance(rig["url"], timeout=60, on_status=lambda m: print("tfctl:", m))
    try:
        st = tf.status()
        assert st["proto"] == 1 and st["client"] == "off"
        first_seq = st["seq"] + 1
        seen = []

        def take(name, timeout, where=None):
            ev = tf.wait_for(name, timeout, where)
            seen.extend(tf.skipped)
            tf.skipped.clear()
            seen.append(ev)
            return ev

        # 1. the session from a settings file the way a QuickFIX user has it
        cfg = tmp_path / "my engine" / "session.cfg"
        cfg.parent.mkdir()
        cfg.write_text("[DEFAULT]\nConnectionType=initiator\nFileStorePath=store\nHeartBtInt=30\n\n"
                       f"[SESSION]\nBeginString=FIX.4.4\nSenderCompID=TFISH1\nTargetCompID=EXCH\nHeartBtInt=5\n"
                       f"SocketConnectHost=10.77.0.1\nSocketConnectPort={rig['xport']}\nSymbols=MSFT\n")
        tf.close()  # the CLI takes the console (one client at a time), then the library again
        assert tfctl_main(["--url", rig["url"], "--timeout", "60", "apply", str(cfg), "--start"]) == 0
        tf = Appliance(rig["url"], timeout=60, on_status=lambda m: print("tfctl:", m))
        # what came while the CLI had the console, or between its turn and ours, was nobody's (docs/PROTOCOL.md:
        # events while no client is connected are not kept; the ARP resolution of the exchange comes then): this
        # client counts its events from the sequence number its first status reply gives
        st = tf.status()
        back = st["seq"]
        assert back >= first_seq - 1
        first_seq = back + 1
        tf.last_seq = max(tf.last_seq or 0, back)
        if st["session"] != "active":
            logon = take("logon", 300)
            assert logon["target"] == "EXCH" and logon["symbols"] == "MSFT" and logon["md_req"] >= 0
        else:
            # logged on already, before this client was back: the logon event was nobody's (the same rule). The
            # session's numbers and the market data it subscribed to say what the event would have.
            print("tfctl: logged on before the library reconnected; checking the session through status")
            assert st["next_in"] >= 2 and st["next_out"] >= 2, st
            deadline = time.monotonic() + 120
            while tf.status()["md_msgs"] == 0:
                assert time.monotonic() < deadline, "no market data within 120 s of the logon (subscription for MSFT)"
                time.sleep(1)
        assert tf.status()["session"] == "active"

        # 2. malformed requests: an error reply each, nothing changes, the console keeps working
        before = tf.status()
        cases = [
            (b'@{"id":901,"cmd":\r\n', 901, "bad_json"),
            (b'@{"id":902,"cmd":"frobnicate"}\r\n', 902, "unknown_command"),
            (b'@{"id":903,"cmd":"console","line":5}\r\n', 903, "bad_args"),
            (b'@{"id":904,"cmd":"console","line":"stop buy MSFT 100 100.10 100.40","x":1.5}\r\n', 904, "bad_json"),
            (b'@{"id":"905","cmd":"status"}\r\n', None, "bad_id"),
            (b"@{" + b"x" * (10 * 1024) + b"}\r\n", None, "too_long"),
        ]
        for data, rid, code in cases:
            r = tf.raw(data, expect_id=rid, timeout=240)
            assert not r.ok and r.error == code, (data[:40], r)
            assert r.id == rid
            assert tf.status()["session"] == "active"
        after = tf.status()
        assert after["seq"] == before["seq"], "a malformed request produced an event"
        assert tf.stops.list() == []  # the bad stops.arm (904) armed nothing

        # 3. a hardware stop that the scripted market crosses (buy at 100.10 fires on the trade at 100.15)
        n = tf.stops.arm("buy", "MSFT", 100, stop="100.10", limit="100.40")
        armed = take("stop.armed", 30)
        assert armed["stop"] == n and armed["hw"] is True and armed["stop_px"] == "100.1"
        fired = take("stop.fired", 300, lambda e: e["stop"] == n)
        assert fired["by_hw"] is True and fired["trade"] == "100.15" and fired["cycles"] > 0
        clordid = fired["clordid"]
        assert clordid
        new = take("order.new", 120, lambda e: e["clordid"] == clordid)
        fill = take("order.fill", 120, lambda e: e["clordid"] == clordid)
        assert fill["last_qty"] == 100 and fill["state"] == "filled" and fill["leaves"] == 0
        order = [e.name for e in seen if e.name in ("stop.armed", "stop.fired", "order.new", "order.fill")]
        assert order == ["stop.armed", "stop.fired", "order.new", "order.fill"]
        assert new.seq < fill.seq
        rows = tf.orders.list()
        assert any(o["clordid"] == clordid and o["state"] == "filled" for o in rows)

        # 4. the end of the session; no event missed over the run
        tf.session.stop()  # a Logout, or (when the exchange has just logged us out) the connection closed
        take("disconnected", 120, lambda e: e["reconnecting"] is False)
        seen.extend(tf.events(timeout=1))
        seqs = [e.seq for e in seen if e.seq >= first_seq]
        assert tf.gaps == [], f"events missed: {tf.gaps}"
        assert seqs == list(range(seqs[0], seqs[0] + len(seqs))), seqs
        assert seqs[0] == first_seq
        assert tf.boots == 0
        info = tf.counters("info")["info"]  # the stack's deepest use, for the record
        assert 0 < info["stack_used"] < info["stack_size"] and info["ram_free"] >= 0
        print(f"firmware: stack {info['stack_used']} of {info['stack_size']} bytes used at most; RAM free {info['ram_free']} bytes")
    finally:
        tf.close()
