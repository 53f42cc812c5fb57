# SPDX-License-Identifier: MIT
#
# libge_runner, the graph engine API (ge::Session, ge::Graph, the operator
# builders of all_ops.h) in C++ over libnpucc and libascendcl, and
# libfmk_onnx_parser (aclgrphParseONNX). Included by the top-level Makefile.
#
#   make ge            the libraries, pkg-config files, tests and example
#   make install       also installs the headers, libraries and .pc files

CXX		:= g++
GE_CXXFLAGS	:= -O2 -g -Wall -Wextra -Werror -std=c++17 -pthread
GE_INC		:= libge/include
GE_HDRS		:= $(wildcard $(GE_INC)/*.h $(GE_INC)/ge/*.h $(GE_INC)/graph/*.h $(GE_INC)/parser/*.h)
GE_SRCS		:= $(filter-out libge/src/parser.cc,$(wildcard libge/src/*.cc))
GE_OBJS		:= $(patsubst libge/src/%.cc,$(BUILD)/libge/%.o,$(GE_SRCS))
GE_LIB		:= $(ACL_LIBDIR)/libge_runner.so
GE_LINKS	:= $(ACL_LIBDIR)/libgraph.so $(ACL_LIBDIR)/libgraph_base.so
GE_PARSER_LIB	:= $(ACL_LIBDIR)/libfmk_onnx_parser.so
GE_PARSER_LINK	:= $(ACL_LIBDIR)/libfmk_parser.so
GE_VERSION	:= 1.0.0
GE_PCS		:= $(ACL_LIBDIR)/pkgconfig/ge_runner.pc $(ACL_LIBDIR)/pkgconfig/fmk_onnx_parser.pc
# What a program of the vendor's guides includes: "ge_api.h", "acl.h".
GE_USE		:= -I$(GE_INC) -I$(GE_INC)/ge -I$(ACL_INC) -I$(ACL_INC)/acl -L$(ACL_LIBDIR) \
		   -lfmk_onnx_parser -lge_runner -lascendcl $(ACL_RPATH)
GE_TESTS	:= $(patsubst tests/graph/%.cc,$(BUILD)/tests/graph/%,$(wildcard tests/graph/*_test.cc))
GE_EXAMPLES	:= $(BUILD)/examples/ge_run_graph_async

.PHONY: ge ge-lib ge-install

all: ge

ge: ge-lib $(GE_TESTS) $(GE_EXAMPLES)

ge-lib: $(GE_LIB) $(GE_LINKS) $(GE_PARSER_LIB) $(GE_PARSER_LINK) $(GE_PCS)

$(BUILD)/libge/%.o: libge/src/%.cc libge/src/ge_internal.h $(GE_HDRS) compiler/npucc.h $(ACL_HDRS) \
		    $(DTYPES_HDRS) | deps
	@mkdir -p $(@D)
	$(CXX) $(GE_CXXFLAGS) -fPIC -fvisibility=hidden -I$(GE_INC) -I$(ACL_INC) -Icompiler $(DTYPES_CFLAGS) \
		-c -o $@ $<

# libnpucc goes inside, its symbols kept private.
$(GE_LIB): $(GE_OBJS) $(NPUCC_LIB) $(ACL_LIB) $(ACL_LINKS)
	@mkdir -p $(@D)
	$(CXX) $(GE_CXXFLAGS) -shared -Wl,-soname,libge_runner.so -Wl,-z,defs -Wl,--exclude-libs,ALL \
		-o $@ $(GE_OBJS) $(NPUCC_LIB) $(NPUCC_LIBS) -L$(ACL_LIBDIR) -lascendcl $(ACL_RPATH)

# Build systems that link the vendor's -lgraph, -lgraph_base and
# -lfmk_parser get the same libraries.
$(GE_LINKS): $(GE_LIB)
	ln -sf libge_runner.so $@

$(GE_PARSER_LINK): $(GE_PARSER_LIB)
	ln -sf libfmk_onnx_parser.so $@

$(GE_PARSER_LIB): $(BUILD)/libge/parser.o $(GE_LIB) $(NPUCC_LIB)
	$(CXX) $(GE_CXXFLAGS) -shared -Wl,-soname,libfmk_onnx_parser.so -Wl,-z,defs \
		-Wl,--exclude-libs,ALL -o $@ $< $(NPUCC_LIB) $(NPUCC_LIBS) -L$(ACL_LIBDIR) \
		-lge_runner $(ACL_RPATH)

$(ACL_LIBDIR)/pkgconfig/%.pc: libge/%.pc.in libge/libge.mk
	@mkdir -p $(@D)
	sed -e 's|@PREFIX@|$(abspath .)|' -e 's|@LIBDIR@|$(abspath $(ACL_LIBDIR))|' \
	    -e 's|@INCLUDEDIR@|$(abspath $(GE_INC))|' -e 's|@VERSION@|$(GE_VERSION)|' $< >$@

$(BUILD)/tests/graph/%: tests/graph/%.cc $(wildcard tests/graph/*.h) $(GE_HDRS) $(ACL_HDRS) \
			$(GE_LIB) $(GE_PARSER_LIB) | deps
	@mkdir -p $(@D)
	$(CXX) $(GE_CXXFLAGS) -Itests/graph -o $@ $< $(GE_USE)

$(BUILD)/examples/ge_run_graph_async: examples/graph/run_graph_async.cc $(GE_HDRS) $(ACL_HDRS) \
				      $(GE_LIB) $(GE_PARSER_LIB)
	@mkdir -p $(@D)
	$(CXX) $(GE_CXXFLAGS) -o $@ $< $(GE_USE)

install: ge-install

ge-install: ge-lib acl-install
	install -d $(DESTDIR)$(PREFIX)/include/ge $(DESTDIR)$(PREFIX)/include/graph \
		$(DESTDIR)$(PREFIX)/include/parser $(DESTDIR)$(INSTALL_LIBDIR)/pkgconfig
	install -m 644 $(wildcard $(GE_INC)/ge/*.h) $(DESTDIR)$(PREFIX)/include/ge/
	install -m 644 $(wildcard $(GE_INC)/graph/*.h) $(DESTDIR)$(PREFIX)/include/graph/
	install -m 644 $(wildcard $(GE_INC)/parser/*.h) $(DESTDIR)$(PREFIX)/include/parser/
	install -m 644 $(wildcard $(GE_INC)/*.h) $(DESTDIR)$(PREFIX)/include/
	install -m 755 $(GE_LIB) $(GE_PARSER_LIB) $(DESTDIR)$(INSTALL_LIBDIR)/
	ln -sf libge_runner.so $(DESTDIR)$(INSTALL_LIBDIR)/libgraph.so
	ln -sf libge_runner.so $(DESTDIR)$(INSTALL_LIBDIR)/libgraph_base.so
	ln -sf libfmk_onnx_parser.so $(DESTDIR)$(INSTALL_LIBDIR)/libfmk_parser.so
	for pc in ge_runner fmk_onnx_parser; do \
		sed -e 's|@PREFIX@|$(PREFIX)|' -e 's|@LIBDIR@|$${prefix}/lib64|' \
		    -e 's|@INCLUDEDIR@|$${prefix}/include|' -e 's|@VERSION@|$(GE_VERSION)|' \
		    libge/$$pc.pc.in >$(DESTDIR)$(INSTALL_LIBDIR)/pkgconfig/$$pc.pc; \
	done
