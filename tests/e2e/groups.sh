# Groups: {cpu-clock,page-faults} opens page-faults in cpu-clock's group,
# and every sample carries both counts (s.values), which only grow; with
# :S only the leader samples.  The last samples' page faults are most of
# what the run counted (info.values).
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
expect_status 0 "$LUAPROF" run "$CHECKS/groups.lua" -e '{cpu-clock,page-faults}:S' -c 2000000 -- "$PROGS/faults" 32
expect_grep '^event	cpu-clock	[0-9]+$' "$TMP/out"
grep -q '^event	page-faults' "$TMP/out" && fail "a :S group member sampled: $(cat "$TMP/out")"
expect_grep '^bad	0$' "$TMP/out"
# faults 32 touches 4 x 8192 pages; the samples saw most of them
awk '$1 == "faults" {exit !($2 > 16000 && $2 <= $3 && $3 < 34000)}' "$TMP/out" ||
	fail "group reads: $(grep faults "$TMP/out")"
# without :S both sample, each with the group's counts (each at its own
# period, named by name= terms)
expect_status 0 "$LUAPROF" run "$CHECKS/groups.lua" \
	-e '{cpu-clock/period=1000000,name=cpu-clock/,page-faults/period=1000,name=page-faults/}' -- "$PROGS/faults" 8
expect_grep '^event	page-faults	[0-9]+$' "$TMP/out"
expect_grep '^event	cpu-clock	[0-9]+$' "$TMP/out"
expect_grep '^bad	0$' "$TMP/out"
exit 0
