# top's rows for code without symbols (issue 24 #7): two stripped programs
# in one recording, so unnamed samples fall in two objects.  perf report
# --sort sym gives them a row per address (the offset in the mapped file,
# 0x%016x); top printed one "[unknown]" row per object, rows that looked
# identical.  Every row, named or not, must now be perf report's, in
# perf's order, and the same with --sort=dso,sym.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed"
cd "$TMP"
cp "$PROGS/asmlabel" one && cp "$PROGS/leafs" two && strip one two || fail "cannot strip the workloads"
perf record -q -F 999 -o un.data -- sh -c './one 60 && ./two 40' >/dev/null 2>&1 || fail "perf record failed"
rows() { awk '$1 ~ /%$/ {$1 = $1; print}'; }
for sort in sym dso,sym; do
	perf report -i un.data --stdio --no-children --sort "$sort" -n -g none 2>/dev/null | rows > perf.rows
	grep -c ' 0x' perf.rows | awk '$1 < 2 {exit 1}' || { cat perf.rows; fail "perf shows fewer than 2 unnamed rows"; }
	"$LUAPROF" run top --sort="$sort" --limit=100000 -i un.data > out 2>&1 || { cat out; fail "top failed"; }
	rows < out > our.rows
	diff perf.rows our.rows > d.out || { head -20 d.out; fail "top --sort=$sort differs from perf report --sort $sort"; }
	echo "--sort=$sort: $(wc -l < our.rows) rows as perf's, $(grep -c ' 0x' our.rows) unnamed"
done
