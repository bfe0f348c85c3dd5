/*
 * Protocol Buffers' wire format, written into memory (see export.h): the
 * few encodings Perfetto's trace needs (varints, 64-bit doubles, bytes,
 * nested messages). A nested message's length is reserved at its widest
 * (5 bytes) and the body moved back over what the real length leaves
 * free when it closes, so a packet is written in one pass and costs only
 * the bytes its lengths need.
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <stdlib.h>
#include <string.h>

#include "export/export.h"

#define LEN_ROOM 5 /* a length below 2^35 needs at most 5 varint bytes */

/* Room for n more bytes; false (and b->failed) when memory ran out. */
static bool room(struct cli_pb *b, size_t n)
{
	size_t cap = b->cap ? b->cap : 256;
	uint8_t *p;

	if (b->failed)
		return false;
	if (b->len + n <= b->cap)
		return true;
	while (cap < b->len + n)
		cap *= 2;
	if (!(p = realloc(b->buf, cap))) {
		b->failed = true;
		return false;
	}
	b->buf = p, b->cap = cap;
	return true;
}

/* v as a varint into out (10 bytes at most); its length. */
static size_t varint_to(uint8_t *out, uint64_t v)
{
	size_t n = 0;

	while (v >= 0x80) {
		out[n++] = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	out[n++] = (uint8_t)v;
	return n;
}

void cli_pb_varint(struct cli_pb *b, uint64_t v)
{
	if (room(b, 10))
		b->len += varint_to(b->buf + b->len, v);
}

/* A field's key: its number and wire type (0 varint, 1 64-bit, 2 length-delimited). */
static void key(struct cli_pb *b, uint32_t field, unsigned wire)
{
	cli_pb_varint(b, (uint64_t)field << 3 | wire);
}

void cli_pb_uint(struct cli_pb *b, uint32_t field, uint64_t v)
{
	key(b, field, 0);
	cli_pb_varint(b, v);
}

void cli_pb_int(struct cli_pb *b, uint32_t field, int64_t v)
{
	/* int32 and int64 fields carry negative numbers in two's complement, 10 bytes */
	cli_pb_uint(b, field, (uint64_t)v);
}

void cli_pb_double(struct cli_pb *b, uint32_t field, double v)
{
	uint64_t bits;

	memcpy(&bits, &v, sizeof bits);
	key(b, field, 1);
	if (!room(b, 8))
		return;
	for (int i = 0; i < 8; i++) /* little-endian on every host */
		b->buf[b->len++] = (uint8_t)(bits >> (8 * i));
}

void cli_pb_bytes(struct cli_pb *b, uint32_t field, const void *p, size_t n)
{
	key(b, field, 2);
	cli_pb_varint(b, n);
	cli_pb_raw(b, p, n);
}

void cli_pb_raw(struct cli_pb *b, const void *p, size_t n)
{
	if (n && room(b, n)) {
		memcpy(b->buf + b->len, p, n);
		b->len += n;
	}
}

size_t cli_pb_open(struct cli_pb *b, uint32_t field)
{
	key(b, field, 2);
	if (room(b, LEN_ROOM))
		b->len += LEN_ROOM;
	return b->len;
}

void cli_pb_close(struct cli_pb *b, size_t body)
{
	uint8_t len[10];
	size_t size, n;

	if (b->failed)
		return;
	size = b->len - body;
	n = varint_to(len, size);
	memmove(b->buf + body - LEN_ROOM + n, b->buf + body, size);
	memcpy(b->buf + body - LEN_ROOM, len, n);
	b->len -= LEN_ROOM - n;
}

void cli_pb_free(struct cli_pb *b)
{
	free(b->buf);
	*b = (struct cli_pb){ 0 };
}
