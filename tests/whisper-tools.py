#!/usr/bin/env python3
"""whisper.cpp's own tools traced (TAP): whisper-cli, whisper-bench and
whisper-server built by scripts/build-whisper-tools.sh, on a model that
examples/make_tiny_whisper writes and a few seconds of speech that Debian's
espeak-ng says (a synthetic signal where it is not installed).

- make_tiny_whisper: the model whisper.cpp loads; bad arguments and a
  folder it cannot write into: a message, no file;
- whisper-cli untraced writes no trace; traced, it transcribes the same;
  its trace is complete, each encoder run a step of phase encode (its
  tokens the audio positions), each decoder call a step whose count and
  tokens are whisper.cpp's own (its decode, batchd and prompt runs), the
  encode step's time whisper.cpp's encode time, the mel spectrogram a scope;
- every op measured inside GGML's CPU backend (the build's edit), each in
  its layer and stack: an op named enc.*-N or dec.*-N has layer N and the
  encoder's or the decoder's flag, the cross-attention's keys and values
  of the audio are the decoder's layers computed in the encode step;
  stats --by layer gives enc.0-3 and dec.0-3, --by part whisper's parts
  (the conv front end, both self-attentions, the cross-attention, the
  FFN, the output), --by phase encode against prompt and generation;
- beam search: its beams are the sequences of each generation step;
- whisper-bench: its encode step is its encode time, its decoder calls
  after the last encode those it counts;
- whisper-server: requests sent at once wait for the model (the second's
  queue), a bad one fails, a client gone mid-request is cancelled; each
  request's generated tokens are the tokens it answered;
- advise (more threads than CPUs fires), the report, top, the exports on a
  whisper trace;
- bad input: a model that is not whisper's, an audio file that cannot be
  read: whisper.cpp's message, and a trace that is complete, without steps;
  a whisper.cpp the edits do not fit: the edit named, nothing built, the
  checkout unchanged.

    whisper-tools.py BUILDDIR TMPDIR TOOLSDIR

WHISPER_SOURCE: the whisper.cpp source the tools were built from
(third_party/whisper.cpp/src by default), for the misfit tests.

SPDX-License-Identifier: MIT
"""
import hashlib
import json
import math
import os
import re
import shutil
import signal
import socket
import struct
import subprocess
import sys
import threading
import time
import urllib.request
import uuid

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import taplib  # noqa: E402
from taplib import ok, run, skip  # noqa: E402

BUILD, TMP, TOOLS = (os.path.abspath(a) for a in sys.argv[1:4])
TOP = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
G = os.path.join(BUILD, 'tools', 'ggmlviz')
CLI = os.path.join(TOOLS, 'whisper-cli')
BENCH = os.path.join(TOOLS, 'whisper-bench')
SERVER = os.path.join(TOOLS, 'whisper-server')
SOURCE = os.environ.get('WHISPER_SOURCE', os.path.join(TOP, 'third_party', 'whisper.cpp', 'src'))
PLAIN = {k: v for k, v in os.environ.items() if not k.startswith('GGML_VIZ_')}
CPUS = len(os.sched_getaffinity(0))
ENC, DEC = 4, 8  # OP_NODE's GGMLVIZ_NODE_ENCODER, _DECODER


def env_with(**kw):
    return dict(PLAIN, **kw)


def records(path):
    rc, out, err = run(G, 'dump', '-f', 'jsonl', path)
    return [json.loads(line) for line in out.splitlines()] if rc == 0 else []


def stats(path, *args):
    rc, out, err = run(G, 'stats', '-f', 'json', *args, path)
    return json.loads(out) if rc == 0 else {'error': err}


def timings(err):
    """whisper_print_timings' lines: {what: (ms, runs)}."""
    return {m.group(1): (float(m.group(2)), int(m.group(3))) for m in
            re.finditer(r'whisper_print_timings: +(\w+) time = +([0-9.]+) ms / +(\d+) runs', err)}


def complete(path):
    rc, out, err = run(G, 'validate', path)
    return rc == 0 and 'complete' in out


# ---- the model and the audio ----
model = os.path.join(TMP, 'tiny-whisper.bin')
rc, out, err = run(os.path.join(BUILD, 'examples', 'make_tiny_whisper'), model)
ok(rc == 0 and os.path.getsize(model) > 40e6, 'make_tiny_whisper writes a tiny.en-shaped q8_0 model', err)
rc, out, err = run(os.path.join(BUILD, 'examples', 'make_tiny_whisper'), model, '--tokens', '0')
ok(rc == 2 and '--tokens wants a number' in err, 'make_tiny_whisper names a bad argument', err)
nowhere = os.path.join(TMP, 'no-such-folder', 'm.bin')
rc, out, err = run(os.path.join(BUILD, 'examples', 'make_tiny_whisper'), nowhere)
ok(rc == 1 and 'cannot write' in err and not os.path.exists(os.path.dirname(nowhere)),
   'make_tiny_whisper into a folder that does not exist: a message, no file', err)

audio = os.path.join(TMP, 'speech.wav')
if shutil.which('espeak-ng'):
    rc, out, err = run('espeak-ng', '-w', audio, 'The quick brown fox jumps over the lazy dog. '
                       'Tracing whisper, one token at a time.')
    spoken = 'spoken by espeak-ng'
else:  # a voice-like signal: 3 s of a 150 Hz buzz and its harmonics, 4 syllables a second
    rate, n = 16000, 48000
    with open(audio, 'wb') as f:
        f.write(b'RIFF' + struct.pack('<I', 36 + 2 * n) + b'WAVEfmt ' +
                struct.pack('<IHHIIHH', 16, 1, 1, rate, 2 * rate, 2, 16) + b'data' + struct.pack('<I', 2 * n))
        f.write(b''.join(struct.pack('<h', int(8000 * abs(math.sin(math.pi * 4 * i / rate)) *
                                               sum(math.sin(2 * math.pi * 150 * k * i / rate) / k
                                                   for k in (1, 2, 3))))
                         for i in range(n)))
    rc, spoken = 0, 'a synthetic signal (no espeak-ng)'
ok(rc == 0 and os.path.getsize(audio) > 10000, 'a few seconds of speech: ' + spoken, err)
if taplib.failed:
    taplib.finish()

# ---- whisper-cli ----
CLI_ARGS = ['-m', model, '-f', audio, '-t', '2']
quiet = os.path.join(TMP, 'untraced')
os.mkdir(quiet)
rc, plain_out, plain_err = run(CLI, *CLI_ARGS, env=env_with(), cwd=quiet)
ok(rc == 0 and '-->' in plain_out and os.listdir(quiet) == [],
   'whisper-cli untraced: its transcript, and nothing written', plain_err[-400:])
cli_trace = os.path.join(TMP, 'cli.ggmlviz')
rc, out, err = run(CLI, *CLI_ARGS, env=env_with(GGML_VIZ_OUTPUT=cli_trace))
ok(rc == 0 and out == plain_out, 'whisper-cli traced: the same transcript', (out, plain_out, err[-300:]))
ok(complete(cli_trace), 'whisper-cli\'s trace is complete')
own = timings(err)
recs = records(cli_trace)
steps = [r for r in recs if r['type'] == 'STEP_BEGIN']
ends = {r['ts']: r for r in recs if r['type'] == 'STEP_END'}
encodes = [s for s in steps if s['phase'] == 3]
decodes = [s for s in steps if s['label'] == 'decode']
one = [s for s in decodes if s['n_tokens'] == 1]
batchd = sum(s['n_tokens'] for s in decodes if 1 < s['n_tokens'] < 16)
prompt = sum(s['n_tokens'] for s in decodes if s['n_tokens'] >= 16)
ok(encodes and all(s['label'] == 'encode' and s['n_tokens'] == 1500 for s in encodes) and
   own.get('encode', (0, 0))[1] == len(encodes),
   'each encoder run a step of phase encode (3), its tokens the 1500 audio positions, as many as '
   'whisper.cpp counts', (len(encodes), own.get('encode')))
ok(len(encodes) + len(decodes) == len(steps) and (own['decode'][1], own['batchd'][1], own['prompt'][1]) ==
   (max(1, len(one)), max(1, batchd), max(1, prompt)),
   'each decoder call a step: its one-token, batched and prompt calls those whisper.cpp counts',
   ((own.get('decode'), own.get('batchd'), own.get('prompt')), (len(one), batchd, prompt)))
ok(any(s['phase'] == 1 for s in decodes) and any(s['phase'] == 2 for s in decodes),
   'the decoder\'s prompt and its generated tokens told apart (phases 1 and 2)')
st = stats(cli_trace, '--by', 'step')
enc_ns = [g['step_ns'] for g in st.get('groups', []) if g.get('phase') == 'encode']
whisper_ms = own['encode'][0] / max(1, own['encode'][1])
ok(len(enc_ns) == len(encodes) and all(abs(ns / 1e6 - whisper_ms) <= 0.05 * whisper_ms + 1 for ns in enc_ns),
   'the encode step\'s time is whisper.cpp\'s own encode time (within 5%% + 1 ms: %.1f ms)' % whisper_ms,
   (enc_ns, own.get('encode')))
mel = [r for r in recs if r['type'] == 'SCOPE_BEGIN' and r.get('label') == 'mel']
ok(len(mel) == 1 and mel[0]['value'] > 16000, 'the mel spectrogram a scope (its value the samples)', mel)

# ---- ops: measured, in their layers and stacks ----
st = stats(cli_trace)
ok(st.get('ops') and st.get('measured_ops') == st['ops'] and st.get('shares_unattributed') == 0,
   'every op measured inside GGML\'s CPU backend (each worker thread\'s share: the build\'s edit)',
   {k: st.get(k) for k in ('ops', 'measured_ops', 'shares_unattributed', 'error')})
labels, bad, cross_in_encode = {}, [], 0
step_of = None
for r in recs:
    if r['type'] == 'STEP_BEGIN':
        step_of = r['phase']
    elif r['type'] == 'OP_COMPUTE_BEGIN':
        labels[(r['tid'], r['tensor'])] = r.get('label', '')
    elif r['type'] == 'OP_NODE':
        name = labels.get((r['tid'], r['tensor']), '')
        m = re.match(r'^(enc|dec)\.[a-z_.0-9]+-(\d+)$', name)
        if m and (r['layer'] != int(m.group(2)) or not r['flags'] & (ENC if m.group(1) == 'enc' else DEC)):
            bad.append((name, r['layer'], r['flags']))
        cross_in_encode += step_of == 3 and name.startswith('dec.cross_attn.key-')
ok(labels and not bad, 'an op named enc.*-N or dec.*-N is in layer N of its stack (OP_NODE\'s layer '
   'and flags)', bad[:5])
ok(cross_in_encode == 4 * len(encodes), 'the cross-attention\'s keys of the audio: the decoder\'s '
   '4 layers, computed in the encode step', cross_in_encode)
by_layer = [g['name'] for g in stats(cli_trace, '--by', 'layer').get('groups', [])]
want = ['enc.%d' % i for i in range(4)] + ['dec.%d' % i for i in range(4)]
ok(all(w in by_layer for w in want) and not any(re.match(r'^\d+$', n) for n in by_layer),
   'stats --by layer: enc.0 to enc.3 and dec.0 to dec.3, no layer of no stack', by_layer)
parts = stats(cli_trace, '--by', 'part')
names = {g['name']: g for g in parts.get('groups', [])}
want = ['conv-front-end', 'encoder-self-attention', 'decoder-self-attention', 'cross-attention', 'ffn',
        'output', 'embedding', 'norm']
other = names.get('(other)', {}).get('count', 0)
ok(all(w in names for w in want) and other <= len(decodes),
   'stats --by part: whisper\'s parts, (other) no more than the decoder\'s mask (one a call)',
   (sorted(names), other, parts.get('other')))
ph = {g['name']: g for g in stats(cli_trace, '--by', 'phase').get('groups', [])}
ok('encode' in ph and 'prompt' in ph and 'generation' in ph and
   ph['encode']['tokens'] == 1500 * len(encodes) and ph['encode'].get('ns_per_token'),
   'stats --by phase: encode against prompt and generation, per token', sorted(ph))
rc, out, err = run(G, 'stats', '--by', 'phase', cli_trace)
ok(rc == 0 and re.search(r'^encode +\d', out, re.M), 'stats --by phase prints the encode row', out)
rc, out, err = run(G, 'info', cli_trace)
ok(rc == 0 and re.search(r'^  encode +1 step', out, re.M), 'info says the encode step', out[-600:])

# ---- beams: the sequences of each generation step ----
beam_trace = os.path.join(TMP, 'beams.ggmlviz')
rc, out, err = run(CLI, *CLI_ARGS, '-bs', '3', '-nf', env=env_with(GGML_VIZ_OUTPUT=beam_trace))
gen = [s for s in stats(beam_trace, '--by', 'step').get('groups', []) if s.get('phase') == 'generation']
ok(rc == 0 and gen and all(s.get('sequences') == s.get('tokens') for s in gen) and
   max(s.get('sequences') or 0 for s in gen) == 3,
   'beam search (-bs 3): a generation step decodes each beam still going, one sequence each (3 at most)',
   [(s.get('tokens'), s.get('sequences')) for s in gen][:6])

# ---- whisper-bench ----
bench_trace = os.path.join(TMP, 'bench.ggmlviz')
rc, out, err = run(BENCH, '-m', model, '-t', '2', env=env_with(GGML_VIZ_OUTPUT=bench_trace))
own = timings(err)
bsteps = [r for r in records(bench_trace) if r['type'] == 'STEP_BEGIN']
last = max((i for i, s in enumerate(bsteps) if s['phase'] == 3), default=None)
after = bsteps[last + 1:] if last is not None else []
counts = (sum(s['n_tokens'] == 1 for s in after), sum(s['n_tokens'] for s in after if 1 < s['n_tokens'] < 16),
          sum(s['n_tokens'] for s in after if s['n_tokens'] >= 16))
ok(rc == 0 and complete(bench_trace) and counts == (own['decode'][1], own['batchd'][1], own['prompt'][1]),
   'whisper-bench traced: its decoder calls after its last encode are those it counts', (counts, own, err[-300:]))
bst = [g for g in stats(bench_trace, '--by', 'step').get('groups', []) if g.get('phase') == 'encode']
ok(bst and abs(bst[-1]['step_ns'] / 1e6 - own['encode'][0]) <= 0.05 * own['encode'][0] + 1,
   'whisper-bench: its last encode step is its encode time', (bst[-1:], own.get('encode')))


# ---- whisper-server ----
def free_port():
    s = socket.socket()
    s.bind(('127.0.0.1', 0))
    port = s.getsockname()[1]
    s.close()
    return port


def form(fields):
    """A multipart/form-data body: its bytes and its content type."""
    b = uuid.uuid4().hex
    body = b''
    for name, value, filename in fields:
        disp = 'form-data; name="%s"' % name + ('; filename="%s"' % filename if filename else '')
        body += ('--%s\r\nContent-Disposition: %s\r\n\r\n' % (b, disp)).encode() + value + b'\r\n'
    return body + ('--%s--\r\n' % b).encode(), 'multipart/form-data; boundary=' + b


def post(port, fields, out, i):
    body, ctype = form(fields)
    req = urllib.request.Request('http://127.0.0.1:%d/inference' % port, body, {'Content-Type': ctype})
    try:
        with urllib.request.urlopen(req, timeout=120) as r:
            out[i] = (r.status, json.loads(r.read()))
    except urllib.error.HTTPError as e:
        out[i] = (e.code, e.read().decode(errors='replace'))
    except OSError as e:
        out[i] = (0, str(e))


def gone(port, fields):
    """A client that sends its request and goes away before the answer."""
    body, ctype = form(fields)
    s = socket.create_connection(('127.0.0.1', port))
    s.sendall(('POST /inference HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: %s\r\nContent-Length: %d\r\n\r\n'
               % (ctype, len(body))).encode() + body)
    time.sleep(0.3)
    s.close()


server_trace = os.path.join(TMP, 'server.ggmlviz')
port = free_port()
p = subprocess.Popen([SERVER, '-m', model, '-t', '2', '--host', '127.0.0.1', '--port', str(port)],
                     env=env_with(GGML_VIZ_OUTPUT=server_trace), stdout=subprocess.DEVNULL,
                     stderr=subprocess.PIPE, text=True)
up = False
for _ in range(300):
    try:
        with urllib.request.urlopen('http://127.0.0.1:%d/' % port, timeout=2):
            up = True
            break
    except OSError:
        time.sleep(0.2)
ok(up, 'whisper-server traced answers')
wav = open(audio, 'rb').read()
speech = [('file', wav, 'speech.wav'), ('response_format', b'verbose_json', None), ('temperature', b'0', None)]
answers = [None, None]
threads = [threading.Thread(target=post, args=(port, speech, answers, i)) for i in range(2)]
for t in threads:
    t.start()
for t in threads:
    t.join()
bad_answer = [None]
post(port, [('nofile', b'x', None)], bad_answer, 0)
gone(port, speech)


def requests_ended():
    """The requests the live trace holds as ended (stats reads it without its end)."""
    out = run(G, 'stats', '-f', 'json', '--by', 'request', server_trace)[1]
    try:
        return len(json.loads(out).get('requests', []))
    except ValueError:
        return 0


# the request of the client gone is aborted after its encoder run, which two threads beside a
# busy machine's other work may stretch past any fixed sleep: until the trace holds its end
taplib.wait_for(lambda: requests_ended() >= 4, timeout=60, every=0.5)
p.send_signal(signal.SIGINT)
try:
    server_err = p.communicate(timeout=60)[1]
except subprocess.TimeoutExpired:
    p.kill()
    server_err = p.communicate()[1]
ok(all(a and a[0] == 200 for a in answers) and bad_answer[0][0] == 400,
   'whisper-server: two transcriptions answered, a request without a file refused (400)',
   (answers, bad_answer, server_err[-300:]))
ok(complete(server_trace), 'whisper-server stopped by SIGINT: its trace is complete')
reqs = stats(server_trace, '--by', 'request').get('requests', [])
done = [q for q in reqs if q.get('status') == 'done']
told = sorted(sum(len(s.get('tokens', [])) for s in a[1].get('segments', [])) for a in answers if a and a[0] == 200)
ok(len(reqs) == 4 and all(q.get('kind') == 'transcription' for q in reqs) and len(done) == 2 and
   sorted(q.get('generated_tokens') for q in done) == told,
   'stats --by request: 4 transcriptions, the 2 answered with the tokens they answered', (reqs, told))
ok(sorted(q.get('status') for q in reqs if q not in done) == ['cancelled', 'failed'],
   'the request without a file failed, the one whose client went away was cancelled',
   [(q.get('id'), q.get('status')) for q in reqs])
waits = sorted(q.get('queue_ns', 0) for q in done)
ok(len(waits) == 2 and waits[1] > 100 * max(waits[0], 1000),
   'the second of two requests sent at once waited for the model (its queue)', waits)

# ---- advise, the report, top, the exports ----
over = os.path.join(TMP, 'over.ggmlviz')
rc, out, err = run(CLI, '-m', model, '-f', audio, '-t', str(CPUS + 1), '-nf', env=env_with(GGML_VIZ_OUTPUT=over))
rc, out, err = run(G, 'advise', '-f', 'json', over)
adv = json.loads(out) if out.startswith('{') else {}
ok(any(f.get('id') == 'threads-over-cpus' for f in adv.get('findings', [])),
   'advise: %d threads on %d CPUs, threads-over-cpus fires' % (CPUS + 1, CPUS), out[-400:])
report = os.path.join(TMP, 'report.html')
rc, out, err = run(G, 'report', '-o', report, cli_trace)
ok(rc == 0 and 'encode' in open(report, encoding='utf-8').read(), 'the report of a whisper trace', err)
rc, out, err = run(G, 'top', '-b', '1', '-n', '1', '--view', 'layers', cli_trace)
ok(rc == 0 and 'encode' in out and 'enc.0' in out and 'dec.0' in out, 'top: encode\'s rate, the stacks\' layers',
   out + err)
db = os.path.join(TMP, 'w.sqlite')
rc, out, err = run(G, 'export', '-f', 'sqlite', '-o', db, cli_trace)
rc2, rows, err2 = run('sqlite3', db, "select stack, count(*) from ops where layer = 0 group by stack order by 1") \
    if shutil.which('sqlite3') else (1, '', 'no sqlite3')
ok(rc == 0 and rc2 == 0 and [r.split('|')[0] for r in rows.split()] == ['decoder', 'encoder'],
   'export sqlite: the ops of layer 0 told apart by their stack', (err, rows, err2))
for fmt in ('chrome', 'perfetto', 'otlp', 'speedscope'):
    rc, out, err = run(G, 'export', '-f', fmt, '-o', os.path.join(TMP, 'w.' + fmt), cli_trace)
    ok(rc == 0, 'export %s of a whisper trace' % fmt, err)

# ---- bad input ----
not_whisper = os.path.join(TMP, 'not-whisper.bin')
with open(not_whisper, 'wb') as f:
    f.write(b'GGUF' + bytes(4096))
bad_trace = os.path.join(TMP, 'bad-model.ggmlviz')
rc, out, err = run(CLI, '-m', not_whisper, '-f', audio, env=env_with(GGML_VIZ_OUTPUT=bad_trace))
ok(rc != 0 and 'bad magic' in err and complete(bad_trace) and
   not [r for r in records(bad_trace) if r['type'] == 'STEP_BEGIN'],
   'a model that is not whisper\'s: whisper.cpp says so (bad magic), the trace is complete and empty',
   err[-300:])
noise = os.path.join(TMP, 'noise.wav')
with open(noise, 'wb') as f:
    f.write(b'RIFF\xff\xff\xff\xffWAVEjunk' + bytes(range(256)) * 8)
bad_trace = os.path.join(TMP, 'bad-audio.ggmlviz')
rc, out, err = run(CLI, '-m', model, '-f', noise, env=env_with(GGML_VIZ_OUTPUT=bad_trace))
ok('failed to read audio' in err and complete(bad_trace) and
   not [r for r in records(bad_trace) if r['type'] == 'STEP_BEGIN'],
   'an audio file that cannot be read: whisper-cli says so (and goes on to its next file), the trace is '
   'complete and has no step', err[-300:])


def tree_sum(d):
    h = hashlib.sha1()
    for root, dirs, files in sorted(os.walk(d)):
        dirs.sort()
        for f in sorted(files):
            p = os.path.join(root, f)
            h.update(p.encode())
            with open(p, 'rb') as fh:
                h.update(fh.read())
    return h.hexdigest()


if os.path.isfile(os.path.join(SOURCE, 'src', 'whisper.cpp')):
    script = os.path.join(TOP, 'scripts', 'build-whisper-tools.sh')
    for what, path, old, new, named in (
            ('an encoder call renamed', 'src/whisper.cpp', 'whisper_encode_internal(', 'whisper_encode_impl(',
             'whisper_encode_internal()'),
            ('whisper-server\'s handler without its lock', 'examples/server/server.cpp',
             'std::lock_guard<std::mutex> lock(whisper_mutex);\n\n        // first check',
             '\n        // first check', 'the handler of /inference')):
        checkout = os.path.join(TMP, 'misfit')
        shutil.rmtree(checkout, ignore_errors=True)
        shutil.copytree(SOURCE, checkout, symlinks=True)
        with open(os.path.join(checkout, path), encoding='utf-8') as f:
            text = f.read()
        with open(os.path.join(checkout, path), 'w', encoding='utf-8') as f:
            f.write(text.replace(old, new))
        before = tree_sum(checkout)
        out_dir = os.path.join(TMP, 'misfit-out')
        rc, out, err = run(script, '--source', checkout, out_dir)
        ok(rc == 1 and named in err and 'nothing was built' in err and not os.path.exists(os.path.join(out_dir, 'src'))
           and not os.path.exists(os.path.join(out_dir, 'build')) and tree_sum(checkout) == before,
           'a whisper.cpp with %s: the edit named, nothing built, the checkout unchanged' % what, err[-400:])
        shutil.rmtree(checkout, ignore_errors=True)
        shutil.rmtree(out_dir, ignore_errors=True)
else:
    skip('a whisper.cpp the edits do not fit', 'no whisper.cpp source at %s (WHISPER_SOURCE)' % SOURCE)

taplib.finish()
