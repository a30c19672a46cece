/* libFuzzer target: settings typed by a person. The input is "KEY=VALUE"; `ferry config`'s
 * check must accept it or refuse it with one line, and a value it accepts is handed to
 * every check that reads settings (ctx.config), with a benchmark ingested, which must not
 * fail on it.
 * fuzz-modules: app embedded_data */
#include "config.h"
#include "plugin_door.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static door d = { .kind = "bench",
		              .fixed_artifact = "{\"schema\":\"ferry-bench/1\",\"label\":\"gpu\",\"hardware\":\"A100\","
		                                "\"precision\":\"bf16\",\"metrics\":{\"throughput\":1200.5,\"accuracy\":0.76}}" };
	char *text = xstrndup((const char *)data, size);
	char *eq = strchr(text, '=');
	const struct config_key *k = eq ? (*eq = '\0', config_key_find(text)) : NULL;
	if (k && (config_key_check(text) != 0 || config_value_check(k, text, eq + 1) != 0)) {
		if (err_code() != FERRY_EUSAGE || strchr(err_message(), '\n'))
			abort();
		k = NULL;
	}
	err_clear();
	if (k) {
		d.config_key = text;
		d.config_value = eq + 1;
		door_run(&d, data, size);
		d.config_key = d.config_value = NULL;
	}
	free(text);
	return 0;
}
