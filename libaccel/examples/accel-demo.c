// SPDX-License-Identifier: MIT
/*
 * accel-demo: drive the MXA accelerator end to end through libaccel.
 *
 * Opens the device, prints what it reports, builds a program per job, submits the
 * jobs (io_uring by default, many in flight from this one thread), waits for all of
 * them, checks what the device wrote and prints PASS or FAIL and the job rate.
 *
 * usage: accel-demo [-n JOBS] [-q QUEUES] [-m uring|ioctl] [-d DEVICE] [-v]
 *
 * The work is a "workload" (setup, build one job's program, check, teardown), so a
 * different one (the MX-FP8 GEMM) can be added next to the fence workload without
 * touching the submission and reporting code.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "accel.h"
#include "mxa_regs.h"

struct demo {
	struct accel_device *dev;
	const struct accel_device_info *info;
	unsigned int jobs;
	unsigned int queues;
	int verbose;
	struct accel_job **job;
};

/* ---- the fence workload ---- */

#define FENCE_NOPS		4
#define FENCE_PROG_STRIDE	64	/* bytes per job in the program buffer */
#define FENCE_MAGIC		0x4d58410000000000ull

/* What the device writes for job j: its fence value and two timestamps. */
struct fence_slot {
	uint64_t fence;
	uint64_t ts_start;
	uint64_t ts_end;
	uint64_t pad;
};

struct fence_workload {
	struct accel_bo *prog_bo;
	struct accel_bo *data_bo;
	struct accel_prog *prog;
};

static uint64_t fence_value(unsigned int j)
{
	return FENCE_MAGIC | ((uint64_t)j << 8) | 0xa5;
}

static int fence_setup(struct demo *d, struct fence_workload *w)
{
	int ret;

	ret = accel_bo_alloc(d->dev, (size_t)d->jobs * FENCE_PROG_STRIDE, &w->prog_bo);
	if (!ret)
		ret = accel_bo_alloc(d->dev, (size_t)d->jobs * sizeof(struct fence_slot),
				     &w->data_bo);
	if (!ret)
		ret = accel_prog_new(&w->prog);
	return ret;
}

/* Job j: NOPs, TIMESTAMP, FENCE_WRITE, TIMESTAMP into slot j. */
static int fence_build(struct demo *d, struct fence_workload *w, unsigned int j,
		       size_t *offset, size_t *size)
{
	uint64_t slot = accel_bo_va(w->data_bo) + (uint64_t)j * sizeof(struct fence_slot);
	int i, ret = 0;

	accel_prog_reset(w->prog);
	for (i = 0; i < FENCE_NOPS && !ret; i++)
		ret = accel_prog_nop(w->prog);
	if (!ret)
		ret = accel_prog_timestamp(w->prog, slot + offsetof(struct fence_slot, ts_start));
	if (!ret)
		ret = accel_prog_fence_write(w->prog, slot, fence_value(j));
	if (!ret)
		ret = accel_prog_timestamp(w->prog, slot + offsetof(struct fence_slot, ts_end));
	if (ret)
		return ret;
	*offset = (size_t)j * FENCE_PROG_STRIDE;
	*size = accel_prog_size(w->prog);
	return accel_prog_upload(w->prog, w->prog_bo, *offset);
}

static int fence_check(struct demo *d, struct fence_workload *w)
{
	const struct fence_slot *s = accel_bo_map(w->data_bo);
	unsigned int j, good = 0, ordered = 0;

	for (j = 0; j < d->jobs; j++) {
		int ok = s[j].fence == fence_value(j);

		good += ok;
		ordered += s[j].ts_start && s[j].ts_start <= s[j].ts_end;
		if (!ok && (d->verbose || d->jobs - good <= 3))
			printf("  job %u: fence 0x%016" PRIx64 ", expected 0x%016" PRIx64 "\n",
			       j, s[j].fence, fence_value(j));
	}
	printf("check: %u/%u fence values written by the device, %u/%u timestamp pairs ordered\n",
	       good, d->jobs, ordered, d->jobs);
	return good == d->jobs && ordered == d->jobs ? 0 : -1;
}

static void fence_teardown(struct fence_workload *w)
{
	accel_prog_free(w->prog);
	accel_bo_free(w->data_bo);
	accel_bo_free(w->prog_bo);
}

/* ---- driver of the demo ---- */

static double elapsed_ms(const struct timespec *a, const struct timespec *b)
{
	return (b->tv_sec - a->tv_sec) * 1e3 + (b->tv_nsec - a->tv_nsec) / 1e6;
}

static void print_device(struct demo *d, const char *path)
{
	const struct accel_device_info *i = d->info;
	unsigned int b;

	printf("device %s: %s \"%s\", uAPI %u.%u, hardware %u.%u\n", path, i->driver_name,
	       i->driver_desc, i->uapi_major, i->uapi_minor, i->hw_major, i->hw_minor);
	printf("  queues %u, cores %u, engine threads %u, caps 0x%" PRIx64 " (", i->num_queues,
	       i->num_cores, i->num_engine_threads, i->caps);
	for (b = 0; b < 64; b++) {
		const char *name = accel_cap_name(b);

		if (!(i->caps & (1ull << b)))
			continue;
		if (name)
			printf(" %s", name);
		else
			printf(" bit%u", b);
	}
	printf(" )\n  device VA [0x%" PRIx64 ", 0x%" PRIx64 "), largest buffer %" PRIu64
	       " MiB\n  submission: %s\n", i->va_start, i->va_end, i->max_bo_size >> 20,
	       accel_submit_mode_name(accel_submit_mode(d->dev)));
}

static int run_fence(struct demo *d)
{
	struct fence_workload w = { 0 };
	struct timespec t0, t1, t2;
	unsigned int j, failed = 0;
	int ret;

	ret = fence_setup(d, &w);
	if (ret) {
		fprintf(stderr, "accel-demo: setup: %s\n", accel_strerror(ret));
		goto out;
	}
	printf("workload: %u jobs of %d NOP + TIMESTAMP + FENCE_WRITE + TIMESTAMP on %u queue(s)\n",
	       d->jobs, FENCE_NOPS, d->queues);

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (j = 0; j < d->jobs; j++) {
		size_t offset, size;

		ret = fence_build(d, &w, j, &offset, &size);
		if (!ret)
			ret = accel_submit(d->dev, j % d->queues, w.prog_bo, offset, size,
					   &d->job[j]);
		if (ret) {
			fprintf(stderr, "accel-demo: job %u: %s\n", j, accel_strerror(ret));
			goto out;
		}
	}
	ret = accel_flush(d->dev);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!ret)
		ret = accel_wait_all(d->dev, 60ll * 1000000000);
	clock_gettime(CLOCK_MONOTONIC, &t2);
	if (ret) {
		fprintf(stderr, "accel-demo: wait: %s\n", accel_strerror(ret));
		goto out;
	}

	for (j = 0; j < d->jobs; j++) {
		const struct accel_job_result *r = accel_job_result(d->job[j]);

		if (r->status) {
			char why[256];

			accel_job_explain(r, why, sizeof(why));
			if (failed++ < 3 || d->verbose)
				printf("  %s\n", why);
		}
	}
	printf("submitted %u jobs in %.1f ms; all ended after %.1f ms: %.0f jobs/s\n", d->jobs,
	       elapsed_ms(&t0, &t1), elapsed_ms(&t0, &t2), d->jobs / (elapsed_ms(&t0, &t2) / 1e3));
	printf("jobs failed: %u\n", failed);
	ret = fence_check(d, &w);
	if (failed)
		ret = -1;
out:
	fence_teardown(&w);
	return ret;
}

static void usage(void)
{
	fprintf(stderr, "usage: accel-demo [-n JOBS] [-q QUEUES] [-m uring|ioctl] "
			"[-d DEVICE] [-v]\n");
	exit(2);
}

int main(int argc, char **argv)
{
	enum accel_submit_mode mode = ACCEL_SUBMIT_AUTO;
	const char *path = NULL;
	struct demo d = { .jobs = 5000 };
	unsigned int j;
	int opt, ret;

	while ((opt = getopt(argc, argv, "n:q:m:d:v")) != -1) {
		switch (opt) {
		case 'n':
			d.jobs = strtoul(optarg, NULL, 0);
			break;
		case 'q':
			d.queues = strtoul(optarg, NULL, 0);
			break;
		case 'm':
			if (!strcmp(optarg, "uring"))
				mode = ACCEL_SUBMIT_URING;
			else if (!strcmp(optarg, "ioctl"))
				mode = ACCEL_SUBMIT_IOCTL;
			else
				usage();
			break;
		case 'd':
			path = optarg;
			break;
		case 'v':
			d.verbose = 1;
			break;
		default:
			usage();
		}
	}
	if (!d.jobs)
		usage();

	ret = accel_open(path, mode, &d.dev);
	if (ret) {
		fprintf(stderr, "accel-demo: cannot open %s: %s\n",
			path ? path : ACCEL_DEFAULT_DEVICE, accel_strerror(ret));
		return 1;
	}
	d.info = accel_device_info(d.dev);
	if (!d.queues || d.queues > d.info->num_queues)
		d.queues = d.info->num_queues;
	print_device(&d, path ? path : ACCEL_DEFAULT_DEVICE);

	d.job = calloc(d.jobs, sizeof(*d.job));
	if (!d.job) {
		accel_close(d.dev);
		return 1;
	}
	ret = run_fence(&d);
	printf("result: %s\n", ret ? "FAIL" : "PASS");

	for (j = 0; j < d.jobs; j++)
		accel_job_free(d.job[j]);
	free(d.job);
	accel_close(d.dev);
	return ret ? 1 : 0;
}
