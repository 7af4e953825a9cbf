// SPDX-License-Identifier: MIT
/*
 * mxa-stress: concurrency stress and fault injection in the guest
 * (Documentation/hardening.rst).
 *
 *   mxa-stress [--seconds N] [--procs K] [--threads T] [--faults]
 *              [--kernel-faults PERCENT] [--seed S]
 *   mxa-stress --reload N
 *
 * K processes x T threads, each thread with its own libaccel device handle (a handle
 * is not thread-safe), half through io_uring and half through ioctls, submit batches
 * of 1-4 jobs on random queues and check every result bit for bit: each job copies a
 * random pattern (COPY + COMMIT/WAIT_GROUP), runs a small BF16 GEMM of small
 * integers (exact in f32, so the host knows every bit) and writes a fence value.
 * Every job must succeed.
 *
 * With --faults one more process injects faults meanwhile, on every queue: hung jobs
 * (a SEM_WAIT never satisfied, ended by the job timeout, 300 ms here, and a reset of
 * that queue), MMU faults, children killed with SIGKILL with jobs in flight through
 * both paths, rings closed with commands in flight, files closed with jobs queued, and
 * rmmod attempts while a file is open (must fail). The innocent jobs must still all
 * succeed with exact results.
 *
 * At the end the driver's debugfs counters (bos, contexts, jobs) must be back to their
 * values before the run.
 *
 * With --kernel-faults the kernel's own fault injection (failslab, fail_page_alloc,
 * fail_usercopy; tests/stress/kfault.h) fails the driver's allocations and user copies
 * in the workers' calls, at random: each round opens the device, allocates its BOs,
 * submits a batch, waits and frees it all, and every call may fail, but only cleanly,
 * with -ENOMEM or -EFAULT. A job the driver accepted must still end with exact
 * results; nothing may leak (the debugfs counters; the guest's kmemleak scan). It
 * fails unless every attribute injected failures. Needs the debug guest kernel.
 *
 * --reload N: N times rmmod mxa, insmod /lib/modules/mxa.ko, run one checked job;
 * counters back to zero after each load.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <liburing.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "accel.h"
#include "drm/mxa_accel.h"
#include "kfault.h"
#include "mxa_counters.h"
#include "mxa_isa.h"

#define DEVICE		"/dev/accel/accel0"
#define MXA_KO		"/lib/modules/mxa.ko"
#define MAX_PROCS	32
#define MAX_THREADS	16
#define BATCH		4
#define SLOT_BYTES	(64u << 10)	/* per job: pattern, copy, GEMM A, B, D, fence */
#define PAT_BYTES	(16u << 10)
#define GM		16
#define GN		16
#define GK		64
#define FAULT_TIMEOUT_MS 300

struct shared {
	volatile int stop;
	uint64_t jobs[MAX_PROCS * MAX_THREADS];
	uint64_t uring_jobs[MAX_PROCS * MAX_THREADS];
	uint64_t bad[MAX_PROCS * MAX_THREADS];
	uint64_t faults_injected;
	uint64_t hangs, mmu_faults, kills, ring_closes, rmmod_refused;
	uint64_t fault_errors;
	uint64_t kf_refused[3];		/* clean errors: -ENOMEM, -EFAULT, other -errno */
	uint64_t kf_rounds, kf_lost;
};
static struct shared *sh;

static uint64_t rnd_next(uint64_t *s)
{
	uint64_t x = *s;

	x ^= x << 13;
	x ^= x >> 7;
	x ^= x << 17;
	return *s = x;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static uint16_t bf16(int v)
{
	float f = (float)v;
	uint32_t u;

	memcpy(&u, &f, 4);
	return (uint16_t)(u >> 16);	/* exact: small integers */
}

/* ---- one checked job ---- */

struct slot {
	uint32_t copy_bytes;
	uint64_t fence;
	int8_t a[GM * GK], b[GN * GK];
};

/* Layout of a slot in the data BO. */
#define OFF_PAT		0
#define OFF_DST		(OFF_PAT + PAT_BYTES)
#define OFF_A		(OFF_DST + PAT_BYTES)
#define OFF_B		(OFF_A + GM * GK * 2)
#define OFF_D		(OFF_B + GN * GK * 2)
#define OFF_FENCE	(OFF_D + GM * GN * 4)

/* Fill slot @i of @data with fresh inputs and build its program into @prog. */
static int prepare(struct accel_prog *prog, struct accel_bo *data, int i, struct slot *s,
		   uint64_t *rng)
{
	uint8_t *base = (uint8_t *)accel_bo_map(data) + i * SLOT_BYTES;
	uint64_t va = accel_bo_va(data) + i * SLOT_BYTES;
	uint16_t *a = (uint16_t *)(base + OFF_A), *b = (uint16_t *)(base + OFF_B);
	struct accel_gemm g = {
		.m = GM, .n = GN, .k = GK, .type_a = MXA_DTYPE_BF16, .type_b = MXA_DTYPE_BF16,
		.type_c = MXA_DTYPE_F32, .type_d = MXA_DTYPE_F32,
		.a = va + OFF_A, .b = va + OFF_B, .c = va + OFF_D, .d = va + OFF_D,
	};
	uint32_t j;
	int ret;

	for (j = 0; j < PAT_BYTES; j += 8) {
		uint64_t v = rnd_next(rng);

		memcpy(base + OFF_PAT + j, &v, 8);
	}
	memset(base + OFF_DST, 0, PAT_BYTES);
	memset(base + OFF_D, 0xff, GM * GN * 4);
	*(volatile uint64_t *)(base + OFF_FENCE) = 0;
	for (j = 0; j < GM * GK; j++) {
		s->a[j] = (int8_t)(rnd_next(rng) % 9) - 4;
		a[j] = bf16(s->a[j]);
	}
	for (j = 0; j < GN * GK; j++) {
		s->b[j] = (int8_t)(rnd_next(rng) % 9) - 4;
		b[j] = bf16(s->b[j]);
	}
	s->copy_bytes = 16 * (1 + rnd_next(rng) % (PAT_BYTES / 16));
	s->fence = rnd_next(rng) | 1;
	accel_prog_reset(prog);
	ret = accel_prog_copy(prog, va + OFF_DST, 0, va + OFF_PAT, 0, s->copy_bytes, 0);
	ret = ret ?: accel_prog_commit_group(prog, MXA_GROUP_COPY);
	ret = ret ?: accel_prog_gemm(prog, &g);
	ret = ret ?: accel_prog_wait_group(prog, MXA_GROUP_COPY, 0);
	ret = ret ?: accel_prog_fence_write(prog, va + OFF_FENCE, s->fence);
	return ret;
}

/* 0 if slot @i holds exactly what its job must have produced. */
static int check(struct accel_bo *data, int i, const struct slot *s, char *why, size_t len)
{
	uint8_t *base = (uint8_t *)accel_bo_map(data) + i * SLOT_BYTES;
	const float *d = (const float *)(base + OFF_D);
	uint32_t r, c, k;

	if (*(volatile uint64_t *)(base + OFF_FENCE) != s->fence) {
		snprintf(why, len, "fence %#llx, expected %#llx",
			 (unsigned long long)*(volatile uint64_t *)(base + OFF_FENCE),
			 (unsigned long long)s->fence);
		return -1;
	}
	if (memcmp(base + OFF_DST, base + OFF_PAT, s->copy_bytes)) {
		snprintf(why, len, "copy of %u bytes differs", s->copy_bytes);
		return -1;
	}
	for (r = 0; r < PAT_BYTES - s->copy_bytes; r++)
		if (base[OFF_DST + s->copy_bytes + r]) {
			snprintf(why, len, "copy wrote past %u bytes", s->copy_bytes);
			return -1;
		}
	for (r = 0; r < GM; r++)
		for (c = 0; c < GN; c++) {
			int32_t want = 0;

			for (k = 0; k < GK; k++)
				want += s->a[r * GK + k] * s->b[c * GK + k];
			if (d[r * GN + c] != (float)want) {
				snprintf(why, len, "D[%u][%u] = %g, expected %d", r, c,
					 d[r * GN + c], want);
				return -1;
			}
		}
	return 0;
}

/* ---- the workers ---- */

struct thread_arg {
	int slot_idx;		/* index into sh->jobs... */
	enum accel_submit_mode mode;
	uint64_t seed;
};

static void *thread_main(void *p)
{
	struct thread_arg *t = p;
	struct accel_device *dev;
	struct accel_bo *data = NULL, *progs = NULL;
	struct accel_prog *prog = NULL;
	struct slot slots[BATCH];
	uint64_t rng = t->seed | 1;
	unsigned int nq;
	char why[160];
	int ret, bad_reports = 0;

	ret = accel_open(NULL, t->mode, &dev);
	if (ret) {
		printf("mxa-stress: accel_open(%s): %s\n", accel_submit_mode_name(t->mode),
		       accel_strerror(ret));
		sh->bad[t->slot_idx]++;
		return NULL;
	}
	nq = accel_device_info(dev)->num_queues;
	if (accel_bo_alloc(dev, BATCH * SLOT_BYTES, &data) ||
	    accel_bo_alloc(dev, BATCH * 4096, &progs) || accel_prog_new(&prog)) {
		printf("mxa-stress: allocation failed\n");
		sh->bad[t->slot_idx]++;
		goto out;
	}
	while (!sh->stop) {
		struct accel_job *jobs[BATCH] = { 0 };
		int n = 1 + rnd_next(&rng) % BATCH, i;

		for (i = 0; i < n; i++) {
			if (prepare(prog, data, i, &slots[i], &rng) ||
			    accel_prog_upload(prog, progs, i * 4096)) {
				printf("mxa-stress: building a program failed\n");
				sh->bad[t->slot_idx]++;
				goto out;
			}
			ret = accel_submit(dev, rnd_next(&rng) % nq, progs, i * 4096,
					   accel_prog_size(prog), &jobs[i]);
			if (ret) {
				printf("mxa-stress: submit: %s\n", accel_strerror(ret));
				sh->bad[t->slot_idx]++;
				n = i;
				break;
			}
		}
		for (i = 0; i < n; i++) {
			const struct accel_job_result *r;

			ret = accel_wait(jobs[i], 60 * 1000000000ll);
			r = accel_job_result(jobs[i]);
			if (ret || r->status) {
				if (bad_reports++ < 5) {
					accel_job_explain(r, why, sizeof(why));
					printf("mxa-stress: job failed (wait %d, status %d): %s\n", ret,
					       r->status, why);
				}
				sh->bad[t->slot_idx]++;
			} else if (check(data, i, &slots[i], why, sizeof(why))) {
				if (bad_reports++ < 5)
					printf("mxa-stress: wrong result: %s\n", why);
				sh->bad[t->slot_idx]++;
			}
			sh->jobs[t->slot_idx]++;
			if (t->mode == ACCEL_SUBMIT_URING)
				sh->uring_jobs[t->slot_idx]++;
			accel_job_free(jobs[i]);
		}
	}
out:
	accel_prog_free(prog);
	accel_bo_free(progs);
	accel_bo_free(data);
	accel_close(dev);
	return NULL;
}

/* ---- kernel fault injection (--kernel-faults) ---- */

/*
 * A call under kernel faults may fail with -ENOMEM or -EFAULT; BO creation also with
 * -ENOSPC, shmem's answer when the inode of the BO's file cannot be allocated
 * (__shmem_get_inode()).
 */
static int kf_errors_only(int ret, int slot, const char *call)
{
	if (!ret)
		return 0;
	if (ret == -ENOSPC && !strcmp(call, "accel_bo_alloc()"))
		ret = -ENOMEM;	/* counted with the allocation failures */
	__atomic_fetch_add(&sh->kf_refused[ret == -ENOMEM ? 0 : ret == -EFAULT ? 1 : 2], 1,
			   __ATOMIC_RELAXED);
	if (ret != -ENOMEM && ret != -EFAULT) {
		if (sh->bad[slot]++ < 5)
			printf("mxa-stress: a kernel fault ended %s with %d, %s (not -ENOMEM or -EFAULT)\n",
			       call, ret, accel_strerror(ret));
	}
	return ret;
}

/* One round with make-it-fail set around every call into the driver. */
static void kf_round(struct thread_arg *t, uint64_t *rng)
{
	struct accel_job *jobs[BATCH] = { 0 };
	struct accel_bo *data = NULL, *progs = NULL;
	struct accel_prog *prog = NULL;
	struct accel_device *dev;
	struct slot slots[BATCH];
	int n = 1 + rnd_next(rng) % BATCH, i, ret, s = t->slot_idx;
	char why[160];

	kfault_self(1);
	ret = accel_open(NULL, t->mode, &dev);
	kfault_self(0);
	if (kf_errors_only(ret, s, "accel_open()"))
		return;
	kfault_self(1);
	ret = accel_bo_alloc(dev, BATCH * SLOT_BYTES, &data);
	ret = ret ?: accel_bo_alloc(dev, BATCH * 4096, &progs);
	kfault_self(0);
	if (kf_errors_only(ret, s, "accel_bo_alloc()") || accel_prog_new(&prog))
		goto out;
	for (i = 0; i < n; i++) {
		unsigned int q = rnd_next(rng) % accel_device_info(dev)->num_queues;

		if (prepare(prog, data, i, &slots[i], rng) ||
		    accel_prog_upload(prog, progs, i * 4096)) {
			sh->bad[s]++;
			break;
		}
		kfault_self(1);
		ret = accel_submit(dev, q, progs, i * 4096, accel_prog_size(prog), &jobs[i]);
		kfault_self(0);
		if (kf_errors_only(ret, s, "accel_submit()"))
			break;
	}
	for (i = 0; i < n && jobs[i]; i++) {
		const struct accel_job_result *r;

		kfault_self(1);
		ret = accel_wait(jobs[i], 60 * 1000000000ll);
		kfault_self(0);
		if (kf_errors_only(ret, s, "accel_wait()")) {
			int first = ret;

			ret = accel_wait(jobs[i], 60 * 1000000000ll);	/* it still runs */
			/*
			 * uapi.rst, WAIT: a result the DRM core could not copy back (-EFAULT)
			 * after the job had ended is lost with its id.
			 */
			if (first == -EFAULT && ret == -ENOENT) {
				__atomic_fetch_add(&sh->kf_lost, 1, __ATOMIC_RELAXED);
				continue;
			}
		}
		r = accel_job_result(jobs[i]);
		if (!ret && t->mode == ACCEL_SUBMIT_URING &&
		    (r->status == -ENOMEM || r->status == -EFAULT)) {
			/* io_uring: the command itself was refused, seen when reaped */
			kf_errors_only(r->status, s, "an io_uring submission");
		} else if (ret || r->status) {
			accel_job_explain(r, why, sizeof(why));
			if (sh->bad[s]++ < 5)
				printf("mxa-stress: an accepted job failed (wait %d, status %d): %s\n",
				       ret, r->status, why);
		} else if (check(data, i, &slots[i], why, sizeof(why))) {
			if (sh->bad[s]++ < 5)
				printf("mxa-stress: wrong result under kernel faults: %s\n", why);
		} else {
			sh->jobs[s]++;
			if (t->mode == ACCEL_SUBMIT_URING)
				sh->uring_jobs[s]++;
		}
	}
out:
	kfault_self(1);
	for (i = 0; i < BATCH; i++)
		accel_job_free(jobs[i]);
	accel_prog_free(prog);
	accel_bo_free(progs);
	accel_bo_free(data);
	accel_close(dev);
	kfault_self(0);
	__atomic_fetch_add(&sh->kf_rounds, 1, __ATOMIC_RELAXED);
}

static void *thread_kfault(void *p)
{
	struct thread_arg *t = p;
	uint64_t rng = t->seed | 1;

	while (!sh->stop)
		kf_round(t, &rng);
	return NULL;
}

static int kernel_faults;

static void process_main(int proc, int threads, uint64_t seed)
{
	struct thread_arg args[MAX_THREADS];
	pthread_t tids[MAX_THREADS];
	int i;

	for (i = 0; i < threads; i++) {
		args[i].slot_idx = proc * MAX_THREADS + i;
		args[i].mode = (proc + i) % 2 ? ACCEL_SUBMIT_URING : ACCEL_SUBMIT_IOCTL;
		args[i].seed = seed + 7919 * i;
		pthread_create(&tids[i], NULL, kernel_faults ? thread_kfault : thread_main,
			       &args[i]);
	}
	for (i = 0; i < threads; i++)
		pthread_join(tids[i], NULL);
	_exit(0);
}

/* ---- fault injection (raw uAPI: the offender does what libaccel would not) ---- */

struct raw_bo {
	uint32_t handle;
	uint64_t va, size;
	uint32_t *map;
};

static int raw_bo(int fd, uint64_t size, struct raw_bo *bo)
{
	struct drm_mxa_bo_create c = { .size = size };
	struct drm_mxa_bo_mmap_offset mo = { 0 };

	if (ioctl(fd, DRM_IOCTL_MXA_BO_CREATE, &c))
		return -errno;
	mo.handle = c.handle;
	if (ioctl(fd, DRM_IOCTL_MXA_BO_MMAP_OFFSET, &mo))
		return -errno;
	bo->map = mmap(NULL, c.size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, mo.offset);
	if (bo->map == MAP_FAILED)
		return -errno;
	bo->handle = c.handle;
	bo->va = c.device_va;
	bo->size = c.size;
	memset(bo->map, 0, c.size);
	return 0;
}

/* Programs at fixed offsets of the offender's program BO. */
#define P_HANG		0
#define P_FAULT		256
#define P_LONG		512

static uint32_t hang_size, fault_size, long_size;

static void build_fault_progs(struct raw_bo *prog, struct raw_bo *data)
{
	uint32_t *p = prog->map + P_HANG / 4;

	*p++ = MXA_CMD_HEADER(MXA_OP_SEM_WAIT, MXA_SEM_WAIT_DWORDS, 0);
	*p++ = (uint32_t)data->va;
	*p++ = (uint32_t)(data->va >> 32);
	*p++ = 1;		/* the semaphore stays 0 */
	*p++ = 0;
	*p++ = MXA_SEM_MAX_TIMEOUT_US;
	hang_size = (uint32_t)((p - prog->map) * 4 - P_HANG);
	p = prog->map + P_FAULT / 4;
	*p++ = MXA_CMD_HEADER(MXA_OP_FENCE_WRITE, MXA_FENCE_WRITE_DWORDS, 0);
	*p++ = 0x1000;		/* below va_start: never mapped */
	*p++ = 0;
	*p++ = 1;
	*p++ = 0;
	fault_size = MXA_FENCE_WRITE_DWORDS * 4;
	/* A long job: a loop of 200000 NOPs. */
	p = prog->map + P_LONG / 4;
	*p++ = MXA_CMD_HEADER(MXA_OP_LOOP, MXA_LOOP_DWORDS, 0);
	*p++ = 200000;
	*p++ = 0;
	*p++ = MXA_CMD_HEADER(MXA_OP_NOP, MXA_NOP_DWORDS, 0);
	*p++ = MXA_CMD_HEADER(MXA_OP_ENDLOOP, MXA_ENDLOOP_DWORDS, 0);
	long_size = 5 * 4;
}

static int raw_submit(int fd, uint32_t handle, uint32_t queue, uint32_t off, uint32_t size,
		      uint64_t *id)
{
	struct drm_mxa_submit s = {
		.prog_handle = handle, .queue = queue, .prog_offset = off, .prog_size = size,
	};

	if (ioctl(fd, DRM_IOCTL_MXA_SUBMIT, &s))
		return -errno;
	*id = s.job_id;
	return 0;
}

static int raw_wait(int fd, uint64_t id, struct drm_mxa_job_result *r)
{
	struct drm_mxa_wait w = { .job_id = id, .timeout_ns = 60 * 1000000000ll };

	if (ioctl(fd, DRM_IOCTL_MXA_WAIT, &w))
		return -errno;
	*r = w.result;
	return 0;
}

static void uring_submit_many(struct io_uring *ring, int fd, uint32_t handle, unsigned int nq,
			      uint32_t off, uint32_t size, int n)
{
	int i;

	for (i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(ring);
		struct drm_mxa_submit s = {
			.prog_handle = handle, .queue = i % nq, .prog_offset = off,
			.prog_size = size,
		};

		if (!sqe)
			break;
		memset(sqe, 0, 2 * sizeof(*sqe));
		sqe->opcode = IORING_OP_URING_CMD;
		sqe->fd = fd;
		sqe->cmd_op = MXA_URING_CMD_SUBMIT;
		memcpy(sqe->cmd, &s, sizeof(s));
	}
	io_uring_submit(ring);
}

static void fault_error(const char *what, int got)
{
	printf("mxa-stress: fault injection: %s: got %d\n", what, got);
	__atomic_fetch_add(&sh->fault_errors, 1, __ATOMIC_RELAXED);
}

/* A child with jobs in flight through both paths, killed with SIGKILL. */
static void inject_kill(unsigned int nq, uint64_t *rng)
{
	pid_t pid = fork();

	if (pid == 0) {
		struct raw_bo prog, data;
		struct io_uring ring;
		struct io_uring_params p = { .flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32 };
		uint64_t id;
		int fd = open(DEVICE, O_RDWR), i;

		if (fd < 0 || raw_bo(fd, 4096, &prog) || raw_bo(fd, 4096, &data))
			_exit(1);
		build_fault_progs(&prog, &data);
		for (i = 0; i < 8; i++)
			raw_submit(fd, prog.handle, i % nq, P_LONG, long_size, &id);
		if (!io_uring_queue_init_params(16, &ring, &p))
			uring_submit_many(&ring, fd, prog.handle, nq, P_LONG, long_size, 8);
		pause();
		_exit(0);
	}
	usleep(1000 * (5 + rnd_next(rng) % 50));
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	__atomic_fetch_add(&sh->kills, 1, __ATOMIC_RELAXED);
}

static void faults_main(unsigned int nq, uint64_t seed)
{
	uint64_t rng = seed | 1;
	struct raw_bo prog, data;
	int fd = -1;

	while (!sh->stop) {
		struct drm_mxa_job_result r;
		uint64_t id;
		int ret, what = rnd_next(&rng) % 5;

		if (fd < 0) {
			fd = open(DEVICE, O_RDWR | O_CLOEXEC);
			if (fd < 0 || raw_bo(fd, 4096, &prog) || raw_bo(fd, 4096, &data)) {
				fault_error("open", -errno);
				_exit(1);
			}
			build_fault_progs(&prog, &data);
		}
		switch (what) {
		case 0:		/* a hung job: the queue is reset under the workers' jobs */
			ret = raw_submit(fd, prog.handle, rnd_next(&rng) % nq, P_HANG, hang_size, &id);
			if (ret == -ECANCELED)	/* banned after repeated hangs: a new context */
				goto reopen;
			if (ret || raw_wait(fd, id, &r))
				fault_error("hang submit/wait", ret);
			else if (r.status != -ETIMEDOUT && r.status != -ECANCELED)
				fault_error("hung job status", r.status);
			__atomic_fetch_add(&sh->hangs, 1, __ATOMIC_RELAXED);
			break;
		case 1:		/* an MMU fault */
			ret = raw_submit(fd, prog.handle, rnd_next(&rng) % nq, P_FAULT, fault_size, &id);
			if (ret == -ECANCELED)
				goto reopen;
			if (ret || raw_wait(fd, id, &r))
				fault_error("fault submit/wait", ret);
			else if (r.status != -EFAULT)
				fault_error("faulting job status", r.status);
			__atomic_fetch_add(&sh->mmu_faults, 1, __ATOMIC_RELAXED);
			break;
		case 2:
			inject_kill(nq, &rng);
			break;
		case 3: {	/* a ring closed, and then the file, with commands in flight */
			struct io_uring ring;
			struct io_uring_params p = {
				.flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32,
			};

			if (io_uring_queue_init_params(16, &ring, &p)) {
				fault_error("io_uring setup", -errno);
				break;
			}
			uring_submit_many(&ring, fd, prog.handle, nq, P_LONG, long_size, 8);
			raw_submit(fd, prog.handle, rnd_next(&rng) % nq, P_LONG, long_size, &id);
			io_uring_queue_exit(&ring);
			__atomic_fetch_add(&sh->ring_closes, 1, __ATOMIC_RELAXED);
			goto reopen;
		}
		default:	/* rmmod must be refused while a file is open */
			ret = syscall(SYS_delete_module, "mxa", O_NONBLOCK);
			if (ret == 0) {
				fault_error("rmmod with a file open succeeded", 0);
				sh->stop = 1;
				_exit(1);
			}
			__atomic_fetch_add(&sh->rmmod_refused, 1, __ATOMIC_RELAXED);
			break;
		}
		continue;
reopen:
		close(fd);	/* with its jobs still queued */
		fd = -1;
	}
	if (fd >= 0)
		close(fd);
	_exit(0);
}

/* ---- rmmod/insmod ---- */

static int wait_node(int present)
{
	int i;

	for (i = 0; i < 600; i++) {
		if ((access(DEVICE, F_OK) == 0) == present)
			return 0;
		usleep(50000);
	}
	return -ETIMEDOUT;
}

static int reload(int n)
{
	char dir[512];
	int i, failures = 0;
	int64_t t0 = now_ns();

	for (i = 0; i < n; i++) {
		struct accel_device *dev;
		struct accel_bo *data = NULL, *progs = NULL;
		struct accel_prog *prog = NULL;
		struct accel_job *job = NULL;
		struct mxa_counters c = { -1, -1, -1 };
		struct slot s;
		uint64_t rng = 12345 + i;
		char why[160];
		int ret, ko, j;

		for (j = 0; j < 100; j++) {
			ret = syscall(SYS_delete_module, "mxa", O_NONBLOCK);
			if (!ret || errno != EAGAIN)
				break;
			usleep(50000);	/* a file still closing */
		}
		if (ret) {
			printf("mxa-stress: reload %d: rmmod: %s\n", i, strerror(errno));
			return 1;
		}
		if (wait_node(0))
			printf("mxa-stress: reload %d: node still there after rmmod\n", i);
		ko = open(MXA_KO, O_RDONLY | O_CLOEXEC);
		if (ko < 0 || syscall(SYS_finit_module, ko, "", 0)) {
			printf("mxa-stress: reload %d: insmod: %s\n", i, strerror(errno));
			return 1;
		}
		close(ko);
		if (wait_node(1)) {
			printf("mxa-stress: reload %d: no %s after insmod\n", i, DEVICE);
			return 1;
		}
		if (mxa_debugfs_dir(DEVICE, dir, sizeof(dir)) || mxa_read_counters(dir, &c) ||
		    c.bos || c.contexts || c.jobs) {
			printf("mxa-stress: reload %d: counters of a fresh load: bos %ld contexts %ld jobs %ld\n",
			       i, c.bos, c.contexts, c.jobs);
			failures++;
		}
		ret = accel_open(NULL, i % 2 ? ACCEL_SUBMIT_URING : ACCEL_SUBMIT_IOCTL, &dev);
		if (ret) {
			printf("mxa-stress: reload %d: open: %s\n", i, accel_strerror(ret));
			return 1;
		}
		ret = accel_bo_alloc(dev, SLOT_BYTES, &data);
		ret = ret ?: accel_bo_alloc(dev, 4096, &progs);
		ret = ret ?: accel_prog_new(&prog);
		ret = ret ?: prepare(prog, data, 0, &s, &rng);
		ret = ret ?: accel_prog_upload(prog, progs, 0);
		ret = ret ?: accel_submit(dev, i % accel_device_info(dev)->num_queues, progs, 0,
					  accel_prog_size(prog), &job);
		ret = ret ?: accel_wait(job, 60 * 1000000000ll);
		ret = ret ?: accel_job_result(job)->status;
		if (ret || check(data, 0, &s, why, sizeof(why))) {
			printf("mxa-stress: reload %d: job: %s\n", i, ret ? accel_strerror(ret) : why);
			failures++;
		}
		/* (A BO still mmapped would hold the file, and the module, open.) */
		accel_job_free(job);
		accel_prog_free(prog);
		accel_bo_free(progs);
		accel_bo_free(data);
		accel_close(dev);
	}
	printf("mxa-stress: %d rmmod/insmod cycles in %.1f s, each with a checked job: %d failures\n",
	       n, (now_ns() - t0) / 1e9, failures);
	return failures ? 1 : 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, 0, 's' },
		{ "procs", required_argument, 0, 'p' },
		{ "threads", required_argument, 0, 't' },
		{ "faults", no_argument, 0, 'f' },
		{ "kernel-faults", required_argument, 0, 'k' },
		{ "seed", required_argument, 0, 'S' },
		{ "reload", required_argument, 0, 'r' },
		{ 0 }
	};
	int procs = 2, threads = 2, faults = 0, opt, i, old_timeout = -1, leaked;
	double seconds = 10;
	uint64_t seed = (uint64_t)time(NULL), jobs = 0, uring = 0, bad = 0;
	struct mxa_counters before, after;
	pid_t pids[MAX_PROCS + 1];
	struct accel_device *dev;
	unsigned int nq;
	char dir[512];
	int64_t t0;

	while ((opt = getopt_long(argc, argv, "s:p:t:fk:S:r:", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			seconds = atof(optarg);
			break;
		case 'p':
			procs = atoi(optarg);
			break;
		case 't':
			threads = atoi(optarg);
			break;
		case 'f':
			faults = 1;
			break;
		case 'k':
			kernel_faults = atoi(optarg);	/* percent */
			break;
		case 'S':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'r':
			setvbuf(stdout, NULL, _IOLBF, 0);
			return reload(atoi(optarg));
		default:
			fprintf(stderr, "usage: %s [--seconds N] [--procs K] [--threads T] [--faults] [--kernel-faults PERCENT] [--seed S] | --reload N\n",
				argv[0]);
			return 2;
		}
	}
	if (procs < 1 || procs > MAX_PROCS || threads < 1 || threads > MAX_THREADS)
		return 2;
	setvbuf(stdout, NULL, _IOLBF, 0);
	sh = mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 2;
	if (mxa_debugfs_dir(DEVICE, dir, sizeof(dir)) || mxa_read_counters(dir, &before)) {
		printf("mxa-stress: no debugfs counters\n");
		return 2;
	}
	if (accel_open(NULL, ACCEL_SUBMIT_IOCTL, &dev))
		return 2;
	nq = accel_device_info(dev)->num_queues;
	accel_close(dev);
	if (faults) {
		old_timeout = mxa_get_job_timeout(dir);
		mxa_set_job_timeout(dir, FAULT_TIMEOUT_MS);
	}
	if (kernel_faults) {
		char why[256];

		long none[KFAULT_N];

		if (kernel_faults < 1 || kernel_faults > 100 ||
		    kfault_arm("mxa", kernel_faults, why, sizeof(why))) {
			kfault_disarm(none);
			printf("mxa-stress: --kernel-faults %d: %s\n", kernel_faults,
			       kernel_faults < 1 || kernel_faults > 100 ? "a percentage, 1 to 100" : why);
			return 2;
		}
	}
	printf("mxa-stress: seed %llu, %d processes x %d threads (ioctl and io_uring), %u queues%s%s, %.0f s\n",
	       (unsigned long long)seed, procs, threads, nq,
	       faults ? ", with fault injection" : "",
	       kernel_faults ? ", with kernel fault injection in mxa.ko" : "", seconds);
	t0 = now_ns();
	for (i = 0; i < procs; i++) {
		pids[i] = fork();
		if (pids[i] == 0)
			process_main(i, threads, seed + 1000003ull * i);
	}
	if (faults) {
		pids[procs] = fork();
		if (pids[procs] == 0)
			faults_main(nq, seed ^ 0xfa17);
	}
	while (now_ns() - t0 < (int64_t)(seconds * 1e9) && !sh->stop)
		usleep(50000);
	sh->stop = 1;
	for (i = 0; i < procs + faults; i++) {
		int status;

		waitpid(pids[i], &status, 0);
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			printf("mxa-stress: process %d ended with status %#x\n", i, status);
			bad++;
		}
	}
	if (kernel_faults) {
		long injected[KFAULT_N];

		kfault_disarm(injected);
		printf("mxa-stress: kernel faults injected in mxa.ko's calls: failslab %ld, fail_page_alloc %ld, fail_usercopy %ld, in %llu rounds; calls refused with -ENOMEM %llu, -EFAULT %llu, other %llu; results lost to a failed copy-out %llu\n",
		       injected[0], injected[1], injected[2], (unsigned long long)sh->kf_rounds,
		       (unsigned long long)sh->kf_refused[0], (unsigned long long)sh->kf_refused[1],
		       (unsigned long long)sh->kf_refused[2], (unsigned long long)sh->kf_lost);
		for (i = 0; i < KFAULT_N; i++)
			if (injected[i] <= 0) {
				printf("mxa-stress: %s injected no failure into mxa.ko\n",
				       kfault_names[i]);
				bad++;
			}
	}
	leaked = !mxa_counters_settle(dir, &before, &after, 60);
	if (old_timeout >= 0)
		mxa_set_job_timeout(dir, old_timeout);
	for (i = 0; i < MAX_PROCS * MAX_THREADS; i++) {
		jobs += sh->jobs[i];
		uring += sh->uring_jobs[i];
		bad += sh->bad[i];
	}
	printf("mxa-stress: %llu jobs checked bit for bit (%llu through io_uring, %llu through ioctl) in %.1f s: %llu bad\n",
	       (unsigned long long)jobs, (unsigned long long)uring,
	       (unsigned long long)(jobs - uring), (now_ns() - t0) / 1e9, (unsigned long long)bad);
	if (faults)
		printf("mxa-stress: faults injected: %llu hangs, %llu MMU faults, %llu SIGKILLed submitters, %llu rings closed in flight, %llu rmmods refused; %llu unexpected outcomes\n",
		       (unsigned long long)sh->hangs, (unsigned long long)sh->mmu_faults,
		       (unsigned long long)sh->kills, (unsigned long long)sh->ring_closes,
		       (unsigned long long)sh->rmmod_refused, (unsigned long long)sh->fault_errors);
	printf("mxa-stress: counters before bos %ld contexts %ld jobs %ld, after bos %ld contexts %ld jobs %ld: %s\n",
	       before.bos, before.contexts, before.jobs, after.bos, after.contexts, after.jobs,
	       leaked ? "LEAK" : "no leaks");
	return bad || leaked || sh->fault_errors || !jobs ? 1 : 0;
}
