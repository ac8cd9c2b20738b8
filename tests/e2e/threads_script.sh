# threads: per thread and per process, per interval and in total, on
# twothreads (worker-2 does twice worker-1's work at the same time):
# - live, and the replay of the run's recording prints the same report;
# - the totals equal count.lua's per-thread samples on that recording,
#   exactly, and the process row holds every sample;
# - worker-2 has 0.55-0.75 of the two workers' samples (2/3 of the work;
#   the 0.08 either side is for CPU noise from other work on the machine,
#   which the two threads share about evenly);
# - each interval's rows add up to its sample count;
# - with -p (attached before the program runs: lib.sh's gated) both
#   workers are seen; with -a the
#   whole system is, our process among it.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
cd "$TMP"
# the live run (its report and recording, which the cases read)
expect_status 0 "$LUAPROF" run threads -I 200 -o tt.data -- "$PROGS/twothreads" 201
cp "$TMP/out" live.txt

# the replay of the run's recording prints the same report
replay() {
	expect_status 0 "$LUAPROF" run threads -I 200 -i tt.data
	diff live.txt "$TMP/out" || fail "the replay of the recording prints another report"
}

# the totals are count.lua's per-thread samples; the process row holds every sample
totals() {
	expect_status 0 "$LUAPROF" run count -i tt.data
	awk '$2 ~ /^[0-9]+$/ && $3 ~ /^[0-9]+$/ {print $1, $3, $4}' "$TMP/out" | sort > count.rows
	awk '/^# total/ {t = 1; next} t && $2 ~ /^[0-9]+$/ && $4 ~ /%$/ {if (++n > 3) exit; print $1, $2, $3}' live.txt | sort > total.rows
	diff count.rows total.rows || fail "the total per-thread samples differ from count.lua's"
	all=$(awk '/^total:/ {print $2}' "$TMP/out")
	awk -v n="$all" '/^# total/ {t = 1} t && $1 == "twothreads" && $3 == n {f = 1} END {exit !f}' live.txt ||
		fail "the process row does not hold all $all samples"
}

# each interval's rows add up; worker-2's share of the samples
intervals() {
	python3 - live.txt <<'PY' || fail "per-interval sums or the workers' shares are wrong"
import re, sys
text = open(sys.argv[1]).read()
blocks = re.split(r"\n(?=# )", text.strip())
tables = 0
for b in blocks:
    m = re.match(r"# .*?: (\d+) samples", b)
    lines = b.splitlines()
    head = [i for i, l in enumerate(lines) if l.startswith("COMMAND")]
    thread_rows = [l.split() for l in lines[head[0] + 1:head[1]]]     # then the process rows
    assert sum(int(r[2]) for r in thread_rows) == int(m.group(1)), b
    tables += 1
    if b.startswith("# total"):
        w = {r[0]: int(r[2]) for r in thread_rows}
        share = w["worker-2"] / (w["worker-1"] + w["worker-2"])
        assert 0.55 <= share <= 0.75, "worker-2's share %.3f" % share
assert tables >= 3, "%d tables" % tables
print("threads: %d tables add up; worker-2 %.3f" % (tables, share))
PY
}

# -p, attached before the program runs
attached() {
	gated "$PROGS/twothreads" 301
	trap 'kill $GATE_PID 2>/dev/null' EXIT
	attach_gated 0 "$LUAPROF" run threads --no-intervals
	grep -q '^worker-1 ' "$TMP/out" && grep -q '^worker-2 ' "$TMP/out" || { cat "$TMP/out"; fail "-p: the workers are missing"; }
}

# -a
all_cpus() {
	expect_status 0 "$LUAPROF" run threads --no-intervals -a -- "$PROGS/twothreads" 51
	grep -q '^worker-2 ' "$TMP/out" || { cat "$TMP/out"; fail "-a: worker-2 is missing"; }
}

scenario "the replay prints the same report" replay
scenario "the totals are count.lua's" totals
scenario "intervals add up, worker-2's share" intervals
scenario "-p" attached
scenario "-a" all_cpus
scenarios_done
