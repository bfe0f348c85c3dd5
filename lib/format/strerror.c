/*
 * The format's words: error sentences, and the names of record types and
 * metadata kinds.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <string.h>

#include <ggmlviz/format.h>

const char *ggmlviz_strerror(int code)
{
	switch (code) {
	case 0:
		return "success";
	case GGMLVIZ_EMAGIC:
		return "not a GGMLVIZ trace (the file does not start with the magic \"GGMLVIZ1\")";
	case GGMLVIZ_EVERSION:
		return "unsupported GGMLVIZ version (this library reads version 1)";
	case GGMLVIZ_ETRUNCATED:
		return "the trace ends inside a record (cut short by a crash, or still being written)";
	case GGMLVIZ_ECORRUPT:
		return "corrupt record (has_label is not 0 or 1, or the label length is impossible)";
	case GGMLVIZ_ESETTING:
		return "no setting of that name (ggmlviz_setting_name() lists them)";
	case GGMLVIZ_ETYPE:
		return "the setting's value is not a number: set it as text";
	case GGMLVIZ_EVALUE:
		return "not a value the setting takes (out of its range, or not of its form)";
	case GGMLVIZ_EACTIVE:
		return "tracing is active: settings are set before ggmlviz_start() or after ggmlviz_stop()";
	default:
		break;
	}
	if (code < 0 && code > -4096) {
#ifdef HAVE_STRERRORDESC_NP
		const char *s = strerrordesc_np(-code);
		if (s)
			return s;
#else
		return strerror(-code);
#endif
	}
	return "unknown error";
}

static const char *const type_names[GGMLVIZ_EVENT_TYPE_COUNT] = {
	"GRAPH_COMPUTE_BEGIN", "GRAPH_COMPUTE_END", "OP_COMPUTE_BEGIN", "OP_COMPUTE_END",
	"TENSOR_ALLOC",        "TENSOR_FREE",       "BARRIER_WAIT",     "THREAD_BEGIN",
	"THREAD_FREE",         "META",              "MARK",             "COUNTER",
	"SCOPE_BEGIN",         "SCOPE_END",         "OP_INFO",          "OP_NODE",
	"STEP_BEGIN",          "STEP_END",          "SPLIT_BEGIN",      "SPLIT_END",
	"KERNEL",              "STEP_SEQ",          "OP_BYTES",         "OP_SUMMARY",
	"REQUEST_BEGIN",       "REQUEST_END",       "REQUEST_STAGE",    "OP_SHARE",
	"DESC_SET",            "OP_TIMES",          "SHARE_TIMES",
	/* 31 to 35: not this library's (UNKNOWN, as a type from the future) */
	[31] = "UNKNOWN", "UNKNOWN", "UNKNOWN", "UNKNOWN", "UNKNOWN",
	[GGMLVIZ_EVENT_RPC_BEGIN] = "RPC_BEGIN", "RPC_END", "RPC_STAGE", "PACK",
};

const char *ggmlviz_event_type_name(uint8_t type)
{
	return type < GGMLVIZ_EVENT_TYPE_COUNT ? type_names[type] : "UNKNOWN";
}

const char *ggmlviz_meta_kind_name(uint32_t kind)
{
	static const char *const names[] = {
		"UNKNOWN", "OP_NAME", "THREAD_NAME", "BACKEND_NAME",
		"PROCESS", "DROPPED", "TRACE_END",   "CRASH", "GPU",         "PEAK",
		"SAMPLE",  "SHARES",      "CLOCK",       "GPU_WINDOW",  "THREADS",
		"DEVICE",  "USAGE",       "SEGMENT",     "SEGMENT_END", "FLIGHT",
		"SNAPSHOT",
		[GGMLVIZ_META_RPC_CONNECTION] = "RPC_CONNECTION", "RPC_CLOCK",
	};
	const char *name = kind < sizeof names / sizeof names[0] ? names[kind] : NULL;

	return name ? name : "UNKNOWN"; /* 21 to 23: not this library's */
}
