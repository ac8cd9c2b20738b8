# luaprof - a Linux profiler with a Lua 5.4 scripting engine.
#
#   make            build ./luaprof
#   make test       build and run the whole test suite (installs deps as root)
#   make check      the fast tier: unit, Lua and fuzz tests and the quick
#                   end-to-end tests, nothing installed (tests/run.sh --check)
#   make test-real  only the comparisons with perf on real programs (tests/real)
#   make test-variation  the suite from a long path, HOME empty, a CPU busy,
#                   watchpoints hidden (tests/variation.sh)
#   make demo       build and profile a bundled workload with a shipped script
#   make deps       install the Debian/Ubuntu packages the build and tests need
#   make check-asan the whole suite under AddressSanitizer + UBSan (CI runs it)
#   make fuzz       coverage-guided fuzzing (libFuzzer) of every parser of outside data
#   make bench      benchmarks against perf (not part of make test)
#   make install    PREFIX=/usr/local: the binary, scripts, Lua library, man page
#   make uninstall  PREFIX=/usr/local: removes what make install put there
#
# WERROR=1 turns warnings into errors (CI sets it); V=1 prints every
# command line whole.

CC      ?= cc
# Each command prints one short line ("CC core/agg/agg.c") unless V=1.
ifeq ($(V),1)
say =
else
say = @printf '  %-6s %s\n' $(1) $(2);
endif
PKG_CONFIG ?= pkg-config
BUILD   ?= build
OPT     ?= -O2
SAN     ?=

# First Lua 5.4 pkg-config module found: Debian names it lua5.4, others vary.
LUA_PC = $(firstword $(foreach m,lua5.4 lua-5.4 lua54 lua,$(shell $(PKG_CONFIG) --exists $(m) 2>/dev/null && echo $(m))))
DEP_CFLAGS = $(shell $(PKG_CONFIG) --cflags $(LUA_PC) libelf libdw libzstd liblzma zlib libcurl 2>/dev/null)
# libcurl is opened at its first use (core/push/curlsym.c), not linked:
# the 28 libraries it pulls in cost every start 5 ms of CPU.
DEP_LIBS   = $(shell $(PKG_CONFIG) --libs $(LUA_PC) libdw libelf libzstd liblzma zlib 2>/dev/null)

WARN = -Wall -Wextra -Wshadow -Wpointer-arith -Wcast-qual -Wwrite-strings \
       -Wmissing-prototypes -Wstrict-prototypes -Wmissing-declarations \
       -Wundef -Wformat=2 -Wvla -Wnull-dereference -Wdouble-promotion \
       -Wno-missing-field-initializers
ifeq ($(WERROR),1)
WARN += -Werror
endif

CFLAGS_ALL = -std=c11 -D_GNU_SOURCE -g $(OPT) $(SAN) $(WARN) -Iinclude -Icore $(DEP_CFLAGS) $(CFLAGS)
LDLIBS_ALL = $(SAN) $(DEP_LIBS) -liberty -lm -ldl -pthread $(LDFLAGS)

CORE_SRC = $(sort $(wildcard core/*/*.c))
LUA_SRC  = $(sort $(wildcard lua/host/*.c lua/cmd/*.c))
CORE_OBJ = $(CORE_SRC:%.c=$(BUILD)/%.o)
LUA_OBJ  = $(LUA_SRC:%.c=$(BUILD)/%.o)
LIB      = $(BUILD)/libluaprof.a
UNIT_SRC = $(sort $(wildcard tests/unit/test_*.c))
UNIT_BIN = $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)
FUZZ_SRC = $(sort $(wildcard tests/fuzz/fuzz_*.c))
FUZZ_BIN = $(FUZZ_SRC:tests/fuzz/%.c=$(BUILD)/fuzz/%)
PROG_SRC = $(sort $(wildcard tests/progs/*.c))
PROG_BIN = $(PROG_SRC:tests/progs/%.c=$(BUILD)/progs/%)
# C++ workloads, built when g++ is there (the tests that need one skip without)
CXX ?= g++
PROG_CXX_SRC = $(if $(shell command -v $(CXX)),$(sort $(wildcard tests/progs/*.cc)))
PROG_CXX_BIN = $(PROG_CXX_SRC:tests/progs/%.cc=$(BUILD)/progs/%)

.PHONY: all check check-deps deps ensure-deps test test-real test-variation test-run test-deps \
	demo demo-run check-asan bench clean progs units fuzz install uninstall

all: check-deps luaprof

# One line naming the missing package, then stop.
check-deps:
	@$(PKG_CONFIG) --version >/dev/null 2>&1 || { echo "luaprof: pkg-config not found: install pkg-config (or run 'make deps' as root)"; exit 1; }
	@test -n "$(LUA_PC)" || { echo "luaprof: Lua 5.4 not found by pkg-config: install liblua5.4-dev (or run 'make deps' as root)"; exit 1; }
	@$(PKG_CONFIG) --exists libelf || { echo "luaprof: libelf not found by pkg-config: install libelf-dev (or run 'make deps' as root)"; exit 1; }
	@$(PKG_CONFIG) --exists libdw || { echo "luaprof: libdw not found by pkg-config: install libdw-dev (or run 'make deps' as root)"; exit 1; }
	@$(PKG_CONFIG) --exists libzstd || { echo "luaprof: libzstd not found by pkg-config: install libzstd-dev (or run 'make deps' as root)"; exit 1; }
	@$(PKG_CONFIG) --exists liblzma || { echo "luaprof: liblzma not found by pkg-config: install liblzma-dev (or run 'make deps' as root)"; exit 1; }
	@$(PKG_CONFIG) --exists zlib || { echo "luaprof: zlib not found by pkg-config: install zlib1g-dev (or run 'make deps' as root)"; exit 1; }
	@$(PKG_CONFIG) --exists libcurl || { echo "luaprof: libcurl not found by pkg-config: install libcurl4-openssl-dev (or run 'make deps' as root)"; exit 1; }
	@test -f /usr/include/libiberty/demangle.h || { echo "luaprof: libiberty not found (/usr/include/libiberty/demangle.h): install libiberty-dev (or run 'make deps' as root)"; exit 1; }

# Every install is tests/install-deps.sh's (build, test, fuzz, bench): as
# root with apt-get it installs what is missing, else says in one line what
# to install.
deps:
	@tests/install-deps.sh build

# As root on a fresh machine, install what is missing first.
ensure-deps:
	@if ! $(MAKE) -s --no-print-directory check-deps >/dev/null 2>&1 && [ "$$(id -u)" = 0 ]; then \
	  echo "luaprof: installing build dependencies (make deps)"; tests/install-deps.sh build; fi

luaprof: $(LUA_OBJ) $(LIB)
	$(call say,LINK,$@)$(CC) -o $@ $(LUA_OBJ) $(LIB) $(LDLIBS_ALL)

# check-asan's sanitized luaprof (make it with BUILD=build-asan), beside
# ./luaprof so that it finds the checkout's scripts and Lua library.
luaprof-asan: $(LUA_OBJ) $(LIB)
	$(call say,LINK,$@)$(CC) -o $@ $(LUA_OBJ) $(LIB) $(LDLIBS_ALL)

$(LIB): $(CORE_OBJ)
	@rm -f $@
	$(call say,AR,$@)ar rcs $@ $^

# Every compile writes its dependency file (-MMD -MP: the headers it
# read), included at the end, so that touching a header rebuilds what
# includes it: the library, the commands, the unit tests and fuzz targets.
$(BUILD)/%.o: %.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) $(CFLAGS_ALL) -MMD -MP -c -o $@ $<

# lua/host (the VM, the bindings) sees its own headers and core's; lua/cmd
# (the commands) sees the host's too: cmd -> host -> core, never back.
$(LUA_OBJ): CFLAGS_ALL += -Ilua/host

# The system call table, generated from the system's <asm/unistd.h> (on
# x86-64 that is asm/unistd_64.h): one { "name", number } line per call, in
# number order; and the error names from <errno.h> (the numeric ones:
# EWOULDBLOCK and the other aliases name another).  Never hand-written lists.
# $(call gen_table,HEADER,PREFIX,what): the definitions of PREFIXNAME NUMBER.
define gen_table
	@mkdir -p $(dir $@)
	$(call say,GEN,$@)echo '#include <$(1)>' | $(CC) -E -dM -x c - | \
	  sed -n 's/^#define $(2)\([A-Za-z0-9_]*\) \([0-9][0-9]*\)$$/{ "$(3)\1", \2 },/p' | \
	  sort -t, -k2 -n > $@.tmp
	@test -s $@.tmp || { echo "luaprof: nothing found in <$(1)>: install linux-libc-dev"; rm -f $@.tmp; exit 1; }
	@mv $@.tmp $@
endef
$(BUILD)/gen/syscalls.h: Makefile
	$(call gen_table,asm/unistd.h,__NR_,)
$(BUILD)/gen/errnos.h: Makefile
	$(call gen_table,errno.h,E,E)

# The same calls as libaudit names them (its audit_syscall_to_name, for
# this machine), which perf's Python scripts print through python3-audit:
# "pread" for pread64 (core/trace/gen_auditnames.py).
$(BUILD)/gen/auditnames.h: $(BUILD)/gen/syscalls.h core/trace/gen_auditnames.py
	$(call say,GEN,$@)python3 core/trace/gen_auditnames.py $< > $@.tmp && mv $@.tmp $@

$(BUILD)/core/trace/syscalls.o: $(BUILD)/gen/syscalls.h $(BUILD)/gen/errnos.h $(BUILD)/gen/auditnames.h
$(BUILD)/core/trace/syscalls.o: CFLAGS_ALL += -I$(BUILD)/gen

# Named kernel constants (core/trace/consts.c): the signals of
# <asm/signal.h> by number, but for SIGIOT and SIGUNUSED (SIGABRT's and
# SIGSYS's numbers again) and SIGSTKSZ (no signal); and the open flags as
# the kernel takes them, <asm/fcntl.h>'s O_ names but the aliases of
# another name (O_NDELAY), each as an entry the compiler evaluates (O_SYNC
# and O_TMPFILE are expressions of others).
$(BUILD)/gen/signals.h: Makefile
	@mkdir -p $(dir $@)
	$(call say,GEN,$@)echo '#include <asm/signal.h>' | $(CC) -E -dM -x c - | \
	  sed -n 's/^#define \(SIG[A-Z0-9]*\) \([0-9][0-9]*\)$$/{ "\1", \2 },/p' | \
	  grep -v -e '"SIGIOT"' -e '"SIGUNUSED"' -e '"SIGSTKSZ"' | sort -t, -k2 -n > $@.tmp
	@test -s $@.tmp || { echo "luaprof: nothing found in <asm/signal.h>: install linux-libc-dev"; rm -f $@.tmp; exit 1; }
	@mv $@.tmp $@
$(BUILD)/gen/oflags.h: Makefile
	@mkdir -p $(dir $@)
	$(call say,GEN,$@)echo '#include <asm/fcntl.h>' | $(CC) -E -dM -x c - | \
	  sed -n 's/^#define \(O_[A-Z_]*\) [0-9(].*$$/{ "\1", \1 },/p' | sort > $@.tmp
	@test -s $@.tmp || { echo "luaprof: nothing found in <asm/fcntl.h>: install linux-libc-dev"; rm -f $@.tmp; exit 1; }
	@mv $@.tmp $@

$(BUILD)/core/trace/consts.o: $(BUILD)/gen/signals.h $(BUILD)/gen/oflags.h $(BUILD)/gen/errnos.h
$(BUILD)/core/trace/consts.o: CFLAGS_ALL += -I$(BUILD)/gen

# Unit tests and fuzz targets are compiled by the rule above (their
# objects under $(BUILD)/tests/, with their dependency files), then linked.
$(UNIT_BIN): $(BUILD)/tests/%: $(BUILD)/tests/unit/%.o $(LIB)
	$(call say,LINK,$@)$(CC) -o $@ $< $(LIB) $(LDLIBS_ALL)

# Fuzz targets, linked with a driver that replays files (tests/fuzz/driver.c):
# make test replays each target's regression inputs, tests/fuzz/corpus/NAME.
# FUZZ_LINK_NAME: a target's own link flags (the replaying targets memoize
# the objects they read across executions by wrapping lp_dso_open/free).
FUZZ_LINK_fuzz_perfdata = -Wl,--wrap=lp_dso_open,--wrap=lp_dso_free
FUZZ_LINK_fuzz_pdpipe = $(FUZZ_LINK_fuzz_perfdata)
$(FUZZ_BIN): $(BUILD)/fuzz/%: $(BUILD)/tests/fuzz/%.o $(BUILD)/tests/fuzz/driver.o $(LIB)
	@mkdir -p $(dir $@)
	$(call say,LINK,$@)$(CC) -o $@ $< $(BUILD)/tests/fuzz/driver.o $(LIB) $(LDLIBS_ALL) $(FUZZ_LINK_$*)

# The same targets linked with libFuzzer (make fuzz, clang only).
$(BUILD)/fuzzer/%: $(BUILD)/tests/fuzz/%.o $(LIB)
	@mkdir -p $(dir $@)
	$(call say,LINK,$@)$(CC) -fsanitize=fuzzer -o $@ $< $(LIB) $(LDLIBS_ALL) $(FUZZ_LINK_$*)

# Workloads: frame pointers and symbols kept, as a user profiling would.
PROG_CFLAGS = -O1 -g -fno-omit-frame-pointer -fno-inline-functions-called-once -pthread
$(BUILD)/progs/%: tests/progs/%.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) $(PROG_CFLAGS) -MMD -MP -o $@ $< -ldl

# C++: -O2 as a release build, frame pointers kept
$(BUILD)/progs/%: tests/progs/%.cc
	@mkdir -p $(dir $@)
	$(call say,CXX,$<)$(CXX) -O2 -g -fno-omit-frame-pointer -MMD -MP -o $@ $<

$(BUILD)/progs/libdlwork.so: tests/progs/lib/dlwork.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) $(PROG_CFLAGS) -shared -fPIC -MMD -MP -o $@ $<

$(BUILD)/progs/libprobelib.so: tests/progs/lib/probelib.c
	@mkdir -p $(dir $@)
	$(call say,CC,$<)$(CC) $(PROG_CFLAGS) -shared -fPIC -MMD -MP -o $@ $<

units: $(UNIT_BIN) $(FUZZ_BIN)
progs: $(PROG_BIN) $(PROG_CXX_BIN) $(BUILD)/progs/libdlwork.so $(BUILD)/progs/libprobelib.so

test: ensure-deps
	@$(MAKE) --no-print-directory test-deps
	@$(MAKE) --no-print-directory test-run

# What only the tests use, installed as root when missing (a test whose
# tool cannot be installed skips, saying which).
test-deps:
	@CC="$(CC)" BUILD=$(BUILD) tests/install-deps.sh test

test-run: check-deps
	@$(MAKE) --no-print-directory luaprof units progs
	@BUILD=$(BUILD) tests/run.sh

# The fast tier, for every change: no package installed, no test that
# needs the machine to itself (tests/run.sh --check: the tests marked so).
check: check-deps
	@$(MAKE) --no-print-directory luaprof units progs
	@BUILD=$(BUILD) tests/run.sh --check

# The suite as if on another machine of the same kind (tests/variation.sh):
# a clone at a path over 100 characters, HOME empty, one CPU busy, hardware
# watchpoints hidden.  VARY passes its options (--asan, --no-busy, ...).
# The comparisons with perf on real programs (python3, node, C++, xz,
# tests/real), alone: make test runs them too, after tests/e2e.
test-real: ensure-deps
	@$(MAKE) --no-print-directory test-deps
	@$(MAKE) --no-print-directory luaprof units progs
	@BUILD=$(BUILD) tests/run.sh --real

test-variation:
	@tests/variation.sh $(VARY)

demo: ensure-deps
	@$(MAKE) --no-print-directory demo-run

demo-run: check-deps
	@$(MAKE) --no-print-directory luaprof $(BUILD)/progs/demo
	./luaprof run scripts/top.lua -F 999 -g -- $(BUILD)/progs/demo

# The whole suite with AddressSanitizer + UBSan: the unit tests, the fuzz
# regression inputs, and the end-to-end tests with a sanitized luaprof
# ($$LUAPROF).  Any finding fails: UBSan stops at the first report,
# LeakSanitizer checks each process as it exits, and tests/run.sh
# (SANITIZED=1) fails every test after which a report was written, even
# one that expected luaprof to fail.  CI runs this after make test.
check-asan:
	@$(MAKE) --no-print-directory BUILD=build-asan OPT=-O1 \
	  SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer" \
	  units progs luaprof-asan
	@BUILD=build-asan LUAPROF=$(CURDIR)/luaprof-asan SANITIZED=1 tests/run.sh

# Coverage-guided fuzzing: each target (or FUZZ_TARGETS=...) runs FUZZ_TIME
# seconds (default 60) from its seeds (tests/fuzz/seeds.sh) with the
# dictionary tests/fuzz/perf.dict; crashing inputs land in build-fuzz/crashes/.
# Needs clang and its libFuzzer runtime (installed as root when missing).
FUZZ_TIME ?= 60
FUZZ_SAN = -fsanitize=fuzzer-no-link,address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer
# Each input makes fresh objects, so their large first allocations are
# made small: a 64-entry resolver cache (a 4096-entry one costs tens of
# page faults per execution; collisions, and so replacement, become
# common) and 4 KiB hash-map key chunks (a 1 MiB one is an mmap and its
# shadow under ASan, in every execution), and a 4 MiB limit on xz's
# decoder (a mutated header asks for dictionaries up to the 256 MiB
# limit, which ASan poisons on allocation and free, most of the target's
# time otherwise).
FUZZ_DEFS = -DFCACHE_BITS=6 -DKEY_CHUNK=4096 -DXZ_MEMLIMIT=0x400000
fuzz:
	@tests/install-deps.sh fuzz
	@$(MAKE) --no-print-directory CC=clang BUILD=build-fuzz OPT=-O1 SAN="$(FUZZ_SAN)" CFLAGS="$(FUZZ_DEFS)" \
	  $(patsubst tests/fuzz/%.c,build-fuzz/fuzzer/%,$(FUZZ_SRC))
	@BUILD=build-fuzz FUZZ_TIME=$(FUZZ_TIME) tests/fuzz/run.sh $(FUZZ_TARGETS)

# bpftrace is the bench's only extra tool (the uprobe rows), installed as
# root when missing; without it those rows are left out.
bench: all
	@$(MAKE) --no-print-directory progs
	@tests/install-deps.sh bench
	@BUILD=$(BUILD) python3 tests/bench/bench.py $(if $(QUICK),--quick)

# The installed luaprof finds its scripts and library from its own path
# (PREFIX/bin/luaprof -> PREFIX/share/luaprof): no environment variable.
PREFIX ?= /usr/local
DESTDIR ?=
install: all
	install -d $(DESTDIR)$(PREFIX)/bin $(DESTDIR)$(PREFIX)/share/luaprof/scripts \
	  $(DESTDIR)$(PREFIX)/share/luaprof/lua/luaprof $(DESTDIR)$(PREFIX)/share/luaprof/helpers \
	  $(DESTDIR)$(PREFIX)/share/man/man1
	install -m 755 luaprof $(DESTDIR)$(PREFIX)/bin/luaprof
	install -m 644 scripts/*.lua $(DESTDIR)$(PREFIX)/share/luaprof/scripts/
	install -m 644 lua/lib/luaprof/*.lua $(DESTDIR)$(PREFIX)/share/luaprof/lua/luaprof/
	install -m 644 lua/helpers/*.lua $(DESTDIR)$(PREFIX)/share/luaprof/helpers/
	install -m 644 docs/luaprof.1 $(DESTDIR)$(PREFIX)/share/man/man1/luaprof.1

# What make install put there: the binary, the man page and share/luaprof.
uninstall:
	rm -f $(DESTDIR)$(PREFIX)/bin/luaprof $(DESTDIR)$(PREFIX)/share/man/man1/luaprof.1
	rm -rf $(DESTDIR)$(PREFIX)/share/luaprof

clean:
	rm -rf $(BUILD) build-asan build-fuzz luaprof luaprof-asan

-include $(CORE_OBJ:.o=.d) $(LUA_OBJ:.o=.d)
-include $(UNIT_SRC:%.c=$(BUILD)/%.d) $(FUZZ_SRC:%.c=$(BUILD)/%.d) $(BUILD)/tests/fuzz/driver.d
-include $(PROG_BIN:=.d) $(PROG_CXX_BIN:=.d) $(BUILD)/progs/libdlwork.d $(BUILD)/progs/libprobelib.d
