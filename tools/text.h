/*
 * Writing strings as JSON (json.c), text and CSV (escape.c), and reading
 * UTF-8 (utf8.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_TEXT_H
#define CLI_TEXT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "out.h"

/*
 * Bytes of the UTF-8 character at s (n > 0 bytes there): 1 to 4 and *valid
 * true; or, for invalid bytes, *valid false and how many go together into
 * one U+FFFD (the maximal subpart of a sequence, or 1).
 */
size_t cli_utf8_char(const unsigned char *s, size_t n, bool *valid);

/* Set: JSON strings also escape < > & (\u003c ...): JSON inside an HTML page. */
extern bool cli_json_html;

/* A JSON string: quoted, escaped, invalid UTF-8 replaced by U+FFFD. NULL: null. */
void cli_json_str(struct cli_out *o, const char *s, size_t len);
void cli_json_cstr(struct cli_out *o, const char *s);
/* A finite JSON number ("null" for NaN or infinity). */
void cli_json_double(struct cli_out *o, double v);
/* ns as microseconds with 3 decimals (the Chrome trace unit), exactly. */
void cli_json_us(struct cli_out *o, uint64_t ns);

/* Text: printable UTF-8 as is, the rest as C escapes (\n, \xff). */
void cli_text_str(struct cli_out *o, const char *s, size_t len);
/* The text form of a label as a new string (the caller frees it), or NULL. */
char *cli_text_dup(const char *s, size_t len);
/* A CSV field (RFC 4180): quoted when needed; invalid UTF-8 and control
 * characters but tab, CR and LF replaced by U+FFFD. */
void cli_csv_str(struct cli_out *o, const char *s, size_t len);

#endif /* CLI_TEXT_H */
