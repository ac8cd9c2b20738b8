# The profile writers fed every sample in C (luaprof.stacks; speedscope
# and pprof with feed = "all"), with no Lua per sample, write what they
# wrote when Lua fed them s.folded and s.stack, byte for byte: folded
# (roots per comm, process, thread), callgraph (both orders), flamegraph,
# speedscope (per thread, process) against a reference script doing it
# the old way (lua/fed_ref.lua), and pprof's samples against a script
# calling p:add(s) (the profiles equal but for their creation time): on
# --call-graph dwarf recordings with inlined frames (C and C++), -g ones
# of processes that fork and exec, of JIT code named by a perf map, and
# corpus recordings of many processes.  Then luaprof.stacks's own API
# (lua/stacks_api.lua): per event, sorted, errors.
. "$(dirname "$0")/lib.sh"
need_perf_events
cd "$TMP"

# same WHAT FILE A B: the two files are equal, else a failure naming WHAT
same() {
	cmp -s "$2" "$3" || { diff "$2" "$3" | head -5; fail "$1: the C-fed output differs from the reference"; }
}

# check NAME FILE: every writer on recording FILE against its reference
check() {
	local name=$1 f=$2 per order
	for per in comm process thread; do
		"$LUAPROF" run folded --per=$per -i "$f" > fold.c 2>/dev/null || fail "$name: folded --per=$per failed"
		"$LUAPROF" run "$CHECKS/fed_ref.lua" --mode=folded --per=$per -i "$f" > fold.ref 2>/dev/null ||
			fail "$name: the folded reference failed"
		same "$name folded --per=$per" fold.ref fold.c
	done
	[ -s fold.c ] || fail "$name: no stacks"
	for order in caller callee; do
		"$LUAPROF" run callgraph --order=$order --min=0 -i "$f" > cg.c 2>/dev/null ||
			fail "$name: callgraph failed"
		"$LUAPROF" run "$CHECKS/fed_ref.lua" --mode=callgraph --per=$order -i "$f" > cg.ref 2>/dev/null ||
			fail "$name: the callgraph reference failed"
		same "$name callgraph --order=$order" cg.ref cg.c
	done
	for per in thread process; do
		"$LUAPROF" run speedscope --per=$per --name=ref --out=- -i "$f" > sp.c 2>/dev/null ||
			fail "$name: speedscope failed"
		"$LUAPROF" run "$CHECKS/fed_ref.lua" --mode=speedscope --per=$per -i "$f" > sp.ref 2>/dev/null ||
			fail "$name: the speedscope reference failed"
		same "$name speedscope --per=$per" sp.ref sp.c
	done
	# the flame graph of the folded stacks (the same stacks as text)
	"$LUAPROF" run flamegraph --out=fg.c.svg -i "$f" 2>/dev/null || fail "$name: flamegraph failed"
	"$LUAPROF" run ./flame_ref.lua -i "$f" 2>/dev/null || fail "$name: the flame graph reference failed"
	same "$name flamegraph" fg.ref.svg fg.c.svg
	# pprof: the same profile but for the time it was made (two fields)
	"$LUAPROF" run pprof --per=thread --out=p.c.pb.gz -i "$f" 2>/dev/null || fail "$name: pprof failed"
	"$LUAPROF" run ./pprof_ref.lua -i "$f" 2>/dev/null || fail "$name: the pprof reference failed"
	gzip -dc p.c.pb.gz > p.c || fail "$name: pprof wrote no gzip file"
	gzip -dc p.ref.pb.gz > p.ref || fail "$name: the pprof reference wrote no gzip file"
	[ "$(stat -c %s p.c)" = "$(stat -c %s p.ref)" ] &&
		[ "$(cmp -l p.c p.ref | wc -l)" -le 16 ] || fail "$name: pprof's profile differs from p:add(s)'s"
	checked=$((checked + 1))
}

# the old flamegraph.lua and pprof.lua, fed from Lua
cat > flame_ref.lua <<'EOF'
local stacks = luaprof.map()
function on_sample(s) stacks:add(s.folded) end
function on_end(info)
  luaprof.flamegraph.write("fg.ref.svg", stacks, { subtitle = string.format("%d samples", info.samples) })
end
EOF
cat > pprof_ref.lua <<'EOF'
local p
function on_start(info)
  local ev = info.events[1] or "cpu-clock"
  local second = (ev:match("^cpu%-clock") or ev:match("^task%-clock")) and { "cpu", "nanoseconds" }
                 or { ev, "count" }
  p = luaprof.pprof{ sample_types = { { "samples", "count" }, second }, period = { second[1], second[2] },
                     default = "samples", labels = { "pid", "tid", "comm" } }
end
function on_sample(s) p:add(s) end
function on_end(info) p:write("p.ref.pb.gz", { duration = info.duration }) end
EOF

checked=0
pids=()
cleanup() { for p in "${pids[@]}"; do rm -f "/tmp/perf-$p.map"; done; rm -rf "$TMP"; }
trap cleanup EXIT
cc -O2 -g -o inlined "$ROOT/tests/progs/inlined.c" || fail "cannot build inlined.c"
expect_status 0 "$LUAPROF" record --call-graph dwarf -F 499 -o inl.data -- ./inlined 30
check "inlined (dwarf)" inl.data
if [ -x "$PROGS/cxxsort" ]; then
	expect_status 0 "$LUAPROF" record --call-graph dwarf -F 499 -o cxx.data -- "$PROGS/cxxsort" 20
	check "cxxsort (dwarf, C++)" cxx.data
fi
expect_status 0 "$LUAPROF" record -g -F 999 -o fork.data -- "$PROGS/forkexec" "$PROGS/spin" 200
check "forkexec (-g)" fork.data
expect_status 0 "$LUAPROF" record -g -F 999 -o jit.data -- \
	sh -c 'echo $$ > jit.pid; exec "$0" 200 200' "$PROGS/jit"
pids+=("$(cat jit.pid)")
check "jit (-g, perf map)" jit.data
corpus=$(perfdata_corpus)
for f in perf.data.systemwide.0-3.8 perf.data.forkexit-3.8 perf.data.callgraph-3.8; do
	[ -f "$corpus/$f" ] && check "$f" "$corpus/$f"
done

out=$("$LUAPROF" run "$CHECKS/stacks_api.lua" -i fork.data 2>&1) || fail "luaprof.stacks's API: $out"
[ "$out" = ok ] || fail "luaprof.stacks's API: $out"
echo "the writers fed in C equal the Lua-fed ones on $checked recordings"
