# JIT code: a program that generates functions in an anonymous executable
# map and names them in /tmp/perf-PID.map (jit_second only after it has
# run jit_first a while: the map is re-read) has them named, with the map
# file as their dso, live and on replay; perf report names perf's own
# recording of it the same, sample for sample per function.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
cd "$TMP"
pids=()
trap 'for p in "${pids[@]}"; do rm -f "/tmp/perf-$p.map"; done; rm -rf "$TMP"' EXIT
cat > jitsyms.lua <<'LUA'
local c = {}
function on_start(info) if info.pid then print("pid " .. info.pid) end end
function on_sample(s)
  if s.kernel then return end
  local k = (s.sym or "?") .. " " .. tostring(s.dso)
  c[k] = (c[k] or 0) + 1
end
function on_end() for k, n in pairs(c) do print(n .. " " .. k) end end
LUA
# check OUT PID LABEL: both functions named with the map file as dso, and
# at most 2% of the JIT samples unnamed
check() {
	local map="/tmp/perf-$2.map" first second anon
	first=$(awk -v m="$map" '$2 == "jit_first" && $3 == m {print $1}' "$1")
	second=$(awk -v m="$map" '$2 == "jit_second" && $3 == m {print $1}' "$1")
	anon=$(awk -v m="$map" '$2 == "?" && $3 == m {n += $1} END {print n + 0}' "$1")
	[ "${first:-0}" -ge 100 ] && [ "${second:-0}" -ge 100 ] ||
		{ cat "$1"; fail "$3: jit_first ${first:-0}, jit_second ${second:-0} samples named from $map"; }
	[ $((anon * 50)) -le $((first + second)) ] || fail "$3: $anon JIT samples unnamed"
	echo "$3: jit_first $first, jit_second $second, unnamed $anon"
}
"$LUAPROF" run ./jitsyms.lua -F 999 -o jit.data -- "$PROGS/jit" 400 400 > out 2>err || { cat err; fail "luaprof run failed"; }
pid=$(awk '/^pid / {print $2}' out); pids+=("$pid")
check out "$pid" live
"$LUAPROF" run ./jitsyms.lua -i jit.data > replay 2>err || { cat err; fail "replay failed"; }
check replay "$pid" replay
command -v perf >/dev/null || exit 0
perf record -q -F 999 -o perf.data -- "$PROGS/jit" 300 300 >/dev/null 2>&1 || fail "perf record failed"
pids+=("$(perf script -i perf.data -F pid 2>/dev/null | head -1 | tr -d ' ')")
perf_symtable -i perf.data | grep ' jit_' > theirs
"$LUAPROF" run "$CHECKS/symcount.lua" -i perf.data 2>/dev/null | grep ' jit_' | sort > ours
diff theirs ours || fail "JIT functions counted otherwise than by perf report"
[ "$(wc -l < ours)" = 2 ] || fail "perf's recording: not both JIT functions named"
