#!/bin/sh
# gcrypt-sid.sh: build the libgcrypt XTS harness (scripts/gcrypt-bench/harness.c)
# against libgcrypt 1.12 from Debian sid, without installing anything, and
# against the system's libgcrypt, so that `xts bench --cipher ...` can print
# libgcrypt's figures beside ours.
#
# What it does:
#   1. A private apt configuration (its own sources.list naming the suite
#      `sid`, its own lists and cache under the work directory) runs
#      `apt-get update` and `apt-get download` for libgcrypt20,
#      libgcrypt20-dev, libgpg-error0, libgpg-error-dev and libc6. Nothing
#      touches the system's apt state; no root is needed (apt warns that the
#      download is unsandboxed when run as root; that is harmless here).
#   2. `dpkg -x` unpacks them into a scratch root (WORK/root).
#   3. The harness is compiled with `-I WORK/root/usr/include`, linked
#      against WORK/root's libgcrypt with -Wl,--allow-shlib-undefined (the
#      new library may need symbols of the newer glibc that the system's
#      linker does not know), and run through WORK/root's own dynamic loader
#      (`ld-linux-x86-64.so.2 --library-path WORK/root/...`), so the sid
#      libgcrypt runs on the sid glibc.
#   4. If the system has libgcrypt's headers (libgcrypt20-dev), the same
#      harness is built against the system's library too.
#
# Outputs, in OUT (default ${XDG_CACHE_HOME:-$HOME/.cache}/xts-gcrypt, which
# `xts bench` looks in when --gcrypt is not given):
#   OUT/gcrypt-bench         runs the harness on sid's libgcrypt (a wrapper
#                            script calling sid's loader)
#   OUT/gcrypt-bench-system  the harness on the system's libgcrypt
# Both take the harness's flags (see harness.c) and print
#   # libgcrypt VERSION
#   cipher<TAB>keybits<TAB>mode<TAB>op<TAB>size<TAB>mbps
# If sid cannot be reached, only gcrypt-bench-system is built and the script
# says so (exit status 0 if that one was built).
#
# Usage: scripts/gcrypt-sid.sh [OUT]
#   env: WORK (scratch directory, default OUT/work), MIRROR (default
#        http://deb.debian.org/debian), CC (default cc).
# Then, for example:
#   ~/.cache/xts-gcrypt/gcrypt-bench -c serpent -k 256 -o dec -s 512,4096 -p 3
#   go run ./cmd/xts bench --cipher serpent
set -eu

here=$(cd "$(dirname "$0")" && pwd)
src="$here/gcrypt-bench/harness.c"
out=${1:-${XDG_CACHE_HOME:-$HOME/.cache}/xts-gcrypt}
work=${WORK:-$out/work}
mirror=${MIRROR:-http://deb.debian.org/debian}
cc=${CC:-cc}
arch=$(dpkg --print-architecture)
case $arch in
amd64) triplet=x86_64-linux-gnu loader=ld-linux-x86-64.so.2 ;;
arm64) triplet=aarch64-linux-gnu loader=ld-linux-aarch64.so.1 ;;
*) echo "gcrypt-sid.sh: architecture $arch not handled" >&2; exit 1 ;;
esac

mkdir -p "$out" "$work"
out=$(cd "$out" && pwd)
work=$(cd "$work" && pwd)

build_sid() {
	apt_dir="$work/apt"
	rm -rf "$apt_dir" "$work/debs" "$work/root"
	mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$work/debs" "$work/root"
	echo "deb $mirror sid main" >"$apt_dir/sources.list"
	set -- -o Dir::Etc::sourcelist="$apt_dir/sources.list" -o Dir::Etc::sourceparts=- \
		-o Dir::State::Lists="$apt_dir/lists" -o Dir::Cache="$apt_dir/cache" \
		-o Dir::State::status=/dev/null -o Debug::NoLocking=1 -o APT::Architecture="$arch"
	echo "gcrypt-sid.sh: apt-get update (suite sid, private lists in $apt_dir)" >&2
	apt-get "$@" -q update >&2 || return 1
	(cd "$work/debs" && apt-get "$@" -q download \
		libgcrypt20 libgcrypt20-dev libgpg-error0 libgpg-error-dev libc6) >&2 || return 1
	for deb in "$work"/debs/*.deb; do
		dpkg -x "$deb" "$work/root"
	done
	root=$work/root
	ld=""
	for cand in "$root/usr/lib64/$loader" "$root/lib64/$loader" "$root/usr/lib/$triplet/$loader" "$root/lib/$triplet/$loader"; do
		if [ -e "$cand" ]; then ld=$cand; break; fi
	done
	[ -n "$ld" ] || { echo "gcrypt-sid.sh: no $loader in sid's libc6" >&2; return 1; }
	libpath="$root/usr/lib/$triplet:$root/lib/$triplet"
	"$cc" -O2 -Wall -o "$out/gcrypt-bench.bin" -I"$root/usr/include" "$src" \
		-L"$root/usr/lib/$triplet" -lgcrypt -lgpg-error -Wl,--allow-shlib-undefined >&2 || return 1
	cat >"$out/gcrypt-bench" <<EOF
#!/bin/sh
# Made by scripts/gcrypt-sid.sh: the harness on Debian sid's libgcrypt and glibc.
exec "$ld" --library-path "$libpath" "$out/gcrypt-bench.bin" "\$@"
EOF
	chmod +x "$out/gcrypt-bench"
	"$out/gcrypt-bench" -t 0.01 -c aes -k 128 -o enc -s 512 -m xts | head -1 >&2
}

build_system() {
	if ! echo '#include <gcrypt.h>' | "$cc" -E - >/dev/null 2>&1; then
		echo "gcrypt-sid.sh: no system gcrypt.h (apt-get install libgcrypt20-dev): gcrypt-bench-system not built" >&2
		return 1
	fi
	"$cc" -O2 -Wall -o "$out/gcrypt-bench-system" "$src" -lgcrypt -lgpg-error >&2 || return 1
	"$out/gcrypt-bench-system" -t 0.01 -c aes -k 128 -o enc -s 512 -m xts | head -1 >&2
}

sid=ok system=ok
build_sid || sid=failed
build_system || system=failed
if [ $sid = failed ]; then
	rm -f "$out/gcrypt-bench" "$out/gcrypt-bench.bin"
	echo "gcrypt-sid.sh: could not fetch or build against Debian sid's libgcrypt; falling back to the system's only" >&2
fi
[ $sid = ok ] && echo "$out/gcrypt-bench"
[ $system = ok ] && echo "$out/gcrypt-bench-system"
[ $sid = ok ] || [ $system = ok ]
