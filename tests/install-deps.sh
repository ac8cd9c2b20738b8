#!/usr/bin/env bash
# install-deps.sh WHAT - installs the Debian/Ubuntu packages luaprof's make
# targets need, with apt-get, as root; otherwise says in one line what to
# install.  WHAT is one of:
#   build  everything the build and the tests need (make deps): must run as
#          root, fails when apt-get is missing or fails
#   test   the tools only the tests use, when missing (make test): a
#          browser for the flame graph, Go's pprof, luacheck, a JSON schema
#          validator, <sys/sdt.h> (USDT probes in a test workload), strace,
#          python3-audit (the system call names perf's Python scripts
#          print on Debian), node and xz (real programs the tests profile:
#          tests/e2e/real_*), tmux (a terminal for luaprof top's test,
#          live_top), bpftrace (the side-by-side tests of the scripts
#          that port its tools, tests/e2e/bt_*), Debian's rustc and clang
#          (programs whose frames are compared with perf's:
#          tests/e2e/rust_inline, dwarf_noaranges; a rustc of rustup's
#          does not count), and the playwright-core
#          driver (npm, into $BUILD/npm).  A test
#          whose tool cannot be installed skips, saying which; so does this.
#   fuzz   clang with libFuzzer (make fuzz): fails when missing and not
#          installable
#   bench  bpftrace, the bench's only extra tool (its uprobe rows), when
#          missing; without it those rows are left out
# $CC is the C compiler (for <sys/sdt.h>), $BUILD the build directory.
set -u
CC=${CC:-cc}
BUILD=${BUILD:-build}
export DEBIAN_FRONTEND=noninteractive

is_root() { [ "$(id -u)" = 0 ]; }
have() { command -v "$1" >/dev/null; }
# apt_install PKG...: apt-get install quietly, updating the lists first
# only when the first try fails.
apt_install() {
	apt-get install -y -qq --no-install-recommends "$@" >/dev/null 2>&1 ||
		{ apt-get update -qq && apt-get install -y -qq --no-install-recommends "$@" >/dev/null; }
}

build_pkgs="build-essential pkg-config liblua5.4-dev libelf-dev libdw-dev libzstd-dev liblzma-dev libiberty-dev zlib1g-dev libcurl4-openssl-dev libc6-dbg
linux-perf python3 procps"
build_deps() {
	local pkgs
	pkgs=$(echo $build_pkgs)
	is_root || { echo "luaprof: 'make deps' installs packages and must run as root (sudo make deps)"; exit 1; }
	have apt-get || { echo "luaprof: no apt-get: install the equivalents of $pkgs"; exit 1; }
	{ apt-get update -qq && apt-get install -y -qq --no-install-recommends $pkgs >/dev/null; } ||
		{ echo "luaprof: apt-get install failed: install $pkgs by hand"; exit 1; }
}

# Each is COMMAND:PACKAGE (Debian's python3-jsonschema and python3-audit are
# modules of /usr/bin/python3, the one perf embeds;
# sdt is a header; node and npm may come from elsewhere, then they are left
# alone).
test_tools="chromium:chromium go:golang-go luacheck:lua-check jsonschema:python3-jsonschema
sdt:systemtap-sdt-dev node:nodejs npm:npm strace:strace audit:python3-audit xz:xz-utils
tmux:tmux bpftrace:bpftrace rustc:rustc clang:clang"
test_deps() {
	local t c p missing=
	for t in $test_tools; do
		c=${t%%:*} p=${t#*:}
		case $c in
		jsonschema|audit) /usr/bin/python3 -c "import $c" 2>/dev/null || missing="$missing $p" ;;
		sdt) echo '#include <sys/sdt.h>' | $CC -E -x c - >/dev/null 2>&1 || missing="$missing $p" ;;
		rustc) [ -x /usr/bin/rustc ] || missing="$missing $p" ;;
		*) have "$c" || missing="$missing $p" ;;
		esac
	done
	missing=${missing# }
	if [ -n "$missing" ] && is_root && have apt-get; then
		echo "luaprof: installing test tools: $missing"
		apt_install $missing || echo "luaprof: could not install $missing: the tests that need them skip"
	fi
	if [ ! -d "$BUILD/npm/node_modules/playwright-core" ] && have npm; then
		mkdir -p "$BUILD/npm" && (cd "$BUILD/npm" && npm install --silent --no-audit --no-fund \
			playwright-core@1 >/dev/null 2>&1) || echo "luaprof: npm could not install playwright-core"
	fi
	return 0
}

fuzz_deps() {
	have clang && echo 'int LLVMFuzzerTestOneInput(const char *d, long n) { return d && n; }' |
		clang -fsanitize=fuzzer -x c -o /dev/null - 2>/dev/null && return
	if is_root && have apt-get; then
		echo "luaprof: installing clang and libFuzzer (clang libclang-rt-14-dev)"
		apt-get install -y -qq --no-install-recommends clang libclang-rt-14-dev >/dev/null
	else
		echo "luaprof: make fuzz needs clang with libFuzzer: install clang and libclang-rt-14-dev"
		exit 1
	fi
}

bench_deps() {
	have bpftrace && return
	is_root && have apt-get || return 0
	echo "luaprof: installing bpftrace for the bench"
	apt-get install -y -qq --no-install-recommends bpftrace >/dev/null 2>&1 ||
		echo "luaprof: could not install bpftrace: its rows are left out"
	return 0
}

case ${1:-} in
build) build_deps ;;
test) test_deps ;;
fuzz) fuzz_deps ;;
bench) bench_deps ;;
*) echo "usage: tests/install-deps.sh build|test|fuzz|bench" >&2; exit 2 ;;
esac
