/* ui — see ui.h. The only file that includes curses. */
#define NCURSES_WIDECHAR 1
#include "ui.h"
#include "err.h"
#include "intl.h"
#include "text.h"
#include "util.h"

#include <curses.h>
#include <errno.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <wchar.h>

/* One headless cell: the character's UTF-8 bytes, or "" for the right half of a
 * double-width character. */
typedef struct cell {
	char s[5];
	unsigned char attr;
} cell;

struct ui_win {
	int y, x, h, w; /* position and size on the screen */
	WINDOW *win;    /* curses window; NULL when headless */
};

static struct {
	int open;         /* curses or the grid is up */
	int headless;     /* rendering into grid */
	int color;        /* colour pairs in use */
	int cols, rows;   /* screen size */
	cell *grid;       /* headless cells, rows * cols */
	const char *keys; /* headless key script position */
	unsigned long cells; /* headless cells written (FERRY_UI_STATS) */
	SCREEN *screen;   /* the curses screen from newterm */
	WINDOW *input;    /* 1x1 pad keys are read from: reading from a pad never
	                     repaints stdscr over the panes */
	attr_t attrs[UI_NATTR];
} ui;

static volatile sig_atomic_t ui_sig;

static void on_signal(int sig)
{
	ui_sig = sig;
}

int ui_signalled(void)
{
	return ui_sig != 0;
}

static void grid_resize(int cols, int rows)
{
	free(ui.grid);
	ui.cols = cols;
	ui.rows = rows;
	ui.grid = xcalloc((size_t)cols * (size_t)rows, sizeof(cell));
	for (int i = 0; i < cols * rows; i++)
		ui.grid[i].s[0] = ' ';
}

static int parse_size(int *cols, int *rows, const char *s)
{
	return sscanf(s, "%dx%d", cols, rows) == 2 && *cols > 0 && *rows > 0 && *cols <= 1000 && *rows <= 1000;
}

static void setup_attrs(void)
{
	const char *nc = getenv("NO_COLOR");
	ui.color = !ui.headless && has_colors() && !(nc && *nc);
	static const struct {
		short fg, bg;
		attr_t extra, mono;
	} def[UI_NATTR] = {
		[UI_NORMAL] = { -1, -1, 0, 0 },
		[UI_TITLE] = { -1, -1, A_BOLD, A_BOLD },
		[UI_SELECT] = { COLOR_BLACK, COLOR_CYAN, 0, A_REVERSE },
		[UI_ERROR] = { COLOR_RED, -1, A_BOLD, A_BOLD },
		[UI_WARN] = { COLOR_YELLOW, -1, 0, 0 },
		[UI_INFO] = { COLOR_CYAN, -1, 0, 0 },
		[UI_DIM] = { -1, -1, A_DIM, A_DIM },
		[UI_MATCH] = { COLOR_BLACK, COLOR_YELLOW, 0, A_REVERSE | A_UNDERLINE },
		[UI_ADD] = { COLOR_GREEN, -1, 0, A_BOLD },
		[UI_DEL] = { COLOR_RED, -1, 0, A_DIM },
		[UI_HUNK] = { COLOR_CYAN, -1, 0, A_UNDERLINE },
		[UI_BAR] = { COLOR_WHITE, COLOR_BLUE, 0, A_REVERSE },
		[UI_OK] = { COLOR_GREEN, -1, A_BOLD, A_BOLD },
		[UI_KEY] = { COLOR_YELLOW, -1, A_BOLD, A_BOLD },
	};
	if (ui.color) {
		start_color();
		use_default_colors();
	}
	for (int i = 0; i < UI_NATTR; i++) {
		if (ui.headless) {
			ui.attrs[i] = 0;
		} else if (ui.color && (def[i].fg != -1 || def[i].bg != -1)) {
			init_pair((short)i, def[i].fg, def[i].bg);
			ui.attrs[i] = COLOR_PAIR(i) | def[i].extra;
		} else {
			ui.attrs[i] = ui.color ? def[i].extra : def[i].mono;
		}
	}
}

int ui_open(void)
{
	if (ui.open)
		return 0;
	const char *hl = getenv("FERRY_HEADLESS");
	memset(&ui, 0, sizeof ui);
	if (hl && *hl) {
		int cols, rows;
		if (!parse_size(&cols, &rows, hl))
			return err_set(FERRY_EUSAGE, _("FERRY_HEADLESS=%s: expected COLSxROWS, e.g. 100x30"), hl);
		ui.headless = 1;
		ui.keys = getenv("FERRY_KEYS");
		if (!ui.keys)
			ui.keys = "";
		grid_resize(cols, rows);
	} else {
		if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO))
			return err_set(FERRY_EUSAGE, "%s", _("workbench: needs a terminal on standard input and output "
			                                   "(ferry --help lists the commands for scripts)"));
		const char *term = getenv("TERM");
		ui.screen = newterm(term && *term ? term : NULL, stdout, stdin);
		if (!ui.screen)
			return err_set(FERRY_EIO, _("terminal %s: unknown to curses (check TERM)"), term ? term : _("(unset)"));
		set_term(ui.screen);
		raw();
		noecho();
		nonl();
		ui.input = newpad(1, 1);
		if (!ui.input) {
			endwin();
			return err_set(FERRY_EIO, "%s", _("terminal: cannot create the input window"));
		}
		keypad(ui.input, TRUE);
		set_escdelay(25);
		curs_set(0);
		getmaxyx(stdscr, ui.rows, ui.cols);
	}
	struct sigaction sa;
	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);
	ui_sig = 0;
	ui.open = 1;
	setup_attrs();
	return 0;
}

void ui_close(void)
{
	if (!ui.open)
		return;
	if (!ui.headless) {
		curs_set(1);
		if (ui.input)
			delwin(ui.input);
		ui.input = NULL;
		endwin();
		delscreen(ui.screen);
		ui.screen = NULL;
	}
	const char *stats = getenv("FERRY_UI_STATS");
	if (ui.headless && stats && *stats) { /* for the benchmark: how much was painted */
		FILE *f = fopen(stats, "w");
		if (f) {
			fprintf(f, "cells %lu\nscreen %d\n", ui.cells, ui.cols * ui.rows);
			fclose(f);
		}
	}
	free(ui.grid);
	ui.grid = NULL;
	ui.cells = 0;
	ui.open = 0;
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	signal(SIGHUP, SIG_DFL);
}

int ui_is_headless(void)
{
	return ui.headless;
}

int ui_has_color(void)
{
	return ui.color;
}

void ui_size(int *cols, int *rows)
{
	if (!ui.headless && ui.open)
		getmaxyx(stdscr, ui.rows, ui.cols);
	*cols = ui.cols;
	*rows = ui.rows;
}

ui_win *ui_win_new(int y, int x, int h, int w)
{
	ui_win *win = xcalloc(1, sizeof *win);
	win->y = y;
	win->x = x;
	win->h = h < 1 ? 1 : h;
	win->w = w < 1 ? 1 : w;
	if (!ui.headless) {
		win->win = newwin(win->h, win->w, y, x);
		if (win->win) {
			leaveok(win->win, TRUE);
			scrollok(win->win, FALSE);
		}
	}
	return win;
}

void ui_win_free(ui_win *w)
{
	if (!w)
		return;
	if (w->win)
		delwin(w->win);
	free(w);
}

int ui_win_width(const ui_win *w)
{
	return w->w;
}

int ui_win_height(const ui_win *w)
{
	return w->h;
}

/* Writes one character (k bytes, cw columns) at screen cell (gy, gx), blanking
 * the halves of double-width characters it partly covers, as a terminal does. */
static void grid_put(int gy, int gx, const char *s, size_t k, int attr, int cw)
{
	if (gy < 0 || gy >= ui.rows || gx < 0 || gx + cw > ui.cols)
		return;
	cell *row = &ui.grid[gy * ui.cols];
	ui.cells += (unsigned long)cw;
	if (row[gx].s[0] == '\0' && gx > 0)
		strcpy(row[gx - 1].s, " ");
	int end = gx + cw; /* first cell after ours */
	if (end < ui.cols && row[end].s[0] == '\0')
		strcpy(row[end].s, " ");
	memcpy(row[gx].s, s, k);
	row[gx].s[k] = '\0';
	row[gx].attr = (unsigned char)attr;
	for (int j = 1; j < cw; j++) {
		row[gx + j].s[0] = '\0';
		row[gx + j].attr = (unsigned char)attr;
	}
}

void ui_fill_row(ui_win *w, int y, int attr)
{
	if (y < 0 || y >= w->h)
		return;
	if (w->win) {
		wattrset(w->win, ui.attrs[attr]);
		mvwhline(w->win, y, 0, ' ' | ui.attrs[attr], w->w);
		wattrset(w->win, A_NORMAL);
		return;
	}
	for (int x = 0; x < w->w && w->x + x < ui.cols; x++)
		grid_put(w->y + y, w->x + x, " ", 1, attr, 1);
}

void ui_erase(ui_win *w)
{
	if (w->win) {
		werase(w->win);
		return;
	}
	for (int y = 0; y < w->h; y++)
		ui_fill_row(w, y, UI_NORMAL);
}

int ui_putn(ui_win *w, int y, int x, int attr, const char *s, unsigned long n, int maxcols)
{
	int limit = w->w - x;
	if (maxcols > 0 && maxcols < limit)
		limit = maxcols;
	if (y < 0 || y >= w->h || x < 0 || limit <= 0)
		return 0;
	sbuf b;
	sbuf_init(&b);
	int used = 0;
	for (size_t i = 0; i < n && s[i];) {
		unsigned cp;
		int cw;
		size_t k = text_next(s + i, n - i, &cp, &cw);
		if (used + cw > limit)
			break;
		int bad = cp < 0x20 || cp == 0x7F || cp == 0xFFFD || (cp >= 0x80 && cp < 0xA0);
		/* a tab or a line break inside a row (code quoted in a message) is a blank there */
		int blank = cp == '\t' || cp == '\n' || cp == '\r';
		if (w->win) {
			if (bad)
				sbuf_addc(&b, blank ? ' ' : '?');
			else
				sbuf_add(&b, s + i, k);
		} else {
			if (bad)
				grid_put(w->y + y, w->x + x + used, blank ? " " : "?", 1, attr, 1);
			else if (cw > 0) /* combining marks are dropped in the grid */
				grid_put(w->y + y, w->x + x + used, s + i, k, attr, cw);
		}
		used += cw;
		i += k;
	}
	if (w->win && b.len) {
		wattrset(w->win, ui.attrs[attr]);
		mvwaddnstr(w->win, y, x, b.buf, (int)b.len);
		wattrset(w->win, A_NORMAL);
	}
	sbuf_done(&b);
	return used;
}

int ui_putn_clip(ui_win *w, int y, int left, int x, int attr, const char *s, unsigned long n)
{
	size_t i = 0;
	int c = x;
	while (i < n && s[i] && c < left) {
		unsigned cp;
		int cw;
		size_t k = text_next(s + i, n - i, &cp, &cw);
		if (c + cw > left) /* a wide character cut by the edge: its visible half as blank */
			ui_putn(w, y, left, attr, " ", 1, 0);
		c += cw;
		i += k;
	}
	return (c - x) + ui_putn(w, y, c, attr, s + i, n - i, 0);
}

int ui_put(ui_win *w, int y, int x, int attr, const char *s, int maxcols)
{
	return ui_putn(w, y, x, attr, s, (unsigned long)strlen(s), maxcols);
}

void ui_win_show(ui_win *w)
{
	if (w && w->win)
		wnoutrefresh(w->win);
}

void ui_win_touch(ui_win *w)
{
	if (w && w->win)
		touchwin(w->win);
}

void ui_flush(ui_win *cursor_win, int y, int x)
{
	if (ui.headless)
		return;
	if (cursor_win && cursor_win->win) {
		leaveok(cursor_win->win, FALSE);
		wmove(cursor_win->win, y, x);
		wnoutrefresh(cursor_win->win);
		curs_set(1);
	} else {
		curs_set(0);
	}
	doupdate();
	if (cursor_win && cursor_win->win)
		leaveok(cursor_win->win, TRUE);
}

/* --- keys --- */

static const struct {
	const char *name;
	int key;
} key_names[] = {
	{ "Enter", UI_KEY_ENTER }, { "Esc", UI_KEY_ESC },    { "Tab", UI_KEY_TAB },
	{ "BTab", UI_KEY_BTAB },   { "Up", UI_KEY_UP },      { "Down", UI_KEY_DOWN },
	{ "Left", UI_KEY_LEFT },   { "Right", UI_KEY_RIGHT }, { "PgUp", UI_KEY_PGUP },
	{ "PgDn", UI_KEY_PGDN },   { "Home", UI_KEY_HOME },  { "End", UI_KEY_END },
	{ "BS", UI_KEY_BACKSPACE }, { "Del", UI_KEY_DELETE }, { "Space", ' ' },
	{ "lt", '<' },             { "C-c", 3 },             { "C-l", 12 },
};

/* Runs the <Save:PATH> (or, with peek_only, only a <Peek:PATH>) at the script's
 * position; 1 when it took one. */
static int take_save(int peek_only)
{
	const char *s = ui.keys, *end = strchr(s, '>');
	int save = !peek_only && strncmp(s, "<Save:", 6) == 0, peek = strncmp(s, "<Peek:", 6) == 0;
	if (!end || (!save && !peek) || end - s <= 6)
		return 0;
	char *path = xstrndup(s + 6, (size_t)(end - s - 6));
	ui.keys = end + 1;
	if (ui_save(path) != 0)
		fprintf(stderr, "ferry: %s\n", err_message());
	free(path);
	return 1;
}

/* The next key of the headless script; runs <Save:…> on the way. */
static int script_key(void)
{
	for (;;) {
		const char *s = ui.keys;
		if (!*s)
			return UI_KEY_EOF;
		if (*s == '<') {
			const char *end = strchr(s, '>');
			if (end) {
				size_t n = (size_t)(end - s - 1);
				const char *name = s + 1;
				if (take_save(0))
					continue;
				if (n > 7 && strncmp(name, "Resize:", 7) == 0) {
					char *size = xstrndup(name + 7, n - 7);
					int cols, rows;
					if (parse_size(&cols, &rows, size))
						grid_resize(cols, rows);
					free(size);
					ui.keys = end + 1;
					return UI_KEY_RESIZE;
				}
				for (size_t i = 0; i < sizeof key_names / sizeof key_names[0]; i++)
					if (strlen(key_names[i].name) == n && strncmp(key_names[i].name, name, n) == 0) {
						ui.keys = end + 1;
						return key_names[i].key;
					}
			}
		}
		unsigned cp;
		int w;
		ui.keys += text_next(s, strlen(s), &cp, &w);
		return (int)cp;
	}
}

static int map_curses_key(int k)
{
	switch (k) {
	case KEY_UP: return UI_KEY_UP;
	case KEY_DOWN: return UI_KEY_DOWN;
	case KEY_LEFT: return UI_KEY_LEFT;
	case KEY_RIGHT: return UI_KEY_RIGHT;
	case KEY_PPAGE: return UI_KEY_PGUP;
	case KEY_NPAGE: return UI_KEY_PGDN;
	case KEY_HOME: return UI_KEY_HOME;
	case KEY_END: return UI_KEY_END;
	case KEY_BACKSPACE: return UI_KEY_BACKSPACE;
	case KEY_DC: return UI_KEY_DELETE;
	case KEY_BTAB: return UI_KEY_BTAB;
	case KEY_ENTER: return UI_KEY_ENTER;
	case KEY_RESIZE: return UI_KEY_RESIZE;
	default: return UI_KEY_NONE;
	}
}

int ui_getkey(int timeout_ms)
{
	if (ui_sig)
		return UI_KEY_SIGNAL;
	if (ui.headless) {
		if (timeout_ms == 0) { /* polled while work runs: only a <Peek:…> is taken */
			take_save(1);
			return UI_KEY_NONE;
		}
		return script_key();
	}
	/* wait in slices so a signal is noticed promptly */
	for (int waited = 0;;) {
		int slice = timeout_ms < 0 || timeout_ms - waited > 200 ? 200 : timeout_ms - waited;
		wtimeout(ui.input, slice);
		wint_t wc;
		int r = wget_wch(ui.input, &wc);
		if (ui_sig)
			return UI_KEY_SIGNAL;
		if (r == KEY_CODE_YES) {
			int k = map_curses_key((int)wc);
			if (k != UI_KEY_NONE)
				return k;
			continue;
		}
		if (r == OK) {
			if (wc == '\r')
				return UI_KEY_ENTER;
			if (wc == 127 || wc == 8)
				return UI_KEY_BACKSPACE;
			return (int)wc;
		}
		waited += slice;
		if (timeout_ms >= 0 && waited >= timeout_ms)
			return UI_KEY_NONE;
	}
}

void ui_suspend(void)
{
	if (ui.headless || !ui.open)
		return;
	def_prog_mode();
	endwin();
}

void ui_resume(void)
{
	if (ui.headless || !ui.open)
		return;
	reset_prog_mode();
	clearok(curscr, TRUE);
	refresh();
}

int ui_clipboard(const char *text)
{
	static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
	if (ui.headless || !ui.open)
		return 0;
	sbuf b;
	sbuf_init(&b);
	sbuf_adds(&b, "\033]52;c;");
	const unsigned char *p = (const unsigned char *)text;
	size_t n = strlen(text);
	for (size_t i = 0; i < n; i += 3) {
		unsigned v = (unsigned)p[i] << 16 | (i + 1 < n ? (unsigned)p[i + 1] << 8 : 0) | (i + 2 < n ? p[i + 2] : 0);
		char q[5] = { b64[v >> 18 & 63], b64[v >> 12 & 63], i + 1 < n ? b64[v >> 6 & 63] : '=', i + 2 < n ? b64[v & 63] : '=', 0 };
		sbuf_adds(&b, q);
	}
	sbuf_adds(&b, "\a");
	int rc = 0;
	if (fwrite(b.buf, 1, b.len, stdout) != b.len || fflush(stdout) != 0)
		rc = err_set(FERRY_EIO, "%s", _("terminal: cannot write the clipboard sequence"));
	sbuf_done(&b);
	return rc;
}

int ui_save(const char *path)
{
	sbuf b;
	sbuf_init(&b);
	if (ui.headless) {
		for (int y = 0; y < ui.rows; y++) {
			size_t start = b.len;
			for (int x = 0; x < ui.cols; x++)
				sbuf_adds(&b, ui.grid[y * ui.cols + x].s);
			while (b.len > start && b.buf[b.len - 1] == ' ')
				b.len--;
			b.buf[b.len] = '\0';
			sbuf_addc(&b, '\n');
		}
	} else {
		for (int y = 0; y < ui.rows; y++) {
			size_t start = b.len;
			for (int x = 0; x < ui.cols; x++) {
				cchar_t cc;
				wchar_t wch[CCHARW_MAX + 1];
				attr_t a;
				short pair;
				if (mvwin_wch(curscr, y, x, &cc) == ERR || getcchar(&cc, wch, &a, &pair, NULL) == ERR)
					continue;
				char mb[MB_LEN_MAX * (CCHARW_MAX + 1)];
				size_t k = wcstombs(mb, wch, sizeof mb);
				if (k != (size_t)-1)
					sbuf_add(&b, mb, k);
				int cw = wcwidth(wch[0]);
				if (cw > 1)
					x += cw - 1;
			}
			while (b.len > start && b.buf[b.len - 1] == ' ')
				b.len--;
			b.buf[b.len] = '\0';
			sbuf_addc(&b, '\n');
		}
	}
	int rc = util_write_atomic(path, b.buf, b.len, 0644);
	sbuf_done(&b);
	const char *want = getenv("FERRY_SAVE_ATTRS");
	if (!rc && ui.headless && want && *want == '1') {
		/* PATH.attr: one letter per cell, so tests can see colours and the cursor */
		static const char letters[UI_NATTR + 1] = ".TSEWIdM+-HBOK";
		sbuf a;
		sbuf_init(&a);
		for (int i = 0; i < ui.rows * ui.cols; i++) {
			sbuf_addc(&a, letters[ui.grid[i].attr < UI_NATTR ? ui.grid[i].attr : 0]);
			if ((i + 1) % ui.cols == 0)
				sbuf_addc(&a, '\n');
		}
		char *apath = xasprintf("%s.attr", path);
		rc = util_write_atomic(apath, a.buf, a.len, 0644);
		free(apath);
		sbuf_done(&a);
	}
	return rc;
}
