"""llama-server for the tests: started on a free port, asked for completions,
stopped as a user stops it (SIGTERM).

SPDX-License-Identifier: MIT
"""
import json
import re
import shutil
import signal
import socket
import subprocess
import time
import urllib.request


def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


def start(server, args, env, timeout=60, log=None):
    """(the process, its port once /health answers 200, or None). Its stderr in a pipe read at
    its stop, or in log (a file open for writing): a server that logs more than a pipe holds
    (64 KiB) before it is stopped blocks on it."""
    port = free_port()
    p = subprocess.Popen([server, *args, '--host', '127.0.0.1', '--port', str(port)], env=env,
                         stdout=subprocess.DEVNULL, stderr=log or subprocess.PIPE, text=True)
    deadline = time.time() + timeout
    while time.time() < deadline and p.poll() is None:
        try:
            with urllib.request.urlopen('http://127.0.0.1:%d/health' % port, timeout=2) as r:
                if r.status == 200:
                    return p, port
        except OSError:
            time.sleep(0.2)
    return p, None


def complete(port, body, out, i, timeout=120):
    """POST /completion with body (a dict); its answer, or {'error': ...}, into out[i]."""
    req = urllib.request.Request('http://127.0.0.1:%d/completion' % port,
                                 json.dumps(body).encode(), {'Content-Type': 'application/json'})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            out[i] = json.loads(r.read())
    except OSError as e:
        out[i] = {'error': str(e)}


def stop(p, timeout=60):
    """SIGTERM, then SIGKILL after timeout s; returns what it wrote to stderr."""
    p.send_signal(signal.SIGTERM)
    try:
        return p.communicate(timeout=timeout)[1] or ''
    except subprocess.TimeoutExpired:
        p.kill()
        return p.communicate()[1] or ''


# A frame of libggmlviz's code: its functions' prefix, its exit handler, its sources.
LIBRARY_FRAME = re.compile(r'\bggmlviz_|\bat_exit \(|/lib/tracer/')
EXIT_FRAME = re.compile(r'\b(__run_exit_handlers|__GI_exit|exit) \(')


def hang_in_exit(pid):
    """Where a process that hangs in exit() waits, from gdb's backtrace of its threads:
    'library' when the thread running exit() waits inside libggmlviz's code, 'c library'
    when it waits in the C library's own exit with none of libggmlviz's frames above
    exit() (the program's signal handler called exit() where glibc's exit takes a lock
    the interrupted code holds, as it does untraced), or None (no gdb, no thread in
    exit()), with the frames above exit()."""
    if not shutil.which('gdb'):
        return None, 'gdb is not installed'
    out = subprocess.run(['gdb', '-p', str(pid), '-batch', '-nx', '-ex', 'thread apply all bt'],
                         capture_output=True, text=True, timeout=120).stdout
    for thread in re.split(r'\n(?=Thread \d+ )', out):
        frames = [f for f in thread.splitlines() if f.startswith('#')]
        at = next((i for i, f in enumerate(frames) if EXIT_FRAME.search(f)), None)
        if at is not None:
            above = frames[:at + 1]
            where = 'library' if any(LIBRARY_FRAME.search(f) for f in above) else 'c library'
            return where, '\n'.join(above)
    return None, out[-1500:]
