/* i18n — see i18n.h. The translation table is keyed by the English text. */
#include "i18n.h"
#include "util.h"

#include <stdlib.h>
#include <string.h>

static int lang_zh;

static const struct tr {
	const char *en, *zh;
} table[] = {
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
	{ "Cannot sign off %s: %d open error findings must be fixed or waived first.",
	  "无法签署 %s：还有 %d 个未处理的错误，需先修复或豁免。" },
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
	{ "Filter (words, sev:, status:, plugin:): ", "筛选（关键词、sev:、status:、plugin:）：" },
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
	{ "blocked", "受阻" },
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
	{ "fixed", "已修复" },
	{ "generated", "生成" },
	{ "guide", "指南" },
	{ "head", "当前" },
	{ "help", "帮助" },
	{ "in progress", "进行中" },
	{ "manual", "手工" },
	{ "no command starts with that", "没有以此开头的命令" },
	{ "not started", "未开始" },
	{ "open", "未处理" },
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
	{ "signed off", "已签署" },
	{ "sort", "排序" },
	{ "starting the checks…", "正在启动检查…" },
	{ "timeline", "时间线" },
	{ "waive", "豁免" },
	{ "waived", "已豁免" },
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
	return en;
}

const char *i18n_pick(const char *en, const char *zh)
{
	return lang_zh ? zh : en;
}
