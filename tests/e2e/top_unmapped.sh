# The level ([k] or [.]) of call-chain addresses outside every mapping in
# top --children, as perf report --children gives it: perf walks a chain
# from the root (ORDER_CALLER with --children) with one addr_location
# whose level fill_callchain_info sets only for an entry with a map, so an
# unmapped address keeps the level of the nearest mapped frame on its root
# side, or the sample's own ("[k]" for a user address in a chain sampled
# in the kernel).  A -g recording of tests/progs/faults (page faults: many
# samples in the kernel, with their user chains) is patched: in every
# chain with two user entries or more, the outermost becomes an address
# outside every map (one of seven), and every third chain's second user
# entry (when it is not the outermost) one of five others.  top --children equals perf report --children
# row for row, levels and order of the unnamed rows included.
# test: check
. "$(dirname "$0")/lib.sh"
need_perf_events
command -v perf >/dev/null || skip "perf is not installed: nothing to compare with"
cd "$TMP"
perf record -q -g -F 4000 -o fp.data -- "$PROGS/faults" 64 >/dev/null 2>&1 || fail "perf record failed"
python3 - fp.data bad.data <<'PY' > patched || fail "cannot patch fp.data"
import struct, sys
data = bytearray(open(sys.argv[1], "rb").read())
assert data[:8] == b"PERFILE2"
attr_size, a_off, a_size, d_off, d_size = struct.unpack_from("<QQQQQ", data, 16)
stype = struct.unpack_from("<Q", data, a_off + 24)[0]
assert stype & (1 << 5) and not stype & (1 << 4)
# bytes before the chain: IDENTIFIER IP TID TIME ADDR ID STREAM_ID CPU PERIOD
skip = sum(8 for bit in (16, 0, 1, 2, 3, 6, 9, 7, 8) if stype & (1 << bit))
USER = (1 << 64) - 512
pos, end, n, k = d_off, d_off + d_size, 0, 0
while pos + 8 <= end:
    rtype, _, size = struct.unpack_from("<IHH", data, pos)
    if rtype == 9:
        at = pos + 8 + skip
        nr, = struct.unpack_from("<Q", data, at)
        ips = list(struct.unpack_from("<%dQ" % nr, data, at + 8))
        if USER in ips and nr - ips.index(USER) - 1 >= 2:
            u = ips.index(USER) + 1
            struct.pack_into("<Q", data, at + 8 + 8 * (nr - 1), 0x0000100000000000 + (n % 7) * 0x1000)
            if n % 3 == 0 and nr - u >= 3:
                struct.pack_into("<Q", data, at + 8 + 8 * (u + 1), 0x0000200000000000 + (n % 5) * 0x1000)
                k += 1
            n += 1
    pos += size
open(sys.argv[2], "wb").write(data)
print(n, k)
PY
read -r n k < patched
[ "$n" -ge 20 ] || fail "only $n chains with two user entries to patch"
rows() { awk '$1 ~ /%$/ {$1 = $1; print}'; }
perf report -i bad.data --stdio --children --sort sym -n -g none 2>/dev/null | rows > perf.rows
grep -q '\[k\] 0x0000100000' perf.rows || { cat perf.rows; fail "perf shows no [k] unmapped row: the recording has no chain sampled in the kernel"; }
expect_status 0 "$LUAPROF" run top --children --limit=100000 -i bad.data
rows < "$TMP/out" > ours.rows
diff perf.rows ours.rows > rows.diff || { head -20 rows.diff; fail "top --children differs from perf report --children"; }
echo "$n chains patched ($k twice): $(grep -c '\[k\] 0x0000[12]00000' ours.rows) [k] and $(grep -c '\[\.\] 0x0000[12]00000' ours.rows) [.] unmapped rows, as perf"
