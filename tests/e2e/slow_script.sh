# slow_script: a script slower than the samples costs none of them.  The
# rings are drained by a thread of their own into a queue in memory, so a
# script that spends 50 us on each sample at -F 20000 -g (as much CPU as
# the workload's) loses none: 0 lost, and each sample the kernel wrote
# (the -o recording's, counted by perf script) delivered exactly once
# (by CPU and time) and in time order.  With --queue-size=256K, 4-page
# rings and 300 us a sample (1 s of CPU at -F 20000 -g: about 2 MB of
# samples, seven times what the queue and the rings hold) the bound is
# reached: its line, the kernel's losses counted, the delivered and lost
# samples adding up to the recording's samples and losses, still in time
# order, and exit 0.  How far the script fell behind goes to on_end
# (info.backlog); stderr says nothing of it while the queue held the
# backlog with room to spare (no sample was at risk), and past the bound
# says only that.
. "$(dirname "$0")/lib.sh"
need_perf_events
cd "$TMP"
S=$CHECKS/slow_sample.lua

# a script as slow as the workload: nothing lost
as_slow() {
	expect_whole 0 "$LUAPROF" run "$S" -F 20000 -g -o slow.data -- "$PROGS/spin" 2000
	cp out slow.out; cp err slow.err
	read -r _ got _ disorder _ dup _ lost < <(grep '^delivered' slow.out) || fail "no end line"
	[ "$lost" = 0 ] || fail "lost $lost samples"
	[ "$disorder" = 0 ] || fail "$disorder samples out of time order"
	[ "$dup" = 0 ] || fail "$dup samples delivered twice"
	want=$(perf script -i slow.data -F time 2>/dev/null | grep -c .)
	[ "$got" = "$want" ] || fail "delivered $got samples, the recording has $want"
	[ "$got" -gt 10000 ] || fail "only $got samples at -F 20000 over 2 s of CPU"
	grep -q 'fell behind' slow.err && { cat slow.err; fail "a backlog the queue held with room to spare was said on stderr"; }
	read -r _ isamples isecs < <(grep '^backlog' slow.out) || fail "no info.backlog line"
	[ "$isamples" -gt 0 ] || fail "info.backlog.samples is $isamples"
}

# the bound: 256 KiB, a script six times slower than the samples
bound() {
	expect_status 0 "$LUAPROF" run "$S" -A 300 -F 20000 -g -m 4 --queue-size=256K -o tiny.data -- "$PROGS/spin" 1000
	expect_grep '^luaprof: the script is 256 KiB of records behind, the limit of --queue-size: the kernel drops samples \(counted as lost\) until the script catches up$' err
	[ "$(grep -c 'limit of --queue-size' err)" = 1 ] || fail "the bound's line more than once"
	grep -q 'fell behind' err && fail "past the bound, a second line on the backlog"
	expect_grep '^luaprof: the queue of records waiting for the script reached its bound \(256 KiB\) [0-9]+ times?' err
	read -r _ got _ disorder _ dup _ lost < <(grep '^delivered' out) || fail "no end line"
	[ "$lost" -gt 0 ] || fail "a 256 KiB queue lost nothing"
	[ "$disorder" = 0 ] && [ "$dup" = 0 ] || fail "disorder $disorder dup $dup past the bound"
	want=$(perf script -i tiny.data -F time 2>/dev/null | grep -c .)
	[ "$got" = "$want" ] || fail "delivered $got samples, the recording has $want"
	plost=$(perf report -i tiny.data --stats 2>/dev/null | awk '/LOST events:/ {print $3}')
	[ "${plost:-0}" -gt 0 ] || fail "the recording holds no LOST record"
}

# the option's bounds
size_0() {
	expect_status 255 "$LUAPROF" run "$S" --queue-size=0 -- true
	expect_grep "^luaprof: --queue-size needs a size from 64K to 16T, in megabytes such as 512 or with K, M, G or T such as 256K \\(got '0'\\)$" err
}
size_63k() { expect_status 255 "$LUAPROF" run "$S" --queue-size=63K -- true; }
size_1x() { expect_status 255 "$LUAPROF" run "$S" --queue-size=1X -- true; }

scenario "a script as slow as the workload" as_slow
scenario "--queue-size=256K reached" bound
scenario "--queue-size=0" size_0
scenario "--queue-size=63K" size_63k
scenario "--queue-size=1X" size_1x
scenarios_done
