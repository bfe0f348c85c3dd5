/*
 * libggmlviz: recording GGMLVIZ traces in-process.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_TRACER_H
#define GGMLVIZ_TRACER_H

#include <stddef.h>
#include <stdint.h>
#include <ggmlviz/format.h>

#ifdef __cplusplus
extern "C" {
#endif

GGMLVIZ__PUBLIC_BEGIN

/**
 * @file tracer.h
 * @brief Start, stop and emit events into a GGMLVIZ v1 trace file.
 *
 * Every thread that emits gets its own lock-free single-producer ring on
 * its first event; one writer thread drains all rings into the file. After
 * a thread's first event, an emit call takes no lock, makes no system call,
 * allocates nothing and never blocks (unless the caller chose
 * GGMLVIZ_OVERFLOW_BLOCK). When tracing is not active, each emit macro
 * costs one load and one predictable branch at the call site.
 *
 * @code
 * struct ggmlviz_config cfg;
 * ggmlviz_config_init(&cfg);
 * cfg.output = "run-%p.ggmlviz";
 * if (ggmlviz_start(&cfg) < 0) ...;
 * ggmlviz_op_begin(t, op, bytes, NULL, "Qcur-0");
 * ...
 * ggmlviz_op_end(t, op, bytes, NULL, "Qcur-0");
 * ggmlviz_stop();
 * @endcode
 */

/** @cond GGMLVIZ_INTERNAL */
/*
 * The tracer records addresses, it never reads through them: tell GCC, or
 * it warns "may be used uninitialized" when a program passes the address of
 * memory it has just allocated (GCC 10 and later).
 */
#if defined(__GNUC__) && !defined(__clang__) && __GNUC__ >= 10
#define GGMLVIZ__ADDRESS_ONLY(...) __attribute__((__VA_ARGS__))
#define GGMLVIZ__NONE(n) access(none, n)
#else
#define GGMLVIZ__ADDRESS_ONLY(...)
#define GGMLVIZ__NONE(n)
#endif
/** @endcond */

/** @brief What a full ring does with a new event. */
enum ggmlviz_overflow {
	/** Drop the event and count it (the default: never slow the application). */
	GGMLVIZ_OVERFLOW_DROP = 0,
	/** Wait for the writer to make room: lossless, but the emitting thread may block. */
	GGMLVIZ_OVERFLOW_BLOCK = 1
};

/** @brief How ops are timed (ggmlviz_config::op_timing, GGML_VIZ_OP_TIMING). */
enum ggmlviz_op_timing {
	/** No op begin/end records (steps, splits and graphs still are). */
	GGMLVIZ_OP_TIMING_OFF = 0,
	/**
	 * Time every op without changing the run, as each backend allows (the
	 * default): on GGML's CPU backend each node from the backend's own
	 * call after it (GGMLVIZ_OP_METHOD_TICK), or, in a GGML built with
	 * libggmlviz's edit (scripts/build-llama-tools.sh), from every worker
	 * thread's measured share of it (GGMLVIZ_OP_METHOD_MEASURED; not with
	 * cpu_shares_off); on CUDA each node by the GPU kernels it launched,
	 * where CUPTI loads (GGMLVIZ_OP_METHOD_GPU; not with gpu_kernels off);
	 * on Vulkan, in the tools scripts/build-llama-tools.sh --vulkan builds,
	 * each node by the backend's timestamps (ggmlviz_nodes_gpu_time(),
	 * GGMLVIZ_OP_METHOD_GPU); on other backends each run of nodes (a
	 * split) as a whole.
	 */
	GGMLVIZ_OP_TIMING_AUTO = 1,
	/**
	 * Time every op on any backend by computing it on its own and
	 * synchronizing after it (GGMLVIZ_OP_METHOD_SYNC): exact per node, but
	 * the run is slower, much slower with many CPU threads or on a GPU.
	 */
	GGMLVIZ_OP_TIMING_SYNC = 2
};

/** @brief When GPU kernels are recorded (ggmlviz_config::gpu_kernels, GGML_VIZ_GPU_KERNELS). */
enum ggmlviz_gpu_kernels {
	/** Never. */
	GGMLVIZ_GPU_KERNELS_OFF = 0,
	/**
	 * From the first split a CUDA backend runs (the first time the
	 * adapter names a backend "CUDA..."): NVIDIA's CUPTI is loaded then,
	 * on the thread that runs it, and never in a program that runs none.
	 * The default.
	 */
	GGMLVIZ_GPU_KERNELS_CUDA = 1,
	/**
	 * From ggmlviz_start(), which loads CUPTI: for CUDA work that no GGML
	 * backend names (a program's own kernels).
	 */
	GGMLVIZ_GPU_KERNELS_AT_START = 2
};

/** @brief Severity of a message passed to a ggmlviz_log_fn. */
enum ggmlviz_log_level {
	GGMLVIZ_LOG_ERROR = 0, /**< recording could not start, or a write failed */
	GGMLVIZ_LOG_WARN = 1,  /**< a bad setting was replaced by its default */
	GGMLVIZ_LOG_INFO = 2   /**< what the tracer is doing (verbose) */
};

/**
 * @brief Receives the tracer's messages.
 *
 * @param user the config's log_user, passed back as it was.
 * @param level a value of enum ggmlviz_log_level.
 * @param msg one line without a trailing newline (borrowed, valid during
 *        the call only).
 */
typedef void (*ggmlviz_log_fn)(void *user, int level, const char *msg);

/**
 * @brief Tracing settings, as libggmlviz 0.2 has them. Fill it with
 * ggmlviz_config_init() first, then change the members you care about.
 *
 * This struct never changes again: its 136 bytes and every member's offset
 * are those of 0.2, so that a program built against 0.2 runs against any
 * later libggmlviz. Settings added since have no member here: they are set
 * by name, with ggmlviz_setting_set(), and by their GGML_VIZ_* variables
 * (doc/api.md, "Settings"). Every member below is also a setting of that
 * name (its variable's, lower case, without GGML_VIZ_); a config given to
 * ggmlviz_start() brings its members' values over those.
 */
struct ggmlviz_config {
	/**
	 * Output file path (borrowed: ggmlviz_start() copies it). Every "%p"
	 * becomes the process id, so each process writes its own file.
	 * Default "ggmlviz-%p.ggmlviz". GGML_VIZ_OUTPUT.
	 */
	const char *output;
	/** Stop recording after this many events; 0 = no limit. Default 10000000. GGML_VIZ_MAX_EVENTS. */
	uint64_t max_events;
	/**
	 * Size of each thread's ring in events of 64 bytes (an event with a
	 * label of up to 14 bytes); a power of two from 16 to 16777216.
	 * Default 65536 (4 MiB per thread). GGML_VIZ_BUFFER_SIZE. A ring of
	 * 2 MiB or more is mapped on huge pages where the system gives them
	 * on advice (transparent huge pages).
	 */
	uint32_t buffer_events;
	/** Longest time between two drains of the rings, in ms, 1 to 60000. Default 100. GGML_VIZ_FLUSH_INTERVAL. */
	uint32_t flush_interval_ms;
	/**
	 * How ops are timed: a value of enum ggmlviz_op_timing. Default
	 * GGMLVIZ_OP_TIMING_AUTO. GGML_VIZ_OP_TIMING (0/off, 1/on/auto, sync).
	 */
	int op_timing;
	/** Keep the labels (tensor names) of op events. Default 1. GGML_VIZ_TENSOR_NAMES. */
	int tensor_names;
	/** Record TENSOR_ALLOC/TENSOR_FREE events. Default 0. GGML_VIZ_MEMORY_TRACKING. */
	int memory_tracking;
	/** Record THREAD_BEGIN/THREAD_FREE for each emitting thread. Default 0. GGML_VIZ_THREAD_TRACKING. */
	int thread_tracking;
	/** A value of enum ggmlviz_overflow. Default GGMLVIZ_OVERFLOW_DROP. */
	int overflow;
	/** Print what the tracer does on stderr (or to log_fn). Default 0. GGML_VIZ_VERBOSE. */
	int verbose;
	/** Make ggmlviz_start() a no-op that returns 0. Default 0. GGML_VIZ_DISABLE. */
	int disable;
	/**
	 * Where messages go. NULL: to stderr, where unasked the tracer prints
	 * only warnings (a refused setting; a second copy of the tracer in the
	 * process, refused), and everything else only when verbose. A function gets warnings and errors always, info when
	 * verbose. Default NULL.
	 */
	ggmlviz_log_fn log_fn;
	/** Passed back to log_fn. Default NULL. */
	void *log_user;
	/**
	 * Time the ops of 1 step (or graph) in op_sample, from the first;
	 * steps, splits and graphs are always recorded, and the other steps'
	 * ops timed by GGML's CPU backend are summed by op type (see
	 * op_slow_us). 0 and 1: every one. Default 1. GGML_VIZ_OP_SAMPLE.
	 */
	uint32_t op_sample;
	/**
	 * On a crash (SIGSEGV, SIGBUS, SIGILL, SIGFPE, SIGABRT), save what the
	 * rings hold to the file and end it with a CRASH record, then let the
	 * signal go on as before. Default 1. GGML_VIZ_CRASH_HANDLER.
	 */
	int crash_handler;
	/**
	 * Write addresses (tensors, graphs, backends, allocations, contexts)
	 * as ids: a keyed permutation of 64-bit values, fixed for the session
	 * (the same address always gives the same id, 0 stays 0) and not kept
	 * anywhere, so that a trace can be shared without the program's
	 * memory layout. Default 0. GGML_VIZ_ANONYMIZE.
	 */
	int anonymize;
	/**
	 * The most a busy thread's ring grows to, in events of 64 bytes: the
	 * writer gives a thread that records faster than its ring can hold for
	 * 250 ms a larger ring, made off the emit path, so that a write stalled
	 * by the page cache or a writer kept off its CPU for a while loses
	 * nothing. All rings together grow by at most four times what one may
	 * (by default 240 MiB). A power of two from buffer_events (rings never
	 * grow) to 16777216, or 0: the default, which is 16 times buffer_events
	 * but at most 1048576 (64 MiB) and never less than buffer_events, in
	 * GGMLVIZ_OVERFLOW_DROP mode; and no growth in GGMLVIZ_OVERFLOW_BLOCK
	 * mode, which loses nothing to a stall (the producer waits), and where
	 * larger rings slow a writer that cannot keep up (the bytes it reads
	 * are no longer in the CPU's caches). GGML_VIZ_BUFFER_MAX. (Formerly
	 * reserved_u32, which had to be zero.)
	 */
	uint32_t buffer_events_max;
	/**
	 * Record the kernels a GPU runs (KERNEL records), each timed by the GPU
	 * and tied by readers to the GGML node that launched it, so that ops on
	 * a GPU are timed without synchronizing anything (method
	 * GGMLVIZ_OP_METHOD_GPU), and the memory copies and sets: where NVIDIA's
	 * CUPTI loads (a CUDA program, and a libggmlviz built with CUPTI's
	 * headers). A value of enum ggmlviz_gpu_kernels: by default
	 * GGMLVIZ_GPU_KERNELS_CUDA, from the first CUDA split on. The trace's
	 * META GPU records say whether and how kernels were recorded, or why
	 * not, and at the end what was recorded and left out.
	 * GGML_VIZ_GPU_KERNELS (0/off, 1/on, start).
	 */
	int gpu_kernels;
	/**
	 * KiB of activity buffers CUPTI may fill at once (all devices
	 * together); kernels it cannot buffer are counted as dropped. 0: the
	 * default, 8192 (8 MiB); otherwise 256 to 1048576. GGML_VIZ_GPU_BUFFER.
	 */
	uint32_t gpu_buffer_kib;
	/**
	 * Where libcupti is (borrowed: ggmlviz_start() reads it during the
	 * call), or NULL: libcupti.so.13, .12 and .11 where the dynamic loader
	 * finds them, then under /usr/local/cuda. GGML_VIZ_CUPTI.
	 */
	const char *cupti_path;
	/**
	 * Measure the machine's peak when tracing starts, with this many
	 * threads (those the program computes with): the memory's read
	 * bandwidth and the f32 fused multiply-add rate, in about a quarter of
	 * a second, before ggmlviz_start() returns, recorded in a META PEAK
	 * record; readers then say of each op group whether memory or
	 * arithmetic bounds it, and how close to the peak it came (ggmlviz
	 * stats). Measured once a process for a thread count. 0 (the default):
	 * not measured; at most 1024. GGML_VIZ_PEAK.
	 */
	uint32_t peak_threads;
	/**
	 * Nonzero: a GGML built with libggmlviz's edit does not measure its
	 * worker threads' shares (ggmlviz_cpu_share_begin(3)); its ops are
	 * then timed by the ticks, as with any GGML, and the trace is smaller
	 * (no OP_SHARE records: one per worker thread and node). 0 (the
	 * default): measured. GGML_VIZ_CPU_SHARES=0 sets it. (Formerly
	 * reserved32, which had to be zero.)
	 */
	uint32_t cpu_shares_off;
	/**
	 * With op_sample above 1, a step whose ops are not timed one by one
	 * still has them summed by op type (OP_SUMMARY records: count, total
	 * and longest time per op type and backend), so that every step's
	 * time is accounted for; and a step that took this many microseconds
	 * or more keeps its ops one by one, sampled or not (the slow tokens
	 * of a long server run are the ones worth seeing). 0 (the default):
	 * no step is kept for its time. Setting it turns summaries on even
	 * with op_sample 1 (where every step is kept anyway); to keep only
	 * the slow steps, give op_sample a large value. Not in
	 * GGMLVIZ_OP_TIMING_SYNC mode, which times the sampled steps only.
	 * GGML_VIZ_OP_SLOW. (Formerly reserved[0], which had to be zero.)
	 */
	uint64_t op_slow_us;
	/**
	 * Nonzero: every op timed is written with its descriptions (OP_INFO,
	 * OP_BYTES, OP_NODE), for a reader that does not know DESC_SET
	 * records. 0 (the default): a graph that GGML runs again (a
	 * llama.cpp step after the first) has its ops described at its first
	 * run only, each later run saying so in a DESC_SET record, and the
	 * reader gives every op its descriptions from there (ggmlviz(5));
	 * the trace is about 40% smaller, and recording a token costs less.
	 * GGML_VIZ_DESCRIBE_ONCE=0 sets it. (Formerly the first half of
	 * reserved[0], which had to be zero.)
	 */
	uint32_t describe_every;
	/**
	 * GPU kernels recorded in sampled windows: gpu_sample_k consecutive
	 * steps (ggmlviz_step_begin(); a program that marks none: runs of
	 * nodes) out of every gpu_sample_n. Between windows CUPTI is
	 * detached (no activity kind enabled, unsubscribed, cuptiFinalize()),
	 * so that the steps between carry no profiler cost; it attaches again
	 * on the tracer's own thread before the next window, whose first step
	 * is CUPTI's warm-up and is not counted as sampled. Every step keeps
	 * its step and run times; the ops timed by kernels are those of the
	 * sampled steps, which readers say (ggmlviz_timing::gpu_window). A
	 * CUPTI that will not detach is kept attached with its kinds off
	 * between windows, and one that will not attach again is said in the
	 * trace (META GPU). 0 and 0, or equal: every step's kernels (the
	 * default). Otherwise 1 <= gpu_sample_k < gpu_sample_n.
	 * GGML_VIZ_GPU_SAMPLE=K/N. (Formerly reserved2_u32, which had to be
	 * zero.)
	 */
	uint16_t gpu_sample_k;
	uint16_t gpu_sample_n; /**< see gpu_sample_k */
	/**
	 * NVTX ranges for Nsight Systems and other NVTX tools, in the domain
	 * "libggmlviz": 1, a range for each step (named by its label, tokens
	 * and phase: "decode 1 token (generation)"), each graph and each run
	 * of nodes (named by its backend: "CPU", "CUDA0"), so that a timeline
	 * shows which token and which split each kernel belongs to; 2, those
	 * and a range for each op where the tracer sees it run ("MUL_MAT
	 * Qcur-3", its layer as the payload), inside a range for its layer
	 * ("layer 3"): op by op on GGML's CPU backend, and on any backend in
	 * GGMLVIZ_OP_TIMING_SYNC mode, where each op's kernels are launched
	 * inside its range. Only when a tool is attached (NVTX_INJECTION64_PATH,
	 * which `nsys profile` sets): otherwise nothing is called, and ranges
	 * cost nothing. Through NVTX3's header-only API: nothing is linked,
	 * and a libggmlviz built without NVTX's headers warns and traces on.
	 * 0 (the default): none. GGML_VIZ_NVTX. (Formerly the first half of
	 * reserved[0], which had to be zero.)
	 */
	uint32_t nvtx;
	/**
	 * Reserved, for ever: ggmlviz_config_init() zeroes it, and
	 * ggmlviz_start() refuses a config where it is not zero (-EINVAL).
	 * Settings added since 0.2 are set by name (ggmlviz_setting_set()).
	 */
	uint32_t reserved3_u32;
};

/**
 * @brief Counters of the current (or last) tracing session.
 *
 * emitted == written + dropped + queued at every moment, and queued is 0
 * once ggmlviz_stop() has returned. Records the tracer adds on its own
 * (PROCESS, CLOCK, USAGE, GPU, THREAD_NAME, DROPPED and TRACE_END metadata)
 * are not events and are counted in meta_written only.
 */
struct ggmlviz_stats {
	uint64_t emitted;          /**< events accepted by emit calls while tracing */
	uint64_t written;          /**< events written to the file */
	uint64_t dropped;          /**< events lost: full ring, past max_events, or a failed write */
	uint64_t queued;           /**< events in rings, not yet written */
	uint64_t meta_written;     /**< metadata records the tracer added itself */
	uint64_t bytes_written;    /**< bytes of the file, header included */
	uint64_t labels_truncated; /**< labels cut to GGMLVIZ_LABEL_MAX bytes */
	uint32_t threads;          /**< threads that emitted in this session */
	int32_t error;             /**< 0, or the negative errno of the last write that failed (e.g. -ENOSPC) */
	/**
	 * Runs of nodes whose per-node ticks did not match their nodes: they
	 * got a split timing only (see <ggmlviz/nodes.h>).
	 */
	uint64_t timing_mismatches;
	/**
	 * Bytes of memory the rings take now (every thread's buffer, with a
	 * larger one being made; after ggmlviz_stop(), as they were at the
	 * stop, which then gives them back).
	 */
	uint64_t ring_bytes;
	uint64_t ring_bytes_peak;  /**< the most ring_bytes was in this session */
	/**
	 * Shares of nodes that a GGML built with libggmlviz's edit measured
	 * (ggmlviz_cpu_share_begin(3)) and that no op got: the node was in no
	 * run asked about on the graph's thread, or past the 16384 nodes of a
	 * graph or the 1024 threads of a pool followed. Counted, never
	 * attributed by guess; since the process started (each session's
	 * own count is in its trace: the META SHARES record at its stop).
	 */
	uint64_t shares_unattributed;
	/**
	 * Passes of the writer thread that drained the rings (it wakes for
	 * each, every flush interval or when a ring fills a quarter).
	 * (Formerly reserved[0], which was zero.)
	 */
	uint64_t writer_passes;
	/**
	 * CPU time the writer thread took in the session, in ns, as of its
	 * last pass: what writing the trace costs the machine, beside the
	 * traced threads' own calls. (Formerly reserved[1], which was zero.)
	 */
	uint64_t writer_cpu_ns;
	uint64_t reserved[2];      /**< room to grow; zero */
};

/**
 * @brief Fills @p cfg with the defaults (no environment variable is read).
 *
 * @param cfg the config to fill; must not be NULL.
 */
void ggmlviz_config_init(struct ggmlviz_config *cfg);

/**
 * @brief Overrides @p cfg with the GGML_VIZ_* environment variables that are set.
 *
 * Reads GGML_VIZ_OUTPUT, GGML_VIZ_DISABLE, GGML_VIZ_VERBOSE,
 * GGML_VIZ_MAX_EVENTS, GGML_VIZ_BUFFER_SIZE, GGML_VIZ_BUFFER_MAX,
 * GGML_VIZ_FLUSH_INTERVAL, GGML_VIZ_OP_TIMING (a boolean, auto or sync),
 * GGML_VIZ_OP_SAMPLE, GGML_VIZ_OP_SLOW, GGML_VIZ_MEMORY_TRACKING, GGML_VIZ_THREAD_TRACKING,
 * GGML_VIZ_TENSOR_NAMES, GGML_VIZ_CRASH_HANDLER, GGML_VIZ_ANONYMIZE,
 * GGML_VIZ_GPU_KERNELS, GGML_VIZ_GPU_SAMPLE, GGML_VIZ_GPU_BUFFER, GGML_VIZ_CUPTI, GGML_VIZ_PEAK,
 * GGML_VIZ_CPU_SHARES, GGML_VIZ_DESCRIBE_ONCE, GGML_VIZ_NVTX (0, 1 or 2)
 * and GGML_VIZ_OVERFLOW (drop or block; each described at its member of
 * struct ggmlviz_config), and those of the settings added since 0.2, which
 * have no member (GGML_VIZ_ROTATE=SIZE[:KEEP]: the trace in segments of
 * SIZE bytes at most, the newest KEEP kept; GGML_VIZ_PRESET=server: a
 * llama-server traced all day, read before the other variables, which
 * override what it sets; GGML_VIZ_FLIGHT=SECONDS[:KEEP[:MEMORY]]: a flight
 * recorder, every op of the last SECONDS in memory for snapshots;
 * GGML_VIZ_FLIGHT_ON=ttft:MS,token:MS: a snapshot when a request is that
 * slow; GGML_VIZ_PACK=1: the file's records packed; GGML_VIZ_OP_WINDOW=
 * SECONDS: the summed steps' op sums summed again over windows;
 * ggmlviz_config_init(3)):
 * they are set in the tracer's own settings, as
 * ggmlviz_setting_set() sets them (refused while tracing is active). Three more are
 * read by the session, not here, when it loads CUPTI, as debugging and
 * measuring aids: GGML_VIZ_CUPTI_LOG=FILE writes every kernel, copy, set
 * and correlation record as CUPTI delivered it, GGML_VIZ_CUPTI_API
 * (narrowed, the default; calls; whole) says how the launch calls' API
 * records are asked for, and GGML_VIZ_CUPTI_GRAPHS=1 records a CUDA graph
 * launch as one record instead of its kernels.
 * Booleans accept 0/1, true/false, yes/no, on/off. A variable with a bad value leaves its member unchanged and
 * gets a warning naming the variable, the value and the value kept.
 * The output string is borrowed from the environment.
 *
 * @param cfg the config to update (already initialized); must not be NULL.
 * @return 0 when every variable set was valid; -EINVAL when at least one
 *         was not (the others are still applied), or set a setting added
 *         since 0.2 while tracing is active; -ENOMEM when the copy of such
 *         a setting's text could not be made.
 */
int ggmlviz_config_from_env(struct ggmlviz_config *cfg);

/**
 * @brief Sets one of the tracer's settings by name, as text.
 *
 * Every setting has a name and a variable: the name is the variable's,
 * lower case, without GGML_VIZ_ ("buffer_size" is GGML_VIZ_BUFFER_SIZE),
 * and either may be given. The value is text as the variable takes it
 * (doc/environment.md; ggmlviz_config_init(3)). The tracer keeps one set
 * of settings a process: ggmlviz_start(NULL) begins from them (with the
 * environment over them), and ggmlviz_start() with a config from them with
 * the config's members over them; so with a config, set the settings it
 * has members for in the config. Settings added after 0.2 have no member,
 * and are set here (or by their variables). Safe from any thread; a
 * session started takes the values it began with, and they cannot change
 * while it runs.
 *
 * @param name the setting's name or its variable's.
 * @param value its value as text (copied), or NULL: its default.
 * @return 0 when set; #GGMLVIZ_ESETTING when no setting has that name;
 *         #GGMLVIZ_EACTIVE while tracing is active (between a successful
 *         ggmlviz_start() and ggmlviz_stop(): stop first);
 *         #GGMLVIZ_EVALUE when the value is not one the setting takes
 *         (out of its range, or not of its form; the setting keeps its
 *         value); -ENOMEM when a text value could not be copied.
 */
int ggmlviz_setting_set(const char *name, const char *value);

/**
 * @brief Sets one of the tracer's settings by name, as a number.
 *
 * As ggmlviz_setting_set(), for a setting whose value is a number, a
 * boolean (0 or 1) or a choice (the value of its enum: op_timing takes
 * the values of enum ggmlviz_op_timing). A setting whose value is text
 * (output, cupti) or a ratio (gpu_sample) takes text only.
 *
 * @param name the setting's name or its variable's.
 * @param value its value.
 * @return 0 when set; #GGMLVIZ_ESETTING when no setting has that name;
 *         #GGMLVIZ_ETYPE when its value is not a number;
 *         #GGMLVIZ_EACTIVE while tracing is active; #GGMLVIZ_EVALUE when
 *         the number is out of the setting's range (the setting keeps its
 *         value).
 */
int ggmlviz_setting_set_int(const char *name, int64_t value);

/**
 * @brief Writes one of the tracer's settings as text, as
 * ggmlviz_setting_set() takes it back.
 *
 * The value is the tracer's, as ggmlviz_setting_set() left it (its
 * default if nothing set it), not a config's nor the environment's. An
 * unset text or ratio (cupti, gpu_sample: their defaults) is "".
 *
 * @param name the setting's name or its variable's.
 * @param buf where the text goes, always ended with a 0 byte when @p size
 *        is not 0 (cut to fit); may be NULL when @p size is 0.
 * @param size the bytes at @p buf.
 * @return the length of the whole text (as snprintf() returns it: the
 *         text was cut when it is @p size or more); #GGMLVIZ_ESETTING
 *         when no setting has that name.
 */
int ggmlviz_setting_get(const char *name, char *buf, size_t size);

/**
 * @brief Names the settings, one at a time.
 *
 * Settings are never removed nor renamed, and a later libggmlviz adds new
 * ones at the end: index 0, 1, ... until NULL names every setting this
 * library has.
 *
 * @param index from 0.
 * @return the setting's name (static), or NULL past the last.
 */
const char *ggmlviz_setting_name(size_t index);

/**
 * @brief Starts tracing into a new file.
 *
 * Makes a new file that takes the output's name (an existing file of that
 * name is replaced, never truncated under a program reading it; a link to
 * a file there is replaced, not followed; /dev/stdout and /dev/fd/N are
 * written through, a file the shell redirected them to appended to; a
 * character device is written as it is, a FIFO once a reader opens it,
 * waited for 2 s at most; a directory, a block device, a socket, a link to
 * nothing or a loop of links is refused), writes the header, a PROCESS and
 * a CLOCK record, and starts the writer thread. No SIGPIPE or SIGXFSZ of a
 * write of the trace ends the program: the write fails with -EPIPE or
 * -EFBIG (ggmlviz_start(3), "Pipes and file size limits"). With crash_handler (the default) it also installs handlers for
 * SIGSEGV, SIGBUS, SIGILL, SIGFPE and SIGABRT that save the rings and end
 * the file with a CRASH record before the program's own action runs. The
 * first call also registers an atexit() handler, so a program that never
 * calls ggmlviz_stop() still gets a complete file, and a fork handler, so
 * a child process never writes into its parent's file (tracing is off in
 * the child until it calls ggmlviz_start() itself).
 *
 * @param cfg the settings (copied; borrowed during the call), or NULL for
 *        the defaults overridden by the environment.
 * A session whose recording ended on its own (max_events reached) is first
 * closed as by ggmlviz_stop().
 *
 * @return 0 on success (also when cfg->disable is set: nothing starts);
 *         -EALREADY if tracing is already active; -EBUSY if another copy
 *         of libggmlviz in this process (a shared object that linked the
 *         archive too) has started tracing (a warning names both copies'
 *         objects: one tracer per process); -EINVAL if a setting is
 *         out of range or the reserved room is not zero, or the output is
 *         a block device (never written over); -EISDIR if the
 *         output is a directory; -ENXIO if it is a FIFO no process opened
 *         for reading within 2 s, or a socket; -ELOOP (a loop of links);
 *         -ENOMEM; or the negative errno of opening or writing the file
 *         (-ENOENT, also a link to nothing; -EACCES, -ENOSPC, -EFBIG,
 *         -EPIPE, ...) or of starting the writer thread (-EAGAIN).
 */
int ggmlviz_start(const struct ggmlviz_config *cfg);

/**
 * @brief Stops tracing: drains every thread's ring, writes TRACE_END, closes the file.
 *
 * Safe to call while other threads are emitting: each event either reaches
 * the file or is counted as dropped. Puts back the signal actions the
 * crash handler replaced. Tracing can be started again afterwards.
 *
 * @return 0 on success or when tracing was not active; the negative errno
 *         of the last write that failed during the session (-ENOSPC, -EIO:
 *         the file then holds every whole record that fit, and ends with
 *         DROPPED and TRACE_END records counting what was lost, when there
 *         was room for them).
 */
int ggmlviz_stop(void);

/**
 * @brief Tells whether events are being recorded.
 *
 * @return 1 between a successful ggmlviz_start() and ggmlviz_stop() while
 *         recording goes on; 0 otherwise, also as soon as max_events is
 *         reached (emit calls are then still counted, as dropped). A failed
 *         write does not end recording: writing is tried again at each pass.
 */
int ggmlviz_is_active(void);

/**
 * @brief Identifies the tracing session, so that code recording one-time
 * records (names of ops, backends) knows when a new file has begun.
 *
 * @return 0 before the first successful ggmlviz_start(); afterwards the
 *         number of that start (1, 2, ...), which stays after
 *         ggmlviz_stop() until the next start.
 */
uint64_t ggmlviz_session(void);

/**
 * @brief Copies the counters of the current, or last, session.
 *
 * @param out filled in; must not be NULL. All zero before the first start.
 */
void ggmlviz_get_stats(struct ggmlviz_stats *out);

/**
 * @brief Records GRAPH_COMPUTE_BEGIN: a graph computation starts.
 *
 * @param graph identifies the graph (stored as an address, never read).
 * @param n_nodes the number of nodes of the graph.
 * @param n_threads the number of threads computing it.
 * @param backend the backend computing it, or NULL for CPU / unknown.
 */
void ggmlviz_graph_begin(const void *graph, uint32_t n_nodes, uint32_t n_threads,
			 const void *backend) GGMLVIZ__ADDRESS_ONLY(GGMLVIZ__NONE(1), GGMLVIZ__NONE(4));

/**
 * @brief Records GRAPH_COMPUTE_END: the graph computation begun with the
 * same @p graph on this thread ends. Same parameters as ggmlviz_graph_begin().
 *
 * @param graph as given to ggmlviz_graph_begin().
 * @param n_nodes the number of nodes of the graph.
 * @param n_threads the number of threads computing it.
 * @param backend the backend computing it, or NULL.
 */
void ggmlviz_graph_end(const void *graph, uint32_t n_nodes, uint32_t n_threads,
		       const void *backend) GGMLVIZ__ADDRESS_ONLY(GGMLVIZ__NONE(1), GGMLVIZ__NONE(4));

/**
 * @brief Records OP_COMPUTE_BEGIN: one node starts computing.
 *
 * Recorded only when op_timing is on.
 *
 * @param tensor the node's output tensor (stored as an address, never read).
 * @param op_type the producer's `enum ggml_op` value.
 * @param op_size the size of the output in bytes.
 * @param backend the backend computing it, or NULL for CPU / unknown.
 * @param label the tensor name, or NULL (copied before the call returns;
 *        dropped when tensor_names is off; cut to GGMLVIZ_LABEL_MAX bytes).
 */
void ggmlviz_op_begin(const void *tensor, uint32_t op_type, uint64_t op_size,
		      const void *backend, const char *label)
	GGMLVIZ__ADDRESS_ONLY(GGMLVIZ__NONE(1), GGMLVIZ__NONE(4));

/**
 * @brief Records OP_COMPUTE_END: the node begun with the same @p tensor on
 * this thread ends. Same parameters as ggmlviz_op_begin().
 *
 * @param tensor as given to ggmlviz_op_begin().
 * @param op_type the producer's `enum ggml_op` value.
 * @param op_size the size of the output in bytes.
 * @param backend the backend, or NULL.
 * @param label the tensor name, or NULL (copied).
 */
void ggmlviz_op_end(const void *tensor, uint32_t op_type, uint64_t op_size,
		    const void *backend, const char *label)
	GGMLVIZ__ADDRESS_ONLY(GGMLVIZ__NONE(1), GGMLVIZ__NONE(4));

/**
 * @brief Records OP_NODE: an op's layer, how it is timed, and its sources.
 *
 * Emit it between the op's begin and end on the same thread; readers
 * attach it to that op. Recorded only when op_timing is on.
 *
 * @param tensor the node's output tensor, as given to ggmlviz_op_begin().
 * @param layer the model layer it belongs to, -1 for none.
 * @param method a value of enum ggmlviz_op_method.
 * @param flags enum ggmlviz_node_flag bits.
 * @param src0 its first source (a view: what it views), or NULL.
 * @param src1 its second source, or NULL.
 */
void ggmlviz_op_node(const void *tensor, int32_t layer, uint8_t method, uint8_t flags,
		     const void *src0, const void *src1)
	GGMLVIZ__ADDRESS_ONLY(GGMLVIZ__NONE(1), GGMLVIZ__NONE(5), GGMLVIZ__NONE(6));

/**
 * @brief Records OP_BYTES: the bytes an op reads and writes.
 *
 * Emit it between the op's begin and end on the same thread, as
 * OP_INFO; readers attach it to that op, and give its group GB/s
 * (ggmlviz stats). Recorded only when op_timing is on.
 *
 * @param tensor the node's output tensor, as given to ggmlviz_op_begin().
 * @param bytes_read bytes of its sources it reads (the rows a lookup
 *        takes, not the whole table; see ggmlviz_ggml_bytes()).
 * @param bytes_written bytes of its output it writes.
 */
void ggmlviz_op_bytes(const void *tensor, uint64_t bytes_read, uint64_t bytes_written)
	GGMLVIZ__ADDRESS_ONLY(GGMLVIZ__NONE(1));

/**
 * @brief Records STEP_BEGIN: a step of the application starts on this
 * thread (one llama_decode() call: what it computes for one batch).
 *
 * The ops recorded on this thread until ggmlviz_step_end() belong to the
 * step; readers group them by step and by phase (ggmlviz stats --by step,
 * --by phase). A step is also the unit of op sampling (op_sample).
 *
 * @param ctx what steps (a llama_context; stored as an address, never read).
 * @param n_tokens tokens of the batch.
 * @param n_outputs of those, how many produce an output.
 * @param phase a value of enum ggmlviz_phase.
 * @param label what the step is ("decode"), or NULL (copied).
 */
void ggmlviz_step_begin(const void *ctx, uint32_t n_tokens, uint32_t n_outputs, uint32_t phase,
			const char *label) GGMLVIZ__ADDRESS_ONLY(GGMLVIZ__NONE(1));

/**
 * @brief Records STEP_END: the step begun on this thread with @p ctx ends.
 *
 * @param ctx as given to ggmlviz_step_begin().
 * @param n_tokens tokens of the batch.
 * @param n_outputs of those, how many produced an output.
 * @param phase a value of enum ggmlviz_phase.
 * @param status what the step returned (llama_decode()'s value).
 * @param label as given to ggmlviz_step_begin(), or NULL (copied).
 */
void ggmlviz_step_end(const void *ctx, uint32_t n_tokens, uint32_t n_outputs, uint32_t phase,
		      int32_t status, const char *label) GGMLVIZ__ADDRESS_ONLY(GGMLVIZ__NONE(1));

/**
 * @brief Records STEP_SEQ: a sequence of the batch of the step open on
 * this thread, and how much context it has.
 *
 * Call it after ggmlviz_step_begin(), once per sequence of the batch
 * (llama.cpp's seq_id: a request of llama-server, or sequence 0 of a
 * program that decodes one); readers give the step its sequences, its
 * context length and the context's cells in use (ggmlviz stats --by step,
 * --by sequence). ggmlviz_llama_decode() calls it for you.
 *
 * @param ctx as given to ggmlviz_step_begin().
 * @param seq_id the sequence.
 * @param n_tokens the batch's tokens of this sequence.
 * @param n_outputs of those, how many produce an output.
 * @param context_tokens the sequence's tokens already in the context (the
 *        position of its first token in the batch).
 * @param context_cells the context's cells in use before the step, every
 *        sequence's (the KV cache's tokens), or 0 if unknown.
 */
void ggmlviz_step_seq(const void *ctx, int32_t seq_id, uint32_t n_tokens, uint32_t n_outputs,
		      uint32_t context_tokens, uint32_t context_cells)
	GGMLVIZ__ADDRESS_ONLY(GGMLVIZ__NONE(1));

/**
 * @brief How the calling thread's ops are to be timed now.
 *
 * @return GGMLVIZ_OP_TIMING_OFF when tracing is not active, op timing is
 *         off, or op sampling leaves out the current step (or graph) of
 *         this thread; otherwise the session's op_timing,
 *         GGMLVIZ_OP_TIMING_AUTO or GGMLVIZ_OP_TIMING_SYNC.
 */
int ggmlviz_ops_timing(void);

/**
 * @brief Records a META record the first time its kind and key are seen
 * in this session (the name of an op type, of a backend).
 *
 * Safe from any number of threads; no lock. After 4096 different keys in a
 * session, records are made again each time (harmless: readers keep the
 * last name).
 *
 * @param kind a value of enum ggmlviz_meta_kind (OP_NAME, BACKEND_NAME, ...).
 * @param key what it names (an op type, a backend address).
 * @param label the name (copied), or NULL.
 * @return 1 when the record was made; 0 when this session already has it,
 *         or tracing is not active.
 */
int ggmlviz_meta_once(uint32_t kind, uint64_t key, const char *label);

/**
 * @brief Records TENSOR_ALLOC the first time @p ptr is seen in this session.
 *
 * For memory that a program can see but not watch being allocated (a GGML
 * backend buffer found in a graph). Recorded only when memory_tracking is
 * on; same set rules as ggmlviz_meta_once().
 *
 * @param ptr the allocated address.
 * @param size its size in bytes.
 * @param label what it is, or NULL (copied).
 * @return 1 when the record was made; 0 when this session already has
 *         @p ptr, or memory tracking is not on.
 */
int ggmlviz_tensor_alloc_once(const void *ptr, uint64_t size, const char *label)
	GGMLVIZ__ADDRESS_ONLY(GGMLVIZ__NONE(1));

/**
 * @brief Records TENSOR_FREE for an address ggmlviz_tensor_alloc_once()
 * recorded in this session, which is then new again: its next
 * ggmlviz_tensor_alloc_once() records it.
 *
 * For memory a program frees where the adapters can see it (a llama.cpp
 * context or model, ggmlviz_llama_free()). Safe from any thread; no lock.
 *
 * @param ptr the freed address.
 * @param size its size in bytes, or 0 if unknown.
 * @param label what freed it, or NULL (copied).
 * @return 1 when the record was made (also for an address past the 4096
 *         that ggmlviz_tensor_alloc_once() keeps, which it records every
 *         time); 0 when this session did not record @p ptr, or memory
 *         tracking is not on.
 */
int ggmlviz_tensor_free_once(const void *ptr, uint64_t size, const char *label)
	GGMLVIZ__ADDRESS_ONLY(GGMLVIZ__NONE(1));

/**
 * @brief Records OP_INFO: the shape, element type and work of an op.
 *
 * Emit it between the op's begin and end on the same thread; readers
 * attach it to that op. Recorded only when op_timing is on.
 *
 * @param tensor the node's output tensor, as given to ggmlviz_op_begin().
 * @param ne the four dimensions of the output (each cut to UINT32_MAX on
 *        disk); NULL records zeros.
 * @param flops an estimate of the floating-point operations, 0 if unknown.
 * @param type_name the element type ("f32", "q4_0"), or NULL (copied).
 */
void ggmlviz_op_info(const void *tensor, const int64_t ne[4], uint64_t flops,
		     const char *type_name) GGMLVIZ__ADDRESS_ONLY(GGMLVIZ__NONE(1));

/**
 * @brief Records TENSOR_ALLOC. Recorded only when memory_tracking is on.
 *
 * @param ptr the allocated address.
 * @param size its size in bytes.
 * @param label the tensor or buffer name, or NULL (copied).
 */
void ggmlviz_tensor_alloc(const void *ptr, uint64_t size, const char *label)
	GGMLVIZ__ADDRESS_ONLY(GGMLVIZ__NONE(1));

/**
 * @brief Records TENSOR_FREE. Recorded only when memory_tracking is on.
 *
 * @param ptr the freed address.
 * @param size its size in bytes, or 0 if unknown.
 * @param label a name, or NULL (copied).
 */
void ggmlviz_tensor_free(const void *ptr, uint64_t size, const char *label)
	GGMLVIZ__ADDRESS_ONLY(GGMLVIZ__NONE(1));

/**
 * @brief Records BARRIER_WAIT: this thread waited at a barrier.
 *
 * @param barrier identifies the barrier.
 * @param waited_ns how long the thread waited, 0 if unknown.
 */
void ggmlviz_barrier_wait(const void *barrier, uint64_t waited_ns)
	GGMLVIZ__ADDRESS_ONLY(GGMLVIZ__NONE(1));

/**
 * @brief Records a META THREAD_NAME record naming the calling thread.
 *
 * The tracer already names each thread from its OS name on its first
 * event; call this to give a better one.
 *
 * @param name the thread's name (copied); NULL records nothing.
 */
void ggmlviz_thread_name(const char *name);

/**
 * @brief Records a META record of any kind (OP_NAME, BACKEND_NAME, ...).
 *
 * The kinds the tracer writes itself (PROCESS, DROPPED, TRACE_END, CRASH,
 * GPU, SHARES, CLOCK, GPU_WINDOW, USAGE) are refused: such a call records
 * nothing and counts nothing.
 *
 * @param kind a value of enum ggmlviz_meta_kind.
 * @param key the key (op_type, backend address, thread id, ...).
 * @param value first value, 0 if unused.
 * @param value2 second value, 0 if unused.
 * @param label the string, or NULL (copied).
 */
void ggmlviz_meta(uint32_t kind, uint64_t key, uint64_t value, uint64_t value2,
		  const char *label);

/**
 * @brief Records a MARK: an instant in the application ("token 12").
 *
 * @param name what happened (copied); may be NULL.
 * @param value any number the application attaches to it.
 */
void ggmlviz_mark(const char *name, uint64_t value);

/**
 * @brief Records a COUNTER sample ("kv_cache_used" = 1834).
 *
 * @param name the counter (copied); may be NULL.
 * @param value its value now.
 */
void ggmlviz_counter(const char *name, int64_t value);

/**
 * @brief Records SCOPE_BEGIN: an application phase ("prefill") starts on this thread.
 *
 * @param name the phase (copied); may be NULL.
 * @param value any number the application attaches to it.
 */
void ggmlviz_scope_begin(const char *name, uint64_t value);

/**
 * @brief Records SCOPE_END: the innermost open phase of that name on this thread ends.
 *
 * @param name as given to ggmlviz_scope_begin() (copied); may be NULL.
 * @param value any number the application attaches to it.
 */
void ggmlviz_scope_end(const char *name, uint64_t value);

/**
 * @brief Records REQUEST_BEGIN: a request to a server arrived and waits
 * for a slot (llama-server's task, queued).
 *
 * A request is followed by its id from any thread: its stages and its end
 * may be recorded by another thread than its arrival. Readers time it from
 * here (ggmlviz_reader_next_timing(), #GGMLVIZ_TIMING_REQUEST).
 *
 * @param id the server's id of the request, unique while it is open.
 * @param kind what it asks: enum ggmlviz_request_kind.
 * @param prompt_tokens tokens of its prompt, 0 when not known yet.
 * @param label what it asked for ("completion"), copied; may be NULL.
 */
void ggmlviz_request_begin(uint64_t id, uint32_t kind, uint32_t prompt_tokens, const char *label);

/**
 * @brief Records REQUEST_STAGE: an open request reached a stage.
 *
 * #GGMLVIZ_REQUEST_PROMPT when its slot begins on its prompt (the time it
 * waited ends), #GGMLVIZ_REQUEST_FIRST_TOKEN when its first token is
 * sampled (its prompt is processed).
 *
 * @param id the request's id, as given to ggmlviz_request_begin().
 * @param slot the slot serving it (llama-server's slot: its sequence in
 *        the batches decoded), -1 if none.
 * @param stage enum ggmlviz_request_stage.
 * @param prompt_tokens tokens of its prompt, 0 if not known.
 * @param cached_tokens of those, the ones the slot's cache held already.
 */
void ggmlviz_request_stage(uint64_t id, int32_t slot, uint32_t stage, uint32_t prompt_tokens,
			   uint32_t cached_tokens);

/**
 * @brief Records REQUEST_END: an open request ended, answered or not.
 *
 * @param id the request's id, as given to ggmlviz_request_begin().
 * @param slot the slot that served it, -1 if none did.
 * @param status enum ggmlviz_request_status: answered, cancelled (its
 *        client went away) or failed; a cancelled request's tokens are
 *        those generated so far.
 * @param prompt_tokens tokens of its prompt.
 * @param cached_tokens of those, the ones its slot's cache held already.
 * @param generated_tokens tokens it generated.
 * @param label why it stopped ("eos", "limit", "word"), copied; may be NULL.
 */
void ggmlviz_request_end(uint64_t id, int32_t slot, uint32_t status, uint32_t prompt_tokens,
			 uint32_t cached_tokens, uint32_t generated_tokens, const char *label);

/**
 * @brief One command of GGML's RPC protocol, as its RPC records say it
 * (ggmlviz_rpc_begin(), ggmlviz_rpc_stage(), ggmlviz_rpc_end()).
 *
 * Both ends of a connection number its commands alike, from 0 for its
 * first (HELLO), and both can hash a request's payload alike: that is how
 * `ggmlviz merge` ties a server's commands to its client's without a byte
 * of the protocol changed (ggmlviz(5), RPC_BEGIN).
 */
struct ggmlviz_rpc_command {
	uint64_t conn;          /**< the connection's id, unique in the process (name it with META RPC_CONNECTION) */
	uint32_t seq;           /**< the command's place on its connection: 0 for the first */
	uint8_t cmd;            /**< GGML's command (enum rpc_cmd of ggml-rpc.cpp) */
	uint8_t side;           /**< enum ggmlviz_rpc_side: who records it */
	uint8_t status;         /**< ggmlviz_rpc_end(): enum ggmlviz_rpc_status; not read by the others */
	uint8_t reserved8;      /**< zero */
	uint64_t request_bytes; /**< bytes of its request on the wire (command byte, size and payload); 0 = not known yet */
	uint64_t reply_bytes;   /**< ggmlviz_rpc_end(): bytes of its reply on the wire (size and payload), 0 = none */
	uint32_t request_hash;  /**< a hash of its request's payload that both sides compute alike, 0 = not known */
	uint32_t reserved32;    /**< zero */
};

/**
 * @brief Records RPC_BEGIN: a command of GGML's RPC protocol begins.
 *
 * On the client, call it just before the request is sent; on the server,
 * just after its command byte was read. Record its end with
 * ggmlviz_rpc_end() on the same thread.
 *
 * @param c the command (borrowed): conn, seq, cmd, side, request_bytes
 *        and request_hash are recorded.
 */
void ggmlviz_rpc_begin(const struct ggmlviz_rpc_command *c);

/**
 * @brief Records RPC_STAGE: an open command on the server reached a stage.
 *
 * #GGMLVIZ_RPC_REQUEST_IN just after its request was read whole (with its
 * request_bytes and request_hash), #GGMLVIZ_RPC_REPLY just before its
 * reply is sent: the server's work on it lies between the two.
 *
 * @param c the command (borrowed), as given to ggmlviz_rpc_begin().
 * @param stage enum ggmlviz_rpc_stage.
 */
void ggmlviz_rpc_stage(const struct ggmlviz_rpc_command *c, uint32_t stage);

/**
 * @brief Records RPC_END: an open command ended, with its status.
 *
 * On the client, just after its reply was received (or, for a command
 * without a reply, its request sent); on the server, after its reply was
 * sent, or its work done. A command that failed (the connection dropped
 * in its middle) ends with #GGMLVIZ_RPC_FAILED.
 *
 * @param c the command (borrowed): conn, seq, cmd, side, status,
 *        request_bytes and reply_bytes are recorded.
 */
void ggmlviz_rpc_end(const struct ggmlviz_rpc_command *c);

/** @cond GGMLVIZ_INTERNAL */
/*
 * The call-site check. Each emit function above is also a function-like
 * macro that tests the tracer's mask inline and calls the function only when
 * that kind of event is being recorded, so a program that never starts
 * tracing pays one load and one predictable branch per call. The functions
 * exist too (take their address, or #define GGMLVIZ_NO_INLINE_CHECK).
 */
extern unsigned int ggmlviz__mask;
/*
 * The tracer's memory, for the adapters' tables too: from pages of its own,
 * never the program's heap, so that what the program allocates lies where
 * it would untraced (lib/util/pages.h). A zeroed block of n elements of
 * size bytes, or NULL; and the block given back.
 */
void *ggmlviz__pages_array(size_t n, size_t size);
void ggmlviz__pages_free(void *block);
#define GGMLVIZ__ACTIVE 1u
#define GGMLVIZ__OPS 2u
#define GGMLVIZ__MEMORY 4u
#if defined(__GNUC__) || defined(__clang__)
#define GGMLVIZ__ON(bits) \
	(__builtin_expect((__atomic_load_n(&ggmlviz__mask, __ATOMIC_RELAXED) & (bits)) != 0, 0))
#else
#define GGMLVIZ__ON(bits) ((*(volatile unsigned int *)&ggmlviz__mask & (bits)) != 0)
#endif
#if !defined(GGMLVIZ_NO_INLINE_CHECK) && !defined(GGMLVIZ__BUILDING)
#define ggmlviz_graph_begin(g, n, t, b) \
	(GGMLVIZ__ON(GGMLVIZ__ACTIVE) ? ggmlviz_graph_begin(g, n, t, b) : (void)0)
#define ggmlviz_graph_end(g, n, t, b) \
	(GGMLVIZ__ON(GGMLVIZ__ACTIVE) ? ggmlviz_graph_end(g, n, t, b) : (void)0)
#define ggmlviz_op_begin(x, o, s, b, l) \
	(GGMLVIZ__ON(GGMLVIZ__OPS) ? ggmlviz_op_begin(x, o, s, b, l) : (void)0)
#define ggmlviz_op_end(x, o, s, b, l) \
	(GGMLVIZ__ON(GGMLVIZ__OPS) ? ggmlviz_op_end(x, o, s, b, l) : (void)0)
#define ggmlviz_op_info(x, ne, f, n) \
	(GGMLVIZ__ON(GGMLVIZ__OPS) ? ggmlviz_op_info(x, ne, f, n) : (void)0)
#define ggmlviz_op_node(x, l, m, f, s0, s1) \
	(GGMLVIZ__ON(GGMLVIZ__OPS) ? ggmlviz_op_node(x, l, m, f, s0, s1) : (void)0)
#define ggmlviz_op_bytes(x, r, w) (GGMLVIZ__ON(GGMLVIZ__OPS) ? ggmlviz_op_bytes(x, r, w) : (void)0)
#define ggmlviz_step_seq(c, s, n, o, t, k) \
	(GGMLVIZ__ON(GGMLVIZ__ACTIVE) ? ggmlviz_step_seq(c, s, n, o, t, k) : (void)0)
#define ggmlviz_tensor_alloc(p, s, l) \
	(GGMLVIZ__ON(GGMLVIZ__MEMORY) ? ggmlviz_tensor_alloc(p, s, l) : (void)0)
#define ggmlviz_tensor_free(p, s, l) \
	(GGMLVIZ__ON(GGMLVIZ__MEMORY) ? ggmlviz_tensor_free(p, s, l) : (void)0)
#define ggmlviz_mark(n, v) (GGMLVIZ__ON(GGMLVIZ__ACTIVE) ? ggmlviz_mark(n, v) : (void)0)
#define ggmlviz_counter(n, v) (GGMLVIZ__ON(GGMLVIZ__ACTIVE) ? ggmlviz_counter(n, v) : (void)0)
#define ggmlviz_scope_begin(n, v) \
	(GGMLVIZ__ON(GGMLVIZ__ACTIVE) ? ggmlviz_scope_begin(n, v) : (void)0)
#define ggmlviz_scope_end(n, v) \
	(GGMLVIZ__ON(GGMLVIZ__ACTIVE) ? ggmlviz_scope_end(n, v) : (void)0)
#define ggmlviz_request_begin(i, k, p, l) \
	(GGMLVIZ__ON(GGMLVIZ__ACTIVE) ? ggmlviz_request_begin(i, k, p, l) : (void)0)
#define ggmlviz_request_stage(i, s, t, p, c) \
	(GGMLVIZ__ON(GGMLVIZ__ACTIVE) ? ggmlviz_request_stage(i, s, t, p, c) : (void)0)
#define ggmlviz_request_end(i, s, t, p, c, g, l) \
	(GGMLVIZ__ON(GGMLVIZ__ACTIVE) ? ggmlviz_request_end(i, s, t, p, c, g, l) : (void)0)
#define ggmlviz_rpc_begin(c) (GGMLVIZ__ON(GGMLVIZ__ACTIVE) ? ggmlviz_rpc_begin(c) : (void)0)
#define ggmlviz_rpc_stage(c, s) (GGMLVIZ__ON(GGMLVIZ__ACTIVE) ? ggmlviz_rpc_stage(c, s) : (void)0)
#define ggmlviz_rpc_end(c) (GGMLVIZ__ON(GGMLVIZ__ACTIVE) ? ggmlviz_rpc_end(c) : (void)0)
#endif
/** @endcond */

GGMLVIZ__PUBLIC_END

#ifdef __cplusplus
}
#endif

#endif /* GGMLVIZ_TRACER_H */
