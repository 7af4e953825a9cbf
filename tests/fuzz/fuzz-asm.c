// SPDX-License-Identifier: MIT
/*
 * fuzz-asm: a libFuzzer target for libaccel's assembler and disassembler, the parsers
 * of untrusted program text and program dwords (Documentation/hardening.rst). Built with
 * clang, -fsanitize=fuzzer,address,undefined (make fuzz-asm SECONDS=N; make check runs
 * a short one). An input whose first byte is even is assembly text (the rest, as a
 * string); odd, program dwords (the rest, little endian). The oracles:
 *   text:   accel_asm_ex() (with accel-run's .buffer and .tmap) accepts it, or rejects
 *           it with a message; what it accepts
 *           disassembles, and that text assembles to the same dwords;
 *   dwords: any dwords disassemble, and the text assembles to the same dwords;
 * and never a crash, a leak or undefined behaviour (ASan, UBSan: any report aborts).
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel.h"

#define MAX_INPUT	(64u << 10)

static struct accel_prog *again;

/* Disassemble @n dwords and assemble the text again: the same dwords, or abort. */
static void round_trip(const uint32_t *dw, size_t n)
{
	int len = accel_disasm(dw, n, 0, NULL, 0);
	char *text, err[512];

	if (len < 0)
		abort();
	text = malloc((size_t)len + 1);
	if (!text)
		abort();
	accel_disasm(dw, n, 0, text, (size_t)len + 1);
	accel_prog_reset(again);
	if (accel_asm(text, again, err, sizeof(err))) {
		fprintf(stderr, "fuzz-asm: the disassembly does not assemble: %s\n%s\n", err, text);
		abort();
	}
	if (accel_prog_size(again) != n * 4 || (n && memcmp(accel_prog_dwords(again), dw, n * 4))) {
		fprintf(stderr, "fuzz-asm: the disassembly assembles to other dwords:\n%s\n", text);
		abort();
	}
	free(text);
}

/* .buffer and .tmap as accel-run gives them, at made-up addresses. */
static int fake_buffer(void *arg, const char *name, uint64_t size, uint64_t *va)
{
	uint64_t *next = arg;

	if (size > (1ull << 40))
		return -1;
	*va = *next;
	*next += (size + 0xffff) & ~0xffffull;
	return 0;
}

static int fake_tmap(void *arg, const char *name, const void *map, uint64_t *va)
{
	return fake_buffer(arg, name, 128, va);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	uint64_t next = 1ull << 20;
	const struct accel_asm_opts opts = {
		.filename = "fuzz", .buffer = fake_buffer, .tensor_map = fake_tmap, .arg = &next,
	};
	struct accel_prog *p;
	char err[512] = "";

	if (!size || size > MAX_INPUT)
		return 0;
	if (!again && accel_prog_new(&again))
		abort();
	if (data[0] & 1) {
		size_t n = (size - 1) / 4;
		uint32_t *dw = malloc(n * 4 + 4);

		if (!dw)
			abort();
		memcpy(dw, data + 1, n * 4);
		round_trip(dw, n);
		free(dw);
		return 0;
	}
	char *text = malloc(size);

	if (!text || accel_prog_new(&p))
		abort();
	memcpy(text, data + 1, size - 1);
	text[size - 1] = 0;
	if (accel_asm_ex(text, &opts, p, err, sizeof(err)) == 0)
		round_trip(accel_prog_dwords(p), accel_prog_size(p) / 4);
	else if (!err[0])
		abort();	/* a rejection says why */
	accel_prog_free(p);
	free(text);
	return 0;
}
