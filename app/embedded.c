/* embedded — see embedded.h. The table itself is generated. */
#include "embedded.h"

#include <string.h>

const struct embedded_file *embedded_find(const char *path)
{
	for (const struct embedded_file *f = embedded_files; f->path; f++)
		if (strcmp(f->path, path) == 0)
			return f;
	return NULL;
}
