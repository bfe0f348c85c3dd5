#!/usr/bin/env python3
"""contrib/llama.cpp/ggmlviz-edit.py's --sched-graph-ids and --sched-no-wait
(TAP): GGML's scheduler tells libggmlviz each split's id before it asks
about the split's nodes, the view of a whole split keeps the split's id,
the split's next nodes are given to libggmlviz at once after its first ask
(a loop of asks that moved: that part left out alone, said), and no wait for the device follows a split none of whose nodes the eval
callback wanted (one that wanted a node's data still waits), in the
scheduler as the release has it and as a small copy of it; a scheduler
whose graphs have no id is left as it is, and said so, and so is one
whose code moved, without failing the build (the edits only save work).
--server-requests on the release's server: each arrival where a task is
pushed into the queue (found with or without the debug log's line); a
server or a CPU backend whose code moved: that feature left out whole,
said, and the build goes on with the others. --rpc-commands on the
release's RPC backend: every call of both sides made, the server's message
helpers wrapped once each; a backend whose code moved: left out whole,
said, the others made.

Usage: edits.py BUILDDIR TMPDIR

SPDX-License-Identifier: MIT
"""
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import taplib  # noqa: E402
from taplib import ok, run, skip  # noqa: E402

TMP = sys.argv[2]
TOP = os.environ.get('top_srcdir', os.path.join(os.path.dirname(os.path.abspath(__file__)), '..'))
EDIT = os.path.join(TOP, 'contrib', 'llama.cpp', 'ggmlviz-edit.py')
SCHED = os.path.join('ggml', 'src', 'ggml-backend.cpp')

# GGML's scheduler as it computes a split for an eval callback, cut to what the edit reads
WITH_IDS = '''#include "ggml-impl.h"

static void split_graph(ggml_backend_sched_t sched) {
    for (int i = 0; i < sched->n_splits; ++i) {
        sched->splits[i].graph.uid = ggml_graph_next_uid();
    }
}

static enum ggml_status compute_splits(ggml_backend_sched_t sched) {
        if (!sched->callback_eval) {
            ggml_backend_graph_compute_async(split_backend, &split->graph);
        } else {
            // similar to ggml_backend_compare_graph_backend
            for (int j0 = 0; j0 < split->graph.n_nodes; j0++) {
                struct ggml_tensor * t = split->graph.nodes[j0];
                bool need = sched->callback_eval(t, true, sched->callback_eval_user_data);
                int j1 = j0;
                while (!need && j1 < split->graph.n_nodes - 1) {
                    t = split->graph.nodes[++j1];
                    need = sched->callback_eval(t, true, sched->callback_eval_user_data);
                }
                struct ggml_cgraph gv = ggml_graph_view(&split->graph, j0, j1 + 1);

                enum ggml_status ec = ggml_backend_graph_compute_async(split_backend, &gv);

                // TODO: pass backend to the callback, then the user can decide if they want to synchronize
                ggml_backend_synchronize(split_backend);

                if (need && !sched->callback_eval(t, false, sched->callback_eval_user_data)) {
                    break;
                }
            }
        }
}
'''
TOLD = '''        } else {
            ggmlviz_nodes_split(split->graph.uid, split_backend); // libggmlviz: the split's id and backend, before its asks
            // similar to ggml_backend_compare_graph_backend'''
KEPT = '''                struct ggml_cgraph gv = ggml_graph_view(&split->graph, j0, j1 + 1);
                if (j0 == 0 && j1 + 1 == split->graph.n_nodes) {
                    gv.uid = split->graph.uid; // libggmlviz: the whole split, its id kept (ggmlviz-edit.py)
                }

                enum ggml_status ec'''


def tree(name, text):
    """A source tree in TMP/name holding the scheduler's file; its path."""
    top = os.path.join(TMP, name)
    os.makedirs(os.path.join(top, 'ggml', 'src'), exist_ok=True)
    with open(os.path.join(top, SCHED), 'w') as f:
        f.write(text)
    return top


def read(top):
    with open(os.path.join(top, SCHED)) as f:
        return f.read()


# the view of a whole split keeps its id
top = tree('ids', WITH_IDS)
rc, out, err = run(sys.executable, EDIT, top, '--sched-graph-ids')
text = read(top)
ok(rc == 0 and KEPT in text, 'a whole split\'s view is given the split\'s id', out + err + text)
ok(TOLD in text, 'libggmlviz is told the split\'s id before its nodes are asked about', text)
ok('ggmlviz-sched.h" // libggmlviz' in text.split('\n')[1], 'the call\'s header is included after ggml-impl.h',
   text)
ok('ggml-backend.cpp: the scheduler\'s view of a split' in out, 'the edit says where it was made', out)
REST = '''                int j1 = j0;
                if (!need) { // libggmlviz: the next asks of a split computed again, taken at once (ggmlviz-edit.py)
                    const int ggmlviz_to = ggmlviz_nodes_ask_rest(sched->callback_eval_user_data,
                        (const void *const *) split->graph.nodes, j1 + 1, split->graph.n_nodes);
                    if (ggmlviz_to > j1 + 1) {
                        j1 = ggmlviz_to - 1;
                        t = split->graph.nodes[j1];
                    }
                }
                while (!need && j1 < split->graph.n_nodes - 1) {'''
ok(REST in text and text.count('ggmlviz_nodes_ask_rest(') == 1,
   'after a split\'s first ask, its next nodes are given to libggmlviz at once', text)

# the asks' loop moved: the ids made all the same, the asks at once left out and said
moved = WITH_IDS.replace('while (!need && j1 < split->graph.n_nodes - 1) {', 'while (j1 < split->graph.n_nodes - 1 && !need) {')
top = tree('rest-moved', moved)
rc, out, err = run(sys.executable, EDIT, top, '--sched-graph-ids')
text = read(top)
ok(rc == 0 and KEPT in text and TOLD in text and 'ggmlviz_nodes_ask_rest' not in text and
   'asked about node by node' in out, 'a loop of asks that moved: the ids made, the asks at once '
   'left out, said, and no failure', '%d %s%s' % (rc, out, err))

# graphs without ids (an older llama.cpp): nothing to keep, nothing changed, said
old = WITH_IDS.replace('        sched->splits[i].graph.uid = ggml_graph_next_uid();\n', '')
top = tree('no-ids', old)
rc, out, err = run(sys.executable, EDIT, top, '--sched-graph-ids')
ok(rc == 0 and read(top) == old, 'a scheduler whose graphs have no id is left as it is', out + err)
ok('not needed (its graphs have no id)' in out, 'and says so', out)

# ids, but a place moved: nothing made (the call needs the include), said, the build goes on
moved = WITH_IDS.replace('struct ggml_cgraph gv = ggml_graph_view(', 'ggml_cgraph gv = ggml_graph_view(')
top = tree('moved', moved)
rc, out, err = run(sys.executable, EDIT, top, '--sched-graph-ids')
ok(rc == 0 and read(top) == moved and 'not made (found no single place for' in out and
   'ggml-backend.cpp' in out, 'a place that moved: nothing made, said, and no failure', '%d %s%s' % (rc, out, err))
# no wait after a split of which no node's data was wanted: only after one that was
NO_WAIT = '''                // TODO: pass backend to the callback, then the user can decide if they want to synchronize
                if (need) { // libggmlviz: no data wanted, no wait (ggmlviz-edit.py --sched-no-wait)
                    ggml_backend_synchronize(split_backend);
                }
'''
top = tree('no-wait', WITH_IDS)
rc, out, err = run(sys.executable, EDIT, top, '--sched-no-wait')
text = read(top)
ok(rc == 0 and NO_WAIT in text and text.count('ggml_backend_synchronize(') == 1,
   'the wait after a split is made only when a node\'s data was wanted', out + err + text)
moved = WITH_IDS.replace('ggml_backend_synchronize(split_backend);', 'ggml_backend_synchronize(b);')
top = tree('no-wait-moved', moved)
rc, out, err = run(sys.executable, EDIT, top, '--sched-no-wait')
ok(rc == 0 and read(top) == moved and 'waits for the device after each split' in out,
   'a scheduler whose wait moved: nothing made, said, and no failure', '%d %s%s' % (rc, out, err))

# the release the tests build, where fetched
release = os.path.join(TOP, 'third_party', 'ggml', 'src')
if os.path.isfile(os.path.join(release, SCHED)):
    top = os.path.join(TMP, 'release')
    os.makedirs(os.path.join(top, 'ggml', 'src'))
    shutil.copy(os.path.join(release, SCHED), os.path.join(top, SCHED))
    rc, out, err = run(sys.executable, EDIT, top, '--sched-graph-ids', '--sched-no-wait')
    text = read(top)
    ok(rc == 0 and text.count('gv.uid = split->graph.uid;') == 1 and
       text.count('ggmlviz_nodes_split(split->graph.uid, split_backend);') == 1 and
       text.count('if (need) { // libggmlviz: no data wanted, no wait') == 1 and
       text.count('ggmlviz_nodes_ask_rest(') == 1,
       'the release\'s scheduler takes the edits once', out + err)
else:
    skip('the release\'s scheduler takes the edits once', 'no fetched source (scripts/fetch-ggml.sh --source)')

# ---- llama-server's requests, and features left out whole ----
QUEUE = os.path.join('tools', 'server', 'server-queue.cpp')
CTX = os.path.join('tools', 'server', 'server-context.cpp')
CPU = os.path.join('ggml', 'src', 'ggml-cpu', 'ggml-cpu.c')


def copy_of(name, edit=lambda path, text: text):
    """A tree in TMP/name with the release's server and CPU backend, each passed through edit."""
    top = os.path.join(TMP, name)
    for rel in (QUEUE, CTX, CPU):
        os.makedirs(os.path.dirname(os.path.join(top, rel)), exist_ok=True)
        with open(os.path.join(release, rel)) as f:
            text = edit(rel, f.read())
        with open(os.path.join(top, rel), 'w') as f:
            f.write(text)
    return top


def text_of(top, rel):
    with open(os.path.join(top, rel)) as f:
        return f.read()


if not all(os.path.isfile(os.path.join(release, rel)) for rel in (QUEUE, CTX, CPU)):
    for what in ('server arrivals', 'server without its log line', 'a server that moved',
                 'a CPU backend that moved'):
        skip(what, 'no fetched source (scripts/fetch-ggml.sh --source)')
else:
    top = copy_of('server')
    rc, out, err = run(sys.executable, EDIT, top, '--server-requests')
    q = text_of(top, QUEUE)
    ok(rc == 0 and q.count('ggmlviz_server_arrived(task);') == 2 and
       len(re.findall(r'ggmlviz_server_arrived\(task\);\n[ \t]*if \(front\) \{\n[ \t]*queue_tasks\.push_front',
                      q)) == 2 and 'ggmlviz_server_prompt(slot);' in text_of(top, CTX),
       'the release\'s server: each arrival where a task is pushed into the queue, every call made',
       out + err)
    top = copy_of('server-quiet', lambda rel, t: re.sub(r'(?m)^[ \t]*QUE_DBG\("new task[^\n]*\n', '', t))
    rc, out, err = run(sys.executable, EDIT, top, '--server-requests')
    ok(rc == 0 and text_of(top, QUEUE).count('ggmlviz_server_arrived(task);') == 2,
       'a server without the debug log\'s line: its arrivals found all the same', out + err)
    moved = copy_of('server-moved', lambda rel, t: t.replace('slot.stats.update_prompt_start();',
                                                               'slot.stats.start_prompt();'))
    before = (text_of(moved, QUEUE), text_of(moved, CTX))
    rc, out, err = run(sys.executable, EDIT, moved, '--server-requests', '--cpu-shares')
    ok(rc == 0 and (text_of(moved, QUEUE), text_of(moved, CTX)) == before and
       'not made (found no single place for where a slot starts its prompt' in out and
       'the trace has no requests' in out and 'ggmlviz_cpu_share_starts' in text_of(moved, CPU),
       'a server whose code moved: its requests left out whole, said, the build goes on '
       '(the CPU\'s shares made)', '%d %s%s' % (rc, out, err))
    moved = copy_of('cpu-moved', lambda rel, t: t.replace('compute-done', 'done computing'))
    before = text_of(moved, CPU)
    rc, out, err = run(sys.executable, EDIT, moved, '--cpu-shares', '--server-requests')
    ok(rc == 0 and text_of(moved, CPU) == before and 'timed by the backend\'s ticks' in out and
       'ggmlviz_server_arrived(task);' in text_of(moved, QUEUE),
       'a CPU backend whose code moved: its shares left out whole, said, the build goes on '
       '(the requests made)', '%d %s%s' % (rc, out, err))

# ---- GGML's RPC backend ----
RPC = os.path.join('ggml', 'src', 'ggml-rpc', 'ggml-rpc.cpp')
RPC_CALLS = {'ggmlviz_rpc_client_hello(': 1, 'ggmlviz_rpc_client_send(': 2, 'ggmlviz_rpc_server_reply(': 1,
             'ggmlviz_rpc_server_request(': 2, 'ggmlviz_rpc_server_recv_cmd(': 2, 'ggmlviz_rpc_server_compute(': 2,
             'ggmlviz_rpc_server_start(': 1, 'ggmlviz_rpc_server_accepted();': 1,
             'ggmlviz_rpc_server_closed();': 1, 'ggmlviz_rpc_conn ggmlviz_conn;': 1,
             'static bool ggmlviz_send_msg_untraced(': 1, 'static bool ggmlviz_recv_msg_untraced(': 2,
             'static bool send_msg(': 1, 'static bool recv_msg(': 2, 'sock->recv_data(&cmd, 1)': 0}


def rpc_copy(name, edit=lambda text: text):
    top = os.path.join(TMP, name)
    os.makedirs(os.path.dirname(os.path.join(top, RPC)))
    with open(os.path.join(release, RPC)) as f:
        text = edit(f.read())
    with open(os.path.join(top, RPC), 'w') as f:
        f.write(text)
    return top


if not os.path.isfile(os.path.join(release, RPC)):
    skip('the release\'s RPC backend takes the edits', 'no fetched source (scripts/fetch-ggml.sh --source)')
    skip('an RPC backend whose code moved', 'no fetched source (scripts/fetch-ggml.sh --source)')
else:
    top = rpc_copy('rpc')
    rc, out, err = run(sys.executable, EDIT, top, '--rpc-commands')
    text = text_of(top, RPC)
    counts = {k: text.count(k) for k in RPC_CALLS}
    ok(rc == 0 and counts == RPC_CALLS and out.count('ggml-rpc.cpp:') == 11,
       'the release\'s RPC backend: every call of both sides made, the message helpers wrapped',
       '%s\n%s%s' % (counts, out, err))
    moved = rpc_copy('rpc-moved', lambda t: t.replace('rpc_serve_client(backends, cache_dir, client_socket);',
                                                      'serve(backends, cache_dir, client_socket);'))
    before = text_of(moved, RPC)
    rc, out, err = run(sys.executable, EDIT, moved, '--rpc-commands')
    ok(rc == 0 and text_of(moved, RPC) == before and 'not made (found no single place for each client'
       ' served' in out and 'neither side of GGML\'s RPC backend records its commands' in out,
       'an RPC backend whose code moved: left out whole, said, no failure', '%d %s%s' % (rc, out, err))

taplib.finish()
