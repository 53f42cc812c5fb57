# SPDX-License-Identifier: MIT
#
# pyACL: the Python module "acl" (python/acl/*.c), a CPython extension over
# libascendcl, its pytest suites (tests/python) and examples
# (examples/python). Included by the top-level Makefile.
#
#   make python          build/python/acl$(EXT_SUFFIX); use it from the tree
#                        with PYTHONPATH=build/python (its rpath finds
#                        build/lib/libascendcl.so)
#   make python-test     the pytest suites in a guest with two cards
#   make install         also installs the module for $(PYTHON):
#                        /usr -> /usr/lib/python3/dist-packages,
#                        /usr/local -> /usr/local/lib/python3.X/dist-packages,
#                        other prefixes -> $(PREFIX)/lib/python3.X/site-packages
#                        (or PYTHONDIR=...)

# Debian's python3, the one python3-dev and python3-numpy are for; not
# whichever python3 comes first in PATH.
PYTHON		?= /usr/bin/python3
PY_CFLAGS	 = $(patsubst -I%,-isystem %,$(sort $(shell $(PYTHON)-config --includes))) \
		   -isystem $(shell $(PYTHON) -c 'import numpy; print(numpy.get_include())')
# The file name CPython looks for. Read when make starts: on a machine
# where tools/deps has yet to install python3 it is plain ".so", which
# CPython loads as well.
PY_EXT_SUFFIX	:= $(or $(shell $(PYTHON) -c \
		     'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))' 2>/dev/null),.so)
PY_VERSION	 = $(shell $(PYTHON) -c 'import sys; print("%d.%d" % sys.version_info[:2])')
# Where the prefix's python3 finds modules: Debian's own directories for
# /usr and /usr/local (both in sys.path), the usual site-packages elsewhere.
py_dir_usr	 = /usr/lib/python3/dist-packages
py_dir_local	 = /usr/local/lib/python$(PY_VERSION)/dist-packages
py_dir_other	 = $(PREFIX)/lib/python$(PY_VERSION)/site-packages
PYTHONDIR	?= $(if $(filter /usr,$(PREFIX)),$(py_dir_usr),\
		   $(if $(filter /usr/local,$(PREFIX)),$(py_dir_local),$(py_dir_other)))

PY_SRCS		:= $(wildcard python/acl/*.c)
PY_HDRS		:= $(wildcard python/acl/*.h)
PY_OBJS		:= $(patsubst python/acl/%.c,$(BUILD)/python/obj/%.o,$(PY_SRCS))
PY_MODULE	:= $(BUILD)/python/acl$(PY_EXT_SUFFIX)
# $(call py_link,OUTPUT,RPATH)
py_link		 = $(CC) $(USER_CFLAGS) -shared -o $(1) $(PY_OBJS) -L$(ACL_LIBDIR) -lascendcl \
		   -Wl,-rpath,$(2)
# The examples suite (tests/acl-extra/examples.sh) runs every program in
# build/examples: each Python example gets a launcher there.
PY_EXAMPLES	:= $(patsubst examples/python/%.py,$(BUILD)/examples/python-%, \
		     $(wildcard examples/python/*.py))

# test_mdl's reference: one model execution through the C API, in its own process.
PY_MDL_RUN	:= $(BUILD)/tests/python/mdl_run

.PHONY: python python-test python-install

all: python

python: $(PY_MODULE) $(PY_EXAMPLES) $(PY_MDL_RUN)

$(PY_MDL_RUN): tests/python/mdl_run.c $(ACL_HDRS) $(ACL_LIB) $(ACL_LINKS) | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -o $@ $< $(ACL_USE)

$(BUILD)/python/obj/%.o: python/acl/%.c $(PY_HDRS) $(ACL_HDRS) | deps
	@mkdir -p $(@D)
	$(CC) $(USER_CFLAGS) -fPIC -fvisibility=hidden -I$(ACL_INC) $(PY_CFLAGS) -c -o $@ $<

$(PY_MODULE): $(PY_OBJS) $(ACL_LIB) $(ACL_LINKS)
	$(call py_link,$@,$(abspath $(ACL_LIBDIR)))

$(BUILD)/examples/python-%: examples/python/%.py $(PY_MODULE)
	@mkdir -p $(@D)
	printf '#!/bin/sh\nPYTHONPATH=%s exec %s %s "$$@"\n' '$(abspath $(BUILD)/python)' \
		'$(PYTHON)' '$(abspath $<)' >$@
	chmod +x $@

python-test: all
	tools/vm-run --cards 2 -- tools/run-suites tests/python/run.sh

install: python-install

# Linked again, to find the installed libascendcl rather than the build tree's.
python-install: $(PY_OBJS) acl-install
	install -d $(DESTDIR)$(PYTHONDIR)
	$(call py_link,$(BUILD)/python/obj/acl-installed.so,$(INSTALL_LIBDIR))
	install -m 644 $(BUILD)/python/obj/acl-installed.so \
		$(DESTDIR)$(PYTHONDIR)/acl$(PY_EXT_SUFFIX)
