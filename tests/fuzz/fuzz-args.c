// SPDX-License-Identifier: MIT
/*
 * fuzz-args: a libFuzzer target for the driver's argument decoding (driver/mxa_args.h:
 * the checks mxa.ko makes on every ioctl and io_uring command before it looks anything
 * up), compiled in userspace (Documentation/hardening.rst). The input picks a command
 * and fills its argument struct, each field biased to edge values by a selector byte.
 * The oracle: the rules as uapi/drm/mxa_accel.h words them, restated here one rule per
 * line in 128-bit arithmetic (no product or sum can wrap), must give the same verdict
 * and errno as the driver's code; and ASan/UBSan must stay quiet.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "fuzz_edge.h"
#include "mxa_args.h"

typedef unsigned __int128 u128;

struct input {
	const uint8_t *p;
	size_t n;
};

static uint64_t take(struct input *in, unsigned int bytes)
{
	uint64_t v = 0;

	for (unsigned int i = 0; i < bytes && in->n; i++, in->p++, in->n--)
		v |= (uint64_t)*in->p << (8 * i);
	return v;
}

/* A field of @bits bits: raw, an edge of the uAPI's limits, or near the top. */
static uint64_t field(struct input *in, unsigned int bits)
{
	static const uint64_t pick[] = {
		0, 1, 2, 3, 4, 5, 7, 8, 9, 15, 16, 17, 47, 48, 49, 64, 65, 255, 256, 4095,
		4096, 4097, 8192, 65535, 65536, 65537, 0x100000, 0xff000, 1u << 24, (1u << 24) + 4,
		1u << 30, (1u << 30) + 1, 1ull << 39, (1ull << 39) - 4096, (1ull << 39) + 4096,
	};
	uint8_t sel = (uint8_t)take(in, 1);
	uint64_t raw = take(in, (bits + 7) / 8);

	/* page multiples for the aligned choice */
	return fuzz_edge(sel, raw, bits, pick, sizeof(pick) / sizeof(pick[0]), 12, 12);
}

static void check(const char *cmd, int got, int want)
{
	if (got != want) {
		fprintf(stderr, "fuzz-args: %s: the driver's check gives %d, the uAPI's rules %d\n",
			cmd, got, want);
		abort();
	}
}

static u128 one_if_zero(u128 v)
{
	return v ? v : 1;
}

/* struct drm_mxa_submit's documentation, rule by rule, in its order. */
static int rule_submit(const struct drm_mxa_submit *a, bool ioctl, bool grid, u32 cores)
{
	u128 gx = one_if_zero(a->grid_x), gy = one_if_zero(a->grid_y);
	u128 cx = one_if_zero(a->cluster_x), cy = one_if_zero(a->cluster_y);

	if (a->flags != 0 || a->pad != 0)
		return -EINVAL;
	if (ioctl && (a->result_ptr != 0 || a->result_size != 0))	/* "must be 0" */
		return -EINVAL;
	if (a->result_size != 0 && (a->result_size < 48 || a->result_ptr == 0))
		return -EINVAL;
	if (a->prog_size == 0 || a->prog_size > (1u << 24) || a->prog_size % 4 ||
	    a->prog_offset % 4)
		return -EINVAL;
	if (a->syncs.count != 0 && (a->syncs.count > 64 || a->syncs.stride < 16))
		return -EINVAL;
	if (gx * gy == 1 && cx * cy == 1)	/* no grid: any device */
		return 0;
	if (!grid)
		return -EOPNOTSUPP;
	if (gx * gy > 65536 || cx * cy > 8 || cx * cy > cores || gx % cx != 0 || gy % cy != 0)
		return -EINVAL;
	return 0;
}

static int rule_sync_op(const struct drm_mxa_sync_op *op)
{
	int timeline = !!(op->flags & 2);

	if (op->flags & ~3u)
		return -EINVAL;
	if (timeline ? op->timeline_value == 0 : op->timeline_value != 0)
		return -EINVAL;
	return 0;
}

static int rule_vm_bind(const struct drm_mxa_vm_bind *a)
{
	if (a->pad != 0 || a->size == 0 || a->size % 4096 || a->va % 4096 || a->bo_offset % 4096)
		return -EINVAL;
	if (a->op == 0)	/* MAP */
		return (a->flags & ~1u) || a->va < 0x100000 ||
		       (u128)a->va + a->size > ((u128)1 << 39) ? -EINVAL : 0;
	if (a->op == 1)	/* UNMAP */
		return a->flags || a->handle || a->bo_offset ? -EINVAL : 0;
	return -EINVAL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	unsigned int cmd = (unsigned int)take(&in, 1);

	switch (cmd % 9) {
	case 0: {
		struct drm_mxa_submit a = {
			.prog_handle = (u32)field(&in, 32), .queue = (u32)field(&in, 32),
			.prog_offset = (u32)field(&in, 32), .prog_size = (u32)field(&in, 32),
			.flags = (u32)field(&in, 32), .result_size = (u32)field(&in, 32),
			.result_ptr = field(&in, 64),
			.syncs = { .stride = (u32)field(&in, 32), .count = (u32)field(&in, 32) },
			.grid_x = (u16)field(&in, 16), .grid_y = (u16)field(&in, 16),
			.cluster_x = (u8)field(&in, 8), .cluster_y = (u8)field(&in, 8),
			.pad = (u16)field(&in, 16),
		};
		bool ioctl = cmd & 16, grid = cmd & 32;
		u32 cores = 1 + (u32)take(&in, 1) % 16;

		check("submit", mxa_args_submit(&a, ioctl, grid, cores),
		      rule_submit(&a, ioctl, grid, cores));
		break;
	}
	case 1: {
		struct drm_mxa_sync_op op = { .flags = (u32)field(&in, 32),
					      .timeline_value = field(&in, 64) };

		check("sync op", mxa_args_sync_op(&op), rule_sync_op(&op));
		break;
	}
	case 2: {
		struct drm_mxa_vm_bind a = {
			.op = (u32)field(&in, 32), .flags = (u32)field(&in, 32),
			.handle = (u32)field(&in, 32), .pad = (u32)field(&in, 32),
			.bo_offset = field(&in, 64), .va = field(&in, 64), .size = field(&in, 64),
		};

		check("vm bind", mxa_args_vm_bind(&a), rule_vm_bind(&a));
		break;
	}
	case 3: {
		struct drm_mxa_bo_create a = { .size = field(&in, 64), .flags = (u32)field(&in, 32) };

		check("bo create", mxa_args_bo_create(&a),
		      a.flags || a.size == 0 || a.size > (1u << 30) ? -EINVAL : 0);
		break;
	}
	case 4: {
		struct drm_mxa_queue_create a = { .hw_queue = (u32)field(&in, 32),
						  .priority = (u32)field(&in, 32),
						  .flags = (u32)field(&in, 32) };
		u32 nq = 1 + (u32)take(&in, 1) % 8;

		check("queue create", mxa_args_queue_create(&a, nq),
		      a.flags || a.hw_queue >= nq || a.priority > 2 ? -EINVAL : 0);
		break;
	}
	case 5: {
		struct drm_mxa_queue_destroy a = { .queue_id = (u32)field(&in, 32),
						   .flags = (u32)field(&in, 32) };

		check("queue destroy", mxa_args_queue_destroy(&a),
		      a.flags || a.queue_id < 16 ? -EINVAL : 0);
		break;
	}
	case 6: {
		struct drm_mxa_commit_group a = { .queue = (u32)field(&in, 32),
						  .flags = (u32)field(&in, 32) };

		check("commit group", mxa_args_commit_group(&a), a.flags ? -EINVAL : 0);
		break;
	}
	case 7: {
		struct drm_mxa_wait_group a = { .queue = (u32)field(&in, 32), .n = (u32)field(&in, 32),
						.timeout_ns = (s64)field(&in, 64),
						.flags = (u32)field(&in, 32), .pad = (u32)field(&in, 32) };

		check("wait group", mxa_args_wait_group(&a),
		      a.flags || a.pad || a.timeout_ns < 0 ? -EINVAL : 0);
		break;
	}
	default: {
		struct drm_mxa_wait a = { .job_id = field(&in, 64), .timeout_ns = (s64)field(&in, 64),
					  .flags = (u32)field(&in, 32), .pad = (u32)field(&in, 32) };

		check("wait", mxa_args_wait(&a), a.flags || a.pad || a.timeout_ns < 0 ? -EINVAL : 0);
		break;
	}
	}
	return 0;
}
