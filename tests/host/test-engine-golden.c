// SPDX-License-Identifier: MIT
/*
 * test-engine-golden - every MXGV case of the golden directory
 * ($MXA_GOLDEN_DIR, default tests/golden/h200: the H200 cases kept in the tree)
 * must pass with the default numerics; GEMM and TMATMULMX cases must also
 * pass with the FAST numerics on two threads with the interwave policy, and
 * the floating-point wmma/wgmma cases and the cuBLAS GEMMs must be
 * reproduced bit for bit by the HOPPER numerics (cuBLAS: mxe_hopper_gemm()
 * with the measured plans).
 *
 * The fresh cuBLAS sets (cublas-fresh/, which models may be fitted on, and
 * cublas-heldout/, which they may not: shapes and seeds of their own) must pass with the
 * default numerics, the promise of never being less accurate than the H200 (TF32 at full
 * f32: MXE_LIBRARY_TF32_INPUT); the HOPPER numerics must reproduce the held-out set bit
 * for bit (run_fresh()).
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

/* The .mxgv names of @dir, sorted, into @names (at most @max); their number. */
static int list_cases(const char *dir, char **names, int max)
{
	struct dirent *de;
	DIR *dp = opendir(dir);
	int n = 0;

	if (!dp)
		return -1;
	while ((de = readdir(dp)) && n < max) {
		size_t l = strlen(de->d_name);

		if (l > 5 && !strcmp(de->d_name + l - 5, ".mxgv"))
			names[n++] = strdup(de->d_name);
	}
	closedir(dp);
	qsort(names, n, sizeof(char *), cmp);
	return n;
}

static void run_case(struct mxe_engine *eng, const char *dir, const char *name)
{
	struct mxe_golden_case gc;
	struct mxe_golden_result res;
	char path[8192], line[512];
	int rc;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	rc = mxe_golden_load(path, &gc);
	if (!host_check(rc == 0, "%s: readable", name))
		return;
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
}

/* How much of a fresh set the HOPPER numerics reproduce bit for bit. */
struct share {
	double case_sum, elems, elems_exact;
	int cases, good;
};

static void share_add(struct share *sh, const struct mxe_golden_case *gc,
		      const struct mxe_golden_result *res)
{
	sh->cases++;
	sh->case_sum += res->bitexact;
	sh->good += res->bitexact >= 0.99;
	sh->elems += (double)gc->m * gc->n;
	sh->elems_exact += res->bitexact * gc->m * gc->n;
}

static double share_cases(const struct share *sh)
{
	return sh->cases ? 100.0 * sh->case_sum / sh->cases : 0.0;
}

static void share_print(const struct share *sh, const char *what, const char *how)
{
	host_diag("%s set, %s: HOPPER reproduces %.1f %% of a case on average, %.1f %% of the "
		  "elements; %d of %d cases at >= 99 %%", what, how, share_cases(sh),
		  sh->elems ? 100.0 * sh->elems_exact / sh->elems : 0.0, sh->good, sh->cases);
}

/*
 * A fresh cuBLAS set: the default numerics' promise on every case; how much of it the
 * HOPPER numerics reproduce bit for bit, with the plan of the grid
 * (qemu-device/engine/mxe_cublas_plans.tsv, which never ran these cases but ran their
 * shapes with the other C flag) and with a plan from other shapes only. The held-out set
 * must reach @goal (in % of a case, on average) with the grid's plans and @goal_elsewhere
 * with other shapes' (Documentation/numerics.rst).
 */
static void run_fresh(struct mxe_engine *eng, const char *dir, const char *what, double goal,
		      double goal_elsewhere)
{
	char *names[1024];
	int n = list_cases(dir, names, 1024);
	struct share grid = { 0 }, elsewhere = { 0 };

	if (!host_check(n > 0, "%s cuBLAS set %s: %d cases", what, dir, n))
		return;
	for (int i = 0; i < n; i++) {
		struct mxe_golden_opts hop = { .accum = MXE_ACCUM_HOPPER };
		struct mxe_golden_case gc;
		struct mxe_golden_result res;
		char path[8192], line[512];
		int rc;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		rc = mxe_golden_load(path, &gc);
		if (!host_check(rc == 0, "%s: readable", names[i]))
			continue;
		rc = mxe_golden_run(eng, &gc, NULL, &res);
		mxe_golden_format(&gc, &res, line, sizeof(line));
		host_check(!rc && res.pass, "%s set, default numerics: %s%s%s", what, line,
			   res.pass ? "" : " -- ", res.pass ? "" : res.why);
		if (!mxe_golden_run(eng, &gc, &hop, &res))
			share_add(&grid, &gc, &res);
		hop.plan_elsewhere = 1;
		if (!mxe_golden_run(eng, &gc, &hop, &res))
			share_add(&elsewhere, &gc, &res);
		mxe_golden_free(&gc);
		free(names[i]);
	}
	share_print(&grid, what, "the grid's plans");
	share_print(&elsewhere, what, "plans from other shapes");
	host_check(share_cases(&grid) >= goal, "%s set, the grid's plans: %.1f %% >= %.1f %%", what,
		   share_cases(&grid), goal);
	host_check(share_cases(&elsewhere) >= goal_elsewhere,
		   "%s set, plans from other shapes: %.1f %% >= %.1f %%", what,
		   share_cases(&elsewhere), goal_elsewhere);
}

int main(void)
{
	const char *dir = getenv("MXA_GOLDEN_DIR");
	struct mxe_engine *eng = mxe_engine_create(2);
	char *names[4096], fresh[4096];
	int n;

	if (!dir || !*dir)
		dir = MXA_GOLDEN_DIR_DEFAULT;
	ksft_print_header();
	n = list_cases(dir, names, 4096);
	if (!host_check(n >= 0, "golden directory %s is readable", dir))
		return host_check_end();
	host_check(n > 0, "%d golden cases found", n);
	for (int i = 0; i < n; i++) {
		run_case(eng, dir, names[i]);
		free(names[i]);
	}
	if (!strcmp(dir, MXA_GOLDEN_DIR_DEFAULT)) {
		snprintf(fresh, sizeof(fresh), "%s/cublas-fresh", dir);
		run_fresh(eng, fresh, "fit", 98.0, 95.0);
		snprintf(fresh, sizeof(fresh), "%s/cublas-heldout", dir);
		run_fresh(eng, fresh, "held-out", 99.0, 99.0);
	}
	mxe_engine_destroy(eng);
	return host_check_end();
}
