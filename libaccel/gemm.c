// SPDX-License-Identifier: MIT
/*
 * libaccel: matrix multiplication. accel_prog_gemm() emits the device's GEMM command
 * (uapi/mxa_isa.h); accel_gemm() runs one GEMM as a job and waits for it.
 */
#include <errno.h>
#include <string.h>

#include "accel_internal.h"
#include "mxa_isa.h"

_Static_assert((int)ACCEL_DT_E4M3 == (int)MXA_DTYPE_E4M3 && (int)ACCEL_DT_E2M1 == (int)MXA_DTYPE_E2M1 &&
	       (int)ACCEL_DT_MXINT8 == (int)MXA_DTYPE_MXINT8 && (int)ACCEL_DT_COUNT == (int)MXA_DTYPE_COUNT,
	       "libaccel element types are the ISA's");
_Static_assert((int)ACCEL_GEMM_ACCUMULATE == (int)MXA_GEMM_F_ACCUMULATE &&
	       (int)ACCEL_GEMM_SATFINITE == (int)MXA_GEMM_F_SATFINITE &&
	       (int)ACCEL_GEMM_B_KN == (int)MXA_GEMM_F_B_KN, "libaccel GEMM flags are the ISA's");

int accel_prog_gemm(struct accel_prog *prog, const struct accel_gemm *g)
{
	uint32_t cmd[MXA_GEMM_DWORDS];
	struct mxa_isa_gemm isa = { 0 };

	if (!g || g->m == 0 || g->n == 0 || g->k == 0 || g->type_a >= ACCEL_DT_COUNT ||
	    g->type_b >= ACCEL_DT_COUNT || g->type_c >= ACCEL_DT_COUNT ||
	    g->type_d >= ACCEL_DT_COUNT || (g->flags & ~(uint32_t)MXA_GEMM_F_ALL) ||
	    (g->scale_block != 0 && g->scale_block != 32) || g->accum > MXA_GEMM_ACCUM_FAST ||
	    g->sched > MXA_GEMM_SCHED_INTERWAVE)
		return -EINVAL;
	isa.m = g->m;
	isa.n = g->n;
	isa.k = g->k;
	isa.type_a = g->type_a;
	isa.type_b = g->type_b;
	isa.type_c = g->type_c;
	isa.type_d = g->type_d;
	isa.flags = g->flags;
	isa.scale_block = g->scale_block;
	isa.a = g->a;
	isa.b = g->b;
	isa.c = g->c;
	isa.d = g->d;
	isa.scale_a = g->scale_a;
	isa.scale_b = g->scale_b;
	isa.lda = g->lda;
	isa.ldb = g->ldb;
	isa.ldc = g->ldc;
	isa.ldd = g->ldd;
	isa.ld_scale_a = g->ld_scale_a;
	isa.ld_scale_b = g->ld_scale_b;
	isa.accum = g->accum;
	isa.sched = g->sched;
	cmd[0] = MXA_CMD_HEADER(MXA_OP_GEMM, MXA_GEMM_DWORDS, 0);
	memcpy(&cmd[1], &isa, sizeof(isa));
	return accel_prog_emit_command(prog, cmd, MXA_GEMM_DWORDS);
}

int accel_gemm(struct accel_device *dev, unsigned int queue, const struct accel_gemm *g,
	       struct accel_job_result *result)
{
	struct accel_prog *prog = NULL;
	struct accel_bo *bo = NULL;
	struct accel_job *job = NULL;
	int ret;

	ret = accel_prog_new(&prog);
	if (ret)
		return ret;
	ret = accel_prog_gemm(prog, g);
	if (!ret)
		ret = accel_bo_alloc(dev, accel_prog_size(prog), &bo);
	if (!ret)
		ret = accel_prog_upload(prog, bo, 0);
	if (!ret)
		ret = accel_submit(dev, queue, bo, 0, accel_prog_size(prog), &job);
	if (!ret)
		ret = accel_wait(job, -1);
	if (!ret) {
		if (result)
			*result = *accel_job_result(job);
		ret = accel_job_result(job)->status;
	}
	accel_job_free(job);
	accel_bo_free(bo);
	accel_prog_free(prog);
	return ret;
}
