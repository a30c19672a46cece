/* guide — each phase's purpose, steps and checklist in plain words for a
 * first-time migrator, in the interface language (the texts are English, marked N_()). Checklist items are
 * ticked from the recorded check results of the phase (never by hand here). */
#include "intl.h"
#include "pane.h"
#include "phase.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum tick_rule {
	TICK_RUN,      /* the phase's checks have run */
	TICK_CLEAN,    /* run, and no open error findings */
	TICK_NONE_OF,  /* run, and no open warning or error of the plugins named in match */
	TICK_NO_FINDING, /* run, and no open finding at all (info too) of the plugins named in match */
	TICK_SIGNED,   /* the phase is signed off */
	TICK_CONFIG,   /* every engagement setting named in match is set */
	TICK_ARTIFACT, /* an artifact of the kind in match is ingested ("kind:N": N of them) */
	TICK_PASSED,   /* the checks named in match judged their evidence and passed it: an open
	                * finding of theirs, none a warning or error (an ingested artifact the
	                * checks warn about, such as a run on the CPU, is no tick) */
};

typedef struct guide_item {
	int rule;
	const char *match; /* TICK_NONE_OF, TICK_NO_FINDING: plugin ids; TICK_CONFIG: keys; TICK_ARTIFACT: a kind */
	const char *text;  /* English, N_(); translated where drawn */
} guide_item;

typedef struct guide_phase {
	const char *phase;    /* the phase it guides (plugins/data/phases.json) */
	const char *purpose;  /* English, N_(); translated where drawn */
	const char *steps[5];
	guide_item items[10];
} guide_phase;

/* Plugin ids are the bundled checks (`ferry plugins --json`); an item whose checks
 * are not installed is shown as not applicable rather than ticked. */
static const guide_phase guides[] = {
	{ "assess",
	  N_("Find out what the project uses and how hard the move to Ascend will be, before anyone promises a date."),
	  { N_("Run the assess checks (r) on the code exactly as the client sent it."),
	    N_("Read the errors first: custom CUDA kernels and unsupported libraries decide the effort."),
	    N_("Record the GPU baseline: accuracy, throughput, hardware and precision."),
	    N_("Use the readiness score and effort estimate (c shows them) to quote the work.") },
	  { { TICK_RUN, NULL, N_("The project has been surveyed by the checks") },
	    { TICK_NONE_OF, "assess.cuda_extensions", N_("No unresolved custom CUDA extensions") },
	    { TICK_NONE_OF, "assess.gpu_libraries", N_("Third-party GPU libraries reviewed") },
	    { TICK_NONE_OF, "assess.unsupported_ops assess.data_parallel", N_("No unsupported operators or APIs left unexplained") },
	    { TICK_NO_FINDING, "assess.gpu_baseline", N_("GPU baseline recorded (the GPU run's loss log ingested)") },
	    { TICK_CLEAN, NULL, N_("Every error finding fixed or waived with a reason") },
	    { TICK_SIGNED, NULL, N_("Assessment signed off") } } },
	{ "design",
	  N_("Choose how to migrate and write down what \"done\" means, so everyone agrees on the target."),
	  { N_("Pick a strategy in the settings form (o): auto (transfer_to_npu at run time), tool (a rewrite of the code) or manual."),
	    /* xgettext:no-c-format */ N_("Set acceptance criteria in the same form: loss tolerance, accuracy drop, and a throughput target as % of the GPU baseline."),
	    N_("Plan resources: NPU model (target.soc), cards and nodes, and the model size in billions of parameters for the memory and parallel advice."),
	    N_("Keep the migration plan with the engagement; sign the phase off with S.") },
	  { { TICK_RUN, NULL, N_("Design checks have run") },
	    { TICK_CONFIG, "strategy", N_("A migration strategy is chosen (o, or ferry config strategy)") },
	    { TICK_CONFIG, "tolerance.loss", N_("A loss tolerance is set (ferry config tolerance.loss)") },
	    { TICK_CONFIG, "throughput.target_pct", /* xgettext:no-c-format */ N_("A throughput target is set as % of the GPU baseline") },
	    { TICK_CONFIG, "target.soc target.cards", N_("The NPU model and card count are planned") },
	    { TICK_CLEAN, NULL, N_("No open errors") },
	    { TICK_SIGNED, NULL, N_("Design signed off") } } },
	{ "environment",
	  N_("Make sure the target machine can run the code: matching versions, visible NPUs, CANN set up."),
	  { N_("Check Python, PyTorch, torch_npu, CANN and driver versions against the compatibility table."),
	    N_("On the NPU host, run the probe script (ferry probe-script) and ingest its JSON."),
	    N_("Source CANN's set_env.sh and set the required environment variables."),
	    N_("Run the environment checks (r) until no errors remain.") },
	  { { TICK_RUN, NULL, N_("Environment checks have run") },
	    { TICK_ARTIFACT, "env-probe", N_("The target host was probed (ferry ingest env-probe)") },
	    { TICK_NONE_OF, "environment.versions environment.project_pins environment.driver", N_("Versions are compatible") },
	    { TICK_NONE_OF, "environment.npu", N_("NPUs are visible and healthy") },
	    { TICK_NONE_OF, "environment.cann", N_("CANN is installed and set_env.sh sourced") },
	    { TICK_NONE_OF, "environment.hccl environment.memory", N_("HCCL settings and device memory fit the plan") },
	    { TICK_CLEAN, NULL, N_("No open errors") },
	    { TICK_SIGNED, NULL, N_("Environment signed off") } } },
	{ "adapt",
	  N_("Change the code so it runs on the NPU. Every accepted edit becomes a checkpoint you can revert."),
	  { N_("Run the adapt checks (r): device calls, torch.cuda APIs, nccl, amp, environment variables."),
	    N_("Apply the mechanical fixes: F previews one, P all of a check, A all in a file; y applies."),
	    N_("Handle what needs a person: custom kernels, unsupported operators, jit.script, channels_last."),
	    N_("Edit by hand with e when needed: ferry records the edit as a checkpoint."),
	    N_("Run the training script on the NPU host for a few steps.") },
	  { { TICK_RUN, NULL, N_("Adapt checks have run") },
	    { TICK_NONE_OF, "adapt.device_calls adapt.cuda_apis adapt.device_type_branches",
	      N_("No CUDA device calls or torch.cuda APIs left") },
	    { TICK_NONE_OF, "adapt.torch_npu_import", N_("torch_npu is imported where it is needed") },
	    { TICK_NONE_OF, "adapt.distributed_backend", N_("Distributed backend moved to hccl") },
	    { TICK_NONE_OF, "adapt.amp", N_("Mixed precision moved to the NPU") },
	    { TICK_NONE_OF, "adapt.env_vars", N_("CUDA environment variables renamed for Ascend") },
	    { TICK_NONE_OF, "adapt.unsupported", N_("Custom kernels and unsupported operators handled or waived") },
	    { TICK_CLEAN, NULL, N_("Every error fixed or waived") },
	    { TICK_SIGNED, NULL, N_("Adaptation signed off") } } },
	{ "tune",
	  N_("Reach the accuracy and speed targets agreed in the design phase."),
	  { N_("Run scripts/first_step.py on the NPU (the tune fixes write it) and ingest its result (ferry ingest first-step); then ingest the GPU and NPU loss logs and compare the curves (ferry compare loss)."),
	    N_("If they diverge, dump both runs with scripts/msprobe_config.json (the tune fixes write it) and compare the dumps to find the first diverging layer."),
	    N_("Once precision holds, profile a few steps with scripts/npu_profile.py and ingest the profile: top operators, AI CPU operators, host-bound steps."),
	    N_("If the NPU run fails, ingest its output (ferry ingest run-log) for the cause and the fix."),
	    N_("Run the tune checks (r) for precision and performance pitfalls.") },
	  { { TICK_RUN, NULL, N_("Tune checks have run") },
	    { TICK_PASSED, "tune.first_step", N_("The model's first step on the NPU is ingested and passed") },
	    { TICK_ARTIFACT, "loss-log:2", N_("GPU and NPU loss logs ingested for comparison") },
	    { TICK_ARTIFACT, "profile", N_("An NPU profile is ingested") },
	    { TICK_CLEAN, NULL, N_("No open errors") },
	    { TICK_SIGNED, NULL, N_("Tuning signed off") } } },
	{ "infer-convert",
	  N_("Turn the trained model into an offline model the Ascend runtime can load."),
	  { N_("Check the export script: ONNX opset and dynamic axes."),
	    N_("Ingest the ONNX model and compare its operators with what the converter supports."),
	    N_("Use the generated atc command line for your target SoC."),
	    N_("If atc fails, ingest its log: ferry explains the errors.") },
	  { { TICK_RUN, NULL, N_("Conversion checks have run") },
	    { TICK_ARTIFACT, "onnx", N_("The exported ONNX model is ingested") },
	    { TICK_CLEAN, NULL, N_("No open errors") },
	    { TICK_SIGNED, NULL, N_("Conversion signed off") } } },
	{ "infer-optimize",
	  N_("Make inference fast and correct on the NPU."),
	  { N_("Ingest inference benchmarks: latency, throughput and a batch-size sweep."),
	    N_("Try tuning (AOE) and quantization (AMCT, W8A8) where the targets need it."),
	    N_("Diagnose overflows and compare outputs with the reference."),
	    N_("Run the optimize checks (r) and produce the report (p).") },
	  { { TICK_RUN, NULL, N_("Optimization checks have run") },
	    { TICK_ARTIFACT, "bench", N_("Inference benchmarks ingested") },
	    { TICK_CLEAN, NULL, N_("No open errors") },
	    { TICK_SIGNED, NULL, N_("Inference signed off") } } },
};

/* The guide of the phase called name; a phase that phases.json adds without a guide here
 * gets one that says so, with sign-off as its only item. */
static const guide_phase *guide_of(const char *name)
{
	static const guide_phase none = { NULL, N_("This phase has no written guide; its checks and sign-off work as in any phase."),
		                              { NULL }, { { TICK_SIGNED, NULL, N_("Phase signed off") } } };
	for (size_t i = 0; name && i < sizeof guides / sizeof guides[0]; i++)
		if (strcmp(guides[i].phase, name) == 0)
			return &guides[i];
	return &none;
}

typedef struct gstate {
	int scroll, total, h;
	char **plugins;      /* installed check ids, loaded once; NULL until then */
	int plugins_loaded;
	tui_artifact *arts;  /* ingested artifacts, per reload */
	size_t narts;
	unsigned arts_gen;
	int arts_loaded;
} gstate;

enum { ITEM_OPEN, ITEM_DONE, ITEM_NA };

/* 1 when word (delimited by spaces) is in list. */
static int in_list(const char *list, const char *word)
{
	size_t n = strlen(word);
	for (const char *p = list; (p = strstr(p, word)); p += n)
		if ((p == list || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
			return 1;
	return 0;
}

static int plugin_installed(const gstate *s, const char *id)
{
	for (size_t i = 0; s->plugins && s->plugins[i]; i++)
		if (strcmp(s->plugins[i], id) == 0)
			return 1;
	return 0;
}

/* 1 when some installed check belongs to phase (its id starts with "phase."). */
static int phase_has_checks(const gstate *s, const char *phase)
{
	size_t n = strlen(phase);
	for (size_t i = 0; s->plugins && s->plugins[i]; i++)
		if (strncmp(s->plugins[i], phase, n) == 0 && s->plugins[i][n] == '.')
			return 1;
	return 0;
}

static int config_set(const tui *t, const char *key)
{
	if (strcmp(key, "target.soc") == 0 && t->m.target && *t->m.target)
		return 1;
	for (size_t i = 0; t->m.config && t->m.config[i]; i++)
		if (strcmp(t->m.config[i], key) == 0)
			return 1;
	return 0;
}

static void load(gstate *s, tui *t)
{
	if (!s->plugins_loaded) {
		s->plugins_loaded = 1;
		if (model_plugin_ids(&s->plugins, &t->m) != 0)
			s->plugins = NULL; /* items are then judged by the findings alone */
	}
	if (!s->arts_loaded || s->arts_gen != t->reload_gen) {
		model_artifacts_free(s->arts, s->narts);
		s->arts = NULL;
		s->narts = 0;
		if (model_artifacts(&s->arts, &s->narts, &t->m) != 0) {
			s->arts = NULL;
			s->narts = 0;
		}
		s->arts_loaded = 1;
		s->arts_gen = t->reload_gen;
	}
}

static int item_state(const guide_item *it, const gstate *s, const tui *t)
{
	const tui_phase *p = &t->m.phases[t->m.phase];
	switch (it->rule) {
	case TICK_RUN:
		if (s->plugins && !phase_has_checks(s, p->name))
			return ITEM_NA;
		return p->runs > 0 ? ITEM_DONE : ITEM_OPEN;
	case TICK_CLEAN: return p->runs > 0 && p->errors == 0 ? ITEM_DONE : ITEM_OPEN;
	case TICK_SIGNED: return p->signed_by ? ITEM_DONE : ITEM_OPEN;
	case TICK_NONE_OF:
	case TICK_NO_FINDING:
	case TICK_PASSED: {
		if (s->plugins) {
			int any = 0;
			char ids[256];
			snprintf(ids, sizeof ids, "%s", it->match);
			char *save = NULL;
			for (char *w = strtok_r(ids, " ", &save); w; w = strtok_r(NULL, " ", &save))
				any |= plugin_installed(s, w);
			if (!any)
				return ITEM_NA;
		}
		if (p->runs == 0)
			return ITEM_OPEN;
		int judged = 0;
		for (size_t i = 0; i < t->m.nf; i++) {
			const finding *f = &t->m.f[i];
			judged |= f->status == STATUS_OPEN && in_list(it->match, f->plugin);
			/* an info finding ("a supported combination") is not an open problem, unless
			 * the item asks that nothing at all be left ("no GPU loss log yet" is info) */
			if (f->status == STATUS_OPEN && (f->severity >= SEVERITY_WARNING || it->rule == TICK_NO_FINDING) &&
			    in_list(it->match, f->plugin))
				return ITEM_OPEN;
		}
		return it->rule != TICK_PASSED || judged ? ITEM_DONE : ITEM_OPEN;
	}
	case TICK_CONFIG: {
		char keys[256];
		snprintf(keys, sizeof keys, "%s", it->match);
		char *save = NULL;
		for (char *w = strtok_r(keys, " ", &save); w; w = strtok_r(NULL, " ", &save))
			if (!config_set(t, w))
				return ITEM_OPEN;
		return ITEM_DONE;
	}
	case TICK_ARTIFACT: {
		char kind[64];
		snprintf(kind, sizeof kind, "%s", it->match);
		char *colon = strchr(kind, ':');
		size_t want = 1, have = 0;
		if (colon) {
			*colon = '\0';
			want = (size_t)strtoul(colon + 1, NULL, 10);
		}
		for (size_t i = 0; i < s->narts; i++)
			have += strcmp(s->arts[i].kind, kind) == 0;
		return have >= want ? ITEM_DONE : ITEM_OPEN;
	}
	default: return ITEM_OPEN;
	}
}

size_t guide_unticked(tui *t, const char **out, size_t max)
{
	gstate *s = t->st[PANE_GUIDE];
	const guide_phase *g = guide_of(phase_name((size_t)t->m.phase));
	size_t n = 0;
	load(s, t);
	for (int i = 0; i < 10 && g->items[i].text && n < max; i++)
		if (g->items[i].rule != TICK_SIGNED && item_state(&g->items[i], s, t) == ITEM_OPEN)
			out[n++] = g->items[i].text;
	return n;
}

static void *guide_open(tui *t)
{
	(void)t;
	return xcalloc(1, sizeof(gstate));
}

static void guide_close(void *st)
{
	gstate *s = st;
	if (!s)
		return;
	model_strings_free(s->plugins);
	model_artifacts_free(s->arts, s->narts);
	free(s);
}

static void guide_draw(void *st, tui *t, ui_win *w)
{
	gstate *s = st;
	const guide_phase *g = guide_of(phase_name((size_t)t->m.phase));
	load(s, t);
	ui_erase(w);
	s->h = ui_win_height(w) - 1;
	char head[128];
	snprintf(head, sizeof head, "%s %d · %s", _("Guide to phase"), t->m.phase + 1, phase_title(t->m.phases[t->m.phase].name));
	pane_title(w, 0, head);
	/* virtual rows, painted from s->scroll */
	int row = 0, y0 = 1;
#define ROWS(x, attr, text)                                                                                 \
	do {                                                                                                    \
		int sk = s->scroll - row > 0 ? s->scroll - row : 0;                                                 \
		int at = row - s->scroll > 0 ? row - s->scroll : 0;                                                 \
		row += pane_wrap(w, y0 + at, x, attr, text, sk, at < s->h ? s->h - at : 0);                         \
	} while (0)
	ROWS(2, UI_NORMAL, _(g->purpose));
	row++;
	ROWS(1, UI_TITLE, _("Steps"));
	for (int i = 0; i < 5 && g->steps[i]; i++) {
		char b[600];
		snprintf(b, sizeof b, "%d. %s", i + 1, _(g->steps[i]));
		ROWS(2, UI_NORMAL, b);
	}
	row++;
	ROWS(1, UI_TITLE, _("Checklist (ticked from check results)"));
	for (int i = 0; i < 10 && g->items[i].text; i++) {
		int st_ = item_state(&g->items[i], s, t);
		char b[600];
		if (st_ == ITEM_NA)
			snprintf(b, sizeof b, "[-] %s  %s", _(g->items[i].text), _("(no check for this yet)"));
		else
			snprintf(b, sizeof b, "%s %s", st_ == ITEM_DONE ? "[✓]" : "[ ]", _(g->items[i].text));
		ROWS(2, st_ == ITEM_DONE ? UI_OK : st_ == ITEM_NA ? UI_DIM : UI_NORMAL, b);
	}
	row++;
	const tui_phase *p = &t->m.phases[t->m.phase];
	char next[300];
	if (p->signed_by)
		snprintf(next, sizeof next, "%s %s", _("Signed off by"), p->signed_by);
	else if (p->runs == 0)
		snprintf(next, sizeof next, "%s", _("Next: press r to run this phase's checks."));
	else if (p->errors > 0)
		snprintf(next, sizeof next, P_("Next: fix or waive the %d open error (f shows it), then sign off with S.",
		            "Next: fix or waive the %d open errors (f shows them), then sign off with S.", (unsigned long)p->errors),
		         p->errors);
	else
		snprintf(next, sizeof next, "%s", _("Next: sign the phase off with S."));
	ROWS(1, UI_INFO, next);
#undef ROWS
	s->total = row;
}

static int guide_handle(void *st, tui *t, int cmd, const char *arg)
{
	gstate *s = st;
	(void)t, (void)arg;
	int max = s->total - s->h > 0 ? s->total - s->h : 0;
	int sc = s->scroll;
	if (cmd == CMD_BOTTOM)
		sc = max;
	else if (!pane_move(&sc, max + 1, s->h, cmd))
		return 0;
	s->scroll = sc;
	return PANE_HANDLED | PANE_REDRAW;
}

const pane_ops pane_guide_ops = { "guide", guide_open, guide_close, guide_draw, guide_handle };
