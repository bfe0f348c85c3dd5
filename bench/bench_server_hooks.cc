/*
 * bench_server_hooks: what llama-server's hooks (contrib/llama.cpp/
 * ggmlviz-server.h) cost when tracing is off, against a loop that calls
 * nothing, in one run: each hook called HOOK_CALLS times a round, the
 * rounds of the hooks and of the empty loop interleaved, the median of
 * ROUNDS rounds in ns per call. With tracing off a hook should cost one
 * load and a branch: at most a few tenths of a ns over the empty loop.
 * The same hooks traced (the lock and the table of open requests, the
 * records) for scale.
 *
 * Usage: bench_server_hooks [HEADER_TAG]   (a word printed with the
 * figures, to tell builds against other headers apart)
 *
 * SPDX-License-Identifier: MIT
 */
#include "../tests/server-fake.h"
#include "../contrib/llama.cpp/ggmlviz-server.h"

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <unistd.h>

#define HOOK_CALLS 2000000
#define ROUNDS 11

static double now_ns()
{
    timespec ts;

    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static server_slot slot;
static server_task task{ 7, SERVER_TASK_TYPE_COMPLETION, 16 };

/* The loop itself, with the stores the hooks' loops make: what each hook's figure is taken against. */
static void nothing(int i)
{
    task.id = i;
    slot.task->id = i;
    asm volatile("" : : : "memory");
}

static void arrived(int i)
{
    task.id = i;
    ggmlviz_server_arrived(task);
    asm volatile("" : : : "memory");
}

static void prompt(int i)
{
    slot.task->id = i;
    ggmlviz_server_prompt(slot);
    asm volatile("" : : : "memory");
}

static void first_token(int i)
{
    slot.task->id = i;
    ggmlviz_server_first_token(slot);
    asm volatile("" : : : "memory");
}

static void end(int i)
{
    slot.task->id = i;
    ggmlviz_server_end(slot, GGMLVIZ_REQUEST_DONE);
    asm volatile("" : : : "memory");
}

static void failed(int i)
{
    ggmlviz_server_failed(i);
    asm volatile("" : : : "memory");
}

/* A request's whole life, traced: arrival, prompt, first token, end. */
static void whole(int i)
{
    task.id = i;
    ggmlviz_server_arrived(task);
    slot.task->id = i;
    ggmlviz_server_prompt(slot);
    ggmlviz_server_first_token(slot);
    ggmlviz_server_end(slot, GGMLVIZ_REQUEST_DONE);
}

static double round_of(void (*fn)(int), int calls)
{
    double t0 = now_ns();

    for (int i = 0; i < calls; i++)
        fn(i);
    return (now_ns() - t0) / calls;
}

static double median(double *v, int n)
{
    std::sort(v, v + n);
    return v[n / 2];
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        void (*fn)(int);
    } hooks[] = { { "arrived", arrived }, { "prompt", prompt }, { "first_token", first_token },
                  { "end", end }, { "failed", failed } };
    const int n = sizeof hooks / sizeof hooks[0];
    double base[ROUNDS], t[n][ROUNDS], life[ROUNDS];
    char path[256];
    ggmlviz_config cfg;

    slot.id = 0;
    slot.task.reset(new server_task{ 7, SERVER_TASK_TYPE_COMPLETION, 16 });
    round_of(nothing, HOOK_CALLS); /* warm-up */
    for (int r = 0; r < ROUNDS; r++) {
        base[r] = round_of(nothing, HOOK_CALLS);
        for (int h = 0; h < n; h++)
            t[h][r] = round_of(hooks[h].fn, HOOK_CALLS);
    }
    std::printf("tracing off%s%s: ns per call, median of %d rounds of %d calls, interleaved\n",
                argc > 1 ? ", header " : "", argc > 1 ? argv[1] : "", ROUNDS, HOOK_CALLS);
    std::printf("  empty loop   %.3f\n", median(base, ROUNDS));
    for (int h = 0; h < n; h++)
        std::printf("  %-12s %.3f (%+.3f over the loop)\n", hooks[h].name, median(t[h], ROUNDS),
                    median(t[h], ROUNDS) - median(base, ROUNDS));

    std::snprintf(path, sizeof path, "%s/bench-server-hooks-%ld.ggmlviz",
                  std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp", (long)getpid());
    ggmlviz_config_init(&cfg);
    cfg.output = path;
    cfg.max_events = 0;
    if (ggmlviz_start(&cfg) != 0)
        return 1;
    for (int r = 0; r < ROUNDS; r++)
        life[r] = round_of(whole, HOOK_CALLS / 20);
    ggmlviz_stop();
    unlink(path);
    std::printf("traced: a request's four hooks (arrival, prompt, first token, end) %.0f ns\n",
                median(life, ROUNDS));
    return 0;
}
