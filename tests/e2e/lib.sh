# lib.sh - sourced by every end-to-end test.
set -u
ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
LUAPROF=$ROOT/luaprof
PROGS=$BUILD/progs
CHECKS=$ROOT/tests/e2e/lua
TMP=$(mktemp -d /tmp/luaprof-test.XXXXXX)
trap 'rm -rf "$TMP"' EXIT

fail() { echo "FAIL: $*"; exit 1; }
skip() { echo "$*"; exit 77; }

# need_perf_events: skip unless this kernel lets us open a software event.
need_perf_events() {
	[ -r /proc/sys/kernel/perf_event_paranoid ] || skip "no perf_event support in this kernel"
}

# expect_status WANT CMD...: runs CMD, fails unless it exits WANT.
expect_status() {
	local want=$1; shift
	"$@" >"$TMP/out" 2>"$TMP/err"
	local rc=$?
	[ "$rc" = "$want" ] || { cat "$TMP/out" "$TMP/err"; fail "$* exited $rc, expected $want"; }
}

# expect_grep PATTERN FILE: fails unless FILE has a line matching PATTERN.
expect_grep() {
	grep -qE -- "$1" "$2" || { echo "--- $2:"; head -40 "$2"; fail "no line matching '$1' in $(basename "$2")"; }
}

# perf_symtable ARGS...: perf report ARGS' per-function sample counts as
# "N [k] sym" / "N [.] sym" lines (unnamed 0x... lines left out), sorted,
# with the "@plt" lines summed (see sum_plt).
perf_symtable() {
	perf report "$@" --stdio --no-children --sort sym -F sample,sym -q -g none 2>/dev/null |
		awk 'NF >= 3 && $2 ~ /^\[[k.]\]$/ && $3 !~ /^0x/ {print $1, $2, $3}' | sum_plt | sort
}

# sum_plt [COUNT-FIELD]: sums the lines naming the symbol "@plt" that are
# otherwise equal.  perf names each stub of an IRELATIVE relocation (libc's
# calls to its own IFUNCs) "@plt" and keeps each as a line of its own, as it
# does any two symbols; luaprof's per-name tables cannot tell them apart.
sum_plt() {
	awk -v c="${1:-1}" '$NF == "@plt" {n = $c; $c = "#"; s[$0] += n; next} {print}
		END {for (k in s) {line = k; sub(/#/, s[k], line); print line}}'
}
