# Recordings of processes that existed before the run (-p, -a) carry the
# COMM (per thread) and MMAP2 records perf record synthesizes for them, at
# time 0, so perf script names their threads and functions; perf report's
# per-function counts equal luaprof's replay of the file exactly; perf
# warns about nothing; the replay names every sample as the live run did.
# Their build-id tables list, as perf record's do, only the objects samples
# landed in: not a library the process loaded but never ran while
# recorded (dlopen ... idle).
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to read the recordings with"
cd "$TMP"

# perf_agrees FILE [PID]: perf script and perf report read FILE without a
# word on stderr, and perf report's counts per function (of PID's samples:
# sorted by pid too, as perf report --pid with --sort sym alone would count
# every process's samples of a function that PID has) equal luaprof's,
# PLT stubs and the unnamed samples included: with the build-id cache
# luaprof record fills (HOME is a fresh directory here), perf names [vdso]
# samples as luaprof does.
perf_agrees() {
	local f=$1 pid=${2:-}
	perf script -i "$f" -F comm,pid,tid,ip,sym,dso > script.txt 2> perf.err ||
		fail "perf script cannot read $f: $(head -3 perf.err)"
	[ ! -s perf.err ] || fail "perf script warns on $f: $(head -3 perf.err)"
	if [ -n "$pid" ]; then
		perf report -i "$f" --stdio --no-children --sort pid,sym -F sample,pid,sym -q -g none 2> perf.err |
			awk -v p="$pid:" 'index($2, p) == 1 {$2 = ""; print}' > rows
	else
		perf report -i "$f" --stdio --no-children --sort sym -F sample,sym -q -g none 2> perf.err > rows
	fi
	[ ! -s perf.err ] || fail "perf report warns on $f: $(head -3 perf.err)"
	perf_rows < rows > theirs
	"$LUAPROF" run "$CHECKS/symcount.lua" ${pid:+-A "$pid"} -i "$f" > all 2> err ||
		{ cat err; fail "luaprof -i $f failed"; }
	our_rows < all > ours
	diff theirs ours > diff.txt || { head -20 diff.txt; fail "perf report and luaprof disagree on $f"; }
	[ -s ours ] || fail "no named samples in $f"
}

# named_by_perf PID COMM... : at least 90% of PID's user-mode samples in
# script.txt name a function of the workload's binary, and each COMM names
# a thread.  (The rest may be libc or the vDSO; kernel samples are left out,
# as a good share of a busy process's can land in the kernel's timer
# interrupt when the machine is loaded.  Without the synthesized records
# no user sample would be named and every comm would read ":TID".)
named_by_perf() {
	local pid=$1 bin=$2; shift 2
	awk -v pid="$pid" -v bin="($bin)" '
		{ split($2, pt, "/") } pt[1] != pid || $NF == "([kernel.kallsyms])" { next }
		{ n++ } $NF == bin && $(NF - 1) != "[unknown]" { named++ }
		END { printf "%d %d\n", n, named }' script.txt > counts
	read -r total named < counts
	[ "$total" -ge 50 ] || fail "only $total user samples of pid $pid in the recording"
	[ $((named * 100)) -ge $((total * 90)) ] ||
		{ awk -v pid="$pid" '{ split($2, pt, "/") } pt[1] == pid' script.txt | head -5; fail "perf names $named of $total samples of pid $pid in $bin (90% wanted)"; }
	for comm in "$@"; do
		awk -v pid="$pid" -v c="$comm" '$1 == c && index($2, pid "/") == 1 {ok = 1} END {exit !ok}' script.txt ||
			fail "perf script shows no thread of pid $pid named $comm"
	done
}

# -p: a process with two named threads, attached for half a second, by
# the two cases below.
"$PROGS/twothreads" 4000 & pid=$!
trap 'kill $pid 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 50); do      # until both workers have their names
	grep -qx worker-2 /proc/$pid/task/*/comm 2>/dev/null && break
	sleep 0.05
done
attached() {
	expect_status 0 "$LUAPROF" record -F 2000 -p $pid -o attach.data --duration 0.5
	perf_agrees attach.data
	named_by_perf $pid "$PROGS/twothreads" worker-1 worker-2
}
# the live run and the replay of its recording name every sample alike
live_replay() {
	expect_status 0 "$LUAPROF" run "$CHECKS/names.lua" -p $pid -o live.data --duration 0.5
	cp "$TMP/out" live.txt
	expect_status 0 "$LUAPROF" run "$CHECKS/names.lua" -i live.data
	diff live.txt "$TMP/out" > diff.txt || { head diff.txt; fail "the replay names samples differently from the live run"; }
	grep -q " worker-1 spin_iters " live.txt || fail "the live run did not name worker-1's samples"
}

# wait_for_map PID NAME: until PID maps a file named NAME.
wait_for_map() {
	for _ in $(seq 100); do
		grep -q "/$2\$" /proc/$1/maps 2>/dev/null && return
		sleep 0.05
	done
	fail "pid $1 never mapped $2"
}

# -p of a process that loaded libdlwork.so and spins in its own code: the
# build-ids are exactly those of the objects hit, the binary's among them
# (with the build-id readelf reads), the idle library's not.
idle_library() {
	"$PROGS/dlopen" "$PROGS/libdlwork.so" idle 4000 & pid=$!
	trap 'kill $pid 2>/dev/null' EXIT
	wait_for_map $pid libdlwork.so
	expect_status 0 "$LUAPROF" record -F 2000 -p $pid -o idle.data --duration 0.5
	kill $pid; wait $pid 2>/dev/null
	perf_agrees idle.data
	build_ids_are_hits idle.data exact
	grep -qx "$(build_id_of "$PROGS/dlopen") $PROGS/dlopen" bids ||
		{ cat bids; fail "the build-ids of idle.data lack the workload's binary"; }
	! grep -q "libdlwork" bids || { cat bids; fail "idle.data has a build-id for the idle libdlwork.so"; }
}

# -a: every process, kernel threads too (with FORKs, as perf record -a);
# the recording the three cases after it read, with spin's pid in all.pid.
need_all() {
	[ "$(cat /proc/sys/kernel/perf_event_paranoid)" -le 0 ] || [ "$(id -u)" = 0 ] ||
		skip "system-wide recording not checked: needs root or kernel.perf_event_paranoid <= 0"
}
system_wide() {
	need_all
	"$PROGS/spin" 4000 & pid=$!
	"$PROGS/dlopen" "$PROGS/libdlwork.so" idle 4000 & idle=$!
	trap 'kill $pid $idle 2>/dev/null' EXIT
	wait_for_map $idle libdlwork.so
	sleep 0.2
	# The window is a command's 0.5 s of CPU (leafs 120), not a wall-clock
	# time: however loaded the machine, the busy processes get their share.
	expect_status 0 "$LUAPROF" record -F 1000 -a -o all.data -- "$PROGS/leafs" 120
	kill $pid $idle; wait $pid $idle 2>/dev/null
	echo $pid > all.pid
}
need_all_data() {
	need_all
	[ -s all.data ] && [ -s all.pid ] || fail "no all.data: the -a case did not record it"
	pid=$(cat all.pid)
}
all_agrees() {
	need_all_data
	perf_agrees all.data $pid
	named_by_perf $pid "$PROGS/spin" spin
}
all_build_ids() {
	need_all_data
	# Other processes' objects may be gone or rebuilt by now: no "exact".
	build_ids_are_hits all.data
	wants=("$PROGS/spin" "$PROGS/dlopen")
	grep -qxF "[kernel.kallsyms]" "$TMP/sampled" && wants+=("[kernel.kallsyms]")  # when sampled
	for want in "${wants[@]}"; do
		awk -v w="$want" '$2 == w {ok = 1} END {exit !ok}' bids ||
			{ cat bids; fail "the build-ids of all.data lack $want"; }
	done
	! grep -q "libdlwork" bids || { cat bids; fail "all.data has a build-id for the idle libdlwork.so"; }
}
all_tasks() {
	need_all_data
	perf script -i all.data --show-task-events > tasks.txt 2>/dev/null
	grep -qF "PERF_RECORD_FORK($pid:$pid)" tasks.txt || fail "the system-wide recording has no FORK for pid $pid"
	kthread=$(cat /proc/2/comm 2>/dev/null)         # kthreadd, unless in a pid namespace
	[ -z "$kthread" ] || grep -qF "PERF_RECORD_COMM: $kthread:2/2" tasks.txt ||
		fail "the system-wide recording does not name kernel thread 2 ($kthread)"
}

scenario "-p: perf reads it, names threads" attached
scenario "-p: live and replay alike" live_replay
kill $pid; wait $pid 2>/dev/null
scenario "-p: the idle library's build-id left out" idle_library
scenario "-a: recorded" system_wide
scenario "-a: perf agrees, threads named" all_agrees
scenario "-a: build-ids of the objects hit" all_build_ids
scenario "-a: FORK and kernel thread names" all_tasks
scenarios_done
