"""What the tests of GGML's RPC read from a trace (tool-rpc.py, llama-rpc.py,
bench/llama-rpc.py): its records with their process, each command as each
side recorded it, and whether every server op lies inside its command's
round trip; and whether a server listens yet.

SPDX-License-Identifier: MIT
"""
import json
import subprocess


def listening(port):
    """Whether a socket listens on 127.0.0.1:port (/proc/net/tcp: no connection made, which a
    server would take for a client)."""
    want = ':%04X' % port
    with open('/proc/net/tcp') as f:
        return any(ln.split()[1].endswith(want) and ln.split()[3] == '0A' for ln in f.readlines()[1:])


def records(ggmlviz, path):
    """Every record of path (ggmlviz dump -f jsonl), each with 'pid': its process's."""
    out = subprocess.run([ggmlviz, 'dump', '-f', 'jsonl', path], capture_output=True,
                         text=True).stdout
    pid, recs = 0, []
    for line in out.splitlines():
        r = json.loads(line)
        if r['type'] == 'META' and r.get('kind') == 'PROCESS':
            pid = r['key']
        r['pid'] = pid
        recs.append(r)
    return recs


def commands(recs, side):
    """{(conn, seq): {'pid', 'cmd', 'begin', 'end', 'in', 'reply', 'status', 'reply_bytes'}} of a side."""
    cmds = {}
    for r in recs:
        if not r['type'].startswith('RPC_') or r.get('side') != side:
            continue
        k = cmds.setdefault((r['conn'], r['seq']), {'pid': r['pid'], 'cmd': r['cmd']})
        if r['type'] == 'RPC_BEGIN':
            k['begin'] = r['ts']
        elif r['type'] == 'RPC_END':
            k.update(end=r['ts'], status=r['status'], reply_bytes=r['reply_bytes'])
        elif r.get('stage') == 1:
            k['in'] = r['ts']
        else:
            k['reply'] = r['ts']
    return cmds


def ops(recs, pids):
    """[(pid, begin, end, label)] of the ops of those processes (begin and end paired by thread)."""
    open_, out = {}, []
    for r in recs:
        if r['pid'] not in pids or r['type'] not in ('OP_COMPUTE_BEGIN', 'OP_COMPUTE_END'):
            continue
        key = (r['pid'], r['tid'])
        if r['type'] == 'OP_COMPUTE_BEGIN':
            open_[key] = r
        elif key in open_:
            b = open_.pop(key)
            out.append((r['pid'], b['ts'], r['ts'], b.get('label')))
    return out


def round_trip(client, conn, seq):
    """The client's round trip of command seq: from its send to the next reply on its connection."""
    k = client.get((conn, seq))
    if not k or 'begin' not in k:
        return None
    for s in range(seq, seq + 100000):
        n = client.get((conn, s))
        if n is None:
            return None
        if n.get('reply_bytes') and n.get('status') == 0 and 'end' in n:
            return k['begin'], n['end']
    return None


def ops_outside(recs):
    """(ops checked, [those outside their command's round trip, or in no command])."""
    client, server = commands(recs, 1), commands(recs, 2)
    served = sorted((k['begin'], k.get('end', k['begin']), conn, seq, k['pid'])
                    for (conn, seq), k in server.items() if 'begin' in k)
    checked, outside = 0, []
    for pid, b, e, label in ops(recs, {k['pid'] for k in server.values()}):
        cmd = [s for s in served if s[4] == pid and s[0] <= b and e <= s[1]]
        rt = round_trip(client, cmd[0][2], cmd[0][3]) if cmd else None
        checked += 1
        if not rt or not (rt[0] <= b and e <= rt[1]):
            outside.append((label, b, e, rt))
    return checked, outside
