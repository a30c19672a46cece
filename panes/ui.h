/*
 * ui — the only file of the workbench that includes curses. It owns the terminal
 * (or, in headless mode, an in-memory grid of cells), the windows panes draw into,
 * colours and their monochrome fallbacks, key input, and the screen dump.
 *
 * Headless mode (for tests, like tig's no-display mode): FERRY_HEADLESS=COLSxROWS
 * renders into the grid and FERRY_KEYS is the key script, read one key at a time:
 * plain characters are keys; <Enter> <Esc> <Tab> <BTab> <Up> <Down> <Left> <Right>
 * <PgUp> <PgDn> <Home> <End> <BS> <Del> <Space> <lt> <C-c> <C-l> name keys;
 * <Save:PATH> writes the current grid as text to PATH; <Peek:PATH> does too, and is
 * also taken while running work polls for keys (so a test sees the screen mid-run);
 * <Resize:COLSxROWS> resizes
 * the grid and delivers UI_KEY_RESIZE. With FERRY_SAVE_ATTRS=1 a save also
 * writes PATH.attr, one letter per cell naming its attribute (".TSEWIdM+-HBOK" in
 * enum ui_attr order). When the script ends, ui_getkey returns
 * UI_KEY_EOF. With FERRY_UI_STATS=PATH, closing writes to PATH how many cells
 * were painted ("cells N") and the screen's size ("screen N"), for benchmarks. Nothing here knows about engagements.
 *
 * Windows are created by ui_win_new and freed by ui_win_free (NULL is harmless);
 * ui_close frees the terminal state. Drawing marks a window; ui_win_show queues it
 * (wnoutrefresh) and ui_flush sends every queued change in one update (doupdate).
 */
#ifndef FERRY_UI_H
#define FERRY_UI_H

enum ui_attr {
	UI_NORMAL,
	UI_TITLE,  /* headings */
	UI_SELECT, /* the cursor row */
	UI_ERROR,  /* error severity, failures */
	UI_WARN,   /* warning severity */
	UI_INFO,   /* info severity */
	UI_DIM,    /* secondary text, waived rows */
	UI_MATCH,  /* the matched range in source */
	UI_ADD,    /* added diff line */
	UI_DEL,    /* removed diff line */
	UI_HUNK,   /* diff hunk header */
	UI_BAR,    /* status bar */
	UI_OK,     /* signed off, ticked */
	UI_KEY,    /* key names in the hint line */
	UI_NATTR
};

enum {
	UI_KEY_NONE = -1,   /* no key within the timeout */
	UI_KEY_EOF = -2,    /* headless script ended */
	UI_KEY_SIGNAL = -3, /* SIGINT/SIGTERM/SIGHUP arrived: leave */
	UI_KEY_BASE = 0x200000,
	UI_KEY_UP,
	UI_KEY_DOWN,
	UI_KEY_LEFT,
	UI_KEY_RIGHT,
	UI_KEY_PGUP,
	UI_KEY_PGDN,
	UI_KEY_HOME,
	UI_KEY_END,
	UI_KEY_BACKSPACE,
	UI_KEY_DELETE,
	UI_KEY_BTAB,
	UI_KEY_RESIZE,
};
#define UI_KEY_ENTER '\n'
#define UI_KEY_ESC 27
#define UI_KEY_TAB '\t'
#define UI_KEY_CTRL(c) ((c) & 0x1f)

typedef struct ui_win ui_win;

/* Starts the terminal (or the headless grid). Returns 0 or an err.h code. */
int ui_open(void);
/* Restores the terminal; safe to call more than once and before ui_open. */
void ui_close(void);
int ui_is_headless(void);
/* 1 when colours are in use (not NO_COLOR, not a monochrome terminal). */
int ui_has_color(void);
void ui_size(int *cols, int *rows);

ui_win *ui_win_new(int y, int x, int h, int w);
void ui_win_free(ui_win *w);
int ui_win_width(const ui_win *w);
int ui_win_height(const ui_win *w);
/* Clears the window to spaces. */
void ui_erase(ui_win *w);
/* Paints row y with spaces in attr. */
void ui_fill_row(ui_win *w, int y, int attr);
/* Writes UTF-8 text at (y, x) clipped to the window's width (and to maxcols when
 * > 0); control characters and invalid bytes appear as '?'. Returns columns used. */
int ui_put(ui_win *w, int y, int x, int attr, const char *s, int maxcols);
/* Like ui_put for the first n bytes of s. */
int ui_putn(ui_win *w, int y, int x, int attr, const char *s, unsigned long n, int maxcols);
/* Like ui_putn with no column limit, for text scrolled sideways: s starts at column x,
 * which may lie left of column `left` (even negative); what falls left of `left` is not
 * drawn. Returns the columns s takes from x, drawn or not. */
int ui_putn_clip(ui_win *w, int y, int left, int x, int attr, const char *s, unsigned long n);
/* Queues the window for the next ui_flush. */
void ui_win_show(ui_win *w);
/* Marks every cell of the window as changed (after overlapping windows moved). */
void ui_win_touch(ui_win *w);
/* Sends queued windows to the terminal, the cursor left at (y, x) of w when w is
 * given (shown), else hidden. */
void ui_flush(ui_win *cursor_win, int y, int x);

/* Next key: waits up to timeout_ms (< 0 waits for ever). */
int ui_getkey(int timeout_ms);
/* 1 when a terminating signal arrived. */
int ui_signalled(void);

/* Leaves curses mode to run a program in the terminal, and comes back. */
void ui_suspend(void);
void ui_resume(void);

/* Puts text on the terminal's clipboard with the OSC 52 sequence (terminals and tmux
 * that allow it pass it to the system clipboard); nothing in headless mode. */
int ui_clipboard(const char *text);

/* Writes the visible screen as text (one line per row, trailing blanks trimmed). */
int ui_save(const char *path);

#endif
