# wallclock on duty (4 times: 40 ms of CPU in compute(), then a 360 ms
# nanosleep), live, with -p, with -a and on its own recording; duty writes
# what it measured of itself (its STATS file): the time spent in compute()
# by the monotonic clock, and its CPU time.  For the duty row:
# - the time on the CPU (cpu-clock samples' periods) is at least duty's
#   CPU time, and at most the time compute() took by the clock plus 20 ms
#   for the rest of the program's life (luaprof's child from fork to exec,
#   the exec, ld.so, the steps to each nanosleep), within 5% either way:
#   a thread sharing its CPU is on it for many short slices, and samples
#   them by the timer's ticks.
#   Less 4 ms (a tick at HZ=250) for each time the kernel throttled the
#   event (luaprof's stderr says how often) and for each switch back in
#   that sched_switch left out (below): a throttled timer stays stopped
#   until its CPU's next tick, and the idle CPU that records no switch
#   from its idle task samples none of its idle time either, so duty,
#   woken there, goes unsampled up to that CPU's next tick;
#   cpu-clock counts the time the host takes the vCPU away (steal) and
#   thread CPU time does not (CONFIG_PARAVIRT_TIME_ACCOUNTING=y), so on a
#   virtual machine the time on the CPU can exceed the thread's CPU time;
# - the time asleep is at least the 4 x 360 ms (nanosleep never ends
#   early; 6 ms allowed for the wall time's rounding to 10 ms), and at most
#   25 ms late per sleep (a wake-up waits for a CPU on a loaded machine:
#   a full run with three tests at a time saw 5 sleeps 89 ms late in all,
#   duty 7% of its time runnable; a burst counted as asleep would also
#   take 40 ms from the time on the CPU, which its own bound checks),
#   plus 5 ms for each switch back in sched_switch left out (the script
#   says how many, of every thread with -a: at most duty's n + 1 wake-ups
#   count, here and above): that wait ends at the kernel's switch record, or
#   without one at duty's first cpu-clock sample after it, a 0.25 ms
#   period later, or a 4 ms tick (HZ=250) if the kernel had throttled the
#   event.  A kernel may record no sched_switch from a CPU's idle task
#   (for perf as much as for luaprof), so on a quiet machine every wake-up
#   there is missed (up to the 4 sleeps and the start); a wait ending only
#   at the next switch out, after the next 40 ms burst, would count that
#   burst as asleep;
# - the row's shares add up to 100% (0.05 for rounding); wall >= 1.6 s;
# - the replay of the run's recording prints the same duty row;
# - with -a, each CPU has samples (cpu-clock samples every CPU, busy or
#   idle), at most 130% of 4000/s x wall; at least one, not about 100%:
#   on a virtual machine a CPU kept busy by another process can get far
#   fewer of its timer's periods.
# Then the contrast docs/commands.md states with these numbers: one busy
# thread's own (per-process) cpu-clock samples are nearly all in its busy
# function (>= 75%: the rest is the kernel's interrupts, about a fifth of
# them on a loaded machine, as record_attach notes), while system-wide it
# gets as many samples (within 15%) among every other CPU's.
. "$(dirname "$0")/lib.sh"
need_perf_events
need_tracefs
[ "$(id -u)" = 0 ] || skip "system-wide tracepoints need root"
cd "$TMP"
# copies under names of their own: other tests, running at the same time,
# run these programs too, and -a sees every process
C=duty$$ S=spin$$
cp "$PROGS/duty" "$C"
cp "$PROGS/spin" "$S"
# check_row FILE N STATS: the duty row of a run of N cycles (see the top),
# with duty's own figures in STATS; prints the row's figures.
check_row() {
	local missed throttled
	missed=$(sed -n 's/^# \([0-9]*\) switch\(es\)\{0,1\} back in had no sched_switch.*/\1/p' "$1")
	throttled=$(awk '/^luaprof: the kernel throttled sampling [0-9]+ time/ {n += $6} END {print n + 0}' "$TMP/err")
	awk -v c="$C" -v n="$2" -v st="$(cat "$3")" -v missed="${missed:-0}" -v thr="$throttled" '$1 == c {
		split(st, d, " "); mono = d[1] / 1e6; cpu = d[2] / 1e6
		wall = $5 == "s" ? $4 * 1000 : $4
		for (i = 6; i <= 10; i++) sub(/%$/, "", $i)
		on = $6 * wall / 100; asleep = $7 * wall / 100; sum = $6 + $7 + $8 + $9 + $10
		# duty wakes n + 1 times (its start, then each sleep): each wake-up
		# is missed or throttled at most once (-a counts every thread missed)
		late = thr + missed < n + 1 ? thr + missed : n + 1; dm = missed < n + 1 ? missed : n + 1
		lo_on = 0.95 * cpu - 1 - 4 * late; hi_on = 1.05 * (mono + 20); lo_sl = n * 360 - 6; hi_sl = n * 385 + 6 + dm * 5
		# on is read from the rounded figures of the row (WALL to 10 ms in
		# seconds, the shares to 0.01%): as far off as they may be
		rnd = ($5 == "s" ? 5 : 0.5) * $6 / 100 + 0.005 * wall / 100
		lo_on -= rnd; hi_on += rnd
		printf "%s: on %.1f ms (%.1f-%.1f; duty: %.1f ms in compute(), %.1f ms of CPU; %d throttled, %d switches in missed), asleep %.1f ms (%d-%d), runnable %.2f%%, sum %.2f%%\n",
			FILENAME, on, lo_on, hi_on, mono, cpu, thr, missed, asleep, lo_sl, hi_sl, $9, sum
		ok = on >= lo_on && on <= hi_on && asleep >= lo_sl && asleep <= hi_sl && sum >= 99.95 && sum <= 100.05
		found = 1}
		END {exit !(found && ok)}' "$1" || { cat "$1" "$TMP/err"; fail "$1: the duty row is wrong"; }
}
# live, with the recording the replay reads
live() {
	expect_whole 0 "$LUAPROF" run wallclock -o wall.data -- ./"$C" 4 40 360 live.stats
	cp "$TMP/out" live.txt
	check_row live.txt 4 live.stats
	awk -v c="$C" '$1 == c && $5 == "s" && $4 >= 1.6 {f = 1} END {exit !f}' live.txt || fail "wall time below 1.6 s"
}
replay() {
	[ -s wall.data ] && [ -s live.txt ] || fail "no wall.data: the live case did not record it"
	expect_status 0 "$LUAPROF" run wallclock --limit=1000 -i wall.data
	diff <(grep "^$C " live.txt | tr -s " ") <(grep "^$C " "$TMP/out" | tr -s " ") || fail "the replay prints another duty row"
}
# -p: duty held at a gate until luaprof has attached (lib.sh's gated), so
# all of its life is seen
attached() {
	gated ./"$C" 5 40 360 attach.stats
	attach_gated 0 "$LUAPROF" run wallclock
	cp "$TMP/out" attach.txt
	check_row attach.txt 5 attach.stats
}
system_wide() {
	expect_whole 0 "$LUAPROF" run wallclock -a --limit=1000 -- ./"$C" 4 40 360 all.stats
	cp "$TMP/out" all.txt
	check_row all.txt 4 all.stats
	wall=$(awk -v c="$C" '$1 == c {print ($5 == "s" ? $4 : $4 / 1000)}' all.txt)
	ncpu=$(awk '/^# cpu-clock samples per CPU/ {t = 1; next} t && $1 ~ /^[0-9]+$/ {n++} END {print n}' all.txt)
	[ "$ncpu" = "$(nproc)" ] || fail "-a: $ncpu CPUs in the table, $(nproc) online"
	awk -v w="$wall" '/^# cpu-clock samples per CPU/ {t = 1; next} t && $1 ~ /^[0-9]+$/ {
		if ($2 < 1 || $2 > 1.3 * 4000 * w) bad = 1; print "cpu", $1, $2, "samples, idle", $3}
		END {exit bad}' all.txt || fail "-a: a CPU without samples, or with more than 4000/s x ${wall} s x 1.3"
}

# The contrast: per-process versus system-wide cpu-clock on one busy thread.
# Per-process, its samples are nearly all in spin_iters; system-wide it gets
# as many samples as per-process (cpu-clock samples it where it runs,
# 300 ms of CPU either way: within 15%), and the rest of the samples are
# other CPUs' work and idle time.  How much of the idle time is sampled
# varies (a vCPU in NOHZ idle misses its timer's periods, perf record -a
# as much), so the busy thread's share is not asserted.
contrast() {
	expect_status 0 "$LUAPROF" run top --limit=3 -- ./"$S" 300
	own=$(awk '$NF == "spin_iters" {sub(/%/, "", $1); print $1}' "$TMP/out")
	own_n=$(sed -n 's/^# \([0-9]*\) samples of event.*/\1/p' "$TMP/out")
	expect_status 0 "$LUAPROF" run top --sort=comm --limit=1000 -a -- ./"$S" 300
	sys=$(awk -v s="$S" '$NF == s {sub(/%/, "", $1); print $1}' "$TMP/out")
	sys_n=$(awk -v s="$S" '$NF == s {print $2}' "$TMP/out")
	idle=$(awk '$NF == "swapper" {sub(/%/, "", $1); print $1}' "$TMP/out")
	echo "per-process: spin_iters ${own}% of the busy thread's ${own_n} samples; system-wide: spin ${sys}% (${sys_n} samples), idle ${idle:-0}% of all samples ($(nproc) CPUs)"
	awk -v o="$own" -v a="$own_n" -v b="$sys_n" 'BEGIN {exit !(o >= 75 && a > 0 && b >= 0.85 * a && b <= 1.15 * a)}' ||
		fail "per-process spin_iters ${own}% (>= 75 expected); the busy thread's samples: ${own_n} per-process, ${sys_n} system-wide (within 15% expected)"
}

scenario "live" live
scenario "its recording: the same row" replay
scenario "-p, gated" attached
scenario "-a" system_wide
scenario "per-process against system-wide" contrast
scenarios_done
