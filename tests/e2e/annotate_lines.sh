# annotate-lines against perf report --sort sym,srcline on one perf
# recording of leafs (two leaf functions, each a loop): every line of the
# two functions has exactly perf's sample count; the functions come in
# perf's order with their self counts; every line is printed with its own
# source text (which line of a loop is hottest depends on the CPU's skid,
# so that is not asserted).  Live, the hottest function is leaf_a.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to compare with"
cd "$TMP"
perf record -q -F 2000 -o leafs.data -- "$PROGS/leafs" 100 >/dev/null 2>&1 || fail "perf record failed"
perf report -i leafs.data --stdio --no-children --sort sym,srcline -n 2>/dev/null |
	awk '$3 == "[.]" && ($4 == "leaf_a" || $4 == "leaf_b") {print $4, $5, $2}' | sort > perf.lines
[ "$(wc -l < perf.lines)" -ge 2 ] || fail "perf report shows no lines of leaf_a and leaf_b"
expect_status 0 "$LUAPROF" run annotate-lines --functions=2 --lines=50 --prefix="$ROOT" -i leafs.data
awk '/ samples, / {f = $1; sub(/:$/, "", f)} $1 ~ /^[0-9]+$/ && $2 ~ /%$/ {print f, $3, $1}' "$TMP/out" | sort > ours.lines
diff perf.lines ours.lines || fail "annotate-lines' per-line counts differ from perf report --sort sym,srcline"
[ "$(awk '/ samples, / {print $1}' "$TMP/out" | tr '\n' ' ')" = "leaf_a: leaf_b: " ] ||
	fail "the functions are not leaf_a then leaf_b"
# Each row's text is that line of leafs.c, white space trimmed.
awk -v src="$ROOT/tests/progs/leafs.c" '
	BEGIN { while ((getline l < src) > 0) { sub(/^[ \t]+/, "", l); sub(/[ \t]+$/, "", l); text[++n] = l } }
	$1 ~ /^[0-9]+$/ && $2 ~ /%$/ && $3 ~ /^leafs\.c:[0-9]+$/ {
		rows++; line = substr($3, 9); shown = $0
		sub(/^ *[0-9]+ +[0-9.]+% +[^ ]+ +/, "", shown)
		if (shown != text[line] || shown == "") { print "leafs.c:" line ": shown \"" shown "\", the file has \"" text[line] "\""; bad++ }
	}
	END { if (!rows) print "no rows of leafs.c"; exit !rows || bad }' "$TMP/out" ||
	{ cat "$TMP/out"; fail "a line's text is not its source line"; }
expect_status 0 "$LUAPROF" run annotate-lines --functions=1 -F 2000 -- "$PROGS/leafs" 60
grep -q '^leaf_a: ' "$TMP/out" || fail "live: the hottest function is not leaf_a"
exit 0
