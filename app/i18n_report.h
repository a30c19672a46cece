/*
 * i18n_report — the Simplified Chinese for the English words and sentences that app
 * modules put into their results: the readiness classes and strategy reasons of
 * assessment.c, the phase and finding statuses, the severities and the change list's
 * operations. The report (report.c) and the workbench (panes/i18n.c) read this one table,
 * so a verdict reads the same in a deliverable and on the screen. The results themselves
 * (JSON, CSV, the store) keep the English values, which tools read; only text for people
 * is translated. It owns no state: returned strings are static, nothing is freed.
 */
#ifndef FERRY_I18N_REPORT_H
#define FERRY_I18N_REPORT_H

/* 1 when name is a language the reports are written in: "en" or "zh". */
int i18n_report_lang_valid(const char *name);

/* 1 when a language setting asks for Simplified Chinese ("zh", "zh-CN", "zh_CN.UTF-8"…);
 * 0 for English, for NULL and for anything else. */
int i18n_report_is_zh(const char *lang);

/* The Simplified Chinese for en, or NULL when the table has none. */
const char *i18n_report_zh(const char *en);

/* en in Chinese when zh is non-zero and the table has it; en itself otherwise. */
const char *i18n_report_tr(int zh, const char *en);

#endif
