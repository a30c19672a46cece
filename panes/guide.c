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
	TICK_RUN,     /* the phase's checks have run */
	TICK_CLEAN,   /* run, and no open error findings */
	TICK_NONE_OF, /* run, and no open finding whose plugin or category contains match */
	TICK_SIGNED,  /* the phase is signed off */
};

typedef struct guide_item {
	int rule;
	const char *match; /* for TICK_NONE_OF */
	const char *en, *zh;
} guide_item;

typedef struct guide_phase {
	const char *purpose_en, *purpose_zh;
	const char *steps_en[5], *steps_zh[5];
	guide_item items[6];
} guide_phase;

static const guide_phase guides[7] = {
	{ /* assess */
	  "Find out what the project uses and how hard the move to Ascend will be, before anyone promises a date.",
	  "在承诺工期之前，弄清项目用到了什么，以及迁移到昇腾的难度。",
	  { "Run the assess checks (r) on the code exactly as the client sent it.",
	    "Read the errors first: custom CUDA kernels and unsupported libraries decide the effort.",
	    "Record the GPU baseline: accuracy, throughput, hardware and precision.",
	    "Use the readiness score and effort estimate to quote the work." },
	  { "对客户交付的原始代码运行评估检查（r）。",
	    "先看错误：自定义 CUDA 算子和不支持的库决定了工作量。",
	    "记录 GPU 基线：精度、吞吐、硬件和数据精度。",
	    "根据就绪度评分和工作量估算进行报价。" },
	  { { TICK_RUN, NULL, "The project has been surveyed by the checks", "已通过检查完成项目普查" },
	    { TICK_NONE_OF, "extension", "No unresolved custom CUDA extensions", "没有未处理的自定义 CUDA 扩展" },
	    { TICK_NONE_OF, "librar", "Third-party GPU libraries reviewed", "已审查第三方 GPU 库" },
	    { TICK_NONE_OF, "operators", "No unsupported operators left unexplained", "没有未说明的不支持算子" },
	    { TICK_CLEAN, NULL, "Every error finding fixed or waived with a reason", "所有错误均已修复或附理由豁免" },
	    { TICK_SIGNED, NULL, "Assessment signed off", "评估已签署确认" } } },
	{ /* design */
	  "Choose how to migrate and write down what \"done\" means, so everyone agrees on the target.",
	  "确定迁移方式，并写明“完成”的标准，让各方对目标达成一致。",
	  { "Pick a strategy: automatic (transfer_to_npu), tool-based rewrite, or manual.",
	    "Set acceptance criteria: loss tolerance and a throughput target as % of the GPU baseline.",
	    "Plan resources: NPU model and card count; for large models, the parallel strategy.",
	    "Run the design checks (r) and keep the migration plan with the engagement." },
	  { "选择策略：自动迁移（transfer_to_npu）、工具改写或手工迁移。",
	    "设定验收标准：loss 容差，以及相对 GPU 基线的吞吐目标百分比。",
	    "规划资源：NPU 型号和卡数；大模型还需确定并行策略。",
	    "运行设计检查（r），并把迁移方案保存在项目记录中。" },
	  { { TICK_RUN, NULL, "Design checks have run", "已运行设计检查" },
	    { TICK_NONE_OF, "strategy", "A migration strategy is chosen", "已选定迁移策略" },
	    { TICK_NONE_OF, "criteria", "Acceptance criteria are set", "已设定验收标准" },
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
	    { TICK_NONE_OF, "version", "Versions are compatible", "版本相互兼容" },
	    { TICK_NONE_OF, "environment.npu", "NPUs are visible", "NPU 可见" },
	    { TICK_NONE_OF, "environment.cann", "CANN is installed and set up", "CANN 已安装并配置" },
	    { TICK_CLEAN, NULL, "No open errors", "没有未处理的错误" },
	    { TICK_SIGNED, NULL, "Environment signed off", "环境已签署确认" } } },
	{ /* adapt */
	  "Change the code so it runs on the NPU. Every accepted edit becomes a checkpoint you can revert.",
	  "修改代码使其能在 NPU 上运行。每个被接受的修改都是一个可回退的检查点。",
	  { "Run the adapt checks (r): device calls, torch.cuda APIs, nccl, amp, environment variables.",
	    "Apply the mechanical fixes; review each proposed diff in the detail pane first.",
	    "Handle what needs a person: custom kernels, unsupported operators, jit.script, channels_last.",
	    "Edit by hand with e when needed: ferry records the edit as a checkpoint.",
	    "Run the training script on the NPU host for a few steps." },
	  { "运行适配检查（r）：设备调用、torch.cuda 接口、nccl、amp、环境变量。",
	    "应用机械性修复；先在详情面板中审阅每个拟议的差异。",
	    "人工处理：自定义算子、不支持的算子、jit.script、channels_last。",
	    "需要时按 e 手工编辑：ferry 会把修改记录为检查点。",
	    "在 NPU 主机上试运行训练脚本若干步。" },
	  { { TICK_RUN, NULL, "Adapt checks have run", "已运行适配检查" },
	    { TICK_NONE_OF, "device", "No CUDA device calls left", "不再有 CUDA 设备调用" },
	    { TICK_NONE_OF, "distributed", "Distributed backend moved to hccl", "分布式后端已改为 hccl" },
	    { TICK_NONE_OF, "amp", "Mixed precision moved to the NPU", "混合精度已迁移到 NPU" },
	    { TICK_CLEAN, NULL, "Every error fixed or waived", "所有错误已修复或豁免" },
	    { TICK_SIGNED, NULL, "Adaptation signed off", "适配已签署确认" } } },
	{ /* tune */
	  "Reach the accuracy and speed targets agreed in the design phase.",
	  "达到设计阶段约定的精度和性能目标。",
	  { "Ingest the GPU and NPU loss logs and compare the curves (ferry compare loss).",
	    "If they diverge, compare layer dumps to find the first diverging layer.",
	    "Ingest a profile: look at top operators, AI CPU operators and host-bound steps.",
	    "Run the tune checks (r) for precision and performance pitfalls." },
	  { "导入 GPU 和 NPU 的 loss 日志并比较曲线（ferry compare loss）。",
	    "若出现偏差，比较逐层 dump，找出第一个发散的层。",
	    "导入性能数据：查看耗时最多的算子、AI CPU 算子和 host 瓶颈步骤。",
	    "运行调优检查（r），排查精度和性能隐患。" },
	  { { TICK_RUN, NULL, "Tune checks have run", "已运行调优检查" },
	    { TICK_NONE_OF, "precision", "No precision risks open", "没有未处理的精度风险" },
	    { TICK_NONE_OF, "sync", "No host-device syncs in the loop", "训练循环中没有 host-device 同步" },
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
	    { TICK_NONE_OF, "onnx", "Export settings are sound", "导出设置合理" },
	    { TICK_NONE_OF, "operator", "Every operator is supported", "所有算子均受支持" },
	    { TICK_CLEAN, NULL, "No open errors", "没有未处理的错误" },
	    { TICK_SIGNED, NULL, "Conversion signed off", "转换已签署确认" } } },
	{ /* infer-optimize */
	  "Make inference fast and correct on the NPU.",
	  "让推理在 NPU 上又快又准。",
	  { "Ingest inference benchmarks: latency, throughput and a batch-size sweep.",
	    "Try tuning (AOE) and quantization (AMCT, W8A8) where the targets need it.",
	    "Diagnose overflows and compare outputs with the reference.",
	    "Run the optimize checks (r) and produce the report." },
	  { "导入推理基准：时延、吞吐和批大小扫描。",
	    "根据目标需要尝试调优（AOE）和量化（AMCT、W8A8）。",
	    "诊断溢出，并与参考输出比较精度。",
	    "运行优化检查（r）并生成报告。" },
	  { { TICK_RUN, NULL, "Optimization checks have run", "已运行优化检查" },
	    { TICK_NONE_OF, "overflow", "No overflow findings open", "没有未处理的溢出问题" },
	    { TICK_CLEAN, NULL, "No open errors", "没有未处理的错误" },
	    { TICK_SIGNED, NULL, "Inference signed off", "推理已签署确认" } } },
};

typedef struct gstate {
	int scroll, total, h;
} gstate;

static int ticked(const guide_item *it, const tui *t)
{
	const tui_phase *p = &t->m.phases[t->m.phase];
	switch (it->rule) {
	case TICK_RUN: return p->runs > 0;
	case TICK_CLEAN: return p->runs > 0 && p->errors == 0;
	case TICK_SIGNED: return p->signed_by != NULL;
	case TICK_NONE_OF:
		if (p->runs == 0)
			return 0;
		for (size_t i = 0; i < t->m.nf; i++) {
			const tui_finding *f = &t->m.f[i];
			if (strcmp(f->status, "open") == 0 && (strstr(f->plugin, it->match) || strstr(f->category, it->match)))
				return 0;
		}
		return 1;
	default: return 0;
	}
}

static void *guide_open(tui *t)
{
	(void)t;
	return xcalloc(1, sizeof(gstate));
}

static void guide_close(void *st)
{
	free(st);
}

static void guide_draw(void *st, tui *t, ui_win *w)
{
	gstate *s = st;
	const guide_phase *g = &guides[t->m.phase];
	int zh = i18n_zh();
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
	for (int i = 0; i < 6 && g->items[i].en; i++) {
		int ok = ticked(&g->items[i], t);
		char b[600];
		snprintf(b, sizeof b, "%s %s", ok ? "[✓]" : "[ ]", zh ? g->items[i].zh : g->items[i].en);
		ROWS(2, ok ? UI_OK : UI_NORMAL, b);
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
