/* msglog — see msglog.h. A ring of the newest MSGLOG_MAX messages. */
#include "msglog.h"
#include "util.h"

#include <stdlib.h>

struct msglog {
	msglog_entry e[MSGLOG_MAX];
	size_t first; /* index of the oldest */
	size_t n;     /* entries held */
};

msglog *msglog_new(void)
{
	return xcalloc(1, sizeof(msglog));
}

void msglog_free(msglog *l)
{
	if (!l)
		return;
	for (size_t i = 0; i < l->n; i++)
		free(l->e[(l->first + i) % MSGLOG_MAX].text);
	free(l);
}

const char *msglog_add(msglog *l, int attr, const char *text)
{
	msglog_entry *e;
	if (l->n == MSGLOG_MAX) { /* the oldest gives way */
		e = &l->e[l->first];
		free(e->text);
		l->first = (l->first + 1) % MSGLOG_MAX;
	} else {
		e = &l->e[(l->first + l->n++) % MSGLOG_MAX];
	}
	e->text = xstrdup(text);
	e->attr = attr;
	e->at = time(NULL);
	return e->text;
}

size_t msglog_count(const msglog *l)
{
	return l->n;
}

const msglog_entry *msglog_get(const msglog *l, size_t i)
{
	return i < l->n ? &l->e[(l->first + l->n - 1 - i) % MSGLOG_MAX] : NULL;
}
