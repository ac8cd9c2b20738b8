# lib_real.sh - sourced (after lib.sh) by the tests on real programs
# (tests/e2e/real_*.sh): perf records a program nobody here wrote, and
# luaprof's replay of that file is compared, exactly, with perf's own
# reading of the same file (never with numbers written into a test):
#   top             perf report --no-children --sort sym -n, row for row
#   top --children  perf report --children --sort sym -n, row for row
#   script          perf script, byte for byte
#   folded          perf script's stacks folded as FlameGraph's folded
#                   format as luaprof documents s.folded (fold_perf_script)
# Rows are the table lines (first field a percentage) with their runs of
# blanks made one: the two tools size their columns differently, and
# their headers differ (perf's "# Samples: 1K of event", luaprof's count).

# real_rows: the rows of a perf report or luaprof top table (stdin).
real_rows() {
	awk '$1 ~ /%$/ {$1 = $1; print}'
}

# fold_perf_script FILE: perf script's default text in FILE as folded
# stacks with their counts, sorted: "comm;root;...;leaf N".  As luaprof's
# s.folded: the command name (';' made ':', newline and blank '_'), then
# each frame from the root, its name without the "+0x..." offset and its
# object, "[unknown]" unnamed, "_[k]" after a kernel frame's name
# (addresses in the kernel half), the "(inlined)" lines in their place;
# ';' in a name made ':'.  A sample without call chain is its one frame.
fold_perf_script() {
	/usr/bin/python3 - "$1" <<'PY'
import re, sys
head = re.compile(r"^\s*(\S.*?)\s+(\d+)(/\d+)?\s")
frame = re.compile(r"^\t\s*([0-9a-f]+) (.*)$")
stacks, comm, frames = {}, None, []
def name(text):
    text = re.sub(r" \(inlined\)$", "", text)
    text = re.sub(r" \([^()]*\)$", "", text)   # the object
    text = re.sub(r"\+0x[0-9a-f]+$", "", text)
    return text.replace(";", ":").replace("\n", "_")
def add(addr, text):
    n = name(text)
    if int(addr, 16) >= 0xffff800000000000 and not text.endswith(" (inlined)"):
        n += "_[k]"
    frames.append(n)
def flush():
    global comm, frames
    if comm is not None:
        key = ";".join([comm] + frames[::-1])
        stacks[key] = stacks.get(key, 0) + 1
    comm, frames = None, []
for line in open(sys.argv[1], errors="replace"):
    line = line.rstrip("\n")
    m = frame.match(line) if comm is not None else None
    if not line:
        flush()
    elif m:
        add(m.group(1), m.group(2))
    else:
        flush()
        m = head.match(line)
        comm = re.sub(r"[ \n]", "_", m.group(1).replace(";", ":")) if m else "?"
        rest = line.split(": ", 2)
        if len(rest) == 3 and rest[2].strip():      # no call chain: the frame is on the line
            add(*rest[2].split(None, 1))
            flush()
flush()
for k in sorted(stacks):
    print(k, stacks[k])
PY
}

REAL_DIFFS=

# real_differs WHAT FILE DIFF: notes that WHAT differs from perf on FILE,
# printing the start of DIFF (perf's lines "<", luaprof's ">"; the first
# $REAL_DIFF_LINES, 6 unless set).
real_differs() {
	echo "DIFFERS: $1 on $(basename "$2") ($(grep -c '^[<>]' "$3") lines differ); the first:"
	grep '^[<>]' "$3" | head -"${REAL_DIFF_LINES:-6}" | cut -c1-200 | sed 's/^/    /'
	REAL_DIFFS="$REAL_DIFFS $1:$(basename "$2")"
}

# real_compare FILE: luaprof's top, top --children, script and folded
# stacks of FILE against perf's, each exactly; each one that differs is
# printed and added to REAL_DIFFS (real_verdict fails on them at the end,
# so that one run shows every difference).  Leaves perf's outputs in
# $TMP/B.{top,children,script,folded}.perf and luaprof's in $TMP/B.*.lp
# (B: FILE's name without .data), the diffs in $TMP/B.*.diff.
real_compare() {
	local f=$1 b n p l
	b=$(basename "$f" .data)
	p=$TMP/$b l=$TMP/$b
	perf report -i "$f" --stdio --no-children --sort sym -n -g none 2>/dev/null | real_rows > "$p.top.perf"
	[ -s "$p.top.perf" ] || fail "perf report printed no rows for $f"
	expect_status 0 "$LUAPROF" run top --limit=1000000 -i "$f"
	real_rows < "$TMP/out" > "$l.top.lp"
	diff "$p.top.perf" "$l.top.lp" > "$p.top.diff" || real_differs top "$f" "$p.top.diff"

	perf report -i "$f" --stdio --children --sort sym -n -g none 2>/dev/null | real_rows > "$p.children.perf"
	expect_status 0 "$LUAPROF" run top --children --limit=1000000 -i "$f"
	real_rows < "$TMP/out" > "$l.children.lp"
	diff "$p.children.perf" "$l.children.lp" > "$p.children.diff" || real_differs children "$f" "$p.children.diff"

	perf script -i "$f" > "$p.script.perf" 2>/dev/null || fail "perf script -i $f failed"
	expect_status 0 "$LUAPROF" run script -i "$f"
	cp "$TMP/out" "$l.script.lp"
	diff "$p.script.perf" "$l.script.lp" > "$p.script.diff" || real_differs script "$f" "$p.script.diff"

	fold_perf_script "$p.script.perf" > "$p.folded.perf"
	n=$(grep -c '^\S' "$p.script.perf")
	[ "$(awk '{s += $NF} END {print s + 0}' "$p.folded.perf")" = "$n" ] ||
		fail "$f: perf script's $n samples did not all fold"
	expect_status 0 "$LUAPROF" run folded -i "$f"
	sort "$TMP/out" > "$l.folded.lp"
	diff "$p.folded.perf" "$l.folded.lp" > "$p.folded.diff" || real_differs folded "$f" "$p.folded.diff"
	echo "$(basename "$f"): $n samples, $(wc -l < "$p.top.perf") top rows," \
		"$(wc -l < "$p.children.perf") children rows, $(wc -l < "$p.folded.perf") distinct stacks"
}

# real_verdict: fails naming every comparison that differed.
real_verdict() {
	[ -z "$REAL_DIFFS" ] || fail "differs from perf:$REAL_DIFFS"
}
