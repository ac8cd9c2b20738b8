# A replay that ends under valgrind, which maps luaprof's code below
# 2 MiB: freeing the reorder queue's chunks, the slots of chunks already
# given back (NULL, of capacity 2 MiB) were unmapped from address 0
# (lp_bigbuf_free called munmap(NULL, 2 MiB)), luaprof's own code with
# them, and the next call jumped into nothing: SIGSEGV as the run ended,
# so callgrind and memcheck could not measure a replay of more than a
# few MiB (issue 35 measures with callgrind).  Elsewhere the unmapping
# hit nothing, by the luck of where a PIE is loaded.
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v valgrind >/dev/null || skip "valgrind is not installed"
[ -z "${SANITIZED:-}" ] || skip "valgrind does not run a sanitized build"
cd "$TMP"
# a recording of a few MiB: the queue gives chunks back and takes others
expect_status 0 "$LUAPROF" record -F 20000 -g -o deep.data -- "$PROGS/deep16" 1500
[ "$(stat -c %s deep.data)" -gt 4000000 ] || skip "the recording is too small to fill the queue ($(stat -c %s deep.data) bytes)"
printf 'local n = 0\nfunction on_sample(s) n = n + 1 end\nfunction on_end() print("samples " .. n) end\n' > count.lua
valgrind --tool=none -q "$LUAPROF" run ./count.lua -i deep.data > out 2> err
rc=$?
[ "$rc" = 0 ] || { tail -5 err; fail "the replay under valgrind exited $rc"; }
grep -q '^samples [1-9]' out || fail "no samples counted: $(cat out)"
echo "valgrind ran a replay of $(stat -c %s deep.data) bytes to its end: $(cat out)"
