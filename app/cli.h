/*
 * cli — the command line of DESIGN §7: one function per command, each parsing its
 * own options, doing its work through the modules below it, and writing its
 * output. Commands return an error code (err.h); main.c prints the error line
 * and maps the code to the exit status.
 */
#ifndef FERRY_CLI_H
#define FERRY_CLI_H

#include "version.h"

#include <stddef.h>

/* One option of a command: its long name, the value getopt returns for it (the
 * command's switch case), its argument's name (NULL for a flag; "a|b|c" for a choice)
 * and one line of help. Lists end with a NULL name. */
typedef struct cli_option {
	const char *name;
	int val;
	const char *arg;
	const char *help;
} cli_option;

#define CLI_MAX_OPTIONS 16

/* One command. Everything about it that a person or a shell sees — parsing, --help,
 * `ferry help`, the manual page, the completion scripts — comes from this entry. */
typedef struct cli_command {
	const char *name;   /* "check" */
	int (*run)(const char *dir, int argc, char **argv); /* argv[0] is the command name */
	const char *usage;  /* "check [--phase P]... [--format text|json|sarif]" */
	const char *help;   /* one line */
	const cli_option *options; /* NULL: none besides --help */
	/* what its operands complete to, by position, space-separated: "a|b|c" a choice,
	 * FILE or DIR a path, PHASE a phase, KEY a setting, COMMAND a command; NULL: none */
	const char *operands;
} cli_command;

/* The table of commands, terminated by a NULL name. */
extern const cli_command cli_commands[];

/* The command named name, or NULL. */
const cli_command *cli_find(const char *name);

/* Prints the usage summary of every command to f (a FILE *). */
void cli_usage(void *f);

/* Renderings of the table (cli_help.c), each written to f (a FILE *):
 * `ferry CMD --help`, the roff manual page ferry(1), and the bash or zsh completion
 * script (FERRY_EUSAGE for another shell). */
void cli_write_help(void *f, const cli_command *cmd);
int cli_write_man(void *f);
int cli_write_completion(void *f, const char *shell);

/* Whether argv (a command's own vector, argv[0] its name) asks for help: -h or --help
 * before a "--", not as the value of an option that takes one. */
int cli_wants_help(const cli_command *cmd, int argc, char **argv);

#endif
