/* subject — see subject.h. */
#include "subject.h"
#include "intl.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static const char *const fix_forms[][2] = {
	{ NP_("%s: fix %d finding (%s in %s)", "%s: fix %d findings (%s in %s)") },
	{ NP_("%zu edit", "%zu edits") },
	{ NP_("%zu file", "%zu files") },
};
static const char *const revert_form = N_("Revert \"%s\"");
const char *const subject_baseline = N_("Baseline: project as received");
const char *const subject_manual = N_("Manual edit: changes made outside ferry");

/* The form for n, from the catalog unless english is set. */
static const char *form(int english, int which, unsigned long n)
{
	const char *one = fix_forms[which][0], *many = fix_forms[which][1];
	return english ? (n == 1 ? one : many) : ngettext(one, many, n);
}

static char *fix_text(int english, const char *plugin, int nf, size_t nedits, size_t nfiles)
{
	char *edits = xasprintf(form(english, 1, nedits), nedits);
	char *files = xasprintf(form(english, 2, nfiles), nfiles);
	char *text = xasprintf(form(english, 0, (unsigned long)nf), plugin, nf, edits, files);
	free(edits);
	free(files);
	return text;
}

char *subject_fix(const char *plugin, int nfindings, size_t nedits, size_t nfiles)
{
	return fix_text(1, plugin, nfindings, nedits, nfiles);
}

char *subject_revert(const char *subject, const char *oid)
{
	char *head = xasprintf(revert_form, subject);
	char *text = xasprintf("%s\n\nThis reverts commit %s.", head, oid);
	free(head);
	return text;
}

int subject_reverted(char out[41], const char *message)
{
	static const char mark[] = "This reverts commit ";
	const char *at = strstr(message, mark);
	if (!at)
		return 0;
	at += sizeof mark - 1;
	if (strspn(at, "0123456789abcdef") != 40)
		return 0;
	memcpy(out, at, 40);
	out[40] = '\0';
	return 1;
}

/* Reads "<n> WORD" or "<n> WORDs" at *s; advances past it. */
static int read_count(const char **s, const char *word, unsigned long *n)
{
	char *end;
	if (**s < '0' || **s > '9')
		return 0;
	*n = strtoul(*s, &end, 10);
	size_t len = strlen(word);
	if (*end != ' ' || strncmp(end + 1, word, len) != 0)
		return 0;
	*s = end + 1 + len + (end[1 + len] == 's');
	return 1;
}

/* "PLUGIN: fix N finding(s) (E edit(s) in F file(s))" parsed back; 1 when it is one. */
static int parse_fix(const char *line, char **plugin, unsigned long *nf, unsigned long *ne, unsigned long *nfiles)
{
	const char *colon = strstr(line, ": fix ");
	if (!colon || colon == line)
		return 0;
	const char *s = colon + 6;
	if (!read_count(&s, "finding", nf) || strncmp(s, " (", 2) != 0)
		return 0;
	s += 2;
	if (!read_count(&s, "edit", ne) || strncmp(s, " in ", 4) != 0)
		return 0;
	s += 4;
	if (!read_count(&s, "file", nfiles) || strcmp(s, ")") != 0)
		return 0;
	*plugin = xstrndup(line, (size_t)(colon - line));
	return 1;
}

static char *show_line(const char *line, int depth)
{
	size_t len = strlen(line);
	if (depth < 8 && util_starts_with(line, "Revert \"") && len > 9 && line[len - 1] == '"') {
		char *inner = xstrndup(line + 8, len - 9);
		char *shown = show_line(inner, depth + 1);
		char *text = xasprintf(_(revert_form), shown);
		free(inner);
		free(shown);
		return text;
	}
	char *plugin;
	unsigned long nf, ne, nfiles;
	if (parse_fix(line, &plugin, &nf, &ne, &nfiles)) {
		char *text = fix_text(0, plugin, (int)nf, ne, nfiles);
		free(plugin);
		return text;
	}
	if (strcmp(line, subject_baseline) == 0 || strcmp(line, subject_manual) == 0)
		return xstrdup(_(line));
	return xstrdup(line);
}

char *subject_show(const char *message)
{
	char *line = xstrndup(message, strcspn(message, "\n"));
	char *text = show_line(line, 0);
	free(line);
	return text;
}
