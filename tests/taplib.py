"""TAP for the Python test scripts (tool-llama.py, tool-gpu.py): numbered
results, a failure's detail as comments, the plan at the end.

SPDX-License-Identifier: MIT
"""
import subprocess
import sys

count = 0
failed = False


def ok(cond, what, detail=''):
    global count, failed
    count += 1
    print('%s %d - %s' % ('ok' if cond else 'not ok', count, what))
    if not cond:
        failed = True
        for line in str(detail).splitlines()[:8]:
            print('# ' + line)


def skip(what, why):
    global count
    count += 1
    print('ok %d - %s # SKIP %s' % (count, what, why))


def run(*args, env=None, cwd=None):
    p = subprocess.run(list(args), capture_output=True, text=True, env=env, cwd=cwd)
    return p.returncode, p.stdout, p.stderr


def finish():
    """The plan, and the exit status: 1 when a test failed."""
    print('1..%d' % count)
    sys.exit(1 if failed else 0)
