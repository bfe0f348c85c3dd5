"""TAP for the Python test scripts (tool-llama.py, tool-gpu.py): numbered
results, a failure's detail as comments, the plan at the end.

SPDX-License-Identifier: MIT
"""
import re
import subprocess
import sys
import time

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


RUN_LIMIT_S = 600  # no command of a test takes minutes: one that does has hung
BUILD_LIMIT_S = 2400  # a build of llama.cpp from its source: 8 minutes on 2 cores, or slower


def run(*args, env=None, cwd=None, limit_s=RUN_LIMIT_S):
    """Runs a command: (its status, stdout, stderr). One still running after
    limit_s is killed, and its status is 124, as timeout(1) says, with a line
    on stderr: a hung program fails its test, it never stops the suite."""
    try:
        p = subprocess.run(list(args), capture_output=True, text=True, env=env, cwd=cwd, timeout=limit_s)
    except subprocess.TimeoutExpired as e:
        out, err = (x.decode(errors='replace') if isinstance(x, bytes) else (x or '') for x in (e.stdout, e.stderr))
        return 124, out, err + '\n%s: killed, still running after %d s' % (args[0], limit_s)
    return p.returncode, p.stdout, p.stderr


def wait_for(what, timeout=20.0, every=0.2):
    """what() polled every `every` s until it is true (its value), or timeout seconds passed
    (its last value): a state another process reaches when a busy machine lets it, never a
    fixed sleep."""
    end = time.time() + timeout
    while True:
        got = what()
        if got or time.time() > end:
            return got
        time.sleep(every)


def made_until(make, shows, name, again=2):
    """What make(tag) made (a trace), made up to `again` times more while shows(it) is false:
    a trace timed on a machine others share, where a busy one (make check beside it on 2
    cores) stretches the times a check compares. Each remake is said as a comment; the
    last one made is returned, and the test then checks it as it checked the first."""
    made = make(name)
    for n in range(again):
        if shows(made):
            break
        print('# %s: not what it was made to show, made again' % name)
        made = make('%s-again-%d' % (name, n))
    return made


def rss_kib(pid, field='RssAnon'):
    """The process's resident anonymous memory in KiB (RssAnon): its own, not the pages of
    the files it maps (a follower maps windows of the trace as it reads, which the page cache
    owns); or another field of its status (VmRSS: both); 0 if it is gone."""
    try:
        with open('/proc/%d/status' % pid) as f:
            return int(re.search(field + r':\s+(\d+)', f.read()).group(1))
    except (OSError, AttributeError):
        return 0


def memory_kib(pid):
    """(VmRSS, RssAnon) of process pid, for memory_flat()."""
    return rss_kib(pid, 'VmRSS'), rss_kib(pid)


def memory_flat(samples):
    """Whether memory_kib() samples taken through a run show no trend: the median of
    RssAnon over the last third of the run no more than over the first, give or take
    4 MiB, and VmRSS under 64 MiB throughout. Where the reader's windows are counted
    (VmRSS), which window a sample caught moved a third's median by 30 MiB."""
    samples = [s for s in samples if s[0]]
    third = len(samples) // 3
    anon = [a for _, a in samples]

    def median(v):
        return sorted(v)[len(v) // 2]
    return bool(third) and max(r for r, _ in samples) < 64 * 1024 and \
        median(anon[-third:]) <= median(anon[:third]) + 4 * 1024


def finish():
    """The plan, and the exit status: 1 when a test failed."""
    print('1..%d' % count)
    sys.exit(1 if failed else 0)
