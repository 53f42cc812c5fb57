# SPDX-License-Identifier: MIT
#
# libhccl: the vendor's collective communication API (hccl/hccl.h) over
# libascendcl, the cards' DMA between ranks of one host. Included by the
# top-level Makefile after libacl/libacl.mk.
#
#   make hccl            the library and tests/hccl

HCCL_LIB	:= $(ACL_LIBDIR)/libhccl.so
HCCL_INC	:= hccl/include
HCCL_HDRS	:= $(wildcard $(HCCL_INC)/hccl/*.h)
HCCL_SRCS	:= $(wildcard hccl/src/*.c)
HCCL_OBJS	:= $(patsubst hccl/src/%.c,$(BUILD)/hccl/%.o,$(HCCL_SRCS))
HCCL_CFLAGS	:= -I$(HCCL_INC) -I$(ACL_INC) $(DTYPES_CFLAGS) $(ACL_JSON_CFLAGS)
HCCL_TESTS	:= $(patsubst tests/hccl/%.c,$(BUILD)/tests/hccl/%,$(wildcard tests/hccl/*.c))

.PHONY: hccl hccl-install

all: hccl

hccl: $(HCCL_LIB) $(HCCL_TESTS)

$(BUILD)/hccl/%.o: hccl/src/%.c $(wildcard hccl/src/*.h) $(HCCL_HDRS) $(ACL_HDRS) \
		include/npu_acl_private.h include/npu_acl_share.h uapi/npu_operator.h | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -fPIC -fvisibility=hidden $(HCCL_CFLAGS) -c -o $@ $<

$(HCCL_LIB): $(HCCL_OBJS) $(ACL_LIB) $(ACL_LINKS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -shared -Wl,-z,defs -L$(ACL_LIBDIR) -Wl,-rpath,'$$ORIGIN' \
		-Wl,-soname,libhccl.so -o $@ $(HCCL_OBJS) -lascendcl $(UCX_LIBS) $(ACL_JSON_LIBS)

$(BUILD)/tests/hccl/%: tests/hccl/%.c $(wildcard tests/hccl/*.h) $(ACL_TEST_DEPS) $(HCCL_HDRS) \
		$(HCCL_LIB) | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(ACL_TEST_CFLAGS) -I$(HCCL_INC) -o $@ $< $(ACL_USE) -lhccl -lm

install: hccl-install

# The vendor's layout: include/hccl, the library in lib64.
hccl-install: $(HCCL_LIB) acl-install
	install -d $(DESTDIR)$(PREFIX)/include/hccl $(DESTDIR)$(INSTALL_LIBDIR)
	install -m 644 $(HCCL_HDRS) $(DESTDIR)$(PREFIX)/include/hccl/
	install -m 755 $(HCCL_LIB) $(DESTDIR)$(INSTALL_LIBDIR)/
