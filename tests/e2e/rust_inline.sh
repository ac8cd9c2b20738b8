# Rust's inlined frames on --call-graph dwarf stacks, against perf on
# perf's recording of tests/progs/other/rustinline.rs built -O -g by
# Debian's rustc (any rustc when Debian's is missing): rustc puts every
# function inside its module's DW_TAG_namespace, where libdw's
# dwarf_getscopes() does not look, so luaprof showed none of the
# "(inlined)" lines perf prints (rustinline::mid and ::top before ::main).
# top, top --children, script and folded stacks equal perf's
# (lib_real.sh's real_compare).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/real/lib_real.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to compare with"
rc=/usr/bin/rustc
[ -x "$rc" ] || rc=$(command -v rustc) ||
	skip "rustc is not installed (make test-deps installs Debian's rustc): Rust's inlined frames not checked"
# rustup's rustc finds its toolchains under $HOME/.rustup: the tests run
# with an empty HOME, so point it at the one beside the rustc found
"$rc" --version >/dev/null 2>&1 || [ ! -d "${rc%/.cargo/bin/rustc}/.rustup" ] ||
	export RUSTUP_HOME="${rc%/.cargo/bin/rustc}/.rustup"
"$rc" --version >/dev/null 2>&1 || skip "rustc cannot run here ($("$rc" --version 2>&1 | head -1)): Rust's inlined frames not checked"
cd "$TMP"
"$rc" -O -g -o inl "$ROOT/tests/progs/other/rustinline.rs" 2>rustc.err || { cat rustc.err; fail "$rc failed"; }
perf record -q --call-graph dwarf -F 499 -o rust.data -- ./inl 3000 >/dev/null 2>perr ||
	fail "perf record failed: $(head -2 perr)"
real_compare rust.data
grep -q ' rustinline::mid+0x[0-9a-f]* (inlined)$' rust.script.perf || fail "perf shows no inlined rustinline::mid: nothing was compared"
grep -q ' rustinline::mid (inlined)$' rust.children.lp || fail "top --children has no rustinline::mid (inlined) row"
echo "$("$rc" --version): $(grep -c '(inlined)$' rust.script.lp) inlined frames"
real_verdict
