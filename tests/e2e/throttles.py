#!/usr/bin/env python3
"""throttles.py FILE: counts the PERF_RECORD_THROTTLE records of a seekable
perf.data file by the task the CPU ran when the kernel throttled the event,
from each record's sample_id trailer (its first field, pid and tid, when
the events sample TID with sample_id_all, as luaprof's always do).
Prints "idle N busy M": N with pid 0 (the idle task), M the others.  Exits
1 when the file is not such a recording."""
import struct
import sys

PERF_RECORD_THROTTLE = 5
SAMPLE_TID = 1 << 1
SAMPLE_ID_ALL = 1 << 18         # in the attr's flags word


def main(path):
    with open(path, "rb") as f:
        data = f.read()
    if data[:8] != b"PERFILE2":
        sys.exit(f"{path}: not a seekable perf.data file")
    attr_size, a_off, a_size, d_off, d_size = struct.unpack_from("<QQQQQ", data, 16)
    for at in range(a_off, a_off + a_size, attr_size):
        sample_type, = struct.unpack_from("<Q", data, at + 24)
        flags, = struct.unpack_from("<Q", data, at + 40)
        if not (sample_type & SAMPLE_TID and flags & SAMPLE_ID_ALL):
            sys.exit(f"{path}: an event without TID in its sample_id trailer")
    idle = busy = 0
    pos, end = d_off, d_off + d_size
    while pos + 8 <= end:
        rtype, _, size = struct.unpack_from("<IHH", data, pos)
        if size < 8:
            sys.exit(f"{path}: a record of size {size} at {pos}")
        if rtype == PERF_RECORD_THROTTLE:
            pid, = struct.unpack_from("<I", data, pos + 8 + 24)   # after time, id, stream_id
            if pid == 0:
                idle += 1
            else:
                busy += 1
        pos += size
    print(f"idle {idle} busy {busy}")


if __name__ == "__main__":
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    main(sys.argv[1])
