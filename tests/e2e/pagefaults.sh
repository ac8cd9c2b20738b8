# pagefaults on faults (four rounds of touching 8 MB of fresh memory page
# by page, in main):
# - from perf's recording (perf record -e minor-faults,major-faults -c 1),
#   each function's minor faults are perf report's for that event,
#   exactly, and each object's the sum of its functions';
# - live, main has exactly 8192 minor faults (4 x 8 MB / 4 KiB) and no
#   major one, unless transparent huge pages are "always" on (then a fault
#   may map 2 MB: 16 to 8192); with -g its stack main <- __libc_start_call_main;
# - with -p (attached to four rounds of 32 MB) main has faults, at most
#   32768; with -a, main of our program has its 8192.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
cd "$TMP"
thp=$(cat /sys/kernel/mm/transparent_hugepage/enabled 2>/dev/null)
case $thp in *"[always]"*) lo=16 ;; *) lo=8192 ;; esac
# From perf's recording: each function's minor faults, and each object's.
perf_recording() {
	command -v perf >/dev/null || skip "perf is not installed: nothing to compare with"
	perf record -q -e minor-faults,major-faults -c 1 -o pf.data -- "$PROGS/faults" 8 >/dev/null 2>&1 || fail "perf record failed"
	perf report -i pf.data --stdio --no-children --sort sym,dso -n -g none 2>/dev/null |
		awk '/^# Samples: .* of event / {ev = $NF} ev == "\047minor-faults\047" && $1 ~ /%$/ && $4 !~ /^0x/ {print $4, $5, $2}' |
		sort > perf.minor
	expect_status 0 "$LUAPROF" run pagefaults --limit=100000 -i pf.data
	# (a function with major faults alone, when the machine is short of
	# memory, is a row of ours with 0 minor, and not one of perf's table
	# of minor faults)
	awk '/^# by function/ {t = 1; next} /^# / {t = 0} t && $1 ~ /^[0-9]+$/ && $2 > 0 && $5 != "[unknown]" {print $5, $6, $2}' "$TMP/out" |
		sort > ours.minor
	[ "$(wc -l < perf.minor)" -ge 3 ] || fail "perf report shows fewer than three functions"
	diff perf.minor ours.minor || fail "minor faults per function differ from perf report's"
	python3 - "$TMP/out" <<'PY' || fail "the objects' faults are not the sums of their functions'"
import re, sys
funcs, objs, sec = {}, {}, None
for l in open(sys.argv[1]):
    if l.startswith("# by "):
        sec = l.split()[2]
    f = l.split()
    if sec and f and f[0].isdigit():
        if sec == "function":
            funcs[f[5]] = funcs.get(f[5], 0) + int(f[0])
        else:
            objs[f[4]] = int(f[0])
assert funcs == objs, (funcs, objs)
PY
}

# Live: main's faults, and its stack with -g.
live() {
	expect_status 0 "$LUAPROF" run pagefaults -g -- "$PROGS/faults" 8
	awk -v lo="$lo" '$5 == "main" && $6 == "faults" && $2 >= lo && $2 <= 8192 && $3 == 0 {f = 1} END {exit !f}' "$TMP/out" ||
		{ cat "$TMP/out"; fail "main: not $lo-8192 minor faults and no major one"; }
	grep -qE '^ +[0-9]+  main <- __libc_start_call_main' "$TMP/out" || fail "no stack main <- __libc_start_call_main"
}

# -p, attached to four rounds of 32 MB.
attached() {
	"$PROGS/faults" 32 &
	pid=$!
	trap 'kill $pid 2>/dev/null' EXIT
	expect_status 0 "$LUAPROF" run pagefaults -p "$pid"
	wait "$pid"
	awk '$5 == "main" && $6 == "faults" && $1 > 0 && $1 <= 32768 {f = 1} END {exit !f}' "$TMP/out" ||
		{ cat "$TMP/out"; fail "-p: main has no faults or too many"; }
}

# -a: our program's main has its faults.
all_cpus() {
	cp "$PROGS/faults" "flt$$"
	expect_status 0 "$LUAPROF" run pagefaults --limit=100000 -a -- "./flt$$" 8
	awk -v c="flt$$" -v lo="$lo" '$5 == "main" && $6 == c && $2 >= lo {f = 1} END {exit !f}' "$TMP/out" ||
		fail "-a: our main's faults are missing"
}

scenario "perf's recording, per function and object" perf_recording
scenario "live, with -g" live
scenario "-p" attached
scenario "-a" all_cpus
scenarios_done
