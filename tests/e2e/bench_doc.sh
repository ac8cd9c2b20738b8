# docs/performance.md's tables of bench results (the summary under "make
# bench", and the real recordings) are what the recorded bench runs
# measured: tests/bench/doctable.py --check writes them again from
# tests/bench/summary.jsonl and real.jsonl and compares.  The check is
# tested first on copies of the page with one figure changed in one of
# the tables: each must fail, naming that table.
# test: check
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3"
DT=$ROOT/tests/bench/doctable.py
for table in summary real; do
	# a ratio ("| 72x |", "| 8.3x (9.0x) |") with a 9 put before it, once a line
	sed "/<!-- bench $table: begin -->/,/<!-- bench $table: end -->/ s/| \([0-9][0-9.]*\)x /| 9\1x /" \
		"$ROOT/docs/performance.md" > "$TMP/$table.md"
	cmp -s "$TMP/$table.md" "$ROOT/docs/performance.md" && fail "the copy of performance.md has no $table figure changed"
	python3 "$DT" --check --doc "$TMP/$table.md" > "$TMP/$table.out" 2>&1 &&
		fail "doctable.py --check passed a $table table with a figure changed"
	expect_grep "the $table table in .* is not what tests/bench/$table.jsonl measured" "$TMP/$table.out"
	other=$([ $table = summary ] && echo real || echo summary)
	grep -q "the $other table" "$TMP/$table.out" && fail "doctable.py --check blamed the $other table for a $table figure"
done
python3 "$DT" --check || fail "docs/performance.md's tables are not what tests/bench/*.jsonl measured"
echo "performance.md: the summary and real tables are doctable.py's, from" \
	"$(grep -c . "$ROOT/tests/bench/summary.jsonl") and $(grep -c . "$ROOT/tests/bench/real.jsonl") records"
exit 0
