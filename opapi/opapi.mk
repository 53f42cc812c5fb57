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

.PHONY: opapi

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
