// SPDX-License-Identifier: MIT
/*
 * libaccel: the program builder. Encodings come from uapi/mxa_isa.h.
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "accel_internal.h"
#include "asm_internal.h"
#include "mxa_isa.h"

struct accel_prog {
	uint32_t *dw;
	size_t len;		/* dwords used */
	size_t cap;		/* dwords allocated */
	size_t commands;
};

int accel_prog_new(struct accel_prog **progp)
{
	*progp = calloc(1, sizeof(**progp));
	return *progp ? 0 : -ENOMEM;
}

void accel_prog_free(struct accel_prog *prog)
{
	if (!prog)
		return;
	free(prog->dw);
	free(prog);
}

void accel_prog_reset(struct accel_prog *prog)
{
	prog->len = 0;
	prog->commands = 0;
}

/* Room for @n more dwords, or -ENOMEM (program unchanged). */
static int accel_prog_reserve(struct accel_prog *prog, size_t n)
{
	size_t cap;
	uint32_t *dw;

	if (n > MXA_PROG_MAX_SIZE / 4 - prog->len)
		return -E2BIG;
	if (prog->len + n <= prog->cap)
		return 0;
	cap = prog->cap ? prog->cap : 64;
	while (cap < prog->len + n)
		cap *= 2;
	dw = realloc(prog->dw, cap * sizeof(*dw));
	if (!dw)
		return -ENOMEM;
	prog->dw = dw;
	prog->cap = cap;
	return 0;
}

/* Append one whole command (the emitters of other files use this too). */
int accel_prog_emit_command(struct accel_prog *prog, const uint32_t *dw, size_t n)
{
	int ret = accel_prog_reserve(prog, n);

	if (ret)
		return ret;
	memcpy(prog->dw + prog->len, dw, n * sizeof(*dw));
	prog->len += n;
	prog->commands++;
	return 0;
}

int accel_prog_nop(struct accel_prog *prog)
{
	const uint32_t dw[MXA_NOP_DWORDS] = {
		MXA_CMD_HEADER(MXA_OP_NOP, MXA_NOP_DWORDS, 0),
	};

	return accel_prog_emit_command(prog, dw, MXA_NOP_DWORDS);
}

int accel_prog_fence_write(struct accel_prog *prog, uint64_t va, uint64_t value)
{
	const uint32_t dw[MXA_FENCE_WRITE_DWORDS] = {
		MXA_CMD_HEADER(MXA_OP_FENCE_WRITE, MXA_FENCE_WRITE_DWORDS, 0),
		(uint32_t)va, (uint32_t)(va >> 32),
		(uint32_t)value, (uint32_t)(value >> 32),
	};

	if (va & 7)
		return -EINVAL;
	return accel_prog_emit_command(prog, dw, MXA_FENCE_WRITE_DWORDS);
}

int accel_prog_timestamp_reg(struct accel_prog *prog, int model, uint64_t va, unsigned int reg)
{
	const uint32_t dw[MXA_TIMESTAMP_DWORDS] = {
		MXA_CMD_HEADER(MXA_OP_TIMESTAMP, MXA_TIMESTAMP_DWORDS,
			       (model ? MXA_TIMESTAMP_F_MODEL : 0) | MXA_TIMESTAMP_REG(reg)),
		(uint32_t)va, (uint32_t)(va >> 32),
	};

	if ((va & 7) || reg >= MXA_NUM_REGS)
		return -EINVAL;
	return accel_prog_emit_command(prog, dw, MXA_TIMESTAMP_DWORDS);
}

int accel_prog_timestamp(struct accel_prog *prog, uint64_t va)
{
	return accel_prog_timestamp_reg(prog, 0, va, 0);
}

int accel_prog_timestamp_model(struct accel_prog *prog, uint64_t va)
{
	return accel_prog_timestamp_reg(prog, 1, va, 0);
}

int accel_prog_raw(struct accel_prog *prog, const uint32_t *dwords, size_t count)
{
	int ret = accel_prog_reserve(prog, count);

	if (ret)
		return ret;
	memcpy(prog->dw + prog->len, dwords, count * sizeof(*dwords));
	prog->len += count;
	return 0;
}

size_t accel_prog_size(const struct accel_prog *prog)
{
	return prog->len * sizeof(uint32_t);
}

const uint32_t *accel_prog_dwords(const struct accel_prog *prog)
{
	return prog->dw;
}

size_t accel_prog_commands(const struct accel_prog *prog)
{
	return prog->commands;
}

int accel_prog_upload(const struct accel_prog *prog, struct accel_bo *bo, size_t offset)
{
	size_t size = accel_prog_size(prog);

	if (!size || (offset & 3))
		return -EINVAL;
	if (offset > bo->size || size > bo->size - offset)
		return -ENOSPC;
	memcpy((char *)bo->map + offset, prog->dw, size);
	return 0;
}

void accel_prog_rewind(struct accel_prog *prog, size_t len, size_t commands)
{
	if (len <= prog->len)
		prog->len = len;
	prog->commands = commands;
}
