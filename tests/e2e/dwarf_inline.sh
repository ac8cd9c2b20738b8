# Inlined frames and callers' addresses on --call-graph dwarf recordings,
# against perf on perf's own recordings of two -O2 -g programs: sorter (C++
# std::sort: its functions inlined into two out-of-line ones; and glibc's
# atol inlined into main, which addr2line names "main" at first) and copier
# (C: a function forced inline, libc's memcpy and memmove, malloc):
# - `script` prints perf script's text byte for byte, callers at their
#   return address - 1 and the functions inlined at each user frame as
#   "(inlined)" lines, but where perf's libunwind ended a stack with a
#   frame ffffffffffffffff [unknown] ([unknown]) (it read a return address
#   as 0): there perf's other frames begin luaprof's stack, which may go on
#   (docs/perf-differences.md);
# - `top --children` has perf report --children's rows, the inlined
#   functions' included, with their sample counts (from the percentages),
#   rows of one name summed (perf may split one function's row in two) and
#   the functions perf renames (a symbol named by DWARF's other name,
#   "(inlined)", where nothing is inlined) left out on both sides
#   (docs/perf-differences.md); C++ rows named as perf names them;
# - `folded` (copier, C) gives the stacks of perf script's text with its
#   renamed functions named by their symbols again.
# Where libunwind ended K stacks early as above, each count of top and
# folded may differ from perf's by K (K is 0 in most runs; at most 10).
# With frame pointers (-g) perf adds no inlined frames, and neither does
# luaprof: the same comparisons on -g recordings of both.
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to compare with"
command -v g++ >/dev/null || skip "g++ is not installed: no C++ workload"
cd "$TMP"
PS=$ROOT/tests/e2e/perfstacks.py

# record NAME CALLGRAPH PROG ARGS: NAME.data by perf record, its text with
# and without inlined frames, perf's alias names (NAME.names), its text
# with them undone (NAME.norm) and how many of its stacks libunwind ended
# with a frame at 0 (BOGUS)
record() {
	local name=$1 cg=$2
	shift 2
	perf record -q --call-graph "$cg" -F 999 -o "$name.data" -- "$@" >/dev/null 2>&1 ||
		fail "perf record --call-graph $cg $* failed"
	perf script -i "$name.data" > "$name.perf" 2>/dev/null || fail "perf script -i $name.data failed"
	perf script -i "$name.data" --no-inline > "$name.plain" 2>/dev/null || fail "perf script --no-inline failed"
	BOGUS=$(python3 "$PS" norm "$name.perf" "$name.plain" "$name.norm" "$name.names") ||
		fail "$name: perf's text unreadable"
	[ "$BOGUS" -le 10 ] || fail "$name: $BOGUS stacks end with libunwind's frame at 0 (at most 10 expected)"
}
# same_script NAME: luaprof's text is perf's, byte for byte
same_script() {
	"$LUAPROF" run script -i "$1.data" > "$1.ours" 2>err || { cat err; fail "script -i $1.data failed"; }
	python3 "$PS" script "$1.perf" "$1.ours" > "$1.diff" || { head -40 "$1.diff"; fail "$1: script differs from perf script"; }
	echo "$1: script as perf script ($(grep -c '^$' "$1.ours") samples, $(grep -c '(inlined)$' "$1.ours") inlined frames, $BOGUS ended by libunwind)"
}
# same_children NAME: top --children's rows are perf report --children's
same_children() {
	perf report -i "$1.data" --children --stdio -n --sort sym -g none > "$1.report" 2>/dev/null ||
		fail "perf report -i $1.data failed"
	"$LUAPROF" run top --children --limit=100000 -i "$1.data" > "$1.top" 2>err || { cat err; fail "top -i $1.data failed"; }
	"$LUAPROF" run "$CHECKS/perfnames.lua" -i "$1.data" > "$1.rename" 2>err || { cat err; fail "perfnames.lua failed"; }
	python3 "$PS" children "$1.report" "$1.names" > "$1.rows.perf"
	python3 "$PS" children "$1.top" "$1.names" "$1.rename" > "$1.rows.ours"
	[ "$(wc -l < "$1.rows.perf")" -ge 5 ] || fail "$1: perf report gave fewer than 5 rows"
	python3 "$PS" near "$1.rows.perf" "$1.rows.ours" "$BOGUS" > "$1.rows.diff" ||
		{ head "$1.rows.diff"; fail "$1: top --children differs from perf report --children"; }
	echo "$1: top --children as perf report --children ($(wc -l < "$1.rows.ours") rows, $(grep -c '(inlined)$' "$1.rows.ours") inlined)"
}
# same_folded NAME: folded's stacks are perf script's
same_folded() {
	python3 "$PS" fold "$1.norm" > "$1.folded.perf"
	"$LUAPROF" run folded -i "$1.data" 2>err | sort > "$1.folded.ours" || { cat err; fail "folded -i $1.data failed"; }
	python3 "$PS" near "$1.folded.perf" "$1.folded.ours" "$BOGUS" > "$1.folded.diff" ||
		{ head "$1.folded.diff"; fail "$1: folded differs from perf script's stacks"; }
	echo "$1: folded as perf script's stacks ($(wc -l < "$1.folded.ours") distinct)"
}

# sorter (C++), --call-graph dwarf
sorter() {
	g++ -O2 -g -o sorter "$ROOT/tests/progs/other/sorter.cc" || fail "cannot build sorter.cc"
	record sorter dwarf ./sorter 20
	grep -q ' std::__sort<.*(inlined)$' sorter.perf || fail "sorter: perf shows no inlined std::__sort"
	same_script sorter
	# glibc's atol inlined into main has no linkage name in a C++ unit: addr2line,
	# and so perf, name it after its symbol, main (a second main frame), the
	# first time they meet it, atol after: the workload must show one or the other
	n=$(awk '(prev == $0 && / main\+0x/) || / atol\+0x[0-9a-f]+ \(inlined\)$/ {n++} {prev = $0} END {print n + 0}' sorter.perf)
	[ "$n" -ge 5 ] || fail "sorter: perf shows atol inlined into main in only $n frames"
	same_children sorter
	grep -q '^[0-9]* 0 std::__sort<.*> (inlined)$' sorter.rows.ours || fail "sorter: no std::__sort (inlined) row"
}

# copier (C), --call-graph dwarf
copier() {
	cc -O2 -g -o copier "$ROOT/tests/progs/other/copier.c" || fail "cannot build copier.c"
	record copier dwarf ./copier 3000
	grep -q ' fill+0x[0-9a-f]* (inlined)$' copier.perf || fail "copier: perf shows no inlined fill"
	same_script copier
	same_children copier
	same_folded copier
	grep -q ';churn;fill_\[i\] ' copier.folded.ours || fail "copier: no stack ending churn;fill_[i]"
}

# frame pointers: no inlined frames
sorter_fp() {
	g++ -O2 -g -fno-omit-frame-pointer -o sorter-fp "$ROOT/tests/progs/other/sorter.cc" || fail "cannot build sorter.cc"
	record sorter-fp fp ./sorter-fp 20
	! grep -q '(inlined)$' sorter-fp.perf || fail "perf shows inlined frames on a frame-pointer recording"
	same_script sorter-fp
	same_children sorter-fp
}

copier_fp() {
	cc -O2 -g -fno-omit-frame-pointer -o copier-fp "$ROOT/tests/progs/other/copier.c" || fail "cannot build copier.c"
	record copier-fp fp ./copier-fp 3000
	same_script copier-fp
	same_folded copier-fp
	! grep -q ';fill[; ]' copier-fp.folded.ours || fail "copier-fp: an inlined fill in the folded stacks"
}

scenario "sorter, dwarf" sorter
scenario "copier, dwarf" copier
scenario "sorter, frame pointers" sorter_fp
scenario "copier, frame pointers" copier_fp
scenarios_done
