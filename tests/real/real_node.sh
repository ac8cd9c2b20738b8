# node --perf-basic-prof (Debian's nodejs: tests/install-deps.sh test)
# running a small deterministic script for about a second, recorded by perf
# with -g: luaprof's top, top --children, script and folded stacks of the
# file equal perf's of the same file, exactly (lib_real.sh).  node writes
# its JIT's symbols to /tmp/perf-PID.map, owned by the recording user
# (root or not) and not a symlink, so luaprof trusts it as perf does; the
# test keeps a copy (put back should anything remove it meanwhile: other
# tests remove the maps of their own pids, which this machine reuses
# within minutes) and removes it at the end.
# With LP_TEST_SLOW=1, a --call-graph dwarf recording too: left out by
# default because perf 6.1 then looks up inlined functions for every
# address of a call chain with addr2line, about 0.17 s for each distinct
# address in /usr/bin/node (100 MB, no debug info): 686 addresses for one
# second at 499 Hz made each perf report --children or perf script take
# 2 minutes.  Unwinding through JIT-compiled code with DWARF stops there
# anyway (it has no CFI).  tests/run.sh stops a test after 120 s: run it
# as LP_TEST_SLOW=1 bash tests/e2e/real_node.sh.
. "$(dirname "$0")/../e2e/lib.sh"
. "$(dirname "$0")/lib_real.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to compare with"
command -v node >/dev/null || skip "node is not installed (tests/install-deps.sh test installs Debian's nodejs)"
cd "$TMP"
maps=
trap 'rm -rf "$TMP" $maps' EXIT
# fib (calls), a sieve (typed array loops), strings in a Map and a sort
# with a JS comparator: JIT-compiled code, the runtime and libc.
cat > work.js <<'EOF'
require("fs").writeFileSync("pid", String(process.pid));
function fib(n) { return n < 2 ? n : fib(n - 1) + fib(n - 2); }
function sieve(n) {
  const s = new Uint8Array(n + 1).fill(1);
  s[0] = s[1] = 0;
  for (let i = 2; i * i <= n; i++)
    if (s[i]) for (let j = i * i; j <= n; j += i) s[j] = 0;
  let c = 0;
  for (let i = 0; i <= n; i++) c += s[i];
  return c;
}
function strings(n) {
  const m = new Map();
  for (let i = 0; i < n; i++) m.set("k" + i, String(i).repeat(3));
  return [...m.keys()].sort((a, b) => (m.get(a) < m.get(b) ? -1 : 1)).length;
}
let t = 0;
for (let r = 0; r < +process.argv[2]; r++) t += fib(22) + sieve(300000) + strings(20000);
console.log(t);
EOF
# record NAME ARGS...: perf record ARGS of node on the workload into
# NAME.data; notes node's perf map for removal.
record() {
	local name=$1; shift
	perf record -q "$@" -o "$name.data" -- node --perf-basic-prof work.js "$ROUNDS" >/dev/null 2>perr ||
		fail "perf record $* node failed: $(head -2 perr)"
	map=/tmp/perf-$(cat pid).map
	maps="$maps $map"
	cp "$map" "$name.map" 2>/dev/null || fail "node --perf-basic-prof wrote no $map"
}
# same_map NAME: NAME.data's perf map in place, as node wrote it.
same_map() {
	local map=/tmp/perf-$(perf script -i "$1.data" -F pid 2>/dev/null | head -1 | tr -d ' ').map
	cmp -s "$1.map" "$map" 2>/dev/null && return
	echo "$map was removed or replaced meanwhile: put back"
	cp "$1.map" "$map" || fail "cannot put $map back"
}
ROUNDS=40 record fp -g -F 999
same_map fp
real_compare fp.data
# a row of the script's own JIT-compiled code, named by node's perf map:
# strings' and sieve's (5-10% and 4%); fib's alone was too few samples
# to count on (0.7-2.5%, and none in one run of the suite)
grep -Eq 'JS:.*(strings|sieve|fib) ' fp.top.perf ||
	fail "fp.data: no row of the script's JIT-compiled functions in perf report (from node's perf map)"
if [ "${LP_TEST_SLOW:-0}" = 1 ]; then
	ROUNDS=20 record dwarf --call-graph dwarf -F 499
	same_map dwarf
	real_compare dwarf.data
else
	echo "--call-graph dwarf not checked (perf takes minutes on node's dwarf stacks): LP_TEST_SLOW=1 checks it"
fi
real_verdict
