#!/usr/bin/env python3
"""trim_perfdata.py BUDGET FILE... OUTDIR: small seeds for fuzz_perfdata
from whole recordings.  Each file is cut to about BUDGET bytes of records
at a record boundary, keeping what a reader needs around them: a seekable
file keeps its header, attrs and ids in place, its first records, then its
feature sections (those of 8 KiB or less, the rest dropped from the feature
bits) with their table rewritten after the new data end; a pipe-mode file
keeps its first records (its header records come first).  Large inputs
make each execution slow; the mutations that matter are in the first
records and in the header."""
import os, struct, sys, hashlib

FEAT_MAX = 8192

def records(b, off, end, budget):
    """The end offset of the whole records in [off, end) within budget."""
    start = off
    while off + 8 <= end:
        typ, sz = struct.unpack_from('<I', b, off)[0], struct.unpack_from('<H', b, off + 6)[0]
        if typ == 71 and sz >= 16 and off + 16 <= end:   # AUXTRACE: its payload follows
            sz += struct.unpack_from('<Q', b, off + 8)[0]
        if sz < 8 or off + sz > end or off + sz - start > budget:
            break
        off += sz
    return off

def trim_pipe(b, budget):
    return b[:records(b, 16, len(b), budget)]

def trim_file(b, budget):
    hsize = struct.unpack_from('<Q', b, 8)[0]
    doff, dsz = struct.unpack_from('<QQ', b, 40)
    if hsize < 104 or doff > len(b):
        return None
    dend = min(doff + dsz, len(b))
    cut = records(b, doff, dend, budget)
    bits = list(struct.unpack_from('<4Q', b, 72))
    feats = [i for i in range(256) if bits[i // 64] >> (i % 64) & 1]
    table = doff + dsz
    kept = []
    for n, feat in enumerate(feats):
        o = table + 16 * n
        if o + 16 > len(b):
            break
        foff, fsz = struct.unpack_from('<QQ', b, o)
        if fsz <= FEAT_MAX and foff + fsz <= len(b):
            kept.append((feat, b[foff:foff + fsz]))
    bits = [0, 0, 0, 0]
    for feat, _ in kept:
        bits[feat // 64] |= 1 << (feat % 64)
    head = bytearray(b[:cut])
    struct.pack_into('<QQ', head, 40, doff, cut - doff)
    struct.pack_into('<4Q', head, 72, *bits)
    out = bytes(head)
    body_off = cut + 16 * len(kept)
    tab, body = b'', b''
    for feat, data in kept:
        tab += struct.pack('<QQ', body_off + len(body), len(data))
        body += data
    return out + tab + body

def main():
    budget, files, out = int(sys.argv[1]), sys.argv[2:-1], sys.argv[-1]
    for path in files:
        try:
            b = open(path, 'rb').read()
        except OSError:
            continue
        if len(b) < 16 or b[:8] != b'PERFILE2':
            continue
        pipe = struct.unpack_from('<Q', b, 8)[0] == 16
        t = trim_pipe(b, budget) if pipe else trim_file(b, budget)
        if not t:
            continue
        name = os.path.basename(path) + '-' + hashlib.sha1(t).hexdigest()[:8]
        with open(os.path.join(out, name), 'wb') as f:
            f.write(t)

main()
