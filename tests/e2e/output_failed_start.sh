# A run that never starts leaves an earlier recording and its .old exactly
# as they were, and no new file (issue 31): FILE becomes FILE.old only
# once the run has really started (the command's exec done, the events of
# -p enabled).  luaprof used to rename FILE to FILE.old first, so that
# "luaprof record -o x.data -- /nonexistent", twice, left two empty
# recordings and no trace of the good one; perf 6.1 does the same (it
# renames at open, before its child's exec fails).  Each failure here
# comes once the options are parsed: a command not found or not
# executable, an unknown event or one the kernel refuses, -p of no
# process, a script failing in on_start or in on_comm of a -p process,
# which luaprof meets after opening the events and the recording's file.
. "$(dirname "$0")/lib.sh"
need_perf_events
cd "$TMP"
mkdir w && cd w || fail "cannot make w"
printf 'not a program\n' > "$TMP/notexec"
printf 'function on_start() error("failing in on_start") end\n' > "$TMP/start.lua"
printf 'function on_comm() error("failing in on_comm") end\n' > "$TMP/comm.lua"
sleep 600 & SLEEPER=$!
trap 'kill $SLEEPER 2>/dev/null; rm -rf "$TMP"' EXIT

expect_status 0 "$LUAPROF" record -e cpu-clock -o x.data -- "$PROGS/spin" 100
expect_status 0 "$LUAPROF" record -e cpu-clock -o x.data -- "$PROGS/spin" 50
[ -s x.data ] && [ -s x.data.old ] || fail "no x.data and x.data.old to keep"
state() { LC_ALL=C ls -lA --time-style=+%s.%N; LC_ALL=C ls -ld --time-style=+%s.%N .; md5sum x.data x.data.old; }
state > "$TMP/before"

# fails LINE LUAPROF-ARGS...: luaprof ARGS exits 255 with LINE first on
# stderr, and w is as it was: the same files, the same sums.
fails() {
	local line=$1 rc; shift
	"$LUAPROF" "$@" > "$TMP/out" 2> "$TMP/err"; rc=$?
	state > "$TMP/after"
	diff "$TMP/before" "$TMP/after" || { cat "$TMP/err"; fail "luaprof $* changed x.data, x.data.old or the directory"; }
	[ "$rc" = 255 ] || { cat "$TMP/err"; fail "luaprof $* exited $rc, expected 255"; }
	grep -v "^luaprof: no hardware 'cycles'" "$TMP/err" | head -1 | grep -qE "^luaprof: $line" ||
		{ cat "$TMP/err"; fail "luaprof $*: the first line is not 'luaprof: $line'"; }
}

for i in 1 2; do        # twice: the second used to rename the first's empty file over .old
	fails "cannot run '/nonexistent': No such file or directory" record -e cpu-clock -o x.data -- /nonexistent
	fails "cannot run 'no-such-command': No such file or directory" run top -e cpu-clock -o x.data -- no-such-command
done
fails "cannot run '.*notexec': Permission denied" record -e cpu-clock -o x.data -- "$TMP/notexec"
fails "no process with pid 4194303" record -e cpu-clock -o x.data -p 4194303
[ -d /sys/bus/event_source/devices/cpu ] ||   # no PMU: the kernel refuses hardware events
	fails "cannot open event 'branch-misses'.*not supported on this machine" record -e branch-misses -o x.data -- "$PROGS/spin" 10
fails "unknown event 'no-such-event'" record -e no-such-event -o x.data -- "$PROGS/spin" 10
fails ".*failing in on_start" run "$TMP/start.lua" -e cpu-clock -o x.data -- "$PROGS/spin" 10
fails ".*failing in on_comm" run "$TMP/comm.lua" -e cpu-clock -o x.data -p "$SLEEPER"
echo "ok: x.data and x.data.old are kept whole through runs that never start"
