# The lost-sample count a replay gives on_end equals perf report's "Total
# Lost Samples": on a recording whose ring overflowed (LOST records, and
# the end-of-run LOST_SAMPLES that perf record adds, which count the same
# losses again and must not be added), and on the corpus files whose kernel
# wrote LOST_SAMPLES records of its own.
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to compare the counts with"
cd "$TMP"
perf_lost() {
	perf report -i "$1" --stdio --sort pid 2>/dev/null | awk '/Total Lost Samples:/ {print $NF; exit}'
}
files=()
# One ring page per CPU at a high rate with deep stacks: the ring overflows.
perf record -q -m 1 -F 20000 -g -o overflow.data -- "$PROGS/deep16" 600 2>/dev/null ||
	fail "perf record failed"
want=$(perf_lost overflow.data)
[ "${want:-0}" -gt 0 ] || skip "the one-page ring did not overflow on this machine: no lost samples to count"
files+=(overflow.data)
corpus=$(perfdata_corpus)
for f in perf.data.lost_samples-4.4 perf.data.piped.lost_samples-4.4; do
	[ -f "$corpus/$f" ] && files+=("$corpus/$f")
done
for f in "${files[@]}"; do
	want=$(perf_lost "$f")
	got=$("$LUAPROF" run "$CHECKS/lost.lua" -i "$f" 2>/dev/null)
	[ "$got" = "$want" ] || fail "$(basename "$f"): luaprof counts $got lost samples, perf report $want"
done
echo "lost samples agree with perf report on ${#files[@]} files"
