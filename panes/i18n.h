/*
 * i18n — the workbench's interface language: English or Simplified Chinese,
 * chosen by FERRY_LANG (en|zh), else by LC_ALL / LC_MESSAGES / LANG starting with
 * "zh". Translations are a static table keyed by the English text; a string
 * without a translation is shown in English. Returned strings are static.
 */
#ifndef FERRY_I18N_H
#define FERRY_I18N_H

/* Picks the language from the environment. */
void i18n_init(void);
/* Forces the language: zh non-zero for Simplified Chinese. */
void i18n_set(int zh);
int i18n_zh(void);
/* The text in the current language (en itself when English or untranslated). */
const char *i18n_tr(const char *en);
/* Picks between two literal texts by language. */
const char *i18n_pick(const char *en, const char *zh);

#define T(s) i18n_tr(s)

#endif
