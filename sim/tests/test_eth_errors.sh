#!/usr/bin/env bash
# Whole-SoC test: bad input on the wire is counted and survived. Through the harness the test injects a
# frame with a bad FCS, a runt, an oversize frame, an IPv4 packet with a bad header checksum, an IPv4
# fragment, traffic the receive filter must drop (UDP and a TCP SYN to us, TCP to another address, IPv6), a
# burst of ICMP echo requests (the filter's rate limit) and a burst of ARP requests larger than the receive
# ring; each must show under its own counter, and the kernel's ping must still work afterwards.
set -u
cd "$(dirname "$0")/../.."
source sim/tests/lib.sh
if [ "$(id -u)" -ne 0 ]; then echo "skip eth-errors (needs root for a network namespace)"; exit 77; fi
fail() { echo "FAIL eth-errors: $*"; echo "---- console ($SOC_LOG):"; tail -25 "$SOC_LOG" | sed 's/^/  | /'; soc_netns_stop; exit 1; }
trap soc_netns_stop EXIT
soc_netns_start eth-errors || fail "could not start the SoC"
kmac=$(ip netns exec "$SOC_NS" cat /sys/class/net/tfsim0/address)
F="python3 sim/tests/frames.py"
# No IPv6 from the kernel from here on (its router solicitations would add to the filter's count).
ip netns exec "$SOC_NS" sysctl -qw net.ipv6.conf.tfsim0.disable_ipv6=1
echo_req=$($F echo "$SOC_MAC" "$kmac" "$SOC_KIP" "$SOC_IP")
arp_req=$($F arp "$SOC_MAC" "$kmac" "$SOC_KIP" "$SOC_IP")
counter() { sed -n "s/^.*$1 \([0-9]*\).*/\1/p" "$SOC_LOG" | tail -1; }
soc_console "net"
soc_wait_for "mac: filter" 20 || fail "no counters from the console"
filtered0=$(counter filtered); limited0=$(counter icmp_limited)
soc_ctl "$(
  echo "inject-badfcs $echo_req"
  echo "inject-runt ${echo_req:0:80}"
  echo "inject $($F oversize "$SOC_MAC" "$kmac")"
  echo "inject $($F echo "$SOC_MAC" "$kmac" "$SOC_KIP" "$SOC_IP" --bad-ip-checksum)"
  echo "inject $($F echo "$SOC_MAC" "$kmac" "$SOC_KIP" "$SOC_IP" --fragment)"
  echo "inject-burst 10 $($F udp "$SOC_MAC" "$kmac" "$SOC_KIP" "$SOC_IP" 5353 5353)"
  echo "inject-burst 10 $($F syn "$SOC_MAC" "$kmac" "$SOC_KIP" "$SOC_IP" 40000 80)"
  echo "inject-burst 5 $($F syn "$SOC_MAC" "$kmac" "$SOC_KIP" 10.77.0.99 40000 9876)"
  echo "inject-burst 5 $($F ipv6 "$SOC_MAC" "$kmac")"
  echo "inject-burst 40 $echo_req"
  echo "inject-burst 40 $arp_req"
)" || fail "could not write to the harness's control channel"
soc_wait_for "eth: .*inject-burst" 20 || fail "the harness did not take the injections"
sleep 3 # let the firmware work through the bursts
soc_console "net"
soc_wait_for "mac: tx_frames" 20 || fail "no counters from the console"
sleep 1
crc=$(counter crc_errors); runts=$(counter runts); over=$(counter oversize); full=$(counter rx_drops_full)
filtered=$(( $(counter filtered) - filtered0 )); limited=$(( $(counter icmp_limited) - limited0 ))
badsum=$(sed -n 's/^.*net: ip_bad_checksum *\([0-9]*\).*/\1/p' "$SOC_LOG" | tail -1)
frag=$(sed -n 's/^.*net: ip_fragment *\([0-9]*\).*/\1/p' "$SOC_LOG" | tail -1)
echo "  | counters: crc_errors=$crc runts=$runts oversize=$over ip_bad_checksum=${badsum:-0} ip_fragment=${frag:-0} filtered=+$filtered icmp_limited=+$limited rx_drops_full=$full"
[ "${crc:-0}" -eq 1 ] || fail "crc_errors is ${crc:-none}, expected 1"
[ "${runts:-0}" -eq 1 ] || fail "runts is ${runts:-none}, expected 1"
[ "${over:-0}" -eq 1 ] || fail "oversize is ${over:-none}, expected 1"
[ "${badsum:-0}" -eq 1 ] || fail "ip_bad_checksum is ${badsum:-0}, expected 1"
[ "${frag:-0}" -eq 1 ] || fail "ip_fragment is ${frag:-0}, expected 1"
# The receive filter: the 10 UDP datagrams, the 10 SYNs to a port we do not listen on, the 5 SYNs to another
# address and the 5 IPv6 frames, no more and no less.
[ "$filtered" -eq 30 ] || fail "the receive filter dropped $filtered frames, expected the 30 unrelated ones"
# The echo rate limit: a bucket of 8, of which the two echo requests just before took two (bad IP checksum, fragment;
# the bad-FCS one and the runt take none), and at most one token earned during the burst (one per 12 * 1024 eth_rx
# cycles; the burst lasts about 5,000): 40 - 6 = 34 limited, or 33.
[ "$limited" -ge 33 ] && [ "$limited" -le 34 ] || fail "icmp_limited rose by $limited for a 40-echo burst, expected 33 or 34"
[ "${full:-0}" -ge 1 ] || fail "a 40-frame ARP burst into an 8-slot ring dropped nothing (rx_drops_full ${full:-none})"
out=$(ip netns exec "$SOC_NS" ping -c 5 -i 0.2 -W 5 "$SOC_IP" 2>&1)
echo "$out" | grep -q '5 packets transmitted, 5 received' || fail "ping after the bad input: $(echo "$out" | tail -2)"
echo "ok eth-errors (each bad frame counted under its own counter; receive filter $filtered of 30 unrelated, echo limit $limited of 40, ARP burst dropped $full of 40; ping still 5/5)"
