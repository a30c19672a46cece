/* Unit tests for the plugin host: discovery, declarations, the ctx API, the sandbox's
 * escape attempts, the triggers prefilter, fingerprints, source problems, and the worked
 * example of plugins/README.md. Plugins are written into temporary folders. */
#include "phase.h"
#include "testutil.h"

#include "err.h"
#include "plugin_host.h"

#include <time.h>
#include <unistd.h>

typedef struct got_finding {
	char *plugin, *phase, *file, *message, *severity, *category, *fingerprint, *suggestion;
	char *i18n; /* the message's id and arguments (JSON), or NULL */
	int line, col, end_line, end_col;
	size_t nedits;
	unsigned s0, e0, s1;   /* first two edits' ranges (start of the second) */
	char *t0;              /* first edit's text */
} got_finding;

typedef struct got {
	got_finding v[256];
	size_t n;
	char *err_id[64], *err[64];
	size_t nerr;
	char *metric[64];
	double mval[64];
	size_t nmetric;
	size_t parsed;
	char *load_err[64];
	size_t nload;
	int rc;
} got;

struct fixture {
	char *dir;      /* temporary folder */
	char *root;     /* dir/proj: the project */
	char *plugins;  /* dir/plugins: a plugin folder passed in opts->dirs */
	char *bundled;  /* dir/bundled: the source_dir standing in for the bundled plugins */
	int cancel;     /* the cancel callback's answer */
};

static char *dup_or_null(const char *s)
{
	return s ? xstrdup(s) : NULL;
}

static void on_finding(const finding *f, void *payload)
{
	got *g = payload;
	if (g->n == 256)
		return;
	got_finding *x = &g->v[g->n++];
	x->plugin = xstrdup(f->plugin);
	x->phase = xstrdup(phase_name((size_t)f->phase));
	x->file = dup_or_null(f->file);
	x->message = xstrdup(f->message);
	x->severity = xstrdup(severity_name(f->severity));
	x->category = dup_or_null(f->category);
	x->fingerprint = xstrdup(f->fingerprint);
	x->suggestion = dup_or_null(f->suggestion);
	x->i18n = dup_or_null(f->i18n);
	x->line = f->line;
	x->col = f->col;
	x->end_line = f->end_line;
	x->end_col = f->end_col;
	x->nedits = f->nedits;
	if (f->nedits) {
		x->s0 = f->edits[0].start_byte;
		x->e0 = f->edits[0].end_byte;
		x->t0 = xstrdup(f->edits[0].text);
	}
	if (f->nedits > 1)
		x->s1 = f->edits[1].start_byte;
	assert_int_equal(f->status, STATUS_OPEN);
}

static void on_error(const char *id, const char *msg, void *payload)
{
	got *g = payload;
	if (g->nerr == 64)
		return;
	g->err_id[g->nerr] = xstrdup(id);
	g->err[g->nerr++] = xstrdup(msg);
}

static void on_metric(const char *id, const char *name, double v, const char *unit, void *payload)
{
	got *g = payload;
	(void)id;
	(void)unit;
	if (g->nmetric == 64)
		return;
	g->metric[g->nmetric] = xstrdup(name);
	g->mval[g->nmetric++] = v;
}

static int on_cancelled(void *payload)
{
	(void)payload;
	return 1;
}

static void got_done(got *g)
{
	for (size_t i = 0; i < g->n; i++) {
		got_finding *x = &g->v[i];
		free(x->plugin);
		free(x->phase);
		free(x->file);
		free(x->message);
		free(x->severity);
		free(x->category);
		free(x->fingerprint);
		free(x->suggestion);
		free(x->i18n);
		free(x->t0);
	}
	for (size_t i = 0; i < g->nerr; i++) {
		free(g->err_id[i]);
		free(g->err[i]);
	}
	for (size_t i = 0; i < g->nmetric; i++)
		free(g->metric[i]);
	for (size_t i = 0; i < g->nload; i++)
		free(g->load_err[i]);
	memset(g, 0, sizeof *g);
}

static char *config_get(const char *key, void *payload)
{
	(void)payload;
	return strcmp(key, "target") == 0 ? xstrdup("Ascend910B") : NULL;
}

static char *artifacts_json(const char *kind, void *payload)
{
	(void)payload;
	if (kind && strcmp(kind, "loss-log") != 0)
		return xstrdup("[]");
	return xstrdup("[{\"id\":7,\"kind\":\"loss-log\",\"label\":\"gpu\",\"path\":\"art/loss.txt\","
	               "\"sha256\":\"e223e470903bbf3848bd0bca6b4e3f1e722547cf76a489aac49ebaaa2238093e\"}]");
}

static int setup(void **state)
{
	struct fixture *fx = xcalloc(1, sizeof *fx);
	fx->dir = tu_mkdtemp();
	fx->root = util_path_join(fx->dir, "proj");
	fx->plugins = util_path_join(fx->dir, "plugins");
	fx->bundled = util_path_join(fx->dir, "bundled");
	util_mkdirs(fx->root, 0755);
	util_mkdirs(fx->plugins, 0755);
	char *py = tu_read(".", "plugins/lib/py.lua");
	assert_non_null(py); /* the tests run from the source tree */
	tu_write(fx->bundled, "lib/py.lua", py);
	free(py);
	tu_write(fx->bundled, "lib/loop.lua", "return require('loop')\n");
	tu_write(fx->bundled, "data/facts.json",
	         "{\"ops\":[{\"name\":\"matmul\",\"n\":1},{\"name\":\"conv\",\"n\":2.5}],"
	         "\"ok\":true,\"none\":null}");
	tu_write(fx->dir, "secret.txt", "outside the project\n");
	*state = fx;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *fx = *state;
	tu_rmdir(fx->dir);
	free(fx->dir);
	free(fx->root);
	free(fx->plugins);
	free(fx->bundled);
	free(fx);
	return 0;
}

/* Runs the host over fx with the given selection, budget and cap (0 = defaults). */
static void run_sel(struct fixture *fx, got *g, const char *phase, const char *id,
                    unsigned long long budget, size_t mem)
{
	const char *dirs[] = {fx->plugins};
	plugin_host_opts o = {
		.root = fx->root, .dirs = dirs, .ndirs = 1, .source_dir = fx->bundled,
		.config_get = config_get, .artifacts_json = artifacts_json, .payload = fx,
		.instr_budget = budget, .mem_cap = mem,
		.allow_exec = "t.other t.env", /* the folder's plugins are not bundled: exec is opt-in */
	};
	plugin_host *h = NULL;
	assert_int_equal(plugin_host_new(&h, &o), 0);
	size_t nl;
	const char *const *le = plugin_host_load_errors(h, &nl);
	for (size_t i = 0; i < nl && g->nload < 64; i++)
		g->load_err[g->nload++] = xstrdup(le[i]);
	plugin_run_cb cb = {.finding = on_finding, .plugin_error = on_error, .metric = on_metric,
	                    .cancelled = fx->cancel ? on_cancelled : NULL, .payload = g};
	g->rc = plugin_host_run(h, phase ? &phase : NULL, phase ? 1 : 0, id ? &id : NULL, id ? 1 : 0, &cb);
	g->parsed = plugin_host_parsed_files(h);
	plugin_host_free(h);
}

static void run_all(struct fixture *fx, got *g)
{
	run_sel(fx, g, NULL, NULL, 0, 0);
}

static const got_finding *find_msg(const got *g, const char *needle)
{
	for (size_t i = 0; i < g->n; i++)
		if (strstr(g->v[i].message, needle))
			return &g->v[i];
	return NULL;
}

static size_t count_plugin(const got *g, const char *plugin)
{
	size_t n = 0;
	for (size_t i = 0; i < g->n; i++)
		n += strcmp(g->v[i].plugin, plugin) == 0;
	return n;
}

static void plugin_file(struct fixture *fx, const char *name, const char *text)
{
	tu_write(fx->plugins, name, text);
}

/* ---- a good plugin ------------------------------------------------------------------ */

static const char *const GOOD_CALLS =
	"return {\n"
	"  id = 't.calls', phase = 'assess', title = 'cuda calls', severity = 'warning',\n"
	"  category = 'device', triggers = { 'cuda' },\n"
	"  query = '((call function: (attribute attribute: (identifier) @m)) @call (#eq? @m \"cuda\"))',\n"
	"  run = function(ctx)\n"
	"    for _, p in ipairs(ctx.python_files()) do\n"
	"      for _, m in ipairs(ctx.query(p)) do\n"
	"        ctx.report{ file = p, node = m.call, message = 'call ' .. m.call.text,\n"
	"                    suggestion = 'use npu' }\n"
	"      end\n"
	"    end\n"
	"    ctx.report{ message = 'project-wide', severity = 'info', category = 'summary' }\n"
	"    ctx.metric('files', #ctx.files(), 'files')\n"
	"  end,\n"
	"}\n";

static void test_good_plugin_positions(void **state)
{
	struct fixture *fx = *state;
	tu_write(fx->root, "train.py",
	         "import torch\n"
	         "# x.cuda() in a comment\n"
	         "model = Net().cuda()\n"
	         "s = 'y.cuda()'\n"
	         "if True:\n"
	         "    t = (a\n"
	         "         .cuda())\n");
	tu_write(fx->root, "README.md", "cuda\n");
	plugin_file(fx, "calls.lua", GOOD_CALLS);
	got g = {0};
	run_all(fx, &g);
	assert_int_equal(g.rc, 0);
	assert_int_equal(g.nerr, 0);
	assert_int_equal(g.n, 3);
	const got_finding *f = find_msg(&g, "call Net().cuda()");
	assert_non_null(f);
	assert_string_equal(f->plugin, "t.calls");
	assert_string_equal(f->phase, "assess");
	assert_string_equal(f->file, "train.py");
	assert_string_equal(f->severity, "warning");
	assert_string_equal(f->category, "device");
	assert_string_equal(f->suggestion, "use npu");
	assert_int_equal(f->line, 3);
	assert_int_equal(f->col, 9);
	assert_int_equal(f->end_line, 3);
	assert_int_equal(f->end_col, 21);
	assert_true(strlen(f->fingerprint) >= 16);
	f = find_msg(&g, "call a\n");
	assert_non_null(f);
	assert_int_equal(f->line, 6);
	assert_int_equal(f->col, 10);
	assert_int_equal(f->end_line, 7);
	f = find_msg(&g, "project-wide");
	assert_non_null(f);
	assert_null(f->file);
	assert_string_equal(f->severity, "info");
	assert_string_equal(f->category, "summary");
	assert_int_equal(f->line, 0);
	assert_int_equal(g.nmetric, 1);
	assert_string_equal(g.metric[0], "files");
	assert_true(g.mval[0] == 2.0);
	got_done(&g);
}

/* ---- plugins on threads: findings in the plugins' order, released trees parsed again --- */

/* Python files m00.py ... holding text (its %d: the file's number). */
static void write_numbered(struct fixture *fx, int n, const char *text)
{
	for (int i = 0; i < n; i++) {
		char name[32], body[128];
		snprintf(name, sizeof name, "m%02d.py", i);
		snprintf(body, sizeof body, text, i);
		tu_write(fx->root, name, body);
	}
}

static void test_lanes_share_and_release_trees(void **state)
{
	struct fixture *fx = *state;
	/* more files than a lane runs ahead of another, so trees are released mid-run */
	write_numbered(fx, 80, "import torch\nx%d = t.cuda()\ny = 'cuda'\n");
	/* a.twice walks every file, then comes back to every file once the others are past them */
	plugin_file(fx, "a.lua",
	            "return { id = 't.a', phase = 'assess', title = 'a', severity = 'info', triggers = {'cuda'},\n"
	            "  run = function(ctx)\n"
	            "    for pass = 1, 2 do\n"
	            "      for _, p in ipairs(ctx.python_files()) do\n"
	            "        for _, m in ipairs(ctx.query(p, '(call) @c')) do\n"
	            "          ctx.report{ file = p, node = m.c, message = pass .. ' ' .. m.c.text,\n"
	            "                      key = tostring(pass) }\n"
	            "        end\n"
	            "      end\n"
	            "    end\n"
	            "  end }\n");
	plugin_file(fx, "b.lua",
	            "return { id = 't.b', phase = 'assess', title = 'b', severity = 'info', triggers = {'cuda'},\n"
	            "  run = function(ctx)\n"
	            "    for _, p in ipairs(ctx.python_files()) do\n"
	            "      local text = ctx.read(p)\n"
	            "      for _, m in ipairs(ctx.query(p, '(string) @s')) do\n"
	            "        ctx.report{ file = p, node = m.s, message = m.s.text .. ' ' .. #text }\n"
	            "      end\n"
	            "    end\n"
	            "  end }\n");
	got g = {0};
	run_all(fx, &g);
	assert_int_equal(g.rc, 0);
	assert_int_equal(g.nerr, 0);
	assert_int_equal(g.parsed, 80);
	assert_int_equal(count_plugin(&g, "t.a"), 160);
	assert_int_equal(count_plugin(&g, "t.b"), 80);
	/* the plugins' findings arrive plugin by plugin, each in the order it reported them */
	assert_string_equal(g.v[0].plugin, "t.a");
	assert_string_equal(g.v[0].file, "m00.py");
	assert_string_equal(g.v[0].message, "1 t.cuda()");
	assert_string_equal(g.v[80].message, "2 t.cuda()");
	assert_string_equal(g.v[80].file, "m00.py");
	assert_string_equal(g.v[159].file, "m79.py");
	assert_string_equal(g.v[160].plugin, "t.b");
	assert_string_equal(g.v[160].message, "'cuda' 38");
	got_done(&g);
}

/* ctx.prefetch: the host parses ahead the files a plugin will query next, while a core is
 * free. The findings are those of a run without it, whatever the list holds: files in
 * another order than queried, files never queried, paths that are no Python file of the
 * project, a list replaced halfway. */
static void test_prefetch(void **state)
{
	struct fixture *fx = *state;
	write_numbered(fx, 60, "import torch\nx%d = t.cuda()\n");
	/* a.back walks every file, then comes back to them from the last, once the other
	 * plugin is done with them (their trees released), having said so */
	plugin_file(fx, "a.lua",
	            "return { id = 't.back', phase = 'assess', title = 'a', severity = 'info', triggers = {'cuda'},\n"
	            "  run = function(ctx)\n"
	            "    local files = ctx.python_files()\n"
	            "    for _, p in ipairs(files) do ctx.query(p, '(call) @c') end\n"
	            "    local back = {}\n"
	            "    for i = #files, 1, -1 do back[#back + 1] = files[i] end\n"
	            "    ctx.prefetch({ 'nope.py', 'README', files[1] })\n"
	            "    ctx.prefetch(back)\n"
	            "    for k, p in ipairs(back) do\n"
	            "      if k == 30 then ctx.prefetch({ back[40], back[31], back[60] }) end\n"
	            "      if k % 7 ~= 0 then\n"
	            "        for _, m in ipairs(ctx.query(p, '(call) @c')) do\n"
	            "          ctx.report{ file = p, node = m.c, message = m.c.text }\n"
	            "        end\n"
	            "      end\n"
	            "    end\n"
	            "    local ok, why = pcall(ctx.prefetch, 'm00.py')\n"
	            "    ctx.report{ message = tostring(ok) .. ' ' .. tostring(why):match('table expected') }\n"
	            "  end }\n");
	plugin_file(fx, "b.lua",
	            "return { id = 't.fwd', phase = 'assess', title = 'b', severity = 'info', triggers = {'cuda'},\n"
	            "  run = function(ctx)\n"
	            "    for _, p in ipairs(ctx.python_files()) do\n"
	            "      for _, m in ipairs(ctx.query(p, '(call) @c')) do\n"
	            "        ctx.report{ file = p, node = m.c, message = m.c.text }\n"
	            "      end\n"
	            "    end\n"
	            "  end }\n");
	got g = {0};
	run_all(fx, &g);
	assert_int_equal(g.rc, 0);
	if (g.nerr)
		fail_msg("%s", g.err[0]);
	assert_int_equal(g.parsed, 60);
	/* every seventh file of the way back is left out: 60 - 8 */
	assert_int_equal(count_plugin(&g, "t.back"), 52 + 1);
	assert_int_equal(count_plugin(&g, "t.fwd"), 60);
	assert_non_null(find_msg(&g, "false table expected"));
	assert_string_equal(g.v[0].file, "m59.py");
	assert_string_equal(g.v[0].message, "t.cuda()");
	assert_string_equal(g.v[51].file, "m00.py");
	got_done(&g);
}

/* ctx.shared: two plugins asking for the same analysis of the same files get equal
 * copies, worked out once per file between them; tables reached twice stay one table,
 * texts from _() keep their id; a failed or refused analysis is the asker's error and
 * is worked out again when asked again, also by a plugin that was waiting for it. */
static void test_shared(void **state)
{
	struct fixture *fx = *state;
	write_numbered(fx, 40, "import torch\nx%d = t.cuda()\n");
	tu_write(fx->root, "README", "not python\n");
	static const char *const asker =
		"return { id = 't.%s', phase = 'assess', title = 's', severity = 'info', triggers = {'cuda'},\n"
		"  run = function(ctx)\n"
		"    local runs, fails = 0, %s\n"
		"    for _i, p in ipairs(ctx.python_files()) do\n"
		"      -- one plugin's analysis fails: the other works it out, never waits for ever\n"
		"      local ok, got = pcall(ctx.shared, 't.flaky', p, function()\n"
		"        if fails then error('fails here') end\n"
		"        return 'fine'\n"
		"      end)\n"
		"      if not fails and got ~= 'fine' then error('t.flaky gave ' .. tostring(got)) end\n"
		"      local v = ctx.shared('t.calls', p, function()\n"
		"        runs = runs + 1\n"
		"        local calls = {}\n"
		"        for _j, m in ipairs(ctx.query(p, '(call) @c')) do calls[#calls + 1] = m.c end\n"
		"        local same = { n = #calls }\n"
		"        return { calls = calls, a = same, b = same, msg = _('Found {n} calls.', { n = #calls }), pi = 0.5, yes = true }\n"
		"      end)\n"
		"      ctx.report{ file = p, node = v.calls[1], message = v.msg, key = 'i18n' }\n"
		"      ctx.report{ file = p, node = v.calls[1], message = v.msg .. ' ' .. v.calls[1].text .. ' '\n"
		"                  .. tostring(v.a == v.b) .. ' ' .. v.pi .. ' ' .. tostring(v.yes) }\n"
		"    end\n"
		"    ctx.report{ message = 'runs ' .. runs }\n"
		"%s"
		"  end }\n";
	char *a = xasprintf(asker, "sa", "true", "");
	char *b = xasprintf(asker, "sb", "false",
	                    "    local ok, why = pcall(ctx.shared, 't.err', 'm01.py', function() error('boom') end)\n"
	                    "    local again = ctx.shared('t.err', 'm01.py', function() return 'second' end)\n"
	                    "    ctx.report{ message = 'err ' .. tostring(ok) .. ' ' .. tostring(why):match('boom') .. ' ' .. again }\n"
	                    "    local ok2, why2 = pcall(ctx.shared, 't.fn', 'm02.py', function() return { f = print } end)\n"
	                    "    ctx.report{ message = 'fn ' .. tostring(ok2) .. ' ' .. tostring(why2):match('holds a function') }\n"
	                    "    ctx.report{ message = 'other ' .. ctx.shared('t.x', 'README', function() return 'direct' end) }\n");
	plugin_file(fx, "a.lua", a);
	plugin_file(fx, "b.lua", b);
	free(a);
	free(b);
	got g = {0};
	run_all(fx, &g);
	assert_int_equal(g.rc, 0);
	if (g.nerr)
		fail_msg("%s", g.err[0]);
	assert_int_equal(count_plugin(&g, "t.sa"), 81);
	assert_int_equal(count_plugin(&g, "t.sb"), 84);
	size_t translatable = 0;
	for (size_t i = 0; i < g.n; i++) {
		if (!g.v[i].file || strcmp(g.v[i].file, "m07.py") != 0)
			continue;
		if (strcmp(g.v[i].message, "Found 1 calls.") == 0) {
			/* the copy's text still knows its id: it reads in every language */
			assert_non_null(g.v[i].i18n);
			assert_non_null(strstr(g.v[i].i18n, "Found {n} calls."));
			translatable++;
		} else {
			assert_string_equal(g.v[i].message, "Found 1 calls. t.cuda() true 0.5 true");
		}
	}
	assert_int_equal(translatable, 2);
	/* each file's analysis ran in one of the two plugins */
	int runs_a = -1, runs_b = -1;
	for (size_t i = 0; i < g.n; i++)
		if (g.v[i].message && strncmp(g.v[i].message, "runs ", 5) == 0)
			*(strcmp(g.v[i].plugin, "t.sa") == 0 ? &runs_a : &runs_b) = atoi(g.v[i].message + 5);
	assert_int_equal(runs_a + runs_b, 40);
	assert_non_null(find_msg(&g, "err false boom second"));
	assert_non_null(find_msg(&g, "fn false holds a function"));
	assert_non_null(find_msg(&g, "other direct"));
	got_done(&g);
}

/* ---- escape attempts: each one a plugin error, the other plugin's findings arrive ---- */

static const char *const GOOD =
	"return { id = 't.good', phase = 'assess', title = 'good', severity = 'info',\n"
	"  run = function(ctx) ctx.report{ message = 'still here' } end }\n";

static void escape(struct fixture *fx, const char *body, const char *expect, size_t mem)
{
	plugin_file(fx, "good.lua", GOOD);
	char *bad = xasprintf("return { id = 't.bad', phase = 'assess', title = 'bad', severity = 'error',\n"
	                      "  run = function(ctx)\n%s\n  end }\n", body);
	plugin_file(fx, "bad.lua", bad);
	free(bad);
	got g = {0};
	run_sel(fx, &g, NULL, NULL, 5000000, mem);
	assert_int_equal(g.rc, 0);
	if (g.nerr != 1 || !strstr(g.err[0], expect))
		fail_msg("expected one error with '%s', got %zu: %s", expect, g.nerr, g.nerr ? g.err[0] : "");
	assert_string_equal(g.err_id[0], "t.bad");
	char *prefix = xasprintf("plugin t.bad (%s/bad.lua): ", fx->plugins);
	assert_true(util_starts_with(g.err[0], prefix));
	free(prefix);
	assert_null(strchr(g.err[0], '\n'));
	assert_non_null(find_msg(&g, "still here"));
	assert_int_equal(count_plugin(&g, "t.bad"), 0);
	got_done(&g);
}

static void test_escape_os_execute(void **state)
{
	escape(*state, "os.execute('touch /tmp/ferry-escaped')", "global 'os'", 0);
}

static void test_escape_io_open(void **state)
{
	escape(*state, "local f = io.open('/etc/passwd')", "global 'io'", 0);
}

static void test_escape_binary_chunk(void **state)
{
	/* string.dump is gone from the library and from strings' metatable; load is gone */
	escape(*state,
	       "assert(string.dump == nil and ('').dump == nil and getmetatable('').__index.dump == nil,\n"
	       "       'dump reachable')\n"
	       "local f = load('\\27Lua')",
	       "global 'load'", 0);
}

static void test_escape_dofile(void **state)
{
	escape(*state, "dofile('/etc/passwd')", "global 'dofile'", 0);
}

static void test_escape_require_dotdot(void **state)
{
	escape(*state, "require('../secret')", "'../secret' is not a module of plugins/lib", 0);
}

static void test_escape_require_absolute(void **state)
{
	escape(*state, "require('/etc/passwd')", "not a module of plugins/lib", 0);
}

static void test_escape_require_missing_and_loop(void **state)
{
	escape(*state, "require('nosuch')", "no module 'nosuch'", 0);
	escape(*state, "require('loop')", "requires itself", 0);
}

static void test_escape_debug(void **state)
{
	escape(*state, "debug.getregistry()", "global 'debug'", 0);
}

static void test_escape_read_dotdot(void **state)
{
	escape(*state, "assert(ctx.read('../secret.txt'))", "path leaves the project", 0);
}

static void test_escape_read_absolute(void **state)
{
	struct fixture *fx = *state;
	char *body = xasprintf("assert(ctx.read('%s/secret.txt'))", fx->dir);
	escape(fx, body, "absolute path refused", 0);
	free(body);
}

static void test_escape_symlink(void **state)
{
	struct fixture *fx = *state;
	char *link = util_path_join(fx->root, "leak.py");
	assert_int_equal(symlink("../secret.txt", link), 0);
	free(link);
	escape(fx, "assert(ctx.read('leak.py'))", "symlink leaves the project", 0);
	escape(fx, "assert(ctx.lines('leak.py'))", "symlink leaves the project", 0);
	escape(fx, "assert(ctx.query('leak.py', '(identifier) @i'))", "symlink leaves the project", 0);
	escape(fx, "ctx.report{ file = '../secret.txt', message = 'x' }", "path leaves the project", 0);
}

static void test_escape_endless_loop(void **state)
{
	escape(*state, "while true do end", "instruction budget exceeded", 0);
}

static void test_escape_pcall_cannot_swallow_kill(void **state)
{
	escape(*state, "while true do pcall(function() while true do end end) end",
	       "instruction budget exceeded", 0);
	escape(*state, "for i = 1, 10 do pcall(function() while true do end end) end",
	       "instruction budget exceeded", 0);
}

static void test_escape_memory_tables(void **state)
{
	escape(*state, "local t = {} while true do t[#t + 1] = { i = #t } end",
	       "memory limit exceeded (8 MiB)", 8u << 20);
}

static void test_escape_memory_string_rep(void **state)
{
	escape(*state, "local s = string.rep('x', 16 << 20)", "memory limit exceeded", 8u << 20);
	escape(*state, "while true do pcall(string.rep, 'x', 16 << 20) end", "memory limit exceeded",
	       8u << 20);
	/* a result larger than the budget allows is refused before it is built */
	escape(*state, "local s = string.rep('x', 1 << 30)", "instruction budget exceeded", 8u << 20);
}

static void test_escape_deep_recursion(void **state)
{
	escape(*state, "local function f(n) return 1 + f(n + 1) end f(1)", "stack overflow", 0);
	escape(*state, "local function h(s) return (s:gsub('.', h)) end h('ab')", "stack overflow", 0);
}

static void test_escape_exec_outside_environment(void **state)
{
	escape(*state, "ctx.exec({'id'}, 1000)", "only environment plugins", 0);
}

static void test_sandbox_surface(void **state)
{
	struct fixture *fx = *state;
	plugin_file(fx, "surface.lua",
	            "assert(os == nil and io == nil and debug == nil and load == nil)\n"
	            "assert(loadstring == nil and dofile == nil and loadfile == nil)\n"
	            "assert(package == nil and coroutine == nil and string.dump == nil)\n"
	            "assert(_G == _ENV and type(print) == 'function')\n"
	            "assert(collectgarbage('count') > 0)\n"
	            "assert(not pcall(collectgarbage, 'collect'))\n"
	            "assert(math.floor(2.5) == 2 and utf8.char(72) == 'H' and table.concat({1, 2}) == '12')\n"
	            "-- finalizers run with hooks off, so plugins may not declare them\n"
	            "local ok, why = pcall(setmetatable, {}, { __gc = function() while true do end end })\n"
	            "assert(not ok and why:find('__gc finalizers are not allowed'))\n"
	            "assert(getmetatable(setmetatable({}, { __index = { a = 1 } })).__index.a == 1)\n"
	            "return { id = 't.surface', phase = 'tune', title = 's', severity = 'info',\n"
	            "  run = function(ctx)\n"
	            "    assert(select('#', pcall(function(...) return ... end, 1, nil)) == 3)\n"
	            "    assert(select(2, xpcall(error, function(m) return 'h:' .. m end, 'e', 0)) == 'h:e')\n"
	            "    print('debug line')\n"
	            "    ctx.log('another')\n"
	            "    ctx.report{ message = 'surface ok' }\n"
	            "  end }\n");
	got g = {0};
	time_t t0 = time(NULL);
	run_sel(fx, &g, NULL, NULL, 5000000, 0);
	assert_true(time(NULL) - t0 < 20);
	assert_int_equal(g.nload, 0);
	assert_int_equal(g.nerr, 0);
	assert_non_null(find_msg(&g, "surface ok"));
	got_done(&g);
}

/* ---- declarations ------------------------------------------------------------------- */

static void test_declaration_errors(void **state)
{
	struct fixture *fx = *state;
	static const struct {
		const char *file, *text, *expect;
	} bad[] = {
		{"noid.lua", "return { phase = 'assess', title = 't', severity = 'info', run = function() end }",
		 "id: missing"},
		{"phase.lua", "return { id = 'a.b', phase = 'deploy', title = 't', severity = 'info', run = function() end }",
		 "phase: 'deploy' is not a phase (assess, design, environment, adapt, tune, infer-convert, infer-optimize)"},
		{"sev.lua", "return { id = 'a.c', phase = 'assess', title = 't', severity = 'fatal', run = function() end }",
		 "severity: must be error, warning or info"},
		{"run.lua", "return { id = 'a.d', phase = 'assess', title = 't', severity = 'info', run = 3 }",
		 "run: must be a function"},
		{"title.lua", "return { id = 'a.e', phase = 'assess', severity = 'info', run = function() end }",
		 "title: missing"},
		{"query.lua", "return { id = 'a.f', phase = 'assess', title = 't', severity = 'info', query = '(call',"
		              " run = function() end }",
		 "query: "},
		{"syntax.lua", "return {", "syntax.lua:1:"},
		{"table.lua", "return 42", "does not return a declaration table"},
		{"binary.lua", "\x1bLua\x54\x00", "binary chunk"},
		{"exec.lua", "return { id = 'a.g', phase = 'assess', title = 't', severity = 'info', needs = { 'exec' },"
		             " run = function() end }",
		 "needs: only environment plugins may run programs"},
		{"trig.lua", "return { id = 'a.h', phase = 'assess', title = 't', severity = 'info', triggers = {},"
		             " run = function() end }",
		 "triggers: empty list"},
		{"ferry.lua", "return { id = 'ferry.source', phase = 'assess', title = 't', severity = 'info',"
		              " run = function() end }",
		 "is not a valid plugin id"},
		{"loops.lua", "while true do end", "instruction budget exceeded"},
		{"errors.lua", "error('boom at load')", "boom at load"},
		{"fix.lua", "return { id = 'a.i', phase = 'assess', title = 't', severity = 'info', fix = 1,"
		            " run = function() end }",
		 "fix: must be a function"},
	};
	size_t nbad = sizeof bad / sizeof bad[0];
	for (size_t i = 0; i < nbad; i++)
		plugin_file(fx, bad[i].file, bad[i].text);
	plugin_file(fx, "good.lua", GOOD);
	got g = {0};
	run_sel(fx, &g, NULL, NULL, 5000000, 0);
	assert_int_equal(g.nload, nbad);
	for (size_t i = 0; i < nbad; i++) {
		char *prefix = xasprintf("%s/%s: ", fx->plugins, bad[i].file);
		int seen = 0;
		for (size_t k = 0; k < g.nload; k++)
			if (util_starts_with(g.load_err[k], prefix) && strstr(g.load_err[k], bad[i].expect))
				seen = 1;
		if (!seen)
			fail_msg("no load error '%s...%s'", prefix, bad[i].expect);
		free(prefix);
	}
	/* load errors are not repeated as run errors; the good plugin runs */
	assert_int_equal(g.nerr, 0);
	assert_non_null(find_msg(&g, "still here"));
	got_done(&g);
}

static void test_same_id_later_replaces(void **state)
{
	struct fixture *fx = *state;
	char *second = util_path_join(fx->dir, "second");
	tu_write(fx->bundled, "assess/one.lua",
	         "return { id = 't.same', phase = 'assess', title = 'bundled', severity = 'info',"
	         " run = function(ctx) ctx.report{ message = 'bundled' } end }");
	tu_write(fx->plugins, "assess/one.lua",
	         "return { id = 't.same', phase = 'assess', title = 'first', severity = 'info',"
	         " run = function(ctx) ctx.report{ message = 'first' } end }");
	tu_write(second, "one.lua",
	         "return { id = 't.same', phase = 'assess', title = 'second', severity = 'info',"
	         " run = function(ctx) ctx.report{ message = 'second' } end }");
	tu_write(second, "tune/two.lua",
	         "return { id = 't.two', phase = 'tune', title = 'two', severity = 'info',"
	         " run = function(ctx) end }");
	const char *dirs[] = {fx->plugins, second};
	plugin_host_opts o = {.root = fx->root, .dirs = dirs, .ndirs = 2, .source_dir = fx->bundled};
	plugin_host *h = NULL;
	assert_int_equal(plugin_host_new(&h, &o), 0);
	size_t n;
	const plugin_info *pi = plugin_host_plugins(h, &n);
	assert_int_equal(n, 2);
	assert_string_equal(pi[0].id, "t.same");
	assert_string_equal(pi[0].title, "second");
	assert_true(util_ends_with(pi[0].origin, "second/one.lua"));
	assert_string_equal(pi[1].id, "t.two"); /* sorted by phase: assess before tune */
	assert_int_equal(pi[1].fixable, 0);
	got g = {0};
	plugin_run_cb cb = {.finding = on_finding, .plugin_error = on_error, .payload = &g};
	assert_int_equal(plugin_host_run(h, NULL, 0, NULL, 0, &cb), 0);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.v[0].message, "second");
	got_done(&g);

	/* selection errors */
	const char *bad_phase = "deploy", *bad_id = "t.nope", *tune = "tune";
	assert_int_equal(plugin_host_run(h, &bad_phase, 1, NULL, 0, &cb), FERRY_EUSAGE);
	assert_string_equal(err_message(), "phase deploy: unknown phase");
	assert_int_equal(plugin_host_run(h, NULL, 0, &bad_id, 1, &cb), FERRY_EUSAGE);
	assert_string_equal(err_message(), "plugin t.nope: no such plugin");
	assert_int_equal(plugin_host_run(h, &tune, 1, NULL, 0, &cb), 0);
	assert_int_equal(g.n, 0);
	plugin_host_free(h);
	plugin_host_free(NULL);
	free(second);
}

static void test_cancel(void **state)
{
	struct fixture *fx = *state;
	plugin_file(fx, "good.lua", GOOD);
	fx->cancel = 1;
	got g = {0};
	run_all(fx, &g);
	assert_int_equal(g.rc, FERRY_ECANCEL);
	assert_int_equal(g.n, 0);
	got_done(&g);
}

/* ---- prefilter, fingerprints, source problems ------------------------------------------ */

/* A list inside triggers is a group: a file is offered only when it holds all of them;
 * a function computes the triggers from a fact table at load. */
static void test_trigger_groups(void **state)
{
	struct fixture *fx = *state;
	tu_write(fx->root, "both.py", "import torch\nx = torch.hub.load('a')\n");
	tu_write(fx->root, "one.py", "data = pickle.load(f)\n");
	tu_write(fx->root, "other.py", "y = 2\n");
	tu_write(fx->bundled, "data/names.json", "{\"entries\": [{\"name\": \"torch.hub.load\"}]}");
	plugin_file(fx, "groups.lua",
	            "return { id = 't.groups', phase = 'assess', title = 't', severity = 'info',\n"
	            "  triggers = function(data)\n"
	            "    local out = { 'never_present' }\n"
	            "    for _, e in ipairs(data('names').entries) do\n"
	            "      local g = {}\n"
	            "      for part in e.name:gmatch('[^.]+') do g[#g + 1] = part end\n"
	            "      out[#out + 1] = g\n"
	            "    end\n"
	            "    return out\n"
	            "  end,\n"
	            "  query = '(attribute) @a',\n"
	            "  run = function(ctx)\n"
	            "    ctx.report{ message = 'py:' .. table.concat(ctx.python_files(), ',') }\n"
	            "  end }\n");
	got g = {0};
	run_all(fx, &g);
	if (g.nerr)
		fail_msg("%s", g.err[0]);
	assert_string_equal(find_msg(&g, "py:")->message, "py:both.py");
	assert_int_equal(g.parsed, 1); /* one.py holds "load" but not "torch" and "hub": never parsed */
	got_done(&g);

	plugin_file(fx, "groups.lua",
	            "return { id = 't.groups', phase = 'assess', title = 't', severity = 'info',\n"
	            "  triggers = { 'x', { 'a', 3 } }, run = function(ctx) end }\n");
	run_all(fx, &g);
	assert_int_equal(g.nload, 1);
	assert_non_null(strstr(g.load_err[0], "triggers: entry 2"));
	got_done(&g);
}

static void test_triggers_prefilter(void **state)
{
	struct fixture *fx = *state;
	tu_write(fx->root, "a.py", "import torch\ntorch.cuda.synchronize()\n");
	tu_write(fx->root, "b.py", "print('hello')\n");
	tu_write(fx->root, "c.py", "x = 1\n");
	tu_write(fx->root, "d.txt", "torch.cuda\n");
	plugin_file(fx, "trig.lua",
	            "return { id = 't.trig', phase = 'assess', title = 't', severity = 'info',\n"
	            "  triggers = { 'torch.cuda', 'never_present' }, query = '(attribute) @a',\n"
	            "  run = function(ctx)\n"
	            "    ctx.report{ message = 'py:' .. table.concat(ctx.python_files(), ',') }\n"
	            "  end }\n");
	got g = {0};
	run_all(fx, &g);
	assert_int_equal(g.nerr, 0);
	assert_int_equal(g.parsed, 1);
	assert_non_null(find_msg(&g, "py:a.py"));
	assert_string_equal(find_msg(&g, "py:")->message, "py:a.py");
	got_done(&g);

	/* a plugin with neither triggers nor a query parses only what it queries */
	plugin_file(fx, "lazy.lua",
	            "return { id = 't.lazy', phase = 'assess', title = 't', severity = 'info',\n"
	            "  run = function(ctx)\n"
	            "    local all = ctx.python_files()\n"
	            "    local m = assert(ctx.query('c.py', '(identifier) @i'))\n"
	            "    assert(ctx.query('c.py', '(identifier) @i'))\n"
	            "    ctx.report{ message = 'lazy:' .. #all .. ':' .. m[1].i.text }\n"
	            "  end }\n");
	run_all(fx, &g);
	assert_int_equal(g.nerr, 0);
	assert_non_null(find_msg(&g, "lazy:3:x"));
	assert_int_equal(g.parsed, 2);
	got_done(&g);

	/* a plugin with a query and no triggers wants every file parsed */
	plugin_file(fx, "lazy.lua",
	            "return { id = 't.lazy', phase = 'assess', title = 't', severity = 'info',\n"
	            "  query = '(identifier) @i', run = function(ctx) end }\n");
	run_all(fx, &g);
	assert_int_equal(g.parsed, 3);
	got_done(&g);
}

static const char *const CUDA_REPORTER =
	"return { id = 't.fp', phase = 'adapt', title = 't', severity = 'warning', triggers = { 'cuda' },\n"
	"  query = '((call function: (attribute attribute: (identifier) @m)) @call (#eq? @m \"cuda\"))',\n"
	"  run = function(ctx)\n"
	"    for _, p in ipairs(ctx.python_files()) do\n"
	"      for _, m in ipairs(ctx.query(p)) do\n"
	"        ctx.report{ file = p, node = m.call, message = 'cuda at ' .. m.call.line }\n"
	"      end\n"
	"    end\n"
	"  end }\n";

static void test_fingerprints_stable(void **state)
{
	struct fixture *fx = *state;
	plugin_file(fx, "fp.lua", CUDA_REPORTER);
	tu_write(fx->root, "m.py", "import torch\n\nx = y.cuda()\n\n\nz = 1\n");
	got g = {0};
	run_all(fx, &g);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.v[0].line, 3);
	char *fp1 = xstrdup(g.v[0].fingerprint);
	got_done(&g);

	/* lines added above and a change further down: same identity, new line */
	tu_write(fx->root, "m.py", "# header\n# more\nimport torch\n\nx = y.cuda()\n\n\nz = 2\n");
	run_all(fx, &g);
	assert_int_equal(g.n, 1);
	assert_int_equal(g.v[0].line, 5);
	assert_string_equal(g.v[0].fingerprint, fp1);
	got_done(&g);

	/* identical lines stay distinct */
	tu_write(fx->root, "m.py", "a.cuda()\na.cuda()\na.cuda()\na.cuda()\na.cuda()\n");
	run_all(fx, &g);
	assert_int_equal(g.n, 5);
	for (size_t i = 0; i < g.n; i++)
		for (size_t k = i + 1; k < g.n; k++)
			assert_string_not_equal(g.v[i].fingerprint, g.v[k].fingerprint);
	char *fps[5];
	for (size_t i = 0; i < 5; i++)
		fps[i] = xstrdup(g.v[i].fingerprint);
	got_done(&g);
	run_all(fx, &g); /* and a re-run gives the same ones */
	for (size_t i = 0; i < 5; i++) {
		assert_string_equal(g.v[i].fingerprint, fps[i]);
		free(fps[i]);
	}
	got_done(&g);
	free(fp1);
}

static void test_source_problems(void **state)
{
	struct fixture *fx = *state;
	plugin_file(fx, "fp.lua", CUDA_REPORTER);
	tu_write(fx->root, "crlf.py", "import torch\r\nif True:\r\n\tx = t.cuda()\r\n");
	tu_write(fx->root, "latin.py", "s = 'caf\xe9'  # cuda\n");
	tu_write(fx->root, "broken.py", "def f(:\n    x.cuda()\n");
	tu_write(fx->root, "bin.py", "cuda");
	char *bin = util_path_join(fx->root, "bin.py");
	FILE *fp = fopen(bin, "ab");
	fwrite("\0\1\2", 1, 3, fp);
	fclose(fp);
	char *big = util_path_join(fx->root, "big.py");
	fp = fopen(big, "wb");
	fclose(fp);
	assert_int_equal(truncate(big, 33 << 20), 0);
	char *loop = util_path_join(fx->root, "loop.py");
	assert_int_equal(symlink("loop.py", loop), 0);
	tu_write(fx->root, "sub/ok.py", "y = 1\n");
	char *up = util_path_join(fx->root, "sub/up");
	assert_int_equal(symlink("..", up), 0);
	got g = {0};
	time_t t0 = time(NULL);
	run_all(fx, &g);
	assert_true(time(NULL) - t0 < 20);
	assert_int_equal(g.rc, 0);
	assert_int_equal(g.nerr, 0);
	static const char *const expect[] = {
		"latin.py: not UTF-8",
		"bin.py: binary file",
		"big.py: file too large",
		"broken.py: syntax error at line 1",
		"loop.py: symlink loop",
	};
	for (size_t i = 0; i < sizeof expect / sizeof expect[0]; i++) {
		const got_finding *f = find_msg(&g, expect[i]);
		if (!f)
			fail_msg("no source finding '%s'", expect[i]);
		assert_string_equal(f->plugin, "ferry.source");
		assert_string_equal(f->phase, "adapt"); /* the phase of the check it kept from the file */
		assert_string_equal(f->severity, "warning");
		assert_string_equal(f->category, "source");
		assert_non_null(f->file);
		assert_true(util_starts_with(expect[i], f->file));
	}
	/* sub/up leads back to the root: another name for files listed by their own path,
	 * not a problem */
	assert_null(find_msg(&g, "sub/up"));
	assert_int_equal(count_plugin(&g, "ferry.source"), 5);
	assert_int_equal(find_msg(&g, "syntax error")->line, 1);
	/* CRLF and tabs are fine; the broken file is still analysed */
	const got_finding *f = find_msg(&g, "cuda at 3");
	assert_non_null(f);
	assert_string_equal(f->file, "crlf.py");
	assert_int_equal(f->col, 6);
	assert_non_null(find_msg(&g, "cuda at 2"));
	assert_int_equal(count_plugin(&g, "t.fp"), 2);
	got_done(&g);
	free(bin);
	free(big);
	free(loop);
	free(up);
}

/* ---- the ctx API ------------------------------------------------------------------- */

static void test_ctx_files_read_lines(void **state)
{
	struct fixture *fx = *state;
	tu_write(fx->root, "a.py", "import os\r\nprint(1)\r\n");
	tu_write(fx->root, "sub/r.txt", "one\ntwo");
	tu_write(fx->root, "data.bin", "ab");
	char *bin = util_path_join(fx->root, "data.bin");
	FILE *fp = fopen(bin, "ab");
	fwrite("\0z", 1, 2, fp);
	fclose(fp);
	free(bin);
	plugin_file(fx, "api.lua",
	            "return { id = 't.api', phase = 'assess', title = 't', severity = 'info',\n"
	            "  run = function(ctx)\n"
	            "    local out = {}\n"
	            "    out[#out + 1] = table.concat(ctx.files(), ',')\n"
	            "    out[#out + 1] = table.concat(ctx.files('%.py$'), ',')\n"
	            "    out[#out + 1] = table.concat(ctx.lines('a.py'), '|')\n"
	            "    out[#out + 1] = table.concat(ctx.lines('sub/r.txt'), '|')\n"
	            "    local t, why = ctx.read('data.bin')\n"
	            "    out[#out + 1] = tostring(t) .. ':' .. why\n"
	            "    t, why = ctx.read('nope.txt')\n"
	            "    out[#out + 1] = tostring(t) .. ':' .. why\n"
	            "    out[#out + 1] = ctx.node_text('a.py', 0, 6)\n"
	            "    out[#out + 1] = #ctx.read('a.py')\n"
	            "    out[#out + 1] = ctx.find('a.py', 'print') .. ',' .. ctx.find('a.py', 'os', 0, 9) .. ','\n"
	            "      .. tostring(ctx.find('a.py', 'os', 0, 8)) .. ',' .. tostring(ctx.find('a.py', 'zz')) .. ','\n"
	            "      .. ctx.find('a.py', 'i', 12) .. ',' .. tostring(select(2, ctx.find('data.bin', 'a'))) .. ','\n"
	            "      .. tostring(select(2, ctx.find('data.bin', 'z'))) .. ','\n"
	            "      .. tostring(select(2, pcall(ctx.find, 'a.py', 'x', 5, 99))):match('find: range 5..99')\n"
	            "    out[#out + 1] = ctx.config('target') .. ':' .. tostring(ctx.config('other'))\n"
	            "    local d = ctx.data('facts')\n"
	            "    out[#out + 1] = d.ops[1].name .. d.ops[2].n .. tostring(d.ok) .. tostring(d.none)\n"
	            "    out[#out + 1] = tostring(ctx.data('facts') == d)\n"
	            "    local a = ctx.artifacts('loss-log')\n"
	            "    out[#out + 1] = #a .. a[1].label .. #ctx.artifacts('dump')\n"
	            "    out[#out + 1] = ctx.read_artifact(a[1].id)\n"
	            "    out[#out + 1] = tostring(select(2, ctx.read_artifact(99)))\n"
	            "    out[#out + 1] = tostring(select(2, ctx.query('data.bin', '(identifier) @i'))):sub(1, 9)\n"
	            "    out[#out + 1] = tostring(select(2, ctx.query('nul.py', '(identifier) @i'))):sub(1, 7)\n"
	            "    out[#out + 1] = #ctx.python_files()\n"
	            "    out[#out + 1] = ctx.loc('src.py', '#') .. ',' .. ctx.loc('src.py') .. ',' .. tostring(ctx.loc('nope'))\n"
	            "    local names = { y = 1, note = 1, x = 1, header = 1, ader = 1, absent = 1, [2] = 'x' }\n"
	            "    out[#out + 1] = table.concat(ctx.find_names('src.py', names), ',') .. ':'\n"
	            "      .. #ctx.find_names('src.py', {}) .. ':' .. tostring(select(2, ctx.find_names('nope', names)))\n"
	            "    out[#out + 1] = table.concat(ctx.find_names('ids.py', { x1y = 1, abc = 1, y = 1, _z = 1, z = 1 }), ',')\n"
	            "    ctx.report{ message = table.concat(out, '\\n') }\n"
	            "  end }\n");
	tu_write(fx->root, "art/loss.txt", "step 1 loss 2.0\n");
	tu_write(fx->root, "src.py", "# header\r\n\r\nx = 1  # note\n   \t\n\t# indented comment\ny = 2");
	tu_write(fx->root, "ids.py", "3abc x1y\xc3\xa9y _z+z abc");
	tu_write(fx->root, "nul.py", "x");
	char *nul = util_path_join(fx->root, "nul.py");
	fp = fopen(nul, "ab");
	fwrite("\0", 1, 1, fp);
	fclose(fp);
	free(nul);
	got g = {0};
	run_all(fx, &g);
	if (g.nerr)
		fail_msg("%s", g.err[0]);
	assert_int_equal(g.n, 2);
	assert_non_null(find_msg(&g, "nul.py: binary file"));
	const got_finding *f = find_msg(&g, "a.py,");
	assert_non_null(f);
	assert_string_equal(f->message,
	                    "a.py,art/loss.txt,data.bin,ids.py,nul.py,src.py,sub/r.txt\n"
	                    "a.py,ids.py,nul.py,src.py\n"
	                    "import os|print(1)\n"
	                    "one|two\n"
	                    "nil:data.bin: binary file\n"
	                    "nil:nope.txt: no such file\n"
	                    "import\n"
	                    "21\n"
	                    "11,7,nil,nil,13,data.bin: binary file,data.bin: binary file,find: range 5..99\n"
	                    "Ascend910B:nil\n"
	                    "matmul2.5truenil\n"
	                    "true\n"
	                    "1gpu0\n"
	                    "step 1 loss 2.0\n"
	                    "\n"
	                    "artifact 99: no such artifact\n"
	                    "data.bin:\n"
	                    "nul.py:\n"
	                    "3\n"
	                    "2,4,nil\n"
	                    "header,x,note,y:0:nope: no such file\n"
	                    "abc,x1y,y,_z,z");
	got_done(&g);
}

static void test_edits(void **state)
{
	struct fixture *fx = *state;
	tu_write(fx->root, "e.py", "x = a.cuda()\n");
	plugin_file(fx, "edits.lua",
	            "return { id = 't.edits', phase = 'adapt', title = 't', severity = 'info',\n"
	            "  run = function(ctx)\n"
	            "    ctx.report{ file = 'e.py', line = 1, col = 5, message = 'sorted',\n"
	            "      edits = { { start_byte = 6, end_byte = 10, text = 'npu' },\n"
	            "                { start_byte = 0, end_byte = 1, text = 'y' } } }\n"
	            "    ctx.report{ file = 'e.py', line = 1, message = 'inserts',\n"
	            "      edits = { { start_byte = 0, end_byte = 1, text = 'y' },\n"
	            "                { start_byte = 0, end_byte = 0, text = '# ' } } }\n"
	            "  end }\n");
	plugin_file(fx, "overlap.lua",
	            "return { id = 't.overlap', phase = 'adapt', title = 't', severity = 'info',\n"
	            "  run = function(ctx)\n"
	            "    ctx.report{ file = 'e.py', line = 1, message = 'bad',\n"
	            "      edits = { { start_byte = 0, end_byte = 5, text = 'y' },\n"
	            "                { start_byte = 3, end_byte = 8, text = 'z' } } }\n"
	            "  end }\n");
	plugin_file(fx, "range.lua",
	            "return { id = 't.range', phase = 'adapt', title = 't', severity = 'info',\n"
	            "  run = function(ctx)\n"
	            "    ctx.report{ file = 'e.py', message = 'bad', edits = { { start_byte = 0, end_byte = 999, text = '' } } }\n"
	            "  end }\n");
	got g = {0};
	run_all(fx, &g);
	assert_int_equal(g.nerr, 2);
	for (size_t i = 0; i < 2; i++) {
		if (strcmp(g.err_id[i], "t.overlap") == 0)
			assert_non_null(strstr(g.err[i], "report: edits overlap at byte 3"));
		else
			assert_non_null(strstr(g.err[i], "bad byte range"));
	}
	const got_finding *f = find_msg(&g, "sorted");
	assert_non_null(f);
	assert_int_equal(f->nedits, 2);
	assert_int_equal(f->s0, 0);
	assert_int_equal(f->e0, 1);
	assert_string_equal(f->t0, "y");
	assert_int_equal(f->s1, 6);
	assert_int_equal(f->line, 1);
	assert_int_equal(f->col, 5);
	f = find_msg(&g, "inserts");
	assert_int_equal(f->nedits, 2);
	assert_string_equal(f->t0, "# "); /* the insertion sorts before the replacement */
	got_done(&g);
}

static void test_exec(void **state)
{
	struct fixture *fx = *state;
	plugin_file(fx, "env.lua",
	            "return { id = 't.env', phase = 'environment', title = 't', severity = 'info',\n"
	            "  needs = { 'exec' },\n"
	            "  run = function(ctx)\n"
	            "    local r = ctx.exec({ 'sh', '-c', 'echo out; echo err >&2; exit 3' }, 5000)\n"
	            "    ctx.report{ message = r.stdout .. r.stderr .. r.status .. tostring(r.timed_out) }\n"
	            "    r = ctx.exec({ 'sleep', '10' }, 200)\n"
	            "    ctx.report{ message = 'slow ' .. tostring(r.timed_out) }\n"
	            "    local none, why = ctx.exec({ 'ferry-no-such-program' }, 1000)\n"
	            "    ctx.report{ message = tostring(none) .. ' ' .. why }\n"
	            "  end }\n");
	got g = {0};
	time_t t0 = time(NULL);
	run_all(fx, &g);
	assert_true(time(NULL) - t0 < 5);
	if (g.nerr)
		fail_msg("%s", g.err[0]);
	assert_non_null(find_msg(&g, "out\nerr\n3false"));
	assert_non_null(find_msg(&g, "slow true"));
	assert_non_null(find_msg(&g, "nil ferry-no-such-program: No such file or directory"));
	got_done(&g);
}

static void test_py_helpers(void **state)
{
	struct fixture *fx = *state;
	tu_write(fx->root, "h.py",
	         "import torch\n"
	         "import torch.cuda as tc\n"
	         "from torch import cuda\n"
	         "from torch.cuda import amp as A\n"
	         "import numpy as np, os.path\n"
	         "from . import sibling\n"
	         "from apex import *\n"
	         "\n"
	         "@torch.jit.script\n"
	         "def f(x):\n"
	         "    return x\n"
	         "\n"
	         "@torch.no_grad()\n"
	         "def g():\n"
	         "    torch.cuda.synchronize()\n"
	         "    tc.empty_cache()\n"
	         "    dist.init_process_group(backend='nccl', init_method=\"env://\")\n"
	         "    y = x.cuda(0)  # torch.cuda.fake in a comment\n"
	         "    s = r\"cuda:0\"\n"
	         "    n = torch.cuda.amp.autocast\n");
	plugin_file(fx, "py.lua",
	            "local py = require('py')\n"
	            "return { id = 't.py', phase = 'assess', title = 't', severity = 'info',\n"
	            "  run = function(ctx)\n"
	            "    local p, out = 'h.py', {}\n"
	            "    for _, r in ipairs(py.imports(ctx, p)) do\n"
	            "      out[#out + 1] = table.concat({ r.module, r.name or '-', r.alias or '-',\n"
	            "        r.bound or '-', r.full or '-' }, ' ')\n"
	            "    end\n"
	            "    local al = py.aliases(ctx, p)\n"
	            "    out[#out + 1] = py.expand(al, 'tc.empty_cache') .. ' ' .. py.expand(al, 'A.autocast')\n"
	            "    for _, a in ipairs(py.attributes(ctx, p, 'torch.cuda')) do\n"
	            "      out[#out + 1] = 'attr ' .. a.text .. ' ' .. a.node.line\n"
	            "    end\n"
	            "    out[#out + 1] = 'calls ' .. #py.calls(ctx, p, 'torch.cuda.empty_cache', al)\n"
	            "    for _, k in ipairs(py.keyword_args(ctx, p, 'backend', 'nccl')) do\n"
	            "      out[#out + 1] = 'kw ' .. k.name.text .. '=' .. k.string .. ' ' .. k.value.text\n"
	            "    end\n"
	            "    for _, c in ipairs(py.method_calls(ctx, p, 'cuda')) do\n"
	            "      out[#out + 1] = 'method ' .. c.object.text .. ' ' .. c.args.text\n"
	            "    end\n"
	            "    for _, c in ipairs(py.method_calls(ctx, p, { cuda = true, empty_cache = true, absent = true })) do\n"
	            "      out[#out + 1] = 'methods ' .. c.method.text .. ' ' .. c.object.text .. ' ' .. c.call.line\n"
	            "    end\n"
	            "    out[#out + 1] = 'none ' .. #py.method_calls(ctx, p, {})\n"
	            "    for _, d in ipairs(py.decorators(ctx, p)) do\n"
	            "      out[#out + 1] = 'dec ' .. d.name .. ' ' .. d.text\n"
	            "    end\n"
	            "    for _, s in ipairs(py.strings(ctx, p, '^cuda')) do\n"
	            "      out[#out + 1] = 'str ' .. s.value .. ' ' .. s.prefix\n"
	            "    end\n"
	            "    out[#out + 1] = tostring(py.dotted('a . b\\n .c')) .. ' ' .. tostring(py.dotted('a().b'))\n"
	            "    out[#out + 1] = py.string_value(\"b'''x'''\") .. py.string_value('\"y\"')\n"
	            "    ctx.report{ message = table.concat(out, '\\n') }\n"
	            "  end }\n");
	got g = {0};
	run_all(fx, &g);
	if (g.nerr)
		fail_msg("%s", g.err[0]);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.v[0].message,
	                    "torch - - torch torch\n"
	                    "torch.cuda - tc tc torch.cuda\n"
	                    "torch cuda - cuda torch.cuda\n"
	                    "torch.cuda amp A A torch.cuda.amp\n"
	                    "numpy - np np numpy\n"
	                    "os.path - - os os\n"
	                    ". sibling - sibling .sibling\n"
	                    "apex * - - -\n"
	                    "torch.cuda.empty_cache torch.cuda.amp.autocast\n"
	                    "attr torch.cuda.synchronize 15\n"
	                    "attr torch.cuda.amp.autocast 20\n"
	                    "calls 1\n"
	                    "kw backend=nccl 'nccl'\n"
	                    "method x (0)\n"
	                    "methods empty_cache tc 16\n"
	                    "methods cuda x 18\n"
	                    "none 0\n"
	                    "dec torch.jit.script torch.jit.script\n"
	                    "dec torch.no_grad torch.no_grad()\n"
	                    "str cuda:0 r\n"
	                    "a.b.c nil\n"
	                    "xy");
	got_done(&g);
}

/* ---- the worked example of plugins/README.md ----------------------------------------- */

static void test_worked_example(void **state)
{
	(void)state;
	char *readme = tu_read(".", "plugins/README.md");
	char *plugin = tu_read(".", "tests/plugins/example/plugin/cuda_calls.lua");
	assert_non_null(readme);
	assert_non_null(plugin);
	if (!strstr(readme, plugin))
		fail_msg("plugins/README.md does not show tests/plugins/example/plugin/cuda_calls.lua");
	free(readme);
	free(plugin);

	/* the embedded bundled plugins and lib, plus the example folder */
	const char *dirs[] = {"tests/plugins/example/plugin"};
	plugin_host_opts o = {.root = "tests/plugins/example/project", .dirs = dirs, .ndirs = 1};
	plugin_host *h = NULL;
	assert_int_equal(plugin_host_new(&h, &o), 0);
	got g = {0};
	plugin_run_cb cb = {.finding = on_finding, .plugin_error = on_error, .metric = on_metric,
	                    .payload = &g};
	const char *id = "example.cuda_calls";
	assert_int_equal(plugin_host_run(h, NULL, 0, &id, 1, &cb), 0);
	assert_int_equal(plugin_host_parsed_files(h), 1); /* pkg/util.py has no ".cuda(" */
	size_t n;
	const plugin_info *pi = plugin_host_plugins(h, &n);
	for (size_t i = 0; i < n; i++)
		if (strcmp(pi[i].id, id) == 0)
			assert_int_equal(pi[i].fixable, 1);
	plugin_host_free(h);
	if (g.nerr)
		fail_msg("%s", g.err[0]);
	assert_int_equal(g.n, 2);
	const got_finding *f = &g.v[0];
	assert_string_equal(f->file, "train.py");
	assert_string_equal(f->message, "Net().cuda() moves data to an NVIDIA GPU");
	assert_string_equal(f->severity, "warning");
	assert_string_equal(f->category, "device");
	assert_int_equal(f->line, 3);
	assert_int_equal(f->col, 9);
	assert_int_equal(f->end_col, 21);
	assert_int_equal(f->nedits, 1);
	assert_int_equal(f->s0, 28); /* "cuda" of line 3 */
	assert_int_equal(f->e0, 32);
	assert_string_equal(f->t0, "npu");
	f = &g.v[1];
	assert_string_equal(f->message, "torch.randn(4, 4).cuda() moves data to an NVIDIA GPU");
	assert_int_equal(f->line, 5);
	assert_int_equal(f->col, 5);
	assert_int_equal(g.nmetric, 1);
	assert_true(g.mval[0] == 2.0);
	got_done(&g);
}

/* ctx.decode_json: documents as Lua values, a reason for broken or oversized ones */
static void test_decode_json(void **state)
{
	struct fixture *fx = *state;
	plugin_file(fx, "json.lua",
	            "return { id = 't.json', phase = 'assess', title = 't', severity = 'info',\n"
	            "  run = function(ctx)\n"
	            "    local out = {}\n"
	            "    local d = ctx.decode_json('{\"a\":[1,2.5,\"x\\\\u00e9\",true,null],\"n\":null,\"o\":{\"k\":-3}}')\n"
	            "    out[#out + 1] = math.type(d.a[1]) .. d.a[2] .. d.a[3] .. tostring(d.a[4]) .. tostring(d.n) .. d.o.k\n"
	            "    local v, why = ctx.decode_json('{\"a\": [1, 2')\n"
	            "    out[#out + 1] = tostring(v) .. ':' .. why\n"
	            "    out[#out + 1] = tostring(ctx.decode_json('7'))\n"
	            "    v, why = ctx.decode_json('[' .. string.rep('0,', 3000000) .. '0]')\n"
	            "    out[#out + 1] = tostring(v) .. ':' .. why:sub(1, 23)\n"
	            "    ctx.report{ message = table.concat(out, '|') }\n"
	            "  end }\n");
	got g = {0};
	run_sel(fx, &g, NULL, "t.json", 0, 0);
	if (g.nerr)
		fail_msg("%s", g.err[0]);
	assert_int_equal(g.n, 1);
	assert_string_equal(g.v[0].message, "integer2.5x\xc3\xa9truenil-3|nil:not valid JSON (near byte 10)|7|"
	                                    "nil:JSON document too large");
	got_done(&g);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_good_plugin_positions, setup, teardown),
		cmocka_unit_test_setup_teardown(test_decode_json, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escape_os_execute, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escape_io_open, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escape_binary_chunk, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escape_dofile, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escape_require_dotdot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escape_require_absolute, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escape_require_missing_and_loop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escape_debug, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escape_read_dotdot, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escape_read_absolute, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escape_symlink, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escape_endless_loop, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escape_pcall_cannot_swallow_kill, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escape_memory_tables, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escape_memory_string_rep, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escape_deep_recursion, setup, teardown),
		cmocka_unit_test_setup_teardown(test_escape_exec_outside_environment, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sandbox_surface, setup, teardown),
		cmocka_unit_test_setup_teardown(test_declaration_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_same_id_later_replaces, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cancel, setup, teardown),
		cmocka_unit_test_setup_teardown(test_prefetch, setup, teardown),
		cmocka_unit_test_setup_teardown(test_shared, setup, teardown),
		cmocka_unit_test_setup_teardown(test_lanes_share_and_release_trees, setup, teardown),
		cmocka_unit_test_setup_teardown(test_triggers_prefilter, setup, teardown),
		cmocka_unit_test_setup_teardown(test_trigger_groups, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fingerprints_stable, setup, teardown),
		cmocka_unit_test_setup_teardown(test_source_problems, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ctx_files_read_lines, setup, teardown),
		cmocka_unit_test_setup_teardown(test_edits, setup, teardown),
		cmocka_unit_test_setup_teardown(test_exec, setup, teardown),
		cmocka_unit_test_setup_teardown(test_py_helpers, setup, teardown),
		cmocka_unit_test_setup_teardown(test_worked_example, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
