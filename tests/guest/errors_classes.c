// SPDX-License-Identifier: MIT
/*
 * Guest kselftest "errors_classes": one check per class of error of
 * Documentation/errors.rst. Programs: a minimal malformed program per job error
 * (MXA_ERR_*) that user space can produce, with the error, the offset of the failing
 * command and the job status it must get. ioctls and io_uring commands: one bad
 * argument per row, with its errno. (Register-level errors, MXA_DEVERR_*, are the
 * device fuzzer's: only the driver touches registers.)
 */
#include "mxa_test.h"

#include <liburing.h>

#include "kselftest_harness.h"
#include "mxa_isa_table.h"
#include "../stress/mxa_counters.h"

#define SEC	NSEC_PER_SEC

FIXTURE(errors_classes) {
	int fd;
	struct drm_mxa_device_info info;
	struct mxa_bo prog, data;
};

FIXTURE_SETUP(errors_classes)
{
	self->fd = mxa_open();
	ASSERT_GE(self->fd, 0);
	ASSERT_EQ(0, mxa_query_device(self->fd, &self->info));
	ASSERT_EQ(0, mxa_bo_new(self->fd, 64 << 10, &self->prog));
	ASSERT_EQ(0, mxa_bo_new(self->fd, 64 << 10, &self->data));
	memset(self->data.map, 0, self->data.size);
}

FIXTURE_TEARDOWN(errors_classes)
{
	mxa_bo_free(self->fd, &self->data);
	mxa_bo_free(self->fd, &self->prog);
	close(self->fd);
}

/* ---- program classes ---- */

struct prog_case {
	const char *name;
	uint32_t error;		/* MXA_ERR_* */
	int status;		/* job status */
	uint32_t fail_dw;	/* dword offset of the failing command */
	uint32_t n;		/* dwords (0: up to the terminator) */
	uint32_t dw[24];
};

#define H(op, len, flags)	MXA_CMD_HEADER(op, len, flags)
#define DATA			0xda7a0000u	/* replaced by the data BO's VA (low, high) */
#define DATA_HI			0xda7a0001u
#define ANY			~0u		/* any failing offset */

static const struct prog_case prog_cases[] = {
	{ "unknown opcode", MXA_ERR_UNKNOWN_OPCODE, -EIO, 1, 2,
	  { H(MXA_OP_NOP, 1, 0), H(0x3f, 1, 0) } },
	{ "length 0", MXA_ERR_BAD_LENGTH, -EIO, 0, 1, { H(MXA_OP_NOP, 0, 0) } },
	{ "length wrong for the opcode", MXA_ERR_BAD_LENGTH, -EIO, 0, 4,
	  { H(MXA_OP_FENCE_WRITE, 4, 0), DATA, DATA_HI, 1 } },
	{ "command past the end", MXA_ERR_TRUNCATED, -EIO, 1, 3,
	  { H(MXA_OP_NOP, 1, 0), H(MXA_OP_FENCE_WRITE, 5, 0), DATA } },
	{ "reserved header flags", MXA_ERR_BAD_FLAGS, -EIO, 0, 1, { H(MXA_OP_NOP, 1, 0x8000) } },
	{ "misaligned fence address", MXA_ERR_MISALIGNED, -EIO, 0, 5,
	  { H(MXA_OP_FENCE_WRITE, 5, 0), DATA + 4, DATA_HI, 1, 0 } },
	{ "unmapped address", MXA_ERR_MMU_FAULT, -EFAULT, 0, 5,
	  { H(MXA_OP_FENCE_WRITE, 5, 0), 0x1000, 0, 1, 0 } },
	{ "SEM_WAIT timeout above the maximum", MXA_ERR_BAD_OPERAND, -EIO, 0, 6,
	  { H(MXA_OP_SEM_WAIT, 6, 0), DATA, DATA_HI, 1, 0, MXA_SEM_MAX_TIMEOUT_US + 1 } },
	{ "COPY larger than 64 MiB", MXA_ERR_TOO_LARGE, -EIO, 0, 7,
	  { H(MXA_OP_COPY, 7, 0), DATA, DATA_HI, DATA, DATA_HI, MXA_COPY_MAX_BYTES + 16, 0 } },
	{ "loop budget", MXA_ERR_LOOP_BUDGET, -EIO, ANY, 9,
	  { H(MXA_OP_LOOP, 3, 0), 1u << 14, 0, H(MXA_OP_LOOP, 3, 0), 1u << 14, 0,
	    H(MXA_OP_NOP, 1, 0), H(MXA_OP_ENDLOOP, 1, 0), H(MXA_OP_ENDLOOP, 1, 0) } },
	{ "ENDLOOP without LOOP", MXA_ERR_LOOP_NESTING, -EIO, 0, 1, { H(MXA_OP_ENDLOOP, 1, 0) } },
	{ "register 64 (past a31)", MXA_ERR_BAD_REGISTER, -EIO, 0, 4,
	  { H(MXA_OP_REG_SET, 4, 0), MXA_NUM_REGS, 1, 0 } },
	{ "semaphore never reached", MXA_ERR_SEM_TIMEOUT, -EIO, 0, 6,
	  { H(MXA_OP_SEM_WAIT, 6, 0), DATA, DATA_HI, 1, 0, 1000 } },
	{ "group class 5", MXA_ERR_BAD_CLASS, -EIO, 0, 1, { H(MXA_OP_COMMIT_GROUP, 1, 5) } },
	{ "tensor map of zeros", MXA_ERR_BAD_TENSOR_MAP, -EIO, 0, 12,
	  { H(MXA_OP_TMA_LOAD, 12, 0), DATA, DATA_HI, 0, 0 } },
	{ "SRAM offset past the end", MXA_ERR_SRAM_RANGE, -EIO, 0, 3,
	  { H(MXA_OP_MBAR_INIT, 3, 0), MXA_SRAM_SIZE, 1 } },
	{ "mbarrier not initialised", MXA_ERR_MBARRIER, -EIO, 0, 3,
	  { H(MXA_OP_MBAR_WAIT, 3, 0), 0, 0 } },
	{ "store of an empty tile", MXA_ERR_TILE, -EIO, 0, 8,
	  { H(MXA_OP_TILE_STORE, 8, MXA_TILE_F_GLOBAL), MXA_TILE(MXA_TILE_T, 0), 1, 16, DATA,
	    DATA_HI, 0, 0 } },
};

static int run_prog(FIXTURE_DATA(errors_classes) *self, const uint32_t *dw, uint32_t n,
		    struct drm_mxa_job_result *r)
{
	uint32_t *p = self->prog.map, i;
	uint64_t id;
	int ret;

	for (i = 0; i < n; i++) {
		if (dw[i] == DATA || dw[i] == DATA + 4)
			p[i] = (uint32_t)self->data.va + (dw[i] - DATA);
		else if (dw[i] == DATA_HI)
			p[i] = (uint32_t)(self->data.va >> 32);
		else
			p[i] = dw[i];
	}
	ret = mxa_submit(self->fd, self->prog.handle, 0, 0, n * 4, &id);
	return ret ?: mxa_wait(self->fd, id, 60 * SEC, r);
}

/* A new file and buffers: the old file's faults no longer count towards its ban. */
static int reopen(FIXTURE_DATA(errors_classes) *self)
{
	struct mxa_bo p = self->prog, d = self->data;

	close(self->fd);
	munmap(p.map, p.size);
	munmap(d.map, d.size);
	self->fd = mxa_open();
	if (self->fd < 0)
		return self->fd;
	return mxa_bo_new(self->fd, 64 << 10, &self->prog) ?:
	       mxa_bo_new(self->fd, 64 << 10, &self->data);
}

TEST_F_TIMEOUT(errors_classes, program_classes, 120)
{
	unsigned int i;

	for (i = 0; i < sizeof(prog_cases) / sizeof(prog_cases[0]); i++) {
		const struct prog_case *c = &prog_cases[i];
		struct drm_mxa_job_result r;

		memset(self->data.map, 0, 4096);
		ASSERT_EQ(0, run_prog(self, c->dw, c->n, &r)) TH_LOG("%s", c->name);
		EXPECT_EQ(c->status, r.status) TH_LOG("%s", c->name);
		EXPECT_EQ(c->error, r.error) TH_LOG("%s", c->name);
		if (c->fail_dw != ANY)
			EXPECT_EQ(c->fail_dw * 4, r.err_offset) TH_LOG("%s", c->name);
		if (i % 6 == 5)		/* stay below the fault-ban threshold */
			ASSERT_EQ(0, reopen(self));
	}
}

/*
 * The device checks every command of the ISA table against the table: one dword too
 * many is MXA_ERR_BAD_LENGTH, a header flag the command does not define
 * MXA_ERR_BAD_FLAGS (a class beyond the last MXA_ERR_BAD_CLASS), each naming the
 * command (offset, header) and the bad value (err_info).
 */
TEST_F_TIMEOUT(errors_classes, every_command_of_the_table_checks_length_and_flags, 120)
{
	unsigned int op, jobs = 0;

	for (op = 0; op < MXA_ISA_OPCODES; op++) {
		const struct mxa_isa_cmd *c = mxa_isa_lookup(op);
		uint32_t dw[40] = { H(MXA_OP_NOP, 1, 0) }, bad_flag = 0;
		struct drm_mxa_job_result r;

		if (!c)
			continue;
		dw[1] = H(op, c->dwords + 1, 0);
		ASSERT_EQ(0, run_prog(self, dw, 2 + c->dwords, &r));
		EXPECT_EQ(MXA_ERR_BAD_LENGTH, r.error) TH_LOG("%s", c->mnemonic);
		EXPECT_EQ(4, r.err_offset) TH_LOG("%s", c->mnemonic);
		EXPECT_EQ(dw[1], r.err_opcode) TH_LOG("%s", c->mnemonic);
		EXPECT_EQ(c->dwords + 1, r.err_info) TH_LOG("%s", c->mnemonic);

		if (c->attrs & MXA_ISA_A_CLASS)
			bad_flag = MXA_GROUP_CLASSES;
		else
			while (c->flags & (1u << bad_flag))
				bad_flag++;
		if (!(c->attrs & MXA_ISA_A_CLASS))
			bad_flag = 1u << bad_flag;
		memset(&dw[1], 0, sizeof(dw) - 4);
		dw[1] = H(op, c->dwords, bad_flag);
		ASSERT_EQ(0, run_prog(self, dw, 1 + c->dwords, &r));
		EXPECT_EQ(c->attrs & MXA_ISA_A_CLASS ? MXA_ERR_BAD_CLASS : MXA_ERR_BAD_FLAGS, r.error)
			TH_LOG("%s flags 0x%x", c->mnemonic, bad_flag);
		EXPECT_EQ(4, r.err_offset) TH_LOG("%s", c->mnemonic);
		EXPECT_EQ(bad_flag, r.err_info) TH_LOG("%s", c->mnemonic);
		jobs += 2;
		if (jobs % 6 == 0)	/* stay below the fault-ban threshold */
			ASSERT_EQ(0, reopen(self));
	}
	EXPECT_LT(40, jobs);
}

TEST_F(errors_classes, gemm_fp8_k_not_multiple_of_64)
{
	struct mxa_isa_gemm g = {
		.m = 16, .n = 16, .k = 32, .type_a = MXA_DTYPE_E4M3, .type_b = MXA_DTYPE_E4M3,
		.type_c = MXA_DTYPE_F32, .type_d = MXA_DTYPE_F32, .scale_block = 32,
	};
	struct drm_mxa_job_result r;
	uint32_t dw[MXA_GEMM_DWORDS];

	g.a = g.b = g.scale_a = g.scale_b = self->data.va;
	g.c = g.d = self->data.va + 8192;
	dw[0] = MXA_CMD_HEADER(MXA_OP_GEMM, MXA_GEMM_DWORDS, 0);
	memcpy(&dw[1], &g, sizeof(g));
	ASSERT_EQ(0, run_prog(self, dw, MXA_GEMM_DWORDS, &r));
	EXPECT_EQ(-EIO, r.status);
	EXPECT_EQ(MXA_ERR_K_ALIGN, r.error);
}

TEST_F_TIMEOUT(errors_classes, hung_job_aborted_by_the_timeout, 60)
{
	static const uint32_t hang[] = { H(MXA_OP_SEM_WAIT, 6, 0), DATA, DATA_HI, 1, 0,
					 MXA_SEM_MAX_TIMEOUT_US };
	struct drm_mxa_job_result r = { 0 };
	char dir[512];
	int old;

	if (mxa_debugfs_dir(MXA_TEST_DEVICE, dir, sizeof(dir)) ||
	    (old = mxa_get_job_timeout(dir)) < 0)
		SKIP(return, "no debugfs job_timeout_ms");
	ASSERT_EQ(0, mxa_set_job_timeout(dir, 300));
	ASSERT_EQ(0, run_prog(self, hang, 6, &r));
	mxa_set_job_timeout(dir, old);
	EXPECT_EQ(-ETIMEDOUT, r.status);
	EXPECT_EQ(MXA_ERR_ABORTED, r.error);
}

/* ---- ioctl classes ---- */

TEST_F(errors_classes, ioctl_classes)
{
	struct drm_mxa_submit s = {
		.prog_handle = self->prog.handle, .prog_size = 4,
	};
	struct drm_mxa_wait w = { 0 };
	struct drm_mxa_commit_group cg = { 0 };
	struct drm_mxa_wait_group wg = { 0 };
	struct drm_mxa_query q = { .type = DRM_MXA_QUERY_DEVICE };
	struct drm_mxa_bo_create bc = { .size = 4096 };
	struct drm_mxa_bo_mmap_offset mo = { .handle = self->prog.handle };
	struct drm_mxa_vm_bind vb = { .op = DRM_MXA_VM_BIND_OP_MAP, .handle = self->data.handle,
				      .size = 4096 };
	uint64_t va_free = self->info.va_end - (16 << 20), buf[8] = { 0 };

	*(uint32_t *)self->prog.map = MXA_CMD_HEADER(MXA_OP_NOP, 1, 0);
#define BAD(req, arg, field, value, err)					\
	do {									\
		typeof(arg) _a = (arg);						\
		_a.field = (value);						\
		EXPECT_EQ(err, mxa_ioctl(self->fd, req, &_a)) TH_LOG(#req " " #field " = " #value); \
	} while (0)
	/* argument not valid for the ioctl: -EINVAL */
	BAD(DRM_IOCTL_MXA_QUERY, q, type, 7, -EINVAL);
	BAD(DRM_IOCTL_MXA_BO_CREATE, bc, size, 0, -EINVAL);
	BAD(DRM_IOCTL_MXA_BO_CREATE, bc, flags, 1, -EINVAL);
	BAD(DRM_IOCTL_MXA_BO_CREATE, bc, size, self->info.max_bo_size + 4096, -EINVAL);
	BAD(DRM_IOCTL_MXA_BO_MMAP_OFFSET, mo, pad, 1, -EINVAL);
	BAD(DRM_IOCTL_MXA_SUBMIT, s, flags, 1u << 31, -EINVAL);
	BAD(DRM_IOCTL_MXA_SUBMIT, s, queue, self->info.num_queues, -EINVAL);
	BAD(DRM_IOCTL_MXA_SUBMIT, s, prog_size, 0, -EINVAL);
	BAD(DRM_IOCTL_MXA_SUBMIT, s, prog_size, 6, -EINVAL);
	BAD(DRM_IOCTL_MXA_SUBMIT, s, prog_offset, 2, -EINVAL);
	BAD(DRM_IOCTL_MXA_SUBMIT, s, prog_offset, 64 << 10, -EINVAL);
	BAD(DRM_IOCTL_MXA_SUBMIT, s, result_size, 48, -EINVAL);
	BAD(DRM_IOCTL_MXA_WAIT, w, timeout_ns, -1, -EINVAL);
	BAD(DRM_IOCTL_MXA_WAIT, w, flags, 1, -EINVAL);
	BAD(DRM_IOCTL_MXA_WAIT, w, pad, 1, -EINVAL);
	BAD(DRM_IOCTL_MXA_COMMIT_GROUP, cg, queue, ~0u, -EINVAL);
	BAD(DRM_IOCTL_MXA_COMMIT_GROUP, cg, flags, 1, -EINVAL);
	BAD(DRM_IOCTL_MXA_WAIT_GROUP, wg, queue, self->info.num_queues, -EINVAL);
	BAD(DRM_IOCTL_MXA_WAIT_GROUP, wg, timeout_ns, -5, -EINVAL);
	BAD(DRM_IOCTL_MXA_WAIT_GROUP, wg, pad, 1, -EINVAL);
	if (self->info.driver_caps & DRM_MXA_DRIVER_CAP_VM_BIND) {
		vb.va = va_free;
		BAD(DRM_IOCTL_MXA_VM_BIND, vb, op, 9, -EINVAL);
		BAD(DRM_IOCTL_MXA_VM_BIND, vb, va, va_free + 8, -EINVAL);
		BAD(DRM_IOCTL_MXA_VM_BIND, vb, size, 0, -EINVAL);
		BAD(DRM_IOCTL_MXA_VM_BIND, vb, bo_offset, 64 << 10, -EINVAL);
		BAD(DRM_IOCTL_MXA_VM_BIND, vb, va, self->info.va_end, -EINVAL);
		/* overlapping an existing mapping: -EEXIST */
		BAD(DRM_IOCTL_MXA_VM_BIND, vb, va, self->data.va, -EEXIST);
		/* unknown handle, or unmapping what is not mapped: -ENOENT */
		BAD(DRM_IOCTL_MXA_VM_BIND, vb, handle, 0x7777, -ENOENT);
		vb.op = DRM_MXA_VM_BIND_OP_UNMAP;
		vb.handle = 0;
		BAD(DRM_IOCTL_MXA_VM_BIND, vb, va, va_free, -ENOENT);
	}
	/* unknown object: -ENOENT */
	BAD(DRM_IOCTL_MXA_BO_MMAP_OFFSET, mo, handle, 0x7777, -ENOENT);
	BAD(DRM_IOCTL_MXA_SUBMIT, s, prog_handle, 0x7777, -ENOENT);
	BAD(DRM_IOCTL_MXA_WAIT, w, job_id, ~0ull, -ENOENT);
	/* a user pointer that cannot be written: -EFAULT */
	q.size = sizeof(struct drm_mxa_device_info);
	BAD(DRM_IOCTL_MXA_QUERY, q, pointer, 0x10, -EFAULT);
	/* GEM_CLOSE of an unknown handle: -EINVAL (DRM core) */
	EXPECT_EQ(-EINVAL, mxa_gem_close(self->fd, 0x7777));
	/* ioctl numbers: past the driver's table -EINVAL; not DRM -ENOTTY */
	EXPECT_EQ(-EINVAL, mxa_ioctl(self->fd, DRM_IOWR(DRM_COMMAND_BASE + 0x3f, uint64_t[8]), buf));
	EXPECT_EQ(-ENOTTY, mxa_ioctl(self->fd, _IOWR('x', 1, uint64_t), buf));
#undef BAD
}

TEST_F(errors_classes, wait_and_wait_group_expire_with_etime)
{
	static const uint32_t hang[] = { H(MXA_OP_SEM_WAIT, 6, 0), DATA, DATA_HI, 1, 0, 200000 };
	struct drm_mxa_wait_group wg = { .queue = 1, .n = 0, .timeout_ns = 1000000 };
	struct drm_mxa_commit_group cg = { .queue = 1 };
	struct drm_mxa_job_result r = { 0 };
	uint32_t *p = self->prog.map, i;
	uint64_t id;

	for (i = 0; i < 6; i++)
		p[i] = hang[i] == DATA ? (uint32_t)self->data.va :
		       hang[i] == DATA_HI ? (uint32_t)(self->data.va >> 32) : hang[i];
	ASSERT_EQ(0, mxa_submit(self->fd, self->prog.handle, 1, 0, 24, &id));
	ASSERT_EQ(0, mxa_ioctl(self->fd, DRM_IOCTL_MXA_COMMIT_GROUP, &cg));
	EXPECT_EQ(-ETIME, mxa_wait(self->fd, id, 1000000, &r));
	EXPECT_EQ(-ETIME, mxa_ioctl(self->fd, DRM_IOCTL_MXA_WAIT_GROUP, &wg));
	*(volatile uint64_t *)self->data.map = 1;	/* release it */
	EXPECT_EQ(0, mxa_wait(self->fd, id, 30 * SEC, &r));
	EXPECT_EQ(0, r.status);
}

static struct io_uring_sqe *cmd_sqe(struct io_uring *ring, int fd, uint32_t cmd_op,
				    uint64_t user_data)
{
	struct io_uring_sqe *sqe = io_uring_get_sqe(ring);

	memset(sqe, 0, (ring->flags & IORING_SETUP_SQE128) ? 2 * sizeof(*sqe) : sizeof(*sqe));
	sqe->opcode = IORING_OP_URING_CMD;
	sqe->fd = fd;
	sqe->cmd_op = cmd_op;
	sqe->user_data = user_data;
	return sqe;
}

TEST_F(errors_classes, uring_classes)
{
	struct io_uring ring;
	struct io_uring_params p = { 0 };
	struct io_uring_cqe *cqe;
	struct io_uring_sqe *sqe;
	struct drm_mxa_submit s = { .prog_handle = 0x7777, .prog_size = 4 };

	/* A ring without SQE128/CQE32: -EINVAL. */
	ASSERT_EQ(0, io_uring_queue_init_params(4, &ring, &p));
	cmd_sqe(&ring, self->fd, MXA_URING_CMD_SUBMIT, 0);
	ASSERT_EQ(1, io_uring_submit(&ring));
	ASSERT_EQ(0, io_uring_wait_cqe(&ring, &cqe));
	EXPECT_EQ(-EINVAL, cqe->res);
	io_uring_cqe_seen(&ring, cqe);
	io_uring_queue_exit(&ring);

	p = (struct io_uring_params){ .flags = IORING_SETUP_SQE128 | IORING_SETUP_CQE32 };
	ASSERT_EQ(0, io_uring_queue_init_params(4, &ring, &p));
	/* Unknown cmd_op: -EOPNOTSUPP. Unknown handle: the ioctl's -ENOENT. */
	cmd_sqe(&ring, self->fd, 0x77, 1);
	sqe = cmd_sqe(&ring, self->fd, MXA_URING_CMD_SUBMIT, 2);
	memcpy(sqe->cmd, &s, sizeof(s));
	ASSERT_EQ(2, io_uring_submit(&ring));
	for (int i = 0; i < 2; i++) {
		ASSERT_EQ(0, io_uring_wait_cqe(&ring, &cqe));
		EXPECT_EQ(cqe->user_data == 1 ? -EOPNOTSUPP : -ENOENT, cqe->res)
			TH_LOG("command %llu", (unsigned long long)cqe->user_data);
		io_uring_cqe_seen(&ring, cqe);
	}
	io_uring_queue_exit(&ring);
}

/*
 * Core DRM ioctls that assume a drm_master (GET_MAGIC, GET_UNIQUE, SET_MASTER, ...)
 * oopsed the 6.12 DRM core on an accel node; global GEM names would bypass per-file
 * isolation. mxa.ko answers them with -EACCES and keeps the ones an accel client needs.
 */
TEST_F(errors_classes, core_ioctls_refused_or_allowed)
{
	char buf[256] = { 0 };
	struct drm_version v = { 0 };
	struct drm_get_cap cap = { .capability = DRM_CAP_SYNCOBJ };
	static const unsigned long refused[] = {
		DRM_IOCTL_GET_MAGIC, DRM_IOCTL_GET_UNIQUE, DRM_IOCTL_SET_MASTER,
		DRM_IOCTL_DROP_MASTER, DRM_IOCTL_AUTH_MAGIC, DRM_IOCTL_GEM_FLINK,
		DRM_IOCTL_GEM_OPEN, DRM_IOCTL_SET_VERSION, DRM_IOCTL_GET_CLIENT,
	};

	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		memset(buf, 0, sizeof(buf));
		errno = 0;
		EXPECT_EQ(-1, ioctl(self->fd, refused[i], buf));
		EXPECT_EQ(EACCES, errno) {
			TH_LOG("core ioctl nr 0x%lx: errno %d", _IOC_NR(refused[i]), errno);
		}
	}
	ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_VERSION, &v));
	ASSERT_EQ(0, ioctl(self->fd, DRM_IOCTL_GET_CAP, &cap));
	EXPECT_EQ(1, cap.value);
	/* the device keeps working */
	ASSERT_EQ(0, mxa_query_device(self->fd, &self->info));
}

/*
 * ioctl() through the i386 system call gate (int 0x80), as a 32-bit process makes it:
 * the kernel calls the driver's compat_ioctl. Arguments must lie below 4 GiB. Returns
 * the raw result: >= 0, or -errno.
 */
static long ioctl32(int fd, unsigned int cmd, uint32_t arg)
{
	long ret;

	__asm__ volatile("int $0x80"
			 : "=a"(ret)
			 : "a"(54L /* __NR_ioctl, i386 */), "b"((long)fd), "c"((long)cmd),
			   "d"((long)arg)
			 : "memory", "r8", "r9", "r10", "r11");
	return ret;
}

/*
 * The DRM core dispatches on the ioctl number alone (native and compat alike): a command
 * of another type with a core number, or one from a 32-bit process, must meet the same
 * filter (found in review: _IOWR('x', 0x01, drm_unique32_t) from a 32-bit caller reached
 * drm_getunique() without a master, an oops leaving master_mutex held).
 */
TEST_F(errors_classes, core_ioctls_refused_by_number_and_from_32_bit)
{
	struct { uint32_t len, unique; } *u32arg;
	struct { int32_t major, minor, patch; uint32_t name_len, name, date_len, date,
		 desc_len, desc; } *v32;
	char *low;

	low = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_32BIT,
		   -1, 0);
	ASSERT_NE(MAP_FAILED, low);
	ASSERT_GT(1ul << 32, (unsigned long)low);
	memset(low, 0, 4096);
	u32arg = (void *)low;
	v32 = (void *)(low + 64);
	/* a 32-bit caller: a core number under another type, and the core ioctl itself */
	EXPECT_GT(0, ioctl32(self->fd, _IOWR('x', 0x01, *u32arg), (uint32_t)(uintptr_t)u32arg));
	EXPECT_GT(0, ioctl32(self->fd, _IOWR('d', 0x01, *u32arg), (uint32_t)(uintptr_t)u32arg));
	EXPECT_EQ(-EACCES, ioctl32(self->fd, _IOWR('d', 0x02, *u32arg), (uint32_t)(uintptr_t)u32arg));
	/* a 64-bit caller, another type with a core number */
	errno = 0;
	EXPECT_EQ(-1, ioctl(self->fd, _IOWR('x', 0x01, struct drm_unique), low));
	EXPECT_NE(0, errno);
	/* what an accel client needs still works from 32-bit: DRM_IOCTL_VERSION */
	EXPECT_EQ(0, ioctl32(self->fd, _IOWR('d', 0x00, *v32), (uint32_t)(uintptr_t)v32));
	EXPECT_EQ(MXA_UAPI_VERSION_MAJOR, v32->major);
	/* and the device still works (no oops, no lock left held) */
	ASSERT_EQ(0, mxa_query_device(self->fd, &self->info));
	munmap(low, 4096);
}

/* The device's host-memory budget for operands, MiB (sysfs mxa/host_mem_mb); -1 unread. */
static long host_mem_mb(void)
{
	char buf[32];

	if (mxa_read_text("/sys/class/accel/accel0/device/mxa/host_mem_mb", buf, sizeof(buf)) <= 0)
		return -1;
	return strtol(buf, NULL, 10);
}

/* Run one GEMM command @g from @prog on @fd; the job's result in *@r. */
static int gemm_job(int fd, struct mxa_bo *prog, const struct mxa_isa_gemm *g,
		    struct drm_mxa_job_result *r)
{
	uint32_t *p = prog->map;
	uint64_t id;
	int ret;

	*p++ = MXA_CMD_HEADER(MXA_OP_GEMM, MXA_GEMM_DWORDS, 0);
	memcpy(p, g, sizeof(*g));
	p += MXA_GEMM_ARGS_DWORDS;
	ret = mxa_submit(fd, prog->handle, 0, 0, mxa_bytes(prog->map, p), &id);
	return ret ? ret : mxa_wait(fd, id, 60 * NSEC_PER_SEC, r);
}

/*
 * The device stages GEMM operands in host memory, all queues together within its
 * budget (max-host-mem-mb, sysfs mxa/host_mem_mb). Found in review: aliased operands on
 * every queue took QEMU to tens of GiB. Beyond the budget the job fails with
 * MXA_ERR_NO_MEMORY, err_info MXA_NOMEM_BUDGET, the operand's VA; the device keeps
 * working. This guest cannot stage more than the default 4 GiB, so run-check.sh boots
 * one with -device mxa,max-host-mem-mb=64 for it (and fails if it did not run there).
 */
TEST_F(errors_classes, gemm_beyond_the_host_memory_budget)
{
	const uint32_t m = 2048, n = 2048, k = 8192;	/* A, B 32 MiB (bf16), D 16 MiB */
	struct mxa_isa_gemm g = {
		.m = m, .n = n, .k = k, .type_a = MXA_DTYPE_BF16, .type_b = MXA_DTYPE_BF16,
		.type_c = MXA_DTYPE_F32, .type_d = MXA_DTYPE_F32,
		.accum = MXA_GEMM_ACCUM_FAST,
	};
	struct drm_mxa_job_result r;
	struct mxa_bo ops, prog;
	long budget = host_mem_mb();

	ASSERT_LT(0, budget);
	if (budget >= 80)
		SKIP(return, "budget %ld MiB: the 80 MiB of operands fit (the max-host-mem-mb=64 boot runs this)",
		     budget);
	ASSERT_EQ(0, mxa_bo_new(self->fd, 32 << 20, &ops));
	ASSERT_EQ(0, mxa_bo_new(self->fd, 4096, &prog));
	g.a = g.b = ops.va;			/* aliased: the budget counts each staging */
	g.d = ops.va;
	ASSERT_EQ(0, gemm_job(self->fd, &prog, &g, &r));
	EXPECT_EQ(-EIO, r.status);
	EXPECT_EQ(MXA_ERR_NO_MEMORY, r.error);
	EXPECT_EQ(MXA_NOMEM_BUDGET, r.err_info);
	EXPECT_EQ(ops.va, r.err_addr);
	/* within the budget the same operands work: a quarter of the rows */
	g.m = g.n = 512;
	ASSERT_EQ(0, gemm_job(self->fd, &prog, &g, &r));
	EXPECT_EQ(0, r.status) TH_LOG("error %u info %u", r.error, r.err_info);
	mxa_bo_free(self->fd, &prog);
	mxa_bo_free(self->fd, &ops);
}

/*
 * NVFP4 operands are expanded to BF16 by the engine (four times their bytes): the device
 * counts that in the same budget. With the budget at 64 MiB, 2048 x 2048 x 12288 NVFP4
 * (43 MiB of operands) would expand to 96 MiB: MXA_ERR_NO_MEMORY, MXA_NOMEM_BUDGET,
 * address 0 (no operand's); 512 x 512 x 12288 (24 MiB expanded) runs, and the budget is
 * whole again after it, twice.
 */
TEST_F(errors_classes, nvfp4_expansion_counts_in_the_budget)
{
	struct mxa_isa_gemm g = {
		.m = 2048, .n = 2048, .k = 12288, .type_a = MXA_DTYPE_NVFP4,
		.type_b = MXA_DTYPE_NVFP4, .type_c = MXA_DTYPE_F32, .type_d = MXA_DTYPE_F32,
		.scale_block = MXA_NVFP4_BLOCK, .accum = MXA_GEMM_ACCUM_FAST,
	};
	struct drm_mxa_job_result r;
	struct mxa_bo ops, prog;
	long budget = host_mem_mb();

	ASSERT_LT(0, budget);
	if (budget >= 96)
		SKIP(return, "budget %ld MiB: the 96 MiB fit (the max-host-mem-mb=64 boot runs this)",
		     budget);
	ASSERT_EQ(0, mxa_bo_new(self->fd, 28 << 20, &ops));
	ASSERT_EQ(0, mxa_bo_new(self->fd, 4096, &prog));
	memset(ops.map, 0x22, 28 << 20);	/* E2M1 1.0; scales 0x22: 0.3125 */
	g.a = g.b = ops.va;
	g.scale_a = g.scale_b = ops.va + (12 << 20);
	g.d = ops.va + (12 << 20);
	for (int round = 0; round < 2; round++) {
		g.m = g.n = 2048;
		ASSERT_EQ(0, gemm_job(self->fd, &prog, &g, &r));
		EXPECT_EQ(-EIO, r.status);
		EXPECT_EQ(MXA_ERR_NO_MEMORY, r.error);
		EXPECT_EQ(MXA_NOMEM_BUDGET, r.err_info);
		EXPECT_EQ(0, r.err_addr);
		g.m = g.n = 512;
		ASSERT_EQ(0, gemm_job(self->fd, &prog, &g, &r));
		EXPECT_EQ(0, r.status) TH_LOG("error %u info %u", r.error, r.err_info);
	}
	mxa_bo_free(self->fd, &prog);
	mxa_bo_free(self->fd, &ops);
}

/*
 * A GEMV (M <= 32, narrow weights, EXACT numerics) streams its weights once: the
 * device reads them in place from guest memory (the engine's GEMV path) instead of
 * staging a copy, so weights beyond the staging budget work. With the budget at 64
 * MiB: 80 MiB of MXFP4 weights (and 5 MiB of scales) against one BF16 row give the
 * exact sums, in EXACT and in FAST numerics, and the same operands as a GEMM that
 * stages them (interwave) still fail with MXA_NOMEM_BUDGET at B's VA.
 */
TEST_F(errors_classes, gemv_weights_beyond_the_budget_are_read_in_place)
{
	const uint32_t n = 16384, k = 10240;
	const size_t wbytes = (size_t)n * k / 2, sbytes = (size_t)n * k / 32;
	struct mxa_isa_gemm g = {
		.m = 1, .n = n, .k = k, .type_a = MXA_DTYPE_BF16, .type_b = MXA_DTYPE_E2M1,
		.type_c = MXA_DTYPE_F32, .type_d = MXA_DTYPE_F32, .scale_block = 32,
	};
	struct drm_mxa_job_result r;
	struct mxa_bo w, ad, prog;
	uint16_t *a;
	float *d;
	long budget = host_mem_mb();
	size_t bad = 0;

	ASSERT_LT(0, budget);
	if (budget >= 80)
		SKIP(return, "budget %ld MiB: 80 MiB of weights fit anyway (the max-host-mem-mb=64 boot runs this)",
		     budget);
	ASSERT_EQ(0, mxa_bo_new(self->fd, wbytes + sbytes, &w));
	ASSERT_EQ(0, mxa_bo_new(self->fd, 1 << 20, &ad));
	ASSERT_EQ(0, mxa_bo_new(self->fd, 4096, &prog));
	memset(w.map, 0x22, wbytes);			/* E2M1 1.0, 1.0 */
	memset((char *)w.map + wbytes, 127, sbytes);	/* scale 1 */
	a = ad.map;
	for (uint32_t i = 0; i < k; i++)
		a[i] = 0x3f80;				/* BF16 1.0 */
	d = (float *)((char *)ad.map + (512 << 10));
	memset(d, 0x5a, (size_t)n * 4);
	g.a = ad.va;
	g.b = w.va;
	g.scale_b = w.va + wbytes;
	g.d = ad.va + (512 << 10);
	ASSERT_EQ(0, gemm_job(self->fd, &prog, &g, &r));
	EXPECT_EQ(0, r.status) TH_LOG("error %u info %u at %#llx", r.error, r.err_info,
				      (unsigned long long)r.err_addr);
	for (uint32_t j = 0; j < n; j++)
		bad += d[j] != (float)k;
	EXPECT_EQ(0, bad) TH_LOG("D[0] = %g, want %u", d[0], k);
	/* FAST numerics have a GEMV kernel too: in place, the same exact sums */
	g.accum = MXA_GEMM_ACCUM_FAST;
	memset(d, 0x5a, (size_t)n * 4);
	ASSERT_EQ(0, gemm_job(self->fd, &prog, &g, &r));
	EXPECT_EQ(0, r.status) TH_LOG("FAST: error %u info %u", r.error, r.err_info);
	bad = 0;
	for (uint32_t j = 0; j < n; j++)
		bad += d[j] != (float)k;
	EXPECT_EQ(0, bad);
	/* staged (interwave is a strategy of its own, not the GEMV path's): beyond the budget */
	g.accum = MXA_GEMM_ACCUM_EXACT;
	g.sched = MXA_GEMM_SCHED_INTERWAVE;
	ASSERT_EQ(0, gemm_job(self->fd, &prog, &g, &r));
	EXPECT_EQ(MXA_ERR_NO_MEMORY, r.error);
	EXPECT_EQ(MXA_NOMEM_BUDGET, r.err_info);
	EXPECT_EQ(w.va, r.err_addr);
	mxa_bo_free(self->fd, &prog);
	mxa_bo_free(self->fd, &ad);
	mxa_bo_free(self->fd, &w);
}

TEST_HARNESS_MAIN
