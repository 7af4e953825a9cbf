/* SPDX-License-Identifier: MIT */
/*
 * Helpers for guest tests written against libaccel (tile, mma, cvt, tma, async): the
 * common fixture members, their setup and teardown, running the fixture's program.
 * Include after accel.h.
 */
#ifndef ACCEL_TEST_H
#define ACCEL_TEST_H

#include <stdint.h>
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

/*
 * The members every libaccel test fixture (tile, mma, cvt, tma, async) starts with: the
 * device, a program buffer and builder, a data buffer (CPU view @data, device VA @va)
 * and the last job's result. Put ACCEL_TEST_FIELDS; first in the FIXTURE() body.
 */
#define ACCEL_TEST_FIELDS						\
	struct accel_device *dev;					\
	struct accel_bo *prog_bo, *data_bo;				\
	struct accel_prog *prog;					\
	uint8_t *data;							\
	uint64_t va;							\
	struct accel_job_result r

/*
 * Set up those members of @self: open the device; when it lacks the capability @cap,
 * stop there with 1 (the caller skips); else a 64 KiB program buffer, a @data_size data
 * buffer and a program builder: 0, or the libaccel error.
 */
#define accel_test_setup(self, cap, data_size)					\
	accel_test_setup_fields(&(self)->dev, &(self)->prog_bo, &(self)->data_bo,	\
				&(self)->prog, &(self)->data, &(self)->va, cap, data_size)

static inline int accel_test_setup_fields(struct accel_device **dev, struct accel_bo **prog_bo,
					  struct accel_bo **data_bo, struct accel_prog **prog,
					  uint8_t **data, uint64_t *va, uint64_t cap,
					  size_t data_size)
{
	int ret = accel_open(NULL, ACCEL_SUBMIT_AUTO, dev);

	if (ret)
		return ret;
	if (!(accel_device_info(*dev)->caps & cap))
		return 1;
	ret = accel_bo_alloc(*dev, 1 << 16, prog_bo);
	if (!ret)
		ret = accel_bo_alloc(*dev, data_size, data_bo);
	if (!ret)
		ret = accel_prog_new(prog);
	if (ret)
		return ret;
	*data = accel_bo_map(*data_bo);
	*va = accel_bo_va(*data_bo);
	return 0;
}

/* Free what accel_test_setup() made (NULL members are fine). */
#define accel_test_teardown(self)						\
	do {									\
		accel_prog_free((self)->prog);					\
		accel_bo_free((self)->data_bo);					\
		accel_bo_free((self)->prog_bo);					\
		accel_close((self)->dev);					\
	} while (0)

/* Run the fixture's program (accel_test_run()), its result in (self)->r. */
#define accel_test_run_self(self)						\
	accel_test_run((self)->dev, (self)->prog, (self)->prog_bo, &(self)->r)

#endif /* ACCEL_TEST_H */
