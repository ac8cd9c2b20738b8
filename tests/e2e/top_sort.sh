# top and callgraph against perf report on one perf recording (deep16: two
# threads under a 16-deep chain that splits 2:1 between two leaves), exact:
# - `top` (--sort sym) prints perf report --no-children --sort sym -n's
#   rows, row for row: overhead, samples, symbol, in perf's order;
# - `top --children` prints perf report --children's rows (children, self,
#   samples, symbol);
# - `top --sort=comm,dso` prints perf's --sort comm,dso rows;
# - without call stacks, Children equals Self on every row (a sample whose
#   stack is its one frame counts in its own row's Children);
# - `callgraph --order=caller`: every path of at least 1% of the samples has
#   the count perf report -g caller's folded call chains give it, and the
#   leaves under d16 split 2:1 (within 0.55-0.75 of the two for hot_leaf);
# - `callgraph --order=callee`: its first level is top's self count per
#   function, for those with 1% of the samples or more (below that, a
#   function inlined at the sampled address is a leaf of its own there:
#   s.folded has inlined frames, perf report and top's rows do not).
# Unnamed rows (0x... per address in both) are left out here: perf's
# --children shows call-chain addresses outside any map as [k] rows
# (top_unknown.sh compares unnamed self rows).
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to compare with"
cd "$TMP"
# The recording the cases read, and perf report's rows of it.
perf record -q -g -F 4000 -o d16.data -- "$PROGS/deep16" 300 >/dev/null 2>&1 || fail "perf record failed"
named() { awk '$1 ~ /%$/' | grep -vE ' (0x[0-9a-f]+|0+|\[unknown\])$' | awk '{$1 = $1; print}'; }
perf report -i d16.data --stdio --no-children --sort sym -n -g none 2>/dev/null | named > perf.self
perf report -i d16.data --stdio --children --sort sym -n -g none 2>/dev/null | named > perf.children
perf report -i d16.data --stdio --no-children --sort comm,dso -n -g none 2>/dev/null | named > perf.commdso
[ "$(wc -l < perf.self)" -ge 2 ] || fail "perf report printed no rows"

top_self() {
	expect_status 0 "$LUAPROF" run top --limit=100000 -i d16.data
	named < "$TMP/out" > ours.self
	diff perf.self ours.self || fail "top differs from perf report --no-children --sort sym"
}
top_children() {
	expect_status 0 "$LUAPROF" run top --children --limit=100000 -i d16.data
	named < "$TMP/out" > ours.children
	diff perf.children ours.children || fail "top --children differs from perf report --children"
}
top_commdso() {
	expect_status 0 "$LUAPROF" run top --sort=comm,dso --limit=100000 -i d16.data
	named < "$TMP/out" > ours.commdso
	diff perf.commdso ours.commdso || fail "top --sort=comm,dso differs from perf report --sort comm,dso"
}
# Without stacks: Children = Self everywhere.
no_stacks() {
	perf record -q -F 4000 -o flat.data -- "$PROGS/leafs" 100 >/dev/null 2>&1 || fail "perf record failed"
	expect_status 0 "$LUAPROF" run top --children -i flat.data
	awk '$1 ~ /%$/ && $1 != $2 {bad = 1; print} END {exit bad}' "$TMP/out" || fail "Children differs from Self without call stacks"
	grep -q 'leaf_a$' "$TMP/out" || fail "no leaf_a row"
}

# callgraph, caller order: each node's count against perf's chains.
caller() {
	perf report -i d16.data --stdio --no-children --sort sym -g folded,0,caller,function,count 2>/dev/null |
		awk '$1 ~ /^[0-9]+$/ && NF == 2' > perf.folded
	expect_status 0 "$LUAPROF" run callgraph --min=0 --depth=1000 -i d16.data
	cp "$TMP/out" caller.txt
	python3 - caller.txt perf.folded <<'PY' || fail "callgraph's caller tree differs from perf's call chains"
import re, sys
theirs, total = {}, 0
for line in open(sys.argv[2]):
    n, chain = line.split()
    n = int(n); total += n
    path = ()
    for f in chain.split(";"):
        path += (f,)
        theirs[path] = theirs.get(path, 0) + n
ours, stack, checked = {}, [], 0
for line in open(sys.argv[1]):
    m = re.match(r"^ *[0-9.]+% +([0-9]+)  ( *)(.*)$", line)
    if not m or m.group(3).startswith("["):
        continue
    depth = len(m.group(2)) // 2
    stack[depth:] = [re.sub(r"_\[k\]$", "", m.group(3))]
    path, n = tuple(stack), int(m.group(1))
    if n * 100 >= total:
        checked += 1
        if theirs.get(path) != n:
            sys.exit("%s: %d in callgraph, %s in perf" % (";".join(path), n, theirs.get(path)))
    ours[path] = n
assert checked >= 18, "only %d paths of at least 1%%" % checked
d16 = next(p for p in ours if p[-1] == "d16")
hot, warm = ours.get(d16 + ("hot_leaf",), 0), ours.get(d16 + ("warm_leaf",), 0)
assert 0.55 <= hot / (hot + warm) <= 0.75, "hot_leaf has %d of %d" % (hot, hot + warm)
print("callgraph: %d paths of at least 1%% as perf; hot_leaf %d, warm_leaf %d" % (checked, hot, warm))
PY
}
# callee order: the first level is each function's self count, as top's.
callee() {
	[ -s ours.self ] || fail "no ours.self: the top case did not make it"
	expect_status 0 "$LUAPROF" run callgraph --order=callee --min=0 --depth=1 -i d16.data
	awk '$1 ~ /%$/ && $1 + 0 >= 1 && $3 !~ /^\[/ {sub(/_\[k\]$/, "", $3); print $3, $2}' "$TMP/out" | sort > callee.first
	awk '$1 + 0 >= 1 {print $NF, $2}' ours.self | sort > top.first
	[ "$(wc -l < top.first)" -ge 2 ] || fail "top has fewer than two functions of 1%"
	diff top.first callee.first || fail "callgraph --order=callee's leaves differ from top's self counts"
}
# --per=comm: the command at the root, holding every sample (one command
# here); the boolean --comm it replaced is refused (issue 22: --comm of
# sctop and syscall-counts names a command to keep).
per_comm() {
	expect_status 0 "$LUAPROF" run callgraph --per=comm --min=0 --depth=1 -i d16.data
	total=$(sed -n "s/^# \([0-9]*\) samples of event.*/\1/p" "$TMP/out" | head -1)
	read -r pct n name < <(awk '$1 ~ /%$/' "$TMP/out" | head -1)
	[ "$name $n $pct" = "deep16 $total 100.00%" ] || fail "callgraph --per=comm: root '$name $n $pct', expected 'deep16 $total 100.00%'"
}
comm_refused() {
	expect_status 255 "$LUAPROF" run callgraph --comm -i d16.data
	expect_grep "^luaprof: .*--comm" "$TMP/err"
}

scenario "top: perf report --sort sym" top_self
scenario "top --children" top_children
scenario "top --sort=comm,dso" top_commdso
scenario "without stacks: Children = Self" no_stacks
scenario "callgraph --order=caller" caller
scenario "callgraph --order=callee" callee
scenario "callgraph --per=comm" per_comm
scenario "callgraph --comm refused" comm_refused
scenarios_done
