// SPDX-License-Identifier: MIT
/*
 * libaccel: the io_uring submission path.
 *
 * One ring per device handle, created with IORING_SETUP_SQE128 (the command payload,
 * struct drm_mxa_submit, goes in the SQE's 80-byte command area) and
 * IORING_SETUP_CQE32 (the CQE's second word carries the job id). liburing 2.3 has no
 * helper for IORING_OP_URING_CMD, so the SQE is filled here. Each job's
 * struct drm_mxa_job_result lives in the job; the kernel writes it just before it posts
 * the CQE (drm_mxa_submit.result_ptr). Jobs in flight are capped at the CQ size, so
 * the CQ never overflows.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "accel_internal.h"

_Static_assert(sizeof(struct drm_mxa_submit) <= 2 * sizeof(struct io_uring_sqe) -
	       offsetof(struct io_uring_sqe, cmd), "submit payload exceeds the SQE128 area");

int accel_uring_init(struct accel_device *dev)
{
	struct io_uring_params p;
	int ret;

	memset(&p, 0, sizeof(p));
	p.flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32;
	ret = io_uring_queue_init_params(ACCEL_URING_ENTRIES, &dev->ring, &p);
	if (ret < 0)
		return ret;
	dev->max_in_flight = p.cq_entries;
	return 0;
}

void accel_uring_fini(struct accel_device *dev)
{
	io_uring_queue_exit(&dev->ring);
}

int accel_uring_flush(struct accel_device *dev)
{
	int ret;

	while (dev->queued) {
		ret = io_uring_submit(&dev->ring);
		if (ret < 0)
			return ret;
		if (ret == 0)
			return -EBUSY;
		dev->queued -= (unsigned int)ret > dev->queued ? dev->queued : (unsigned int)ret;
	}
	return 0;
}

static void accel_uring_complete(struct accel_device *dev, const struct io_uring_cqe *cqe)
{
	struct accel_job *job = (struct accel_job *)(uintptr_t)cqe->user_data;
	struct accel_job_result *r = &job->result;
	const struct drm_mxa_job_result *k = &job->kres;

	dev->in_flight--;
	job->kernel_id = cqe->big_cqe[0];
	memset(r, 0, sizeof(*r));
	r->job_id = job->kernel_id;
	if (k->status != ACCEL_RESULT_UNSET && k->status == cqe->res) {
		r->status = k->status;
		r->error = k->error;
		r->err_offset = k->err_offset;
		r->err_opcode = k->err_opcode;
		r->err_addr = k->err_addr;
		r->err_info = k->err_info;
		r->start_ns = k->start_ns;
		r->end_ns = k->end_ns;
		r->cycles = k->cycles;
		r->commands = k->commands;
		r->err_instance = k->err_instance;
		r->instances = k->instances;
		r->tma_load_bytes = k->tma_load_bytes;
		r->has_detail = 1;
	} else {
		/* Refused at submission, cancelled, or the result could not be written. */
		r->status = cqe->res;
	}
	accel_job_finish(job);
}

/*
 * Process the CQEs available; with @wait and none available, wait until @want of them
 * (at least one) are there or @deadline_ns (CLOCK_MONOTONIC; negative: forever)
 * passes. Waiting for a whole batch at once returns to userspace once per batch
 * instead of once per completion that trickles in.
 * Return: the number of jobs that ended, -ETIME, or a negative errno.
 */
int accel_uring_reap(struct accel_device *dev, bool wait, int64_t deadline_ns,
		     unsigned int want)
{
	struct io_uring_cqe *cqe;
	unsigned int head, n;
	int ret;

	for (;;) {
		n = 0;
		io_uring_for_each_cqe(&dev->ring, head, cqe) {
			accel_uring_complete(dev, cqe);
			n++;
		}
		io_uring_cq_advance(&dev->ring, n);
		if (n || !wait)
			return (int)n;

		if (want > dev->in_flight)
			want = dev->in_flight;
		if (!want)
			want = 1;
		if (deadline_ns < 0) {
			/* queued jobs go in the same io_uring_enter() that waits */
			ret = dev->queued ?
			      io_uring_submit_and_wait_timeout(&dev->ring, &cqe, want, NULL, NULL) :
			      io_uring_wait_cqe_nr(&dev->ring, &cqe, want);
		} else {
			int64_t left = deadline_ns - accel_now_ns();
			struct __kernel_timespec ts;

			if (left <= 0)
				return -ETIME;
			ts.tv_sec = left / 1000000000;
			ts.tv_nsec = left % 1000000000;
			ret = dev->queued ?
			      io_uring_submit_and_wait_timeout(&dev->ring, &cqe, want, &ts, NULL) :
			      io_uring_wait_cqes(&dev->ring, &cqe, want, &ts, NULL);
		}
		/* the kernel stops at an SQE it cannot submit, and then does not wait */
		dev->queued = io_uring_sq_ready(&dev->ring);
		if (ret < 0 && ret != -ETIME)
			return ret;
	}
}

int accel_uring_submit(struct accel_device *dev, const struct drm_mxa_submit *args,
		       struct accel_job *job)
{
	struct drm_mxa_submit a = *args;
	struct io_uring_sqe *sqe;
	int ret;

	/* Never more jobs in flight than CQ entries. */
	while (dev->in_flight >= dev->max_in_flight) {
		ret = accel_uring_flush(dev);
		if (ret < 0)
			return ret;
		ret = accel_uring_reap(dev, true, -1, 1);
		if (ret < 0)
			return ret;
	}
	sqe = io_uring_get_sqe(&dev->ring);
	if (!sqe) {
		ret = accel_uring_flush(dev);
		if (ret < 0)
			return ret;
		sqe = io_uring_get_sqe(&dev->ring);
		if (!sqe)
			return -EBUSY;
	}

	memset(sqe, 0, 2 * sizeof(*sqe));	/* SQE128 */
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = dev->fd;
	sqe->cmd_op = MXA_URING_CMD_SUBMIT;
	sqe->user_data = (uintptr_t)job;
	job->kres.status = ACCEL_RESULT_UNSET;
	a.result_ptr = (uintptr_t)&job->kres;
	a.result_size = sizeof(job->kres);	/* uAPI 0.2: cycles and commands too */
	memcpy(sqe->cmd, &a, sizeof(a));

	dev->queued++;
	dev->in_flight++;
	accel_job_pending_add(dev, job);
	return 0;
}
