/*
 * fuzz_query — arbitrary bytes as a tree-sitter query (the plugin-facing path):
 * pysrc_query_new, and when it compiles, a run over a fixed small Python file.
 * A refused query must leave no result and a one-line FERRY_EPLUGIN message.
 */
#include "err.h"
#include "pysrc.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

static const char sample[] =
	"import torch\n"
	"import torch.distributed as dist\n"
	"\n"
	"class Net(torch.nn.Module):\n"
	"    def forward(self, x):\n"
	"        # x.cuda() in a comment\n"
	"        return self.fc(x.cuda(0))\n"
	"\n"
	"def main(device='cuda:0'):\n"
	"\tdist.init_process_group(backend=\"nccl\")\r\n"
	"\ttorch.cuda.synchronize()\n"
	"\ts = f'{device}.cuda()'\n"
	"\tif torch.cuda.is_available() and x == x:\n"
	"\t\tmodel = Net().to(device)\n"
	"\treturn [m for m in (1, 2) if m]\n";

static pysrc *src;

static int on_match(const pysrc_capture *caps, size_t ncaps, void *payload)
{
	size_t *count = payload;
	for (size_t i = 0; i < ncaps; i++)
		if (caps[i].end_byte > sizeof sample - 1 || caps[i].start_byte > caps[i].end_byte ||
		    !caps[i].name)
			abort();
	return ++*count > 10000; /* stop early on runaway patterns */
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!src && pysrc_parse(&src, "sample.py", sample, sizeof sample - 1) != 0)
		abort();
	char *source = malloc(size + 1);
	if (!source)
		abort();
	memcpy(source, data, size);
	source[size] = '\0';
	pysrc_query *q = NULL;
	if (pysrc_query_new(&q, source) != 0) {
		if (q || err_code() != FERRY_EPLUGIN || strchr(err_message(), '\n'))
			abort();
	} else {
		size_t count = 0;
		pysrc_query_run(src, q, on_match, &count);
		pysrc_query_free(q);
	}
	free(source);
	return 0;
}
