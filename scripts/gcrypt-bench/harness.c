/*
 * gcrypt-bench: times libgcrypt's XTS (and, for reference, ECB) the way
 * `xts bench` times ours, for scripts/gcrypt-sid.sh and `xts bench --gcrypt`.
 *
 * Each XTS cell encrypts or decrypts one data unit of SIZE bytes in place,
 * again and again, with a fresh tweak per unit (the unit number, counting
 * up, little-endian in the 16-byte IV, as dm-crypt's plain64 and VeraCrypt
 * number them), as a disk does and as `xts bench`'s message rows do. An
 * ECB cell encrypts SIZE bytes in place in one call: the cipher's bulk rate
 * without tweaks, which bounds what XTS can reach.
 *
 * Usage: gcrypt-bench [-t SECONDS] [-p PASSES] [-c CIPHERS] [-k KEYBITS]
 *                     [-o OPS] [-s SIZES] [-m MODES]
 *   -t  time per cell and pass (default 0.2)
 *   -p  passes over every cell, interleaved; the best counts (default 1)
 *   -c  comma-separated: aes, serpent, twofish, camellia (default all)
 *   -k  comma-separated key sizes in bits: 128, 192, 256 (default 128,256)
 *   -o  comma-separated: enc, dec (default enc,dec)
 *   -s  comma-separated sizes in bytes, multiples of 16 (default 512,4096,65536)
 *   -m  comma-separated: xts, ecb (default xts,ecb)
 *
 * Output, one tab-separated line per cell after a version line:
 *   # libgcrypt VERSION
 *   cipher	keybits	mode	op	size	mbps
 * MB/s are 10^6 bytes per second. A cipher/key size libgcrypt lacks is
 * left out with a note on stderr.
 */
#define _POSIX_C_SOURCE 200809L
#include <gcrypt.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define MAXLIST 16

struct list {
	int n;
	char *v[MAXLIST];
};

static void split(struct list *l, char *s)
{
	l->n = 0;
	for (char *tok = strtok(s, ","); tok != NULL && l->n < MAXLIST; tok = strtok(NULL, ","))
		l->v[l->n++] = tok;
}

static int algo_of(const char *name, int keybits)
{
	struct {
		const char *name;
		int bits;
		int algo;
	} t[] = {
		{"aes", 128, GCRY_CIPHER_AES128},
		{"aes", 192, GCRY_CIPHER_AES192},
		{"aes", 256, GCRY_CIPHER_AES256},
		{"serpent", 128, GCRY_CIPHER_SERPENT128},
		{"serpent", 192, GCRY_CIPHER_SERPENT192},
		{"serpent", 256, GCRY_CIPHER_SERPENT256},
		{"twofish", 128, GCRY_CIPHER_TWOFISH128},
		{"twofish", 256, GCRY_CIPHER_TWOFISH},
		{"camellia", 128, GCRY_CIPHER_CAMELLIA128},
		{"camellia", 192, GCRY_CIPHER_CAMELLIA192},
		{"camellia", 256, GCRY_CIPHER_CAMELLIA256},
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (strcmp(t[i].name, name) == 0 && t[i].bits == keybits)
			return t[i].algo;
	return 0;
}

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static void die(const char *what, gcry_error_t err)
{
	fprintf(stderr, "gcrypt-bench: %s: %s\n", what, gcry_strerror(err));
	exit(1);
}

/* A cell: one cipher handle, mode, operation and size, with its best rate. */
struct cell {
	const char *cipher;
	int keybits;
	int xts;
	int enc;
	size_t size;
	gcry_cipher_hd_t h;
	long iters;
	double mbps;
};

static uint64_t unit_counter;

/* run does n calls of the cell on buf. */
static void run(struct cell *c, unsigned char *buf, long n)
{
	gcry_error_t err = 0;
	for (long i = 0; i < n; i++) {
		if (c->xts) {
			unsigned char iv[16] = {0};
			uint64_t u = unit_counter++;
			for (int j = 0; j < 8; j++)
				iv[j] = (unsigned char)(u >> (8 * j));
			err = gcry_cipher_setiv(c->h, iv, sizeof iv);
			if (err)
				die("setiv", err);
		}
		if (c->enc)
			err = gcry_cipher_encrypt(c->h, buf, c->size, NULL, 0);
		else
			err = gcry_cipher_decrypt(c->h, buf, c->size, NULL, 0);
		if (err)
			die(c->enc ? "encrypt" : "decrypt", err);
	}
}

static void measure(struct cell *c, unsigned char *buf, double d)
{
	if (c->iters == 0) {
		long n = 1;
		for (;;) {
			double t0 = now();
			run(c, buf, n);
			double t = now() - t0;
			if (t >= d / 16 || n >= (1L << 30)) {
				double it = n * d / (t > 1e-9 ? t : 1e-9);
				c->iters = it < 1 ? 1 : (long)it;
				break;
			}
			n *= 4;
		}
	}
	double t0 = now();
	run(c, buf, c->iters);
	double t = now() - t0;
	double mbps = (double)c->iters * (double)c->size / t / 1e6;
	if (mbps > c->mbps)
		c->mbps = mbps;
}

int main(int argc, char **argv)
{
	double d = 0.2;
	int passes = 1;
	char ciphers[256] = "aes,serpent,twofish,camellia", keys[64] = "128,256", ops[32] = "enc,dec",
	     sizes[256] = "512,4096,65536", modes[32] = "xts,ecb";
	for (int i = 1; i < argc; i++) {
		if (i + 1 >= argc || argv[i][0] != '-' || strlen(argv[i]) != 2) {
			fprintf(stderr, "usage: %s [-t seconds] [-p passes] [-c ciphers] [-k keybits] [-o ops] [-s sizes] [-m modes]\n", argv[0]);
			return 2;
		}
		char *v = argv[++i];
		switch (argv[i - 1][1]) {
		case 't': d = atof(v); break;
		case 'p': passes = atoi(v); break;
		case 'c': snprintf(ciphers, sizeof ciphers, "%s", v); break;
		case 'k': snprintf(keys, sizeof keys, "%s", v); break;
		case 'o': snprintf(ops, sizeof ops, "%s", v); break;
		case 's': snprintf(sizes, sizeof sizes, "%s", v); break;
		case 'm': snprintf(modes, sizeof modes, "%s", v); break;
		default:
			fprintf(stderr, "gcrypt-bench: unknown flag %s\n", argv[i - 1]);
			return 2;
		}
	}
	if (!(d > 0 && d <= 60) || passes < 1 || passes > 100) {
		fprintf(stderr, "gcrypt-bench: -t must be in (0, 60], -p in 1..100\n");
		return 2;
	}
	const char *version = gcry_check_version(NULL);
	gcry_control(GCRYCTL_DISABLE_SECMEM, 0);
	gcry_control(GCRYCTL_INITIALIZATION_FINISHED, 0);

	struct list lc, lk, lo, ls, lm;
	split(&lc, ciphers);
	split(&lk, keys);
	split(&lo, ops);
	split(&ls, sizes);
	split(&lm, modes);

	size_t maxsize = 16;
	for (int i = 0; i < ls.n; i++) {
		long s = atol(ls.v[i]);
		if (s < 16 || s % 16 != 0 || s > (16L << 20)) {
			fprintf(stderr, "gcrypt-bench: size %s is not a multiple of 16 from 16 to 16 MiB\n", ls.v[i]);
			return 2;
		}
		if ((size_t)s > maxsize)
			maxsize = (size_t)s;
	}
	unsigned char *buf = aligned_alloc(4096, (maxsize + 4095) / 4096 * 4096);
	if (buf == NULL)
		return 1;
	gcry_randomize(buf, maxsize, GCRY_WEAK_RANDOM);

	struct cell *cells = calloc((size_t)lc.n * lk.n * lo.n * ls.n * lm.n, sizeof *cells);
	int nc = 0;
	for (int ci = 0; ci < lc.n; ci++)
		for (int ki = 0; ki < lk.n; ki++) {
			int bits = atoi(lk.v[ki]);
			int algo = algo_of(lc.v[ci], bits);
			if (algo == 0 || gcry_cipher_test_algo(algo) != 0) {
				fprintf(stderr, "gcrypt-bench: no %s with %d-bit keys here\n", lc.v[ci], bits);
				continue;
			}
			for (int mi = 0; mi < lm.n; mi++) {
				int xts = strcmp(lm.v[mi], "xts") == 0;
				if (!xts && strcmp(lm.v[mi], "ecb") != 0) {
					fprintf(stderr, "gcrypt-bench: unknown mode %s\n", lm.v[mi]);
					return 2;
				}
				unsigned char key[64];
				size_t klen = (size_t)bits / 8 * (xts ? 2 : 1);
				gcry_randomize(key, klen, GCRY_STRONG_RANDOM);
				for (int oi = 0; oi < lo.n; oi++)
					for (int si = 0; si < ls.n; si++) {
						struct cell *c = &cells[nc++];
						c->cipher = lc.v[ci];
						c->keybits = bits;
						c->xts = xts;
						c->enc = strcmp(lo.v[oi], "enc") == 0;
						c->size = (size_t)atol(ls.v[si]);
						gcry_error_t err = gcry_cipher_open(&c->h, algo, xts ? GCRY_CIPHER_MODE_XTS : GCRY_CIPHER_MODE_ECB, 0);
						if (err)
							die("open", err);
						if ((err = gcry_cipher_setkey(c->h, key, klen)))
							die("setkey", err);
					}
			}
		}
	/* Interleaved passes: every cell once per pass, the best kept. */
	for (int p = 0; p < passes; p++)
		for (int i = 0; i < nc; i++)
			measure(&cells[i], buf, d);

	printf("# libgcrypt %s\n", version);
	for (int i = 0; i < nc; i++) {
		struct cell *c = &cells[i];
		printf("%s\t%d\t%s\t%s\t%zu\t%.1f\n", c->cipher, c->keybits, c->xts ? "xts" : "ecb", c->enc ? "enc" : "dec", c->size, c->mbps);
		gcry_cipher_close(c->h);
	}
	free(cells);
	free(buf);
	return 0;
}
