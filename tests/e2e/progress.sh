# A replay longer than two seconds shows a progress line on stderr when
# stderr is a terminal (a pty here), and nothing when it is not; the line
# is erased before the script's own output at the end.
. "$(dirname "$0")/lib.sh"
need_perf_events
cd "$TMP"
expect_status 0 "$LUAPROF" record -F 999 -o rec.data -- "$PROGS/spin" 1600
# about 1600 samples, 2 ms of work each: a replay of about 3.2 s, whose
# clock is read every 256 records (0.5 s), at 2.05, 2.56 and 3.07 s: two
# checks or more after the 2 s, on a replay of CPU time (a slower machine
# only lengthens it)
cat > slow.lua <<'LUA'
local n = 0
function on_sample() local t = os.clock() while os.clock() - t < 0.002 do end n = n + 1 end
function on_end() print("done", n) end
LUA
python3 - "$LUAPROF" <<'PY' > pty.txt || fail "the replay under a pty failed: $(cat pty.txt)"
import os, pty, subprocess, sys
master, slave = pty.openpty()
p = subprocess.Popen([sys.argv[1], "run", "./slow.lua", "-i", "rec.data"], stdout=subprocess.PIPE,
                     stderr=slave, stdin=subprocess.DEVNULL)
os.close(slave)
err = b""
while True:
    try:
        chunk = os.read(master, 4096)
    except OSError:
        break
    if not chunk:
        break
    err += chunk
out = p.stdout.read()
p.wait()
print(repr(err.decode(errors="replace")))
print(out.decode().strip())
PY
grep -qE 'luaprof: [0-9]+% \([0-9.]+/[0-9.]+ MiB\), [0-9.]+[KM]? samples/s' pty.txt || { cat pty.txt; fail "no progress line on a terminal"; }
grep -qE '^done.[0-9]+$' pty.txt || fail "the script's output is missing"
"$LUAPROF" run ./slow.lua -i rec.data > out.txt 2> err.txt || fail "the replay failed"
# (a BPF program another test loaded may leave a frame unnamed, and say so)
grep -v '^luaprof: kernel frames in no kernel map' err.txt | grep -q . &&
	{ cat err.txt; fail "progress was shown with stderr not a terminal"; }
exit 0
