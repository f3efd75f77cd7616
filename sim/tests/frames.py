#!/usr/bin/env python3
"""Builds test frames as hex for the harness's Ethernet control channel (sim/eth/README.md).

  frames.py echo      DST_MAC SRC_MAC SRC_IP DST_IP [--bad-ip-checksum] [--fragment] [--pad N]
  frames.py oversize  DST_MAC SRC_MAC          a 1600-byte frame
  frames.py arp       DST_MAC SRC_MAC SRC_IP DST_IP      an ARP request for DST_IP
  frames.py udp       DST_MAC SRC_MAC SRC_IP DST_IP SPORT DPORT
  frames.py syn       DST_MAC SRC_MAC SRC_IP DST_IP SPORT DPORT   a TCP SYN
  frames.py ipv6      DST_MAC SRC_MAC          an IPv6 frame (EtherType 0x86DD, zeros)
Prints the frame (Ethernet header onwards, no FCS) as hex."""
import struct
import sys


def mac(s):
    return bytes(int(x, 16) for x in s.split(":"))


def ip4(s):
    return bytes(int(x) for x in s.split("."))


def csum(b):
    if len(b) % 2:
        b += b"\0"
    s = sum(struct.unpack(f"!{len(b) // 2}H", b))
    while s >> 16:
        s = (s & 0xFFFF) + (s >> 16)
    return (~s) & 0xFFFF


def echo(dst, src, sip, dip, bad_checksum=False, fragment=False, pad=0):
    payload = bytes(range(32)) + bytes(pad)
    icmp = struct.pack("!BBHHH", 8, 0, 0, 0x7466, 1) + payload
    icmp = icmp[:2] + struct.pack("!H", csum(icmp)) + icmp[4:]
    flags_frag = 0x2000 if fragment else 0  # MF
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(icmp), 0x1234, flags_frag, 64, 1, 0, ip4(sip), ip4(dip))
    c = csum(hdr)
    if bad_checksum:
        c ^= 0x5A5A
    hdr = hdr[:10] + struct.pack("!H", c) + hdr[12:]
    return mac(dst) + mac(src) + b"\x08\x00" + hdr + icmp


def main(argv):
    kind = argv[1]
    if kind == "echo":
        f = echo(argv[2], argv[3], argv[4], argv[5], "--bad-ip-checksum" in argv, "--fragment" in argv,
                 int(argv[argv.index("--pad") + 1]) if "--pad" in argv else 0)
    elif kind == "oversize":
        f = mac(argv[2]) + mac(argv[3]) + b"\x08\x00" + bytes(1586)
    elif kind == "arp":
        f = mac(argv[2]) + mac(argv[3]) + b"\x08\x06" + struct.pack("!HHBBH6s4s6s4s", 1, 0x0800, 6, 4, 1, mac(argv[3]),
                                                                     ip4(argv[4]), bytes(6), ip4(argv[5]))
    elif kind in ("udp", "syn"):
        sport, dport = int(argv[6]), int(argv[7])
        if kind == "udp":
            proto, l4 = 17, struct.pack("!HHHH", sport, dport, 8 + 18, 0) + bytes(18)
        else:
            proto, l4 = 6, struct.pack("!HHIIBBHHH", sport, dport, 1000, 0, 5 << 4, 0x02, 65535, 0, 0)
        hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(l4), 0x1234, 0, 64, proto, 0, ip4(argv[4]), ip4(argv[5]))
        hdr = hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:]
        f = mac(argv[2]) + mac(argv[3]) + b"\x08\x00" + hdr + l4
    elif kind == "ipv6":
        f = mac(argv[2]) + mac(argv[3]) + b"\x86\xdd" + bytes(60)
    else:
        sys.exit(f"unknown frame kind {kind}")
    print(f.hex())


if __name__ == "__main__":
    main(sys.argv)
