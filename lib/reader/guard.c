/*
 * Reading a mapped file that shrinks (see guard.h).
 *
 * A shared mapping of a file faults with SIGBUS where the file no longer
 * has pages: another program truncated or shortened it. The handler maps a
 * private page of zeros at the faulting page, so that the access that
 * faulted completes, and raises the reader's flag; ggmlviz_reader_next()
 * then stops with -ESTALE before it hands out a record read from zeros.
 * The table of windows is lock-free, since a handler may run at any time.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "guard.h"
#include "util/leaving.h"

#define CLAIMED 1u /* a slot being filled: no window starts at address 1 */

struct guard {
	_Atomic uintptr_t base; /* 0: a free slot; CLAIMED: being filled */
	_Atomic size_t length;
	_Atomic int *_Atomic shrunk;
};

static struct guard guards[GGMLVIZ__GUARDS];
static struct sigaction previous;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static int installed;

static struct guard *guard_of(uintptr_t addr)
{
	for (size_t i = 0; i < GGMLVIZ__GUARDS; i++) {
		uintptr_t base = atomic_load(&guards[i].base);

		if (base > CLAIMED && addr >= base && addr - base < atomic_load(&guards[i].length))
			return &guards[i];
	}
	return NULL;
}

/* Not ours: the program's action, as if we were not here. */
static void pass_on(int sig, siginfo_t *si, void *context)
{
	if ((previous.sa_flags & SA_SIGINFO) && previous.sa_sigaction) {
		previous.sa_sigaction(sig, si, context);
	} else if (previous.sa_handler != SIG_DFL && previous.sa_handler != SIG_IGN) {
		previous.sa_handler(sig);
	} else {
		signal(sig, SIG_DFL); /* the fault happens again on return, and kills */
		if (si->si_code <= 0)
			raise(sig);
	}
}

static void on_sigbus(int sig, siginfo_t *si, void *context)
{
	uintptr_t addr = (uintptr_t)si->si_addr, page = (uintptr_t)sysconf(_SC_PAGESIZE);
	struct guard *g = si->si_code > 0 ? guard_of(addr) : NULL;
	int saved = errno;

	if (!g || mmap((void *)(addr & ~(page - 1)), page, PROT_READ,
		       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0) == MAP_FAILED) {
		errno = saved;
		pass_on(sig, si, context);
		return;
	}
	atomic_store(atomic_load(&g->shrunk), 1);
	errno = saved;
}

/*
 * Unloaded with the shared object that linked the library (not at exit):
 * the program's action is put back, if no one changed it since, so that a
 * later SIGBUS does not jump into unmapped code.
 */
__attribute__((destructor)) static void at_unload(void)
{
	struct sigaction now;

	if (!installed || ggmlviz__process_exiting())
		return;
	if (sigaction(SIGBUS, NULL, &now) == 0 && (now.sa_flags & SA_SIGINFO) &&
	    now.sa_sigaction == on_sigbus)
		sigaction(SIGBUS, &previous, NULL);
}

static void install(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_sigaction = on_sigbus;
	sa.sa_flags = SA_SIGINFO | SA_NODEFER;
	sigemptyset(&sa.sa_mask);
	installed = sigaction(SIGBUS, &sa, &previous) == 0;
}

int ggmlviz__guard_add(const void *base, size_t length, _Atomic int *shrunk)
{
	pthread_once(&once, install);
	if (!installed)
		return -ENOTSUP;
	for (size_t i = 0; i < GGMLVIZ__GUARDS; i++) {
		uintptr_t none = 0;

		if (!atomic_compare_exchange_strong(&guards[i].base, &none, CLAIMED))
			continue;
		atomic_store(&guards[i].length, length);
		atomic_store(&guards[i].shrunk, shrunk);
		atomic_store(&guards[i].base, (uintptr_t)base);
		return 0;
	}
	return -ENOSPC;
}

void ggmlviz__guard_remove(const void *base)
{
	for (size_t i = 0; i < GGMLVIZ__GUARDS; i++) {
		uintptr_t mine = (uintptr_t)base;

		if (atomic_compare_exchange_strong(&guards[i].base, &mine, 0))
			return;
	}
}
