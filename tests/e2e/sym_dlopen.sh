# A library loaded with dlopen while the program runs is named, with the
# library as s.dso.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
expect_status 0 "$LUAPROF" run "$CHECKS/named.lua" -A libdlwork.so -- "$PROGS/dlopen" "$PROGS/libdlwork.so" 300
n=$(awk '$1=="obj" && $2=="dl_busy_work" {print $3}' "$TMP/out")
[ -n "$n" ] && [ "$n" -gt 200 ] || { cat "$TMP/out"; fail "dl_busy_work in libdlwork.so has ${n:-no} samples, expected > 200"; }
