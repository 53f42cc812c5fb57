# SPDX-License-Identifier: MIT
#
# libc_sec: the vendor's bounds-checked memory and string functions
# (securec.h), which its samples include and link. Included by the
# top-level Makefile.

SEC_LIB		:= $(ACL_LIBDIR)/libc_sec.so
SEC_TEST	:= $(BUILD)/tests/securec_test

.PHONY: securec securec-install

all: securec

securec: $(SEC_LIB) $(SEC_TEST)

$(BUILD)/securec/securec.o: securec/securec.c securec/securec.h | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -fPIC -fvisibility=hidden -c -o $@ $<

$(SEC_LIB): $(BUILD)/securec/securec.o
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -shared -Wl,-soname,libc_sec.so -Wl,-z,defs -o $@ $<

$(SEC_TEST): tests/securec/securec_test.c securec/securec.h $(SEC_LIB) | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -isystem $(KSFT) -Isecurec -o $@ $< -L$(ACL_LIBDIR) -lc_sec \
		-Wl,-rpath,$(abspath $(ACL_LIBDIR))

install: securec-install

securec-install: $(SEC_LIB)
	install -d $(DESTDIR)$(PREFIX)/include $(DESTDIR)$(INSTALL_LIBDIR)
	install -m 644 securec/securec.h $(DESTDIR)$(PREFIX)/include/
	install -m 755 $(SEC_LIB) $(DESTDIR)$(INSTALL_LIBDIR)/
