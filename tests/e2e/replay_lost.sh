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
# One ring page per CPU with deep stacks, and perf record stopped (SIGSTOP)
# for 0.3 s while its workload runs: the ring overflows however fast the
# machine is.
command perf record -q -m 1 -F 4000 -g -o overflow.data -- "$PROGS/deep16" 900 2>/dev/null & perf=$!
trap 'kill -CONT $perf 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 400); do         # until the workload runs, sampled (perf enables at its exec)
	kid=$(pgrep -P $perf -x deep16) && break
	sleep 0.05
done
[ -n "$kid" ] || fail "perf record never started deep16"
kill -STOP $perf
sleep 0.3
kill -CONT $perf
wait $perf || fail "perf record failed"
want=$(perf_lost overflow.data)
[ "${want:-0}" -gt 0 ] || fail "a one-page ring left unread did not overflow: no lost samples to count"
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
