#!/usr/bin/env python3
"""perfstacks.py: perf's outputs for one recording, made comparable with
luaprof's (the dwarf_inline test).

  perfstacks.py norm WITH NOINLINE OUT NAMES
      perf script's text WITH (inlined frames) and NOINLINE (perf script
      --no-inline, same file) into OUT, with what docs/perf-differences.md
      says luaprof does differently undone: a last frame
      0xffffffffffffffff [unknown] ([unknown]) (libunwind read a return
      address as 0) is dropped, and a frame that perf names by DWARF's name
      of its function, marked "(inlined)" where the function is not
      inlined (an alias: __libc_start_main_impl for __libc_start_main), is
      named by its symbol again, as perf names it without inlined frames.
      NAMES gets both names of each such function, one a line; prints how
      many stacks ended with that frame.
  perfstacks.py fold TEXT
      the folded stacks of perf script text (as stackcollapse-perf.pl:
      comm;root;...;leaf COUNT, offsets and objects left out, kernel
      frames suffixed _[k] and inlined ones _[i] as luaprof's are), sorted.
  perfstacks.py script PERF OURS
      compares perf script's text PERF with luaprof's OURS, sample by
      sample and byte for byte, but where perf's stack ends with the frame
      0xffffffffffffffff [unknown] ([unknown]): there the frames before it
      must begin luaprof's (which may go on: it found the return address
      libunwind read as 0).  Prints the first difference, exits 1.
  perfstacks.py near A B K
      compares lines "COUNT... NAME" of A and B (children rows: two counts;
      folded stacks: one): the same names with the same counts, where K
      stacks ended as above: then each count may differ by K, and a
      name be missing with counts up to K.  Prints what differs, exits 1.
  perfstacks.py children REPORT NAMES [RENAME]
      the rows of REPORT (perf report --children --stdio -n --sort sym, or
      luaprof's top --children) as "CHILDREN SELF NAME" sample counts, rows
      of one name summed (perf may split a function's row in two), the
      names in NAMES and unnamed rows left out, sorted.  RENAME: lines
      "NAME<tab>PERF'S NAME" (lua/perfnames.lua) to name rows as perf does.
"""
import re
import sys

FRAME = re.compile(r"^\t\s*([0-9a-f]+) (.*) \(([^()]*)\)$")
BOGUS = "ffffffffffffffff"


def samples(path):
    """(header, [frame lines]) per sample of perf script text."""
    head, frames = None, []
    for line in open(path, errors="replace"):
        line = line.rstrip("\n")
        if not line:
            if head is not None:
                yield head, frames
            head, frames = None, []
        elif line.startswith("\t") and head is not None:
            frames.append(line)
        else:
            if head is not None:
                yield head, frames
            head, frames = line, []
    if head is not None:
        yield head, frames


def parse(line):
    m = FRAME.match(line)
    return (m.group(1), m.group(2), m.group(3)) if m else (None, line, "")


def groups(lines, plain):
    """lines (with inlined frames) split per frame of plain (without)."""
    out, i = [], 0
    for k, p in enumerate(plain):
        addr = parse(p)[0]
        same_next = k + 1 < len(plain) and parse(plain[k + 1])[0] == addr
        g = []
        while i < len(lines) and parse(lines[i])[0] == addr:
            if g and same_next and lines[i] == g[0]:
                break           # the next frame, at the same address (recursion)
            g.append(lines[i])
            i += 1
            if parse(g[-1])[2] != "inlined":
                break
        out.append(g)
    return out


def norm(with_path, plain_path, out_path, names_path):
    names, bogus = set(), 0
    with open(out_path, "w") as out:
        for (head, lines), (_, plain) in zip(samples(with_path), samples(plain_path)):
            if plain and parse(plain[-1])[0] == BOGUS:
                plain = plain[:-1]
                lines = lines[:-1]
                bogus += 1
            res = []
            for p, g in zip(plain, groups(lines, plain)):
                if g and parse(g[-1])[2] == "inlined":
                    d = re.sub(r"\+0x[0-9a-f]+$", "", parse(g[-1])[1])
                    e = re.sub(r"\+0x[0-9a-f]+$", "", parse(p)[1])
                    names.update((d + " (inlined)", e))
                    g = g[:-1] + [p]
                res.extend(g or [p])
            out.write(head + "\n" + "".join(l + "\n" for l in res) + ("\n" if res else ""))
    with open(names_path, "w") as f:
        f.write("".join(n + "\n" for n in sorted(names)))
    print(bogus)


def fold(path):
    stacks = {}
    for head, lines in samples(path):
        comm = re.match(r"^\s*(\S.*?)\s+\d+(/\d+)?\s", head)
        names = []
        for l in lines:
            addr, name, obj = parse(l)
            name = re.sub(r"\+0x[0-9a-f]+$", "", name)
            # a kernel address, as luaprof tells one (a BPF program's
            # frame too, whose object is not [kernel.kallsyms])
            kernel = obj != "inlined" and addr is not None and int(addr, 16) >> 63
            names.append(name + ("_[k]" if kernel else "_[i]" if obj == "inlined" else ""))
        key = ";".join([comm.group(1) if comm else "?"] + names[::-1])
        stacks[key] = stacks.get(key, 0) + 1
    for k in sorted(stacks):
        print(k, stacks[k])


def script(perf_path, ours_path):
    theirs, ours = list(samples(perf_path)), list(samples(ours_path))
    if len(theirs) != len(ours):
        sys.exit("%d samples in perf's text, %d in luaprof's" % (len(theirs), len(ours)))
    for (head, lines), (ohead, olines) in zip(theirs, ours):
        if head == ohead and lines and parse(lines[-1])[0] == BOGUS and olines[:len(lines) - 1] == lines[:-1]:
            continue
        if (head, lines) != (ohead, olines):
            print("perf:\n" + "\n".join([head] + lines) + "\nluaprof:\n" + "\n".join([ohead] + olines))
            sys.exit(1)


def near(a_path, b_path, k):
    def read(path):
        rows = {}
        for line in open(path):
            words = line.rstrip("\n").split(" ")
            counts = []
            while words and re.match(r"^\d+$", words[0]) and len(counts) < 2:
                counts.append(int(words.pop(0)))
            if not counts and words and re.match(r"^\d+$", words[-1]):   # folded: the count last
                counts.append(int(words.pop()))
            rows[" ".join(words)] = counts
        return rows
    a, b, k, bad = read(a_path), read(b_path), int(k), 0
    for name in sorted(set(a) | set(b)):
        ca, cb = a.get(name, [0, 0]), b.get(name, [0, 0])
        if any(abs(x - y) > k for x, y in zip(ca, cb)) or (k == 0 and ca != cb):
            print("%s: perf %s, luaprof %s" % (name, ca, cb))
            bad = 1
    sys.exit(bad)


def children(path, names_path, rename_path=None):
    skip = {l.rstrip("\n") for l in open(names_path)}
    rename = dict(l.rstrip("\n").split("\t", 1) for l in open(rename_path)) if rename_path else {}
    parsed = []
    for line in open(path, errors="replace"):
        m = re.match(r"^\s+([\d.]+)%\s+([\d.]+)%\s+(\d+)\s+\[[k.]\] (.*?)\s*$", line)
        if m:
            parsed.append((float(m.group(1)), int(m.group(3)), m.group(4)))
    n = sum(p[1] for p in parsed)       # every sample is one row's own (perf says "1K")
    rows = {}
    for pct, own, name in parsed:
        inl = name.endswith(" (inlined)")
        base = name[:-10] if inl else name
        name = rename.get(base, base) + (" (inlined)" if inl else "")
        if name in skip or re.match(r"^(0x[0-9a-f]+|[0-9a-f]{16}|\[unknown\])$", name):
            continue
        c, s = rows.get(name, (0, 0))
        rows[name] = (c + round(pct * n / 100), s + own)
    for name in sorted(rows):
        print(rows[name][0], rows[name][1], name)


if __name__ == "__main__":
    cmd = sys.argv[1] if len(sys.argv) > 1 else ""
    if cmd == "norm" and len(sys.argv) == 6:
        norm(*sys.argv[2:])
    elif cmd == "fold" and len(sys.argv) == 3:
        fold(sys.argv[2])
    elif cmd == "script" and len(sys.argv) == 4:
        script(*sys.argv[2:])
    elif cmd == "near" and len(sys.argv) == 5:
        near(*sys.argv[2:])
    elif cmd == "children" and len(sys.argv) in (4, 5):
        children(*sys.argv[2:])
    else:
        sys.exit(__doc__)
