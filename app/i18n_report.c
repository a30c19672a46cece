/* i18n_report — see i18n_report.h. The table is keyed by the exact English text. */
#include "i18n_report.h"

#include <stddef.h>
#include <string.h>

static const struct tr {
	const char *en, *zh;
} table[] = {
	/* readiness classes (assessment.c) */
	{ "ready", "就绪" },
	{ "ready with conditions", "有条件就绪" },
	{ "needs manual porting", "需要人工移植" },
	{ "blocked", "受阻" }, /* also a phase status */
	/* strategy reasons (assessment.c) */
	{ "Errors without an automatic fix (custom CUDA kernels, unsupported operators or GPU-only libraries) must be "
	  "ported by hand first; the mechanical rewrites can then be applied with ferry fix.",
	  "没有自动修复的错误（自定义 CUDA 算子、不支持的算子或仅支持 GPU 的库）必须先人工移植；之后再用 ferry fix "
	  "应用机械性改写。" },
	{ "Constructs that automatic migration (transfer_to_npu) disables or does not handle (torch.jit.script, "
	  "channels_last) are present: rewrite the code explicitly with ferry fix, reviewing each change.",
	  "代码中有自动迁移（transfer_to_npu）会禁用或无法处理的写法（torch.jit.script、channels_last）：请用 ferry fix "
	  "显式改写，并逐一审阅每处改动。" },
	{ "Many mechanical CUDA call sites and nothing that conflicts with automatic migration: `from "
	  "torch_npu.contrib import transfer_to_npu` in the entry scripts is the fastest path.",
	  "机械性的 CUDA 调用很多，且没有与自动迁移冲突的写法：在入口脚本中加入 `from torch_npu.contrib import "
	  "transfer_to_npu` 是最快的路径。" },
	{ "Few CUDA-specific sites and no blockers: rewrite them explicitly with ferry fix, so every change is visible "
	  "in the history.",
	  "CUDA 相关的位置不多，也没有阻碍：用 ferry fix 显式改写，使每处改动都记录在历史中。" },
	/* phase statuses (as `ferry status` and the report name them) */
	{ "not started", "未开始" },
	{ "in progress", "进行中" },
	{ "signed off", "已签署" },
	{ "reopened", "已重开" },
	/* finding statuses */
	{ "open", "未处理" },
	{ "fixed", "已修复" },
	{ "waived", "已豁免" },
	/* severities */
	{ "error", "错误" },
	{ "warning", "警告" },
	{ "info", "提示" },
	/* the change list's operations */
	{ "INSERT", "新增" },
	{ "MODIFY", "修改" },
	{ "DELETE", "删除" },
	{ "UNSUPPORTED", "不支持" },
};

int i18n_report_lang_valid(const char *name)
{
	return name && (strcmp(name, "en") == 0 || strcmp(name, "zh") == 0);
}

int i18n_report_is_zh(const char *lang)
{
	return lang && strncmp(lang, "zh", 2) == 0 && (lang[2] == '\0' || lang[2] == '-' || lang[2] == '_');
}

const char *i18n_report_zh(const char *en)
{
	if (!en)
		return NULL;
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (strcmp(table[i].en, en) == 0)
			return table[i].zh;
	return NULL;
}

const char *i18n_report_tr(int zh, const char *en)
{
	const char *t = zh ? i18n_report_zh(en) : NULL;
	return t ? t : en;
}
