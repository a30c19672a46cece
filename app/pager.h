/*
 * pager — long text output through a pager on a terminal, as git does: when standard
 * output is a terminal, pager_start() runs $FERRY_PAGER, else $PAGER, else `less -FRX`
 * (with LESS=FRX when LESS is unset) through /bin/sh and points standard output at it;
 * the pager is waited for when ferry exits. Off a terminal, or with the pager set to ""
 * or "cat", output is written as it is. No state to free.
 */
#ifndef FERRY_PAGER_H
#define FERRY_PAGER_H

/* Starts the pager when it applies; failing to start one is not an error (the output
 * goes to the terminal directly). */
void pager_start(void);

#endif
