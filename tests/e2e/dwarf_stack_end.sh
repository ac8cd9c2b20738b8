# --call-graph dwarf with a stack copy that ends inside the stack: perf's
# unwinder takes the copy's last word for outside it (access_mem's
# addr + 8 >= end), reads the return address there as 0 and ends the
# stack with a frame 0xffffffffffffffff; luaprof's stack is perf's without
# that frame, at every size of copy (docs/perf-differences.md).  deep16's
# frames are 16 bytes, so of two sizes 8 bytes apart one puts a return
# address in the copy's last word: there luaprof read it, and went one
# frame further than perf (python3's --children row of that frame counted
# 4 samples where perf counted 3).  --true-stacks reads the last word too.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to compare with"
cd "$TMP"
longer=0
for size in 128 136; do
	perf record -q --call-graph dwarf,$size -F 499 -o d$size.data -- "$PROGS/deep16" 150 >/dev/null 2>&1 ||
		fail "perf record --call-graph dwarf,$size failed"
	perf script -i d$size.data > d$size.perf 2>/dev/null || fail "perf script failed"
	expect_status 0 "$LUAPROF" run script -i d$size.data
	cp "$TMP/out" d$size.ours
	python3 - d$size.perf d$size.ours <<'PY' || fail "dwarf,$size: luaprof's stacks are not perf's without its last frame 0xffffffffffffffff"
import sys
perf = open(sys.argv[1]).read().strip().split("\n\n")
ours = open(sys.argv[2]).read().strip().split("\n\n")
assert len(perf) == len(ours) > 50, (len(perf), len(ours))
cut = 0
for p, o in zip(perf, ours):
    pl = p.split("\n")
    if pl[-1].split()[0] == "ffffffffffffffff":
        pl, cut = pl[:-1], cut + 1
    assert pl == o.split("\n"), ("\n".join(pl), o)
assert cut > len(perf) // 2, ("few stacks cut: the copy is not short", cut)
PY
	expect_status 0 "$LUAPROF" run script --true-stacks -i d$size.data
	[ "$(grep -c . "$TMP/out")" -gt "$(grep -c . d$size.ours)" ] && longer=$((longer + 1))
done
[ "$longer" = 1 ] || fail "--true-stacks read one more frame at $longer of the two sizes, not one"
echo "dwarf,128 and dwarf,136: perf's stacks less its last frame; --true-stacks one frame more at one size"
