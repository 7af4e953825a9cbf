// SPDX-License-Identifier: MIT
/*
 * bench-submit: job submission rate and latency of the MXA stack, against null_blk
 * through io_uring in the same guest (the reference of Documentation/performance.rst).
 *
 *   bench-submit [--seconds S] [--nullb /dev/nullb0] [--batch B]
 *
 * For each path (ioctl, io_uring) and batch size B in 1, 8, 32, 128 (or only --batch B,
 * for quick A/B runs): submit B one-NOP
 * jobs, wait for all of them, repeat for S seconds. For null_blk: B 4 KiB O_DIRECT
 * reads through io_uring, reaped the same way. Prints CSV on stdout:
 *   bench,path,batch,ops_per_s,p50_us,p99_us,ref_ops_per_s,ratio
 * where p50/p99 are per-batch round-trip times and ratio = ops_per_s / ref_ops_per_s
 * with null_blk at the same batch as the reference (higher is better).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <liburing.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "accel.h"

static const unsigned batches[] = { 1, 8, 32, 128 };
#define NBATCH (sizeof(batches) / sizeof(batches[0]))

struct result {
	double ops_per_s, p50_us, p99_us;
};

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec * 1e-9;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

#define MAX_SAMPLES 200000

static void summarise(double *lat, size_t n, double ops, double secs, struct result *r)
{
	qsort(lat, n, sizeof(*lat), cmp_double);
	r->ops_per_s = ops / secs;
	r->p50_us = n ? lat[n / 2] * 1e6 : 0;
	r->p99_us = n ? lat[(size_t)(n * 0.99)] * 1e6 : 0;
}

static int bench_accel(enum accel_submit_mode mode, unsigned batch, double seconds,
		       struct result *r)
{
	struct accel_device *dev;
	struct accel_prog *prog;
	struct accel_bo *bo;
	struct accel_job **jobs = calloc(batch, sizeof(*jobs));
	double *lat = malloc(MAX_SAMPLES * sizeof(*lat));
	size_t n = 0;
	double ops = 0, start, t;
	int ret;

	if (!jobs || !lat)
		return -ENOMEM;
	ret = accel_open(NULL, mode, &dev);
	if (ret)
		return ret;
	accel_prog_new(&prog);
	accel_prog_nop(prog);
	accel_bo_alloc(dev, 4096, &bo);
	accel_prog_upload(prog, bo, 0);
	start = now_s();
	do {
		t = now_s();
		for (unsigned i = 0; i < batch; i++) {
			ret = accel_submit(dev, 0, bo, 0, accel_prog_size(prog), &jobs[i]);
			if (ret)
				goto out;
		}
		ret = accel_wait_all(dev, 10ll * 1000000000);
		if (ret)
			goto out;
		for (unsigned i = 0; i < batch; i++) {
			if (accel_job_result(jobs[i])->status) {
				ret = accel_job_result(jobs[i])->status;
				goto out;
			}
			accel_job_free(jobs[i]);
		}
		if (n < MAX_SAMPLES)
			lat[n++] = now_s() - t;
		ops += batch;
	} while (now_s() - start < seconds);
	summarise(lat, n, ops, now_s() - start, r);
out:
	accel_bo_free(bo);
	accel_prog_free(prog);
	accel_close(dev);
	free(jobs);
	free(lat);
	return ret;
}

static int bench_nullb(const char *path, unsigned batch, double seconds, struct result *r)
{
	struct io_uring ring;
	double *lat = malloc(MAX_SAMPLES * sizeof(*lat));
	void *buf;
	size_t n = 0;
	double ops = 0, start, t;
	int fd, ret;

	fd = open(path, O_RDONLY | O_DIRECT);
	if (fd < 0)
		return -errno;
	if (posix_memalign(&buf, 4096, 4096 * 128) || !lat)
		return -ENOMEM;
	ret = io_uring_queue_init(256, &ring, 0);
	if (ret)
		return ret;
	start = now_s();
	do {
		t = now_s();
		for (unsigned i = 0; i < batch; i++) {
			struct io_uring_sqe *sqe = io_uring_get_sqe(&ring);

			io_uring_prep_read(sqe, fd, (char *)buf + 4096 * i, 4096, 4096ull * i);
		}
		ret = io_uring_submit_and_wait(&ring, batch);
		if (ret < 0)
			break;
		for (unsigned i = 0; i < batch; i++) {
			struct io_uring_cqe *cqe;

			ret = io_uring_wait_cqe(&ring, &cqe);
			if (ret < 0 || cqe->res != 4096) {
				ret = ret < 0 ? ret : -EIO;
				goto out;
			}
			io_uring_cqe_seen(&ring, cqe);
		}
		if (n < MAX_SAMPLES)
			lat[n++] = now_s() - t;
		ops += batch;
		ret = 0;
	} while (now_s() - start < seconds);
	summarise(lat, n, ops, now_s() - start, r);
out:
	io_uring_queue_exit(&ring);
	close(fd);
	free(buf);
	free(lat);
	return ret;
}

int main(int argc, char **argv)
{
	double seconds = 1.0;
	const char *nullb = "/dev/nullb0";
	struct result ioctl_r[NBATCH], uring_r[NBATCH], nullb_r[NBATCH];
	unsigned only = 0;
	int ret;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--seconds") && i + 1 < argc)
			seconds = atof(argv[++i]);
		else if (!strcmp(argv[i], "--nullb") && i + 1 < argc)
			nullb = argv[++i];
		else if (!strcmp(argv[i], "--batch") && i + 1 < argc)
			only = (unsigned)atoi(argv[++i]);
		else {
			fprintf(stderr, "usage: bench-submit [--seconds S] [--nullb DEV] [--batch B]\n");
			return 2;
		}
	}
	for (size_t b = 0; b < NBATCH; b++) {
		if (only && batches[b] != only)
			continue;
		ret = bench_nullb(nullb, batches[b], seconds, &nullb_r[b]);
		if (ret) {
			fprintf(stderr, "bench-submit: null_blk %s: %s\n", nullb, strerror(-ret));
			return 1;
		}
		ret = bench_accel(ACCEL_SUBMIT_IOCTL, batches[b], seconds, &ioctl_r[b]);
		if (!ret)
			ret = bench_accel(ACCEL_SUBMIT_URING, batches[b], seconds, &uring_r[b]);
		if (ret) {
			fprintf(stderr, "bench-submit: %s\n", accel_strerror(ret));
			return 1;
		}
	}
	printf("bench,path,batch,ops_per_s,p50_us,p99_us,ref_ops_per_s,ratio\n");
	for (size_t b = 0; b < NBATCH; b++) {
		const struct result *rows[] = { &nullb_r[b], &ioctl_r[b], &uring_r[b] };
		const char *names[] = { "null_blk", "ioctl", "io_uring" };

		if (only && batches[b] != only)
			continue;

		for (int p = 0; p < 3; p++)
			printf("submit,%s,%u,%.0f,%.1f,%.1f,%.0f,%.3f\n", names[p], batches[b],
			       rows[p]->ops_per_s, rows[p]->p50_us, rows[p]->p99_us,
			       nullb_r[b].ops_per_s, rows[p]->ops_per_s / nullb_r[b].ops_per_s);
		printf("submit,io_uring_vs_ioctl,%u,%.0f,%.1f,%.1f,%.0f,%.3f\n", batches[b],
		       uring_r[b].ops_per_s, uring_r[b].p50_us, uring_r[b].p99_us,
		       ioctl_r[b].ops_per_s, uring_r[b].ops_per_s / ioctl_r[b].ops_per_s);
	}
	return 0;
}
