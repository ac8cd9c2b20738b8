# Code whose DWARF has no .debug_aranges (clang's default; gcc's with the
# section removed), recorded by perf with --call-graph dwarf: luaprof finds
# each address's unit from the units' own ranges, as perf's addr2line
# does, so its lines and inlined frames are perf's: top, top --children,
# script with its "(inlined)" lines, folded stacks (lib_real.sh's
# real_compare), and top --sort=srcline's rows (real_srcline), where
# luaprof gave ??:0 for every line.  Clang's inlined subroutines whose
# ranges are a DW_FORM_rnglistx index are not seen by binutils 2.40, nor by
# luaprof (docs/perf-differences.md).
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/real/lib_real.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to compare with"
command -v objcopy >/dev/null || skip "objcopy is not installed: cannot remove .debug_aranges"
cd "$TMP"
src=$ROOT/tests/progs/other/noaranges.c
# check NAME ROUNDS: NAME (built) has no .debug_aranges; its recording compared
check() {
	readelf -S "$1" | grep -q '\.debug_aranges' && fail "$1 has a .debug_aranges section"
	perf record -q --call-graph dwarf -F 499 -o "$1.data" -- "./$1" "$2" >/dev/null 2>perr ||
		fail "perf record $1 failed: $(head -2 perr)"
	real_compare "$1.data"
	real_srcline "$1.data"
	grep -q ' helper+0x[0-9a-f]* (inlined)$' "$1.script.perf" || fail "$1: perf shows no inlined helper()"
	grep -q '^[0-9.]*% [0-9]* noaranges\.c:[0-9]* ' "$1.srcline.lp" || fail "$1: no noaranges.c line in top --sort=srcline"
}
cc -O2 -g -o gcc-noaranges "$src" || fail "cannot build noaranges.c"
objcopy --remove-section .debug_aranges gcc-noaranges
check gcc-noaranges 2500
if command -v clang >/dev/null; then
	clang -O2 -g -o clang-noaranges "$src" || fail "clang cannot build noaranges.c"
	check clang-noaranges 20000
else
	echo "clang is not installed (Debian's clang): only gcc's output without .debug_aranges checked"
fi
real_verdict
