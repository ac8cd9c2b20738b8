# --call-graph dwarf with a stack copy that ends inside the stack: perf's
# unwinder takes the copy's last word for outside it (access_mem's
# addr + 8 >= end), reads the return address there as 0 and ends the
# stack with a frame 0xffffffffffffffff; luaprof's stack is perf's without
# that frame, at every size of copy (docs/perf-differences.md).  deep16's
# frames are 16 bytes, so of two sizes 8 bytes apart one puts a return
# address in the copy's last word: there luaprof read it, and went one
# frame further than perf (python3's --children row of that frame counted
# 4 samples where perf counted 3).  --true-stacks reads the last word too:
# most stacks one frame longer at one size, few at the other.
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
	# the stacks --true-stacks made longer: at one size most, at the
	# other few (a sample away from deep16's loop, in a prologue or in
	# the kernel's entry, has its stack pointer 8 bytes off: seen once
	# under ASan with a CPU busy)
	python3 - d$size.ours "$TMP/out" > d$size.longer <<'PY' || fail "dwarf,$size: --true-stacks changed the number of stacks"
import sys
ours = open(sys.argv[1]).read().strip().split("\n\n")
true = open(sys.argv[2]).read().strip().split("\n\n")
assert len(ours) == len(true), (len(ours), len(true))
longer = sum(len(t.split("\n")) > len(o.split("\n")) for o, t in zip(ours, true))
print(1 if longer * 2 > len(ours) else 0 if longer * 10 < len(ours) else -1, longer, len(ours))
PY
	read -r most n all < d$size.longer
	[ "$most" -ge 0 ] || fail "dwarf,$size: --true-stacks made $n of $all stacks longer: neither most nor few"
	longer=$((longer + most))
done
[ "$longer" = 1 ] || fail "--true-stacks made most stacks one frame longer at $longer of the two sizes, not one ($(cat d128.longer) / $(cat d136.longer))"
echo "dwarf,128 and dwarf,136: perf's stacks less its last frame; --true-stacks one frame more at one size"
