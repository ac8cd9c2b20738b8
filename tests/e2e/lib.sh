# lib.sh - sourced by every end-to-end test.
set -u
ROOT=${ROOT:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)}
BUILD=${BUILD:-build}
case $BUILD in /*) ;; *) BUILD=$ROOT/$BUILD ;; esac
LUAPROF=${LUAPROF:-$ROOT/luaprof}      # make check-asan: a sanitized build
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

# build_ids_are_hits FILE [exact]: FILE's build-id table (perf buildid-list)
# names no object that perf script finds no sample in (by the sample's ip,
# callchains aside), bar [vdso], which perf record lists whenever it is
# mapped; with "exact", every object a sample landed in is listed too.  The
# kernel's entry is the running kernel's build-id; the replay's
# info.build_ids is the same table.  Leaves the sorted table in $TMP/bids.
build_ids_are_hits() {
	local f=$1 exact=${2:-} extra k
	perf buildid-list -i "$f" 2> "$TMP/perf.err" | sort > "$TMP/bids" ||
		fail "perf buildid-list cannot read $f: $(head -3 "$TMP/perf.err")"
	awk '{print $2}' "$TMP/bids" | sort -u > "$TMP/listed"
	perf script -i "$f" -F ip,dso -G 2>/dev/null |
		awk '{d = $NF; gsub(/^\(|\)$/, "", d); if (d != "[unknown]") print d}' | sort -u > "$TMP/sampled"
	{ cat "$TMP/sampled"; echo "[vdso]"; } | sort -u > "$TMP/allowed"
	extra=$(comm -23 "$TMP/listed" "$TMP/allowed")
	[ -z "$extra" ] || fail "$f has build-ids of objects no sample landed in: $extra"
	if [ "$exact" = exact ]; then
		extra=$(comm -13 "$TMP/listed" "$TMP/sampled")
		[ -z "$extra" ] || fail "$f has no build-id for objects samples landed in: $extra"
	fi
	if grep -q ' \[kernel\.kallsyms\]$' "$TMP/bids"; then
		k=$(perf buildid-list -k 2>/dev/null)
		grep -qx "$k \[kernel\.kallsyms\]" "$TMP/bids" ||
			fail "$f's [kernel.kallsyms] build-id is not the running kernel's ($k)"
	fi
	"$LUAPROF" run "$CHECKS/build_ids.lua" -i "$f" > "$TMP/ours" 2>&1 || fail "luaprof -i $f failed"
	diff "$TMP/bids" "$TMP/ours" > "$TMP/diff.txt" ||
		{ head "$TMP/diff.txt"; fail "the replay's info.build_ids differ from perf buildid-list on $f"; }
}

# build_id_of PATH: the build-id of the ELF file PATH, as readelf prints it.
build_id_of() {
	readelf -n "$1" 2>/dev/null | awk '/Build ID:/ {print $3; exit}'
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

# need_tracefs: skip unless tracefs is there; as root, mount it where the
# kernel expects it when it is not (the suite's own set-up, as perf needs).
need_tracefs() {
	if [ ! -d /sys/kernel/tracing/events ] && [ ! -d /sys/kernel/debug/tracing/events ] &&
	   [ "$(id -u)" = 0 ] && [ -d /sys/kernel/tracing ]; then
		mount -t tracefs nodev /sys/kernel/tracing 2>/dev/null
	fi
	[ -d /sys/kernel/tracing/events ] || [ -d /sys/kernel/debug/tracing/events ] ||
		skip "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing, as root)"
}
