/*
 * The subcommands of ggmlviz, one file each (cmd-*.c). Each takes the
 * command's state (tools/cli.h), made fresh for it by main(), and its
 * command line (argv[0] is the subcommand); each returns the exit status.
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_COMMANDS_H
#define CLI_COMMANDS_H

#include "cli.h"

int cli_cmd_info(struct cli *cli, int argc, char **argv);
int cli_cmd_dump(struct cli *cli, int argc, char **argv);
int cli_cmd_stats(struct cli *cli, int argc, char **argv);
int cli_cmd_export(struct cli *cli, int argc, char **argv);
int cli_cmd_diff(struct cli *cli, int argc, char **argv);
int cli_cmd_mem(struct cli *cli, int argc, char **argv);
int cli_cmd_merge(struct cli *cli, int argc, char **argv);
int cli_cmd_validate(struct cli *cli, int argc, char **argv);
int cli_cmd_report(struct cli *cli, int argc, char **argv);
int cli_cmd_top(struct cli *cli, int argc, char **argv);
int cli_cmd_advise(struct cli *cli, int argc, char **argv);
int cli_cmd_serve(struct cli *cli, int argc, char **argv);
int cli_cmd_snapshot(struct cli *cli, int argc, char **argv);

#endif /* CLI_COMMANDS_H */
