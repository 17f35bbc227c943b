#!/usr/bin/env bash
# tcrypt-bench.sh: the speed goals of the veracrypt package and of
# `xts tcrypt serve` (issue 23), each in interleaved runs with medians:
#   read   veracrypt.Volume vs luks.Volume reading the same plaintext
#          (1 GiB AES, 512-byte sectors, in memory): BenchmarkReadAtVsLUKS,
#          goal vc/luks1 >= 0.9
#   serve  nbdcopy (export -> null:) from `xts tcrypt serve --readonly` on
#          a VeraCrypt AES volume vs nbdkit's file plugin on the plaintext
#          file; wall time, and the CPU time the server process used
#          (utime+stime from /proc); goal >= 0.8 x nbdkit-file
#   trial  each VeraCrypt PRF's single derivation (PBKDF2 at VeraCrypt's
#          iteration counts, Argon2id at its default costs; 192-byte
#          header key, one goroutine) vs Open with no PRF named:
#          BenchmarkTrials; goals: a wrong password refused in <= 0.6 x
#          the sum of the derivations, a SHA-512 volume opened in
#          <= 1.2 x SHA-512's derivation
#
# Usage: [PARTS="read serve trial"] scripts/tcrypt-bench.sh [SIZE_MIB [RUNS [TRIAL_RUNS]]]
#   defaults: every part, 1024 MiB, 5 runs, 3 trial runs (a trial run
#   takes about 20 s of CPU).
# Needs Go; for serve: nbdkit, nbdcopy, nbdinfo, bc (Linux: /proc), and
# 3 x SIZE under $TMPDIR. Wall times on a machine shared with other work
# are noisy: the CPU model, CPU count and load average are printed.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

size_mib=${1:-1024}
runs=${2:-5}
trial_runs=${3:-3}
parts=${PARTS:-read serve trial}

echo "CPU: $(go run ./cmd/xts info | sed -n 's/^CPU *//p') ($(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //')), $(nproc) CPUs, load average $(cut -d' ' -f1-3 /proc/loadavg)"

if [[ " $parts " == *" read "* ]]; then
	echo "== read: veracrypt.Volume vs luks.Volume, ${size_mib} MiB, ${runs} interleaved runs"
	VERACRYPT_BENCH_MIB=$size_mib go test -run '^$' -bench 'ReadAtVsLUKS$' -benchtime "${runs}x" ./veracrypt/ | grep -E '^(Benchmark|cpu:)'
fi

if [[ " $parts " == *" serve "* ]]; then
	for tool in nbdkit nbdcopy nbdinfo bc; do
		command -v "$tool" >/dev/null || { echo "tcrypt-bench.sh: $tool is not installed" >&2; exit 1; }
	done
	dir=$(mktemp -d)
	trap 'rm -rf "$dir"' EXIT
	go build -o "$dir/xts" ./cmd/xts
	echo "making ${size_mib} MiB of random data and a VeraCrypt AES volume of it in $dir" >&2
	head -c "$((size_mib << 20))" /dev/urandom >"$dir/raw"
	printf 'bench\n' >"$dir/pass"
	# A VeraCrypt volume holds 256 KiB of headers around its data.
	"$dir/xts" tcrypt create -q --veracrypt-pim 1 --size "$(((size_mib << 10) + 256))k" "$dir/img" <"$dir/pass"
	sock="$dir/nbd.sock"
	wait_sock() {
		local i
		for ((i = 0; i < 500; i++)); do
			[[ -S $sock ]] && nbdinfo --size "nbd+unix:///?socket=$sock" >/dev/null 2>&1 && return
			sleep 0.02
		done
		echo "tcrypt-bench.sh: no server on $sock" >&2
		exit 1
	}
	rm -f "$sock"
	"$dir/xts" tcrypt serve --veracrypt-pim 1 --socket "$sock" "$dir/img" <"$dir/pass" 2>/dev/null &
	pid=$!
	wait_sock
	nbdcopy "$dir/raw" "nbd+unix:///?socket=$sock"
	kill -TERM "$pid"
	wait "$pid" || true
	cat "$dir/raw" "$dir/img" >/dev/null # into the page cache
	tick=$(getconf CLK_TCK)

	# run_one NAME: starts the server on $sock, copies, prints "WALL CPU"
	# (seconds), stops the server.
	run_one() {
		rm -f "$sock"
		case $1 in
		nbdkit-file) nbdkit -r -f -U "$sock" file "$dir/raw" & ;;
		xts-tcrypt) "$dir/xts" tcrypt serve --readonly --veracrypt-pim 1 --socket "$sock" "$dir/img" <"$dir/pass" 2>/dev/null & ;;
		esac
		local pid=$!
		wait_sock
		local cpu0 t0 t1 cpu1
		cpu0=$(awk '{print $14 + $15}' "/proc/$pid/stat")
		t0=$(date +%s.%N)
		nbdcopy "nbd+unix:///?socket=$sock" null:
		t1=$(date +%s.%N)
		cpu1=$(awk '{print $14 + $15}' "/proc/$pid/stat")
		kill -TERM "$pid"
		wait "$pid" || true
		echo "$(echo "$t1 - $t0" | bc -l) $(echo "($cpu1 - $cpu0) / $tick" | bc -l)"
	}
	# The data read back through the export are the plaintext.
	rm -f "$sock"
	"$dir/xts" tcrypt serve --readonly --veracrypt-pim 1 --socket "$sock" "$dir/img" <"$dir/pass" 2>/dev/null &
	pid=$!
	wait_sock
	nbdcopy "nbd+unix:///?socket=$sock" "$dir/back"
	kill -TERM "$pid"
	wait "$pid" || true
	cmp "$dir/raw" "$dir/back" || { echo "tcrypt-bench.sh: the export's data differ from the plaintext" >&2; exit 1; }
	rm -f "$dir/back"

	names=(nbdkit-file xts-tcrypt)
	declare -A wall cpu
	for ((i = 0; i < runs; i++)); do
		for n in "${names[@]}"; do
			read -r w c < <(run_one "$n")
			wall[$n]+="$w "
			cpu[$n]+="$c "
		done
	done
	echo "== serve: nbdcopy export -> null:, ${size_mib} MiB, ${runs} interleaved runs, load average $(cut -d' ' -f1-3 /proc/loadavg)"
	base=""
	for n in "${names[@]}"; do
		w=$(echo "${wall[$n]}" | median)
		c=$(echo "${cpu[$n]}" | median)
		mbs=$(echo "$size_mib * 1048576 / $w / 1000000" | bc -l)
		[[ -n $base ]] || base=$mbs
		printf '%-12s wall %6.3f s %6.0f MB/s (%4.2fx nbdkit-file)  server CPU %6.3f s\n' "$n" "$w" "$mbs" "$(echo "$mbs / $base" | bc -l)" "$c"
		printf '%-12s   walls: %s\n%-12s   CPUs:  %s\n' "" "${wall[$n]}" "" "${cpu[$n]}"
	done
fi

if [[ " $parts " == *" trial "* ]]; then
	echo "== trial: single derivations vs Open with no PRF named, ${trial_runs} interleaved runs"
	go test -run '^$' -bench 'Trials$' -benchtime "${trial_runs}x" -timeout 60m ./veracrypt/ | grep -E '^(Benchmark|cpu:|    bench_test)' |
		tr '\t' '\n' | sed 's/^ *//' | grep -v '^$'
	echo "load average after: $(cut -d' ' -f1-3 /proc/loadavg)"
fi
