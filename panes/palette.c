/* palette — the `:` command list: every keymap command whose name starts with
 * what has been typed, with its keys and help, so commands can be found and run
 * by name. Once a command name is typed it shows the command's usage and what the
 * word being typed can be (kinds, setting keys, artifact labels, formats, files):
 * palette_candidates, which Tab completes from. The typed line itself is edited by
 * the main loop's prompt. */
#include "artifact.h"
#include "phase.h"
#include "config.h"
#include "intl.h"
#include "pane.h"
#include "report.h"
#include "text.h"
#include "util.h"
#include "workspace.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

typedef struct cands {
	char **v;
	size_t n, cap;
	const char *prefix; /* only words starting with it are kept */
} cands;

static void cand_add(cands *c, const char *word)
{
	if (!word || !*word || !util_starts_with(word, c->prefix))
		return;
	for (size_t i = 0; i < c->n; i++)
		if (strcmp(c->v[i], word) == 0)
			return;
	if (c->n + 2 > c->cap)
		c->v = xrealloc(c->v, (c->cap = c->cap ? c->cap * 2 : 16) * sizeof *c->v);
	c->v[c->n++] = xstrdup(word);
	c->v[c->n] = NULL;
}

static void cand_words(cands *c, const char *const *words)
{
	for (size_t i = 0; words[i]; i++)
		cand_add(c, words[i]);
}

/* Files and folders (with a trailing '/') whose path starts with the prefix, relative
 * to the current directory as the CLI reads them; "~/" is the home folder. */
static void cand_paths(cands *c)
{
	const char *word = c->prefix, *slash = strrchr(word, '/');
	char *dir = slash ? xasprintf("%.*s", (int)(slash - word + 1), word) : xstrdup("");
	char *open_at = pane_expand_path(*dir ? dir : ".");
	DIR *d = opendir(open_at);
	while (d) {
		struct dirent *e = readdir(d);
		if (!e)
			break;
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		char *full = xasprintf("%s/%s", open_at, e->d_name);
		struct stat st;
		int isdir = stat(full, &st) == 0 && S_ISDIR(st.st_mode);
		char *w = xasprintf("%s%s%s", dir, e->d_name, isdir ? "/" : "");
		if (e->d_name[0] != '.' || (slash ? slash[1] : word[0]) == '.')
			cand_add(c, w);
		free(w);
		free(full);
	}
	if (d)
		closedir(d);
	free(open_at);
	free(dir);
}

static int cand_cmp(const void *x, const void *y)
{
	return strcmp(*(char *const *)x, *(char *const *)y);
}

char *pane_expand_path(const char *path)
{
	const char *home = getenv("HOME");
	if (path[0] == '~' && (path[1] == '/' || !path[1]) && home && *home)
		return xasprintf("%s%s", home, path + 1);
	return xstrdup(path);
}

size_t palette_split(char **argv, size_t max, char *line)
{
	size_t n = 0;
	char *p = line;
	while (*p && n < max) {
		while (*p == ' ')
			p++;
		if (!*p)
			break;
		char *out = p, q = 0;
		argv[n++] = p;
		while (*p && (q || *p != ' ')) {
			if (!q && (*p == '"' || *p == '\'')) {
				q = *p++;
				continue;
			}
			if (q && *p == q) {
				q = 0;
				p++;
				continue;
			}
			*out++ = *p++;
		}
		if (*p)
			p++;
		*out = '\0';
	}
	return n;
}

/* Where the argument being typed starts: after the last blank outside quotes, or after
 * the quote that opens it ("…/客户 日志/ is one argument). *open is 1 in an open quote. */
static size_t word_start(const char *line, int *open)
{
	size_t start = 0, quote = 0;
	*open = 0;
	for (size_t i = 0; line[i]; i++) {
		if (line[i] == '"') {
			*open = !*open;
			quote = i;
		} else if (line[i] == ' ' && !*open) {
			start = i + 1;
		}
	}
	return *open ? quote + 1 : start;
}

char **palette_candidates(tui *t, const char *line, size_t *word)
{
	int open = 0;
	*word = word_start(line, &open);
	const char *last = *word ? line + *word - 1 : NULL; /* the blank or quote before the word */
	cands c = { NULL, 0, 0, line + *word };
	if (!last) {
		for (const keymap_entry *e = keymap; e->name; e++)
			if (e->help)
				cand_add(&c, e->name);
		goto out;
	}
	char *copy = xasprintf("%.*s", (int)(*word - (size_t)open), line), *argv[16];
	size_t argc = palette_split(argv, 16, copy), i = argc - 1; /* i: the argument being typed */
	const char *cmd = argv[0], *prev = argc > 1 ? argv[argc - 1] : "";
	static const char *const sub_compare[] = { "loss", "dump", NULL }, *const sub_export[] = { "patches", "branch", NULL },
	                         *const langs[] = { "en", "zh", NULL };
	if (strcmp(cmd, "ingest") == 0) {
		if (i == 0)
			cand_words(&c, artifact_kinds);
		else if (i == 1)
			cand_paths(&c);
		else if (strcmp(prev, "--label") != 0)
			cand_add(&c, "--label");
	} else if ((strcmp(cmd, "config") == 0 || strcmp(cmd, "unset") == 0) && i == 0) {
		for (const struct config_key *k = config_keys; k->key; k++)
			cand_add(&c, k->key);
		size_t n = 0;
		const struct config_key *d = config_declared(&n);
		for (size_t k = 0; k < n; k++)
			cand_add(&c, d[k].key);
	} else if (strcmp(cmd, "config") == 0) {
		const struct config_key *k = i == 1 ? config_key_find(argv[1]) : NULL;
		if (k && k->kind == CFG_WORD) {
			char *words = xstrdup(k->words), *save = NULL;
			for (char *w = strtok_r(words, " ", &save); w; w = strtok_r(NULL, " ", &save))
				cand_add(&c, w);
			free(words);
		}
	} else if (strcmp(cmd, "compare") == 0) {
		if (i == 0)
			cand_words(&c, sub_compare);
		else if (i <= 2 && strchr(c.prefix, '/'))
			cand_paths(&c);
		else if (i <= 2) {
			tui_artifact *a = NULL;
			size_t n = 0;
			const char *kind = strcmp(argv[1], "loss") == 0 ? "loss-log" : "dump";
			if (model_artifacts(&a, &n, &t->m) == 0)
				for (size_t k = 0; k < n; k++)
					if (strcmp(a[k].kind, kind) == 0)
						cand_add(&c, a[k].label);
			model_artifacts_free(a, n);
		}
	} else if (strcmp(cmd, "export") == 0) {
		int branch = argc > 1 && strcmp(argv[1], "branch") == 0;
		if (i == 0)
			cand_words(&c, sub_export);
		else if ((!branch && i == 1) || (branch && strcmp(prev, "--to") == 0))
			cand_paths(&c);
		else if (branch && i == 2)
			cand_add(&c, "--to");
		else if (branch && i == 4)
			cand_add(&c, "--base");
	} else if (strcmp(cmd, "report") == 0) {
		if (i == 0)
			for (const char *const *f = report_formats; *f; f++)
				cand_add(&c, *f);
		else if (i == 1)
			cand_paths(&c);
	} else if (strcmp(cmd, "probe-script") == 0 || strcmp(cmd, "save-screen") == 0) {
		if (i == 0)
			cand_paths(&c);
	} else if (strcmp(cmd, "unwaive") == 0 || strcmp(cmd, "fix") == 0) {
		finding_status want = cmd[0] == 'u' ? STATUS_WAIVED : STATUS_OPEN;
		for (size_t k = 0; i == 0 && k < t->m.nf; k++)
			if (t->m.f[k].status == want) {
				char id[24];
				snprintf(id, sizeof id, "%lld", t->m.f[k].id);
				cand_add(&c, id);
			}
	} else if (strcmp(cmd, "phase") == 0 && i == 0) {
		for (int k = 0; k < (int)phase_count(); k++)
			cand_add(&c, phase_name(k));
	} else if (strcmp(cmd, "lang") == 0 && i == 0) {
		cand_words(&c, langs);
	} else if (strcmp(cmd, "fix-plugin") == 0 && i == 0) {
		char **ids = NULL;
		if (model_plugin_ids(&ids, &t->m) == 0)
			for (size_t k = 0; ids[k]; k++)
				cand_add(&c, ids[k]);
		model_strings_free(ids);
	}
	free(copy);
out:
	if (c.n > 1 && last)
		qsort(c.v, c.n, sizeof *c.v, cand_cmp);
	return c.v ? c.v : xcalloc(1, sizeof(char *));
}

static void *palette_open(tui *t)
{
	(void)t;
	return NULL;
}

static void palette_close(void *st)
{
	(void)st;
}

static void palette_draw(void *st, tui *t, ui_win *w)
{
	(void)st;
	const char *typed = t->prompt_buf ? t->prompt_buf : "";
	size_t n = strcspn(typed, " ");
	int width = ui_win_width(w), h = ui_win_height(w);
	ui_erase(w);
	ui_fill_row(w, 0, UI_BAR);
	ui_put(w, 0, 1, UI_BAR, _("Commands (Tab completes, Enter runs, Esc cancels)"), width - 2);
	int y = 1;
	char name[64];
	snprintf(name, sizeof name, "%.*s", (int)(n < sizeof name ? n : sizeof name - 1), typed);
	const keymap_entry *cmd = typed[n] == ' ' ? keymap_by_name(name) : NULL;
	if (cmd) {
		/* a command is typed: its usage, its help, and what the current word can be */
		const char *usage = keymap_usage(cmd->cmd);
		char line[256];
		snprintf(line, sizeof line, "%s %s", _("usage:"), usage ? usage : cmd->name);
		ui_put(w, y++, 1, UI_TITLE, line, width - 2);
		ui_put(w, y++, 1, UI_DIM, keymap_help(cmd), width - 2);
		size_t at = 0;
		char **c = palette_candidates(t, typed, &at);
		int x = 1;
		for (size_t i = 0; c[i] && y < h; i++) {
			int cw = text_width(c[i]) + 2;
			if (x > 1 && x + cw > width - 1) {
				x = 1;
				y++;
			}
			if (y < h)
				x += ui_put(w, y, x, UI_KEY, c[i], width - x - 1) + 2;
		}
		model_strings_free(c);
		return;
	}
	for (const keymap_entry *e = keymap; e->name && y < h; e++) {
		if (!e->help || strncmp(e->name, typed, n) != 0)
			continue;
		char *cell = text_cell(e->name, 16, 0);
		char *keys = text_cell(keymap_label(e), 10, 0);
		ui_put(w, y, 1, UI_TITLE, cell, 16);
		ui_put(w, y, 18, UI_KEY, keys, 10);
		ui_put(w, y, 29, UI_NORMAL, keymap_help(e), width - 30);
		free(cell);
		free(keys);
		y++;
	}
	if (y == 1)
		ui_put(w, 1, 1, UI_DIM, _("no command starts with that"), 0);
}

static int palette_handle(void *st, tui *t, int cmd, const char *arg)
{
	(void)st, (void)t, (void)cmd, (void)arg;
	return 0;
}

const pane_ops pane_palette_ops = { "palette", palette_open, palette_close, palette_draw, palette_handle };
