# SPDX-License-Identifier: MIT
#
# libascendcl: the AscendCL runtime library over the npu accel driver, its
# tests, examples and benchmark. Included by the top-level Makefile.
#
#   make acl             library, pkg-config file, tests, examples, bench
#   make acl-check       the C++ and pkg-config checks (on the host)
#   make acl-test        the tests/acl suites in a guest with two cards
#   make acl-run         examples/acl_demo in a guest
#   make acl-tsan        the library and the tests/acl suites under ThreadSanitizer,
#                        in build/tsan (tools/check runs those suites too)
#   make install         headers, libraries and ascendcl.pc under
#                        $(DESTDIR)$(PREFIX) (PREFIX defaults to /usr/local),
#                        the libraries in lib64 as the vendor's toolkit has them

PREFIX		?= /usr/local
# Where every part installs its libraries and .pc files: the vendor's name.
INSTALL_LIBDIR	 = $(PREFIX)/lib64
ACL_SOVER	:= 1
ACL_VERSION	:= 1.0.0
ACL_LIBDIR	:= $(BUILD)/lib
ACL_LIB		:= $(ACL_LIBDIR)/libascendcl.so.$(ACL_VERSION)
# Profiling (acl/acl_prof.h, mstx/ms_tools_ext.h, profiling/aprof_pub.h) is
# part of libascendcl, since it stamps the runtime's own submissions; the
# vendor's build files link libmsprofiler.so and libprofapi.so for it.
ACL_PROF_HDRS	:= libacl/include/mstx/ms_tools_ext.h libacl/include/profiling/aprof_pub.h
ACL_PROF_LIBS	:= libmsprofiler.so libprofapi.so
ACL_PROF_LINKS	:= $(addprefix $(ACL_LIBDIR)/,$(ACL_PROF_LIBS))
ACL_LINKS	:= $(ACL_LIBDIR)/libascendcl.so.$(ACL_SOVER) $(ACL_LIBDIR)/libascendcl.so \
		   $(ACL_LIBDIR)/libacl_rt.so $(ACL_LIBDIR)/libacl_rt_impl.so
ACL_PC		:= $(ACL_LIBDIR)/pkgconfig/ascendcl.pc
ACL_INC		:= libacl/include
ACL_LINKS	+= $(ACL_PROF_LINKS)
ACL_HDRS	:= $(wildcard $(ACL_INC)/acl/*.h $(ACL_INC)/acl/error_codes/*.h) $(ACL_PROF_HDRS)
ACL_SRCS	:= $(wildcard libacl/src/*.c)
ACL_SRC_HDRS	:= $(wildcard libacl/src/*.h)
ACL_OBJS	:= $(patsubst libacl/src/%.c,$(BUILD)/libacl/%.o,$(ACL_SRCS))
ACL_JSON_CFLAGS	 = $(shell pkg-config --cflags json-c)
ACL_JSON_LIBS	 = $(shell pkg-config --libs json-c)
ACL_RPATH	:= -Wl,-rpath,$(abspath $(ACL_LIBDIR))
ACL_USE		:= -I$(ACL_INC) -L$(ACL_LIBDIR) -lascendcl $(ACL_RPATH)

ACL_TESTS	:= $(patsubst tests/acl/%.c,$(BUILD)/tests/acl/%,$(wildcard tests/acl/*.c))
ACL_HOST_TESTS	:= $(patsubst tests/acl-host/%.c,$(BUILD)/tests/acl-host/%,$(wildcard tests/acl-host/*.c))
ACL_TEST_HDRS	:= $(wildcard tests/acl/*.h)
ACL_EXAMPLES	:= $(patsubst examples/%.c,$(BUILD)/examples/%,$(wildcard examples/*.c))
ACL_BENCH	:= $(BUILD)/tools/acl-bench
PEER_BENCH	:= $(BUILD)/tools/peer-bench
ACL_CXX_CHECK	:= $(BUILD)/tests/acl-extra/cxx_check
ACL_PC_CHECK	:= $(BUILD)/tests/acl-extra/pkgconfig_check

.PHONY: acl acl-lib acl-tsan acl-check acl-test acl-run acl-install acl-prof-install

all: acl

acl: acl-lib acl-tsan $(ACL_TESTS) $(ACL_HOST_TESTS) $(ACL_EXAMPLES) $(ACL_BENCH) $(PEER_BENCH) $(ACL_CXX_CHECK) \
     $(ACL_PC_CHECK)

acl-lib: $(ACL_LIB) $(ACL_LINKS) $(ACL_PC)

ACL_OBJ_DEPS	:= $(ACL_SRC_HDRS) $(ACL_HDRS) uapi/npu_accel.h $(DTYPES_HDRS) include/npu_acl_private.h include/npu_acl_share.h \
		   compiler/om_format.h
ACL_OBJ_CFLAGS	 = -fPIC -fvisibility=hidden -I$(ACL_INC) $(DTYPES_CFLAGS) -Icompiler $(DRM_CFLAGS) \
		   $(ACL_JSON_CFLAGS)
ACL_LIB_LDFLAGS	 = -shared -Wl,-soname,libascendcl.so.$(ACL_SOVER) -Wl,-z,defs
ACL_LIB_LIBS	 = $(DRM_LIBS) $(ACL_JSON_LIBS) -lm
ACL_TEST_CFLAGS	 = -isystem $(KSFT) -Itests/include -Idriver -Iuapi -Icompiler $(DRM_CFLAGS)
ACL_TEST_DEPS	 = $(ACL_TEST_HDRS) $(wildcard tests/include/*.h) driver/npu_hw.h \
		   compiler/om_format.h uapi/npu_operator.h $(ACL_HDRS)

$(BUILD)/libacl/%.o: libacl/src/%.c $(ACL_OBJ_DEPS) | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(ACL_OBJ_CFLAGS) -c -o $@ $<

$(ACL_LIB): $(ACL_OBJS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(ACL_LIB_LDFLAGS) -o $@ $(ACL_OBJS) $(ACL_LIB_LIBS)

$(ACL_LIBDIR)/libascendcl.so.$(ACL_SOVER): $(ACL_LIB)
	ln -sf libascendcl.so.$(ACL_VERSION) $@

$(ACL_LIBDIR)/libascendcl.so: $(ACL_LIBDIR)/libascendcl.so.$(ACL_SOVER)
	ln -sf libascendcl.so.$(ACL_SOVER) $@

# Build systems that link -lacl_rt or -lacl_rt_impl get the same library.
$(ACL_LIBDIR)/libacl_rt.so $(ACL_LIBDIR)/libacl_rt_impl.so: $(ACL_LIBDIR)/libascendcl.so
	ln -sf libascendcl.so $@

# pkg-config file for the build tree (absolute paths into the checkout).
$(ACL_PC): libacl/ascendcl.pc.in libacl/libacl.mk
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(abspath .)|' -e 's|@LIBDIR@|$(abspath $(ACL_LIBDIR))|' \
	    -e 's|@INCLUDEDIR@|$(abspath $(ACL_INC))|' -e 's|@VERSION@|$(ACL_VERSION)|' $< >$@

$(BUILD)/tests/acl/%: tests/acl/%.c $(ACL_TEST_DEPS) $(ACL_LIB) $(ACL_LINKS) | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) $(ACL_TEST_CFLAGS) -o $@ $< $(ACL_USE)

# The library and its guest suites again under ThreadSanitizer, each suite
# linked to this library: tools/check runs them after the others. -Wno-tsan:
# TSan does not model atomic_thread_fence, and the one fence of the library
# (direct_ring.c) orders its stores against the card, which TSan cannot see.
ACL_TSAN	:= $(BUILD)/tsan
ACL_TSAN_CFLAGS	:= $(USER_CFLAGS) -fsanitize=thread -Wno-tsan
ACL_TSAN_LIBDIR	:= $(ACL_TSAN)/lib
ACL_TSAN_LIB	:= $(ACL_TSAN_LIBDIR)/libascendcl.so.$(ACL_VERSION)
ACL_TSAN_LINKS	:= $(ACL_TSAN_LIBDIR)/libascendcl.so.$(ACL_SOVER) $(ACL_TSAN_LIBDIR)/libascendcl.so
ACL_TSAN_OBJS	:= $(patsubst libacl/src/%.c,$(ACL_TSAN)/libacl/%.o,$(ACL_SRCS))
ACL_TSAN_TESTS	:= $(patsubst tests/acl/%.c,$(ACL_TSAN)/tests/acl/%,$(wildcard tests/acl/*.c))

acl-tsan: $(ACL_TSAN_TESTS)

$(ACL_TSAN)/libacl/%.o: libacl/src/%.c $(ACL_OBJ_DEPS) | deps
	@mkdir -p $(@D)
	$(CC) $(ACL_TSAN_CFLAGS) $(ACL_OBJ_CFLAGS) -c -o $@ $<

$(ACL_TSAN_LIB): $(ACL_TSAN_OBJS)
	@mkdir -p $(@D)
	$(CC) $(ACL_TSAN_CFLAGS) $(ACL_LIB_LDFLAGS) -o $@ $(ACL_TSAN_OBJS) $(ACL_LIB_LIBS)

$(ACL_TSAN_LINKS): $(ACL_TSAN_LIB)
	ln -sf libascendcl.so.$(ACL_VERSION) $@

$(ACL_TSAN)/tests/acl/%: tests/acl/%.c $(ACL_TEST_DEPS) $(ACL_TSAN_LIB) $(ACL_TSAN_LINKS) | deps
	@mkdir -p $(@D)
	$(CC) $(ACL_TSAN_CFLAGS) $(ACL_TEST_CFLAGS) -o $@ $< -I$(ACL_INC) -L$(ACL_TSAN_LIBDIR) \
		-lascendcl -Wl,-rpath,$(abspath $(ACL_TSAN_LIBDIR))

# The model loader's parser alone, under ASan and UBSan; tools/check runs it on the host.
ACL_PARSER_SRCS	:= libacl/src/model_parse.c libacl/src/dtype.c

$(BUILD)/tests/acl-host/%: tests/acl-host/%.c $(ACL_PARSER_SRCS) $(ACL_SRC_HDRS) $(ACL_HDRS) \
			  $(wildcard tests/include/*.h) compiler/om_format.h $(DTYPES_HDRS) | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -fsanitize=address,undefined -fno-sanitize-recover=all \
		-isystem $(KSFT) -Itests/include -I$(ACL_INC) -Ilibacl/src $(DTYPES_CFLAGS) -Icompiler \
		$(DRM_CFLAGS) -o $@ $< $(ACL_PARSER_SRCS)

# The lock checks alone (lock.c and acl_internal.h's locks); tools/check runs it on the host.
$(BUILD)/tests/acl-host/lock_check_test: tests/acl-host/lock_check_test.c libacl/src/lock.c \
					  $(ACL_SRC_HDRS) $(ACL_HDRS) | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -isystem $(KSFT) -I$(ACL_INC) -Ilibacl/src -Iuapi $(DRM_CFLAGS) \
		-o $@ $< libacl/src/lock.c

# The reservation allocator alone; tools/check runs it on the host.
$(BUILD)/tests/acl-host/va_space_test: tests/acl-host/va_space_test.c libacl/src/va_space.c \
				       libacl/src/va_space.h uapi/npu_accel.h | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -fsanitize=address,undefined -fno-sanitize-recover=all -isystem $(KSFT) \
		-Ilibacl/src -Iuapi $(DRM_CFLAGS) -o $@ $< libacl/src/va_space.c -lpthread

$(BUILD)/examples/%: examples/%.c examples/check.h $(ACL_HDRS) $(ACL_LIB) $(ACL_LINKS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ $< $(ACL_USE)

# It also calls the driver directly, for the costs the library adds to it.
$(ACL_BENCH): tools/acl-bench.c uapi/npu_accel.h $(ACL_HDRS) $(ACL_LIB) $(ACL_LINKS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Iuapi $(DRM_CFLAGS) -o $@ $< $(ACL_USE) -lm

$(PEER_BENCH): tools/peer-bench.c uapi/npu_accel.h $(ACL_HDRS) $(ACL_LIB) $(ACL_LINKS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -Iuapi $(DRM_CFLAGS) -o $@ $< $(ACL_USE)

# The public headers compile as C++ (every declaration in extern "C").
$(ACL_CXX_CHECK): tests/acl-extra/cxx_check.cpp $(ACL_HDRS) $(ACL_LIB) $(ACL_LINKS)
	@mkdir -p $(@D)
	g++ -O2 -g -Wall -Wextra -Werror -std=c++17 -pthread -o $@ $< $(ACL_USE)

# A program built only with what pkg-config says.
$(ACL_PC_CHECK): tests/acl-extra/pkgconfig_check.c $(ACL_PC) $(ACL_HDRS) $(ACL_LIB) $(ACL_LINKS)
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ $< \
		$$(PKG_CONFIG_PATH=$(abspath $(ACL_LIBDIR)/pkgconfig) pkg-config --cflags --libs ascendcl) \
		$(ACL_RPATH)

acl-check: $(ACL_CXX_CHECK) $(ACL_PC_CHECK)
	$(ACL_CXX_CHECK)
	$(ACL_PC_CHECK)

# In tools/check's order: the fault suites last.
acl-test: acl
	tools/vm-run --cards 2 -- tools/run-suites $$(tools/check --acl-suites)

acl-run: acl
	tools/vm-run --cards 2 -- $(BUILD)/examples/acl_demo

install: acl-install

acl-install: acl-lib
	install -d $(DESTDIR)$(PREFIX)/include/acl/error_codes $(DESTDIR)$(INSTALL_LIBDIR)/pkgconfig
	install -m 644 $(wildcard $(ACL_INC)/acl/*.h) $(DESTDIR)$(PREFIX)/include/acl/
	install -m 644 $(wildcard $(ACL_INC)/acl/error_codes/*.h) \
		$(DESTDIR)$(PREFIX)/include/acl/error_codes/
	install -m 755 $(ACL_LIB) $(DESTDIR)$(INSTALL_LIBDIR)/
	ln -sf libascendcl.so.$(ACL_VERSION) $(DESTDIR)$(INSTALL_LIBDIR)/libascendcl.so.$(ACL_SOVER)
	ln -sf libascendcl.so.$(ACL_SOVER) $(DESTDIR)$(INSTALL_LIBDIR)/libascendcl.so
	ln -sf libascendcl.so $(DESTDIR)$(INSTALL_LIBDIR)/libacl_rt.so
	ln -sf libascendcl.so $(DESTDIR)$(INSTALL_LIBDIR)/libacl_rt_impl.so
	sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$${prefix}/lib64|' \
	    -e 's|@INCLUDEDIR@|$${prefix}/include|' -e 's|@VERSION@|$(ACL_VERSION)|' \
	    libacl/ascendcl.pc.in >$(DESTDIR)$(INSTALL_LIBDIR)/pkgconfig/ascendcl.pc
	sed -e 's|@PREFIX@|$(PREFIX)|' libacl/set_env.sh.in >$(DESTDIR)$(PREFIX)/set_env.sh

# The profiler's trace writer alone; tools/check runs it on the host.
$(BUILD)/tests/acl-host/prof_trace_test: tests/acl-host/prof_trace_test.c libacl/src/prof_trace.c \
					 $(ACL_SRC_HDRS) $(ACL_HDRS) | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -fsanitize=address,undefined -fno-sanitize-recover=all -isystem $(KSFT) \
		-I$(ACL_INC) -Ilibacl/src -Iuapi $(DRM_CFLAGS) $(ACL_JSON_CFLAGS) -o $@ $< $(ACL_JSON_LIBS)

# Profiling's libraries: see ACL_PROF_LIBS. prof_test reads its traces with
# json-c (named before the source in the suites' rules, so kept as needed).
$(BUILD)/tests/acl/prof_test $(ACL_TSAN)/tests/acl/prof_test: ACL_TEST_CFLAGS += $(ACL_JSON_CFLAGS) \
	-Wl,--push-state,--no-as-needed $(ACL_JSON_LIBS) -Wl,--pop-state

$(ACL_PROF_LINKS): $(ACL_LIBDIR)/libascendcl.so
	ln -sf libascendcl.so $@

install: acl-prof-install

acl-prof-install: acl-install
	install -d $(DESTDIR)$(PREFIX)/include/mstx $(DESTDIR)$(PREFIX)/include/profiling
	install -m 644 $(ACL_INC)/mstx/ms_tools_ext.h $(DESTDIR)$(PREFIX)/include/mstx/
	install -m 644 $(ACL_INC)/profiling/aprof_pub.h $(DESTDIR)$(PREFIX)/include/profiling/
	for l in $(ACL_PROF_LIBS); do ln -sf libascendcl.so $(DESTDIR)$(INSTALL_LIBDIR)/$$l; done
