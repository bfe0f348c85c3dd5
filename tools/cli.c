/*
 * The ggmlviz command's state (see cli.h).
 *
 * SPDX-License-Identifier: MIT
 */
#include "config.h"

#include <string.h>

#include "cli.h"

void cli_init(struct cli *cli)
{
	memset(cli, 0, sizeof *cli);
	cli_names_init(&cli->names, &cli->anon);
}

void cli_free(struct cli *cli)
{
	cli_names_free(&cli->names);
	cli_anon_free(&cli->anon);
}
