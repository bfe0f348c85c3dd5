/*
 * Numbers for people (fmt.c): durations, sizes, dates.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_FMT_H
#define CLI_FMT_H

#include <stdbool.h>
#include <stdint.h>

/* "12.345 ms": ns in the unit that suits it. */
const char *cli_fmt_ns(double ns, char buf[32]);
/* "1.500 MiB" (or "512 B"). */
const char *cli_fmt_bytes(uint64_t bytes, char buf[32]);
/*
 * Whether timestamps around ns come from a steady clock (time since boot,
 * as the original ggml-viz writer used) rather than the wall clock: they
 * fall before 2001.
 */
bool cli_clock_is_steady(uint64_t ns);
/* "2023-11-14T22:13:20.123456789Z" for epoch ns. */
const char *cli_fmt_epoch(uint64_t ns, char buf[40]);

#endif /* CLI_FMT_H */
