#!/usr/bin/env python3
"""attrcmp.py PERF_OUT OURS_OUT EVENTS [counting]: compares the perf_event_attr blocks
perf record -vv printed (PERF_OUT) with luaprof list --attr's (OURS_OUT),
event by event in order (perf's dummy tracking event left out; when perf
could not open the event, only its first attempt, before any fallback),
on the fields that say what is counted and how it is sampled.  With
"counting", PERF_OUT is perf stat -vv's (one attempt per event, counting
attrs) and only what is counted is compared.  Prints the differences;
exits 1 when there are any."""
import sys

FIELDS = ["type", "config", "{ bp_addr, config1 }", "{ bp_len, config2 }", "bp_type",
          "{ sample_period, sample_freq }", "freq", "exclude_user", "exclude_kernel",
          "exclude_hv", "precise_ip", "sample_regs_user", "sample_stack_user",
          "exclude_callchain_user", "disabled", "inherit"]
# sample_type bits that follow from the event string (luaprof adds
# IDENTIFIER, CPU and, for groups, READ on every member; perf adds ID and,
# for call-graph=dwarf, ADDR and DATA_SRC)
BITS = ["CALLCHAIN", "REGS_USER", "STACK_USER", "PERIOD", "RAW"]
# what is counted, whoever counts it
COUNTED = ["type", "config", "{ bp_addr, config1 }", "{ bp_len, config2 }", "bp_type",
           "exclude_user", "exclude_kernel", "exclude_hv", "precise_ip"]


def blocks(text):
    out, cur = [], None
    for line in text.splitlines():
        if line.startswith("perf_event_attr:"):
            cur = {}
            out.append(cur)
        elif cur is not None and line.startswith("  ") and not line.startswith("   "):
            key, _, val = line.strip().rpartition("  ")
            cur[key.strip()] = val.strip()
        elif not line.startswith("  "):
            cur = None
    return out


def norm(b, group_read, counting):
    # a group read with samples: perf 6.1 gives up inherit (kernels before
    # 6.12 refuse it); luaprof keeps it where the kernel takes it
    d = {f: b.get(f, "0") for f in (COUNTED if counting else FIELDS)
         if not (group_read and f == "inherit")}
    for f in ("config", "{ bp_addr, config1 }", "{ bp_len, config2 }", "sample_regs_user"):
        if f in d:
            d[f] = str(int(d[f], 0))
    if counting:
        return d
    st = set(b.get("sample_type", "").split("|"))
    for bit in BITS + (["READ"] if group_read else []):
        d["sample_type:" + bit] = bit in st
    if group_read:
        d["read_format:GROUP"] = "GROUP" in b.get("read_format", "")
    return d


def main():
    perf = [b for b in blocks(open(sys.argv[1]).read())
            if not (b.get("type") == "1" and b.get("config") == "0x9")]
    ours = blocks(open(sys.argv[2]).read())
    event = sys.argv[3]
    counting = len(sys.argv) > 4 and sys.argv[4] == "counting"
    group_read = event.endswith(":S")
    # an event perf could not open: its first attempt is the string's own
    firsts = perf if len(perf) == len(ours) else perf[:1]
    bad = 0
    if len(firsts) < len(ours):
        print(f"{event}: perf printed {len(firsts)} attrs, luaprof {len(ours)}")
        return 1
    for i, (p, o) in enumerate(zip(firsts, ours)):
        pn, on = norm(p, group_read, counting), norm(o, group_read, counting)
        for k in pn:
            if pn[k] != on[k]:
                print(f"{event} [{i}]: {k}: perf {pn[k]}, luaprof {on[k]}")
                bad += 1
    return 1 if bad else 0


sys.exit(main())
