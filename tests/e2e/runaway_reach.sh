# The runaway guard reaches every Lua thread and the finalizers.  An endless
# loop inside a coroutine (coroutine.resume, coroutine.wrap: Lua's hooks
# are per thread) is stopped by --script-timeout and by Ctrl-C, with the
# message naming the loop's line, as a loop in the hook itself is (exit
# 255; on_end then runs, with info.error).  A __gc finalizer, where Lua runs no hook at all, that
# loops at the end (the state's final collection) or mid-run ends luaprof
# once it is overdue, with one line saying why, under --script-timeout,
# SIGTERM or SIGINT; a pcall that catches the error over and over too.
# Each within 10 s (all of these used to run until SIGKILL), the process
# and the command gone.
. "$(dirname "$0")/lib.sh"
need_perf_events
cd "$TMP"

cat > co.lua <<'LUA'
local n = 0
function on_sample(s)
  n = n + 1
  if n < 3 then return end
  io.open("looping", "w"):close()
  local co = coroutine.create(function()
    local x = 0
    while true do x = x + 1 end
  end)
  print("resumed", coroutine.resume(co))
end
function on_end() print("on_end ran") end
LUA
cat > wrap.lua <<'LUA'
local loop = coroutine.wrap(function()
  coroutine.yield()
  io.open("looping", "w"):close()
  while true do end
end)
loop()          -- created and started at the top level, resumed from on_sample
function on_sample(s) loop() end
function on_end() print("on_end ran") end
LUA
cat > caught.lua <<'LUA'
function on_sample(s)
  io.open("looping", "w"):close()
  while true do pcall(function() while true do end end) end
end
function on_end() print("on_end ran") end
LUA
cat > gc_end.lua <<'LUA'
function on_end()
  keep = setmetatable({}, { __gc = function() while true do end end })
  print("on_end ran")
  io.stdout:flush()
end
LUA
cat > gc_mid.lua <<'LUA'
local n = 0
function on_sample(s)
  n = n + 1
  if n < 3 then return end
  io.open("looping", "w"):close()
  setmetatable({}, { __gc = function() while true do end end })
  collectgarbage()
end
function on_end() print("on_end ran") end
LUA

# stops NAME SIG WAITFOR STATUS MESSAGE ARGS...: luaprof ARGS (out and err
# in NAME.out, NAME.err); once the file WAITFOR exists (or at once for -),
# SIG to luaprof (- for none); it must be gone within 10 s with STATUS, its
# stderr's first line matching MESSAGE, and no spin it started left.
stops() {
	local name=$1 sig=$2 waitfor=$3 want=$4 msg=$5 p i rc; shift 5
	rm -f looping
	"$LUAPROF" "$@" > "$name.out" 2> "$name.err" & p=$!
	if [ "$waitfor" != - ]; then
		for i in $(seq 400); do [ -e "$waitfor" ] && break; sleep 0.05; done
	fi
	[ "$sig" != - ] && kill -"$sig" $p
	for i in $(seq 200); do kill -0 $p 2>/dev/null || break; sleep 0.05; done
	if kill -0 $p 2>/dev/null; then
		kill -KILL $p
		wait $p
		cat "$name.err"
		fail "$name: luaprof still ran 10 s later (signal: $sig)"
	fi
	wait $p; rc=$?
	[ "$rc" = "$want" ] || { cat "$name.out" "$name.err"; fail "$name: exit $rc, expected $want"; }
	head -1 "$name.err" | grep -qE -- "$msg" ||
		{ cat "$name.err"; fail "$name: the first line is not /$msg/"; }
	wait_gone "$PROGS/spin 2000[1-7]" || fail "$name: the command was left running"
	echo "$name: $(head -1 "$name.err")"
}

SPIN=$PROGS/spin
stops co-timeout - - 255 '^luaprof: \./co\.lua:8: on_sample ran longer than --script-timeout 0\.3 s: stopped$' \
	run ./co.lua --script-timeout 0.3 -e cpu-clock -- "$SPIN" 20001
grep -q 'resumed' co-timeout.out && fail "co-timeout: the resume returned"
expect_grep '^on_end ran$' co-timeout.out     # what was gathered is kept (issue 32)
stops co-int INT looping 255 '^luaprof: \./co\.lua:8: on_sample interrupted by SIGINT \(Ctrl-C\)$' \
	run ./co.lua -e cpu-clock -- "$SPIN" 20002
stops wrap-timeout - - 255 '^luaprof: \./wrap\.lua:4: on_sample ran longer than --script-timeout 0\.3 s: stopped$' \
	run ./wrap.lua --script-timeout 0.3 -e cpu-clock -- "$SPIN" 20003
stops wrap-term TERM looping 255 '^luaprof: \./wrap\.lua:4: on_sample interrupted by SIGTERM$' \
	run ./wrap.lua -e cpu-clock -- "$SPIN" 20004
stops caught - - 255 '^luaprof: on_sample ran longer than --script-timeout 0\.3 s and did not stop: it runs where no hook reaches' \
	run ./caught.lua --script-timeout 0.3 -e cpu-clock -- "$SPIN" 20005
# finalizers: at the end (after on_end) and mid-run
GCEND='^luaprof: the __gc finalizers at the end'
stops gc-end-timeout - - 255 "$GCEND ran longer than --script-timeout 0\.3 s: Lua runs no hook in a __gc finalizer, so luaprof exits without finishing them\$" \
	run ./gc_end.lua --script-timeout 0.3 -e cpu-clock -- true
expect_grep '^on_end ran$' gc-end-timeout.out
for sig in TERM INT; do
	name=$(echo "$sig" | tr A-Z a-z)
	# on_end has printed: the state is closing when the signal comes
	"$LUAPROF" run ./gc_end.lua -e cpu-clock -- true > gc-end-$name.out 2> gc-end-$name.err & p=$!
	for i in $(seq 400); do grep -q 'on_end ran' gc-end-$name.out && break; sleep 0.05; done
	sleep 0.2
	kill -$sig $p
	for i in $(seq 200); do kill -0 $p 2>/dev/null || break; sleep 0.05; done
	kill -0 $p 2>/dev/null && { kill -KILL $p; fail "gc-end-$name: luaprof still ran 10 s after SIG$sig"; }
	wait $p; rc=$?
	[ $rc = 255 ] || { cat gc-end-$name.err; fail "gc-end-$name: exit $rc, expected 255"; }
	expect_grep "$GCEND did not stop at SIG$sig( \\(Ctrl-C\\))?: Lua runs no hook in a __gc finalizer, so luaprof exits without finishing them\$" gc-end-$name.err
	echo "gc-end-$name: $(head -1 gc-end-$name.err)"
done
stops gc-mid-timeout - - 255 '^luaprof: on_sample ran longer than --script-timeout 0\.3 s and did not stop: it runs where no hook reaches \(a __gc finalizer' \
	run ./gc_mid.lua --script-timeout 0.3 -e cpu-clock -- "$SPIN" 20006
stops gc-mid-int INT looping 255 '^luaprof: on_sample did not stop at SIGINT \(Ctrl-C\): it runs where no hook reaches \(a __gc finalizer' \
	run ./gc_mid.lua -e cpu-clock -- "$SPIN" 20007
exit 0
