# Recordings made by perf record (frame pointers, DWARF call graphs, -z,
# pipe mode into stdin, several events, tracepoints): luaprof's per-function
# sample counts equal perf report's on the same file, exactly, PLT stubs
# (NAME@plt) included; per event, and the sample count of each event equals
# perf script's.
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to compare with"
compare() {     # compare FILE [EVENT]: luaprof -i FILE against perf report
	local f=$1
	perf_symtable -i "$f" > "$TMP/theirs"
	"$LUAPROF" run "$CHECKS/symcount.lua" -i "$f" > "$TMP/all" 2>"$TMP/err" || { cat "$TMP/err"; fail "luaprof -i $f failed"; }
	grep -v ' \[?\] ' "$TMP/all" | sum_plt | sort > "$TMP/ours"
	diff "$TMP/theirs" "$TMP/ours" > "$TMP/diff" || { head -20 "$TMP/diff"; fail "per-function counts differ from perf report on $(basename "$f")"; }
	[ -s "$TMP/ours" ] || fail "no named samples in $(basename "$f")"
}
frame_pointers() {
	perf record -q -g -F 2000 -o "$TMP/fp.data" -- "$PROGS/leafs" 100 >/dev/null 2>&1 || fail "perf record -g failed"
	compare "$TMP/fp.data"
}
flat() {
	perf record -q -F 2000 -o "$TMP/flat.data" -- "$PROGS/forkexec" "$PROGS/spin" 150 >/dev/null 2>&1 || fail "perf record failed"
	compare "$TMP/flat.data"
}
plt() {
	perf record -q -g -F 4000 -o "$TMP/plt.data" -- "$PROGS/pltcalls" 150 >/dev/null 2>&1 || fail "perf record pltcalls failed"
	compare "$TMP/plt.data"
	grep -q '@plt$' "$TMP/theirs" || fail "no NAME@plt samples in the pltcalls recording"
}
dwarf() {
	perf record -q --call-graph dwarf -F 1000 -o "$TMP/dwarf.data" -- "$PROGS/leafs" 40 >/dev/null 2>&1 || fail "perf record --call-graph dwarf failed"
	compare "$TMP/dwarf.data"
}
compressed() {
	perf record -q -z -F 2000 -o "$TMP/z.data" -- "$PROGS/leafs" 60 >/dev/null 2>&1 ||
		skip "this perf cannot write -z (no zstd): compressed recording not checked"
	compare "$TMP/z.data"
}
# compare_events FILE EVENT...: per event, the sample count equals perf
# script's and the per-function counts equal that event's perf report table.
compare_events() {
	local f=$1; shift
	perf script -i "$f" -F event 2>/dev/null | sed 's/: *$//; s/^ *//' | sort | uniq -c |
		awk '{print "event", $2, $1}' | sort > "$TMP/theirs"
	"$LUAPROF" run "$CHECKS/comms.lua" -i "$f" > "$TMP/out" 2>"$TMP/err" || { cat "$TMP/err"; fail "luaprof -i $f failed"; }
	grep '^event ' "$TMP/out" | sort | diff "$TMP/theirs" - || fail "$(basename "$f"): samples per event differ from perf script's"
	for ev in "$@"; do
		grep -q "^event $ev " "$TMP/out" || fail "$(basename "$f"): no $ev samples"
	done
	perf report -i "$f" --stdio --no-children --sort sym -F sample,sym -g none 2>/dev/null |
		awk '/^# Samples: .* of event / {ev = $0; sub(/.* of event \047/, "", ev); sub(/\047.*/, "", ev)}
		     NF >= 3 && $2 ~ /^\[[k.]\]$/ && $3 !~ /^0x/ {print ev, $1, $2, $3}' | sum_plt 2 | sort > "$TMP/theirs"
	"$LUAPROF" run "$CHECKS/evsymcount.lua" -i "$f" 2>"$TMP/err" | grep -v ' \[?\] ' | sum_plt 2 | sort > "$TMP/ours"
	diff "$TMP/theirs" "$TMP/ours" > "$TMP/diff" || { head -20 "$TMP/diff"; fail "per-event, per-function counts differ from perf report on $(basename "$f")"; }
}
multi() {
	perf record -q -e cpu-clock,page-faults -F 2000 -o "$TMP/multi.data" -- "$PROGS/faults" 16 >/dev/null 2>&1 || fail "perf record with two events failed"
	compare_events "$TMP/multi.data" cpu-clock page-faults
}
# tracepoints (samples with PERF_SAMPLE_RAW, period 1) next to cpu-clock, with call chains
tracepoints() {
	have_tracefs || skip "no tracefs, and not root to mount it: tracepoint recording not checked"
	perf record -q -g -e cpu-clock,sched:sched_switch,syscalls:sys_enter_getppid -o "$TMP/tp.data" \
		-- "$PROGS/syscalls" 100 >/dev/null 2>"$TMP/perr" ||
		fail "perf record of tracepoints failed: $(head -1 "$TMP/perr")"
	compare_events "$TMP/tp.data" cpu-clock syscalls:sys_enter_getppid
}
# pipe mode, read from stdin
pipe() {
	perf record -q -g -F 2000 -o - -- "$PROGS/leafs" 60 2>/dev/null > "$TMP/pipe.data" || fail "perf record -o - failed"
	"$LUAPROF" run "$CHECKS/symcount.lua" -i - < "$TMP/pipe.data" > "$TMP/pipe" 2>"$TMP/err" || { cat "$TMP/err"; fail "luaprof -i - failed"; }
	perf_symtable -i - < "$TMP/pipe.data" > "$TMP/theirs"
	grep -v ' \[?\] ' "$TMP/pipe" | sum_plt | sort | diff "$TMP/theirs" - || fail "pipe mode: counts differ from perf report"
}

scenario "frame pointers (-g)" frame_pointers
scenario "no call graph, fork and exec" flat
scenario "PLT stubs" plt
scenario "--call-graph dwarf" dwarf
scenario "-z" compressed
scenario "two events" multi
scenario "tracepoints" tracepoints
scenario "pipe mode, from stdin" pipe
scenarios_done
