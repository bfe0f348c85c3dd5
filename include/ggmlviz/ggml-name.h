/*
 * libggmlviz: the GGML adapter's run names, part of its implementation
 * (<ggmlviz/ggml-impl.h> includes it); never include it yourself.
 *
 * A GGML built with libggmlviz's edit gives each split graph its id
 * (ggmlviz_nodes_split(3)), and a run of an id seen before takes the
 * descriptions kept from then. A GGML without the edit (a distribution's,
 * whisper.cpp's own) gives none, and every run was described again: at
 * every llama.cpp token, each op's shape, bytes, flops, fused pair and
 * layer worked out anew and written out in full, where the graph was the
 * same as the token before's. The adapter names such a run itself, as it
 * describes its first node, where the library can take a name
 * (ggmlviz_nodes_naming(3)): a hash of what every description of the run
 * is made of, each node's fields (its op and first parameters, type,
 * shape and strides, flags, name, view, which source slots it fills) and
 * each source's (address, type and shape). The same nodes, unchanged,
 * are the same name, and the library takes the run's descriptions from
 * the last run of that name (ggmlviz_nodes_graph_id(3)); anything a
 * description reads that changed is another name, and the run is
 * described. The top bit is set: GGML's own ids are counters, and never
 * meet one.
 *
 * Four lanes of xxHash64's round, so that the multiplications of a run's
 * some eight thousand words overlap.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef GGMLVIZ_GGML_NAME_H
#define GGMLVIZ_GGML_NAME_H

#ifndef GGMLVIZ_GGML_IMPL_H
#error "include <ggmlviz/ggml.h> with GGMLVIZ_GGML_IMPLEMENTATION defined, not this file"
#endif

#include <stdint.h>
#include <string.h>

#ifdef __cplusplus
extern "C" {
#endif

/** @cond GGMLVIZ_INTERNAL */
/* The words a node gives at most: its own 10, its name's, which slots, 3 for each source;
 * a multiple of 4 (GGML_MAX_NAME is a build's: 64 by default, 128 in some programs). */
#define GGMLVIZ_GGML__NAME_WORDS \
	((10u + (GGML_MAX_NAME + 7u) / 8u + 1u + 3u * GGML_MAX_SRC + 3u) & ~3u)

static inline uint64_t ggmlviz_ggml__rotl(uint64_t v, unsigned r)
{
	return v << r | v >> (64u - r);
}

/* xxHash64's round: one lane takes one word. */
static inline uint64_t ggmlviz_ggml__round(uint64_t lane, uint64_t w)
{
	return ggmlviz_ggml__rotl(lane + w * 0xc2b2ae3d27d4eb4full, 31) * 0x9e3779b185ebca87ull;
}

/* Four int64s (a shape, strides) as two words: a pair's second turned half round, so that
 * two values under 2^32 each are one word without loss. */
static inline size_t ggmlviz_ggml__name_four(uint64_t *w, const void *p)
{
	uint64_t v[4];

	memcpy(v, p, sizeof v);
	w[0] = v[0] ^ ggmlviz_ggml__rotl(v[1], 32);
	w[1] = v[2] ^ ggmlviz_ggml__rotl(v[3], 32);
	return 2;
}

/* A tensor's name as words at w, up to the word that holds its end (a zero byte); how many. */
static inline size_t ggmlviz_ggml__name_text(uint64_t *w, const char *name)
{
	const uint64_t ones = 0x0101010101010101ull, highs = 0x8080808080808080ull;
	size_t k = 0;

	for (size_t at = 0; at < GGML_MAX_NAME; at += 8) {
		uint64_t v = 0;

		memcpy(&v, name + at, GGML_MAX_NAME - at < 8 ? GGML_MAX_NAME - at : 8);
		w[k++] = v;
		if ((v - ones) & ~v & highs)
			break;
	}
	return k;
}

/*
 * The words of what node t's description is made of, at w: its address,
 * op, type, flags, shape, strides, first op parameters (a unary op's kind,
 * a view's offset), view and name; which of its source slots are taken,
 * and each source's address, type and shape (a source that is a node of
 * the run has its own words; a weight's or an input's op, flags, view,
 * strides and name are taken to be its address's, and a node's buffer
 * too: a tensor freed and another made at its address and shape would
 * keep the old description). Padded with zeros to a multiple of 4; how
 * many.
 */
static size_t ggmlviz_ggml__name_words(const struct ggml_tensor *t, uint64_t *w)
{
	uint64_t taken = 0;
	size_t k = 0;

	w[k++] = (uint64_t)(uintptr_t)t;
	w[k++] = (uint64_t)t->op | (uint64_t)t->type << 24 | (uint64_t)(uint32_t)t->flags << 40;
	k += ggmlviz_ggml__name_four(w + k, t->ne);
	k += ggmlviz_ggml__name_four(w + k, t->nb);
	memcpy(w + k, t->op_params, 16);
	k += 2;
	w[k++] = (uint64_t)(uintptr_t)t->view_src;
	w[k++] = (uint64_t)t->view_offs;
	k += ggmlviz_ggml__name_text(w + k, t->name);
	for (int j = 0; j < GGML_MAX_SRC; j++) {
		const struct ggml_tensor *s = t->src[j];

		if (!s)
			continue;
		taken |= 1ull << j;
		w[k++] = (uint64_t)(uintptr_t)s ^ (uint64_t)s->type << 56;
		k += ggmlviz_ggml__name_four(w + k, s->ne);
	}
	w[k++] = taken; /* the slots: a source after an empty one (softmax's sinks) counts too */
	while (k & 3u)
		w[k++] = 0;
	return k;
}

/* The run's name: its n nodes' words, in order, hashed (xxHash64's rounds, merge and
 * avalanche), the top bit set. */
static uint64_t ggmlviz_ggml__run_name(const void *const *nodes, size_t n)
{
	uint64_t w[GGMLVIZ_GGML__NAME_WORDS];
	uint64_t a = 0x60ea27eeadc0b5d6ull, b = 0xc2b2ae3d27d4eb4full, c = 0, d = 0x61c8864e7a143579ull;
	uint64_t v;

	for (size_t i = 0; i < n; i++) {
		size_t k;

		if (i + 8 < n) { /* its lines asked for ahead: the weights pushed them out since */
			__builtin_prefetch(nodes[i + 8]);
			__builtin_prefetch((const char *)nodes[i + 8] + 128);
			__builtin_prefetch((const char *)nodes[i + 8] + 256);
		}
		k = ggmlviz_ggml__name_words((const struct ggml_tensor *)nodes[i], w);

		for (size_t at = 0; at < k; at += 4) {
			a = ggmlviz_ggml__round(a, w[at]);
			b = ggmlviz_ggml__round(b, w[at + 1]);
			c = ggmlviz_ggml__round(c, w[at + 2]);
			d = ggmlviz_ggml__round(d, w[at + 3]);
		}
	}
	v = ggmlviz_ggml__rotl(a, 1) + ggmlviz_ggml__rotl(b, 7) + ggmlviz_ggml__rotl(c, 12) +
	    ggmlviz_ggml__rotl(d, 18) + (uint64_t)n;
	v ^= v >> 33;
	v *= 0xc2b2ae3d27d4eb4full;
	v ^= v >> 29;
	v *= 0x165667b19e3779f9ull;
	v ^= v >> 32;
	return v | 1ull << 63;
}
/** @endcond */

#ifdef __cplusplus
}
#endif

#endif /* GGMLVIZ_GGML_NAME_H */
