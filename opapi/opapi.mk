# SPDX-License-Identifier: MIT
#
# libopapi: the aclnn operators (aclnnop/aclnn_<op>.h), each a translation
# onto card operators over libnnopbase; and libacl_op_compiler, the
# vendor's online operator compiler, which this stack does not have.
# Included by the top-level Makefile after nnopbase/nnopbase.mk.

OPAPI_LIB	:= $(ACL_LIBDIR)/libopapi.so
OPAPI_INC	:= opapi/include
OPAPI_HDRS	:= $(wildcard $(OPAPI_INC)/aclnnop/*.h)
OPAPI_SRCS	:= $(wildcard opapi/src/*.c)
OPAPI_OBJS	:= $(patsubst opapi/src/%.c,$(BUILD)/opapi/%.o,$(OPAPI_SRCS))
OPAPI_CFLAGS	:= -I$(OPAPI_INC) $(NNOP_CFLAGS)
OPCOMP_LIB	:= $(ACL_LIBDIR)/libacl_op_compiler.so
OPCOMP_SRC	:= opapi/op_compiler/op_compiler.c

.PHONY: opapi aclnn-install

all: opapi

opapi: $(OPAPI_LIB) $(OPCOMP_LIB)

$(BUILD)/opapi/%.o: opapi/src/%.c $(wildcard opapi/src/*.h) $(OPAPI_HDRS) $(NNOP_HDRS) $(ACL_HDRS) \
		$(DTYPES_HDRS) | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -fPIC -fvisibility=hidden $(OPAPI_CFLAGS) -c -o $@ $<

$(OPAPI_LIB): $(OPAPI_OBJS) $(NNOP_LIB)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(NNOP_LDFLAGS) -Wl,-soname,libopapi.so -o $@ $(OPAPI_OBJS) \
		-lnnopbase -lascendcl -lm

$(OPCOMP_LIB): $(OPCOMP_SRC) $(ACL_HDRS) include/npu_acl_private.h $(ACL_LIB) $(ACL_LINKS) | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -fPIC -fvisibility=hidden -I$(ACL_INC) $(DTYPES_CFLAGS) $(NNOP_LDFLAGS) \
		-Wl,-soname,libacl_op_compiler.so -o $@ $< -lascendcl

install: aclnn-install

# The vendor's layout: include/aclnn, include/aclnnop, the libraries in lib64.
aclnn-install: nnopbase opapi acl-install
	install -d $(DESTDIR)$(PREFIX)/include/aclnn/opdev $(DESTDIR)$(PREFIX)/include/aclnnop \
		$(DESTDIR)$(INSTALL_LIBDIR)/pkgconfig
	install -m 644 $(wildcard $(NNOP_INC)/aclnn/*.h) $(DESTDIR)$(PREFIX)/include/aclnn/
	install -m 644 $(wildcard $(NNOP_INC)/aclnn/opdev/*.h) $(DESTDIR)$(PREFIX)/include/aclnn/opdev/
	install -m 644 $(OPAPI_HDRS) $(DESTDIR)$(PREFIX)/include/aclnnop/
	install -m 755 $(NNOP_LIB) $(OPAPI_LIB) $(OPCOMP_LIB) $(DESTDIR)$(INSTALL_LIBDIR)/
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$${prefix}/lib64|' \
	    -e 's|@INCLUDEDIR@|$${prefix}/include|' -e 's|@VERSION@|$(ACL_VERSION)|' \
	    opapi/aclnn.pc.in >$(DESTDIR)$(INSTALL_LIBDIR)/pkgconfig/aclnn.pc

# The aclnn kselftest suites (tests/aclnn), run in the guest by tools/check.
ACLNN_TESTS	:= $(patsubst tests/aclnn/%.c,$(BUILD)/tests/aclnn/%,$(wildcard tests/aclnn/*.c))

all: $(ACLNN_TESTS)

$(BUILD)/tests/aclnn/%: tests/aclnn/%.c $(ACL_TEST_DEPS) $(NNOP_HDRS) $(OPAPI_HDRS) $(OPAPI_LIB) | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(ACL_TEST_CFLAGS) -I$(NNOP_INC) -I$(OPAPI_INC) -o $@ $< $(ACL_USE) \
		-lopapi -lnnopbase

# Examples of ours that call aclnn (examples/aclnn), run with the others by
# tests/acl-extra/examples.sh.
ACLNN_EXAMPLES	:= $(patsubst examples/aclnn/%.c,$(BUILD)/examples/aclnn_%,$(wildcard examples/aclnn/*.c))

all: $(ACLNN_EXAMPLES)

$(BUILD)/examples/aclnn_%: examples/aclnn/%.c examples/check.h $(ACL_HDRS) $(NNOP_HDRS) $(OPAPI_HDRS) \
		$(OPAPI_LIB) | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -I$(NNOP_INC) -I$(OPAPI_INC) -o $@ $< $(ACL_USE) -lopapi -lnnopbase -lm
