# mtebench — entry points. See README.md and docs/ARCHITECTURE.md.
#   make deps      install what the suite needs (Debian archive; idempotent, root)
#   make           build the tools (mtebench, mtload, aarch64 probes)
#   make bench     SERVICE=memcached MODE=async [PLATFORM= MACHINE= CORES= STRICT=1 DURATION= REPS=auto|N
#                  PRECISION=2% MAX_TIME=15m MAX_REPS=100 MIX= THREADS= CONNS= PIPELINE=]
#   make compare-kernels SERVICE=memcached MODE=sync KERNELS=stock,tcma1 [REPS= DURATION= BASELINE=1]
#   make kernels   build the named arm64 kernels (KERNELS=stock,tcma1 KERNEL_SOURCE=6.12|6.1)
#   make test      unit + integration tests (prove)
SHELL := /bin/bash
comma := ,
# kernel source of the named kernels (PLATFORM=vm): 6.12 (default) or 6.1
export KERNEL_SOURCE
.DEFAULT_GOAL := all

VERSION := $(shell git describe --always --dirty --tags 2>/dev/null || echo unknown)
B       := build
CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Wshadow -Wno-unused-parameter
CPPFLAGS += -D_GNU_SOURCE -DMTEBENCH_VERSION='"$(VERSION)"' -Iharness -Iloadgen
LDLIBS  := -luring -ljansson -linih -lsqlite3 -lcrypto -lm -lpthread
# PostgreSQL histories (libpq, Debian libpq-dev): native builds only; the
# aarch64 guest build never writes a history and goes without
PG_CPPFLAGS := $(shell pkg-config --cflags libpq 2>/dev/null)
PG_LIBS     := $(shell pkg-config --libs libpq 2>/dev/null)
ifneq ($(PG_LIBS),)
PG_CPPFLAGS += -DMTB_WITH_PG
endif

ARCH    := $(shell uname -m)
ifeq ($(ARCH),aarch64)
XCC     ?= gcc
XAR     ?= ar
else
XCC     ?= aarch64-linux-gnu-gcc
XAR     ?= aarch64-linux-gnu-ar
endif

LG_SRC  := $(filter-out loadgen/main.c,$(wildcard loadgen/*.c))
HN_SRC  := $(filter-out harness/main.c,$(wildcard harness/*.c))
LG_OBJ  := $(LG_SRC:%.c=$(B)/obj/%.o)
HN_OBJ  := $(HN_SRC:%.c=$(B)/obj/%.o)
UNIT    := $(patsubst tests/unit/%.c,$(B)/tests/%,$(wildcard tests/unit/test_*.c))
PROBES  := $(B)/aarch64/mteprobe $(B)/aarch64/libmtefault.so $(B)/native/libmtefault.so

# the guest of PLATFORM=vm runs aarch64 builds of the harness and mtload
# (libraries from arm64 multiarch) and its own /init
GUEST   := $(B)/aarch64/mtebench $(B)/aarch64/mtload $(B)/aarch64/mtbinit
XLG_OBJ := $(LG_SRC:%.c=$(B)/obj-aarch64/%.o)
XHN_OBJ := $(HN_SRC:%.c=$(B)/obj-aarch64/%.o)

all: $(B)/mtebench $(B)/mtload $(PROBES) $(GUEST)

$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(PG_CPPFLAGS) $(CFLAGS) $(WARN) -MMD -MP -c -o $@ $<

$(B)/libmtload.a: $(LG_OBJ)
	@rm -f $@; ar rcs $@ $^
$(B)/libmteharness.a: $(HN_OBJ)
	@rm -f $@; ar rcs $@ $^

$(B)/mtload: $(B)/obj/loadgen/main.o $(B)/libmtload.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS)
$(B)/mtebench: $(B)/obj/harness/main.o $(B)/libmteharness.a $(B)/libmtload.a
	$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS) $(PG_LIBS)

# aarch64 helpers that run on the measured platform: the mode probe and the
# fault reporter preloaded into services.
$(B)/aarch64/mteprobe: harness/probe/mteprobe.c
	@mkdir -p $(dir $@)
	$(XCC) -O1 -g -Wall -Wextra -march=armv8.5-a+memtag -o $@ $<
$(B)/aarch64/libmtefault.so: harness/probe/mtefault.c harness/probe/vmflags.h
	@mkdir -p $(dir $@)
	$(XCC) -O2 -Wall -Wextra -fPIC -shared -o $@ $<

# test-only: the preload that plants a mismatched-tag store into a service's
# own shared mappings (tests/integration/64-*.t)
$(B)/tests/aarch64/libmtbplant.so: tests/shim/mtbplant.c
	@mkdir -p $(dir $@)
	$(XCC) -O2 -Wall -Wextra -fPIC -shared -o $@ $< -ldl

$(B)/obj-aarch64/%.o: %.c
	@mkdir -p $(dir $@)
	$(XCC) $(CPPFLAGS) $(CFLAGS) $(WARN) -MMD -MP -c -o $@ $<
$(B)/aarch64/libmtload.a: $(XLG_OBJ)
	@rm -f $@; $(XAR) rcs $@ $^
$(B)/aarch64/libmteharness.a: $(XHN_OBJ)
	@rm -f $@; $(XAR) rcs $@ $^
$(B)/aarch64/mtload: $(B)/obj-aarch64/loadgen/main.o $(B)/aarch64/libmtload.a
	$(XCC) $(CFLAGS) -o $@ $^ $(LDLIBS)
$(B)/aarch64/mtebench: $(B)/obj-aarch64/harness/main.o $(B)/aarch64/libmteharness.a $(B)/aarch64/libmtload.a
	$(XCC) $(CFLAGS) -o $@ $^ $(LDLIBS)
$(B)/aarch64/mtbinit: harness/guest/init.c
	@mkdir -p $(dir $@)
	$(XCC) -O2 -Wall -Wextra -Wshadow -D_GNU_SOURCE -o $@ $<

$(B)/native/libmtefault.so: harness/probe/mtefault.c harness/probe/vmflags.h
	@mkdir -p $(dir $@)
	$(CC) -O2 -Wall -Wextra -fPIC -shared -o $@ $<

$(B)/tests/%: tests/unit/%.c $(B)/libmteharness.a $(B)/libmtload.a
	@mkdir -p $(dir $@)
	$(CC) $(CPPFLAGS) $(PG_CPPFLAGS) $(CFLAGS) $(WARN) -Itests/unit -o $@ $^ $(LDLIBS) $(PG_LIBS)

deps:
	@sh harness/deps.sh

# --- the main job ----------------------------------------------------------
SERVICE  ?= memcached
MODE     ?= async
BENCH_ARGS = --service $(SERVICE) --mode $(MODE) $(if $(WORKLOAD),--workload $(WORKLOAD)) $(BENCH_ARGS_COMMON)
BENCH_ARGS_COMMON = $(if $(PLATFORM),--platform $(PLATFORM)) $(if $(MACHINE),--machine $(MACHINE)) $(if $(KERNEL),--kernel $(KERNEL)) \
	$(if $(DURATION),--duration $(DURATION)) $(if $(REPS),--reps $(REPS)) \
	$(if $(PRECISION),--precision $(PRECISION)) $(if $(MAX_TIME),--max-time $(MAX_TIME)) $(if $(MAX_REPS),--max-reps $(MAX_REPS)) \
	$(if $(MIX),--mix $(MIX)) $(if $(THREADS),--threads $(THREADS)) \
	$(if $(CONNS),--conns $(CONNS)) $(if $(PIPELINE),--pipeline $(PIPELINE)) \
	$(if $(WARMUP),--warmup $(WARMUP)) $(if $(CORES),--cores $(CORES)) $(if $(STRICT),--strict)

bench: deps
	@$(MAKE) --no-print-directory all
	$(B)/mtebench bench $(BENCH_ARGS)

# the kernel comparison: same workload and mode on each kernel (PLATFORM=vm)
KERNELS ?= stock,tcma1
compare-kernels: deps
	@$(MAKE) --no-print-directory all
	$(B)/mtebench compare-kernels --service $(SERVICE) --mode $(MODE) --kernels $(KERNELS) \
	$(if $(DURATION),--duration $(DURATION)) $(if $(REPS),--reps $(REPS)) \
	$(if $(MIX),--mix $(MIX)) $(if $(THREADS),--threads $(THREADS)) \
	$(if $(CONNS),--conns $(CONNS)) $(if $(PIPELINE),--pipeline $(PIPELINE)) \
	$(if $(WARMUP),--warmup $(WARMUP)) $(if $(BASELINE),--baseline)

# named kernels (PLATFORM=vm): make kernels [KERNEL_SOURCE=6.12|6.1]
kernels: all
	$(B)/mtebench kernel build $(subst $(comma), ,$(KERNELS))

# the floor client of the load generator benchmark (tests/bench/floor.c)
$(B)/bench/floor: tests/bench/floor.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(WARN) -D_GNU_SOURCE -o $@ $< -luring

bench-loadgen: deps
	@$(MAKE) --no-print-directory all $(B)/bench/floor
	bash tests/bench/loadgen.sh

report: all
	$(B)/mtebench report $(or $(RESULTS),$(lastword $(sort $(wildcard results/*))))

# --- tests -----------------------------------------------------------------
test: deps
	@$(MAKE) --no-print-directory all $(UNIT) $(B)/tests/aarch64/libmtbplant.so
	bash tests/run.sh

unit: all $(UNIT)
	prove --exec '' $(UNIT)

clean:
	rm -rf $(B)

.PHONY: all deps bench bench-loadgen compare-kernels kernels report test unit clean
-include $(shell find $(B)/obj $(B)/obj-aarch64 -name '*.d' 2>/dev/null)

# --- plans (configs/*.conf) --------------------------------------------------
PLAN ?= configs/paper.conf
plan: deps
	@$(MAKE) --no-print-directory all
	$(B)/mtebench plan $(PLAN) $(BENCH_ARGS_COMMON)
.PHONY: plan

# --- the nightly (configs/nightly.conf, history, dashboard) -------------------
NIGHTLY_PLAN ?= configs/nightly.conf
nightly: deps
	@$(MAKE) --no-print-directory all
	@# not echoed: HISTORY may be a PostgreSQL URL with a password
	@$(B)/mtebench nightly --plan $(NIGHTLY_PLAN) $(if $(HISTORY),--history '$(HISTORY)') $(BENCH_ARGS_COMMON)
.PHONY: nightly
