/*
 * Human-readable durations, sizes and dates for text output. Machine
 * formats (CSV, JSON, JSONL) write plain integers instead.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <time.h>

#include "output/output.h"

const char *cli_s(uint64_t n)
{
	return n == 1 ? "" : "s";
}

const char *cli_fmt_ns(double ns, char buf[32])
{
	if (ns < 1e3)
		snprintf(buf, 32, "%.0f ns", ns);
	else if (ns < 1e6)
		snprintf(buf, 32, "%.3f us", ns / 1e3);
	else if (ns < 1e9)
		snprintf(buf, 32, "%.3f ms", ns / 1e6);
	else
		snprintf(buf, 32, "%.3f s", ns / 1e9);
	return buf;
}

const char *cli_fmt_bytes(uint64_t bytes, char buf[32])
{
	static const char *const units[] = { "KiB", "MiB", "GiB", "TiB", "PiB", "EiB" };
	double v = (double)bytes;
	int u = -1;

	if (bytes < 1024) {
		snprintf(buf, 32, "%" PRIu64 " B", bytes);
		return buf;
	}
	while (v >= 1024 && u < 5)
		v /= 1024, u++;
	snprintf(buf, 32, "%.3f %s", v, units[u]);
	return buf;
}

bool cli_clock_is_steady(uint64_t ns)
{
	return ns < UINT64_C(978307200000000000); /* before 2001: no wall clock says that */
}

const char *cli_fmt_epoch(uint64_t ns, char buf[40])
{
	time_t secs = (time_t)(ns / 1000000000u);
	struct tm tm;

	if (!gmtime_r(&secs, &tm) || !strftime(buf, 40, "%Y-%m-%dT%H:%M:%S", &tm)) {
		snprintf(buf, 40, "%" PRIu64 " ns", ns);
		return buf;
	}
	snprintf(buf + 19, 21, ".%09" PRIu64 "Z", ns % 1000000000u);
	return buf;
}
