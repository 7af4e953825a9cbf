// SPDX-License-Identifier: MIT
/*
 * fuzz-driver: fuzz mxa.ko from inside the guest (Documentation/hardening.rst).
 *
 *   fuzz-driver [--seconds N] [--workers W] [--seed S] [--device PATH] [--all-core-ioctls]
 *
 * W worker processes (default 4) each issue random sequences of the driver's ioctls
 * (and DRM core ioctls, and made-up ioctl numbers) and io_uring commands with random
 * arguments: struct fields biased to edge values, real and bogus handles, job ids,
 * group ids, queues and device VAs; programs that are valid, garbage, or well-formed
 * commands with random operands (including hangs and MMU faults). Workers also mmap
 * random offsets, close their files and rings with work in flight, exit with
 * everything open, and are killed with SIGKILL by the parent and replaced.
 *
 * The parent reads the driver's debugfs counters (bos, contexts, jobs) before and
 * after; once every worker is gone the counters must return to the baseline (within
 * 60 s: hung jobs end by the job timeout, which the fuzzer sets to 200 ms). It prints
 * the number of calls and exits non-zero on a leak. A kernel oops, WARN or BUG is
 * found by the VM harness in the kernel log. A worker may die of a signal (the kernel
 * wrote through a random user pointer into the worker's own memory); it is replaced
 * like the killed ones.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <liburing.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "drm.h"
#include "drm/mxa_accel.h"
#define MXA_ISA_TABLE_DEFINE
#include "mxa_isa_table.h"
#include "mxa_regs.h"
#include "mxa_counters.h"
#include "fuzz_rand.h"

#define MAX_WORKERS	64
#define MAX_BOS		16
#define MAX_IDS		32
#define FUZZ_TIMEOUT_MS	200

static const char *device_path = "/dev/accel/accel0";
static int all_core_ioctls;

/* Shared between parent and workers (MAP_SHARED | MAP_ANONYMOUS). */
struct stats {
	volatile int stop;
	uint64_t ioctls[MAX_WORKERS];
	uint64_t uring_cmds[MAX_WORKERS];
	uint64_t jobs_ok[MAX_WORKERS];
	uint64_t jobs_failed[MAX_WORKERS];
	uint64_t mmaps[MAX_WORKERS];
	uint64_t reopens[MAX_WORKERS];
};
static struct stats *stats;

/* ---- a worker's view of the device ---- */

struct bo {
	uint32_t handle;
	uint64_t va, size;
	void *map;
};

struct worker {
	int idx;
	int fd;
	struct drm_mxa_device_info info;
	struct bo bos[MAX_BOS];
	int nbos;
	uint64_t job_ids[MAX_IDS];
	int njobs;
	uint64_t group_ids[MAX_IDS];
	int ngroups;
	uint32_t uqueues[MAX_IDS];	/* user queue ids from QUEUE_CREATE */
	int nuqueues;
	struct io_uring ring;
	int have_ring;
	int ring_inflight;
	uint8_t *scratch;	/* one page between PROT_NONE guard pages */
};

#define SCRATCH_BYTES	4096

static int xioctl(struct worker *w, unsigned long req, void *arg)
{
	int ret;

	stats->ioctls[w->idx]++;
	ret = ioctl(w->fd, req, arg);
	return ret < 0 ? -errno : 0;
}

/* A user pointer for the kernel to read or write: never into the worker's own state. */
static uint64_t user_ptr(struct worker *w)
{
	switch (rnd_below(6)) {
	case 0:
		return 0;
	case 1:
		return 0x10;
	case 2:
		return 0xffff888000000000ull;	/* kernel address */
	case 3:
		return (uintptr_t)w->scratch + 1;	/* misaligned */
	case 4:
		return (uintptr_t)w->scratch + SCRATCH_BYTES - rnd_below(64);	/* ends past it */
	default:
		return (uintptr_t)w->scratch;
	}
}

static uint32_t pick_handle(struct worker *w)
{
	if (w->nbos && !one_in(5))
		return w->bos[rnd_below(w->nbos)].handle;
	if (one_in(2))
		return edge32();
	return rnd_below(64);
}

static uint64_t pick_va(struct worker *w)
{
	if (w->nbos && !one_in(4)) {
		struct bo *b = &w->bos[rnd_below(w->nbos)];

		switch (rnd_below(4)) {
		case 0:
			return b->va;
		case 1:
			return b->va + (rnd_below(b->size) & ~7ull);
		case 2:
			return b->va + b->size;		/* the guard page */
		default:
			return b->va + rnd_below(b->size);
		}
	}
	if (one_in(2))
		return w->info.va_start + (edge64() & ~0xfffull) % (1ull << 36);
	return edge64();
}

static uint32_t pick_queue(struct worker *w)
{
	if (w->nuqueues && one_in(3))
		return w->uqueues[rnd_below(w->nuqueues)];
	if (!one_in(8))
		return rnd_below(w->info.num_queues ? w->info.num_queues : 1);
	return one_in(2) ? DRM_MXA_USER_QUEUE_ID_BASE + rnd_below(80) : edge32();
}

static uint64_t pick_job_id(struct worker *w)
{
	if (w->njobs && !one_in(4))
		return w->job_ids[rnd_below(w->njobs)];
	return edge64();
}

static void remember(uint64_t *ids, int *n, uint64_t id)
{
	if (*n < MAX_IDS)
		ids[(*n)++] = id;
	else
		ids[rnd_below(MAX_IDS)] = id;
}

static int64_t pick_timeout(void)
{
	switch (rnd_below(8)) {
	case 0:
		return -1;
	case 1:
		return 0;
	case 2:
		return 1;
	case 3:
		return one_in(16) ? INT64_MAX : 100000000;	/* 100 ms */
	case 4:
		return INT64_MIN;
	default:
		return rnd_below(20000000);	/* up to 20 ms */
	}
}

/* ---- programs ---- */

/* Write a random program of up to @max dwords at @p; returns its size in dwords. */
static uint32_t gen_program(struct worker *w, uint32_t *p, uint32_t max)
{
	uint32_t n = 0, i, kind = rnd_below(8);

	if (kind == 0) {			/* garbage */
		uint32_t len = 1 + rnd_below(max < 64 ? max : 64);

		for (i = 0; i < len; i++)
			p[i] = one_in(2) ? (uint32_t)rnd() : edge32();
		return len;
	}
	if (kind == 1) {			/* valid: fences into our own BOs */
		while (n + MXA_FENCE_WRITE_DWORDS <= max && (n == 0 || !one_in(3))) {
			uint64_t va = w->nbos ? (w->bos[0].va + (rnd_below(w->bos[0].size) & ~7ull))
					      : 0;

			p[n++] = MXA_CMD_HEADER(MXA_OP_FENCE_WRITE, MXA_FENCE_WRITE_DWORDS, 0);
			p[n++] = (uint32_t)va;
			p[n++] = (uint32_t)(va >> 32);
			p[n++] = (uint32_t)rnd();
			p[n++] = (uint32_t)rnd();
		}
		return n;
	}
	if (kind == 2 && max >= MXA_SEM_WAIT_DWORDS) {	/* a hang: SEM_WAIT never satisfied */
		uint64_t va = w->nbos ? w->bos[0].va : pick_va(w);

		p[n++] = MXA_CMD_HEADER(MXA_OP_SEM_WAIT, MXA_SEM_WAIT_DWORDS, 0);
		p[n++] = (uint32_t)va;
		p[n++] = (uint32_t)(va >> 32);
		p[n++] = 0xffffffffu;
		p[n++] = 0xffffffffu;
		p[n++] = one_in(2) ? MXA_SEM_MAX_TIMEOUT_US : rnd_below(20000);
		return n;
	}
	/* Well-formed headers, random operands biased to plausible values. */
	while (n < max && (n == 0 || !one_in(4))) {
		const struct mxa_isa_cmd *cmd = random_command();
		uint32_t len = cmd->dwords;
		uint32_t flags = one_in(4) ? rnd_below(16) : one_in(2) ? cmd->flags & rnd() : 0;

		if (one_in(32))
			len = rnd_below(256);	/* wrong length */
		if (n + (len ? len : 1) > max)
			break;
		p[n] = MXA_CMD_HEADER(cmd->opcode, len, flags);
		for (i = 1; i < len; i++) {
			switch (rnd_below(6)) {
			case 0: {
				uint64_t va = pick_va(w);

				p[n + i] = (uint32_t)va;
				if (i + 1 < len)
					p[n + ++i] = (uint32_t)(va >> 32);
				break;
			}
			case 1:
				p[n + i] = rnd_below(64);
				break;
			case 2:
				p[n + i] = edge32();
				break;
			default:
				p[n + i] = rnd_below(one_in(2) ? 17 : 4096);
				break;
			}
		}
		n += len ? len : 1;
	}
	return n;
}

/* ---- operations ---- */

static void op_bo_create(struct worker *w)
{
	struct drm_mxa_bo_create c = { 0 };
	struct drm_mxa_bo_mmap_offset mo = { 0 };

	c.size = one_in(8) ? edge64() : 4096 * (1 + rnd_below(one_in(8) ? 256 : 8));
	c.flags = one_in(16) ? edge32() : 0;
	if (one_in(16))
		c.handle = edge32();
	if (xioctl(w, DRM_IOCTL_MXA_BO_CREATE, &c))
		return;
	if (w->nbos == MAX_BOS) {
		struct drm_gem_close cl = { .handle = c.handle };

		xioctl(w, DRM_IOCTL_GEM_CLOSE, &cl);
		return;
	}
	w->bos[w->nbos] = (struct bo){ .handle = c.handle, .va = c.device_va, .size = c.size };
	mo.handle = c.handle;
	if (!xioctl(w, DRM_IOCTL_MXA_BO_MMAP_OFFSET, &mo)) {
		void *m = mmap(NULL, c.size, PROT_READ | PROT_WRITE, MAP_SHARED, w->fd, mo.offset);

		stats->mmaps[w->idx]++;
		if (m != MAP_FAILED)
			w->bos[w->nbos].map = m;
	}
	w->nbos++;
}

static void op_bo_close(struct worker *w)
{
	struct drm_gem_close cl = { 0 };
	int i;

	if (!w->nbos || one_in(8)) {
		cl.handle = edge32();
		cl.pad = one_in(4) ? edge32() : 0;
		xioctl(w, DRM_IOCTL_GEM_CLOSE, &cl);
		return;
	}
	i = rnd_below(w->nbos);
	cl.handle = w->bos[i].handle;
	xioctl(w, DRM_IOCTL_GEM_CLOSE, &cl);
	/* Keep the mapping sometimes: it must outlive the handle. */
	if (w->bos[i].map && one_in(2))
		munmap(w->bos[i].map, w->bos[i].size);
	w->bos[i] = w->bos[--w->nbos];
}

static void op_mmap(struct worker *w)
{
	struct drm_mxa_bo_mmap_offset mo = { .handle = pick_handle(w) };
	uint64_t off, len = 4096 * (1 + rnd_below(4));
	void *m;

	if (one_in(8))
		mo.pad = edge32();
	if (xioctl(w, DRM_IOCTL_MXA_BO_MMAP_OFFSET, &mo))
		mo.offset = edge64() & ~0xfffull;
	off = mo.offset + (one_in(4) ? 4096 * rnd_below(8) : 0);
	if (one_in(8))
		len = edge64() & ~0xfffull;
	if (!len || len > (64ull << 20))
		len = 4096;
	stats->mmaps[w->idx]++;
	m = mmap(NULL, len, one_in(4) ? PROT_READ : PROT_READ | PROT_WRITE,
		 one_in(8) ? MAP_PRIVATE : MAP_SHARED, w->fd, off);
	if (m != MAP_FAILED)
		munmap(m, len);
}

static void write_program(struct worker *w, struct bo *b, uint32_t *off, uint32_t *size)
{
	uint32_t max_dw, n;

	*off = (rnd_below(b->size / 2) & ~3u);
	max_dw = (b->size - *off) / 4;
	if (max_dw > 256)
		max_dw = 256;
	n = gen_program(w, (uint32_t *)((char *)b->map + *off), max_dw);
	*size = n * 4;
}

static void fill_submit(struct worker *w, struct drm_mxa_submit *s)
{
	struct bo *b = NULL;
	int i;

	memset(s, 0, sizeof(*s));
	for (i = 0; i < w->nbos; i++)
		if (w->bos[i].map) {
			b = &w->bos[(i + rnd_below(w->nbos)) % w->nbos];
			if (!b->map)
				b = &w->bos[i];
			break;
		}
	if (b && !one_in(8)) {
		s->prog_handle = b->handle;
		write_program(w, b, &s->prog_offset, &s->prog_size);
	} else {
		s->prog_handle = pick_handle(w);
		s->prog_offset = one_in(2) ? 0 : edge32();
		s->prog_size = one_in(2) ? 4 * (1 + rnd_below(64)) : edge32();
	}
	s->queue = pick_queue(w);
	if (one_in(16))
		s->flags = edge32();
	if (one_in(16))
		s->prog_offset += rnd_below(4);
	if (one_in(16))
		s->prog_size = edge32();
}

static void op_submit_ioctl(struct worker *w)
{
	struct drm_mxa_submit s;
	int ret;

	fill_submit(w, &s);
	if (one_in(16))
		s.result_size = edge32();
	if (one_in(16))
		s.result_ptr = user_ptr(w);
	if (one_in(32))
		s.job_id = edge64();
	ret = xioctl(w, DRM_IOCTL_MXA_SUBMIT, &s);
	if (!ret)
		remember(w->job_ids, &w->njobs, s.job_id);
}

static void op_wait(struct worker *w)
{
	struct drm_mxa_wait wt = { 0 };

	wt.job_id = pick_job_id(w);
	wt.timeout_ns = pick_timeout();
	if (one_in(16))
		wt.flags = edge32();
	if (one_in(16))
		wt.pad = edge32();
	if (!xioctl(w, DRM_IOCTL_MXA_WAIT, &wt)) {
		if (wt.result.status)
			stats->jobs_failed[w->idx]++;
		else
			stats->jobs_ok[w->idx]++;
	}
}

static void op_groups(struct worker *w)
{
	if (one_in(2)) {
		struct drm_mxa_commit_group c = { .queue = pick_queue(w) };

		if (one_in(16))
			c.flags = edge32();
		if (!xioctl(w, DRM_IOCTL_MXA_COMMIT_GROUP, &c))
			remember(w->group_ids, &w->ngroups, c.group_id);
	} else {
		struct drm_mxa_wait_group g = { .queue = pick_queue(w) };

		g.n = one_in(2) ? rnd_below(4) : edge32();
		g.timeout_ns = pick_timeout();
		if (one_in(16))
			g.flags = edge32();
		if (one_in(16))
			g.pad = edge32();
		xioctl(w, DRM_IOCTL_MXA_WAIT_GROUP, &g);
	}
}

/* User queues: create (any priority, sometimes bad arguments) and destroy. */
static void op_uqueue(struct worker *w)
{
	if (one_in(2)) {
		struct drm_mxa_queue_create c = { 0 };

		c.hw_queue = one_in(8) ? edge32() : rnd_below(w->info.num_queues + 1);
		c.priority = one_in(8) ? edge32() : rnd_below(3);
		if (one_in(16))
			c.flags = edge32();
		if (!xioctl(w, DRM_IOCTL_MXA_QUEUE_CREATE, &c) && w->nuqueues < MAX_IDS)
			w->uqueues[w->nuqueues++] = c.queue_id;
	} else {
		struct drm_mxa_queue_destroy d = { .queue_id = pick_queue(w) };

		if (one_in(16))
			d.flags = edge32();
		xioctl(w, DRM_IOCTL_MXA_QUEUE_DESTROY, &d);
	}
}

static void op_query(struct worker *w)
{
	struct drm_mxa_query q = { 0 };

	q.type = one_in(4) ? edge32() : DRM_MXA_QUERY_DEVICE;
	q.size = one_in(2) ? rnd_below(SCRATCH_BYTES) : edge32();
	if (q.size > SCRATCH_BYTES && !one_in(16))
		q.size = sizeof(struct drm_mxa_device_info);
	q.pointer = user_ptr(w);
	xioctl(w, DRM_IOCTL_MXA_QUERY, &q);
}

static void op_vm_bind(struct worker *w)
{
	struct drm_mxa_vm_bind b = { 0 };

	b.op = one_in(8) ? edge32() : rnd_below(2);
	b.flags = one_in(4) ? edge32() : rnd_below(2);
	b.handle = pick_handle(w);
	b.bo_offset = one_in(2) ? 0 : edge64();
	b.va = one_in(2) ? w->info.va_end - 4096ull * (1 + rnd_below(1024)) : pick_va(w);
	b.size = one_in(2) ? 4096ull * (1 + rnd_below(4)) : edge64();
	if (one_in(8))
		b.pad = edge32();
	xioctl(w, DRM_IOCTL_MXA_VM_BIND, &b);
}

/* DRM core ioctls, PRIME, and made-up numbers with random contents. */
static void op_other_ioctl(struct worker *w)
{
	uint8_t buf[256];
	unsigned long req;
	uint32_t i;

	for (i = 0; i < sizeof(buf); i += 4) {
		uint32_t v = one_in(2) ? edge32() : pick_handle(w);

		/* Never the low half of a pointer into this static binary and its heap. */
		if (v >= 0x400000 && v < 0x40000000)
			v |= 0x80000000u;

		memcpy(buf + i, &v, 4);
	}
	switch (rnd_below(10)) {
	case 0: {
		struct drm_prime_handle p = { .handle = pick_handle(w), .flags = DRM_CLOEXEC };

		if (one_in(4))
			p.flags = edge32();
		if (!xioctl(w, DRM_IOCTL_PRIME_HANDLE_TO_FD, &p)) {
			struct drm_prime_handle back = { .fd = p.fd };

			xioctl(w, DRM_IOCTL_PRIME_FD_TO_HANDLE, &back);
			close(p.fd);
		}
		return;
	}
	case 1: {
		struct drm_prime_handle p = { .fd = one_in(2) ? w->fd : (int)edge32() };

		xioctl(w, DRM_IOCTL_PRIME_FD_TO_HANDLE, &p);
		return;
	}
	case 2: {
		struct drm_version v = { 0 };

		xioctl(w, DRM_IOCTL_VERSION, &v);
		return;
	}
	case 3: {
		struct drm_get_cap c = { .capability = rnd_below(0x20) };

		xioctl(w, DRM_IOCTL_GET_CAP, &c);
		return;
	}
	case 4: {
		struct drm_gem_flink f = { .handle = pick_handle(w) };

		xioctl(w, DRM_IOCTL_GEM_FLINK, &f);
		return;
	}
	case 5: {
		struct drm_gem_open o = { .name = rnd_below(16) };

		if (!xioctl(w, DRM_IOCTL_GEM_OPEN, &o)) {
			struct drm_gem_close cl = { .handle = o.handle };

			xioctl(w, DRM_IOCTL_GEM_CLOSE, &cl);
		}
		return;
	}
	case 6: {
		struct drm_syncobj_create c = { .flags = one_in(2) ? 0 : edge32() };

		if (!xioctl(w, DRM_IOCTL_SYNCOBJ_CREATE, &c)) {
			struct drm_syncobj_destroy d = { .handle = c.handle };

			xioctl(w, DRM_IOCTL_SYNCOBJ_DESTROY, &d);
		}
		return;
	}
	case 7:
		/* The driver's range, including numbers past its table, any size. */
		req = _IOC(rnd_below(4), DRM_IOCTL_BASE, DRM_COMMAND_BASE + rnd_below(0x20),
			   rnd_below(sizeof(buf) + 1));
		break;
	case 8:
		/* Our ioctls with the wrong size or direction. */
		req = _IOC(rnd_below(4), DRM_IOCTL_BASE, DRM_COMMAND_BASE + rnd_below(8),
			   rnd_below(128));
		break;
	default:
		/* DRM core numbers (not the master/auth/modeset ones that are harmless anyway). */
		req = _IOC(rnd_below(4), DRM_IOCTL_BASE, rnd_below(DRM_COMMAND_BASE),
			   rnd_below(sizeof(buf) + 1));
		/*
		 * GET_UNIQUE, GET_MAGIC and SET_MASTER on an accel node used to dereference
		 * the file's NULL drm_master in the DRM core of 6.12 (kernel oopses this
		 * fuzzer found); mxa.ko now refuses every core ioctl but a short allow list
		 * (mxa_core_ioctl_allowed()), so all of them are fuzzed. --all-core-ioctls
		 * is kept for compatibility and changes nothing.
		 */
		(void)all_core_ioctls;
		break;
	}
	xioctl(w, req, buf);
}

/* ---- io_uring ---- */

static void ring_open(struct worker *w)
{
	struct io_uring_params p = { .flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32 };

	if (w->have_ring)
		return;
	if (one_in(16))
		p.flags = 0;	/* the driver must answer -EINVAL */
	if (io_uring_queue_init_params(32, &w->ring, &p) == 0) {
		w->have_ring = 1 + !(p.flags & IORING_SETUP_SQE128);
		w->ring_inflight = 0;
	}
}

static void ring_close(struct worker *w)
{
	if (!w->have_ring)
		return;
	io_uring_queue_exit(&w->ring);	/* in-flight commands are cancelled */
	w->have_ring = 0;
}

static void ring_reap(struct worker *w, int wait)
{
	struct io_uring_cqe *cqe;
	struct __kernel_timespec ts = { .tv_nsec = 50 * 1000000 };

	while (w->ring_inflight > 0) {
		int ret = wait ? io_uring_wait_cqe_timeout(&w->ring, &cqe, &ts)
			       : io_uring_peek_cqe(&w->ring, &cqe);

		if (ret)
			return;
		if (cqe->res == 0)
			stats->jobs_ok[w->idx]++;
		else
			stats->jobs_failed[w->idx]++;
		io_uring_cqe_seen(&w->ring, cqe);
		w->ring_inflight--;
		wait = 0;
	}
}

static void op_uring(struct worker *w)
{
	int n = 1 + rnd_below(8), i, queued = 0;

	ring_open(w);
	if (!w->have_ring)
		return;
	if (w->ring_inflight > 16)
		ring_reap(w, 1);
	for (i = 0; i < n; i++) {
		struct io_uring_sqe *sqe = io_uring_get_sqe(&w->ring);
		uint32_t op;

		if (!sqe)
			break;
		memset(sqe, 0, w->have_ring == 1 ? 2 * sizeof(*sqe) : sizeof(*sqe));
		sqe->opcode = IORING_OP_URING_CMD;
		sqe->fd = one_in(32) ? 0 : w->fd;
		op = rnd_below(8);
		sqe->cmd_op = op < 5 ? MXA_URING_CMD_SUBMIT : op < 6 ? MXA_URING_CMD_COMMIT_GROUP :
			      op < 7 ? MXA_URING_CMD_WAIT_GROUP : edge32();
		if (w->have_ring != 1)
			; /* 64-byte SQEs: no room for the payload; the driver refuses */
		else if (sqe->cmd_op == MXA_URING_CMD_SUBMIT) {
			struct drm_mxa_submit s;

			fill_submit(w, &s);
			s.result_size = one_in(4) ? edge32() : sizeof(struct drm_mxa_job_result);
			s.result_ptr = one_in(2) ? (uintptr_t)w->scratch : user_ptr(w);
			memcpy(sqe->cmd, &s, sizeof(s));
		} else if (sqe->cmd_op == MXA_URING_CMD_COMMIT_GROUP) {
			struct drm_mxa_commit_group c = { .queue = pick_queue(w) };

			if (one_in(16))
				c.flags = edge32();
			memcpy(sqe->cmd, &c, sizeof(c));
		} else if (sqe->cmd_op == MXA_URING_CMD_WAIT_GROUP) {
			struct drm_mxa_wait_group g = { .queue = pick_queue(w) };

			g.n = rnd_below(4);
			g.timeout_ns = pick_timeout();
			if (g.timeout_ns < 0 && !one_in(4))
				g.timeout_ns = 1000000;
			if (one_in(16))
				g.pad = edge32();
			memcpy(sqe->cmd, &g, sizeof(g));
		} else {
			for (uint32_t j = 0; j < 80; j += 4) {
				uint32_t v = edge32();

				memcpy(sqe->cmd + j, &v, 4);
			}
		}
		queued++;
	}
	if (queued) {
		int ret = io_uring_submit(&w->ring);

		if (ret > 0) {
			stats->uring_cmds[w->idx] += ret;
			w->ring_inflight += ret;
		}
	}
	ring_reap(w, 0);
}

/* ---- the worker ---- */

static int worker_open(struct worker *w)
{
	struct drm_mxa_query q = { .type = DRM_MXA_QUERY_DEVICE, .size = sizeof(w->info) };

	w->fd = open(device_path, O_RDWR | O_CLOEXEC);
	if (w->fd < 0)
		return -errno;
	q.pointer = (uintptr_t)&w->info;
	memset(&w->info, 0, sizeof(w->info));
	xioctl(w, DRM_IOCTL_MXA_QUERY, &q);
	w->nbos = w->njobs = w->ngroups = w->nuqueues = 0;
	return 0;
}

/* Close the file with whatever is still in flight; the driver must clean up. */
static void worker_reopen(struct worker *w)
{
	int i;

	ring_close(w);
	for (i = 0; i < w->nbos; i++)
		if (w->bos[i].map && one_in(2))
			munmap(w->bos[i].map, w->bos[i].size);	/* others stay mapped */
	close(w->fd);
	stats->reopens[w->idx]++;
	worker_open(w);
}

static void worker_run(int idx, uint64_t seed, int64_t deadline_ns)
{
	static struct worker wk;
	struct worker *w = &wk;
	uint64_t ops = 0, life = 200 + rnd_below(20000);

	memset(w, 0, sizeof(*w));
	w->idx = idx;
	w->scratch = mmap(NULL, 3 * SCRATCH_BYTES, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (w->scratch == MAP_FAILED ||
	    mprotect(w->scratch + SCRATCH_BYTES, SCRATCH_BYTES, PROT_READ | PROT_WRITE))
		_exit(2);
	w->scratch += SCRATCH_BYTES;
	rng_state = seed | 1;
	if (worker_open(w))
		_exit(2);
	while (!stats->stop && ops++ < life) {
		switch (rnd_below(32)) {
		case 0 ... 3:
			op_bo_create(w);
			break;
		case 4 ... 5:
			op_bo_close(w);
			break;
		case 6 ... 7:
			op_mmap(w);
			break;
		case 8 ... 13: {
			op_submit_ioctl(w);
			break;
		}
		case 14 ... 16:
			op_wait(w);
			break;
		case 17 ... 18:
			op_groups(w);
			break;
		case 19:
			if (one_in(2))
				op_query(w);
			else
				op_uqueue(w);
			break;
		case 20 ... 21:
			op_vm_bind(w);
			break;
		case 22 ... 24:
			op_other_ioctl(w);
			break;
		case 25 ... 29:
			op_uring(w);
			break;
		case 30:
			if (one_in(8))
				ring_close(w);
			break;
		default:
			if (one_in(32))
				worker_reopen(w);
			break;
		}
	}
	/* Leave with everything open half the time: exit must clean up. */
	if (one_in(2)) {
		ring_close(w);
		close(w->fd);
	}
	_exit(0);
}

/* ---- the parent ---- */

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000ll + ts.tv_nsec;
}

static pid_t spawn(int idx, uint64_t seed, int64_t deadline)
{
	pid_t pid = fork();

	if (pid == 0) {
		signal(SIGPIPE, SIG_IGN);
		worker_run(idx, seed, deadline);
	}
	return pid;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "seconds", required_argument, 0, 's' },
		{ "workers", required_argument, 0, 'w' },
		{ "seed", required_argument, 0, 'S' },
		{ "device", required_argument, 0, 'd' },
		{ "all-core-ioctls", no_argument, 0, 'A' },
		{ 0 }
	};
	double seconds = 10;
	int workers = 4, opt, i, old_timeout, leaked, spawned = 0, killed = 0;
	uint64_t seed = (uint64_t)time(NULL), calls = 0, uring = 0, ok = 0, failed = 0, mm = 0,
		 reopen = 0;
	struct mxa_counters before, after;
	char dir[512] = "";
	pid_t pids[MAX_WORKERS];
	int64_t start, deadline;

	while ((opt = getopt_long(argc, argv, "s:w:S:d:A", opts, NULL)) != -1) {
		switch (opt) {
		case 's':
			seconds = atof(optarg);
			break;
		case 'w':
			workers = atoi(optarg);
			break;
		case 'S':
			seed = strtoull(optarg, NULL, 0);
			break;
		case 'd':
			device_path = optarg;
			break;
		case 'A':
			all_core_ioctls = 1;
			break;
		default:
			fprintf(stderr, "usage: %s [--seconds N] [--workers W] [--seed S] [--device PATH] [--all-core-ioctls]\n",
				argv[0]);
			return 2;
		}
	}
	if (workers < 1 || workers > MAX_WORKERS)
		workers = 4;
	setvbuf(stdout, NULL, _IOLBF, 0);
	stats = mmap(NULL, sizeof(*stats), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		     -1, 0);
	if (stats == MAP_FAILED)
		return 2;
	if (mxa_debugfs_dir(device_path, dir, sizeof(dir)) || mxa_read_counters(dir, &before)) {
		printf("fuzz-driver: no debugfs counters for %s (%s)\n", device_path, dir);
		return 2;
	}
	old_timeout = mxa_get_job_timeout(dir);
	if (mxa_set_job_timeout(dir, FUZZ_TIMEOUT_MS))
		printf("fuzz-driver: cannot set job_timeout_ms; hangs last the device's 10 s\n");
	printf("fuzz-driver: seed %llu, %d workers, %.0f s; counters before: bos %ld contexts %ld jobs %ld\n",
	       (unsigned long long)seed, workers, seconds, before.bos, before.contexts, before.jobs);

	rng_state = seed | 1;
	start = now_ns();
	deadline = start + (int64_t)(seconds * 1e9);
	for (i = 0; i < workers; i++) {
		pids[i] = spawn(i, rnd(), deadline);
		spawned++;
	}
	while (now_ns() < deadline) {
		int status;
		pid_t pid = waitpid(-1, &status, WNOHANG);

		if (pid > 0) {
			for (i = 0; i < workers; i++)
				if (pids[i] == pid) {
					pids[i] = spawn(i, rnd(), deadline);
					spawned++;
				}
			continue;
		}
		usleep(20000);
		/* Now and then kill -9 a worker mid-call; it is replaced. */
		if (one_in(25)) {
			kill(pids[rnd_below(workers)], SIGKILL);
			killed++;
		}
	}
	stats->stop = 1;
	for (i = 0; i < workers; i++) {
		int64_t t = now_ns() + 30 * 1000000000ll;
		int status;

		while (waitpid(pids[i], &status, WNOHANG) == 0) {
			if (now_ns() > t) {
				printf("fuzz-driver: worker %d stuck for 30 s: SIGKILL\n", i);
				kill(pids[i], SIGKILL);
				waitpid(pids[i], &status, 0);
				break;
			}
			usleep(10000);
		}
	}
	/* Jobs of closed files run to their end (hangs: the job timeout); then all is freed. */
	leaked = !mxa_counters_settle(dir, &before, &after, 60);
	if (old_timeout >= 0)
		mxa_set_job_timeout(dir, old_timeout);
	for (i = 0; i < workers; i++) {
		calls += stats->ioctls[i] + stats->uring_cmds[i];
		uring += stats->uring_cmds[i];
		ok += stats->jobs_ok[i];
		failed += stats->jobs_failed[i];
		mm += stats->mmaps[i];
		reopen += stats->reopens[i];
	}
	printf("fuzz-driver: %llu calls (%llu ioctl, %llu io_uring commands) + %llu mmaps in %.1f s; "
	       "%d worker processes (%d killed with SIGKILL), %llu file reopens; "
	       "jobs seen ending: %llu ok, %llu failed\n",
	       (unsigned long long)calls, (unsigned long long)(calls - uring),
	       (unsigned long long)uring, (unsigned long long)mm, (now_ns() - start) / 1e9,
	       spawned, killed, (unsigned long long)reopen, (unsigned long long)ok,
	       (unsigned long long)failed);
	printf("fuzz-driver: counters after: bos %ld contexts %ld jobs %ld: %s\n", after.bos,
	       after.contexts, after.jobs, leaked ? "LEAK" : "no leaks");
	return leaked ? 1 : 0;
}
