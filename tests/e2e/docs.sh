# The documents' examples (README.md, docs/*.md): each command and script
# shown is run and its output compared with the one shown, within the
# tolerance its directive states (tests/doctest.py; the convention is in
# docs/internals.md, "Tested examples").  Each example is a row.  The last
# row checks the checker: a document whose example shows a wrong line
# must fail, naming the line.  The documents run three at a time: most
# examples wait (on a workload, a duration, the kernel), few burn CPU.
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v python3 >/dev/null || skip "python3 not found (the doc tests are tests/doctest.py)"
cd "$ROOT"
python3 tests/doctest.py -j 3 --luaprof "$LUAPROF" --progs "$PROGS" README.md docs/*.md > "$TMP/docs.txt" 2>&1
rc=$?
# the broken example: the script prints "a", the document shows "the"
printf '%s\n' '<!-- doctest: file=shown.lua -->' '```lua' 'print("hello from a script")' '```' '' \
	'```console' '$ luaprof run ./shown.lua -- true' 'hello from the script' '```' > "$TMP/broken.md"
python3 tests/doctest.py --luaprof "$LUAPROF" --progs "$PROGS" "$TMP/broken.md" > "$TMP/broken.txt" 2>&1
brc=$?
if [ $brc = 1 ] && grep -q '^FAIL .*broken.md:7: luaprof run ./shown.lua -- true: its output differs' "$TMP/broken.txt" &&
   grep -q '| hello from the script' "$TMP/broken.txt" && grep -q '| hello from a script' "$TMP/broken.txt"; then
	broken=ok
else
	broken=FAIL
fi
# the rows and the summary, with this last row added
sed '$d' "$TMP/docs.txt"
summary=$(tail -1 "$TMP/docs.txt")
read -r p _ f _ s _ <<<"$summary"
[ -n "$p" ] || { cat "$TMP/docs.txt"; fail "tests/doctest.py printed no summary"; }
if [ $broken = ok ]; then
	echo "ok   doctest.py fails a broken example, showing both lines"
	p=$((p + 1))
else
	echo "FAIL doctest.py did not fail a broken example (exit $brc):"
	sed 's/^/    /' "$TMP/broken.txt"
	f=$((f + 1))
fi
echo "$p passed, $f failed, $s skipped"
[ $rc = 0 ] && [ $broken = ok ]
