# Triggerfish: the user-facing entry points (see README.md and DESIGN.md).
#   make deps      install what a fresh Debian 12 lacks (idempotent)
#   make test      every test: SpinalSim unit tests, firmware host tests, whole-SoC simulation tests
#   make demo      run the whole SoC in Verilator and tell the story
#   make sim       the whole SoC interactively (UART console on this terminal; Ctrl-C ends it)
#   make bench     measurements (written under build/bench)
#   make synth-ecp5  synthesis + place and route of the SoC for LFE5U-25F without pins (size and Fmax)
# Everything generated goes under build/.
SHELL        := /bin/bash
.DEFAULT_GOAL := help
export TRIGGERFISH_VENV ?= $(HOME)/.cache/triggerfish/venv
VENV         := $(TRIGGERFISH_VENV)
MILL         := ./mill -i
HW_VERSION   := $(shell git rev-parse --short=8 HEAD 2>/dev/null || echo 0)
CPU_SRCS     := $(shell find hw/cpu/src -name '*.scala')
HW_SRCS      := $(shell find hw/src -name '*.scala')
FW_SRCS      := $(shell find fw -name '*.[chS]' -o -name '*.ld' -o -name Makefile -o -name '*.mk')
BREAK        ?=
FW_SIM       := build/fw/sim$(if $(BREAK),-break-$(BREAK))/firmware.hex
SIM_BIN      := build/sim/obj/VSoc
VERILATOR_FLAGS := --cc --exe --build -j 2 -O3 --x-assign fast --x-initial fast --noassert --trace-fst \
                   -Wno-fatal -Wno-lint -Wno-style -Wno-UNOPTFLAT --top-module Soc

.PHONY: help deps test test-hw test-fw-host test-sim test-sim-run demo sim bench synth-ecp5 firmware hw clean
help:
	@sed -n '2,9p' Makefile | sed 's/^# //'

deps:
	@tools/deps.sh

# --- hardware generation -------------------------------------------------------------------------------
build/cpu/VexRiscv.v: $(CPU_SRCS) build.sc
	@echo "== generating the CPU (VexRiscv, hw/cpu)"
	$(MILL) cpu.runMain triggerfish.cpu.GenCpu --out build/cpu

build/hw/sim/Soc.v build/hw/sim/soc.h build/hw/sim/memory.ld &: $(HW_SRCS) build/cpu/VexRiscv.v build.sc
	@echo "== generating the SoC for simulation"
	$(MILL) hw.runMain triggerfish.soc.GenSoc --target sim --out build/hw/sim --version $(HW_VERSION)

hw: build/hw/sim/Soc.v

# --- firmware ------------------------------------------------------------------------------------------
$(FW_SIM): build/hw/sim/soc.h build/hw/sim/memory.ld $(FW_SRCS)
	@echo "== building the firmware$(if $(BREAK), (deliberately broken: $(BREAK)))"
	$(MAKE) -s -C fw TARGET=sim BREAK=$(BREAK)

firmware: $(FW_SIM)

# --- simulation model ----------------------------------------------------------------------------------
$(SIM_BIN): build/hw/sim/Soc.v build/cpu/VexRiscv.v sim/main.cpp
	@echo "== building the Verilator model (takes a few minutes the first time)"
	@mkdir -p build/sim/obj
	verilator $(VERILATOR_FLAGS) -Mdir build/sim/obj -CFLAGS "-O2 -I$(CURDIR)/build/hw/sim" -LDFLAGS -lz \
	  build/hw/sim/Soc.v build/cpu/VexRiscv.v $(CURDIR)/sim/main.cpp > build/sim-verilator.log 2>&1 \
	  || { tail -40 build/sim-verilator.log; exit 1; }

# --- running -------------------------------------------------------------------------------------------
sim: deps $(SIM_BIN) $(FW_SIM)
	$(SIM_BIN) +firmware=$(FW_SIM) +stdin $(SIM_ARGS)

demo: deps $(SIM_BIN) $(FW_SIM)
	@echo "== Triggerfish demo: the SoC boots its firmware in Verilator, runs the self-test and exits"
	$(SIM_BIN) +firmware=$(FW_SIM) +uart-in='info\rexit\r' +uart-in-delay=3000000 +timeout=50000000

# --- tests ---------------------------------------------------------------------------------------------
test: deps
	@tools/run-tests.sh

test-hw: deps
	$(MILL) hw.test

test-fw-host: deps
	$(MAKE) -s -C fw host-test

test-sim: deps test-sim-run
test-sim-run: $(SIM_BIN) $(FW_SIM)
	@FW=$(FW_SIM:.hex=) sim/tests/run.sh

# --- implementation figures ----------------------------------------------------------------------------
synth-ecp5: deps
	@tools/synth-ecp5.sh

bench: deps
	@echo "make bench: no benchmarks yet (the latency benchmarks arrive with the offload datapath)"; exit 1

clean:
	rm -rf build out
