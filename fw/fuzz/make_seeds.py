#!/usr/bin/env python3
"""Writes the seed corpora of the fuzzers (fw/fuzz/corpus/<name>/) in the input formats their harnesses read:
real messages as the exchange sends them (the forms fw/tests uses), wrapped in each harness's records.
Run from anywhere: python3 fw/fuzz/make_seeds.py (it replaces the seed files it writes, nothing else)."""
import os
import struct

HERE = os.path.dirname(os.path.abspath(__file__))
SOH = b"\x01"


def frame(body):
    body = body.replace("|", "\x01").encode()
    m = b"8=FIX.4.4\x019=%d\x01" % len(body) + body
    return m + b"10=%03d\x01" % (sum(m) % 256)


HDR = "49=EXCH|52=20260105-14:30:00.000|56=TFISH|"
HB = "35=0|34=2|" + HDR
LOGON = "35=A|34=1|" + HDR + "98=0|108=30|"
W = ("35=W|34=17|49=EXCH|52=20261125-13:04:04.298|56=TFISH1|55=MSFT|262=MD1|268=3|269=0|270=99.75|271=100|290=1|"
     "269=1|270=100.25|271=100|290=1|269=2|270=100|271=100|")
ER = ("35=8|34=5|" + HDR + "37=O1|11=FZ-1|17=E1|150=F|39=2|55=MSFT|54=1|38=100|44=100.10|32=100|31=100.05|151=0|"
      "14=100|6=100.05|")
RR = "35=2|34=3|" + HDR + "7=1|16=0|"
GF = "35=4|34=3|" + HDR + "43=Y|122=20260105-14:29:00.000|123=Y|36=9|"

# ---- fuzz_session / fuzz_app records (fix_harness.h) ----
TYPES = ["0", "1", "2", "3", "4", "5", "A", "W", "8", "9", "j", "Y", "D", "AE", "B", "X"]


def msg(typ, body, delta=0, flags=0, cut=None):
    b = body.encode()
    if len(b) > 255:
        flags |= 32
    rec = bytes([0, TYPES.index(typ), delta & 0xFF, flags])
    rec += struct.pack(">H", len(b)) if flags & 32 else bytes([len(b)])
    rec += b
    if flags & 4:
        rec += bytes([cut])
    return rec


def tick(ms):
    return bytes([4]) + struct.pack(">H", ms // 10)


def owner(what):
    return bytes([6, what])


def reconnect(answer=True):
    return bytes([5, 1 if answer else 0])


def garbage(b):
    return bytes([7, len(b)]) + b


SESSION = {
    "heartbeats": b"\x00" + msg("0", "") + tick(1000) + msg("0", "") + tick(31000) + tick(7000),
    "test_request": b"\x00" + msg("1", "112=TEST1|"),
    "resend_request": b"\x00" + owner(0) + owner(1) + owner(2) + msg("2", "7=2|16=0|"),
    "gap_then_fill": b"\x00" + msg("0", "", delta=3) + msg("4", "123=Y|36=6|", flags=1) + msg("0", ""),
    "seq_reset": b"\x00" + msg("4", "36=20|"),
    "too_low": b"\x00" + msg("0", "", delta=0xFF),
    "logout": b"\x00" + msg("5", "58=bye|") + tick(100),
    "our_logout": b"\x00" + owner(0x07) + tick(10) + msg("5", ""),
    "app_rejected": b"\x00" + msg("B", "58=R|") + msg("B", "58=U|") + msg("B", "148=news|"),
    "begin_string": b"\x00" + msg("0", "", flags=64),
    "no_reply_timeout": b"\x01" + tick(11000) + reconnect(True) + msg("0", ""),
    "reject": b"\x00" + msg("3", "45=1|373=5|58=no|"),
    "split": b"\x00" + msg("1", "112=X|", flags=4, cut=20) + garbage(b"8=FIX.4.4\x019=5"),
    "reset_on_logon": b"\x02" + reconnect(True) + msg("0", ""),
}

# ---- fuzz_app: byte 0 mode, 4 stops [side|sym][stop px u32], then records ----
def stops(*s):
    out = b""
    for side, sym, px in s:
        out += bytes([(0 if side == "buy" else 1) | sym << 1]) + struct.pack(">I", px)
    return out.ljust(20, b"\xff")


W_BODY = "55=MSFT|262=MD1|268=3|269=0|270=99.75|271=100|290=1|269=1|270=100.25|271=100|290=1|269=2|270=100.05|271=100|"
APP_STOPS = stops(("buy", 0, 1000000), ("sell", 0, 990000), ("buy", 1, 5))
APP = {
    "md_snapshot": b"\x00" + APP_STOPS + msg("W", W_BODY),
    "md_fires": b"\x00" + APP_STOPS + msg("W", "55=MSFT|262=MD1|268=1|269=2|270=100.0000|271=5|")
    + msg("W", "55=MSFT|262=MD1|268=1|269=2|270=98.999|271=5|"),
    "md_more_decimals": b"\x00" + APP_STOPS + msg("W", "55=MSFT|262=MD1|268=1|269=2|270=99.99999|271=5|"),
    "exec_new_fill": b"\x00" + APP_STOPS + owner(0) + msg("8", "37=O1|11=FZ-1|17=E1|150=0|39=0|55=MSFT|54=1|38=100|44=100|151=100|14=0|6=0|")
    + msg("8", "37=O1|11=FZ-1|17=E2|150=F|39=2|55=MSFT|54=1|38=100|44=100|32=100|31=100|151=0|14=100|6=100|"),
    "cancel_reject": b"\x00" + APP_STOPS + owner(0) + owner(1) + msg("9", "37=O1|11=FZ-2|41=FZ-1|39=0|434=1|102=1|"),
    "md_reject": b"\x00" + APP_STOPS + owner(2) + msg("Y", "262=MD1|281=0|58=unknown|"),
    "business_reject": b"\x00" + APP_STOPS + owner(0) + msg("j", "45=2|372=D|380=3|379=FZ-1|58=no|"),
}

# ---- fuzz_codec: 2 bytes chunking seed, then the stream ----
CODEC = {
    "heartbeat": frame(HB), "md_snapshot": frame(W), "logon": frame(LOGON), "exec_fill": frame(ER),
    "two_messages": frame(HB) + frame(W), "garbage_then_msg": b"xx8=FIX\x01junk" + frame(RR), "gapfill": frame(GF),
    "bad_checksum": frame(HB)[:-4] + b"000\x01" + frame(HB),
    # a 35=W longer than the receive buffer (FIX_MAX_MSG_LEN, 1024): delivered as too long, then a heartbeat
    "too_long": frame(W.replace("268=3|", "268=63|") + "269=2|270=100.25|271=7|" * 60) + frame(HB),
}

# ---- fuzz_console: byte 0 mode (0: typed on the console, 1: one request for mp_parse), then the bytes ----
CONSOLE = {k: b"\x00" + v for k, v in {
    "help": b"help\r\n", "stops": b"stops\r\nstop buy MSFT 100 100.10 100.40\r\n",
    "machine_status": b'@{"id":1,"cmd":"status"}\n',
    "machine_console": b'@{"id":2,"cmd":"console","line":"stop sell MSFT 5 99.5 99.4 repeat"}\r\n',
    "machine_bad": b'@{"id":3,"cmd":"console","line":"x","extra":7}\n@{"id":-1}\n@{\n',
    "edit": b"sto\x7fp\x08ps\r\n\x03\x1b[A\r\n",
}.items()}
CONSOLE["request"] = b'\x01{"id":7,"cmd":"console","line":"stops"}'
CONSOLE["request_ints"] = b'\x01 { "id" : 2147483647 , "cmd":"x","n":0,"a":"b c"} '


# ---- fuzz_tcp: byte 0 mode (bit 0: the peer does not answer the SYN), then records (fuzz_tcp.c) ----
ACK, PSH, FIN, RST, SYN = 0x10, 0x08, 0x01, 0x04, 0x02


def seg(flags, dseq=0, dack=0, wnd=65535, dlen=0, opt=b""):
    return bytes([0, flags]) + struct.pack(">hhHH", dseq, dack, wnd, dlen) + bytes([len(opt)]) + opt


def t(ms):
    return bytes([5]) + struct.pack(">H", ms)


def own(what, n=0):
    return bytes([6, what]) + struct.pack(">H", n)


ARP_REQ = bytes.fromhex("ffffffffffff025446000001080600010800060400010254460000010a4d00010000000000000a4d0002") + bytes(18)
TCP = {
    "data_in_order": b"\x00" + seg(ACK | PSH, dlen=100) + seg(ACK | PSH, dlen=1460),
    "out_of_order": b"\x00" + seg(ACK | PSH, dseq=100, dlen=100) + seg(ACK | PSH, dlen=100) + seg(ACK | PSH, dseq=-50, dlen=100),
    "send_and_ack": b"\x00" + own(0, 300) + seg(ACK, dack=300) + own(0, 3000) + t(1500) + seg(ACK, dack=1000),
    "retransmit": b"\x00" + own(0, 500) + t(1200) + t(2500) + seg(ACK) + seg(ACK) + seg(ACK),
    "peer_fin": b"\x00" + seg(ACK | FIN, dlen=10) + own(2) + seg(ACK, dack=1) + t(3000),
    "our_close": b"\x00" + own(2) + seg(ACK, dack=1) + seg(ACK | FIN, dack=1),
    "rst": b"\x00" + seg(RST) + own(3) + own(3),
    "zero_window": b"\x00" + seg(ACK, wnd=0) + own(0, 200) + t(1000) + t(2000) + seg(ACK, wnd=1000),
    "no_synack": b"\x01" + t(1000) + t(3000) + t(7000) + seg(SYN | ACK),
    "hw_lease": b"\x00" + own(4 | 8 | 16, 100) + seg(ACK, dack=50),
    "arp_request": b"\x00" + bytes([4, 1]) + struct.pack(">H", len(ARP_REQ)) + ARP_REQ,
    "mss_option": b"\x00" + seg(ACK, opt=bytes([2, 4, 1, 0, 1, 1, 4, 2])) + own(0, 1000),
}


def write(name, seeds, prefix=b""):
    d = os.path.join(HERE, "corpus", name)
    os.makedirs(d, exist_ok=True)
    for k, v in seeds.items():
        with open(os.path.join(d, k), "wb") as f:
            f.write(prefix + v)


write("session", SESSION)
write("app", APP)
write("codec", CODEC, prefix=b"\x12\x34")
write("console", CONSOLE)
write("tcp", TCP)
