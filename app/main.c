/*
 * main — arguments, setup and exit. `ferry [-C DIR] COMMAND ...` runs a command;
 * `ferry [DIR]` opens the workbench. The only place that prints the error line
 * and decides the exit status (DESIGN §7: 0, 1 failure found, 2 usage, 3 runtime).
 */
#include "cli.h"
#include "err.h"
#include "intl.h"
#include "safetext.h"
#include "tui.h"

#include <locale.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static int is_directory(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

/* The line for a word that is neither a command nor a project directory: a word that
 * reads as a path is a directory that does not exist; anything else an unknown command. */
static int not_a_command(const char *word, int alone)
{
	struct stat st;
	char *shown = safetext_terminal(word);
	if (alone && stat(word, &st) == 0)
		fprintf(stderr, _("ferry: %s: not a directory (ferry opens a project directory)\n"), shown);
	else if (alone && (strchr(word, '/') || word[0] == '.' || word[0] == '~'))
		fprintf(stderr, _("ferry: %s: no such directory\n"), shown);
	else
		fprintf(stderr, _("ferry: %s: unknown command, and no directory of that name (ferry --help lists the "
		                "commands)\n"), shown);
	free(shown);
	return 2;
}

int main(int argc, char **argv)
{
	setlocale(LC_ALL, "");
	intl_init();
	const char *dir = ".";
	int i = 1;
	while (i < argc && argv[i][0] == '-') {
		if (strcmp(argv[i], "-C") == 0 && i + 1 < argc) {
			dir = argv[i + 1];
			i += 2;
		} else if (strncmp(argv[i], "-C", 2) == 0 && argv[i][2]) {
			dir = argv[i] + 2;
			i++;
		} else if (strcmp(argv[i], "-h") == 0 || strcmp(argv[i], "--help") == 0) {
			cli_usage(stdout);
			return 0;
		} else if (strcmp(argv[i], "--version") == 0) {
			return cli_find("version")->run(dir, 1, argv + i);
		} else {
			fprintf(stderr, _("ferry: %s: unknown option\n"), argv[i]);
			cli_usage(stderr);
			return 2;
		}
	}
	int rc;
	if (i == argc) {
		rc = tui_main(dir);
	} else {
		const cli_command *cmd = cli_find(argv[i]);
		if (cmd && cli_wants_help(cmd, argc - i, argv + i)) {
			cli_write_help(stdout, cmd);
			return 0;
		} else if (cmd) {
			rc = cmd->run(dir, argc - i, argv + i);
		} else if (i + 1 == argc && is_directory(argv[i])) {
			rc = tui_main(argv[i]);
		} else {
			return not_a_command(argv[i], i + 1 == argc);
		}
	}
	if (rc) {
		char *msg = safetext_terminal(err_message()); /* may name a client's file */
		fprintf(stderr, _("ferry: %s\n"), msg);
		free(msg);
		return err_exit_code(rc);
	}
	return 0;
}
