# The flame graph SVG in a real browser (headless Chromium driven by
# playwright-core, both installed by make test-deps): clicking a frame
# zooms, Reset Zoom restores, search highlights with the matched share,
# hovering shows details, the icicle layout is upside down, nothing is
# fetched from the network (tests/e2e/flame_browser.js).  Screenshots stay
# in $BUILD/flamegraph-shots for a look.
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v chromium >/dev/null || skip "chromium is not installed (make test-deps installs it as root)"
command -v node >/dev/null || skip "node is not installed (make test-deps installs nodejs as root)"
# make test-deps installs it under the plain build (make check-asan's
# $BUILD is build-asan)
PW=$BUILD/npm/node_modules/playwright-core
[ -d "$PW" ] || PW=$ROOT/build/npm/node_modules/playwright-core
[ -d "$PW" ] || skip "playwright-core is not installed (make test-deps runs npm install playwright-core)"
cd "$TMP"
expect_status 0 "$LUAPROF" run flamegraph -F 999 -o deep.data --out=flame.svg -- "$PROGS/deep16" 400
expect_status 0 "$LUAPROF" run flamegraph --icicle --out=icicle.svg -i deep.data
mkdir -p "$BUILD/flamegraph-shots"
PLAYWRIGHT_CORE=$PW timeout 90 node "$ROOT/tests/e2e/flame_browser.js" flame.svg icicle.svg \
	"$BUILD/flamegraph-shots" > browser.txt 2>&1 || { cat browser.txt; fail "the browser checks failed"; }
cat browser.txt
exit 0
