# strings: a sample's strings as its event saw them (issue 33), for a
# program that exits at once (tests/progs/strpaths: paths from a literal,
# its stack and its heap, by libc and by raw system calls, and its
# arguments; a probe's string argument and return value):
# - live, with luaprof.setup strings: every path named, exactly (the heap's
#   as it was, before the program changed it), none nil; what bpftrace
#   names too (it prints "" for a literal whose page is not yet faulted in);
# - the issue's one-liner over sh -c 'cat ...; cat ...': every path, as
#   bpftrace names them;
# - replaying the run's recording: the stack copies' and the files'
#   strings, the heap's nil, counted in one line at the end;
# - without the declaration: the literals (from the files), the rest nil
#   (the process has exited), counted, and the line says how to keep them;
# - a pointer that names nothing: nil and its reason, counted; NULL not;
# - a pointer a wrapper's call named one path and a raw system call
#   another: each its own (tests/progs/strreuse);
# - an exec's args.argv (sh -c '/bin/echo a b c'), as bpftrace's join;
# - a uprobe's string argument and a uretprobe's returned string, copied
#   by the kernel, as bpftrace's str(arg0) and str(retval); the tracefs
#   probes gone after the run, and a dead run's removed by the next.
. "$(dirname "$0")/lib.sh"
need_perf_events
need_tracefs
[ "$(id -u)" = 0 ] || skip "tracepoints' data and tracefs probes need root"
[ -w /sys/kernel/tracing/uprobe_events ] ||
	skip "tracefs has no writable uprobe_events"
cd "$TMP"
SP=$PROGS/strpaths
S=$CHECKS/strings.lua
OPEN=syscalls:sys_enter_openat

have_bpftrace=
if command -v bpftrace >/dev/null && timeout 30 bpftrace -e 'BEGIN { exit(); }' >/dev/null 2>&1; then
	have_bpftrace=1
else
	echo "note: bpftrace cannot run here: its answers are not compared"
fi
# bt PROGRAM CMD: bpftrace's lines for CMD, in $TMP/bt (no "Attaching",
# no empty line)
bt() {
	[ -n "$have_bpftrace" ] || return 1
	timeout 60 bpftrace -e "$1" -c "$2" > bt.raw 2> bt.err
	grep ERROR bt.err | grep -v RLIMIT_MEMLOCK && fail "bpftrace failed: $1"
	grep -v '^Attaching' bt.raw | grep -v '^$' > bt
	return 0
}
# bt_in_ours: every line bpftrace printed is one of ours
bt_in_ours() {
	[ -s bt ] || fail "bpftrace printed nothing: $1"
	sort -u bt > bt.s
	sort -u "$TMP/out" > ours.s
	# (luaprof's stderr says where its strings came from, and whether a
	# record reached the script out of time order)
	comm -23 bt.s ours.s | grep . && { cat "$TMP/err"; fail "bpftrace named what luaprof did not: $1"; }
	return 0
}

paths='/nonexistent/strpaths/literal
/nonexistent/strpaths/stack
/nonexistent/strpaths/heap
/nonexistent/strpaths/raw-stack
/nonexistent/strpaths/raw-literal
/nonexistent/strpaths/arg-one
two'

# live, declared: every path, in order, none nil; its recording is the
# one the replay reads
declared() {
	expect_status 0 "$LUAPROF" run "$S" -e "$OPEN" -A strpaths -o rec.data -- "$SP" /nonexistent/strpaths/arg-one two
	grep -e '^/nonexistent/' -e '^two$' "$TMP/out" > got
	echo "$paths" | diff - got || fail "live: not every path of strpaths named as it was"
	! grep -q '^nil' "$TMP/out" || { cat "$TMP/out"; fail "live: a string was not captured"; }
	expect_grep '^strings: read=[0-9]+ missed=0 kernel=[1-9]' "$TMP/err"
	! grep -q 'strings could not be read' "$TMP/err" || fail "live: the end says strings were missed"
	if bt 'tracepoint:syscalls:sys_enter_openat /comm == "strpaths"/ { printf("%s\n", str(args->filename)); }' \
		"$SP /nonexistent/strpaths/arg-one two"; then
		bt_in_ours "strpaths's opens"
	fi
}

# replaying the recording: the stack copies and the files only (the
# arguments at the top of the stack lie past a gap of pages the program
# never touched about half the time, where the kernel's copy stops: they
# may be nil)
replay() {
	[ -s rec.data ] || fail "no rec.data: the live case did not make it"
	expect_status 0 "$LUAPROF" run "$S" -A strpaths -i rec.data
	grep -e '^/nonexistent/' -e '^two$' "$TMP/out" | grep -v -e arg-one -e '^two$' > got
	echo "$paths" | grep -v -e heap -e arg-one -e '^two$' | diff - got ||
		fail "replay: not every path of the stack copies and files"
	expect_grep '^nil	not in the recording' "$TMP/out"
	expect_grep '^luaprof: [0-9]+ of [0-9]+ strings could not be read \(syscalls:sys_enter_openat [0-9]+\): a recording holds' "$TMP/err"
}

# live, not declared: the literals from their files, the rest gone with
# the process by the time the script reads them
undeclared() {
	expect_status 0 "$LUAPROF" run "$S" -e "$OPEN" -A strpaths -A none -- "$SP" /nonexistent/strpaths/arg-one two
	grep -e '^/nonexistent/' -e '^two$' "$TMP/out" > got
	printf '%s\n' /nonexistent/strpaths/literal /nonexistent/strpaths/raw-literal | diff - got ||
		fail "undeclared: not the literals alone"
	! grep -q 'heap-changed' "$TMP/out" || fail "undeclared: the heap's string read as it was changed"
	expect_grep '^luaprof: [0-9]+ of [0-9]+ strings could not be read \(syscalls:sys_enter_openat [0-9]+\): .*luaprof.setup\{strings = true\} keeps them' "$TMP/err"
}

# a pointer that names nothing: nil, its reason, counted; NULL is no string
bad_pointers() {
	cat > bad.lua <<'EOF'
luaprof.setup{ events = { "syscalls:sys_enter_openat" }, strings = true }
local n = 0
function on_sample(s)
  if s.comm ~= "strpaths" then return end
  n = n + 1
  print(s:str(0))
  print(s:str(8))
end
function on_end(i) print("samples", n, "missed", i.strings.missed) end
EOF
	expect_status 0 "$LUAPROF" run ./bad.lua -- "$SP"
	n=$(awk '$1 == "samples" { print $2 }' "$TMP/out")
	[ -n "$n" ] && [ "$n" -ge 5 ] || fail "bad pointers: too few samples"
	[ "$(grep -c '^nil	a NULL pointer$' "$TMP/out")" = "$n" ] || fail "s:str(0) is not nil 'a NULL pointer'"
	[ "$(grep -c '^nil	the ' "$TMP/out")" = "$n" ] || fail "s:str(8) is not nil with its reason"
	expect_grep "^samples	$n	missed	$n\$" "$TMP/out"
	expect_grep "^luaprof: $n of $n strings could not be read" "$TMP/err"
}

# the issue's one-liner: every path of two short-lived cats
oneliner() {
	cmd="cat /etc/hostname; cat /etc/os-release"
	expect_status 0 "$LUAPROF" -x 'syscalls:sys_enter_openat { printf("%s %s\n", comm, str(args.filename)) }' -- sh -c "$cmd"
	! grep -q ' nil$' "$TMP/out" || { cat "$TMP/out"; fail "the one-liner printed nil"; }
	expect_grep '^cat /etc/hostname$' "$TMP/out"
	expect_grep '^cat /etc/os-release$' "$TMP/out"
	! grep -q 'strings could not be read' "$TMP/err" || fail "the one-liner missed strings"
}
# ... and as bpftrace, for a cat of a name no other process has (bpftrace
# sees the whole machine), run by a script (bpftrace's -c splits a command
# at its spaces, quotes or not)
cats_bpftrace() {
	[ -n "$have_bpftrace" ] || skip "bpftrace cannot run here: the cats' opens are not compared"
	C=$TMP/sc$$
	cp "$(command -v cat)" "$C" || fail "cannot copy cat"
	cname=$(basename "$C" | cut -c1-15)
	# (the cats' own output to /dev/null: in bpftrace's, a line of theirs
	# came out split by bpftrace's writes once, and was compared as a path)
	printf '%s /etc/hostname >/dev/null\n%s /etc/os-release >/dev/null\n' "$C" "$C" > cats.sh
	if bt "tracepoint:syscalls:sys_enter_openat /comm == \"$cname\"/ { printf(\"%s\\n\", str(args->filename)); }" "/bin/sh $TMP/cats.sh"; then
		expect_status 0 "$LUAPROF" run "$S" -e "$OPEN" -A "$cname" -- /bin/sh cats.sh
		! grep -q '^nil' "$TMP/out" || { cat "$TMP/out"; fail "the cats' opens: a string was not captured"; }
		bt_in_ours "the cats' opens"
	fi
}

# a heap buffer naming two paths: the first opened by libc's open() (its
# string copied at the wrapper), the second by a raw syscall(SYS_openat)
# (no wrapper, no copy): the second's string is its own, read from the
# process (tests/progs/strreuse sleeps before it exits), not the first
# call's at the same pointer
reused_pointer() {
	expect_status 0 "$LUAPROF" run "$S" -e "$OPEN" -A strreuse -- "$PROGS/strreuse"
	grep '^/nonexistent/strreuse/' "$TMP/out" > got
	printf '/nonexistent/strreuse/wrapper\n/nonexistent/strreuse/raw\n' | diff - got ||
		fail "the raw system call's string was not its own"
	expect_grep '^strings: read=[0-9]+ missed=0 kernel=[0-9]+ stack=[0-9]+ prompt=1 ' "$TMP/err"
}

# an exec's arguments
exec_argv() {
	echo '/bin/echo a b c' > echo.sh
	expect_status 0 "$LUAPROF" run "$S" -e sched:sched_process_exec -A echo -- /bin/sh echo.sh
	expect_grep '^/bin/echo a b c$' "$TMP/out"
	expect_grep '^strings: read=1 missed=0 kernel=1 ' "$TMP/err"
	if bt 'tracepoint:syscalls:sys_enter_execve { join(args->argv); }' "/bin/sh $TMP/echo.sh"; then
		expect_grep '^/bin/echo a b c$' bt
	fi
}

# a probe's string argument and returned string, copied by the kernel
probes() {
	expect_status 0 "$LUAPROF" run "$S" -e "uprobe:$SP:strpaths_take,uretprobe:$SP:strpaths_name" -A strpaths -- "$SP"
	printf '%s\n' alpha beta gamma alpha beta gamma | diff - "$TMP/out" || fail "the probes' strings"
	expect_grep '^strings: read=6 missed=0 kernel=6 ' "$TMP/err"
	# (/pid == cpid/: the probes fire in any process of the binary)
	if bt "uprobe:$SP:strpaths_take /pid == cpid/ { printf(\"%s\\n\", str(arg0)); } uretprobe:$SP:strpaths_name /pid == cpid/ { printf(\"%s\\n\", str(retval)); }" "$SP"; then
		diff bt "$TMP/out" || fail "the probes' strings differ from bpftrace's"
	fi
}

# no probe left by the runs above; one of a dead run's removed by the next
EV=/sys/kernel/tracing/uprobe_events
dead_groups() {
	sed -n 's/^[pr]:luaprof_\([0-9]*\)\/.*/\1/p' "$EV" | sort -u | while read -r pid; do
		kill -0 "$pid" 2>/dev/null || echo "luaprof_$pid"
	done
}
none_left() {
	[ -z "$(dead_groups)" ] || fail "probes of ended runs are left in uprobe_events: $(dead_groups)"
}
dead_removed() {
	sh -c 'exit 0' & dead=$!
	wait "$dead"
	off=$(nm "$SP" | awk '$3 == "strpaths_take" { print $1 }')
	echo "p:luaprof_$dead/e0 $SP:0x$off" >> "$EV" || fail "cannot add a probe to uprobe_events"
	grep -q "^p:luaprof_$dead/e0 " "$EV" || fail "the stale probe was not added"
	expect_status 0 "$LUAPROF" run "$S" -e "uprobe:$SP:strpaths_take" -A strpaths -- "$SP"
	! grep -q "luaprof_$dead/" "$EV" || { echo "-:luaprof_$dead/e0" >> "$EV"; fail "a dead run's probe was not removed"; }
}

scenario "live, declared" declared
scenario "its recording replayed" replay
scenario "live, not declared" undeclared
scenario "a pointer that names nothing" bad_pointers
scenario "the issue's one-liner" oneliner
scenario "the cats' opens, as bpftrace's" cats_bpftrace
scenario "a pointer used again by a raw system call" reused_pointer
scenario "an exec's args.argv" exec_argv
scenario "a probe's strings" probes
scenario "no probe left by the runs above" none_left
scenario "a dead run's probe removed" dead_removed
scenarios_done
