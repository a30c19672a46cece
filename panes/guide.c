/* guide — each phase's purpose, steps and checklist in plain words for a
 * first-time migrator, in English and Simplified Chinese. Checklist items are
 * ticked from the recorded check results of the phase (never by hand here). */
#include "i18n.h"
#include "pane.h"
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum tick_rule {
	TICK_RUN,      /* the phase's checks have run */
	TICK_CLEAN,    /* run, and no open error findings */
	TICK_NONE_OF,  /* run, and no open warning or error of the plugins named in match */
	TICK_SIGNED,   /* the phase is signed off */
	TICK_CONFIG,   /* every engagement setting named in match is set */
	TICK_ARTIFACT, /* an artifact of the kind in match is ingested ("kind:N": N of them) */
};

typedef struct guide_item {
	int rule;
	const char *match; /* TICK_NONE_OF: plugin ids; TICK_CONFIG: keys; TICK_ARTIFACT: a kind */
	const char *en, *zh;
} guide_item;

typedef struct guide_phase {
	const char *purpose_en, *purpose_zh;
	const char *steps_en[5], *steps_zh[5];
	guide_item items[10];
} guide_phase;

/* Plugin ids are the bundled checks (`ferry plugins --json`); an item whose checks
 * are not installed is shown as not applicable rather than ticked. */
static const guide_phase guides[7] = {
	{ /* assess */
	  "Find out what the project uses and how hard the move to Ascend will be, before anyone promises a date.",
	  "在承诺工期之前，弄清项目用到了什么，以及迁移到昇腾的难度。",
	  { "Run the assess checks (r) on the code exactly as the client sent it.",
	    "Read the errors first: custom CUDA kernels and unsupported libraries decide the effort.",
	    "Record the GPU baseline: accuracy, throughput, hardware and precision.",
	    "Use the readiness score and effort estimate (c shows them) to quote the work." },
	  { "对客户交付的原始代码运行评估检查（r）。",
	    "先看错误：自定义 CUDA 算子和不支持的库决定了工作量。",
	    "记录 GPU 基线：精度、吞吐、硬件和数据精度。",
	    "根据就绪度评分和工作量估算（按 c 查看）进行报价。" },
	  { { TICK_RUN, NULL, "The project has been surveyed by the checks", "已通过检查完成项目普查" },
	    { TICK_NONE_OF, "assess.cuda_extensions", "No unresolved custom CUDA extensions", "没有未处理的自定义 CUDA 扩展" },
	    { TICK_NONE_OF, "assess.gpu_libraries", "Third-party GPU libraries reviewed", "已审查第三方 GPU 库" },
	    { TICK_NONE_OF, "assess.unsupported_ops assess.data_parallel", "No unsupported operators or APIs left unexplained",
	      "没有未说明的不支持算子或接口" },
	    { TICK_NONE_OF, "assess.gpu_baseline", "GPU baseline recorded (loss log and benchmark ingested)",
	      "已记录 GPU 基线（已导入 loss 日志和基准数据）" },
	    { TICK_CLEAN, NULL, "Every error finding fixed or waived with a reason", "所有错误均已修复或附理由豁免" },
	    { TICK_SIGNED, NULL, "Assessment signed off", "评估已签署确认" } } },
	{ /* design */
	  "Choose how to migrate and write down what \"done\" means, so everyone agrees on the target.",
	  "确定迁移方式，并写明“完成”的标准，让各方对目标达成一致。",
	  { "Pick a strategy: automatic (transfer_to_npu), tool-based rewrite, or manual (ferry config strategy).",
	    "Set acceptance criteria: loss tolerance and a throughput target as % of the GPU baseline.",
	    "Plan resources: NPU model and card count; for large models, the parallel strategy.",
	    "Keep the migration plan with the engagement; sign the phase off with S." },
	  { "选择策略：自动迁移（transfer_to_npu）、工具改写或手工迁移（ferry config strategy）。",
	    "设定验收标准：loss 容差，以及相对 GPU 基线的吞吐目标百分比。",
	    "规划资源：NPU 型号和卡数；大模型还需确定并行策略。",
	    "把迁移方案保存在项目记录中；按 S 签署本阶段。" },
	  { { TICK_RUN, NULL, "Design checks have run", "已运行设计检查" },
	    { TICK_CONFIG, "strategy", "A migration strategy is chosen (ferry config strategy)", "已选定迁移策略（ferry config strategy）" },
	    { TICK_CONFIG, "tolerance.loss", "A loss tolerance is set (ferry config tolerance.loss)",
	      "已设定 loss 容差（ferry config tolerance.loss）" },
	    { TICK_CONFIG, "throughput.target_pct", "A throughput target is set as % of the GPU baseline",
	      "已设定相对 GPU 基线的吞吐目标" },
	    { TICK_CONFIG, "target.soc target.cards", "The NPU model and card count are planned", "已规划 NPU 型号和卡数" },
	    { TICK_CLEAN, NULL, "No open errors", "没有未处理的错误" },
	    { TICK_SIGNED, NULL, "Design signed off", "设计已签署确认" } } },
	{ /* environment */
	  "Make sure the target machine can run the code: matching versions, visible NPUs, CANN set up.",
	  "确保目标机器能运行代码：版本匹配、NPU 可见、CANN 已配置。",
	  { "Check Python, PyTorch, torch_npu, CANN and driver versions against the compatibility table.",
	    "On the NPU host, run the probe script (ferry probe-script) and ingest its JSON.",
	    "Source CANN's set_env.sh and set the required environment variables.",
	    "Run the environment checks (r) until no errors remain." },
	  { "对照兼容性表检查 Python、PyTorch、torch_npu、CANN 和驱动版本。",
	    "在 NPU 主机上运行探测脚本（ferry probe-script）并导入其 JSON 结果。",
	    "执行 CANN 的 set_env.sh，并设置所需的环境变量。",
	    "运行环境检查（r），直到没有错误。" },
	  { { TICK_RUN, NULL, "Environment checks have run", "已运行环境检查" },
	    { TICK_ARTIFACT, "env-probe", "The target host was probed (ferry ingest env-probe)", "已探测目标主机（ferry ingest env-probe）" },
	    { TICK_NONE_OF, "environment.versions environment.project_pins environment.driver", "Versions are compatible",
	      "版本相互兼容" },
	    { TICK_NONE_OF, "environment.npu", "NPUs are visible and healthy", "NPU 可见且状态正常" },
	    { TICK_NONE_OF, "environment.cann", "CANN is installed and set_env.sh sourced", "CANN 已安装并已执行 set_env.sh" },
	    { TICK_NONE_OF, "environment.hccl environment.memory", "HCCL settings and device memory fit the plan",
	      "HCCL 设置和设备内存满足规划" },
	    { TICK_CLEAN, NULL, "No open errors", "没有未处理的错误" },
	    { TICK_SIGNED, NULL, "Environment signed off", "环境已签署确认" } } },
	{ /* adapt */
	  "Change the code so it runs on the NPU. Every accepted edit becomes a checkpoint you can revert.",
	  "修改代码使其能在 NPU 上运行。每个被接受的修改都是一个可回退的检查点。",
	  { "Run the adapt checks (r): device calls, torch.cuda APIs, nccl, amp, environment variables.",
	    "Apply the mechanical fixes: F previews one, P all of a check, A all in a file; y applies.",
	    "Handle what needs a person: custom kernels, unsupported operators, jit.script, channels_last.",
	    "Edit by hand with e when needed: ferry records the edit as a checkpoint.",
	    "Run the training script on the NPU host for a few steps." },
	  { "运行适配检查（r）：设备调用、torch.cuda 接口、nccl、amp、环境变量。",
	    "应用机械性修复：F 预览单个，P 预览某项检查的全部，A 预览某文件的全部；y 应用。",
	    "人工处理：自定义算子、不支持的算子、jit.script、channels_last。",
	    "需要时按 e 手工编辑：ferry 会把修改记录为检查点。",
	    "在 NPU 主机上试运行训练脚本若干步。" },
	  { { TICK_RUN, NULL, "Adapt checks have run", "已运行适配检查" },
	    { TICK_NONE_OF, "adapt.device_calls adapt.cuda_apis adapt.device_type_branches",
	      "No CUDA device calls or torch.cuda APIs left", "不再有 CUDA 设备调用或 torch.cuda 接口" },
	    { TICK_NONE_OF, "adapt.torch_npu_import", "torch_npu is imported where it is needed", "已在需要处导入 torch_npu" },
	    { TICK_NONE_OF, "adapt.distributed_backend", "Distributed backend moved to hccl", "分布式后端已改为 hccl" },
	    { TICK_NONE_OF, "adapt.amp", "Mixed precision moved to the NPU", "混合精度已迁移到 NPU" },
	    { TICK_NONE_OF, "adapt.env_vars", "CUDA environment variables renamed for Ascend", "CUDA 环境变量已改为昇腾对应变量" },
	    { TICK_NONE_OF, "adapt.unsupported", "Custom kernels and unsupported operators handled or waived",
	      "自定义算子和不支持的算子已处理或豁免" },
	    { TICK_CLEAN, NULL, "Every error fixed or waived", "所有错误已修复或豁免" },
	    { TICK_SIGNED, NULL, "Adaptation signed off", "适配已签署确认" } } },
	{ /* tune */
	  "Reach the accuracy and speed targets agreed in the design phase.",
	  "达到设计阶段约定的精度和性能目标。",
	  { "Ingest the GPU and NPU loss logs and compare the curves (ferry compare loss).",
	    "If they diverge, dump both runs with scripts/msprobe_config.json (the tune fixes write it) and compare the dumps to find the first diverging layer.",
	    "Once precision holds, profile a few steps with scripts/npu_profile.py and ingest the profile: top operators, AI CPU operators, host-bound steps.",
	    "If the NPU run fails, ingest its output (ferry ingest run-log) for the cause and the fix.",
	    "Run the tune checks (r) for precision and performance pitfalls." },
	  { "导入 GPU 和 NPU 的 loss 日志并比较曲线（ferry compare loss）。",
	    "若出现偏差，用 scripts/msprobe_config.json（调优修复会生成）分别 dump 两次运行，比较 dump，找出第一个发散的层。",
	    "精度达标后，用 scripts/npu_profile.py 采集几个 step 的性能数据并导入：耗时最多的算子、AI CPU 算子和 host 瓶颈步骤。",
	    "若 NPU 运行失败，导入其输出（ferry ingest run-log），查看原因和修复方法。",
	    "运行调优检查（r），排查精度和性能隐患。" },
	  { { TICK_RUN, NULL, "Tune checks have run", "已运行调优检查" },
	    { TICK_ARTIFACT, "loss-log:2", "GPU and NPU loss logs ingested for comparison", "已导入 GPU 和 NPU 的 loss 日志用于比较" },
	    { TICK_ARTIFACT, "profile", "An NPU profile is ingested", "已导入 NPU 性能数据" },
	    { TICK_CLEAN, NULL, "No open errors", "没有未处理的错误" },
	    { TICK_SIGNED, NULL, "Tuning signed off", "调优已签署确认" } } },
	{ /* infer-convert */
	  "Turn the trained model into an offline model the Ascend runtime can load.",
	  "把训练好的模型转换为昇腾运行时可加载的离线模型。",
	  { "Check the export script: ONNX opset and dynamic axes.",
	    "Ingest the ONNX model and compare its operators with what the converter supports.",
	    "Use the generated atc command line for your target SoC.",
	    "If atc fails, ingest its log: ferry explains the errors." },
	  { "检查导出脚本：ONNX opset 和动态维度。",
	    "导入 ONNX 模型，对照转换器支持的算子清单。",
	    "使用为目标 SoC 生成的 atc 命令行。",
	    "若 atc 失败，导入其日志，ferry 会解释错误。" },
	  { { TICK_RUN, NULL, "Conversion checks have run", "已运行转换检查" },
	    { TICK_ARTIFACT, "onnx", "The exported ONNX model is ingested", "已导入导出的 ONNX 模型" },
	    { TICK_CLEAN, NULL, "No open errors", "没有未处理的错误" },
	    { TICK_SIGNED, NULL, "Conversion signed off", "转换已签署确认" } } },
	{ /* infer-optimize */
	  "Make inference fast and correct on the NPU.",
	  "让推理在 NPU 上又快又准。",
	  { "Ingest inference benchmarks: latency, throughput and a batch-size sweep.",
	    "Try tuning (AOE) and quantization (AMCT, W8A8) where the targets need it.",
	    "Diagnose overflows and compare outputs with the reference.",
	    "Run the optimize checks (r) and produce the report (p)." },
	  { "导入推理基准：时延、吞吐和批大小扫描。",
	    "根据目标需要尝试调优（AOE）和量化（AMCT、W8A8）。",
	    "诊断溢出，并与参考输出比较精度。",
	    "运行优化检查（r）并生成报告（p）。" },
	  { { TICK_RUN, NULL, "Optimization checks have run", "已运行优化检查" },
	    { TICK_ARTIFACT, "bench", "Inference benchmarks ingested", "已导入推理基准数据" },
	    { TICK_CLEAN, NULL, "No open errors", "没有未处理的错误" },
	    { TICK_SIGNED, NULL, "Inference signed off", "推理已签署确认" } } },
};

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
	case TICK_NONE_OF: {
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
		for (size_t i = 0; i < t->m.nf; i++) {
			const tui_finding *f = &t->m.f[i];
			/* an info finding ("a supported combination") is not an open problem */
			if (strcmp(f->status, "open") == 0 && f->sev_rank >= 2 && in_list(it->match, f->plugin))
				return ITEM_OPEN;
		}
		return ITEM_DONE;
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
	const guide_phase *g = &guides[t->m.phase];
	int zh = i18n_zh();
	load(s, t);
	ui_erase(w);
	s->h = ui_win_height(w) - 1;
	char head[128];
	snprintf(head, sizeof head, "%s %d · %s", T("Guide to phase"), t->m.phase + 1, t->m.phases[t->m.phase].name);
	pane_title(w, 0, head);
	/* virtual rows, painted from s->scroll */
	int row = 0, y0 = 1;
#define ROWS(x, attr, text)                                                                                 \
	do {                                                                                                    \
		int sk = s->scroll - row > 0 ? s->scroll - row : 0;                                                 \
		int at = row - s->scroll > 0 ? row - s->scroll : 0;                                                 \
		row += pane_wrap(w, y0 + at, x, attr, text, sk, at < s->h ? s->h - at : 0);                         \
	} while (0)
	ROWS(2, UI_NORMAL, zh ? g->purpose_zh : g->purpose_en);
	row++;
	ROWS(1, UI_TITLE, T("Steps"));
	for (int i = 0; i < 5 && g->steps_en[i]; i++) {
		char b[600];
		snprintf(b, sizeof b, "%d. %s", i + 1, zh ? g->steps_zh[i] : g->steps_en[i]);
		ROWS(2, UI_NORMAL, b);
	}
	row++;
	ROWS(1, UI_TITLE, T("Checklist (ticked from check results)"));
	for (int i = 0; i < 10 && g->items[i].en; i++) {
		int st_ = item_state(&g->items[i], s, t);
		char b[600];
		if (st_ == ITEM_NA)
			snprintf(b, sizeof b, "[-] %s  %s", zh ? g->items[i].zh : g->items[i].en, T("(no check for this yet)"));
		else
			snprintf(b, sizeof b, "%s %s", st_ == ITEM_DONE ? "[✓]" : "[ ]", zh ? g->items[i].zh : g->items[i].en);
		ROWS(2, st_ == ITEM_DONE ? UI_OK : st_ == ITEM_NA ? UI_DIM : UI_NORMAL, b);
	}
	row++;
	const tui_phase *p = &t->m.phases[t->m.phase];
	char next[300];
	if (p->signed_by)
		snprintf(next, sizeof next, "%s %s", T("Signed off by"), p->signed_by);
	else if (p->runs == 0)
		snprintf(next, sizeof next, "%s", T("Next: press r to run this phase's checks."));
	else if (p->errors > 0)
		snprintf(next, sizeof next, T("Next: fix or waive the %d open errors (f shows them), then sign off with S."),
		         p->errors);
	else
		snprintf(next, sizeof next, "%s", T("Next: sign the phase off with S."));
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
