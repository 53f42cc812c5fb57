#!/bin/bash
# On the host: `make install` into a temporary prefix, then a program
# built with nothing but what the installed ascendcl.pc says, linked
# against the installed library (not the build tree's), and run (it needs
# no card); then every installed aclnn header compiled as C++, and a
# program linked with the aclnn libraries the vendor's toolkit names, and
# run; and npu-smi, on set_env.sh's PATH. Prints TAP.
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
		include/acl/error_codes/rt_error_codes.h include/acl/acl_op_compiler.h \
		include/acl/acl_rt_allocator.h \
		include/aclnn/acl_meta.h include/aclnn/aclnn_base.h include/aclnn/opdev/op_errno.h \
		include/aclnnop/aclnn_util.h include/aclnnop/aclnn_add.h lib64/libascendcl.so \
		lib64/libascendcl.so.1 lib64/libacl_rt.so lib64/libnnopbase.so lib64/libopapi.so \
		lib64/libacl_op_compiler.so lib64/libacl_rt_impl.so lib64/libc_sec.so include/securec.h \
		lib64/pkgconfig/ascendcl.pc lib64/pkgconfig/aclnn.pc \
		set_env.sh; do
		[ -e "$prefix/$f" ] || { echo "missing $f"; return 1; }
	done
	# libacl.so is the POSIX ACL library's name
	[ ! -e "$prefix/lib64/libacl.so" ] || { echo "libacl.so installed"; return 1; }
}

flags() {
	PKG_CONFIG_PATH=$prefix/lib64/pkgconfig pkg-config "$@" ascendcl
}

build() {
	# shellcheck disable=SC2046 # pkg-config's words are meant to split
	gcc -O2 -Wall -Wextra -Werror -o "$prog" tests/acl-extra/pkgconfig_check.c \
		$(flags --cflags --libs) -Wl,-rpath,"$prefix/lib64"
}

links_installed() {
	local lib
	lib=$(ldd "$prog" | awk '$1 == "libascendcl.so.1" { print $3 }')
	echo "libascendcl.so.1 => $lib"
	[ "$lib" -ef "$prefix/lib64/libascendcl.so.1" ]
}

# Every installed aclnn header, alone and all together, as the vendor's
# samples compile them.
aclnn_headers_compile() {
	local h all=$tmp/all_aclnn.cpp

	: >"$all"
	for h in "$prefix"/include/aclnn/*.h "$prefix"/include/aclnn/opdev/*.h \
		 "$prefix"/include/aclnnop/*.h; do
		h=${h#"$prefix/include/"}
		echo "#include \"$h\"" >>"$all"
		echo "#include \"$h\"" | g++ -x c++ -std=c++17 -D_GLIBCXX_USE_CXX11_ABI=0 -Wall \
			-Wextra -Werror -I"$prefix/include" -fsyntax-only - || return 1
	done
	echo "int main() { return 0; }" >>"$all"
	g++ -std=c++17 -Wall -Wextra -Werror -I"$prefix/include" -o "$tmp/all_aclnn" "$all"
}

aclnn_link() {
	gcc -O2 -Wall -Wextra -Werror -I"$prefix/include" -o "$tmp/aclnn_link_check" \
		tests/acl-extra/aclnn_link_check.c -L"$prefix/lib64" -lascendcl -lnnopbase -lopapi \
		-lacl_op_compiler -Wl,-rpath,"$prefix/lib64"
}

# npu-smi, installed under the vendor's name, is on set_env.sh's PATH and
# runs without a card (as ggml's CANN build runs it).
npu_smi_installed() {
	(
		# shellcheck disable=SC1091 # the installed file
		. "$prefix/set_env.sh"
		[ "$(command -v npu-smi)" -ef "$prefix/bin/npu-smi" ] &&
			npu-smi -v | grep -q '^npu-smi version: '
	)
}

# set_env.sh points the loader and pkg-config at the tree it sits in.
set_env_exports() {
	(
		# shellcheck disable=SC1091 # the installed file
		. "$prefix/set_env.sh"
		[ "$ASCEND_TOOLKIT_HOME" -ef "$prefix" ] && [ "$ASCEND_HOME_PATH" -ef "$prefix" ] &&
			[ "${LD_LIBRARY_PATH%%:*}" -ef "$prefix/lib64" ] &&
			pkg-config --exists --print-errors aclnn
	)
}

echo "TAP version 13"
echo "1..12"
step "make install PREFIX=<tmp> (the runtime, aclnn and libc_sec)" make -s aclnn-install securec-install PREFIX="$prefix"
step "headers, libraries and ascendcl.pc installed; no libacl.so" installed_files
step "pkg-config reads the installed ascendcl.pc" flags --exists --print-errors
step "a program builds with its flags alone" build
step "the program links the installed library" links_installed
step "the program runs" "$prog"
step "every installed aclnn header compiles as C++ with -Wall -Werror" aclnn_headers_compile
step "a program links -lascendcl -lnnopbase -lopapi -lacl_op_compiler" aclnn_link
step "it runs" "$tmp/aclnn_link_check"
step "set_env.sh exports the toolkit's variables for this tree" set_env_exports
step "make smi-install PREFIX=<tmp>" make -s smi-install PREFIX="$prefix"
step "npu-smi is <prefix>/bin/npu-smi on set_env.sh's PATH, and runs" npu_smi_installed
exit $failed
