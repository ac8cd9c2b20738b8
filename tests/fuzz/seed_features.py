#!/usr/bin/env python3
"""seed_features.py FILE... OUTDIR: seeds for fuzz_pdfeat from real
perf.data files: each seekable file's feature sections as that target's
input (a layout byte, then { u8 feature, u16 length, bytes } per section),
once for the seekable layout and once for the pipe layout."""
import os, struct, sys, hashlib

def features(b):
    if len(b) < 104 or b[:8] != b'PERFILE2' or struct.unpack_from('<Q', b, 8)[0] < 104:
        return []
    doff, dsz = struct.unpack_from('<QQ', b, 40)
    bits = struct.unpack_from('<4Q', b, 72)
    table, out, k = doff + dsz, [], 0
    for f in range(256):
        if not bits[f // 64] >> (f % 64) & 1:
            continue
        o = table + 16 * k
        k += 1
        if o + 16 > len(b):
            break
        off, size = struct.unpack_from('<QQ', b, o)
        if size <= 16384 and off + size <= len(b):
            out.append((f, b[off:off + size]))
    return out

def main():
    files, dst = sys.argv[1:-1], sys.argv[-1]
    for path in files:
        try:
            feats = features(open(path, 'rb').read())
        except OSError:
            continue
        if not feats:
            continue
        body = b''.join(struct.pack('<BH', f, len(d)) + d for f, d in feats if f < 256)
        for layout in (0, 1):
            seed = bytes([layout]) + body
            name = 'feat-%s-%d-%s' % (os.path.basename(path), layout, hashlib.sha1(seed).hexdigest()[:8])
            with open(os.path.join(dst, name), 'wb') as fh:
                fh.write(seed)

main()
