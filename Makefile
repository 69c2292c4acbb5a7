# mtebench — entry points. See README.md and docs/ARCHITECTURE.md.
#   make deps      install what the suite needs (Debian archive; idempotent, root)
#   make           build the tools (mtebench, mtload, aarch64 probes, the counting plugin: docs/COUNTING.md)
#   make bench     SERVICE=memcached MODE=async [VARIANT=objtag|tagged,objtag PLATFORM= MACHINE= CORES= STRICT=1
#                  REPS=auto|N PRECISION=2% (emulated: 5%) MAX_TIME=15m MAX_REPS=100, and the workload's fields:
#                  MIX= KEYS= VALUE_SIZE= THREADS= CONNS= PIPELINE= DURATION= WARMUP= RATE= SERVICE_THREADS=]
#                  [HOSTS=user@server CLIENT_HOSTS=h1,h2 SSH_OPTS="--ssh-key F --known-hosts F"]: server and load on other hosts (ssh)
#   make capacity  SERVICE=memcached MODE=async SLO=p99:1ms [LOADS=10%,90% BASELINE_VARIANT= ...]: the load each
#                  configuration carries within the SLO, and the capacity overhead (docs/CAPACITY.md)
#   make compare-kernels SERVICE=memcached MODE=sync KERNELS=stock,tcma1 [REPS= BASELINE=1 DETECT="DIR ...", the workload's fields]
#   make detect    SERVICE=memcached [BUG=CVE-2016-8704 TRIALS=3 PLATFORM= RESULTS=DIR]: the bug catalogue as
#                  trials (docs/DETECTION.md); make detect-sweep: the synthetic granule/tag-collision sweep
#   make bisect    GOOD=REF BAD=REF SERVICE=memcached [VARIANT= MODE= PLATFORM= METRIC= ...]: the commit of the
#                  service's patch history that changed the metric (docs/BISECT.md)
#   make kernels   build the named arm64 kernels (KERNELS=stock,tcma1 KERNEL_SOURCE=6.12|6.1)
#   make test      unit + integration tests (prove), then make lint; make test-long: tests/long/*.t;
#                  make test AREA=detect: one area's tests alone (docs/TESTING.md)
#   make lint      structure: layers of harness/'s folders (includes and calls), exports, lengths (tests/lint.sh)
SHELL := /bin/bash
comma := ,
# kernel source of the named kernels (PLATFORM=vm): 6.12 (default) or 6.1
export KERNEL_SOURCE
.DEFAULT_GOAL := all
# the compile steps run in parallel (the sub-makes below); make deps and the
# targets' own steps stay in order
NPROC := $(shell nproc 2>/dev/null || echo 1)

B       := build
CC      ?= cc
CFLAGS  ?= -O2 -g
WARN    := -Wall -Wextra -Wshadow -Wno-unused-parameter
# includes are written with their folder: "core/record.h" (harness/), "loadgen/hist.h", "common/version.h"
CPPFLAGS += -D_GNU_SOURCE -Iharness -I.

# ccache (Debian's, installed by make deps), when present, serves the compile
# steps below: a fresh clone (CI, version-stamp.t's clone) compiles from it.
# Its directory is inside mtebench's build cache (MTEBENCH_CACHE, else
# /var/cache/mtebench as root, else ~/.cache/mtebench), so an empty build
# cache is a cold compile too. CCACHE= turns it off.
CCACHE  ?= $(shell command -v ccache 2>/dev/null)
ifneq ($(CCACHE),)
MTB_CACHE_DIR := $(or $(MTEBENCH_CACHE),$(if $(filter 0,$(shell id -u)),/var/cache/mtebench,$(or $(XDG_CACHE_HOME),$(HOME)/.cache)/mtebench))
export CCACHE_DIR ?= $(MTB_CACHE_DIR)/ccache
# clones in other directories share it: paths under the checkout are hashed
# relative to it, and the debug info names the checkout as `.`
export CCACHE_BASEDIR ?= $(CURDIR)
endif
CCMAP   := -fdebug-prefix-map=$(CURDIR)=.

# One short line per step (`CC harness/run/run.c`); V=1 prints the commands.
ifeq ($(V),1)
Q   :=
say :=
else
Q   := @
say  = @printf '  %-6s %s\n' $(1) $(2);
endif

# The version stamp: build/gen/version.c is rewritten only when `git describe`
# changes (a commit, a dirty tree), so exactly what embeds it (version.o, then
# the programs) rebuilds on a new commit without `make clean`.
VERSION   := $(shell git describe --always --dirty --tags 2>/dev/null || echo unknown)
VERSION_C := $(B)/gen/version.c
VERSION_LINE := const char mtb_version[] = "$(VERSION)";
$(shell mkdir -p $(B)/gen; [ "$$(cat $(VERSION_C) 2>/dev/null)" = '$(VERSION_LINE)' ] || echo '$(VERSION_LINE)' > $(VERSION_C))
LDLIBS  := -luring -ljansson -linih -lsqlite3 -lcrypto -lm -lpthread
# PostgreSQL histories (libpq, Debian libpq-dev): native builds only; the
# aarch64 guest build never writes a history and goes without
PG_CPPFLAGS := $(shell pkg-config --cflags libpq 2>/dev/null)
PG_LIBS     := $(shell pkg-config --libs libpq 2>/dev/null)
ifneq ($(PG_LIBS),)
PG_CPPFLAGS += -DMTB_WITH_PG
endif
# zlib (Debian zlib1g-dev) compresses HdrHistogram logs (loadgen/hlog.c): native
# builds only, like libpq; the aarch64 guest's mtload writes stored deflate blocks
PG_CPPFLAGS += -DMTB_WITH_ZLIB
Z_LIBS      := -lz

ARCH    := $(shell uname -m)
ifeq ($(ARCH),aarch64)
XCC     ?= gcc
XAR     ?= ar
else
XCC     ?= aarch64-linux-gnu-gcc
XAR     ?= aarch64-linux-gnu-ar
endif

# common/: sources compiled into both programs (version, duration syntax, RNG)
CM_SRC  := $(wildcard common/*.c) $(VERSION_C)
LG_SRC  := $(filter-out loadgen/main.c,$(wildcard loadgen/*.c))
# history_pg.c (the history's PostgreSQL backend) only with libpq
# harness/: main.c and a folder per layer (docs/ARCHITECTURE.md); probe/ and
# agent/guest/ hold aarch64 programs of their own
HN_DIRS := $(filter-out probe,$(notdir $(patsubst %/,%,$(wildcard harness/*/))))
HN_SRC  := $(filter-out $(if $(PG_LIBS),,harness/history/history_pg.c),$(foreach d,$(HN_DIRS),$(wildcard harness/$(d)/*.c)))
# the A64 decoder is also the fault report's (run/faultrep.c: what the faulting instruction did)
HN_SRC  += harness/probe/a64decode.c
CM_OBJ  := $(CM_SRC:%.c=$(B)/obj/%.o)
LG_OBJ  := $(LG_SRC:%.c=$(B)/obj/%.o) $(CM_OBJ)
HN_OBJ  := $(HN_SRC:%.c=$(B)/obj/%.o)
UNIT    := $(patsubst tests/unit/%.c,$(B)/tests/%,$(wildcard tests/unit/test_*.c))
PROBES  := $(B)/aarch64/mteprobe $(B)/aarch64/libmtefault.so $(B)/native/libmtefault.so $(B)/aarch64/libmtealloc.so $(B)/native/libmtealloc.so $(B)/aarch64/detectsweep \
	   $(B)/aarch64/libmtestack.so $(B)/aarch64/mtework

# the guest of PLATFORM=vm runs aarch64 builds of the harness and mtload
# (libraries from arm64 multiarch) and its own /init
GUEST   := $(B)/aarch64/mtebench $(B)/aarch64/mtload $(B)/aarch64/mtbinit
# on aarch64 with the native compiler, native and "cross" are one compiler:
# the guest's objects are the native ones, but for history.c (the guest's
# mtebench goes without libpq: no history_pg.o, and a history.c that knows
# no PostgreSQL backend)
XO      := $(if $(filter aarch64-gcc,$(ARCH)-$(XCC)),$(B)/obj,$(B)/obj-aarch64)
# there the guest's objects were compiled with zlib (MTB_WITH_ZLIB), so its
# programs link it too; cross-built ones write stored deflate blocks without it
XZ_LIBS := $(if $(filter $(B)/obj,$(XO)),$(Z_LIBS))
XLG_OBJ := $(LG_SRC:%.c=$(XO)/%.o) $(CM_SRC:%.c=$(XO)/%.o)
XHN_OBJ := $(patsubst $(XO)/harness/history/history.o,$(B)/obj-aarch64/harness/history/history.o,$(patsubst %.c,$(XO)/%.o,$(filter-out harness/history/history_pg.c,$(HN_SRC))))

# the vm platform's counting plugin (harness/probe/mtecount.c, docs/COUNTING.md),
# built for the host against the qemu-plugin.h of the installed
# qemu-system-aarch64's own source: make deps fetches it once into the build
# cache (CACHE/qemu/VERSION/qemu-plugin.h; QEMU_PLUGIN_H= names another);
# without it, or without glib's headers, the plugin is skipped, saying why,
# and everything else builds. A header of another plugin API is refused by
# name (mtecount.c), a QEMU speaking another one at load.
QEMU_VERSION  := $(shell qemu-system-aarch64 --version 2>/dev/null | sed -n '1s/^QEMU emulator version \([0-9][0-9.]*\).*/\1/p')
QEMU_PLUGIN_H ?= $(if $(QEMU_VERSION),$(firstword $(wildcard $(foreach c,$(MTEBENCH_CACHE) /var/cache/mtebench \
	$(HOME)/.cache/mtebench,$(c)/qemu/$(QEMU_VERSION)/qemu-plugin.h))))
GLIB_CFLAGS   := $(shell pkg-config --cflags glib-2.0 2>/dev/null)
GLIB_LIBS     := $(shell pkg-config --libs glib-2.0 2>/dev/null)
MTECOUNT_SKIP := $(if $(QEMU_VERSION),$(if $(QEMU_PLUGIN_H),$(if $(GLIB_CFLAGS),,no glib headers (libglib2.0-dev: make deps)),no qemu-plugin.h of QEMU $(QEMU_VERSION) in the build cache (make deps fetches it from QEMU's source package)),no qemu-system-aarch64 (make deps installs it))
MTECOUNT      := $(if $(MTECOUNT_SKIP),mtecount-skipped,$(B)/native/libmtecount.so)

all: $(B)/mtebench $(B)/mtload $(PROBES) $(GUEST) $(MTECOUNT)

$(B)/native/libmtecount.so: harness/probe/mtecount.c harness/probe/a64decode.c harness/probe/a64decode.h $(QEMU_PLUGIN_H)
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) -O2 -g $(WARN) -fPIC -shared -D_GNU_SOURCE -Iharness -I$(dir $(QEMU_PLUGIN_H)) $(GLIB_CFLAGS) \
		-DMTC_QEMU_VERSION='"$(QEMU_VERSION)"' -o $@ harness/probe/mtecount.c harness/probe/a64decode.c $(GLIB_LIBS)
mtecount-skipped:
	@echo "  SKIP   $(B)/native/libmtecount.so (the counting plugin): $(MTECOUNT_SKIP)"
.PHONY: mtecount-skipped

$(B)/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CCACHE) $(CC) $(CCMAP) $(CPPFLAGS) $(PG_CPPFLAGS) $(CFLAGS) $(WARN) -MMD -MP -c -o $@ $<

$(B)/libmtload.a: $(LG_OBJ)
	$(call say,AR,$@)
	$(Q)rm -f $@; ar rcs $@ $^
$(B)/libmteharness.a: $(HN_OBJ)
	$(call say,AR,$@)
	$(Q)rm -f $@; ar rcs $@ $^

$(B)/mtload: $(B)/obj/loadgen/main.o $(B)/libmtload.a
	$(call say,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS) $(Z_LIBS)
$(B)/mtebench: $(B)/obj/harness/main.o $(B)/libmteharness.a $(B)/libmtload.a
	$(call say,LD,$@)
	$(Q)$(CC) $(CFLAGS) -o $@ $^ $(LDLIBS) $(PG_LIBS) $(Z_LIBS)

# aarch64 helpers that run on the measured platform: the mode probe and the
# fault reporter preloaded into services.
$(B)/aarch64/mteprobe: harness/probe/mteprobe.c
	@mkdir -p $(dir $@)
	$(call say,XCC,$<)
	$(Q)$(XCC) -O1 -g -Wall -Wextra -march=armv8.5-a+memtag -o $@ $<
# micro-programs of known MTE work for the counting plugin's test (docs/COUNTING.md)
$(B)/aarch64/mtework: harness/probe/mtework.c harness/core/countmark.h
	@mkdir -p $(dir $@)
	$(call say,XCC,$<)
	$(Q)$(XCC) -O1 -g -Wall -Wextra -march=armv8.5-a+memtag -o $@ $<
# the synthetic detection sweep (mtebench detect-sweep, docs/DETECTION.md);
# -O1 and no -Wuse-after-free: its bad accesses are deliberate
$(B)/aarch64/detectsweep: harness/probe/detectsweep.c
	@mkdir -p $(dir $@)
	$(call say,XCC,$<)
	$(Q)$(XCC) -O1 -g -Wall -Wextra -Wno-use-after-free -Wno-clobbered -march=armv8.5-a+memtag -o $@ $<
# the stack set-up of the stacktag variants (harness/probe/mtestack.c): GCC, uninstrumented
$(B)/aarch64/libmtestack.so: harness/probe/mtestack.c
	@mkdir -p $(dir $@)
	$(call say,XCC,$<)
	$(Q)$(XCC) -O2 -Wall -Wextra -fPIC -shared -o $@ $< -lpthread
$(B)/aarch64/libmtefault.so: harness/probe/mtefault.c harness/probe/vmflags.h
	@mkdir -p $(dir $@)
	$(call say,XCC,$<)
	$(Q)$(XCC) -O2 -Wall -Wextra -fPIC -shared -o $@ $<

# test-only: the preload that plants a mismatched-tag store into a service's
# own shared mappings (tests/integration/services/shm-regions-mte.t, nginx-zones-mte.t)
# test-only: one memory-safety bug per case, for the fault reports' test
# (tests/integration/detect/fault-report.t): frame records kept, -g for names
$(B)/tests/aarch64/faultcases: tests/shim/faultcases.c
	@mkdir -p $(dir $@)
	$(call say,XCC,$<)
	$(Q)$(XCC) -O1 -g -fno-omit-frame-pointer -Wall -Wextra -o $@ $<
TESTBIN := $(B)/tests/aarch64/libmtbplant.so $(B)/tests/aarch64/faultcases

$(B)/tests/aarch64/libmtbplant.so: tests/shim/mtbplant.c
	@mkdir -p $(dir $@)
	$(call say,XCC,$<)
	$(Q)$(XCC) -O2 -Wall -Wextra -fPIC -shared -o $@ $< -ldl

$(B)/obj-aarch64/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,XCC,$<)
	$(Q)$(CCACHE) $(XCC) $(CCMAP) $(CPPFLAGS) $(CFLAGS) $(WARN) -MMD -MP -c -o $@ $<
$(B)/aarch64/libmtload.a: $(XLG_OBJ)
	@mkdir -p $(dir $@)
	$(call say,XAR,$@)
	$(Q)rm -f $@; $(XAR) rcs $@ $^
$(B)/aarch64/libmteharness.a: $(XHN_OBJ)
	@mkdir -p $(dir $@)
	$(call say,XAR,$@)
	$(Q)rm -f $@; $(XAR) rcs $@ $^
$(B)/aarch64/mtload: $(XO)/loadgen/main.o $(B)/aarch64/libmtload.a
	$(call say,XLD,$@)
	$(Q)$(XCC) $(CFLAGS) -o $@ $^ $(LDLIBS) $(XZ_LIBS)
$(B)/aarch64/mtebench: $(XO)/harness/main.o $(B)/aarch64/libmteharness.a $(B)/aarch64/libmtload.a
	$(call say,XLD,$@)
	$(Q)$(XCC) $(CFLAGS) -o $@ $^ $(LDLIBS) $(XZ_LIBS)
$(B)/aarch64/mtbinit: harness/agent/guest/init.c
	@mkdir -p $(dir $@)
	$(call say,XCC,$<)
	$(Q)$(XCC) -O2 -Wall -Wextra -Wshadow -D_GNU_SOURCE -o $@ $<

$(B)/native/libmtefault.so: harness/probe/mtefault.c harness/probe/vmflags.h
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) -O2 -Wall -Wextra -fPIC -shared -o $@ $<
# the allocation record of fault reports (harness/probe/mtealloc.c): frame
# records kept, so that its stack walk starts from its own frame
$(B)/aarch64/libmtealloc.so: harness/probe/mtealloc.c
	@mkdir -p $(dir $@)
	$(call say,XCC,$<)
	$(Q)$(XCC) -O2 -fno-omit-frame-pointer -Wall -Wextra -fPIC -shared -o $@ $< -ldl -lpthread
$(B)/native/libmtealloc.so: harness/probe/mtealloc.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) -O2 -fno-omit-frame-pointer -Wall -Wextra -fPIC -shared -o $@ $< -ldl -lpthread

# the A64 decoder of the counting plugin (harness/probe/a64decode.c): a host
# build of the probe's own source, not a module of libmteharness.a
$(B)/tests/test_a64decode: tests/unit/test_a64decode.c harness/probe/a64decode.c harness/probe/a64decode.h
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(CPPFLAGS) $(CFLAGS) $(WARN) -Itests/unit -o $@ tests/unit/test_a64decode.c harness/probe/a64decode.c

$(B)/tests/%: tests/unit/%.c $(B)/libmteharness.a $(B)/libmtload.a
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(CPPFLAGS) $(PG_CPPFLAGS) $(CFLAGS) $(WARN) -Itests/unit -o $@ $^ $(LDLIBS) $(PG_LIBS) $(Z_LIBS)

deps:
	@sh harness/cmd/deps.sh

# --- the main job ----------------------------------------------------------
SERVICE  ?= memcached
MODE     ?= async
# The workload's variables, one per field of its list (harness/core/workload_fields.h):
# field value_size is VALUE_SIZE=, passed as --value-size
WL_FIELDS := $(shell sed -n 's/^ *X.\([a-z_]*\), [A-Z]*, "[^"]*", "\([^"]*\)".*/\U\1\E:\2/p' harness/core/workload_fields.h)
WL_ARGS = $(foreach f,$(WL_FIELDS),$(call wl_arg,$(firstword $(subst :, ,$(f))),$(lastword $(subst :, ,$(f)))))
wl_arg = $(if $($(1)),--$(2) $($(1)))
BENCH_ARGS = --service $(SERVICE) --mode $(MODE) $(if $(WORKLOAD),--workload $(WORKLOAD)) $(if $(VARIANT),--variant $(VARIANT)) $(BENCH_ARGS_COMMON)
BENCH_ARGS_COMMON = $(if $(PLATFORM),--platform $(PLATFORM)) $(if $(MACHINE),--machine $(MACHINE)) $(if $(KERNEL),--kernel $(KERNEL)) \
	$(if $(ALLOCATOR),--allocator $(ALLOCATOR)) \
	$(if $(REPS),--reps $(REPS)) \
	$(if $(PRECISION),--precision $(PRECISION)) $(if $(MAX_TIME),--max-time $(MAX_TIME)) $(if $(MAX_REPS),--max-reps $(MAX_REPS)) \
	$(WL_ARGS) $(if $(CORES),--cores $(CORES)) $(if $(STRICT),--strict) \
	$(if $(RESUME),--resume $(RESUME)) \
	$(if $(HOSTS),--server-host $(HOSTS)) $(if $(CLIENT_HOSTS),--client-hosts $(CLIENT_HOSTS)) $(SSH_OPTS)

# COUNT=0|1|auto: the counted pair first (docs/COUNTING.md; auto: without MTE hardware)
bench: deps
	@$(MAKE) --no-print-directory -j$(NPROC) all
	$(if $(COUNT),MTEBENCH_WORK=$(COUNT)) $(B)/mtebench bench $(BENCH_ARGS)

# capacity at an SLO (docs/CAPACITY.md): make capacity SERVICE=memcached MODE=async SLO=p99:1ms
# [LOADS=10%,50%,90% BASELINE_VARIANT=plain CONFIDENCE=95% VARIANT= ARRIVAL=poisson REPS=3 (runs at a rate) MAX_TIME= and the
# workload's fields but RATE]
capacity: deps
	@$(MAKE) --no-print-directory -j$(NPROC) all
	$(B)/mtebench capacity $(BENCH_ARGS) $(if $(SLO),--slo '$(SLO)') $(if $(LOADS),--loads '$(LOADS)') \
		$(if $(BASELINE_VARIANT),--baseline-variant $(BASELINE_VARIANT)) $(if $(CONFIDENCE),--confidence $(CONFIDENCE)) \
		$(if $(RESULTS),--results $(RESULTS))

# detection (docs/DETECTION.md): a service's bug catalogue as trials, and the
# synthetic sweep of the arithmetic behind the figures
detect: deps
	@$(MAKE) --no-print-directory -j$(NPROC) all
	$(B)/mtebench detect --service $(SERVICE) $(if $(BUG),--bugs $(BUG)) $(if $(TRIALS),--trials $(TRIALS)) \
		$(if $(PLATFORM),--platform $(PLATFORM)) $(if $(ALLOCATOR),--allocator $(ALLOCATOR)) $(if $(RESULTS),--results $(RESULTS)) \
		$(if $(KERNEL_CHECK),--kernel-check $(KERNEL_CHECK)) $(if $(VARIANTS),--variants $(VARIANTS)) $(if $(MODES),--modes $(MODES))
detect-sweep: deps
	@$(MAKE) --no-print-directory -j$(NPROC) all
	$(B)/mtebench detect-sweep $(if $(PLATFORM),--platform $(PLATFORM)) $(if $(TRIALS),--trials $(TRIALS))

# the kernel comparison: same workload and mode on each kernel (PLATFORM=vm)
KERNELS ?= stock,tcma1
compare-kernels: deps
	@$(MAKE) --no-print-directory -j$(NPROC) all
	$(if $(COUNT),MTEBENCH_WORK=$(COUNT)) $(B)/mtebench compare-kernels --service $(SERVICE) --mode $(MODE) --kernels $(KERNELS) \
	$(if $(REPS),--reps $(REPS)) $(WL_ARGS) $(if $(BASELINE),--baseline) $(foreach d,$(DETECT),--detect $(d))

# the commit of a service's patch history that changed a metric (docs/BISECT.md):
# make bisect GOOD=REF BAD=REF SERVICE=memcached [VARIANT= MODE= PLATFORM= WORKLOAD= METRIC= DURATION= REPO= MIN_CHANGE= MAX_TIME= HISTORY=]
bisect: deps
	@$(MAKE) --no-print-directory -j$(NPROC) all
	$(B)/mtebench bisect --good $(GOOD) --bad $(BAD) --service $(SERVICE) \
	$(if $(VARIANT),--variant $(VARIANT)) $(if $(MODE),--mode $(MODE)) $(if $(PLATFORM),--platform $(PLATFORM)) \
	$(if $(WORKLOAD),--workload $(WORKLOAD)) $(if $(METRIC),--metric $(METRIC)) $(if $(DURATION),--duration $(DURATION)) \
	$(if $(WARMUP),--warmup $(WARMUP)) $(if $(REPO),--repo $(REPO)) $(if $(MIN_CHANGE),--min-change $(MIN_CHANGE)) \
	$(if $(MAX_TIME),--max-time $(MAX_TIME)) $(if $(REPS),--reps $(REPS)) $(if $(MAX_REPS),--max-reps $(MAX_REPS)) \
	$(if $(HISTORY),--history '$(HISTORY)')

# named kernels (PLATFORM=vm): make kernels [KERNEL_SOURCE=6.12|6.1]
kernels: all
	$(B)/mtebench kernel build $(subst $(comma), ,$(KERNELS))

# the floor client of the load generator benchmark (tests/bench/floor.c)
$(B)/bench/floor: tests/bench/floor.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)
	$(Q)$(CC) $(CFLAGS) $(WARN) -D_GNU_SOURCE -o $@ $< -luring

# mtload against the floor, memcaslap, wrk and memtier_benchmark (tests/bench/loadgen.sh;
# ROUNDS= DURATION= PIPELINES= as there; MEMTIER=/path/to/memtier_benchmark, not in Debian:
# default the one in PATH, else skipped)
bench-loadgen: deps
	@$(MAKE) --no-print-directory -j$(NPROC) all $(B)/bench/floor
	$(if $(MEMTIER),MEMTIER='$(MEMTIER)') bash tests/bench/loadgen.sh

# capacity against queueing theory (tests/bench/capacity-md1.sh): memcached's
# spinning plants' capacities beside M/D/1 and M/M/1; SLO=p99:2.2ms
bench-capacity: deps
	@$(MAKE) --no-print-directory -j$(NPROC) all
	bash tests/bench/capacity-md1.sh "" $(or $(SLO),p99:2.2ms)

# MTE's work per request, counted (tests/bench/work.sh, docs/COUNTING.md):
# CONFIGS=variant/mode@kernel,... REPS=5 SERVICE=memcached
bench-work: deps
	@$(MAKE) --no-print-directory -j$(NPROC) all
	SERVICE=$(or $(SERVICE),memcached) bash tests/bench/work.sh "" $(or $(CONFIGS),plain/off@stock$(comma)tagged/async@stock) $(or $(REPS),5)

report: all
	$(B)/mtebench report $(or $(RESULTS),$(lastword $(sort $(wildcard results/*))))

# --- tests -----------------------------------------------------------------
# make test AREA=NAME (or AREA="NAME ..."): one area's tests alone, one after
# another (tests/run.sh given their paths; no lanes, durations.txt left as it
# is, no lint): the unit tests of the modules of harness/NAME/ (test_X.c tests
# the module X: harness/*/X.c, else loadgen/X.c, area loadgen) and
# tests/integration/NAME/*.t. The areas: those folders and the unit tests'.
unit_area = $(or $(firstword $(foreach d,$(notdir $(patsubst %/,%,$(wildcard harness/*/))),$(if $(wildcard harness/$(d)/$(1).c),$(d)))),$(if $(wildcard loadgen/$(1).c),loadgen))
UNIT_AREAS = $(foreach u,$(UNIT),$(notdir $(u)):$(call unit_area,$(patsubst test_%,%,$(notdir $(u)))))
TEST_AREAS = $(sort $(notdir $(patsubst %/,%,$(wildcard tests/integration/*/))) $(foreach p,$(UNIT_AREAS),$(word 2,$(subst :, ,$(p)))))
AREA_UNIT = $(foreach p,$(UNIT_AREAS),$(if $(filter $(AREA),$(word 2,$(subst :, ,$(p)))),$(B)/tests/$(word 1,$(subst :, ,$(p)))))
AREA_T = $(foreach a,$(AREA),$(sort $(wildcard tests/integration/$(a)/*.t)))
ifneq ($(filter test,$(MAKECMDGOALS)),)
ifneq ($(filter-out $(TEST_AREAS),$(AREA)),)
$(error make test AREA=$(AREA): no such area ($(filter-out $(TEST_AREAS),$(AREA))); the areas are: $(TEST_AREAS) (docs/TESTING.md))
endif
endif
test: deps
ifeq ($(strip $(AREA)),)
	@$(MAKE) --no-print-directory -j$(NPROC) all $(UNIT) $(TESTBIN)
	@r=0; bash tests/run.sh || r=1; bash tests/lint.sh --quiet || r=1; exit $$r
else
	@$(MAKE) --no-print-directory -j$(NPROC) all $(strip $(AREA_UNIT)) $(TESTBIN)
	bash tests/run.sh $(strip $(AREA_UNIT) $(AREA_T))
endif

# the timing-sensitive tests under a planted disturbance (tests/disturbed.sh):
# DISTURB=hog (a busy loop per CPU), wake (sleep-spin wake-ups) or none
test-disturbed: deps
	@$(MAKE) --no-print-directory -j$(NPROC) all $(UNIT) $(TESTBIN)
	DISTURB=$(or $(DISTURB),hog) TESTS="$(TESTS)" bash tests/disturbed.sh

# structure (tests/lint.sh): the folders' layers on includes and calls (the
# objects' symbols: hence all), includes with their folder, exports, function
# and file length; prints the longest function, file and chain of folders
lint: all
	@bash tests/lint.sh

unit: all $(UNIT)
	prove --exec '' $(UNIT)

# tests kept out of `make test` for what their builds cost cold (tests/long/:
# PostgreSQL's objtag plants, two test-only PostgreSQL builds of ~5 min each)
test-long: deps
	@$(MAKE) --no-print-directory -j$(NPROC) all
	bash tests/run.sh tests/long/*.t

clean:
	rm -rf $(B)

.PHONY: all deps bench bench-loadgen bench-capacity bench-work test-disturbed compare-kernels bisect kernels report test test-long unit lint clean detect detect-sweep capacity
-include $(shell find $(B)/obj $(B)/obj-aarch64 -name '*.d' 2>/dev/null)

# --- plans (configs/*.conf) --------------------------------------------------
PLAN ?= configs/paper.conf
plan: deps
	@$(MAKE) --no-print-directory -j$(NPROC) all
	$(B)/mtebench plan $(PLAN) $(BENCH_ARGS_COMMON)
.PHONY: plan

# --- the nightly (configs/nightly.conf, history, dashboard) -------------------
NIGHTLY_PLAN ?= configs/nightly.conf
nightly: deps
	@$(MAKE) --no-print-directory -j$(NPROC) all
	@# not echoed: HISTORY may be a PostgreSQL URL with a password
	@$(B)/mtebench nightly --plan $(NIGHTLY_PLAN) $(if $(HISTORY),--history '$(HISTORY)') $(BENCH_ARGS_COMMON)
.PHONY: nightly

# --- fuzzing (libFuzzer, clang from Debian: make deps) ------------------------
# make fuzz: each target of tests/fuzz/ for FUZZ_SECONDS, from its seed corpus
# tests/fuzz/corpus/<target>/ (new inputs it finds go to build/fuzz/corpus/),
# with AddressSanitizer, UndefinedBehaviorSanitizer and LeakSanitizer (an
# input that leaks is a finding: a leak per input once ran fuzz_plan into
# libFuzzer's 2 GB limit); any crash or report fails. What it finds goes to
# $(B)/fuzz/<target>-*, never to the current directory.
# tests/integration/suite/fuzz.t runs each for a few seconds.
FUZZ_SECONDS ?= 600
FUZZ_CC      ?= clang
FUZZ_FLAGS   := -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=undefined
FUZZ_TARGETS := $(patsubst tests/fuzz/%.c,$(B)/fuzz/%,$(wildcard tests/fuzz/fuzz_*.c))
FZ_OBJ       := $(patsubst %.c,$(B)/fuzz/obj/%.o,$(HN_SRC) $(LG_SRC) $(CM_SRC))

$(B)/fuzz/obj/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,FUZZCC,$<)
	$(Q)$(CCACHE) $(FUZZ_CC) $(CCMAP) $(CPPFLAGS) $(PG_CPPFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer-no-link -MMD -MP -c -o $@ $<
$(B)/fuzz/libfuzzed.a: $(FZ_OBJ)
	$(Q)rm -f $@; ar rcs $@ $^
$(B)/fuzz/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz.h $(B)/fuzz/libfuzzed.a
	$(call say,FUZZLD,$@)
	$(Q)$(FUZZ_CC) $(CPPFLAGS) $(PG_CPPFLAGS) $(FUZZ_FLAGS) -fsanitize=fuzzer -Itests/fuzz \
		-o $@ $< $(B)/fuzz/libfuzzed.a $(LDLIBS) $(PG_LIBS) $(Z_LIBS)

fuzz-build: $(FUZZ_TARGETS)
fuzz: fuzz-build
	@r=0; for t in $(FUZZ_TARGETS); do n=$$(basename $$t); mkdir -p $(B)/fuzz/corpus/$$n; \
	  echo "fuzz: $$n for $(FUZZ_SECONDS) s"; \
	  ASAN_OPTIONS=detect_leaks=1 $$t -max_total_time=$(FUZZ_SECONDS) -max_len=65536 -timeout=10 -print_final_stats=1 \
	    -artifact_prefix=$(B)/fuzz/$$n- $(B)/fuzz/corpus/$$n tests/fuzz/corpus/$$n 2>&1 | \
	    grep -E '^(stat::number_of_executed_units|stat::peak_rss|==[0-9]+==|SUMMARY|Done|.*(crash|leak|timeout|deadly))' || true; \
	  ls $(B)/fuzz/$$n-* >/dev/null 2>&1 && { echo "fuzz: $$n: FAILED, see $(B)/fuzz/$$n-*"; r=1; }; \
	done; exit $$r
.PHONY: fuzz fuzz-build
-include $(shell find $(B)/fuzz/obj -name '*.d' 2>/dev/null)

# --- rehearsal on an emulated arm64 Debian 12 (not part of make test) ---------
# debootstrap root cached in /var/cache/mtebench/rehearse-arm64; tens of minutes
rehearse-arm64:
	bash tests/rehearse-arm64.sh
.PHONY: rehearse-arm64
