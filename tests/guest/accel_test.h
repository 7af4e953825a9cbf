/* SPDX-License-Identifier: MIT */
/*
 * Helpers for guest tests written against libaccel (tile, mma, cvt, tma, async).
 * Include after accel.h.
 */
#ifndef ACCEL_TEST_H
#define ACCEL_TEST_H

#include <stdio.h>

#include "accel.h"

/*
 * Upload @prog into @prog_bo, run it on queue 0, wait up to a minute and store the
 * job's result in @r; a failed job's explanation goes to stderr as a TAP comment.
 * Return: 0 when the job ended (its outcome is in @r), or the libaccel error.
 */
static inline int accel_test_run(struct accel_device *dev, struct accel_prog *prog,
				 struct accel_bo *prog_bo, struct accel_job_result *r)
{
	struct accel_job *job;
	int ret;

	ret = accel_prog_upload(prog, prog_bo, 0);
	if (!ret)
		ret = accel_submit(dev, 0, prog_bo, 0, accel_prog_size(prog), &job);
	if (ret)
		return ret;
	ret = accel_wait(job, 60ll * 1000000000);
	if (!ret) {
		*r = *accel_job_result(job);
		if (r->status) {
			char why[256];

			accel_job_explain(r, why, sizeof(why));
			fprintf(stderr, "# %s\n", why);
		}
	}
	accel_job_free(job);
	return ret;
}

#endif /* ACCEL_TEST_H */
