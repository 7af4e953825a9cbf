// SPDX-License-Identifier: MIT
/*
 * test-engine-golden - every MXGV case of the golden directory
 * ($MXA_GOLDEN_DIR, default tests/golden/h200: the H200 cases kept in the tree)
 * must pass with the default numerics; GEMM and TMATMULMX cases must also
 * pass with the FAST numerics on two threads with the interwave policy, and
 * the floating-point wmma/wgmma cases and the cuBLAS GEMMs must be
 * reproduced bit for bit by the HOPPER numerics (cuBLAS: mxe_hopper_gemm()
 * with the measured plans).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mxe_golden.h"
#include "host_check.h"

static int cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int main(void)
{
	const char *dir = getenv("MXA_GOLDEN_DIR");
	struct mxe_engine *eng = mxe_engine_create(2);
	char *names[4096];
	int n = 0;
	DIR *dp;
	struct dirent *de;

	if (!dir || !*dir)
		dir = MXA_GOLDEN_DIR_DEFAULT;
	ksft_print_header();
	dp = opendir(dir);
	if (!host_check(dp != NULL, "golden directory %s is readable", dir))
		return host_check_end();
	while ((de = readdir(dp)) && n < 4096) {
		size_t l = strlen(de->d_name);

		if (l > 5 && !strcmp(de->d_name + l - 5, ".mxgv"))
			names[n++] = strdup(de->d_name);
	}
	closedir(dp);
	qsort(names, n, sizeof(char *), cmp);
	host_check(n > 0, "%d golden cases found", n);

	for (int i = 0; i < n; i++) {
		struct mxe_golden_case gc;
		struct mxe_golden_result res;
		char path[4096], line[512];
		int rc;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		rc = mxe_golden_load(path, &gc);
		if (!host_check(rc == 0, "%s: readable", names[i]))
			continue;
		rc = mxe_golden_run(eng, &gc, NULL, &res);
		mxe_golden_format(&gc, &res, line, sizeof(line));
		host_check(!rc && res.pass, "%s%s%s", line, res.pass ? "" : " -- ", res.pass ? "" : res.why);
		if (gc.kind == MXGV_KIND_MATMUL &&
		    ((gc.dtype_d != MXA_DTYPE_S32 && (gc.oracle == MXGV_ORACLE_H200_WMMA ||
						   gc.oracle == MXGV_ORACLE_H200_WGMMA)) ||
		     gc.oracle == MXGV_ORACLE_H200_CUBLAS)) {
			/* every one is reproduced (Documentation/numerics.rst) */
			struct mxe_golden_opts o = { .accum = MXE_ACCUM_HOPPER };

			rc = mxe_golden_run(eng, &gc, &o, &res);
			mxe_golden_format(&gc, &res, line, sizeof(line));
			host_check(!rc && res.pass && res.bitexact == 1.0,
			       "hopper: %s (the H200's own bits)", line);
		}
		if (gc.kind == MXGV_KIND_MATMUL &&
		    (gc.oracle == MXGV_ORACLE_H200_CUBLAS || gc.oracle == MXGV_ORACLE_F64_MATH)) {
			struct mxe_golden_opts o = { .accum = MXE_ACCUM_FAST,
						     .sched = MXE_SCHED_INTERWAVE, .nthreads = 2 };

			rc = mxe_golden_run(eng, &gc, &o, &res);
			mxe_golden_format(&gc, &res, line, sizeof(line));
			host_check(!rc && res.pass, "fast: %s%s%s", line, res.pass ? "" : " -- ",
			       res.pass ? "" : res.why);
		}
		mxe_golden_free(&gc);
		free(names[i]);
	}
	mxe_engine_destroy(eng);
	return host_check_end();
}
