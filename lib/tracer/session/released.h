/*
 * struct ggmlviz_config as libggmlviz 0.2 released it: its size and every
 * member's offset, on the LP64 targets the library builds for (Linux on
 * x86-64 and aarch64). Programs built against 0.2 hold a config of this
 * layout, and the library reads and writes nothing past it. settings.c
 * asserts the current header against it; tests/test-abi-0.2.c asserts the
 * 0.2 header itself (tests/abi/v0.2/) against it, so that this list cannot
 * follow a change of the struct unseen.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_RELEASED_H
#define GGMLVIZ_RELEASED_H

#include <stddef.h>

#define GGMLVIZ__CONFIG_0_2_SIZE 136

/* X(member, offset) for every member, in order. */
#define GGMLVIZ__CONFIG_0_2_MEMBERS(X) \
	X(output, 0) \
	X(max_events, 8) \
	X(buffer_events, 16) \
	X(flush_interval_ms, 20) \
	X(op_timing, 24) \
	X(tensor_names, 28) \
	X(memory_tracking, 32) \
	X(thread_tracking, 36) \
	X(overflow, 40) \
	X(verbose, 44) \
	X(disable, 48) \
	X(log_fn, 56) \
	X(log_user, 64) \
	X(op_sample, 72) \
	X(crash_handler, 76) \
	X(anonymize, 80) \
	X(buffer_events_max, 84) \
	X(gpu_kernels, 88) \
	X(gpu_buffer_kib, 92) \
	X(cupti_path, 96) \
	X(peak_threads, 104) \
	X(cpu_shares_off, 108) \
	X(op_slow_us, 112) \
	X(describe_every, 120) \
	X(gpu_sample_k, 124) \
	X(gpu_sample_n, 126) \
	X(nvtx, 128) \
	X(reserved3_u32, 132)

#if defined(__LP64__)
#define GGMLVIZ__ASSERT_MEMBER_AT(member, at) \
	_Static_assert(offsetof(struct ggmlviz_config, member) == (at), \
		       "struct ggmlviz_config is 0.2's: " #member " stays at byte " #at);
#define GGMLVIZ__ASSERT_CONFIG_0_2() \
	_Static_assert(sizeof(struct ggmlviz_config) == GGMLVIZ__CONFIG_0_2_SIZE, \
		       "struct ggmlviz_config is 0.2's: 136 bytes"); \
	GGMLVIZ__CONFIG_0_2_MEMBERS(GGMLVIZ__ASSERT_MEMBER_AT)
#else
#define GGMLVIZ__ASSERT_CONFIG_0_2()
#endif

#endif /* GGMLVIZ_RELEASED_H */
