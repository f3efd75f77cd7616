#!/usr/bin/env bash
# Installs what a fresh Debian 12 machine lacks to build and test Triggerfish; safe to rerun (it only
# installs what is missing). Needs root for apt (CI and the development machines run as root; elsewhere
# it uses sudo). Called by `make deps`.
set -euo pipefail
cd "$(dirname "$0")/.."
VENV="${TRIGGERFISH_VENV:-$HOME/.cache/triggerfish/venv}"

APT_PACKAGES=(
  make gcc g++ git curl ca-certificates python3 python3-venv
  openjdk-17-jdk-headless maven
  verilator zlib1g-dev
  gcc-riscv64-unknown-elf binutils-riscv64-unknown-elf picolibc-riscv64-unknown-elf
  libcmocka-dev clang-14 libclang-rt-14-dev
  iproute2 iputils-ping libslirp-dev tcpdump tshark
  procps util-linux coreutils
  openfpgaloader
)
# procps: pgrep and sysctl (the tests' "nothing left running" checks and the namespaces' settings); util-linux:
# setpriv (drops root in test_slirp); coreutils: timeout (every test's wall-clock limit).
# clang-14 + libclang-rt-14-dev: Debian 12's clang and its runtime libraries (libFuzzer, ASan, UBSan), which
# -fsanitize=fuzzer,address,undefined needs: the firmware fuzzers (fw/fuzz).

missing=()
for p in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "deps: installing Debian packages: ${missing[*]}"
  # sudo resets the environment: DEBIAN_FRONTEND goes through `env`, on the far side of sudo
  SUDO=(); [ "$(id -u)" -eq 0 ] || SUDO=(sudo)
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get update -q
  "${SUDO[@]}" env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends "${missing[@]}"
else
  echo "deps: Debian packages present"
fi

# Python venv with the pinned pip packages (VexRiscv sources, LiteEth, Yosys/nextpnr, matplotlib).
req_hash=$(sha256sum tools/requirements.txt | cut -c1-16)
if [ ! -x "$VENV/bin/python" ] || [ "$(cat "$VENV/.tf-requirements" 2>/dev/null)" != "$req_hash" ]; then
  echo "deps: preparing the Python venv at $VENV"
  [ -x "$VENV/bin/python" ] || python3 -m venv "$VENV"
  "$VENV/bin/pip" install -q -r tools/requirements.txt
  echo "$req_hash" > "$VENV/.tf-requirements"
else
  echo "deps: Python venv ready at $VENV"
fi
# tfctl (tools/tfctl), the host client of the machine protocol: installed into the venv (`tfctl` on its PATH) when
# this checkout's copy differs from the installed one. The project's own scripts and tests import this checkout's
# copy (PYTHONPATH=tools/tfctl), so several checkouts sharing the venv never test each other's.
tfctl_hash=$(cat tools/tfctl/pyproject.toml tools/tfctl/tfctl/*.py | sha256sum | cut -c1-16)
if [ "$(cat "$VENV/.tf-tfctl" 2>/dev/null)" != "$tfctl_hash" ] || [ ! -x "$VENV/bin/tfctl" ]; then
  echo "deps: installing tfctl into the venv"
  tmp=$(mktemp -d) && cp -r tools/tfctl/pyproject.toml tools/tfctl/tfctl "$tmp"/ \
    && "$VENV/bin/pip" install -q --no-deps --no-build-isolation "$tmp" && echo "$tfctl_hash" > "$VENV/.tf-tfctl"
  rm -rf "$tmp"
else
  echo "deps: tfctl ready ($VENV/bin/tfctl)"
fi

# Mill (fetched once by ./mill into ~/.cache/mill) and the JVM dependencies of every module.
./mill -i --version >/dev/null
echo "deps: Mill $(cat .mill-version) ready"
