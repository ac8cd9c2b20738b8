# A script slower than the samples come (two busy threads at 20 kHz, ~0.5
# ms of Lua per sample, 4-page rings; the script keeps up with no more
# than the threads' CPU share on a loaded machine), with the queue between
# the rings and the script bounded at 256 KiB (--queue-size=256K; slow_script.sh
# has the unbounded case): samples queue up to the bound, not further; the
# kernel drops what does not fit, and
# luaprof counts the drops exactly: info.lost, the stderr line and the
# LOST records in the recording of the same run (perf report -D) agree,
# every sample the recording holds went to on_sample, and the samples and
# the lost ones add up to what the kernel took.  Peak RSS stays
# flat whether the overload lasts 0.6 or 2.4 s of the workload's CPU.
# test: alone
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to read the recording with"
cd "$TMP"
cc -O2 -o runstat "$ROOT/tests/bench/runstat.c" || fail "cannot build runstat"

# overload MS: a run of deep16 MS (two threads of MS ms of CPU each);
# leaves its peak RSS (KiB) in rss.MS.
# The rate is a fixed period (50 us of each thread's CPU), not -F: one
# quiet run's frequency mode gave 927 samples instead of about 12000, and
# a run that is not overloaded shows nothing.  Such a run is made again
# (three tries) rather than failed: the drops, when there are some, are
# what is checked.
overload() {
	local try
	for try in 1 2 3; do
		LUAPROF_KEEP_STDOUT=1 ./runstat stat.$1 "$LUAPROF" run "$CHECKS/slow.lua" -e cpu-clock \
			-c 50000 -m 4 --queue-size=256K -o rec.$1.data -- "$PROGS/deep16" "$1" > out.$1 2> err.$1
		read -r code cpu rss < stat.$1
		[ "$code" = 0 ] || { cat err.$1; fail "luaprof exited $code"; }
		read -r _ samples lost < out.$1
		[ "${lost:-0}" -gt 0 ] && break
		echo "$1 ms, try $try: nothing was lost (samples $samples): again"
	done
	[ "${lost:-0}" -gt 0 ] || fail "$1 ms: nothing was lost in 3 tries: the script kept up (samples $samples)"
	grep -q "^luaprof: the kernel lost $lost samples (ring full)" err.$1 ||
		{ cat err.$1; fail "$1 ms: stderr does not report the $lost lost samples"; }
	perf report -i rec.$1.data --stats > stats.$1 2>/dev/null || fail "perf cannot read rec.$1.data"
	local plost psamples
	plost=$(perf report -D -i rec.$1.data 2>/dev/null |
		awk '/PERF_RECORD_LOST:/ {sub(/.*lost:/, ""); n += $1} END {print n + 0}')
	psamples=$(awk '/SAMPLE events:/ {print $3; exit}' stats.$1)
	[ "$plost" = "$lost" ] || fail "$1 ms: luaprof counts $lost lost samples, its recording $plost"
	[ "$psamples" = "$samples" ] || fail "$1 ms: on_sample saw $samples samples, the recording holds $psamples"
	# every sample the kernel took is either delivered or counted lost:
	# two threads, one every 50 us of their CPU, 40 per ms, as many as
	# perf record's yield (above) allows.  A ring still full at the end reports
	# no LOST record: its losses come from the events' own counts
	# (PERF_FORMAT_LOST); without them an ASan run gave 1640 + 0.
	local total=$((samples + lost)) want=$((40 * $1))
	if grep -q 'LOST' <("$LUAPROF" list --attr cpu-clock 2>/dev/null); then
		[ "$total" -ge $((want * yield / 100 * 85 / 100)) ] && [ "$total" -le $((want * 115 / 100)) ] ||
			fail "$1 ms: $samples samples and $lost lost, $total of about $want (perf record's yield: $yield%)"
	else
		echo "this kernel counts no lost samples per event (before Linux 6.0): the total is not checked"
	fi
	echo "$1 ms: $samples samples, $lost lost, peak RSS $rss KiB"
	echo "$rss" > rss.$1
}
# The machine's own yield: how many of the 40 per ms perf record's samples
# of the same workload come to when nothing overloads (a timer that fires
# late skips the periods it missed, which no count reports: on some VMs
# that is a few percent, more under load).  The bound below scales by it.
perf record -q -e cpu-clock -c 50000 -o calib.data -- "$PROGS/deep16" 300 >/dev/null 2>&1 ||
	fail "perf record of deep16 failed"
calib=$(perf report -i calib.data --stats 2>/dev/null | awk '/SAMPLE events:/ {print $3; exit}')
[ "${calib:-0}" -gt 0 ] || fail "perf record took no samples of deep16"
yield=$((calib * 100 / 12000))
[ "$yield" -gt 100 ] && yield=100
echo "perf record: $calib samples of about 12000 in 300 ms ($yield%)"

overload 300
overload 1200
short=$(cat rss.300) long=$(cat rss.1200)
[ "$long" -le $((short + short / 10 + 4096)) ] ||
	fail "peak RSS grows with the overload: $short KiB over 300 ms, $long KiB over 1200 ms"
