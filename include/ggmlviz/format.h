/*
 * libggmlviz: the GGMLVIZ v1 trace format, shared by the tracer and the reader.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_FORMAT_H
#define GGMLVIZ_FORMAT_H

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

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

/** @brief Version of libggmlviz, as a string. */
#define GGMLVIZ_VERSION_STRING "0.1.0"
/** @brief Major version of libggmlviz. */
#define GGMLVIZ_VERSION_MAJOR 0
/** @brief Minor version of libggmlviz. */
#define GGMLVIZ_VERSION_MINOR 1
/** @brief Patch version of libggmlviz. */
#define GGMLVIZ_VERSION_PATCH 0

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
 * @brief Record types (the u8 at offset 0 of every record).
 *
 * 0 to 8 are the original GGMLVIZ v1 types; 9 and up are libggmlviz's
 * extensions, which keep the 46-byte fixed part so that any v1 reader skips
 * them.
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
	GGMLVIZ_EVENT_TYPE_COUNT = 15          /**< one past the last type this library knows */
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
	GGMLVIZ_META_TRACE_END = 6     /**< value = events written, value2 = events dropped; written last */
};

/**
 * @brief Format errors, returned as negative codes.
 *
 * They are distinct from every negative errno value, which the library
 * returns for operating-system errors. ggmlviz_strerror() describes both.
 */
enum ggmlviz_error {
	GGMLVIZ_EMAGIC = -10001,     /**< not a GGMLVIZ file (wrong magic, or shorter than a header) */
	GGMLVIZ_EVERSION = -10002,   /**< a GGMLVIZ version this library cannot read */
	GGMLVIZ_ETRUNCATED = -10003, /**< the data ends inside a record: crash, or still being written */
	GGMLVIZ_ECORRUPT = -10004    /**< a record that cannot be valid (bad has_label, label too long) */
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

#ifdef __cplusplus
}
#endif

#endif /* GGMLVIZ_FORMAT_H */
