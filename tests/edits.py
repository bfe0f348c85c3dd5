#!/usr/bin/env python3
"""contrib/llama.cpp/ggmlviz-edit.py's --sched-graph-ids and --sched-no-wait
(TAP): GGML's scheduler tells libggmlviz each split's id before it asks
about the split's nodes, the view of a whole split keeps the split's id,
and no wait for the device follows a split none of whose nodes the eval
callback wanted (one that wanted a node's data still waits), in the
scheduler as the release has it and as a small copy of it; a scheduler
whose graphs have no id is left as it is, and said so, and so is one
whose code moved, without failing the build (the edits only save work).

Usage: edits.py BUILDDIR TMPDIR

SPDX-License-Identifier: MIT
"""
import os
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
                int j1 = j0;
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
            ggmlviz_nodes_graph_id(split->graph.uid); // libggmlviz: the id of the split, before its asks
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
       text.count('ggmlviz_nodes_graph_id(split->graph.uid);') == 1 and
       text.count('if (need) { // libggmlviz: no data wanted, no wait') == 1,
       'the release\'s scheduler takes the edits once', out + err)
else:
    skip('the release\'s scheduler takes the edits once', 'no fetched source (scripts/fetch-ggml.sh --source)')

taplib.finish()
