/*
 * The tables of tables.c written out (see export.h): CSV or JSON Lines of
 * one table, or every table into a SQLite database (through Debian's
 * libsqlite3, where configure found it).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#if HAVE_SQLITE
#include <sqlite3.h>
#endif

#include "cli.h"
#include "export/export.h"
#include "output/output.h"

/* ---- CSV and JSON Lines: one table ---- */

static void csv_header(struct cli_out *o, const struct cli_column *c)
{
	for (size_t i = 0; c[i].name; i++) {
		if (i)
			cli_out_char(o, ',');
		cli_out_str(o, c[i].name);
	}
	cli_out_char(o, '\n');
}

static void csv_value(struct cli_out *o, const struct cli_val *v)
{
	if (v->kind == CLI_COL_INT)
		cli_out_i64(o, v->i);
	else if (v->kind == CLI_COL_TEXT)
		cli_csv_str(o, v->s, v->len);
}

static void json_value(struct cli_out *o, const struct cli_val *v)
{
	if (v->kind == CLI_COL_INT)
		cli_out_i64(o, v->i);
	else if (v->kind == CLI_COL_TEXT)
		cli_json_str(o, v->s, v->len);
	else
		cli_out_str(o, "null");
}

static int text_row(struct cli_table_sink *base, int table, const struct cli_val *v)
{
	struct cli_text_sink *s = (struct cli_text_sink *)base;
	const struct cli_column *c = cli_tables[table].cols;

	if (table != s->table)
		return 0;
	for (size_t i = 0; c[i].name; i++) {
		if (s->format == CLI_TABLES_CSV) {
			if (i)
				cli_out_char(s->o, ',');
			csv_value(s->o, &v[i]);
			continue;
		}
		cli_out_str(s->o, i ? ",\"" : "{\"");
		cli_out_str(s->o, c[i].name);
		cli_out_str(s->o, "\":");
		json_value(s->o, &v[i]);
	}
	cli_out_str(s->o, s->format == CLI_TABLES_CSV ? "\n" : "}\n");
	return s->o->error ? -EIO : 0;
}

/* A CSV starts with its header, so that a table without rows still names its columns. */
void cli_text_sink_init(struct cli_text_sink *s, struct cli_out *o, int table, int format)
{
	*s = (struct cli_text_sink){ { text_row, NULL }, o, table, format };
	if (format == CLI_TABLES_CSV)
		csv_header(o, cli_tables[table].cols);
}

/* ---- SQLite: every table ---- */

#if HAVE_SQLITE

struct sqlite_sink {
	struct cli_table_sink base;
	sqlite3 *db;
	sqlite3_stmt *insert[CLI_TABLE_COUNT];
};

/* Says what failed in SQLite's words, and the system's where a system call failed. */
static int fail(sqlite3 *db, const char *path, const char *what)
{
	int err = db ? sqlite3_system_errno(db) : 0;

	cli_error("export: %s: %s: %s%s%s%s", path, what, db ? sqlite3_errmsg(db) : "out of memory",
		  err ? " (" : "", err ? strerror(err) : "", err ? ")" : "");
	return -1;
}

/* "CREATE TABLE IF NOT EXISTS name(col TYPE, ...)" and its INSERT, in buf and ins. */
static void table_sql(const struct cli_table_def *t, char *create, size_t create_size, char *ins,
		      size_t ins_size)
{
	size_t n = 0, m = 0;

	n += (size_t)snprintf(create + n, create_size - n, "CREATE TABLE IF NOT EXISTS %s(", t->name);
	m += (size_t)snprintf(ins + m, ins_size - m, "INSERT INTO %s VALUES(", t->name);
	for (size_t i = 0; t->cols[i].name && n < create_size && m < ins_size; i++) {
		n += (size_t)snprintf(create + n, create_size - n, "%s%s %s", i ? ", " : "",
				      t->cols[i].name,
				      t->cols[i].kind == CLI_COL_INT ? "INTEGER" : "TEXT");
		m += (size_t)snprintf(ins + m, ins_size - m, "%s?", i ? "," : "");
	}
	if (n < create_size)
		snprintf(create + n, create_size - n, ")");
	if (m < ins_size)
		snprintf(ins + m, ins_size - m, ")");
}

static int sqlite_row(struct cli_table_sink *base, int table, const struct cli_val *v)
{
	struct sqlite_sink *s = (struct sqlite_sink *)base;
	sqlite3_stmt *st = s->insert[table];

	for (int i = 0; cli_tables[table].cols[i].name; i++) {
		if (v[i].kind == CLI_COL_INT)
			sqlite3_bind_int64(st, i + 1, v[i].i);
		else if (v[i].kind == CLI_COL_TEXT)
			sqlite3_bind_text(st, i + 1, v[i].s, (int)v[i].len, SQLITE_TRANSIENT);
		else
			sqlite3_bind_null(st, i + 1);
	}
	if (sqlite3_step(st) != SQLITE_DONE)
		return -EIO;
	sqlite3_reset(st);
	return 0;
}

/*
 * Whether the database already holds rows of this trace (by its file
 * name): adding them again would count them twice. 1, 0, or -1 after a
 * message.
 */
static int sqlite_has_trace(struct sqlite_sink *s, const char *path, const char *trace)
{
	char sql[128];
	sqlite3_stmt *st;
	int found = 0;

	for (int t = 0; t < CLI_TABLE_COUNT && !found; t++) {
		snprintf(sql, sizeof sql, "SELECT 1 FROM %s WHERE trace = ? LIMIT 1",
			 cli_tables[t].name);
		if (sqlite3_prepare_v2(s->db, sql, -1, &st, NULL) != SQLITE_OK)
			return fail(s->db, path, "cannot read its tables");
		sqlite3_bind_text(st, 1, trace, -1, SQLITE_STATIC);
		found = sqlite3_step(st) == SQLITE_ROW;
		sqlite3_finalize(st);
	}
	if (found)
		cli_error("export: %s already holds the rows of a trace named %s: export it under"
			  " another name, or give --force to replace the database", path, trace);
	return found ? -1 : 0;
}

/* The tables (if new), their inserts, and a transaction open. */
static int sqlite_open(struct sqlite_sink *s, const char *path, const char *trace)
{
	char create[2048], ins[1024];

	if (sqlite3_open_v2(path, &s->db, SQLITE_OPEN_READWRITE, NULL) != SQLITE_OK)
		return fail(s->db, path, "cannot open the database");
	for (int t = 0; t < CLI_TABLE_COUNT; t++) {
		table_sql(&cli_tables[t], create, sizeof create, ins, sizeof ins);
		if (sqlite3_exec(s->db, create, NULL, NULL, NULL) != SQLITE_OK)
			return fail(s->db, path, "cannot make its tables");
	}
	if (sqlite_has_trace(s, path, trace) < 0)
		return -1;
	for (int t = 0; t < CLI_TABLE_COUNT; t++) {
		table_sql(&cli_tables[t], create, sizeof create, ins, sizeof ins);
		if (sqlite3_prepare_v2(s->db, ins, -1, &s->insert[t], NULL) != SQLITE_OK)
			return fail(s->db, path, "its tables do not take this version's rows (made by"
						 " another ggmlviz? export into a new database, or"
						 " --force)");
	}
	if (sqlite3_exec(s->db, "BEGIN", NULL, NULL, NULL) != SQLITE_OK)
		return fail(s->db, path, "cannot begin a transaction");
	return 0;
}

/* An index on each column people filter by: idx_TABLE_COLUMN. */
static int sqlite_index(struct sqlite_sink *s, const char *path)
{
	char sql[256], cols[128], *save = NULL;

	for (int t = 0; t < CLI_TABLE_COUNT; t++) {
		snprintf(cols, sizeof cols, "%s", cli_tables[t].indexed);
		for (char *c = strtok_r(cols, " ", &save); c; c = strtok_r(NULL, " ", &save)) {
			snprintf(sql, sizeof sql, "CREATE INDEX IF NOT EXISTS idx_%s_%s ON %s(%s)",
				 cli_tables[t].name, c, cli_tables[t].name, c);
			if (sqlite3_exec(s->db, sql, NULL, NULL, NULL) != SQLITE_OK)
				return fail(s->db, path, "cannot index its tables");
		}
	}
	return 0;
}

static void sqlite_close(struct sqlite_sink *s)
{
	for (int t = 0; t < CLI_TABLE_COUNT; t++)
		sqlite3_finalize(s->insert[t]);
	sqlite3_close(s->db);
}

/* Every table of in's trace into the database at path, in one transaction. */
static int sqlite_write(struct cli *cli, struct cli_input *in, const char *path, const char *shown,
			struct cli_ticks *ticks)
{
	struct sqlite_sink s = { { sqlite_row, ticks }, NULL, { NULL } };
	int rc = sqlite_open(&s, path, cli_trace_name(in));

	if (rc == 0 && (rc = cli_tables_write(cli, in, &s.base)) < 0)
		rc = fail(s.db, shown, "cannot write its rows");
	if (rc == 0 && sqlite3_exec(s.db, "COMMIT", NULL, NULL, NULL) != SQLITE_OK)
		rc = fail(s.db, shown, "cannot commit the rows");
	if (rc == 0)
		rc = sqlite_index(&s, shown);
	sqlite_close(&s);
	return rc;
}

/*
 * A new database: made beside path and renamed to it once whole, so that a
 * failure (a full disk) leaves nothing, or what path held, behind.
 */
static int sqlite_new(struct cli *cli, struct cli_input *in, const char *path, struct cli_ticks *ticks)
{
	size_t cap = strlen(path) + 32;
	char *tmp = malloc(cap), *journal = malloc(cap + 8);
	int fd = -1, rc = -1;

	if (tmp && journal) {
		snprintf(tmp, cap, "%s.%ld.tmp", path, (long)getpid());
		snprintf(journal, cap + 8, "%s-journal", tmp);
		fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
	}
	if (fd < 0) {
		cli_error("export: %s: cannot make the database: %s", path, strerror(errno));
	} else {
		close(fd);
		rc = sqlite_write(cli, in, tmp, path, ticks);
		if (rc == 0 && rename(tmp, path) < 0)
			rc = -1, cli_error("export: %s: %s", path, strerror(errno));
		if (rc < 0)
			unlink(tmp), unlink(journal);
	}
	free(tmp);
	free(journal);
	return rc;
}

int cli_tables_sqlite(struct cli *cli, struct cli_input *in, const char *path, bool append,
		      struct cli_ticks *ticks)
{
	return append ? sqlite_write(cli, in, path, path, ticks) : sqlite_new(cli, in, path, ticks);
}

#else /* !HAVE_SQLITE */

int cli_tables_sqlite(struct cli *cli, struct cli_input *in, const char *path, bool append,
		      struct cli_ticks *ticks)
{
	(void)cli, (void)in, (void)path, (void)append, (void)ticks;
	cli_error("export: --format sqlite: this ggmlviz was built without SQLite (install "
		  "libsqlite3-dev and configure again); --format csv or jsonl-ops give the same rows");
	return -ENOSYS;
}

#endif /* HAVE_SQLITE */
