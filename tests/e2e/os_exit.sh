# os.exit in a script ends the run at once, as in plain Lua, and luaprof
# still ends it its own way: called in on_sample under -o, luaprof exits
# with its code, no further hook runs (on_end included), and the recording
# is closed: perf reads it, holding the samples the script saw.  At the top
# level nothing is started; in on_end it sets the exit status.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
cd "$TMP"
cat > ex.lua <<'LUA'
local n = 0
function on_sample(s)
  n = n + 1
  if n == 50 then print("exiting at", n) os.exit(3) end
end
function on_end() print("on_end ran") end
LUA
expect_status 3 "$LUAPROF" run ./ex.lua -F 999 -o ex.data -- "$PROGS/spin" 3000
expect_grep '^exiting at	50$' "$TMP/out"
grep -q 'on_end ran' "$TMP/out" && fail "on_end ran after os.exit"
if command -v perf >/dev/null; then
	perf report -i ex.data --stats > stats.txt 2> perf.err || fail "perf cannot read the recording: $(head -3 perf.err)"
	grep -qi 'warning' perf.err && fail "perf warns on the recording: $(head -3 perf.err)"
	grep -qE 'SAMPLE events: +50( |$)' stats.txt || fail "the recording does not hold the 50 samples: $(grep SAMPLE stats.txt)"
fi
printf 'os.exit(false)\nfunction on_end() print("on_end ran") end\n' > top.lua
expect_status 1 "$LUAPROF" run ./top.lua -- sh -c 'touch started'
[ -e started ] && fail "the command ran though the script's top level called os.exit"
[ -s "$TMP/out" ] && fail "a hook ran after os.exit at the top level"
printf 'function on_end() print("end") os.exit(7) end\n' > end.lua
expect_status 7 "$LUAPROF" run ./end.lua -- true
expect_grep '^end$' "$TMP/out"
exit 0
