#!/usr/bin/env python3
"""gen_auditnames.py SYSCALLS_H: the system call table in SYSCALLS_H (the
kernel's names, one { "name", number } line per call, made from
<asm/unistd.h> by the Makefile) with each name as libaudit gives it for
this machine (audit_syscall_to_name(nr, audit_detect_machine())): the names
perf's Python scripts print, as Debian runs them with python3-audit (a
wrapper of the same library), such as "pread" for pread64.  libaudit is
read through ctypes from libaudit.so.1 (Debian's libaudit1); a number it
does not name is left out (perf's scripts print None for it); without
libaudit, the kernel's names stay."""
import ctypes
import re
import sys

table = re.findall(r'\{ "(\w+)", (\d+) \}', open(sys.argv[1]).read())
try:
    audit = ctypes.CDLL("libaudit.so.1")
    audit.audit_syscall_to_name.restype = ctypes.c_char_p
    audit.audit_syscall_to_name.argtypes = [ctypes.c_int, ctypes.c_int]
    machine = audit.audit_detect_machine()
except (OSError, AttributeError):
    audit = None
    print("luaprof: no libaudit.so.1 (libaudit1): perf ports name system calls as the kernel does",
          file=sys.stderr)
for name, nr in table:
    if audit is not None and machine >= 0:
        name = audit.audit_syscall_to_name(int(nr), machine)
        if not name:
            continue
        name = name.decode()
    print('{ "%s", %s },' % (name, nr))
