#!/usr/bin/env bash
# nbd-hostile.sh: xts luks serve against hostile NBD clients, and the
# throughput of a well-behaved one beside them. Prints one table row a
# case: what the server did, and its peak memory (RssAnon, the resident
# memory it allocated, sampled every 20 ms: the image's pages that luks
# maps for reading are left out, they are page cache; VmHWM, which counts
# them, is printed too).
#
# Cases (those of issue 27):
#   fd     the server under `ulimit -n 64`, 84 bare connections: does it
#          stay up, and serve nbdinfo once they are gone?
#   wr20   20 connections each sending all but one byte of a 32 MiB WRITE
#   rd12   12 connections each sending three 32 MiB READs, never reading
#   mix    40 such writers and 12 such readers at once
#   errs   TRIM on a --readonly export; WRITE and WRITE_ZEROES past the end
#   limit  65 connections: is the 65th served?
#   copy   nbdcopy of the export (SIZE_MIB) to null:, alone and with 50
#          stalled clients (25 writers, 25 readers as above) connected,
#          once the server is idle (the writers' chunks that can go
#          through are written: they are then stalled); interleaved runs,
#          medians, and their ratio (the goal: >= 0.9)
# In the memory cases a fresh nbdinfo must still be answered. The export
# is read-write there and in copy (the stalled writers' chunks that
# arrive are written: the image is scratch).
#
# Usage: [OLD=/path/to/xts] [SIZE_MIB=1024] [RUNS=3] [CASES="fd wr20 ..."] scripts/nbd-hostile.sh
#   OLD: another build of xts (e.g. from main) to run the same cases
#   against, for a before/after table. The image lives in /dev/shm
#   (SIZE_MIB of random data, LUKS2, aes-xts-plain64, PBKDF2).
# Needs Go, python3, nbdinfo, nbdcopy, bc (Linux: /proc).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

size_mib=${SIZE_MIB:-1024}
runs=${RUNS:-3}
read -r -a cases <<<"${CASES:-fd wr20 rd12 mix errs limit copy}"
for tool in go python3 nbdinfo nbdcopy bc; do
	command -v "$tool" >/dev/null || { echo "nbd-hostile.sh: $tool is not installed" >&2; exit 1; }
done

dir=$(mktemp -d /dev/shm/nbd-hostile.XXXXXX)
pids=()
cleanup() {
	local p
	for p in "${pids[@]}"; do kill -KILL "$p" 2>/dev/null || true; done
	rm -rf "$dir"
}
trap cleanup EXIT
go build -o "$dir/xts-new" ./cmd/xts
bins=(new)
if [[ -n ${OLD:-} ]]; then
	cp "$OLD" "$dir/xts-old"
	bins=(old new)
fi

echo "making a ${size_mib} MiB LUKS2 image in $dir" >&2
head -c "$((size_mib << 20))" /dev/urandom >"$dir/raw"
printf 'hostile' >"$dir/pass"
"$dir/xts-new" luks encrypt -d "$dir/pass" --pbkdf pbkdf2 --pbkdf-force-iterations 1000 "$dir/raw" "$dir/img" 2>/dev/null
rm "$dir/raw"
sock="$dir/s.sock"
uri="nbd+unix:///?socket=$sock"

# The hostile client: python3 hostile.py SOCKET MODE N; prints "ready"
# once its connections are set up, then holds them until killed.
cat >"$dir/hostile.py" <<'EOF'
import socket, struct, sys, threading, signal

path, mode, n = sys.argv[1], sys.argv[2], int(sys.argv[3])
size = int(sys.argv[4]) if len(sys.argv) > 4 else 0

def recvall(s, k):
    b = b""
    while len(b) < k:
        c = s.recv(k - len(b))
        if not c:
            raise EOFError("server closed")
        b += c
    return b

def connect(handshake=True):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    if handshake:
        recvall(s, 18)
        # fixed newstyle, no zeroes; NBD_OPT_EXPORT_NAME ""
        s.sendall(struct.pack(">IQII", 3, 0x49484156454F5054, 1, 0))
        recvall(s, 10)
    return s

def req(typ, handle, off, length):
    return struct.pack(">IHHQQI", 0x25609513, 0, typ, handle, off, length)

conns = []
payload = bytes((32 << 20) - 1)

def writer(s):
    try:
        s.sendall(req(1, 1, 0, 32 << 20))
        s.sendall(payload)  # blocks once the server stops reading
    except OSError:
        pass

if mode == "bare":
    for _ in range(n):
        conns.append(connect(False))
elif mode in ("writers", "readers", "stalled"):
    for i in range(n):
        s = connect()
        conns.append(s)
        if mode == "writers" or (mode == "stalled" and i % 2 == 0):
            threading.Thread(target=writer, args=(s,), daemon=True).start()
        else:
            s.sendall(b"".join(req(0, h, h << 25, 32 << 20) for h in range(3)))
elif mode == "errors":
    out = []
    for name, typ, off, length, data in (
        ("trim", 4, 0, 4096, b""),
        ("write", 1, size - 512, 1024, bytes(1024)),
        ("zeroes", 6, size, 4096, b""),
    ):
        s = connect()
        s.sendall(req(typ, 7, off, length) + data)
        h = recvall(s, 16)
        out.append("%s=%d" % (name, struct.unpack(">I", h[4:8])[0]))
        s.close()
    print(" ".join(out), flush=True)
    sys.exit(0)
elif mode == "count":
    ok = 0
    for _ in range(n):
        try:
            conns.append(connect())
            ok += 1
        except (OSError, EOFError):
            pass
    print("served=%d" % ok, flush=True)
print("ready", flush=True)
signal.sigwait([signal.SIGTERM, signal.SIGINT])
EOF

# start_server BIN [FLAGS...]: starts xts luks serve on $sock (read-only
# unless RW=1), sets $spid.
start_server() {
	local bin=$1
	shift
	rm -f "$sock"
	local ro=(--readonly)
	[[ -z ${RW:-} ]] || ro=()
	if [[ -n ${NOFILE:-} ]]; then
		(ulimit -n "$NOFILE" && exec "$dir/xts-$bin" luks serve "${ro[@]}" -d "$dir/pass" --socket "$sock" "$@" "$dir/img") 2>>"$dir/server.log" &
	else
		"$dir/xts-$bin" luks serve "${ro[@]}" -d "$dir/pass" --socket "$sock" "$@" "$dir/img" 2>>"$dir/server.log" &
	fi
	spid=$!
	pids+=("$spid")
	local i
	for ((i = 0; i < 500; i++)); do
		[[ -S $sock ]] && nbdinfo --size "$uri" >/dev/null 2>&1 && return
		sleep 0.02
	done
	echo "the server did not start" >&2
	exit 1
}

# stop_server: SIGTERM (SIGKILL after 10 s); sets $sstatus.
stop_server() {
	kill -TERM "$spid" 2>/dev/null || true
	local i
	for ((i = 0; i < 500; i++)); do
		kill -0 "$spid" 2>/dev/null || break
		sleep 0.02
	done
	kill -KILL "$spid" 2>/dev/null || true
	sstatus=0
	wait "$spid" 2>/dev/null || sstatus=$?
}

# hostile MODE N: starts the hostile client, waits for its first line
# ("ready", or a count), sets $hpid and $hline.
hostile() {
	local out="$dir/hostile.$RANDOM"
	python3 "$dir/hostile.py" "$sock" "$@" >"$out" 2>/dev/null &
	hpid=$!
	pids+=("$hpid")
	local i
	for ((i = 0; i < 3000; i++)); do
		[[ -s $out ]] && break
		kill -0 "$hpid" 2>/dev/null || break
		sleep 0.02
	done
	hline=$(head -n1 "$out")
}

end_hostile() {
	kill -TERM "$hpid" 2>/dev/null || true
	wait "$hpid" 2>/dev/null || true
}

# sampler: records the server's peak RssAnon (KiB) into $dir/peak until
# $dir/peak.stop appears.
sampler() {
	local peak=0 v
	rm -f "$dir/peak.stop"
	while [[ ! -e $dir/peak.stop ]]; do
		v=$(awk '/^RssAnon:/ {print $2}' "/proc/$spid/status" 2>/dev/null || echo 0)
		((v > peak)) && peak=$v
		sleep 0.02
	done
	echo "$peak" >"$dir/peak"
}

mib() { echo $((($1 + 1023) / 1024)); }

row() { printf '%-6s %-4s %s\n' "$@"; }

case_fd() {
	local b=$1
	NOFILE=64 start_server "$b"
	hostile bare 84
	sleep 1
	local state="alive"
	kill -0 "$spid" 2>/dev/null || { wait "$spid" 2>/dev/null && state="exited 0" || state="exited $?"; }
	end_hostile
	local serves="-"
	if [[ $state == alive ]]; then
		sleep 1.5
		serves=no
		nbdinfo --size "$uri" >/dev/null 2>&1 && serves=yes
		stop_server
	fi
	row fd "$b" "server: $state; fresh nbdinfo afterwards: $serves; accept lines in its log: $(grep -c 'accept' "$dir/server.log" || true)"
}

case_mem() { # NAME MODE N [MODE N]
	local b=$1 name=$2
	shift 2
	# Read-write: on a read-only export the writes are refused and
	# their payloads skipped, which holds no memory.
	RW=1 start_server "$b"
	sampler &
	local samp=$!
	local hp=()
	while (($# >= 2)); do
		hostile "$1" "$2"
		hp+=("$hpid")
		shift 2
	done
	sleep 2
	local info=no
	timeout 10 nbdinfo --size "$uri" >/dev/null 2>&1 && info=yes
	touch "$dir/peak.stop"
	wait "$samp"
	local hwm
	hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$spid/status")
	for hpid in "${hp[@]}"; do end_hostile; done
	stop_server
	row "$name" "$b" "peak RssAnon $(mib "$(cat "$dir/peak")") MiB (VmHWM $(mib "$hwm") MiB); fresh nbdinfo meanwhile: $info; exit $sstatus after SIGTERM"
}

case_errs() {
	local b=$1 size
	start_server "$b"
	size=$(nbdinfo --size "$uri")
	local ro rw
	ro=$(python3 "$dir/hostile.py" "$sock" errors 0 "$size" | cut -d' ' -f1)
	stop_server
	RW=1 start_server "$b"
	rw=$(python3 "$dir/hostile.py" "$sock" errors 0 "$size" | cut -d' ' -f2-)
	stop_server
	row errs "$b" "--readonly: $ro (EPERM=1 EINVAL=22); read-write: $rw (ENOSPC=28)"
}

case_limit() {
	local b=$1
	start_server "$b"
	hostile count 65
	local c=$hline
	end_hostile
	stop_server
	row limit "$b" "65 clients: $c; log: $(grep -c 'refusing' "$dir/server.log" || true) line(s) about refusing"
}

# wait_idle: waits (at most 60 s) until the server has used under 20 ms
# of CPU in 250 ms: the stalled clients' writes that could go through
# have gone through, and they are stalled.
wait_idle() {
	local i c0 c1
	c0=$(awk '{print $14 + $15}' "/proc/$spid/stat")
	for ((i = 0; i < 240; i++)); do
		sleep 0.25
		c1=$(awk '{print $14 + $15}' "/proc/$spid/stat")
		(((c1 - c0) * 1000 / tick < 20)) && return
		c0=$c1
	done
}
tick=$(getconf CLK_TCK)

copy_once() { # BIN STALLED: prints the copy's seconds
	local b=$1 n=$2
	RW=1 start_server "$b"
	((n == 0)) || hostile stalled "$n"
	sleep 0.5
	wait_idle
	local t0 t1
	t0=$(date +%s.%N)
	nbdcopy "$uri" null:
	t1=$(date +%s.%N)
	((n == 0)) || end_hostile
	stop_server
	echo "$t1 - $t0" | bc -l
}

case_copy() {
	local b=$1 i alone="" crowd=""
	for ((i = 0; i < runs; i++)); do
		alone+="$(copy_once "$b" 0) "
		crowd+="$(copy_once "$b" 50) "
	done
	local a c
	a=$(echo "$alone" | median)
	c=$(echo "$crowd" | median)
	row copy "$b" "$(printf 'nbdcopy %d MiB -> null: alone %.0f MB/s, with 50 stalled clients %.0f MB/s: %.2fx (walls alone: %s; with them: %s)' \
		"$size_mib" "$(echo "$size_mib * 1.048576 / $a" | bc -l)" "$(echo "$size_mib * 1.048576 / $c" | bc -l)" "$(echo "$a / $c" | bc -l)" "$alone" "$crowd")"
}

echo "xts luks serve against hostile clients; ${size_mib} MiB LUKS2 image in /dev/shm; $(nproc) CPUs,$(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2)"
for c in "${cases[@]}"; do
	for b in "${bins[@]}"; do
		: >"$dir/server.log"
		case $c in
		fd) case_fd "$b" ;;
		wr20) case_mem "$b" wr20 writers 20 ;;
		rd12) case_mem "$b" rd12 readers 12 ;;
		mix) case_mem "$b" mix writers 40 readers 12 ;;
		errs) case_errs "$b" ;;
		limit) case_limit "$b" ;;
		copy) case_copy "$b" ;;
		*) echo "unknown case $c" >&2 ;;
		esac
	done
done
