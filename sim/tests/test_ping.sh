#!/usr/bin/env bash
# Whole-SoC test on a real network peer: the Linux kernel in a private namespace, through a TAP.
# The kernel's ping -c 20 to the SoC gets 20 replies; the kernel's ARP table shows the SoC; the firmware
# resolves the kernel's address by ARP; the pcap of the run opens in tshark and shows ARP and ICMP with
# simulated time stamps.
set -u
cd "$(dirname "$0")/../.."
source sim/tests/lib.sh
if [ "$(id -u)" -ne 0 ]; then echo "skip ping (needs root for a network namespace)"; exit 77; fi
fail() { echo "FAIL ping: $*"; echo "---- console ($SOC_LOG):"; tail -15 "$SOC_LOG" | sed 's/^/  | /'; soc_netns_stop; exit 1; }
trap soc_netns_stop EXIT
soc_netns_start ping || fail "could not start the SoC"

soc_console "arp resolve $SOC_KIP"
soc_wait_for "arp: $SOC_KIP is at [0-9a-f:]{17}" 30 || fail "the firmware did not resolve $SOC_KIP by ARP"
kmac=$(ip netns exec "$SOC_NS" cat /sys/class/net/tfsim0/address)
grep -q "arp: $SOC_KIP is at $kmac" "$SOC_LOG" || fail "the firmware resolved $SOC_KIP to the wrong MAC (kernel has $kmac)"

out=$(ip netns exec "$SOC_NS" ping -c 20 -i 0.2 -W 5 "$SOC_IP" 2>&1)
echo "$out" | tail -2 | sed 's/^/  | /'
echo "$out" | grep -q '20 packets transmitted, 20 received' || fail "ping did not get 20 replies"
ip netns exec "$SOC_NS" ip neigh show "$SOC_IP" | grep -q "lladdr $SOC_MAC" \
  || fail "the kernel's ARP table does not show $SOC_IP at $SOC_MAC: $(ip netns exec "$SOC_NS" ip neigh show)"
rtt=$(echo "$out" | sed -n 's/^rtt.* = \([0-9.]*\)\/\([0-9.]*\)\/.*/\2 ms average (wall clock)/p')

soc_console "net"
soc_wait_for "net: icmp_echo_reply +[0-9]+" 20 || fail "no counters from the console"
replies=$(sed -n 's/^.*net: icmp_echo_reply *\([0-9]*\).*/\1/p' "$SOC_LOG" | tail -1)
[ "${replies:-0}" -ge 20 ] || fail "firmware counted $replies echo replies"
soc_netns_stop
trap - EXIT

# The pcap: ARP and ICMP both ways, nanosecond simulated time stamps (the run lasts well under a second).
command -v tshark >/dev/null || fail "tshark is not installed"
arp=$(tshark -r "$SOC_PCAP" -Y arp 2>/dev/null | wc -l)
req=$(tshark -r "$SOC_PCAP" -Y 'icmp.type == 8' 2>/dev/null | wc -l)
rep=$(tshark -r "$SOC_PCAP" -Y 'icmp.type == 0' 2>/dev/null | wc -l)
last=$(tshark -r "$SOC_PCAP" -T fields -e frame.time_epoch 2>/dev/null | tail -1)
prec=$(tshark -r "$SOC_PCAP" -T fields -e frame.time_epoch 2>/dev/null | head -1 | sed 's/.*\.//' | wc -c)
[ "$arp" -ge 2 ] && [ "$req" -ge 20 ] && [ "$rep" -ge 20 ] || fail "pcap has $arp ARP, $req echo requests, $rep replies"
awk -v t="$last" 'BEGIN { exit !(t > 0 && t < 10) }' || fail "pcap time stamps are not simulated time (last $last s)"
[ "$prec" -ge 10 ] || fail "pcap time stamps are not in nanoseconds"
sim_rtt=$(tshark -r "$SOC_PCAP" -Y 'icmp.type == 0' -T fields -e icmp.resptime 2>/dev/null \
  | awk '{ s += $1 * 1000; n++; if (min == "" || $1 * 1000 < min) min = $1 * 1000; if ($1 * 1000 > max) max = $1 * 1000 }
         END { if (n) printf "%.0f/%.0f/%.0f us min/avg/max simulated", min, s / n, max }')
echo "ok ping (20/20 replies, round trip $sim_rtt, $rtt; pcap: $arp ARP, $req requests, $rep replies, last frame at ${last}s simulated)"
