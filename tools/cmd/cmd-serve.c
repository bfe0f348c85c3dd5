/*
 * ggmlviz serve: traces followed as top follows them (serve/metrics.c),
 * their figures served as Prometheus metrics at /metrics (serve/expose.c)
 * by a small HTTP/1.1 server of the command's own (serve/http.c). One
 * thread: the traces are read about once a second, for a bounded time, and
 * every scrape is answered from what was read, whatever the traces do
 * meanwhile (grow, end, get cut or replaced). --once prints the metrics
 * once, for node_exporter's textfile collector or promtool.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <sys/stat.h>

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmd/commands.h"
#include "serve/serve.h"

static const char help[] =
	"Usage: ggmlviz serve [OPTIONS] FILE...\n"
	"\n"
	"Follow traces as they are written (as top does) and serve their figures as\n"
	"Prometheus metrics at http://HOST:PORT/metrics: histograms of a server's\n"
	"requests (queue time, prompt time, time to the first token, time per generated\n"
	"token, duration), requests ended by status and in flight, tokens and steps by\n"
	"phase, op time by op type and each op type's and model part's share of the\n"
	"last seconds, tensor memory by device, dropped events, and each trace's state\n"
	"(writing, ended, crashed, idle, cut, damaged, gone): an ended trace keeps its\n"
	"last values. Each sample is labelled by its trace, and by the pid and name of\n"
	"the process that wrote it, so that several servers (several traces, or one\n"
	"merged) are told apart.\n"
	"\n"
	"Options:\n"
	"  -l, --listen HOST:PORT  where to serve (default 127.0.0.1:9464; :PORT every\n"
	"                          address; port 0: one the system picks, said on\n"
	"                          standard error)\n"
	"      --buckets LIST      the latency histograms' bounds in seconds, comma-\n"
	"                          separated (default 0.001,0.0025,0.005,...,60,120)\n"
	"      --once              print the metrics of what the traces hold now, and\n"
	"                          exit (for promtool, or node_exporter's textfile\n"
	"                          collector)\n"
	"  -h, --help              show this help\n"
	"\n"
	"A FILE is followed as it grows, read again from its start when it is replaced\n"
	"or shrinks; a file shorter than a trace's header (a tracer has just made it) is\n"
	"waited for. A pipe or standard input cannot be followed.\n"
	"Exit status: 0 stopped by SIGINT or SIGTERM (--once: printed); 1 a FILE is no\n"
	"trace or cannot be read, or the address cannot be listened on (in use); 2 bad\n"
	"command line, or a FILE that is a pipe.\n";

#define OPT_BUCKETS 0x101
#define OPT_ONCE 0x102
#define NS_PER_MS 1000000ull
#define REFRESH_NS (1000 * NS_PER_MS) /* the traces read about once a second */
#define READ_NS (200 * NS_PER_MS)     /* ... for this long at most, so that scrapes are answered */
#define MAX_TRACES 64

struct serve {
	struct cli *cli;
	const char *listen;
	bool once;
	struct srv_bounds bounds;
	struct srv_trace *t[MAX_TRACES];
	size_t n;
};

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig)
{
	stop_signal = sig;
}

static int option(void *ctx, int c, char *arg)
{
	struct serve *s = ctx;
	char err[160];

	switch (c) {
	case 'l':
		s->listen = arg;
		return 0;
	case OPT_BUCKETS:
		if (srv_bounds_parse(&s->bounds, arg, err, sizeof err) < 0)
			return cli_usage("serve", "--buckets %s", err);
		return 0;
	case OPT_ONCE:
		s->once = true;
		return 0;
	default:
		return CLI_EXIT_USAGE;
	}
}

static const struct option longopts[] = {
	{ "listen", required_argument, NULL, 'l' }, { "buckets", required_argument, NULL, OPT_BUCKETS },
	{ "once", no_argument, NULL, OPT_ONCE }, { "help", no_argument, NULL, 'h' },
	{ NULL, 0, NULL, 0 }
};

static const struct cli_cmd cmd = { "serve", help, "l:", longopts, 1, MAX_TRACES, option };

/* ---- the traces ---- */

/* Whether path is a stream (a pipe, standard input): something neither a file nor a folder. */
static bool is_stream(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

/*
 * Whether paths[i] was named before it (the same file, or a name whose
 * label would read the same): followed once, said; 1, or -1 after a usage
 * message when two files would read as one trace.
 */
static int named_before(char **paths, size_t i)
{
	for (size_t j = 0; j < i; j++) {
		if (cli_same_file(paths[i], paths[j]) || !strcmp(paths[i], paths[j])) {
			cli_error("serve: %s is %s, named twice: followed once", paths[i], paths[j]);
			return 1;
		}
		if (srv_same_label(paths[i], paths[j])) {
			cli_usage("serve", "%s and %s are two files whose names read the same as a label "
				  "(bytes not UTF-8 replaced): their series would be one; name one otherwise "
				  "(a link)", paths[j], paths[i]);
			return -1;
		}
	}
	return 0;
}

static int open_traces(struct serve *s, char **paths, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		int rc = named_before(paths, i);

		if (rc < 0)
			return CLI_EXIT_USAGE;
		if (rc > 0)
			continue;
		if (is_stream(paths[i]))
			return cli_usage("serve", "%s is a pipe or another stream: serve follows a file as "
					 "it is written (GGML_VIZ_OUTPUT=FILE), and a stream can only be read to "
					 "its end", paths[i]);
		if (!(s->t[s->n] = calloc(1, sizeof *s->t[s->n])))
			return CLI_EXIT_DAMAGED;
		rc = srv_trace_open(s->t[s->n++], paths[i], &s->bounds, &s->cli->names);
		if (rc < 0) {
			cli_error("serve: %s: cannot read it: %s", paths[i],
				  rc == CLI_FOLLOW_NOT_FILE ? cli_follow_strerror(rc)
							    : cli_unreadable_why(paths[i], rc));
			return CLI_EXIT_DAMAGED;
		}
	}
	return 0;
}

static void close_traces(struct serve *s)
{
	for (size_t i = 0; i < s->n; i++) {
		srv_trace_close(s->t[i]);
		free(s->t[i]);
	}
	s->n = 0;
}

/* Reads what is new in every trace, until deadline_ns; 1 when some trace has more. */
static int read_traces(struct serve *s, uint64_t deadline_ns)
{
	int more = 0;

	for (size_t i = 0; i < s->n; i++) {
		int rc = srv_trace_advance(s->t[i], deadline_ns);

		if (rc == -ENOMEM)
			cli_error("serve: %s: out of memory: what was read so far is served", s->t[i]->path);
		more |= rc == 1;
	}
	return more;
}

/* ---- the pages ---- */

static int page(void *arg, const char *target, struct cli_out *body, const char **type)
{
	struct serve *s = arg;

	if (!strcmp(target, "/metrics")) {
		srv_expose(body, s->t, s->n);
		*type = SRV_EXPOSITION_TYPE;
		return 200;
	}
	if (!strcmp(target, "/")) {
		cli_out_str(body, "ggmlviz serve: the metrics are at /metrics\n");
		return 200;
	}
	cli_out_printf(body, "%s: no such page (the metrics are at /metrics)\n", target);
	return 404;
}

static int run_once(struct serve *s)
{
	struct cli_out o;

	while (read_traces(s, UINT64_MAX) == 1)
		;
	if (cli_out_open(&o, "serve", "-") < 0)
		return CLI_EXIT_DAMAGED;
	srv_expose(&o, s->t, s->n);
	return cli_out_close(&o, "serve");
}

static void on_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal; /* no SA_RESTART: poll() returns at once */
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	signal(SIGPIPE, SIG_IGN);
}

static int run_server(struct serve *s)
{
	struct srv_http h;
	uint64_t next = 0;
	int rc = srv_http_listen(&h, s->listen);

	if (rc != 0)
		return rc;
	on_signals();
	fprintf(stderr, "ggmlviz serve: serving http://%s/metrics (%zu trace%s)\n", h.where, s->n,
		s->n == 1 ? "" : "s");
	while (!stop_signal) {
		uint64_t now = cli_mono_ns();

		if (now >= next) /* behind: read on after the next look at the clients */
			next = read_traces(s, now + READ_NS) ? cli_mono_ns() : now + REFRESH_NS;
		now = cli_mono_ns();
		srv_http_poll(&h, next > now ? (int)((next - now) / NS_PER_MS) + 1 : 0, page, s);
	}
	srv_http_close(&h);
	return CLI_EXIT_OK;
}

int cli_cmd_serve(struct cli *cli, int argc, char **argv)
{
	struct serve s = { .cli = cli, .listen = "127.0.0.1:9464" };
	int first, status;

	srv_bounds_default(&s.bounds);
	status = cli_parse(&cmd, argc, argv, &s, &first);
	if (status >= 0)
		return status;
	status = open_traces(&s, argv + first, (size_t)(argc - first));
	if (status == 0)
		status = s.once ? run_once(&s) : run_server(&s);
	close_traces(&s);
	return status;
}
