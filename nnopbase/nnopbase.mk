# SPDX-License-Identifier: MIT
#
# libnnopbase: aclnn's runtime half (objects, executors, launches) over
# libascendcl. Included by the top-level Makefile after libacl/libacl.mk.

NNOP_LIB	:= $(ACL_LIBDIR)/libnnopbase.so
NNOP_INC	:= nnopbase/include
NNOP_HDRS	:= $(wildcard $(NNOP_INC)/aclnn/*.h $(NNOP_INC)/aclnn/opdev/*.h) nnopbase/nnop.h
NNOP_SRCS	:= $(wildcard nnopbase/src/*.c)
NNOP_OBJS	:= $(patsubst nnopbase/src/%.c,$(BUILD)/nnopbase/%.o,$(NNOP_SRCS))
# What libopapi and the tests compile against: the installed headers and nnop.h.
NNOP_CFLAGS	:= -I$(NNOP_INC) -Innopbase -I$(ACL_INC) $(DTYPES_CFLAGS)
# Libraries next to libascendcl find it, and each other, where they are.
NNOP_LDFLAGS	:= -shared -Wl,-z,defs -L$(ACL_LIBDIR) -Wl,-rpath,'$$ORIGIN'

.PHONY: nnopbase

all: nnopbase

nnopbase: $(NNOP_LIB)

$(BUILD)/nnopbase/%.o: nnopbase/src/%.c $(wildcard nnopbase/src/*.h) $(NNOP_HDRS) $(ACL_HDRS) \
		$(DTYPES_HDRS) include/npu_acl_private.h | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -fPIC -fvisibility=hidden $(NNOP_CFLAGS) -c -o $@ $<

$(NNOP_LIB): $(NNOP_OBJS) $(ACL_LIB) $(ACL_LINKS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(NNOP_LDFLAGS) -Wl,-soname,libnnopbase.so -o $@ $(NNOP_OBJS) -lascendcl
