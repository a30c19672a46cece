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

typedef struct cli_command {
	const char *name;   /* "check" */
	int (*run)(const char *dir, int argc, char **argv); /* argv[0] is the command name */
	const char *usage;  /* "check [--phase P]... [--format text|json|sarif]" */
	const char *help;   /* one line */
} cli_command;

/* The table of commands, terminated by a NULL name. */
extern const cli_command cli_commands[];

/* The command named name, or NULL. */
const cli_command *cli_find(const char *name);

/* Prints the usage summary of every command to f (a FILE *). */
void cli_usage(void *f);

#endif
