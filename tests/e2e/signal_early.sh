# A signal at any moment of a run's start-up ends it as one mid-run does.
# SIGTERM to record -a, run -a, run -a -o and top: sent at once (before
# luaprof has its handler: the default action kills it), the moment its
# handler is in (/proc/PID/status SigCgt: then the events are still being
# opened and /proc read, when the signal used to be noted and forgotten,
# the run going on until a second one), and a little later.  Each must end
# within 10 s with 143, as perf record does; a run's on_end still runs
# (count's report), and a recording is closed (or, when the signal came
# before the events were on, none is made, as for a run that cannot
# start, and one line says so).  With a command, the
# command is never started, and on_end runs with no status.
. "$(dirname "$0")/lib.sh"
need_perf_events
cd "$TMP"

# started PID: whether PID runs luaprof (the shell's fork has exec'd: a
# signal before would end the fork, with its copy of lib.sh's EXIT trap).
EXE=$(readlink -f "$LUAPROF")
started() {
	[ "$(readlink "/proc/$1/exe" 2>/dev/null)" = "$EXE" ]
}
# handled PID: whether PID has its SIGTERM handler (bit 15 of SigCgt).
handled() {
	local m
	m=$(awk '/^SigCgt/ {print $2}' "/proc/$1/status" 2>/dev/null) && [ -n "$m" ] &&
		(( (0x$m >> 14) & 1 ))
}

# early WHEN NAME ARGS...: luaprof ARGS (output in NAME.out, NAME.err), sent
# SIGTERM at WHEN: "spawn" (as soon as it runs), "handler" (as soon as it
# catches SIGTERM), "later" (50 ms after that); fails unless it is gone
# within 10 s with exit 143.
early() {
	local when=$1 name=$2 p i rc; shift 2
	"$LUAPROF" "$@" > "$name.out" 2> "$name.err" & p=$!
	for i in $(seq 4000); do
		started $p && { [ "$when" = spawn ] || handled $p; } && break
		kill -0 $p 2>/dev/null || break
	done
	[ "$when" = later ] && sleep 0.05
	kill -TERM $p
	for i in $(seq 200); do kill -0 $p 2>/dev/null || break; sleep 0.05; done
	if kill -0 $p 2>/dev/null; then
		kill -TERM $p; sleep 1; kill -KILL $p 2>/dev/null
		wait $p
		cat "$name.err"
		fail "$* kept running 10 s after SIGTERM at $when (the signal was lost)"
	fi
	wait $p; rc=$?
	[ $rc = 143 ] || { cat "$name.out" "$name.err"; fail "$* exited $rc after SIGTERM at $when, expected 143"; }
}

# After the signal, where the handler ran, the run ended as a mid-run one
# does.  recorded R WHEN: a signal before the events were on stops a run
# that never started: no recording, said in one line (as a run that
# cannot start leaves -o's file as it was); after, the recording reads back
recorded() {
	local r=$1 when=$2 f=$1.$2.data
	if [ ! -e $f ]; then
		expect_grep "came before the run started: nothing recorded, $f left as it was" $r.$when.err
		return
	fi
	"$LUAPROF" run count -i $f > check.out 2> check.err ||
		{ cat check.err; fail "$f, recorded until an early SIGTERM, does not read back"; }
}
rec_case() {
	early $1 rec.$1 record -a -e cpu-clock -F 99 -o rec.$1.data
	[ $1 = spawn ] || recorded rec $1
}
all_case() {
	early $1 all.$1 run count -a -e cpu-clock -F 99
	[ $1 = spawn ] || expect_grep '^total: [0-9]+ samples' all.$1.out
}
allo_case() {
	early $1 allo.$1 run count -a -e cpu-clock -F 99 -o allo.$1.data
	[ $1 = spawn ] || { expect_grep '^total: [0-9]+ samples' allo.$1.out; recorded allo $1; }
}
top_case() {
	early $1 top.$1 top -e cpu-clock -F 99 -I 200
}

# Ended by the signal itself, as perf record -a is (a service manager
# takes that as a clean stop, an exit status of 143 as a failure).
signal_itself() {
	command -v python3 >/dev/null || skip "no python3: the wait status not checked"
	python3 - "$LUAPROF" <<'PY' || fail "run -a was not ended by the SIGTERM that stopped it"
import os, signal, subprocess, sys, time
p = subprocess.Popen([sys.argv[1], "run", "count", "-a", "-e", "cpu-clock", "-F", "99"],
                     stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
deadline = time.time() + 20
while time.time() < deadline:
    with open("/proc/%d/status" % p.pid) as f:
        cgt = [l.split()[1] for l in f if l.startswith("SigCgt")]
    if cgt and int(cgt[0], 16) & (1 << 14):
        break
    time.sleep(0.01)
p.send_signal(signal.SIGTERM)
out, _ = p.communicate(timeout=10)
print("run -a, SIGTERM: wait status", p.returncode, "(-15: ended by SIGTERM)")
sys.exit(0 if p.returncode == -signal.SIGTERM and b"total:" in out else 1)
PY
}

# A command: SIGTERM while on_start runs (the script waits there until the
# signal was sent).  The command is never started, on_end runs, with no
# status (the command has none), exit 143.
on_start() {
	cat > status.lua <<'LUA'
function on_start()
  io.open("in_start", "w"):close()
  while not io.open("go") do end
end
function on_end(info) print("on_end samples " .. info.samples .. " status " .. tostring(info.status)) end
LUA
	"$LUAPROF" run ./status.lua -e cpu-clock -- sh -c 'touch ran; exec "$0" 20000' "$PROGS/spin" \
		> cmd.out 2> cmd.err & p=$!
	for i in $(seq 400); do [ -e in_start ] && break; sleep 0.05; done
	kill -TERM $p
	touch go
	for i in $(seq 200); do kill -0 $p 2>/dev/null || break; sleep 0.05; done
	! kill -0 $p 2>/dev/null || { kill -KILL $p; fail "SIGTERM during on_start: still running after 10 s"; }
	wait $p; rc=$?
	[ $rc = 143 ] || { cat cmd.out cmd.err; fail "SIGTERM during on_start: exit $rc, expected 143"; }
	expect_grep '^on_end samples 0 status nil$' cmd.out
	! [ -e ran ] || fail "the command started though SIGTERM came before the run did"
	wait_gone "$PROGS/spin 20000" || fail "the command was left running"
	echo "SIGTERM during on_start, with a command: not run, on_end, 143"
}

for when in spawn handler later; do
	scenario "record -a, SIGTERM at $when" rec_case $when
	scenario "run -a, SIGTERM at $when" all_case $when
	scenario "run -a -o, SIGTERM at $when" allo_case $when
	scenario "top, SIGTERM at $when" top_case $when
done
scenario "ended by the signal itself" signal_itself
scenario "SIGTERM during on_start, with a command" on_start
scenarios_done
