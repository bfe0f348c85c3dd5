/*
 * make_tiny_whisper: writes a whisper model of the tiny shape (tiny.en's:
 * 4 encoder and 4 decoder layers, 384 wide, 6 heads, 80 mels, 51864
 * tokens) with random weights, its matrices quantized q8_0, in
 * whisper.cpp's own model format (the "ggml" file whisper_model_load()
 * reads), which the unmodified whisper.cpp loads: for the whisper.cpp
 * tests and demo, without a download.
 *
 *   make_tiny_whisper OUT.bin [--seed N] [--tokens N]
 *
 * The weights are random, the text it transcribes is made-up words (its
 * vocabulary is GPT-2's 256 bytes, then syllables), and its decoding is made short and the same
 * every time: the decoder's position embedding outweighs the rest of its
 * input, so that each position picks the same token, and from position
 * --tokens (24) on, the end of text's embedding points where the
 * positions do, so that greedy decoding ends there. The mel filters are
 * triangles on the mel scale, as whisper's.
 *
 * The file is written beside OUT and renamed over it when whole: a failed
 * run leaves no model.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <ggml.h>

/* tiny.en's shape, as whisper.cpp's whisper_hparams */
enum {
	N_VOCAB = 51864, /* English only: the end of text is token 50256 */
	N_TEXT_TOKENS = 50256, /* the tokens the file names; whisper.cpp names the special ones */
	TOKEN_EOT = 50256,
	N_AUDIO_CTX = 1500,
	N_STATE = 384,
	N_HEAD = 6,
	N_LAYER = 4,
	N_TEXT_CTX = 448,
	N_MELS = 80,
	N_FFT = 201, /* 1 + whisper's FFT size of 400 / 2 */
	FTYPE_Q8_0 = 7, /* GGML_FTYPE_MOSTLY_Q8_0, as whisper.cpp's ftype */
};

struct writer {
	FILE *f;
	const char *path;
	uint64_t state; /* the random generator */
	int tokens;     /* the decoder's position from which the end of text wins */
	float *v;       /* the end of text's direction (N_STATE) */
	int failed;
};

/* xorshift64*, uniform in [-1, 1) */
static float uniform(struct writer *w)
{
	w->state ^= w->state >> 12;
	w->state ^= w->state << 25;
	w->state ^= w->state >> 27;
	return (float)((w->state * 2685821657736338717ull) >> 40) / (float)(1 << 23) - 1.0f;
}

static void put(struct writer *w, const void *p, size_t n)
{
	if (!w->failed && fwrite(p, 1, n, w->f) != n)
		w->failed = errno ? errno : EIO;
}

static void put_i32(struct writer *w, int32_t v)
{
	put(w, &v, sizeof v); /* whisper.cpp reads the host's byte order: little-endian here */
}

/* What fills a tensor: random in [-scale, scale], a constant, or the decoder's positions. */
enum fill { RANDOM, CONSTANT, POSITIONS, TOKENS };

struct tensor {
	const char *name;
	enum ggml_type type;
	int n_dims;
	int32_t ne[3];
	enum fill fill;
	float scale;
};

/* Row r of a tensor, n values. */
static void fill_row(struct writer *w, const struct tensor *t, int64_t r, float *row, int64_t n)
{
	for (int64_t i = 0; i < n; i++) {
		float x = uniform(w);

		if (t->fill == CONSTANT)
			x = t->scale;
		else if (t->fill == POSITIONS) /* each position its own direction; from --tokens on, v */
			x = 30.0f * (r >= w->tokens ? w->v[i] : (x < 0 ? -1.0f : 1.0f));
		else if (t->fill == TOKENS && r == TOKEN_EOT)
			x = 8.0f * w->v[i] / (float)N_STATE; /* its logit 8 where the positions are v */
		else
			x *= t->scale;
		row[i] = x;
	}
}

/* One tensor: its header, then its rows in its type. */
static void put_tensor(struct writer *w, const struct tensor *t)
{
	int64_t n0 = t->ne[0], rows = 1;
	size_t row_bytes = ggml_row_size(t->type, n0);
	float *row = malloc((size_t)n0 * sizeof *row);
	void *out = malloc(row_bytes);

	for (int d = 1; d < t->n_dims; d++)
		rows *= t->ne[d];
	put_i32(w, t->n_dims);
	put_i32(w, (int32_t)strlen(t->name));
	put_i32(w, (int32_t)t->type);
	for (int d = 0; d < t->n_dims; d++)
		put_i32(w, t->ne[d]);
	put(w, t->name, strlen(t->name));
	if (!row || !out)
		w->failed = ENOMEM;
	for (int64_t r = 0; r < rows && !w->failed; r++) {
		fill_row(w, t, r, row, n0);
		if (t->type == GGML_TYPE_F32)
			memcpy(out, row, row_bytes);
		else if (t->type == GGML_TYPE_F16)
			ggml_fp32_to_fp16_row(row, out, n0);
		else
			ggml_quantize_chunk(t->type, row, out, 0, 1, n0, NULL);
		put(w, out, row_bytes);
	}
	free(row);
	free(out);
}

static void put_layer_tensor(struct writer *w, const char *stack, int layer, const char *what,
			     struct tensor t)
{
	char name[96];

	snprintf(name, sizeof name, "%s.blocks.%d.%s", stack, layer, what);
	t.name = name;
	put_tensor(w, &t);
}

#define VEC(n, fill, scale) ((struct tensor){ NULL, GGML_TYPE_F32, 1, { n, 1, 1 }, fill, scale })
#define MAT(a, b) ((struct tensor){ NULL, GGML_TYPE_Q8_0, 2, { a, b, 1 }, RANDOM, 1.7320508f / sqrtf((float)(a)) })

/* A block's attention (prefix "attn" or "cross_attn"), as whisper.cpp's tensors name it. */
static void put_attention(struct writer *w, const char *stack, int l, const char *prefix)
{
	static const char *const parts[] = { "query", "key", "value", "out" };
	char what[64];

	snprintf(what, sizeof what, "%s_ln.weight", prefix);
	put_layer_tensor(w, stack, l, what, VEC(N_STATE, CONSTANT, 1.0f));
	snprintf(what, sizeof what, "%s_ln.bias", prefix);
	put_layer_tensor(w, stack, l, what, VEC(N_STATE, CONSTANT, 0.0f));
	for (int k = 0; k < 4; k++) {
		snprintf(what, sizeof what, "%s.%s.weight", prefix, parts[k]);
		put_layer_tensor(w, stack, l, what, MAT(N_STATE, N_STATE));
		if (k == 1)
			continue; /* whisper's keys have no bias */
		snprintf(what, sizeof what, "%s.%s.bias", prefix, parts[k]);
		put_layer_tensor(w, stack, l, what, VEC(N_STATE, RANDOM, 0.02f));
	}
}

static void put_block(struct writer *w, const char *stack, int l)
{
	put_attention(w, stack, l, "attn");
	if (!strcmp(stack, "decoder"))
		put_attention(w, stack, l, "cross_attn");
	put_layer_tensor(w, stack, l, "mlp_ln.weight", VEC(N_STATE, CONSTANT, 1.0f));
	put_layer_tensor(w, stack, l, "mlp_ln.bias", VEC(N_STATE, CONSTANT, 0.0f));
	put_layer_tensor(w, stack, l, "mlp.0.weight", MAT(N_STATE, 4 * N_STATE));
	put_layer_tensor(w, stack, l, "mlp.0.bias", VEC(4 * N_STATE, RANDOM, 0.02f));
	put_layer_tensor(w, stack, l, "mlp.2.weight", MAT(4 * N_STATE, N_STATE));
	put_layer_tensor(w, stack, l, "mlp.2.bias", VEC(N_STATE, RANDOM, 0.02f));
}

static void put_tensors(struct writer *w)
{
	const struct tensor top[] = {
		{ "encoder.positional_embedding", GGML_TYPE_F32, 2, { N_STATE, N_AUDIO_CTX, 1 }, RANDOM, 0.1f },
		{ "encoder.conv1.weight", GGML_TYPE_F16, 3, { 3, N_MELS, N_STATE }, RANDOM, 0.1f },
		{ "encoder.conv1.bias", GGML_TYPE_F32, 2, { 1, N_STATE, 1 }, RANDOM, 0.02f },
		{ "encoder.conv2.weight", GGML_TYPE_F16, 3, { 3, N_STATE, N_STATE }, RANDOM, 0.05f },
		{ "encoder.conv2.bias", GGML_TYPE_F32, 2, { 1, N_STATE, 1 }, RANDOM, 0.02f },
		{ "encoder.ln_post.weight", GGML_TYPE_F32, 1, { N_STATE, 1, 1 }, CONSTANT, 1.0f },
		{ "encoder.ln_post.bias", GGML_TYPE_F32, 1, { N_STATE, 1, 1 }, CONSTANT, 0.0f },
		{ "decoder.positional_embedding", GGML_TYPE_F32, 2, { N_STATE, N_TEXT_CTX, 1 }, POSITIONS, 0 },
		{ "decoder.token_embedding.weight", GGML_TYPE_Q8_0, 2, { N_STATE, N_VOCAB, 1 }, TOKENS, 0.02f },
		{ "decoder.ln.weight", GGML_TYPE_F32, 1, { N_STATE, 1, 1 }, CONSTANT, 1.0f },
		{ "decoder.ln.bias", GGML_TYPE_F32, 1, { N_STATE, 1, 1 }, CONSTANT, 0.0f },
	};

	for (size_t i = 0; i < sizeof top / sizeof top[0]; i++)
		put_tensor(w, &top[i]);
	for (int l = 0; l < N_LAYER; l++)
		put_block(w, "encoder", l);
	for (int l = 0; l < N_LAYER; l++)
		put_block(w, "decoder", l);
}

/* Mel filters: N_MELS triangles over the FFT's bins (0 to 8 kHz), on the mel scale. */
static void put_filters(struct writer *w)
{
	double mel_max = 2595.0 * log10(1.0 + 8000.0 / 700.0);

	put_i32(w, N_MELS);
	put_i32(w, N_FFT);
	for (int m = 0; m < N_MELS; m++) {
		double lo = 700.0 * (pow(10.0, mel_max * m / (N_MELS + 1) / 2595.0) - 1.0);
		double mid = 700.0 * (pow(10.0, mel_max * (m + 1) / (N_MELS + 1) / 2595.0) - 1.0);
		double hi = 700.0 * (pow(10.0, mel_max * (m + 2) / (N_MELS + 1) / 2595.0) - 1.0);

		for (int k = 0; k < N_FFT; k++) {
			double f = 8000.0 * k / (N_FFT - 1);
			double up = (f - lo) / (mid - lo), down = (hi - f) / (hi - mid);
			float v = (float)(2.0 / (hi - lo) * fmax(0.0, fmin(up, down)));
			put(w, &v, sizeof v);
		}
	}
}

/*
 * The byte GPT-2's token i < 256 stands for: its printable bytes first
 * ('!' to '~', then the Latin-1 ones but the soft hyphen), then the
 * others in order (token 220 is " ", which whisper.cpp looks up).
 */
static unsigned char gpt2_byte(int i)
{
	int n = 0;

	for (int pass = 0; pass < 2; pass++)
		for (int b = 0; b < 256; b++) {
			int printable = (b >= '!' && b <= '~') || (b >= 0xa1 && b <= 0xac) || b >= 0xae;
			if (printable == !pass && n++ == i)
				return (unsigned char)b;
		}
	return 0;
}

/* The tokens' texts: the 256 bytes, then words of syllables (" kotamu"), the same for
 * every model. */
static void put_vocab(struct writer *w)
{
	static const char cons[] = "ktmnsrpldgbhvzfy", vow[] = "aeiou";

	put_i32(w, N_TEXT_TOKENS);
	for (int i = 0; i < N_TEXT_TOKENS; i++) {
		char word[16] = " ";
		size_t n = 1;

		if (i < 256)
			word[0] = (char)gpt2_byte(i);
		for (int x = i - 255; i >= 256 && x > 0 && n + 2 < sizeof word; x /= 80) {
			word[n++] = cons[(x % 80) / 5];
			word[n++] = vow[x % 5];
		}
		put_i32(w, (int32_t)n);
		put(w, word, n);
	}
}

static int number(const char *opt, const char *s, int lo, int hi)
{
	char *end;
	long v = s ? strtol(s, &end, 10) : 0;

	if (!s || *end || v < lo || v > hi) {
		fprintf(stderr, "make_tiny_whisper: %s wants a number from %d to %d, not '%s'\n", opt,
			lo, hi, s ? s : "");
		return -1;
	}
	return (int)v;
}

static int usage(void)
{
	fputs("usage: make_tiny_whisper OUT.bin [--seed N] [--tokens N]\n", stderr);
	return 2;
}

int main(int argc, char **argv)
{
	const int32_t hparams[] = { N_VOCAB, N_AUDIO_CTX, N_STATE, N_HEAD, N_LAYER, N_TEXT_CTX,
				    N_STATE, N_HEAD, N_LAYER, N_MELS,
				    GGML_QNT_VERSION * GGML_QNT_VERSION_FACTOR + FTYPE_Q8_0 };
	struct writer w = { NULL, NULL, 88172645463325252ull, 24, NULL, 0 };
	float v[N_STATE];
	char tmp[4096];
	int seed = 1;

	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = i + 1 < argc ? argv[i + 1] : NULL;

		if (!strcmp(a, "--seed") || !strcmp(a, "--tokens")) {
			int n = number(a, val, 1, !strcmp(a, "--seed") ? 1000000 : N_TEXT_CTX - 1);
			if (n < 0)
				return 2;
			*(!strcmp(a, "--seed") ? &seed : &w.tokens) = n;
			i++;
		} else if (a[0] == '-' || w.path) {
			return usage();
		} else {
			w.path = a;
		}
	}
	if (!w.path)
		return usage();
	w.state ^= (uint64_t)(unsigned)seed * 0x9e3779b97f4a7c15ull;
	for (int i = 0; i < N_STATE; i++)
		v[i] = uniform(&w) < 0 ? -1.0f : 1.0f;
	w.v = v;
	if ((size_t)snprintf(tmp, sizeof tmp, "%s.tmp", w.path) >= sizeof tmp) {
		fprintf(stderr, "make_tiny_whisper: %s: the path is too long\n", w.path);
		return 1;
	}
	if (!(w.f = fopen(tmp, "wb"))) {
		fprintf(stderr, "make_tiny_whisper: cannot write %s: %s\n", tmp, strerror(errno));
		return 1;
	}
	errno = 0;
	put_i32(&w, GGML_FILE_MAGIC);
	for (size_t i = 0; i < sizeof hparams / sizeof hparams[0]; i++)
		put_i32(&w, hparams[i]);
	put_filters(&w);
	put_vocab(&w);
	put_tensors(&w);
	if (fclose(w.f) != 0 && !w.failed)
		w.failed = errno ? errno : EIO;
	if (!w.failed && rename(tmp, w.path) != 0)
		w.failed = errno;
	if (w.failed) {
		fprintf(stderr, "make_tiny_whisper: cannot write %s: %s\n", w.path, strerror(w.failed));
		remove(tmp);
		return 1;
	}
	printf("make_tiny_whisper: %s: whisper tiny.en's shape (%d encoder and %d decoder layers, "
	       "%d wide, %d tokens), q8_0, random weights; decoding ends by position %d\n",
	       w.path, N_LAYER, N_LAYER, N_STATE, N_VOCAB, w.tokens);
	return 0;
}
