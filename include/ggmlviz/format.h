/*
 * libggmlviz: the GGMLVIZ v1 trace format, shared by the tracer and the reader.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_FORMAT_H
#define GGMLVIZ_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @cond GGMLVIZ_INTERNAL */
/*
 * The library is built with -fvisibility=hidden where the compiler has it:
 * only what the public headers declare is exported when libggmlviz.a is
 * linked into a shared object.
 */
#if defined(__GNUC__) || defined(__clang__)
#define GGMLVIZ__PUBLIC_BEGIN _Pragma("GCC visibility push(default)")
#define GGMLVIZ__PUBLIC_END _Pragma("GCC visibility pop")
#else
#define GGMLVIZ__PUBLIC_BEGIN
#define GGMLVIZ__PUBLIC_END
#endif
/* A name kept for programs written against an earlier release: it works, and says what replaces it. */
#if defined(__GNUC__) || defined(__clang__)
#define GGMLVIZ__DEPRECATED(msg) __attribute__((deprecated(msg)))
#else
#define GGMLVIZ__DEPRECATED(msg)
#endif
/** @endcond */

GGMLVIZ__PUBLIC_BEGIN

/**
 * @file format.h
 * @brief Constants of the GGMLVIZ v1 trace format and libggmlviz's error codes.
 *
 * A GGMLVIZ file is a 12-byte header (the magic "GGMLVIZ1" and a
 * little-endian u32 version, 1) followed by records. Every record has a
 * 46-byte fixed part (type, timestamp, thread id, a 32-byte payload, a
 * has_label byte), then, when has_label is 1, a u32 label length and that
 * many label bytes. ggmlviz(5) documents every byte.
 */

/** @brief Version of libggmlviz these headers belong to, as a string. */
#define GGMLVIZ_VERSION_STRING "0.2.0"
/** @brief Major version of libggmlviz. */
#define GGMLVIZ_VERSION_MAJOR 0
/** @brief Minor version of libggmlviz. */
#define GGMLVIZ_VERSION_MINOR 2
/** @brief Patch version of libggmlviz. */
#define GGMLVIZ_VERSION_PATCH 0
/**
 * @brief The version as one number, MAJOR * 10000 + MINOR * 100 + PATCH
 * (0.2.0 is 200), to compare with ggmlviz_version_number().
 */
#define GGMLVIZ_VERSION_NUMBER \
	(GGMLVIZ_VERSION_MAJOR * 10000 + GGMLVIZ_VERSION_MINOR * 100 + GGMLVIZ_VERSION_PATCH)

/** @brief The 8 magic bytes that start every GGMLVIZ file. */
#define GGMLVIZ_MAGIC "GGMLVIZ1"
/** @brief The only format version this library reads and writes. */
#define GGMLVIZ_FORMAT_VERSION 1u
/** @brief Size in bytes of the file header (magic and version). */
#define GGMLVIZ_HEADER_SIZE 12u
/** @brief Size in bytes of a record without a label. */
#define GGMLVIZ_RECORD_SIZE 46u
/** @brief Size in bytes of a record's payload, whatever its type. */
#define GGMLVIZ_PAYLOAD_SIZE 32u
/** @brief Size in bytes of a record with a label, before the label bytes. */
#define GGMLVIZ_LABELED_RECORD_SIZE 50u
/**
 * @brief The longest label the tracer records, in bytes.
 *
 * A longer label is cut to this length (on a UTF-8 character boundary) and
 * counted in ggmlviz_stats::labels_truncated.
 */
#define GGMLVIZ_LABEL_MAX 4096u
/**
 * @brief Longest label_length a reader accepts, in bytes (1 MiB).
 *
 * No writer produces a longer label; a record claiming one is corruption
 * (GGMLVIZ_ECORRUPT), while a shorter label cut by the end of the data is a
 * record still being written (GGMLVIZ_ETRUNCATED).
 */
#define GGMLVIZ_LABEL_LIMIT (1u << 20)
/**
 * @brief Bytes of the label of an OP_SUMMARY record that sums a window of
 * steps (GGML_VIZ_OP_WINDOW): u64 its first step's summary time, u32 the
 * steps it sums, u32 their phase (enum ggmlviz_phase). A step's own
 * OP_SUMMARY has no label (ggmlviz(5), "Op windows").
 */
#define GGMLVIZ_OP_WINDOW_BODY 16u

/**
 * @brief Record types (the u8 at offset 0 of every record).
 *
 * 0 to 8 are the original GGMLVIZ v1 types; 9 and up are libggmlviz's
 * extensions, which keep the 46-byte fixed part so that any v1 reader skips
 * them. Every type that begins something is even and its end is the next
 * odd number.
 */
enum ggmlviz_event_type {
	GGMLVIZ_EVENT_GRAPH_COMPUTE_BEGIN = 0, /**< a graph computation starts; GRAPH payload */
	GGMLVIZ_EVENT_GRAPH_COMPUTE_END = 1,   /**< it ends; same payload as its begin */
	GGMLVIZ_EVENT_OP_COMPUTE_BEGIN = 2,    /**< one node starts; OP payload, label = tensor name */
	GGMLVIZ_EVENT_OP_COMPUTE_END = 3,      /**< it ends; same payload and label as its begin */
	GGMLVIZ_EVENT_TENSOR_ALLOC = 4,        /**< memory allocated; MEMORY payload, label = name */
	GGMLVIZ_EVENT_TENSOR_FREE = 5,         /**< memory freed; MEMORY payload (size if known) */
	GGMLVIZ_EVENT_BARRIER_WAIT = 6,        /**< ptr = barrier id, size = ns waited */
	GGMLVIZ_EVENT_THREAD_BEGIN = 7,        /**< a thread starts; label = its name if known */
	GGMLVIZ_EVENT_THREAD_FREE = 8,         /**< a thread ends */
	GGMLVIZ_EVENT_META = 9,                /**< metadata; kind in the payload (enum ggmlviz_meta_kind) */
	GGMLVIZ_EVENT_MARK = 10,               /**< an instant annotation; +0 u64 value, label = name */
	GGMLVIZ_EVENT_COUNTER = 11,            /**< a counter sample; +0 i64 value, label = name */
	GGMLVIZ_EVENT_SCOPE_BEGIN = 12,        /**< a user range starts; +0 u64 value, label = name */
	GGMLVIZ_EVENT_SCOPE_END = 13,          /**< the innermost open range of that name ends */
	GGMLVIZ_EVENT_OP_INFO = 14,            /**< shape and work of an op; label = element type name */
	GGMLVIZ_EVENT_OP_NODE = 15,            /**< an op's layer, timing method and sources */
	GGMLVIZ_EVENT_STEP_BEGIN = 16,         /**< an application step starts (a llama_decode() call) */
	GGMLVIZ_EVENT_STEP_END = 17,           /**< it ends, with its status */
	GGMLVIZ_EVENT_SPLIT_BEGIN = 18,        /**< a backend's run of nodes starts (a scheduler split) */
	GGMLVIZ_EVENT_SPLIT_END = 19,          /**< it ends */
	/**
	 * A kernel the GPU ran, timed by the GPU (CUPTI): timestamp = its
	 * start, on the trace's clock; thread = its GPU track
	 * (#GGMLVIZ_GPU_TRACK); label = its (mangled) name; KERNEL payload.
	 */
	GGMLVIZ_EVENT_KERNEL = 20,
	/**
	 * A sequence of the open step's batch (llama.cpp's seq_id): its
	 * tokens and outputs in the batch, its tokens already in the context,
	 * and the context's cells in use; written after STEP_BEGIN, one per
	 * sequence; no label.
	 */
	GGMLVIZ_EVENT_STEP_SEQ = 21,
	/**
	 * The bytes the open op of the same tensor and thread reads (its
	 * sources) and writes (its output); written between its begin and
	 * end, beside OP_INFO; no label.
	 */
	GGMLVIZ_EVENT_OP_BYTES = 22,
	/**
	 * The ops of one type and backend that a step ran, summed, where the
	 * step was not recorded op by op (ggmlviz_config::op_sample,
	 * op_slow_us): written before its STEP_END, one per op type and
	 * backend, on the step's thread; no label.
	 */
	GGMLVIZ_EVENT_OP_SUMMARY = 23,
	/**
	 * A request to a server arrived (llama-server's task): REQUEST
	 * payload with its id, its kind (enum ggmlviz_request_kind) and its
	 * prompt's tokens when known; label = what it asked for, or none.
	 * Any thread; its stages and its end may come from another.
	 */
	GGMLVIZ_EVENT_REQUEST_BEGIN = 24,
	/**
	 * It ended: REQUEST payload with its slot, its status (enum
	 * ggmlviz_request_status) and its prompt, cached and generated
	 * tokens; label = why it stopped ("eos", "limit", "word"), or none.
	 */
	GGMLVIZ_EVENT_REQUEST_END = 25,
	/**
	 * A stage of an open request (enum ggmlviz_request_stage): REQUEST
	 * payload with its slot and the tokens known then; no label.
	 */
	GGMLVIZ_EVENT_REQUEST_STAGE = 26,
	/**
	 * One worker thread's share of a node that GGML's CPU backend computed
	 * with several threads, measured by the backend's own calls (a GGML
	 * built with libggmlviz's edit: ggmlviz_cpu_share_begin(3)): timestamp
	 * = the share's begin, thread = the worker's; OP_SHARE payload with
	 * the tensor, the share's compute and the wait after it at the
	 * barrier; no label.
	 */
	GGMLVIZ_EVENT_OP_SHARE = 27,
	/**
	 * The op timings that follow on this thread, until the next
	 * SPLIT_END, belong to one set of descriptions (a graph run again):
	 * DESC_SET payload. Mode DEFINE: their OP_INFO, OP_BYTES and OP_NODE
	 * records make the set. Mode REPEAT: an op of the run written without
	 * them has those its tensor had in the set, and the method given here
	 * (ggmlviz(5), "Descriptions given once"); no label.
	 */
	GGMLVIZ_EVENT_DESC_SET = 28,
	/**
	 * The ops of a run that repeats a set of descriptions (after its
	 * DESC_SET REPEAT, on the run's thread), timed and packed: written in
	 * place of their OP_COMPUTE_BEGIN and _END records. timestamp = the
	 * record's first op's begin; OP_TIMES payload; label = the body: for
	 * each op, in the set's order from op `first`, the u32 gap from the
	 * end of the op before it (the timestamp, for the first) to its begin,
	 * and its u32 duration, in ns (#GGMLVIZ_OP_TIMES_ENTRY bytes an op).
	 * A reader gives each the timing its OP_COMPUTE_BEGIN and _END would
	 * have (ggmlviz(5), "Packed times").
	 */
	GGMLVIZ_EVENT_OP_TIMES = 29,
	/**
	 * One worker thread's shares of the nodes of a graph that GGML's CPU
	 * backend computed (as OP_SHARE records would give them, packed): one
	 * record, or a few for a large graph, per thread and graph, on the
	 * worker's thread. timestamp = the record's first share's begin;
	 * SHARE_TIMES payload; label = the body: mode DEFINE, each share's
	 * identity (#GGMLVIZ_SHARE_TIMES_IDENTITY bytes: u64 tensor, u32
	 * op_type, u32 node) and then its times; mode REPEAT, the times only,
	 * the identities those of the set's DEFINE. A share's times: the u32
	 * gap from the end of the share before (the timestamp, for the first)
	 * to its begin, and its u32 compute, in ns (#GGMLVIZ_OP_TIMES_ENTRY
	 * bytes).
	 */
	GGMLVIZ_EVENT_SHARE_TIMES = 30,
	/**
	 * A command of GGML's RPC protocol begins on one of its connections
	 * (ggmlviz_rpc_begin()): on the client, just before its request is
	 * sent; on the server, when its command byte has arrived. RPC
	 * payload; no label. 31 to 35 are not used by this library.
	 */
	GGMLVIZ_EVENT_RPC_BEGIN = 36,
	/**
	 * It ends (ggmlviz_rpc_end()): on the client, when its reply has
	 * arrived, or, for a command without one, when its request was sent;
	 * on the server, when its reply was sent, or its work done; its
	 * status says whether it failed. RPC payload, with its reply's bytes;
	 * no label.
	 */
	GGMLVIZ_EVENT_RPC_END = 37,
	/**
	 * A stage of an open command on the server (enum ggmlviz_rpc_stage,
	 * ggmlviz_rpc_stage()): its request read whole (its work begins), its
	 * reply begun (its work is done). RPC payload; no label.
	 */
	GGMLVIZ_EVENT_RPC_STAGE = 38,
	/**
	 * A run of one thread's records, packed (GGML_VIZ_PACK): each written
	 * as what differs from the record of its type before it in the run.
	 * timestamp and thread = the run's first record's; PACK payload;
	 * label = the body (ggmlviz(5), "Packed records"). A reader never
	 * returns it: ggmlviz_reader_next() gives its records one by one, as
	 * they were, each at the offset where its bytes start in the body.
	 */
	GGMLVIZ_EVENT_PACK = 39,
	GGMLVIZ_EVENT_TYPE_COUNT = 40          /**< one past the last type this library knows (the count grows as types are added) */
};

/** @brief What a DESC_SET record says of the ops that follow it (its mode). */
enum ggmlviz_desc_set_mode {
	/** Their OP_INFO, OP_BYTES and OP_NODE records make the set. */
	GGMLVIZ_DESC_SET_DEFINE = 1,
	/** Those written without them have those of the same tensor in the set. */
	GGMLVIZ_DESC_SET_REPEAT = 2
};

/** @brief Bytes of one op's (or share's) times in an OP_TIMES or SHARE_TIMES body: a u32 gap and a u32 duration. */
#define GGMLVIZ_OP_TIMES_ENTRY 8u
/** @brief Bytes of one share's identity in a SHARE_TIMES DEFINE body: u64 tensor, u32 op_type, u32 node. */
#define GGMLVIZ_SHARE_TIMES_IDENTITY 16u

/** @brief Which end of a connection of GGML's RPC protocol wrote an RPC record. */
enum ggmlviz_rpc_side {
	GGMLVIZ_RPC_CLIENT = 1, /**< the process that sends the commands (llama.cpp's tools with --rpc) */
	GGMLVIZ_RPC_SERVER = 2  /**< the process that serves them (GGML's rpc-server) */
};

/** @brief How a command of GGML's RPC protocol ended (RPC_END's status). */
enum ggmlviz_rpc_status {
	GGMLVIZ_RPC_OK = 0,    /**< its request was sent (and its reply received) or served */
	/**
	 * It failed: its request or reply could not be sent or received
	 * whole (the connection dropped, the peer went away), or the server
	 * refused it
	 */
	GGMLVIZ_RPC_FAILED = 1
};

/** @brief A stage of a command on the server (RPC_STAGE's stage, in its status byte). */
enum ggmlviz_rpc_stage {
	/** Its request was read whole: the server's work on it begins. */
	GGMLVIZ_RPC_REQUEST_IN = 1,
	/** Its reply begins: the server's work on it is done. */
	GGMLVIZ_RPC_REPLY = 2
};

/** @brief Why a snapshot of the flight recorder was taken (META SNAPSHOT's key >> 32). */
enum ggmlviz_snapshot_why {
	GGMLVIZ_SNAPSHOT_ASKED = 0, /**< asked from outside: `ggmlviz snapshot TRACE` */
	GGMLVIZ_SNAPSHOT_TTFT = 1,  /**< a request's time to first token was over GGML_VIZ_FLIGHT_ON's ttft */
	GGMLVIZ_SNAPSHOT_TOKEN = 2  /**< a request's time per output token was over GGML_VIZ_FLIGHT_ON's token */
};

/** @brief What a request asks of a server (REQUEST_BEGIN's kind). */
enum ggmlviz_request_kind {
	GGMLVIZ_REQUEST_OTHER = 0,      /**< not said, or none of these */
	GGMLVIZ_REQUEST_COMPLETION = 1, /**< a completion (and a chat completion) */
	GGMLVIZ_REQUEST_EMBEDDING = 2,  /**< embeddings */
	GGMLVIZ_REQUEST_RERANK = 3,     /**< a reranking */
	GGMLVIZ_REQUEST_INFILL = 4,     /**< an infill */
	GGMLVIZ_REQUEST_TRANSCRIPTION = 5 /**< a transcription (or translation) of audio: whisper-server's */
};

/** @brief A stage of a request (REQUEST_STAGE's stage). */
enum ggmlviz_request_stage {
	/** Its slot begins on its prompt: it waited in the queue until now. */
	GGMLVIZ_REQUEST_PROMPT = 1,
	/** Its first token was sampled: its prompt is processed. */
	GGMLVIZ_REQUEST_FIRST_TOKEN = 2
};

/** @brief How a request ended (REQUEST_END's status). */
enum ggmlviz_request_status {
	GGMLVIZ_REQUEST_DONE = 0,      /**< answered */
	GGMLVIZ_REQUEST_CANCELLED = 1, /**< cancelled: its client went away, or asked */
	GGMLVIZ_REQUEST_FAILED = 2     /**< ended by an error */
};

/**
 * @brief Kinds of GGMLVIZ_EVENT_META records (the u32 at payload offset 0).
 *
 * The payload of a META record is `+0 u32 kind, +4 u32 zero, +8 u64 key,
 * +16 u64 value, +24 u64 value2`, and its label a string.
 */
enum ggmlviz_meta_kind {
	GGMLVIZ_META_OP_NAME = 1,      /**< key = op_type, label = op name ("MUL_MAT") */
	GGMLVIZ_META_THREAD_NAME = 2,  /**< key = thread id, label = thread name */
	GGMLVIZ_META_BACKEND_NAME = 3, /**< key = backend_ptr, label = backend name ("CPU") */
	GGMLVIZ_META_PROCESS = 4,      /**< key = pid, label = program name */
	GGMLVIZ_META_DROPPED = 5,      /**< key = thread id, value = events lost since its last DROPPED */
	GGMLVIZ_META_TRACE_END = 6,    /**< value = events written, value2 = events dropped; written last */
	GGMLVIZ_META_CRASH = 7,        /**< key = signal number, value = events written, value2 = dropped, label = the signal's name: the program crashed, the rings were saved; written last */
	GGMLVIZ_META_GPU = 8,          /**< value = 1 if the session records GPU kernels (KERNEL records), 0 if not, label = how, or why not */
	GGMLVIZ_META_PEAK = 9,         /**< key = threads, value = bytes/s read from memory, value2 = f32 FMA FLOP/s, label = how measured: the machine's peak (peak_threads) */
	GGMLVIZ_META_SAMPLE = 10,      /**< key = op_sample, value = op_slow_us, value2 = 1 if the other steps' ops are summed (OP_SUMMARY), label = in words: which steps keep their ops one by one */
	GGMLVIZ_META_SHARES = 11,      /**< value = nodes measured inside GGML's CPU backend (OP_SHARE) that no op got in the session, value2 = how many of them were past the nodes or threads followed, label = in words; written at a clean stop where the CPU backend measured shares or some went unattributed */
	GGMLVIZ_META_CLOCK = 12,       /**< key = enum ggmlviz_clock: what stamped the records before the writer made them nanoseconds; value = its ticks per second; value2 = zero; label = in words; written at the start, after PROCESS (and PEAK, SAMPLE) */
	/**
	 * GPU kernels recorded in sampled windows (ggmlviz_config::gpu_sample_k):
	 * the state of the steps (or runs, in a program that marks no step)
	 * that begin on this record's thread from here on, written where it
	 * changes, before the step's begin; or, written inside a step (CUPTI
	 * started by its first CUDA split), that step's from here on. key =
	 * the window's number (1, 2, ...; 0 before the first), value = the
	 * state (enum ggmlviz_gpu_window), value2 = K << 32 | N, label = in
	 * words. A trace without one records every step's kernels.
	 */
	GGMLVIZ_META_GPU_WINDOW = 13,
	/**
	 * The CPU threads a llama.cpp context computes with, and the CPUs
	 * they may run on, written by the llama.cpp adapter (<ggmlviz/llama.h>)
	 * at a context's first step of a session and whenever its threads
	 * change: key = the context's address, value = threads generating
	 * (n_threads) | threads for a batch (n_threads_batch) << 32, value2 =
	 * CPUs this process may run on (its affinity) | CPUs online << 32 (0:
	 * not known), label = in words. What `ggmlviz advise` compares.
	 */
	GGMLVIZ_META_THREADS = 14,
	/**
	 * The device a backend buffer lives on, and its memory, written by the
	 * GGML adapter with the buffer's TENSOR_ALLOC (memory tracking on):
	 * key = the buffer's address (the TENSOR_ALLOC's ptr), value = the
	 * device's memory in bytes (0: not known), value2 = its free bytes
	 * then, label = the device's name ("CPU" for host memory, "Vulkan0",
	 * "CUDA0").
	 */
	GGMLVIZ_META_DEVICE = 15,
	/**
	 * The process's use of the CPUs so far (getrusage(2), RUSAGE_SELF:
	 * every thread's, the writer's included), written at the session's
	 * start, by the writer at most once per flush interval in the passes
	 * that drain records (an idle session writes none), and at its stop
	 * (none while a failed write keeps the file's end room for DROPPED
	 * and TRACE_END); all with the id of the thread that started the
	 * session, stamped when read (a record of that thread stamped a
	 * little earlier may come after one): key = involuntary context switches (the
	 * scheduler took a CPU from one of the process's threads to run
	 * another's turn), value = CPU time in ns (user and system), value2 =
	 * voluntary context switches (a thread waited: a lock, I/O, a sleep);
	 * no label. Counted since the process began: a reader takes the
	 * differences between two. What `ggmlviz advise` reads to tell a run
	 * whose threads waited for CPUs that other work held.
	 */
	GGMLVIZ_META_USAGE = 16,
	/**
	 * This file is one segment of a rotated trace (ggmlviz_setting_set(3)
	 * "rotate", GGML_VIZ_ROTATE): the first record after the header of
	 * every segment. key = the segment's number (1 for the first, one more
	 * for each segment after it), value = the byte offset of the first
	 * record the segment does not repeat: the records before it (PROCESS,
	 * PEAK, SAMPLE, CLOCK, USAGE and the names given so far: OP_NAME,
	 * THREAD_NAME, BACKEND_NAME, DEVICE, THREADS, RPC_CONNECTION) repeat
	 * what the segments before said, so that a segment read alone is a
	 * whole trace, and a reader of the segments in a row skips them;
	 * value2 = the trace's id, the same in each of its segments; label =
	 * the trace's name (GGML_VIZ_OUTPUT), as the segments were named after
	 * it.
	 */
	GGMLVIZ_META_SEGMENT = 17,
	/**
	 * The segment ends here, and the trace goes on in the next one: the
	 * last record of a segment that another followed. key = the next
	 * segment's number, value = events written so far in the session (in
	 * all its segments, as TRACE_END's), value2 = events dropped so far;
	 * no label.
	 */
	GGMLVIZ_META_SEGMENT_END = 18,
	/**
	 * The session keeps a flight recorder (ggmlviz_setting_set(3)
	 * "flight", GGML_VIZ_FLIGHT): the last seconds of every op, the steps
	 * that rolling mode sums among them, in memory, written as a trace of
	 * its own, a snapshot, when a request is slow or when asked (META
	 * SNAPSHOT). Written at the start of a trace, of each of its segments
	 * and of each snapshot: key = the seconds kept, value = the most bytes
	 * of memory they take, value2 = the snapshots kept at most (0: all),
	 * label = in words.
	 */
	GGMLVIZ_META_FLIGHT = 19,
	/**
	 * A snapshot of the flight recorder: in the trace, where it was taken;
	 * in the snapshot, its first record after the header. key = its number
	 * (1, 2, ...) | why << 32 (enum ggmlviz_snapshot_why), value = the
	 * request that made it (REQUEST records' id; 0 when asked), value2 =
	 * that request's time judged in ns (its time to first token, or its
	 * time per output token; 0 when asked), label = the snapshot's file
	 * name, without its directory ("trace.flight-1.ggmlviz").
	 */
	GGMLVIZ_META_SNAPSHOT = 20,
	/*
	 * 21 to 23 are not used by this library.
	 */
	/**
	 * A connection of GGML's RPC protocol, written once per session by the
	 * side that opened or accepted it (contrib/llama.cpp/ggmlviz-rpc.h):
	 * key = its id (the RPC records' conn), value and value2 = zero,
	 * label = the client's endpoint ("127.0.0.1:50052"), or on the server
	 * "serving " and the server's.
	 */
	GGMLVIZ_META_RPC_CONNECTION = 24,
	/**
	 * Written by `ggmlviz merge` at the front of an RPC server's part of a
	 * merged trace: how far the server's clock was from its client's, as
	 * estimated from their commands' four times (the client's send and
	 * receipt, the server's receipt and reply), and taken off every
	 * record of the part: key = the client's pid, value = the offset in
	 * ns (server minus client, as a signed 64-bit number), value2 = its
	 * uncertainty in ns (the true offset lies within value +- value2),
	 * label = in words.
	 */
	GGMLVIZ_META_RPC_CLOCK = 25
};

/**
 * @brief Whether a step's GPU kernels were recorded, where a session
 * records them in sampled windows (META GPU_WINDOW's value, and
 * ggmlviz_timing::gpu_window).
 */
enum ggmlviz_gpu_window {
	/** No window said: every step's kernels are recorded (or none at all). */
	GGMLVIZ_GPU_WINDOW_NONE = 0,
	/** Outside the windows: the profiler was detached, no kernel recorded. */
	GGMLVIZ_GPU_WINDOW_OUT = 1,
	/**
	 * A window's first step: CUPTI had just attached, and its own start
	 * slows it; its kernels are recorded, but it is not a sampled step.
	 */
	GGMLVIZ_GPU_WINDOW_WARMUP = 2,
	/** A sampled step: every kernel recorded, its ops timed by them. */
	GGMLVIZ_GPU_WINDOW_IN = 3
};

/**
 * @brief What stamped a trace's records (META CLOCK's key).
 *
 * The file holds nanoseconds either way; the clock says how fine and how
 * cheap the stamps were, and why (a virtual machine that hides the CPU's
 * invariant time-stamp counter makes every stamp a clock_gettime()).
 */
enum ggmlviz_clock {
	GGMLVIZ_CLOCK_TSC = 1,      /**< the CPU's invariant time-stamp counter, calibrated against CLOCK_MONOTONIC */
	GGMLVIZ_CLOCK_MONOTONIC = 2 /**< clock_gettime(CLOCK_MONOTONIC) */
};

/**
 * @brief How an op's begin and end were taken (OP_NODE's method byte).
 *
 * Not to be confused with enum ggmlviz_op_timing (tracer.h: how a session
 * is asked to time ops) or enum ggmlviz_timing_kind (reader.h: what a
 * paired timing measures).
 */
enum ggmlviz_op_method {
	/** Not recorded: a trace without OP_NODE records (an older writer). */
	GGMLVIZ_OP_METHOD_UNKNOWN = 0,
	/**
	 * The node was computed on its own and its backend synchronized after
	 * it: exact on any backend, but it changes the run (each node is a
	 * graph of its own).
	 */
	GGMLVIZ_OP_METHOD_SYNC = 1,
	/**
	 * The node was computed as part of the whole graph; its end is the CPU
	 * backend's call after it, its begin the end of the node before it:
	 * the run is unchanged.
	 */
	GGMLVIZ_OP_METHOD_TICK = 2,
	/**
	 * The node was computed on a GPU as part of the whole graph, and timed
	 * by the GPU's own timestamps: of the kernels it launched (KERNEL
	 * records, tied to the node by the reader; in the file, its
	 * OP_COMPUTE_BEGIN/END then hold the run's host times, the reader's
	 * timing the kernels'), or the backend's own (Vulkan's timestamp
	 * queries, ggmlviz_nodes_gpu_time(): its OP_COMPUTE_BEGIN/END hold
	 * them). The run is unchanged (see ggmlviz(5)).
	 */
	GGMLVIZ_OP_METHOD_GPU = 3,
	/**
	 * The node was computed by GGML's CPU backend as part of the whole
	 * graph, and each worker thread's share of it was measured (OP_SHARE
	 * records, a GGML built with libggmlviz's edit): the op begins where
	 * the first thread began its share and ends where the last one ended,
	 * so that the barrier's wait after it is not in it. The run is
	 * unchanged.
	 */
	GGMLVIZ_OP_METHOD_MEASURED = 4
};

/** @brief Deprecated: the name of enum ggmlviz_op_method until 0.2. */
#define ggmlviz_timing_method ggmlviz_op_method
/** @brief Deprecated: #GGMLVIZ_OP_METHOD_UNKNOWN. */
#define GGMLVIZ_METHOD_UNKNOWN GGMLVIZ_OP_METHOD_UNKNOWN
/** @brief Deprecated: #GGMLVIZ_OP_METHOD_SYNC. */
#define GGMLVIZ_METHOD_SYNC GGMLVIZ_OP_METHOD_SYNC
/** @brief Deprecated: #GGMLVIZ_OP_METHOD_TICK. */
#define GGMLVIZ_METHOD_TICK GGMLVIZ_OP_METHOD_TICK

/**
 * @brief The thread id of the GPU track of device @p device, stream @p
 * stream: KERNEL records carry it (OS thread ids stay below 2^22, so the
 * high bit tells a GPU track from a thread).
 */
#define GGMLVIZ_GPU_TRACK(device, stream) \
	(0x80000000u | ((uint32_t)(device) & 0xffu) << 23 | ((uint32_t)(stream) & 0x7fffffu))

/**
 * @brief An op type's bit 31: a fused pair, two nodes computed as one op
 * (flag #GGMLVIZ_NODE_FUSED on the CPU; one GPU kernel for both), whose
 * first op's type is in bits 0 to 14 and the second's in bits 16 to 30
 * (ggmlviz(5)).
 */
#define GGMLVIZ_OP_TYPE_FUSED 0x80000000u

/** @brief The op type of the fused pair of op types @p first then @p second (each cut to 15 bits). */
#define GGMLVIZ_OP_TYPE_FUSE(first, second) \
	(GGMLVIZ_OP_TYPE_FUSED | ((uint32_t)(first) & 0x7fffu) | ((uint32_t)(second) & 0x7fffu) << 16)

/** @brief The first op's type of fused pair @p op_type (see #GGMLVIZ_OP_TYPE_FUSED). */
#define GGMLVIZ_OP_TYPE_FIRST(op_type) ((uint32_t)(op_type) & 0x7fffu)

/** @brief The second op's type of fused pair @p op_type (see #GGMLVIZ_OP_TYPE_FUSED). */
#define GGMLVIZ_OP_TYPE_SECOND(op_type) ((uint32_t)(op_type) >> 16 & 0x7fffu)

/** @brief OP_NODE flags. */
enum ggmlviz_node_flag {
	/** The backend computed this node and the next in one kernel (e.g. RMS_NORM + MUL). */
	GGMLVIZ_NODE_FUSED = 1,
	/**
	 * The first op timed by ticks in its run: it begins where the
	 * scheduler handed the run to the backend, so its time also holds the
	 * backend's start of the run (GGML's graph plan, its worker threads
	 * made or woken), which no call of the backend tells apart.
	 */
	GGMLVIZ_NODE_RUN_START = 2,
	/**
	 * Its layer is the encoder's, of a model of two stacks of layers
	 * (whisper.cpp's encoder: "encoder.blocks.3..."; `enc.3`); readers
	 * older than it see layer 3, as of a model of one stack.
	 */
	GGMLVIZ_NODE_ENCODER = 4,
	/** Its layer is the decoder's, of a model of two stacks (`dec.3`). */
	GGMLVIZ_NODE_DECODER = 8
};

/** @brief What part of a program's work a step is (STEP_BEGIN's phase). */
enum ggmlviz_phase {
	GGMLVIZ_PHASE_UNKNOWN = 0,   /**< not said */
	GGMLVIZ_PHASE_PROMPT = 1,    /**< processing a prompt: many tokens, one output */
	GGMLVIZ_PHASE_GENERATION = 2, /**< generating: an output for every token */
	/**
	 * encoding an input whole (whisper.cpp's encoder run: its tokens
	 * are the audio positions encoded); readers older than it see an
	 * unknown phase
	 */
	GGMLVIZ_PHASE_ENCODE = 3
};

/**
 * @brief The library's own errors (of the format, and of settings),
 * returned as negative codes.
 *
 * They are distinct from every negative errno value, which the library
 * returns for operating-system errors. ggmlviz_strerror() describes both.
 */
enum ggmlviz_error {
	GGMLVIZ_EMAGIC = -10001,     /**< not a GGMLVIZ file (wrong magic, or shorter than a header) */
	GGMLVIZ_EVERSION = -10002,   /**< a GGMLVIZ version this library cannot read */
	GGMLVIZ_ETRUNCATED = -10003, /**< the data ends inside a record: crash, or still being written */
	GGMLVIZ_ECORRUPT = -10004,   /**< a record that cannot be valid (bad has_label, label too long) */
	GGMLVIZ_ESETTING = -10005,   /**< no setting of that name (ggmlviz_setting_set()) */
	GGMLVIZ_ETYPE = -10006,      /**< a setting whose value is not of that type (a number for text) */
	GGMLVIZ_EVALUE = -10007,     /**< a value out of the setting's range, or not of its form */
	GGMLVIZ_EACTIVE = -10008     /**< a setting set while tracing is active */
};

/**
 * @brief One record, decoded.
 *
 * ggmlviz_reader_next() and ggmlviz_decode_record() fill it;
 * ggmlviz_encode_record() writes one. Which member of @c data is
 * meaningful depends on @c type; records of a type this library does not
 * know keep their raw payload bytes in @c payload.
 */
struct ggmlviz_event {
	uint8_t type;          /**< a value of enum ggmlviz_event_type, or an unknown type */
	uint64_t timestamp_ns; /**< nanoseconds since the Unix epoch */
	uint32_t thread_id;    /**< the OS thread id of the emitter */
	/** The decoded payload. */
	union {
		/** GGMLVIZ_EVENT_OP_COMPUTE_BEGIN and _END. */
		struct {
			uint64_t tensor_ptr;  /**< the node's tensor address */
			uint32_t op_type;     /**< the producer's enum ggml_op value */
			uint64_t op_size;     /**< bytes of the output */
			uint64_t backend_ptr; /**< 0 = CPU / unknown */
		} op;
		/** GGMLVIZ_EVENT_GRAPH_COMPUTE_BEGIN and _END. */
		struct {
			uint64_t graph_ptr;   /**< the graph address */
			uint32_t n_nodes;     /**< nodes of the graph */
			uint32_t n_threads;   /**< threads computing it */
			uint64_t backend_ptr; /**< 0 = CPU / unknown */
		} graph;
		/** GGMLVIZ_EVENT_TENSOR_ALLOC, _FREE, BARRIER_WAIT, THREAD_BEGIN, THREAD_FREE. */
		struct {
			uint64_t ptr;  /**< address (barrier id for BARRIER_WAIT) */
			uint64_t size; /**< bytes (ns waited for BARRIER_WAIT) */
		} memory;
		/** GGMLVIZ_EVENT_META. */
		struct {
			uint32_t kind;   /**< a value of enum ggmlviz_meta_kind */
			uint64_t key;    /**< what the record is about */
			uint64_t value;  /**< first value */
			uint64_t value2; /**< second value */
		} meta;
		/** GGMLVIZ_EVENT_MARK, SCOPE_BEGIN, SCOPE_END (value) and COUNTER (as signed). */
		struct {
			uint64_t value;  /**< the application's number */
			int64_t svalue;  /**< the same 8 bytes as a signed counter value */
		} user;
		/** GGMLVIZ_EVENT_OP_INFO. */
		struct {
			uint64_t tensor_ptr; /**< the op's tensor address */
			int64_t ne[4];       /**< dimensions of the output */
			uint64_t flops;      /**< estimated floating-point operations, 0 if unknown */
		} op_info;
		/** GGMLVIZ_EVENT_OP_NODE. */
		struct {
			uint64_t tensor_ptr; /**< the op's tensor address */
			int32_t layer;       /**< the model layer it belongs to, -1 for none */
			uint8_t method;      /**< enum ggmlviz_timing_method */
			uint8_t flags;       /**< enum ggmlviz_node_flag bits */
			uint64_t src[2];     /**< its first two sources (through views: what they view), 0 = none */
		} op_node;
		/** GGMLVIZ_EVENT_STEP_BEGIN and _END. */
		struct {
			uint64_t ctx;       /**< what steps (a llama_context address) */
			uint32_t n_tokens;  /**< tokens of the step's batch */
			uint32_t n_outputs; /**< of those, how many produce an output (logits) */
			uint32_t phase;     /**< enum ggmlviz_phase */
			int32_t status;     /**< END: what the step returned (llama_decode()'s value); BEGIN: 0 */
		} step;
		/** GGMLVIZ_EVENT_SPLIT_BEGIN and _END. */
		struct {
			uint64_t first_node;     /**< the tensor address of its first node */
			uint32_t n_nodes;        /**< END: nodes of the run (BEGIN: 0, not known yet) */
			uint32_t n_timed;        /**< END: of those, how many got an op timing of their own */
			uint64_t backend_ptr;    /**< the backend computing it */
			uint32_t ticks;          /**< END: per-node calls received from the backend */
			uint32_t ticks_expected; /**< END: per-node calls its nodes should give */
			/**
			 * BEGIN: the run's id, which the KERNEL records of the
			 * kernels it launched carry; 0 when GPU kernels are not
			 * recorded (stored where END keeps ticks and
			 * ticks_expected, zero at a begin before 0.3).
			 */
			uint64_t run_id;
		} split;
		/** GGMLVIZ_EVENT_OP_SUMMARY. */
		struct {
			uint32_t op_type;     /**< the ops' type, as their OP records would give it */
			uint32_t count;       /**< how many of them the step ran */
			uint64_t total_ns;    /**< their time, summed */
			uint64_t backend_ptr; /**< the backend that ran them */
			uint64_t max_ns;      /**< the longest of them */
		} op_summary;
		/** GGMLVIZ_EVENT_REQUEST_BEGIN, _END and _STAGE. */
		struct {
			uint64_t request_id;       /**< the server's id of the request (llama-server's task id) */
			int32_t slot;              /**< the slot serving it, -1 none yet (BEGIN) */
			uint32_t what;             /**< BEGIN: enum ggmlviz_request_kind; STAGE: enum ggmlviz_request_stage; END: enum ggmlviz_request_status */
			uint32_t prompt_tokens;    /**< tokens of its prompt, 0 = not known yet */
			uint32_t cached_tokens;    /**< of those, the ones its slot's cache held already (STAGE, END) */
			uint32_t generated_tokens; /**< tokens it generated (END) */
		} request;
		/** GGMLVIZ_EVENT_OP_BYTES. */
		struct {
			uint64_t tensor_ptr;    /**< the op's tensor address */
			uint64_t bytes_read;    /**< bytes of its sources it reads */
			uint64_t bytes_written; /**< bytes of its output */
		} op_bytes;
		/** GGMLVIZ_EVENT_STEP_SEQ. */
		struct {
			uint64_t ctx;            /**< the step's ctx, as in its STEP_BEGIN */
			int32_t seq_id;          /**< the sequence (llama_seq_id) */
			uint32_t n_tokens;       /**< the batch's tokens of this sequence */
			uint32_t n_outputs;      /**< of those, how many produce an output */
			uint32_t context_tokens; /**< its tokens in the context before the step */
			uint32_t context_cells;  /**< the context's cells in use before the step, every sequence's (0 = unknown) */
		} step_seq;
		/** GGMLVIZ_EVENT_KERNEL. */
		struct {
			uint64_t duration_ns; /**< how long it ran, on the GPU's clock */
			uint64_t run_id;      /**< the run (SPLIT_BEGIN) that launched it; 0 = none traced */
			uint32_t correlation; /**< the launch's id (CUPTI's correlation id) */
			uint32_t stream;      /**< the stream it ran on */
			uint32_t device;      /**< the device it ran on */
		} kernel;
		/** GGMLVIZ_EVENT_OP_SHARE. */
		struct {
			uint64_t tensor_ptr;  /**< the node */
			uint32_t compute_ns;  /**< the thread's share of it: from its begin to its end */
			uint32_t wait_ns;     /**< then the thread's wait at the barrier, until its next share began (or the graph ended) */
			uint32_t op_type;     /**< the node's op, as in its OP records */
			uint32_t node;        /**< the node's place in its graph */
			uint32_t thread_index; /**< the worker's index in the pool (0: the thread that computes the graph) */
			uint32_t n_threads;   /**< the pool's threads for this graph */
		} op_share;
		/** GGMLVIZ_EVENT_DESC_SET. */
		struct {
			uint64_t set;      /**< the set's id, unique on its thread in the trace (never 0) */
			uint32_t n_ops;    /**< the op timings of the run that follow */
			uint8_t mode;      /**< enum ggmlviz_desc_set_mode */
			uint8_t method;    /**< REPEAT: the enum ggmlviz_op_method of the ops written without OP_NODE */
			uint64_t graph_id; /**< GGML's id of the graph run (ggmlviz_nodes_graph_id()) */
		} desc_set;
		/** GGMLVIZ_EVENT_OP_TIMES. */
		struct {
			uint64_t set;      /**< the run's set of descriptions (its DESC_SET's) */
			uint32_t first;    /**< the set's index of the record's first op */
			uint32_t n_ops;    /**< ops in the record's body */
			uint8_t method;    /**< enum ggmlviz_op_method of its ops */
			uint8_t flags;     /**< enum ggmlviz_node_flag: RUN_START, its first op began its run */
		} op_times;
		/** GGMLVIZ_EVENT_SHARE_TIMES. */
		struct {
			uint64_t set;          /**< the thread's set of shares (its nodes, in order), never 0 */
			uint32_t first;        /**< the set's index of the record's first share */
			uint32_t n_shares;     /**< shares in the record's body */
			uint8_t mode;          /**< enum ggmlviz_desc_set_mode: DEFINE (identities in the body), REPEAT */
			uint32_t thread_index; /**< the worker's index in its pool (0: the thread that computes the graph) */
			uint32_t n_threads;    /**< the pool's threads for the graph */
			uint32_t last_wait_ns; /**< the wait at the barrier after the record's last share */
		} share_times;

		/** GGMLVIZ_EVENT_RPC_BEGIN, _END and _STAGE. */
		struct {
			uint64_t conn;          /**< the connection's id in the process that wrote it (META RPC_CONNECTION names it) */
			uint32_t seq;           /**< the command's place on its connection: 0 for its first (HELLO), both sides alike */
			uint8_t cmd;            /**< GGML's command (enum rpc_cmd of ggml-rpc.cpp: 6 SET_TENSOR, 8 GET_TENSOR, 10 GRAPH_COMPUTE, ...) */
			uint8_t side;           /**< enum ggmlviz_rpc_side */
			uint8_t status;         /**< END: enum ggmlviz_rpc_status; STAGE: enum ggmlviz_rpc_stage; BEGIN: 0 */
			uint64_t request_bytes; /**< bytes of its request on the wire (command byte, size and payload); 0 = not known yet */
			uint64_t reply_bytes;   /**< END: bytes of its reply on the wire (size and payload), 0 = none */
			uint32_t request_hash;  /**< BEGIN (client) and STAGE REQUEST_IN: a hash of its request's payload, which both sides compute alike (ggmlviz(5)); 0 = not known */
		} rpc;

		/** GGMLVIZ_EVENT_PACK. */
		struct {
			uint32_t n_records; /**< the records packed in its body */
		} pack;
		uint64_t reserved_[8]; /**< room to grow */
	} data;
	const char *label;      /**< NULL when none; not NUL-terminated; valid until the reader closes (a removed segment's of a rotated trace: zeros once the reader is two segments past it, ggmlviz_reader_next(3)) */
	uint32_t label_len;     /**< bytes of label */
	uint32_t size;          /**< bytes of the whole record */
	uint64_t offset;        /**< byte offset of the record in the file */
	/**
	 * the 32 payload bytes as stored (borrowed, like label; for a record
	 * a reader gave from a PACK record, valid until its next call)
	 */
	const uint8_t *payload;
	uint64_t reserved[4];   /**< room to grow */
};

/**
 * @brief Describes an error code in one sentence.
 *
 * @param code a code returned by a libggmlviz function: one of
 *        enum ggmlviz_error, a negative errno value, or 0.
 * @return a static, NUL-terminated English sentence (borrowed: never free
 *         it). Never NULL: an unknown code gets "unknown error".
 */
const char *ggmlviz_strerror(int code);

/**
 * @brief Names a record type.
 *
 * @param type a record type byte.
 * @return a static string such as "OP_COMPUTE_BEGIN" (borrowed), or
 *         "UNKNOWN" for a type this library does not know.
 */
const char *ggmlviz_event_type_name(uint8_t type);

/**
 * @brief Names a metadata kind.
 *
 * @param kind a value of enum ggmlviz_meta_kind.
 * @return a static string such as "OP_NAME" (borrowed), or "UNKNOWN".
 */
const char *ggmlviz_meta_kind_name(uint32_t kind);

/**
 * @brief The version of the library linked in (which may differ from the
 * headers a program was compiled with).
 *
 * @return MAJOR * 10000 + MINOR * 100 + PATCH; compare with
 *         #GGMLVIZ_VERSION_NUMBER.
 */
unsigned ggmlviz_version_number(void);

/**
 * @brief The version of the library linked in, as a string.
 *
 * @return a static string such as "0.2.0" (borrowed).
 */
const char *ggmlviz_version_string(void);

/**
 * @brief Writes the 12-byte file header (magic and version 1).
 *
 * @param out where to write (at least #GGMLVIZ_HEADER_SIZE bytes).
 * @param size bytes available at @p out.
 * @return #GGMLVIZ_HEADER_SIZE; -EINVAL if @p out is NULL; -ENOBUFS if
 *         @p size is too small (nothing written).
 */
int ggmlviz_encode_header(void *out, size_t size);

/**
 * @brief The size of the record that ggmlviz_encode_record() writes for @p ev.
 *
 * @param ev the record: its @c label and @c label_len are read.
 * @return 46 without a label, 50 + label_len with one; -EINVAL if @p ev
 *         is NULL or its label is longer than #GGMLVIZ_LABEL_LIMIT.
 */
int ggmlviz_record_size(const struct ggmlviz_event *ev);

/**
 * @brief Writes one record: its fixed part, payload and label.
 *
 * The payload of a known type is encoded from the member of @c data that
 * the type uses, every "zero" byte written as zero; that of a type this
 * library does not know is copied from @c payload (zeros if it is NULL).
 * A record read by ggmlviz_reader_next() is thus written again byte for
 * byte, but for garbage an old writer left in zero bytes.
 *
 * @param ev the record (borrowed); @c offset, @c size and @c reserved are
 *        not read. @c label may be NULL (no label).
 * @param out where to write.
 * @param size bytes available at @p out.
 * @return the bytes written (ggmlviz_record_size()); -EINVAL if @p ev or
 *         @p out is NULL or the label is longer than
 *         #GGMLVIZ_LABEL_LIMIT; -ENOBUFS if @p size is too small (nothing
 *         written).
 */
int ggmlviz_encode_record(const struct ggmlviz_event *ev, void *out, size_t size);

/**
 * @brief Decodes the record at the start of @p data, in place.
 *
 * @param data the bytes of a record (borrowed: @p ev's @c label and
 *        @c payload point into them).
 * @param size bytes at @p data.
 * @param ev filled when a record is returned; its @c offset is set to 0.
 * @return the size of the record (46 or more); GGMLVIZ_ETRUNCATED if
 *         @p data ends inside it; GGMLVIZ_ECORRUPT if it cannot be valid
 *         (has_label not 0 or 1, label longer than #GGMLVIZ_LABEL_LIMIT);
 *         -EINVAL if @p data or @p ev is NULL.
 */
int ggmlviz_decode_record(const void *data, size_t size, struct ggmlviz_event *ev);

/** @brief How a payload field is stored and what it means. */
enum ggmlviz_field_kind {
	GGMLVIZ_FIELD_U8 = 1,    /**< an unsigned byte */
	GGMLVIZ_FIELD_U32 = 2,   /**< an unsigned 32-bit number */
	GGMLVIZ_FIELD_I32 = 3,   /**< a signed 32-bit number */
	GGMLVIZ_FIELD_U64 = 4,   /**< an unsigned 64-bit number */
	GGMLVIZ_FIELD_I64 = 5,   /**< a signed 64-bit number */
	GGMLVIZ_FIELD_ADDRESS = 6, /**< a u64 address (best shown in hex) */
	GGMLVIZ_FIELD_OP_TYPE = 7, /**< a u32 op type, named by META OP_NAME */
	GGMLVIZ_FIELD_BACKEND = 8, /**< a u64 backend address, named by META BACKEND_NAME */
	GGMLVIZ_FIELD_META_KIND = 9, /**< a u32 enum ggmlviz_meta_kind */
	GGMLVIZ_FIELD_DIMS = 10  /**< four u32 dimensions */
};

/** @brief ggmlviz_field flags. */
enum ggmlviz_field_flag {
	/** Another reading of bytes an earlier field of the list already covers. */
	GGMLVIZ_FIELD_ALIAS = 1
};

/** @brief One field of a record type's payload. */
struct ggmlviz_field {
	const char *name; /**< its name, as ggmlviz dump shows it ("tensor", "op_type") */
	uint8_t kind;     /**< enum ggmlviz_field_kind */
	uint8_t offset;   /**< byte offset in the 32-byte payload */
	uint8_t size;     /**< bytes it takes there */
	uint8_t flags;    /**< enum ggmlviz_field_flag bits */
	uint32_t reserved; /**< zero */
};

/**
 * @brief The fields of a record type's payload, in payload order.
 *
 * The same table decodes records (ggmlviz_decode_record()), encodes them
 * (ggmlviz_encode_record()) and lets a tool print any type generically.
 *
 * @param type a record type.
 * @param count receives the number of fields; 0 for a type this library
 *        does not know. Must not be NULL.
 * @return the fields (a static array, borrowed), or NULL when @p count is 0.
 */
const struct ggmlviz_field *ggmlviz_event_fields(uint8_t type, size_t *count);

/**
 * @brief Reads a field from a payload.
 *
 * @param payload the 32 payload bytes of a record (an event's @c payload).
 * @param field a field of the record's type (ggmlviz_event_fields()).
 * @param index which dimension of a GGMLVIZ_FIELD_DIMS field (0 to 3); 0
 *        for the other kinds.
 * @return the value, signed kinds sign-extended to 64 bits; 0 if an
 *         argument is NULL or @p index is out of range.
 */
uint64_t ggmlviz_field_get(const uint8_t *payload, const struct ggmlviz_field *field,
			   unsigned index);

GGMLVIZ__PUBLIC_END

#ifdef __cplusplus
}
#endif

#endif /* GGMLVIZ_FORMAT_H */
