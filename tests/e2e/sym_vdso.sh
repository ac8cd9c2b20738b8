# Time spent in the vDSO is named, with [vdso] as the object.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
expect_status 0 "$LUAPROF" run "$CHECKS/named.lua" -A "[vdso]" -- "$PROGS/clockloop" 10
grep -qE '^obj (__vdso_clock_gettime|clock_gettime|__vdso_gettimeofday|do_hres|vread_tsc|__cvdso_clock_gettime[a-z_]*) [0-9]+' "$TMP/out" ||
	{ cat "$TMP/out"; fail "no named samples in [vdso]"; }
! grep -q '^obj ? ' "$TMP/out" || echo "note: some [vdso] samples unnamed: $(grep '^obj ?' "$TMP/out")"
