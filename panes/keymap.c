/* keymap — see keymap.h. Default bindings are data: edit this table to rebind. */
#include "keymap.h"
#include "err.h"
#include "intl.h"
#include "ui.h"
#include "util.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

/* The user's bindings (keymap_load), looked up before the defaults. */
static struct {
	int key, cmd;
} user[64];
static size_t nuser;

#define K(c) UI_KEY_CTRL(c)

const keymap_entry keymap[] = {
	/* moving */
	{ CMD_DOWN, "down", { 'j', UI_KEY_DOWN }, "j ↓", VIEW_ANY, 0, N_("move down") },
	{ CMD_UP, "up", { 'k', UI_KEY_UP }, "k ↑", VIEW_ANY, 0, N_("move up") },
	{ CMD_PAGE_DOWN, "page-down", { UI_KEY_PGDN, ' ', K('f') }, "PgDn Space", VIEW_ANY, 0, N_("next page") },
	{ CMD_PAGE_UP, "page-up", { UI_KEY_PGUP, K('b') }, "PgUp", VIEW_ANY, 0, N_("previous page") },
	{ CMD_TOP, "top", { 'g', UI_KEY_HOME, '0' }, "g Home", VIEW_ANY, 0, N_("go to the first row") },
	{ CMD_BOTTOM, "bottom", { 'G', UI_KEY_END }, "G End", VIEW_ANY, 0, N_("go to the last row") },
	{ CMD_PHASE_NEXT, "phase-next", { 'l', UI_KEY_RIGHT, ']' }, "l → ]", VIEW_ANY, 0, N_("next phase (in a diff: next hunk)") },
	{ CMD_PHASE_PREV, "phase-prev", { 'h', UI_KEY_LEFT, '[' }, "h ← [", VIEW_ANY, 0, N_("previous phase (in a diff: previous hunk)") },
	{ CMD_PHASE_1, "phase", { '1' }, "1-7", VIEW_ANY, 1, N_("select a phase by number or name") },
	{ CMD_PHASE_1 + 1, "phase-2", { '2' }, NULL, VIEW_ANY, 0, NULL },
	{ CMD_PHASE_1 + 2, "phase-3", { '3' }, NULL, VIEW_ANY, 0, NULL },
	{ CMD_PHASE_1 + 3, "phase-4", { '4' }, NULL, VIEW_ANY, 0, NULL },
	{ CMD_PHASE_1 + 4, "phase-5", { '5' }, NULL, VIEW_ANY, 0, NULL },
	{ CMD_PHASE_1 + 5, "phase-6", { '6' }, NULL, VIEW_ANY, 0, NULL },
	{ CMD_PHASE_1 + 6, "phase-7", { '7' }, NULL, VIEW_ANY, 0, NULL },
	{ CMD_OPEN, "open", { UI_KEY_ENTER }, "Enter", VIEW_ANY, 0, N_("open the selected row (finding detail, checkpoint diff)") },
	{ CMD_BACK, "back", { 'q' }, "q", VIEW_ANY, 0, N_("close the pane and go back; on the main screen, quit") },
	{ CMD_SCROLL_RIGHT, "scroll-right", { '>' }, ">", VIEW_ANY, 0, N_("scroll long lines sideways to see their ends (detail, diffs, artifacts)") },
	{ CMD_SCROLL_LEFT, "scroll-left", { '<' }, "<", VIEW_ANY, 0, N_("scroll long lines back towards their start") },
	{ CMD_SEARCH, "search", { '/' }, "/", VIEW_ANY, 1,
	  N_("search the list or text shown: words, #id, file:line (in the findings list / filters)") },
	{ CMD_SEARCH_NEXT, "search-next", { 'n' }, "n", VIEW_ANY, 0, N_("the next match of the search") },
	{ CMD_SEARCH_PREV, "search-prev", { 'N' }, "N", VIEW_ANY, 0, N_("the previous match of the search") },
	{ CMD_DETAIL_DOWN, "detail-down", { 'J' }, "J", VIEW_FINDINGS, 0, N_("scroll the detail pane down") },
	{ CMD_DETAIL_UP, "detail-up", { 'K' }, "K", VIEW_FINDINGS, 0, N_("scroll the detail pane up") },
	/* work */
	{ CMD_RUN_PHASE, "run-phase", { 'r' }, "r", VIEW_ANY, 0, N_("run the checks of the selected phase") },
	{ CMD_RUN_ALL, "run-all", { 'R' }, "R", VIEW_ANY, 0, N_("run the checks of every phase") },
	{ CMD_CANCEL, "cancel", { UI_KEY_ESC }, "Esc", VIEW_ANY, 0, N_("cancel running checks, close a pane") },
	{ CMD_WAIVE, "waive", { 'w' }, "w", VIEW_FINDINGS, 1, N_("waive the selected finding, with a reason") },
	{ CMD_SIGNOFF, "signoff", { 'S' }, "S", VIEW_ANY, 1, N_("sign the selected phase off") },
	{ CMD_EDIT, "edit", { 'e' }, "e", VIEW_FINDINGS, 0, N_("open the file at the finding in $EDITOR; the edit becomes a checkpoint") },
	{ CMD_FILTER, "filter", { '/' }, "/", VIEW_FINDINGS, 1,
	  N_("filter findings: words, sev:error, status:waived, plugin:ID, fix:yes") },
	{ CMD_FILTER_SEVERITY, "filter-severity", { 'v' }, "v", VIEW_FINDINGS, 0, N_("cycle the severity filter") },
	{ CMD_FILTER_STATUS, "filter-status", { 'u' }, "u", VIEW_FINDINGS, 0, N_("cycle the status filter") },
	{ CMD_FILTER_CLEAR, "filter-clear", { '\\' }, "\\", VIEW_FINDINGS, 0, N_("clear every filter") },
	{ CMD_SORT, "sort", { 's' }, "s", VIEW_FINDINGS, 0, N_("cycle the sort order (file, severity, plugin)") },
	{ CMD_FIX_FINDING, "fix", { 'F' }, "F", VIEW_FINDINGS, 1,
	  N_("preview the selected finding's fix (or: fix N...), then apply it as a checkpoint") },
	{ CMD_FIX_PLUGIN, "fix-plugin", { 'P' }, "P", VIEW_FINDINGS, 1,
	  N_("preview every fix of the selected finding's check (or: fix-plugin ID); one checkpoint") },
	{ CMD_FIX_FILE, "fix-file", { 'A' }, "A", VIEW_FINDINGS, 1,
	  N_("preview every fix in the selected finding's file (or: fix-file PATH); a checkpoint per check") },
	{ CMD_FIX_PHASE, "fix-phase", { 0 }, NULL, VIEW_FINDINGS, 0,
	  N_("preview every fix of the selected phase; a checkpoint per check") },
	{ CMD_FIX_APPLY, "fix-apply", { 'y', 'Y' }, "y", VIEW_FIX, 0, N_("apply the previewed fixes: checkpoints are made") },
	{ CMD_FIX_TOGGLE, "fix-toggle-hunk", { ' ' }, "Space", VIEW_FIX, 0,
	  N_("leave the current hunk out of the fix (it stays an open finding), or take it back; ] [ move between hunks") },
	{ CMD_FIX_DISCARD, "fix-discard", { 'n', 'N' }, "n Esc", VIEW_FIX, 0, N_("close the preview; nothing is changed") },
	{ CMD_REPORT, "report", { 'p' }, "p", VIEW_ANY, 1,
	  N_("generate a report (report FORMAT [PATH]; formats md html json sarif csv)") },
	{ CMD_INGEST, "ingest", { 0 }, NULL, VIEW_ANY, 1,
	  N_("bring an artifact into the engagement (kinds: env-probe loss-log dump profile onnx bench atc-log run-log first-step overflow)") },
	{ CMD_CONFIG, "config", { 0 }, NULL, VIEW_ANY, 1, N_("show or change a setting (tolerances, targets, strategy…)") },
	{ CMD_CONFIG_UNSET, "unset", { 'x' }, "x", VIEW_SETTINGS, 1,
	  N_("unset the selected setting (or: unset KEY): its default, or none, applies again (asks first)") },
	{ CMD_COMPARE, "compare", { 0 }, NULL, VIEW_ANY, 1,
	  N_("compare the GPU baseline A with the NPU run B: loss curves or tensor dumps") },
	{ CMD_EXPORT, "export", { 0 }, NULL, VIEW_ANY, 1, N_("deliver the checkpoints: mbox patches, or a branch of the client's repository") },
	{ CMD_VERIFY, "verify", { 'V' }, "V", VIEW_ANY, 0, N_("recompute the audit chain and check it against the record") },
	{ CMD_UNWAIVE, "unwaive", { 'U' }, "U", VIEW_FINDINGS, 1, N_("withdraw the waiver of the selected finding (or: unwaive N REASON)") },
	{ CMD_PROBE_SCRIPT, "probe-script", { 0 }, NULL, VIEW_ANY, 1,
	  N_("write the environment probe to run on the client's NPU host") },
	{ CMD_REVERT, "revert", { 'x' }, "x", VIEW_TIMELINE, 0, N_("revert the selected checkpoint (asks first)") },
	/* panes */
	{ CMD_FINDINGS, "findings", { 'f', UI_KEY_TAB }, "f Tab", VIEW_ANY, 0, N_("show the findings of the phase") },
	{ CMD_TIMELINE, "timeline", { 't' }, "t", VIEW_ANY, 0, N_("checkpoint timeline, newest first") },
	{ CMD_GUIDE, "guide", { 'i' }, "i", VIEW_ANY, 0, N_("the phase's guide: purpose, steps, checklist") },
	{ CMD_CHART, "chart", { 'c' }, "c", VIEW_ANY, 0, N_("charts: findings by category") },
	{ CMD_ARTIFACTS, "artifacts", { 'a' }, "a", VIEW_ANY, 0, N_("ingested artifacts and reports") },
	{ CMD_COPY, "copy", { 'C' }, "C", VIEW_ANY, 0,
	  N_("copy the finding's file:line or the checkpoint's commit to the clipboard (OSC 52)") },
	{ CMD_AUDIT, "audit", { 'E' }, "E", VIEW_ANY, 0, N_("the audit events, newest first") },
	{ CMD_MESSAGES, "messages", { 'M' }, "M", VIEW_ANY, 0,
	  N_("the messages shown on the message line, newest first, each in full (a long one says so where it is cut)") },
	{ CMD_SETTINGS, "settings", { 'o' }, "o", VIEW_ANY, 0,
	  N_("the settings form: targets, tolerances, strategy, cards, model size and the checks' own; Enter changes one, x unsets one") },
	{ CMD_HELP, "help", { '?', UI_KEY_CTRL('h') }, "?", VIEW_ANY, 0, N_("this help") },
	{ CMD_PALETTE, "palette", { ':' }, ":", VIEW_ANY, 0, N_("run a command by name") },
	{ CMD_LANG, "lang", { 'L' }, "L", VIEW_ANY, 1, N_("switch the interface language (en, zh)") },
	{ CMD_RELOAD, "reload", { K('l') }, "C-l", VIEW_ANY, 0, N_("reload from the engagement and repaint") },
	{ CMD_SAVE_SCREEN, "save-screen", { 0 }, NULL, VIEW_ANY, 1, N_("write the screen as text to a file") },
	{ CMD_QUIT, "quit", { 'Q', K('c') }, "Q C-c", VIEW_ANY, 0, N_("quit the workbench") },
	{ 0, NULL, { 0 }, NULL, 0, 0, NULL },
};

int keymap_lookup(int key, int view)
{
	for (size_t i = 0; i < nuser; i++) {
		const keymap_entry *e = keymap_by_cmd(user[i].cmd);
		if (user[i].key == key && e && (e->view == VIEW_ANY || e->view == view))
			return user[i].cmd;
	}
	for (int pass = 0; pass < 2; pass++)
		for (const keymap_entry *e = keymap; e->name; e++) {
			if ((pass == 0) != (e->view == view && view != VIEW_ANY))
				continue;
			if (pass == 1 && e->view != VIEW_ANY)
				continue;
			for (int i = 0; i < 3 && e->keys[i]; i++)
				if (e->keys[i] == key)
					return e->cmd;
		}
	return CMD_NONE;
}

const keymap_entry *keymap_by_name(const char *name)
{
	for (const keymap_entry *e = keymap; e->name; e++)
		if (strcmp(e->name, name) == 0)
			return e;
	return NULL;
}

const keymap_entry *keymap_by_cmd(int cmd)
{
	for (const keymap_entry *e = keymap; e->name; e++)
		if (e->cmd == cmd)
			return e;
	return NULL;
}

static const struct {
	int cmd;
	const char *usage;
} usages[] = {
	{ CMD_INGEST, "ingest KIND PATH [--label L] | ingest env-probe --local [--smoke]" },
	{ CMD_CONFIG, "config KEY VALUE" },
	{ CMD_CONFIG_UNSET, "unset KEY" },
	{ CMD_COMPARE, "compare loss A B [--column NAME] | compare dump A B [--dtype-a bf16] [--dtype-b bf16]" },
	{ CMD_EXPORT, "export patches DIR | export branch NAME --to REPO [--base REV]" },
	{ CMD_REPORT, "report FORMAT [PATH]" },
	{ CMD_UNWAIVE, "unwaive N REASON" },
	{ CMD_PROBE_SCRIPT, "probe-script PATH" },
	{ CMD_WAIVE, "waive REASON" },
	{ CMD_SIGNOFF, "signoff [NOTE]" },
	{ CMD_FIX_FINDING, "fix [N...]" },
	{ CMD_FIX_PLUGIN, "fix-plugin [ID]" },
	{ CMD_FIX_FILE, "fix-file [PATH]" },
	{ CMD_PHASE_1, "phase N|NAME" },
	{ CMD_LANG, "lang en|zh" },
	{ CMD_FILTER, "filter TEXT" },
	{ CMD_SEARCH, "search TEXT" },
	{ CMD_SAVE_SCREEN, "save-screen PATH" },
};

const char *keymap_usage(int cmd)
{
	for (size_t i = 0; i < sizeof usages / sizeof usages[0]; i++)
		if (usages[i].cmd == cmd)
			return usages[i].usage;
	return NULL;
}

/* "x", "C-x" or a UTF-8 character into a key code; 0 when it is none. */
static int parse_key(const char *s)
{
	if (s[0] == 'C' && s[1] == '-' && s[2] && !s[3])
		return UI_KEY_CTRL(s[2]);
	unsigned char c = (unsigned char)s[0];
	size_t n = c < 0x80 ? 1 : c >> 5 == 6 ? 2 : c >> 4 == 14 ? 3 : c >> 3 == 30 ? 4 : 0;
	if (!n || strlen(s) != n)
		return 0;
	if (n == 1)
		return c;
	int cp = c & (0x7F >> n);
	for (size_t i = 1; i < n; i++)
		cp = cp << 6 | (s[i] & 0x3F);
	return cp;
}

int keymap_load(const char *path)
{
	nuser = 0;
	FILE *f = fopen(path, "r");
	if (!f)
		return errno == ENOENT ? 0 : err_set(FERRY_EIO, "%s: %s", path, strerror(errno));
	char line[256], bad[320] = "";
	int no = 0;
	while (fgets(line, sizeof line, f)) {
		no++;
		char *hash = strchr(line, '#'), *save = NULL;
		if (hash && (hash == line || hash[-1] == ' ' || hash[-1] == '\t'))
			*hash = '\0';
		char *k = strtok_r(line, " \t\r\n", &save), *name = strtok_r(NULL, " \t\r\n", &save);
		if (!k)
			continue;
		const keymap_entry *e = name ? keymap_by_name(name) : NULL;
		int key = parse_key(k);
		if (!e || !key || strtok_r(NULL, " \t\r\n", &save) || nuser == sizeof user / sizeof user[0]) {
			if (!*bad)
				snprintf(bad, sizeof bad, "%s:%d: %s", path, no,
				         !name ? _("a binding is KEY COMMAND") : !e ? _("no such command")
				         : !key ? _("not a key (x or C-x)") : _("one KEY COMMAND per line, at most 64"));
			continue;
		}
		user[nuser].key = key;
		user[nuser++].cmd = e->cmd;
	}
	fclose(f);
	return *bad ? err_set(FERRY_EUSAGE, "%s", bad) : 0;
}

const char *keymap_label(const keymap_entry *e)
{
	static char buf[128];
	snprintf(buf, sizeof buf, "%s", e->label ? e->label : "");
	for (size_t i = 0; i < nuser; i++) {
		if (user[i].cmd != e->cmd)
			continue;
		char k[8];
		int key = user[i].key;
		if (key < 0x20)
			snprintf(k, sizeof k, "C-%c", key + 'a' - 1);
		else if (key < 0x80)
			snprintf(k, sizeof k, "%c", key);
		else if (key < 0x800)
			snprintf(k, sizeof k, "%c%c", 0xC0 | key >> 6, 0x80 | (key & 0x3F));
		else if (key < 0x10000)
			snprintf(k, sizeof k, "%c%c%c", 0xE0 | key >> 12, 0x80 | (key >> 6 & 0x3F), 0x80 | (key & 0x3F));
		else
			snprintf(k, sizeof k, "%c%c%c%c", 0xF0 | key >> 18, 0x80 | (key >> 12 & 0x3F), 0x80 | (key >> 6 & 0x3F),
			         0x80 | (key & 0x3F));
		size_t n = strlen(buf);
		snprintf(buf + n, sizeof buf - n, "%s%s", n ? " " : "", k);
	}
	return buf;
}

const char *keymap_help(const keymap_entry *e)
{
	return e->help ? _(e->help) : "";
}
