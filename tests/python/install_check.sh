#!/bin/bash
# On the host: make install puts the Python module where the prefix's
# python3 looks for it, and the installed module runs against the installed
# libascendcl, not the build tree's (no card needed). Prints TAP.
set -u
cd "$(dirname "$0")/../.."

python=/usr/bin/python3
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
prefix=$tmp/prefix
version=$($python -c 'import sys; print("%d.%d" % sys.version_info[:2])')
suffix=$($python -c 'import sysconfig; print(sysconfig.get_config_var("EXT_SUFFIX"))')
site=$prefix/lib/python$version/site-packages
. tests/include/tap.sh

installed() {
	ls -l "$site/acl$suffix" && [ -f "$site/acl$suffix" ]
}

# Run from / so that nothing of the checkout is found by accident.
imports_installed() {
	(cd / && PYTHONPATH=$site $python -c '
import sys, acl, acl.rt, acl.util
print(acl.__file__)
sys.exit(acl.__file__ != sys.argv[1])' "$site/acl$suffix")
}

links_installed() {
	local lib
	lib=$(ldd "$site/acl$suffix" | awk '$1 == "libascendcl.so.1" { print $3 }')
	echo "libascendcl.so.1 => $lib"
	[ "$lib" -ef "$prefix/lib64/libascendcl.so.1" ]
}

runs() {
	(cd / && PYTHONPATH=$site $python -c '
import acl
assert acl.init() == 0, acl.get_recent_err_msg()
count, ret = acl.rt.get_device_count()
print("devices:", count, "ret:", ret)
assert ret == 0
assert acl.finalize() == 0')
}

# python/README.md's one variable: PYTHONPATH=build/python, in an otherwise
# empty environment (no LD_LIBRARY_PATH) and away from the checkout, finds
# the build tree's module, which finds the build tree's libascendcl.
from_build_tree() {
	local build=$PWD/build
	(cd / && env -i PYTHONPATH="$build/python" $python -c '
import sys, acl, acl.rt, acl.util, acl.mdl
print(acl.__file__)
assert acl.__file__ == sys.argv[1], acl.__file__
maps = open("/proc/self/maps").read()
lib = [l.split()[-1] for l in maps.splitlines() if "libascendcl.so" in l][0]
print("libascendcl:", lib)
assert lib.startswith(sys.argv[2]), lib
assert acl.init() == 0, acl.get_recent_err_msg()
assert acl.rt.get_device_count()[1] == 0
assert acl.finalize() == 0' "$build/python/acl$suffix" "$build/lib/")
}

# $1: PREFIX, $2: where python3 should find the module
installs_into() {
	local cmds
	cmds=$(make -s -n python-install PREFIX="$1") || return 1
	echo "$cmds" | grep -F "acl$suffix"
	# the destination of install: the last word of its command
	echo "$cmds" | grep -qE "(^|[[:space:]])${2//./\\.}/acl${suffix//./\\.}\$" || return 1
	$python -c 'import sys; print(sys.path); sys.exit(sys.argv[1] not in sys.path)' "$2"
}

echo "TAP version 13"
echo "1..7"
step "make install PREFIX=<tmp> installs the Python module" make -s python-install PREFIX="$prefix"
step "acl$suffix is in <tmp>/lib/python$version/site-packages" installed
step "python3 imports the installed module (PYTHONPATH=<site-packages>)" imports_installed
step "the installed module links the installed libascendcl" links_installed
step "the installed module runs" runs
step "PREFIX=/usr and /usr/local install into python3's sys.path" \
	eval 'installs_into /usr /usr/lib/python3/dist-packages &&
	      installs_into /usr/local /usr/local/lib/python'"$version"'/dist-packages'
step "PYTHONPATH=build/python alone runs the build tree's module and library" from_build_tree
exit $failed
