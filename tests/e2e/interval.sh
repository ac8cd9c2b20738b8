# on_interval: a live run (-o keeps its recording) and the replay of that
# recording print the same per-interval report, empty intervals (the
# workload sleeping) included; -I overrides the script's interval; an
# interval without on_interval is refused.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
cd "$TMP"
# faults 6: six rounds of page faults; sleepy: 100 ms busy, 250 ms asleep, twice, then 100 ms busy.
cat > sleepy.c <<'C'
#include <time.h>
#include <unistd.h>
static long ns(void) { struct timespec t; clock_gettime(CLOCK_MONOTONIC, &t); return t.tv_sec * 1000000000L + t.tv_nsec; }
int main(void) { for (int k = 0; k < 3; k++) { long a = ns(); while (ns() - a < 100000000L) ; if (k < 2) usleep(250000); } return 0; }
C
cc -O1 -o sleepy sleepy.c || fail "cannot build the workload"
# The live run (its report and its recording, which the cases read).
expect_status 0 "$LUAPROF" run "$CHECKS/interval.lua" -F 999 -o live.data -- ./sleepy
cp "$TMP/out" live.txt

# The replay prints the same intervals.
replay() {
	expect_status 0 "$LUAPROF" run "$CHECKS/interval.lua" -i live.data
	diff -u live.txt "$TMP/out" > diff.txt || { cat diff.txt; fail "the replay's intervals differ from the live run's"; }
}

# Every interval of 50 ms, the empty ones too, adding up to the total.
live() {
	n=$(grep -c ' ms +' live.txt)
	[ "$n" -ge 15 ] || fail "only $n intervals of 50 ms in a run of about 0.8 s"
	grep -q ' 0 samples' live.txt || fail "no empty interval while the workload slept"
	awk '/ ms \+/ {s += $5} /^total/ {t = $2} END {exit s == t ? 0 : 1}' live.txt ||
		fail "the intervals' samples do not add up to the total"
}

# The last call: with -I 650 the one boundary the run passes is 650 ms
# after the first record (the next, at 1.3 s, is far past the run's 0.8 s),
# and the workload's last 100 ms of work start 700 ms after it, so samples
# follow the last boundary however loaded the machine is.  (At 50 ms the
# run ends near a boundary: whether samples follow it is luck.)
last_call() {
	expect_status 0 "$LUAPROF" run "$CHECKS/interval.lua" -I 650 -i live.data
	grep -qE ' [1-9][0-9]* samples \(last\)' "$TMP/out" ||
		{ cat "$TMP/out"; fail "no last call for the samples after the last boundary"; }
}

# -I replaces the script's interval.
override() {
	expect_status 0 "$LUAPROF" run "$CHECKS/interval.lua" -I 200 -i live.data
	m=$(grep -c ' ms +' "$TMP/out")
	[ "$m" -ge 4 ] && [ "$m" -le 6 ] || fail "-I 200 over about 0.8 s gave $m intervals"
}

# An interval without on_interval is refused.
no_on_interval() {
	printf 'luaprof.setup{ interval = 10 }\n' > noint.lua
	expect_status 255 "$LUAPROF" run ./noint.lua -- true
	expect_grep "has no on_interval function" "$TMP/err"
}

scenario "the replay's intervals are the live run's" replay
scenario "every interval, empty ones too, adding up" live
scenario "the last call" last_call
scenario "-I replaces the script's interval" override
scenario "an interval without on_interval" no_on_interval
scenarios_done
