/*
 * i18n_report — a compatibility wrapper kept only until the workbench's own table
 * (panes/i18n.c) is on gettext: the words the reports translate (classes, statuses,
 * severities, operations, strategy reasons) now live in the catalog (po/zh_CN-report.po),
 * and this looks them up there. Returned strings are the catalog's (static).
 */
#ifndef FERRY_I18N_REPORT_H
#define FERRY_I18N_REPORT_H

/* en in Simplified Chinese when zh is non-zero and the catalog has it; en itself otherwise. */
const char *i18n_report_tr(int zh, const char *en);

#endif
