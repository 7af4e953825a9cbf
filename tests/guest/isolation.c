// SPDX-License-Identifier: MIT
/*
 * Guest kselftest "isolation": process B cannot read or write process A's buffers.
 * - by device VA: B's VM does not map A's VAs, so B's job faults (-EFAULT, the VA in
 *   err_addr) while A's jobs on the same queue run and A's data stays intact;
 * - by handle: handles, mmap offsets and job ids are per file;
 * - through dma-buf: only a file descriptor A exported and passed on gives access
 *   (PRIME export is an explicit grant); B's VM still does not map A's VAs;
 * - by racing close against submit: a BO closed (handle and mapping) while a job of B
 *   writes it is freed at once (a job pins only its program BO); the write lands in
 *   B's own VM (a BO of B that reused the VA) or faults, never in A's BOs, even those
 *   that got the freed pages; submits racing GEM_CLOSE get the job or -ENOENT.
 * Every attempt faults or fails only the offender.
 */
#include "mxa_test.h"

#include <poll.h>
#include <pthread.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "kselftest_harness.h"

#define SEC		NSEC_PER_SEC
#define SECRET_BYTES	(64 << 10)

static uint64_t pattern(uint64_t i)
{
	return 0x5ec7e7000000000ull ^ (i * 0x9e3779b97f4a7c15ull);
}

static uint32_t *put_reg_load(uint32_t *p, uint32_t reg, uint64_t va)
{
	*p++ = MXA_CMD_HEADER(MXA_OP_REG_LOAD, MXA_REG_LOAD_DWORDS, 0);
	*p++ = reg;
	*p++ = (uint32_t)va;
	*p++ = (uint32_t)(va >> 32);
	return p;
}

static uint32_t *put_copy(uint32_t *p, uint64_t dst, uint64_t src, uint32_t bytes)
{
	*p++ = MXA_CMD_HEADER(MXA_OP_COPY, MXA_COPY_DWORDS, 0);
	*p++ = (uint32_t)src;
	*p++ = (uint32_t)(src >> 32);
	*p++ = (uint32_t)dst;
	*p++ = (uint32_t)(dst >> 32);
	*p++ = bytes;
	*p++ = 0;
	*p++ = MXA_CMD_HEADER(MXA_OP_COMMIT_GROUP, MXA_COMMIT_GROUP_DWORDS, MXA_GROUP_COPY);
	*p++ = MXA_CMD_HEADER(MXA_OP_WAIT_GROUP, MXA_WAIT_GROUP_DWORDS, MXA_GROUP_COPY);
	*p++ = 0;
	return p;
}

/* A job long enough to overlap others: @n NOPs in a loop, then a fence write. */
static uint32_t *put_long(uint32_t *p, uint32_t n, uint64_t fence_va, uint64_t value)
{
	*p++ = MXA_CMD_HEADER(MXA_OP_LOOP, MXA_LOOP_DWORDS, 0);
	*p++ = n;
	*p++ = 0;
	p = mxa_put_nop(p);
	*p++ = MXA_CMD_HEADER(MXA_OP_ENDLOOP, MXA_ENDLOOP_DWORDS, 0);
	return mxa_put_fence(p, fence_va, value);
}

FIXTURE(isolation) {
	int fa, fb;
	struct drm_mxa_device_info info;
	struct mxa_bo a_prog, a_pad[3], a_secret, a_out;
	struct mxa_bo b_prog, b_out;
};

static void fill_secret(struct mxa_bo *bo)
{
	uint64_t i;

	for (i = 0; i < bo->size / 8; i++)
		((uint64_t *)bo->map)[i] = pattern(i);
}

static int secret_intact(struct mxa_bo *bo)
{
	uint64_t i;

	for (i = 0; i < bo->size / 8; i++)
		if (((volatile uint64_t *)bo->map)[i] != pattern(i))
			return 0;
	return 1;
}

FIXTURE_SETUP(isolation)
{
	int i;

	self->fa = mxa_open();
	self->fb = mxa_open();
	ASSERT_GE(self->fa, 0);
	ASSERT_GE(self->fb, 0);
	ASSERT_EQ(0, mxa_query_device(self->fa, &self->info));
	/* A has more BOs than B, so A's secret sits at a VA B's VM has nothing at. */
	ASSERT_EQ(0, mxa_bo_new(self->fa, 64 << 10, &self->a_prog));
	for (i = 0; i < 3; i++)
		ASSERT_EQ(0, mxa_bo_new(self->fa, 64 << 10, &self->a_pad[i]));
	ASSERT_EQ(0, mxa_bo_new(self->fa, SECRET_BYTES, &self->a_secret));
	ASSERT_EQ(0, mxa_bo_new(self->fa, 4096, &self->a_out));
	fill_secret(&self->a_secret);
	ASSERT_EQ(0, mxa_bo_new(self->fb, 64 << 10, &self->b_prog));
	ASSERT_EQ(0, mxa_bo_new(self->fb, SECRET_BYTES, &self->b_out));
	memset(self->b_out.map, 0, self->b_out.size);
}

FIXTURE_TEARDOWN(isolation)
{
	int i;

	mxa_bo_free(self->fb, &self->b_out);
	mxa_bo_free(self->fb, &self->b_prog);
	mxa_bo_free(self->fa, &self->a_out);
	mxa_bo_free(self->fa, &self->a_secret);
	for (i = 0; i < 3; i++)
		mxa_bo_free(self->fa, &self->a_pad[i]);
	mxa_bo_free(self->fa, &self->a_prog);
	close(self->fb);
	close(self->fa);
}

/* Run B's program at offset @off of b_prog; its result. */
static int run_b(FIXTURE_DATA(isolation) *self, uint32_t *start, uint32_t *end,
		 struct drm_mxa_job_result *r)
{
	uint64_t id;
	int ret = mxa_submit(self->fb, self->b_prog.handle, 0,
			     mxa_bytes(self->b_prog.map, start), mxa_bytes(start, end), &id);

	return ret ?: mxa_wait(self->fb, id, 30 * SEC, r);
}

TEST_F_TIMEOUT(isolation, va_guessing_faults_only_the_offender, 60)
{
	uint64_t secret = self->a_secret.va, a_job[2];
	struct drm_mxa_job_result r;
	uint32_t *p, *start;

	/* B's VM has nothing at A's secret VA. */
	ASSERT_LT(self->b_out.va + self->b_out.size, secret);

	/* A: a long job on queue 0, running while B's attempts fault on the same queue. */
	p = put_long(self->a_prog.map, 200000, self->a_out.va, 0xa1);
	ASSERT_EQ(0, mxa_submit(self->fa, self->a_prog.handle, 0, 0,
				mxa_bytes(self->a_prog.map, p), &a_job[0]));

	/* Read by REG_LOAD. */
	start = p = self->b_prog.map;
	p = put_reg_load(p, 1, secret);
	ASSERT_EQ(0, run_b(self, start, p, &r));
	EXPECT_EQ(-EFAULT, r.status);
	EXPECT_EQ(MXA_ERR_MMU_FAULT, r.error);
	EXPECT_EQ(secret, r.err_addr);
	EXPECT_TRUE(r.err_info & MXA_FAULT_READ);

	/* Read by COPY into B's own buffer. */
	start = p = self->b_prog.map + 64;
	p = put_copy(p, self->b_out.va, secret + 4096, 4096);
	ASSERT_EQ(0, run_b(self, start, p, &r));
	EXPECT_EQ(-EFAULT, r.status);
	EXPECT_EQ(MXA_ERR_MMU_FAULT, r.error);
	EXPECT_EQ(secret + 4096, r.err_addr & ~0xfffull);
	EXPECT_EQ(0, ((volatile uint64_t *)self->b_out.map)[0]);

	/* Write by FENCE_WRITE. */
	start = p = self->b_prog.map + 128;
	p = mxa_put_fence(p, secret + 8, 0xbad);
	ASSERT_EQ(0, run_b(self, start, p, &r));
	EXPECT_EQ(-EFAULT, r.status);
	EXPECT_EQ(secret + 8, r.err_addr);
	EXPECT_TRUE(r.err_info & MXA_FAULT_WRITE);

	/* A: its job ran to its end, and a new one runs; the secret is intact. */
	ASSERT_EQ(0, mxa_wait(self->fa, a_job[0], 60 * SEC, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(0xa1, *(volatile uint64_t *)self->a_out.map);
	p = (uint32_t *)self->a_prog.map + 1024;
	p = put_copy(p, self->a_out.va + 64, secret, 64);
	p = mxa_put_fence(p, self->a_out.va, 0xa2);
	ASSERT_EQ(0, mxa_submit(self->fa, self->a_prog.handle, 0, 4096,
				mxa_bytes((uint32_t *)self->a_prog.map + 1024, p), &a_job[1]));
	ASSERT_EQ(0, mxa_wait(self->fa, a_job[1], 30 * SEC, &r));
	EXPECT_EQ(0, r.status) TH_LOG("A's copy: error %u at %u addr %#llx", r.error, r.err_offset,
				      (unsigned long long)r.err_addr);
	EXPECT_EQ(0, memcmp((char *)self->a_out.map + 64, self->a_secret.map, 64));
	EXPECT_TRUE(secret_intact(&self->a_secret));
}

TEST_F_TIMEOUT(isolation, whole_va_range_sweep_sees_nothing_of_a, 60)
{
	/* B's job tries every page of A's BOs in one program: the first one faults. */
	struct drm_mxa_job_result r;
	uint32_t *start = self->b_prog.map, *p = start;
	uint64_t va;

	for (va = self->a_pad[0].va; va < self->a_out.va + 4096; va += 4096)
		if (va < self->b_prog.va || va >= self->b_out.va + self->b_out.size)
			p = put_reg_load(p, 2, va);
	ASSERT_EQ(0, run_b(self, start, p, &r));
	EXPECT_EQ(-EFAULT, r.status);
	EXPECT_TRUE(r.err_addr < self->b_prog.va || r.err_addr >= self->b_out.va + self->b_out.size);
	EXPECT_TRUE(secret_intact(&self->a_secret));
}

TEST_F(isolation, handles_offsets_and_job_ids_are_per_file)
{
	struct drm_mxa_bo_mmap_offset mo = { .handle = self->a_secret.handle };
	struct drm_mxa_vm_bind bind = {
		.op = DRM_MXA_VM_BIND_OP_MAP, .handle = self->a_secret.handle,
		.va = self->a_secret.va, .size = 4096,
	};
	int fc = mxa_open();
	uint64_t id;
	void *m;

	ASSERT_GE(fc, 0);
	/* C has no BOs: A's handle numbers mean nothing there. */
	EXPECT_EQ(-ENOENT, mxa_ioctl(fc, DRM_IOCTL_MXA_BO_MMAP_OFFSET, &mo));
	EXPECT_EQ(-ENOENT, mxa_submit(fc, self->a_prog.handle, 0, 0, 4, &id));
	EXPECT_EQ(-EINVAL, mxa_gem_close(fc, self->a_secret.handle));
	if (self->info.driver_caps & DRM_MXA_DRIVER_CAP_VM_BIND)
		EXPECT_EQ(-ENOENT, mxa_ioctl(fc, DRM_IOCTL_MXA_VM_BIND, &bind));

	/* A's mmap offset on another file is refused. */
	mo.handle = self->a_secret.handle;
	ASSERT_EQ(0, mxa_ioctl(self->fa, DRM_IOCTL_MXA_BO_MMAP_OFFSET, &mo));
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, fc, mo.offset);
	EXPECT_EQ(MAP_FAILED, m);
	m = mmap(NULL, 4096, PROT_READ, MAP_SHARED, self->fb, mo.offset);
	EXPECT_EQ(MAP_FAILED, m);

	/* A's job ids cannot be waited on (or reaped) by B. */
	ASSERT_EQ(0, mxa_submit(self->fa, self->a_prog.handle, 0, 0,
				mxa_bytes(self->a_prog.map, mxa_put_nop(self->a_prog.map)), &id));
	EXPECT_EQ(-ENOENT, mxa_wait(self->fb, id, 0, NULL));
	EXPECT_EQ(0, mxa_wait(self->fa, id, 10 * SEC, NULL));
	close(fc);
	EXPECT_TRUE(secret_intact(&self->a_secret));
}

TEST_F(isolation, dma_buf_export_is_an_explicit_grant)
{
	struct drm_prime_handle exp = { .handle = self->a_secret.handle, .flags = DRM_CLOEXEC };
	struct drm_prime_handle imp = { 0 };
	struct drm_mxa_job_result r;
	uint32_t *start, *p;
	int ret;

	/* Guessing a dma-buf is guessing a file descriptor of another process: no. */
	imp.fd = 1000;
	EXPECT_NE(0, mxa_ioctl(self->fb, DRM_IOCTL_PRIME_FD_TO_HANDLE, &imp));

	ret = mxa_ioctl(self->fa, DRM_IOCTL_PRIME_HANDLE_TO_FD, &exp);
	TH_LOG("PRIME export of a BO: %d (%s)", ret, ret ? strerror(-ret) : "exported");
	if (ret)
		return;	/* no dma-buf export: nothing to hand over */
	/* B imports only because A gave it the fd. */
	imp.fd = exp.fd;
	ret = mxa_ioctl(self->fb, DRM_IOCTL_PRIME_FD_TO_HANDLE, &imp);
	TH_LOG("PRIME import in another file: %d", ret);
	close(exp.fd);
	/* Even then B's VM does not map A's VA: a job of B faults there. */
	start = p = self->b_prog.map;
	p = put_reg_load(p, 1, self->a_secret.va);
	ASSERT_EQ(0, run_b(self, start, p, &r));
	EXPECT_EQ(-EFAULT, r.status);
	if (!ret) {
		/* The imported handle is not a program B can run from A's VA either. */
		uint64_t id;

		ret = mxa_submit(self->fb, imp.handle, 0, 0, 4, &id);
		TH_LOG("submit from the imported handle: %d", ret);
		if (!ret) {
			ASSERT_EQ(0, mxa_wait(self->fb, id, 10 * SEC, &r));
			TH_LOG("  job status %d error %u addr %#llx", r.status, r.error,
			       (unsigned long long)r.err_addr);
		}
		mxa_gem_close(self->fb, imp.handle);
	}
	EXPECT_TRUE(secret_intact(&self->a_secret));
}

struct racer {
	int fd;
	uint32_t handle;
	uint32_t size;
	volatile int stop;
	int submitted, refused, other, last_other;
};

static void *submit_loop(void *arg)
{
	struct racer *rc = arg;
	uint64_t id;

	while (!rc->stop) {
		int ret = mxa_submit(rc->fd, rc->handle, 1, 0, rc->size, &id);

		if (!ret) {
			rc->submitted++;
			mxa_wait(rc->fd, id, 0, NULL);
		} else if (ret == -ENOENT) {
			rc->refused++;
		} else {
			rc->other++;
			rc->last_other = ret;
		}
	}
	return NULL;
}

TEST_F_TIMEOUT(isolation, close_racing_submit_never_hits_another_bo, 120)
{
	struct drm_mxa_job_result r;
	struct mxa_bo victim, fresh[4];
	struct racer rc = { .fd = self->fb };
	pthread_t tid;
	uint64_t id;
	uint32_t *p;
	int i, round, reused = 0;

	/*
	 * 7 rounds: one fewer than the driver's ban_faults (8). A round whose job ends
	 * before B's new BO takes the VA faults, and eight faults in a row would ban B's
	 * context (on the debug guest kernel, where BOs are made slowly, every round
	 * faults): the racing submits below would all get -ECANCELED.
	 */
	for (round = 0; round < 7; round++) {
		/* B: a long job that writes its own BO at the end; then B closes that BO. */
		ASSERT_EQ(0, mxa_bo_new(self->fb, 4096, &victim));
		memset(victim.map, 0, 4096);
		p = put_long(self->b_prog.map, 50000 + 20000 * round, victim.va, 0xdead0000 + round);
		ASSERT_EQ(0, mxa_submit(self->fb, self->b_prog.handle, round % 2, 0,
					mxa_bytes(self->b_prog.map, p), &id));
		mxa_bo_free(self->fb, &victim);	/* handle closed and unmapped, job running */
		/*
		 * Meanwhile A and B create BOs filled with patterns. A job pins only its
		 * program BO: the closed BO's pages and VA range are freed at once, and
		 * B's next BO may get that VA in B's VM, so the job writes B's own new
		 * BO (or faults). A's BOs, possibly on the freed pages, never change.
		 */
		for (i = 0; i < 4; i++) {
			ASSERT_EQ(0, mxa_bo_new(i % 2 ? self->fb : self->fa, 4096, &fresh[i]));
			memset(fresh[i].map, 0x11 * (i + 1), 4096);
		}
		ASSERT_EQ(0, mxa_wait(self->fb, id, 60 * SEC, &r));
		EXPECT_TRUE(r.status == 0 || r.status == -EFAULT) TH_LOG("status %d", r.status);
		for (i = 0; i < 4; i++) {
			uint8_t want = 0x11 * (i + 1);
			int j;

			for (j = 0; j < 4096; j++)
				if (((volatile uint8_t *)fresh[i].map)[j] != want)
					break;
			if (i % 2 == 0) {
				EXPECT_EQ(4096, j) TH_LOG("round %d: A's BO %d (va %#llx) changed at %d",
							   round, i, (unsigned long long)fresh[i].va, j);
			} else if (j < 4096) {
				reused++;
			}
			mxa_bo_free(i % 2 ? self->fb : self->fa, &fresh[i]);
		}
	}

	TH_LOG("B's job wrote B's own BO that reused the closed BO's VA in %d of 7 rounds",
	       reused);

	/* A thread closes and recreates the program BO while another submits from it. */
	ASSERT_EQ(0, mxa_bo_new(self->fb, 4096, &victim));
	rc.handle = victim.handle;
	rc.size = mxa_bytes(victim.map, mxa_put_fence(victim.map, victim.va + 2048, 1));
	ASSERT_EQ(0, pthread_create(&tid, NULL, submit_loop, &rc));
	for (i = 0; i < 200; i++) {
		struct drm_mxa_bo_create c = { .size = 4096 };

		mxa_gem_close(self->fb, rc.handle);
		ASSERT_EQ(0, mxa_ioctl(self->fb, DRM_IOCTL_MXA_BO_CREATE, &c));
		rc.handle = c.handle;	/* an empty BO: its program is a NOP... or zeros */
	}
	rc.stop = 1;
	pthread_join(tid, NULL);
	TH_LOG("racing submits: %d accepted, %d -ENOENT, %d other (the last %d)", rc.submitted,
	       rc.refused, rc.other, rc.last_other);
	EXPECT_EQ(0, rc.other);
	munmap(victim.map, victim.size);
	mxa_gem_close(self->fb, rc.handle);
	EXPECT_TRUE(secret_intact(&self->a_secret));
	/* A's file still works. */
	p = mxa_put_fence(self->a_prog.map, self->a_out.va, 0xa3);
	ASSERT_EQ(0, mxa_submit(self->fa, self->a_prog.handle, 1, 0,
				mxa_bytes(self->a_prog.map, p), &id));
	ASSERT_EQ(0, mxa_wait(self->fa, id, 30 * SEC, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(0xa3, *(volatile uint64_t *)self->a_out.map);
}

TEST_F_TIMEOUT(isolation, faulting_process_killed_others_continue, 60)
{
	/*
	 * B's process faults repeatedly and is killed with SIGKILL mid-job; A is unaffected.
	 * B tells (through a pipe) once its first job has ended with an MMU fault, so the
	 * kill comes after faults, with B's later jobs still queued or running.
	 */
	struct drm_mxa_job_result r;
	struct pollfd pfd;
	uint64_t id;
	uint32_t *p;
	int pipefd[2];
	char c = 0;
	pid_t pid;

	ASSERT_EQ(0, pipe(pipefd));
	pid = fork();
	if (pid == 0) {
		int fd = mxa_open(), i, told = 0;
		struct mxa_bo prog;

		close(pipefd[0]);
		if (fd < 0 || mxa_bo_new(fd, 4096, &prog))
			_exit(1);
		for (;;) {
			p = prog.map;
			for (i = 0; i < 8; i++)
				p = mxa_put_fence(p, self->a_secret.va + 8 * i, 0xbad);
			if (mxa_submit(fd, prog.handle, 0, 0, mxa_bytes(prog.map, p), &id) || told)
				continue;
			if (mxa_wait(fd, id, 30 * SEC, &r) == 0 &&
			    write(pipefd[1], r.status == -EFAULT ? "f" : "x", 1) == 1)
				told = 1;
		}
	}
	close(pipefd[1]);
	p = put_long(self->a_prog.map, 100000, self->a_out.va, 0xa4);
	ASSERT_EQ(0, mxa_submit(self->fa, self->a_prog.handle, 0, 0,
				mxa_bytes(self->a_prog.map, p), &id));
	pfd = (struct pollfd){ .fd = pipefd[0], .events = POLLIN };
	EXPECT_EQ(1, poll(&pfd, 1, 30000)) TH_LOG("B never reported its first job");
	EXPECT_EQ(1, read(pipefd[0], &c, 1));
	EXPECT_EQ('f', c) TH_LOG("B's first job did not fault");
	close(pipefd[0]);
	kill(pid, SIGKILL);
	waitpid(pid, NULL, 0);
	ASSERT_EQ(0, mxa_wait(self->fa, id, 60 * SEC, &r));
	EXPECT_EQ(0, r.status);
	EXPECT_EQ(0xa4, *(volatile uint64_t *)self->a_out.map);
	EXPECT_TRUE(secret_intact(&self->a_secret));
}

/*
 * One user cannot take every context of the device (found in review: all 1023 were one
 * user's to take): past max_contexts_per_user opens, open() fails with EDQUOT, and
 * another user (here root) still opens the device.
 */
TEST(one_user_cannot_take_every_context)
{
	char buf[32];
	long limit;
	struct stat st;
	int status, fd;
	pid_t pid;

	ASSERT_LT(0, mxa_read_text("/sys/module/mxa/parameters/max_contexts_per_user", buf,
				   sizeof(buf)));
	limit = strtol(buf, NULL, 10);
	ASSERT_LT(0, limit);
	ASSERT_GT(900, limit);
	ASSERT_EQ(0, stat(MXA_TEST_DEVICE, &st));
	ASSERT_EQ(0, chmod(MXA_TEST_DEVICE, 0666));
	pid = fork();
	ASSERT_LE(0, pid);
	if (pid == 0) {
		long i;

		if (setresgid(65534, 65534, 65534) || setresuid(65534, 65534, 65534))
			_exit(10);
		for (i = 0; i < limit; i++)
			if (mxa_open() < 0)
				_exit(11);
		if (mxa_open() >= 0 || errno != EDQUOT)
			_exit(12);
		_exit(0);
	}
	ASSERT_EQ(pid, waitpid(pid, &status, 0));
	chmod(MXA_TEST_DEVICE, st.st_mode & 07777);
	ASSERT_TRUE(WIFEXITED(status));
	EXPECT_EQ(0, WEXITSTATUS(status)) TH_LOG("10: setuid, 11: an open below the limit failed, 12: the open past it did not fail with EDQUOT");
	fd = mxa_open();
	EXPECT_LE(0, fd);
	close(fd);
}

TEST_HARNESS_MAIN
