#!/usr/bin/env python3
"""ggmlviz advise on runs made to show each finding, and the same rules
silent on runs that do not (TAP).

Real llama.cpp runs (examples/llama_trace on the prebuilt libllama, models
make_tiny_llama writes): more compute threads than CPUs (and, from it, its
memory-bound ops far below the measured peak), a CPU run's start without a
threadpool, busy loops taking the CPUs from a run (and the rule on
synthetic figures, either side of its threshold), attention growing over a
long generation, a model split between the CPU and GGML's Vulkan backend
(Mesa's software device, where there is one) with memory tracking on
(info and stats: memory by device), events dropped past
GGML_VIZ_MAX_EVENTS, ops sampled. The GPU-only findings on
the tests' GPU stand-in (tests/gen-gpu: a fallback to the CPU, an idle GPU,
a device near full, kernels in sampled windows). llama-server's queue on
servers tests/gen-server simulates: one slot and bursts of four
requests (server-queue-wait fires), slots to spare and a loop 6 ms late
to take each request (silent: no request waited for a slot). Bad input: a trace without
names (the original ggml-viz's), without steps, without a peak: the rules
that need them say why they were not applied, and no warn fires. Then the
JSON, --fail-on's exit status, stats' last lines and its JSON.

    tool-advise.py BUILDDIR TMPDIR

SPDX-License-Identifier: MIT
"""
import json
import os
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import taplib  # noqa: E402
from taplib import ok, run, skip  # noqa: E402

BUILD, TMP = sys.argv[1], sys.argv[2]
G = os.path.join(BUILD, 'tools', 'ggmlviz')
EX = os.path.join(BUILD, 'examples')
CPUS = len(os.sched_getaffinity(0))


def ggmlviz(*args):
    return run(G, *args)


def model(name, *args):
    path = os.path.join(TMP, name + '.gguf')
    rc, out, err = run(os.path.join(EX, 'make_tiny_llama'), path, *args)
    if rc != 0:
        ok(False, 'make_tiny_llama writes %s' % name, err)
    return path


def trace(name, gguf, *args, env=None):
    path = os.path.join(TMP, name + '.ggmlviz')
    e = dict(os.environ, **(env or {}))
    rc, out, err = run(os.path.join(EX, 'llama_trace'), '--model', gguf, '--output', path, *args,
                       env=e)
    if rc != 0:
        ok(False, 'llama_trace runs %s' % name, err)
    return path


def traced_until(name, rule, fired, gguf, *args, env=None):
    """A run that rule judges on a machine others share, made up to twice more while it does
    not show what it was made to show (rule fired, or silent): the last run."""
    return taplib.made_until(lambda tag: trace(tag, gguf, *args, env=env),
                             lambda path: (rule in advise(path)[0]) == fired, name)


def advise(path):
    """{id: finding}, {id: rule said}, the JSON, the exit status."""
    rc, out, err = ggmlviz('advise', '-f', 'json', path)
    try:
        j = json.loads(out)
    except ValueError:
        return {}, {}, {}, rc
    return ({f['id']: f for f in j['findings']}, {r['id']: r for r in j['rules']}, j, rc)


def fires(path, rule, what, check=None):
    f, r, j, rc = advise(path)
    x = f.get(rule)
    good = rc == 0 and x is not None and all(x.get(k) for k in ('seen', 'threshold', 'why', 'try'))
    if good and check:
        good = check(x)
    ok(good, '%s: %s fires (%s)' % (what, rule, x['title'] if x else 'not fired'),
       json.dumps(x or r.get(rule))[:800])
    return x


def silent(path, rule, what):
    f, r, j, rc = advise(path)
    said = r.get(rule, {})
    ok(rc == 0 and rule not in f and said.get('applied'),
       '%s: %s applied and silent' % (what, rule), json.dumps(f.get(rule) or said)[:800])


def not_applied(path, rule, what, because):
    f, r, j, rc = advise(path)
    said = r.get(rule, {})
    ok(rc == 0 and rule not in f and not said.get('applied') and because in (said.get('why_not') or ''),
       '%s: %s not applied, saying why (%s)' % (what, rule, said.get('why_not')), json.dumps(said))


def no_warn(path, what):
    f, r, j, rc = advise(path)
    warns = [k for k, x in f.items() if x['level'] == 'warn']
    ok(rc == 0 and not warns, '%s: no warn finding fires on a guess' % what, str(warns))


# ---- CPU: threads, runs' starts, the measured peak ----
dense = model('dense', '--type', 'q8_0')
big = model('big', '--layers', '4', '--embd', '512', '--heads', '8', '--kv-heads', '4',
            '--ff', '1408', '--vocab', '2048', '--type', 'q8_0')
small = model('small', '--layers', '1', '--embd', '64', '--heads', '4', '--kv-heads', '4',
              '--ff', '128', '--vocab', '300')
if taplib.failed:
    taplib.finish()

over = trace('over', dense, '--generate', '8', '--threads', str(CPUS + 1),
             env={'GGML_VIZ_PEAK': '2'})
x = fires(over, 'threads-over-cpus', '%d threads on %d CPUs' % (CPUS + 1, CPUS),
          lambda x: x['figures']['threads'] == CPUS + 1 and x['figures']['cpus'] == CPUS)
fires(over, 'memory-bound-below-peak', '%d threads on %d CPUs, a peak measured' % (CPUS + 1, CPUS),
      lambda x: 'MUL_MAT' in x['seen'])
# Quiet, this run's MUL_MAT reads 2 to 2.3 times the peak measured with one
# thread (its weights fit the caches). A busy machine (make check's other tests
# on CI's 2 cores) preempts the run between the peak's measure and its ops, and
# an op then really is far below the peak (CI once saw it fire).
fit = traced_until('fit', 'memory-bound-below-peak', False, big, '--generate', '16',
                   '--threads', '1', env={'GGML_VIZ_PEAK': '1'})
silent(fit, 'threads-over-cpus', '1 thread')
silent(fit, 'memory-bound-below-peak', 'q8_0 on 1 thread, its peak measured with 1')
silent(fit, 'run-start-share', 'a threadpool, 1 thread, a model of 1 ms tokens')
not_applied(trace('nopeak', dense, '--generate', '4'), 'memory-bound-below-peak',
            'no GGML_VIZ_PEAK', 'no machine peak')
# The runs' starts are a share of a token measured on this machine: a busy one
# (make check's other tests beside it) slows the ops more than the threads'
# start (two busy loops beside make check -j2 on 2 cores kept two runs under it).
bare = traced_until('bare', 'run-start-share', True, small, '--generate', '64', '--threads',
                    str(max(CPUS, 2)), '--no-threadpool')
fires(bare, 'run-start-share', 'no threadpool, a 64-wide model',
      lambda x: x['figures']['median_run_start_share'] >= 0.10)

# ---- attention over a long generation ----
# One compute thread: two threads spinning at barriers beside another test on
# CI's 2 cores are preempted for whole time slices, every op then reads ~8 ms
# whatever its work (reproduced with two busy loops beside it: 218 ms a token
# in both quarters, the rule rightly silent), where one thread keeps its core.
# Even so, other work in the first quarter alone stretches the times it is
# compared with: made again while it does not fire.
long_ = traced_until('long', 'attention-grows-with-context', True,
                     model('att', '--layers', '2', '--embd', '64', '--heads', '4',
                           '--kv-heads', '4', '--ff', '128', '--vocab', '300'),
                     '--generate', '480', '--ctx', '560', '--threads', '1')
fires(long_, 'attention-grows-with-context', '480 tokens generated by a 64-wide model',
      lambda x: x['figures']['last_context'] > 2 * x['figures']['first_context'])
short = trace('short', dense, '--generate', '16')
silent(short, 'attention-grows-with-context', '16 tokens generated')
not_applied(trace('few', dense, '--generate', '4'), 'attention-grows-with-context', '4 tokens',
            'generation step')

# ---- other work on the machine taking the CPUs ----
# Busy loops beside a one-thread run, twice as many runnable threads as
# CPUs: the scheduler gives the run's thread about half a CPU (0.51 of its
# steps' time, where a quiet run reads 1.01 to 1.06; doc/cost.md). One compute
# thread: no barrier for the loops to make spin (two threads on two CPUs
# with two loops beside once took 80 s for 200 tokens).
def busy_beside(name, *args):
    loops = [subprocess.Popen([sys.executable, '-c', 'while True: pass'])
             for _ in range(2 * CPUS - 1)]
    try:
        time.sleep(0.5)  # the loops spinning before the run starts (Python's own start: ~50 ms)
        return traced_until(name, 'cpus-taken', True, *args)
    finally:
        for p in loops:
            p.kill()
            p.wait()


taken = busy_beside('taken', dense, '--generate', '400', '--ctx', '512', '--threads', '1')
fires(taken, 'cpus-taken', '%d busy loops beside one compute thread on %d CPUs'
      % (2 * CPUS - 1, CPUS),
      lambda x: x['figures']['cpu_share'] < 0.8 and x['figures']['thread_step_ns'] >= 1e8 and
      'involuntary' in x['seen'])
rc, out, err = ggmlviz('info', taken)
ok(rc == 0 and 'cpu use:' in out and 'took a CPU' in out, 'info says the process\'s CPU use',
   out[-600:])
GEN = os.path.join(BUILD, 'tests', 'gen-trace')
for pct, rule_fires in ((50, True), (79, True), (81, False), (95, False)):
    path = os.path.join(TMP, 'usage-%d.ggmlviz' % pct)
    run(GEN, '--steps', '--graphs', '30', '--usage', str(pct), path)
    what = 'CPU time %d%% of the steps\' time, 1 thread' % pct
    if rule_fires:
        fires(path, 'cpus-taken', what,
              lambda x: abs(x['figures']['cpu_share'] - pct / 100) < 1e-6)
    else:
        silent(path, 'cpus-taken', what)
path = os.path.join(TMP, 'usage-short.ggmlviz')
run(GEN, '--steps', '--graphs', '10', '--usage', '50', path)
not_applied(path, 'cpus-taken', 'steps of 47 ms in all', 'at least 100 ms')
cut_usage = os.path.join(TMP, 'usage-cut.ggmlviz')
run(GEN, '--steps', '--graphs', '30', '--usage', '50', '--no-end', cut_usage)
not_applied(cut_usage, 'cpus-taken', 'a trace without TRACE_END', 'did not end with a stop')
other = os.path.join(TMP, 'usage-other.ggmlviz')
run(GEN, '--steps', '--graphs', '30', '--usage', '50', '--tid-base', '500', '--pid', '4243', other)
merged = os.path.join(TMP, 'usage-merged.ggmlviz')
rc, out, err = ggmlviz('merge', os.path.join(TMP, 'usage-50.ggmlviz'), other, '-o', merged)
not_applied(merged, 'cpus-taken', 'two processes merged', 'more than one session or process')
rc, out, err = ggmlviz('info', merged)
ok(rc == 0 and 'not summed' in out, 'info: two processes\' USAGE records not summed', out[-400:])
# the same thread id, its records 10 s before the first trace's: told by their order and counts
earlier = os.path.join(TMP, 'usage-earlier.ggmlviz')
run(GEN, '--steps', '--graphs', '30', '--usage', '50', '--pid', '4244',
    '--t0', str(1700000000000000000 - 10 ** 10), earlier)
merged2 = os.path.join(TMP, 'usage-merged-earlier.ggmlviz')
rc, out, err = ggmlviz('merge', os.path.join(TMP, 'usage-50.ggmlviz'), earlier, '-o', merged2)
not_applied(merged2, 'cpus-taken', 'two processes merged, the same thread id, the second earlier',
            'more than one session or process')
not_applied(over, 'cpus-taken', '%d threads on %d CPUs' % (CPUS + 1, CPUS), 'threads-over-cpus')

# ---- the trace itself ----
drops = trace('drops', big, '--generate', '8', env={'GGML_VIZ_MAX_EVENTS': '500'})
fires(drops, 'trace-dropped', 'GGML_VIZ_MAX_EVENTS=500', lambda x: x['figures']['dropped'] > 0)
silent(fit, 'trace-dropped', 'rings of the default size')
fires(trace('sampled', dense, '--generate', '8', env={'GGML_VIZ_OP_SAMPLE': '4'}),
      'trace-sampled', 'GGML_VIZ_OP_SAMPLE=4')
fires(fit, 'trace-estimated', 'the prebuilt GGML (ticks)')

# ---- a model split between backends: GGML's Vulkan backend on Mesa's software device ----
vk_env = {'GGML_VK_VISIBLE_DEVICES': '0', 'GGML_VIZ_MEMORY_TRACKING': '1'}
split = trace('split', dense, '--generate', '3', '--gpu-layers', '2', '--prompt', 'a tensor graph',
              env=vk_env)
rc, info, _ = ggmlviz('info', split)
if 'Vulkan0' not in info:
    for what in ('model-split fires', 'model-split silent', 'memory by device',
                 'device-memory-near-full silent'):
        skip(what, 'no Vulkan device here (mesa-vulkan-drivers)')
else:
    fires(split, 'model-split', '-ngl 2 of 4 layers on Vulkan0',
          lambda x: x['figures']['cpu_layers'] >= 2 and x['figures'].get('copy_bytes_per_token', 0) > 0)
    whole = trace('whole', dense, '--generate', '3', '--gpu-layers', '99', '--prompt',
                  'a tensor graph', env=vk_env)
    silent(whole, 'model-split', 'every layer on Vulkan0')
    vk = [line for line in info.splitlines()
          if line.strip().startswith('Vulkan0 ') and 'weights' in line]
    rc2, st, _ = ggmlviz('stats', '-f', 'json', split)
    mem = {d['device']: d for d in json.loads(st).get('memory', [])} if rc2 == 0 else {}
    ok(vk and 'weights' in vk[0] and 'KV cache' in vk[0] and 'compute' in vk[0] and 'peak' in vk[0]
       and mem.get('Vulkan0', {}).get('device_bytes') and mem['Vulkan0']['weights_bytes'] > 0 and
       mem.get('CPU', {}).get('kv_cache_bytes', 0) > 0,
       'memory by device: info and stats say Vulkan0\'s and the CPU\'s weights, KV cache, '
       'compute buffers, peak and memory', '\n'.join(vk) + json.dumps(mem)[:400])
    silent(split, 'device-memory-near-full', 'a tiny model on Vulkan0')

# ---- the GPU stand-in ----
def gen_gpu(name, *args):
    path = os.path.join(TMP, name + '.ggmlviz')
    rc, out, err = run(os.path.join(BUILD, 'tests', 'gen-gpu'), path, '12', *args)
    if rc != 0:
        ok(False, 'gen-gpu %s' % ' '.join(args), err)
    return path


plain = gen_gpu('gpu')
fires(gen_gpu('fallback', '--fallback'), 'gpu-fallback', 'layer 1\'s ROPE on the CPU',
      lambda x: 'ROPE' in x['seen'])
silent(plain, 'gpu-fallback', 'every layer\'s ops on the GPU')
fires(gen_gpu('idle', '--idle', '2000'), 'gpu-idle', 'the host busy 2 ms before each GPU run',
      lambda x: x['figures']['idle_share'] > 0.5)
# the stand-in's host runs for real: a busy machine leaves the GPU idle while the host
# waits for a CPU (make check beside it on 2 cores: 8.6 ms of an 18 ms step)
busy = taplib.made_until(lambda tag: gen_gpu(tag, '--slow-gpu'),
                         lambda path: 'gpu-idle' not in advise(path)[0], 'busy')
silent(busy, 'gpu-idle', 'kernels of 0.1 to 2 ms back to back')
fires(gen_gpu('full', '--device-full'), 'device-memory-near-full', 'a device of 8 GiB, 96% used')
not_applied(plain, 'device-memory-near-full', 'no memory tracked', 'no memory')
fires(gen_gpu('windows', '--sample', '2/4'), 'trace-gpu-windows', 'GGML_VIZ_GPU_SAMPLE=2/4')
silent(plain, 'trace-gpu-windows', 'every kernel recorded')
silent(fit, 'gpu-idle', 'a CPU run')

# ---- llama-server's queue, on servers tests/gen-server simulates ----
def gen_server(name, *args):
    path = os.path.join(TMP, name + '.ggmlviz')
    rc, out, err = run(os.path.join(BUILD, 'tests', 'gen-server'), path, '--requests', '24', *args)
    if rc != 0:
        ok(False, 'gen-server %s' % ' '.join(args), err)
    return path


def queue_shares(path):
    """The requests' waits in the queue over their times to the first token, in order."""
    rc, out, err = ggmlviz('stats', '--by', 'request', '-f', 'json', path)
    reqs = json.loads(out)['requests'] if rc == 0 else []
    return sorted(r['queue_ns'] / r['ttft_ns'] for r in reqs
                  if r.get('ttft_ns') and r.get('queue_ns') is not None)


def over_half(path):
    shares = queue_shares(path)
    return len(shares) > 12 and shares[len(shares) // 2] >= 0.5


fires(gen_server('one-slot', '--slots', '1', '--burst', '4', '--gap-ms', '40'), 'server-queue-wait',
      'one slot, bursts of four requests',
      lambda x: x['figures'].get('requests_with_slots_taken', 0) >= 12 and
      x['figures']['median_queue_share'] >= 0.5)
# each request waits 6 ms with slots free, over half its time to the first token: the loop's
# delay, not a slot's (the wait in the queue alone would make the rule fire); a busy machine may
# stretch the prompts' steps past it, so the trace is made again while it does not show that
late = taplib.made_until(lambda tag: gen_server(tag, '--slots', '8', '--burst', '1', '--gap-ms', '20',
                                                '--wake-us', '6000'), over_half, 'late-loop')
ok(over_half(late), 'gen-server --wake-us 6000: the median request\'s queue over half its time to'
   ' the first token', queue_shares(late))
silent(late, 'server-queue-wait', 'slots to spare, a request every 20 ms, the loop 6 ms late')

# ---- bad input: no names, no steps, no peak ----
orig = os.path.join(TMP, 'original.ggmlviz')
run(os.path.join(BUILD, 'tests', 'gen-trace'), '--original', '--graphs', '4', orig)
no_warn(orig, 'the original ggml-viz\'s trace (no names, no steps)')
not_applied(orig, 'run-start-share', 'the original ggml-viz\'s trace', 'no steps')
not_applied(orig, 'attention-grows-with-context', 'the original ggml-viz\'s trace',
            'generation step')
not_applied(orig, 'threads-over-cpus', 'the original ggml-viz\'s trace', 'does not say')
not_applied(orig, 'cpus-taken', 'the original ggml-viz\'s trace', 'does not say')
graphs = os.path.join(TMP, 'graphs.ggmlviz')
run(os.path.join(BUILD, 'tests', 'gen-trace'), '--graphs', '4', graphs)
not_applied(graphs, 'run-start-share', 'graphs without steps', 'no steps')
no_warn(graphs, 'graphs without steps')
cut = os.path.join(TMP, 'cut.ggmlviz')
run(os.path.join(BUILD, 'tests', 'gen-trace'), '--no-end', '--steps', cut)
fires(cut, 'trace-incomplete', 'a trace without TRACE_END')
silent(fit, 'trace-incomplete', 'a trace stopped cleanly')

# ---- the output ----
f, r, j, rc = advise(over)
ids = [x['id'] for x in j.get('findings', [])]
ok(rc == 0 and len(r) == 18 and all('figures' in x and 'level' in x for x in j['findings']),
   'JSON: every finding with its id, level, figures; every rule said (%s)' % ', '.join(ids))
rc, out, err = ggmlviz('advise', '--fail-on', 'threads-over-cpus', over)
rc2, _, _ = ggmlviz('advise', '--fail-on', 'gpu-idle,model-split', over)
rc3, _, err3 = ggmlviz('advise', '--fail-on', 'no-such-rule', over)
rc4, _, _ = ggmlviz('advise', '--fail-on', 'warn', fit)
rc5, _, _ = ggmlviz('advise', '--fail-on', 'any', fit)
# fit shows no warn of its own, but a machine busy with other tests may take its CPUs
fit_warns = [k for k, x in advise(fit)[0].items() if x['level'] == 'warn']
ok(rc == 3 and rc2 == 0 and rc3 == 2 and 'no-such-rule' in err3 and
   rc4 == (3 if fit_warns else 0) and rc5 == 3 and set(fit_warns) <= {'cpus-taken'},
   '--fail-on: 3 where a named finding fired, 0 where none did, 2 for an unknown id; warn '
   'leaves the trace\'s notes out, any does not (%d %d %d %d %d)' % (rc, rc2, rc3, rc4, rc5))
rc, out, err = ggmlviz('advise', over)
ok(rc == 0 and '[warn] threads-over-cpus:' in out and 'threshold:' in out and 'try:' in out and
   'not applied, and why:' not in out.split('[warn]')[0],
   'text: each finding whole, then the silent rules and those not applied', out[:400])
rc, out, err = ggmlviz('stats', over)
tail = out[out.find('findings ('):]
ok(rc == 0 and 'ggmlviz advise' in tail and '[warn] threads-over-cpus' in tail and
   'trace-estimated' not in tail, 'stats ends with the warn findings, one line each', tail[:400])
rc, out, err = ggmlviz('stats', '-f', 'json', over)
sj = json.loads(out) if rc == 0 else {}
rc2, out2, _ = ggmlviz('stats', fit)
ok('threads-over-cpus' in [x['id'] for x in sj.get('findings', [])] and
   ('findings (' not in out2) == (not fit_warns),
   'stats -f json: its findings\' ids; a run that shows none: no line')
taplib.finish()
