#!/usr/bin/env python3
"""What scripts/build-whisper-tools.sh does that a test can check without
building whisper.cpp (TAP):

- contrib/whisper.cpp/ggmlviz-edit.py on a small copy of whisper.cpp's
  code: every call of its stages wrapped (and their definitions left
  alone), whisper-server's handler given its two lines; a call renamed
  upstream, or the handler's lock gone, names the edit and where, and no
  file is written;
- scripts/check-whisper-tools.sh on objects compiled here: one that calls
  GGML's compute functions itself fails the check (each named), one that
  calls the tracer's wrapper passes, a folder without the library's objects
  fails;
- scripts/fetch-whisper.sh without the network: its options and errors,
  a complete folder left alone;
- scripts/build-whisper-tools.sh's errors before any build: an unknown
  tool, a folder that is not a whisper.cpp checkout, OUT inside the source.

Usage: whisper-edits.py BUILDDIR TMPDIR

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
EDIT = os.path.join(TOP, 'contrib', 'whisper.cpp', 'ggmlviz-edit.py')

# whisper.cpp's src/whisper.cpp, cut to what the edits read
WHISPER = '''static bool whisper_model_load(struct whisper_model_loader * loader, whisper_context & wctx) {
    return true;
}

static bool log_mel_spectrogram(
              whisper_state & wstate,
              const float * samples) {
    return true;
}

static bool whisper_encode_internal(
        whisper_context & wctx,
          whisper_state & wstate) {
    return true;
}

static bool whisper_decode_internal(
        whisper_context & wctx,
          whisper_state & wstate) {
    return true;
}

struct whisper_context * whisper_init_with_params_no_state(struct whisper_model_loader * loader) {
    if (!whisper_model_load(loader, *ctx)) {
        return nullptr;
    }
    if (!log_mel_spectrogram(*state, samples, n_samples, WHISPER_SAMPLE_RATE)) {
        return -1;
    }
    if (!whisper_encode_internal(*ctx, *state, offset, n_threads, nullptr, nullptr)) {
        return -1;
    }
    if (!whisper_decode_internal(*ctx, *state, state->batch, n_threads, false, nullptr, nullptr)) {
        return 1;
    }
    // whisper_encode_internal(*ctx, *state, seek, params.n_threads, ...) again, in a loop
    if (!whisper_encode_internal(*ctx, *state, seek, params.n_threads, params.abort_callback, params.abort_callback_user_data)) {
        return -6;
    }
}
'''
SERVER = '''#include "whisper.h"
#include "httplib.h"
#include "json.hpp"

    svr->Post(sparams.request_path + sparams.inference_path, [&](const Request &req, Response &res){
        // acquire whisper model mutex lock
        std::lock_guard<std::mutex> lock(whisper_mutex);

        // first check user requested fields of the request
    });
'''


def tree(files):
    d = os.path.join(TMP, 'src')
    shutil.rmtree(d, ignore_errors=True)
    for path, text in files.items():
        os.makedirs(os.path.dirname(os.path.join(d, path)), exist_ok=True)
        with open(os.path.join(d, path), 'w') as f:
            f.write(text)
    return d


def read(d, path):
    with open(os.path.join(d, path)) as f:
        return f.read()


FILES = {'src/whisper.cpp': WHISPER, 'examples/server/server.cpp': SERVER}

# ---- the edits ----
d = tree(FILES)
rc, out, err = run('python3', EDIT, d, '--whisper-stages', '--server-requests')
w, s = read(d, 'src/whisper.cpp'), read(d, 'examples/server/server.cpp')
ok(rc == 0 and w.count('ggmlviz_whisper_encode(whisper_encode_internal, ') == 3 and
   w.count('ggmlviz_whisper_decode(whisper_decode_internal, *ctx') == 1 and
   'ggmlviz_whisper_mel(log_mel_spectrogram, *state' in w and
   'ggmlviz_whisper_load(whisper_model_load, loader' in w,
   '--whisper-stages: every call of the encoder, the decoder, the mel spectrogram and the model load '
   'wrapped (a comment\'s too, harmless)', out + err + w)
ok(all('static bool %s(' % f in w for f in ('whisper_model_load', 'log_mel_spectrogram',
                                            'whisper_encode_internal', 'whisper_decode_internal')),
   'their definitions left as they are')
ok('ggmlviz-server.h" // libggmlviz' in s.split('\n')[2] and
   s.index('ggmlviz_whisper_request_arrived()') < s.index('std::lock_guard') <
   s.index('ggmlviz_whisper_request ggmlviz_request(ggmlviz_id, res, ctx);'),
   '--server-requests: the include after httplib.h, the arrival before the lock, the request after it', s)

for what, path, old, new, named in (
        ('a stage\'s calls renamed', 'src/whisper.cpp', 'whisper_decode_internal(*ctx',
         'whisper_decode_batch(*ctx', 'the calls of whisper_decode_internal()'),
        ('the handler without its lock', 'examples/server/server.cpp',
         '        std::lock_guard<std::mutex> lock(whisper_mutex);\n', '', 'the handler of /inference')):
    files = dict(FILES)
    files[path] = files[path].replace(old, new)
    d = tree(files)
    rc, out, err = run('python3', EDIT, d, '--whisper-stages', '--server-requests')
    ok(rc == 1 and named in err and 'this whisper.cpp does not fit' in err and
       read(d, 'src/whisper.cpp') == files['src/whisper.cpp'] and
       read(d, 'examples/server/server.cpp') == files['examples/server/server.cpp'],
       'a whisper.cpp with %s: the edit named, no file written' % what, err)

rc, out, err = run('python3', EDIT, d, '--no-such-edit')
ok(rc == 1 and 'unknown option --no-such-edit' in err, 'an unknown edit is named', err)

# ---- the build's check ----
check = os.path.join(TOP, 'scripts', 'check-whisper-tools.sh')
objs = os.path.join(TMP, 'build', 'src', 'CMakeFiles', 'whisper.dir')
os.makedirs(objs)
cc = shutil.which('cc') or shutil.which('gcc')


def obj(name, calls):
    src = os.path.join(TMP, name + '.c')
    with open(src, 'w') as f:
        f.write(''.join('void %s(void);\n' % c for c in calls) +
                'void f_%s(void) {\n%s}\n' % (name.replace('.', '_').replace('-', '_'),
                                                ''.join('    %s();\n' % c for c in calls)))
    return run(cc, '-c', '-o', os.path.join(objs, name + '.o'), src)[0] == 0


if cc:
    obj('whisper.cpp', ['ggmlviz_whisper_sched_compute', 'ggmlviz_whisper_backend_compute'])
    rc, out, err = run('sh', check, os.path.join(TMP, 'build'))
    ok(rc == 0 and 'no graph computed past the tracer' in out, 'the check: every graph through the tracer',
       out + err)
    obj('upstream-new', ['ggml_backend_sched_graph_compute_async', 'ggml_graph_compute'])
    rc, out, err = run('sh', check, os.path.join(TMP, 'build'))
    ok(rc == 1 and 'upstream-new.o calls ggml_backend_sched_graph_compute_async() past the tracer' in out and
       'ggml_graph_compute()' in out, 'the check: an object that computes a graph itself, each call named',
       out + err)
    os.remove(os.path.join(objs, 'upstream-new.o'))
    obj('whisper.cpp', ['ggml_backend_sched_graph_compute'])
    rc, out, err = run('sh', check, os.path.join(TMP, 'build'))
    ok(rc == 1 and 'without contrib/whisper.cpp/ggmlviz-whisper.h' in out,
       'the check: whisper.cpp built without the tracer\'s header', out + err)
else:
    skip('the build\'s check on objects', 'no C compiler')
rc, out, err = run('sh', check, os.path.join(TMP, 'nothing'))
ok(rc == 1 and 'no object' in out, 'the check: a folder without the library\'s objects', out)

# ---- fetch-whisper.sh, offline ----
fetch = os.path.join(TOP, 'scripts', 'fetch-whisper.sh')
rc, out, err = run('sh', fetch, '--help')
ok(rc == 0 and 'nodejs-whisper@0.3.1' in out, 'fetch-whisper.sh --help names the package', out)
rc, out, err = run('sh', fetch, '--bogus')
ok(rc == 1 and "unknown option '--bogus'" in err, 'fetch-whisper.sh: an unknown option is named', err)
rc, out, err = run('sh', fetch, 'a', 'b')
ok(rc == 1 and 'more than one DIR' in err, 'fetch-whisper.sh: two folders refused', err)
fake = os.path.join(TMP, 'fetched')
for p in ('src/include/whisper.h', 'src/src/whisper.cpp', 'src/CMakeLists.txt', 'src/ggml/CMakeLists.txt'):
    os.makedirs(os.path.dirname(os.path.join(fake, p)), exist_ok=True)
    open(os.path.join(fake, p), 'w').close()
with open(os.path.join(fake, 'VERSION'), 'w') as f:
    f.write('package=nodejs-whisper@0.3.1\nwhisper.cpp=1.9.1\nggml=0.15.1\n')
bindir = os.path.join(TMP, 'bin')  # the tools the script uses, but no npm
os.mkdir(bindir)
for tool in ('sh', 'dirname', 'sed', 'grep', 'mktemp', 'rm', 'mkdir', 'mv', 'cp', 'cat', 'tar', 'paste', 'tail'):
    if shutil.which(tool):
        os.symlink(shutil.which(tool), os.path.join(bindir, tool))
nonpm = dict(os.environ, PATH=bindir)
rc, out, err = run('/bin/sh', fetch, fake, env=nonpm)
ok(rc == 0 and 'already in' in out and '1.9.1' in out, 'fetch-whisper.sh: a complete folder left alone, no '
   'download (no npm needed)', out + err)
os.remove(os.path.join(fake, 'VERSION'))
rc, out, err = run('/bin/sh', fetch, fake, env=nonpm)
ok(rc == 1 and "'npm' is needed" in err, 'fetch-whisper.sh: a folder without VERSION is fetched again: '
   'without npm, it says so', err)

# ---- build-whisper-tools.sh, before any build ----
build = os.path.join(TOP, 'scripts', 'build-whisper-tools.sh')
rc, out, err = run('sh', build, '--tools', 'whisper-cli,whisper-stream', os.path.join(TMP, 'out'))
ok(rc == 1 and "'whisper-stream' is not one of" in err, 'build-whisper-tools.sh: an unknown tool is named', err)
rc, out, err = run('sh', build, '--source', TMP, os.path.join(TMP, 'out'))
ok(rc == 1 and 'is not a whisper.cpp checkout' in err, 'build-whisper-tools.sh --source: not a whisper.cpp '
   'checkout, said', err)
rc, out, err = run('sh', build, '--source', os.path.join(fake, 'src'), os.path.join(fake, 'src', 'out'))
ok(rc == 1 and 'never written to' in err and not os.path.exists(os.path.join(fake, 'src', 'out')),
   'build-whisper-tools.sh: OUT inside the source refused, not even made', err)

taplib.finish()
