/* cli_help — renderings of the command table (cli.h): a command's --help, the manual
 * page ferry(1) and the bash and zsh completion scripts. Nothing here knows a command
 * by name: each line comes from the table, so the help, the manual and the completion
 * cannot drift from what the parser accepts. */
#include "cli.h"
#include "phase.h"
#include "config.h"
#include "err.h"
#include "intl.h"
#include "workspace.h"

#include <stdio.h>
#include <string.h>

static const cli_option help_option = { "help", 'h', NULL, N_("show this help and exit") };

/* "--name ARG" (or "--name") into buf. */
static const char *option_label(char *buf, size_t n, const cli_option *o)
{
	snprintf(buf, n, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
	return buf;
}

void cli_write_help(void *fp, const cli_command *cmd)
{
	FILE *f = fp;
	char label[96];
	fprintf(f, _("usage: ferry %s\n\n%s\n\noptions:\n"), cmd->usage, _(cmd->help));
	for (const cli_option *o = cmd->options; o && o->name; o++)
		fprintf(f, "  %-28s %s\n", option_label(label, sizeof label, o), _(o->help));
	fprintf(f, "  %-28s %s\n", "-h, --help", _(help_option.help));
}

int cli_wants_help(const cli_command *cmd, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (strcmp(a, "--") == 0)
			return 0;
		if (strcmp(a, "-h") == 0 || strcmp(a, "--help") == 0)
			return 1;
		if (strncmp(a, "--", 2) != 0 || strchr(a, '='))
			continue;
		/* the next word is this option's value: `--reason -h` is a reason */
		for (const cli_option *o = cmd->options; o && o->name; o++)
			if (o->arg && strcmp(a + 2, o->name) == 0) {
				i++;
				break;
			}
	}
	return 0;
}

/* --- the manual page --- */

/* Text in roff: a backslash as \e, a leading dot or quote protected, '-' as \-, and
 * every character outside ASCII as \[uXXXX] (troff reads its input as Latin-1). */
static void roff(FILE *f, const char *s)
{
	const unsigned char *u = (const unsigned char *)s;
	if (*u == '.' || *u == '\'')
		fputs("\\&", f);
	while (*u) {
		if (*u < 0x80) {
			if (*u == '\\')
				fputs("\\e", f);
			else if (*u == '-')
				fputs("\\-", f);
			else
				fputc(*u, f);
			u++;
			continue;
		}
		int len = *u >= 0xf0 ? 4 : *u >= 0xe0 ? 3 : *u >= 0xc0 ? 2 : 1;
		unsigned cp = len == 1 ? 0xfffd : *u & (0x7f >> len);
		int i = 1;
		for (; i < len && (u[i] & 0xc0) == 0x80; i++)
			cp = cp << 6 | (u[i] & 0x3f);
		if (i < len)
			cp = 0xfffd, len = i;
		fprintf(f, "\\[u%04X]", cp);
		u += len;
	}
}

int cli_write_man(void *fp)
{
	FILE *f = fp;
	char label[96];
	fprintf(f, ".TH FERRY 1 \"\" \"ferry %s\" \"User Commands\"\n", FERRY_VERSION);
	fputs(_(".SH NAME\nferry \\- carry a PyTorch project from NVIDIA GPUs to Ascend NPUs\n"), f);
	fputs(".SH SYNOPSIS\n.B ferry\n[\\fB\\-C\\fR \\fIDIR\\fR] \\fICOMMAND\\fR [\\fIARGS\\fR]\n.br\n"
	      ".B ferry\n[\\fIDIR\\fR]\n", f);
	fputs(_(".SH DESCRIPTION\nAn engagement walks seven phases: "), f);
	fputs(phase_list(), f);
	fputs(_(". Every check is a Lua plugin, every change to the client's code a checkpoint in a shadow "
	      "history, and the record an append\\-only, hash\\-chained audit log in\n.IR .ferry/ .\n"
	      "Without a command, ferry opens the workbench on\n.I DIR\n(default: the current directory).\n"
	      ".TP\n.BI \\-C \" DIR\"\nwork on the project in\n.I DIR\n.SH COMMANDS\n"), f);
	for (const cli_command *c = cli_commands; c->name; c++) {
		fputs(".TP\n.B ferry ", f);
		roff(f, c->usage);
		fputc('\n', f);
		roff(f, _(c->help));
		fputc('\n', f);
		for (const cli_option *o = c->options; o && o->name; o++) {
			fputs(".RS\n.TP\n.B ", f);
			roff(f, option_label(label, sizeof label, o));
			fputc('\n', f);
			roff(f, _(o->help));
			fputs("\n.RE\n", f);
		}
	}
	fputs(_(".SH SETTINGS\nSet with\n.BR \"ferry config\" :\n"), f);
	for (const struct config_key *k = config_keys; k->key; k++) {
		fputs(".TP\n.B ", f);
		roff(f, k->key);
		fputc('\n', f);
		roff(f, _(k->help));
		fputc('\n', f);
	}
	fputs(_(".SH EXIT STATUS\n0 done; 1 a failure was found (a failing check, comparison or verification), or "
	      "the state of the engagement refused the request with nothing changed (a sign-off with open errors, a "
	      "revert that later changes conflict with); 2 a usage error, or an argument no state makes valid "
	      "(reverting the baseline, a --head that is not HASH or HASH:N); 3 a runtime error (unreadable input, "
	      "a failed plugin, a damaged record).\n"
	      ".SH FILES\n.TP\n.I .ferry/engagement.db\nthe engagement record (SQLite)\n"
	      ".TP\n.I .ferry/history.git\nthe shadow history of checkpoints\n"
	      ".TP\n.I .ferry/plugins/\nthe engagement's own checks\n"), f);
	return ferror(f) ? err_set(FERRY_EIO, _("help: cannot write the manual page")) : 0;
}

/* --- completion --- */

/* The words an operand or option value of this spec completes to, space-separated,
 * into f; for a path, the shell's own file completion is asked for with "@files". */
static void completion_words(FILE *f, const char *spec)
{
	if (!spec)
		return;
	if (strcmp(spec, "PHASE") == 0) {
		for (size_t i = 0; i < phase_count(); i++)
			fprintf(f, "%s%s", i ? " " : "", phase_name(i));
	} else if (strcmp(spec, "KEY") == 0) {
		for (const struct config_key *k = config_keys; k->key; k++)
			fprintf(f, "%s%s", k == config_keys ? "" : " ", k->key);
	} else if (strcmp(spec, "COMMAND") == 0) {
		for (const cli_command *c = cli_commands; c->name; c++)
			fprintf(f, "%s%s", c == cli_commands ? "" : " ", c->name);
	} else if (strchr(spec, '|')) {
		for (const char *s = spec; *s; s++)
			fputc(*s == '|' ? ' ' : *s, f);
	} else if (strstr(spec, "FILE") || strstr(spec, "PATH") || strstr(spec, "DIR") || strstr(spec, "REPO")) {
		fputs("@files", f);
	}
}

/* The operand spec at position pos (0-based) of cmd, copied into buf; NULL past the end. */
static const char *operand_at(char *buf, size_t n, const cli_command *cmd, int pos)
{
	const char *s = cmd->operands;
	for (int i = 0; s && *s; i++) {
		const char *end = strchr(s, ' ');
		size_t len = end ? (size_t)(end - s) : strlen(s);
		if (i == pos) {
			snprintf(buf, n, "%.*s", (int)len, s);
			return buf;
		}
		s = end ? end + 1 : NULL;
	}
	return NULL;
}

/* One shell function body, shared by bash and zsh: ferry_words CMD POS PREV prints the
 * candidates for the word at operand position POS after PREV. Written as a case over
 * the table. */
static void write_candidates_function(FILE *f)
{
	char buf[96];
	fputs("__ferry_words() {\n  case \"$1\" in\n  '')\n    echo '", f);
	for (const cli_command *c = cli_commands; c->name; c++)
		fprintf(f, "%s%s", c == cli_commands ? "" : " ", c->name);
	fputs("' ;;\n", f);
	for (const cli_command *c = cli_commands; c->name; c++) {
		fprintf(f, "  %s)\n    case \"$3\" in\n", c->name);
		for (const cli_option *o = c->options; o && o->name; o++)
			if (o->arg) {
				fprintf(f, "    --%s) echo '", o->name);
				completion_words(f, o->arg);
				fputs("'; return ;;\n", f);
			}
		fputs("    esac\n    case \"$4\" in -*) echo '", f);
		for (const cli_option *o = c->options; o && o->name; o++)
			fprintf(f, "--%s ", o->name);
		fputs("--help'; return ;; esac\n    case \"$2\" in\n", f);
		for (int i = 0; operand_at(buf, sizeof buf, c, i); i++) {
			fprintf(f, "    %d) echo '", i);
			completion_words(f, buf);
			fputs("' ;;\n", f);
		}
		fputs("    esac ;;\n", f);
	}
	fputs("  esac\n}\n\n"
	      /* the command, the operand position and the word before the cursor */
	      "__ferry_context() {\n  local i w cmd='' pos=0 skip=0\n"
	      "  for ((i = 2; i < $#; i++)); do\n    w=${@:i:1}\n"
	      "    if ((skip)); then skip=0; continue; fi\n"
	      "    case \"$w\" in\n    -C) skip=1 ;;\n    -*) [ -n \"$cmd\" ] && __ferry_takes_value \"$cmd\" \"$w\" && skip=1 ;;\n"
	      "    *) if [ -z \"$cmd\" ]; then cmd=$w; else pos=$((pos + 1)); fi ;;\n    esac\n  done\n"
	      "  echo \"$cmd $pos\"\n}\n\n__ferry_takes_value() {\n  case \"$1 $2\" in\n",
	      f);
	for (const cli_command *c = cli_commands; c->name; c++)
		for (const cli_option *o = c->options; o && o->name; o++)
			if (o->arg)
				fprintf(f, "  '%s --%s') return 0 ;;\n", c->name, o->name);
	fputs("  esac\n  return 1\n}\n\n", f);
}

int cli_write_completion(void *fp, const char *shell)
{
	FILE *f = fp;
	if (strcmp(shell, "bash") == 0) {
		fputs("# bash completion for ferry, generated from its command table (ferry completion bash)\n", f);
		write_candidates_function(f);
		fputs("_ferry() {\n  local cur=${COMP_WORDS[COMP_CWORD]} prev=${COMP_WORDS[COMP_CWORD-1]}\n"
		      "  local ctx; ctx=$(__ferry_context \"${COMP_WORDS[@]:0:COMP_CWORD}\" x)\n"
		      "  local cmd=${ctx% *} pos=${ctx#* }\n"
		      "  local words; words=$(__ferry_words \"$cmd\" \"$pos\" \"$prev\" \"$cur\")\n"
		      "  if [ \"$words\" = @files ] || [ \"$prev\" = -C ]; then\n"
		      "    COMPREPLY=($(compgen -f -- \"$cur\"))\n  else\n"
		      "    COMPREPLY=($(compgen -W \"$words\" -- \"$cur\"))\n  fi\n}\n"
		      "complete -o filenames -F _ferry ferry\n", f);
	} else if (strcmp(shell, "zsh") == 0) {
		fputs("#compdef ferry\n# zsh completion for ferry, generated from its command table (ferry completion zsh)\n",
		      f);
		write_candidates_function(f);
		fputs("_ferry() {\n  local ctx cmd pos cands\n"
		      "  ctx=$(__ferry_context \"${(@)words[1,CURRENT-1]}\" x)\n"
		      "  cmd=${ctx% *}; pos=${ctx#* }\n"
		      "  cands=$(__ferry_words \"$cmd\" \"$pos\" \"${words[CURRENT-1]}\" \"${words[CURRENT]}\")\n"
		      "  if [[ $cands == @files || ${words[CURRENT-1]} == -C ]]; then _files; "
		      "else compadd -- ${=cands}; fi\n}\n_ferry \"$@\"\n", f);
	} else {
		return err_set(FERRY_EUSAGE, _("completion %s: not a shell ferry completes for (bash, zsh)"), shell);
	}
	return ferror(f) ? err_set(FERRY_EIO, _("completion: cannot write the script")) : 0;
}
