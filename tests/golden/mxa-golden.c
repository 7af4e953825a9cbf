// SPDX-License-Identifier: MIT
/*
 * mxa-golden - run every MXGV golden case in the given directories (or
 * files) on the engine and print one line per case:
 *   <name> PASS|FAIL maxerr=<...> oracle_err=<...|-> bitexact=<fraction>
 * then "N passed, N failed". Exit status 1 when a case fails or cannot run.
 *
 * Options: --accum exact|fast|hopper  --threads N  --sched intra|inter
 *          --tf32 trunc|rna    -v (print why a case failed)
 *          --plan-elsewhere (hopper: a cuBLAS case's plan from other shapes than its own)
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "mxe_engine.h"
#include "mxe_golden.h"

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int add_path(char ***list, size_t *n, size_t *cap, const char *p)
{
	if (*n == *cap) {
		size_t nc = *cap ? *cap * 2 : 64;
		char **nl = realloc(*list, nc * sizeof(char *));

		if (!nl)
			return -1;
		*list = nl;
		*cap = nc;
	}
	(*list)[(*n)++] = strdup(p);
	return 0;
}

static int collect(const char *arg, char ***list, size_t *n, size_t *cap)
{
	struct stat st;
	DIR *dir;
	struct dirent *de;

	if (stat(arg, &st)) {
		fprintf(stderr, "mxa-golden: %s: not found\n", arg);
		return -1;
	}
	if (!S_ISDIR(st.st_mode))
		return add_path(list, n, cap, arg);
	dir = opendir(arg);
	if (!dir)
		return -1;
	while ((de = readdir(dir))) {
		size_t l = strlen(de->d_name);
		char path[4096];

		if (l < 6 || strcmp(de->d_name + l - 5, ".mxgv"))
			continue;
		snprintf(path, sizeof(path), "%s/%s", arg, de->d_name);
		if (add_path(list, n, cap, path)) {
			closedir(dir);
			return -1;
		}
	}
	closedir(dir);
	return 0;
}

int main(int argc, char **argv)
{
	struct mxe_golden_opts opts;
	struct mxe_engine *eng;
	char **files = NULL;
	size_t nfiles = 0, cap = 0, start = 0;
	int npass = 0, nfail = 0, verbose = 0;

	memset(&opts, 0, sizeof(opts));
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--accum") && i + 1 < argc) {
			const char *m = argv[++i];

			opts.accum = !strcmp(m, "fast") ? MXE_ACCUM_FAST :
				     !strcmp(m, "hopper") ? MXE_ACCUM_HOPPER : MXE_ACCUM_EXACT;
		} else if (!strcmp(a, "--threads") && i + 1 < argc) {
			opts.nthreads = (unsigned)atoi(argv[++i]);
		} else if (!strcmp(a, "--sched") && i + 1 < argc) {
			opts.sched = !strcmp(argv[++i], "inter") ? MXE_SCHED_INTERWAVE
								 : MXE_SCHED_INTRAWAVE;
		} else if (!strcmp(a, "--tf32") && i + 1 < argc) {
			opts.tf32_input = !strcmp(argv[++i], "rna") ? MXE_TF32_IN_RNA
								    : MXE_TF32_IN_TRUNCATE;
		} else if (!strcmp(a, "--plan-elsewhere")) {
			opts.plan_elsewhere = 1;
		} else if (!strcmp(a, "-v")) {
			verbose = 1;
		} else if (a[0] == '-') {
			fprintf(stderr, "usage: %s [--accum exact|fast|hopper] [--threads N] "
				"[--sched intra|inter] [--tf32 trunc|rna] [--plan-elsewhere] [-v] "
				"DIR|FILE...\n",
				argv[0]);
			return 2;
		} else if (collect(a, &files, &nfiles, &cap)) {
			return 2;
		}
	}
	if (!nfiles) {
		fprintf(stderr, "mxa-golden: no *.mxgv cases given\n");
		printf("0 passed, 1 failed\n");
		return 1;
	}
	qsort(files + start, nfiles, sizeof(char *), cmp_str);

	eng = mxe_engine_create(opts.nthreads);
	for (size_t i = 0; i < nfiles; i++) {
		struct mxe_golden_case gc;
		struct mxe_golden_result res;
		char line[512];
		int rc = mxe_golden_load(files[i], &gc);

		if (rc) {
			printf("%s FAIL maxerr=inf oracle_err=- bitexact=0 (unreadable: %s)\n",
			       files[i], strerror(-rc));
			nfail++;
			continue;
		}
		rc = mxe_golden_run(eng, &gc, &opts, &res);
		if (rc) {
			res.pass = 0;
			snprintf(res.why, sizeof(res.why), "%s", strerror(-rc));
		}
		mxe_golden_format(&gc, &res, line, sizeof(line));
		if (!res.pass && verbose && res.why[0])
			printf("%s (%s)\n", line, res.why);
		else
			printf("%s\n", line);
		fflush(stdout);
		if (res.pass)
			npass++;
		else
			nfail++;
		mxe_golden_free(&gc);
		free(files[i]);
	}
	free(files);
	mxe_engine_destroy(eng);
	printf("%d passed, %d failed\n", npass, nfail);
	return nfail ? 1 : 0;
}
