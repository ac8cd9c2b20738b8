# --call-graph dwarf: a chain main -> chain_a -> chain_b -> chain_c ->
# chain_leaf built -O2 -fomit-frame-pointer unwinds whole (at least 95% of
# the leaf's samples: a sample may land where the CFI of a prologue is
# mid-update, or in the kernel with a cut user stack), where frame pointers
# (-g) do not (under half); a qsort callback unwinds through libc's frames
# to main.  Recordings: luaprof's dwarf recording reads back in perf script
# with the stacks luaprof finds (sample for sample), and perf's own dwarf
# recording replays with perf's stacks.
. "$(dirname "$0")/lib.sh"
need_perf_events
cd "$TMP"
cc -O2 -fomit-frame-pointer -o chain "$ROOT/tests/progs/chain.c" || fail "cannot build chain"
CHAIN="main;chain_a;chain_b;chain_c;chain_leaf"
# check_chains OUT MIN%: OUT's "leaf N whole M" has N >= 100 and M >= MIN% of N
check_chains() {
	read -r _ n _ m < "$1"
	[ "${n:-0}" -ge 100 ] || fail "$2: only ${n:-0} samples in the leaf"
	[ $((m * 100)) -ge $((n * $3)) ] || fail "$2: $m of $n leaf samples unwound whole (want $3%)"
	echo "$2: $m of $n leaf samples unwound whole"
}
dwarf() {
	expect_status 0 "$LUAPROF" run "$CHECKS/chains.lua" -A chain_leaf -A "$CHAIN" --call-graph dwarf -F 999 -- ./chain 400
	check_chains "$TMP/out" "dwarf" 95
}
frame_pointers() {
	"$LUAPROF" run "$CHECKS/chains.lua" -A chain_leaf -A "$CHAIN" -g -F 999 -- ./chain 400 > fp.out 2>/dev/null || fail "-g run failed"
	read -r _ n _ m < fp.out
	[ $((m * 2)) -lt "$n" ] || fail "-g unwound $m of $n leaf samples whole: the workload keeps frame pointers?"
}
# a callback called by libc's qsort: through libc's frames to main
qsort_callback() {
	expect_status 0 "$LUAPROF" run "$CHECKS/chains.lua" -A chain_leaf -A "main;sort_rounds;*;cmp_slow;chain_leaf" \
		--call-graph dwarf -F 999 -- ./chain qsort 12
	check_chains "$TMP/out" "qsort" 95
}
# luaprof's recording, read back by perf script and by luaprof
need_perf() { command -v perf >/dev/null || skip "perf is not installed: recordings not compared"; }
# same_stacks FILE: per sample, perf script's stack (no inlined frames)
# equals luaprof's replay of FILE; all but 1% of samples
same_stacks() {
	perf script -i "$1" --no-inline -F ip,sym 2>/dev/null | awk '
		NF == 0 { if (n) print s; s = ""; n = 0; next }
		{ s = s (n ? ";" : "") $2; n++ } END { if (n) print s }' > theirs
	"$LUAPROF" run "$CHECKS/stacks.lua" -i "$1" > ours 2>err || { cat err; fail "luaprof -i $1 failed"; }
	[ "$(wc -l < theirs)" = "$(wc -l < ours)" ] || fail "$1: perf script shows $(wc -l < theirs) samples, luaprof $(wc -l < ours)"
	local total diff
	total=$(wc -l < ours)
	diff=$(paste -d '\n' theirs ours | paste - - -d '|' | awk -F'|' '$1 != $2' | tee diffs | wc -l)
	[ "$total" -ge 100 ] || fail "$1: only $total samples"
	[ $((diff * 100)) -le "$total" ] || { head -3 diffs | tr '|' '\n'; fail "$1: $diff of $total stacks differ from perf script's"; }
	echo "$1: $((total - diff)) of $total stacks as perf script's"
}
lp_recording() {
	need_perf
	"$LUAPROF" record --call-graph dwarf -F 999 -o lp.data -- ./chain qsort 6 >/dev/null 2>&1 || fail "luaprof record --call-graph dwarf failed"
	same_stacks lp.data
	grep -q 'chain_leaf;cmp_slow;msort_with_tmp' ours || fail "lp.data: no stack through qsort"
}
# perf's recording: its stacks, then (from what same_stacks left) the
# children counts
perf_recording() {
	need_perf
	perf record -q --call-graph dwarf -F 999 -o perf.data -- ./chain qsort 6 >/dev/null 2>&1 || fail "perf record --call-graph dwarf failed"
	same_stacks perf.data
	ndiff=$(wc -l < diffs)
	# perf report's children (inclusive) counts per function, from its
	# percentages, equal those of luaprof's stacks (each function once per
	# sample) on perf's recording, but for the few stacks same_stacks let
	# differ: each count may be off by at most their number (a sample in
	# ld.so's start-up may be unwound by perf through __libc_early_init and
	# dl_main and not by luaprof). perf's --sort sym
	# keeps same-named symbols of different objects apart (the program's
	# _start and ld.so's), so its rows are summed by name here, as luaprof's
	# stacks are counted.
	perf report -i perf.data --stdio --children --no-inline --sort sym -g none 2>/dev/null |
		awk '/^# Samples:/ {n = $3} $1 ~ /%$/ {c = $1; sub(/%/, "", c); name = $4
			for (i = 5; i <= NF; i++) name = name " " $i
			sum[name] += int(c * n / 100 + 0.5)}
			END {for (k in sum) printf "%d %s\n", sum[k], k}' | sort > children.perf
	awk -F';' '{delete seen; for (i = 1; i <= NF; i++) if (!seen[$i]++) c[$i]++}
		END {for (k in c) if (k != "[unknown]") print c[k], k}' ours | sort > children.ours
	awk -v d="$ndiff" '{n = $1; sub(/^[0-9]+ /, "")} FNR == NR {p[$0] = n; next} {o[$0] = n}
		END {for (k in p) if (p[k] - o[k] > d || o[k] - p[k] > d) {print k, p[k], o[k]; bad = 1}
		     for (k in o) if (!(k in p) && o[k] > d) {print k, 0, o[k]; bad = 1}
		     exit bad}' children.perf children.ours > children.diff ||
		{ head children.diff; fail "children counts differ from perf report --children by more than the $ndiff differing stacks"; }
	grep -q ' sort_rounds$' children.ours || fail "no sort_rounds in the children table"
}

scenario "dwarf: the chain whole" dwarf
scenario "-g: the chain cut" frame_pointers
scenario "dwarf: through qsort" qsort_callback
scenario "luaprof's recording: perf script's stacks" lp_recording
scenario "perf's recording: its stacks, children" perf_recording
scenarios_done
