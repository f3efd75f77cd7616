# Host unit tests of the transport-agnostic firmware code (lib/, net/, fix/), built natively with cmocka.
# Each tests/test_<name>.c becomes one binary linked with every .c file of the host-testable folders.
# Included by fw/Makefile; run with `make -C fw host-test` (or `make test-fw-host` at the top).
HOST_CC      ?= gcc
HOST_BUILD   ?= ../build/fw/host
HOST_DIRS    := lib net fix offload
HOST_SRCS    := $(foreach d,$(HOST_DIRS),$(wildcard $(d)/*.c))
HOST_HDRS    := $(foreach d,$(HOST_DIRS),$(wildcard $(d)/*.h)) $(wildcard tests/*.h)
HOST_TESTS   := $(patsubst tests/%.c,$(HOST_BUILD)/%,$(wildcard tests/test_*.c))
HOST_CFLAGS  ?= -std=c11 -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter -fsanitize=address,undefined \
                -fno-omit-frame-pointer -I. -DTF_HOST=1 -DNET_TCP_SKIP_HELD=4u
HOST_LDLIBS  ?= -lcmocka

# Every test is built twice: with the host's roomier defaults, and with the SoC firmware's own limits (NET_LIMITS,
# fw/Makefile: 40 fields kept per FIX message, 8 orders, one TCP connection...) into $(HOST_SOC_BUILD), so that the
# configuration the target runs is the one tested.
HOST_SOC_BUILD ?= $(HOST_BUILD)-soc
HOST_SOC_TESTS := $(patsubst tests/%.c,$(HOST_SOC_BUILD)/%,$(wildcard tests/test_*.c))
# The SoC configuration builds the FIX session's messages in a buffer of the owner's (FIX_TX_EXTERNAL: the
# firmware's is the order engine's frame scratch, fw/Makefile), as the SoCs with the offload do, and has the speed-only
# code of the SoCs with 96 KiB of RAM or more (TF_MEM_WORDS, fw/Makefile: the simulation's SoC); the host build tests
# the Colorlights' code without it.
HOST_SOC_ONLY := -DFIX_TX_EXTERNAL -DTF_MEM_WORDS=1

# The sources are compiled once per configuration into obj/ and every test is linked with those objects (compiling
# them again for each of the 40 binaries took 9 s a binary, about 6 minutes of `make test`). HOST_EXTRA (a test's
# own extra sources and include directories) goes to that test's compile and link only.
HOST_OBJS     := $(patsubst %.c,$(HOST_BUILD)/obj/%.o,$(HOST_SRCS))
HOST_SOC_OBJS := $(patsubst %.c,$(HOST_SOC_BUILD)/obj/%.o,$(HOST_SRCS))
$(HOST_BUILD)/obj/%.o: %.c $(HOST_HDRS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) -c -o $@ $<
$(HOST_SOC_BUILD)/obj/%.o: %.c $(HOST_HDRS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) $(NET_LIMITS) $(HOST_SOC_ONLY) -c -o $@ $<
$(HOST_BUILD)/test_%: tests/test_%.c $(HOST_OBJS) $(HOST_HDRS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) $(HOST_EXTRA) -o $@ $< $(HOST_OBJS) $(HOST_LDLIBS)
$(HOST_SOC_BUILD)/test_%: tests/test_%.c $(HOST_SOC_OBJS) $(HOST_HDRS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) $(NET_LIMITS) $(HOST_SOC_ONLY) $(HOST_EXTRA) -o $@ $< $(HOST_SOC_OBJS) $(HOST_LDLIBS)

.PHONY: host-test host-build
host-build: $(HOST_TESTS) $(HOST_SOC_TESTS)

# Runs every test binary, prints each one's cmocka summary, then one total line; fails if any failed.
host-test: host-build
	@pass=0; fail=0; skip=0; for t in $(HOST_TESTS) $(HOST_SOC_TESTS); do \
	  echo "== $$(basename $$(dirname $$t))/$$(basename $$t)"; \
	  out=$$($$t 2>&1); rc=$$?; echo "$$out"; \
	  p=$$(echo "$$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1); \
	  f=$$(echo "$$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1); \
	  k=$$(echo "$$out" | sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' | tail -1); \
	  pass=$$((pass + $${p:-0})); fail=$$((fail + $${f:-0})); skip=$$((skip + $${k:-0})); \
	  if [ $$rc -ne 0 ] && [ -z "$$f" ]; then fail=$$((fail + 1)); echo "!! $$(basename $$t) exited $$rc"; fi; \
	done; \
	echo "firmware host tests: $$pass passed, $$fail failed, $$skip skipped"; [ $$fail -eq 0 ]

# ---- libFuzzer harnesses (fuzz/README.md) ----
# Each fuzz/fuzz_<name>.c becomes build/fw/fuzz/fuzz_<name>, linked with the same host-testable sources as the
# unit tests, compiled by clang with libFuzzer, ASan and UBSan (every UBSan finding aborts), and with the
# firmware's own limits (NET_LIMITS: one TCP connection, 4 KiB send ring, 40 FIX fields...), so that what is fuzzed
# is configured as on the target, with the speed-only code of the simulation's SoC (TF_MEM_WORDS) (-Wno-unknown-attributes:
# clang ignores gcc's optimize("O2") on the hot paths).
# Harnesses that reach into app/ add those files (FUZZ_EXTRA) and find a host stand-in of the generated soc.h in
# fuzz/stub/. `make -C fw fuzz-build` builds them; fuzz/run.sh builds and runs them.
FUZZ_CC      ?= clang-14
FUZZ_BUILD   ?= ../build/fw/fuzz
FUZZ_NAMES   := $(patsubst fuzz/fuzz_%.c,%,$(wildcard fuzz/fuzz_*.c))
FUZZ_BINS    := $(patsubst %,$(FUZZ_BUILD)/fuzz_%,$(FUZZ_NAMES))
FUZZ_CFLAGS  ?= -std=gnu11 -O1 -g -Wall -Wextra -Werror -Wno-unused-parameter \
                -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer \
                -Wno-unknown-attributes -I. -Ifuzz/stub -DTF_HOST=1 -DTF_MEM_WORDS=1 $(NET_LIMITS)
$(FUZZ_BUILD)/fuzz_app: FUZZ_EXTRA := app/stops.c
$(FUZZ_BUILD)/fuzz_app: app/stops.c
$(FUZZ_BUILD)/fuzz_console: FUZZ_EXTRA := app/machine.c
$(FUZZ_BUILD)/fuzz_console: app/machine.c app/stops.c

$(FUZZ_BUILD)/fuzz_%: fuzz/fuzz_%.c $(HOST_SRCS) $(HOST_HDRS) $(wildcard fuzz/*.h fuzz/stub/*.h app/*.h)
	@mkdir -p $(dir $@)
	$(FUZZ_CC) $(FUZZ_CFLAGS) -o $@ $< $(FUZZ_EXTRA) $(HOST_SRCS)

.PHONY: fuzz-build
fuzz-build: $(FUZZ_BINS)

# The firmware's stop logic (app/stops.c) on the host, with tests/stops_host/soc.h for the SoC header:
# tests/stops_replay (run by the hardware's differential test, StopDiffSpec) and the test_app_stops unit test.
STOPS_HOST_SRCS := app/stops.c
STOPS_HOST_DEPS := tests/stops_host.h tests/stops_host/soc.h app/stops.h app/fixclient.h
# stops_replay is built with the SoC's limits: the differential test compares the hardware with the firmware as shipped.
$(HOST_BUILD)/stops_replay: tests/stops_replay.c $(STOPS_HOST_SRCS) $(STOPS_HOST_DEPS) $(HOST_SRCS) $(HOST_HDRS)
	@mkdir -p $(dir $@)
	$(HOST_CC) $(HOST_CFLAGS) $(NET_LIMITS) -Itests/stops_host -o $@ $< $(STOPS_HOST_SRCS) $(HOST_SRCS) $(HOST_LDLIBS)
$(HOST_BUILD)/test_app_stops $(HOST_SOC_BUILD)/test_app_stops: HOST_EXTRA := -Itests/stops_host $(STOPS_HOST_SRCS)
$(HOST_BUILD)/test_app_stops $(HOST_SOC_BUILD)/test_app_stops: $(STOPS_HOST_SRCS) $(STOPS_HOST_DEPS)
.PHONY: stops-replay
stops-replay: $(HOST_BUILD)/stops_replay
