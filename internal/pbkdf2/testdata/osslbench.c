// osslbench prints the PBKDF2 iterations per second of OpenSSL's
// PKCS5_PBKDF2_HMAC, one line per run, per second of the thread's CPU
// time (on a loaded machine, wall time measures the scheduler), after one
// unreported warm-up run. Build: gcc -O2 -o osslbench
// osslbench.c -lcrypto. Usage: osslbench DIGEST ITER KEYLEN REPS
// (KEYLEN one digest, so that ITER is the iteration count measured).
// BenchmarkCompare runs it between its own runs (OSSL_PBKDF2_BENCH).
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
int main(int argc, char **argv) {
	if (argc != 5) {
		fprintf(stderr, "usage: osslbench DIGEST ITER KEYLEN REPS\n");
		return 2;
	}
	/* Whirlpool lives in the legacy provider. */
	OSSL_PROVIDER_load(NULL, "legacy");
	OSSL_PROVIDER_load(NULL, "default");
	EVP_MD *md = EVP_MD_fetch(NULL, argv[1], NULL);
	int iter = atoi(argv[2]), keylen = atoi(argv[3]), reps = atoi(argv[4]);
	unsigned char out[256], salt[64] = {0};
	if (!md || iter < 1 || keylen < 1 || keylen > (int)sizeof out || reps < 1) {
		fprintf(stderr, "osslbench: no digest %s or bad numbers\n", argv[1]);
		return 1;
	}
	if (!PKCS5_PBKDF2_HMAC("password", 8, salt, 64, iter, md, keylen, out)) return 1;
	for (int r = 0; r < reps; r++) {
		struct timespec a, b;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &a);
		if (!PKCS5_PBKDF2_HMAC("password", 8, salt, 64, iter, md, keylen, out)) return 1;
		clock_gettime(CLOCK_THREAD_CPUTIME_ID, &b);
		double s = (b.tv_sec - a.tv_sec) + (b.tv_nsec - a.tv_nsec) / 1e9;
		printf("%.0f\n", iter * ((keylen + EVP_MD_get_size(md) - 1) / EVP_MD_get_size(md)) / s);
	}
	return 0;
}
