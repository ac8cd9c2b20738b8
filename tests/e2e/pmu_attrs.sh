# The perf_event_attr of raw, cache and PMU events, per-event terms,
# watchpoints and groups is perf 6.1's for the same -e string, field by
# field (what is counted, how it is sampled, who may see it), compared
# with what perf record -vv prints before it opens them: the machine
# needs no hardware PMU for that (most of these cannot be opened here).
# And a PMU's terms counted for real where the machine has one (msr/tsc/,
# system-wide).
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed"
command -v python3 >/dev/null || skip "python3 is not installed"
# compare EVENTS: perf record -vv's attrs for the -e list against luaprof's
compare() {
	perf record -vv -e "$1" -o "$TMP/p.data" -- true > "$TMP/perf" 2>&1
	grep -q '^perf_event_attr:' "$TMP/perf" || { head -5 "$TMP/perf"; fail "perf printed no attr for $1"; }
	"$LUAPROF" list --attr "$1" > "$TMP/ours" 2>&1 || fail "luaprof list --attr $1: $(cat "$TMP/ours")"
	python3 "$ROOT/tests/e2e/attrcmp.py" "$TMP/perf" "$TMP/ours" "$1" > "$TMP/diff" ||
		{ cat "$TMP/diff"; fail "the attrs of '$1' differ from perf's"; }
	compared=$((compared + 1))
}
compared=0
# what this machine can open: one perf run each list
compare 'cs:u,cpu-clock/period=1000/,cpu-clock/freq=100/,cpu-clock/call-graph=fp/,cpu-clock/call-graph=dwarf/,cpu-clock/period=1000/u,cpu-clock/stack-size=4096,call-graph=dwarf/,page-faults/period=1/,page-faults/period=10/k'
compare 'mem:0x1000:w,mem:0x1008/8:rw,mem:0x2000:x,mem:0x1010'
compare 'mem:0x1000/2:r'
for g in '{cpu-clock,page-faults}' '{cpu-clock,page-faults}:S' '{cpu-clock,page-faults}:u'; do compare "$g"; done
# what needs a hardware PMU: perf stat -vv prints each attr and goes on past
# those the machine cannot count (what is counted compared, not sampling)
hw='r1a8:u,r003c,L1-dcache-load-misses,L1-dcache-loads,LLC-loads,LLC-load-misses,dTLB-load-misses,iTLB-load-misses,branch-loads,branch-load-misses,node-stores,L1-dcache-prefetch-misses,cycles:u,instructions:k,cache-misses,ref-cycles:ppp'
perf stat -vv -e "$hw" -- true > "$TMP/perf" 2>&1
"$LUAPROF" list --attr "$hw" > "$TMP/ours" 2>&1 || fail "luaprof list --attr: $(cat "$TMP/ours")"
python3 "$ROOT/tests/e2e/attrcmp.py" "$TMP/perf" "$TMP/ours" "$hw" counting > "$TMP/diff" ||
	{ cat "$TMP/diff"; fail "the attrs of the hardware events differ from perf's"; }
compared=$((compared + 16))
# and one sampling, each (perf record prints the attr before it fails)
compare r1a8:u
compare L1-dcache-load-misses
[ -d /sys/bus/event_source/devices/msr ] && for e in msr/tsc/ msr/event=0x1/ msr/event=0x2/u; do compare "$e"; done
echo "$compared event strings: the same attrs as perf 6.1"
# msr/tsc/ counts the time-stamp counter: about its frequency times the CPUs times the run
if [ -d /sys/bus/event_source/devices/msr ] && [ "$(id -u)" = 0 ]; then
	expect_status 0 "$LUAPROF" stat -a -e msr/tsc/,cpu-clock -- sleep 0.2
	tsc=$(awk '$2 == "msr/tsc/" {print $1}' "$TMP/err")
	[ -n "$tsc" ] && [ "$tsc" -gt 10000000 ] || fail "msr/tsc/ counted '$tsc' in 0.2 s: $(cat "$TMP/err")"
fi
exit 0
