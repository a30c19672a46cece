/*
 * tui — the workbench entry point (DESIGN §8). Opens the engagement at dir (offering
 * to initialise one), runs the ncurses main loop, and always restores the terminal.
 * Returns an err.h code like the CLI commands.
 */
#ifndef FERRY_TUI_H
#define FERRY_TUI_H

int tui_main(const char *dir);

#endif
