/* SPDX-License-Identifier: MIT */
/*
 * libaccel - userspace library for the MXA matrix accelerator (/dev/accel/accelN).
 *
 * The whole API is this one header (as liburing.h is), which makes it longer than
 * 1,000 lines: a program includes one file, and the man pages follow its sections.
 *
 * Conventions:
 *  - Handles are opaque. A device handle and everything made from it (buffers,
 *    jobs) are not thread-safe: use one device handle per thread.
 *  - Functions that can fail return 0 or a negative errno (-EINVAL, -ENOMEM, ...);
 *    accel_strerror() turns it into text. Nothing sets errno for you to read.
 *  - Device VAs are 64-bit addresses in the device VM of the device handle; every
 *    buffer is mapped there at allocation (accel_bo_va()).
 *
 * Typical use:
 *
 *	struct accel_device *dev;
 *	struct accel_bo *bo;
 *	struct accel_prog *prog;
 *	struct accel_job *job;
 *
 *	accel_open(NULL, ACCEL_SUBMIT_AUTO, &dev);
 *	accel_bo_alloc(dev, 4096, &bo);
 *	accel_prog_new(&prog);
 *	accel_prog_fence_write(prog, accel_bo_va(bo) + 2048, 42);
 *	accel_prog_upload(prog, bo, 0);
 *	accel_submit(dev, 0, bo, 0, accel_prog_size(prog), &job);
 *	accel_wait(job, -1);
 *	if (accel_job_result(job)->status) { char s[256];
 *		accel_job_explain(accel_job_result(job), s, sizeof(s)); puts(s); }
 *	accel_job_free(job); accel_prog_free(prog); accel_bo_free(bo); accel_close(dev);
 *
 * Documented in Documentation/libaccel.rst.
 */
#ifndef ACCEL_H
#define ACCEL_H

#include <stddef.h>
#include <stdint.h>

/* The ISA: element types, command flags, tile operands, tensor maps (installed beside). */
#include "mxa_isa.h"

#ifdef __cplusplus
extern "C" {
#endif

#define ACCEL_DEFAULT_DEVICE	"/dev/accel/accel0"

struct accel_device;
struct accel_bo;
struct accel_prog;
struct accel_job;

/* ---- device ---------------------------------------------------------------- */

/**
 * enum accel_submit_mode - how jobs reach the kernel.
 * @ACCEL_SUBMIT_AUTO: io_uring (IORING_OP_URING_CMD) when it can be set up, else
 *	ioctl. The environment variable ACCEL_SUBMIT=uring|ioctl overrides AUTO.
 * @ACCEL_SUBMIT_URING: io_uring only; accel_open() fails if it cannot be set up.
 * @ACCEL_SUBMIT_IOCTL: DRM_IOCTL_MXA_SUBMIT and DRM_IOCTL_MXA_WAIT.
 */
enum accel_submit_mode {
	ACCEL_SUBMIT_AUTO = 0,
	ACCEL_SUBMIT_URING = 1,
	ACCEL_SUBMIT_IOCTL = 2,
};

/**
 * struct accel_device_info - what the device and driver report.
 * @driver_name, @driver_desc: from the DRM version ioctl ("mxa").
 * @uapi_major, @uapi_minor: the driver's uAPI version.
 * @hw_major, @hw_minor: the device's version.
 * @num_queues: hardware queues. Queue arguments are queue ids: 0 .. num_queues - 1 are
 *              the device handle's default queues, one per hardware queue; more come
 *              from accel_queue_create().
 * @num_cores: the device's cores: a grid (accel_submit_grid()) runs its instances on
 *              them, a cluster has at most this many.
 * @num_engine_threads: host threads of the device's matrix engine (0 from drivers
 *              older than uAPI 0.5).
 * @caps: MXA_CAP_* bits (uapi/mxa_regs.h).
 * @va_start, @va_end: the device VA range buffers are mapped in.
 * @max_bo_size: largest buffer accel_bo_alloc() can get.
 * @driver_caps: DRM_MXA_DRIVER_CAP_* bits of the driver (uapi/drm/mxa_accel.h).
 */
struct accel_device_info {
	char driver_name[32];
	char driver_desc[64];
	uint32_t uapi_major, uapi_minor;
	uint32_t hw_major, hw_minor;
	uint32_t num_queues;
	uint32_t num_cores;
	uint32_t num_engine_threads;
	uint64_t caps;
	uint64_t va_start, va_end;
	uint64_t max_bo_size;
	uint64_t driver_caps;
};

/**
 * accel_open() - open an MXA device.
 * @path: device node, or NULL for $ACCEL_DEVICE or else ACCEL_DEFAULT_DEVICE.
 * @mode: submission path (see enum accel_submit_mode).
 * @devp: out: the device handle.
 *
 * Return: 0; -ENOENT/-EACCES/... from open(); -ENODEV if the node is not an MXA
 * device; -EOPNOTSUPP if the driver's uAPI major version differs; for
 * ACCEL_SUBMIT_URING, the io_uring setup error.
 */
int accel_open(const char *path, enum accel_submit_mode mode, struct accel_device **devp);

/** accel_close() - wait for the device handle's jobs, free it. NULL is ignored. */
void accel_close(struct accel_device *dev);

/** accel_device_info() - the device's description (valid until accel_close()). */
const struct accel_device_info *accel_device_info(const struct accel_device *dev);

/** accel_submit_mode() - the path in use: ACCEL_SUBMIT_URING or ACCEL_SUBMIT_IOCTL. */
enum accel_submit_mode accel_submit_mode(const struct accel_device *dev);

/** accel_submit_mode_name() - "uring", "ioctl" or "auto". */
const char *accel_submit_mode_name(enum accel_submit_mode mode);

/** accel_device_fd() - the accel file descriptor (for poll() or the raw ioctls). */
int accel_device_fd(const struct accel_device *dev);

/* ---- buffers ---------------------------------------------------------------- */

/**
 * accel_bo_alloc() - allocate a buffer, mapped in the device VM and in this process.
 * @dev: the device.
 * @size: bytes (rounded up to 4 KiB pages by the driver).
 * @bop: out: the buffer; its memory is zeroed.
 *
 * Return: 0, -EINVAL (size 0 or above max_bo_size), -ENOMEM, -ENOSPC (device VM full).
 */
int accel_bo_alloc(struct accel_device *dev, size_t size, struct accel_bo **bop);

/**
 * accel_bo_free() - unmap and release a buffer. NULL is ignored. Jobs already
 * submitted that use it keep it alive in the kernel until they end.
 */
void accel_bo_free(struct accel_bo *bo);

/** accel_bo_map() - the buffer's CPU address. */
void *accel_bo_map(const struct accel_bo *bo);
/** accel_bo_va() - the buffer's device VA. */
uint64_t accel_bo_va(const struct accel_bo *bo);
/** accel_bo_size() - the buffer's size (after rounding). */
size_t accel_bo_size(const struct accel_bo *bo);
/** accel_bo_handle() - the buffer's GEM handle on the device fd. */
uint32_t accel_bo_handle(const struct accel_bo *bo);

/* ---- programs ---------------------------------------------------------------- */

/*
 * A program is built in host memory with the accel_prog_*() emitters, then copied into
 * a buffer with accel_prog_upload() and run with accel_submit(). Each emitter returns 0,
 * -EINVAL for bad operands (a misaligned address), -E2BIG when the program would
 * exceed MXA_PROG_MAX_SIZE, or -ENOMEM; after an error the program is unchanged.
 */

/** accel_prog_new() - an empty program. */
int accel_prog_new(struct accel_prog **progp);
/** accel_prog_free() - free a program. NULL is ignored. */
void accel_prog_free(struct accel_prog *prog);
/** accel_prog_reset() - empty a program, keeping its memory. */
void accel_prog_reset(struct accel_prog *prog);

/** accel_prog_nop() - NOP: does nothing. */
int accel_prog_nop(struct accel_prog *prog);
/**
 * accel_prog_fence_write() - FENCE_WRITE: once every earlier command is complete,
 * write the 64-bit @value at device VA @va (8-byte aligned).
 */
int accel_prog_fence_write(struct accel_prog *prog, uint64_t va, uint64_t value);
/**
 * accel_prog_timestamp() - TIMESTAMP: write the device clock (nanoseconds, host
 * CLOCK_MONOTONIC of the emulator) as 64 bits at device VA @va (8-byte aligned).
 */
int accel_prog_timestamp(struct accel_prog *prog, uint64_t va);
/**
 * accel_prog_timestamp_model() - TIMESTAMP.MODEL: write struct mxa_timestamp_model (the
 * device clock, the modelled cycles so far and each engine's modelled busy cycles) at
 * device VA @va (8-byte aligned, 32 bytes), at no modelled cost.
 */
int accel_prog_timestamp_model(struct accel_prog *prog, uint64_t va);
/**
 * accel_prog_timestamp_reg() - TIMESTAMP (@model 0) or TIMESTAMP.MODEL (@model 1) at
 * device VA @va + R[@reg]: with accel_prog_reg_cta(), each instance of a grid writes its
 * own record. The sum must be 8-byte aligned when the command runs (else the job fails
 * with MXA_ERR_MISALIGNED).
 */
int accel_prog_timestamp_reg(struct accel_prog *prog, int model, uint64_t va, unsigned int reg);
/**
 * accel_prog_raw() - append dwords verbatim (no checks): for commands without an
 * emitter yet, and for testing how the device rejects bad programs.
 */
int accel_prog_raw(struct accel_prog *prog, const uint32_t *dwords, size_t count);

/** accel_prog_size() - the program's size in bytes. */
size_t accel_prog_size(const struct accel_prog *prog);
/** accel_prog_dwords() - the program's dwords (valid until the next change). */
const uint32_t *accel_prog_dwords(const struct accel_prog *prog);
/** accel_prog_commands() - the number of commands emitted (accel_prog_raw() counts 0). */
size_t accel_prog_commands(const struct accel_prog *prog);

/**
 * accel_prog_upload() - copy the program into a buffer.
 * @prog: the program.
 * @bo: the buffer.
 * @offset: byte offset in @bo (4-byte aligned).
 *
 * Return: 0, -EINVAL (misaligned offset or empty program), -ENOSPC (does not fit).
 */
int accel_prog_upload(const struct accel_prog *prog, struct accel_bo *bo, size_t offset);

/* ---- jobs ---------------------------------------------------------------- */

/**
 * struct accel_job_result - how a job ended.
 * @status: 0 on success, else a negative errno: -EIO (the program failed, see
 *	@error), -EFAULT (device MMU fault), -ECANCELED (aborted by a reset, or the
 *	submission was cancelled), -ETIMEDOUT.
 * @error: MXA_ERR_* (uapi/mxa_isa.h), 0 on success.
 * @err_offset: byte offset in the program of the failing command.
 * @err_opcode: header dword of that command.
 * @err_addr: faulting device VA (MMU faults).
 * @err_info: MXA_FAULT_* bits (MMU faults).
 * @start_ns, @end_ns: device time at which the job started and ended.
 * @job_id: the kernel's id of the job (0 if the kernel refused the submission).
 * @has_detail: 1 when the fields besides @status and @job_id are known; 0 when only
 *	@status is (a submission refused or cancelled before the job ended).
 * @cycles: the device's modelled cycles for the job (Documentation/device.rst,
 *	"Timing and the cycle model"): the same for the same program at any host load.
 * @commands: commands the device executed (all instances of a grid).
 * @err_instance: of a failed grid, the instance (x + y * grid_x) that failed first.
 * @instances: instances of the grid the device started (all of them unless a reset
 *	stopped it; 0 when the job did not end on the device).
 * @tma_load_bytes: bytes the job's TMA loads read from memory, as the device counted
 *	them (a multicast load once).
 */
struct accel_job_result {
	int status;
	uint32_t error;
	uint32_t err_offset;
	uint32_t err_opcode;
	uint64_t err_addr;
	uint32_t err_info;
	uint64_t start_ns, end_ns;
	uint64_t job_id;
	int has_detail;
	uint64_t cycles;
	uint32_t commands;
	uint32_t err_instance;
	uint32_t instances;
	uint64_t tma_load_bytes;
};

/**
 * enum accel_queue_priority - priority of a user queue (accel_queue_create()).
 * @ACCEL_QUEUE_PRIORITY_LOW: runs when no normal or high queue has a job ready.
 * @ACCEL_QUEUE_PRIORITY_NORMAL: the default queues' priority.
 * @ACCEL_QUEUE_PRIORITY_HIGH: served first; the caller needs CAP_SYS_NICE.
 */
enum accel_queue_priority {
	ACCEL_QUEUE_PRIORITY_LOW = 0,
	ACCEL_QUEUE_PRIORITY_NORMAL = 1,
	ACCEL_QUEUE_PRIORITY_HIGH = 2,
};

/**
 * accel_queue_create() - create a user queue on a hardware queue.
 * @dev: the device.
 * @hw_queue: hardware queue, < accel_device_info()->num_queues.
 * @priority: enum accel_queue_priority.
 * @queue_id: out: the id to pass as the queue of accel_submit() and the group calls.
 *
 * A queue runs its jobs in submission order. The kernel feeds the jobs of every queue
 * of a hardware queue (of all processes) to it by priority, then by age: a job
 * waiting for an input fence holds back only its own queue, and a HIGH queue's jobs
 * overtake the LOW and NORMAL jobs that are not on the hardware yet. Commit/wait
 * groups are per queue.
 *
 * Return: 0; -EINVAL (bad @hw_queue or @priority), -EACCES (HIGH without
 * CAP_SYS_NICE), -ENOSPC (DRM_MXA_MAX_USER_QUEUES queues exist), -EOPNOTSUPP (driver
 * older than uAPI 0.4), -ENOMEM.
 */
int accel_queue_create(struct accel_device *dev, unsigned int hw_queue,
		       enum accel_queue_priority priority, unsigned int *queue_id);

/**
 * accel_queue_destroy() - destroy a queue from accel_queue_create().
 * @dev: the device.
 * @queue_id: the queue.
 *
 * Returns once every job submitted to the queue is on the hardware; those jobs run to
 * their end and their accel_job handles stay valid. The id is not handed out again.
 *
 * Return: 0; -EINVAL (a default or unknown id).
 */
int accel_queue_destroy(struct accel_device *dev, unsigned int queue_id);

/**
 * accel_submit() - run a program on a queue.
 * @dev: the device.
 * @queue: queue id: a default queue (< accel_device_info()->num_queues, the hardware
 *         queue of that index) or one from accel_queue_create().
 * @prog_bo: the buffer that holds the program.
 * @offset: byte offset of the program in @prog_bo.
 * @size: program size in bytes (accel_prog_size()).
 * @jobp: out: the job; free it with accel_job_free().
 *
 * Through io_uring the submission is queued in the submission ring and reaches the
 * kernel at the latest with the next accel_flush(), accel_wait() or accel_poll();
 * many jobs can be in flight from one thread. Argument errors found by the kernel
 * then show up as the job's result (status -EINVAL, -ENOENT, ...). Through ioctl the
 * submission is immediate and such errors are returned here.
 *
 * Return: 0, -EINVAL, -ENOMEM, or (ioctl) the kernel's error.
 */
int accel_submit(struct accel_device *dev, unsigned int queue, struct accel_bo *prog_bo,
		 size_t offset, size_t size, struct accel_job **jobp);

/**
 * struct accel_grid - how many instances of a program run, and in which clusters (as
 * CUDA's grid and cluster dimensions). 0 in any field means 1.
 * @x, @y: the grid: x * y instances (CTAs), each on a core of its own with its own
 *	SRAM, tile and scalar registers; at most MXA_GRID_MAX_INSTANCES.
 * @cluster_x, @cluster_y: the cluster shape: the instances of a cluster run at the
 *	same time on distinct cores. At most MXA_CLUSTER_MAX instances and at most
 *	accel_device_info()->num_cores; it divides the grid in each dimension.
 *
 * An instance finds its place with REG_CTA (accel_prog_reg_cta(), %ctaid.x and the
 * other special registers of enum mxa_sreg).
 */
struct accel_grid {
	uint32_t x, y;
	uint32_t cluster_x, cluster_y;
};

/**
 * accel_submit_grid() - accel_submit() for a grid of instances of the program. The job
 * ends when every instance has ended; its result names the first instance that failed
 * (accel_job_result()->err_instance).
 * Return: as accel_submit(); -EINVAL for a shape outside the limits of struct
 * accel_grid (accel_grid_check() says which), -EOPNOTSUPP when the driver or the device
 * runs no grids.
 */
int accel_submit_grid(struct accel_device *dev, unsigned int queue, struct accel_bo *prog_bo,
		      size_t offset, size_t size, const struct accel_grid *grid,
		      struct accel_job **jobp);

/**
 * accel_grid_check() - whether @dev can run @grid, and if not a sentence in @why that
 * says which limit it breaks (@why may be NULL).
 * Return: 0, -EINVAL or -EOPNOTSUPP (as accel_submit_grid()).
 */
int accel_grid_check(const struct accel_device *dev, const struct accel_grid *grid, char *why,
		     size_t len);

/** accel_flush() - pass queued io_uring submissions to the kernel. Return: 0 or -errno. */
int accel_flush(struct accel_device *dev);

/**
 * accel_wait() - wait until a job has ended.
 * @job: the job.
 * @timeout_ns: relative timeout; 0 polls; negative waits forever.
 *
 * Return: 0 once the job ended (its outcome is accel_job_result()), -ETIME on timeout,
 * -EINTR, or another negative errno if waiting itself failed.
 */
int accel_wait(struct accel_job *job, int64_t timeout_ns);

/**
 * accel_wait_all() - wait until every job of @dev submitted so far has ended.
 * @dev: the device.
 * @timeout_ns: as for accel_wait(), for the whole call.
 *
 * Return: 0, -ETIME, or a negative errno.
 */
int accel_wait_all(struct accel_device *dev, int64_t timeout_ns);

/**
 * accel_poll() - collect finished jobs without blocking.
 * Return: the number of jobs found finished, or a negative errno.
 */
int accel_poll(struct accel_device *dev);

/** accel_job_done() - 1 if the job has ended, else 0. */
int accel_job_done(const struct accel_job *job);

/** accel_job_result() - the job's outcome; valid once accel_job_done(). */
const struct accel_job_result *accel_job_result(const struct accel_job *job);

/**
 * accel_job_free() - release a job. A job still in flight is released when it ends
 * (it still runs to completion). NULL is ignored.
 */
void accel_job_free(struct accel_job *job);

/* ---- errors ---------------------------------------------------------------- */

/**
 * accel_strerror() - describe an error code.
 * @err: a negative errno returned by libaccel or found in accel_job_result()->status,
 *	or a positive MXA_ERR_* job error code (accel_job_result()->error); 0 is success.
 *
 * Return: a static string.
 */
const char *accel_strerror(int err);

/** accel_opcode_name() - the mnemonic of an MXA_OP_* opcode (NOP for MXA_OP_NOP, ...) or "?". */
const char *accel_opcode_name(uint32_t opcode);

/**
 * accel_cap_name() - the name of capability bit @bit of accel_device_info.caps
 * (the name after MXA_CAP_: GEMM for MXA_CAP_GEMM's bit), or NULL for a bit this library does
 * not know.
 */
const char *accel_cap_name(unsigned int bit);


/**
 * accel_job_explain() - one line that says how a job ended, and for a failed job
 * which command failed (offset, opcode, header) and why (error, faulting VA, access).
 * @r: the result.
 * @buf: output buffer.
 * @len: its size.
 *
 * Return: as snprintf(): the length of the full text.
 */
int accel_job_explain(const struct accel_job_result *r, char *buf, size_t len);

/**
 * accel_job_explain_prog() - accel_job_explain(), then for a failed job the failing
 * command disassembled from the program that ran (@dw, @count dwords), whether it sits
 * in a loop, and a hint on the usual cause. Several lines, no final newline.
 * Return: as snprintf().
 */
int accel_job_explain_prog(const struct accel_job_result *r, const uint32_t *dw, size_t count,
			   char *buf, size_t len);

/* ---- assembler and disassembler ------------------------------------------------ */

/*
 * The text form of programs (Documentation/libaccel.rst, "Assembler"): one command per
 * line, mnemonics of Documentation/isa.rst ("WAIT_GROUP mma, 1"), the seeds' PTX forms
 * ("wgmma.wait_group.sync.aligned 1;") and TMATMULMX form, registers r0..r31 and a0..a31, values
 * "r3+0x800", labels, ';' or '//' comments, .dword/.equ/.buffer/.tmap directives.
 */

/**
 * struct accel_asm_opts - how accel_asm_ex() resolves names (all fields may be 0).
 * @filename: prefix of error messages ("prog.s:3:7: ...").
 * @resolve: value of a name the program does not define: 0, or non-zero if unknown.
 * @buffer: ".buffer NAME, SIZE": make a buffer, give its device VA (0 or -errno).
 * @tensor_map: ".tmap NAME, ...": put @map (a struct mxa_tensor_map) in device memory,
 *	64-byte aligned, give its VA (0 or -errno).
 * @arg: passed to the callbacks.
 */
struct accel_asm_opts {
	const char *filename;
	int (*resolve)(void *arg, const char *name, uint64_t *value);
	int (*buffer)(void *arg, const char *name, uint64_t size, uint64_t *va);
	int (*tensor_map)(void *arg, const char *name, const void *map, uint64_t *va);
	void *arg;
};

/**
 * accel_asm() - assemble @text and append it to @prog.
 * @err: out (may be NULL): on failure "LINE:COL: message" (the first error).
 * Return: 0; -EINVAL (a syntax or operand error), -E2BIG, -ENOMEM. On failure @prog is
 * unchanged.
 */
int accel_asm(const char *text, struct accel_prog *prog, char *err, size_t err_len);
/** accel_asm_ex() - accel_asm() with symbols and buffers from @opts (may be NULL). */
int accel_asm_ex(const char *text, const struct accel_asm_opts *opts, struct accel_prog *prog,
		 char *err, size_t err_len);

#define ACCEL_DISASM_OFFSETS	(1u << 0)	/* "; 0x0010" byte offset after each line */
#define ACCEL_DISASM_PTX	(1u << 1)	/* PTX names where the seeds have one */

/**
 * accel_disasm() - the text of @count dwords of program, one command per line,
 * indented by loop depth. accel_asm() of it gives the same dwords back: what no
 * mnemonic expresses (unknown opcode, reserved bits) comes out as ".dword".
 * Return: as snprintf(): the length of the full text.
 */
int accel_disasm(const uint32_t *dw, size_t count, unsigned int flags, char *buf, size_t len);
/**
 * accel_disasm_cmd() - one command at @dw (no indentation, no newline); *@used (may be
 * NULL) receives the dwords it took. Return: as snprintf().
 */
int accel_disasm_cmd(const uint32_t *dw, size_t count, unsigned int flags, char *buf,
		     size_t len, size_t *used);
/** accel_prog_disasm() - accel_disasm() of a program. */
int accel_prog_disasm(const struct accel_prog *prog, unsigned int flags, char *buf, size_t len);

/* ---- number formats and MX ----------------------------------------------------- */

/*
 * Element types of matrices: enum mxa_isa_dtype (MXA_DTYPE_F32, MXA_DTYPE_E4M3, ...)
 * of mxa_isa.h. Bit layouts and rounding: Documentation/numerics.rst.
 */

/** enum accel_mx_scale_policy - how an MX block's E8M0 scale is chosen. */
enum accel_mx_scale_policy {
	ACCEL_MX_SCALE_FLOOR = 0,	/* OCP MX 1.0: 2^(floor(log2 amax) - emax_elem) */
	ACCEL_MX_SCALE_RCEIL = 1,	/* NVIDIA: 2^ceil(log2(amax / max_elem)) */
};

/**
 * accel_mx_quantize() - quantise @n floats into MX blocks of 32 elements: ceil(n/32)
 * E8M0 @scales and the packed @elems of type @elem (E4M3, E5M2, E3M2, E2M3, E2M1 or
 * MXINT8). Gives the same bits as the device's quantiser (it is the same code).
 * Return: 0 or -EINVAL.
 */
int accel_mx_quantize(const float *src, size_t n, enum mxa_isa_dtype elem,
		      enum accel_mx_scale_policy policy, uint8_t *scales, void *elems);
/** accel_mx_dequantize() - the values of MX blocks as floats (a NaN scale gives NaN). */
int accel_mx_dequantize(const uint8_t *scales, const void *elems, size_t n,
			enum mxa_isa_dtype elem, float *dst);
/**
 * accel_nvfp4_quantize() - quantise @n floats into NVFP4 blocks of 16 elements with the
 * tensor's @amax (its largest finite |x|, accel_nvfp4_amax(); the same for every part
 * of one tensor): ceil(n/16) UE4M3 @scales, the packed E2M1 @elems (two per byte) and
 * *@tensor_scale (may be NULL), the FP32 factor that multiplies them back: pass it as
 * struct accel_gemm_desc's scale_a or scale_b. NVIDIA's two-level recipe, each step an
 * f32 operation (Documentation/numerics.rst "NVFP4"); the device's code.
 * Return: 0, or -EINVAL (a NULL array, @amax negative, infinite or NaN).
 */
int accel_nvfp4_quantize(const float *src, size_t n, float amax, uint8_t *scales,
			 void *elems, float *tensor_scale);
/** accel_nvfp4_dequantize() - element x block scale x @tensor_scale (a NaN scale: NaN). */
int accel_nvfp4_dequantize(const uint8_t *scales, const void *elems, size_t n,
			   float tensor_scale, float *dst);
/** accel_nvfp4_amax() - the largest finite |x| of @n floats (0 when there is none). */
float accel_nvfp4_amax(const float *src, size_t n);
/** accel_dtype_row_bytes() - bytes of @n packed elements of @type (0 if unknown). */
size_t accel_dtype_row_bytes(enum mxa_isa_dtype type, size_t n);
/** accel_dtype_name() - "e4m3", "bf16", ... */
const char *accel_dtype_name(enum mxa_isa_dtype type);
/** accel_load_elem() - element @i of a packed row, exactly, as a double (no scale). */
double accel_load_elem(enum mxa_isa_dtype type, const void *row, size_t i);

/* ---- matrix multiplication -------------------------------------------------------- */


/**
 * struct accel_gemm - D = (scale_a * A) x (scale_b * B)^T (+ C) on device memory.
 * @m, @n, @k: the problem size.
 * @type_a, @type_b, @type_c, @type_d: enum mxa_isa_dtype. A/B may be any float or MX
 *	element type (mixed), with D F32 (or F16); F64 x F64 -> F64; S8/S4 -> S32.
 * @flags: ACCEL_GEMM_*.
 * @scale_block: 0, or 32 for MX types (one E8M0 scale per 32 elements along K;
 *	FP8 MX needs K % 64 == 0), or 16 for NVFP4 x NVFP4 (one UE4M3 scale per 16):
 *	mxa_dtype_scale_block().
 * @a, @b, @c, @d, @scale_a, @scale_b: device VAs (accel_bo_va() + offset). A is M x K
 *	(K x M with MXA_GEMM_F_A_KM, whole-byte types: the device transposes it first),
 *	B is N x K (K x N with MXA_GEMM_F_B_KN), C and D are M x N, scales M x K/block and
 *	N x K/block bytes (rounded up). Row-major; sub-byte types packed along the row.
 * @lda, @ldb, @ldc, @ldd, @ld_scale_a, @ld_scale_b: bytes between rows; 0 = dense.
 * @accum: 0 = exact sums rounded once (default), 1 = fast FP32 chains in K blocks.
 * @sched: 0 = intrawave, 1 = interwave (same bits, different speed).
 */
struct accel_gemm {
	uint32_t m, n, k;
	uint8_t type_a, type_b, type_c, type_d;
	uint32_t flags;
	uint32_t scale_block;
	uint64_t a, b, c, d, scale_a, scale_b;
	uint32_t lda, ldb, ldc, ldd, ld_scale_a, ld_scale_b;
	uint8_t accum, sched;
};

/**
 * accel_prog_gemm() - GEMM command: the device reads the operands, computes on its
 * matrix engine and writes D before the next command starts.
 * Return: 0, -EINVAL (bad field), -E2BIG, -ENOMEM.
 */
int accel_prog_gemm(struct accel_prog *prog, const struct accel_gemm *g);

/**
 * accel_gemm() - run one GEMM on @queue and wait for it. The program goes into a
 * buffer the handle keeps for the next call (freed by accel_close()).
 * @result: out (may be NULL): the job's result, with the device's start/end time.
 * Return: 0, a submission error, or the job's status (-EIO with @result->error, e.g.
 * MXA_ERR_K_ALIGN, when the device rejected the operands).
 */
int accel_gemm(struct accel_device *dev, unsigned int queue, const struct accel_gemm *g,
	       struct accel_job_result *result);

/*
 * GEMM descriptors, in the spirit of cuBLASLt: D = alpha * (scale_a * op(A)) x
 * (scale_b * op(B)) + beta * C, with op(A) M x K and op(B) K x N, row-major storage.
 * accel_gemm_plan() chooses how (a multistage TMA + WGMMA program, or the device's GEMM
 * command) and accel_gemm_run() runs it. accel_gemm(3)
 * gives the heuristics and the exact numerics of each path.
 */
#define ACCEL_OP_N		0	/* op(X) = X as stored */
#define ACCEL_OP_T		1	/* op(X) = X^T */

enum accel_gemm_numerics {
	ACCEL_GEMM_NUM_AUTO = 0,	/* pipeline: each WGMMA K step summed exactly with D and
					 * rounded once (plan.k_chunk); command: EXACT */
	ACCEL_GEMM_NUM_EXACT = 1,	/* all of K summed exactly, rounded once (command) */
	ACCEL_GEMM_NUM_FAST = 2,	/* the engine's FAST FP32 chains (command) */
};

enum accel_gemm_algo {
	ACCEL_GEMM_ALGO_AUTO = 0,	/* pipeline where the device's WGMMA can, else command */
	ACCEL_GEMM_ALGO_COMMAND = 1,	/* the GEMM command */
	ACCEL_GEMM_ALGO_PIPELINE = 2,	/* TMA + WGMMA program, or -EOPNOTSUPP */
};

enum accel_gemm_sched {
	ACCEL_GEMM_SCHED_AUTO = 0,
	ACCEL_GEMM_SCHED_INTRAWAVE = 1,
	ACCEL_GEMM_SCHED_INTERWAVE = 2,
};

/**
 * struct accel_gemm_desc - a GEMM; start from accel_gemm_desc_init() (alpha 1, beta 0,
 * scales 1, everything else automatic).
 * @m, @n, @k: any sizes >= 1.
 * @type_a, @type_b, @type_c, @type_d: enum mxa_isa_dtype, as struct accel_gemm (FP8, MX
 *	FP8/FP6/FP4/INT8, NVFP4, F16, BF16, TF32, F32, F64, S8, S4).
 * @trans_a: ACCEL_OP_N: A stored M x K; ACCEL_OP_T: K x M (whole-byte types, through the
 *	GEMM command, which transposes A first; FP6/FP4/S4: -EOPNOTSUPP). @trans_b: ACCEL_OP_N: B stored K x N; ACCEL_OP_T: N x K (the layout of
 *	struct accel_gemm and of the pipeline).
 * @a, @b, @c, @d: device VAs; @lda ... @ldd bytes between stored rows, 0 = dense.
 * @mx_scale_a, @mx_scale_b: VAs of the block scales of MX element types (E8M0, one per
 *	32 K elements, M x K/32 and N x K/32) and of NVFP4 (UE4M3, one per 16, M x K/16
 *	and N x K/16), else 0; @ld_mx_scale_a/b bytes per row (0 dense).
 * @scale_a, @scale_b: per-tensor scales (FP8 dequantisation factors; NVFP4's FP32
 *	tensor scales, as accel_nvfp4_quantize() gives them).
 * @alpha, @beta: as BLAS. beta = 0 never reads C.
 * @numerics: enum accel_gemm_numerics. @algo: enum accel_gemm_algo.
 * @sched: enum accel_gemm_sched. @stages: pipeline stages (0 auto, 1 = serial).
 * @tile_n: pipeline tile N (0 auto; multiple of 8, <= 256). @tile_m: 0, 64 or 128.
 * @flags: MXA_GEMM_F_SATFINITE.
 * @cluster_m: a spread pipeline's clusters (accel_gemm_plan_spread()): this many instances
 *	along M, one cluster, share each B tile, each reading 1/cluster_m of its rows and
 *	multicasting them to all (TMA .multicast::cluster). 0 auto, 1 none, 2 or 4.
 */
struct accel_gemm_desc {
	uint32_t m, n, k;
	uint8_t type_a, type_b, type_c, type_d;
	uint8_t trans_a, trans_b;
	uint64_t a, b, c, d;
	uint32_t lda, ldb, ldc, ldd;
	uint64_t mx_scale_a, mx_scale_b;
	uint32_t ld_mx_scale_a, ld_mx_scale_b;
	float scale_a, scale_b;
	float alpha, beta;
	uint8_t numerics, algo, sched, stages;
	uint32_t tile_m, tile_n;
	uint32_t flags;
	uint32_t cluster_m;
};

/**
 * struct accel_gemm_plan - what accel_gemm_plan() chose.
 * @algo: ACCEL_GEMM_ALGO_COMMAND or _PIPELINE. @why: for the command, why not the
 *	pipeline (a static string; "" for the pipeline).
 * @sched: ACCEL_GEMM_SCHED_INTRAWAVE or _INTERWAVE: for the command a strategy of the
 *	engine when K > 256 (numerics.rst "Scheduling policies"; AUTO picks intrawave, or
 *	interwave for FAST with few output tiles); for the pipeline only the WGMMAs' flag,
 *	which selects the same strategy (a WGMMA's K is one chunk).
 * @stages, @tile_m, @tile_n: pipeline shape; @k_step: K elements per WGMMA (32 bytes);
 *	@k_stage: K elements per stage; @k_iters: stage loads per output tile (K padded
 *	with zero-filled boxes up to a multiple of @stages); @sram_bytes: SRAM used.
 * @k_chunk, @accum: the engine numerics (struct mxe_gemm_desc) that give the same bits.
 * @device_c: beta = 1 is done on the device (C as the accumulator's start).
 * @post_pass: alpha, beta and the per-tensor scales are applied by the CPU after the
 *	job: D = s x D' + beta x C in f32 (s = alpha x scale_a x scale_b, f32 products).
 * @grid_x, @grid_y: the grid (accel_gemm_plan_spread(); 1 x 1 before).
 * @cluster_x: instances of a cluster along M that multicast B (1: none).
 */
struct accel_gemm_plan {
	uint8_t algo, sched, stages, device_c, post_pass, accum;
	uint32_t tile_m, tile_n, k_step, k_stage, k_iters, sram_bytes;
	uint32_t k_chunk;
	const char *why;
	uint32_t grid_x, grid_y;
	uint32_t cluster_x;
};

/** accel_gemm_desc_init() - zero @d, then alpha = 1, beta = 0, scale_a = scale_b = 1. */
void accel_gemm_desc_init(struct accel_gemm_desc *d);

/**
 * accel_gemm_plan() - choose the algorithm, tiles, stages and policy for @d.
 * Return: 0, -EINVAL (a bad field: @plan->why names it, "mx_scale_a: ..."), -EOPNOTSUPP
 * (op(A) = A^T; ALGO_PIPELINE impossible).
 */
int accel_gemm_plan(const struct accel_gemm_desc *d, struct accel_gemm_plan *plan);

#define ACCEL_GEMM_MAPS_BYTES	640	/* tensor maps of a pipeline (5 x 128 bytes) */

/**
 * accel_gemm_plan_spread() - spread a pipeline @plan over up to @cores instances: a
 * persistent grid of @plan->grid_x x @plan->grid_y instances (dividing the tiles of M
 * and of N), each looping over its share of output tiles, the static tile schedule of
 * CUTLASS's persistent kernels. accel_gemm_run() does this with the device's cores;
 * a program built from the plan then runs with accel_submit_grid() and that grid.
 * Plans of the GEMM command, or with a CPU post-pass, stay 1 x 1. With @d->cluster_m
 * (auto: 2) the grid's side along M is a multiple of it where the tiles and cores allow,
 * and @plan->cluster_x instances along M form a cluster that multicasts B; else 1.
 * Return: the instances, @plan->grid_x * @plan->grid_y.
 */
uint32_t accel_gemm_plan_spread(struct accel_gemm_plan *plan, const struct accel_gemm_desc *d,
				uint32_t cores);

/**
 * accel_prog_gemm_desc() - append the device part of @plan (the pipeline or the GEMM
 * command, without the CPU post-pass). The pipeline's tensor maps are written at @maps
 * (ACCEL_GEMM_MAPS_BYTES, CPU address) that the device sees at @maps_va (64-aligned).
 * The program runs as @plan's grid (1 x 1 unless accel_gemm_plan_spread()).
 * Return: as the emitters; -EINVAL if @plan->post_pass (use accel_gemm_run()).
 */
int accel_prog_gemm_desc(struct accel_prog *prog, const struct accel_gemm_desc *d,
			 const struct accel_gemm_plan *plan, void *maps, uint64_t maps_va);

/**
 * accel_gemm_run() - plan (into @plan, may be NULL), build, run @d on @queue and wait,
 * with the post-pass if needed. Return: as accel_gemm().
 */
int accel_gemm_run(struct accel_device *dev, unsigned int queue,
		   const struct accel_gemm_desc *d, struct accel_gemm_plan *plan,
		   struct accel_job_result *result);

/* ---- more commands: control flow, semaphores, asynchronous work -------------------- */

/*
 * Scalar registers: MXA_NUM_REGS 64-bit registers per job, zero when it starts; R0
 * always reads 0. Register operands add to an immediate, so passing 0 as the register
 * means "the immediate alone". Semantics: Documentation/isa.rst. Return values as for
 * the other emitters (-EINVAL for a register >= MXA_NUM_REGS or a misaligned VA).
 */

/** accel_prog_reg_set() - REG_SET: R[reg] = value. */
int accel_prog_reg_set(struct accel_prog *prog, unsigned int reg, uint64_t value);
/**
 * accel_prog_reg_cta() - REG_CTA: R[dst] = the instance's special register @sreg
 * (enum mxa_sreg: MXA_SREG_CTAID_X, MXA_SREG_CLUSTER_CTARANK, ...) times @mult, so that
 * one command gives the offset of the instance's part of a tensor. -EINVAL for an
 * unknown @sreg.
 */
int accel_prog_reg_cta(struct accel_prog *prog, unsigned int dst, unsigned int sreg,
		       uint32_t mult);
/**
 * accel_prog_cluster_arrive() - CLUSTER_ARRIVE (barrier.cluster.arrive): arrive at the
 * cluster's barrier; what the instance wrote before is visible to its peers once the
 * phase completes.
 */
int accel_prog_cluster_arrive(struct accel_prog *prog);
/**
 * accel_prog_cluster_wait() - CLUSTER_WAIT (barrier.cluster.wait): wait until every
 * instance of the cluster has arrived at the phase this one arrived at.
 */
int accel_prog_cluster_wait(struct accel_prog *prog);
/** accel_prog_reg_add() - REG_ADD: R[dst] = R[ra] + R[rb] + imm (mod 2^64). */
int accel_prog_reg_add(struct accel_prog *prog, unsigned int dst, unsigned int ra,
		       unsigned int rb, uint64_t imm);
/** accel_prog_reg_load() - REG_LOAD: R[reg] = the 64-bit value at @va (8-aligned). */
int accel_prog_reg_load(struct accel_prog *prog, unsigned int reg, uint64_t va);
/** accel_prog_reg_store() - REG_STORE: write R[reg] at @va (8-aligned). */
int accel_prog_reg_store(struct accel_prog *prog, unsigned int reg, uint64_t va);
/**
 * accel_prog_loop() - LOOP: run the commands up to the matching accel_prog_endloop()
 * @count + R[@reg] times (0 skips them). Loops nest 4 deep; a job executes at most
 * 2^24 commands (else the job fails with MXA_ERR_LOOP_BUDGET).
 */
int accel_prog_loop(struct accel_prog *prog, uint32_t count, unsigned int reg);
/** accel_prog_endloop() - ENDLOOP: end of the innermost loop body. */
int accel_prog_endloop(struct accel_prog *prog);
/**
 * accel_prog_sem_wait() - SEM_WAIT: block the queue until the 64-bit semaphore at @va
 * is >= @value (unsigned); fail with MXA_ERR_SEM_TIMEOUT after @timeout_us (0: 1 s,
 * at most 10 s).
 */
int accel_prog_sem_wait(struct accel_prog *prog, uint64_t va, uint64_t value,
			uint32_t timeout_us);
/**
 * accel_prog_sem_signal() - SEM_SIGNAL: once every earlier command is complete, write
 * @value at @va, or with @add non-zero add it (atomic across the device's queues).
 */
int accel_prog_sem_signal(struct accel_prog *prog, uint64_t va, uint64_t value, int add);
/** accel_prog_commit_group() - COMMIT_GROUP: close the class's uncommitted commands. */
int accel_prog_commit_group(struct accel_prog *prog, unsigned int cls);
/**
 * accel_prog_wait_group() - WAIT_GROUP: wait until at most @n of the newest committed
 * groups of class @cls are pending (PTX wait_group semantics).
 */
int accel_prog_wait_group(struct accel_prog *prog, unsigned int cls, uint32_t n);
/**
 * accel_prog_copy() - COPY (cp.async): asynchronously copy @bytes + R[@bytes_reg] bytes
 * from @src + R[@src_reg] to @dst + R[@dst_reg], in class MXA_GROUP_COPY.
 */
int accel_prog_copy(struct accel_prog *prog, uint64_t dst, unsigned int dst_reg, uint64_t src,
		    unsigned int src_reg, uint32_t bytes, unsigned int bytes_reg);
/**
 * accel_prog_gemm_async() - the GEMM command run asynchronously on the math engine, in
 * class MXA_GROUP_MMA: D is written once a WAIT_GROUP covers it.
 */
int accel_prog_gemm_async(struct accel_prog *prog, const struct accel_gemm *g);
/**
 * accel_prog_gemm_regs() - the GEMM command (asynchronous with @async) whose operand
 * addresses add registers, read when it is issued: a + R[@regs[0]], b + R[@regs[1]],
 * c + R[@regs[2]], d + R[@regs[3]], scale_a + R[@regs[4]], scale_b + R[@regs[5]]
 * (0: none). A loop can walk through tiles of a larger problem this way.
 */
int accel_prog_gemm_regs(struct accel_prog *prog, const struct accel_gemm *g, int async,
			 const uint8_t regs[6]);

/*
 * On-chip memory and TMA. Each queue has 256 KiB of SRAM (offsets 0 .. 256 KiB - 1),
 * zeroed when a job starts. A tensor map is the 128-byte struct mxa_tensor_map of
 * uapi/mxa_isa.h in device memory (64-byte aligned).
 */

/**
 * struct accel_tma - operands of a TMA load or store.
 * @map: VA of the tensor map.
 * @sram, @sram_reg: SRAM offset of the box: @sram + R[@sram_reg] (128-byte aligned).
 * @mbar, @mbar_reg: loads: the mbarrier that receives the box's bytes (complete_tx);
 *	stores: 0.
 * @coord, @coord_reg: coordinates of the box's first element, @coord[d] + R[@coord_reg[d]]
 *	(elements, signed; outside the tensor, loads fill and stores skip).
 */
struct accel_tma {
	uint64_t map;
	uint32_t sram, mbar;
	int32_t coord[5];
	uint8_t sram_reg, mbar_reg, coord_reg[5];
	uint8_t cta_mask;
};

/**
 * accel_prog_tma() - TMA_LOAD (@store 0: tensor box to SRAM, completing on an mbarrier)
 * or TMA_STORE (@store 1: SRAM to the tensor, class MXA_GROUP_COPY). Asynchronous.
 * A load with a non-zero @t->cta_mask multicasts (.multicast::cluster): the box is read
 * once and lands at @t->sram of every instance of the cluster whose rank's bit is set,
 * completing each one's mbarrier at @t->mbar.
 */
int accel_prog_tma(struct accel_prog *prog, int store, const struct accel_tma *t);
/** accel_prog_mbar_init() - MBAR_INIT: an mbarrier at SRAM offset @sram (8-aligned). */
int accel_prog_mbar_init(struct accel_prog *prog, uint32_t sram, uint32_t count);
/** accel_prog_mbar_arrive() - MBAR_ARRIVE: expect @tx_bytes more, then arrive once. */
int accel_prog_mbar_arrive(struct accel_prog *prog, uint32_t sram, uint32_t tx_bytes);
/** accel_prog_mbar_expect_tx() - MBAR_EXPECT_TX: expect @tx_bytes more. */
int accel_prog_mbar_expect_tx(struct accel_prog *prog, uint32_t sram, uint32_t tx_bytes);
/**
 * accel_prog_mbar_complete_tx() - MBAR_COMPLETE_TX: @tx_bytes of the expected
 * transactions are done (mbarrier.complete_tx); @sram may be MXA_DSMEM(rank, off), a
 * barrier of another instance of the cluster.
 */
int accel_prog_mbar_complete_tx(struct accel_prog *prog, uint32_t sram, uint32_t tx_bytes);
/**
 * accel_prog_mbar_wait() - MBAR_WAIT: block until the phase of parity
 * (@parity + R[@parity_reg]) & 1 has completed.
 */
int accel_prog_mbar_wait(struct accel_prog *prog, uint32_t sram, uint32_t parity,
			 unsigned int parity_reg);


/**
 * struct accel_wgmma - an asynchronous warpgroup MMA on SRAM operands: D (64 x @n,
 * @type_d) = A (64 x K) x B (@n x K)^T (+ D), K = 32 bytes of @type_a. @a, @b, @d are
 * 16-byte aligned SRAM offsets (plus R[@a_reg] ...) of dense row-major matrices.
 */
struct accel_wgmma {
	uint32_t flags;
	uint8_t type_a, type_b, type_d;
	uint32_t n;
	uint32_t a, b, d;
	uint8_t a_reg, b_reg, d_reg;
};

/**
 * accel_prog_wgmma() - WGMMA, class MXA_GROUP_MMA: D may be read (TMA store) or
 * used as A/B only after a WAIT_GROUP covers it, else the job fails with
 * MXA_ERR_ACC_HAZARD.
 */
int accel_prog_wgmma(struct accel_prog *prog, const struct accel_wgmma *w);

/**
 * struct accel_wgmma_desc - WGMMA_DESC: the same MMA with its operands as on Hopper.
 * @desc_a, @desc_b: 64-bit shared-memory matrix descriptors (MXA_SMEM_DESC(start,
 *	lbo, sbo, base, MXA_SMEM_DESC_SWIZZLE_*)), plus R[@a_reg] / R[@b_reg]: K-major,
 *	or MN-major with MXA_WGMMA_F_TRANS_A/_B (f16 and bf16 only). With
 *	MXA_WGMMA_F_TILE_A, @desc_a is a T tile register (MXA_TILE(MXA_TILE_T, i), with
 *	MXA_TILE_REUSE to keep it) of 64 rows x 32 bytes and @a_reg is 0.
 * @d: dense row-major D (64 x @n of @type_d) at SRAM offset @d + R[@d_reg].
 * @flags: MXA_WGMMA_F_* (MXA_WGMMA_DESC_F_ALL).
 */
struct accel_wgmma_desc {
	uint32_t flags;
	uint8_t type_a, type_b, type_d;
	uint32_t n;
	uint64_t desc_a, desc_b;
	uint32_t d;
	uint8_t a_reg, b_reg, d_reg;
};

/**
 * accel_prog_wgmma_desc() - WGMMA_DESC, class MXA_GROUP_MMA, with the hazards of
 * accel_prog_wgmma(); a tile register A may not be written until a WAIT_GROUP covers
 * it either (MXA_ERR_OPERAND_HAZARD). Returns -EINVAL for a field the command cannot
 * hold; the device checks the descriptors.
 */
int accel_prog_wgmma_desc(struct accel_prog *prog, const struct accel_wgmma_desc *w);

/**
 * accel_prog_fence() - FENCE (wgmma.fence): orders earlier SRAM and tile accesses before
 * the operand reads of later WGMMAs. Put it where PTX needs wgmma.fence.
 */
int accel_prog_fence(struct accel_prog *prog);

/*
 * Tile registers (seed 004): 8 per class and queue, empty when a job starts. Classes
 * MXA_TILE_T / _M hold A / B data (64 KiB), _U / _N their E8M0 scales (8 KiB), _ACC
 * accumulators (256 KiB). Name one with MXA_TILE(class, index); | MXA_TILE_REUSE
 * keeps a source valid after TMATMULMX / MMA, which otherwise release it (a later read
 * fails the job with MXA_ERR_TILE_RELEASED). A tile has the shape (rows x row_bytes)
 * its writer gave it; a command needing another shape fails with MXA_ERR_TILE.
 */

/**
 * accel_prog_tile_load() - TILE_LOAD: fill @tile with @rows x @row_bytes bytes read
 * from SRAM offset @addr + R[@addr_reg] (@global 0) or device VA @addr + R[@addr_reg]
 * (@global 1), @stride bytes between rows (0: dense).
 */
int accel_prog_tile_load(struct accel_prog *prog, uint16_t tile, int global, uint64_t addr,
			 unsigned int addr_reg, uint32_t rows, uint32_t row_bytes,
			 uint32_t stride);
/** accel_prog_tile_store() - TILE_STORE: the reverse; the shape must be the tile's. */
int accel_prog_tile_store(struct accel_prog *prog, uint16_t tile, int global, uint64_t addr,
			  unsigned int addr_reg, uint32_t rows, uint32_t row_bytes,
			  uint32_t stride);


/**
 * struct accel_tmatmulmx - TMATMULMX <LB0:M, LB1:N, LB2:K, type_a, type_b> A, SA, B, SB,
 * ACC, ->ACC<acc_size>: ACC (M x N f32) = (SA x A) . (SB x B) (+ ACC with MXA_TMM_F_ACC).
 * @m, @n, @k plus R[@m_reg] ... (register, immediate, or both).
 * @a: T tile, M x K of @type_a (row_bytes = accel_dtype_row_bytes(type_a, K)).
 * @scale_a: U tile, M x K/32 E8M0 (MXA_TILE_NONE for F16/BF16 data: ignored).
 * @b: M tile, B given as N x K of @type_b (K contiguous). @scale_b: N tile, N x K/32.
 * @acc: ACC tile; @acc_size: ACC<size> in bytes, at least M x N x 4.
 * FP8 data needs K % 64 == 0 (MXA_ERR_K_ALIGN). A NaN scale makes its block's outputs NaN.
 */
struct accel_tmatmulmx {
	uint32_t flags;
	uint8_t type_a, type_b;
	uint32_t m, n, k;
	uint8_t m_reg, n_reg, k_reg;
	uint16_t a, scale_a, b, scale_b, acc;
	uint32_t acc_size;
};

int accel_prog_tmatmulmx(struct accel_prog *prog, const struct accel_tmatmulmx *t);


/**
 * struct accel_mma - one synchronous Ampere mma.sync shape (@m x @n x @k, see
 * Documentation/isa.rst): D (@m x @n, @type_d) = A (@m x @k) x B (@n x @k)^T (+ D).
 * SRAM operands: 16-byte aligned offsets @a + R[@a_reg] ... of dense row-major
 * matrices; with MXA_MMA_F_TILES, @a, @b, @d are tile operands and the registers 0.
 */
struct accel_mma {
	uint32_t flags;
	uint8_t type_a, type_b, type_d;
	uint32_t m, n, k;
	uint32_t a, b, d;
	uint8_t a_reg, b_reg, d_reg;
};

int accel_prog_mma(struct accel_prog *prog, const struct accel_mma *mma);


/**
 * struct accel_cvt - CVT on SRAM: @n elements of @src_type at @src + R[@src_reg] to
 * @dst_type at @dst + R[@dst_reg] (packed as accel_dtype_row_bytes()). With MXA_CVT_F_MX
 * the source is F32 and the result is what accel_mx_quantize() gives: elements at
 * @dst, ceil(@n / 32) E8M0 scales at @scales + R[@scales_reg].
 */
struct accel_cvt {
	uint32_t flags;
	uint8_t src_type, dst_type;
	uint32_t n;
	uint32_t src, dst, scales;
	uint8_t src_reg, dst_reg, scales_reg;
};

int accel_prog_cvt(struct accel_prog *prog, const struct accel_cvt *c);

/* ---- job groups (driver commit/wait groups) ------------------------------ */

/**
 * accel_commit_group() - close the jobs submitted to @queue since the previous commit
 * (possibly none) into a group.
 * @dev: the device.
 * @queue: queue id (as for accel_submit()).
 * @group_id: out (may be NULL): the group's id, 1, 2, ... per queue.
 *
 * Return: 0, -EINVAL, -ENOMEM, or -EOPNOTSUPP-like errors from an older kernel.
 */
int accel_commit_group(struct accel_device *dev, unsigned int queue, uint64_t *group_id);

/**
 * accel_wait_group() - wait until at most @n committed groups of @queue are pending
 * (0: all have ended). Uncommitted jobs are not waited for. On 0 the jobs of the
 * groups it waited for have ended here too (accel_job_done() 1, their results read;
 * queue ids below 256), with no accel_wait()/accel_poll().
 * @dev: the device.
 * @queue: queue id (as for accel_submit()).
 * @n: groups that may stay pending.
 * @timeout_ns: relative timeout; 0 polls; negative waits forever.
 *
 * Return: 0, -ETIME, -EINTR, -EINVAL.
 */
int accel_wait_group(struct accel_device *dev, unsigned int queue, unsigned int n,
		     int64_t timeout_ns);

/* ---- device VM: buffers at chosen VAs (DRM_IOCTL_MXA_VM_BIND) -------------- */

#define ACCEL_VM_BIND_READ_ONLY	(1u << 0)	/* device writes fault (MXA_FAULT_READ_ONLY) */

/**
 * accel_vm_bind() - map @size bytes of @bo from @bo_offset at device VA @va as well (the
 * buffer keeps its own VA). All page aligned; the range must not overlap another
 * mapping of @dev (a buffer's own range and the guard page after it included).
 * @dev: the device; @bo one of its buffers.
 * @bo_offset: offset in @bo.
 * @va: device VA in [va_start, va_end) of accel_device_info().
 * @size: bytes.
 * @flags: ACCEL_VM_BIND_READ_ONLY or 0.
 *
 * The mapping keeps the buffer's memory alive until accel_vm_unbind() or accel_close().
 * Return: 0, -EEXIST (overlap), -EINVAL, -ENOENT, -ENOMEM; -EINVAL from kernels without
 * the ioctl (driver_caps DRM_MXA_DRIVER_CAP_VM_BIND).
 */
int accel_vm_bind(struct accel_device *dev, struct accel_bo *bo, uint64_t bo_offset,
		  uint64_t va, uint64_t size, unsigned int flags);

/**
 * accel_vm_unbind() - remove the mapping accel_vm_bind() made at exactly @va, @size; the
 * device TLB is invalidated before it returns (jobs still using it fault).
 * Return: 0, -ENOENT (no such mapping), -EINVAL.
 */
int accel_vm_unbind(struct accel_device *dev, uint64_t va, uint64_t size);

/* ---- syncobjs: job inputs and outputs (drm_mxa_submit.syncs) ------------- */

/** accel_syncobj_create() - a new binary/timeline DRM syncobj on @dev (drmSyncobjCreate). */
int accel_syncobj_create(struct accel_device *dev, uint32_t *handle);
/** accel_syncobj_destroy() - destroy a syncobj. */
void accel_syncobj_destroy(struct accel_device *dev, uint32_t handle);
/**
 * accel_syncobj_wait() - wait until the syncobj's fence (@point 0: binary) or timeline
 * point @point has signalled (waiting for it to be submitted first).
 * Return: 0, -ETIME, -EINVAL, or another negative errno.
 */
int accel_syncobj_wait(struct accel_device *dev, uint32_t handle, uint64_t point,
		       int64_t timeout_ns);

/**
 * struct accel_sync - one syncobj operation of accel_submit_syncs().
 * @handle: the syncobj.
 * @point: timeline point (> 0), or 0 for a binary syncobj.
 * @signal: 1: the job's fence is put there when queued; 0: the job waits for it (it
 *	must have a fence already).
 */
struct accel_sync {
	uint32_t handle;
	uint64_t point;
	int signal;
};

/**
 * accel_submit_syncs() - accel_submit() with input and output syncobjs. The job starts
 * once its inputs have signalled (jobs behind it on @queue wait too). Through io_uring
 * the submission is issued before this returns.
 * Return: as accel_submit(); -EINVAL for more than DRM_MXA_MAX_SYNCS operations.
 */
int accel_submit_syncs(struct accel_device *dev, unsigned int queue, struct accel_bo *prog_bo,
		       size_t offset, size_t size, const struct accel_sync *syncs,
		       unsigned int num_syncs, struct accel_job **jobp);

/* ---- tensor maps ---------------------------------------------------------------- */

/**
 * struct accel_tensor_map_desc - a tiled view of a tensor in device memory for TMA, in
 * the spirit of cuTensorMapEncodeTiled().
 * @global_va: device VA of element (0, ..., 0); 16-byte aligned.
 * @rank: 1..5; dimension 0 is the innermost, contiguous one.
 * @elem_bytes: 1, 2, 4 or 8.
 * @dims: elements per dimension (>= 1).
 * @strides: bytes between consecutive indices of dimensions 1..rank-1: multiples of
 *	16, below 2^40, at least the bytes of one index of the dimension below.
 * @box: elements per dimension moved by one TMA command, 1..256; box[0] * elem_bytes a
 *	multiple of 16 (and at most the swizzle span); the whole box fits in SRAM.
 * @oob_fill: MXA_TMA_OOB_ZERO or MXA_TMA_OOB_NAN.
 * @swizzle: ACCEL_TMAP_SWIZZLE_*.
 */
struct accel_tensor_map_desc {
	uint64_t global_va;
	uint32_t rank, elem_bytes;
	uint32_t dims[5];
	uint64_t strides[4];
	uint32_t box[5];
	uint32_t oob_fill, swizzle;
};

/**
 * accel_tensor_map_encode() - check @desc field by field as the device's TMA will and
 * write the 128-byte tensor map (struct mxa_tensor_map) to @map, which the program
 * then references by device VA (copy it into a buffer).
 * @why: if not NULL, receives a sentence naming the first bad field.
 * Return: 0, or -EINVAL with @map untouched.
 */
int accel_tensor_map_encode(void *map, const struct accel_tensor_map_desc *desc,
			    char *why, size_t len);

/* ---- dma-buf sharing (PRIME) ------------------------------------------------------ */

/**
 * accel_bo_export_dmabuf() - a dma-buf file descriptor for @bo (drmPrimeHandleToFD()).
 * @bo: the buffer.
 * @flags: 0, or O_CLOEXEC and/or O_RDWR (<fcntl.h>). Without O_RDWR the dma-buf is
 *	read-only for whoever holds it: neither it nor an import of it can be mapped
 *	writable, by the CPU or in a device VM. The DRM core keeps one dma-buf per
 *	buffer for as long as @bo's handle lives: a later export returns that dma-buf,
 *	with the first export's access mode.
 * @fdp: out: the dma-buf; close() it when done (the buffer lives while it is open).
 *
 * Return: 0; -EINVAL (other flags); the kernel's error.
 */
int accel_bo_export_dmabuf(struct accel_bo *bo, unsigned int flags, int *fdp);

/**
 * accel_bo_import_dmabuf() - a buffer of @dev for the dma-buf @fd (drmPrimeFDToHandle()),
 * mapped in this process: CPU writes through either side are seen by the other.
 * @dev: the device.
 * @fd: a dma-buf from accel_bo_export_dmabuf() (@fd stays the caller's to close).
 * @bop: out: the buffer; accel_bo_free() closes its handle.
 *
 * A dma-buf of this device gives back the exporter's buffer object; one of another
 * device (another MXA device, or another driver's) becomes a buffer over the pages the
 * kernel maps for this device. Either way it has no VA in this handle's device VM
 * (accel_bo_va() 0; the exporter's VA means nothing here, a job using it faults) until
 * accel_vm_bind() maps it: then this handle's jobs read and write the shared memory.
 * It cannot hold a program (accel_submit() -EINVAL). A dma-buf exported without O_RDWR
 * imports read-only: accel_bo_map() is readable only, and accel_vm_bind() needs
 * ACCEL_VM_BIND_READ_ONLY (-EACCES otherwise).
 *
 * Return: 0; -EBADF (@fd not open); -EINVAL (@fd is not a dma-buf); -EOPNOTSUPP (a
 * dma-buf the kernel cannot import for this device); -EEXIST
 * (@dev already holds this buffer: it exported it or imported it before; use that
 * accel_bo); -ENOMEM.
 */
int accel_bo_import_dmabuf(struct accel_device *dev, int fd, struct accel_bo **bop);

#ifdef __cplusplus
}
#endif

#endif /* ACCEL_H */
