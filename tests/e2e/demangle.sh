# C++ and Rust names are demangled (parameters included, as c++filt
# prints them), the raw name kept as frame.mangled; perf's names (which
# leave the parameters out) are the same names.  Rust: legacy and v0
# mangling (skipped with the reason when rustc is absent); a Rust name is
# c++filt's without its hash (legacy ::h..., v0's crate [...]), as perf's.
. "$(dirname "$0")/lib.sh"
need_perf_events
cd "$TMP"
# most LABEL PATTERN: at least 90% of the samples in $TMP/out match PATTERN
most() {
	local total hit
	total=$(awk '{n += $1} END {print n + 0}' "$TMP/out")
	hit=$(grep -E -- "$2" "$TMP/out" | awk '{n += $1} END {print n + 0}')
	[ "$total" -ge 100 ] && [ $((hit * 100)) -ge $((total * 90)) ] ||
		{ sort -rn "$TMP/out" | head -5; fail "$1: $hit of $total samples match '$2'"; }
	echo "$1: $hit of $total samples as '$2'"
}
# perf_names BIN ARGS: perf report's names of BIN's samples (demangled by perf)
perf_names() {
	perf record -q -F 999 -o perf.data -- "$@" >/dev/null 2>&1 || fail "perf record $* failed"
	perf report -i perf.data --stdio --no-children --sort sym -q -g none 2>/dev/null | awk '$2 == "[.]" {$1 = ""; $2 = ""; sub(/^ +/, ""); print}'
}
if command -v g++ >/dev/null; then
	g++ -O2 -g -o worker "$ROOT/tests/progs/other/worker.cc" || fail "cannot build worker.cc"
	expect_status 0 "$LUAPROF" run "$CHECKS/names2.lua" --call-graph dwarf -F 999 -- ./worker 300
	most "C++" '^[0-9]+ ns::Worker<long>::run\(long\) \| _ZN2ns6WorkerIlE3runEl \| main$'
	if command -v perf >/dev/null; then
		perf_names ./worker 100 | grep -qx 'ns::Worker<long>::run' || fail "perf names the C++ function otherwise"
	fi
else
	echo "g++ is not installed: C++ names not checked"
fi
rc=$(command -v rustc) || skip "rustc is not installed: Rust names not checked"
# rustup's rustc finds its toolchains under $HOME/.rustup: the tests run
# with an empty HOME, so point it at the one beside the rustc found
rustc --version >/dev/null 2>&1 || [ ! -d "${rc%/.cargo/bin/rustc}/.rustup" ] ||
	export RUSTUP_HOME="${rc%/.cargo/bin/rustc}/.rustup"
rustc --version >/dev/null 2>&1 || skip "rustc cannot run here ($(rustc --version 2>&1 | head -1)): Rust names not checked"
for v in legacy v0; do
	# legacy needs -Z unstable-options where it is no longer the default
	RUSTC_BOOTSTRAP=1 rustc -O -g -Z unstable-options -C symbol-mangling-version=$v \
		-o rust_$v "$ROOT/tests/progs/other/rustwork.rs" 2>rustc.err || { cat rustc.err; fail "rustc ($v) failed"; }
	expect_status 0 "$LUAPROF" run "$CHECKS/names2.lua" --call-graph dwarf -F 999 -- ./rust_$v 3000
	raw=$([ $v = v0 ] && echo '_RNv[A-Za-z0-9_]+9spin_here' || echo '_ZN8rustwork9spin_here17h[0-9a-f]{16}E')
	most "Rust $v" "^[0-9]+ rustwork::spin_here \| $raw \| (<)?rustwork::inner::Thing(>)?::work$"
	if command -v c++filt >/dev/null; then
		m=$(grep -Eo -- "$raw" "$TMP/out" | head -1)
		f=$(echo "$m" | c++filt | sed -E 's/::h[0-9a-f]{16}$//; s/\[[0-9a-f]+\]//g')
		[ "$f" = rustwork::spin_here ] || fail "Rust $v: c++filt prints $m as '$(echo "$m" | c++filt)', not rustwork::spin_here and a hash"
	fi
	if command -v perf >/dev/null; then
		perf_names ./rust_$v 600 | grep -qx 'rustwork::spin_here' || fail "perf names the Rust ($v) function otherwise"
	fi
done
