# debuginfod: a stripped program whose debug file no local path has gets
# its source lines from a debuginfod server (a local HTTP server with the
# protocol's /buildid/ID/debuginfo tree) only when DEBUGINFOD_URLS is set,
# and not with --no-debuginfod.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v python3 >/dev/null || skip "python3 is not installed: no server to test with"
[ -e /usr/lib/x86_64-linux-gnu/libdebuginfod.so.1 ] || ls /usr/lib/*/libdebuginfod.so.1 >/dev/null 2>&1 ||
	skip "libdebuginfod1 is not installed: libdwfl cannot ask servers"
cd "$TMP"
cc -O2 -g -o full "$ROOT/tests/progs/chain.c" || fail "cannot build chain"
strip --strip-all -o chain full
bid=$(build_id_of chain)
[ -n "$bid" ] || skip "cc writes no build-id here"
mkdir -p "srv/buildid/$bid"
objcopy --only-keep-debug full "srv/buildid/$bid/debuginfo"
python3 - srv port > srv.log 2>&1 <<'PY' &
import functools, http.server, sys
h = functools.partial(http.server.SimpleHTTPRequestHandler, directory=sys.argv[1])
s = http.server.ThreadingHTTPServer(("127.0.0.1", 0), h)
open(sys.argv[2], "w").write(str(s.server_address[1]))
s.serve_forever()
PY
srv=$!
trap 'kill $srv 2>/dev/null; rm -rf "$TMP"' EXIT
for _ in $(seq 50); do [ -s port ] && break; sleep 0.1; done
[ -s port ] || fail "the test's HTTP server did not start: $(cat srv.log)"
url="http://127.0.0.1:$(cat port)"
lines() {       # lines OUT: samples with chain.c lines
	awk '$3 ~ /^chain\.c:[0-9]+$/ {n += $1} END {print n + 0}' "$1"
}
env -u DEBUGINFOD_URLS "$LUAPROF" run "$CHECKS/leafsrc.lua" -F 999 -- ./chain 200 > none 2>/dev/null || fail "run failed"
[ "$(lines none)" = 0 ] || fail "lines found without DEBUGINFOD_URLS: none should be asked"
DEBUGINFOD_URLS=$url "$LUAPROF" run "$CHECKS/leafsrc.lua" --no-debuginfod -F 999 -- ./chain 200 > off 2>/dev/null || fail "run failed"
[ "$(lines off)" = 0 ] || fail "lines found with --no-debuginfod"
! grep -q "/buildid/$bid/" srv.log || fail "a server was asked despite --no-debuginfod or no DEBUGINFOD_URLS"
DEBUGINFOD_URLS=$url "$LUAPROF" run "$CHECKS/leafsrc.lua" -F 999 -- ./chain 200 > on 2>/dev/null || fail "run failed"
total=$(awk '{n += $1} END {print n + 0}' on)
[ "$total" -ge 100 ] && [ $(($(lines on) * 100)) -ge $((total * 90)) ] || { cat on; fail "$(lines on) of $total samples have lines from debuginfod"; }
grep -q "GET /buildid/$bid/debuginfo" srv.log || fail "the server was not asked"
echo "$(lines on) of $total samples with lines from debuginfod"
