/*
 * contrib/llama.cpp/ggmlviz-server.h compiled as llama-server compiles it
 * (C++17, its task, slot and enums declared before the header, as
 * server-task.h declares them), and run (TAP):
 *   - untraced, no hook records or keeps anything;
 *   - traced, a request's arrival, prompt, first token and end are
 *     recorded, with its stop reason by the enumerator's name: the enum
 *     here has another order than upstream's, which the header must not
 *     assume (the old one named STOP_TYPE_EOS "none" here);
 *   - a request cancelled while queued, one failed, a task that is not a
 *     request (a metrics task): as llama-server's;
 *   - after the session stops, the requests still open end and leave the
 *     table (it does not grow with requests begun while tracing).
 *
 * SPDX-License-Identifier: MIT
 */
#include <ggmlviz/reader.h>
#include <ggmlviz/tracer.h>

#include "server-fake.h"
#include "../contrib/llama.cpp/ggmlviz-server.h"

#include <cstdio>
#include <cstring>
#include <string>
#include <unistd.h>
#include <vector>

static int n_tests;
static int n_failed;

static void ok(bool pass, const char *what, const std::string &detail = "")
{
    std::printf("%sok %d - %s\n", pass ? "" : "not ", ++n_tests, what);
    if (!pass && !detail.empty())
        std::printf("# %s\n", detail.c_str());
    n_failed += !pass;
}

struct seen {
    int begins = 0, stages = 0;
    std::vector<std::string> ends; // "id:status:stop"
};

static seen read_back(const char *path)
{
    ggmlviz_reader *r;
    ggmlviz_event ev;
    seen s;

    if (ggmlviz_reader_open(path, &r) != 0)
        return s;
    while (ggmlviz_reader_next(r, &ev) == 1) {
        if (ev.type == GGMLVIZ_EVENT_REQUEST_BEGIN)
            s.begins++;
        else if (ev.type == GGMLVIZ_EVENT_REQUEST_STAGE)
            s.stages++;
        else if (ev.type == GGMLVIZ_EVENT_REQUEST_END)
            s.ends.push_back(std::to_string(ev.data.request.request_id) + ":" +
                             std::to_string(ev.data.request.what) + ":" +
                             std::string(ev.label ? ev.label : "", ev.label ? ev.label_len : 0));
    }
    ggmlviz_reader_close(r);
    return s;
}

static void serve_one(server_slot &slot, int id, int prompt, int tokens, stop_type why)
{
    slot.task.reset(new server_task{ id, SERVER_TASK_TYPE_COMPLETION, prompt });
    ggmlviz_server_prompt(slot);
    slot.stats.n_gen = 1;
    ggmlviz_server_first_token(slot);
    slot.stats.n_gen = tokens;
    slot.stop = why;
    ggmlviz_server_end(slot, GGMLVIZ_REQUEST_DONE);
    slot.task.reset();
}

int main()
{
    char path[256];
    server_slot slot;
    ggmlviz_config cfg;

    std::snprintf(path, sizeof path, "%s/server-hooks-%ld.ggmlviz",
                  std::getenv("TMPDIR") ? std::getenv("TMPDIR") : "/tmp", (long)getpid());
    slot.id = 1;

    // untraced: nothing kept
    ggmlviz_server_arrived(server_task{ 1, SERVER_TASK_TYPE_COMPLETION, 8 });
    serve_one(slot, 1, 8, 4, STOP_TYPE_EOS);
    ggmlviz_server_failed(1);
    ggmlviz_server_cancel_queued(1);
    ok(!ggmlviz_server_any_open() && ggmlviz_server_state().open.empty(),
       "untraced: no hook keeps a request");

    ggmlviz_config_init(&cfg);
    cfg.output = path;
    ok(ggmlviz_start(&cfg) == 0, "tracing starts");
    ggmlviz_server_arrived(server_task{ 10, SERVER_TASK_TYPE_COMPLETION, 8 });
    ggmlviz_server_arrived(server_task{ 11, SERVER_TASK_TYPE_INFILL, 6 });
    ggmlviz_server_arrived(server_task{ 12, SERVER_TASK_TYPE_COMPLETION, 5 });
    ggmlviz_server_arrived(server_task{ 13, SERVER_TASK_TYPE_EMBEDDING, 5 });
    ggmlviz_server_arrived(server_task{ 14, SERVER_TASK_TYPE_COMPLETION, 5 });
    ggmlviz_server_arrived(server_task{ 99, SERVER_TASK_TYPE_METRICS, 0 }); // not a request
    ok(ggmlviz_server_state().open.size() == 5, "traced: each request arriving is open, a metrics task is not");
    serve_one(slot, 10, 8, 4, STOP_TYPE_EOS);
    serve_one(slot, 11, 6, 3, STOP_TYPE_LIMIT);
    ggmlviz_server_cancel_queued(12); // its client went away while it waited
    ggmlviz_server_failed(13);        // an error answered it
    ok(ggmlviz_server_state().open.size() == 1, "each request ended leaves the table");
    ok(ggmlviz_stop() == 0, "tracing stops");
    serve_one(slot, 14, 5, 2, STOP_TYPE_WORD); // ended after the stop: not recorded, forgotten
    ok(!ggmlviz_server_any_open() && ggmlviz_server_state().open.empty(),
       "a request still open at the stop leaves the table when it ends");

    seen s = read_back(path);
    std::vector<std::string> want = { "10:0:eos", "11:0:limit", "12:1:", "13:2:" };
    std::string got;
    for (auto &e : s.ends)
        got += e + " ";
    ok(s.begins == 5 && s.stages == 4 && s.ends == want,
       "the trace holds each request's arrival, stages and end, its stop reason by the enumerator's "
       "name (STOP_TYPE_EOS \"eos\" where the enum puts it third)",
       "begins " + std::to_string(s.begins) + ", stages " + std::to_string(s.stages) + ", ends " + got);
    ok(std::strcmp(ggmlviz_server_stop_name(STOP_TYPE_NONE), "none") == 0 &&
       std::strcmp(ggmlviz_server_stop_name(STOP_TYPE_WORD), "word") == 0 &&
       std::strcmp(ggmlviz_server_stop_name(static_cast<stop_type>(7)), "other") == 0,
       "every stop reason by its name, an unknown one \"other\"");
    unlink(path);
    std::printf("1..%d\n", n_tests);
    return n_failed ? 1 : 0;
}
