# lib_funcs.sh - sourced by the funccount and funclatency tests
# (funcs_*.sh), after lib.sh.  They run tests/progs/calls (fc_one, fc_two,
# fc_three called 1000, 2000 and 3000 times; then nap, a 2 ms nanosleep,
# ten times) under a name of its own, $C in $TMP ($P its full path): other
# tests run it too, and -a sees them.  Uprobes need root and the uprobe PMU;
# without them the test skips.
need_perf_events
[ -e /sys/bus/event_source/devices/uprobe ] || skip "this kernel has no uprobe PMU"
[ "$(id -u)" = 0 ] || skip "uprobes need root here"
cd "$TMP"
C=calls$$
cp "$PROGS/calls" "$C"
P=$TMP/$C
# each nap's time as calls saw it around the call (check_naps)
export CALLS_NAPS=$TMP/naps

# funccount's output: counts FILE prints its fc_* rows as "NAME COUNT "
# sorted on one line, to compare with $want.
counts() { awk '$1 ~ /^fc_/ {print $1, $2}' "$1" | sort | tr '\n' ' '; }
want="fc_one 1000 fc_three 3000 fc_two 2000 "
# count_of NAME FILE: funccount's count of NAME.
count_of() { awk -v f="$1" '$1 == f {print $2}' "$2"; }
# intervals_add_up FILE: with -I, the intervals' counts of nap add up to
# 10, and so does the total after them.
intervals_add_up() {
	awk '/^[0-9.]+ s:$/ {i = 1} /^[0-9]+ functions of/ {i = 0; t = 1} $1 == "nap" {if (t) total = $2; else sum += $2}
	END {exit !(sum == 10 && total == 10)}' "$1"
}

# funclatency: the histogram's rows "[lo, hi) count |...|" as "LO COUNT".
rows() { awk '/^\[/ {gsub(/[\[\),]/, " "); print $1, $3}' "$1"; }
# check_naps FILE WHAT: 10 calls, none under 2 ms (a sleep never ends
# early), and at least as many in [2, 4) as calls itself timed under 4 ms
# around the call ($CALLS_NAPS: the probes' times lie within those, so a
# late wake-up on a busy machine moves a nap to a higher bucket in both).
check_naps() {
	grep -q 'count: 10$' "$1" || { cat "$1" "$TMP/err" "$CALLS_NAPS"; fail "$2: not 10 calls of nap"; }
	[ "$(grep -c . "$CALLS_NAPS" 2>/dev/null)" = 10 ] || fail "$2: calls did not time its 10 naps in $CALLS_NAPS"
	local fast
	fast=$(awk '$1 < 4000000 {n++} END {print n + 0}' "$CALLS_NAPS")
	rows "$1" | awk -v fast="$fast" '$1 < 2 && $2 > 0 {bad = 1} $1 == 2 {two = $2} END {exit bad || two < fast}' ||
		{ cat "$1"; fail "$2: a nap under 2 ms, or fewer than $fast (calls' own count) in [2, 4) ms"; }
}
# none_under MS FILE: no call in a bucket below MS.
none_under() { rows "$2" | awk -v ms="$1" '$1 < ms && $2 > 0 {bad = 1} END {exit bad}'; }

# one_line SCRIPT WHAT: what the script was given is refused in one line
# naming the script and its --help.
one_line() {
	[ "$(wc -l < "$TMP/err")" = 1 ] || { cat "$TMP/err"; fail "$2: not one line"; }
	expect_grep "^luaprof: $1: .*\(see luaprof run $1 --help\)$" "$TMP/err"
}
