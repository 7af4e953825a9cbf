// SPDX-License-Identifier: MIT
/*
 * libaccel: error codes and job results as text.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "accel_internal.h"
#include "mxa_isa_table.h"
#include "mxa_regs.h"

static const char *const accel_job_errors[] = {
	[MXA_ERR_NONE] = "no error",
	[MXA_ERR_UNKNOWN_OPCODE] = "unknown opcode",
	[MXA_ERR_BAD_LENGTH] = "command length wrong for its opcode",
	[MXA_ERR_TRUNCATED] = "command runs past the end of the program",
	[MXA_ERR_BAD_FLAGS] = "reserved command flags set",
	[MXA_ERR_MISALIGNED] = "address not aligned as the command requires",
	[MXA_ERR_MMU_FAULT] = "device MMU fault",
	[MXA_ERR_BAD_CONTEXT] = "invalid device context",
	[MXA_ERR_BAD_PROGRAM] = "bad program size",
	[MXA_ERR_ABORTED] = "aborted by a queue or device reset",
	[MXA_ERR_BAD_OPERAND] = "invalid math operands",
	[MXA_ERR_K_ALIGN] = "K must be a multiple of 64 for FP8 MX",
	[MXA_ERR_TOO_LARGE] = "operand larger than the device limit",
	[MXA_ERR_NO_MEMORY] = "device out of working memory",
	[MXA_ERR_LOOP_BUDGET] = "command budget of the job exceeded (runaway loop?)",
	[MXA_ERR_LOOP_NESTING] = "LOOP nested too deep or LOOP/ENDLOOP unbalanced",
	[MXA_ERR_BAD_REGISTER] = "no such scalar register",
	[MXA_ERR_SEM_TIMEOUT] = "semaphore wait timed out",
	[MXA_ERR_BAD_CLASS] = "COMMIT_GROUP/WAIT_GROUP on an unknown class",
	[MXA_ERR_BAD_TENSOR_MAP] = "invalid tensor map",
	[MXA_ERR_SRAM_RANGE] = "SRAM range out of bounds or misaligned",
	[MXA_ERR_MBARRIER] = "mbarrier misuse",
	[MXA_ERR_ACC_HAZARD] = "WGMMA accumulator used before the WAIT_GROUP that covers it",
	[MXA_ERR_TILE_RELEASED] = "tile used after release (name it with .reuse to keep it)",
	[MXA_ERR_TILE] = "bad tile operand (number, empty, shape or size)",
	[MXA_ERR_TMA_HAZARD] = "SRAM of a TMA load used before the MBAR_WAIT that observes it",
	[MXA_ERR_BLOCK] = "malformed split block (BSTART.CUBE ... B.IOT last)",
	[MXA_ERR_BAD_GRID] = "the job's grid or cluster shape cannot run on this device",
	[MXA_ERR_CLUSTER] = "cluster barrier or distributed SRAM misuse",
	[MXA_ERR_OPERAND_HAZARD] = "SRAM operand of a pending WGMMA overwritten before the WAIT_GROUP that covers it",
};

/* Entry @i of a table of texts indexed by a code, or @other for a code it lacks. */
#define REASON(table, i, other) \
	((size_t)(i) < sizeof(table) / sizeof((table)[0]) && (table)[i] ? (table)[i] : (other))

const char *accel_strerror(int err)
{
	if (err > 0)
		return REASON(accel_job_errors, err, "unknown job error");
	switch (err) {
	case 0:
		return "success";
	case -EIO:
		return "the job failed on the device (see its job error)";
	case -EFAULT:
		return "device MMU fault, or a bad user pointer";
	case -ETIME:
		return "timed out waiting (the job is still running)";
	case -ETIMEDOUT:
		return "the job timed out on the device";
	case -ECANCELED:
		return "the job was aborted (device or queue reset) or its submission cancelled";
	case -ENOENT:
		return "no such buffer handle, job id or device node";
	case -ENODEV:
		return "not an MXA device, or the device is gone";
	case -EOPNOTSUPP:
		return "not supported by this driver or device";
	case -EINVAL:
		return "invalid argument";
	case -ENOSPC:
		return "no space left (device VM, context ids, or buffer too small)";
	case -E2BIG:
		return "program larger than the device accepts";
	case -EAGAIN:
		return "resource temporarily unavailable";
	case -EBADF:
		return "not an open file descriptor";
	case -EEXIST:
		return "already exists (an overlapping VM mapping, or a buffer this device handle already holds)";
	default:
		return strerror(-err);
	}
}

const char *accel_opcode_name(uint32_t opcode)
{
	return mxa_isa_mnemonic(opcode);
}

const char *accel_cap_name(unsigned int bit)
{
#define CAP(name) { MXA_CAP_##name, #name }	/* the name after MXA_CAP_ */
	static const struct {
		uint64_t cap;
		const char *name;
	} caps[] = {
		CAP(NOP), CAP(FENCE_WRITE), CAP(MMU), CAP(TIMESTAMP), CAP(MSIX), CAP(GEMM),
		CAP(CONTROL), CAP(ASYNC), CAP(TMA), CAP(WGMMA), CAP(TILE), CAP(MMA), CAP(CVT),
		CAP(FENCE), CAP(HOPPER_NUMERICS), CAP(GRID),
	};
#undef CAP
	size_t i;

	for (i = 0; bit < 64 && i < sizeof(caps) / sizeof(caps[0]); i++)
		if (caps[i].cap == 1ull << bit)
			return caps[i].name;
	return NULL;
}

/* MXA_ERR_BAD_OPERAND's err_info (MXA_BADOP()): which operand, and why. */
static void accel_badop_text(uint32_t info, uint64_t value, char *buf, size_t len)
{
	static const char *const reasons[] = {
		[MXA_BADOP_INVALID] = "a field out of range or reserved bits set",
		[MXA_BADOP_DTYPE] = "unsupported type or type combination",
		[MXA_BADOP_SHAPE] = "a dimension is 0, above the command's limit, or no instruction shape",
		[MXA_BADOP_K_ALIGN] = "FP8 MX needs K % 64 == 0",
		[MXA_BADOP_SCALE] = "MX scales missing or unexpected, or a block other than 32",
		[MXA_BADOP_LAYOUT] = "leading dimension too small or layout unsupported",
		[MXA_BADOP_OVERFLOW] = "a size computation overflows",
		[MXA_BADOP_OPTION] = "unknown accumulation, scheduling or rounding option",
	};
	static const char *const operands[MXA_OPERAND_COUNT] = {
		[MXA_OPERAND_M] = "M", [MXA_OPERAND_N] = "N", [MXA_OPERAND_K] = "K",
		[MXA_OPERAND_TYPE_A] = "type_a", [MXA_OPERAND_TYPE_B] = "type_b",
		[MXA_OPERAND_TYPE_C] = "type_c", [MXA_OPERAND_TYPE_D] = "type_d",
		[MXA_OPERAND_SCALES] = "scales", [MXA_OPERAND_A] = "A", [MXA_OPERAND_B] = "B",
	};
	uint32_t reason = MXA_BADOP_REASON(info), operand = MXA_BADOP_OPERAND(info);
	const char *why = REASON(reasons, reason, "unknown reason");

	if (operand == MXA_OPERAND_A || operand == MXA_OPERAND_B)	/* descriptors */
		snprintf(buf, len, "%s = 0x%" PRIx64 ": %s", operands[operand], value, why);
	else if (operand && operand < MXA_OPERAND_COUNT)
		snprintf(buf, len, "%s = %" PRIu64 ": %s", operands[operand], value, why);
	else
		snprintf(buf, len, "%s (info 0x%x)", why, info);
}

static void accel_fault_text(uint32_t info, char *buf, size_t len)
{
	snprintf(buf, len, "%s%s%s",
		 info & MXA_FAULT_WRITE ? "write" : info & MXA_FAULT_READ ? "read" : "access",
		 info & MXA_FAULT_NOT_PRESENT ? ", page not mapped" : "",
		 info & MXA_FAULT_READ_ONLY ? ", page read-only" : "");
}

int accel_job_explain(const struct accel_job_result *r, char *buf, size_t len)
{
	char why[256];
	uint32_t op;

	if (r->status == 0)
		return snprintf(buf, len, "job %" PRIu64 " completed in %" PRIu64 " ns",
				r->job_id, r->end_ns - r->start_ns);
	if (!r->job_id)
		return snprintf(buf, len, "submission refused: %s (%d)",
				accel_strerror(r->status), r->status);
	if (!r->has_detail || !r->error)
		return snprintf(buf, len, "job %" PRIu64 " failed: %s (%d)", r->job_id,
				accel_strerror(r->status), r->status);

	op = MXA_CMD_OPCODE(r->err_opcode);
	if (r->error == MXA_ERR_MMU_FAULT) {
		char access[64];

		accel_fault_text(r->err_info, access, sizeof(access));
		snprintf(why, sizeof(why), "%s at device VA 0x%" PRIx64 " (%s)",
			 accel_strerror((int)r->error), r->err_addr, access);
	} else if (r->error == MXA_ERR_SEM_TIMEOUT) {
		snprintf(why, sizeof(why), "%s (semaphore at 0x%" PRIx64 ", %u us)",
			 accel_strerror((int)r->error), r->err_addr, r->err_info);
	} else if (r->error == MXA_ERR_BAD_TENSOR_MAP) {
		static const char *const fields[] = {
			[MXA_TMAP_RANK] = "rank", [MXA_TMAP_ELEM_BYTES] = "elem_bytes",
			[MXA_TMAP_OOB_FILL] = "oob_fill", [MXA_TMAP_SWIZZLE] = "swizzle",
			[MXA_TMAP_GLOBAL_ADDR] = "global_addr", [MXA_TMAP_BOX] = "box",
			[MXA_TMAP_DIMS] = "dims", [MXA_TMAP_STRIDES] = "strides",
			[MXA_TMAP_RESERVED] = "a reserved field",
		};
		const char *f = REASON(fields, r->err_info, "?");

		snprintf(why, sizeof(why), "%s (map at 0x%" PRIx64 ", field %u: %s)",
			 accel_strerror((int)r->error), r->err_addr, r->err_info, f);
	} else if (r->error == MXA_ERR_CLUSTER) {
		static const char *const reasons[] = {
			[MXA_CLUSTER_ERR_ARRIVE] = "CLUSTER_ARRIVE again before CLUSTER_WAIT",
			[MXA_CLUSTER_ERR_WAIT] = "CLUSTER_WAIT without a CLUSTER_ARRIVE before it",
			[MXA_CLUSTER_ERR_PEER_ENDED] = "a peer ended before arriving, or its SRAM was "
						       "used after it ended",
			[MXA_CLUSTER_ERR_OUTSIDE] = "a cluster address of no instance of the cluster",
			[MXA_CLUSTER_ERR_TIMEOUT] = "CLUSTER_WAIT waited longer than the device's "
						    "mbar-timeout-us",
		};
		const char *why_c = REASON(reasons, r->err_info, "?");

		if (r->err_info == MXA_CLUSTER_ERR_PEER_ENDED)
			snprintf(why, sizeof(why), "%s: %s (rank %" PRIu64 ")",
				 accel_strerror((int)r->error), why_c, r->err_addr);
		else if (r->err_info == MXA_CLUSTER_ERR_OUTSIDE)
			snprintf(why, sizeof(why), "%s: %s (0x%" PRIx64 ": rank %" PRIu64 ")",
				 accel_strerror((int)r->error), why_c, r->err_addr,
				 (r->err_addr - MXA_DSMEM_BASE) / MXA_DSMEM_STRIDE);
		else
			snprintf(why, sizeof(why), "%s: %s", accel_strerror((int)r->error), why_c);
	} else if (r->error == MXA_ERR_BAD_OPERAND &&
		   MXA_CMD_OPCODE(r->err_opcode) == MXA_OP_REG_CTA) {
		snprintf(why, sizeof(why), "bad operand: REG_CTA names no special register %u "
			 "(0..%u: %%ctaid.x .. %%cta)", r->err_info, MXA_SREG_COUNT - 1);
	} else if (r->error == MXA_ERR_BAD_OPERAND) {
		char what[160];

		accel_badop_text(r->err_info, r->err_addr, what, sizeof(what));
		snprintf(why, sizeof(why), "%s: %s", accel_strerror((int)r->error), what);
	} else if (r->error == MXA_ERR_BLOCK) {
		static const char *const reasons[] = {
			[MXA_BLOCK_ERR_OUTSIDE] = "a block part with no BSTART.CUBE before it",
			[MXA_BLOCK_ERR_NESTED] = "BSTART.CUBE inside an open block",
			[MXA_BLOCK_ERR_INSIDE] = "a command that is not a block part inside the block",
			[MXA_BLOCK_ERR_REPEATED] = "a part given twice",
			[MXA_BLOCK_ERR_MISSING] = "a part missing",
			[MXA_BLOCK_ERR_ORDER] = "parts out of order",
			[MXA_BLOCK_ERR_OPEN] = "the program ends before the block's last B.IOT",
			[MXA_BLOCK_ERR_OPERAND] = "an unknown instruction, LB or reserved field",
		};
		static const char *const parts[] = { "BSTART.CUBE", "B.DATR", "B.DIM ->LB0",
						     "B.DIM ->LB1", "B.DIM ->LB2", "B.IOT (A)",
						     "B.IOT (B, last)" };
		int part = r->err_info == MXA_BLOCK_ERR_REPEATED || r->err_info == MXA_BLOCK_ERR_MISSING ||
			   r->err_info == MXA_BLOCK_ERR_ORDER;

		snprintf(why, sizeof(why), "%s: %s%s%s", accel_strerror((int)r->error),
			 REASON(reasons, r->err_info, "unknown reason"),
			 part && r->err_addr < 7 ? ": " : "",
			 part && r->err_addr < 7 ? parts[r->err_addr] : "");
	} else if (r->error == MXA_ERR_MBARRIER) {
		static const char *const reasons[] = {
			[MXA_MBAR_ERR_UNINIT] = "not initialised by MBAR_INIT",
			[MXA_MBAR_ERR_ARRIVALS] = "more arrivals than its count in one phase",
			[MXA_MBAR_ERR_DEADLOCK] = "waiting for a phase nothing can complete",
			[MXA_MBAR_ERR_TX] = "transaction count out of range",
			[MXA_MBAR_ERR_TIMEOUT] = "the phase did not complete within mbar-timeout-us",
		};

		snprintf(why, sizeof(why), "%s at SRAM 0x%" PRIx64 ": %s", accel_strerror((int)r->error),
			 r->err_addr, REASON(reasons, r->err_info, "unknown reason"));
	} else if (r->error == MXA_ERR_BAD_REGISTER) {
		snprintf(why, sizeof(why), "%s (info %u)", accel_strerror((int)r->error),
			 r->err_info);
	} else {
		snprintf(why, sizeof(why), "%s", accel_strerror((int)r->error));
	}
	return snprintf(buf, len,
			"job %" PRIu64 " failed: %s [MXA_ERR %u] in command %s (opcode 0x%02x, header 0x%08x) at program offset 0x%x",
			r->job_id, why, r->error, accel_opcode_name(op), op, r->err_opcode,
			r->err_offset);
}
