# The COMM records luaprof record -a synthesizes for the threads that
# exist before it starts carry the names perf record -a gives the same
# threads: /proc/PID/task/TID/status's Name (escaped by the kernel: a
# backslash doubled, a newline as \n), cut to 15 bytes.  Checked for
# every thread whose name stayed the same across both recordings; a
# workqueue worker's name changes with the work it runs (kworker/u8:3-ev
# then kworker/u8:3-wr), so for those only what precedes the work is
# compared (kworker/u8:3-).  The threads compared include kernel
# threads named past 15 bytes (kworker/R-kvfree_rcu_reclaim: kworker/R-kvfre
# in both) and tests/progs/named, which gives itself a backslash and a
# newline.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
[ "$(id -u)" = 0 ] || skip "system-wide recording needs root"
command -v perf >/dev/null || skip "perf is not installed: nothing to compare with"
cd "$TMP"
"$PROGS/named" $'lp\\x\ny' > named.out & np=$!
trap 'kill $np 2>/dev/null; rm -rf "$TMP"' EXIT
wait_for_line named.out '^ready$'
# names: every thread's status Name, as "TID NAME"
names() {
	local f t
	for f in /proc/[0-9]*/task/[0-9]*/status; do
		t=${f%/status}; t=${t##*/}
		sed -n "s/^Name:[[:space:]]*/$t /p" "$f" 2>/dev/null
	done | sort
}
names > before.txt
perf record -q -a -o perf.data -- sleep 0.2 >/dev/null 2>&1 || fail "perf record -a failed"
expect_status 0 "$LUAPROF" record -a -o lp.data -- sleep 0.2
names > after.txt
comm -12 before.txt after.txt | awk '{print $1}' > stable.txt
# comms FILE: the synthesized COMM records (time 0) as "TID NAME"
comms() {
	perf script -i "$1" --show-task-events -F comm 2>/dev/null |
		sed -n 's/^.*PERF_RECORD_COMM: \(.*\):[0-9]*\/\([0-9]*\)$/\2 \1/p' | sort -u |
		awk 'NR == FNR { keep[$1] = 1; next } $1 in keep { if ($2 ~ /^kworker\/[0-9u]/) sub(/-.*/, "-"); print }' stable.txt -
}
comms perf.data > perf.txt
comms lp.data > lp.txt
[ "$(wc -l < perf.txt)" -ge 20 ] || fail "perf's recording names only $(wc -l < perf.txt) stable threads"
# the threads both name, named alike
awk 'NR == FNR { p[$1] = $0; next } ($1 in p) && p[$1] != $0 { print "perf: " p[$1] "\nluaprof: " $0; bad = 1 }
	END { exit bad }' perf.txt lp.txt > diff.txt || { head -20 diff.txt; fail "luaprof's synthesized COMM names differ from perf's"; }
n=$(awk 'NR == FNR { p[$1] = 1; next } $1 in p' perf.txt lp.txt | wc -l)
[ "$n" -ge 20 ] || fail "only $n threads named by both"
want="$np lp\\\\x\\ny"
grep -qxF "$want" perf.txt || { grep "^$np " perf.txt; fail "perf's name for named is not '$want'"; }
grep -qxF "$want" lp.txt || { grep "^$np " lp.txt; fail "luaprof's name for named is not perf's '$want'"; }
long=$(awk '{ sub(/^[0-9]+ /, ""); if (length($0) > 15) n++ } END { print n + 0 }' before.txt)
echo "$n threads named alike, named's escaped name among them; $long threads named past 15 bytes in /proc"
exit 0
