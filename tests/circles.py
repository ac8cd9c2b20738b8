#!/usr/bin/env python3
"""circles.py [-v] [--sources ROOT] [BUILD_DIR] - finds circles between source files from the
symbols of their objects.

Every object under BUILD_DIR/core and BUILD_DIR/lua (at any depth) is read
with nm: the global symbols it defines and those it uses undefined.  File A
uses file B when a symbol A uses is defined in B.  A circle is a strongly
connected component of that graph with more than one file (A uses B and B,
directly or through others, uses A).  Each circle is printed as a chain of
files through all its members, with the symbols that make each step (with
-v, then every use between its members), and the circles are listed again
at the end, one line each.

With --sources ROOT, an object whose source file (ROOT/core/x/y.c for
BUILD/core/x/y.o) no longer exists is left out, and counted: a build
directory keeps the objects of files since moved or removed.

With --layers TABLE (tests/layers.txt), each folder's uses of other
folders (from the objects' symbols, and from the sources' #include "X/Y.h"
of a header in core/X, with --sources) must be listed in TABLE, and no
file includes another folder's private header (NAME_int.h): each use that
is not is printed, and the exit status is 1.

Exit status: 0 no circle, 1 circles or uses the layers forbid (printed),
2 no objects or nm failed.  BUILD_DIR defaults to $BUILD, else build.
"""
import os
import re
import subprocess
import sys
from collections import deque


def objects(build):
    """The objects under BUILD/core and BUILD/lua, sorted."""
    found = []
    for top in ("core", "lua"):
        for dirpath, _dirs, files in os.walk(os.path.join(build, top)):
            found += [os.path.join(dirpath, f) for f in files if f.endswith(".o")]
    return sorted(found)


def symbols(objs):
    """{obj: (defined globals, undefined)} for OBJS, from one run of nm
    (one per object cost seconds on a busy machine)."""
    out = subprocess.run(["nm", "-A", "-g", "--format=posix"] + objs,
                         check=True, text=True,
                         stdout=subprocess.PIPE).stdout
    syms = {obj: (set(), set()) for obj in objs}
    for line in out.splitlines():
        obj, sep, rest = line.rpartition(": ")
        fields = rest.split()
        if not sep or obj not in syms or len(fields) < 2:
            continue
        defined, undefined = syms[obj]
        (undefined if fields[1] in ("U", "w", "v") else defined).add(fields[0])
    return syms


def source_name(build, obj):
    """build/core/x/y.o -> core/x/y.c."""
    return os.path.relpath(obj, build)[:-2] + ".c"


def uses_graph(build, objs):
    """{file: {used file: sorted symbols}} over the objects OBJS."""
    defined_in = {}
    undefined = {}
    for obj, (defs, undefs) in symbols(objs).items():
        name = source_name(build, obj)
        for sym in defs:
            defined_in.setdefault(sym, set()).add(name)
        undefined[name] = undefs
    graph = {}
    for name, syms in undefined.items():
        edges = graph.setdefault(name, {})
        for sym in syms:
            for other in defined_in.get(sym, ()):
                if other != name:
                    edges.setdefault(other, []).append(sym)
        for other in edges:
            edges[other].sort()
    return graph


def components(graph):
    """Tarjan's strongly connected components (iterative), each sorted."""
    index, low, on_stack = {}, {}, set()
    stack, result, counter = [], [], 0
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = counter
        counter += 1
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = counter
                    counter += 1
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph.get(child, {})))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                comp = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    comp.append(member)
                    if member == node:
                        break
                result.append(sorted(comp))
    return result


def path(graph, members, src, targets):
    """The shortest path within MEMBERS from SRC to any of TARGETS."""
    prev = {src: None}
    queue = deque([src])
    while queue:
        node = queue.popleft()
        if node in targets and node != src:
            hops = [node]
            while prev[hops[-1]] is not None:
                hops.append(prev[hops[-1]])
            return hops[::-1]
        for nxt in sorted(graph[node]):
            if nxt in members and nxt not in prev:
                prev[nxt] = node
                queue.append(nxt)
    return None


def chain(graph, comp):
    """A closed walk from the first member through every member of COMP."""
    members = set(comp)
    walk = [comp[0]]
    left = members - {comp[0]}
    while left:
        step = path(graph, members, walk[-1], left)
        walk += step[1:]
        left -= set(step)
    walk += path(graph, members, walk[-1], {comp[0]})[1:]
    return walk


def short(syms, most=3):
    more = len(syms) - most
    return ", ".join(syms[:most]) + (f", +{more} more" if more > 0 else "")


def report(graph, comps, verbose):
    for comp in comps:
        print(f"circle of {len(comp)} files: {' '.join(comp)}")
        walk = chain(graph, comp)
        print(f"  {walk[0]}")
        for a, b in zip(walk, walk[1:]):
            print(f"    -> {b}  ({short(graph[a][b])})")
        if not verbose:
            continue
        print("  uses within it:")
        for a in comp:
            for b in sorted(graph[a]):
                if b in comp:
                    print(f"    {a} -> {b}: {' '.join(graph[a][b])}")


def read_layers(path):
    """{folder: set of folders it may use} from TABLE's "folder: uses..."
    lines ('#' starts a comment)."""
    table = {}
    for line in open(path):
        line = line.split("#", 1)[0].strip()
        if not line:
            continue
        folder, _, uses = line.partition(":")
        table[folder.strip()] = set(uses.split())
    return table


INCLUDE = re.compile(r'^\s*#\s*include\s*"([\w/.-]+)"')


def header_uses(root, files):
    """{file: {(folder of the header, header)}} for each source's #include
    of a header under ROOT/core (a folder's own headers aside)."""
    uses = {}
    for name in files:
        own = os.path.dirname(name)
        try:
            lines = open(os.path.join(root, name), errors="replace").readlines()
        except OSError:
            continue
        for line in lines:
            m = INCLUDE.match(line)
            if not m or not os.path.exists(os.path.join(root, "core", m.group(1))):
                continue
            folder = "core/" + os.path.dirname(m.group(1))
            if folder != own:
                uses.setdefault(name, set()).add((folder, m.group(1)))
    return uses


def check_layers(graph, table, headers):
    """The uses TABLE does not allow, printed; their count."""
    bad = {}
    for a, edges in graph.items():
        fa = os.path.dirname(a)
        for b, syms in edges.items():
            fb = os.path.dirname(b)
            if fa != fb and fb not in table.get(fa, ()):
                bad.setdefault((fa, fb), []).append(f"{a} -> {b} ({short(syms)})")
    private = []
    for a, incs in headers.items():
        fa = os.path.dirname(a)
        for fb, h in sorted(incs):
            if fb not in table.get(fa, ()):
                bad.setdefault((fa, fb), []).append(f"{a} includes {h}")
            if h.endswith("_int.h"):
                private.append(f"{a} includes {h}, private to {fb}")
    for (fa, fb), why in sorted(bad.items()):
        print(f"layers: {fa} uses {fb}, which tests/layers.txt does not allow:")
        for w in why[:5]:
            print(f"    {w}")
    for p in private:
        print(f"layers: {p} (give what it needs a header of its own)")
    return len(bad) + len(private)


def main(argv):
    verbose = "-v" in argv[1:]
    args = [a for a in argv[1:] if a != "-v"]
    sources = None
    if "--sources" in args:
        i = args.index("--sources")
        if i + 1 >= len(args):
            print("circles: --sources needs the source tree's root")
            return 2
        sources = args[i + 1]
        del args[i:i + 2]
    layers = None
    if "--layers" in args:
        i = args.index("--layers")
        if i + 1 >= len(args):
            print("circles: --layers needs the table's path")
            return 2
        layers = read_layers(args[i + 1])
        del args[i:i + 2]
    build = args[0] if args else os.environ.get("BUILD", "build")
    objs = objects(build)
    if sources is not None:
        kept = [o for o in objs if os.path.exists(os.path.join(sources, source_name(build, o)))]
        if len(kept) < len(objs):
            print(f"circles: {len(objs) - len(kept)} objects of sources no longer there left out")
        objs = kept
    if not objs:
        print(f"circles: no objects under {build}/core or {build}/lua")
        return 2
    try:
        graph = uses_graph(build, objs)
    except (OSError, subprocess.CalledProcessError) as err:
        print(f"circles: nm failed: {err}")
        return 2
    comps = [c for c in components(graph) if len(c) > 1]
    report(graph, comps, verbose)
    for comp in comps:
        print(f"circle: {' '.join(comp)}")
    print(f"{len(comps)} circles among {len(objs)} objects")
    forbidden = 0
    if layers is not None:
        headers = header_uses(sources, sorted(graph)) if sources else {}
        forbidden = check_layers(graph, layers, headers)
        print(f"{forbidden} uses the layers forbid")
    return 1 if comps or forbidden else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
