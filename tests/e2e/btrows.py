#!/usr/bin/env python3
"""btrows.py BT-ROWS LP-ROWS [--unread=TEXT] [--strlen=N]: compares
bpftrace's rows with luaprof's for the side-by-side tests
(tests/e2e/bt_*.sh), one row a line, fields separated by tabs, in the
order each tool printed them.

Every field must be equal, but:
- a field luaprof printed as TEXT (default "-"; "" for a string) is one
  it reads from the process's memory when it handles the event, and
  could not read because the process had exited by then: it matches any
  value, and a row holding one may be one that bpftrace left out because
  of that value (a predicate on it).  When capture at the event lands, the
  tests give --unread=NONE and every field must be equal;
- a field bpftrace printed as "" where luaprof has a string is one
  bpftrace could not read (str() in a probe cannot fault a page in):
  luaprof's answer is the better one;
- a field of bpftrace's of exactly N-1 characters (--strlen, bpftrace's
  string size, 64 by default) that starts luaprof's is bpftrace's
  truncation of it.
Fields within a field are not split: compare what the tools print.

Prints "N rows, U fields luaprof could not read, B fields bpftrace could
not read, T strings bpftrace truncated" and exits 0, or says which row
differs and exits 1."""
import sys


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    unread, strlen = "-", 64
    for a in sys.argv[1:]:
        if a.startswith("--unread="):
            unread = a.split("=", 1)[1]
        elif a.startswith("--strlen="):
            strlen = int(a.split("=", 1)[1])
    if unread == "NONE":
        unread = None
    bt = [l.rstrip("\n").split("\t") for l in open(args[0])]
    lp = [l.rstrip("\n").split("\t") for l in open(args[1])]
    counts = {"lp": 0, "bt": 0, "cut": 0}

    def same(a, b, tally):
        if a == b:
            return True
        if b == unread:
            tally["lp"] += 1
        elif a == "" and b != "":
            tally["bt"] += 1
        elif len(a) == strlen - 1 and b.startswith(a):
            tally["cut"] += 1
        else:
            return False
        return True

    i = 0
    for row in lp:
        tally = {"lp": 0, "bt": 0, "cut": 0}
        if i < len(bt) and len(bt[i]) == len(row) and all(same(a, b, tally) for a, b in zip(bt[i], row)):
            for k in counts:
                counts[k] += tally[k]
            i += 1
        elif unread is None or unread not in row:
            want = "\t".join(bt[i]) if i < len(bt) else "(no more rows)"
            sys.exit("luaprof's row %r is not bpftrace's next, %r" % ("\t".join(row), want))
    if i < len(bt):
        sys.exit("bpftrace's rows from %r on are missing from luaprof's" % "\t".join(bt[i]))
    print("%d rows, %d fields luaprof could not read, %d fields bpftrace could not read, "
          "%d strings bpftrace truncated" % (len(bt), counts["lp"], counts["bt"], counts["cut"]))


main()
