"""Host tests of the protocol codec (no simulation): requests as the firmware's parser takes them, replies and
events as the firmware writes them (the lines below are copied from fw/tests/test_lib_mproto.c's expectations
and a simulation's console log), and the console lines the typed calls build."""
from decimal import Decimal

import pytest

from tfctl.protocol import (Event, LineSplitter, ProtocolError, Reply, arm_line, decode_line, encode_request,
                            order_line, price, session_lines)


def test_request_is_one_compact_line():
    assert encode_request(7, "status") == b'@{"id":7,"cmd":"status"}\r\n'
    assert encode_request(8, "console", line="stop buy MSFT 100 100.10 100.40") == \
        b'@{"id":8,"cmd":"console","line":"stop buy MSFT 100 100.10 100.40"}\r\n'


@pytest.mark.parametrize("members", [
    {"x": 1.5}, {"x": True}, {"x": None}, {"x": [1]}, {"x": {"a": 1}}, {"x": -1}, {"x": 2**31},
    {"x": 'say "hi"'}, {"x": "back\\slash"}, {"x": "caf\u00e9"}, {"x": "tab\there"},
])
def test_request_outside_the_firmware_subset_is_refused(members):
    with pytest.raises(ProtocolError):
        encode_request(1, "console", **members)


def test_request_longer_than_the_console_line_is_refused():
    assert len(encode_request(1, "console", line="x" * 92)) == 127 + 2  # '@', the envelope, CR LF
    with pytest.raises(ProtocolError, match="at most 127"):
        encode_request(1, "console", line="x" * 93)


def test_decode_reply_event_and_human_lines():
    r = decode_line('@{"id":5,"ok":true,"n":-1,"msg":"stop 0: armed"}\r\n')
    assert r == Reply(5, True, {"n": -1, "msg": "stop 0: armed"})
    e = decode_line(b'@{"ev":"stop.armed","seq":1,"stop":3,"sym":"MSFT","stop_px":"100.1","hw":true}')
    assert e == Event("stop.armed", 1, {"stop": 3, "sym": "MSFT", "stop_px": "100.1", "hw": True})
    assert e["sym"] == "MSFT"
    err = decode_line('@{"id":null,"ok":false,"error":"too_long","msg":"line discarded"}')
    assert err.id is None and not err.ok and err.error == "too_long" and err.msg == "line discarded"
    assert decode_line("tf> fix: logged on to EXCH as TFISH1") is None
    assert decode_line("stop 0: fired by hardware on trade 100.1") is None


@pytest.mark.parametrize("line", ['@{"id":1', '@[1,2]', '@{"seq":3}', '@{"ev":"x"}', '@{"id":"a","ok":true}',
                                  '@{"ev":"x","seq":"1"}'])
def test_decode_broken_machine_lines(line):
    with pytest.raises(ProtocolError):
        decode_line(line)


def test_line_splitter_handles_cr_lf_and_pieces():
    s = LineSplitter()
    assert s.feed(b'tf> \r\n@{"ev":"boot",') == ["tf> "]
    assert s.feed(b'"seq":1}\r\nhuman\n\rlast') == ['@{"ev":"boot","seq":1}', "human"]
    assert s.feed(b"\r") == ["last"]


def test_prices_are_decimal_strings():
    assert price("100.10") == "100.10"
    assert price(Decimal("99.5")) == "99.5"
    assert price(100) == "100"
    for bad in (0, "-1", "abc", "1e999999", 1.5):
        with pytest.raises(ProtocolError):
            price(bad)
    assert price("1.2345", decimals=4) == "1.2345"
    with pytest.raises(ProtocolError):
        price("1.23456", decimals=4)


def test_console_lines_from_typed_calls():
    assert arm_line("buy", "MSFT", 100, "100.10", "100.40") == "stop buy MSFT 100 100.10 100.40"
    assert arm_line("sell", "MSFT", 5, Decimal("99.6"), "99.3", repeat=True) == "stop sell MSFT 5 99.6 99.3 repeat"
    assert order_line("sell", "AAPL", 10, "150.25") == "sell AAPL 10 150.25"
    for args in [("hold", "MSFT", 1, "1", "1"), ("buy", "MS FT", 1, "1", "1"), ("buy", "MSFT", 0, "1", "1"),
                 ("buy", "MSFT", 1.0, "1", "1"), ("buy", "X" * 16, 1, "1", "1"), ("buy", "MSFT", 1, "-1", "1")]:
        with pytest.raises(ProtocolError):
            arm_line(*args)


def test_session_lines_check_every_option_first():
    assert session_lines(sender="TFISH1", heartbeat="5", host="10.77.0.1", port=9876, symbols=["MSFT", "AAPL"]) == [
        "fix set sender TFISH1", "fix set heartbeat 5", "fix set host 10.77.0.1", "fix set port 9876",
        "fix set symbols MSFT,AAPL"]
    for bad in ({"host": "exchange.example"}, {"port": "x"}, {"symbols": "A,B,C,D,E"}, {"colour": "red"},
                {"sender": "TF ISH"}):
        with pytest.raises(ProtocolError):
            session_lines(**bad)
