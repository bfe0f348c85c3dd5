/*
 * ggmlviz report: draws the page from the JSON in <script id="data"> (see
 * tools/report.h for its members). Plain JavaScript, no library, nothing
 * fetched. Numbers are formatted exactly as the ggmlviz command formats
 * them, so that the page and `ggmlviz stats` read the same.
 *
 * SPDX-License-Identifier: MIT
 */
'use strict';
(function () {
	var errors = [];
	function fail(message) {
		errors.push(message);
		var box = document.getElementById('errors');
		box.hidden = false;
		box.textContent = 'The report could not draw itself: ' + errors.join('; ');
		document.body.setAttribute('data-js-errors', String(errors.length));
	}
	window.addEventListener('error', function (e) {
		fail(e.message + ' (line ' + e.lineno + ')');
	});

	var KIND = { OP: 1, GRAPH: 2, SCOPE: 3, STEP: 4, SPLIT: 5, KERNEL: 6, RPC: 7 };
	var KIND_NAME = ['', 'op', 'graph', 'scope', 'step', 'run of nodes', 'GPU kernel', 'GGML RPC command'];
	var PHASES = ['unknown', 'prompt', 'generation'];
	var METHODS = ['unknown', 'sync', 'tick', 'the GPU'];

	/* ---- numbers, as tools/fmt.c writes them ---- */

	/*
	 * x with the given digits after the point as C's printf("%.*f") writes it. An exact
	 * tie (1.0625 to 3 digits, 924.5 to none) goes to even, as glibc's does: toFixed
	 * rounds it up (1.063, 925).
	 * x is a tie when x * 2 * 10^digits is odd and x is exactly that over 2 * 10^digits,
	 * which a double can hold only where 5^digits divides it.
	 */
	function fixed(x, digits) {
		var scale = Math.pow(10, digits), m = x * 2 * scale, five = Math.pow(5, digits);
		if (!(Math.abs(m) < 9007199254740992) || !Number.isInteger(m) || Math.abs(m) % 2 !== 1 ||
		    m % five !== 0 || m / five / Math.pow(2, digits + 1) !== x)
			return x.toFixed(digits);
		var n = (m - 1) / 2;
		return ((n % 2 === 0 ? n : n + 1) / scale).toFixed(digits);
	}
	function fmtNs(ns) {
		if (ns === null || ns === undefined) return '-'; /* ops known by their sums only */
		if (ns < 0) return '-' + fmtNs(-ns); /* begun before --steps' first step */
		if (ns < 1e3) return fixed(ns, 0) + ' ns';
		if (ns < 1e6) return fixed(ns / 1e3, 3) + ' us';
		if (ns < 1e9) return fixed(ns / 1e6, 3) + ' ms';
		return fixed(ns / 1e9, 3) + ' s';
	}
	function fmtBytes(b) {
		var units = ['KiB', 'MiB', 'GiB', 'TiB', 'PiB', 'EiB'], u = -1;
		if (b < 1024) return b + ' B';
		while (b >= 1024 && u < 5) { b /= 1024; u++; }
		return fixed(b, 3) + ' ' + units[u];
	}
	function fmtShare(s) { return fixed(s * 100, 1) + '%'; }
	function fmtGflops(g) { return g === null || g === undefined ? '-' : fixed(g, 1); }
	function fmtGbps(g) { return g === null || g === undefined ? '-' : fixed(g, 2); }
	function fmtCount(n) { return String(n); }
	function el(tag, attrs, text) {
		var e = document.createElement(tag);
		for (var k in attrs || {}) e.setAttribute(k, attrs[k]);
		if (text !== undefined) e.textContent = text;
		return e;
	}

	var D;
	try {
		D = JSON.parse(document.getElementById('data').textContent);
	} catch (e) {
		fail('its data does not parse: ' + e.message);
		return;
	}
	var S = D.strings;
	function str(id) { return S[id] === undefined ? '?' : S[id]; }

	/* ---- summary and health ---- */

	function summary() {
		var s = D.summary, box = document.getElementById('summary');
		var parts = [['file', s.file], ['records', String(s.records)],
			['span', fmtNs(s.span_ns)], ['ops', String(D.by_op.ops)]];
		if (s.steps) parts.push(['only steps', stepsChosen(s.steps)]);
		if (D.by_op.steps) parts.push(['steps', D.by_op.steps + ' (' + D.by_op.tokens + ' tokens)']);
		parts.push(['status', s.status]);
		parts.forEach(function (p, i) {
			if (i) box.appendChild(document.createTextNode(' \u00b7 '));
			box.appendChild(document.createTextNode(p[0] + ' '));
			box.appendChild(el('b', {}, p[1]));
		});
		var start = s.clock === 'steady'
			? 'times are from a steady clock (time since boot), shown from the start of the trace'
			: 'started ' + new Date(Math.floor(s.t0_ns / 1e6)).toISOString();
		document.getElementById('footer').textContent = 'Written by ' + s.generator + ' from ' +
			s.file + '; ' + start + '.';
	}

	/* --steps [first, last] in words; 0 is an open end. */
	function stepsChosen(r) {
		return r[0] && r[1] ? (r[0] === r[1] ? String(r[0]) : r[0] + ' to ' + r[1])
			: r[0] ? r[0] + ' on' : 'up to ' + r[1];
	}

	/* Whether a backend's runs have no op timing: the CPU's (cpu true), or another's. */
	function runsOnly(cpu) {
		return D.by_op.splits.some(function (x) {
			return x.runs && !x.ops_tick && !x.ops_gpu && !x.ops_sync && !x.ops_unknown &&
				!x.ops_measured &&
				(x.backend === 'CPU') === cpu;
		});
	}

	function health() {
		var list = document.getElementById('health-list'), s = D.summary, o = D.by_op;
		function say(level, text) { list.appendChild(el('li', { 'class': level }, text)); }
		if (s.status === 'complete' && !s.dropped)
			say('ok', 'Complete: every event emitted was written (' + s.written + ' events).');
		if (s.status === 'complete' && s.dropped)
			say('warn', 'Complete, but ' + s.dropped + ' events were dropped (' + s.written +
				' written): full rings, max_events, or a full disk.');
		if (s.status === 'crashed')
			say('bad', 'The program crashed (' + s.crash_signal + '): the crash handler saved ' +
				s.written + ' events emitted before it, ' + s.dropped + ' dropped.');
		if (s.status === 'incomplete')
			say('warn', 'Incomplete: no TRACE_END record, so the program did not stop tracing ' +
				'(killed, or still running), or its writer never ends traces.');
		if (s.status === 'cut short' || s.status === 'damaged')
			say('bad', 'The trace is ' + s.status + ': ' + s.damage + '. Everything before ' +
				'the damage is shown.');
		if (s.steps)
			say('warn', 'Only steps ' + stepsChosen(s.steps) + ' (report --steps): the timeline ' +
				'from the first one\u2019s begin to the last one\u2019s end, the tables of their ops; ' +
				'the requests\u2019 tables, of the whole trace, are left out.');
		if (s.clock === 'steady')
			say('warn', 'Timestamps come from a steady clock (time since boot), not the wall ' +
				'clock: they are shown from the start of the trace, and do not line up with ' +
				'other traces.');
		if (s.op_names_assumed)
			say('warn', 'The trace names none of its ops: op names are assumed from GGML\u2019s ' +
				'numbering of mid-2025 (the original ggml-viz writer\u2019s).');
		if (o.unmatched_ends || o.unclosed_begins)
			say('warn', o.unmatched_ends + ' ends without a begin and ' + o.unclosed_begins +
				' begins never ended were left out of the timings.');
		var mismatched = 0;
		o.splits.forEach(function (x) { mismatched += x.mismatched; });
		if (mismatched)
			say('warn', mismatched + ' runs of nodes got per-node calls that did not match ' +
				'their nodes: those runs are timed as a whole only.');
		if (D.binned_ops)
			say('ok', D.binned_ops + ' ops shorter than ' + fmtNs(D.threshold_ns) + ' are ' +
				'drawn as a density strip under their thread, not one by one (a screen could ' +
				'not show them; their figures are in the tables).');
		if (D.kernels)
			say('ok', D.kernels + ' GPU kernels ' + (D.gpu_note || 'recorded') + ': each op of a ' +
				'GPU run is timed by its kernels, drawn on its GPU stream\u2019s lane' +
				(D.hidden_kernels ? ' (' + D.hidden_kernels + ' kernels shorter than ' +
				fmtNs(D.threshold_ns) + ' are not drawn one by one)' : '') + '.');
		else if (D.gpu_note && /^not recorded/.test(D.gpu_note) && runsOnly(false))
			say('warn', 'GPU kernels ' + D.gpu_note + ': ops of GPU runs have no time of their own.');
		if (o.gpu_windows)
			say('ok', 'GPU kernels recorded in sampled windows (GGML_VIZ_GPU_SAMPLE): the op and ' +
				'layer tables are of the ' + o.gpu_windows.sampled_steps + ' sampled steps; ' +
				o.gpu_windows.warmup_steps + ' steps of CUPTI\u2019s warm-up and ' +
				o.gpu_windows.outside_steps + ' outside the windows keep their step times only.');
		if (runsOnly(true))
			say('warn', 'CPU runs without op times: the CPU backend never called the adapter\u2019s ' +
				'abort callback. Pass the scheduler as the eval callback\u2019s user_data, or call ' +
				'ggmlviz_ggml_trace_sched(), or in llama.cpp ggmlviz_llama_context_params(), and ' +
				'every node is timed.');
		if (o.measured_ops)
			say('ok', o.measured_ops + ' CPU ops measured inside GGML\u2019s CPU backend: each from ' +
				'the first worker thread\u2019s begin of its share to the last one\u2019s end, ' +
				'nothing estimated; each worker thread has its lane, its shares drawn there' +
				(o.shares ? ' (' + o.shares + ' shares)' : '') + '.');
		var tk = o.ticks, ticked = o.splits.some(function (x) { return x.ops_tick; });
		if (ticked && tk.estimated)
			say('ok', 'CPU ops are timed by the backend\u2019s ticks, read as compute: ' + tk.run_starts +
				' runs\u2019 starts (' + fmtNs(tk.run_start_ns) + ': the graph plan, the worker threads ' +
				'started) are told apart from their first ops as \u201c(run start)\u201d, and ' +
				tk.waits_moved + ' waits at GGML\u2019s barrier (' + fmtNs(tk.wait_ns_moved) + ') were ' +
				'moved back to the op that caused them; both estimated from each node\u2019s least ' +
				'time in the trace (libggmlviz(7); report --raw-ticks shows the times as ticked).');
		else if (ticked)
			say('warn', 'CPU ops as ticked: the first op of each run holds the run\u2019s start, and ' +
				'with several threads each op holds the wait at GGML\u2019s barrier for the op before ' +
				'it (' + (tk.raw ? '--raw-ticks' : 'the trace could not be read a second time') + ').');
		if (D.by_op.peak)
			say('ok', 'The machine\u2019s peak was measured when tracing started (' + D.by_op.peak.how +
				'): ' + fixed(D.by_op.peak.bytes_per_s / 1e9, 1) + ' GB/s read, ' +
				fixed(D.by_op.peak.flop_per_s / 1e9, 1) + ' GFLOP/s of f32 FMAs; BOUND in the op ' +
				'table says which one limits each op, and how close it came' +
				(D.by_op.groups.some(function (g) { return g.bound && g.peak_share > 1; })
					? ' (a share over 100%: the op\u2019s data were in the CPU\u2019s caches, which are ' +
					  'faster than the memory the peak was measured from).' : '.'));
		if (D.lanes_over)
			say('warn', 'More threads than the timeline has lanes: the last lane holds the rest.');
		var cold = D.by_layer && D.by_layer.cold_first_step;
		if (cold)
			say('warn', 'Layer ' + cold.layer + ' took ' + fmtShare(cold.share) + ' of the op time of ' +
				'step ' + cold.step + ', the first (' + fmtNs(cold.ns) + '), and ' +
				fmtShare(cold.later_share) + ' of the later steps\u2019: ' + fmtNs(cold.excess_ns) +
				' more than that part, most likely the first step running cold (its buffers ' +
				'touched, its threads woken for the first time). The layers of every step and ' +
				'of its phase count it against layer ' + cold.layer + '; the later steps show ' +
				'the layers warm (ggmlviz stats --steps ' + (cold.step + 1) + '- leaves it out).');
		if (!list.children.length) say('ok', 'Nothing to report.');
	}

	/* ---- the timeline ---- */

	var ROW = 18, STRIP = 8, LANE_GAP = 8, AXIS = 22, LABEL_W = 180;
	var canvas = document.getElementById('timeline-canvas');
	var ctx = canvas.getContext('2d');
	var tip = document.getElementById('tooltip');
	var span = Math.max(D.summary.span_ns, 1);
	var view = { t0: 0, t1: span };
	var lanes = [];  /* {name, rows: [[slice index...]...], top, height, strip} */
	var palette = {};

	function opColor(name) {
		if (palette[name]) return palette[name];
		var h = 0;
		for (var i = 0; i < name.length; i++) h = (h * 31 + name.charCodeAt(i)) >>> 0;
		palette[name] = 'hsl(' + (h % 360) + ',58%,' + (52 + (h >> 9) % 14) + '%)';
		return palette[name];
	}
	function color(s) {
		switch (s[0]) {
		case KIND.OP: return opColor(str(s[5]));
		case KIND.STEP: return '#5b8def';
		case KIND.SPLIT: return '#a4abb8';
		case KIND.GRAPH: return '#7c8596';
		case KIND.RPC: return s[10] ? '#d9534f' : '#3aa57a'; /* failed: red */
		case KIND.KERNEL: return str(s[6]) ? opColor(str(s[6])) : '#c59d5f'; /* its op's */
		default: return '#c59d5f';
		}
	}
	function sliceName(s) {
		switch (s[0]) {
		case KIND.OP: return str(s[5]);
		case KIND.STEP: return str(s[5]) + ' ' + s[6] + ' (' + s[7] + (s[7] === 1 ? ' token)' : ' tokens)');
		case KIND.SPLIT: return str(s[5]) + ' run';
		case KIND.RPC: return str(s[5]) + ' #' + s[6];
		case KIND.GRAPH: return 'graph ' + s[7];
		default: return str(s[5]);
		}
	}
	function end(s) { return s[3] + s[4]; }

	/* Rows: by depth, and within a depth, a new row for a slice that would overlap. */
	function layout() {
		var byLane = D.lanes.map(function () { return []; });
		D.slices.forEach(function (s, i) { if (byLane[s[1]]) byLane[s[1]].push(i); });
		var top = AXIS;
		byLane.forEach(function (idx, l) {
			idx.sort(function (a, b) {
				var x = D.slices[a], y = D.slices[b];
				return x[2] - y[2] || x[3] - y[3] || y[4] - x[4];
			});
			var rows = [], ends = [], depthRows = {};
			idx.forEach(function (i) {
				var s = D.slices[i], d = s[2], list = depthRows[d] || (depthRows[d] = []);
				var r = 0;
				while (r < list.length && ends[list[r]] > s[3]) r++;
				if (r === list.length) { list.push(rows.length); rows.push([]); ends.push(0); }
				rows[list[r]].push(i);
				ends[list[r]] = end(s);
			});
			var order = [];
			Object.keys(depthRows).map(Number).sort(function (a, b) { return a - b; })
				.forEach(function (d) { depthRows[d].forEach(function (r) { order.push(rows[r]); }); });
			var bins = D.bins[l] || [], busy = bins.some(function (v) { return v > 0; });
			var height = Math.max(order.length, 1) * ROW + (busy ? STRIP + 2 : 0);
			lanes.push({ name: D.lanes[l].name, rows: order, top: top, height: height,
				strip: busy ? bins : null });
			top += height + LANE_GAP;
		});
		canvas.style.height = Math.max(top, AXIS + ROW) + 'px';
	}

	function resize() {
		var ratio = window.devicePixelRatio || 1;
		canvas.width = Math.max(canvas.clientWidth, 300) * ratio;
		canvas.height = parseFloat(canvas.style.height) * ratio;
		ctx.setTransform(ratio, 0, 0, ratio, 0, 0);
	}

	function xOf(t) { return LABEL_W + (t - view.t0) / (view.t1 - view.t0) * (canvas.clientWidth - LABEL_W); }
	function tOf(x) { return view.t0 + (x - LABEL_W) / (canvas.clientWidth - LABEL_W) * (view.t1 - view.t0); }

	/* The first slice of a row (ends non-decreasing) that ends after t. */
	function firstEnding(row, t) {
		var lo = 0, hi = row.length;
		while (lo < hi) {
			var mid = (lo + hi) >> 1;
			if (end(D.slices[row[mid]]) < t) lo = mid + 1; else hi = mid;
		}
		return lo;
	}

	/* A tick's time without the zeros the tables keep: 500 us, 1.5 ms (not 500.000 us). */
	function axisLabel(t) {
		return fmtNs(t).replace(/(\.\d*?)0+ /, '$1 ').replace('. ', ' ');
	}

	function axis(w) {
		var dt = view.t1 - view.t0, step = Math.pow(10, Math.floor(Math.log10(dt / 8)));
		if (dt / step > 16) step *= 5; else if (dt / step > 8) step *= 2;
		ctx.fillStyle = '#5d6678';
		ctx.font = '11px system-ui, sans-serif';
		ctx.strokeStyle = '#e4e8ef';
		for (var t = Math.ceil(view.t0 / step) * step; t <= view.t1; t += step) {
			var x = xOf(t);
			ctx.fillText(axisLabel(t), x + 2, 13);
			ctx.beginPath(); ctx.moveTo(x + 0.5, 16); ctx.lineTo(x + 0.5, canvas.clientHeight); ctx.stroke();
		}
		ctx.fillText(D.summary.steps ? 'from the begin of step ' + (D.summary.steps[0] || 1)
			: 'from the start of the trace', 4, 13);
	}

	function drawRow(row, y) {
		var i = firstEnding(row, view.t0), lastX = -1, w = canvas.clientWidth;
		for (; i < row.length; i++) {
			var s = D.slices[row[i]];
			if (s[3] > view.t1) break;
			var x0 = Math.max(xOf(s[3]), LABEL_W), x1 = Math.min(xOf(end(s)), w);
			if (x1 - x0 < 1) {
				if (x0 < lastX + 1) continue; /* the pixel is drawn already */
				x1 = x0 + 1;
			}
			ctx.fillStyle = color(s);
			/* a pixel's gap between slices wide enough to show where one ends */
			ctx.fillRect(x0, y + 1, x1 - x0 > 3 ? x1 - x0 - 1 : x1 - x0, ROW - 2);
			lastX = x1;
			if (x1 - x0 > 40) {
				ctx.fillStyle = s[0] === KIND.OP || s[0] === KIND.KERNEL ? '#111' : '#fff';
				ctx.save();
				ctx.beginPath(); ctx.rect(x0, y, x1 - x0, ROW); ctx.clip();
				ctx.fillText(sliceName(s), x0 + 3, y + ROW - 5);
				ctx.restore();
			}
		}
	}

	function drawStrip(lane, y) {
		var bins = lane.strip, n = bins.length, width = span / n, max = 0;
		for (var b = 0; b < n; b++) max = Math.max(max, bins[b] / width);
		for (b = 0; b < n; b++) {
			if (!bins[b]) continue;
			var t = b * width;
			if (t + width < view.t0 || t > view.t1) continue;
			var x0 = Math.max(xOf(t), LABEL_W), x1 = Math.max(xOf(t + width), x0 + 1);
			ctx.fillStyle = 'rgba(59,111,216,' + (0.15 + 0.85 * bins[b] / width / (max || 1)) + ')';
			ctx.fillRect(x0, y, x1 - x0, STRIP);
		}
	}

	function draw() {
		var w = canvas.clientWidth;
		ctx.clearRect(0, 0, w, canvas.clientHeight);
		axis(w);
		ctx.font = '11px system-ui, sans-serif';
		lanes.forEach(function (lane) {
			ctx.fillStyle = '#f5f7fa';
			ctx.fillRect(0, lane.top, LABEL_W - 4, lane.height);
			ctx.fillStyle = '#1d2330';
			ctx.fillText(lane.name, 6, lane.top + 13, LABEL_W - 12);
			lane.rows.forEach(function (row, r) { drawRow(row, lane.top + r * ROW); });
			if (lane.strip) drawStrip(lane, lane.top + lane.rows.length * ROW + 2);
		});
	}

	function sliceAt(x, y) {
		var t = tOf(x), slack = (view.t1 - view.t0) / (canvas.clientWidth - LABEL_W);
		for (var l = 0; l < lanes.length; l++) {
			var lane = lanes[l], r = Math.floor((y - lane.top) / ROW);
			if (r < 0 || r >= lane.rows.length) continue;
			var row = lane.rows[r], i = firstEnding(row, t - slack);
			if (i < row.length && D.slices[row[i]][3] <= t + slack) return D.slices[row[i]];
		}
		return null;
	}

	function describe(s) {
		var lines = [sliceName(s) + ' \u2014 ' + KIND_NAME[s[0]], 'duration ' + fmtNs(s[4]) +
			', from ' + fmtNs(s[3]) + ' to ' + fmtNs(end(s)), 'thread ' + D.lanes[s[1]].name];
		if (s[0] === KIND.OP) {
			if (str(s[6])) lines.push('tensor ' + str(s[6]));
			var shape = s.slice(10, 14).filter(function (v, i) { return i === 0 || v !== 1; });
			if (s[10]) lines.push('shape [' + shape.join(', ') + ']' + (str(s[14]) ? ' ' + str(s[14]) : ''));
			lines.push('backend ' + str(s[15]) + ', timed by ' + (METHODS[s[16]] || 'unknown') +
				(s[7] >= 0 ? ', layer ' + s[7] : '') + (s[8] ? ', step ' + s[8] : ''));
			if (s[9]) lines.push(fixed(s[9] / s[4], 1) + ' GFLOP/s (' + s[9] + ' flops)');
			if (s[17]) lines.push(fixed(s[17] / s[4], 2) + ' GB/s (' + fmtBytes(s[17]) + ' read and written)');
		} else if (s[0] === KIND.STEP) {
			lines.push(s[7] + ' tokens, ' + (PHASES[s[8]] || 'unknown') + ', returned ' + s[9] +
				(s[7] ? ', ' + fmtNs(s[4] / s[7]) + ' per token' : ''));
		} else if (s[0] === KIND.SPLIT) {
			lines.push(s[6] + ' nodes, ' + s[7] + ' of them with an op timing of their own' +
				(s[8] !== s[9] && s[8] ? ' (' + s[8] + ' calls for ' + s[9] + ' expected)' : ''));
		} else if (s[0] === KIND.GRAPH) {
			lines.push(s[5] + ' nodes, ' + s[6] + ' threads');
		} else if (s[0] === KIND.RPC) {
			lines.push('command ' + s[6] + ' of its connection, ' + (s[9] === 2 ? 'served' : 'sent') +
				': ' + fmtBytes(s[7]) + ' requested, ' + fmtBytes(s[8]) + ' replied' +
				(s[10] ? '; it failed (the connection dropped)' : ''));
		} else if (s[0] === KIND.KERNEL) {
			lines.push((str(s[6]) ? 'launched by ' + str(s[6]) + (s[7] >= 0 ? ' of layer ' + s[7] : '')
				: 'launched by no op of its run (untied)') + (s[8] ? ', step ' + s[8] : '') +
				', stream ' + s[9] + ', run ' + s[10]);
		}
		return lines.join('\n');
	}

	function zoom(factor, x) {
		var t = tOf(x), len = Math.min(Math.max((view.t1 - view.t0) * factor, 100), span * 1.05);
		var f = (t - view.t0) / (view.t1 - view.t0);
		view.t0 = t - f * len;
		view.t1 = view.t0 + len;
		draw();
	}

	function timeline() {
		layout();
		resize();
		draw();
		var drag = null;
		canvas.addEventListener('wheel', function (e) {
			e.preventDefault();
			zoom(e.deltaY > 0 ? 1.25 : 0.8, e.offsetX);
		}, { passive: false });
		canvas.addEventListener('mousedown', function (e) {
			drag = { x: e.offsetX, t0: view.t0, t1: view.t1, moved: false };
			canvas.classList.add('dragging');
		});
		window.addEventListener('mouseup', function () {
			drag = null;
			canvas.classList.remove('dragging');
		});
		canvas.addEventListener('mousemove', function (e) {
			if (drag) {
				var dt = (e.offsetX - drag.x) / (canvas.clientWidth - LABEL_W) * (drag.t1 - drag.t0);
				view.t0 = drag.t0 - dt; view.t1 = drag.t1 - dt;
				drag.moved = drag.moved || Math.abs(e.offsetX - drag.x) > 2;
				draw();
				return;
			}
			var s = sliceAt(e.offsetX, e.offsetY);
			tip.hidden = !s;
			if (s) {
				tip.textContent = describe(s);
				tip.style.left = Math.min(e.offsetX + 12, canvas.clientWidth - 300) + 'px';
				tip.style.top = (e.offsetY + 14) + 'px';
			}
		});
		canvas.addEventListener('mouseleave', function () { tip.hidden = true; });
		canvas.addEventListener('click', function (e) {
			var s = sliceAt(e.offsetX, e.offsetY);
			document.getElementById('details').textContent = s ? describe(s) : '';
		});
		window.addEventListener('keydown', function (e) {
			var mid = LABEL_W + (canvas.clientWidth - LABEL_W) / 2;
			if (e.key === '+' || e.key === '=') zoom(0.8, mid);
			else if (e.key === '-') zoom(1.25, mid);
			else if (e.key === '0') { view.t0 = 0; view.t1 = span; draw(); }
		});
		window.addEventListener('resize', function () { resize(); draw(); });
	}

	/* ---- the op table (stats --by op) ---- */

	var COLUMNS = [
		['OP', 'name', function (g) { return g.name; }, function (v) { return v; }],
		['COUNT', 'count', function (g) { return g.count; }, fmtCount],
		['TOTAL', 'total_ns', function (g) { return g.total_ns; }, fmtNs],
		['MEAN', 'mean_ns', function (g) { return g.mean_ns; }, fmtNs],
		['MIN', 'min_ns', function (g) { return g.min_ns; }, fmtNs],
		['P50', 'p50_ns', function (g) { return g.p50_ns; }, fmtNs],
		['P95', 'p95_ns', function (g) { return g.p95_ns; }, fmtNs],
		['MAX', 'max_ns', function (g) { return g.max_ns; }, fmtNs],
		['SHARE', 'share', function (g) { return g.share; }, fmtShare],
		['GFLOP/S', 'gflops', function (g) { return g.gflops; }, fmtGflops],
		['GB/S', 'gbps', function (g) { return g.gbps; }, fmtGbps]
	];

	/*
	 * The op table, of every op or of one phase's: a phase's with its op time
	 * per token, and a PER TOKEN column as stats --phase prints it.
	 */
	function opTable() {
		var table = document.getElementById('ops'), agg = D.by_op, groups = agg.groups.slice();
		var sortKey = 'total_ns', up = false;
		var pick = document.getElementById('ops-phase'), note = document.getElementById('ops-note');
		/* BOUND, where the trace measured the machine's peak: memory or compute, and the share of it */
		var bound = ['BOUND', 'peak_share', function (g) { return g.peak_share; }, function (v, g) {
			return g && g.bound ? g.bound + ' ' + fixed(v * 100, 0) + '%' : '-';
		}];
		/* the barrier waits charged to each op (ticks estimated): in its TOTAL, the others' share of it */
		var wait = ['BARRIER WAIT', 'barrier_wait_ns', function (g) { return g.barrier_wait_ns; },
			function (v) { return v ? fmtNs(v) : '-'; }];
		function columns() {
			var cols = D.by_op.peak ? COLUMNS.concat([bound]) : COLUMNS;
			if (agg.ticks && agg.ticks.estimated && agg.groups.some(function (g) { return g.barrier_wait_ns; }))
				cols = cols.concat([wait]);
			if (pick.value === 'all' || !agg.tokens)
				return cols;
			var per = ['PER TOKEN', 'per_token_ns', function (g) { return g.total_ns / agg.tokens; }, fmtNs];
			return cols.slice(0, 3).concat([per], cols.slice(3));
		}
		if (D.by_op.steps) {
			pick.hidden = false;
			pick.addEventListener('change', function () {
				agg = { all: D.by_op, prompt: D.by_op_prompt, generation: D.by_op_generation }[pick.value];
				groups = agg.groups.slice();
				render();
			});
		}
		function render() {
			note.textContent = agg.ops + ' ops, ' + fmtNs(agg.op_ns) + (agg.tokens ? ' for ' +
				agg.tokens + ' tokens: ' + fmtNs(agg.op_ns / agg.tokens) + ' of op time per token' : '');
			table.textContent = '';
			var head = el('tr'), cols = columns();
			if (!cols.some(function (c) { return c[1] === sortKey; })) sortKey = 'total_ns';
			cols.forEach(function (c, i) {
				var th = el('th', { 'data-key': c[1] }, c[0]);
				if (c[1] === sortKey) th.className = 'sorted' + (up ? ' up' : '');
				th.addEventListener('click', function () {
					up = sortKey === c[1] ? !up : i === 0;
					sortKey = c[1];
					render();
				});
				head.appendChild(th);
			});
			table.appendChild(head);
			var get = cols.filter(function (c) { return c[1] === sortKey; })[0][2];
			groups.sort(function (a, b) {
				var x = get(a), y = get(b), c = typeof x === 'string'
					? x.localeCompare(y) : (x === null ? -1 : x) - (y === null ? -1 : y);
				return up ? c : -c;
			});
			groups.forEach(function (g) {
				var tr = el('tr', { 'data-name': g.name });
				cols.forEach(function (c) {
					var v = c[2](g);
					tr.appendChild(el('td', { 'data-key': c[1], 'data-v': String(v) }, c[3](v, g)));
				});
				table.appendChild(tr);
			});
		}
		render();
	}

	/* ---- bars: by layer, phase, step, backend ---- */

	function barGrid(groups, value, label) {
		var grid = el('div', { 'class': 'bars' }), max = 0;
		groups.forEach(function (g) { max = Math.max(max, value(g)); });
		groups.forEach(function (g) {
			grid.appendChild(el('div', {}, g.name));
			var bar = el('div', { 'class': 'bar' });
			bar.style.width = (max ? 100 * value(g) / max : 0) + '%';
			grid.appendChild(bar);
			grid.appendChild(el('div', { 'class': 'bar-label' }, label(g)));
		});
		return grid;
	}

	function bars(title, groups, value, label, note) {
		var box = el('div', { 'class': 'group-box' });
		box.appendChild(el('h3', {}, title));
		if (note) box.appendChild(el('div', { 'class': 'hint' }, note));
		box.appendChild(barGrid(groups, value, label));
		document.getElementById('groups').appendChild(box);
		return box;
	}

	/*
	 * A picker of the phase a box shows (id key-phase): every step, the prompt's, or
	 * generation's (a phase's with its op time per token); redraw(agg) draws one.
	 */
	function phasePicker(box, key, aggs, redraw) {
		var pick = el('select', { id: key + '-phase' }), hint = el('div', { 'class': 'hint' });
		[['all', 'every step'], ['prompt', 'prompt only'], ['generation', 'generation only']]
			.forEach(function (o) { pick.appendChild(el('option', { value: o[0] }, o[1])); });
		hint.appendChild(pick);
		box.insertBefore(hint, box.children[1]);
		pick.addEventListener('change', function () { redraw(aggs[pick.value]); });
	}

	function perToken(agg, share) {
		return function (g) {
			return share(g) + (agg.tokens ? ', ' + fmtNs(g.total_ns / agg.tokens) + ' per token' : '');
		};
	}

	/* The layers, of every step or of one phase's (a phase's with its op time per token). */
	function layerBars(total, share) {
		var all = D.by_layer;
		if (!(all.groups.length > 1 || D.by_op.ops && all.groups[0].name !== '(none)'))
			return;
		var none = all.groups.some(function (g) { return g.name === '(none)'; });
		var box = bars('By layer', all.groups, total, share, none ? '(none): ops of no layer; in ' +
			'llama.cpp the token embedding, the output norm and the output projection' : undefined);
		if (!D.by_op.steps)
			return;
		phasePicker(box, 'layers', { all: all, prompt: D.by_layer_prompt, generation: D.by_layer_generation },
			function (agg) {
				box.replaceChild(barGrid(agg.groups, total, perToken(agg, share)), box.querySelector('.bars'));
			});
	}

	var PART_COLORS = ['#8e6bbf', '#e08a2e', '#3b6fd8', '#2aa198', '#b58900', '#8a8f99', '#2e7d32',
		'#c0392b', '#d33682', '#1d2330', '#6c4f2a', '#4f9fd1', '#e4732a', '#9c6ade', '#c9ced8'];

	/* Each layer as a bar of its parts (stats --by part's by layer), per token for a phase. */
	function partLayers(agg) {
		var grid = el('div', { 'class': 'bars part-layers' }), max = 0, names = D.by_part.part_names;
		agg.by_layer.forEach(function (l) {
			var sum = 0;
			names.forEach(function (p) { sum += l[p] || 0; });
			l.sum = sum;
			max = Math.max(max, sum);
		});
		agg.by_layer.forEach(function (l) {
			if (!l.sum) return;
			grid.appendChild(el('div', {}, l.layer === null ? '(none)' :
				l.stack ? l.stack.slice(0, 3) + '.' + l.layer : 'layer ' + l.layer));
			var bar = el('div', { 'class': 'stack' });
			bar.style.width = (max ? 100 * l.sum / max : 0) + '%';
			names.forEach(function (p, i) {
				if (!l[p]) return;
				var seg = el('span', { title: p + ': ' + fmtNs(agg.tokens ? l[p] / agg.tokens : l[p]) });
				seg.style.width = 100 * l[p] / l.sum + '%';
				seg.style.background = PART_COLORS[i % PART_COLORS.length];
				bar.appendChild(seg);
			});
			grid.appendChild(bar);
			grid.appendChild(el('div', { 'class': 'bar-label' },
				fmtNs(agg.tokens ? l.sum / agg.tokens : l.sum) + (agg.tokens ? ' per token' : '')));
		});
		return grid;
	}

	/* The parts of a llama.cpp model (stats --by part), then each layer by its parts. */
	function partBars(total, share) {
		var all = D.by_part;
		if (!all || !all.ops) return;
		var note = all.parts_named ? (all.other.ops ? '(other): ' + all.other.ops + ' ops whose name places ' +
			'them in no part, never guessed' + all.other.by_op.map(function (o) {
				return '; ' + o.op + ' ' + o.count + ' (such as ' + o.example + ')';
			}).join('') : 'every op placed by its name') :
			(all.tensor_names ? 'No op of this trace has a name that llama.cpp\u2019s graph builder gives: ' +
				'every op is (other).' : 'No op of this trace has a tensor name (the original ggml-viz ' +
				'wrote none): every op is (other).');
		var box = bars('By part of the model', all.groups, total, share, note);
		box.id = 'parts-box';
		if (!all.parts_named) return;
		var legend = el('div', { 'class': 'hint' });
		all.part_names.forEach(function (p, i) {
			var sw = el('span', { 'class': 'swatch' });
			sw.style.background = PART_COLORS[i % PART_COLORS.length];
			legend.appendChild(sw);
			legend.appendChild(document.createTextNode(p + ' '));
		});
		box.appendChild(el('h3', {}, 'Each layer by part'));
		box.appendChild(legend);
		box.appendChild(partLayers(all));
		if (!D.by_op.steps) return;
		phasePicker(box, 'parts', { all: all, prompt: D.by_part_prompt, generation: D.by_part_generation },
			function (agg) {
				box.replaceChild(barGrid(agg.groups, total, perToken(agg, share)), box.querySelector('.bars'));
				box.replaceChild(partLayers(agg), box.querySelector('.part-layers'));
			});
	}

	/* Every step as a column, its height its time, its color its phase; hover for it. */
	function stepChart(groups) {
		var box = el('div', { 'class': 'group-box' }), c = el('canvas', { id: 'steps-canvas' });
		var info = el('div', { 'class': 'hint' }, 'Each column is a step (' + groups.length +
			(D.by_step.groups_not_shown ? ' shown of ' + (groups.length + D.by_step.groups_not_shown) : '') +
			'): prompt in orange, generation in blue, an encoder run (whisper.cpp) in green (the phase ' +
			'stats gives each); hover for its ' +
			'figures.');
		box.appendChild(el('h3', {}, 'By step'));
		box.appendChild(info);
		box.appendChild(c);
		document.getElementById('groups').appendChild(box);
		var ratio = window.devicePixelRatio || 1, w = c.clientWidth || 800, h = 140;
		c.style.height = h + 'px';
		c.width = w * ratio; c.height = h * ratio;
		var g = c.getContext('2d'), max = 0, n = groups.length, cw = w / Math.max(n, 1);
		g.setTransform(ratio, 0, 0, ratio, 0, 0);
		groups.forEach(function (s) { max = Math.max(max, s.step_ns || 0); });
		/* a step's color is its phase as stats gives it (not its tokens: 2 slots of 1 token generate) */
		var colors = { prompt: '#e08a2e', generation: '#3b6fd8', encode: '#2e7d32', unknown: '#8a8f99' };
		var colorOf = function (s) { return colors[s.phase] ? s.phase : 'unknown'; };
		c.setAttribute('data-colors', groups.map(colorOf).join(' '));
		groups.forEach(function (s, i) {
			var y = (s.step_ns || 0) / (max || 1) * (h - 6);
			g.fillStyle = colors[colorOf(s)];
			g.fillRect(i * cw, h - y, Math.max(cw - (cw > 3 ? 1 : 0), 1), y);
		});
		c.addEventListener('mousemove', function (e) {
			var s = groups[Math.floor(e.offsetX / cw)];
			if (s)
				info.textContent = 'step ' + s.name + ' (' + s.phase + '): ' + fmtNs(s.step_ns) + ', ' +
					s.tokens + ' tokens, ' + s.count + ' ops taking ' + fmtNs(s.total_ns);
		});
	}

	/*
	 * A server's requests over time, one row each in the order they came:
	 * its wait in the queue (grey), its prompt (orange), its generation
	 * (blue), from its arrival to its end; the percentiles under it.
	 */
	function requestChart(R) {
		var box = el('div', { 'class': 'group-box' }), c = el('canvas', { id: 'requests-canvas' });
		var reqs = R.requests, t0 = D.summary.t0_ns, t1 = t0;
		reqs.forEach(function (r) { t1 = Math.max(t1, r.end_ns); });
		var info = el('div', { 'class': 'hint' }, 'Each row is a request, in the order they came: ' +
			'waiting in the queue in grey, its prompt in orange, its generation in blue; hover for ' +
			'its figures (stats --by request).');
		box.appendChild(el('h3', {}, 'Requests over time'));
		box.appendChild(info);
		box.appendChild(c);
		var pct = [], P = R.percentiles, names = { queue_ns: 'queue', ttft_ns: 'time to first token',
			per_token_ns: 'per token', total_ns: 'total' };
		Object.keys(names).forEach(function (k) {
			if (P[k])
				pct.push(names[k] + ' p50 ' + fmtNs(P[k].p50) + ', p95 ' + fmtNs(P[k].p95) + ', p99 ' +
					fmtNs(P[k].p99));
		});
		box.appendChild(el('div', { 'class': 'hint', id: 'requests-percentiles' }, pct.join('; ')));
		document.getElementById('groups').appendChild(box);
		var ratio = window.devicePixelRatio || 1, w = c.clientWidth || 800;
		var row = Math.max(3, Math.min(14, Math.floor(300 / reqs.length))), h = row * reqs.length + 4;
		c.style.height = h + 'px';
		c.width = w * ratio; c.height = h * ratio;
		var g = c.getContext('2d'), span = Math.max(t1 - t0, 1);
		var x = function (t) { return (t - t0) / span * w; };
		g.setTransform(ratio, 0, 0, ratio, 0, 0);
		reqs.forEach(function (r, i) {
			var y = 2 + i * row, hh = Math.max(row - 1, 2);
			var prompt = r.arrival_ns + (r.queue_ns || 0), first = r.ttft_ns !== null ? r.arrival_ns + r.ttft_ns : r.end_ns;
			g.fillStyle = '#b8bfcc';
			g.fillRect(x(r.arrival_ns), y, Math.max(x(prompt) - x(r.arrival_ns), 1), hh);
			g.fillStyle = '#e08a2e';
			g.fillRect(x(prompt), y, Math.max(x(first) - x(prompt), 1), hh);
			g.fillStyle = r.status === 'done' ? '#3b6fd8' : '#c0392b';
			g.fillRect(x(first), y, Math.max(x(r.end_ns) - x(first), 1), hh);
		});
		c.addEventListener('mousemove', function (e) {
			var r = reqs[Math.floor((e.offsetY - 2) / row)];
			if (r)
				info.textContent = 'request ' + r.request + ' (slot ' + r.slot + ', ' + r.status + '): ' +
					r.prompt_tokens + ' prompt tokens (' + r.cached_tokens + ' cached), ' +
					r.generated_tokens + ' generated; queue ' + fmtNs(r.queue_ns) + ', prompt ' +
					fmtNs(r.prompt_ns) + ', first token after ' + fmtNs(r.ttft_ns) + ', ' +
					fmtNs(r.per_token_ns) + ' per token, ' + fmtNs(r.total_ns) + ' in all';
		});
	}

	/*
	 * Time per generated token against the context it attends to: each
	 * generation step a dot, so that attention's growth with the context
	 * shows (and a step that stands out, too).
	 */
	function contextChart(steps) {
		var box = el('div', { 'class': 'group-box' }), c = el('canvas', { id: 'context-canvas' });
		var info = el('div', { 'class': 'hint' }, 'Each dot is a generation step: its time per token ' +
			'(up) against the tokens already in its context (across); hover for its figures.');
		box.appendChild(el('h3', {}, 'Time per generated token by context length'));
		box.appendChild(info);
		box.appendChild(c);
		document.getElementById('groups').appendChild(box);
		var ratio = window.devicePixelRatio || 1, w = c.clientWidth || 800, h = 160, pad = 6;
		c.style.height = h + 'px';
		c.width = w * ratio; c.height = h * ratio;
		var g = c.getContext('2d'), xmin = Infinity, xmax = 0, ymax = 0;
		g.setTransform(ratio, 0, 0, ratio, 0, 0);
		steps.forEach(function (s) {
			xmin = Math.min(xmin, s.context_tokens); xmax = Math.max(xmax, s.context_tokens);
			ymax = Math.max(ymax, s.ns_per_token);
		});
		function xy(s) {
			return [pad + (s.context_tokens - xmin) / Math.max(xmax - xmin, 1) * (w - 2 * pad),
				h - pad - s.ns_per_token / (ymax || 1) * (h - 2 * pad)];
		}
		g.fillStyle = '#5d6678';
		g.font = '11px system-ui, sans-serif';
		g.fillText(fmtNs(ymax) + ' per token', pad + 2, 12);
		g.fillText('context ' + xmin, pad + 2, h - pad - 4);
		g.textAlign = 'right';
		g.fillText(String(xmax), w - pad - 2, h - pad - 4);
		g.fillStyle = '#3b6fd8';
		steps.forEach(function (s) {
			var p = xy(s);
			g.fillRect(p[0] - 2, p[1] - 2, 4, 4);
		});
		c.addEventListener('mousemove', function (e) {
			var best = null, bd = Infinity;
			steps.forEach(function (s) {
				var p = xy(s), d = Math.abs(p[0] - e.offsetX);
				if (d < bd) { bd = d; best = s; }
			});
			if (best)
				info.textContent = 'step ' + best.name + ': context ' + best.context_tokens + ' tokens, ' +
					fmtNs(best.ns_per_token) + ' per token';
		});
	}

	function groupings() {
		var total = function (g) { return g.total_ns; };
		var share = function (g) { return fmtNs(g.total_ns) + '  ' + fmtShare(g.share); };
		if (D.by_phase.steps)
			bars('By phase', D.by_phase.groups, function (g) { return g.step_ns || 0; },
				function (g) {
					return fmtNs(g.step_ns) + ' for ' + g.tokens + ' tokens: ' +
						fmtNs(g.ns_per_token) + ' per token, ' + fixed(g.tokens_per_s, 1) + ' tokens/s';
				});
		layerBars(total, share);
		partBars(total, share);
		if (D.by_step.steps)
			stepChart(D.by_step.groups);
		var gen = D.by_step.groups.filter(function (s) {
			return s.phase === 'generation' && s.context_tokens !== null && s.tokens > 0;
		});
		if (gen.length > 1)
			contextChart(gen);
		if (D.by_request && D.by_request.requests.length)
			requestChart(D.by_request);
		if (D.by_sequence && D.by_sequence.groups.length > 1)
			bars('Requests (sequences)', D.by_sequence.groups, function (g) { return g.ns; },
				function (g) {
					return fmtNs(g.ns) + ': ' + g.prompt_tokens + ' prompt and ' + g.generated_tokens +
						' generated tokens, ' + fmtNs(g.ns_per_token) + ' per token, ' +
						g.steps + ' steps over ' + fmtNs(g.last_ns - g.first_ns);
				}, 'Each request\u2019s share of the time of the steps it was decoded in, each step\u2019s ' +
				'time shared among its sequences in proportion to their tokens (stats --by sequence).');
		var runs = D.by_op.splits.map(function (x) {
			return { name: x.backend, total_ns: x.ns, runs: x.runs, nodes: x.nodes, how: howTimed(x) };
		});
		if (runs.length)
			bars('Runs of nodes by backend, and how their ops were timed', runs, total, function (g) {
				return fmtNs(g.total_ns) + ', ' + g.runs + ' runs of ' + g.nodes + ' nodes: ' + g.how;
			});
		else
			bars('By backend', D.by_backend.groups, total, share);
	}

	/* How a backend's ops were timed, in words (as stats and info say it). */
	function howTimed(x) {
		var parts = [];
		if (x.ops_measured) parts.push(x.ops_measured + ' ops measured, every worker thread\'s share ' +
			'(GGML built with libggmlviz\'s edit)');
		if (x.ops_tick) parts.push(x.ops_tick + ' ops timed by the backend\'s ticks');
		if (x.ops_gpu) parts.push(x.ops_gpu + ' ops timed on the GPU (its kernels, or the backend\'s timestamps): ' +
			fmtNs(x.gpu_ns));
		if (x.ops_sync) parts.push(x.ops_sync + ' ops synchronized one by one (the run changed)');
		if (x.ops_unknown) parts.push(x.ops_unknown + ' ops timed by a method not said');
		return parts.length ? parts.join(', ') : 'runs only, each timed as a whole (no op timing)';
	}

	/* ---- memory ---- */

	function memory() {
		var m = D.memory;
		if (!m) return;
		var section = document.getElementById('memory-section'), c = document.getElementById('memory-canvas');
		section.hidden = false;
		var ratio = window.devicePixelRatio || 1, w = c.clientWidth, h = c.clientHeight;
		c.width = w * ratio; c.height = h * ratio;
		var g = c.getContext('2d'), n = m.max_per_bin.length, max = Math.max(m.peak, 1);
		g.setTransform(ratio, 0, 0, ratio, 0, 0);
		g.fillStyle = 'rgba(59,111,216,0.25)';
		g.strokeStyle = '#3b6fd8';
		g.beginPath();
		g.moveTo(0, h);
		var last = 0;
		for (var b = 0; b < n; b++) {
			last = m.max_per_bin[b] || last;
			g.lineTo(b / n * w, h - 4 - last / max * (h - 12));
		}
		g.lineTo(w, h);
		g.fill();
		g.stroke();
		document.getElementById('memory-text').textContent = 'peak ' + fmtBytes(m.peak) + ' live at ' +
			fmtNs(m.peak_t) + ' from the start; ' + fmtBytes(m.end) + ' still allocated at the end';
	}

	/*
	 * The phase pickers as the address asks (report.html#ops=generation&layers=prompt),
	 * so that a link opens the page on one phase.
	 */
	function phasesFromAddress() {
		location.hash.replace(/^#/, '').split('&').forEach(function (kv) {
			var p = kv.split('='), pick = document.getElementById(p[0] + '-phase');
			if (!pick || pick.hidden || !/^(all|prompt|generation)$/.test(p[1] || '')) return;
			pick.value = p[1];
			pick.dispatchEvent(new Event('change'));
		});
	}

	/* ---- findings: ggmlviz advise's, first ---- */

	function findings() {
		var F = D.findings, box = document.getElementById('findings');
		if (!F) return;
		document.getElementById('findings-section').hidden = false;
		if (!F.findings.length)
			box.appendChild(el('p', { 'class': 'ok' }, 'No finding: each rule applied found nothing' +
				' to say (the rules not applied are listed below).'));
		F.findings.forEach(function (x) {
			var d = el('div', { 'class': 'finding ' + x.level, id: 'finding-' + x.id });
			d.appendChild(el('h3', {}, '[' + x.level + '] ' + x.id + ': ' + x.title));
			[['seen', x.seen], ['threshold', x.threshold], ['why', x.why], ['try', x['try']]]
				.forEach(function (kv) {
					var p = el('p', {});
					p.appendChild(el('b', {}, kv[0] + ': '));
					p.appendChild(document.createTextNode(kv[1]));
					d.appendChild(p);
				});
			box.appendChild(d);
		});
		var not = F.rules.filter(function (r) { return !r.applied; });
		if (not.length) {
			var ul = el('ul', { 'class': 'hint' });
			not.forEach(function (r) { ul.appendChild(el('li', {}, r.id + ': not applied: ' + r.why_not)); });
			box.appendChild(ul);
		}
	}

	function run(step) {
		try { step(); } catch (e) { fail(step.name + ': ' + e.message); }
	}
	document.getElementById('details').textContent = 'Click a slice of the timeline for its details.';
	run(summary);
	run(findings);
	run(health);
	run(timeline);
	run(opTable);
	run(groupings);
	run(memory);
	run(phasesFromAddress);
	document.body.setAttribute('data-rendered', 'yes');
	if (!errors.length) document.body.setAttribute('data-js-errors', '0');
})();
