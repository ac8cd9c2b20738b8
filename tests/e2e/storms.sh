# A fork storm (1000 short processes, 32 at a time) and a thread storm (500
# threads): no crash, and every sample is attributed to the right process,
# thread and command name, checked against the workload's own log of the
# ids it gave each name.  A child names itself first thing, so a sample
# may still carry the parent's name ("storm") in the time before: such a
# sample must come before the child's rename (its COMM record), and every
# sample after the rename must carry the new name.  How many samples fall
# before a rename depends on the machine's speed (32 children share 2 CPUs),
# so that is printed, not bounded.  Nearly every child burns enough CPU
# (4 ms at 4000 Hz: ~16 samples) to be seen.
. "$(dirname "$0")/lib.sh"
need_perf_events
cd "$TMP"

# check MODE LOG OUT PARENT: the attribution of every sample in OUT (read
# twice: first for each child's rename time).
check() {
	local mode=$1
	awk -v mode="$mode" -v parent="$4" '
		FNR == 1 { file++ }
		file == 1 { name[$1] = $2; next }
		file == 2 { if ($1 == "comm" && ($3 in name) && $4 == name[$3]) renamed[$3] = $5; next }
		$1 == "end" { samples = $2; next }
		$1 == "comm" { next }
		{
			n++
			id = mode == "fork" ? $1 : $2
			if (mode == "fork" && $1 != $2) { bad++; if (bad < 5) print "pid != tid: " $0; next }
			if (mode == "thread" && $1 != parent) { bad++; if (bad < 5) print "not the process: " $0; next }
			if (id == parent) { if ($3 != "storm") { bad++; if (bad < 5) print "parent named " $3 } next }
			if (!(id in name)) { bad++; if (bad < 5) print "unknown id: " $0; next }
			if (!(id in renamed)) { bad++; if (bad < 5) print "a sample before its rename record was read: " $0; next }
			if ($3 == name[id] && $4 >= renamed[id]) { seen[id] = 1; right++ }
			else if ($3 == "storm" && $4 < renamed[id]) early++
			else { bad++; if (bad < 5) print "wrong name: " $0 " (log: " name[id] ", renamed at " renamed[id] ")" }
		}
		END {
			for (k in name) total++
			for (k in seen) nseen++
			printf "%s: %d samples, %d of %d children seen, %d named before their rename, %d wrong\n",
				mode, n, nseen, total, early, bad
			if (n != samples) { print "printed " n " samples, on_end says " samples; exit 1 }
			if (bad) exit 1
			if (nseen < total * 0.9) { print "too few children seen"; exit 1 }
		}' "$2" "$3" "$3"
}

"$LUAPROF" run "$CHECKS/attrib.lua" -e cpu-clock -F 4000 -- "$PROGS/storm" fork 1000 4 fork.log \
	> fork.out 2> fork.err || { cat fork.err; fail "luaprof failed on the fork storm"; }
parent=$(awk '$3 == "storm" && $1 == $2 {print $1; exit}' fork.out)
[ "$(wc -l < fork.log)" = 1000 ] || fail "the fork storm logged $(wc -l < fork.log) children"
check fork fork.log fork.out "$parent" || fail "fork storm: samples attributed wrongly"

"$LUAPROF" run "$CHECKS/attrib.lua" -e cpu-clock -F 4000 -- "$PROGS/storm" thread 500 4 thread.log \
	> thread.out 2> thread.err || { cat thread.err; fail "luaprof failed on the thread storm"; }
parent=$(awk '$1 != "end" && $1 != "comm" {print $1; exit}' thread.out)
[ "$(wc -l < thread.log)" = 500 ] || fail "the thread storm logged $(wc -l < thread.log) threads"
check thread thread.log thread.out "$parent" || fail "thread storm: samples attributed wrongly"
