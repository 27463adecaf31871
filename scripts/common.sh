# Shared settings for the scripts: where things live, and the arch matrix.
# Sourced, never run.

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
WORK=${VM_PINNED_WORK:-$HOME/.cache/vm-pinned}
TARBALL=${VM_PINNED_TARBALL:-/usr/src/linux-source-6.1.tar.xz}
TREE=$WORK/linux		# the kernel tree kunit.py builds from
APPLY=$WORK/apply		# scratch worktree where git am runs
PRISTINE=$WORK/pristine	# worktree of the pristine tree (tag pristine)
USERSPACE=$WORK/userspace	# initramfs binaries, one folder per arch
BUILDS=$WORK/build		# one build directory per arch and kunitconfig
RESULTS=$WORK/results		# JSON, console logs and summary of the last run
# ccache in its default mode.  Not depend mode: there it caches what it
# should not, an assembler file's .incbin, which the compiler's dependency
# output does not list.  x86's arch/x86/boot/compressed/piggy.S is the
# .incbin of the compressed vmlinux plus its sizes: two kernels whose
# compressed images are the same size got the older one's piggy.o, so the
# bzImage booted was an older kernel (measured: 3 of 38 mutants on x86_64,
# one booting the unmutated kernel, two another mutant's).  By default
# ccache sees the .incbin and does not cache piggy.o.  ccache-v2: the cache
# depend mode filled holds such entries, and a lookup in the default mode
# finds them too.  Measured on the x86_64 pristine kernel, cold, 2 cores:
# no ccache 414 s, empty cache 522 s; a warm cache, build directory
# removed, 149 s in depend mode.
export CCACHE_DIR=${CCACHE_DIR:-$WORK/ccache-v2}
unset CCACHE_DEPEND

die() {
	printf '%s: %s\n' "$(basename "$0")" "$*" >&2
	exit 1
}

note() {
	printf '== %s\n' "$*"
}

# stage WHAT SECONDS: say how long a stage took, and add it to
# $RESULTS/stages.txt, the table of stages scripts/test prints at its end.
stage() {
	note "$1: $2 s"
	mkdir -p "$RESULTS"
	printf '%s\t%s\n' "$1" "$2" >> "$RESULTS/stages.txt"
}

# names DIR SUFFIX: the names of the DIR/*SUFFIX files, on one line.
names() {
	local f out=()
	for f in "$TOP/$1"/*"$2"; do
		[ -e "$f" ] && out+=("$(basename "$f" "$2")")
	done
	echo "${out[*]}"
}

known_arches() {
	names arch-matrix .conf
}

known_kunitconfigs() {
	names kunitconfigs .kunitconfig
}

# load_arch NAME: read arch-matrix/NAME.conf into ARCH, CROSS_COMPILE,
# QEMU_CONFIG, VCPUS, KCONFIG_ADD, TIMEOUT and PACKAGES.
load_arch() {
	local conf=$TOP/arch-matrix/$1.conf

	[ -f "$conf" ] || die "unknown arch '$1'; known: $(known_arches)"
	ARCH='' CROSS_COMPILE='' QEMU_CONFIG='' VCPUS=1 KCONFIG_ADD='' TIMEOUT=300 PACKAGES=''
	# shellcheck source=/dev/null
	. "$conf"
	[ "$ARCH" = "$1" ] || die "arch-matrix/$1.conf sets ARCH=$ARCH; it must be $1"
	if [ -n "$QEMU_CONFIG" ]; then
		QEMU_CONFIG=$TOP/arch-matrix/$QEMU_CONFIG
	fi
}

# load_compile_only NAME: read arch-matrix/compile-only/NAME.conf into ARCH,
# CROSS_COMPILE, PACKAGES, DEFCONFIG, ENABLE and OBJECTS.
load_compile_only() {
	local conf=$TOP/arch-matrix/compile-only/$1.conf

	[ -f "$conf" ] || die "unknown compile-only arch '$1'; known: $(names arch-matrix/compile-only .conf)"
	ARCH='' CROSS_COMPILE='' PACKAGES='' DEFCONFIG=defconfig ENABLE='' OBJECTS=''
	# shellcheck source=/dev/null
	. "$conf"
	[ "$ARCH" = "$1" ] || die "arch-matrix/compile-only/$1.conf sets ARCH=$ARCH; it must be $1"
	[ -n "$OBJECTS" ] || die "arch-matrix/compile-only/$1.conf sets no OBJECTS to compile"
}

# The kernel command line of every KUnit run: mm_pin_secretmem needs
# secretmem, off by default in 6.1; mm_pin_hugetlb maps three huge pages
# (2 MiB on both arches).
KUNIT_KERNEL_ARGS=(--kernel_args secretmem.enable=1 --kernel_args hugepages=4)

# arch_args: kunit.py's options for the arch load_arch read, into KARGS.
arch_args() {
	KARGS=(--arch "$ARCH" --qemu_args "-smp $VCPUS")
	[ -n "$CROSS_COMPILE" ] && KARGS+=(--cross_compile "$CROSS_COMPILE")
	[ -n "$QEMU_CONFIG" ] && KARGS+=(--qemu_config "$QEMU_CONFIG")
	for o in $KCONFIG_ADD; do KARGS+=(--kconfig_add "$o"); done
}

# kunitconfig_args KUNITCONFIG: kunit.py's --kunitconfig options for it on
# the arch load_arch read, into KCONF_ARGS: the file, and what its arch adds,
# DIR/ARCH/NAME beside DIR/NAME, if there is one (x86_64's drivers that only
# build there, such as qib and hfi1).
kunitconfig_args() {
	local extra
	extra=$(dirname "$1")/$ARCH/$(basename "$1")
	KCONF_ARGS=(--kunitconfig "$1")
	[ -f "$extra" ] && KCONF_ARGS+=(--kunitconfig "$extra")
	return 0
}

# digest FILE...: a short digest of the installed linux-source-6.1 version
# and the contents of the files given (relative to the checkout).  The tree
# records the digest of what made it, each build directory the digest of what
# it was built from: a rerun whose digest is unchanged need not touch either.
digest() {
	{
		dpkg-query -W -f='linux-source-6.1 ${Version}\n' linux-source-6.1 2>/dev/null
		echo "$TARBALL"
		(cd "$TOP" && find "$@" -type f -print0 | sort -z | xargs -0 sha256sum)
	} | sha256sum | cut -c1-16
}

tree_digest() {
	digest src-patches kunit scripts/prepare
}

# build_digest KUNITCONFIG ARCH: the digest of what the patched kernel of
# that kunitconfig and arch is built from.
build_digest() {
	local extra=()
	[ -f "$TOP/kunitconfigs/$2/$1.kunitconfig" ] && extra=("kunitconfigs/$2/$1.kunitconfig")
	digest src-patches kunit scripts/prepare "kunitconfigs/$1.kunitconfig" \
		"arch-matrix/$2.conf" "${extra[@]}"
}

# kunit_build SRC BDIR KUNITCONFIG DIGEST: build the KUnit kernel of the tree
# SRC in BDIR with SRC's kunit.py, for the arch load_arch read, unless BDIR
# was last built from DIGEST.  Prints progress every 30 s; dies on failure.
kunit_build() {
	local src=$1 bdir=$2 kconf=$3 want=$4 label progress brc=0 t0
	label="$ARCH/$(basename "$bdir" | sed "s/^$ARCH-//")"
	if [ "$(cat "$bdir/.vm-pinned-digest" 2>/dev/null)" = "$want" ]; then
		note "$label: inputs unchanged since the last build, not running make"
		return 0
	fi
	note "$label: building in $bdir"
	mkdir -p "$bdir"
	rm -f "$bdir/.vm-pinned-digest"
	touch "$bdir/.build-start"
	t0=$SECONDS
	# Progress, every 30 s.  Its sleep must hold no descriptor but the
	# output (not fd 3, scripts/userspace's command substitution, which
	# would otherwise wait up to 30 s for the killed loop's sleep).
	(
		t0=$SECONDS
		while sleep 30; do
			n=$(find "$bdir" -name '*.o' -newer "$bdir/.build-start" | wc -l)
			echo "   ... $label: $n objects compiled in $((SECONDS - t0)) s"
		done
	) 3>&- &
	progress=$!
	arch_args
	kunitconfig_args "$kconf"
	python3 "$src/tools/testing/kunit/kunit.py" build --build_dir "$bdir" \
		"${KCONF_ARGS[@]}" "${KARGS[@]}" --jobs "$(nproc)" \
		--make_options "CC=ccache ${CROSS_COMPILE}gcc" || brc=$?
	kill "$progress"
	wait "$progress" 2>/dev/null || true
	[ "$brc" = 0 ] || die "$label: kunit.py build failed (its message is above)"
	echo "$want" > "$bdir/.vm-pinned-digest"
	stage "build $label" $((SECONDS - t0))
}

# booted BDIR LOG: the console LOG is of the kernel last linked in BDIR (its
# "Linux version" line has the UTS_VERSION of that link: build number and
# time).  Says so and returns 1 if not.
booted() {
	local v
	v=$(sed -n 's/^#define UTS_VERSION "\(.*\)"$/\1/p' "$1/include/generated/utsversion.h" 2>/dev/null)
	if [ -z "$v" ] || ! grep -qF "$v" "$2"; then
		echo "FAILED: the kernel that ran ($(grep -m1 -o '#[0-9]* SMP.*' "$2" || echo 'no version line')) is not the one built in $1 (${v:-no UTS_VERSION}); remove $1 and run again"
		return 1
	fi
}
