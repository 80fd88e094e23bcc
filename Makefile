# onnxlegal — the only build entry point.
#   make              libonnxlegal.so (soname carries the ABI major), libonnxlegal.a, the tool
#   make test         every test (C unit tests, round trips, numeric tests, the nanopb writer's, built
#                     in build/nanopb); ends with "N passed, N failed"
#   make demo         builds, then runs the main job end to end
#   make install PREFIX=/usr/local DESTDIR=   |   make uninstall
#   make check-exports  the dynamic symbol table holds olg_* names only
#   make sanitize     the C tests under ASan and UBSan
#   make tsan         8 threads legalizing and writing with one registry, under ThreadSanitizer
#   make fuzz         every libFuzzer target for FUZZ_SECONDS each; make fuzz-replay: their corpora once
#   make NANOPB=1     also the small-footprint writer on nanopb (olg_model_write_nanopb, in
#                     onnxlegal/nanopb.h), built in build/nanopb unless BUILD says otherwise (a
#                     BUILD directory must not be shared with builds without it: no flag tracking)
#   make test-nanopb  that writer's tests: C unit tests and the testdata corpus, both writers
#   make deps         installs the missing Debian and npm packages (as root), or says how

VERSION_H := include/onnxlegal/version.h
vfield = $(shell sed -n 's/^\#define $(1) \([0-9][0-9]*\).*/\1/p' $(VERSION_H))
MAJOR := $(call vfield,OLG_VERSION_MAJOR)
MINOR := $(call vfield,OLG_VERSION_MINOR)
PATCH := $(call vfield,OLG_VERSION_PATCH)
ABI := $(call vfield,OLG_ABI_VERSION)
VERSION := $(MAJOR).$(MINOR).$(PATCH)
space := $(subst ,, )

PREFIX ?= /usr/local
DESTDIR ?=
LIBDIR ?= $(PREFIX)/lib
INCLUDEDIR ?= $(PREFIX)/include
BINDIR ?= $(PREFIX)/bin
PKGCONFIGDIR ?= $(LIBDIR)/pkgconfig
CMAKEDIR ?= $(LIBDIR)/cmake/onnxlegal
MANDIR ?= $(PREFIX)/share/man
# Where `make install` puts the Python package: PYTHON's purelib under PREFIX (dist-packages for
# Debian's python3, whose sys.path has PREFIX/lib/python3.X/dist-packages for /usr/local).
PYTHONDIR ?= $(shell $(PYTHON) -c 'import sys, sysconfig; \
	p = sysconfig.get_path("purelib", "posix_prefix", vars={"base": "$(PREFIX)", "platbase": "$(PREFIX)"}); \
	print(p.replace("site-packages", "dist-packages") if any(x.endswith("dist-packages") for x in sys.path) else p)')
PY_SRCS := $(wildcard bindings/python/onnxlegal/*.py)

CC ?= cc
NANOPB ?=
ifeq ($(NANOPB),1)
BUILD ?= build/nanopb
endif
BUILD ?= build
CFLAGS ?= -O2 -g
PYTHON ?= /usr/bin/python3
# What every translation unit of the library needs; CFLAGS stays the caller's.
OLG_CFLAGS := -std=c11 -D_DEFAULT_SOURCE -D_FILE_OFFSET_BITS=64 -Wall -Wextra -Werror -fPIC \
	-fvisibility=hidden -Iinclude -I$(BUILD)/gen
# The core's headers are on the include path of the core, the tests and the tool; the parts above
# the core (symbolics/, opsets/, profiles/) are compiled without it and include the few headers
# that make up the core's interface for them by path, "../lib/lower.h" (docs/architecture.md;
# tests/py/test_layout.py keeps the list).
OLG_LIB_INC := -Ilib
LIBS := -lprotobuf-c -lm -lpthread

PROTO := $(wildcard lib/serialize/onnx.proto)
GEN_C := $(if $(PROTO),$(BUILD)/gen/onnx.pb-c.c)
GEN_H := $(if $(PROTO),$(BUILD)/gen/onnx.pb-c.h)
SRCS := $(sort $(wildcard lib/*.c lib/*/*.c symbolics/*.c opsets/*.c profiles/*.c))
PUBLIC_HEADERS := $(wildcard include/onnxlegal/*.h)
ifeq ($(NANOPB),1)
# nanopb as Debian's libnanopb-dev ships it: headers in the system's include path and a static
# library, whose pb_* symbols the version script keeps local to libonnxlegal.so. Elsewhere, point
# NANOPB_CFLAGS at the headers (-I...) and NANOPB_LIBS at the library or its objects.
NANOPB_CFLAGS ?=
NANOPB_LIBS ?= -lprotobuf-nanopb
OLG_CFLAGS += -DOLG_WITH_NANOPB $(NANOPB_CFLAGS)
LIBS += $(NANOPB_LIBS)
else
SRCS := $(filter-out lib/serialize/nanopb_writer.c,$(SRCS))
PUBLIC_HEADERS := $(filter-out include/onnxlegal/nanopb.h,$(PUBLIC_HEADERS))
endif
OBJS := $(SRCS:%.c=$(BUILD)/obj/%.o) $(if $(GEN_C),$(BUILD)/obj/gen/onnx.pb-c.o)
UPPER_OBJS := $(filter $(BUILD)/obj/symbolics/% $(BUILD)/obj/opsets/% $(BUILD)/obj/profiles/%,$(OBJS))
$(UPPER_OBJS): OLG_LIB_INC :=
TOOL_SRCS := $(sort $(wildcard tools/onnxlegal/*.c))
TOOL_OBJS := $(TOOL_SRCS:%.c=$(BUILD)/obj/%.o)
TEST_SRCS := $(sort $(wildcard tests/unit/*.c)) tests/harness.c
TEST_OBJS := $(TEST_SRCS:%.c=$(BUILD)/obj/%.o)

SONAME := libonnxlegal.so.$(ABI)
SHLIB := $(BUILD)/lib/libonnxlegal.so.$(VERSION)
STLIB := $(BUILD)/lib/libonnxlegal.a
TOOL := $(BUILD)/bin/onnxlegal
UNIT := $(BUILD)/tests/unit
CMAKE_CONFIG := $(BUILD)/lib/cmake/onnxlegal/onnxlegalConfig.cmake \
	$(BUILD)/lib/cmake/onnxlegal/onnxlegalConfigVersion.cmake

.DELETE_ON_ERROR:
.PHONY: man
.PHONY: all lib tool test test-c test-py test-nanopb demo install uninstall check-exports check-abi update-abi \
	sanitize deps clean
all: lib tool

lib: $(SHLIB) $(BUILD)/lib/$(SONAME) $(BUILD)/lib/libonnxlegal.so $(STLIB) \
	$(BUILD)/lib/pkgconfig/onnxlegal.pc $(CMAKE_CONFIG) python-lib-link
tool: $(TOOL)

# The Python package (bindings/python/onnxlegal) loads the library from beside itself: point it
# at the library just built. Phony, so that the link always follows the last `make lib`.
# PYLINK=0 leaves it alone (a staging build in a temporary BUILD, as the install tests make, must
# not repoint the source tree's package at a directory about to be removed).
PYLINK ?= 1
.PHONY: python-lib-link
python-lib-link: $(SHLIB)
	@$(if $(filter 1,$(PYLINK)),ln -sf $(abspath $(SHLIB)) bindings/python/onnxlegal/$(SONAME),:)

# one run makes both files (a grouped target: make -j must not run protoc-c twice at once)
$(BUILD)/gen/onnx.pb-c.c $(BUILD)/gen/onnx.pb-c.h &: $(PROTO)
	@mkdir -p $(BUILD)/gen
	protoc-c --c_out=$(BUILD)/gen -Ilib/serialize $(PROTO)

# Generated code is not ours to warn about; it still gets hidden visibility.
$(BUILD)/obj/gen/onnx.pb-c.o: $(BUILD)/gen/onnx.pb-c.c
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -std=c11 -fPIC -fvisibility=hidden -I$(BUILD)/gen -c $< -o $@

$(BUILD)/obj/%.o: %.c | $(GEN_H)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) $(OLG_CFLAGS) $(OLG_LIB_INC) -MMD -MP -c $< -o $@

$(SHLIB): $(OBJS) lib/onnxlegal.map
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -shared -Wl,-soname,$(SONAME) -Wl,--version-script=lib/onnxlegal.map \
		-Wl,--no-undefined -o $@ $(OBJS) $(LIBS) $(LDFLAGS)

$(BUILD)/lib/$(SONAME): $(SHLIB)
	ln -sf $(notdir $(SHLIB)) $@
$(BUILD)/lib/libonnxlegal.so: $(BUILD)/lib/$(SONAME)
	ln -sf $(SONAME) $@

$(STLIB): $(OBJS)
	@mkdir -p $(dir $@)
	rm -f $@
	ar rcs $@ $(OBJS)

# The install paths the generated .pc and CMake files bake in: a stamp rewritten only when they
# change, so `make install PREFIX=/opt/x` after a build for /usr/local regenerates them.
PATHS_STAMP := $(BUILD)/install-paths.stamp
PATHS_NOW := $(PREFIX)|$(LIBDIR)|$(INCLUDEDIR)|$(CMAKEDIR)|$(NANOPB)
$(PATHS_STAMP): FORCE
	@mkdir -p $(dir $@)
	@if [ "$$(cat $@ 2>/dev/null)" != '$(PATHS_NOW)' ]; then echo '$(PATHS_NOW)' > $@; fi
.PHONY: FORCE
FORCE:

$(BUILD)/lib/pkgconfig/onnxlegal.pc: pkgconfig/onnxlegal.pc.in $(VERSION_H) $(PATHS_STAMP)
	@mkdir -p $(dir $@)
	sed -e 's|@PREFIX@|$(PREFIX)|g' -e 's|@LIBDIR@|$(LIBDIR)|g' -e 's|@INCLUDEDIR@|$(INCLUDEDIR)|g' \
		-e 's|@VERSION@|$(VERSION)|g' $(if $(filter 1,$(NANOPB)),-e 's|^Libs.private:|Libs.private: $(NANOPB_LIBS)|') \
		$< > $@

# The CMake package: paths relative to CMAKEDIR, so that DESTDIR staging and moved trees work.
relto = $(shell realpath -m --relative-to=$(CMAKEDIR) $(1))
$(BUILD)/lib/cmake/onnxlegal/%.cmake: cmake/%.cmake.in $(VERSION_H) Makefile $(PATHS_STAMP)
	@mkdir -p $(dir $@)
	sed -e 's|@REL_LIBDIR@|$(call relto,$(LIBDIR))|g' -e 's|@REL_INCLUDEDIR@|$(call relto,$(INCLUDEDIR))|g' \
		-e 's|@VERSION@|$(VERSION)|g' -e 's|@MAJOR@|$(MAJOR)|g' -e 's|@MINOR@|$(MINOR)|g' \
		-e 's|@SONAME@|$(SONAME)|g' -e 's|@STATIC_LIBS@|$(subst $(space),;,$(strip $(LIBS)))|g' $< > $@

$(TOOL): $(TOOL_OBJS) $(STLIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $(TOOL_OBJS) $(STLIB) $(LIBS) $(LDFLAGS)

# --wrap: the harness injects malloc failures into the library's own malloc calls (harness.h).
$(UNIT): $(TEST_OBJS) $(STLIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -o $@ $(TEST_OBJS) $(STLIB) $(LIBS) $(LDFLAGS) \
		-Wl,--wrap=malloc,--wrap=calloc,--wrap=realloc,--wrap=free

# The manual pages, generated from the tool's --help texts and the public headers' comments
# (tools/gen_man.py), so they cannot go stale: onnxlegal(1), onnxlegal(3).
MAN_PAGES := $(BUILD)/man/onnxlegal.1 $(BUILD)/man/onnxlegal.3
man: $(MAN_PAGES)
$(MAN_PAGES) &: $(TOOL) $(PUBLIC_HEADERS) tools/gen_man.py
	$(PYTHON) tools/gen_man.py --tool $(TOOL) --out $(BUILD)/man --version $(VERSION)

# ---- tests -----------------------------------------------------------------------------
# The nanopb writer is built in its own directory (its library and C unit tests), for
# `make test` and `make test-nanopb` alike: what a test needs is built, never skipped.
NANOPB_BUILD := build/nanopb
.PHONY: nanopb-build
nanopb-build:
	@$(MAKE) --no-print-directory NANOPB=1 BUILD=$(NANOPB_BUILD) $(NANOPB_BUILD)/lib/$(SONAME) \
		$(NANOPB_BUILD)/tests/unit

test: deps all $(UNIT) nanopb-build
	@$(PYTHON) tests/run_all.py --build $(BUILD) --nanopb-build $(NANOPB_BUILD)

test-c: $(UNIT)
	$(UNIT)

# The nanopb writer's C unit tests, then every testdata model written by both writers and
# compared byte for byte (tests/py/test_nanopb.py).
test-nanopb: nanopb-build
	$(NANOPB_BUILD)/tests/unit nanopb
	ONNXLEGAL_NANOPB_BUILD=$(NANOPB_BUILD) $(PYTHON) -m pytest -q -p no:cacheprovider -rs tests/py/test_nanopb.py

demo: deps all
	@$(PYTHON) tools/demo.py --build $(BUILD)

# Time (CPU) of check, inference, legalize, text, DOT, write and read over If nested N deep and chains of N nodes
# (bench/nesting.c): the growth from one size to the next shows whether they stay linear.
.PHONY: bench-nesting
bench-nesting: $(STLIB)
	@mkdir -p $(BUILD)/bench
	$(CC) $(CFLAGS) -std=c11 -D_DEFAULT_SOURCE -Wall -Wextra -Werror -Iinclude -o $(BUILD)/bench/nesting \
		bench/nesting.c $(STLIB) $(LIBS)
	$(BUILD)/bench/nesting 16 32 64 250 500 1000 2000 10000 c100000 c300000 c1000000

check-exports: $(SHLIB)
	@bad=$$(nm -D --defined-only $(SHLIB) | awk '{print $$3}' | grep -v '^olg_' | grep -v '^ONNXLEGAL_' || true); \
	if [ -n "$$bad" ]; then echo "exported symbols outside olg_*:"; echo "$$bad"; exit 1; fi; \
	nm -D --defined-only $(SHLIB) | awk '$$3 ~ /^olg_/ {print $$3}' | sed 's/@.*//' \
		$(if $(filter 1,$(NANOPB)),| grep -vx olg_model_write_nanopb) | sort > $(BUILD)/exports.txt; \
	if ! diff -u abi/exports.txt $(BUILD)/exports.txt; then \
		echo "the exported symbols differ from abi/exports.txt: a removal breaks the ABI; an addition needs abi/exports.txt and CHANGELOG.md updated"; exit 1; fi; \
	echo "check-exports: $$(wc -l < $(BUILD)/exports.txt) symbols, all olg_*, as in abi/exports.txt"

check-abi: $(SHLIB)
	@if command -v abidiff >/dev/null && [ -f abi/onnxlegal.abi ]; then \
		abidw --no-corpus-path --headers-dir include/onnxlegal $(SHLIB) > $(BUILD)/onnxlegal.abi && \
		abidiff --headers-dir2 include/onnxlegal abi/onnxlegal.abi $(SHLIB) && echo "check-abi: compatible with abi/onnxlegal.abi"; \
	else echo "check-abi: abidiff or abi/onnxlegal.abi missing"; exit 1; fi

# Regenerates the committed ABI baseline after a deliberate, CHANGELOG-noted API change.
update-abi: $(SHLIB)
	@mkdir -p abi
	nm -D --defined-only $(SHLIB) | awk '$$3 ~ /^olg_/ {print $$3}' | sed 's/@.*//' | sort > abi/exports.txt
	abidw --no-corpus-path --headers-dir include/onnxlegal $(SHLIB) > abi/onnxlegal.abi
	@echo "update-abi: $$(wc -l < abi/exports.txt) symbols"

# With NANOPB=1 in build/asan-nanopb: objects built with other flags are never mixed.
ASAN_BUILD := build/asan$(if $(filter 1,$(NANOPB)),-nanopb)
sanitize:
	$(MAKE) BUILD=$(ASAN_BUILD) CC=$(CC) CFLAGS="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=all" \
		LDFLAGS="-fsanitize=address,undefined" $(ASAN_BUILD)/tests/unit
	ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 $(ASAN_BUILD)/tests/unit

# ---- fuzzing (clang's libFuzzer) --------------------------------------------------------
#   make fuzz          builds every target of tests/fuzz and runs each for FUZZ_SECONDS (new
#                      inputs go to build/libfuzzer/corpus/<target>, crashes to build/libfuzzer/)
#   make fuzz-replay   builds them and runs every committed input once (tests/fuzz/corpus/<target>
#                      and tests/fuzz/regressions/<target>), under ASan, UBSan and LeakSanitizer
# One library for all targets, built with nanopb (for fuzz_nanopb) in its own directory.
# tests/fuzz/mutate.py runs a fresh mutation corpus (a few thousand models) through fuzz_pipeline;
# tests/fuzz/make_seeds.py writes the hand-made seeds.
FUZZ_BUILD := build/libfuzzer
FUZZ_TARGETS := reader pipeline extdata nanopb builder
FUZZ_SECONDS ?= 60
FUZZ_SAN := -g -O1 -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
FUZZ_RUN_OPTS := -timeout=30 -rss_limit_mb=2048 -print_final_stats=1
FUZZ_ENV := ASAN_OPTIONS=detect_leaks=1:allocator_may_return_null=1 UBSAN_OPTIONS=print_stacktrace=1
# fuzz_pipeline aborts when a legalized model fails olg_check at its target (every legalize output
# must pass it); OLG_FUZZ_STRICT=0 on the command line turns that off to look for crashes alone.
OLG_FUZZ_STRICT ?= 1
FUZZ_ENV += OLG_FUZZ_STRICT=$(OLG_FUZZ_STRICT)
.PHONY: fuzz fuzz-build fuzz-replay fuzz-targets
fuzz-build:
	$(MAKE) NANOPB=1 BUILD=$(FUZZ_BUILD) CC=clang CFLAGS="$(FUZZ_SAN) -fsanitize=fuzzer-no-link" fuzz-targets

# Meant for the recursive call above (BUILD=$(FUZZ_BUILD)).
fuzz-targets: $(FUZZ_TARGETS:%=$(BUILD)/fuzz_%)
$(BUILD)/fuzz_%: tests/fuzz/fuzz_%.c tests/fuzz/fuzz_common.h $(STLIB)
	$(CC) $(FUZZ_SAN) -fsanitize=fuzzer -std=c11 -D_DEFAULT_SOURCE -Wall -Wextra -Werror \
		-Iinclude -Ilib -Itests/fuzz $< $(STLIB) $(LIBS) -o $@

fuzz: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
		mkdir -p $(FUZZ_BUILD)/corpus/$$t tests/fuzz/corpus/$$t; \
		echo "fuzz_$$t: $(FUZZ_SECONDS) s"; \
		$(FUZZ_ENV) $(FUZZ_BUILD)/fuzz_$$t $(FUZZ_RUN_OPTS) -max_total_time=$(FUZZ_SECONDS) \
			-artifact_prefix=$(FUZZ_BUILD)/$$t- $(FUZZ_BUILD)/corpus/$$t tests/fuzz/corpus/$$t || exit 1; \
	done

fuzz-replay: fuzz-build
	@for t in $(FUZZ_TARGETS); do \
		dirs=tests/fuzz/corpus/$$t; \
		if [ -d tests/fuzz/regressions/$$t ]; then dirs="$$dirs tests/fuzz/regressions/$$t"; fi; \
		n=$$(find $$dirs -type f | wc -l); \
		$(FUZZ_ENV) $(FUZZ_BUILD)/fuzz_$$t $(FUZZ_RUN_OPTS) -runs=0 $$dirs >$(FUZZ_BUILD)/replay-$$t.log 2>&1 \
			|| { cat $(FUZZ_BUILD)/replay-$$t.log; echo "fuzz-replay: fuzz_$$t FAILED"; exit 1; }; \
		echo "fuzz-replay: fuzz_$$t: $$n inputs, no finding"; \
	done

# ThreadSanitizer: 8 threads legalize (to every opset) and write with one frozen registry
# (tests/tsan/legalize_threads.c); any report fails the target. In its own build directory.
TSAN_BUILD := build/tsan
.PHONY: tsan
tsan:
	$(MAKE) BUILD=$(TSAN_BUILD) CC=clang CFLAGS="-O1 -g -fsanitize=thread" LDFLAGS=-fsanitize=thread \
		$(TSAN_BUILD)/tests/legalize_threads
	TSAN_OPTIONS="halt_on_error=1 exitcode=66" $(TSAN_BUILD)/tests/legalize_threads

$(BUILD)/tests/legalize_threads: tests/tsan/legalize_threads.c $(STLIB)
	@mkdir -p $(dir $@)
	$(CC) $(CFLAGS) -std=c11 -D_DEFAULT_SOURCE -Wall -Wextra -Werror -Iinclude -o $@ $< $(STLIB) \
		$(LIBS) $(LDFLAGS)

deps:
	@sh tools/deps.sh

# ---- install ---------------------------------------------------------------------------
install: all man
	install -d $(DESTDIR)$(MANDIR)/man1 $(DESTDIR)$(MANDIR)/man3
	install -m 644 $(BUILD)/man/onnxlegal.1 $(DESTDIR)$(MANDIR)/man1/
	install -m 644 $(BUILD)/man/onnxlegal.3 $(DESTDIR)$(MANDIR)/man3/
	install -d $(DESTDIR)$(LIBDIR) $(DESTDIR)$(INCLUDEDIR)/onnxlegal $(DESTDIR)$(BINDIR) $(DESTDIR)$(PKGCONFIGDIR) \
		$(DESTDIR)$(CMAKEDIR)
	install -m 644 $(PUBLIC_HEADERS) bindings/cpp/onnxlegal.hpp $(DESTDIR)$(INCLUDEDIR)/onnxlegal/
	install -m 644 $(CMAKE_CONFIG) $(DESTDIR)$(CMAKEDIR)/
	install -m 755 $(SHLIB) $(DESTDIR)$(LIBDIR)/
	ln -sf $(notdir $(SHLIB)) $(DESTDIR)$(LIBDIR)/$(SONAME)
	ln -sf $(SONAME) $(DESTDIR)$(LIBDIR)/libonnxlegal.so
	install -m 644 $(STLIB) $(DESTDIR)$(LIBDIR)/
	install -m 644 $(BUILD)/lib/pkgconfig/onnxlegal.pc $(DESTDIR)$(PKGCONFIGDIR)/
	install -m 755 $(TOOL) $(DESTDIR)$(BINDIR)/
	install -d $(DESTDIR)$(PYTHONDIR)/onnxlegal
	install -m 644 $(PY_SRCS) $(DESTDIR)$(PYTHONDIR)/onnxlegal/

uninstall:
	rm -f $(addprefix $(DESTDIR)$(INCLUDEDIR)/onnxlegal/,$(notdir $(wildcard include/onnxlegal/*.h)) onnxlegal.hpp)
	-rmdir $(DESTDIR)$(INCLUDEDIR)/onnxlegal
	rm -f $(DESTDIR)$(CMAKEDIR)/onnxlegalConfig.cmake $(DESTDIR)$(CMAKEDIR)/onnxlegalConfigVersion.cmake
	-rmdir $(DESTDIR)$(CMAKEDIR) $(DESTDIR)$(LIBDIR)/cmake
	rm -f $(DESTDIR)$(MANDIR)/man1/onnxlegal.1 $(DESTDIR)$(MANDIR)/man3/onnxlegal.3
	rm -f $(addprefix $(DESTDIR)$(PYTHONDIR)/onnxlegal/,$(notdir $(PY_SRCS)))
	rm -rf $(DESTDIR)$(PYTHONDIR)/onnxlegal/__pycache__
	-rmdir $(DESTDIR)$(PYTHONDIR)/onnxlegal
	rm -f $(DESTDIR)$(LIBDIR)/libonnxlegal.so.$(VERSION) $(DESTDIR)$(LIBDIR)/$(SONAME) \
		$(DESTDIR)$(LIBDIR)/libonnxlegal.so $(DESTDIR)$(LIBDIR)/libonnxlegal.a \
		$(DESTDIR)$(PKGCONFIGDIR)/onnxlegal.pc $(DESTDIR)$(BINDIR)/onnxlegal

clean:
	rm -rf $(BUILD) $(ASAN_BUILD)

-include $(OBJS:.o=.d) $(TOOL_OBJS:.o=.d) $(TEST_OBJS:.o=.d)
