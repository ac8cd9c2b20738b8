# Uprobes on a command that forks and starts threads: the command's fork
# and pthread_create succeed, and every call in its children and threads
# is counted, exactly.  A uprobe of the uprobe PMU names its file by a
# pointer into luaprof's memory (config1), which the kernel reads again in
# the forking process when it copies an inherited event at each fork and
# pthread_create (perf_uprobe_init): not mapped there, the fork failed
# with EFAULT ("fork: Bad address").  A run that follows a command or -p
# processes now places its probes as tracefs uprobe events (evdyn.c), -a
# keeps the PMU (nothing inherited), and a probe tracefs refuses (a path
# with a space) follows the first threads only, said in one line.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
[ -e /sys/bus/event_source/devices/uprobe ] || skip "this kernel has no uprobe PMU"
[ "$(id -u)" = 0 ] || skip "uprobes need root here"
have_tracefs || skip "no tracefs"
# a copy of its own: -a counts every process that runs the file
TW=$TMP/tw$$
cp "$PROGS/toolwork" "$TW"
EVENTS=/sys/kernel/tracing/uprobe_events
[ -r "$EVENTS" ] || EVENTS=/sys/kernel/debug/tracing/uprobe_events

# run ARGS...: luaprof ARGS into out and err, exit 0, no EFAULT from the
# command, and no tracefs probe of that luaprof left behind.
run() {
	"$LUAPROF" "$@" >"$TMP/out" 2>"$TMP/err" &
	local lp=$! rc
	wait "$lp"; rc=$?
	! grep -q "Bad address" "$TMP/out" "$TMP/err" ||
		{ cat "$TMP/out" "$TMP/err"; fail "luaprof $*: the command's fork or pthread_create failed"; }
	[ "$rc" = 0 ] || { cat "$TMP/out" "$TMP/err"; fail "luaprof $* exited $rc"; }
	! grep -q "luaprof_$lp/" "$EVENTS" 2>/dev/null ||
		{ grep "luaprof_$lp/" "$EVENTS"; fail "luaprof $*: its tracefs probes are left"; }
}
# has FILE LINE...: each LINE is one of FILE's lines
has() {
	local f=$1 l; shift
	for l in "$@"; do
		grep -qxF -- "$l" "$f" || { cat "$TMP/out" "$TMP/err"; fail "no line '$l'"; }
	done
}

# samples: a uprobe and a uretprobe in 6 threads, libc's _exit in 5
# children and the parent
run run "$CHECKS/tpcount.lua" -e "uprobe:$TW:thread_alpha,uretprobe:$TW:thread_beta" -- "$TW" threads 6
has "$TMP/out" "event	uprobe:$TW:thread_alpha	3" "event	uretprobe:$TW:thread_beta	3"
run run "$CHECKS/tpcount.lua" -e "uprobe:libc:_exit" -- "$TW" fork 5
has "$TMP/out" "event	uprobe:libc:_exit	6"

# counting (funccount) and a latency (funclatency) on the same programs
run run funccount -A "$TW:thread_*" -- "$TW" threads 6
[ "$(awk '$1 ~ /^thread_/ {print $1, $2}' "$TMP/out" | sort | tr '\n' ' ')" = "thread_alpha 3 thread_beta 3 " ] ||
	{ cat "$TMP/out"; fail "funccount: not 3 calls of each thread function"; }
run run funclatency -A libc:fork -- "$TW" fork 5
grep -q 'count: 5$' "$TMP/out" || { cat "$TMP/out"; fail "funclatency: not 5 forks"; }
# stat's counts: FILE's values of the probes, on one line
counts() { awk '$2 ~ /probe:/ {print $1}' "$1" | tr '\n' ' '; }
run stat --out="$TMP/stat" -e "uprobe:$TW:thread_alpha,uretprobe:$TW:thread_beta" -- "$TW" threads 6
[ "$(counts "$TMP/stat")" = "3 3 " ] || { cat "$TMP/stat"; fail "stat: not 3 calls of each thread function"; }

# a recording: the probes' samples declared as the uprobe PMU's, as
# before, so that perf shows them by symbol (not as tracepoints whose
# format went with the run)
run record -o "$TMP/r.data" -e "uprobe:$TW:thread_alpha,uretprobe:$TW:thread_beta" -- "$TW" threads 6
if command -v perf >/dev/null; then
	perf script -i "$TMP/r.data" -F event,ip,sym > "$TMP/script" 2>&1 ||
		{ cat "$TMP/script"; fail "perf script could not read the recording"; }
	[ "$(grep -c "uprobe:$TW:thread_alpha: .* thread_alpha$" "$TMP/script")" = 3 ] &&
	[ "$(grep -c "uretprobe:$TW:thread_beta: .* start_thread$" "$TMP/script")" = 3 ] ||
		{ cat "$TMP/script"; fail "perf script: not 3 samples of each probe, by symbol"; }
fi

# -p: threads started after luaprof attached
gated "$TW" threads 6
attach_gated 0 "$LUAPROF" stat --out="$TMP/stat" -e "uprobe:$TW:thread_alpha,uretprobe:$TW:thread_beta"
! grep -q "Bad address" "$TMP/out" "$TMP/err" || { cat "$TMP/err"; fail "-p: the process's pthread_create failed"; }
[ "$(counts "$TMP/stat")" = "3 3 " ] || { cat "$TMP/stat" "$TMP/err"; fail "stat -p: not 3 calls of each thread function"; }

# -a: the PMU on every CPU, nothing inherited
run stat --out="$TMP/stat" -a -e "uprobe:$TW:thread_alpha" -- "$TW" threads 6
[ "$(counts "$TMP/stat")" = "3 " ] || { cat "$TMP/stat"; fail "stat -a: not 3 calls"; }

# a path tracefs cannot take: the PMU without inherit, the command's own
# calls counted, its threads' not, in one line; pthread_create succeeds
mkdir "$TMP/a b"
cp "$TW" "$TMP/a b/tw"
run stat --out="$TMP/stat" -e "uprobe:$TMP/a b/tw:do_threads,uprobe:$TMP/a b/tw:thread_alpha" -- "$TMP/a b/tw" threads 6
[ "$(counts "$TMP/stat")" = "1 0 " ] ||
	{ cat "$TMP/stat"; fail "stat, a path with a space: not 1 call of do_threads and none seen in the threads"; }
[ "$(grep -c . "$TMP/err")" = 1 ] && grep -q "^luaprof: 'uprobe:$TMP/a b/tw:do_threads' and 1 other probe follow only the threads they were opened on, .*(a path with a space).*(-a)$" "$TMP/err" ||
	{ cat "$TMP/err"; fail "a probe tracefs refused: not the one line saying what it follows"; }
exit 0
