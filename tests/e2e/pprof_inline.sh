# pprof's locations carry the functions inlined at their address (pprof's
# Line list) on stacks unwound from a stack copy (--call-graph dwarf)
# only, as s.stack, folded and top, and as perf 6.1 adds inlined frames
# (to the user frames it unwinds, not to a -g call chain).  copier (C,
# -O2 -g) has fill() forced inline into churn(): a -g recording (frame
# pointers) gives churn's locations one line, churn; a dwarf one gives
# fill's, then churn.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v go >/dev/null || skip "go is not installed (make test-deps installs golang-go): no pprof reader"
cd "$TMP"
cc -O2 -g -fno-omit-frame-pointer -o copier "$ROOT/tests/progs/other/copier.c" || fail "cannot build copier.c"
# lines FILE: the Locations section of go tool pprof -raw FILE, one line
# per location: its functions, innermost first, separated by ";".
lines() {
	HOME=$TMP go tool pprof -raw "$1" 2>/dev/null | awk '
		/^Locations/ {on = 1; next} /^Mappings/ {on = 0}
		on && $1 ~ /^[0-9]+:$/ {if (l != "") print l; l = $4; next}
		on && NF >= 2 {l = l ";" $1}
		END {if (l != "") print l}'
}
expect_status 0 "$LUAPROF" run pprof -g -F 999 --out=fp.pb.gz -o fp.data -- ./copier 3000
lines fp.pb.gz > fp.lines
grep -q '^churn$' fp.lines || { cat fp.lines; fail "-g: no location in churn"; }
grep ';' fp.lines && fail "-g: a location has inlined lines (only dwarf stacks have them)"
expect_status 0 "$LUAPROF" run pprof --call-graph=dwarf -F 499 --out=dwarf.pb.gz -o dwarf.data -- ./copier 3000
lines dwarf.pb.gz > dwarf.lines
grep -q '^fill;churn$' dwarf.lines || { cat dwarf.lines; fail "dwarf: no location with fill inlined in churn"; }
echo "-g: $(wc -l < fp.lines) locations, none with inlined lines; dwarf: $(grep -c ';' dwarf.lines) with them"
