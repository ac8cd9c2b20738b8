#!/usr/bin/env python3
"""doctest.py - runs the examples of luaprof's documentation and compares
each with the output shown (tests/e2e/docs.sh runs it over README.md and
docs/*.md).  The convention, also described in docs/internals.md:

  ```console (or ```sh) fences: each line "$ COMMAND" is an example; the
      lines after it, up to the next "$ " line or the fence's end, are its
      expected standard output.  A fence with no "$ " line is an
      illustration and is not run (in README.md and docs/tutorial.md a
      luaprof command must be run: shown as "$ luaprof ...", or its fence
      marked skip).
  ```lua fences: a script.  Each needs a directive saying how it is run:
      file=NAME.lua   saved under that name for the "$ luaprof run ./NAME.lua"
                      commands after it (it must be run by one of them)
      run="ARGS"      run as "luaprof run ./NAME ARGS", and compared with
                      the ```text fence right after it, if there is one
      compile: WHY    only compiled, counted as skipped with WHY
  ```text fences: output, when a lua fence's run= points at it.

  A directive is an HTML comment on the line before the fence (GitHub does
  not show it):  <!-- doctest: KEY=VALUE FLAG ... -->  or
  <!-- doctest: skip: WHY -->.  Keys for commands and run= scripts:
      tol=P%        a sampled example: numbers are compared within P percent
      abs=N         ... or within N either way (whichever allows more)
      tol=any       any number matches (pids, times); the words must match
      mask=REGEX    the parts of each line matched by REGEX's groups (or
                    by all of it, without groups) are not compared: pids,
                    addresses, wall times
      unordered     the lines may come in any order
      stderr        standard error is part of the output shown
      status=N      the exit status expected (default 0)
      needs=A,B     skip, saying why, unless this machine has them: root,
                    tracefs, uprobe, kprobe, pmu, watchpoints
      timeout=S     seconds before the example fails (default 30)
  A line "..." in the expected output stands for any number of lines.
  Relative links ([text](file.md#heading)) must reach an existing file and
  heading; <!-- doctest-pending: PATH --> in a document lets its links to
  PATH, a document not written yet, skip visibly instead.
  Lines are compared as words (runs of spaces do not count), so columns
  widened by a larger number still match; with a tolerance, a word of
  only '@' and '|' (a histogram's bar) matches any such word.

Commands run under bash in a scratch directory of their file's own
holding the test programs (tests/progs, built by make progs: ./demo,
./spin, ...) and the files saved by file=, with luaprof first on PATH; an
example ends when its shell does (what it left in the background is
killed).  With -j N, N files run at a time.  Each example is one row of
"N passed, N failed, N skipped", in the order of the files given;
failures are explained at the end.
"""
import argparse
import concurrent.futures
import os
import re
import shlex
import shutil
import signal
import subprocess
import sys
import tempfile

FENCE = re.compile(r'^(\s*)(```+|~~~+)\s*([\w+-]*)\s*$')
DIRECTIVE = re.compile(r'^\s*<!--\s*doctest:\s*(.*?)\s*-->\s*$')
NUMBER = re.compile(r'(-?\d[\d,]*(?:\.\d+)?)')
BAR = re.compile(r'^[|@]+$')
STRICT_DOCS = ('README.md', 'tutorial.md')
LINK = re.compile(r'\[[^\]]*\]\(([^)\s]+)\)')
PENDING = re.compile(r'<!--\s*doctest-pending:\s*(\S+)\s*-->')
INDENTED_CMD = re.compile(r'^(    |\t)\s*\$ luaprof\s')


def slug(heading):
    """GitHub's anchor for a heading."""
    h = re.sub(r'[^\w\- ]', '', heading.strip().lower())
    return h.replace(' ', '-')


def anchors(path):
    out, fence = set(), False
    for line in open(path, encoding='utf-8'):
        if FENCE.match(line):
            fence = not fence
        elif not fence and line.startswith('#'):
            out.add(slug(line.lstrip('#')))
    return out


class Block:
    def __init__(self, path, line, lang, lines, directive):
        self.path, self.line, self.lang, self.lines = path, line, lang, lines
        self.directive = directive      # dict, or None


def parse_directive(text):
    """'skip: why' / 'compile: why' or KEY=VALUE words -> a dict."""
    m = re.match(r'^(skip|compile)\s*:\s*(.*)$', text)
    if m:
        return {m.group(1): m.group(2) or 'no reason given'}
    d = {}
    for word in shlex.split(text):
        key, eq, value = word.partition('=')
        d[key] = value if eq else True
    return d


def read_blocks(path):
    """The fenced blocks of a markdown file, each with its directive."""
    blocks, lines = [], open(path, encoding='utf-8').read().split('\n')
    i, pending = 0, None
    while i < len(lines):
        m = DIRECTIVE.match(lines[i])
        if m:
            pending = (parse_directive(m.group(1)), i + 1)
            i += 1
            continue
        f = FENCE.match(lines[i])
        if not f:
            if lines[i].strip():
                pending = None          # a directive binds the next fence only
            i += 1
            continue
        indent, mark, lang = f.group(1), f.group(2), f.group(3)
        start, body = i + 1, []
        i += 1
        while i < len(lines) and not (lines[i].strip().startswith(mark[:3]) and
                                      lines[i].strip().strip(mark[0]) == ''):
            body.append(lines[i][len(indent):] if lines[i].startswith(indent) else lines[i])
            i += 1
        i += 1
        blocks.append(Block(path, start, lang, body, pending[0] if pending else None))
        pending = None
    return blocks


def masked(line, opts):
    """line with the spans opts['mask'] matches replaced by '*'."""
    if not opts.get('mask'):
        return line
    rx = re.compile(opts['mask'])
    out, last = [], 0
    for m in rx.finditer(line):
        spans = [m.span(g) for g in range(1, rx.groups + 1) if m.span(g) != (-1, -1)] or [m.span()]
        for a, b in spans:
            if a >= last:
                out.append(line[last:a] + '*')
                last = b
    return ''.join(out) + line[last:]


def words_match(exp, act, opts):
    """One expected line against one actual, as words, numbers within the
    tolerance."""
    exp, act = masked(exp, opts), masked(act, opts)
    if exp.split() == act.split():
        return True
    tol = opts.get('tol')
    if not tol:
        return False
    ew, aw = exp.split(), act.split()
    if len(ew) != len(aw):
        return False
    for e, a in zip(ew, aw):
        if e == a or (BAR.match(e) and BAR.match(a)):
            continue
        ep, ap = NUMBER.split(e), NUMBER.split(a)
        if len(ep) != len(ap):
            return False
        for k, (x, y) in enumerate(zip(ep, ap)):
            if k % 2 == 0:
                if x != y:
                    return False
            elif not number_close(x, y, opts):
                return False
    return True


def number_close(e, a, opts):
    if opts['tol'] == 'any':
        return True
    ev, av = float(e.replace(',', '')), float(a.replace(',', ''))
    slack = max(abs(ev) * float(opts['tol'].rstrip('%')) / 100, float(opts.get('abs', 0)))
    return abs(ev - av) <= slack


def match_lines(exp, act, opts):
    """exp (with "..." lines) against act: True or False."""
    if opts.get('unordered'):
        free = list(act)
        for e in exp:
            if e.strip() == '...':
                continue
            hit = next((k for k, a in enumerate(free) if words_match(e, a, opts)), None)
            if hit is None:
                return False
            free.pop(hit)
        return not free or any(e.strip() == '...' for e in exp)
    memo = {}

    def m(i, j):
        if (i, j) in memo:
            return memo[(i, j)]
        if i == len(exp):
            r = j == len(act)
        elif exp[i].strip() == '...':
            r = any(m(i + 1, k) for k in range(j, len(act) + 1))
        else:
            r = j < len(act) and words_match(exp[i], act[j], opts) and m(i + 1, j + 1)
        memo[(i, j)] = r
        return r
    return m(0, 0)


def trim(lines):
    lines = [l.rstrip() for l in lines]
    while lines and not lines[-1]:
        lines.pop()
    return lines


class Machine:
    """What the examples may need, checked once each."""
    def __init__(self, luaprof):
        self.luaprof, self.cache = luaprof, {}

    def lacks(self, need):
        if need not in self.cache:
            self.cache[need] = self.check(need)
        return self.cache[need]

    def check(self, need):
        dev = '/sys/bus/event_source/devices/'
        if need == 'root':
            return None if os.geteuid() == 0 else 'not root (tracepoint data is root\'s)'
        if need == 'tracefs':
            for d in ('/sys/kernel/tracing/events', '/sys/kernel/debug/tracing/events'):
                if os.path.isdir(d):
                    return None
            return 'no tracefs mounted at /sys/kernel/tracing'
        if need in ('uprobe', 'kprobe'):
            return None if os.path.isdir(dev + need) else 'this kernel has no %s PMU (%s%s)' % (need, dev, need)
        if need == 'pmu':
            r = subprocess.run([self.luaprof, 'stat', '-e', 'cycles', '--', 'true'],
                               capture_output=True, text=True)
            return 'no hardware PMU (cycles <not supported>)' if 'not supported' in r.stderr else None
        if need == 'watchpoints':
            if os.environ.get('LP_TEST_NO_WATCHPOINTS'):
                return 'watchpoints hidden (LP_TEST_NO_WATCHPOINTS)'
            return None
        return 'unknown need %r (the doctest directive is wrong)' % need


class Runner:
    """The examples of one file, in a scratch directory of its own: its
    rows (ok, skip, FAIL lines) in rows, the failures explained in
    failures."""
    def __init__(self, args, machine):
        self.luaprof = os.path.abspath(args.luaprof)
        self.work = tempfile.mkdtemp(prefix='luaprof-doctest.')
        self.bin = os.path.join(self.work, '.bin')
        os.mkdir(self.bin)
        os.symlink(self.luaprof, os.path.join(self.bin, 'luaprof'))
        for name in os.listdir(args.progs):
            os.symlink(os.path.join(os.path.abspath(args.progs), name), os.path.join(self.work, name))
        self.machine = machine
        self.passed, self.failed, self.skipped = 0, 0, 0
        self.rows, self.failures = [], []
        self.saved = {}                 # file= name -> (block, run by a command?)

    def where(self, b, offset=0):
        return '%s:%d' % (os.path.relpath(b.path), b.line + offset)

    def ok(self, where, what):
        self.passed += 1
        self.rows.append('ok   %s: %s' % (where, what))

    def skip(self, where, why):
        self.skipped += 1
        self.rows.append('skip %s: %s' % (where, why))

    def fail(self, where, what, detail=''):
        self.failed += 1
        self.rows.append('FAIL %s: %s' % (where, what))
        self.failures.append('FAIL %s: %s\n%s' % (where, what, detail))

    def needs_missing(self, opts):
        for need in str(opts.get('needs', '')).split(','):
            if need:
                why = self.machine.lacks(need)
                if why:
                    return why
        return None

    def execute(self, command, opts):
        """Runs command under bash, as a terminal would: the example ends
        when its shell does, and what it left running in the background
        (./spin 2000 & luaprof -p $! -d 1) is killed then, rather than
        waited for (its output would come after the prompt)."""
        env = dict(os.environ, PATH=self.bin + ':' + os.environ.get('PATH', ''))
        timeout = float(opts.get('timeout', 30))
        with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
            p = subprocess.Popen(['bash', '-c', command], cwd=self.work, env=env, stdout=out,
                                 stderr=subprocess.STDOUT if opts.get('stderr') else err,
                                 start_new_session=True)
            try:
                status = p.wait(timeout=timeout)
            except subprocess.TimeoutExpired:
                status = None
            try:
                os.killpg(p.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
            p.wait()
            if status is None:
                return None, '', 'timed out after %s s' % opts.get('timeout', 30)
            out.seek(0)
            err.seek(0)
            return status, out.read().decode('utf-8', 'replace'), err.read().decode('utf-8', 'replace')

    def check(self, where, command, expected, opts):
        why = self.needs_missing(opts)
        if why:
            self.skip(where, '%s: %s' % (command, why))
            return
        status, out, err = self.execute(command, opts)
        want = int(opts.get('status', 0))
        actual, expected = trim(out.split('\n')), trim(expected)
        if status is None:
            self.fail(where, command, '    ' + err)
        elif status != want:
            self.fail(where, '%s: exit status %d, not %d' % (command, status, want),
                      indent('stdout:', actual) + indent('stderr:', trim(err.split('\n'))))
        elif not match_lines(expected, actual, opts):
            self.fail(where, '%s: its output differs from the one shown%s%s' %
                      (command, describe(opts), first_difference(expected, actual, opts)),
                      indent('expected (the document):', expected) + indent('got:', actual) +
                      (indent('stderr:', trim(err.split('\n'))) if err.strip() else ''))
        else:
            self.ok(where, command + describe(opts))

    def console(self, b, opts, strict):
        commands, cur = [], None
        for k, line in enumerate(b.lines):
            if line.startswith('$ '):
                cur = [k, line[2:], []]
                commands.append(cur)
            elif cur and cur[1].endswith('\\'):
                cur[1] = cur[1][:-1] + ' ' + line.strip()
            elif cur:
                cur[2].append(line)
        if not commands:
            if strict and any(re.match(r'\s*luaprof\s', l) for l in b.lines):
                self.fail(self.where(b), 'a luaprof command that is not run: show it as '
                          '"$ luaprof ..." with its output, or mark the fence '
                          '<!-- doctest: skip: WHY -->')
            return
        for k, command, expected in commands:
            where = self.where(b, k + 1)        # b.line is the fence's line
            if 'skip' in opts:
                self.skip(where, '%s: %s' % (command, opts['skip']))
                continue
            for name in self.saved:
                if re.search(r'(^|[\s/])' + re.escape(name) + r'\b', command):
                    self.saved[name][1] = True
            self.check(where, command, expected, opts)

    def lua(self, b, opts, following):
        where = self.where(b)
        if 'skip' in opts:
            self.skip(where, 'lua: ' + opts['skip'])
            return False
        name = opts.get('file') or 'example-%s-%d.lua' % (os.path.basename(b.path).split('.')[0], b.line)
        with open(os.path.join(self.work, name), 'w') as f:
            f.write('\n'.join(b.lines) + '\n')
        if 'compile' in opts or ('file' in opts and 'run' not in opts):
            compiled = self.compiles(name)
            if compiled:
                self.fail(where, 'lua: %s does not compile' % name, '    ' + compiled)
            elif 'compile' in opts:
                self.skip(where, 'lua %s compiled, not run: %s' % (name, opts['compile']))
            else:
                self.saved[name] = [b, False]
            return False
        if 'run' not in opts:
            self.fail(where, 'a lua fence without a doctest directive: say how it runs '
                      '(file=NAME.lua, run="ARGS", compile: WHY or skip: WHY)')
            return False
        expected, used = [], False
        if following is not None and following.lang == 'text' and following.directive is None:
            expected, used = following.lines, True
        self.check(where, 'luaprof run ./%s %s' % (name, opts['run']), expected, opts)
        return used

    def compiles(self, name):
        """None when the script compiles, else Lua's message."""
        check = os.path.join(self.work, '.compile.lua')
        with open(check, 'w') as f:
            f.write('local f, err = loadfile(arg[1]) if not f then io.stderr:write(err) os.exit(1) end\n')
        status, _, err = self.execute('luaprof run %s -A %s -- true' % (shlex.quote(check), shlex.quote(name)), {})
        return None if status == 0 else err.strip() or 'exit %s' % status

    def links(self, path):
        """One row: every relative link of the file reaches its target."""
        text = open(path, encoding='utf-8').read()
        pending = set(os.path.normpath(p) for p in PENDING.findall(text))
        bad, waiting, n = [], [], 0
        body = re.sub(r'`[^`\n]*`', '', re.sub(r'```.*?```', '', text, flags=re.S))
        for target in LINK.findall(body):
            if re.match(r'^[a-z]+:', target):
                continue
            n += 1
            file, _, anchor = target.partition('#')
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
            if not os.path.exists(dest):
                rel = os.path.relpath(dest)
                (waiting if rel in pending else bad).append(target)
            elif anchor and dest.endswith('.md') and anchor not in anchors(dest):
                bad.append(target)
        where = '%s' % os.path.relpath(path)
        for line in text.split('\n'):
            if INDENTED_CMD.match(line):
                bad.append('an indented "$ luaprof" command, which is not run: put it in a ```console fence')
        if bad:
            self.fail(where, 'links: %d of %d do not resolve' % (len(bad), n),
                      '\n'.join('    ' + b for b in bad))
        else:
            self.ok(where, 'links: %d relative links resolve' % n)
        for w in waiting:
            self.skip(where, 'link to %s: not written yet (doctest-pending)' % w)

    def run_file(self, path):
        self.links(path)
        blocks = read_blocks(path)
        strict = os.path.basename(path) in STRICT_DOCS
        skip_next = False
        for k, b in enumerate(blocks):
            if skip_next:
                skip_next = False
                continue
            opts = b.directive or {}
            if b.lang == 'lua':
                skip_next = self.lua(b, opts, blocks[k + 1] if k + 1 < len(blocks) else None)
            elif b.lang in ('console', 'sh', 'shell', 'bash'):
                self.console(b, opts, strict)
        for name, (b, used) in self.saved.items():
            if not used:
                self.fail(self.where(b), 'lua: %s is saved (file=) but no "$ luaprof run ./%s" runs it' % (name, name))
        self.saved = {}

    def finish(self):
        shutil.rmtree(self.work, ignore_errors=True)


def first_difference(expected, actual, opts):
    """Where a plain (no "...", ordered) comparison first goes wrong."""
    if opts.get('unordered') or any(e.strip() == '...' for e in expected):
        return ''
    for k, e in enumerate(expected):
        if k >= len(actual):
            return '; line %d, %r, is missing' % (k + 1, e.strip())
        if not words_match(e, actual[k], opts):
            return '; line %d shows %r, the run printed %r' % (k + 1, e.strip(), actual[k].strip())
    return '; the run printed %d more lines' % (len(actual) - len(expected))


def describe(opts):
    parts = []
    if opts.get('tol'):
        parts.append('numbers within %s' % opts['tol'] if opts['tol'] != 'any' else 'any numbers')
    if opts.get('unordered'):
        parts.append('any order')
    return ' (%s)' % ', '.join(parts) if parts else ''


def indent(title, lines):
    return '    %s\n%s\n' % (title, '\n'.join('      | ' + l for l in lines))


def run_one(args, machine, path):
    runner = Runner(args, machine)
    try:
        runner.run_file(path)
    finally:
        runner.finish()
    return runner


def main():
    p = argparse.ArgumentParser(description='run the examples of markdown files')
    p.add_argument('--luaprof', required=True)
    p.add_argument('--progs', required=True, help='the built test programs (build/progs)')
    p.add_argument('-j', '--jobs', type=int, default=1,
                   help='files run at a time (each in a scratch directory of its own), '
                        'the largest first; the rows are printed in the order given')
    p.add_argument('files', nargs='+')
    args = p.parse_args()
    machine = Machine(os.path.abspath(args.luaprof))
    # most examples wait (on a workload, a duration, the kernel): files
    # side by side take the time of the longest rather than of all
    order = sorted(args.files, key=lambda f: -os.path.getsize(f))
    with concurrent.futures.ThreadPoolExecutor(max(1, args.jobs)) as pool:
        futures = {f: pool.submit(run_one, args, machine, f) for f in order}
        runners = [futures[f].result() for f in args.files]
    for r in runners:
        for row in r.rows:
            print(row)
    for r in runners:
        for f in r.failures:
            print(f)
    passed, failed, skipped = (sum(getattr(r, k) for r in runners) for k in ('passed', 'failed', 'skipped'))
    print('%d passed, %d failed, %d skipped' % (passed, failed, skipped))
    sys.exit(1 if failed else 0)

if __name__ == '__main__':
    main()
