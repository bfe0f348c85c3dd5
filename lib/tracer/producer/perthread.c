/*
 * Memory a thread makes for itself (see producer.h): listed, so that the
 * library can free every thread's when it leaves the process, and freed
 * by a thread key's destructor when its thread ends.
 *
 * The key is why the list exists. A plugin that linked libggmlviz and is
 * unloaded leaves glibc with keys whose destructors lie in unmapped code,
 * which every thread that ends after calls: the key must be deleted as
 * the library leaves, and then the memory of the threads still alive is
 * the library's to free, which only a list can find.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <pthread.h>

#include "tracer/producer/producer.h"
#include "util/leaving.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* The key's destructor: its thread ended. */
static void ended(void *arg)
{
	struct ggmlviz__perthread_item *it = arg;
	struct ggmlviz__perthread *pt = it->owner;

	ggmlviz__inner_lock(&lock);
	if (it->prev)
		it->prev->next = it->next;
	else
		pt->all = it->next;
	if (it->next)
		it->next->prev = it->prev;
	ggmlviz__inner_unlock(&lock);
	pt->free(it);
}

void ggmlviz__perthread_keep(struct ggmlviz__perthread *pt, struct ggmlviz__perthread_item *it)
{
	int keyed;

	ggmlviz__inner_lock(&lock);
	if (!pt->made)
		pt->made = pthread_key_create(&pt->key, ended) == 0 ? 1 : -1;
	keyed = pt->made > 0;
	it->owner = pt;
	it->prev = NULL;
	it->next = pt->all;
	if (pt->all)
		pt->all->prev = it;
	pt->all = it;
	ggmlviz__inner_unlock(&lock);
	if (keyed)
		pthread_setspecific(pt->key, it); /* else freed as the library leaves */
}

void ggmlviz__perthread_unload(struct ggmlviz__perthread *pt)
{
	struct ggmlviz__perthread_item *it;

	ggmlviz__inner_lock(&lock);
	if (pt->made > 0)
		pthread_key_delete(pt->key);
	pt->made = 0;
	it = pt->all;
	pt->all = NULL;
	ggmlviz__inner_unlock(&lock);
	while (it) {
		struct ggmlviz__perthread_item *next = it->next;
		pt->free(it);
		it = next;
	}
}
