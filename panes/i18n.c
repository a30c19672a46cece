/* i18n — see i18n.h. The translation table is keyed by the English text; the words and
 * sentences the app modules produce (readiness classes, strategy reasons, statuses) come
 * from the app's table in i18n_report.c, shared with the reports. */
#include "i18n.h"
#include "i18n_report.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static int lang_zh;

static const struct tr {
	const char *en, *zh;
} table[] = {
	{ "%.1f person-days", "%.1f 人天" },
	{ "%s (recommended)", "%s（推荐）" },
	{ "%s (recommended); chosen: %s", "%s（推荐）；已选：%s" },
	{ "Effort", "工作量" },
	{ "No assessment yet: the assess checks have not run, so there is no readiness score or effort estimate. Press r on phase 1 (assess) to run them.", "尚未评估：评估检查还没有运行，因此没有就绪度评分和工作量估算。请在阶段 1（assess）按 r 运行。" },
	{ "Readiness of the project (assess)", "项目就绪度（评估）" },
	{ "Score", "评分" },
	{ "Strategy", "策略" },
	{ "Top risks", "主要风险" },
	{ "automatic migration (transfer_to_npu)", "自动迁移（transfer_to_npu）" },
	{ "explicit rewrite with ferry fix", "用 ferry fix 显式改写" },
	{ "manual porting first", "先人工移植" },
	{ "(no file would change)", "（不会改动任何文件）" },
	{ "Apply %zu fix%s to %zu file%s as %zu checkpoint%s?  y applies, n discards.", "将 %zu 处修复%s应用到 %zu 个文件%s，生成 %zu 个检查点%s？  y 应用，n 放弃。" },
	{ "Fix preview", "修复预览" },
	{ "No fix is being previewed.", "当前没有预览中的修复。" },
	{ "Nothing can be applied: every selected fix was refused. n or Esc closes.", "无法应用：所选修复均被拒绝。按 n 或 Esc 关闭。" },
	{ "Refused (%zu), nothing is written for these:", "已拒绝（%zu 项），这些不会写入：" },
	{ "(no check for this yet)", "（尚无此项检查）" },
	{ "In the fix preview", "在修复预览中" },
	{ "%d/100 · %.1f days", "%d/100 · %.1f 人天" },
	{ "Readiness", "就绪度" },
	{ "not assessed yet", "尚未评估" },
	{ "%s: not a finding number", "%s：不是问题编号" },
	{ "%zu findings", "%zu 个问题" },
	{ "Answer the fix preview first: y applies the fixes, n discards them.", "请先回应修复预览：y 应用修复，n 放弃。" },
	{ "Finding #%lld has no automatic fix: change the code with e, or waive it with w.", "问题 #%lld 没有自动修复：按 e 修改代码，或按 w 豁免。" },
	{ "Finding #%lld is %s; only open findings can be fixed.", "问题 #%lld 的状态是 %s，只能修复未处理的问题。" },
	{ "Fix preview closed; nothing was changed.", "已关闭修复预览，未做任何改动。" },
	{ "Fixed %zu finding%s in %zu checkpoint%s; the head is now checkpoint #%lld (%.7s).", "已修复 %zu 个问题%s，生成 %zu 个检查点%s；当前检查点为 #%lld（%.7s）。" },
	{ "Nothing was applied: every selected fix was refused.", "未应用任何修复：所选修复均被拒绝。" },
	{ "The project changed since the preview (a new checkpoint was recorded); nothing was applied. Preview the fix again.", "预览之后项目已有改动（记录了新的检查点），未应用任何修复。请重新预览修复。" },
	{ "apply", "应用" },
	{ "applying the fixes…", "正在应用修复…" },
	{ "discard", "放弃" },
	{ "every fix in %s (%s)", "%s 中的全部修复（%s）" },
	{ "every fix of %s", "%s 的全部修复" },
	{ "every fix of phase %s", "阶段 %s 的全部修复" },
	{ "finding #%lld", "问题 #%lld" },
	{ "finding #%lld (%s)", "问题 #%lld（%s）" },
	{ "planning the fix: re-running its checks…", "正在规划修复：重新运行相关检查…" },
	{ "scroll", "滚动" },
	{ "working; this cannot be cancelled", "处理中，无法取消" },
	{ "A report needs a file to write to.", "报告需要指定写入的文件。" },
	{ "A screen dump needs a file to write to.", "屏幕转储需要指定写入的文件。" },
	{ "writing the report…", "正在写入报告…" },
	{ "Wrote %s (%s report, sha256 %.8s, recorded in the audit chain).", "已写入 %s（%s 报告，sha256 %.8s，已记入审计链）。" },
	{ "%s: not a report format (md, html, json, sarif or csv)", "%s：不是报告格式（md、html、json、sarif 或 csv）" },
	{ "Write the %s report to: ", "将 %s 报告写入：" },
	{ "Report format (md, html, json, sarif or csv): ", "报告格式（md、html、json、sarif 或 csv）：" },
	{ "Artifacts (%zu) and reports (%zu)", "工件（%zu）和报告（%zu）" },
	{ "No reports yet. Press p to write one (md, html, json, sarif or csv).", "还没有报告。按 p 生成（md、html、json、sarif 或 csv）。" },
	{ "report", "报告" },
	{ "%s is already signed off by %s.", "%s 已由 %s 签署确认。" },
	{ "%s: no such command (: and Tab list them)", "%s：没有这个命令（: 和 Tab 可列出命令）" },
	{ "%s: not a phase (1-7 or a name such as adapt)", "%s：不是阶段（请用 1-7 或名称，如 adapt）" },
	{ "(no automatic fix: this one needs a person)", "（没有自动修复：需要人工处理）" },
	{ "(no changes in this checkpoint)", "（该检查点没有改动）" },
	{ "(project)", "（整个项目）" },
	{ "(the file cannot be read)", "（无法读取该文件）" },
	{ "(the fix no longer matches the file; run the checks again)", "（修复已与文件不符，请重新运行检查）" },
	{ "A waiver needs a reason (auditors read it).", "豁免必须填写理由（审计人员会查看）。" },
	{ "Artifacts", "工件" },
	{ "Cannot sign off %s: %d open error findings must be fixed or waived first: %s",
	  "无法签署 %s：还有 %d 个未处理的错误，需先修复或豁免：%s" },
	{ "Cannot sign off %s: the earlier phase %s is not signed off yet.", "无法签署 %s：前一阶段 %s 尚未签署。" },
	{ "Checklist (ticked from check results)", "检查清单（根据检查结果勾选）" },
	{ "Checkpoint timeline, newest first", "检查点时间线（最新在前）" },
	{ "Checks cancelled; nothing was recorded.", "检查已取消，未记录任何结果。" },
	{ "Commands (Tab completes, Enter runs, Esc cancels)", "命令（Tab 补全，Enter 运行，Esc 取消）" },
	{ "Detail", "详情" },
	{ "Diff of checkpoint", "检查点差异" },
	{ "ERR ", "错误" },
	{ "Edits made outside ferry were recorded as a manual-edit checkpoint.", "在 ferry 之外所做的修改已记录为手工编辑检查点。" },
	{ "Esc closes, j/k scroll, : runs a command by name", "Esc 关闭，j/k 滚动，: 按名称运行命令" },
	{ "Everywhere", "通用" },
	{ "Filter (words, sev:, status:, plugin:, fix:yes): ", "筛选（关键词、sev:、status:、plugin:、fix:yes）：" },
	{ "Finding #%lld is %s; only open findings can be waived.", "问题 #%lld 的状态是 %s，只能豁免未处理的问题。" },
	{ "Findings", "问题" },
	{ "Guide to phase", "阶段指南" },
	{ "INFO", "提示" },
	{ "In the findings list", "在问题列表中" },
	{ "In the timeline", "在时间线中" },
	{ "Interface language: English", "界面语言：简体中文" },
	{ "Next: fix or waive the %d open errors (f shows them), then sign off with S.",
	  "下一步：修复或豁免 %d 个未处理的错误（按 f 查看），然后按 S 签署。" },
	{ "Next: press r to run this phase's checks.", "下一步：按 r 运行本阶段的检查。" },
	{ "Next: sign the phase off with S.", "下一步：按 S 签署本阶段。" },
	{ "No artifacts yet. Ingest logs, probes, profiles or models with: ferry ingest KIND PATH",
	  "还没有工件。可用 ferry ingest KIND PATH 导入日志、探测结果、性能数据或模型。" },
	{ "No change to record.", "没有需要记录的改动。" },
	{ "No checkpoint selected.", "未选择检查点。" },
	{ "No checks have run for this phase yet. Press r to run them.", "本阶段尚未运行检查。按 r 运行。" },
	{ "No finding selected.", "未选择问题。" },
	{ "No findings in this phase.", "本阶段没有问题。" },
	{ "No findings match the filter (\\ clears it).", "没有符合筛选条件的问题（按 \\ 清除筛选）。" },
	{ "Nothing done.", "未做任何操作。" },
	{ "Nothing to chart yet: no findings have been recorded. Run the checks with r (this phase) or R (all phases).",
	  "暂无可绘制的数据：尚未记录任何问题。按 r（本阶段）或 R（全部阶段）运行检查。" },
	{ "Open findings by category, per phase", "各阶段按类别统计的未处理问题" },
	{ "Phase %s signed off by %s.", "阶段 %s 已由 %s 签署。" },
	{ "Phases", "阶段" },
	{ "Please enlarge it, or press q to quit.", "请放大窗口，或按 q 退出。" },
	{ "Proposed fix", "拟议修复" },
	{ "Reason for waiving #%lld: ", "豁免 #%lld 的理由：" },
	{ "Revert checkpoint #%lld (%.10s) with a new checkpoint? (y/n) ", "以新检查点回退检查点 #%lld（%.10s）？(y/n) " },
	{ "Reverted checkpoint #%s with checkpoint #%lld (%.12s).", "已回退检查点 #%s，新检查点 #%lld（%.12s）。" },
	{ "Save the screen to file: ", "将屏幕保存到文件：" },
	{ "Screen saved to %s.", "屏幕已保存到 %s。" },
	{ "Select a checkpoint in the timeline (t) to revert it.", "请在时间线（t）中选择要回退的检查点。" },
	{ "Select a finding to see its source, the suggestion and the proposed fix.", "选择一个问题以查看源码、建议和拟议修复。" },
	{ "Sign off %s as %s. Note (optional, Enter signs): ", "以 %2$s 身份签署 %1$s。备注（可选，Enter 签署）：" },
	{ "Signed off by", "签署人" },
	{ "Start one here? ferry records the code as received (the baseline) in .ferry/ and never touches your own .git.",
	  "要在这里开始吗？ferry 会在 .ferry/ 中记录收到时的代码（基线），不会改动你自己的 .git。" },
	{ "Steps", "步骤" },
	{ "Suggestion", "建议" },
	{ "Waived by", "豁免人" },
	{ "reopened", "已重开" },
	{ "Cannot sign off %s: the earlier phase %s was reopened by new error findings.",
	  "无法签署 %s：前面的阶段 %s 因新的错误问题被重新打开。" },
	{ "That key does nothing here (? lists the keys).", "此键在这里无效（按 ? 查看按键）。" },
	{ "The editor (%s) did not finish cleanly.", "编辑器（%s）未正常退出。" },
	{ "There is no engagement in %s yet.", "%s 中还没有迁移项目。" },
	{ "This finding has no file to open.", "这个问题没有可打开的文件。" },
	{ "WARN", "警告" },
	{ "Waive from the findings list (f).", "请在问题列表（f）中豁免。" },
	{ "Waived finding #%lld.", "已豁免问题 #%lld。" },
	{ "Welcome. ? lists the keys, g opens the guide for this phase.", "欢迎。按 ? 查看按键，按 g 打开本阶段指南。" },
	{ "Your edit was recorded as checkpoint #%lld (manual edit).", "你的修改已记录为检查点 #%lld（手工编辑）。" },
	{ "active", "待处理" },
	{ "all", "全部" },
	{ "artifacts", "工件" },
	{ "back/quit", "返回/退出" },
	{ "baseline", "基线" },
	{ "cancel the running checks", "取消正在运行的检查" },
	{ "cancelling…", "正在取消…" },
	{ "cannot read the artifacts", "无法读取工件" },
	{ "cannot read the findings", "无法读取问题" },
	{ "chart", "图表" },
	{ "checking", "检查中" },
	{ "closed", "已关闭" },
	{ "commands", "命令" },
	{ "diff", "差异" },
	{ "edit", "编辑" },
	{ "ferry needs a window of at least %dx%d (this one is %dx%d).", "ferry 需要至少 %dx%d 的窗口（当前为 %dx%d）。" },
	{ "ferry workbench keys", "ferry 工作台按键" },
	{ "file", "文件" },
	{ "filter", "筛选" },
	{ "findings", "问题" },
	{ "fix", "修复" },
	{ "generated", "生成" },
	{ "guide", "指南" },
	{ "head", "当前" },
	{ "help", "帮助" },
	{ "manual", "手工" },
	{ "no command starts with that", "没有以此开头的命令" },
	{ "plugin", "插件" },
	{ "recovered", "恢复" },
	{ "revert", "回退" },
	{ "run", "运行" },
	{ "run %lld: %d findings, %d no longer seen (marked fixed)", "第 %lld 次运行：%d 个问题，%d 个不再出现（标记为已修复）" },
	{ "run %lld: %d findings, %d no longer seen; %d plugin errors, first: %s",
	  "第 %lld 次运行：%d 个问题，%d 个不再出现；%d 个插件出错，第一个：%s" },
	{ "severity", "严重级别" },
	{ "show", "显示" },
	{ "sign off", "签署" },
	{ "sort", "排序" },
	{ "starting the checks…", "正在启动检查…" },
	{ "timeline", "时间线" },
	{ "waive", "豁免" },
	{ "y: start the engagement    n: leave", "y：开始迁移项目    n：离开" },
	{ "zoom", "放大" },
};

static int starts_zh(const char *v)
{
	return v && strncmp(v, "zh", 2) == 0;
}

void i18n_init(void)
{
	const char *lang = getenv("FERRY_LANG");
	if (lang && *lang) {
		lang_zh = starts_zh(lang);
		return;
	}
	const char *vars[] = { "LC_ALL", "LC_MESSAGES", "LANG" };
	for (size_t i = 0; i < 3; i++) {
		const char *v = getenv(vars[i]);
		if (v && *v) {
			lang_zh = starts_zh(v);
			return;
		}
	}
	lang_zh = 0;
}

void i18n_set(int zh)
{
	lang_zh = zh != 0;
}

int i18n_zh(void)
{
	return lang_zh;
}

const char *i18n_tr(const char *en)
{
	if (!lang_zh || !en)
		return en;
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (strcmp(table[i].en, en) == 0)
			return table[i].zh;
	return i18n_report_tr(1, en);
}

const char *i18n_pick(const char *en, const char *zh)
{
	return lang_zh ? zh : en;
}
