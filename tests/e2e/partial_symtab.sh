# A binary stripped but for a few symbols (strip --keep-symbol, as
# Debian's bpftrace keeps BEGIN_trigger and END_trigger for its uprobes):
# its .symtab names almost nothing, its .dynsym (-rdynamic) the rest.
# perf 6.1 reads both tables, so luaprof does: script byte for byte perf
# script's, top's rows perf report's, the exported functions named where
# .symtab alone names none of them; and main, in both tables, once.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v strip >/dev/null || skip "strip (binutils) is not installed"
cd "$TMP"
cc -O1 -fno-omit-frame-pointer -rdynamic -o leafs.full "$ROOT/tests/progs/leafs.c" ||
	fail "cannot build the workload"
strip --keep-symbol=main -o leafs leafs.full || fail "strip failed"
[ "$(readelf -sW leafs | sed -n '/\.symtab/,$p' | grep -c ' FUNC ')" = 1 ] ||
	fail "the stripped binary's .symtab has more than main"
readelf -sW --dyn-syms leafs | grep -q ' leaf_a$' || fail "leaf_a is not in .dynsym"
perf record -q -g -o p.data -- ./leafs 100 >/dev/null 2>&1 || fail "perf record failed"
perf script -i p.data > perf.txt 2>/dev/null || fail "perf script failed"
expect_status 0 "$LUAPROF" run script -i p.data
cmp -s perf.txt "$TMP/out" || { diff perf.txt "$TMP/out" | head -20; fail "script differs from perf script"; }
for f in leaf_a leaf_b work recurse run main; do
	grep -q " $f+0x[0-9a-f]* (.*/leafs)$" "$TMP/out" || fail "no frame named $f"
done
rows() { awk '$1 ~ /%$/ {$1 = $1; print}'; }
perf report -i p.data --stdio --no-children --sort dso,sym -n -g none 2>/dev/null | rows > perf.rows
expect_status 0 "$LUAPROF" run top --sort=dso,sym --limit=100000 -i p.data
rows < "$TMP/out" > ours.rows
cmp -s perf.rows ours.rows || { diff perf.rows ours.rows | head; fail "top differs from perf report"; }
echo "$(grep -c cpu-clock perf.txt) samples as perf script's, $(grep -c '^[0-9.]*% [0-9]* leafs ' ours.rows) rows of leafs as perf report's"
