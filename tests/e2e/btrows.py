#!/usr/bin/env python3
"""btrows.py BT-ROWS LP-ROWS [--unread=TEXT]: compares bpftrace's rows
with luaprof's for the side-by-side tests (tests/e2e/bt_*.sh), one row a
line, fields separated by tabs, in the order each tool printed them.

Every field must be equal, but a field luaprof printed as TEXT (default
"-": a value it reads from the process's memory when it handles the
event, and could not read because the process had exited by then) is a
field it could not know: it matches any value, and a row holding one may
be one that bpftrace left out because of that value (a predicate on it).
When capture at the event lands, the tests give no --unread and every
field must be equal.

Prints "N rows, U fields unread" and exits 0, or says which row differs
and exits 1."""
import sys


def main():
    args = [a for a in sys.argv[1:] if not a.startswith("--")]
    unread = "-"
    for a in sys.argv[1:]:
        if a.startswith("--unread="):
            unread = a.split("=", 1)[1]
    bt = [l.rstrip("\n").split("\t") for l in open(args[0])]
    lp = [l.rstrip("\n").split("\t") for l in open(args[1])]
    i = n_unread = 0
    for row in lp:
        racy = unread in row
        if i < len(bt) and len(bt[i]) == len(row) and all(
                a == b or (b == unread) for a, b in zip(bt[i], row)):
            n_unread += row.count(unread)
            i += 1
        elif not racy:
            want = "\t".join(bt[i]) if i < len(bt) else "(no more rows)"
            sys.exit("luaprof's row %r is not bpftrace's next, %r" % ("\t".join(row), want))
    if i < len(bt):
        sys.exit("bpftrace's rows from %r on are missing from luaprof's" % "\t".join(bt[i]))
    print("%d rows, %d fields unread" % (len(bt), n_unread))


main()
