// SPDX-License-Identifier: MIT
/*
 * Host test: the ISA table of uapi/mxa_isa_table.h is consistent, the documentation's
 * summary matches it, every command's text form survives the disassembler and the
 * assembler, and no other source file spells a mnemonic.
 *
 * Runs from the top of the tree (make check does).
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "kselftest_harness.h"

#include "accel.h"
#include "mxa_isa_table.h"

static int ncommands(void)
{
	int n = 0;

	for (unsigned int op = 0; op < MXA_ISA_OPCODES; op++)
		n += mxa_isa_lookup(op) != NULL;
	return n;
}

/* Operands that name a dword of the command must stay inside it. */
static int opnd_fits(const struct mxa_isa_opnd *o, unsigned int dwords)
{
	switch (o->kind) {
	case MXA_OPND_U64:
		return o->dw + 1u < dwords;
	case MXA_OPND_RI64:
		return o->dw + 1u < dwords && o->rdw < dwords && o->rshift <= 24;
	case MXA_OPND_RI32:
	case MXA_OPND_RRI64:
		return o->dw < dwords && o->rdw < dwords && o->rshift <= 24;
	case MXA_OPND_U32:
	case MXA_OPND_SHAPE:
	case MXA_OPND_TILE:
	case MXA_OPND_REG:
	case MXA_OPND_DTYPE:
		return o->dw >= 1 && o->dw < dwords && o->shift <= 24;
	default:
		return 1;
	}
}

TEST(table_is_consistent)
{
	ASSERT_LT(20, ncommands());
	for (unsigned int op = 0; op < MXA_ISA_OPCODES; op++) {
		const struct mxa_isa_cmd *c = mxa_isa_lookup(op);
		unsigned int suffix_bits = 0, classes = 0;

		if (!c)
			continue;
		EXPECT_EQ(op, c->opcode) TH_LOG("%s", c->mnemonic);
		EXPECT_LE(1, c->dwords);
		EXPECT_NE(0, strlen(c->mnemonic));
		for (const char *p = c->mnemonic; *p; p++)
			EXPECT_TRUE(isupper((unsigned char)*p) || *p == '_');
		for (unsigned int o = op + 1; o < MXA_ISA_OPCODES; o++)
			if (mxa_isa_lookup(o))
				EXPECT_NE(0, strcasecmp(c->mnemonic, mxa_isa_lookup(o)->mnemonic));
		for (int i = 0; i < MXA_ISA_MAX_SUFFIXES && c->suffix[i].name; i++) {
			unsigned int bit = c->suffix[i].bit;

			EXPECT_EQ('.', c->suffix[i].name[0]);
			EXPECT_EQ(0, bit & (bit - 1));		/* one flag each */
			EXPECT_NE(0, bit & c->flags);		/* a flag the command defines */
			EXPECT_EQ(0, bit & suffix_bits);	/* named once */
			suffix_bits |= bit;
		}
		for (int i = 0; i < MXA_ISA_MAX_OPNDS; i++) {
			EXPECT_TRUE(opnd_fits(&c->opnd[i], c->dwords));
			classes += c->opnd[i].kind == MXA_OPND_CLASS;
		}
		/* a class in the header flags is an operand, and then the flags are not flags */
		EXPECT_EQ(!!(c->attrs & MXA_ISA_A_CLASS), classes);
		if (c->attrs & MXA_ISA_A_CLASS)
			EXPECT_EQ(0, c->flags);
		EXPECT_NE(MXA_ISA_A_QUICK | MXA_ISA_A_BLOCKING,
			  c->attrs & (MXA_ISA_A_QUICK | MXA_ISA_A_BLOCKING));
	}
}

TEST(error_texts_name_every_command)
{
	for (unsigned int op = 0; op < MXA_ISA_OPCODES; op++) {
		const struct mxa_isa_cmd *c = mxa_isa_lookup(op);

		EXPECT_STREQ(!c ? "?" : c->text ? c->text : c->mnemonic, accel_opcode_name(op));
	}
}

/* Documentation/isa.rst, "Commands": one row per command, in opcode order. */
TEST(documentation_summary_matches_the_table)
{
	FILE *f = fopen("Documentation/isa.rst", "r");
	char line[512];
	int rules = 0, rows = 0;
	unsigned int next = 0;

	ASSERT_NE(NULL, f);
	while (fgets(line, sizeof(line), f) && rules < 3) {
		char name[64], suffixes[256] = "", want[256] = "";
		unsigned int opcode, dwords;
		const struct mxa_isa_cmd *c;
		int used = 0;

		if (!strncmp(line, "====", 4) && strstr(line, "=  ======  ======  ====")) {
			rules++;
			continue;
		}
		if (rules != 2)
			continue;
		ASSERT_EQ(3, sscanf(line, "``%63[A-Z_.]``  0x%x %u %n", name, &opcode, &dwords, &used))
			TH_LOG("row: %s", line);
		snprintf(suffixes, sizeof(suffixes), "%s", line + used);
		suffixes[strcspn(suffixes, "\n")] = 0;
		while (next < MXA_ISA_OPCODES && !mxa_isa_lookup(next))
			next++;
		c = mxa_isa_lookup(next++);
		ASSERT_NE(NULL, c) TH_LOG("the summary has %s, the table no more commands", name);
		EXPECT_STREQ(c->text ? c->text : c->mnemonic, name);
		EXPECT_EQ(c->opcode, opcode) TH_LOG("%s", name);
		EXPECT_EQ(c->dwords, dwords) TH_LOG("%s", name);
		for (int i = 0; i < MXA_ISA_MAX_SUFFIXES && c->suffix[i].name; i++)
			snprintf(want + strlen(want), sizeof(want) - strlen(want), "%s``%s``",
				 i ? " " : "", c->suffix[i].name);
		EXPECT_STREQ(want, suffixes) TH_LOG("%s", name);
		rows++;
	}
	fclose(f);
	EXPECT_EQ(3, rules);
	EXPECT_EQ(ncommands(), rows);
}

/*
 * Operands zero except where zero has no text form: tile operands name a tile, MMA a
 * shape, TMATMULMX an FP8 problem in tiles.
 */
static void plausible_operands(const struct mxa_isa_cmd *c, uint32_t *dw)
{
	uint32_t flags = MXA_CMD_FLAGS(dw[0]);

	for (int i = 0; i < MXA_ISA_MAX_OPNDS; i++)
		if (c->opnd[i].kind == MXA_OPND_TILE)
			dw[c->opnd[i].dw] |= MXA_TILE(MXA_TILE_T, 1) << c->opnd[i].shift;
	for (int i = 0; i < MXA_ISA_MAX_OPNDS; i++)
		if (mxa_isa_opnd_is_tile(c, &c->opnd[i], dw[0]))
			dw[c->opnd[i].dw] = MXA_TILE(MXA_TILE_T, 0);
	if (c->opcode == MXA_OP_MMA) {
		dw[2] = MXA_MMA_SHAPE(16, 8, 16);
		if (flags & MXA_MMA_F_TILES) {
			dw[3] = MXA_TILE(MXA_TILE_T, 0);
			dw[4] = MXA_TILE(MXA_TILE_M, 0);
			dw[5] = MXA_TILE(MXA_TILE_ACC, 0);
		}
	}
	if (c->opcode == MXA_OP_BSTART_CUBE)
		dw[1] = MXA_CUBE_MAMULBMX;
	if (c->opcode == MXA_OP_B_IOT)
		dw[1] = MXA_TILE(MXA_TILE_T, 1);
	if (c->opcode == MXA_OP_TMATMULMX) {
		dw[1] = MXA_REGS3(MXA_DTYPE_E4M3, MXA_DTYPE_E4M3, 0);
		dw[2] = dw[3] = 32;
		dw[4] = 64;
		dw[6] = MXA_TILE(MXA_TILE_T, 1) | MXA_TILE(MXA_TILE_U, 1) << 16;
		dw[7] = MXA_TILE(MXA_TILE_M, 1) | MXA_TILE(MXA_TILE_N, 1) << 16;
		dw[8] = MXA_TILE(MXA_TILE_ACC, 1);
		dw[9] = 64 << 10;
	}
}

/*
 * Each command, with plausible operands and then with each of its suffixes:
 * the disassembler prints its mnemonic (or its PTX spelling), and what it prints
 * assembles to the same dwords.
 */
TEST(every_command_survives_disassembly)
{
	for (unsigned int op = 0; op < MXA_ISA_OPCODES; op++) {
		const struct mxa_isa_cmd *c = mxa_isa_lookup(op);

		if (!c)
			continue;
		for (int s = -1; s < MXA_ISA_MAX_SUFFIXES; s++) {
			uint32_t dw[64] = { 0 }, again[64];
			char text[512], src[600];
			struct accel_prog *prog;
			size_t at, extra;
			char err[256] = "";

			if (s >= 0 && !c->suffix[s].name)
				break;
			dw[0] = MXA_CMD_HEADER(op, c->dwords, s >= 0 ? c->suffix[s].bit : 0);
			plausible_operands(c, dw);
			size_t used = 0;

			ASSERT_LT(0, accel_disasm_cmd(dw, c->dwords, 0, text, sizeof(text), &used));
			ASSERT_EQ(c->dwords, used) TH_LOG("%s", c->mnemonic);
			/* the mnemonic or a PTX spelling, never the .dword fallback */
			EXPECT_TRUE(!strncasecmp(text, mxa_isa_mnemonic(op), strlen(mxa_isa_mnemonic(op))) ||
				    islower((unsigned char)text[0]))
				TH_LOG("%s printed as '%s'", c->mnemonic, text);
			/* a LOOP needs its ENDLOOP and the other way round */
			snprintf(src, sizeof(src), "%s%s%s", op == MXA_OP_ENDLOOP ? "LOOP 1\n" : "",
				 text, op == MXA_OP_LOOP ? "\nENDLOOP" : "");
			at = op == MXA_OP_ENDLOOP ? MXA_LOOP_DWORDS : 0;
			extra = op == MXA_OP_LOOP ? MXA_ENDLOOP_DWORDS : at;
			ASSERT_EQ(0, accel_prog_new(&prog));
			ASSERT_EQ(0, accel_asm(src, prog, err, sizeof(err))) TH_LOG("'%s': %s", src, err);
			ASSERT_EQ(c->dwords + extra, accel_prog_size(prog) / 4) TH_LOG("'%s'", text);
			memcpy(again, accel_prog_dwords(prog) + at, c->dwords * 4);
			EXPECT_EQ(0, memcmp(dw, again, c->dwords * 4)) TH_LOG("'%s'", text);
			accel_prog_free(prog);
		}
	}
}

/*
 * The string of a mnemonic appears in the table only: no source file of the device,
 * driver, library or tools writes "NOP" or "GEMM" as a C string (tests may, as
 * expectations). The table itself makes its strings from the opcodes' names.
 */
TEST(mnemonics_are_written_once)
{
	FILE *ls = popen("git ls-files -- 'uapi/*.h' 'libaccel/*.[ch]' 'qemu-device/*.[ch]' "
			 "'driver/*.[ch]' 'bench/*.[ch]' 'tests/fuzz/*.c' 'tests/stress/*.c' "
			 "2>/dev/null", "r");
	char path[512];
	int files = 0;

	ASSERT_NE(NULL, ls);
	while (fgets(path, sizeof(path), ls)) {
		FILE *f;
		char line[1024];
		int lineno = 0;

		path[strcspn(path, "\n")] = 0;
		f = fopen(path, "r");
		if (!f)
			continue;
		files++;
		while (fgets(line, sizeof(line), f)) {
			lineno++;
			for (unsigned int op = 0; op < MXA_ISA_OPCODES; op++) {
				const struct mxa_isa_cmd *c = mxa_isa_lookup(op);
				char quoted[64];

				if (!c)
					continue;
				snprintf(quoted, sizeof(quoted), "\"%s\"", c->mnemonic);
				EXPECT_EQ(NULL, strstr(line, quoted))
					TH_LOG("%s:%d spells %s", path, lineno, quoted);
			}
		}
		fclose(f);
	}
	pclose(ls);
	EXPECT_LT(50, files);
}

TEST_HARNESS_MAIN
