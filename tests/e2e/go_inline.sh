# Go's lines and inlined frames, against perf on perf's --call-graph dwarf
# recording of tests/progs/other/goinline.go built by Debian's Go: its DWARF
# has no .debug_aranges, so luaprof found no unit, no line (top
# --sort=srcline: ??:0 where perf shows main.go:22) and none of the
# frames perf's addr2line gives at the leaf (perf prints main.walk twice
# where (*Point).Dist is inlined into it: addr2line names the inlined
# function after the ELF symbol the first time, docs/perf-differences.md).
# top, top --children, script, folded stacks (lib_real.sh's real_compare)
# and the srcline rows (real_srcline) equal perf's.
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/real/lib_real.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to compare with"
command -v go >/dev/null || skip "go is not installed (make test-deps installs golang-go): Go's frames not checked"
cd "$TMP"
mkdir gowork && cp "$ROOT/tests/progs/other/goinline.go" gowork/main.go
(cd gowork && GOCACHE=$TMP/gocache GOPATH=$TMP/gopath GO111MODULE=off GOFLAGS= go build -o ../goinline main.go) 2>go.err ||
	{ cat go.err; fail "go build failed"; }
perf record -q --call-graph dwarf -F 499 -o go.data -- ./goinline 8000 >/dev/null 2>perr ||
	fail "perf record failed: $(head -2 perr)"
real_compare go.data
real_srcline go.data
grep -q '^[0-9.]*% [0-9]* main\.go:[0-9]* goinline$' go.srcline.lp || fail "no main.go line in top --sort=srcline"
awk '/ main\.walk\+0x/ {if (prev == $0) n++} {prev = $0} END {exit n ? 0 : 1}' go.script.perf ||
	fail "perf prints no main.walk twice (Dist inlined): nothing was compared"
real_verdict
