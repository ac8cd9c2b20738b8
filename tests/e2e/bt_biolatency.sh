# biolatency beside bpftrace's biolatency.bt rewritten to the block
# tracepoints, on toolwork bio (a 16 MiB file written and fsync'd, then 15
# O_DIRECT reads of it).  The .bt needs kprobes on blk_account_io_start
# and blk_account_io_done, which this kernel lacks: its logic is run on
# the tracepoints those functions hold, block:block_io_start and
# block:block_io_done (Linux 6.5), keyed by device and sector where it
# keyed by the request's address, and kept to the requests toolwork
# started (/comm == "tw-biolatency"/ on the start: toolwork's name here,
# TOOLWORK_NAME, none other test's), as luaprof's --comm=tw-biolatency
# does (toolwork's requests before it took that name, paging in its
# program, are the .bt's no more).  The same number of requests in the
# histogram (toolwork's 15 reads and more on an idle machine; once, under
# ASan with a CPU busy, 7 for both tools alike: the comparison is what
# is asserted, and that there is at least one), and
# the same buckets but for at most one latency on either side of a power
# of two (each tool reads its clock a moment apart at each event).
# TOOLWORK_BUSY keeps every CPU off its idle task: this kernel records no
# perf tracepoint hit while one CPU's idle task runs (a completion
# interrupting it), for perf as for luaprof, where BPF sees it.
# test: alone
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib_bt.sh"
need_bpftrace
[ -d /sys/kernel/tracing/events/block/block_io_done ] || skip "no block:block_io_done tracepoint (Linux 6.5 and later)"
cd "$TMP"
cat > biolatency.bt <<'BT'
BEGIN
{
	printf("Tracing block device I/O... Hit Ctrl-C to end.\n");
}

tracepoint:block:block_io_start
/comm == "tw-biolatency"/
{
	@start[args->dev, args->sector] = nsecs;
}

tracepoint:block:block_io_done
/@start[args->dev, args->sector]/
{
	@usecs = hist((nsecs - @start[args->dev, args->sector]) / 1000);
	delete(@start[args->dev, args->sector]);
}

END
{
	clear(@start);
}
BT
bt_start biolatency.bt
TOOLWORK_NAME=tw-biolatency TOOLWORK_BUSY=1 expect_status 0 "$LUAPROF" run biolatency --comm=tw-biolatency -- "$PROGS/toolwork" bio "$TMP"
cp "$TMP/out" lp.out
bt_stop
hist() { awk '/^@usecs: $/ {on = 1; next} on && /^$/ {on = 0}
	on {sub(/ +\|.*$/, ""); c = $NF; sub(/ +[0-9]+$/, ""); print $0 "\t" c}' "$1"; }
hist lp.out > lp.hist
hist "$BT_OUT" > bt.hist
python3 - bt.hist lp.hist > cmp.txt 2>&1 <<'PY' || { cat lp.out; echo "--- bpftrace:"; cat "$BT_OUT"; fail "biolatency's histogram differs from the .bt's: $(tail -1 cmp.txt)"; }
import sys
def read(p):
    return dict((k, int(v)) for k, v in (l.split("\t") for l in open(p).read().splitlines()))
bt, lp = read(sys.argv[1]), read(sys.argv[2])
n = sum(lp.values())
assert n >= 1, "luaprof's histogram holds no request of toolwork's 15 reads"
assert sum(bt.values()) == n, "%d requests in bpftrace's histogram, %d in luaprof's" % (sum(bt.values()), n)
moved = sum(abs(bt.get(k, 0) - lp.get(k, 0)) for k in set(bt) | set(lp)) // 2
assert moved <= 1, "%d latencies in other buckets: bpftrace %s, luaprof %s" % (moved, bt, lp)
print("%d requests, %d latency across a bucket's edge" % (n, moved))
PY
echo "biolatency: toolwork's $(cat cmp.txt), as biolatency.bt on the block tracepoints counts them"
exit 0
