#!/usr/bin/env python3
"""chainpatch.py IN OUT N [user]: copies the seekable perf.data file IN to
OUT with the call chains of every Nth sample that has at least three
entries made corrupt: their third entry becomes 0xffffffffffffffff, which
is no context marker perf knows (as a user stack walked through code
without frame pointers can give).  With "user", only chains whose first
three entries are PERF_CONTEXT_KERNEL and two kernel addresses are
counted, and their third entry becomes USER_ADDR, a user address in the
chain's kernel part (as a sample in execve can have).  Prints how many
chains it changed.  Exits 1 when IN is not a recording whose samples
carry call chains."""
import struct
import sys

PERF_RECORD_SAMPLE = 9
# sample_type bits before PERF_SAMPLE_CALLCHAIN, with the bytes each adds
BEFORE = [(1 << 16, 8),     # IDENTIFIER
          (1 << 0, 8),      # IP
          (1 << 1, 8),      # TID
          (1 << 2, 8),      # TIME
          (1 << 3, 8),      # ADDR
          (1 << 6, 8),      # ID
          (1 << 9, 8),      # STREAM_ID
          (1 << 7, 8),      # CPU
          (1 << 8, 8)]      # PERIOD
CALLCHAIN, READ = 1 << 5, 1 << 4
PERF_CONTEXT_KERNEL = (1 << 64) - 128
USER_ADDR = 0x564527cebe00


def kernel_part(data, at):
    """Whether the chain's entries at `at` start with the kernel marker and
    two kernel addresses."""
    first = struct.unpack_from("<QQQ", data, at)
    return first[0] == PERF_CONTEXT_KERNEL and all(a >> 63 and a < PERF_CONTEXT_KERNEL for a in first[1:])


def main(src, dst, every, user=False):
    data = bytearray(open(src, "rb").read())
    if data[:8] != b"PERFILE2":
        sys.exit(f"{src}: not a seekable perf.data file")
    attr_size, a_off, a_size, d_off, d_size = struct.unpack_from("<QQQQQ", data, 16)
    types = {struct.unpack_from("<Q", data, at + 24)[0] for at in range(a_off, a_off + a_size, attr_size)}
    if len(types) != 1:
        sys.exit(f"{src}: events of several sample types")
    stype = types.pop()
    if not stype & CALLCHAIN or stype & READ:
        sys.exit(f"{src}: samples without call chains (or with counts read)")
    skip = sum(n for bit, n in BEFORE if stype & bit)
    pos, end, seen, changed = d_off, d_off + d_size, 0, 0
    while pos + 8 <= end:
        rtype, _, size = struct.unpack_from("<IHH", data, pos)
        if size < 8:
            sys.exit(f"{src}: a record of size {size} at {pos}")
        if rtype == PERF_RECORD_SAMPLE:
            nr, = struct.unpack_from("<Q", data, pos + 8 + skip)
            ips = pos + 8 + skip + 8
            if nr >= 3 and (not user or kernel_part(data, ips)):
                seen += 1
                if seen % every == 0:
                    struct.pack_into("<Q", data, ips + 2 * 8, USER_ADDR if user else (1 << 64) - 1)
                    changed += 1
        pos += size
    open(dst, "wb").write(data)
    print(changed)


if __name__ == "__main__":
    if len(sys.argv) not in (4, 5) or (len(sys.argv) == 5 and sys.argv[4] != "user"):
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]), len(sys.argv) == 5)
