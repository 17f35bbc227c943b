# lib.sh: what the benchmark scripts share; each sources it after its
# cd to the repository root (. scripts/lib.sh).

# median [NUMBERS]: the median of the numbers (separated by spaces or
# newlines) in the argument, or on standard input when there is none; the
# mean of the middle two for an even count.
median() {
	if (($#)); then printf '%s\n' "$1"; else cat; fi | tr ' ' '\n' | grep -v '^$' | sort -g |
		awk '{ a[NR] = $1 } END { print (NR % 2) ? a[(NR + 1) / 2] : (a[NR / 2] + a[NR / 2 + 1]) / 2 }'
}

# ratio A B: A / B with two decimals, 0 when B is 0.
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0) ? a / b : 0 }'; }
