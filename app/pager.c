/* pager — see pager.h. */
#include "pager.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

static pid_t pager_pid;

/* Closes ferry's end of the pipe so the pager sees the end, then waits for the person
 * to leave it. */
static void pager_wait(void)
{
	fflush(stdout);
	fflush(stderr);
	close(STDOUT_FILENO);
	while (pager_pid > 0 && waitpid(pager_pid, NULL, 0) < 0)
		;
}

void pager_start(void)
{
	if (pager_pid || !isatty(STDOUT_FILENO))
		return;
	const char *cmd = getenv("FERRY_PAGER");
	if (!cmd)
		cmd = getenv("PAGER");
	if (!cmd)
		cmd = "less";
	if (!*cmd || strcmp(cmd, "cat") == 0)
		return;
	int fds[2];
	if (pipe(fds) != 0)
		return;
	fflush(stdout);
	pid_t pid = fork();
	if (pid < 0) {
		close(fds[0]);
		close(fds[1]);
		return;
	}
	if (pid == 0) {
		dup2(fds[0], STDIN_FILENO);
		close(fds[0]);
		close(fds[1]);
		setenv("LESS", getenv("LESS") ? getenv("LESS") : "FRX", 1);
		execl("/bin/sh", "sh", "-c", cmd, (char *)NULL);
		_exit(127);
	}
	dup2(fds[1], STDOUT_FILENO);
	close(fds[0]);
	close(fds[1]);
	/* leaving the pager early ends the output quietly, as with git */
	signal(SIGPIPE, SIG_DFL);
	pager_pid = pid;
	atexit(pager_wait);
}
