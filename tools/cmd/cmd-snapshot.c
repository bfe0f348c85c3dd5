/*
 * ggmlviz snapshot: asks the running program that writes a trace, traced
 * with a flight recorder (GGML_VIZ_FLIGHT), for a snapshot of its last
 * seconds, and prints the snapshot's name once it is written. The ask is
 * a file beside the trace, TRACE.snapshot-ask, holding a token; the
 * tracer's writer looks for it after each pass (every flush interval),
 * takes the snapshot and answers in TRACE.snapshot-reply.TOKEN ("TOKEN
 * taken NAME" as it starts writing it, then "TOKEN ok NAME" or "TOKEN
 * error WHY"). ggmlviz(5), "Flight recorder", says it whole.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cmd/commands.h"
#include "input/input.h"
#include "base/opts.h"

static const char help[] =
	"Usage: ggmlviz snapshot [OPTIONS] TRACE\n"
	"\n"
	"Ask the running program that writes TRACE, traced with a flight recorder\n"
	"(GGML_VIZ_FLIGHT=SECONDS), for a snapshot: its last SECONDS, every op, as a\n"
	"trace of its own beside TRACE (TRACE less .ggmlviz, then .flight-N.ggmlviz).\n"
	"The program writes it within a flush interval (GGML_VIZ_FLUSH_INTERVAL, 100 ms)\n"
	"and this prints its name. Every command reads a snapshot as any trace.\n"
	"\n"
	"Options:\n"
	"  -t, --timeout TIME  wait this long for the answer (5s; ns, us, ms or s)\n"
	"  -h, --help          show this help\n"
	"\n"
	"Exit status: 0 the snapshot is written (its name printed); 1 none: TRACE is no\n"
	"trace, has ended, was written without a flight recorder, no program answered\n"
	"in time, or the program said why not (one snapshot a window at most); 2 bad\n"
	"command line.\n";

#define POLL_NS 20000000ull
#define WRITE_NS 600000000000ull /* a snapshot taken is waited for this long at most */
#define SCAN_RECORDS 64 /* META FLIGHT is among the first records of a trace */

struct snapshot_opts {
	uint64_t timeout_ns;
};

static int option(void *ctx, int c, char *arg)
{
	struct snapshot_opts *o = ctx;

	if (c != 't')
		return CLI_EXIT_USAGE;
	return cli_parse_duration("snapshot", "--timeout", arg, &o->timeout_ns);
}

static const struct option longopts[] = { { "timeout", required_argument, NULL, 't' },
					  { "help", no_argument, NULL, 'h' },
					  { NULL, 0, NULL, 0 } };

static const struct cli_cmd cmd = { "snapshot", help, "t:", longopts, 1, 1, option };

static void sleep_ns(uint64_t ns)
{
	struct timespec ts = { (time_t)(ns / 1000000000u), (long)(ns % 1000000000u) };

	nanosleep(&ts, NULL);
}

/* Whether the trace's start has META FLIGHT (1), or is a snapshot itself (-2); 0 neither, -1 unreadable. */
static int flight_of(const char *path)
{
	struct ggmlviz_reader *r;
	struct ggmlviz_event ev;
	int rc, found = 0;

	if ((rc = ggmlviz_reader_open(path, &r)) < 0) {
		cli_error("%s: %s", path, cli_unreadable_why(path, rc));
		return -1;
	}
	for (int i = 0; i < SCAN_RECORDS && !found && ggmlviz_reader_next(r, &ev) == 1; i++) {
		if (ev.type != GGMLVIZ_EVENT_META)
			continue;
		if (ev.data.meta.kind == GGMLVIZ_META_SNAPSHOT && i == 0)
			found = -2;
		else if (ev.data.meta.kind == GGMLVIZ_META_FLIGHT)
			found = 1;
	}
	ggmlviz_reader_close(r);
	return found;
}

/* Whether the file's last record is TRACE_END: the trace ended, its program stopped tracing. */
static bool ended(const char *path)
{
	uint8_t rec[GGMLVIZ_RECORD_SIZE];
	uint32_t kind;
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	bool end = false;

	if (fd < 0)
		return false;
	if (fstat(fd, &st) == 0 && st.st_size >= GGMLVIZ_HEADER_SIZE + GGMLVIZ_RECORD_SIZE &&
	    pread(fd, rec, sizeof rec, st.st_size - GGMLVIZ_RECORD_SIZE) == (ssize_t)sizeof rec) {
		kind = (uint32_t)rec[13] | (uint32_t)rec[14] << 8 | (uint32_t)rec[15] << 16 |
		       (uint32_t)rec[16] << 24; /* the payload's first field, little-endian */
		end = rec[0] == GGMLVIZ_EVENT_META && rec[45] == 0 && kind == GGMLVIZ_META_TRACE_END;
	}
	close(fd);
	return end;
}

/* Whether path is a trace a running program may take a snapshot of; said where not. */
static bool askable(const char *path)
{
	struct stat st;
	int flight;

	if (stat(path, &st) < 0) {
		cli_error("%s: %s", path, strerror(errno));
		return false;
	}
	if (!S_ISREG(st.st_mode)) {
		cli_error("%s: not a regular file: a flight recorder keeps a trace written to a file"
			  " of its own", path);
		return false;
	}
	if ((flight = flight_of(path)) < 0) {
		if (flight == -2)
			cli_error("%s: a snapshot itself: ask the trace it was taken of", path);
		return false;
	}
	if (!flight) {
		cli_error("%s: written without a flight recorder: start the program with"
			  " GGML_VIZ_FLIGHT=SECONDS (or GGML_VIZ_PRESET=server)", path);
		return false;
	}
	if (ended(path)) {
		cli_error("%s: the trace has ended (TRACE_END): no program writes it any more", path);
		return false;
	}
	return true;
}

/* The ask, TRACE.snapshot-ask holding token, made whole (a link): 0, or -errno (-EEXIST: another's). */
static int put_ask(const char *ask, const char *token)
{
	char part[4300];
	int fd, rc = 0;

	if (snprintf(part, sizeof part, "%s.%ld", ask, (long)getpid()) >= (int)sizeof part)
		return -ENAMETOOLONG;
	fd = open(part, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -errno;
	if (write(fd, token, strlen(token)) != (ssize_t)strlen(token))
		rc = -EIO;
	if (close(fd) < 0 && rc == 0)
		rc = -errno;
	if (rc == 0 && link(part, ask) < 0)
		rc = -errno;
	unlink(part);
	return rc;
}

/*
 * The reply's line, into line: 2 a final one ("ok" or "error": the file
 * removed), 1 "taken" (the snapshot is being written), 0 none yet.
 */
static int take_reply(const char *reply, const char *token, char *line, size_t size)
{
	FILE *f = fopen(reply, "r");
	size_t n = strlen(token);
	bool mine;

	if (!f)
		return 0;
	mine = fgets(line, (int)size, f) && strncmp(line, token, n) == 0 && line[n] == ' ';
	fclose(f);
	if (!mine)
		return 0;
	if (strncmp(line + n + 1, "taken ", 6) == 0)
		return 1;
	unlink(reply);
	return 2;
}

/* Our ask, if it is still there (no program took it), taken back. */
static void withdraw(const char *ask, const char *token)
{
	char line[128];
	FILE *f = fopen(ask, "r");
	bool mine;

	if (!f)
		return;
	mine = fgets(line, sizeof line, f) && strcmp(line, token) == 0;
	fclose(f);
	if (mine)
		unlink(ask);
}

/* The final answer's line: its name printed (0), or why not said (1). */
static int answer(const char *path, const char *line)
{
	if (strncmp(line, "ok ", 3) == 0) {
		printf("%s\n", line + 3);
		return fflush(stdout) ? CLI_EXIT_DAMAGED : CLI_EXIT_OK;
	}
	cli_error("%s: no snapshot: %s", path, strncmp(line, "error ", 6) == 0 ? line + 6 : line);
	return CLI_EXIT_DAMAGED;
}

/*
 * Asks, and waits for the answer: the exit status. The program takes the
 * ask within timeout_ns (or nobody writes the trace); once it said
 * "taken", the snapshot's write is waited for (WRITE_NS at most).
 */
static int ask_and_wait(const char *path, uint64_t timeout_ns)
{
	char ask[4200], reply[4300], token[64], line[4400];
	uint64_t deadline = cli_mono_ns() + timeout_ns;
	int rc, got = 0;

	snprintf(token, sizeof token, "%ld-%" PRIu64, (long)getpid(), cli_mono_ns());
	if (snprintf(ask, sizeof ask, "%s.snapshot-ask", path) >= (int)sizeof ask ||
	    snprintf(reply, sizeof reply, "%s.snapshot-reply.%s", path, token) >= (int)sizeof reply) {
		cli_error("%s: the name is too long", path);
		return CLI_EXIT_DAMAGED;
	}
	while ((rc = put_ask(ask, token)) == -EEXIST && cli_mono_ns() < deadline)
		sleep_ns(POLL_NS); /* another's ask, not taken yet */
	if (rc < 0) {
		cli_error("%s: cannot ask for a snapshot (%s): %s", path, ask, strerror(-rc));
		return CLI_EXIT_DAMAGED;
	}
	while ((got = take_reply(reply, token, line, sizeof line)) < 2) {
		if (got == 1 && deadline < cli_mono_ns() + WRITE_NS / 2)
			deadline = cli_mono_ns() + WRITE_NS; /* taken: being written */
		if (cli_mono_ns() >= deadline) {
			withdraw(ask, token);
			cli_error(got ? "%s: the snapshot was taken but not written in %.0f s"
				      : "%s: no answer in %.1f s: no running program writes this trace "
					"(it stopped, or crashed), or its writer is stuck",
				  path, got ? (double)WRITE_NS / 1e9 : (double)timeout_ns / 1e9);
			return CLI_EXIT_DAMAGED;
		}
		sleep_ns(POLL_NS);
	}
	line[strcspn(line, "\n")] = '\0';
	return answer(path, line + strlen(token) + 1);
}

int cli_cmd_snapshot(struct cli *cli, int argc, char **argv)
{
	struct snapshot_opts o = { 5000000000ull };
	int first, rc;

	(void)cli;
	if ((rc = cli_parse(&cmd, argc, argv, &o, &first)) >= 0)
		return rc;
	if (!o.timeout_ns)
		return cli_usage("snapshot", "--timeout must be more than 0");
	if (!askable(argv[first]))
		return CLI_EXIT_DAMAGED;
	return ask_and_wait(argv[first], o.timeout_ns);
}
