/*
 * libggmlviz: timing a graph computation node by node without changing it.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_NODES_H
#define GGMLVIZ_NODES_H

#include <stddef.h>
#include <stdint.h>
#include <ggmlviz/format.h>

#ifdef __cplusplus
extern "C" {
#endif

GGMLVIZ__PUBLIC_BEGIN

/**
 * @file nodes.h
 * @brief The half of the GGML and llama.cpp adapters that needs no GGML:
 * runs of nodes, per-node ticks, and the records they become.
 *
 * A scheduler asks, for each node of a split in order, whether the
 * application wants to see it (an eval callback); answering "no" to every
 * ask keeps the graph whole. GGML's CPU backend then calls its abort
 * callback from its first thread once after each node it computed. The
 * adapters pass both on here, on the computing thread:
 * ggmlviz_nodes_ask() for each ask, ggmlviz_nodes_tick() for each call
 * after a node, ggmlviz_nodes_flush() when a graph or step ends. An ask
 * that repeats a split graph's last run is recorded by
 * ggmlviz_nodes_ask_again() alone, where that can be done, and a GGML built
 * with libggmlviz's edit gives a repeated split's asks after its first to
 * ggmlviz_nodes_ask_rest() at once.
 *
 * Consecutive asks for nodes of one backend, with no tick between, form a
 * run (a split). When the run ends (the next run's first ask, or a flush),
 * the library asks the adapter to describe each node
 * (ggmlviz_node_describe_fn), and records:
 * - SPLIT_BEGIN/END around the run, from its first ask to its last tick
 *   (or, on a backend that gives no ticks, to the next run's first ask:
 *   its work, its input copies and its synchronization);
 * - when the ticks received are exactly the ticks the nodes should give,
 *   for each node that gives one: OP_COMPUTE_BEGIN at the tick before it
 *   (the run's compute start for the first), OP_INFO, OP_NODE (method
 *   GGMLVIZ_OP_METHOD_TICK) and OP_COMPUTE_END at its own tick. A pair of
 *   nodes the backend computed in one kernel (GGMLVIZ_NODE_FUSED) is one
 *   timing labelled "first + second", its op type 2^31 | first | second
 *   << 16, named "FIRST+SECOND";
 * - when they differ, no op timing at all for that run: a mismatch is
 *   never guessed through. SPLIT_END then carries both counts, and
 *   ggmlviz_stats::timing_mismatches counts the run.
 *
 * Ticks are ignored while op timing is off, in GGMLVIZ_OP_TIMING_SYNC mode
 * (where the adapter times each node itself) and in steps or graphs that
 * op sampling leaves out (ggmlviz_ops_timing() says GGMLVIZ_OP_TIMING_OFF).
 *
 * Nothing here blocks or takes a lock; a thread's run memory is allocated
 * on its first ask and grows only with the largest run seen.
 */

/** @brief What the adapter tells of a node when its run ends. */
struct ggmlviz_node_desc {
	uint32_t op_type;       /**< the op type recorded (the first node's, for a fused pair) */
	uint32_t op_type2;      /**< fused pair: the second node's op type; 0 otherwise */
	uint32_t ticks;         /**< ticks this node gives: 1 if the backend computes it, else 0 */
	/**
	 * GGMLVIZ_NODE_FUSED: this node and the next give one tick together;
	 * GGMLVIZ_NODE_ENCODER or GGMLVIZ_NODE_DECODER: its layer is the
	 * encoder's or the decoder's (recorded in its OP_NODE)
	 */
	uint32_t flags;
	int32_t layer;          /**< the model layer it belongs to, -1 for none */
	uint32_t reserved32;    /**< zero */
	uint64_t size;          /**< bytes of its output */
	uint64_t flops;         /**< estimated floating-point operations, 0 if unknown */
	int64_t ne[4];          /**< dimensions of its output */
	const void *src[2];     /**< its first two sources (a view: what it views), or NULL */
	const char *name;       /**< its name, or NULL (borrowed until the run is recorded) */
	const char *name2;      /**< fused pair: the second node's name, or NULL */
	const char *op_name;    /**< the name of op_type ("MUL_MAT"), or NULL */
	const char *op_name2;   /**< fused pair: the name of op_type2 */
	const char *type_name;  /**< its element type ("f32"), or NULL */
	uint64_t bytes_read;    /**< bytes of its sources it reads; 0 if unknown (then no OP_BYTES) */
	uint64_t bytes_written; /**< bytes of its output it writes */
	uint64_t reserved[2];   /**< zero */
};

/**
 * @brief Describes node @p i of a run that is being recorded.
 *
 * @param user what was given to ggmlviz_nodes_ask() with the run's first node.
 * @param nodes the run's nodes, in order (borrowed during the call).
 * @param n how many.
 * @param i which one to describe.
 * @param out zeroed, with layer -1; fill what is known. Pointers stored in
 *        it must stay valid until the whole run is recorded.
 */
typedef void (*ggmlviz_node_describe_fn)(void *user, const void *const *nodes, size_t n,
					 size_t i, struct ggmlviz_node_desc *out);

/**
 * @brief A scheduler asked about a node: it joins the calling thread's run.
 *
 * Ends the current run first (records it) if a tick came since the last
 * ask, if @p backend differs from the run's, or if @p describe or @p user
 * differ from the run's. Call it on the thread that computes the graph.
 *
 * @param node the node (stored as an address, read only by @p describe).
 * @param backend the backend that computes it (an address; 0/NULL allowed).
 * @param describe how to describe the run's nodes when it is recorded.
 * @param user passed to @p describe (borrowed until the run is recorded).
 * @return 0; -EINVAL if @p node or @p describe is NULL; -ENOMEM (the node
 *         is counted in the run but not described: the run gets a split
 *         timing only). Nothing is done and 0 returned while op timing is
 *         off.
 */
int ggmlviz_nodes_ask(const void *node, const void *backend, ggmlviz_node_describe_fn describe,
		      void *user);

/**
 * @brief The calling thread's next run is the split graph of this id.
 *
 * GGML gives each split of a scheduled graph an id (struct ggml_cgraph's
 * uid) when it splits the graph, and a new one each time it splits it
 * again, so that one id means the same nodes, unchanged: a CUDA backend
 * replays the CUDA graph it captured on that alone. A GGML built with
 * libggmlviz's edit (contrib/llama.cpp/ggmlviz-edit.py --sched-graph-ids)
 * calls this before it asks about a split's nodes. The run that the next
 * ggmlviz_nodes_ask() on this thread opens takes the id (a run still open
 * is ended first: an id begins a split), and when it is recorded, its
 * descriptions are those of the last run recorded with that id, if that
 * run had the same describe function, user and nodes in the same order,
 * instead of asking for each node again: what llama.cpp's tokens cost the
 * adapter, when it reuses its graph, is then its asks, ticks and records.
 * The last few runs' descriptions are kept, on each thread.
 *
 * A GGML without the edit never calls it. For such a GGML, a describe
 * function may name the run itself: while ggmlviz_nodes_naming() says so
 * (describing the first node of a run that can take a name), this names
 * that run and nothing else; the id the thread had set for its next run,
 * and the split's backend, are as they were. A run named as one of the
 * thread's last 8 named runs was is kept, and a later run of that name
 * with the same nodes takes its descriptions: its describe function is
 * called for its first node only. A name never given again keeps
 * nothing. The GGML adapter names a run by a hash of what its
 * descriptions are made of, so that a graph computed again unchanged is
 * described once (<ggmlviz/ggml-name.h>).
 * No lock, no system call; memory only when a new id's run is kept.
 *
 * @param id the split graph's id; 0 says none (nothing kept or reused).
 */
void ggmlviz_nodes_graph_id(uint64_t id);

/**
 * @brief Whether the run whose first node is being described can take a
 * name from its describe function (ggmlviz_nodes_graph_id()).
 *
 * For a describe function (ggmlviz_node_describe_fn), while it describes
 * a run's first node: a run GGML gave no id can be named, if each of its
 * nodes was stored, descriptions are given once (not
 * GGML_VIZ_DESCRIBE_ONCE=0), and its nodes are neither described as they
 * tick (NVTX level 2) nor timed one by one (sync mode). After it gives the
 * name, this says whether a run of that name, with the same describe
 * function, user and nodes in the same order, was kept: the run then
 * takes that run's descriptions, and the describe function may return
 * without describing the node (it is not asked for the others).
 *
 * No lock, no system call, no allocation.
 *
 * @return 0 when no name is taken now (outside a describe function, at a
 *         node other than a run's first, or for a run that cannot be
 *         named); 1 while a name can be given; 2 after it was given, when
 *         a run of that name, describe function, user and nodes was kept.
 */
int ggmlviz_nodes_naming(void);

/**
 * @brief The calling thread's next run is a split of this id computed by
 * this backend: ggmlviz_nodes_graph_id(), and the split's backend.
 *
 * A GGML built with libggmlviz's edit (contrib/llama.cpp/ggmlviz-edit.py
 * --sched-graph-ids) calls this instead of ggmlviz_nodes_graph_id()
 * before it asks about a split's nodes: every node of a split is computed
 * by the split's backend, so that an eval callback need not look each
 * node's backend up (GGML's scheduler finds it in a hash table, a cache
 * miss or more a node once the weights streamed through the caches):
 * ggmlviz_nodes_split_backend() says it until the thread's next split, or
 * its run is flushed (ggmlviz_nodes_flush()).
 *
 * No lock, no system call, no allocation.
 *
 * @param id the split graph's id, as ggmlviz_nodes_graph_id() takes it.
 * @param backend the split's backend (a ggml_backend_t), by address only:
 *        the tracer never reads it; NULL says none.
 */
void ggmlviz_nodes_split(uint64_t id, const void *backend);

/**
 * @brief The backend of the split whose nodes the calling thread is asked
 * about, as ggmlviz_nodes_split() gave it.
 *
 * The GGML adapter's eval callback takes a node's backend from here when
 * it can, and from the scheduler otherwise.
 *
 * @return the backend (borrowed, never read by the tracer); NULL when the
 *         thread's last split gave none (a GGML without the edit), or
 *         its run was flushed since.
 */
const void *ggmlviz_nodes_split_backend(void);

/**
 * @brief Whether the node the calling thread's last ggmlviz_nodes_ask()
 * asked about was asked before: the same node, at the same place, in the
 * last run of the same split graph (ggmlviz_nodes_split()) in this
 * session, with the same describer.
 *
 * A split GGML's scheduler computes again keeps its nodes and their
 * buffers (a new allocation gives its splits new ids), so an adapter
 * need not read again what it read of such a node the first time: the
 * GGML adapter's memory tracking looks at a node's buffers only when
 * this says 0. No lock, no system call, no allocation.
 *
 * @return 1 when it was; 0 when it was not, the ask was refused or not
 *         recorded (tracing off, no ops, out of memory), the run has no
 *         split id (a GGML without libggmlviz's edit), or no node was
 *         asked about on this thread.
 */
int ggmlviz_nodes_asked_before(void);

/**
 * @brief Records an ask that repeats the last run of the same split graph,
 * with none of ggmlviz_nodes_ask()'s work, where that can be done.
 *
 * An adapter calls it first for each ask, and calls ggmlviz_nodes_ask()
 * only when it returns 0. Each call also keeps @p node as the split's
 * last node asked through the adapter, which ggmlviz_nodes_ask_rest()
 * reads where no op is timed. It returns 1 when the calling thread's open run
 * is the split graph (ggmlviz_nodes_split(), or the graph of
 * ggmlviz_nodes_graph_id()) whose last run in this
 * session had the same describer and @p user, @p node is the node at the
 * place it had there, and the adapter did not call
 * ggmlviz_nodes_ask_always() during that run or this one: then the ask is
 * recorded as ggmlviz_nodes_ask() would record it (the run's descriptions
 * are the kept ones), ggmlviz_nodes_asked_before() says 1, and the
 * adapter has nothing more to do for the node. llama.cpp computes the
 * same split graph at every token, and its asks then cost a few loads and
 * stores a node, where the full ask looks the node up and the adapter
 * reads its struct (doc/cost.md).
 *
 * It returns 0, recording nothing, for the first ask of a run (it has the
 * split's id), after a tick (the run computed: the next ask begins
 * another), for a node not at its place, while the run is ranged by NVTX
 * or its ticks are ignored (sync mode, op sampling), and while op timing
 * is off. No lock, no system call, no allocation (the run's room for the
 * kept run's nodes is made at its first ask). The node's backend and
 * describer are taken to be the run's: an adapter calls it only where it
 * would give ggmlviz_nodes_ask() the same ones as for the run's first
 * node (every node of a split has the split's backend).
 *
 * @param node the node asked about (an address, never read).
 * @param user the @p user the adapter gives ggmlviz_nodes_ask().
 * @return 1 when the ask was recorded; 0 when it was not (any case above,
 *         no run open on the thread, or no room made for the kept run's
 *         nodes at the run's first ask, out of memory), and the caller
 *         asks with ggmlviz_nodes_ask().
 */
int ggmlviz_nodes_ask_again(const void *node, const void *user);

/**
 * @brief Records at once the asks that follow a split's first, where
 * each would be taken alone by ggmlviz_nodes_ask_again().
 *
 * A scheduler that asks an eval callback about a split's nodes in order
 * calls it after the callback's ask of @p from - 1 nodes of @p nodes (the
 * split's, in order), instead of asking about the next ones: a GGML built
 * with libggmlviz's edit (contrib/llama.cpp/ggmlviz-edit.py
 * --sched-graph-ids) does, after the first node's ask. It records, one
 * after the other from place @p from, each node that
 * ggmlviz_nodes_ask_again() would record with @p user, and stops at the
 * first that it would not, or at @p n. The scheduler then asks its
 * callback about the nodes from the returned place on, as it would have,
 * and the callback is not called for the nodes recorded here: llama.cpp's
 * repeated split is then asked once, where each ask was a call through the
 * callback (doc/cost.md). The nodes recorded are recorded as the asks
 * would have recorded them.
 *
 * It records nothing when the calling thread's open run does not hold
 * @p from nodes asked, the last of them @p nodes[@p from - 1] (the
 * callback did not pass the split's first ask to ggmlviz_nodes_ask(), so
 * that the split's id still waits for it, or the run is another's), and in
 * every case where ggmlviz_nodes_ask_again() returns 0 for the node at
 * @p from. An adapter whose callback must see every ask (one that
 * passes asks on to an application's callback, or does work of its own at
 * each) calls ggmlviz_nodes_ask_always() at the split's first ask.
 *
 * In a session of steps alone (op timing off), and with no session
 * running (before the first start, after a stop: a context traced before
 * keeps the tracer's callbacks), no run keeps a split's nodes: each
 * thread keeps instead the last 8 splits it saw asked in full (by the
 * session, whether it tracks memory, the split's id from
 * ggmlviz_nodes_split(), @p user, @p n and the first and last nodes'
 * addresses), and returns @p n for a split kept, which the scheduler then
 * computes at once. Only where the node before, @p nodes[@p from - 1],
 * was the last given to ggmlviz_nodes_ask_again() since the split's
 * ggmlviz_nodes_split(), as the GGML adapter's callback gives each: a
 * scheduler whose eval callback is another's has every node asked. A
 * split of no id, or one for which ggmlviz_nodes_ask_always() was called
 * since its ggmlviz_nodes_split(), is asked in full each time. A thread's
 * first such call in a session makes its node state (pages of the
 * library's own, once a thread, as a thread's first ask does); with no
 * session none is made, and a thread without it is asked in full. No
 * lock, no system call; no allocation after that first call.
 *
 * @param user the @p user the adapter gives ggmlviz_nodes_ask().
 * @param nodes the split's nodes, in the order asked (addresses, never
 *        read through; borrowed for the call).
 * @param from how many of @p nodes were asked already: the place of the
 *        first to record.
 * @param n how many nodes @p nodes holds.
 * @return the place of the first node not recorded: @p n when every one
 *         was, @p from when none was (any case above); -EINVAL when
 *         @p nodes is NULL, @p from is below 1 or @p n is below @p from.
 */
int ggmlviz_nodes_ask_rest(const void *user, const void *const *nodes, int from, int n);

/**
 * @brief Says that the calling thread's open run needs each of its nodes
 * asked in full whenever its split graph runs again.
 *
 * An adapter that does work of its own at a node's ask, every time the
 * node is computed, calls it after that ask (ggmlviz_nodes_ask()): the
 * GGML adapter does when memory tracking counts an input that the
 * scheduler copied into the run (COUNTER sched_copy_bytes), and when the
 * application's own eval callback is chained to it (it sees every ask).
 * The rest of this run and the next run of the same split are then asked
 * node by node, ggmlviz_nodes_ask_again() returning 0 and
 * ggmlviz_nodes_ask_rest() recording nothing, and the next run says it
 * again if it still needs to. With no op timed (a session of steps
 * alone, or none running) or no open run on the thread, the split being
 * asked since the last ggmlviz_nodes_split() is asked in full this time
 * and not kept to be taken at once (ggmlviz_nodes_ask_rest()). No lock, no system call, no
 * allocation.
 */
void ggmlviz_nodes_ask_always(void);

/**
 * @brief The backend finished computing a node (GGML's CPU abort callback).
 *
 * Takes the time and counts the tick in the calling thread's run; no lock,
 * no system call, no allocation. Ignored when the thread has no run, and in
 * the cases listed in nodes.h. Right after the thread's own share of the
 * node ended (ggmlviz_cpu_share_end()), the tick's time is that share's
 * end, and the tick is held until the thread's ggmlviz_cpu_graph_done(),
 * which gives the graph's held ticks to the run in order.
 */
void ggmlviz_nodes_tick(void);

/**
 * @brief A GPU backend's own time of a node of the calling thread's run.
 *
 * For a backend that measures each node itself (GGML's Vulkan backend:
 * a timestamp query after each node, read once the graph is done): the
 * node's op is then recorded at that time when its run ends, with method
 * #GGMLVIZ_OP_METHOD_GPU, where it would otherwise be timed by the kernels
 * tied to it. Times are given as how long ago, from this call, the node
 * began and ended on the GPU (the backend's timestamps against the end of
 * its wait for the graph), so that no clock of the GPU's need be known
 * here. A computing node of the run given no time was computed with the
 * node before it (fused): that op names both.
 *
 * @param node a node of the calling thread's open run (as asked).
 * @param began_ns_ago how long ago it began, in ns.
 * @param ended_ns_ago how long ago it ended, in ns (at most began_ns_ago).
 * @return 0; -EINVAL if @p node is NULL or it ended before it began;
 *         -ENOENT if the calling thread has no open run holding @p node
 *         (or its ops are not timed now). No lock, no system call, no
 *         allocation.
 */
int ggmlviz_nodes_gpu_time(const void *node, uint64_t began_ns_ago, uint64_t ended_ns_ago);

/**
 * @brief A worker thread of GGML's CPU backend begins its share of a node.
 *
 * Called by a GGML built with libggmlviz's edit (contrib/llama.cpp/
 * ggmlviz-cpu.h, which scripts/build-llama-tools.sh puts into
 * ggml-cpu.c) on every worker thread, before it computes its share of
 * each node of the graph; ggmlviz_cpu_share_end() after it, and
 * ggmlviz_cpu_graph_done() after the graph's last barrier. The shares
 * become SHARE_TIMES records on each worker's thread (ggmlviz(5), "Packed
 * times"), and the nodes' ops are timed from them
 * (#GGMLVIZ_OP_METHOD_MEASURED) instead of from the ticks. Nothing is
 * done unless a session traces ops.
 *
 * A thread's first call for a pool takes a lock and maybe memory (its
 * slot, 960 KiB of address space, of which its 256 KiB of stamps are
 * cleared then and the rest is taken as it is used); after it, no lock,
 * no system call, no allocation, no
 * division: a time read and a store.
 *
 * @param pool the graph's thread pool (GGML's struct ggml_threadpool), by
 *        address only: it is never read.
 * @param ith the calling worker's index in the pool (0: the thread that
 *        computes the graph for its caller).
 * @param node the node's place in the graph (cgraph->nodes[node]); past
 *        16383 it is counted, not followed.
 */
void ggmlviz_cpu_share_begin(const void *pool, int ith, int node);

/**
 * @brief A pool's one thread begins its share of a node where its last share ended.
 *
 * ggmlviz_cpu_share_begin() without a time read, for a graph computed by
 * one thread (GGML's params.nth == 1), where no barrier stands between
 * two shares: the share begins at the end of the calling thread's last
 * share of this graph (ggmlviz_cpu_share_end()), and the graph's first
 * share, or one after ggmlviz_cpu_graph_done() or after an end that
 * was not kept (a session stopped inside the share before), reads the
 * time as ggmlviz_cpu_share_begin() does. What ran between two shares
 * (GGML's loop, the views it skips, thread 0's tick, and an abort
 * callback that the program chained to the tick: a few ns, unless that
 * callback takes longer) is then part of the later share, not the wait
 * of the earlier one. With more than one thread a share begins after a
 * barrier, which only a time read measures: call
 * ggmlviz_cpu_share_begin() there. A thread's first call for a pool takes
 * its slot, as ggmlviz_cpu_share_begin() does; after it, what
 * ggmlviz_cpu_share_begin() does but its time read: no lock, no system
 * call, no allocation, no division.
 *
 * @param pool the graph's thread pool, by address only.
 * @param ith the calling worker's index in the pool (0 where it computes alone).
 * @param node the node's place in the graph; past 16383 it is counted,
 *        not followed.
 */
void ggmlviz_cpu_share_next(const void *pool, int ith, int node);

/**
 * @brief The worker thread ends its share of the node that it began.
 *
 * See ggmlviz_cpu_share_begin(). @p node is the place given at the begin,
 * also where the backend computed that node and the next ones together
 * (fused): the share is theirs.
 *
 * @param pool the graph's thread pool, as at the begin.
 * @param ith the calling worker's index, as at the begin.
 * @param node the node's place, as at the begin.
 */
void ggmlviz_cpu_share_end(const void *pool, int ith, int node);

/**
 * @brief An op's type, as the trace records it, for a node: what
 * ggmlviz_cpu_graph_done() writes for each share.
 */
typedef uint32_t (*ggmlviz_node_op_fn)(const void *node);

/**
 * @brief A worker thread of GGML's CPU backend is past a graph's last barrier.
 *
 * Writes the calling thread's shares of the graph (each share's compute,
 * and its wait at the barrier after it: until its next share began, or
 * until now for the last) on its own ring: as one SHARE_TIMES record (a
 * few for a graph past 512 nodes) of 8 bytes a share, with each share's
 * node and op type only when the thread's nodes differ from its last
 * graph's (a DEFINE); as OP_SHARE records where the times do not pack (a
 * share or wait past 4.29 s) or the session writes every description
 * (GGML_VIZ_DESCRIBE_ONCE=0). From three threads on, each worker but
 * thread 0 first folds a slice of the graph's nodes over every worker's
 * shares (each node's first begin and last end) into its own slot, and
 * marks it with thread 0's begin of the graph's first node and its own. On
 * thread 0 it gives each node of the calling thread's run its first
 * begin and last end: from the workers' slices marked for this graph,
 * and from every worker's shares, which the barrier made visible, where
 * a slice is not (two threads; a worker still folding, or held up past
 * the next graph's start); a begin that two cores' counters put before the
 * end of the node before it (the barrier ordered them) is moved to that
 * end. The node's op is recorded with those times when the run ends. A
 * node that no run of the calling thread asked about is counted
 * (ggmlviz_stats.shares_unattributed, and the session's META SHARES
 * record at its stop), never attributed.
 * In rolling mode and sync mode nothing is written (the ticks time the
 * ops as they do without the edit). In every mode, the ticks that the
 * calling thread held through the graph (ggmlviz_nodes_tick()) are given
 * to its run first.
 *
 * @param pool the graph's thread pool, as at the shares.
 * @param ith the calling worker's index.
 * @param nth the pool's threads for this graph.
 * @param nodes the graph's nodes (cgraph->nodes), borrowed for the call;
 *        the tracer passes each to @p op_of and records its address.
 * @param n_nodes how many.
 * @param op_of the op type of a node, as the trace's OP records give it
 *        (ggmlviz_ggml_op_type()); NULL: 0. Called, where the thread's
 *        nodes are new (a DEFINE), for every node it has a share of, in
 *        one loop before any record is written, so that the processor
 *        waits for many nodes' memory at once; not called for a graph
 *        whose nodes are those of the thread's last one.
 * @return the shares written (0 also when nothing is traced, or the
 *         calling thread began no share of this pool); -EINVAL if
 *         @p nodes is NULL, @p n_nodes negative or @p nth under 1.
 */
int ggmlviz_cpu_graph_done(const void *pool, int ith, int nth, const void *const *nodes,
			   int n_nodes, ggmlviz_node_op_fn op_of);

/**
 * @brief Records the calling thread's run now (a graph or a step ends).
 *
 * @return 0 (also when there was no run). Records that a full ring could
 *         not take are counted as dropped, like any event.
 */
int ggmlviz_nodes_flush(void);

/**
 * @brief The layer a tensor name says it belongs to.
 *
 * After dropping trailing " (...)" groups (" (view)", " (permuted)"), a
 * trailing "-N" (llama.cpp's "Qcur-3"), a trailing "_lN" (its KV cache
 * "cache_k_l3"), a "blk.N." at the start or after a dot (GGUF weight
 * names), or else a "blocks.N." there (whisper.cpp's model file:
 * "encoder.blocks.3.attn.query.weight") gives N.
 *
 * @param name the name (need not be NUL-terminated), or NULL.
 * @param len its bytes.
 * @return the layer, 0 to 2^31 - 1; -1 when the name says none.
 */
int32_t ggmlviz_layer_of_name(const char *name, size_t len);

GGMLVIZ__PUBLIC_END

#ifdef __cplusplus
}
#endif

#endif /* GGMLVIZ_NODES_H */
