# lib_real.sh - sourced (after lib.sh) by the tests on real programs
# (tests/e2e/real_*.sh): perf records a program nobody here wrote, and
# luaprof's replay of that file is compared, exactly, with perf's own
# reading of the same file (never with numbers written into a test):
#   top             perf report --no-children --sort sym -n, row for row
#   top --children  perf report --children --sort sym -n, row for row
#   script          perf script, byte for byte
#   folded          perf script's stacks folded as FlameGraph's folded
#                   format as luaprof documents s.folded (fold_perf_script)
# but for what docs/perf-differences.md says perf does that luaprof does
# not copy, undone on perf's side with perfstacks.py (as dwarf_inline.sh):
# a dwarf stack that libunwind ended with a frame ffffffffffffffff (its
# other frames must begin luaprof's; folded counts may differ by the
# number of such stacks, and perf's --children row for that frame is left
# out), and the alias functions perf names by DWARF's
# other name, "(inlined)" (left out of the --children rows on both
# sides, named by their symbols again in the folded stacks).
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
# (addresses in the kernel half), "_[j]" after a JIT frame's (its object
# a perf map, /tmp/perf-PID.map: stackcollapse-perf.pl --all), the
# "(inlined)" lines in their place with "_[i]" after the name;
# a kernel-half address in the chain's user part (a frame pointer's
# garbage: perf script's "[unknown] ([unknown])") is no kernel frame,
# no "_[k]", as perf's stackcollapse.py --kernel and luaprof have it;
# ';' in a name made ':'.  A sample without call chain is its one frame.
fold_perf_script() {
	/usr/bin/python3 - "$1" <<'PY'
import re, sys
head = re.compile(r"^\s*(\S.*?)\s+(\d+)(/\d+)?\s")
frame = re.compile(r"^\t\s*([0-9a-f]+) (.*)$")
stacks, comm, frames, user_part = {}, None, [], False
def name(text):
    text = re.sub(r" \(inlined\)$", "", text)
    text = re.sub(r" \([^()]*\)$", "", text)   # the object
    text = re.sub(r"\+0x[0-9a-f]+$", "", text)
    return text.replace(";", ":").replace("\n", "_")
def add(addr, text):
    global user_part
    n = name(text)
    if text.endswith(" (inlined)"):
        n += "_[i]"
    elif int(addr, 16) >= 0xffff800000000000 and not user_part:
        n += "_[k]"
    elif re.search(r" \(/tmp/perf-\d+\.map\)$", text):
        n += "_[j]"
    if int(addr, 16) < 0xffff800000000000:
        user_part = True
    frames.append(n)
def flush():
    global comm, frames, user_part
    if comm is not None:
        key = ";".join([comm] + frames[::-1])
        stacks[key] = stacks.get(key, 0) + 1
    comm, frames, user_part = None, [], False
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

# real_norm WITH PLAIN OUT: perf script's text WITH its inlined frames,
# its frames named as PLAIN (perf script --no-inline of the file) names
# them, into OUT, for folding: a frame's own line that perf renamed to an
# alias function's DWARF name and marked "(inlined)" (an "(inlined)" line
# not followed by one at its address) takes PLAIN's line for that frame
# (the n-th frame at that address, for the n-th such end there), and a
# stack that libunwind ended with a frame ffffffffffffffff loses it.
# perfstacks.py norm does this by splitting the text per frame of PLAIN,
# which goes wrong where recursion inlined at one address repeats its
# lines (std::_Rb_tree::_M_erase in itself).
real_norm() {
	/usr/bin/python3 - "$@" <<'PY'
import re, sys
frame = re.compile(r"^\t\s*([0-9a-f]+) (.*)$")
def samples(path):
    head, lines = None, []
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if head is not None and frame.match(line):
            lines.append(line)
        elif line:
            if head is not None:
                yield head, lines
            head, lines = line, []
        else:
            if head is not None:
                yield head, lines
            head, lines = None, []
    if head is not None:
        yield head, lines
with open(sys.argv[3], "w") as out:
    for (head, lines), (_, plain) in zip(samples(sys.argv[1]), samples(sys.argv[2])):
        addr = lambda l: frame.match(l).group(1)
        if plain and addr(plain[-1]) == "ffffffffffffffff":
            plain, lines = plain[:-1], lines[:-1]
        res, ends = [], {}
        for i, l in enumerate(lines):
            a = addr(l)
            end = not l.endswith(" (inlined)") or i + 1 == len(lines) or addr(lines[i + 1]) != a
            if end:
                k = ends.get(a, 0)
                ends[a] = k + 1
                if l.endswith(" (inlined)"):
                    same = [p for p in plain if addr(p) == a]
                    l = same[k] if k < len(same) else l
            res.append(l)
        out.write(head + "\n" + "".join(l + "\n" for l in res) + "\n")
PY
}

REAL_DIFFS=

# real_drop_aliases NAMES: the rows (stdin) but those whose function is
# one of NAMES' (perf's DWARF names of alias functions and their symbols).
real_drop_aliases() {
	/usr/bin/python3 -c '
import sys
names = {l.rstrip("\n") for l in open(sys.argv[1])}
for row in sys.stdin:
    if row.rstrip("\n").split("] ", 1)[-1] not in names:
        sys.stdout.write(row)' "$1"
}

# real_differs WHAT FILE DIFF: notes that WHAT differs from perf on FILE,
# printing the start of DIFF (perf's lines "<", luaprof's ">"; the first
# $REAL_DIFF_LINES, 6 unless set).  A long line is shown by its first 100
# and last 200 characters, where folded stacks differ (their leaves).
real_differs() {
	local keep=${LP_REAL_KEEP:-/tmp/luaprof-real-failed}/$(date +%Y%m%dT%H%M%S)-$$
	echo "DIFFERS: $1 on $(basename "$2") ($(grep -c '^[<>]' "$3") lines differ); the first:"
	grep '^[<>]' "$3" | head -"${REAL_DIFF_LINES:-6}" |
		awk '{ if (length($0) > 320) $0 = substr($0, 1, 100) " ... " substr($0, length($0) - 199); print "    " $0 }'
	REAL_DIFFS="$REAL_DIFFS $1:$(basename "$2")"
	# the recording and both sides' outputs, for whoever looks into it
	# (a difference seen once in many runs is otherwise gone with $TMP)
	if mkdir -p "$keep" && cp "$2" "$TMP"/*.perf "$TMP"/*.lp "$TMP"/*.diff "$keep"/ 2>/dev/null &&
		find "$TMP" -maxdepth 1 -type f -perm -u+x -exec cp {} "$keep"/ \; ; then
		# and a JIT's perf maps (real_node's NAME.map), which name its frames
		find "$TMP" -maxdepth 1 -type f -name '*.map' -exec cp {} "$keep"/ \;
		echo "    kept in $keep"
	fi
}

# real_compare FILE: luaprof's top, top --children, script and folded
# stacks of FILE against perf's, each exactly; each one that differs is
# printed and added to REAL_DIFFS (real_verdict fails on them at the end,
# so that one run shows every difference).  Leaves perf's outputs in
# $TMP/B.{top,children,script,folded}.perf and luaprof's in $TMP/B.*.lp
# (B: FILE's name without .data), the diffs in $TMP/B.*.diff.
real_compare() {
	local f=$1 b n p l bogus ps=$ROOT/tests/e2e/perfstacks.py
	b=$(basename "$f" .data)
	p=$TMP/$b l=$TMP/$b
	perf script -i "$f" > "$p.script.perf" 2>/dev/null || fail "perf script -i $f failed"
	perf script -i "$f" --no-inline > "$p.plain.perf" 2>/dev/null || fail "perf script --no-inline -i $f failed"
	bogus=$(/usr/bin/python3 "$ps" norm "$p.script.perf" "$p.plain.perf" "$p.norm.perf" "$p.aliases") ||
		fail "$f: perf script's text unreadable"
	perf report -i "$f" --stdio --no-children --sort sym -n -g none 2>/dev/null | real_rows > "$p.top.perf"
	[ -s "$p.top.perf" ] || fail "perf report printed no rows for $f"
	expect_status 0 "$LUAPROF" run top --limit=1000000 -i "$f"
	real_rows < "$TMP/out" > "$l.top.lp"
	diff "$p.top.perf" "$l.top.lp" > "$p.top.diff" || real_differs top "$f" "$p.top.diff"

	# the frame libunwind ended a stack with is a row of perf's alone
	perf report -i "$f" --stdio --children --sort sym -n -g none 2>/dev/null | real_rows |
		real_drop_aliases "$p.aliases" |
		if [ "$bogus" = 0 ]; then cat; else grep -v '\] 0xffffffffffffffff$'; fi > "$p.children.perf"
	expect_status 0 "$LUAPROF" run top --children --limit=1000000 -i "$f"
	real_rows < "$TMP/out" | real_drop_aliases "$p.aliases" > "$l.children.lp"
	diff "$p.children.perf" "$l.children.lp" > "$p.children.diff" ||
		real_children_near "$p.children.perf" "$l.children.lp" "$p.aliases" ||
		real_differs children "$f" "$p.children.diff"

	expect_status 0 "$LUAPROF" run script -i "$f"
	cp "$TMP/out" "$l.script.lp"
	if [ "$bogus" = 0 ]; then
		diff "$p.script.perf" "$l.script.lp" > "$p.script.diff"
	else
		/usr/bin/python3 "$ps" script "$p.script.perf" "$l.script.lp" > "$p.script.diff"
	fi || real_differs script "$f" "$p.script.diff"

	real_norm "$p.script.perf" "$p.plain.perf" "$p.fnorm.perf" || fail "$f: perf script's text unreadable"
	fold_perf_script "$p.fnorm.perf" > "$p.folded.perf"
	n=$(grep -c '^\S' "$p.script.perf")
	[ "$(awk '{s += $NF} END {print s + 0}' "$p.folded.perf")" = "$n" ] ||
		fail "$f: perf script's $n samples did not all fold"
	expect_status 0 "$LUAPROF" run folded -i "$f"
	sort "$TMP/out" > "$l.folded.lp"
	if [ "$bogus" = 0 ]; then
		diff "$p.folded.perf" "$l.folded.lp" > "$p.folded.diff"
	else
		/usr/bin/python3 "$ps" near "$p.folded.perf" "$l.folded.lp" "$bogus" > "$p.folded.diff"
	fi || real_inline_order "$p.folded.perf" "$l.folded.lp" "$bogus" ||
		real_differs folded "$f" "$p.folded.diff"
	echo "$(basename "$f"): $n samples, $(wc -l < "$p.top.perf") top rows," \
		"$(wc -l < "$p.children.perf") children rows, $(wc -l < "$p.folded.perf") distinct stacks," \
		"$bogus ended by libunwind, $(wc -l < "$p.aliases") alias names"
}

# real_inline_order PERF OURS BOGUS: whether folded stacks PERF and OURS
# differ only where docs/perf-differences.md says perf's name for an
# inlined function depends on the order of its addr2line lookups: an
# inlined std::map method that perf's addr2line may name after the
# std::_Rb_tree one it calls (or the other way), in a C++ program.  Such
# frames ("std::map<...>::...", "std::_Rb_tree<...>::..." with "_[i]") are
# made one name on both sides and compared again; says so when they then
# agree.
real_inline_order() {
	local a=$1.inl b=$2.inl
	sed -E 's/(^|;)std::(map|_Rb_tree)<[^;]*_\[i\]/\1std::map|_Rb_tree_[i]/g' "$1" |
		awk '{n = $NF; $NF = ""; c[$0] += n} END {for (k in c) print k c[k]}' | sort > "$a"
	sed -E 's/(^|;)std::(map|_Rb_tree)<[^;]*_\[i\]/\1std::map|_Rb_tree_[i]/g' "$2" |
		awk '{n = $NF; $NF = ""; c[$0] += n} END {for (k in c) print k c[k]}' | sort > "$b"
	cmp -s "$a" "$b" && [ "$3" = 0 ] || return 1
	echo "folded: equal once std::map/std::_Rb_tree inlined names are one (perf's addr2line order)"
}

# real_children_near PERF OURS ALIASES: whether the --children rows PERF
# and OURS differ only by what docs/perf-differences.md says luaprof
# cannot know: an inlined std::map / std::_Rb_tree method's name (perf's
# addr2line lookup order, as real_inline_order), and, when perf renamed
# alias functions on the file's dwarf stacks (ALIASES not empty), a
# function's row split in two by perf's tree of hist entries, which holds
# entries for those renamed frames that luaprof's model of it has not.
# Compares the rows with such names made one and, with aliases, the rows
# of one name summed (as sample counts); says so when they then agree.
real_children_near() {
	/usr/bin/python3 - "$@" <<'PY'
import re, sys
perf, ours, aliases = sys.argv[1:4]
merge = bool(open(aliases).read().strip())
def rows(path):
    out, n = {}, 0
    parsed = []
    for line in open(path):
        c, s, k, rest = line.rstrip("\n").split(" ", 3)
        rest = re.sub(r"\] std::(map|_Rb_tree)<.* \(inlined\)$", "] std::map|_Rb_tree (inlined)", rest)
        parsed.append((float(s[:-1]), float(c[:-1]), int(k), rest))
    # the file's samples: from the row of most self samples (k of them
    # are Self% of all), not the Samples column's sum, which lacks the
    # rows left out (perf's bogus 0xffffffffffffffff frames): with a short
    # sum, a row perf split in two rounds to one sample more than the same
    # row whole
    sp, _, k, _ = max(parsed, key=lambda r: r[2])
    total = k * 100 / sp if sp else sum(r[2] for r in parsed)
    parsed = [(c, k, rest) for _, c, k, rest in parsed]
    for i, (c, k, name) in enumerate(parsed):
        key = name if merge else (name, i)
        a, b = out.get(key, (0, 0))
        out[key] = (a + round(c * total / 100), b + k)
    return out if merge else sorted(out.items(), key=lambda kv: kv[0][1])
a, b = rows(perf), rows(ours)
if merge:
    if a == b:
        sys.exit(0)
    # what still differs, for the failure's output: per name, perf's
    # (children samples, self samples) and luaprof's
    diff = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
    print("    rows of one name summed, %d names still differ (perf / luaprof: children, self samples):" % len(diff))
    for k in diff[:8]:
        print("      %s: %s / %s" % (k[:160], a.get(k), b.get(k)))
    sys.exit(1)
sys.exit(0 if [(k[0], v) for k, v in a] == [(k[0], v) for k, v in b] else 1)
PY
	[ $? = 0 ] || return 1
	echo "children: equal once inlined std::map/std::_Rb_tree names are one$([ -s "$3" ] && echo " and rows of one name summed (perf's alias entries)")"
}

# real_srcline FILE: luaprof's top --sort=srcline,dso rows of FILE against
# perf report --no-children --sort srcline,dso -n, row for row.  A
# difference is added to REAL_DIFFS.
real_srcline() {
	local f=$1 b
	b=$TMP/$(basename "$f" .data)
	perf report -i "$f" --stdio --no-children --sort srcline,dso -n -g none 2>/dev/null | real_rows \
		> "$b.srcline.perf"
	[ -s "$b.srcline.perf" ] || fail "perf report --sort srcline printed no rows for $f"
	expect_status 0 "$LUAPROF" run top --sort=srcline,dso --limit=1000000 -i "$f"
	real_rows < "$TMP/out" > "$b.srcline.lp"
	diff "$b.srcline.perf" "$b.srcline.lp" > "$b.srcline.diff" || real_differs srcline "$f" "$b.srcline.diff"
	echo "$(basename "$f"): $(wc -l < "$b.srcline.perf") srcline rows"
}

# real_verdict: fails naming every comparison that differed.
real_verdict() {
	[ -z "$REAL_DIFFS" ] || fail "differs from perf:$REAL_DIFFS"
}
