# A corrupt call chain (an entry 0xffffffffffffffff, no context marker perf
# knows: chainpatch.py makes every 10th chain of a perf -g recording so):
# perf drops it whole, luaprof keeps the sampled frame
# (docs/perf-differences.md).
# - `script` prints perf script's text byte for byte: the header line and
#   no frame, as perf;
# - `top --children` has perf report --children's rows (perf counts such a
#   sample in its own function's row, as luaprof);
# - `folded` has perf script's stacks, but for those samples: perf's give
#   the command alone, luaprof's the command and the sampled frame.
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to compare with"
cd "$TMP"
PS=$ROOT/tests/e2e/perfstacks.py
cc -O2 -g -fno-omit-frame-pointer -o copier "$ROOT/tests/progs/other/copier.c" || fail "cannot build copier.c"
perf record -q -g -F 999 -o fp.data -- ./copier 3000 >/dev/null 2>&1 || fail "perf record -g failed"
n=$(python3 "$ROOT/tests/e2e/chainpatch.py" fp.data bad.data 10) || fail "cannot patch fp.data"
[ "$n" -ge 20 ] || fail "only $n chains made corrupt"
perf script -i bad.data > perf.txt 2>/dev/null || fail "perf script -i bad.data failed"
script_text() {
	expect_status 0 "$LUAPROF" run script -i bad.data
	cmp perf.txt "$TMP/out" || { diff perf.txt "$TMP/out" | head; fail "script differs from perf script on corrupt chains"; }
	empty=$(frameless perf.txt)
	[ "$empty" = "$n" ] || fail "perf script shows $empty samples without frames, $n chains were made corrupt"
	echo "script: as perf script, $n samples without frames"
}
top_children() {
	perf report -i bad.data --children --stdio -n --sort sym -g none > report.txt 2>/dev/null || fail "perf report failed"
	expect_status 0 "$LUAPROF" run top --children --limit=100000 -i bad.data
	: > none
	python3 "$PS" children report.txt none > rows.perf
	python3 "$PS" children "$TMP/out" none > rows.ours
	python3 "$PS" near rows.perf rows.ours 0 > rows.diff || { head rows.diff; fail "top --children differs from perf report --children"; }
	echo "top --children: as perf report --children ($(wc -l < rows.ours) rows)"
}
# frameless TEXT: the samples perf script's TEXT shows without a frame
# (their chains corrupt: perf drops them whole)
frameless() {
	awk 'prev ~ /^[^\t]/ && prev != "" && $0 == "" {n++} {prev = $0} END {print n + 0}' "$1"
}
# but_corrupt PERF OURS N: OURS (luaprof's folded lines, sorted) are
# PERF's (perf's folded lines with a frame) plus N one-frame stacks
# "COMM;LEAF", the samples of corrupt chains, whose frame luaprof keeps
but_corrupt() {
	python3 - "$1" "$2" "$3" <<'PY'
import sys
def read(path):
    rows = {}
    for line in open(path):
        stack, count = line.rstrip("\n").rsplit(" ", 1)
        rows[stack] = rows.get(stack, 0) + int(count)
    return rows
perf, ours, n = read(sys.argv[1]), read(sys.argv[2]), int(sys.argv[3])
extra = 0
for stack in set(perf) | set(ours):
    d = ours.get(stack, 0) - perf.get(stack, 0)
    if d < 0 or (d and stack.count(";") != 1):
        sys.exit("%s: perf %d, luaprof %d" % (stack, perf.get(stack, 0), ours.get(stack, 0)))
    extra += d
if extra != n:
    sys.exit("luaprof has %d one-frame stacks more than perf, not %d" % (extra, n))
PY
}
folded() {
	python3 "$PS" fold perf.txt | grep ';' > folded.perf
	expect_status 0 "$LUAPROF" run folded -i bad.data
	sort "$TMP/out" > folded.ours
	# ours are perf's stacks, plus the n samples as "copier;LEAF"
	but_corrupt folded.perf folded.ours "$n" || fail "folded differs from perf's stacks (but for the corrupt chains)"
	echo "folded: as perf script's stacks but for the corrupt chains' samples ($n)"
}

# A user address in a chain's kernel part (a sample in execve can have
# one): in none of perf's kernel maps, so "[unknown] ([unknown])" in perf
# script, and no _[k] in its folded stacks (stackcollapse tells kernel
# frames by their object).  chainpatch.py puts one into every 5th chain
# that starts in the kernel, of a recording of dd's one-byte copies (most
# of its time in system calls); script and folded must be perf's exactly.
# The first case makes the recording the second reads.
user_script() {
	perf record -q -g -F 999 -o sys.data -- dd if=/dev/zero of=/dev/null bs=1 count=400000 >/dev/null 2>&1 ||
		fail "perf record -g of dd failed"
	u=$(python3 "$ROOT/tests/e2e/chainpatch.py" sys.data user.data 5 user) || fail "cannot patch sys.data"
	[ "$u" -ge 5 ] || fail "only $u chains of dd's recording start with two kernel frames"
	perf script -i user.data > perfu.txt 2>/dev/null || fail "perf script -i user.data failed"
	grep -q '564527cebe00 \[unknown\] (\[unknown\])' perfu.txt || fail "perf script shows no patched frame"
	expect_status 0 "$LUAPROF" run script -i user.data
	cmp perfu.txt "$TMP/out" || { diff perfu.txt "$TMP/out" | head; fail "script differs from perf script on user addresses in kernel chains"; }
	echo "a user address in the kernel part of $u chains: script as perf's"
}
user_folded() {
	[ -s user.data ] && [ -s perfu.txt ] || fail "no user.data: the script case did not make it"
	python3 "$PS" fold perfu.txt | grep ';' > foldedu.perf
	expect_status 0 "$LUAPROF" run folded -i user.data
	sort "$TMP/out" > foldedu.ours
	# dd's own chains can be corrupt (a -1 from its walk through libc's
	# exit code, once in a few runs): as in the first cases, perf gives
	# such a sample no frame, luaprof its sampled one
	c=$(frameless perfu.txt)
	but_corrupt foldedu.perf foldedu.ours "$c" ||
		fail "folded differs from perf's on user addresses in kernel chains (but for $c corrupt chains)"
	echo "a user address in the kernel part of chains: folded as perf's ($c corrupt chains of dd's own)"
}

scenario "corrupt chains: script" script_text
scenario "corrupt chains: top --children" top_children
scenario "corrupt chains: folded" folded
scenario "a user address in a kernel chain: script" user_script
scenario "a user address in a kernel chain: folded" user_folded
scenarios_done
