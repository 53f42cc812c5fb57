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
NPUCC_HDRS	:= $(wildcard compiler/*.h) uapi/npu_operator.h $(NPUCC_GEN)/onnx.pb-c.h
NPUCC_OBJS	:= $(patsubst compiler/%.c,$(BUILD)/compiler/%.o,$(NPUCC_SRCS)) \
		   $(BUILD)/compiler/onnx.pb-c.o
NPUCC_LIB	:= $(BUILD)/lib/libnpucc.a
NPUCC_CFLAGS	:= -fPIC -Icompiler -Iuapi -I$(NPUCC_GEN)
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
OM_CHECK	:= $(BUILD)/tests/om_check
ONNX_MODELS	:= $(BUILD)/onnx-models/.stamp

tests: $(NPUCC_TEST) $(OM_CHECK) $(ONNX_MODELS)

$(OM_CHECK): tests/compiler/om_check.c tests/compiler/om_check.h compiler/om_format.h | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Icompiler -Iuapi -o $@ $<

$(ONNX_MODELS): tests/onnx/make_models.py | deps
	tests/onnx/make_models.py $(@D)
	touch $@

$(NPUCC_TEST): tests/compiler/compiler_test.c $(wildcard tests/compiler/*.h) $(NPUCC_HDRS) \
		$(NPUCC_LIB) | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -isystem $(KSFT) -Icompiler -Iuapi -I$(NPUCC_GEN) -Itests/compiler \
		-o $@ $< $(NPUCC_LIB) $(NPUCC_LIBS)
