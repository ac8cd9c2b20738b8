# biosnoop beside bpftrace's biosnoop.bt rewritten to the block
# tracepoints, on toolwork bio (a 16 MiB file written and fsync'd, then
# O_DIRECT reads of it).  The .bt needs kprobes on blk_account_io_start
# and blk_account_io_done, which this kernel lacks (and reads the disk's
# name from the kernel's struct request); its logic is run on the
# tracepoints those functions hold, block:block_io_start and
# block:block_io_done (Linux 6.5), keyed by device and sector where it
# keyed by the request's address, the disk printed as MAJOR:MINOR.  The
# same rows for toolwork's requests, in the same order: the disk (luaprof's
# name is /sys's for that number), the command, the pid, and the latency
# within a millisecond (the two tools' clocks are read a moment apart at
# each event).  TOOLWORK_BUSY keeps every CPU off its idle task: this
# kernel records no perf tracepoint hit while one CPU's idle task runs (a
# completion interrupting it), for perf as for luaprof, where BPF sees it;
# a few such requests may still lack in luaprof's rows (at most a fifth).
# test: alone
. "$(dirname "$0")/lib.sh"
. "$ROOT/tests/e2e/lib_bt.sh"
need_bpftrace
[ -d /sys/kernel/tracing/events/block/block_io_done ] || skip "no block:block_io_done tracepoint (Linux 6.5 and later)"
cd "$TMP"
cat > biosnoop.bt <<'BT'
BEGIN
{
	printf("%-12s %-7s %-16s %-6s %7s\n", "TIME(ms)", "DISK", "COMM", "PID", "LAT(ms)");
}

tracepoint:block:block_io_start
{
	@start[args->dev, args->sector] = nsecs;
	@iopid[args->dev, args->sector] = pid;
	@iocomm[args->dev, args->sector] = comm;
}

tracepoint:block:block_io_done
/@start[args->dev, args->sector] != 0 && @iopid[args->dev, args->sector] != 0 &&
 @iocomm[args->dev, args->sector] != ""/
{
	$now = nsecs;
	printf("%-12u %d:%-5d %-16s %-6d %7d\n", elapsed / 1e6, args->dev >> 20, args->dev & 0xfffff,
	    @iocomm[args->dev, args->sector], @iopid[args->dev, args->sector],
	    ($now - @start[args->dev, args->sector]) / 1e6);
	delete(@start[args->dev, args->sector]);
	delete(@iopid[args->dev, args->sector]);
	delete(@iocomm[args->dev, args->sector]);
}

END
{
	clear(@start); clear(@iopid); clear(@iocomm);
}
BT
bt_start biosnoop.bt
TOOLWORK_BUSY=1 expect_status 0 "$LUAPROF" run biosnoop -- "$PROGS/toolwork" bio "$TMP"
cp "$TMP/out" lp.out
pid=$(awk '$3 == "toolwork" {print $4; exit}' lp.out)
[ -n "$pid" ] || { cat lp.out; fail "luaprof printed no request of toolwork"; }
# toolwork's requests: its pid, under its name (one it makes while exec
# loads it still carries luaprof's name, the forked child's, in
# bpftrace's rows, and none in luaprof's, ":PID": left out of both)
# (toolwork makes 15 reads and its writes, but the kernel's count of
# requests under its name is not a promise: biolatency's test once saw 7
# under load, bpftrace as luaprof; the rows are compared with bpftrace's)
n=$(awk -v p="$pid" '$4 == p && $3 == "toolwork"' lp.out | wc -l)
bt_stop "^[0-9]+ +[0-9]+:[0-9]+ +toolwork +$pid " "$n"
# DISK COMM PID LAT, luaprof's disk as its number
awk -v p="$pid" -v OFS='\t' '$4 == p && $3 == "toolwork" {print $2, $3, $4, $5}' lp.out > lp.rows
while IFS=$'\t' read -r disk rest; do
	printf '%s\t%s\n' "$(cat "/sys/class/block/$disk/dev" 2>/dev/null || echo "$disk")" "$rest"
done < lp.rows > lp.num
awk -v p="$pid" -v OFS='\t' '$4 == p && $3 == "toolwork" {print $2, $3, $4, $5}' "$BT_OUT" > bt.rows
python3 - bt.rows lp.num > cmp.txt 2>&1 <<'PY' || { cat lp.out; echo "--- bpftrace:"; cat "$BT_OUT"; fail "biosnoop's rows differ from the .bt's: $(tail -1 cmp.txt)"; }
import sys
bt = [l.split("\t") for l in open(sys.argv[1]).read().splitlines()]
lp = [l.split("\t") for l in open(sys.argv[2]).read().splitlines()]
# luaprof's rows are bpftrace's, in order; a completion the kernel raised
# on an idle CPU reaches BPF but no perf event (TOOLWORK_BUSY keeps that
# rare: a slow sanitizer build has seen 4 of 33 missing): at most a
# fifth of the rows may lack in luaprof's, and each is said
i = 0
for b in lp:
    while i < len(bt) and not (bt[i][:3] == b[:3] and abs(int(bt[i][3]) - int(b[3])) <= 1):
        print("only bpftrace's: %s" % bt[i])
        i += 1
    assert i < len(bt), "luaprof's row %s is not among bpftrace's, in order" % b
    i += 1
for a in bt[i:]:
    print("only bpftrace's: %s" % a)
assert len(lp) * 5 >= len(bt) * 4, "%d rows from bpftrace, %d from luaprof" % (len(bt), len(lp))
print("%d of %d requests" % (len(lp), len(bt)))
PY
grep '^only' cmp.txt; echo "biosnoop: toolwork's $(tail -1 cmp.txt), as biosnoop.bt on the block tracepoints prints them"
exit 0
