# s.folded, which a cache serves for stacks seen before, equals the string
# built from s.comm and s.stack for every sample: over corpus recordings
# with many processes, execs and renamed threads, and live runs of a
# workload that forks and execs and one that dlopens a library.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
check() {   # check WHAT LUAPROF-ARGS...
	local what=$1; shift
	"$LUAPROF" run "$CHECKS/foldcheck.lua" "$@" > "$TMP/fold.out" 2> "$TMP/fold.err" ||
		fail "$what: luaprof failed: $(tail -2 "$TMP/fold.err")"
	read -r n _ d _ < "$TMP/fold.out"
	[ "$d" = 0 ] || fail "$what: $(sed -n 2p "$TMP/fold.out") ($d of $n samples differ)"
	[ "$n" -gt 0 ] || fail "$what: no samples"
	total=$((total + n))
}
total=0
check "forkexec live" -g -F 2000 -- "$PROGS/forkexec" "$PROGS/spin" 200
check "twothreads live (renamed threads, same stacks)" -g -F 2000 -- "$PROGS/twothreads" 101
check "dlopen live" -g -F 2000 -- "$PROGS/dlopen" "$PROGS/libdlwork.so" 300
corpus=$(perfdata_corpus)
nfiles=0
if [ -d "$corpus" ]; then
	for f in perf.data.systemwide.0-3.8 perf.data.forkexit-3.8 perf.data.callgraph-3.8 \
		 perf.data.piped.target-3.8; do
		[ -f "$corpus/$f" ] || continue
		check "$f" -i "$corpus/$f"
		nfiles=$((nfiles + 1))
	done
fi
echo "s.folded equals the string built from s.stack on $total samples ($nfiles corpus files)"
