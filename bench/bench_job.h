/* SPDX-License-Identifier: MIT */
/*
 * bench_job.h - what the guest benchmarks share: die() on a libaccel error, and one run
 * of a program as a job whose failure ends the benchmark with the job's explanation.
 * Each program defines BENCH_NAME (its name in messages) before including it.
 */
#ifndef BENCH_JOB_H
#define BENCH_JOB_H

#include <stdio.h>
#include <stdlib.h>

#include "accel.h"

static inline void die(int ret, const char *what)
{
	if (ret) {
		fprintf(stderr, BENCH_NAME ": %s: %s\n", what, accel_strerror(ret));
		exit(1);
	}
}

/*
 * Submit @bo's program (@bytes) on queue 0 as @grid (NULL: one instance), wait; *@r:
 * its result. Exit if it failed.
 */
static inline void bench_job_grid(struct accel_device *dev, struct accel_bo *bo, size_t bytes,
				  const struct accel_grid *grid, struct accel_job_result *r)
{
	struct accel_job *job;

	die(accel_submit_grid(dev, 0, bo, 0, bytes, grid, &job), "submit");
	die(accel_wait(job, -1), "wait");
	*r = *accel_job_result(job);
	accel_job_free(job);
	if (r->status) {
		char why[256];

		accel_job_explain(r, why, sizeof(why));
		fprintf(stderr, BENCH_NAME ": %s\n", why);
		exit(1);
	}
}

static inline void bench_job(struct accel_device *dev, struct accel_bo *bo, size_t bytes,
			     struct accel_job_result *r)
{
	bench_job_grid(dev, bo, bytes, NULL, r);
}

#endif
