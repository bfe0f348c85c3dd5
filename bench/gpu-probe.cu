/*
 * gpu-probe: the CUPTI client on a real NVIDIA GPU, without GGML (part of
 * bench/gpu-check.sh, which builds it with nvcc).
 *
 * It traces itself with GGML_VIZ_GPU_KERNELS=start, names a backend
 * "CUDA0" as the adapters do, and runs GPU "runs" as GGML's scheduler
 * does (ggmlviz_nodes_ask for a few nodes, the work launched, a sync, the
 * run's end): direct launches, a CUDA graph captured once and launched in
 * each run (its kernels share one correlation id), and a device-to-device
 * copy and a set. CUPTI's records are written as delivered to a raw log
 * (GGML_VIZ_CUPTI_LOG). Then it reads the trace back and says, on one
 * line each, what gpu-check.sh tabulates:
 *   direct   N kernels of N launches, tied T (each to the run that launched it)
 *   graph    N kernels of G graph launches, tied T, correlation ids G
 *   copies   N memory copies and sets, tied T
 *   times    E of N kernels last in the trace what CUPTI's records say, to the ns
 *   note     the trace's last META GPU
 * Exit status 0 only if every kernel is there, tied, and exact.
 *
 *     gpu-probe TRACE RAWLOG
 *
 * SPDX-License-Identifier: MIT
 */
#include <cuda_runtime.h>

#include <inttypes.h>
#include <map>
#include <set>
#include <string>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>

#include <ggmlviz/nodes.h>
#include <ggmlviz/reader.h>
#include <ggmlviz/tracer.h>

#define RUNS 50

#define GPU_BENCH_NAME "gpu-probe"
#include "gpu-bench.cuh"

static char cuda0; /* its address names the backend */
static const char *const node_names[] = { "probe-0", "probe-1", "probe-2" };

static void describe(void *user, const void *const *nodes, size_t n, size_t i,
		     struct ggmlviz_node_desc *out)
{
	(void)user, (void)n;
	out->op_type = 1;
	out->op_name = "PROBE";
	out->name = (const char *)nodes[i];
	out->ticks = 1; /* computes: no tick comes, so the run is a GPU run */
	out->size = 4;
	out->ne[0] = out->ne[1] = out->ne[2] = out->ne[3] = 1;
}

static void ask_nodes(void)
{
	for (int i = 0; i < 3; i++)
		ggmlviz_nodes_ask(node_names[i], &cuda0, describe, NULL);
}

struct kernel {
	uint32_t corr;
	uint64_t start, dur, run;
	std::string name;
};

static std::vector<kernel> read_trace(const char *path, std::set<uint64_t> *runs,
				      std::string *note)
{
	std::vector<kernel> ks;
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;

	if (ggmlviz_reader_open(path, &r) < 0)
		return ks;
	while (ggmlviz_reader_next(r, &ev) == 1) {
		if (ev.type == GGMLVIZ_EVENT_SPLIT_BEGIN && ev.data.split.run_id)
			runs->insert(ev.data.split.run_id);
		if (ev.type == GGMLVIZ_EVENT_META && ev.data.meta.kind == GGMLVIZ_META_GPU)
			note->assign(ev.label ? ev.label : "", ev.label ? ev.label_len : 0);
		if (ev.type == GGMLVIZ_EVENT_KERNEL)
			ks.push_back({ ev.data.kernel.correlation, ev.timestamp_ns,
				       ev.data.kernel.duration_ns, ev.data.kernel.run_id,
				       std::string(ev.label ? ev.label : "", ev.label ? ev.label_len : 0) });
	}
	ggmlviz_reader_close(r);
	return ks;
}

/* CUPTI's kernels, copies and sets as delivered (K and C lines; E lines are
 * its correlation records): correlation -> (start, end) in order. */
static std::multimap<uint32_t, std::pair<uint64_t, uint64_t> > read_raw(const char *path)
{
	std::multimap<uint32_t, std::pair<uint64_t, uint64_t> > raw;
	FILE *f = fopen(path, "r");
	char what;
	unsigned corr, stream, device;
	unsigned long long start, end;
	char line[4352], name[4096];

	while (f && fgets(line, sizeof line, f))
		if (sscanf(line, "%c %u %llu %llu %u %u %4095[^\n]", &what, &corr, &start, &end,
			   &stream, &device, name) == 7 && (what == 'K' || what == 'C') && start &&
		    end >= start)
			raw.insert({ corr, { start, end } });
	if (f)
		fclose(f);
	return raw;
}

int main(int argc, char **argv)
{
	struct ggmlviz_config cfg;
	cudaStream_t stream;
	cudaGraph_t graph;
	cudaGraphExec_t exec;
	float *buf;
	int clock_khz = 0;

	if (argc != 3) {
		fprintf(stderr, "usage: gpu-probe TRACE RAWLOG\n");
		return 2;
	}
	setenv("GGML_VIZ_CUPTI_LOG", argv[2], 1);
	CHECK(cudaSetDevice(0));
	CHECK(cudaDeviceGetAttribute(&clock_khz, cudaDevAttrClockRate, 0));
	CHECK(cudaStreamCreate(&stream));
	CHECK(cudaMalloc(&buf, 1 << 20));
	ggmlviz_config_init(&cfg);
	ggmlviz_config_from_env(&cfg);
	cfg.output = argv[1];
	cfg.gpu_kernels = GGMLVIZ_GPU_KERNELS_CUDA;
	if (ggmlviz_start(&cfg) < 0)
		return 2;
	ggmlviz_meta_once(GGMLVIZ_META_BACKEND_NAME, (uint64_t)(uintptr_t)&cuda0, "CUDA0");

	/* a graph of three spins of about 5, 10 and 20 us, captured outside any run */
	long long us = clock_khz / 1000; /* cycles per microsecond */
	CHECK(cudaStreamBeginCapture(stream, cudaStreamCaptureModeGlobal));
	spin<<<1, 32, 0, stream>>>(5 * us, buf);
	spin<<<1, 32, 0, stream>>>(10 * us, buf);
	spin<<<1, 32, 0, stream>>>(20 * us, buf);
	CHECK(cudaStreamEndCapture(stream, &graph));
	CHECK(cudaGraphInstantiate(&exec, graph, 0));

	for (int i = 0; i < RUNS; i++) {
		ask_nodes();
		if (i % 2) {
			CHECK(cudaGraphLaunch(exec, stream));
		} else {
			spin<<<1, 32, 0, stream>>>(3 * us, buf);
			spin<<<2, 64, 0, stream>>>(7 * us, buf);
			spin<<<4, 32, 0, stream>>>(1 * us, buf);
		}
		CHECK(cudaMemcpyAsync(buf + 1024, buf, 4096, cudaMemcpyDeviceToDevice, stream));
		CHECK(cudaMemsetAsync(buf + 4096, 0, 4096, stream));
		CHECK(cudaStreamSynchronize(stream));
		ggmlviz_nodes_flush();
	}
	ggmlviz_stop();

	std::set<uint64_t> runs;
	std::string note;
	std::vector<kernel> ks = read_trace(argv[1], &runs, &note);
	auto raw = read_raw(argv[2]);
	size_t direct = 0, direct_tied = 0, graphk = 0, graph_tied = 0, copies = 0, copies_tied = 0;
	size_t exact = 0, compared = 0;
	std::set<uint32_t> graph_corr;
	std::map<uint32_t, size_t> per_corr, seen;

	for (const kernel &k : ks)
		per_corr[k.corr] += k.name[0] != '[';
	for (const kernel &k : ks) {
		int tied = k.run && runs.count(k.run);
		auto range = raw.equal_range(k.corr);
		size_t nth = seen[k.corr]++, j = 0;

		for (auto it = range.first; it != range.second; ++it, ++j) /* in delivery order */
			if (j == nth) {
				compared++;
				exact += it->second.second - it->second.first == k.dur;
			}
		if (k.name[0] == '[')
			copies++, copies_tied += tied;
		else if (per_corr[k.corr] > 1) /* a graph launch: its kernels share its id */
			graphk++, graph_tied += tied, graph_corr.insert(k.corr);
		else
			direct++, direct_tied += tied;
	}
	printf("direct   %zu kernels of %d launches, tied %zu\n", direct, RUNS / 2 * 3, direct_tied);
	printf("graph    %zu kernels of %d graph launches, tied %zu, correlation ids %zu\n", graphk,
	       RUNS / 2, graph_tied, graph_corr.size());
	printf("copies   %zu memory copies and sets of %d, tied %zu\n", copies, RUNS * 2, copies_tied);
	printf("times    %zu of %zu kernels last in the trace what CUPTI's records say, to the ns\n",
	       exact, compared);
	printf("note     %s\n", note.c_str());
	return direct == RUNS / 2 * 3 && direct_tied == direct && graphk == RUNS / 2 * 3 &&
			       graph_tied == graphk && graph_corr.size() == RUNS / 2 &&
			       copies == RUNS * 2 && copies_tied == copies && exact == ks.size() &&
			       compared == ks.size()
		       ? 0
		       : 1;
}
