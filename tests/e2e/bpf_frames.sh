# Kernel frames in BPF programs, as perf names them from the KSYMBOL
# records of the recording: a frame in a program's code is named after
# the program, symbol and object ("bpf_prog_TAG_NAME+0x2e
# (bpf_prog_TAG_NAME)"); one in a program the recording has no KSYMBOL
# of is "[unknown] ([unknown])", even while the program is still loaded
# and /proc/kallsyms names it.  A bpftrace
# program on every system call entry of sysmix puts thousands of samples
# in BPF code (getppid in a loop), with the program loaded:
#  - before perf record starts (perf writes a KSYMBOL for it);
#  - by another process while perf records, replayed while it is loaded;
#  - by the recorded workload itself, twice (the kernel writes KSYMBOL
#    records as it loads and unloads it), then sysmix again without it:
#    top's rows of it are perf report's too;
#  - before luaprof record starts, and by its workload: luaprof record
#    writes the KSYMBOL records perf record writes (perf script of its
#    recording names the frames), and a live run names them alike.
# script's text must be perf script's byte for byte, and folded's stacks
# perf's (with _[k] on the programs' frames, which are kernel code).
# test: alone
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib_bt.sh"
need_bpftrace
cd "$TMP"
PS=$ROOT/tests/e2e/perfstacks.py
# wait_for_file FILE: until FILE exists (up to 20 s)
wait_for_file() {
	local i
	for i in $(seq 400); do
		[ -e "$1" ] && return
		sleep 0.05
	done
	fail "$1 did not appear within 20 s"
}
# A case runs in a subshell, whose exit does not run lib_bt.sh's trap:
# its own stops the bpftrace it started, so that no program outlives it.
stop_at_exit() {
	trap '[ -n "$BT_PID" ] && kill -INT "$BT_PID" 2>/dev/null' EXIT
}
PROG='tracepoint:raw_syscalls:sys_enter /comm == "sysmix"/ { @[tid] = count(); } BEGIN { printf("ready\n"); }'

# same_script DATA: luaprof's script of DATA is perf script's; at least
# MIN frames in BPF programs named as perf names them (MIN 0: none named).
same_script() {
	perf script -i "$1" > perf.txt 2>/dev/null || fail "perf script -i $1 failed"
	expect_status 0 "$LUAPROF" run script -i "$1"
	cmp -s perf.txt "$TMP/out" || { diff perf.txt "$TMP/out" | head -20; fail "script of $1 differs from perf script"; }
	local n
	n=$(grep -c '^[[:space:]]*ffffffff[0-9a-f]* bpf_prog_[0-9a-f]*_sys_enter+0x[0-9a-f]* (bpf_prog_[0-9a-f]*_sys_enter)$' "$TMP/out")
	if [ "$2" = 0 ]; then
		[ "$n" = 0 ] || fail "$n frames named in BPF programs the recording has no KSYMBOL of"
	else
		[ "$n" -ge "$2" ] || fail "only $n frames in the BPF program, expected $2 or more"
	fi
	echo "$1: $(grep -c cpu-clock perf.txt) samples as perf script's, $n frames in the BPF program"
}

# same_sysmix DATA: sysmix's samples in luaprof's script of DATA (the
# workload's bpftrace's own are not this test's) are perf script's, with
# 20 frames or more in the program; prints how many (ours.txt: the text).
same_sysmix() {
	perf script -i "$1" 2>/dev/null | awk -v RS= -v ORS='\n\n' '/^sysmix /' > perf.txt
	expect_status 0 "$LUAPROF" run script -i "$1"
	awk -v RS= -v ORS='\n\n' '/^sysmix /' "$TMP/out" > ours.txt
	cmp -s perf.txt ours.txt || { diff perf.txt ours.txt | head -20; fail "script of $1 differs from perf script"; }
	local n
	n=$(grep -c '^[[:space:]]*ffffffff[0-9a-f]* bpf_prog_[0-9a-f]*_sys_enter+0x[0-9a-f]* (bpf_prog_' ours.txt)
	[ "$n" -ge 20 ] || fail "only $n frames of sysmix in the BPF program loaded during the run of $1"
	echo "$n"
}

# same_folded DATA: folded's stacks are perf script's folded, BPF
# programs' frames with _[k], as kernel code (stackcollapse-perf.pl gives
# none: their object is not a [kernel...] one).
same_folded() {
	python3 "$PS" fold perf.txt | sort > folded.perf
	expect_status 0 "$LUAPROF" run folded -i "$1"
	sort "$TMP/out" > folded.ours
	cmp -s folded.perf folded.ours || { diff folded.perf folded.ours | head -10; fail "folded of $1 differs from perf's stacks"; }
	grep -q 'bpf_prog_[0-9a-f]*_sys_enter_\[k\]' folded.ours || fail "no BPF program in folded's stacks"
	echo "folded: $(wc -l < folded.ours) stacks as perf's"
}

loaded_before() {
	stop_at_exit
	bt_start -e "$PROG"
	command perf record -q -e cpu-clock -g -o before.data -- "$PROGS/sysmix" 1500000 0 0 ||
		fail "perf record failed"
	bt_stop
	same_script before.data 20
	same_folded before.data
}

# A program another process loads while perf records sysmix: the
# recording has no KSYMBOL of it (a task's events get those of its own
# programs only), and perf finds no map there.  Replayed while the
# program is loaded: /proc/kallsyms names it, perf does not; a line on
# stderr says why its frames are unnamed.
no_ksymbol() {
	stop_at_exit
	cat > wait.sh <<EOF
: > started
until [ -e go ]; do sleep 0.05; done
exec "$PROGS/sysmix" 1000000 0 0
EOF
	perf record -q -e cpu-clock -g -o nobpf.data -- sh wait.sh &
	local rec=$!
	wait_for_file started
	bt_start -e "$PROG"
	: > go
	wait "$rec" || fail "perf record failed"
	grep -q 'bpf_prog_[0-9a-f]*_sys_enter' /proc/kallsyms || skip "kallsyms does not list the program"
	same_script nobpf.data 0
	grep -q '^luaprof: kernel frames in no kernel map of the recording (the first at 0xffffffff[0-9a-f]*) are unnamed' \
		"$TMP/err" || { cat "$TMP/err"; fail "no line says why the program's frames are unnamed"; }
	bt_stop
	grep -q '^[[:space:]]*ffffffff[0-9a-f]* \[unknown\] (\[unknown\])$' "$TMP/out" ||
		fail "no frame in the unnamed program"
}

# write_load_sh: load.sh, the workload of `during`: it loads the
# program, runs sysmix and unloads it, twice, then runs sysmix again.
write_load_sh() {
	cat > load.sh <<EOF
trap 'kill -INT \$! 2>/dev/null' EXIT
for run in 1 2; do
	bpftrace -e '$PROG' > bt_in\$run.out 2> bt_in.err &
	i=0
	until grep -q ready bt_in\$run.out; do i=\$((i + 1)); [ \$i -lt 600 ] || exit 1; sleep 0.05; done
	"$PROGS/sysmix" 800000 0 0
	kill -INT \$!
	wait \$!
done
"$PROGS/sysmix" 300000 0 0
EOF
}

# The workload loads the program, runs sysmix and unloads it, twice, and
# runs sysmix again: KSYMBOL records register and unregister it during
# the run.  Then perf report's rows of the program are top's: perf's
# symbol of a program starts at 0 in its own map, so the two loads (at two
# addresses) are one row.
during() {
	write_load_sh
	command perf record -q -e cpu-clock -g -o during.data -- sh load.sh || {
		grep -v RLIMIT_MEMLOCK bt_in.err; fail "perf record of the workload loading the program failed"; }
	local n loads
	perf report -D -i during.data 2>/dev/null | grep 'PERF_RECORD_KSYMBOL.* name bpf_prog_[0-9a-f]*_sys_enter' > ksym.txt
	n=$(grep -c 'flags 0x1 ' ksym.txt)
	[ "$n" -ge 2 ] || { cat ksym.txt; fail "the recording has $n KSYMBOL records unregistering the program, not 2"; }
	loads=$(grep 'flags 0x0 ' ksym.txt | awk '{print $5}' | sort -u | wc -l)
	n=$(same_sysmix during.data) || { echo "$n"; exit 1; }
	# sysmix's folded stacks, across the kernel maps' changes (bpftrace's
	# own chains through code without frame pointers are the corrupt ones
	# docs/perf-differences.md tells of)
	perf script -i during.data 2>/dev/null | python3 "$PS" fold /dev/stdin | grep '^sysmix;' | sort > folded.perf
	expect_status 0 "$LUAPROF" run folded -i during.data
	grep '^sysmix;' "$TMP/out" | sort > folded.ours
	cmp -s folded.perf folded.ours || { diff folded.perf folded.ours | head; fail "folded of sysmix differs from perf's stacks"; }
	echo "during.data: $(grep -c cpu-clock ours.txt) samples of sysmix as perf script's, $n frames in the program ($loads addresses)"
	rows() { awk '$1 ~ /%$/ && /bpf_prog_/ {$1 = $1; print}'; }
	perf report -i during.data --stdio --children --sort sym -n -g none 2>/dev/null | rows > perf.rows
	expect_status 0 "$LUAPROF" run top --children --limit=100000 -i during.data
	rows < "$TMP/out" > ours.rows
	[ -s perf.rows ] && cmp -s perf.rows ours.rows || { diff perf.rows ours.rows; fail "top --children's rows of the program differ from perf report's"; }
	perf report -i during.data --stdio --no-children --sort dso,sym -n -g none 2>/dev/null | rows > perf.rows
	expect_status 0 "$LUAPROF" run top --sort=dso,sym --limit=100000 -i during.data
	rows < "$TMP/out" > ours.rows
	cmp -s perf.rows ours.rows || { diff perf.rows ours.rows; fail "top's rows of the program differ from perf report's"; }
	echo "top: the program's rows as perf report's: $(tr '\n' '|' < ours.rows)"
}

# luaprof record writes what perf record writes: a KSYMBOL of each
# program loaded when it starts (from bpf(2), as perf), and the kernel's
# KSYMBOL records of the programs the workload loads and unloads.  perf
# script of its recording names the frames, and so does luaprof (and a
# live run, alike).
luaprof_record() {
	stop_at_exit
	bt_start -e "$PROG"
	expect_status 0 "$LUAPROF" record -g -o lrec.data -- "$PROGS/sysmix" 800000 0 0
	expect_status 0 "$LUAPROF" run script -g -- "$PROGS/sysmix" 200000 0 0
	bt_stop
	local n
	n=$(grep -c '^[[:space:]]*ffffffff[0-9a-f]* bpf_prog_[0-9a-f]*_sys_enter+0x[0-9a-f]* (bpf_prog_[0-9a-f]*_sys_enter)$' "$TMP/out")
	[ "$n" -ge 5 ] || fail "a live run named only $n frames in the program"
	same_script lrec.data 20
	write_load_sh
	expect_status 0 "$LUAPROF" record -g -o lrec2.data -- sh load.sh
	n=$(same_sysmix lrec2.data) || { echo "$n"; exit 1; }
	echo "luaprof record: the programs' frames named by perf script as by luaprof ($n loaded by the workload)"
}

scenario "a program loaded before perf record" loaded_before
scenario "a program loaded by another process" no_ksymbol
scenario "a program loaded and unloaded by the workload" during
scenario "luaprof record" luaprof_record
scenarios_done
