# oneliners: luaprof -x, the one-liners of docs/tutorial.md's table, each
# run on a small deterministic workload (tests/progs/openread: R rounds of
# an open and reads of 1, 100, 2000 and 4096 bytes) and its answer checked:
# - exact where the kernel makes it exact (R opens of the file, with its
#   path read by str(); the read sizes' buckets, R each; the 10 calls of
#   nap timed through a uprobe pair, the 4R+1 reads through the syscall
#   pair), and equal to bpftrace's answer on the same workload when
#   bpftrace runs here (for its own command alone, once exec'd: pid ==
#   cpid and comm; other tests run openread beside this one);
# - lhist() and stats() of the read sizes, and the stacks of nap's calls
#   by ustack(N) (their frames' names aside: bpftrace names none after
#   the command is gone), equal bpftrace's;
# - over a recording, the short forms evaluated in C give the same output
#   as the same one-liners through Lua (LUAPROF_ONELINER=lua), and the
#   counts by prev_state and next_pid equal perf script's; the counts by
#   function (sym, also in C) equal perf report --sort sym's; a map fed by
#   a clause in C and one in Lua is one map;
# - replaying, str() is nil (the recording has the pointer only) but for
#   a string literal, read from its file;
# - a malformed program is one line and exit 255.
. "$(dirname "$0")/lib.sh"
need_perf_events
need_tracefs
cd "$TMP"
R=20
# a copy at a short path: bpftrace's str() cuts strings at 64 bytes
# (BPFTRACE_STRLEN), and a checkout's path may be longer; under a name of
# its own, since bpftrace sees the whole machine and other tests run
# openread too
N=or$$
cp "$PROGS/openread" "$TMP/$N" || fail "cannot copy openread"
OR=$TMP/$N
X() { "$LUAPROF" -x "$@"; }

# bpftrace's answer for the workload's thread, when bpftrace can run here:
# its output without the "Attaching" line and blank lines, in $TMP/bt.
have_bpftrace=
if command -v bpftrace >/dev/null &&
	timeout 30 bpftrace -e 'BEGIN { exit(); }' >/dev/null 2>&1; then
	have_bpftrace=1
else
	echo "note: bpftrace cannot run here: its answers are not compared"
fi
bt() {
	[ -n "$have_bpftrace" ] || return 1
	timeout 60 bpftrace -e "$1" -c "$OR $R" 2>/dev/null | grep -v '^Attaching' | grep -v '^$' > bt
}
ours() { grep -v '^$' "$TMP/out" > ours; }

# files opened, by thread name, with their paths
files_opened() {
	expect_status 0 X 'syscalls:sys_enter_openat { printf("%s %s\n", comm, str(args.filename)) }' -- "$OR" "$R"
	[ "$(grep -cx "$N $OR" "$TMP/out")" = "$R" ] ||
		{ cat "$TMP/out"; fail "not $R lines '$N $OR': str() did not read the path"; }
	if bt 'tracepoint:syscalls:sys_enter_openat /pid == cpid && comm == "'$N'"/ { printf("%s %s\n", comm, str(args->filename)); }'; then
		grep "^$N " "$TMP/out" > ours
		diff bt ours || fail "files opened: ours differ from bpftrace's"
	fi
}

# system calls by thread name
syscalls_by_name() {
	expect_status 0 X 'raw_syscalls:sys_enter { count(comm) }' -- "$OR" "$R"
	expect_grep "^@\\[$N\\]: [0-9]+\$" "$TMP/out"
	if bt 'tracepoint:raw_syscalls:sys_enter /pid == cpid && comm == "'$N'"/ { @[comm] = count(); }'; then
		ours
		diff bt ours || fail "system calls by thread name: ours differ from bpftrace's"
	fi
}

# bytes read by thread name: R rounds of 6197 bytes, and the loader's
bytes_read() {
	expect_status 0 X 'syscalls:sys_exit_read /args.ret~=0/ { sum(args.ret, comm) }' -- "$OR" "$R"
	awk -v min=$((R * 6197)) -v n="@[$N]:" '$1 == n {f = $2 >= min} END {exit !f}' "$TMP/out" ||
		{ cat "$TMP/out"; fail "bytes read: @[$N] is below $R x 6197"; }
	if bt 'tracepoint:syscalls:sys_exit_read /args->ret && pid == cpid && comm == "'$N'"/ { @[comm] = sum(args->ret); }'; then
		ours
		diff bt ours || fail "bytes read by thread name: ours differ from bpftrace's"
	fi
}

# read sizes per thread name: R in each of the four buckets
read_sizes() {
	expect_status 0 X 'syscalls:sys_exit_read { hist(args.ret, comm) }' -- "$OR" "$R"
	for b in '\[1\]' '\[64, 128\)' '\[1K, 2K\)' '\[4K, 8K\)'; do
		expect_grep "^$b +$R \|@+ *\|$" "$TMP/out"
	done
	if bt 'tracepoint:syscalls:sys_exit_read /pid == cpid && comm == "'$N'"/ { @[comm] = hist(args->ret); }'; then
		ours
		diff bt ours || fail "read sizes: ours differ from bpftrace's"
	fi
}

# read sizes in linear buckets and their count, average, total (the
# command's own reads for bpftrace too: others may run openread now)
lhist_stats() {
	expect_status 0 X 'syscalls:sys_exit_read { stats(args.ret, comm) lhist("@l", args.ret, 0, 5120, 1024) }' -- "$OR" "$R"
	expect_grep "^@\\[$N\\]: count $((4 * R + 1)), average [0-9]+, total [0-9]+\$" "$TMP/out"
	for b in '\[1K, 2K\) +20' '\[4K, 5K\) +20' '\[2K, 3K\) +0'; do
		expect_grep "^$b \|@* *\|$" "$TMP/out"
	done
	if bt 'tracepoint:syscalls:sys_exit_read /pid == cpid && comm == "'$N'"/ { @[comm] = stats(args->ret); @l = lhist(args->ret, 0, 5120, 1024); }'; then
		ours
		diff bt ours || fail "lhist and stats: ours differ from bpftrace's"
	fi
}

# system calls per second (-I prints and clears the maps)
per_second() {
	expect_status 0 X 'raw_syscalls:sys_enter { count() }' -I 500 -d 1.6
	[ "$(grep -cE '^@: [0-9]+$' "$TMP/out")" -ge 3 ] || { cat "$TMP/out"; fail "-I 500 -d 1.6: not three lines '@: N'"; }
}

# page faults by thread name: 4 rounds of 8 MB touched page by page
page_faults() {
	thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
	case $thp in *"[always]"*) lo=16 ;; *) lo=8192 ;; esac
	expect_status 0 X 'page-faults { count(comm) }' -c 1 -- "$PROGS/faults" 8
	awk -v lo="$lo" '/^@\[faults\]: / {f = $2 >= lo} END {exit !f}' "$TMP/out" ||
		{ cat "$TMP/out"; fail "page faults: @[faults] below $lo"; }
}

# user stacks at 99 Hz for one PID
ustack_pid() {
	"$PROGS/spin" 3000 &
	pid=$!
	trap 'kill $pid 2>/dev/null' EXIT
	expect_status 0 X 'cpu-clock { count(ustack) }' -F 99 -p "$pid" -d 1
	kill "$pid" 2>/dev/null
	wait "$pid" 2>/dev/null
	expect_grep '^@\[$' "$TMP/out"
	expect_grep '^    spin_iters\+[0-9]+$' "$TMP/out"
	expect_grep '^\]: [0-9]+$' "$TMP/out"
}

# block I/O sizes, where a block device takes the fsync of 64 KiB
block_io() {
	dev=$(df --output=source "$TMP" 2>/dev/null | tail -1)
	[ -e "/sys/class/block/${dev#/dev/}" ] && [ -d /sys/kernel/tracing/events/block/block_rq_issue ] ||
		skip "$TMP is on no block device ($dev): the block I/O one-liner is not run"
	expect_status 0 X 'block:block_rq_issue { hist(args.bytes) }' -a -- "$OR" 1 "$OR" "$TMP/sync"
	expect_grep '^@: $' "$TMP/out"
	expect_grep '^\[[0-9]+[KM]?, [0-9]+[KM]?\) +[1-9][0-9]* \|@+ *\|$' "$TMP/out"
}

# timing with the syscall tracepoints' enter/exit pair: the 4R+1 reads
syscall_timing() {
	expect_status 0 X 'syscalls:sys_enter_read { t[tid] = nsecs } syscalls:sys_exit_read /t[tid]/ { hist(nsecs - t[tid], comm); t[tid] = nil }' -- "$OR" "$R"
	awk -v want=$((4 * R + 1)) -v name="@[$N]:" '$0 == name " " {h = 1; next} /^$/ {h = 0} h {sub(/ \|.*/, ""); n += $NF}
		END {exit n != want}' "$TMP/out" || { cat "$TMP/out"; fail "syscall timing: not $((4 * R + 1)) reads"; }
}

# timing with a uprobe pair: calls' 10 naps of 2 ms
C=$PROGS/calls
need_uprobe() {
	[ -r /sys/bus/event_source/devices/uprobe/type ] ||
		skip "this kernel has no uprobe PMU: the uprobe timing is not run"
}
uprobe_timing() {
	need_uprobe
	expect_status 0 X "uprobe:$C:nap { t[tid] = nsecs } uretprobe:$C:nap /t[tid]/ { hist(nsecs - t[tid]) }" -- "$C" 10 2
	awk '/^\[/ {sub(/ \|.*/, ""); n += $NF; if ($1 ~ /^\[[0-9]+[KM],/) t += $NF} END {exit !(n == 10 && t == 10)}' \
		"$TMP/out" || { cat "$TMP/out"; fail "uprobe timing: not 10 naps of at least 1K ns"; }
}

# the stacks of nap's calls, two frames and one (with the command's
# name): bpftrace's, but for the frames' names
uprobe_ustack() {
	need_uprobe
	expect_status 0 X "uprobe:$C:nap { count(ustack(2)) count('@k', ustack(1), comm) }" -- "$C" 10 2
	printf '\n@[\n    nap+0\n    main+[0-9]+\n\]: 10\n@k\[\n    nap\+0\n, calls\]: 10\n' > want
	[ "$(grep -c . "$TMP/out")" = 7 ] && grep -Eq '^    main\+[0-9]+$' "$TMP/out" &&
		printf '\n@[\n    nap+0\n' | cmp -s - <(head -3 "$TMP/out") ||
		{ cat "$TMP/out"; fail "ustack(2), ustack(1): not the 10 calls' nap+0 and its caller"; }
	if [ -n "$have_bpftrace" ]; then
		# /pid == cpid/: a uprobe fires in every process of the binary,
		# and another test's calls running meanwhile made keys of its own
		timeout 60 bpftrace -e "uprobe:$C:nap /pid == cpid/ { @[ustack(2)] = count(); @k[ustack(1), comm] = count(); }" -c "$C 10 2" \
			2>/dev/null | grep -v '^Attaching' | grep -v '^$' | sed -E 's/^    .*/    F/' > bt
		grep -v '^$' "$TMP/out" | sed -E 's/^    .*/    F/' > ours
		diff bt ours || fail "ustack(N): ours differ from bpftrace's"
	fi
}

# The recordings the cases below read: sched_switch and reads of
# pingpong; a user-only recording of deep16, every sample in a named
# function.  A case whose recording is missing fails on its own.
perf record -q -e sched:sched_switch -e syscalls:sys_exit_read -o rec.data -- "$PROGS/pingpong" 3000 >/dev/null 2>&1 ||
	echo "perf record failed: no rec.data"
perf record -q -e cpu-clock:u -F 4000 -o u.data -- "$PROGS/deep16" 200 >/dev/null 2>&1 ||
	echo "perf record failed: no u.data"
need_rec() { [ -s "$1" ] || fail "perf record failed"; }

# c_and_lua DATA PROG: over a recording, PROG's short forms evaluated in C
# (none falls back to Lua with DATA rec.data) give the same output as
# through Lua
c_and_lua() {
	local data=$1 prog=$2
	need_rec "$data"
	LUAPROF_ONELINER=explain expect_status 0 X "$prog" -i "$data"
	mv "$TMP/out" c.out
	grep -q 'evaluated in C' "$TMP/err" || { cat "$TMP/err"; fail "$prog: not evaluated in C"; }
	if [ "$data" = rec.data ]; then
		! grep -q 'evaluated in Lua' "$TMP/err" || { cat "$TMP/err"; fail "$prog: a clause fell back to Lua"; }
	fi
	LUAPROF_ONELINER=lua expect_status 0 X "$prog" -i "$data"
	[ -s c.out ] || fail "$prog: no output"
	diff c.out "$TMP/out" || fail "$prog: C and Lua differ"
}

# one map fed in C and in Lua: the same as in Lua alone
one_map() {
	need_rec rec.data
	prog='sched:sched_switch { count("@n", comm) } syscalls:sys_exit_read { if args.ret > 0 then count("@n", comm) end }'
	LUAPROF_ONELINER=explain expect_status 0 X "$prog" -i rec.data
	mv "$TMP/out" c.out
	grep -q 'clause 1: evaluated in C' "$TMP/err" || { cat "$TMP/err"; fail "$prog: clause 1 not evaluated in C"; }
	LUAPROF_ONELINER=lua expect_status 0 X "$prog" -i rec.data
	grep -q '^@n\[pingpong\]: [0-9]' c.out || { cat c.out; fail "$prog: no @n[pingpong]"; }
	diff c.out "$TMP/out" || fail "$prog: C and Lua into one map differ from Lua alone"
}

# the counts by prev_state and next_pid: perf script's
by_state_pid() {
	need_rec rec.data
	X 'sched:sched_switch { count(args.prev_state, args.next_pid) }' -i rec.data | grep -v '^$' | sort > ours
	perf script -i rec.data -F event,trace 2>/dev/null | awk '$1 == "sched:sched_switch:" {
		for (i = 2; i <= NF; i++) { split($i, kv, "="); if (kv[1] == "prev_state") s = kv[2]; if (kv[1] == "next_pid") p = kv[2] }
		n[s " " p]++ } END { for (k in n) { split(k, a, " "); st = a[1] == "R" ? 0 : a[1] == "S" ? 1 : a[1] == "D" ? 2 : a[1] == "R+" ? 256 : a[1];
		printf "@[%s, %s]: %d\n", st, a[2], n[k] } }' | sort > perf
	[ -s perf ] || fail "perf script printed no sched_switch"
	diff perf ours || fail "counts by prev_state, next_pid differ from perf script's"
}

# by function, in C: perf report's per-symbol sample counts
by_function() {
	need_rec u.data
	X 'cpu-clock:u { count(sym) }' -i u.data | grep -v '^$' | sort > ours
	perf report -i u.data --stdio --no-children --sort sym -F sample,sym -q 2>/dev/null |
		awk 'NF == 3 && $2 == "[.]" {printf "@[%s]: %d\n", $3, $1}' | sort > perf
	grep -q hot_leaf perf || { cat perf; fail "perf report names no hot_leaf"; }
	diff perf ours || fail "counts by function differ from perf report --sort sym's"
}

# a glob clause takes the samples of an event a short form names too: both
# clauses see every sample (so neither is evaluated in C)
glob_clause() {
	need_rec rec.data
	LUAPROF_ONELINER=explain expect_status 0 X 'sched:sched_switch { count() } sched:* { count("@ev", event) }' -i rec.data
	n=$(perf script -i rec.data -F event 2>/dev/null | grep -c 'sched:sched_switch')
	expect_grep "^@: $n\$" "$TMP/out"
	expect_grep "^@ev\[sched:sched_switch\]: $n\$" "$TMP/out"
	! grep -q 'evaluated in C' "$TMP/err" || fail "a short form shared its event with a glob clause yet ran in C"
}

# replaying, str() has no process to read: only a string literal, from
# its object's file (ld.so's /etc/ld.so.cache), else nil, which the end's
# line counts
replay_str() {
	perf record -q -e syscalls:sys_enter_openat -o open.data -- "$OR" 2 >/dev/null 2>&1 || fail "perf record failed"
	expect_status 0 X 'syscalls:sys_enter_openat { print(comm, str(args.filename)) }' -i open.data
	[ "$(grep -c "^$N	nil\$" "$TMP/out")" -ge 2 ] || { cat "$TMP/out"; fail "replaying, str() is not nil"; }
	! grep -v -e "^$N	nil\$" -e "^$N	/etc/ld.so.cache\$" "$TMP/out" | grep -q . ||
		{ cat "$TMP/out"; fail "replaying, str() read what the recording cannot hold"; }
	expect_grep '^luaprof: [0-9]+ of [0-9]+ strings could not be read \(syscalls:sys_enter_openat [0-9]+\): a recording' "$TMP/err"
}

# the aggregations' arithmetic, from BEGIN: avg divides toward zero (as
# bpftrace's; its maps end with a blank line, as bpftrace's), min/max, a
# named map, maps sorted by name then value
avg() {
	expect_status 0 X 'BEGIN { avg(-7); avg(-8); avg(3); avg(4); avg("@y", -5, "y"); avg("@y", -4, "y"); exit() }'
	printf '\n@: -2\n\n@y[y]: -4\n\n' | diff - "$TMP/out" || fail "avg"
}
min_max_sum() {
	expect_status 0 X 'BEGIN { min("@lo", 5, "a"); min("@lo", -2, "a"); max("@hi", 5); max("@hi", 9); sum("@s", 2, 1, "k"); exit() }'
	printf '\n@hi: 9\n@lo[a]: -2\n@s[1, k]: 2\n' | diff - "$TMP/out" || fail "min, max, sum of named maps"
}

# mistakes: one line, exit 255
mistake() {
	local bad=$1
	need_rec rec.data
	expect_status 255 X "$bad" -i rec.data
	[ "$(wc -l < "$TMP/err")" = 1 ] || { cat "$TMP/err"; fail "-x '$bad': not one line"; }
	expect_grep '^luaprof: ' "$TMP/err"
}

# garbled programs (cut, bytes changed, deterministic): each ends well or
# with status 255 and a "luaprof: " line, never a crash
garbled() {
	need_rec rec.data
	python3 - > garbled.txt <<'PY'
import random
r = random.Random(22)
base = ['sched:sched_switch /args.prev_state == 1/ { count(comm, args.next_pid) }',
        'BEGIN { t.n = 0 } sched:sched_switch { t.n = t.n + 1; hist(args.prev_prio) } END { print(t.n) }',
        'syscalls:sys_exit_read { sum(args.ret, comm) } sched:sched_switch { printf("%s\\n", [[x}]]) }']
for i in range(40):
    p = list(r.choice(base))
    for _ in range(r.randint(1, 3)):
        k = r.randrange(len(p))
        op = r.randrange(3)
        if op == 0: p[k] = r.choice('{}/"[]()=,.\\x -')
        elif op == 1: del p[k:k + r.randint(1, 5)]
        else: p.insert(k, r.choice('{}/"\'-'))
    print(''.join(p).replace('\n', ' '))
PY
	while IFS= read -r prog; do
		X "$prog" -i rec.data > /dev/null 2> err.txt
		rc=$?
		case $rc in
		0) ;;
		255) head -1 err.txt | grep -q '^luaprof: ' || { cat err.txt; fail "-x '$prog': status 255 without a 'luaprof: ' line"; } ;;
		*) cat err.txt; fail "-x '$prog' exited $rc" ;;
		esac
	done < garbled.txt
}

# -x misused: with -e, with a SCRIPT, without its value, with record
with_e() {
	need_rec rec.data
	expect_status 255 X 'sched:sched_switch { count() }' -e cpu-clock -i rec.data
	expect_grep 'leave out -e' "$TMP/err"
}
with_script() {
	expect_status 255 "$LUAPROF" run "$CHECKS/probes.lua" -x 'BEGIN { }' -- true
	expect_grep 'takes no SCRIPT' "$TMP/err"
}
no_value() {
	expect_status 255 "$LUAPROF" -x
	expect_grep 'needs a value' "$TMP/err"
}
with_record() {
	expect_status 255 "$LUAPROF" record -x 'sched:sched_switch { count() }' -- true
	expect_grep 'not record' "$TMP/err"
}

scenario "files opened, str()" files_opened
scenario "system calls by thread name" syscalls_by_name
scenario "bytes read by thread name" bytes_read
scenario "read sizes, hist()" read_sizes
scenario "lhist(), stats()" lhist_stats
scenario "-I 500: per interval" per_second
scenario "page faults by thread name" page_faults
scenario "ustack at 99 Hz, -p" ustack_pid
scenario "block I/O sizes" block_io
scenario "syscall enter/exit timing" syscall_timing
scenario "uprobe pair timing" uprobe_timing
scenario "ustack(2), ustack(1) at a uprobe" uprobe_ustack
for prog in 'sched:sched_switch { count(args.prev_state, args.next_pid) }' \
	'sched:sched_switch { count(comm, cpu) }' \
	'sched:sched_switch /args.prev_state == 1/ { hist(args.next_prio, args.prev_comm) }' \
	'sched:sched_switch { sum(args.prev_pid, pid, tid) } syscalls:sys_exit_read { max(args.ret) }' \
	'syscalls:sys_exit_read /args.ret >= 1/ { min(args.ret, comm) }' \
	'sched:sched_switch { count("@sw", args.next_pid) } syscalls:sys_exit_read { hist("@bytes", args.ret) }' \
	'sched:sched_switch { lhist(args.prev_prio, 100, 140, 3, args.prev_comm) }' \
	'syscalls:sys_exit_read { stats(args.ret, comm) } sched:sched_switch /args.prev_state == 1/ { avg(args.next_pid, cpu) }' \
	'sched:sched_switch { count("@n", comm) } syscalls:sys_exit_read /args.ret > 0/ { count("@n", comm) }'; do
	scenario "C = Lua: $prog" c_and_lua rec.data "$prog"
done
scenario "one map fed in C and in Lua" one_map
scenario "by prev_state, next_pid: perf script's" by_state_pid
for prog in 'cpu-clock:u { count(sym) }' 'cpu-clock { count(sym, tid) }'; do
	scenario "C = Lua: $prog" c_and_lua u.data "$prog"
done
scenario "by function: perf report's" by_function
scenario "a glob clause beside a short form" glob_clause
scenario "replaying, str()" replay_str
scenario "avg()" avg
scenario "min(), max(), sum()" min_max_sum
for bad in 'sched:sched_switch count()' 'sched:sched_switch { count( }' '' 'nosuch:event { count() }' \
	'sched:sched_switch /x { count() }' 'sched:sched_switch { print("x) }'; do
	scenario "mistake: -x '$bad'" mistake "$bad"
done
scenario "garbled programs" garbled
scenario "-x with -e" with_e
scenario "-x with a SCRIPT" with_script
scenario "-x without its value" no_value
scenario "record -x" with_record
scenarios_done
