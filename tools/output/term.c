/*
 * The terminal of an interactive command (ggmlviz top), with plain ANSI
 * sequences: the alternate screen, no cursor, keys read one at a time
 * without echo, and the terminal as it was on every way out: a normal
 * exit, a signal that ends the program (INT, TERM, HUP, QUIT, PIPE), and
 * a crash (SEGV, BUS, FPE, ILL, ABRT), whose handler restores it with
 * async-signal-safe calls only, then dies of the same signal.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <sys/ioctl.h>

#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <termios.h>
#include <unistd.h>

#include "output/output.h"

#define ENTER "\033[?1049h\033[?25l\033[H\033[2J" /* alternate screen, cursor hidden, cleared */
#define LEAVE "\033[?25h\033[?1049l"              /* cursor shown, the screen as it was */

static struct termios saved;
static volatile sig_atomic_t raw_on, stop_signal, resized;

static const int ending[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE };
static const int crashing[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT };

/* The terminal as it was: async-signal-safe (write, tcsetattr). */
static void restore(void)
{
	if (!raw_on)
		return;
	raw_on = 0;
	(void)!write(STDOUT_FILENO, LEAVE, sizeof LEAVE - 1);
	tcsetattr(STDIN_FILENO, TCSAFLUSH, &saved);
}

static void on_end(int sig)
{
	stop_signal = sig; /* the main loop sees it, restores the terminal and returns */
}

static void on_crash(int sig)
{
	restore();
	signal(sig, SIG_DFL);
	raise(sig);
}

static void on_resize(int sig)
{
	(void)sig;
	resized = 1;
}

static void handle(int sig, void (*fn)(int))
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = fn;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
}

int cli_term_enter(void)
{
	struct termios raw;

	if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO) || tcgetattr(STDIN_FILENO, &saved) < 0)
		return -ENOTTY;
	raw = saved;
	raw.c_lflag &= (tcflag_t)~(ICANON | ECHO); /* ISIG kept: ^C still interrupts */
	raw.c_cc[VMIN] = 0;
	raw.c_cc[VTIME] = 0;
	for (size_t i = 0; i < sizeof ending / sizeof ending[0]; i++)
		handle(ending[i], on_end);
	for (size_t i = 0; i < sizeof crashing / sizeof crashing[0]; i++)
		handle(crashing[i], on_crash);
	handle(SIGWINCH, on_resize);
	if (tcsetattr(STDIN_FILENO, TCSAFLUSH, &raw) < 0)
		return -errno;
	raw_on = 1;
	atexit(restore);
	(void)!write(STDOUT_FILENO, ENTER, sizeof ENTER - 1);
	return 0;
}

void cli_term_leave(void)
{
	restore();
}

int cli_term_signal(void)
{
	return stop_signal;
}

bool cli_term_resized(void)
{
	bool was = resized;

	resized = 0;
	return was;
}

void cli_term_size(int *rows, int *cols)
{
	struct winsize ws;

	if (ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 && ws.ws_row && ws.ws_col)
		*rows = ws.ws_row, *cols = ws.ws_col;
	else
		*rows = 24, *cols = 80;
}

int cli_term_key(int timeout_ms)
{
	struct pollfd p = { STDIN_FILENO, POLLIN, 0 };
	unsigned char c;

	if (poll(&p, 1, timeout_ms) <= 0 || read(STDIN_FILENO, &c, 1) != 1)
		return -1;
	return c;
}

void cli_term_draw(const char *text, size_t len, int rows, int cols)
{
	struct cli_out o;
	int row = 0;

	if (cli_out_open(&o, "top", "-") < 0)
		return;
	cli_out_str(&o, "\033[H");
	for (size_t at = 0; at < len && row < rows; row++) {
		const char *nl = memchr(text + at, '\n', len - at);
		size_t n = nl ? (size_t)(nl - (text + at)) : len - at;

		/* cut at the width, by bytes: what top draws is ASCII */
		cli_out_write(&o, text + at, n < (size_t)cols ? n : (size_t)cols);
		cli_out_str(&o, row + 1 < rows ? "\033[K\r\n" : "\033[K");
		at += n + 1;
	}
	cli_out_str(&o, "\033[J");
	cli_out_close(&o, "top");
}
