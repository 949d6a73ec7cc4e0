/* replay.c - runs a fuzz target on files, without libFuzzer: the seed
 * corpora and tests/data/fuzz-regress/ go through every build (make check,
 * make SANITIZE=1 check) this way.  Usage: replay FILE|DIR...
 * Prints one PASS line per directory or file; a crash is the failure. */
#include <dirent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);


static int run_file(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		perror(path);
		return -1;
	}
	size_t cap = 1 << 16, len = 0;
	uint8_t *buf = malloc(cap);
	for (size_t got; buf && (got = fread(buf + len, 1, cap - len, f)) > 0;) {
		len += got;
		if (len == cap) {
			uint8_t *nb = realloc(buf, cap *= 2);
			if (!nb)
				free(buf);
			buf = nb;
		}
	}
	fclose(f);
	if (!buf) {
		fprintf(stderr, "%s: out of memory\n", path);
		return -1;
	}
	LLVMFuzzerTestOneInput(buf, len);
	free(buf);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(int argc, char **argv)
{
	int bad = 0;
	for (int i = 1; i < argc; i++) {
		struct stat st;
		if (stat(argv[i], &st) != 0) {
			perror(argv[i]);
			bad = 1;
			continue;
		}
		if (!S_ISDIR(st.st_mode)) {
			if (run_file(argv[i]) < 0)
				bad = 1;
			else
				printf("PASS %s\n", argv[i]);
			continue;
		}
		DIR *d = opendir(argv[i]);
		char **names = NULL;
		size_t n = 0;
		for (struct dirent *e; d && (e = readdir(d));) {
			if (e->d_name[0] == '.')
				continue;
			char **nn = realloc(names, (n + 1) * sizeof *names);
			if (!nn)
				break;
			names = nn;
			size_t len = strlen(argv[i]) + strlen(e->d_name) + 2;
			if (!(names[n] = malloc(len)))
				break;
			snprintf(names[n++], len, "%s/%s", argv[i], e->d_name);
		}
		if (d)
			closedir(d);
		qsort(names, n, sizeof *names, cmp_str);
		size_t ran = 0;
		for (size_t k = 0; k < n; k++) {
			if (run_file(names[k]) == 0)
				ran++;
			else
				bad = 1;
			free(names[k]);
		}
		free(names);
		printf("PASS %s: %zu inputs\n", argv[i], ran);
	}
	fflush(stdout);
	return bad;
}
