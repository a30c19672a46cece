/*
 * keymap — the one table of workbench commands: each command's name (for the `:`
 * palette), its default keys (data, not code), the view it belongs to and its
 * help text (English, marked N_() and translated where it is shown: keymap_help). The help overlay and the palette
 * are generated from this table; panes receive commands, never raw keys.
 *
 * The defaults are static data. A user's bindings (keymap_load: ~/.config/ferry/keys or
 * $XDG_CONFIG_HOME/ferry/keys, one "KEY COMMAND" per line) add keys to commands; they
 * are looked up first and shown by keymap_label, so help and the palette list them.
 */
#ifndef FERRY_KEYMAP_H
#define FERRY_KEYMAP_H

enum tui_cmd {
	CMD_NONE,
	CMD_UP,
	CMD_DOWN,
	CMD_PAGE_UP,
	CMD_PAGE_DOWN,
	CMD_TOP,
	CMD_BOTTOM,
	CMD_PHASE_PREV,
	CMD_PHASE_NEXT,
	CMD_PHASE_1, /* CMD_PHASE_1 + i selects phase i (0..6) */
	CMD_PHASE_7 = CMD_PHASE_1 + 6,
	CMD_OPEN,
	CMD_BACK,
	CMD_DETAIL_UP,
	CMD_DETAIL_DOWN,
	CMD_RUN_PHASE,
	CMD_RUN_ALL,
	CMD_CANCEL,
	CMD_WAIVE,
	CMD_SIGNOFF,
	CMD_EDIT,
	CMD_FILTER,
	CMD_FILTER_SEVERITY,
	CMD_FILTER_STATUS,
	CMD_FILTER_CLEAR,
	CMD_SORT,
	CMD_FINDINGS,
	CMD_TIMELINE,
	CMD_GUIDE,
	CMD_CHART,
	CMD_ARTIFACTS,
	CMD_HELP,
	CMD_PALETTE,
	CMD_REVERT,
	CMD_LANG,
	CMD_RELOAD,
	CMD_SAVE_SCREEN,
	CMD_QUIT,
	CMD_FIX_FINDING, /* preview the selected finding's fix */
	CMD_FIX_PLUGIN,  /* preview every fix of the selected finding's plugin */
	CMD_FIX_FILE,    /* preview every fix in the selected finding's file */
	CMD_FIX_PHASE,   /* preview every fix of the selected phase */
	CMD_FIX_APPLY,   /* apply the previewed fixes */
	CMD_FIX_DISCARD, /* close the preview without changing anything */
	CMD_REPORT,      /* generate a report: format and output path */
	CMD_INGEST,      /* bring an artifact into the engagement */
	CMD_CONFIG,      /* show or change a setting */
	CMD_COMPARE,     /* compare two loss logs or two dumps */
	CMD_EXPORT,      /* export the checkpoints as patches or a branch */
	CMD_VERIFY,      /* verify the audit chain against the record */
	CMD_UNWAIVE,     /* withdraw a waiver */
	CMD_PROBE_SCRIPT, /* write the environment probe for the client's host */
	CMD_AUDIT,       /* the audit events, newest first */
	CMD_COPY,        /* copy the finding's file:line or the checkpoint's commit */
	CMD_SEARCH,      /* search the shown list or text (arg: the text) */
	CMD_SEARCH_NEXT, /* the next match of the search (arg: the text) */
	CMD_SEARCH_PREV, /* the previous match */
	CMD_SCROLL_LEFT, /* long lines: scroll the text sideways */
	CMD_SCROLL_RIGHT,
	CMD_SETTINGS,    /* the settings form */
	CMD_FIX_TOGGLE,  /* the fix preview: leave the current hunk out, or take it back */
	CMD_CONFIG_UNSET, /* remove a setting (the settings form's selected one, or KEY) */
	CMD_MESSAGES,    /* the messages shown so far, newest first, each whole */
	CMD_COUNT
};

/* Views a binding can be limited to. */
enum tui_view {
	VIEW_ANY,
	VIEW_FINDINGS,
	VIEW_TIMELINE,
	VIEW_GUIDE,
	VIEW_CHART,
	VIEW_ARTIFACTS,
	VIEW_FIX, /* the fix preview: a plan's diff waiting for y/n */
	VIEW_AUDIT, /* the audit chain */
	VIEW_SHOW,  /* one artifact or comparison opened from the artifacts pane */
	VIEW_SETTINGS, /* the settings form */
	VIEW_MESSAGES, /* the messages shown so far */
	VIEW_COUNT
};

typedef struct keymap_entry {
	int cmd;             /* enum tui_cmd */
	const char *name;    /* palette name: "run-phase" */
	int keys[3];         /* default keys (ui.h codes), 0-terminated */
	const char *label;   /* keys as shown in help: "r" */
	int view;            /* enum tui_view where the binding applies */
	int takes_arg;       /* the palette passes the rest of the line */
	const char *help;    /* one line, English; NULL: not listed in help or the palette */
} keymap_entry;

/* The table, terminated by an entry with a NULL name. */
extern const keymap_entry keymap[];

/* The command bound to key in view (view-specific bindings first), or CMD_NONE. */
int keymap_lookup(int key, int view);
/* The entry of a command name ("run-phase"), or NULL. */
const keymap_entry *keymap_by_name(const char *name);
/* The entry of a command, or NULL. */
const keymap_entry *keymap_by_cmd(int cmd);
/* The one-line usage of a command that takes words ("ingest KIND PATH [--label L]"),
 * or NULL when it takes none. */
const char *keymap_usage(int cmd);
/* Reads the user's bindings from path: lines "KEY COMMAND" (KEY one character, or C-x
 * for control; # starts a comment). A missing file is not an error. Returns 0, or
 * FERRY_EUSAGE naming the file, the line and what is wrong (the good lines still apply). */
int keymap_load(const char *path);
/* The keys of e as help shows them: the defaults, then the user's ("x X"); static
 * buffer, valid until the next call. */
const char *keymap_label(const keymap_entry *e);
/* The entry's help in the current interface language. */
const char *keymap_help(const keymap_entry *e);

#endif
