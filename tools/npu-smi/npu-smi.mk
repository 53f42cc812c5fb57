# npu-smi: the vendor's command line over sysfs, hwmon and /proc
# (tools/npu-smi/npu_smi.h); make install puts it in $(PREFIX)/bin.
NPU_SMI		:= $(BUILD)/tools/npu-smi
NPU_SMI_SRCS	:= $(wildcard tools/npu-smi/*.c)

.PHONY: smi-install

all: $(NPU_SMI)

$(NPU_SMI): $(NPU_SMI_SRCS) tools/npu-smi/npu_smi.h include/npu_soc.h libacl/include/acl/acl_rt.h | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Iinclude -Ilibacl/include -o $@ $(NPU_SMI_SRCS)

install: smi-install

smi-install: $(NPU_SMI)
	install -d $(DESTDIR)$(PREFIX)/bin
	install -m 755 $(NPU_SMI) $(DESTDIR)$(PREFIX)/bin/npu-smi

# Its test compares the chip name with the one source of it.
$(BUILD)/tests/driver/smi_test: USER_CFLAGS += -Iinclude
$(BUILD)/tests/driver/smi_test: include/npu_soc.h
