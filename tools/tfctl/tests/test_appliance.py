"""Host tests of the library's client side against a scripted peer on a local TCP port (no simulation): replies
matched to requests by id, listings gathered from their events, an error reply whose id could not be read,
gaps in the event sequence, human lines kept apart, counters, a request answered after its events, and a lost
connection reported and retried (by the library and by `tfctl watch`)."""
import json
import socket
import threading
import time

import pytest

from tfctl import Appliance, ApplianceError, ConnectionLost
from tfctl.cli import main as cli


class Peer:
    """Answers requests like the firmware: `script(req)` returns the lines to send back."""

    def __init__(self, script):
        self.srv = socket.socket()
        self.srv.bind(("127.0.0.1", 0))
        self.srv.listen(1)
        self.port = self.srv.getsockname()[1]
        self.script, self.conns, self.requests = script, [], []
        threading.Thread(target=self.serve, daemon=True).start()

    def serve(self):
        while True:
            try:
                c, _ = self.srv.accept()
            except OSError:
                return
            self.conns.append(c)
            threading.Thread(target=self.talk, args=(c,), daemon=True).start()

    def talk(self, c):
        buf = b""
        while True:
            try:
                d = c.recv(4096)
            except OSError:
                return
            if not d:
                return
            buf += d
            while b"\r\n" in buf:
                line, buf = buf.split(b"\r\n", 1)
                req = json.loads(line[1:]) if line.startswith(b"@{") else {"raw": line.decode()}
                self.requests.append(req)
                for out in self.script(req):
                    c.sendall(out.encode() + b"\r\n")

    def drop(self):
        for c in self.conns:
            c.shutdown(socket.SHUT_RDWR)
            c.close()
        self.conns.clear()


def firmware(req):
    rid = req.get("id")
    if req.get("cmd") == "status":
        return ['tf> fix: a human line', f'@{{"id":{rid},"ok":true,"session":"active","seq":4}}']
    if req.get("line") == "stops":
        return ['@{"ev":"stop","seq":5,"stop":0,"state":"armed"}', '@{"ev":"stop.fired","seq":6,"stop":1}',
                '@{"ev":"stop","seq":7,"stop":1,"state":"fired"}', f'@{{"id":{rid},"ok":true,"n":2,"msg":"stops: 2"}}']
    if req.get("line", "").startswith("stop buy"):
        return ['@{"ev":"stop.armed","seq":9,"stop":3}', f'@{{"id":{rid},"ok":true,"n":3,"msg":"stop 3: armed"}}']
    if req.get("line") == "md":
        return ['@{"ev":"md","seq":15,"sym":"MSFT","updates":7,"bid":"100.05","offer":"100.25","trade":"100.15"}',
                f'@{{"id":{rid},"ok":true,"n":1,"msg":""}}']
    if req.get("line") == "net":
        return ['@{"ev":"counters","seq":10,"group":"mac","rx_frames":12,"crc_errors":1}',
                '@{"ev":"counters","seq":11,"group":"net","eth_rx":12,"icmp_echo_reply":3}', f'@{{"id":{rid},"ok":true,"n":-1,"msg":""}}']
    if req.get("line") == "ethlat 2":  # a long command: its events, then (later) its reply
        time.sleep(0.3)
        return ['@{"ev":"ethlat.ready","seq":12,"frames":2}', '@{"ev":"ethlat","seq":13,"frame":0,"rx":100,"tx":150}',
                '@{"ev":"ethlat","seq":14,"frame":1,"rx":200,"tx":250}', f'@{{"id":{rid},"ok":true,"n":-1,"msg":""}}']
    if req.get("line") == "bogus":
        return [f'@{{"id":{rid},"ok":false,"error":"refused","msg":"error: unknown command"}}']
    if req.get("line") == "garbled":
        return ['@{"id":null,"ok":false,"error":"bad_json","msg":""}']
    return []


@pytest.fixture
def peer():
    p = Peer(firmware)
    yield p
    p.srv.close()
    p.drop()


def test_requests_listings_events_and_gaps(peer):
    status_msgs = []
    with Appliance(f"socket://127.0.0.1:{peer.port}", timeout=5, on_status=status_msgs.append) as tf:
        assert tf.status() == {"session": "active", "seq": 4}
        assert tf.last_seq == 4
        stops = tf.stops.list()
        assert [s["stop"] for s in stops] == [0, 1]        # the listing's events, not the stop.fired between them
        assert tf.stops.arm("buy", "MSFT", 100, "100.10", "100.40") == 3
        assert peer.requests[-1]["line"] == "stop buy MSFT 100 100.10 100.40"
        names = [(e.name, e.seq) for e in tf.events(timeout=0.5)]
        assert names == [("stop", 5), ("stop.fired", 6), ("stop", 7), ("stop.armed", 9)]
        assert tf.gaps == [(8, 8)]                         # seq 8 never came
        assert "tf> fix: a human line" in tf.human
        with pytest.raises(ApplianceError) as e:
            tf.console("bogus")
        assert e.value.code == "refused" and "unknown command" in e.value.msg
        with pytest.raises(ApplianceError) as e:         # an error without an id answers the one waiting request
            tf.console("garbled")
        assert e.value.code == "bad_json"
    assert status_msgs == []


def test_counters_and_a_request_answered_later(peer):
    with Appliance(f"socket://127.0.0.1:{peer.port}", timeout=5, on_status=lambda m: None) as tf:
        c = tf.counters("net")
        assert c == {"mac": {"rx_frames": 12, "crc_errors": 1}, "net": {"eth_rx": 12, "icmp_echo_reply": 3}}
        assert peer.requests[-1]["line"] == "net"
        assert tf.counters("mac") == c                     # a group is asked for by the command that lists it
        with pytest.raises(Exception, match="counters: one of"):
            tf.counters("bogus")
        req = tf.submit("console", line="ethlat 2")          # answered after its events
        assert not req.done()
        ready = tf.wait_for("ethlat.ready", timeout=5)
        assert ready["frames"] == 2
        assert req.result(5) == {"n": -1, "msg": ""}
        frames = [e for e in tf.events(timeout=0.3) if e.name == "ethlat"]
        assert [(e["frame"], e["tx"] - e["rx"]) for e in frames] == [(0, 50), (1, 50)]


def test_lost_connection_is_reported_and_retried(peer):
    status_msgs = []
    with Appliance(f"socket://127.0.0.1:{peer.port}", timeout=5, on_status=status_msgs.append) as tf:
        tf.status()
        peer.drop()
        for _ in range(50):
            if status_msgs:
                break
            time.sleep(0.1)
        assert status_msgs and "lost the connection" in status_msgs[0]
        for _ in range(50):
            if any("connected again" in m for m in status_msgs):
                break
            time.sleep(0.1)
        assert tf.status()["session"] == "active"           # the retry reached the peer again


def test_no_peer_is_a_clear_error():
    s = socket.socket()
    s.bind(("127.0.0.1", 0))
    port = s.getsockname()[1]
    s.close()
    with pytest.raises(ConnectionLost, match="cannot reach"):
        Appliance(f"socket://127.0.0.1:{port}", connect_timeout=0.5)


def test_cli_json_and_text(peer, capsys):
    url = f"socket://127.0.0.1:{peer.port}"
    assert cli(["--url", url, "status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out) == {"session": "active", "seq": 4}
    assert cli(["--url", url, "stop", "buy", "MSFT", "100", "--stop", "100.10", "--limit", "100.40"]) == 0
    assert capsys.readouterr().out == "stop 3 armed\n"
    assert peer.requests[-1]["line"] == "stop buy MSFT 100 100.10 100.40"
    assert cli(["--url", url, "console", "net"]) == 0             # a table of counters, from its events
    assert capsys.readouterr().out == "mac: rx_frames 12, crc_errors 1\nnet: eth_rx 12, icmp_echo_reply 3\n"
    assert cli(["--url", url, "counters", "net", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["net"] == {"eth_rx": 12, "icmp_echo_reply": 3}
    assert cli(["--url", url, "console", "bogus"]) == 1          # an error reply: exit 1, the reason on stderr
    assert "refused: error: unknown command" in capsys.readouterr().err
    n = len(peer.requests)
    assert cli(["--url", url, "stop", "buy", "MSFT", "0", "--stop", "1", "--limit", "1"]) == 1
    assert len(peer.requests) == n                                # refused before it reached the wire


def test_watch_reports_a_lost_connection_and_goes_on(peer, capsys):
    url = f"socket://127.0.0.1:{peer.port}"
    t = threading.Timer(1.0, peer.drop)
    t.start()
    try:
        assert cli(["--url", url, "--timeout", "5", "watch", "--duration", "4", "--md-every", "0.5"]) == 0
    finally:
        t.cancel()
    err = capsys.readouterr().err
    assert "lost the connection" in err and "connected again" in err, err
    n_status = sum(1 for r in peer.requests if r.get("cmd") == "status")
    assert n_status >= 2                                   # the board read the session again after the retry


def test_watch_board_from_events():
    from tfctl.cli import Board
    from tfctl.protocol import decode_line
    b = Board()
    for line in ['@{"ev":"logon","seq":2,"target":"EXCH"}',
                 '@{"ev":"stop.armed","seq":3,"stop":0,"state":"armed","side":"buy","sym":"MSFT","qty":100,"stop_px":"100.1",'
                 '"limit_px":"100.4","hw":true,"fires":0,"by_hw":false,"trade":"0","order":-1}',
                 '@{"ev":"md","seq":4,"sym":"MSFT","updates":7,"bid":"100.05","offer":"100.25","trade":"100.15"}',
                 '@{"ev":"stop.fired","seq":5,"stop":0,"by_hw":true,"trade":"100.15","order":0,"clordid":"T1-2","msgseq":7,"cycles":22}',
                 '@{"ev":"order.fill","seq":6,"order":0,"clordid":"T1-2","state":"filled","cum":100,"leaves":0,"last_qty":100,'
                 '"last_px":"100.25","text":""}']:
        b.apply(decode_line(line))
    text = b.render()
    assert "session: logged on to EXCH" in text
    assert text.startswith("link: connected")
    assert "MSFT" in text and "100.15" in text
    assert "stop 0 on 100.15: hardware, order T1-2, 22 cycles (176 ns) price to MAC" in text
    assert "T1-2 100 @ 100.25 (filled)" in text


def test_watch_board_repeating_stop_armed_or_disarmed_by_its_fire():
    from tfctl.cli import Board
    from tfctl.protocol import decode_line
    b = Board()
    b.apply(decode_line('@{"ev":"stop.armed","seq":3,"stop":4,"state":"armed","side":"sell","sym":"MSFT","qty":100,'
                        '"stop_px":"99.6","limit_px":"99.3","hw":false,"fires":0,"by_hw":false,"trade":"0","order":-1}'))
    fired = '@{"ev":"stop.fired","seq":%d,"stop":4,"by_hw":false,"trade":"99.55","order":%d,"clordid":"T1-%d","msgseq":0,"cycles":0,"armed":%s}'
    b.apply(decode_line(fired % (4, 1, 1, "true")))            # armed again
    assert b.stops[4]["state"] == "armed"
    b.apply(decode_line(fired % (5, 2, 2, "false")))           # no order table entry left for its next order
    assert b.stops[4]["state"] == "fired"
