# Two Ctrl-Cs end a run whose script is behind at once, and a third ends
# luaprof whatever holds it.  A script that
# takes 0.1 s a sample (it waits on a child: no CPU) falls seconds behind
# -F 200; the first SIGINT stops sampling (the command gets it and ends)
# and the script goes on through what was queued; the second skips the
# rest: luaprof is gone within 8 s (the queue held tens of seconds of the
# script's work, and used to be worked through to the end), on_end has
# run over the samples the script got, one line counts the ones skipped,
# the -o recording holds them all, and the exit status is the command's
# (130).
. "$(dirname "$0")/lib.sh"
need_perf_events
cd "$TMP"
cat > slow.lua <<'LUA'
local n = 0
function on_sample(s)
  n = n + 1
  if n == 1 then io.open("started", "w"):close() end
  io.popen("sleep 0.1"):close()
end
function on_end(info) print("on_end samples " .. info.samples .. " seen " .. n) end
LUA
"$LUAPROF" run ./slow.lua -e cpu-clock -F 200 -o slow.data -- "$PROGS/spin" 3000 > out 2> err & p=$!
for i in $(seq 400); do [ -e started ] && break; sleep 0.05; done
[ -e started ] || { kill -KILL $p; cat err; fail "no sample reached the script in 20 s"; }
sleep 1.5                       # the command runs on: 300 samples, 30 s of the script's work
kill -INT $p
sleep 0.5
kill -INT $p
for i in $(seq 160); do kill -0 $p 2>/dev/null || break; sleep 0.05; done
if kill -0 $p 2>/dev/null; then
	kill -KILL $p
	wait $p
	cat err
	fail "a second SIGINT did not end the run: still working through its queue 8 s later"
fi
wait $p; rc=$?
[ $rc = 130 ] || { cat out err; fail "exit $rc after two SIGINTs, expected 130 (the command's)"; }
expect_grep '^on_end samples [0-9]+ seen [0-9]+$' out
read -r _ _ got _ seen < out
[ "$got" = "$seen" ] || fail "on_end says $got samples, the script saw $seen"
expect_grep '^luaprof: a second signal: the [0-9]+ samples still queued for the script were skipped \(on_end sees the [0-9]+ it got; the recording has them all\)$' err
skipped=$(sed -n 's/^luaprof: a second signal: the \([0-9]*\) samples.*/\1/p' err)
[ "$skipped" -gt 0 ] || fail "nothing was skipped"
# the recording: every sample, the script's and the skipped ones
"$LUAPROF" run count -i slow.data > count.out 2> count.err || { cat count.err; fail "slow.data does not read back"; }
total=$(sed -n 's/^total: \([0-9]*\) samples.*/\1/p' count.out)
[ "$total" = $((got + skipped)) ] ||
	fail "the recording holds $total samples, the script got $got and skipped $skipped"
echo "two SIGINTs: on_end over $got samples, $skipped skipped (the recording has all $total), exit 130"

# A third SIGINT: on_end blocked in a C function (a read of a pipe nobody
# writes), which the guard's count hook never reaches; the third ends
# luaprof at once (the guard's own last resort comes a second later),
# with one line, exit 130.
cat > stuck.lua <<'LUA'
function on_end() print("in on_end") io.stdout:flush() io.read() end
LUA
mkfifo in
exec 3<>in
"$LUAPROF" run ./stuck.lua -e cpu-clock -- true < in > stuck.out 2> stuck.err & p=$!
for i in $(seq 400); do grep -q 'in on_end' stuck.out && break; sleep 0.05; done
kill -INT $p; sleep 0.1; kill -INT $p; sleep 0.1; kill -INT $p
for i in $(seq 60); do kill -0 $p 2>/dev/null || break; sleep 0.05; done
if kill -0 $p 2>/dev/null; then
	kill -KILL $p; wait $p; exec 3>&-
	fail "a third SIGINT did not end luaprof blocked in on_end"
fi
wait $p; rc=$?
exec 3>&-
[ $rc = 130 ] || { cat stuck.err; fail "exit $rc after a third SIGINT, expected 130"; }
expect_grep '^luaprof: a third signal \(SIGINT\): luaprof exits at once' stuck.err
echo "a third SIGINT: $(cat stuck.err)"
exit 0
