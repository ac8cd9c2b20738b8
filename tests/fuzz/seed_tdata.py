#!/usr/bin/env python3
"""seed_tdata.py OUTDIR FILE...: seeds for fuzz_tdata and fuzz_tpformat from
perf.data files: each file's TRACING_DATA feature section goes to
OUTDIR/tdata/ whole, and each event format in it to OUTDIR/tpformat/ as
fuzz_tpformat reads it (u16 length, the text, 64 bytes of raw data)."""
import hashlib, os, struct, sys

def tracing_data(b):
    if len(b) < 104 or b[:8] != b'PERFILE2':
        return None
    doff, dsz = struct.unpack_from('<QQ', b, 40)
    bits = struct.unpack_from('<Q', b, 72)[0]
    if not bits & 2 or doff + dsz + 16 > len(b):
        return None
    off, size = struct.unpack_from('<QQ', b, doff + dsz)     # feature 1 is the first bit set
    return b[off:off + size] if off + size <= len(b) else None

def formats(t):
    # every "name: ...\nID: ...\nformat:" text up to the next one's start
    starts, i = [], t.find(b'name: ')
    while i >= 0:
        starts.append(i)
        i = t.find(b'name: ', i + 1)
    for k, s in enumerate(starts):
        e = starts[k + 1] - 8 if k + 1 < len(starts) else len(t)
        end = t.find(b'\n\n', t.find(b'print fmt:', s), e)
        yield t[s:(end if end > 0 else e)]

def put(path, data):
    with open(os.path.join(path, hashlib.sha1(data).hexdigest()[:16]), 'wb') as f:
        f.write(data)

def main():
    out = sys.argv[1]
    for sub in ('tdata', 'tpformat'):
        os.makedirs(os.path.join(out, sub), exist_ok=True)
    for name in sys.argv[2:]:
        try:
            t = tracing_data(open(name, 'rb').read())
        except OSError:
            continue
        if not t:
            continue
        put(os.path.join(out, 'tdata'), t)
        for fmt in formats(t):
            fmt = fmt[:65535]
            put(os.path.join(out, 'tpformat'), struct.pack('<H', len(fmt)) + fmt + bytes(range(64)))

main()
