# SPDX-License-Identifier: GPL-2.0-only
#
# make            build the module, the card model, the library, the tools
#                 and the tests
# make check      run every test: the model's and the guest runner's on the
#                 host, then the driver's and the library's kselftest suites
#                 in a guest with two emulated cards; ends "N passed, M failed"
# make check-debug  the guest suites again, on a debug kernel (lockdep, KASAN,
#                 kmemleak, debug objects, DMA-API debug) built once from
#                 linux-source-6.12 into build/debug-kernel (tools/debug-kernel)
# make run        the main job: an AscendCL program on two emulated cards
# make bench      acl-bench (libacl/libacl.mk) in a guest sized for it
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
MODEL_HDRS	:= $(wildcard tools/npu-model/*.h) driver/npu_hw.h
MODEL_TEST_SRCS	:= $(wildcard tests/model/*.c)
DRIVER_TESTS	:= $(patsubst tests/driver/%.c,$(BUILD)/tests/driver/%,$(wildcard tests/driver/*.c))

.PHONY: all deps module model tests check check-debug debug-kernel run sparse checkpatch clean install

all: module model tests

# The runtime library, its tests, examples and benchmarks.
include libacl/libacl.mk

deps:
	@tools/deps

module: deps
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 modules

model: $(BUILD)/npu-model

tests: $(BUILD)/tests/model_test $(DRIVER_TESTS) $(BUILD)/tests/uapi_layout.o

# Fails the build when a uapi or hardware struct gains a hole or changes size.
$(BUILD)/tests/uapi_layout.o: tests/uapi_layout.c uapi/npu_accel.h driver/npu_hw.h | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Wpadded -Iuapi -Idriver $(patsubst -I%,-isystem %,$(DRM_CFLAGS)) -c -o $@ $<

$(BUILD)/npu-model: $(MODEL_SRCS) $(MODEL_HDRS) | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Idriver -o $@ $(MODEL_SRCS)

$(BUILD)/tests/model_test: $(MODEL_TEST_SRCS) $(wildcard tests/model/*.h) driver/npu_hw.h | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -isystem $(KSFT) -Idriver -o $@ $(MODEL_TEST_SRCS)

$(BUILD)/tests/driver/%: tests/driver/%.c $(wildcard tests/driver/*.h tests/include/*.h) driver/npu_hw.h uapi/npu_accel.h | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -isystem $(KSFT) -Itests/include -Idriver -Iuapi $(DRM_CFLAGS) -o $@ $< $(DRM_LIBS)

check: all
	tools/check

# The kernel once (hours of CPU the first time), npu.ko whenever it changed.
debug-kernel: deps
	tools/debug-kernel/build

check-debug: all debug-kernel
	tools/check --debug

run: all
	tools/vm-run --cards 2 -- sh -c '$(BUILD)/examples/acl_demo && tools/npu-smi'

sparse: deps
	$(MAKE) -C $(KDIR) M=$(CURDIR) W=1 C=2 modules

checkpatch: deps
	$(BUILD)/ksrc/linux-source-6.12/scripts/checkpatch.pl --no-tree --strict -f \
		$(filter-out %.mod.c,$(wildcard driver/*.[ch] uapi/*.h))

clean:
	-$(MAKE) -C $(KDIR) M=$(CURDIR) clean
	rm -rf $(BUILD)
