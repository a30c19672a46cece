# ferry — one GNU Makefile. `make` builds ./ferry; `make test` runs the whole suite;
# `make test-asan` runs it again under AddressSanitizer + UndefinedBehaviorSanitizer;
# `make fuzz` builds and briefly runs the libFuzzer targets; `make bench` runs the benchmarks.

PKG_CONFIG ?= pkg-config
CC ?= cc
PKGS := ncursesw libgit2 sqlite3 lua5.4 libcjson tree-sitter libcrypto libzip zlib
GRAMMAR_VERSION := 0.23.6

BUILD ?= build
SAN ?=
# The binary under test: ./ferry for the normal build, $(BUILD)/ferry for others.
FERRY_BIN ?= ferry

# CPPFLAGS, CFLAGS and LDFLAGS from the environment are honoured (dpkg-buildflags);
# warnings are errors in development and CI, and WERROR=0 turns that off for a
# distribution build with another compiler.
CFLAGS ?= -O2 -g
WERROR ?= 1
FERRY_CFLAGS := -std=c11 -Wall -Wextra $(if $(filter 1,$(WERROR)),-Werror) -Wpedantic -Wshadow -Wstrict-prototypes \
	-D_GNU_SOURCE -Iapp -Ipanes -I$(BUILD) $(CPPFLAGS) $(shell $(PKG_CONFIG) --cflags $(PKGS)) $(SAN)
LIBS := $(shell $(PKG_CONFIG) --libs $(PKGS)) -lpthread -lm
LDFLAGS += $(SAN)

# The grammar's sources are the same for every build; only its objects are per build.
GRAMMAR_DIR := build/grammar/package/src
GRAMMAR_OBJ := $(BUILD)/grammar/parser.o $(BUILD)/grammar/scanner.o

APP_SRC := $(filter-out app/main.c,$(wildcard app/*.c)) $(wildcard panes/*.c)
APP_OBJ := $(APP_SRC:%.c=$(BUILD)/%.o) $(BUILD)/embedded.o $(GRAMMAR_OBJ)
MAIN_OBJ := $(BUILD)/app/main.o
EMBED_SRC := $(sort app/probe.sh $(wildcard migrations/*.sql) $(wildcard plugins/*/*.lua) $(wildcard plugins/data/*.json))

UNIT_SRC := $(wildcard tests/unit/test_*.c)
UNIT_BIN := $(UNIT_SRC:tests/unit/%.c=$(BUILD)/tests/%)

ifeq ($(V),1)
Q :=
else
Q := @
endif

SARIF_SCHEMA := build/tools/sarif-2.1.0-rtm.5.json

# Where `make install` puts things; DESTDIR stages them.
PREFIX ?= /usr/local
BINDIR ?= $(PREFIX)/bin
DATADIR ?= $(PREFIX)/share
MANDIR ?= $(DATADIR)/man

.SECONDEXPANSION:
.PHONY: all locale pot grammar sarif-tools test test-asan fuzz bench realcode fixtures clean docs install uninstall

all: $(FERRY_BIN) locale docs

# The manual page and the completion scripts are rendered by the binary from its
# command table, so they always match what it parses.
DOCS := $(BUILD)/man/ferry.1 $(BUILD)/man/zh_CN/ferry.1 $(BUILD)/completion/ferry.bash $(BUILD)/completion/_ferry
docs: $(DOCS)
$(BUILD)/man/ferry.1: $(FERRY_BIN)
	@mkdir -p $(dir $@)
	@echo "  GEN   $@"
	$(Q)./$(FERRY_BIN) help --man > $@.tmp && mv $@.tmp $@
$(BUILD)/man/zh_CN/ferry.1: $(FERRY_BIN) $(MO_FILES)
	@mkdir -p $(dir $@)
	@echo "  GEN   $@"
	$(Q)FERRY_LANG=zh ./$(FERRY_BIN) help --man > $@.tmp && mv $@.tmp $@
$(BUILD)/completion/ferry.bash: $(FERRY_BIN)
	@mkdir -p $(dir $@)
	$(Q)./$(FERRY_BIN) completion bash > $@.tmp && mv $@.tmp $@
$(BUILD)/completion/_ferry: $(FERRY_BIN)
	@mkdir -p $(dir $@)
	$(Q)./$(FERRY_BIN) completion zsh > $@.tmp && mv $@.tmp $@

PLUGIN_FILES := $(wildcard plugins/*/*.lua plugins/data/*.json) plugins/README.md
install: $(FERRY_BIN) locale docs
	install -d $(DESTDIR)$(BINDIR) $(DESTDIR)$(MANDIR)/man1 \
		$(DESTDIR)$(DATADIR)/bash-completion/completions $(DESTDIR)$(DATADIR)/zsh/vendor-completions
	install -m 755 $(FERRY_BIN) $(DESTDIR)$(BINDIR)/ferry
	install -m 644 $(BUILD)/man/ferry.1 $(DESTDIR)$(MANDIR)/man1/ferry.1
	install -D -m 644 $(BUILD)/man/zh_CN/ferry.1 $(DESTDIR)$(MANDIR)/zh_CN/man1/ferry.1
	install -m 644 $(BUILD)/completion/ferry.bash $(DESTDIR)$(DATADIR)/bash-completion/completions/ferry
	install -m 644 $(BUILD)/completion/_ferry $(DESTDIR)$(DATADIR)/zsh/vendor-completions/_ferry
	for f in $(MO_FILES); do \
		install -D -m 644 $$f $(DESTDIR)$(DATADIR)/locale/$${f#$(LOCALE_DIR)/} || exit 1; done
	for f in $(PLUGIN_FILES); do \
		install -D -m 644 $$f $(DESTDIR)$(DATADIR)/ferry/$$f || exit 1; done

uninstall:
	rm -f $(DESTDIR)$(BINDIR)/ferry $(DESTDIR)$(MANDIR)/man1/ferry.1 $(DESTDIR)$(MANDIR)/zh_CN/man1/ferry.1 \
		$(DESTDIR)$(DATADIR)/bash-completion/completions/ferry $(DESTDIR)$(DATADIR)/zsh/vendor-completions/_ferry
	rm -rf $(DESTDIR)$(DATADIR)/ferry
	for f in $(MO_FILES); do rm -f $(DESTDIR)$(DATADIR)/locale/$${f#$(LOCALE_DIR)/}; done

# Translations: po/ holds the C code's catalogs (domain ferry), plugins/po/ the bundled
# plugins' and their fact tables' (domain ferry-plugins). A language's catalog may be split
# into LANG.po plus LANG-PART.po files; they are joined when compiled into build/locale,
# where the binary finds them (always build/, whatever $(BUILD) is).
LINGUAS := zh_CN
LOCALE_DIR := build/locale
MO_FILES := $(foreach l,$(LINGUAS),$(LOCALE_DIR)/$(l)/LC_MESSAGES/ferry.mo $(LOCALE_DIR)/$(l)/LC_MESSAGES/ferry-plugins.mo)
C_I18N_SRC := $(sort $(wildcard app/*.c panes/*.c))
LUA_I18N_SRC := $(sort $(wildcard plugins/*/*.lua))
XGETTEXT_OPTS := --from-code=UTF-8 --no-wrap --sort-by-file --package-name=ferry --msgid-bugs-address=none
locale: $(MO_FILES)
$(LOCALE_DIR)/%/LC_MESSAGES/ferry.mo: $$(wildcard po/$$*.po po/$$*-*.po)
	@mkdir -p $(dir $@)
	@echo "  MSGFMT $@"
	$(Q)msgcat --force-po --use-first -o - $^ | msgfmt --check-format -o $@ -
$(LOCALE_DIR)/%/LC_MESSAGES/ferry-plugins.mo: $$(wildcard plugins/po/$$*.po plugins/po/$$*-*.po)
	@mkdir -p $(dir $@)
	@echo "  MSGFMT $@"
	$(Q)msgcat --force-po --use-first -o - $^ | msgfmt -o $@ -

# The message templates, extracted from the sources into build/po (`make pot`); the tests
# check that every entry of each template is translated.
pot: build/po/ferry.pot build/po/ferry-plugins.pot
build/po/ferry.pot: $(C_I18N_SRC)
	@mkdir -p $(dir $@)
	$(Q)xgettext $(XGETTEXT_OPTS) --force-po -L C -k_ -kN_ -kP_:1,2 -kNP_:1,2 -kC_:1c,2 -kNC_:1c,2 -o $@ $^
build/po/ferry-plugins.pot: $(LUA_I18N_SRC) $(wildcard plugins/data/*.json) scripts/po_data.py
	@mkdir -p $(dir $@)
	$(Q)xgettext $(XGETTEXT_OPTS) --force-po -L Lua -k_ -kN_ -o - $(LUA_I18N_SRC) | \
		sed 's/charset=CHARSET/charset=UTF-8/' > $@.lua
	$(Q)python3 scripts/po_data.py plugins/data/*.json > $@.data
	$(Q)msgcat --use-first -o $@ $@.lua $@.data && rm -f $@.lua $@.data

$(FERRY_BIN): $(MAIN_OBJ) $(APP_OBJ)
	@echo "  LD    $@"
	$(Q)$(CC) $(LDFLAGS) -o $@ $^ $(LIBS)

$(BUILD)/%.o: %.c | grammar
	@mkdir -p $(dir $@)
	@echo "  CC    $<"
	$(Q)$(CC) $(CFLAGS) $(FERRY_CFLAGS) -MMD -MP -c -o $@ $<

# The grammar is generated code from the registry package: compiled without our warnings.
$(BUILD)/grammar/%.o: $(GRAMMAR_DIR)/%.c
	@mkdir -p $(dir $@)
	@echo "  CC    $<"
	$(Q)$(CC) $(CFLAGS) $(SAN) -std=c11 -w -I$(GRAMMAR_DIR) -c -o $@ $<

grammar: $(GRAMMAR_DIR)/parser.c

$(GRAMMAR_DIR)/parser.c:
	@mkdir -p build/grammar
	@echo "  NPM   tree-sitter-python@$(GRAMMAR_VERSION)"
	$(Q)cd build/grammar && npm pack --silent tree-sitter-python@$(GRAMMAR_VERSION) >/dev/null && \
		tar xzf tree-sitter-python-$(GRAMMAR_VERSION).tgz package/src && touch package/src/parser.c

# scanner.c comes out of the same package as parser.c
$(GRAMMAR_DIR)/scanner.c: $(GRAMMAR_DIR)/parser.c

# The SARIF 2.1.0 schema (shipped in the SARIF authors' npm package) and a JSON-schema
# validator, for the tests that check `ferry check --format sarif` against the schema.
sarif-tools: $(SARIF_SCHEMA) build/tools/node_modules/ajv-draft-04/package.json

$(SARIF_SCHEMA):
	@mkdir -p build/tools
	@echo "  NPM   SARIF 2.1.0 schema"
	$(Q)cd build/tools && npm pack --silent @microsoft/jest-sarif@1.0.0-beta.0 >/dev/null && \
		tar xzf microsoft-jest-sarif-1.0.0-beta.0.tgz package/lib/schemas/sarif-2.1.0-rtm.5.json && \
		mv package/lib/schemas/sarif-2.1.0-rtm.5.json . && rm -rf package microsoft-jest-sarif-*.tgz

build/tools/node_modules/ajv-draft-04/package.json:
	@mkdir -p build/tools
	@echo "  NPM   ajv (JSON-schema validator)"
	$(Q)npm install --silent --no-audit --no-fund --prefix build/tools ajv@8.17.1 ajv-draft-04@1.0.0 ajv-formats@3.0.1 >/dev/null

# Migrations, bundled plugins and fact tables are embedded so an installed ferry needs no tree.
$(BUILD)/embedded.c: scripts/embed.sh $(EMBED_SRC)
	@mkdir -p $(BUILD)
	@echo "  GEN   $@"
	$(Q)sh scripts/embed.sh $(EMBED_SRC) > $@.tmp && mv $@.tmp $@

$(BUILD)/embedded.o: $(BUILD)/embedded.c
	$(Q)$(CC) $(CFLAGS) $(FERRY_CFLAGS) -Wno-overlength-strings -c -o $@ $<

$(BUILD)/tests/%: tests/unit/%.c $(APP_OBJ) tests/unit/testutil.h
	@mkdir -p $(dir $@)
	@echo "  TEST  $@"
	$(Q)$(CC) $(CFLAGS) $(FERRY_CFLAGS) -Itests/unit $(LDFLAGS) -o $@ $< $(APP_OBJ) $(LIBS) $(shell $(PKG_CONFIG) --libs cmocka)

test: $(FERRY_BIN) $(UNIT_BIN) sarif-tools locale docs
	$(Q)FERRY_BUILD=$(BUILD) FERRY=$(abspath $(FERRY_BIN)) FERRY_SANITIZED=$(if $(SAN),1,) sh tests/run-all.sh

test-asan:
	$(Q)$(MAKE) BUILD=build-asan FERRY_BIN=build-asan/ferry \
		SAN="-fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" CFLAGS="-O1 -g" test

fuzz:
	$(Q)sh tests/fuzz/run.sh

bench: ferry
	$(Q)sh tests/bench/run.sh
	$(Q)sh tests/bench/init_bench.sh
	$(Q)sh tests/bench/real.sh
	$(Q)sh tests/bench/profile_bench.sh

# Precision and recall of the assess phase on pinned public repositories, then the adapt
# phase's fixes on them, every changed file compiled (REALCODE_DIR holds them;
# tests/realcode/run.sh --layout clones the missing ones). Not in `test`.
realcode: ferry
	$(Q)FERRY=$(abspath $(FERRY_BIN)) sh tests/realcode/run.sh
	$(Q)FERRY=$(abspath $(FERRY_BIN)) sh tests/realcode/adapt.sh

# Regenerates the committed fixtures with their real producers (Debian's python3-torch,
# CPU, and python3-onnx): `apt-get install python3-torch python3-tqdm python3-onnx`.
# The tests read the committed copies.
PYTHON_TORCH ?= /usr/bin/python3
fixtures:
	$(Q)$(PYTHON_TORCH) tests/fixtures/loss/make_loss_logs.py
	$(Q)$(PYTHON_TORCH) tests/fixtures/dump/make_pt_dumps.py
	$(Q)$(PYTHON_TORCH) tests/fixtures/dump/make_pt_params.py
	$(Q)$(PYTHON_TORCH) tests/fixtures/onnx/make_onnx.py
	$(Q)$(PYTHON_TORCH) tests/fixtures/runlog/make_run_logs.py
	$(Q)$(PYTHON_TORCH) tests/fixtures/profile/make_profiles.py

compile_commands.json:
	$(Q)$(MAKE) clean && bear -- $(MAKE)

clean:
	rm -rf build build-asan ferry

-include $(shell find $(BUILD) build-asan -name '*.d' 2>/dev/null)
