/*
 * The subcommands of ggmlviz, one file each (cmd-*.c).
 *
 * SPDX-License-Identifier: MIT
 */
#ifndef CLI_COMMANDS_H
#define CLI_COMMANDS_H

int cli_cmd_info(int argc, char **argv);
int cli_cmd_dump(int argc, char **argv);
int cli_cmd_stats(int argc, char **argv);
int cli_cmd_export(int argc, char **argv);
int cli_cmd_diff(int argc, char **argv);
int cli_cmd_mem(int argc, char **argv);
int cli_cmd_merge(int argc, char **argv);
int cli_cmd_validate(int argc, char **argv);
int cli_cmd_report(int argc, char **argv);

#endif /* CLI_COMMANDS_H */
