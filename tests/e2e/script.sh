# script prints perf script's default text, byte for byte, on the same
# recording: perf's own with call chains (-g) and without, and luaprof's
# (which carries the CPU); live, what it prints equals perf script of the
# run's own recording.  The two texts, fed to one folded-stack parser (what
# FlameGraph's stackcollapse-perf.pl does: a header line starts a sample,
# each frame line gives its function, a blank line ends it), give the same
# stacks, which sum to the recording's samples.
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to compare with"
cd "$TMP"
# collapse FILE: folded stacks of perf script text, counted, sorted.
collapse() {
	/usr/bin/python3 - "$1" <<'PY'
import re, sys
stacks, comm, frames = {}, None, []
def flush():
    global comm, frames
    if comm is not None:
        key = ";".join([comm] + frames[::-1])
        stacks[key] = stacks.get(key, 0) + 1
    comm, frames = None, []
for line in open(sys.argv[1], errors="replace"):
    line = line.rstrip("\n")
    if not line:
        flush()
    elif line[0] in " \t" and comm is not None and re.match(r"^\s+[0-9a-f]+ ", line):
        func = re.sub(r"\+0x[0-9a-f]+ \(.*\)$| \(.*\)$", "", line.split(None, 1)[1])
        frames.append(func)
    else:
        flush()
        m = re.match(r"^\s*(\S.*?)\s+(\d+)(/\d+)?\s", line)
        comm = m.group(1) if m else "?"
        rest = line.split(": ", 2)
        if len(rest) == 3 and rest[2].strip():      # no call chain: the frame is on the line
            frames = [re.sub(r"\+0x[0-9a-f]+ \(.*\)$", "", rest[2].split(None, 1)[1])]
            flush()
flush()
for k in sorted(stacks):
    print(k, stacks[k])
PY
}
same_as_perf() {        # same_as_perf FILE: luaprof's text is perf's, and folds the same
	perf script -i "$1" > perf.txt 2>/dev/null || fail "perf script -i $1 failed"
	expect_status 0 "$LUAPROF" run script -i "$1"
	cmp perf.txt "$TMP/out" || { diff perf.txt "$TMP/out" | head -20; fail "script differs from perf script on $1"; }
	collapse perf.txt > perf.folded
	collapse "$TMP/out" > ours.folded
	diff perf.folded ours.folded > /dev/null || fail "$1: the folded stacks of the two texts differ"
	n=$(perf script -i "$1" -F period 2>/dev/null | wc -l)
	[ "$(awk '{s += $NF} END {print s}' ours.folded)" = "$n" ] || fail "$1: the folded stacks do not sum to its $n samples"
	[ "$(wc -l < ours.folded)" -ge 2 ] || fail "$1: fewer than two distinct stacks"
}
perf record -q -g -F 2000 -o fp.data -- "$PROGS/leafs" 100 >/dev/null 2>&1 || fail "perf record -g failed"
same_as_perf fp.data
perf record -q -F 2000 -o flat.data -- "$PROGS/twothreads" 20 >/dev/null 2>&1 || fail "perf record failed"
same_as_perf flat.data
grep -q 'worker-1' perf.txt || fail "no worker-1 sample in the flat recording"
# live, and its recording (luaprof's samples carry the CPU)
expect_status 0 "$LUAPROF" run script -g -F 2000 -o live.data -- "$PROGS/leafs" 60
cp "$TMP/out" live.txt
grep -qE '^leafs +[0-9]+ \[[0-9]{3}\] ' live.txt || fail "the live text has no [CPU] column"
perf script -i live.data > perf.txt 2>/dev/null || fail "perf script cannot read luaprof's recording"
cmp perf.txt live.txt || { diff perf.txt live.txt | head; fail "the live text differs from perf script of the run's recording"; }
same_as_perf live.data
exit 0
