// SPDX-License-Identifier: MIT
/*
 * libaccel: the assembler's lexer: whitespace and comments, identifiers, numbers with
 * K/M/G suffixes, symbols (labels, .equ) and value expressions "sym + r3 - 16".
 */
#include <ctype.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "accel_internal.h"
#include "asm_internal.h"
#include "asm_lex.h"
#include "mxa_isa.h"
void __attribute__((noreturn, format(printf, 3, 4)))
asm_fail(struct asm_ctx *c, const char *at, const char *fmt, ...)
{
	const char *file = c->opts && c->opts->filename ? c->opts->filename : NULL;
	char msg[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (c->err && c->err_len)
		snprintf(c->err, c->err_len, "%s%s%d:%d: %s", file ? file : "", file ? ":" : "",
			 c->line, at ? (int)(at - c->line_start) + 1 : 1, msg);
	longjmp(c->fail, 1);
}

int asm_at_comment(const char *p)
{
	return *p == ';' || (p[0] == '/' && p[1] == '/');
}

void asm_skip_ws(struct asm_ctx *c)
{
	while (*c->p == ' ' || *c->p == '\t' || *c->p == '\r')
		c->p++;
}

int asm_at_end(struct asm_ctx *c)
{
	asm_skip_ws(c);
	return !*c->p || *c->p == '\n' || asm_at_comment(c->p);
}

int asm_tok_accept(struct asm_ctx *c, char ch)
{
	asm_skip_ws(c);
	if (*c->p != ch)
		return 0;
	c->p++;
	return 1;
}

const char *asm_tok_text(const char *p)
{
	static __thread char buf[32];
	size_t n = 0;

	if (!*p || *p == '\n')
		return "end of line";
	while (p[n] && p[n] != '\n' && p[n] != ' ' && p[n] != '\t' && n < 20)
		n++;
	snprintf(buf, sizeof(buf), "'%.*s'", (int)n, p);
	return buf;
}

void asm_expect(struct asm_ctx *c, char ch)
{
	if (!asm_tok_accept(c, ch))
		asm_fail(c, c->p, "expected '%c', found %s", ch, asm_tok_text(c->p));
}

int asm_ident_start(char ch)
{
	return isalpha((unsigned char)ch) || ch == '_';
}

int asm_ident_char(char ch)
{
	return isalnum((unsigned char)ch) || ch == '_' || ch == '.';
}

/* An identifier at c->p: its length (0 if none); c->p stays. */
size_t asm_ident_len(struct asm_ctx *c)
{
	size_t n = 0;

	asm_skip_ws(c);
	if (!asm_ident_start(*c->p))
		return 0;
	while (asm_ident_char(c->p[n]))
		n++;
	return n;
}

/*
 * rN / aN (lowercase only, so that a symbol A1 stays a symbol): the register number
 * (aN is MXA_AREG(N)), MXA_NUM_REGS for a register name past the last one, or -1 if
 * the identifier is no register name.
 */
int asm_reg_number(const char *s, size_t n)
{
	int v = 0;

	if (n < 2 || (s[0] != 'r' && s[0] != 'a'))
		return -1;
	for (size_t i = 1; i < n; i++) {
		if (!isdigit((unsigned char)s[i]) || v > 1000)
			return -1;
		v = v * 10 + (s[i] - '0');
	}
	if (v >= MXA_NUM_GPRS)
		return MXA_NUM_REGS;
	return s[0] == 'a' ? MXA_AREG(v) : v;
}

struct asm_sym *asm_sym_find(struct asm_ctx *c, const char *name, size_t n)
{
	for (size_t i = 0; i < c->nsyms; i++)
		if (strlen(c->syms[i].name) == n && !strncmp(c->syms[i].name, name, n))
			return &c->syms[i];
	return NULL;
}

void asm_sym_define(struct asm_ctx *c, const char *at, const char *name, size_t n,
		       uint64_t value, int is_label)
{
	struct asm_sym *s = asm_sym_find(c, name, n);

	if (asm_reg_number(name, n) >= 0)
		asm_fail(c, at, "'%.*s' is a register name", (int)n, name);
	if (s) {
		if (c->pass == 1)
			asm_fail(c, at, "'%.*s' defined twice", (int)n, name);
		s->value = value;	/* pass 2: .equ values may now see later labels */
		return;
	}
	if (c->nsyms == c->cap) {
		size_t cap = c->cap ? 2 * c->cap : 32;
		struct asm_sym *ns = realloc(c->syms, cap * sizeof(*ns));

		if (!ns)
			asm_fail(c, at, "out of memory");
		c->syms = ns;
		c->cap = cap;
	}
	c->syms[c->nsyms].name = strndup(name, n);
	if (!c->syms[c->nsyms].name)
		asm_fail(c, at, "out of memory");
	c->syms[c->nsyms++].value = value;
	(void)is_label;
}

uint64_t asm_parse_number(struct asm_ctx *c)
{
	const char *start = c->p;
	uint64_t v = 0, base = 10;
	int digits = 0;

	if (c->p[0] == '0' && (c->p[1] == 'x' || c->p[1] == 'X')) {
		base = 16;
		c->p += 2;
	} else if (c->p[0] == '0' && (c->p[1] == 'b' || c->p[1] == 'B')) {
		base = 2;
		c->p += 2;
	}
	for (;; c->p++, digits++) {
		int d;

		if (isdigit((unsigned char)*c->p))
			d = *c->p - '0';
		else if (base == 16 && isxdigit((unsigned char)*c->p))
			d = tolower((unsigned char)*c->p) - 'a' + 10;
		else if (*c->p == '_' && digits)
			continue;
		else
			break;
		if (d >= (int)base)
			break;
		if (v > (UINT64_MAX - d) / base)
			asm_fail(c, start, "number too large");
		v = v * base + d;
	}
	if (!digits)
		asm_fail(c, start, "bad number");
	if (base == 10 && (*c->p == 'K' || *c->p == 'M' || *c->p == 'G')) {
		unsigned sh = *c->p == 'K' ? 10 : *c->p == 'M' ? 20 : 30;

		c->p++;
		if (*c->p == 'i' && c->p[1] == 'B')
			c->p += 2;
		else if (*c->p == 'B')
			c->p++;
		if (v >> (64 - sh))
			asm_fail(c, start, "number too large");
		v <<= sh;
	}
	if (isalnum((unsigned char)*c->p) || *c->p == '_')
		asm_fail(c, start, "bad number");
	return v;
}

/* value := [+|-] term { (+|-) term }; term := number | symbol | register */
void asm_parse_expr(struct asm_ctx *c, int max_regs, struct asm_expr *e)
{
	int neg;

	memset(e, 0, sizeof(*e));
	asm_skip_ws(c);
	e->at = c->p;
	if (asm_tok_accept(c, '[')) {	/* PTX address brackets */
		asm_parse_expr(c, max_regs, e);
		asm_expect(c, ']');
		return;
	}
	neg = asm_tok_accept(c, '-') ? 1 : (asm_tok_accept(c, '+'), 0);
	for (;;) {
		const char *t;
		size_t n;

		asm_skip_ws(c);
		t = c->p;
		if (isdigit((unsigned char)*c->p)) {
			uint64_t v = asm_parse_number(c);

			e->imm += neg ? -v : v;
		} else if ((n = asm_ident_len(c))) {
			int r = asm_reg_number(t, n);

			c->p += n;
			if (r >= 0) {
				if (r >= MXA_NUM_REGS)
					asm_fail(c, t, "no register %.*s (r0..r%d, a0..a%d)", (int)n, t,
						 MXA_NUM_GPRS - 1, MXA_NUM_GPRS - 1);
				if (neg)
					asm_fail(c, t, "a register can only be added");
				if (e->nreg >= max_regs)
					asm_fail(c, t, max_regs ? "too many registers in one operand" :
						 "no register allowed here");
				e->reg[e->nreg++] = r;
			} else {
				struct asm_sym *s = asm_sym_find(c, t, n);
				uint64_t v = 0;

				if (s) {
					v = s->value;
				} else if (c->opts && c->opts->resolve) {
					char name[128];

					snprintf(name, sizeof(name), "%.*s", (int)n, t);
					if (c->opts->resolve(c->opts->arg, name, &v) && c->pass == 2)
						asm_fail(c, t, "undefined symbol '%.*s'", (int)n, t);
				} else if (c->pass == 2) {
					asm_fail(c, t, "undefined symbol '%.*s'", (int)n, t);
				}
				e->imm += neg ? -v : v;
			}
		} else {
			asm_fail(c, t, "expected a value, found %s", asm_tok_text(t));
		}
		if (asm_tok_accept(c, '+'))
			neg = 0;
		else if (asm_tok_accept(c, '-'))
			neg = 1;
		else
			break;
	}
}

void asm_check_u32(struct asm_ctx *c, const struct asm_expr *e, int is_signed)
{
	int64_t s = (int64_t)e->imm;

	if (e->imm > UINT32_MAX && !(is_signed && s >= INT32_MIN && s < 0) &&
	    !(s < 0 && s >= -(int64_t)UINT32_MAX))
		asm_fail(c, e->at, "value 0x%llx does not fit in 32 bits",
			 (unsigned long long)e->imm);
}

void asm_put_reg(struct asm_ctx *c, uint8_t dw, uint8_t shift, uint8_t reg)
{
	c->dw[dw] |= (uint32_t)reg << shift;
}

