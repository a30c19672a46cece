/* probe — see probe.h. */
#include "intl.h"
#include "probe.h"
#include "embedded.h"
#include "err.h"
#include "util.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define PROBE_PATH "app/probe.sh"
#define SHELL_PATH "/bin/sh"

int probe_script(const char **text, size_t *len)
{
	const struct embedded_file *f = embedded_find(PROBE_PATH);
	if (!f)
		return err_set(FERRY_ENOTFOUND, _("%s: not embedded in this build of ferry"), PROBE_PATH);
	*text = f->data;
	*len = f->len;
	return 0;
}

static long long clock_ms(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (long long)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void kill_group(pid_t pid)
{
	kill(-pid, SIGKILL);
	kill(pid, SIGKILL);
}

/* Child side: never returns. */
static void exec_shell(int out_fd, const char *script, int smoke)
{
	setpgid(0, 0);
	int devnull = open("/dev/null", O_RDWR);
	if (devnull >= 0) {
		dup2(devnull, 0);
		dup2(devnull, 2);
	}
	dup2(out_fd, 1);
	/* nothing of ferry's (the database, the workspace lock) leaks into the probe */
	long maxfd = sysconf(_SC_OPEN_MAX);
	for (int fd = 3; fd < (maxfd > 0 && maxfd < 65536 ? (int)maxfd : 1024); fd++)
		close(fd);
	char *argv[] = { SHELL_PATH, "-c", (char *)script, "ferry-probe", smoke ? "--smoke" : NULL, NULL };
	execv(SHELL_PATH, argv);
	_exit(127);
}

int probe_run_local(char **json, size_t *len, int smoke)
{
	const char *script = NULL;
	size_t slen = 0;
	int rc = probe_script(&script, &slen);
	if (rc)
		return rc;
	int fds[2] = { -1, -1 };
	pid_t pid = -1;
	sbuf out;
	sbuf_init(&out);
	int timed_out = 0, too_big = 0;
	if (pipe(fds) != 0) {
		rc = err_set(FERRY_EIO, _("probe: cannot create a pipe: %s"), strerror(errno));
		goto out;
	}
	fcntl(fds[0], F_SETFD, FD_CLOEXEC);
	pid = fork();
	if (pid < 0) {
		rc = err_set(FERRY_EIO, _("probe: cannot start %s: %s"), SHELL_PATH, strerror(errno));
		goto out;
	}
	if (pid == 0)
		exec_shell(fds[1], script, smoke);
	setpgid(pid, pid);
	close(fds[1]);
	fds[1] = -1;

	long long deadline = clock_ms() + PROBE_TIME_LIMIT_MS + (smoke ? PROBE_SMOKE_EXTRA_MS : 0);
	while (fds[0] >= 0) {
		long long left = deadline - clock_ms();
		if (left <= 0) {
			timed_out = 1;
			break;
		}
		struct pollfd pf = { .fd = fds[0], .events = POLLIN };
		int r = poll(&pf, 1, left > 1000 ? 1000 : (int)left);
		if (r < 0 && errno != EINTR)
			break;
		if (r <= 0)
			continue;
		char buf[16384];
		ssize_t n = read(fds[0], buf, sizeof buf);
		if (n > 0) {
			if (out.len + (size_t)n > PROBE_MAX_OUTPUT) {
				too_big = 1;
				break;
			}
			sbuf_add(&out, buf, (size_t)n);
		} else if (n == 0 || (errno != EINTR && errno != EAGAIN)) {
			close(fds[0]);
			fds[0] = -1;
		}
	}
	if (timed_out || too_big)
		kill_group(pid);

	/* the shell closed its output: wait for it, within what is left of the time */
	int st = 0;
	for (;;) {
		pid_t w = waitpid(pid, &st, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			rc = err_set(FERRY_EIO, _("probe: lost the shell: %s"), strerror(errno));
			goto out;
		}
		if (w == 0 && clock_ms() >= deadline && !timed_out) {
			timed_out = 1;
			kill_group(pid);
		}
		struct timespec ts = { 0, 10 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	pid = -1;
	if (timed_out)
		rc = err_set(FERRY_EIO, _("probe: did not finish within %d s"),
		             (PROBE_TIME_LIMIT_MS + (smoke ? PROBE_SMOKE_EXTRA_MS : 0)) / 1000);
	else if (too_big)
		rc = err_set(FERRY_EIO, _("probe: printed more than %zu MiB"), PROBE_MAX_OUTPUT >> 20);
	else if (WIFSIGNALED(st))
		rc = err_set(FERRY_EIO, _("probe: %s was killed by signal %d"), SHELL_PATH, WTERMSIG(st));
	else if (WEXITSTATUS(st) == 127 && out.len == 0)
		rc = err_set(FERRY_EIO, _("probe: cannot run %s"), SHELL_PATH);
	else if (WEXITSTATUS(st) != 0)
		rc = err_set(FERRY_EIO, _("probe: the script exited with status %d"), WEXITSTATUS(st));
	else if (out.len == 0)
		rc = err_set(FERRY_EIO, _("probe: the script printed nothing"));
	if (rc)
		goto out;
	*len = out.len;
	*json = sbuf_detach(&out);
out:
	if (fds[0] >= 0)
		close(fds[0]);
	if (fds[1] >= 0)
		close(fds[1]);
	if (pid > 0) {
		kill_group(pid);
		waitpid(pid, NULL, 0);
	}
	sbuf_done(&out);
	return rc;
}
