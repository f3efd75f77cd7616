#!/usr/bin/env bash
# Paths without spaces for the tools that cannot take them, for a checkout that may be anywhere.
#
# GNU make cannot build in a directory whose path has a space (Verilator's verilated.mk stops with "GNU Make
# cannot build in directories containing spaces"), and command lines built as strings (Verilator's -CFLAGS,
# SpinalSim's Verilator call, the firmware's -I flags) split such paths. A user's clone may still be under
# "/home/me/My Projects". This script gives those tools paths without spaces; when the checkout's own path has
# none (the usual case) it changes nothing and prints paths inside the checkout.
#
#   tools/nospace.sh root       a path to the checkout without spaces: the checkout itself, or a symbolic link to
#                               it, ~/.cache/triggerfish/nospace/<hash of the checkout's path>/root
#   tools/nospace.sh dir D      a directory without spaces standing for D (relative to the checkout, under
#                               build/): D itself, or a directory under the same cache entry with D made a symbolic
#                               link to it (so that everything that uses D keeps working). Use it where a build
#                               runs `make` (Verilator's -Mdir, SpinalSim's workspace).
# Both print the path (absolute for `root`, and for `dir` when redirected) and exit 1 with a message on error.
# The cache entry is per checkout path; `make clean` removes the links in build/, and deleting
# ~/.cache/triggerfish/nospace is always safe (it is rebuilt on demand).
set -eu
here=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd -P)
cache="${XDG_CACHE_HOME:-$HOME/.cache}/triggerfish/nospace"

usage() { echo "usage: tools/nospace.sh root | dir <directory under build/>" >&2; exit 2; }
has_space() { [[ $1 == *[[:space:]]* ]]; }

entry() { # the cache entry of this checkout, with its root link
  has_space "$cache" && { echo "nospace: the cache directory $cache has a space too: set XDG_CACHE_HOME to a path without one" >&2; exit 1; }
  local e="$cache/$(printf '%s' "$here" | sha256sum | cut -c1-16)"
  mkdir -p "$e"
  if [ "$(readlink "$e/root" 2>/dev/null)" != "$here" ]; then
    ln -sfn "$here" "$e/root.tmp.$$" && mv -T "$e/root.tmp.$$" "$e/root"
  fi
  printf '%s\n' "$e"
}

case ${1:-} in
  root)
    [ $# -eq 1 ] || usage
    if has_space "$here"; then e=$(entry) || exit 1; echo "$e/root"; else echo "$here"; fi ;;
  dir)
    [ $# -eq 2 ] || usage
    d=${2%/}
    case $d in build/*) ;; *) echo "nospace: $d: give a directory under build/, relative to the checkout" >&2; exit 1 ;; esac
    case $d in *..*) echo "nospace: $d: no '..' in the directory" >&2; exit 1 ;; esac
    if ! has_space "$here"; then mkdir -p "$here/$d"; echo "$here/$d"; exit 0; fi
    e=$(entry) || exit 1
    target="$e/${d//\//_}"
    mkdir -p "$target" "$(dirname "$here/$d")"
    if [ -L "$here/$d" ]; then
      [ "$(readlink "$here/$d")" = "$target" ] || ln -sfn "$target" "$here/$d"
    else
      [ -e "$here/$d" ] && rm -rf "${here:?}/$d"   # an earlier in-tree build dir cannot be used from here: rebuilt
      ln -s "$target" "$here/$d"
    fi
    echo "$target" ;;
  *) usage ;;
esac
