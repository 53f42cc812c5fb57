# SPDX-License-Identifier: MIT
#
# libnpucc, the ONNX to .om compiler (a static library), and tools/atc, its
# command line. Included by the top-level Makefile.
#
#   make compiler       build/lib/libnpucc.a and build/atc
#
# The ONNX protobuf decoder is generated at build time by protoc-c from
# the onnx.proto that libonnx-dev installs.

ONNX_PROTO	:= /usr/include/onnx/onnx.proto
NPUCC_GEN	:= $(BUILD)/compiler/gen
NPUCC_SRCS	:= $(wildcard compiler/*.c)
NPUCC_HDRS	:= $(wildcard compiler/*.h) $(DTYPES_HDRS) $(NPUCC_GEN)/onnx.pb-c.h
NPUCC_OBJS	:= $(patsubst compiler/%.c,$(BUILD)/compiler/%.o,$(NPUCC_SRCS)) \
		   $(BUILD)/compiler/onnx.pb-c.o
NPUCC_LIB	:= $(BUILD)/lib/libnpucc.a
NPUCC_CFLAGS	:= -fPIC -Icompiler $(DTYPES_CFLAGS) -I$(NPUCC_GEN)
NPUCC_LIBS	:= -lprotobuf-c -lm
ATC		:= $(BUILD)/atc

.PHONY: compiler

all: compiler

compiler: $(NPUCC_LIB) $(ATC)

$(NPUCC_GEN)/onnx.pb-c.c $(NPUCC_GEN)/onnx.pb-c.h &: $(ONNX_PROTO) | deps
	@mkdir -p $(NPUCC_GEN)
	cp $(ONNX_PROTO) $(NPUCC_GEN)/onnx.proto
	cd $(NPUCC_GEN) && protoc-c --c_out=. onnx.proto

$(BUILD)/compiler/onnx.pb-c.o: $(NPUCC_GEN)/onnx.pb-c.c $(NPUCC_GEN)/onnx.pb-c.h
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(NPUCC_CFLAGS) -c -o $@ $<

$(BUILD)/compiler/%.o: compiler/%.c $(NPUCC_HDRS) | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(NPUCC_CFLAGS) -c -o $@ $<

$(NPUCC_LIB): $(NPUCC_OBJS)
	@mkdir -p $(@D)
	rm -f $@
	ar rcs $@ $^

$(ATC): tools/atc/atc.c compiler/npucc.h $(NPUCC_LIB)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Icompiler -o $@ $< $(NPUCC_LIB) $(NPUCC_LIBS)

# Host tests (tools/check runs them), and the test networks atc_test.sh
# compiles (written again only when make_models.py changes).
NPUCC_TEST	:= $(BUILD)/tests/compiler_test
NPUCC_FUSION_TEST := $(BUILD)/tests/compiler_fusion_test
OM_CHECK	:= $(BUILD)/tests/om_check
ONNX_MODELS	:= $(BUILD)/onnx-models/.stamp

tests: $(NPUCC_TEST) $(NPUCC_FUSION_TEST) $(OM_CHECK) $(ONNX_MODELS)

$(OM_CHECK): tests/compiler/om_check.c tests/compiler/om_check.h compiler/om_format.h | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Icompiler -Iuapi -o $@ $<

$(ONNX_MODELS): tests/onnx/make_models.py | deps
	tests/onnx/make_models.py $(@D)
	touch $@

$(NPUCC_TEST): tests/compiler/compiler_test.c
$(NPUCC_FUSION_TEST): tests/compiler/fusion_test.c
$(NPUCC_TEST) $(NPUCC_FUSION_TEST): $(wildcard tests/compiler/*.h) $(NPUCC_HDRS) $(NPUCC_LIB) | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -isystem $(KSFT) -Icompiler $(DTYPES_CFLAGS) -I$(NPUCC_GEN) -Itests/compiler \
		-o $@ $(filter %.c,$^) $(NPUCC_LIB) $(NPUCC_LIBS)

# ONNX end to end: the card's results against onnxruntime's, and ONNX's
# conformance tests (tests/onnx/prepare.py). The guest program needs the
# runtime's aclmdl* API, so it is built only once that has landed.
#
#   make ort                  onnxruntime-node (pinned) into build/ort
#   make e2e-prepare          the test networks: .om, inputs, onnxruntime's outputs
#   make conformance-prepare  libonnx-testdata: .om, inputs, expected outputs
#   make e2e-run, make conformance-run   the manifests on the card, in a guest
OM_CONFORMANCE	:= $(BUILD)/tests/om_conformance
ORT_DIR		:= $(BUILD)/ort
ORT_STAMP	:= $(ORT_DIR)/node_modules/onnxruntime-node/package.json

ifneq ($(wildcard /work/helpers/READY-aclmdl),)
ifneq ($(shell grep -l aclmdlExecute $(ACL_INC)/acl/acl_mdl.h 2>/dev/null),)
tests: $(OM_CONFORMANCE)
endif
endif

.PHONY: ort e2e-prepare conformance-prepare e2e-run conformance-run onnx-check-prepare

E2E_STAMP	:= $(BUILD)/e2e/.stamp
CONFORMANCE_STAMP := $(BUILD)/conformance/.stamp

$(OM_CONFORMANCE): tests/onnx/om_conformance.c $(ACL_HDRS) $(ACL_LIB) $(ACL_LINKS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ $< $(ACL_USE) -lm

ort: $(ORT_STAMP)

# --ignore-scripts: the package's install script would fetch GPU builds;
# the CPU runtime is in the package itself.
$(ORT_STAMP): tests/onnx/package.json tests/onnx/package-lock.json | deps
	@mkdir -p $(ORT_DIR)
	cp tests/onnx/package.json tests/onnx/package-lock.json $(ORT_DIR)/
	cd $(ORT_DIR) && npm ci --no-audit --no-fund --ignore-scripts
	touch $@

# Prepared again only when the compiler, the networks or the scripts change.
$(E2E_STAMP): $(ATC) $(ONNX_MODELS) $(ORT_STAMP) tests/onnx/prepare.py tests/onnx/ort_run.js
	tests/onnx/prepare.py models $(BUILD)/onnx-models $(BUILD)/e2e
	touch $@

$(CONFORMANCE_STAMP): $(ATC) tests/onnx/prepare.py
	tests/onnx/prepare.py conformance $(BUILD)/conformance
	touch $@

e2e-prepare: $(E2E_STAMP)

conformance-prepare: $(CONFORMANCE_STAMP)

# What tools/check's ONNX guest runs (make check).
onnx-check-prepare: $(E2E_STAMP) $(CONFORMANCE_STAMP) $(OM_CONFORMANCE)

check: onnx-check-prepare

e2e-run: e2e-prepare $(OM_CONFORMANCE)
	tools/vm-run --cards 1 --mem 2048 --devmem 1024 -- $(OM_CONFORMANCE) $(BUILD)/e2e/manifest.txt

conformance-run: conformance-prepare $(OM_CONFORMANCE)
	tools/vm-run --cards 1 -- $(OM_CONFORMANCE) $(BUILD)/conformance/manifest.txt \
		>$(BUILD)/conformance/results.tap || true
	tests/onnx/prepare.py tap $(BUILD)/conformance $(BUILD)/conformance/results.tap
