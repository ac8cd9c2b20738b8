# Ending a run early: Ctrl-C at a terminal, a kill of luaprof alone, and
# luaprof.exit() all drain the rings, run on_end completely, and leave no
# command behind; the command's status comes through.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v python3 >/dev/null || skip "python3 is needed to drive a terminal (make deps installs it)"
# Ctrl-C typed at a real terminal (a pty): both luaprof and the command get
# SIGINT from the terminal, as they would without luaprof.
python3 - "$LUAPROF" "$CHECKS/on_end_marker.lua" "$PROGS/spin" > "$TMP/pty" <<'PY'
import os, pty, sys, time, select
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], [sys.argv[1], "run", sys.argv[2], "--", sys.argv[3], "20000"])
out = b""
def pump(t):
    global out
    end = time.time() + t
    while time.time() < end:
        r, _, _ = select.select([fd], [], [], 0.05)
        if r:
            try: out += os.read(fd, 4096)
            except OSError: return
end = time.time() + 20      # until on_start has run (the command started)
while b"start " not in out and time.time() < end:
    pump(0.05)
pump(0.2)
os.write(fd, b"\x03")
pump(3)
_, st = os.waitpid(pid, 0)
sys.stdout.write(out.decode(errors="replace"))
print("exit", os.waitstatus_to_exitcode(st))
PY
expect_grep "^complete" "$TMP/pty"
expect_grep "status 130" "$TMP/pty"
expect_grep "^exit 130" "$TMP/pty"
! pgrep -f "$PROGS/spin 20000" >/dev/null || fail "the command survived Ctrl-C"
# SIGINT sent to luaprof alone is passed on to the command.
"$LUAPROF" run "$CHECKS/on_end_marker.lua" -- "$PROGS/spin" 20001 >"$TMP/out" 2>"$TMP/err" & lp=$!
wait_for_line "$TMP/out" "^start "
sleep 0.2
kill -INT $lp
wait $lp; rc=$?
[ $rc = 130 ] || fail "luaprof exited $rc after SIGINT, expected 130 (the command's SIGINT)"
expect_grep "^complete" "$TMP/out"
! pgrep -f "$PROGS/spin 20001" >/dev/null || fail "the command survived a SIGINT to luaprof"
# luaprof.exit(): on_end sees exactly the samples delivered.
expect_status 143 "$LUAPROF" run "$CHECKS/exit_early.lua" -- "$PROGS/spin" 20002
expect_grep "^delivered 10 seen 10$" "$TMP/out"
! pgrep -f "$PROGS/spin 20002" >/dev/null || fail "the command survived luaprof.exit()"
