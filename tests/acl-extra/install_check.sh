#!/bin/bash
# On the host: `make install` into a temporary prefix, then a program
# built with nothing but what the installed ascendcl.pc says, linked
# against the installed library (not the build tree's), and run (it needs
# no card). Prints TAP.
set -u
cd "$(dirname "$0")/../.."

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
prog=$tmp/pkgconfig_check
. tests/include/tap.sh

installed_files() {
	local f
	for f in include/acl/acl.h include/acl/acl_base.h include/acl/acl_base_rt.h \
		include/acl/acl_rt.h include/acl/acl_op.h include/acl/acl_mdl.h \
		include/acl/error_codes/rt_error_codes.h lib/libascendcl.so \
		lib/libascendcl.so.1 lib/libacl_rt.so lib/pkgconfig/ascendcl.pc; do
		[ -e "$prefix/$f" ] || { echo "missing $f"; return 1; }
	done
	# libacl.so is the POSIX ACL library's name
	[ ! -e "$prefix/lib/libacl.so" ] || { echo "libacl.so installed"; return 1; }
}

flags() {
	PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config "$@" ascendcl
}

build() {
	# shellcheck disable=SC2046 # pkg-config's words are meant to split
	gcc -O2 -Wall -Wextra -Werror -o "$prog" tests/acl-extra/pkgconfig_check.c \
		$(flags --cflags --libs) -Wl,-rpath,"$prefix/lib"
}

links_installed() {
	local lib
	lib=$(ldd "$prog" | awk '$1 == "libascendcl.so.1" { print $3 }')
	echo "libascendcl.so.1 => $lib"
	[ "$lib" -ef "$prefix/lib/libascendcl.so.1" ]
}

echo "TAP version 13"
echo "1..6"
step "make install PREFIX=<tmp>" make -s acl-install PREFIX="$prefix"
step "headers, libraries and ascendcl.pc installed; no libacl.so" installed_files
step "pkg-config reads the installed ascendcl.pc" flags --exists --print-errors
step "a program builds with its flags alone" build
step "the program links the installed library" links_installed
step "the program runs" "$prog"
exit $failed
