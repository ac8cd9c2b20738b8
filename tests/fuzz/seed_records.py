#!/usr/bin/env python3
"""seed_records.py SRCDIR OUTDIR: seeds for fuzz_record from real perf.data
files: the first 64 records of each file's data section, and after them
the first of each type not seen yet, each prefixed by the 40-byte layout
fuzz_record reads (the file's first attr's sample_type << 1 |
sample_id_all, read_format, branch_sample_type, regs masks)."""
import os, struct, sys, hashlib

def attrs(b):
    # perf.data header: magic, size, attr_size, attrs {off,size}, data {off,size}
    if len(b) < 104 or b[:8] != b'PERFILE2':
        return None
    attr_size = struct.unpack_from('<Q', b, 16)[0]
    aoff, asz = struct.unpack_from('<QQ', b, 24)
    doff, dsz = struct.unpack_from('<QQ', b, 40)
    if attr_size < 72 or aoff + attr_size > len(b):
        return None
    a = b[aoff:aoff + attr_size]
    sample_type = struct.unpack_from('<Q', a, 24)[0]
    read_format = struct.unpack_from('<Q', a, 32)[0]
    flags = struct.unpack_from('<Q', a, 40)[0]
    sid_all = (flags >> 18) & 1
    def q(o):
        return struct.unpack_from('<Q', a, o)[0] if o + 8 <= len(a) else 0
    prefix = struct.pack('<QQQQQ', (sample_type << 1) | sid_all, read_format, q(72), q(80), q(96))
    return prefix, doff, dsz

def main():
    src, out = sys.argv[1], sys.argv[2]
    for name in sorted(os.listdir(src)):
        try:
            b = open(os.path.join(src, name), 'rb').read()
        except OSError:
            continue
        r = attrs(b)
        if not r:
            continue
        prefix, off, size = r
        end, n, seen = min(off + size, len(b)), 0, set()
        while off + 8 <= end:
            t, misc, sz = struct.unpack_from('<IHH', b, off)
            if sz < 8 or off + sz > end:
                break
            if n < 64 or t not in seen:
                seed = prefix + b[off:off + sz]
                h = hashlib.sha1(seed).hexdigest()[:16]
                with open(os.path.join(out, 'seed-' + h), 'wb') as f:
                    f.write(seed)
            seen.add(t)
            off, n = off + sz, n + 1

main()
