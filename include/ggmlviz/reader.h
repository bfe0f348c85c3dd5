/*
 * libggmlviz: reading GGMLVIZ traces, for analysis tools.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_READER_H
#define GGMLVIZ_READER_H

#include <stddef.h>
#include <stdint.h>
#include <ggmlviz/format.h>

#ifdef __cplusplus
extern "C" {
#endif

GGMLVIZ__PUBLIC_BEGIN

/**
 * @file reader.h
 * @brief Iterate the records of a GGMLVIZ v1 trace, and pair begins with ends.
 *
 * The reader maps the file (or borrows a buffer) and decodes records in
 * place: labels point into the data, nothing is copied. Its memory does not
 * grow with the trace: only the ops open at one time and the names seen
 * (ops, backends, threads) are kept.
 *
 * @code
 * struct ggmlviz_reader *r;
 * struct ggmlviz_event ev;
 * int rc = ggmlviz_reader_open("run.ggmlviz", &r);
 * if (rc < 0) { fprintf(stderr, "%s\n", ggmlviz_strerror(rc)); return 1; }
 * while ((rc = ggmlviz_reader_next(r, &ev)) == 1)
 *         printf("%s at %llu\n", ggmlviz_event_type_name(ev.type),
 *                (unsigned long long)ev.timestamp_ns);
 * if (rc < 0)
 *         fprintf(stderr, "%s at byte %llu\n", ggmlviz_strerror(rc),
 *                 (unsigned long long)ggmlviz_reader_offset(r));
 * ggmlviz_reader_close(r);
 * @endcode
 */

/** @brief An open trace (opaque). Create it with ggmlviz_reader_open(). */
struct ggmlviz_reader;

/*
 * struct ggmlviz_event, one decoded record, is declared in <ggmlviz/format.h>,
 * which this header includes.
 */

/**
 * @brief Opens a trace file for reading (it is mapped, not copied).
 *
 * The file may still be being written: see ggmlviz_reader_refresh().
 * A file that cannot be mapped (a pipe, a character device) is read to
 * its end into memory instead; ggmlviz_reader_refresh() then returns
 * -ENOTSUP.
 *
 * The name of a rotated trace (GGML_VIZ_ROTATE) reads the segments kept,
 * in a row, as one trace (ggmlviz_reader_segments()).
 *
 * @param path the file to read.
 * @param out receives the new reader; the caller frees it with
 *        ggmlviz_reader_close(). Set to NULL on failure.
 * @return 0 on success; GGMLVIZ_EMAGIC if the file is shorter than a
 *         header (an empty file too, even one a tracer has just created)
 *         or does not start with "GGMLVIZ1"; GGMLVIZ_EVERSION if
 *         its version is not 1; -EINVAL if an argument is NULL; -ENOMEM;
 *         or the negative errno of open(), fstat() or mmap() (-ENOENT,
 *         -EACCES, -EISDIR, ...).
 */
int ggmlviz_reader_open(const char *path, struct ggmlviz_reader **out);

/**
 * @brief Opens a trace from a file the caller opened, knowing its name.
 *
 * As ggmlviz_reader_open(), for a file the caller opened (and checked:
 * a program that must never wait on a FIFO opens with O_NONBLOCK and
 * looks with fstat() first). The reader reads a duplicate of @p fd (the
 * caller keeps @p fd, and closes it when it will). Where @p name is the
 * file's name and the file is the live segment of a rotated trace, the
 * reader finds the trace's other segments by that name (each opened
 * without waiting, regular files only), as ggmlviz_reader_open() of the
 * name does.
 *
 * @param fd an open descriptor of the trace, readable.
 * @param name the trace's name, or NULL: the file is read alone.
 * @param out receives the new reader; the caller frees it with
 *        ggmlviz_reader_close(). Set to NULL on failure.
 * @return 0 on success; the codes of ggmlviz_reader_open(); -EBADF if
 *         @p fd is not an open descriptor.
 */
int ggmlviz_reader_open_fd(int fd, const char *name, struct ggmlviz_reader **out);

/**
 * @brief Opens a trace held in memory.
 *
 * @param data the trace bytes (borrowed: they must outlive the reader).
 * @param size how many bytes @p data holds.
 * @param out receives the new reader; the caller frees it with
 *        ggmlviz_reader_close(). Set to NULL on failure.
 * @return 0 on success; GGMLVIZ_EMAGIC; GGMLVIZ_EVERSION; -EINVAL if
 *         @p data or @p out is NULL; -ENOMEM.
 */
int ggmlviz_reader_open_memory(const void *data, size_t size, struct ggmlviz_reader **out);

/**
 * @brief Decodes the next record.
 *
 * @param r the reader.
 * @param ev filled with the record when 1 is returned; says nothing otherwise.
 * @return 1 when @p ev holds a record; 0 at a clean end of the data (a
 *         record boundary); GGMLVIZ_ETRUNCATED when the data ends inside a
 *         record, after every complete record before it was delivered (the
 *         next call returns it again until ggmlviz_reader_refresh() finds
 *         more data); GGMLVIZ_ECORRUPT when the record at
 *         ggmlviz_reader_offset() cannot be valid (every call returns it
 *         again); -ESTALE once ggmlviz_reader_refresh() has found the file
 *         shrunk (every call returns it again); -ENOMEM if the name carried
 *         by a META record could not be stored (that record is not
 *         consumed: the next call tries it again).
 */
int ggmlviz_reader_next(struct ggmlviz_reader *r, struct ggmlviz_event *ev);

/**
 * @brief Looks again at the size of a file still being written.
 *
 * After it, ggmlviz_reader_next() goes on from the record that was cut,
 * if the file has grown. Pointers handed out before stay valid.
 *
 * @param r the reader.
 * @return the number of new bytes seen (0 if none; INT_MAX if more);
 *         -ENOTSUP for a reader opened from memory or from a pipe; -ESTALE
 *         if the file shrank (it was replaced or truncated: reopen it;
 *         ggmlviz_reader_next() then returns -ESTALE too); or the negative
 *         errno of fstat() or mmap().
 */
int ggmlviz_reader_refresh(struct ggmlviz_reader *r);

/**
 * @brief Starts reading again from the first record.
 *
 * The names seen are kept; the pairing state of ggmlviz_reader_next_timing() is
 * reset (its counts start from zero, graphs are numbered from 1 again).
 * An error of ggmlviz_reader_next() is forgotten, except -ESTALE: a
 * corrupt record is found again when the reading reaches it.
 *
 * @param r the reader.
 */
void ggmlviz_reader_rewind(struct ggmlviz_reader *r);

/**
 * @brief Closes a reader and releases everything it holds.
 *
 * Every label pointer it handed out becomes invalid.
 *
 * @param r the reader, or NULL (nothing happens).
 */
void ggmlviz_reader_close(struct ggmlviz_reader *r);

/**
 * @brief Where the reader is.
 *
 * @param r the reader.
 * @return the byte offset of the next record to read; after an error, the
 *         offset of the record that was cut or corrupt.
 */
uint64_t ggmlviz_reader_offset(const struct ggmlviz_reader *r);

/**
 * @brief Says in one sentence what stops ggmlviz_reader_next() at
 * ggmlviz_reader_offset(): the byte offset and the bytes at fault.
 *
 * For example "corrupt record at byte 1234: has_label is 7 (must be 0 or
 * 1)", "corrupt record at byte 1234: label_length is 4294967295, more than
 * the 1048576-byte limit", or "truncated at byte 1234: the data ends 20
 * bytes into the last record, which holds 66 bytes". When nothing is wrong
 * it says so ("no error ...").
 *
 * @param r the reader.
 * @param buf receives the NUL-terminated sentence, cut to fit; may be NULL
 *        when @p size is 0.
 * @param size bytes of @p buf.
 * @return the length of the whole sentence, as snprintf() counts it (it
 *         was cut if that is @p size or more); -EINVAL if @p buf is NULL
 *         and @p size is not 0.
 */
int ggmlviz_reader_describe(const struct ggmlviz_reader *r, char *buf, size_t size);

/**
 * @brief How many bytes of data the reader knows of.
 *
 * @param r the reader.
 * @return the size of the data, header included, as of the open or the
 *         last ggmlviz_reader_refresh().
 */
uint64_t ggmlviz_reader_size(const struct ggmlviz_reader *r);

/**
 * @brief Where a reader of a rotated trace stands (ggmlviz_reader_segments()).
 *
 * A trace written with GGML_VIZ_ROTATE is a row of segments: the live one
 * at the trace's name, the ones that ended at NAME.1, NAME.2, ... (the
 * oldest removed past the number kept). ggmlviz_reader_open() of the
 * trace's name reads the segments still there in a row, as one trace.
 */
struct ggmlviz_segments {
	uint32_t first;       /**< the number of the first segment read (1 unless the oldest were removed) */
	uint32_t current;     /**< the number of the segment read now */
	uint32_t missing;     /**< segments after the first that were removed before the reader reached them */
	uint32_t replaced;    /**< 1: the trace's name holds another trace now (its writer began anew): no more of this one comes */
	uint32_t reserved[4]; /**< zero; room for what later versions say */
};

/**
 * @brief Whether the reader reads a rotated trace's segments in a row, and
 * which.
 *
 * A segment opened by its own name (NAME.3), a trace that does not rotate
 * and a reader on memory read one file: 0.
 *
 * @param r the reader.
 * @param out receives the segments read, when the return is 1 (zeroed
 *        when it is 0).
 * @return 1 if @p r reads a rotated trace's segments in a row; 0 if it
 *         reads one file; -EINVAL if @p r or @p out is NULL.
 */
int ggmlviz_reader_segments(const struct ggmlviz_reader *r, struct ggmlviz_segments *out);

/**
 * @brief Name of an op type, from the trace's OP_NAME records read so far.
 *
 * A later OP_NAME record for the same op_type replaces the name; a string
 * returned before stays valid, with its old text, until the reader closes.
 * META records without a label name nothing. The same holds for
 * ggmlviz_reader_backend_name() and ggmlviz_reader_thread_name().
 *
 * @param r the reader.
 * @param op_type an op_type value of the trace.
 * @return a NUL-terminated name owned by the reader (valid until it
 *         closes), or NULL if no OP_NAME record for it was read yet.
 */
const char *ggmlviz_reader_op_name(const struct ggmlviz_reader *r, uint32_t op_type);

/**
 * @brief Writes the name of an op type, whatever the trace says of it.
 *
 * The trace's own name (ggmlviz_reader_op_name()); else, for a fused
 * pair's type (#GGMLVIZ_OP_TYPE_FUSED: what the GPU pairing gives a node
 * that one kernel computed with the node after it), its two ops' names
 * joined by "+" ("RMS_NORM+MUL"); a type, or a part of a pair, that no
 * OP_NAME record read so far names is written "op#N" ("MUL_MAT+op#100").
 * The tools print op types so.
 *
 * @param r the reader.
 * @param op_type an op_type value of the trace.
 * @param buf receives the NUL-terminated name, cut to fit; may be NULL
 *        when @p size is 0.
 * @param size bytes of @p buf.
 * @return the length of the whole name, as snprintf() counts it (it was
 *         cut if that is @p size or more); -EINVAL if @p r is NULL, or
 *         @p buf is NULL and @p size is not 0.
 */
int ggmlviz_reader_write_op_name(const struct ggmlviz_reader *r, uint32_t op_type, char *buf,
				 size_t size);

/**
 * @brief Name of a backend, from the BACKEND_NAME records read so far.
 *
 * @param r the reader.
 * @param backend_ptr a backend_ptr value of the trace.
 * @return a NUL-terminated name owned by the reader, or NULL if unknown.
 */
const char *ggmlviz_reader_backend_name(const struct ggmlviz_reader *r, uint64_t backend_ptr);

/**
 * @brief Name of a thread, from the THREAD_NAME records read so far, or
 * the label of its THREAD_BEGIN (how the original ggml-viz named threads).
 *
 * @param r the reader.
 * @param thread_id a thread_id value of the trace.
 * @return a NUL-terminated name owned by the reader, or NULL if unknown.
 */
const char *ggmlviz_reader_thread_name(const struct ggmlviz_reader *r, uint32_t thread_id);

/** @brief What a ggmlviz_timing measures. */
enum ggmlviz_timing_kind {
	GGMLVIZ_TIMING_OP = 1,    /**< an OP_COMPUTE_BEGIN/END pair */
	GGMLVIZ_TIMING_GRAPH = 2, /**< a GRAPH_COMPUTE_BEGIN/END pair */
	GGMLVIZ_TIMING_SCOPE = 3, /**< a SCOPE_BEGIN/END pair */
	GGMLVIZ_TIMING_STEP = 4,  /**< a STEP_BEGIN/END pair: one llama_decode() */
	GGMLVIZ_TIMING_SPLIT = 5, /**< a SPLIT_BEGIN/END pair: one backend's run of nodes */
	/**
	 * A KERNEL record: a kernel the GPU ran, on its GPU track; ptr is the
	 * node it was tied to (0: none), op_type that node's.
	 */
	GGMLVIZ_TIMING_KERNEL = 6,
	/**
	 * An OP_SUMMARY record: the ops of one type and backend that a step
	 * ran, summed, where the step was not recorded op by op. op_type and
	 * backend_ptr are theirs; n_nodes is how many they were, duration_ns
	 * their total time and value the longest; begin_ns and end_ns the
	 * record's time; step_seq, n_tokens and phase those of the step
	 * around it on its thread; n_threads 1, the steps it sums; method
	 * #GGMLVIZ_OP_METHOD_TICK (the tracer sums the ops GGML's CPU
	 * backend ticked). One that sums a window of steps
	 * (GGML_VIZ_OP_WINDOW, #GGMLVIZ_OP_WINDOW_BODY): begin_ns its first
	 * step's summary time, end_ns its last's, n_threads the steps it
	 * sums, phase theirs, step_seq and n_tokens 0.
	 */
	GGMLVIZ_TIMING_OP_SUMMARY = 7,
	/**
	 * A request to a server, from its REQUEST_BEGIN to its REQUEST_END,
	 * whatever threads wrote them: ptr is its id, op_type its kind (enum
	 * ggmlviz_request_kind), begin_ns its arrival and end_ns its end,
	 * value when its slot began on its prompt (0: never) and
	 * first_token_ns when its first token was sampled (0: none), seq_id
	 * its slot (-1: none), status enum ggmlviz_request_status, n_tokens
	 * its prompt's tokens, context_tokens the cached ones of those,
	 * n_nodes the tokens it generated; label is its begin's label (what
	 * it asked for), type_name its end's (why it stopped).
	 */
	GGMLVIZ_TIMING_REQUEST = 8,
	/**
	 * An OP_SHARE record: one worker thread's share of a node that GGML's
	 * CPU backend measured. ptr is the node, op_type its op, thread_id the
	 * worker's; begin_ns to end_ns the share's compute (duration_ns);
	 * value the worker's wait at the barrier after it, in ns; n_nodes the
	 * node's place in its graph; n_threads the pool's threads; ticks the
	 * worker's index in the pool; step_seq, n_tokens and phase those of the
	 * newest step; method #GGMLVIZ_OP_METHOD_MEASURED.
	 */
	GGMLVIZ_TIMING_SHARE = 9
};

/**
 * @brief One begin paired with its end.
 *
 * An op's OP_INFO, OP_BYTES and OP_NODE fields come from its own records,
 * or, for an op of a run that a DESC_SET record says repeats a set of
 * descriptions (a graph GGML ran before: ggmlviz(5), "Descriptions given
 * once"), from those its tensor had in that set; its method is then the
 * DESC_SET's if it has no OP_NODE of its own. Such a type_name is the
 * engine's copy, valid until it is freed.
 */
struct ggmlviz_timing {
	int kind;             /**< a value of enum ggmlviz_timing_kind */
	uint64_t ptr;         /**< tensor_ptr or graph_ptr (0 for a scope) */
	uint32_t op_type;     /**< the op's type (0 for graphs and scopes) */
	uint32_t thread_id;   /**< the thread of both records; an op timed on a GPU and a kernel: the GPU track (#GGMLVIZ_GPU_TRACK) */
	uint64_t begin_ns;    /**< timestamp of the begin */
	uint64_t end_ns;      /**< timestamp of the end */
	uint64_t duration_ns; /**< end_ns - begin_ns (0 if the clock went backwards) */
	const char *label;    /**< the begin's label, not NUL-terminated, or NULL */
	uint32_t label_len;   /**< bytes of label */
	uint64_t graph_seq;   /**< 1, 2, ... for each graph begun; an op's enclosing graph; 0 = none */
	uint64_t op_size;     /**< op: bytes of the output */
	uint64_t backend_ptr; /**< op, graph, split: the backend (0 = CPU / unknown) */
	uint32_t n_nodes;     /**< graph, split: nodes */
	uint32_t n_threads;   /**< graph: threads */
	uint32_t depth;       /**< open timings of the same thread around this one; on a
				   GPU track, an op timed by kernels 0 and its kernels 1 */
	uint64_t value;       /**< scope: the begin's value */
	int64_t ne[4];        /**< op: output dimensions, from OP_INFO (zeros if none) */
	uint64_t flops;       /**< op: estimated work from OP_INFO, 0 if unknown */
	const char *type_name;  /**< op: element type from OP_INFO, not NUL-terminated, or NULL */
	uint32_t type_name_len; /**< bytes of type_name */
	uint64_t begin_offset;  /**< byte offset of the begin record */
	uint64_t end_offset;    /**< byte offset of the end record */
	/**
	 * 1, 2, ... for each step begun; for an op, split or graph, the step
	 * around it (its thread's innermost, else the newest of any thread);
	 * 0 = none.
	 */
	uint64_t step_seq;
	/**
	 * op: the model layer, from OP_NODE, else what its label says
	 * (ggmlviz_layer_of_name()); -1 = none (also for other kinds).
	 */
	int32_t layer;
	uint8_t method;         /**< op: enum ggmlviz_op_method, from OP_NODE */
	uint8_t node_flags;     /**< op: enum ggmlviz_node_flag bits, from OP_NODE */
	/**
	 * step (and what is inside it: its ops, splits and their kernels):
	 * whether its GPU kernels were recorded, where the session recorded
	 * them in sampled windows (enum ggmlviz_gpu_window, from the META
	 * GPU_WINDOW records read before it); GGMLVIZ_GPU_WINDOW_NONE in a
	 * trace without windows. A step that CUPTI attached in the middle of
	 * takes the window's state from there: the ops it began before keep
	 * the state they began in. (Formerly the first byte of reserved16,
	 * which was zero.)
	 */
	uint8_t gpu_window;
	uint8_t reserved8;      /**< zero */
	uint32_t n_tokens;      /**< step (and what is inside it): tokens of the batch */
	uint32_t phase;         /**< step (and what is inside it): enum ggmlviz_phase */
	int32_t status;         /**< step: what it returned (its STEP_END's status) */
	uint32_t n_timed;       /**< split: its nodes that got an op timing of their own */
	uint32_t ticks;         /**< split: per-node calls received from the backend */
	uint32_t ticks_expected; /**< split: per-node calls its nodes should give */
	uint64_t src[2];        /**< op: its first two sources (a node's tensor_ptr, or a weight or input), from OP_NODE */
	/**
	 * split, and op or kernel of a GPU run: the run's id (SPLIT_BEGIN),
	 * which ties a run's kernels to its nodes; 0 = none.
	 */
	uint64_t run_id;
	/**
	 * op timed on a GPU (method GGMLVIZ_OP_METHOD_GPU): the time its
	 * kernels ran, summed (begin_ns to end_ns spans them, first start to
	 * last end), or, timed by the backend's own timestamps (a GPU run
	 * without kernels: Vulkan), its duration; kernel: its duration. A
	 * kernel that began before the kernel launched before it on its
	 * stream ended (programmatic dependent launch) is timed from that
	 * end here (its KERNEL record keeps CUPTI's start: ggmlviz(5)).
	 */
	uint64_t gpu_ns;
	uint32_t n_kernels;     /**< op timed on a GPU: kernels tied to it */
	uint32_t stream;        /**< kernel: the stream it ran on */
	uint32_t n_seqs;        /**< step: sequences of its batch (its STEP_SEQ records); 0 = not recorded */
	int32_t seq_id;         /**< step: its first sequence (when n_seqs > 0) */
	/**
	 * step: tokens already in the context of its sequences, the most of
	 * any (the length of the context it attends to); 0 when n_seqs is 0.
	 */
	uint32_t context_tokens;
	uint32_t context_cells; /**< step: the context's cells in use before it, every sequence's; 0 = unknown */
	uint64_t bytes_read;    /**< op: bytes of its sources it reads, from OP_BYTES; 0 = unknown */
	uint64_t bytes_written; /**< op: bytes of its output it writes, from OP_BYTES */
	/**
	 * request: when its first token was sampled (REQUEST_STAGE
	 * FIRST_TOKEN), 0 = none. (Formerly reserved[0], which was zero.)
	 */
	uint64_t first_token_ns;
};

/** @brief How pairing went so far. */
struct ggmlviz_pairing_counts {
	uint64_t paired;          /**< timings completed */
	uint64_t unmatched_ends;  /**< ends with no open begin (not invented) */
	uint64_t unclosed_begins; /**< begins that never got their end: abandoned by their graph's end, or open at the end */
	uint64_t open;            /**< begins open right now */
	/**
	 * Begins not followed because #GGMLVIZ_PAIRING_MAX_OPEN begins were
	 * open, or #GGMLVIZ_PAIRING_MAX_THREADS threads had begins open,
	 * already (their ends then count as unmatched): memory stays bounded
	 * on any input.
	 */
	uint64_t over_limit;
	/** KERNEL records that could not be tied to a node of their run (kept as untied kernels). */
	uint64_t kernels_untied;
	/**
	 * Nodes of GPU runs that got no kernel and were not fused into
	 * another's (their run's kernels never came, or stopped short): no
	 * op timing, counted here.
	 */
	uint64_t gpu_nodes_untimed;
	uint64_t reserved[1];     /**< room to grow */
};

/**
 * @brief The most op types, backends and threads a reader keeps a name
 * for, each; names past it (and past 32 MiB of names in all) are not kept,
 * as if the trace had none.
 */
#define GGMLVIZ_READER_MAX_NAMES 65536
/** @brief Names are kept up to this many bytes (longer ones are cut). */
#define GGMLVIZ_READER_NAME_MAX 256

/** @brief The most begins a pairing engine keeps open at once (ggmlviz_pairing_counts::over_limit). */
#define GGMLVIZ_PAIRING_MAX_OPEN 65536
/**
 * @brief The most threads a pairing engine follows at one time: threads
 * with begins open (those with none are forgotten as others come).
 */
#define GGMLVIZ_PAIRING_MAX_THREADS 65536

/**
 * @brief Reads on until a begin/end pair completes, and reports it.
 *
 * An end pairs with the most recent open begin of the same kind, thread and
 * address (tensor_ptr, graph_ptr, or scope label), not by position: begin
 * A, begin B, end A, end B gives A and B. An address reused later pairs
 * with its own begin. Ends without a begin and begins never ended are
 * counted (ggmlviz_reader_pairing_counts()), never invented. When a graph ends,
 * the ops still open inside it on its thread are abandoned (counted as
 * unclosed), so memory stays bounded by what is open at one time.
 * It consumes records through ggmlviz_reader_next(): do not mix the two on
 * one reader, or use a ggmlviz_pairing of your own. To follow a file still
 * being written, use a ggmlviz_pairing of your own too, and call
 * ggmlviz_pairing_finish() only when the trace is complete: at every clean
 * end of the data, this function counts what is open as unclosed.
 *
 * @param r the reader.
 * @param t filled with the timing when 1 is returned.
 * @return 1 when @p t holds a timing; 0 at the clean end of the data (the
 *         begins still open are then counted as unclosed); -ENOMEM; or
 *         what ggmlviz_reader_next() returned (GGMLVIZ_ETRUNCATED,
 *         GGMLVIZ_ECORRUPT).
 */
int ggmlviz_reader_next_timing(struct ggmlviz_reader *r, struct ggmlviz_timing *t);

/**
 * @brief The pairing counts of ggmlviz_reader_next_timing() on this reader.
 *
 * @param r the reader.
 * @param out filled in; must not be NULL.
 */
void ggmlviz_reader_pairing_counts(const struct ggmlviz_reader *r,
				   struct ggmlviz_pairing_counts *out);

/**
 * @brief Ops of ggmlviz_reader_next_timing() on this reader that were left
 * without their descriptions (ggmlviz_pairing_undescribed()).
 *
 * @param r the reader.
 * @return how many so far.
 */
uint64_t ggmlviz_reader_undescribed(const struct ggmlviz_reader *r);

/**
 * @brief Deprecated: ggmlviz_reader_next_timing(), its name until 0.2.
 *
 * @param r the reader.
 * @param t filled with the timing when 1 is returned.
 * @return what ggmlviz_reader_next_timing() returns.
 */
int ggmlviz_timings_next(struct ggmlviz_reader *r, struct ggmlviz_timing *t)
	GGMLVIZ__DEPRECATED("use ggmlviz_reader_next_timing()");

/**
 * @brief Deprecated: ggmlviz_reader_pairing_counts(), its name until 0.2.
 *
 * @param r the reader.
 * @param out filled in; must not be NULL.
 */
void ggmlviz_timings_counts(const struct ggmlviz_reader *r, struct ggmlviz_pairing_counts *out)
	GGMLVIZ__DEPRECATED("use ggmlviz_reader_pairing_counts()");

/** @brief A pairing engine fed with events by the caller (opaque). */
struct ggmlviz_pairing;

/**
 * @brief Creates a pairing engine, for events from any source.
 *
 * Use it to pair events while also looking at each one, or events of
 * several readers.
 *
 * @param out receives the new engine; the caller frees it with
 *        ggmlviz_pairing_free(). Set to NULL on failure.
 * @return 0 on success; -EINVAL if @p out is NULL; -ENOMEM.
 */
int ggmlviz_pairing_new(struct ggmlviz_pairing **out);

/**
 * @brief Feeds one event, in the order of its thread.
 *
 * The labels of events are kept by address, not copied: they must stay
 * valid while their pair is open, and, for the ops and kernels of a GPU
 * run, until their timings are taken (true of a reader's events until it
 * closes).
 *
 * The ops of a GPU run (method GGMLVIZ_OP_METHOD_GPU) are held until the
 * run's kernels (KERNEL records, which come later) are in: one event may
 * then complete many timings, the ops at their kernels' times and the
 * kernels themselves. The first is returned here; take the others with
 * ggmlviz_pairing_take() after each call.
 *
 * @param p the engine.
 * @param ev the event; events that begin, end or describe nothing are ignored.
 * @param t filled with a timing when 1 is returned.
 * @return 1 when a timing is now in @p t; 0 otherwise; -ENOMEM (the event
 *         is then counted as if never seen).
 */
int ggmlviz_pairing_add(struct ggmlviz_pairing *p, const struct ggmlviz_event *ev,
			struct ggmlviz_timing *t);

/**
 * @brief Takes a timing completed earlier and not yet returned.
 *
 * A GPU run's ops and kernels are completed together, by one event or by
 * ggmlviz_pairing_finish(): ggmlviz_pairing_add() returns the first, this
 * function the others, oldest first.
 *
 * @param p the engine.
 * @param t filled with the timing when 1 is returned.
 * @return 1 when a timing is now in @p t; 0 when none waits.
 */
int ggmlviz_pairing_take(struct ggmlviz_pairing *p, struct ggmlviz_timing *t);

/**
 * @brief Ends the input: every begin still open is counted as unclosed and
 * forgotten, and every GPU run still waiting for kernels is tied with
 * those it has (its timings then wait for ggmlviz_pairing_take()).
 *
 * @param p the engine.
 */
void ggmlviz_pairing_finish(struct ggmlviz_pairing *p);

/**
 * @brief Copies the engine's counts.
 *
 * @param p the engine.
 * @param out filled in; must not be NULL.
 */
void ggmlviz_pairing_counts(const struct ggmlviz_pairing *p, struct ggmlviz_pairing_counts *out);

/**
 * @brief Ops of runs that repeat a set of descriptions (DESC_SET REPEAT:
 * ggmlviz(5), "Descriptions given once") that the engine could not give
 * what they lack: shape, FLOPs, element type, bytes, layer, sources.
 *
 * The engine keeps the sets of descriptions within a bound (262144 ops in
 * all, the least recently used set of any thread going first, a thread's
 * sets going when its THREAD_FREE comes); an op of a REPEAT run
 * whose set, or whose own description in it, was not kept (the set went,
 * was never seen, or its DEFINE was past the bound) is given as it came,
 * and counted here. 0 for a trace written with every description
 * (GGML_VIZ_DESCRIBE_ONCE=0) or without repeated runs.
 *
 * @param p the engine.
 * @return how many so far.
 */
uint64_t ggmlviz_pairing_undescribed(const struct ggmlviz_pairing *p);

/**
 * @brief Frees a pairing engine.
 *
 * @param p the engine, or NULL (nothing happens).
 */
void ggmlviz_pairing_free(struct ggmlviz_pairing *p);

GGMLVIZ__PUBLIC_END

#ifdef __cplusplus
}
#endif

#endif /* GGMLVIZ_READER_H */
