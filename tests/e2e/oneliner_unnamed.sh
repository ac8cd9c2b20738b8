# count(sym) is perf report --sort sym's count: a sample in a function
# without a symbol (a stripped program's own code) is counted under the
# name perf report gives it, its offset in the file as 0x%016x, where it
# was left out (27,693 of 34,010 samples of Debian's git).  Both the
# one-liner that runs in C and one that runs its clause in Lua
# (a string condition) give perf report's rows, sample for sample.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to compare with"
command -v strip >/dev/null || skip "strip is not installed: no stripped program"
cd "$TMP"
cc -O2 -o chain "$ROOT/tests/progs/chain.c" && strip --strip-all chain || fail "cannot build a stripped chain"
perf record -q -F 999 -o perf.data -- ./chain 60 >/dev/null 2>perr || fail "perf record failed: $(head -2 perr)"
perf report -i perf.data --stdio --no-children --sort sym -n -q -g none 2>/dev/null |
	awk '$3 ~ /^\[[k.]\]$/ {n = $2; $1 = $2 = $3 = ""; sub(/^ +/, ""); print n, $0}' | sort > theirs
total=$(awk '{n += $1} END {print n + 0}' theirs)
grep -q ' 0x0000' theirs || fail "perf report has no unnamed row: nothing to compare"
# ours PROGRAM: the one-liner's counts as "N NAME", sorted
ours() {
	"$LUAPROF" -x "$1" -i perf.data 2>err | sed -nE 's/^@\[(.*)\]: ([0-9]+)$/\2 \1/p' | sort > ours ||
		{ cat err; fail "$1 failed"; }
	diff theirs ours > diff.txt || { head diff.txt; fail "'$1': counts differ from perf report --sort sym's"; }
	echo "'$1': $(wc -l < ours) rows, $total samples, as perf report"
}
ours 'cpu-clock { count(sym) }'
ours 'cpu-clock /comm ~= "-"/ { count(sym) }'
