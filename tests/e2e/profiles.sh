# The profile scripts' views: per process or thread, off-CPU, and a
# differential flame graph between two recordings.
# - folded --per=thread names each stack's root comm-PID/TID, and the
#   stacks of each thread sum to that thread's samples (count.lua, same
#   file), exactly; --per=process gives one root per process, summing to
#   every sample;
# - flamegraph --diff=OTHER.data against the same recording shows no
#   change; against another program's (leafs) it shows changes; a --diff
#   that cannot be read fails with no file written.
# - each script writing to a FIFO writes into it, and leaves it a FIFO (a
#   file renamed over it, as regular files are written whole, would
#   replace it: /dev/null once became a file that way);
# (--offcpu: see the offcpu test.)
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
cd "$TMP"
# The recording the cases read, and its per-thread sums of folded --per=thread.
expect_status 0 "$LUAPROF" run folded -F 999 -g -o deep.data --per=thread --out=thread.folded -- "$PROGS/deep16" 200
awk '{split($1, a, ";"); s[a[1]] += $NF} END {for (k in s) print k, s[k]}' thread.folded | sort > folded.rows

# folded --per=thread: each thread's stacks sum to its samples.
per_thread() {
	expect_status 0 "$LUAPROF" run count -i deep.data
	awk '$2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ {print $1 "-" $2 "/" $3, $4}' "$TMP/out" | sort > count.rows
	diff count.rows folded.rows || fail "folded --per=thread: per-thread sums differ from count.lua's"
	[ "$(wc -l < folded.rows)" -ge 2 ] || fail "folded --per=thread: fewer than two threads"
}

# folded --per=process: one root, summing to every sample.
per_process() {
	expect_status 0 "$LUAPROF" run folded --per=process -i deep.data
	roots=$(awk '{split($1, a, ";"); print a[1]}' "$TMP/out" | sort -u)
	total=$(awk '{s += $NF} END {print s}' "$TMP/out")
	[ "$(printf '%s\n' "$roots" | wc -l)" = 1 ] || fail "folded --per=process: roots $roots, expected one process"
	case $roots in deep16-[0-9]*) ;; *) fail "folded --per=process: root $roots, expected deep16-PID" ;; esac
	samples=$(awk '{s += $2} END {print s}' folded.rows)
	[ "$total" = "$samples" ] || fail "folded --per=process sums to $total, per thread to $samples"
}

# differential flame graphs from recordings: against the same one, no change.
diff_same() {
	expect_status 0 "$LUAPROF" run flamegraph --diff=deep.data --out=same.svg -i deep.data
	grep -q '+0.00 pp' same.svg || fail "a graph against its own recording shows no +0.00 pp frame"
	! grep -qE '[+-]0*[1-9][0-9]*\.[0-9]+ pp' same.svg || fail "a graph against its own recording shows a change"
}

# against another program's recording: changes.
diff_other() {
	expect_status 0 "$LUAPROF" run folded -F 999 -g -o leafs.data --out=leafs.folded -- "$PROGS/leafs" 100
	expect_status 0 "$LUAPROF" run flamegraph --diff=leafs.data --out=diff.svg -i deep.data
	grep -qE '\+[1-9][0-9]*\.[0-9]+ pp' diff.svg || fail "deep16 against leafs shows no frame with more of the samples"
}

# a --diff that cannot be read: no file.
diff_unreadable() {
	expect_status 255 "$LUAPROF" run flamegraph --diff=missing.data --out=bad.svg -i deep.data
	[ ! -e bad.svg ] || fail "a failed --diff left a file"
}

# --out to something that is not a regular file
fifo() {
	mkfifo pipe
	for s in folded flamegraph pprof speedscope; do
		cat pipe > from-pipe &
		reader=$!
		trap 'kill $reader 2>/dev/null' EXIT
		expect_status 0 "$LUAPROF" run "$s" --out="$TMP/pipe" -i deep.data
		wait $reader
		[ -p pipe ] || fail "$s --out=FIFO replaced the FIFO"
		[ -s from-pipe ] || fail "$s --out=FIFO wrote nothing into it"
	done
}

scenario "folded --per=thread" per_thread
scenario "folded --per=process" per_process
scenario "--diff against the same recording" diff_same
scenario "--diff against another program's" diff_other
scenario "a --diff that cannot be read" diff_unreadable
scenario "--out to a FIFO" fifo
scenarios_done
