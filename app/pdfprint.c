/* pdfprint — see pdfprint.h. */
#include "intl.h"
#include "pdfprint.h"
#include "err.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

/* The browser to run (malloc'd), or NULL when there is none. */
static char *find_chromium(void)
{
	const char *env = getenv("FERRY_CHROMIUM");
	if (env && *env)
		return access(env, X_OK) == 0 ? xstrdup(env) : NULL;
	static const char *const names[] = { "chromium", "chromium-browser", NULL };
	const char *path = getenv("PATH");
	for (size_t i = 0; names[i] && path; i++) {
		for (const char *p = path; *p;) {
			const char *colon = strchr(p, ':');
			size_t n = colon ? (size_t)(colon - p) : strlen(p);
			char *cand = xasprintf("%.*s/%s", (int)n, n ? p : ".", names[i]);
			struct stat st;
			if (stat(cand, &st) == 0 && S_ISREG(st.st_mode) && access(cand, X_OK) == 0)
				return cand;
			free(cand);
			p += n + (colon ? 1 : 0);
		}
	}
	return NULL;
}

/* Runs argv with stdin from /dev/null and stdout/stderr into log; waits at most timeout s. */
static int run(char *const argv[], const char *log, int timeout)
{
	pid_t pid = fork();
	if (pid < 0)
		return err_set(FERRY_EIO, _("%s: cannot start: %s"), argv[0], strerror(errno));
	if (pid == 0) {
		setpgid(0, 0); /* its helpers go with it when it is stopped */
		int in = open("/dev/null", O_RDONLY), out = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0600);
		if (in >= 0)
			dup2(in, 0);
		if (out >= 0) {
			dup2(out, 1);
			dup2(out, 2);
		}
		execv(argv[0], argv);
		_exit(127);
	}
	int status = 0;
	for (long waited = 0;; waited += 100) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			break;
		if (r < 0 && errno != EINTR)
			return err_set(FERRY_EIO, _("%s: lost track of it: %s"), argv[0], strerror(errno));
		if (waited >= timeout * 1000L) {
			kill(-pid, SIGKILL);
			waitpid(pid, &status, 0);
			return err_set(FERRY_EIO, _("%s: no PDF after %d seconds, stopped"), argv[0], timeout);
		}
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	kill(-pid, SIGKILL); /* helpers it left behind, if any */
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
		return 0;
	/* the last line it wrote says why */
	char *text = NULL, last[200] = "";
	size_t n = 0;
	if (util_read_file(&text, &n, log) == 0) {
		for (char *line = strtok(text, "\n"); line; line = strtok(NULL, "\n"))
			if (*line)
				snprintf(last, sizeof last, ": %s", line);
	}
	err_clear();
	free(text);
	return err_set(FERRY_EIO, _("%s: exited with status %d while printing the PDF%s"), argv[0],
	               WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status), last);
}

int pdfprint(sbuf *pdf, const char *html, size_t len)
{
	char *chrome = find_chromium();
	const char *env = getenv("FERRY_CHROMIUM");
	if (!chrome && env && *env)
		return err_set(FERRY_ENOTFOUND, _("report --format pdf: FERRY_CHROMIUM %s is not an executable"), env);
	if (!chrome)
		return err_set(FERRY_ENOTFOUND, _("report --format pdf: needs headless Chromium and none is on PATH "
		                                "(install chromium, or set FERRY_CHROMIUM to the browser)"));
	const char *tmp = getenv("TMPDIR") && *getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *dir = xasprintf("%s/ferry-pdf-XXXXXX", tmp);
	int rc = 0;
	if (!mkdtemp(dir)) {
		rc = err_set(FERRY_EIO, _("%s: cannot create a temporary directory: %s"), tmp, strerror(errno));
		free(dir);
		free(chrome);
		return rc;
	}
	char *page = xasprintf("%s/report.html", dir), *out = xasprintf("%s/report.pdf", dir);
	char *log = xasprintf("%s/chromium.log", dir), *profile = xasprintf("--user-data-dir=%s/profile", dir);
	char *print = xasprintf("--print-to-pdf=%s", out), *url = xasprintf("file://%s", page);
	char *argv[] = { chrome,           "--headless",         "--no-sandbox",        "--disable-gpu",
		             "--no-first-run", "--disable-sync",     "--disable-extensions", "--disable-background-networking",
		             "--disable-component-update", "--no-pdf-header-footer", profile, print, url, NULL };
	char *data = NULL;
	size_t n = 0;
	if (!(rc = util_write_atomic(page, html, len, 0600)) && !(rc = run(argv, log, PDFPRINT_TIMEOUT))) {
		if (util_read_file(&data, &n, out) || n < 5 || memcmp(data, "%PDF-", 5) != 0) {
			err_clear();
			rc = err_set(FERRY_EIO, _("%s: wrote no PDF"), chrome);
		} else {
			sbuf_add(pdf, data, n);
		}
	}
	free(data);
	util_remove_tree(dir);
	free(page);
	free(out);
	free(log);
	free(profile);
	free(print);
	free(url);
	free(dir);
	free(chrome);
	return rc;
}
