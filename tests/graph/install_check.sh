#!/bin/bash
# On the host: `make ge-install` into a temporary prefix, then seed 003's
# program (examples/graph) built with nothing but what the installed
# ge_runner.pc and fmk_onnx_parser.pc say, linked against the installed
# libraries. Prints TAP.
set -u
cd "$(dirname "$0")/../.."

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
prog=$tmp/run_graph_async
. tests/include/tap.sh

installed_files() {
	local f
	for f in include/ge/ge_api.h include/ge/ge_api_types.h include/ge/ge_api_error_codes.h \
		include/ge/ge_error_codes.h include/graph/graph.h include/graph/operator.h \
		include/graph/operator_reg.h include/graph/tensor.h include/graph/types.h \
		include/graph/ascend_string.h include/graph/ge_error_codes.h \
		include/parser/onnx_parser.h include/all_ops.h lib64/libge_runner.so \
		lib64/libgraph.so lib64/libgraph_base.so lib64/libfmk_onnx_parser.so lib64/libfmk_parser.so lib64/pkgconfig/ge_runner.pc \
		lib64/pkgconfig/fmk_onnx_parser.pc; do
		[ -e "$prefix/$f" ] || { echo "missing $f"; return 1; }
	done
}

flags() {
	PKG_CONFIG_PATH=$prefix/lib64/pkgconfig pkg-config "$@" ge_runner fmk_onnx_parser
}

build() {
	# shellcheck disable=SC2046 # pkg-config's words are meant to split
	g++ -O2 -Wall -Wextra -Werror -std=c++17 -o "$prog" examples/graph/run_graph_async.cc \
		$(flags --cflags --libs) -Wl,-rpath,"$prefix/lib64"
}

links_installed() {
	local lib
	lib=$(ldd "$prog" | awk '$1 == "libge_runner.so" { print $3 }')
	echo "libge_runner.so => $lib"
	[ "$lib" -ef "$prefix/lib64/libge_runner.so" ]
}

echo "TAP version 13"
echo "1..5"
step "make ge-install PREFIX=<tmp>" make -s ge-install PREFIX="$prefix"
step "headers, libraries and .pc files installed" installed_files
step "pkg-config reads ge_runner.pc and fmk_onnx_parser.pc" flags --exists --print-errors
step "seed 003's program builds with their flags alone" build
step "the program links the installed libge_runner" links_installed
exit $failed
