#!/bin/sh
# Free RAM of a firmware image, computed from its ELF (run by fw/Makefile after every link; usable on any
# build: fw/ram-report.sh build/fw/sim/firmware.elf). Everything lives in the one RAM (start/link.ld): code and
# read-only data, data, bss, then the gap that is free, then the stack reserve (__stack_size) at the top.
# Prints one line: "ram: <total> bytes: code+rodata C, data+bss D, stack reserve S; free F bytes (F/1024 KiB)".
set -eu
elf=$1
NM=${NM:-riscv64-unknown-elf-nm}
OBJDUMP=${OBJDUMP:-riscv64-unknown-elf-objdump}
sym() { "$NM" "$elf" | awk -v name="$1" '$3 == name { print $1 }'; }
start=$(sym _start); zero_end=$(sym __zero_end); heap_end=$(sym __heap_end); top=$(sym __stack_top)
ssize=$(sym __stack_size)
data_start=$("$OBJDUMP" -h "$elf" | awk '$2 == ".data" { print $4 }') # .data follows .rodata
for v in "$start" "$zero_end" "$heap_end" "$top" "$ssize" "$data_start"; do
  [ -n "$v" ] || { echo "ram-report: $elf lacks the link.ld symbols" >&2; exit 1; }
done
s=$((0x$start)); d=$((0x$data_start)); z=$((0x$zero_end)); h=$((0x$heap_end)); t=$((0x$top)); ss=$((0x$ssize))
free=$((h - z))
echo "ram: $((t - s)) bytes: code+rodata $((d - s)), data+bss $((z - d)), stack reserve $ss; free $free bytes" \
  "($(awk -v f="$free" 'BEGIN { printf "%.1f", f / 1024 }') KiB)"
