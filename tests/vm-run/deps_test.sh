#!/bin/bash
# tools/deps and the guest kernel tree: kbuild's clean of an external module
# (make -C <kdir> M=<checkout> clean, as the README's real-host section
# leads one to run) walks the whole checkout and deletes the tree's modules.
# tools/deps must see that and extract the tree again from the package it
# kept, without apt. Runs tools/deps on a small stand-in package in a
# scratch checkout: it downloads nothing and leaves build/ alone. Prints TAP.
set -u
cd "$(dirname "$0")/../.."

scratch=$(mktemp -d /tmp/deps-test.XXXXXX)
trap 'rm -rf "$scratch"' EXIT

. tests/include/tap.sh

release=$(<build/kernel-release)
checkout=$scratch/checkout
tree=$checkout/build/kernel/root
modules=$tree/lib/modules/$release

# The scratch checkout: the Kbuild files kbuild's clean reads, the release
# tools/deps chose for the real one, and its kernel-source helpers.
make_checkout() {
	mkdir -p "$checkout/driver" "$checkout/build"
	cp Kbuild "$checkout/Kbuild"
	cp driver/Kbuild "$checkout/driver/Kbuild"
	cp build/kernel-release build/kernel-release.pin "$checkout/build/"
	ln -s "$PWD/build/ksrc" "$checkout/build/ksrc"
}

# A linux-image package holding a dummy image and the real modules that
# mounting 9p needs, under their paths in the real tree.
make_stand_in_package() {
	local pkg=$scratch/pkg module
	mkdir -p "$pkg/DEBIAN" "$pkg/boot" "$pkg/lib/modules/$release"
	printf 'Package: linux-image-stand-in\nVersion: 1\nArchitecture: all\nMaintainer: deps test <root@localhost>\nDescription: stand-in for linux-image-%s-unsigned\n' \
		"$release" >"$pkg/DEBIAN/control"
	echo "not a kernel" >"$pkg/boot/vmlinuz-$release"
	for module in $(modprobe -d build/kernel/root -S "$release" -a --show-depends 9p 9pnet_virtio |
		awk '$1 == "insmod" && !seen[$2]++ { print $2 }'); do
		module=${module#"$PWD/build/kernel/root/"}
		mkdir -p "$pkg/$(dirname "$module")"
		cp "build/kernel/root/$module" "$pkg/$module"
		echo "${module#lib/modules/"$release"/}" >>"$pkg/lib/modules/$release/modules.order"
	done
	dpkg-deb --root-owner-group -Znone -b "$pkg" "$scratch/stand-in.deb" >/dev/null
}

# tools/deps, sourced so that apt is a stub that only logs: "apt-get
# download" hands out the stand-in package, everything else fails.
deps() {
	(
		# shellcheck source=tools/deps
		source tools/deps
		build=$checkout/build
		as_root() { "$@"; }
		apt-get() {
			echo "apt-get $*" >>"$scratch/apt.log"
			case $1 in
			update) ;;
			download) cp "$scratch/stand-in.deb" "./linux-image-$release-unsigned_1_amd64.deb" ;;
			*) return 1 ;;
			esac
		}
		apt-cache() {
			echo "apt-cache $*" >>"$scratch/apt.log"
			[[ $1 == madison ]] && echo "stand-in | 1 | $scratch"
			return 0
		}
		"$@"
	)
}

count_modules() { find "$modules" -name '*.ko*' 2>/dev/null | wc -l; }
apt_calls() { grep -c "${1:-.}" "$scratch/apt.log" 2>/dev/null || true; }
# modprobe names the files; they must be there too.
modprobe_finds_9p() {
	local files
	files=$(modprobe -d "$tree" -S "$release" --show-depends 9p 2>/dev/null |
		awk '$1 == "insmod" { print $2 }')
	[ -n "$files" ] && ls $files >/dev/null 2>&1 && echo yes || echo no
}
kbuild_clean() {
	make -s -C "/lib/modules/$release/build" M="$checkout" clean >/dev/null 2>&1
}

echo "TAP version 13"
echo "1..12"

check "the checkout's own guest kernel tree is complete" yes \
	"$( (source tools/deps && kernel_extracted "$release") && echo yes || echo no)"

make_checkout
make_stand_in_package
wanted=$(dpkg-deb -c "$scratch/stand-in.deb" | grep -c '\.ko')

# A tree extracted before packages were kept: nothing to re-extract from.
deps main >"$scratch/out" 2>&1
check "a first run downloads the package once" "0 1" "$? $(apt_calls 'apt-get download')"
check "and keeps it where kbuild's clean does not look" yes \
	"$(deps kernel_package "$release" | xargs test -f && echo yes || echo no)"
check "the extracted tree serves modprobe" "$wanted yes" "$(count_modules) $(modprobe_finds_9p)"

kbuild_clean
check "kbuild's clean of the checkout deletes the tree's modules" 0 "$(count_modules)"
check "tools/deps sees the tree is incomplete" no \
	"$(deps kernel_extracted "$release" && echo yes || echo no)"

: >"$scratch/apt.log"
deps main >"$scratch/out" 2>&1
check "tools/deps extracts it again" "0 $wanted yes" "$? $(count_modules) $(modprobe_finds_9p)"
check "from the kept package, without apt" 0 "$(apt_calls)"
check "and says why" 1 "$(grep -c 'incomplete' "$scratch/out")"

touch "$tree/untouched"
deps main >"$scratch/out" 2>&1
check "a complete tree is left as it is" "0 yes" \
	"$? $([ -f "$tree/untouched" ] && echo yes || echo no)"

# A tree extracted before packages were kept, then cleaned: downloaded again.
rm -f "$(deps kernel_package "$release")"
kbuild_clean
: >"$scratch/apt.log"
deps main >"$scratch/out" 2>&1
check "without a kept package, a cleaned tree is downloaded again" "0 1 $wanted" \
	"$? $(apt_calls 'apt-get download') $(count_modules)"
check "the package is kept from then on" yes \
	"$(deps kernel_package "$release" | xargs test -f && echo yes || echo no)"
exit $failed
