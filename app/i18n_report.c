/* i18n_report — see i18n_report.h. */
#include "i18n_report.h"
#include "intl.h"

#include <stdio.h>

const char *i18n_report_tr(int zh, const char *en)
{
	if (!zh || !en || !*en)
		return en;
	char was[8];
	snprintf(was, sizeof was, "%s", intl_lang());
	intl_set_lang("zh");
	const char *t = _(en);
	intl_set_lang(was);
	return t;
}
