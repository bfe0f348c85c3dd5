/*
 * The HTTP/1.1 server of ggmlviz serve (serve.h): one listening socket,
 * connections polled without blocking, GET and HEAD answered, one request
 * a connection (each answer says Connection: close). What a scraper
 * needs, no more: a request is read up to SRV_REQUEST_MAX bytes and its
 * first line parsed; headers and a body are not read. A connection that
 * sends nothing whole within CONN_IDLE_NS is closed, so that a slow or
 * stuck client never holds the server, which answers the others meanwhile.
 * No client holds it by other means either: what a client sends after its
 * request is read a bounded amount at each look (DRAIN_MAX in all), and
 * when every slot is taken a new connection takes the place of the oldest
 * one that is not being answered, so that idle connections, however many,
 * never keep a scraper out. A connection is let go only once it has had
 * EVICT_GRACE_NS to send its request and nothing it sent waits unread: a
 * scraper slow to send after its connect (a busy machine) keeps its slot.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <sys/socket.h>

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "base/opts.h"
#include "serve/serve.h"

#define SRV_REQUEST_MAX 8192
#define CONN_IDLE_NS (10 * 1000000000ull)  /* a request not whole by then: closed */
#define LINGER_NS (1000000000ull)          /* after the answer, the client's last bytes read */
#define DRAIN_MAX (64 * 1024)              /* ... at most: a client that sends more is closed */
#define EVICT_GRACE_NS (200 * 1000000ull)  /* a new connection is never let go sooner */

enum { READING, WRITING, CLOSING };

struct srv_conn {
	int fd, state;
	uint64_t since_ns;         /* accepted, or answered */
	char in[SRV_REQUEST_MAX];  /* the request so far */
	size_t in_len;
	struct cli_out out;        /* the answer, headers and body */
	size_t sent;
	size_t drained;            /* bytes read after the answer */
};

/* ---- the address ---- */

/* Splits "HOST:PORT" ("[V6]:PORT", ":PORT", "*:PORT") into host (NULL: every address) and port. */
static int split(const char *hp, char *host, size_t size, char *port, size_t psize)
{
	const char *colon = strrchr(hp, ':');
	size_t hlen;

	if (!colon || !colon[1] || strlen(colon + 1) >= psize ||
	    strspn(colon + 1, "0123456789") != strlen(colon + 1) || atol(colon + 1) > 65535)
		return -1;
	snprintf(port, psize, "%s", colon + 1);
	hlen = (size_t)(colon - hp);
	if (hlen >= 2 && hp[0] == '[' && hp[hlen - 1] == ']')
		hp++, hlen -= 2;
	if (hlen >= size || memchr(hp, '[', hlen) || memchr(hp, ']', hlen))
		return -1;
	snprintf(host, size, "%.*s", (int)hlen, hp);
	if (!strcmp(host, "*"))
		host[0] = '\0';
	return 0;
}

/* The address fd listens on, as HOST:PORT, in h->where. */
static void say_where(struct srv_http *h)
{
	struct sockaddr_storage ss;
	socklen_t len = sizeof ss;
	char host[64] = "?";
	unsigned port = 0;

	if (getsockname(h->fd, (struct sockaddr *)&ss, &len) < 0)
		return;
	if (ss.ss_family == AF_INET6) {
		const struct sockaddr_in6 *a = (const struct sockaddr_in6 *)&ss;
		char ip[INET6_ADDRSTRLEN];

		inet_ntop(AF_INET6, &a->sin6_addr, ip, sizeof ip);
		snprintf(host, sizeof host, "[%s]", ip);
		port = ntohs(a->sin6_port);
	} else if (ss.ss_family == AF_INET) {
		const struct sockaddr_in *a = (const struct sockaddr_in *)&ss;

		inet_ntop(AF_INET, &a->sin_addr, host, sizeof host);
		port = ntohs(a->sin_port);
	}
	snprintf(h->where, sizeof h->where, "%s:%u", host, port);
}

/* A socket listening on ai; the fd, or -errno. */
static int listen_on(const struct addrinfo *ai)
{
	int one = 1, zero = 0;
	int fd = socket(ai->ai_family, ai->ai_socktype | SOCK_NONBLOCK | SOCK_CLOEXEC, ai->ai_protocol);

	if (fd < 0)
		return -errno;
	setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one); /* a restart while old ones linger */
	if (ai->ai_family == AF_INET6)
		setsockopt(fd, IPPROTO_IPV6, IPV6_V6ONLY, &zero, sizeof zero); /* "::" takes IPv4 too */
	if (bind(fd, ai->ai_addr, ai->ai_addrlen) < 0 || listen(fd, 64) < 0) {
		int rc = -errno;

		close(fd);
		return rc;
	}
	return fd;
}

int srv_http_listen(struct srv_http *h, const char *host_port)
{
	struct addrinfo hints = { .ai_flags = AI_PASSIVE | AI_NUMERICSERV, .ai_socktype = SOCK_STREAM };
	struct addrinfo *res = NULL;
	char host[256], port[8];
	int rc;

	memset(h, 0, sizeof *h);
	h->fd = -1;
	if (split(host_port, host, sizeof host, port, sizeof port) < 0)
		return cli_usage("serve", "--listen wants HOST:PORT (127.0.0.1:9464, [::1]:9464, "
				 ":9464 for every address): '%s'", host_port);
	rc = getaddrinfo(host[0] ? host : NULL, port, &hints, &res);
	if (rc != 0) {
		cli_error("serve: --listen %s: %s", host_port, gai_strerror(rc));
		return CLI_EXIT_USAGE;
	}
	rc = -EADDRNOTAVAIL;
	for (const struct addrinfo *ai = res; ai && h->fd < 0; ai = ai->ai_next) {
		int fd = listen_on(ai);

		if (fd >= 0)
			h->fd = fd;
		else if (rc == -EADDRNOTAVAIL || fd == -EADDRINUSE)
			rc = fd; /* the reason worth saying: the port in use, above all */
	}
	freeaddrinfo(res);
	if (h->fd < 0) {
		cli_error("serve: cannot listen on %s: %s%s", host_port, strerror(-rc),
			  rc == -EADDRINUSE ? " (another program has that port: choose another with "
					      "--listen)" : "");
		return CLI_EXIT_DAMAGED;
	}
	say_where(h);
	return 0;
}

/* ---- connections ---- */

static void conn_close(struct srv_http *h, size_t i)
{
	struct srv_conn *c = h->conns[i];

	close(c->fd);
	free(c->out.buf);
	free(c);
	h->conns[i] = h->conns[--h->n_conns];
}

/* When connection c may be let go for a new one: at once once answered, after its grace if not. */
static uint64_t evictable_at(const struct srv_conn *c)
{
	return c->state == CLOSING ? c->since_ns : c->since_ns + EVICT_GRACE_NS;
}

/* Whether connection c can be let go now: not being answered, past its grace, nothing sent unread. */
static bool evictable(const struct srv_conn *c, uint64_t now)
{
	char b;

	if (c->state == WRITING || evictable_at(c) > now)
		return false;
	/* a request come since the last look is read at the next one, not lost */
	return c->state == CLOSING || recv(c->fd, &b, 1, MSG_PEEK | MSG_DONTWAIT) <= 0;
}

/*
 * A slot for a new connection when all are taken: the oldest one that is
 * done (lingering after its answer) or idle (its request not whole, past
 * its grace); false when every one is being answered, has just come or
 * has sent something not yet read.
 */
static bool make_room(struct srv_http *h, uint64_t now)
{
	size_t pick = SRV_CONNS;

	for (size_t i = 0; i < h->n_conns; i++) {
		const struct srv_conn *c = h->conns[i], *p = pick < SRV_CONNS ? h->conns[pick] : NULL;

		if (!evictable(c, now))
			continue;
		if (!p || (c->state == CLOSING) > (p->state == CLOSING) ||
		    ((c->state == CLOSING) == (p->state == CLOSING) && c->since_ns < p->since_ns))
			pick = i;
	}
	if (pick == SRV_CONNS)
		return false;
	conn_close(h, pick);
	h->evicted++;
	return true;
}

/*
 * Milliseconds until a new connection could be taken (make_room()): 0 for
 * now, -1 while every slot is being answered (a round ends one of those).
 * The listening socket is polled only when 0, so that connections waiting
 * for a slot never make the loop spin.
 */
static int room_in_ms(const struct srv_http *h, uint64_t now)
{
	uint64_t soonest = UINT64_MAX;

	if (h->n_conns < SRV_CONNS)
		return 0;
	for (size_t i = 0; i < h->n_conns; i++)
		if (h->conns[i]->state != WRITING && evictable_at(h->conns[i]) < soonest)
			soonest = evictable_at(h->conns[i]);
	if (soonest == UINT64_MAX)
		return -1;
	return soonest <= now ? 0 : (int)((soonest - now + 999999) / 1000000);
}

static int on_readable(struct srv_http *h, struct srv_conn *c, srv_page page, void *arg);
static int on_writable(struct srv_conn *c);

/* Whether a connection waits to be taken (a slot is let go for it only then). */
static bool pending(const struct srv_http *h)
{
	struct pollfd p = { h->fd, POLLIN, 0 };

	return poll(&p, 1, 0) > 0 && (p.revents & POLLIN);
}

/* Takes the connections waiting, each read at once: a scraper's request came with it. */
static void accept_all(struct srv_http *h, srv_page page, void *arg)
{
	while (h->n_conns < SRV_CONNS || (pending(h) && make_room(h, cli_mono_ns()))) {
		int fd = accept4(h->fd, NULL, NULL, SOCK_NONBLOCK | SOCK_CLOEXEC);
		struct srv_conn *c;

		if (fd < 0)
			return; /* EAGAIN: none left; else a client gone before it was taken */
		if (!(c = calloc(1, sizeof *c))) {
			close(fd);
			return;
		}
		c->fd = fd;
		c->state = READING;
		c->since_ns = cli_mono_ns();
		cli_out_memory(&c->out);
		h->conns[h->n_conns++] = c;
		if (on_readable(h, c, page, arg) < 0 || (c->state == WRITING && on_writable(c) < 0))
			conn_close(h, h->n_conns - 1);
	}
}

static const char *reason(int status)
{
	switch (status) {
	case 200: return "OK";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	case 431: return "Request Header Fields Too Large";
	case 500: return "Internal Server Error";
	case 505: return "HTTP Version Not Supported";
	default: return "Error";
	}
}

/* The answer in c->out: status line, headers, and the body unless head. */
static void answer(struct srv_conn *c, int status, const char *type, const char *body, size_t len,
		   bool head)
{
	cli_out_printf(&c->out, "HTTP/1.1 %d %s\r\nContent-Type: %s\r\nContent-Length: %zu\r\n"
		       "Connection: close\r\nCache-Control: no-store\r\n%s\r\n", status, reason(status),
		       type, len, status == 405 ? "Allow: GET, HEAD\r\n" : "");
	if (!head)
		cli_out_write(&c->out, body, len);
	c->state = WRITING;
	c->sent = 0;
}

static void answer_text(struct srv_conn *c, int status, const char *text, bool head)
{
	answer(c, status, "text/plain; charset=utf-8", text, strlen(text), head);
}

/* The target's path: "/metrics?x" and "http://host/metrics" are "/metrics". */
static void path_of(char *target)
{
	char *q;

	if (!strncmp(target, "http://", 7) && (q = strchr(target + 7, '/')))
		memmove(target, q, strlen(q) + 1);
	if ((q = strpbrk(target, "?#")))
		*q = '\0';
}

/* A whole request's first line: "METHOD TARGET HTTP/1.x"; answered. */
static void handle(struct srv_http *h, struct srv_conn *c, srv_page page, void *arg)
{
	char method[16], target[2048], version[16];
	struct cli_out body;
	const char *type = "text/plain; charset=utf-8";
	bool head;
	int status;

	h->answered++;
	if (sscanf(c->in, "%15s %2047s %15s", method, target, version) != 3 ||
	    (target[0] != '/' && strncmp(target, "http://", 7))) {
		answer_text(c, 400, "a request line is METHOD TARGET HTTP/1.1\n", false);
		return;
	}
	if (strncmp(version, "HTTP/1.", 7)) {
		answer_text(c, 505, "HTTP/1.0 and HTTP/1.1 only\n", false);
		return;
	}
	head = !strcmp(method, "HEAD");
	if (!head && strcmp(method, "GET")) {
		answer_text(c, 405, "GET or HEAD only\n", false);
		return;
	}
	path_of(target);
	cli_out_memory(&body);
	status = page(arg, target, &body, &type);
	if (body.error)
		status = 500, body.len = 0;
	answer(c, status, type, body.buf ? body.buf : "", body.len, head);
	free(body.buf);
}

/* Where the request's head ends (an empty line), or NULL while it does not. */
static const char *head_end(const struct srv_conn *c)
{
	for (size_t i = 0; i + 1 < c->in_len; i++)
		if (c->in[i] == '\n' && (c->in[i + 1] == '\n' ||
					 (c->in[i + 1] == '\r' && i + 2 < c->in_len && c->in[i + 2] == '\n')))
			return c->in + i;
	return NULL;
}

/* Reads what the client sent; 0, or -1 when the connection is done with. */
static int on_readable(struct srv_http *h, struct srv_conn *c, srv_page page, void *arg)
{
	char scratch[4096];
	ssize_t n;

	if (c->state == CLOSING) { /* its last bytes, so that closing sends no reset over the answer */
		n = recv(c->fd, scratch, sizeof scratch, 0); /* one read a look: a client never holds the loop */
		if (n > 0)
			return (c->drained += (size_t)n) > DRAIN_MAX ? -1 : 0;
		return n == 0 || (errno != EAGAIN && errno != EINTR) ? -1 : 0;
	}
	n = recv(c->fd, c->in + c->in_len, sizeof c->in - 1 - c->in_len, 0);
	if (n <= 0)
		return n == 0 || (errno != EAGAIN && errno != EINTR) ? -1 : 0;
	c->in_len += (size_t)n;
	c->in[c->in_len] = '\0';
	if (head_end(c))
		handle(h, c, page, arg);
	else if (c->in_len == sizeof c->in - 1)
		answer_text(c, 431, "the request's head is over 8 KiB\n", false);
	return 0;
}

/* Sends what is left of the answer; 0, or -1 when the connection is done with. */
static int on_writable(struct srv_conn *c)
{
	while (c->sent < c->out.len) {
		ssize_t n = send(c->fd, c->out.buf + c->sent, c->out.len - c->sent, MSG_NOSIGNAL);

		if (n < 0)
			return errno == EAGAIN || errno == EINTR ? 0 : -1;
		c->sent += (size_t)n;
	}
	shutdown(c->fd, SHUT_WR);
	c->state = CLOSING;
	c->since_ns = cli_mono_ns();
	return 0;
}

/* Closes connections past their time: a request not whole, a client that keeps its end open. */
static void expire(struct srv_http *h)
{
	uint64_t now = cli_mono_ns();

	for (size_t i = h->n_conns; i-- > 0;) {
		const struct srv_conn *c = h->conns[i];

		if (now - c->since_ns > (c->state == CLOSING ? LINGER_NS : CONN_IDLE_NS))
			conn_close(h, i);
	}
}

int srv_http_poll(struct srv_http *h, int timeout_ms, srv_page page, void *arg)
{
	struct pollfd fds[SRV_CONNS + 1];
	size_t n = h->n_conns;
	int rc, room_ms = room_in_ms(h, cli_mono_ns());

	for (size_t i = 0; i < n; i++)
		fds[i] = (struct pollfd){ h->conns[i]->fd,
					  h->conns[i]->state == WRITING ? POLLOUT : POLLIN, 0 };
	fds[n] = (struct pollfd){ h->fd, room_ms == 0 ? POLLIN : 0, 0 };
	timeout_ms = timeout_ms < 0 ? 0 : timeout_ms;
	rc = poll(fds, n + 1, room_ms > 0 && room_ms < timeout_ms ? room_ms : timeout_ms);
	if (rc < 0)
		return errno == EINTR ? -1 : 0;
	for (size_t i = n; i-- > 0;) { /* from the last: closing moves the last one into i */
		struct srv_conn *c = h->conns[i];
		int done = 0;

		if (fds[i].revents & (POLLIN | POLLHUP | POLLERR))
			done = on_readable(h, c, page, arg);
		if (!done && c->state == WRITING)
			done = on_writable(c);
		if (done)
			conn_close(h, i);
	}
	if (fds[n].revents & POLLIN)
		accept_all(h, page, arg);
	expire(h);
	return 0;
}

void srv_http_close(struct srv_http *h)
{
	while (h->n_conns)
		conn_close(h, h->n_conns - 1);
	if (h->fd >= 0)
		close(h->fd);
	h->fd = -1;
}
