# docs/performance.md's table of the real recordings is what the recorded
# bench runs measured: tests/bench/doctable.py --check writes it again
# from tests/bench/real.jsonl and compares.  The check is tested first on
# a copy of the page with one figure changed: it must fail.
# test: check
. "$(dirname "$0")/lib.sh"
command -v python3 >/dev/null || skip "no python3"
DT=$ROOT/tests/bench/doctable.py
sed '/<!-- bench real: begin -->/,/<!-- bench real: end -->/ s/| \([0-9]*\)\.\([0-9]*\)x /| 9\1.\2x /' \
	"$ROOT/docs/performance.md" > "$TMP/changed.md"
cmp -s "$TMP/changed.md" "$ROOT/docs/performance.md" && fail "the copy of performance.md has no figure changed"
python3 "$DT" --check --doc "$TMP/changed.md" > "$TMP/out" 2>&1 &&
	fail "doctable.py --check passed a table with a figure changed"
expect_grep 'is not what .*real.jsonl measured' "$TMP/out"
python3 "$DT" --check || fail "docs/performance.md's real rows are not what tests/bench/real.jsonl measured"
echo "performance.md: the real rows are doctable.py's, from $(grep -c . "$ROOT/tests/bench/real.jsonl") records"
exit 0
