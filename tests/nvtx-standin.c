/*
 * A stand-in NVTX tool: an injection library, as Nsight Systems is one.
 * NVTX's loader (inlined in the traced program, NVTX3's nvtxInit.h)
 * dlopens it from NVTX_INJECTION64_PATH and calls its
 * InitializeInjectionNvtx2 with the program's nvtxGetExportTable; it
 * takes the CALLBACKS table, says its version through the VERSIONINFO
 * table, and writes its functions into the CORE and CORE2 modules'
 * function tables (GetModuleFunctionTable), as nvtxTypes.h documents the
 * contract. Every call the program makes then comes here.
 *
 * It keeps each thread's open ranges and writes one line per event to the
 * file NVTX_STANDIN_OUT names (none when it is unset: a tool that only
 * keeps its stacks, for the benchmark), fields separated by tabs:
 *
 *   I  version                          attached (the export table's version)
 *   D  name                             a domain created
 *   C  domain  id  name                 a category named
 *   R  domain  text                     a string registered
 *   +  tid  depth  domain  category  r|a  payload  path
 *                                       a range pushed: depth after the push,
 *                                       r for a registered message, the payload
 *                                       as i:N (int32), u:N (uint64) or -, and
 *                                       the messages of the thread's open
 *                                       ranges joined by " > ", this one last
 *   -  tid  depth  domain  path         the innermost range of domain popped
 *   !  tid  what                        a call NVTX's contract does not allow
 *                                       (a pop with no range open)
 *
 * SPDX-License-Identifier: MIT
 */
#define _GNU_SOURCE
#define NVTX_NO_IMPL /* the types only: the program holds NVTX's implementation */
#include <fcntl.h>
#include <stdatomic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <nvtx3/nvToolsExt.h>

#define DEPTH 256
#define LINE 2048

struct domain {
	char name[64];
};

struct string {
	struct string *next; /* every string registered, kept as a tool keeps them */
	struct domain *domain;
	char text[];
};

struct frame {
	const struct domain *domain;
	char message[256];
};

static int out = -1;
static struct string *_Atomic strings;
static struct domain default_domain = { "(default)" };
static __thread struct frame frames[DEPTH];
static __thread int depth;

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char line[LINE];
	va_list ap;
	int n;

	if (out < 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof line - 1, fmt, ap);
	va_end(ap);
	if (n < 0)
		return;
	if (n > (int)sizeof line - 2)
		n = (int)sizeof line - 2;
	line[n++] = '\n';
	if (write(out, line, (size_t)n) != n)
		return; /* a test then finds lines missing */
}

static long tid(void)
{
	return syscall(SYS_gettid);
}

static const struct domain *domain_of(nvtxDomainHandle_t d)
{
	return d ? (const struct domain *)d : &default_domain;
}

/* The thread's open messages, outermost first, joined by " > ". */
static void path(char *buf, size_t size)
{
	size_t len = 0;

	buf[0] = '\0';
	for (int i = 0; i < depth && len + 1 < size; i++) {
		int n = snprintf(buf + len, size - len, "%s%s", i ? " > " : "", frames[i].message);
		if (n < 0)
			break;
		len += (size_t)n;
	}
}

static void payload(const nvtxEventAttributes_t *a, char *buf, size_t size)
{
	switch (a->payloadType) {
	case NVTX_PAYLOAD_TYPE_INT32:
		snprintf(buf, size, "i:%d", a->payload.iValue);
		break;
	case NVTX_PAYLOAD_TYPE_UNSIGNED_INT64:
		snprintf(buf, size, "u:%llu", (unsigned long long)a->payload.ullValue);
		break;
	case NVTX_PAYLOAD_TYPE_INT64:
		snprintf(buf, size, "l:%lld", (long long)a->payload.llValue);
		break;
	default:
		snprintf(buf, size, "-");
	}
}

static int push(const struct domain *d, const nvtxEventAttributes_t *a)
{
	const char *msg = "";
	char pay[32], p[LINE];
	struct frame *f;

	if (depth == DEPTH) {
		say("!\t%ld\tmore than %d ranges open", tid(), DEPTH);
		return -1;
	}
	if (a && a->messageType == NVTX_MESSAGE_TYPE_ASCII && a->message.ascii)
		msg = a->message.ascii;
	else if (a && a->messageType == NVTX_MESSAGE_TYPE_REGISTERED && a->message.registered)
		msg = ((const struct string *)a->message.registered)->text;
	f = &frames[depth++];
	f->domain = d;
	snprintf(f->message, sizeof f->message, "%s", msg);
	if (out < 0)
		return depth - 1; /* nothing written: a tool that only keeps its stacks */
	if (a)
		payload(a, pay, sizeof pay);
	else
		snprintf(pay, sizeof pay, "-");
	path(p, sizeof p);
	say("+\t%ld\t%d\t%s\t%u\t%c\t%s\t%s", tid(), depth, d->name, a ? a->category : 0,
	    a && a->messageType == NVTX_MESSAGE_TYPE_REGISTERED ? 'r' : 'a', pay, p);
	return depth - 1;
}

/* Pops the innermost range of domain d (each domain is a stack of its own). */
static int pop(const struct domain *d)
{
	char p[LINE];
	int i = depth - 1;

	while (i >= 0 && frames[i].domain != d)
		i--;
	if (i < 0) {
		say("!\t%ld\tpop of domain %s with no range open", tid(), d->name);
		return -1;
	}
	if (out >= 0) {
		path(p, sizeof p);
		say("-\t%ld\t%d\t%s\t%s", tid(), depth, d->name, p);
	}
	memmove(&frames[i], &frames[i + 1], (size_t)(depth - 1 - i) * sizeof frames[0]);
	depth--;
	return depth;
}

/* ---- the CORE2 (domain) calls ---- */

static nvtxDomainHandle_t NVTX_API domain_create(const char *name)
{
	struct domain *d = calloc(1, sizeof *d);

	if (!d)
		return NULL;
	snprintf(d->name, sizeof d->name, "%s", name ? name : "");
	say("D\t%s", d->name);
	return (nvtxDomainHandle_t)d;
}

static void NVTX_API domain_destroy(nvtxDomainHandle_t d)
{
	(void)d; /* kept: its registered strings may still be named */
}

static nvtxStringHandle_t NVTX_API register_string(nvtxDomainHandle_t d, const char *text)
{
	size_t n = text ? strlen(text) : 0;
	struct string *s = malloc(sizeof *s + n + 1);

	if (!s)
		return NULL;
	s->domain = (struct domain *)d;
	memcpy(s->text, text ? text : "", n + 1);
	s->next = atomic_load(&strings);
	while (!atomic_compare_exchange_weak(&strings, &s->next, s))
		;
	say("R\t%s\t%s", domain_of(d)->name, s->text);
	return (nvtxStringHandle_t)s;
}

static void NVTX_API name_category(nvtxDomainHandle_t d, uint32_t id, const char *name)
{
	say("C\t%s\t%u\t%s", domain_of(d)->name, id, name ? name : "");
}

static int NVTX_API domain_push(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	return push(domain_of(d), a);
}

static int NVTX_API domain_pop(nvtxDomainHandle_t d)
{
	return pop(domain_of(d));
}

static void NVTX_API domain_mark(nvtxDomainHandle_t d, const nvtxEventAttributes_t *a)
{
	(void)a;
	say("!\t%ld\tmark in domain %s: not expected", tid(), domain_of(d)->name);
}

/* ---- the CORE calls (the default domain) ---- */

static int NVTX_API push_ex(const nvtxEventAttributes_t *a)
{
	return push(&default_domain, a);
}

static int NVTX_API push_a(const char *msg)
{
	nvtxEventAttributes_t a;

	memset(&a, 0, sizeof a);
	a.messageType = NVTX_MESSAGE_TYPE_ASCII;
	a.message.ascii = msg;
	return push(&default_domain, &a);
}

static int NVTX_API pop_default(void)
{
	return pop(&default_domain);
}

/* ---- attaching ---- */

struct hook {
	unsigned id;
	NvtxFunctionPointer fn;
};

/* Writes each hook into the module's table, where the table has its slot. */
static int attach(const NvtxExportTableCallbacks *cb, NvtxCallbackModule module,
		  const struct hook *hooks, size_t n)
{
	NvtxFunctionTable table = NULL;
	unsigned size = 0;

	if (!cb->GetModuleFunctionTable(module, &table, &size) || !table)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (hooks[i].id < size && table[hooks[i].id])
			*table[hooks[i].id] = hooks[i].fn;
	return 1;
}

#define HOOK(id, fn) { (id), (NvtxFunctionPointer)(void (*)(void))(fn) }

__attribute__((visibility("default"))) int NVTX_API
InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get);

int NVTX_API InitializeInjectionNvtx2(NvtxGetExportTableFunc_t get)
{
	static const struct hook core2[] = {
		HOOK(NVTX_CBID_CORE2_DomainCreateA, domain_create),
		HOOK(NVTX_CBID_CORE2_DomainDestroy, domain_destroy),
		HOOK(NVTX_CBID_CORE2_DomainRegisterStringA, register_string),
		HOOK(NVTX_CBID_CORE2_DomainNameCategoryA, name_category),
		HOOK(NVTX_CBID_CORE2_DomainRangePushEx, domain_push),
		HOOK(NVTX_CBID_CORE2_DomainRangePop, domain_pop),
		HOOK(NVTX_CBID_CORE2_DomainMarkEx, domain_mark),
	};
	static const struct hook core[] = {
		HOOK(NVTX_CBID_CORE_RangePushEx, push_ex),
		HOOK(NVTX_CBID_CORE_RangePushA, push_a),
		HOOK(NVTX_CBID_CORE_RangePop, pop_default),
	};
	const NvtxExportTableCallbacks *cb;
	const NvtxExportTableVersionInfo *version;
	const char *path = getenv("NVTX_STANDIN_OUT");

	if (!get)
		return 0;
	cb = (const NvtxExportTableCallbacks *)get(NVTX_ETID_CALLBACKS);
	if (!cb || cb->struct_size < sizeof *cb || !cb->GetModuleFunctionTable)
		return 0;
	version = (const NvtxExportTableVersionInfo *)get(NVTX_ETID_VERSIONINFO);
	if (version && version->struct_size >= sizeof *version && version->SetInjectionNvtxVersion)
		version->SetInjectionNvtxVersion(NVTX_VERSION);
	if (path && *path)
		out = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (!attach(cb, NVTX_CB_MODULE_CORE2, core2, sizeof core2 / sizeof core2[0]) ||
	    !attach(cb, NVTX_CB_MODULE_CORE, core, sizeof core / sizeof core[0]))
		return 0;
	say("I\t%u", version ? version->version : 0);
	return 1;
}
