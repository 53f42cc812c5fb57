# SPDX-License-Identifier: GPL-2.0-only
#
# make            build the module, the card model, the library, the tools
#                 and the tests
# make check      run every test: the model's and the guest runner's on the
#                 host, then the driver's and the library's kselftest suites
#                 in a guest with two emulated cards; ends "N passed, M failed"
# make check-debug  the driver's and the library's guest suites on a debug
#                 kernel (lockdep, KASAN, kmemleak, debug objects, DMA-API
#                 debug) built once from linux-source-6.12 into
#                 build/debug-kernel (tools/debug-kernel); see README.md
# make run        the main job: an AscendCL program on two emulated cards
# make bench      oplib-bench on the host, then op-bench and acl-bench
#                 (libacl/libacl.mk) in one guest sized for them
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
DRM_CFLAGS	 = $(shell pkg-config --cflags libdrm)
DRM_LIBS	 = $(shell pkg-config --libs libdrm)

MODEL_SRCS	:= $(wildcard tools/npu-model/*.c)
MODEL_HDRS	:= $(wildcard tools/npu-model/*.h) driver/npu_hw.h uapi/npu_operator.h
# The card's operator library, which oplib_test and oplib-bench also run.
OPLIB_SRCS	:= $(wildcard tools/npu-model/oplib*.c)
OPLIB_HDRS	:= $(wildcard tools/npu-model/oplib*.h) driver/npu_hw.h uapi/npu_operator.h
ONEDNN_LIBS	:= -ldnnl -lgomp -lm
MODEL_TEST_SRCS	:= $(filter-out tests/model/oplib_test.c,$(wildcard tests/model/*.c))
OP_BENCH	:= $(BUILD)/tools/op-bench
DRIVER_TESTS	:= $(patsubst tests/driver/%.c,$(BUILD)/tests/driver/%,$(wildcard tests/driver/*.c))

.PHONY: all deps module model tests check check-debug debug-kernel run bench sparse checkpatch clean install

all: module model tests $(OP_BENCH)

# The runtime library, its tests, examples and benchmarks.
include libacl/libacl.mk
# The Python module "acl" (pyACL) over it.
include python/python.mk

# The ONNX compiler (libnpucc) and tools/atc.
include compiler/compiler.mk

deps:
	@tools/deps

module: deps
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

model: $(BUILD)/npu-model $(BUILD)/oplib-bench

tests: $(BUILD)/tests/model_test $(BUILD)/tests/oplib_test $(DRIVER_TESTS) \
	$(BUILD)/tests/uapi_layout.o

# Fails the build when a uapi or hardware struct gains a hole or changes size.
$(BUILD)/tests/uapi_layout.o: tests/uapi_layout.c uapi/npu_accel.h uapi/npu_operator.h driver/npu_hw.h | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Wpadded -Iuapi -Idriver $(patsubst -I%,-isystem %,$(DRM_CFLAGS)) -c -o $@ $<

$(BUILD)/npu-model: $(MODEL_SRCS) $(MODEL_HDRS) | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Idriver -Iuapi -o $@ $(MODEL_SRCS) $(ONEDNN_LIBS)

# The operator library on host memory: the reference for the guest's op-bench.
$(BUILD)/oplib-bench: tools/oplib-bench.c tools/bench_operators.h $(OPLIB_SRCS) $(OPLIB_HDRS) | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Idriver -Iuapi -Itools/npu-model -o $@ $< $(OPLIB_SRCS) $(ONEDNN_LIBS)

# The same operators on the card, from the guest, through the driver's uapi.
$(OP_BENCH): tools/op-bench.c tools/bench_operators.h $(wildcard tests/include/*.h) \
		driver/npu_hw.h uapi/npu_accel.h uapi/npu_operator.h | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Itests/include -Idriver -Iuapi $(DRM_CFLAGS) $(ACL_JSON_CFLAGS) -o $@ $< \
		$(DRM_LIBS) $(ACL_JSON_LIBS) -lm

$(BUILD)/tests/model_test: $(MODEL_TEST_SRCS) $(wildcard tests/model/*.h) driver/npu_hw.h uapi/npu_operator.h | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -isystem $(KSFT) -Idriver -Iuapi -o $@ $(MODEL_TEST_SRCS)

$(BUILD)/tests/oplib_test: tests/model/oplib_test.c $(OPLIB_SRCS) $(OPLIB_HDRS) | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -isystem $(KSFT) -Idriver -Iuapi -Itools/npu-model -o $@ $< $(OPLIB_SRCS) $(ONEDNN_LIBS)

$(BUILD)/tests/driver/%: tests/driver/%.c $(wildcard tests/driver/*.h tests/include/*.h) driver/npu_hw.h uapi/npu_accel.h uapi/npu_operator.h | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -isystem $(KSFT) -Itests/include -Idriver -Iuapi $(DRM_CFLAGS) -o $@ $< $(DRM_LIBS) -lm

check: all
	tools/check

# The kernel once (26 min of CPU the first time), npu.ko whenever it changed.
debug-kernel: deps
	tools/debug-kernel/build

check-debug: all debug-kernel
	tools/check --debug

run: all
	tools/vm-run --cards 2 -- sh -c '$(BUILD)/examples/acl_demo && tools/npu-smi'

# Host and guest close together, the host first: the operators natively,
# as one card engine runs them, then on the card, then the runtime's costs.
# The guest cannot see the host's load: uptime says it around each part.
# acl-bench's largest copies need 2 GiB of RAM and 1 GiB of device memory
# (two device and four host buffers of 256 MiB).
bench: all
	@mkdir -p $(BUILD)/bench
	@uptime
	$(BUILD)/oplib-bench --json $(BUILD)/bench/oplib-bench.json
	@uptime
	tools/vm-run --mem 2048 --devmem 1024 -- \
		sh -c '$(OP_BENCH) --native $(BUILD)/bench/oplib-bench.json && $(ACL_BENCH)'
	@uptime

sparse: deps
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 C=2 modules

checkpatch: deps
	$(BUILD)/ksrc/linux-source-6.12/scripts/checkpatch.pl --no-tree --strict -f \
		$(filter-out %.mod.c,$(wildcard driver/*.[ch] uapi/*.h))

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -rf $(BUILD)
