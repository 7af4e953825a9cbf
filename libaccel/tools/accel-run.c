// SPDX-License-Identifier: MIT
/*
 * accel-run: assemble a program file and run it on an MXA device, with buffers filled
 * from files and written back to files (accel-run(1)). Built a second time as
 * accel-trace (-DACCEL_TRACE_TOOL): the same, with a TIMESTAMP.MODEL before every
 * top-level command (and every command of each trip of an unrolled top-level loop), the
 * job's timeline written as Chrome/Perfetto trace JSON in host and modelled time, and the
 * cycle model's utilisation and critical path printed (accel-trace(1)). A grid
 * (--grid, --cluster) is traced per instance: each writes its records at its own offset
 * (TIMESTAMP.MODEL va + a31, a31 = %cta times the records' size), so the program must
 * leave a31 alone.
 *
 * Buffers: a program names device memory by buffer names, which are symbols whose value
 * is the buffer's device VA ("FENCE_WRITE out+8, 42"). A buffer comes from
 *   --buf NAME=SIZE             on the command line,
 *   .buffer NAME, SIZE          in the program,
 *   --in FILE@NAME[+OFF]        a file to load (the buffer is made to fit if not declared),
 * and --out FILE@NAME[+OFF][:LEN] writes LEN bytes (default: to the end) back after
 * the job. .tmap directives put their tensor maps in a buffer of their own.
 */
#include <ctype.h>
#include <getopt.h>
#include <inttypes.h>

#include "tool.h"
#include "mxa_isa.h"

#define MAX_BUFS	64
#define MAX_FILES	64
#define MAPS_BYTES	(64u << 10)

struct buf {
	char name[64];
	uint64_t size, va;
	struct accel_bo *bo;
	uint8_t *map;		/* host memory in --dry-run */
};

struct file_arg {
	const char *file;
	char name[64];
	uint64_t off, len;	/* len 0: to the end */
};

static struct accel_device *dev;
static int dry_run;
static struct buf bufs[MAX_BUFS];
static int nbufs;
static struct file_arg ins[MAX_FILES], outs[MAX_FILES];
static int nins, nouts;
static struct { char name[64]; uint64_t value; } defs[MAX_FILES];
static int ndefs;
static struct accel_bo *maps_bo;
static uint8_t maps_host[MAPS_BYTES];
static uint32_t maps_used;

#ifdef ACCEL_TRACE_TOOL
#define TOOL "accel-trace"
#else
#define TOOL "accel-run"
#endif

static void usage(FILE *f)
{
	fprintf(f,
		"usage: " TOOL " [options] PROGRAM.s\n"
#ifdef ACCEL_TRACE_TOOL
		"Assemble PROGRAM.s (- for stdin), run it with a TIMESTAMP.MODEL before every\n"
		"top-level command, write the job's timeline as Chrome/Perfetto trace JSON (host\n"
		"and modelled time) and print the cycle model's utilisation and critical path.\n"
		"  -o, --output FILE       trace file (default trace.json; - for stdout)\n"
#else
		"Assemble PROGRAM.s (- for stdin) and run it on an MXA device.\n"
		"  -n, --dry-run           assemble and print the disassembly; no device needed\n"
		"  -S, --show              print the disassembly before running\n"
		"  -T, --trace FILE        also write the job's timeline (as accel-trace)\n"
#endif
		"  -b, --buf NAME=SIZE     a buffer; the program uses NAME as its device VA\n"
		"  -i, --in FILE@NAME[+OFF]   load FILE into buffer NAME at OFF (made to fit)\n"
		"  -O, --out FILE@NAME[+OFF][:LEN]  write the buffer back to FILE after the job\n"
		"  -D, --define NAME=VALUE a symbol for the program\n"
		"  -g, --grid X[xY]        run X x Y instances of the program (default 1)\n"
		"  -c, --cluster X[xY]     in clusters of X x Y instances (default 1)\n"
		"  -q, --queue Q           hardware queue (default 0)\n"
		"  -m, --mode MODE         uring, ioctl or auto (default)\n"
		"  -d, --device PATH       device node (default $ACCEL_DEVICE or %s)\n"
		"  -t, --timeout SEC       give up waiting after SEC seconds (default 60)\n"
		"  -h, --help              this text\n"
		"Exit status: 0 the job completed, 1 it failed (explained on stderr), 2 usage or\n"
		"assembly error. Syntax: Documentation/libaccel.rst, accel-run(1).\n",
		ACCEL_DEFAULT_DEVICE);
}

static struct buf *find_buf(const char *name)
{
	for (int i = 0; i < nbufs; i++)
		if (!strcmp(bufs[i].name, name))
			return &bufs[i];
	return NULL;
}

static int make_buf(const char *name, uint64_t size, struct buf **out)
{
	struct buf *b = find_buf(name);
	int ret;

	if (b) {
		if (size > b->size)
			return -ENOSPC;
		*out = b;
		return 0;
	}
	if (nbufs == MAX_BUFS || strlen(name) >= sizeof(b->name) || !size)
		return -EINVAL;
	b = &bufs[nbufs];
	snprintf(b->name, sizeof(b->name), "%s", name);
	b->size = size;
	if (dry_run) {
		b->va = 0x100000000ull + (uint64_t)nbufs * 0x10000000ull;
		b->map = calloc(1, size);
		if (!b->map)
			return -ENOMEM;
	} else {
		ret = accel_bo_alloc(dev, size, &b->bo);
		if (ret)
			return ret;
		b->va = accel_bo_va(b->bo);
		b->map = accel_bo_map(b->bo);
	}
	nbufs++;
	*out = b;
	return 0;
}

static uint64_t file_size(const char *path)
{
	FILE *f = fopen(path, "rb");
	long n;

	if (!f)
		tool_die("%s: %s", path, strerror(errno));
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fclose(f);
	return n > 0 ? (uint64_t)n : 1;
}

static int cb_resolve(void *arg, const char *name, uint64_t *value)
{
	struct buf *b = find_buf(name);

	for (int i = 0; !b && i < ndefs; i++) {
		if (!strcmp(defs[i].name, name)) {
			*value = defs[i].value;
			return 0;
		}
	}
	for (int i = 0; !b && i < nins; i++)	/* --in buffers nobody declared */
		if (!strcmp(ins[i].name, name) &&
		    make_buf(name, ins[i].off + file_size(ins[i].file), &b))
			return -ENOMEM;
	if (!b)
		return -ENOENT;
	*value = b->va;
	return 0;
}

static int cb_buffer(void *arg, const char *name, uint64_t size, uint64_t *va)
{
	struct buf *b;
	int ret = make_buf(name, size, &b);

	if (!ret)
		*va = b->va;
	return ret;
}

static int cb_tensor_map(void *arg, const char *name, const void *map, uint64_t *va)
{
	int ret;

	if (maps_used + sizeof(struct mxa_tensor_map) > MAPS_BYTES)
		return -ENOSPC;
	if (!maps_bo && !dry_run) {
		ret = accel_bo_alloc(dev, MAPS_BYTES, &maps_bo);
		if (ret)
			return ret;
	}
	memcpy(dry_run ? maps_host + maps_used : (uint8_t *)accel_bo_map(maps_bo) + maps_used,
	       map, sizeof(struct mxa_tensor_map));
	*va = (dry_run ? 0xf00000000ull : accel_bo_va(maps_bo)) + maps_used;
	maps_used += 128;
	return 0;
}

/* FILE@NAME[+OFF][:LEN] */
static void parse_file_arg(const char *s, struct file_arg *fa, int with_len)
{
	const char *at = strrchr(s, '@');
	char rest[64], *plus, *colon;

	if (!at || at == s || !at[1])
		tool_die("'%s': expected FILE@NAME[+OFF]%s", s, with_len ? "[:LEN]" : "");
	fa->file = strndup(s, at - s);
	snprintf(rest, sizeof(rest), "%s", at + 1);
	colon = with_len ? strchr(rest, ':') : NULL;
	if (colon) {
		*colon = 0;
		if (tool_parse_size(colon + 1, &fa->len))
			tool_die("'%s': bad length", s);
	}
	plus = strchr(rest, '+');
	if (plus) {
		*plus = 0;
		if (tool_parse_size(plus + 1, &fa->off))
			tool_die("'%s': bad offset", s);
	}
	snprintf(fa->name, sizeof(fa->name), "%s", rest);
}

/* "X" or "XxY" (each >= 1) into *@x, *@y: 0, or -1 when it is neither. */
static int parse_shape(const char *s, uint32_t *x, uint32_t *y)
{
	char *end;
	unsigned long a = strtoul(s, &end, 10), b = 1;

	if (end == s || !a || a > 65535)
		return -1;
	if (*end == 'x') {
		const char *t = end + 1;

		b = strtoul(t, &end, 10);
		if (end == t || !b || b > 65535)
			return -1;
	}
	if (*end)
		return -1;
	*x = (uint32_t)a;
	*y = (uint32_t)b;
	return 0;
}

static void load_inputs(void)
{
	for (int i = 0; i < nins; i++) {
		size_t n;
		char *data = tool_read_file(ins[i].file, &n);
		struct buf *b = find_buf(ins[i].name);

		if (!b && make_buf(ins[i].name, ins[i].off + (n ? n : 1), &b))
			tool_die("--in %s: cannot make buffer %s", ins[i].file, ins[i].name);
		if (ins[i].off > b->size || n > b->size - ins[i].off)
			tool_die("--in %s: %zu bytes do not fit in %s (%" PRIu64 " bytes) at %" PRIu64,
				 ins[i].file, n, b->name, b->size, ins[i].off);
		memcpy(b->map + ins[i].off, data, n);
		free(data);
	}
}

static int write_outputs(void)
{
	for (int i = 0; i < nouts; i++) {
		struct buf *b = find_buf(outs[i].name);
		uint64_t len = outs[i].len;
		FILE *f;

		if (!b) {
			fprintf(stderr, TOOL ": --out %s: no buffer %s\n", outs[i].file, outs[i].name);
			return 2;
		}
		if (outs[i].off > b->size || (len && len > b->size - outs[i].off)) {
			fprintf(stderr, TOOL ": --out %s: range outside %s\n", outs[i].file, b->name);
			return 2;
		}
		if (!len)
			len = b->size - outs[i].off;
		f = strcmp(outs[i].file, "-") ? fopen(outs[i].file, "wb") : stdout;
		if (!f || fwrite(b->map + outs[i].off, 1, len, f) != len) {
			fprintf(stderr, TOOL ": %s: %s\n", outs[i].file, strerror(errno));
			return 2;
		}
		if (f != stdout)
			fclose(f);
	}
	return 0;
}

/*
 * The trace: a TIMESTAMP.MODEL before every top-level command and after the last one,
 * each to its own slot. A top-level LOOP whose count is an immediate (no register) of at most
 * TRACE_MAX_UNROLL trips, whose commands fit in half the spans left, is unrolled in the
 * traced program: every trip's commands get their TIMESTAMPs too, so each trip and each
 * command in it is an event. Other loops are one span (from their LOOP to past their
 * ENDLOOP); loops nested in a trip are one span each. Asynchronous commands show their
 * issue; the waits (WAIT_GROUP, MBAR_WAIT, SEM_WAIT) show where the queue blocked.
 */
#define TRACE_MAX_SPANS		65536
#define TRACE_MAX_UNROLL	4096
/* The register of a grid's per-instance record offset (a31); 0 (r0) for one instance */
#define TRACE_REG	63
static unsigned int trace_reg;

struct span {
	uint32_t orig_off, dwords;	/* the command(s) in the program as written */
	uint32_t run_off;		/* dword offset of the command(s) in the traced program */
	int32_t iter;			/* trip of an unrolled loop, or -1 */
	uint32_t loop_off;		/* that loop's LOOP offset (bytes) */
};

/* Dwords from the LOOP at @at to past its matching ENDLOOP, or 0 if unbalanced. */
static size_t loop_extent(const uint32_t *dw, size_t count, size_t at)
{
	size_t i = at;
	int depth = 0;

	while (i < count) {
		size_t len = MXA_CMD_DWORDS(dw[i]);
		uint32_t op = MXA_CMD_OPCODE(dw[i]);

		if (!len || len > count - i)
			return 0;
		if (op == MXA_OP_LOOP)
			depth++;
		else if (op == MXA_OP_ENDLOOP && --depth == 0)
			return i + len - at;
		i += len;
	}
	return 0;
}

/* Top-level commands of the body of the loop at @at (@ext dwords), a nested loop one. */
static size_t body_commands(const uint32_t *dw, size_t at, size_t ext)
{
	size_t i = at + MXA_LOOP_DWORDS, end = at + ext - 1, n = 0;

	while (i < end) {
		size_t len = MXA_CMD_OPCODE(dw[i]) == MXA_OP_LOOP ? loop_extent(dw, end, i) :
								  MXA_CMD_DWORDS(dw[i]);

		i += len ? len : 1;
		n++;
	}
	return n;
}

/* TIMESTAMP, then @len dwords of @dw: one span. */
static int trace_span(struct accel_prog *out, uint64_t ts_va, const uint32_t *dw, size_t orig,
		      size_t len, int32_t iter, uint32_t loop_off, struct span *spans,
		      size_t max_spans, size_t *n)
{
	int ret;

	if (*n == max_spans - 1)
		return -E2BIG;
	ret = accel_prog_timestamp_reg(out, 1, ts_va + sizeof(struct mxa_timestamp_model) * *n,
				       trace_reg);
	if (ret)
		return ret;
	spans[*n] = (struct span){ .orig_off = orig * 4, .dwords = len,
				   .run_off = accel_prog_size(out) / 4, .iter = iter,
				   .loop_off = loop_off };
	(*n)++;
	return accel_prog_raw(out, dw + orig, len);
}


/* Whether a command of @prog names register a31 (the disassembly says it as "a31"). */
static int uses_trace_reg(const struct accel_prog *prog)
{
	const uint32_t *dw = accel_prog_dwords(prog);
	size_t count = accel_prog_size(prog) / 4, used;
	char text[1024];

	for (size_t at = 0; at < count; at += used ? used : 1) {
		const char *p = text;

		accel_disasm_cmd(dw + at, count - at, 0, text, sizeof(text), &used);
		while ((p = strstr(p, "a31"))) {
			if ((p == text || !isalnum((unsigned char)p[-1])) &&
			    !isalnum((unsigned char)p[3]) && p[3] != '_')
				return 1;
			p += 3;
		}
	}
	return 0;
}

/*
 * The traced program: a TIMESTAMP.MODEL before each span. @grid: the records of
 * instance i go @stride bytes apart (REG_CTA a31, %cta, stride first).
 */
static int instrument(const struct accel_prog *prog, struct accel_prog *out, uint64_t ts_va,
		      struct span *spans, size_t max_spans, size_t *nspans, int grid,
		      uint64_t stride)
{
	const uint32_t *dw = accel_prog_dwords(prog);
	size_t count = accel_prog_size(prog) / 4, at = 0, n = 0;
	int ret;

	trace_reg = grid ? TRACE_REG : 0;
	ret = grid ? accel_prog_reg_cta(out, TRACE_REG, MXA_SREG_CTA, stride) : 0;

	while (at < count && !ret) {
		size_t len = MXA_CMD_DWORDS(dw[at]), ext;

		if (!len || len > count - at)
			len = count - at;
		ext = MXA_CMD_OPCODE(dw[at]) == MXA_OP_LOOP ? loop_extent(dw, count, at) : 0;
		if (ext && (len != MXA_LOOP_DWORDS || dw[at + 2] != 0 ||
			    dw[at + 1] > TRACE_MAX_UNROLL ||
			    (uint64_t)dw[at + 1] * body_commands(dw, at, ext) > (max_spans - n) / 2))
			len = ext;	/* not unrolled: the whole loop is one span */
		else if (ext) {
			/* unrolled: each trip's top-level commands, each after a TIMESTAMP */
			size_t body = at + MXA_LOOP_DWORDS, end = at + ext - 1;	/* ENDLOOP */

			for (uint32_t trip = 0; trip < dw[at + 1] && !ret; trip++) {
				for (size_t i = body; i < end && !ret; i += len) {
					len = MXA_CMD_DWORDS(dw[i]);
					if (MXA_CMD_OPCODE(dw[i]) == MXA_OP_LOOP)
						len = loop_extent(dw, count, i);
					ret = trace_span(out, ts_va, dw, i, len, trip, at * 4, spans,
							 max_spans, &n);
				}
			}
			at += ext;
			continue;
		}
		ret = trace_span(out, ts_va, dw, at, len, -1, 0, spans, max_spans, &n);
		at += len;
	}
	if (!ret)
		ret = accel_prog_timestamp_reg(out, 1, ts_va + sizeof(struct mxa_timestamp_model) * n,
					       trace_reg);
	*nspans = n;
	return ret;
}

static void json_string(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		if (*s == '"' || *s == '\\')
			fputc('\\', f);
		if ((unsigned char)*s >= 0x20)
			fputc(*s, f);
	}
	fputc('"', f);
}

/* @pid 1: host time (ns from @start); 2: modelled time (one cycle a nanosecond). */
static void trace_event(FILE *f, const char *name, const char *cat, unsigned int pid,
			unsigned int tid, uint64_t from, uint64_t to, uint64_t start)
{
	fprintf(f, ",\n{\"name\":");
	json_string(f, name);
	fprintf(f, ",\"cat\":\"%s\",\"ph\":\"X\",\"pid\":%u,\"tid\":%u,\"ts\":%.3f,"
		"\"dur\":%.3f", cat, pid, tid, (from - start) / 1e3, (to - from) / 1e3);
}

/* The spans that ran to their end (a failed job stops before the rest). */
static size_t spans_ran(const struct accel_job_result *r, const struct mxa_timestamp_model *ts,
			size_t nspans)
{
	size_t ran;

	for (ran = 0; ran < nspans; ran++)
		if (!ts[ran].ns || !ts[ran + 1].ns || ts[ran].ns < r->start_ns)
			break;
	return ran;
}

/*
 * What the cycle model says of the job: each engine's utilisation (its busy cycles over
 * the job's) and the critical path of the in-order command processor: the modelled
 * cycles of its waits, by the engine each waited for, and of everything else.
 */
static void print_model(const struct accel_prog *prog, const struct mxa_timestamp_model *ts,
			const struct span *spans, size_t ran, const char *who, int details)
{
	enum { ISSUE, ON_MATH, ON_COPY, ON_ALL, ON_SEM, ON_CLUSTER, PARTS };
	static const char *const part[PARTS] = {
		"issuing", "waiting on math (WAIT_GROUP mma)",
		"waiting on copy/TMA (WAIT_GROUP copy, MBAR_WAIT)",
		"waiting on every engine (FENCE_WRITE)", "waiting on other queues (SEM_WAIT)",
		"waiting on the cluster (CLUSTER_WAIT)",
	};
	const uint32_t *dw = accel_prog_dwords(prog);
	uint64_t sum[PARTS] = { 0 }, total = ts[ran].cycles - ts[0].cycles, worst[3] = { 0 };
	size_t worst_at[3] = { 0 };
	char text[256];

	if (!ran || !total)
		return;
	for (size_t i = 0; i < ran; i++) {
		uint32_t h = dw[spans[i].orig_off / 4], op = MXA_CMD_OPCODE(h);
		uint64_t c = ts[i + 1].cycles - ts[i].cycles;
		int p = op == MXA_OP_MBAR_WAIT ? ON_COPY :
			op == MXA_OP_WAIT_GROUP ? (MXA_CMD_FLAGS(h) == MXA_GROUP_MMA ? ON_MATH : ON_COPY) :
			op == MXA_OP_FENCE_WRITE ? ON_ALL : op == MXA_OP_SEM_WAIT ? ON_SEM :
			op == MXA_OP_CLUSTER_WAIT ? ON_CLUSTER : ISSUE;

		sum[p] += c;
		for (int w = 0; p != ISSUE && w < 3; w++) {
			if (c > worst[w]) {
				memmove(&worst[w + 1], &worst[w], (2 - w) * sizeof(worst[0]));
				memmove(&worst_at[w + 1], &worst_at[w], (2 - w) * sizeof(worst_at[0]));
				worst[w] = c;
				worst_at[w] = i;
				break;
			}
		}
	}
	printf(TOOL ": %smodelled %" PRIu64 " cycles; utilisation: math %.1f%% (%" PRIu64
	       " busy cycles), copy/TMA %.1f%% (%" PRIu64 ")\n", who, total,
	       100.0 * ts[ran].busy[MXA_GROUP_MMA] / total, (uint64_t)ts[ran].busy[MXA_GROUP_MMA],
	       100.0 * ts[ran].busy[MXA_GROUP_COPY] / total, (uint64_t)ts[ran].busy[MXA_GROUP_COPY]);
	if (!details)
		return;
	printf(TOOL ": %scritical path (the command processor's cycles):", who);
	for (int p = 0; p < PARTS; p++)
		if (sum[p] || p == ISSUE)
			printf("%s %s %" PRIu64 " (%.1f%%)", p ? "," : "", part[p], sum[p],
			       100.0 * sum[p] / total);
	printf("\n");
	for (int w = 0; w < 3 && worst[w]; w++) {
		const struct span *sp = &spans[worst_at[w]];

		accel_disasm_cmd(dw + sp->orig_off / 4, accel_prog_size(prog) / 4 - sp->orig_off / 4,
				 0, text, sizeof(text), NULL);
		printf(TOOL ": %slongest wait %d: %" PRIu64 " cycles at 0x%04x %s", who, w + 1,
		       worst[w], sp->orig_off, text);
		if (sp->iter >= 0)
			printf(" (trip %d)", sp->iter);
		printf("\n");
	}
}

/* The trace track of instance @i: the queue's for one instance, else the instance's. */
static unsigned int track(unsigned int queue, unsigned int ninst, unsigned int i)
{
	return ninst > 1 ? i : queue;
}

/*
 * The job's timeline: host time (pid 1) and modelled time (pid 2), a track per instance
 * (@ninst of a grid @gx wide; instance i's records at @ts + i * @stride, @ran[i] spans).
 */
static int write_trace(const char *path, const struct accel_prog *prog,
		       const struct accel_job_result *r, unsigned int queue,
		       const struct mxa_timestamp_model *ts_all, size_t stride,
		       const struct span *spans, const size_t *ran, unsigned int ninst,
		       unsigned int gx)
{
	FILE *f = strcmp(path, "-") ? fopen(path, "w") : stdout;
	const uint32_t *dw = accel_prog_dwords(prog);
	char text[1024], name[64];

	if (!f) {
		fprintf(stderr, TOOL ": %s: %s\n", path, strerror(errno));
		return 2;
	}
	fprintf(f, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n");
	fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"args\":{\"name\":\"mxa\"}},\n");
	fprintf(f, "{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":2,\"args\":{\"name\":"
		"\"mxa modelled (1 ns = 1 cycle)\"}},\n");
	for (unsigned int i = 0; i < ninst; i++) {
		if (ninst > 1)
			snprintf(name, sizeof(name), "queue %u instance %u (%u, %u)", queue, i,
				 i % gx, i / gx);
		else
			snprintf(name, sizeof(name), "queue %u", queue);
		for (unsigned int pid = 1; pid <= 2; pid++)
			fprintf(f, "{\"name\":\"thread_name\",\"ph\":\"M\",\"pid\":%u,\"tid\":%u,"
				"\"args\":{\"name\":\"%s\"}},\n", pid, track(queue, ninst, i), name);
	}
	fprintf(f, "{\"name\":\"job %" PRIu64 "\",\"cat\":\"job\",\"ph\":\"X\",\"pid\":1,"
		"\"tid\":%u,\"ts\":0,\"dur\":%.3f,\"args\":{\"status\":%d,\"error\":%u,"
		"\"instances\":%u}}",
		r->job_id, track(queue, ninst, 0), (r->end_ns - r->start_ns) / 1e3, r->status,
		r->error, ninst);
	for (unsigned int inst = 0; inst < ninst; inst++) {
		const struct mxa_timestamp_model *ts = ts_all + inst * stride;
		unsigned int tid = track(queue, ninst, inst);

		for (size_t i = 0; i < ran[inst]; i++) {
			uint32_t at = spans[i].orig_off / 4;
			int loop = MXA_CMD_OPCODE(dw[at]) == MXA_OP_LOOP;

			/* an unrolled loop: one event for the loop, one per trip, around its commands */
			if (spans[i].iter >= 0 && (i == 0 || spans[i - 1].iter != spans[i].iter ||
						   spans[i - 1].loop_off != spans[i].loop_off)) {
				size_t end = i, trip_end = i;

				while (end < ran[inst] && spans[end].iter >= 0 &&
				       spans[end].loop_off == spans[i].loop_off)
					end++;
				while (trip_end < end && spans[trip_end].iter == spans[i].iter)
					trip_end++;
				if (spans[i].iter == 0) {
					accel_disasm_cmd(dw + spans[i].loop_off / 4, 3, 0, text,
							 sizeof(text), NULL);
					trace_event(f, accel_opcode_name(MXA_OP_LOOP), "loop", 1, tid,
						    ts[i].ns, ts[end].ns, r->start_ns);
					fprintf(f, ",\"args\":{\"offset\":\"0x%x\",\"command\":",
						spans[i].loop_off);
					json_string(f, text);
					fprintf(f, "}}");
				}
				snprintf(name, sizeof(name), "trip %d", spans[i].iter);
				trace_event(f, name, "trip", 1, tid, ts[i].ns, ts[trip_end].ns,
					    r->start_ns);
				fprintf(f, ",\"args\":{\"loop\":\"0x%x\",\"trip\":%d}}",
					spans[i].loop_off, spans[i].iter);
			}
			accel_disasm_cmd(dw + at, accel_prog_size(prog) / 4 - at, 0, text,
					 sizeof(text), NULL);
			for (unsigned int pid = 1; pid <= 2; pid++) {
				trace_event(f, loop ? accel_opcode_name(MXA_OP_LOOP) : text,
					    loop ? "loop" : "command", pid, tid,
					    pid == 1 ? ts[i].ns : ts[i].cycles,
					    pid == 1 ? ts[i + 1].ns : ts[i + 1].cycles,
					    pid == 1 ? r->start_ns : ts[0].cycles);
				fprintf(f, ",\"args\":{\"offset\":\"0x%x\",\"command\":",
					spans[i].orig_off);
				json_string(f, text);
				if (spans[i].iter >= 0)
					fprintf(f, ",\"trip\":%d", spans[i].iter);
				if (ninst > 1)
					fprintf(f, ",\"instance\":%u", inst);
				if (pid == 2)
					fprintf(f, ",\"cycles\":%" PRIu64,
						(uint64_t)(ts[i + 1].cycles - ts[i].cycles));
				fprintf(f, "}}");
			}
		}
	}
	fprintf(f, "\n]}\n");
	if (f != stdout)
		fclose(f);
	return 0;
}

int main(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "buf", required_argument, NULL, 'b' },
		{ "in", required_argument, NULL, 'i' },
		{ "out", required_argument, NULL, 'O' },
		{ "define", required_argument, NULL, 'D' },
		{ "queue", required_argument, NULL, 'q' },
		{ "mode", required_argument, NULL, 'm' },
		{ "device", required_argument, NULL, 'd' },
		{ "timeout", required_argument, NULL, 't' },
		{ "dry-run", no_argument, NULL, 'n' },
		{ "show", no_argument, NULL, 'S' },
		{ "trace", required_argument, NULL, 'T' },
		{ "output", required_argument, NULL, 'o' },
		{ "grid", required_argument, NULL, 'g' },
		{ "cluster", required_argument, NULL, 'c' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	struct { char name[64]; uint64_t size; } decl[MAX_BUFS];
	int ndecl = 0, show = 0, c, ret;
	enum accel_submit_mode mode = ACCEL_SUBMIT_AUTO;
	const char *path = NULL, *trace = NULL;
	unsigned int queue = 0;
	double timeout = 60;
	struct accel_asm_opts ao = { 0 };
	struct accel_prog *prog, *run_prog;
	struct accel_bo *prog_bo, *ts_bo = NULL;
	struct accel_job *job;
	struct accel_job_result r;
	static struct span spans[TRACE_MAX_SPANS];
	static size_t ran[MXA_GRID_MAX_INSTANCES];
	struct accel_grid grid = { 1, 1, 1, 1 };
	unsigned int ninst;
	size_t nspans = 0, stride = 0;
	char err[512], *text;

	tool_name = TOOL;
#ifdef ACCEL_TRACE_TOOL
	trace = "trace.json";
#endif
	while ((c = getopt_long(argc, argv, "b:i:O:D:q:m:d:t:nST:o:g:c:h", opts, NULL)) != -1) {
		char *eq;
		uint64_t v;

		switch (c) {
		case 'b':
			eq = strchr(optarg, '=');
			if (!eq || ndecl == MAX_BUFS || tool_parse_size(eq + 1, &v) || !v)
				tool_die("--buf %s: expected NAME=SIZE", optarg);
			snprintf(decl[ndecl].name, sizeof(decl[0].name), "%.*s", (int)(eq - optarg),
				 optarg);
			decl[ndecl++].size = v;
			break;
		case 'i':
		case 'O':
			if ((c == 'i' ? nins : nouts) == MAX_FILES)
				tool_die("too many files");
			parse_file_arg(optarg, c == 'i' ? &ins[nins++] : &outs[nouts++], c == 'O');
			break;
		case 'D':
			eq = strchr(optarg, '=');
			if (!eq || ndefs == MAX_FILES || tool_parse_size(eq + 1, &v))
				tool_die("-D %s: expected NAME=VALUE", optarg);
			snprintf(defs[ndefs].name, sizeof(defs[0].name), "%.*s", (int)(eq - optarg),
				 optarg);
			defs[ndefs++].value = v;
			break;
		case 'q': queue = strtoul(optarg, NULL, 0); break;
		case 'm': mode = tool_mode(optarg); break;
		case 'd': path = optarg; break;
		case 't': timeout = atof(optarg); break;
		case 'n': dry_run = 1; break;
		case 'S': show = 1; break;
		case 'T':
		case 'o': trace = optarg; break;
		case 'g':
		case 'c':
			if (parse_shape(optarg, c == 'g' ? &grid.x : &grid.cluster_x,
					c == 'g' ? &grid.y : &grid.cluster_y))
				tool_die("--%s %s: expected X or XxY (numbers from 1)",
					 c == 'g' ? "grid" : "cluster", optarg);
			break;
		case 'h': usage(stdout); return 0;
		default: usage(stderr); return 2;
		}
	}
	if (optind != argc - 1) {
		usage(stderr);
		return 2;
	}
	ninst = grid.x * grid.y;
	if (!dry_run) {
		ret = accel_open(path, mode, &dev);
		if (ret) {
			fprintf(stderr, TOOL ": %s: %s\n", path ? path : "default device",
				accel_strerror(ret));
			return 1;
		}
		if (accel_grid_check(dev, &grid, err, sizeof(err))) {
			fprintf(stderr, TOOL ": --grid %ux%u --cluster %ux%u: %s\n", grid.x, grid.y,
				grid.cluster_x, grid.cluster_y, err);
			return 2;
		}
	}
	for (int i = 0; i < ndecl; i++) {
		struct buf *b;

		if (make_buf(decl[i].name, decl[i].size, &b))
			tool_die("--buf %s: cannot allocate %" PRIu64 " bytes", decl[i].name,
				 decl[i].size);
	}
	text = tool_read_file(argv[optind], NULL);
	ao.filename = argv[optind];
	ao.resolve = cb_resolve;
	ao.buffer = cb_buffer;
	ao.tensor_map = cb_tensor_map;
	tool_check(accel_prog_new(&prog), "program");
	ret = accel_asm_ex(text, &ao, prog, err, sizeof(err));
	if (ret) {
		fprintf(stderr, "%s\n", err);
		return 2;
	}
	if (dry_run || show) {
		size_t len = accel_prog_disasm(prog, ACCEL_DISASM_OFFSETS, NULL, 0) + 1;
		char *out = malloc(len);

		if (out) {
			accel_prog_disasm(prog, ACCEL_DISASM_OFFSETS, out, len);
			fputs(out, stdout);
			free(out);
		}
		if (dry_run)
			return 0;
	}
	load_inputs();
	run_prog = prog;
	if (trace) {
		const size_t max = sizeof(spans) / sizeof(spans[0]);

		if (ninst > 1 && uses_trace_reg(prog))
			tool_die("a traced grid keeps its records' offset in a31: the program uses a31");
		/* once to count the spans, then with the records where they go */
		tool_check(accel_prog_new(&run_prog), "program");
		tool_check(instrument(prog, run_prog, 0, spans, max, &nspans, ninst > 1, 0),
			   "instrument");
		stride = nspans + 1;
		tool_check(accel_bo_alloc(dev, ninst * stride * sizeof(struct mxa_timestamp_model),
					  &ts_bo), "timestamps");
		accel_prog_reset(run_prog);
		tool_check(instrument(prog, run_prog, accel_bo_va(ts_bo), spans, max, &nspans,
				      ninst > 1, stride * sizeof(struct mxa_timestamp_model)),
			   "instrument");
	}
	tool_check(accel_bo_alloc(dev, accel_prog_size(run_prog), &prog_bo), "program buffer");
	tool_check(accel_prog_upload(run_prog, prog_bo, 0), "upload");
	tool_check(accel_submit_grid(dev, queue, prog_bo, 0, accel_prog_size(run_prog), &grid, &job),
		   "submit");
	ret = accel_wait(job, (int64_t)(timeout * 1e9));
	if (ret) {
		fprintf(stderr, TOOL ": wait: %s\n", accel_strerror(ret));
		return 1;
	}
	r = *accel_job_result(job);
	if (trace && r.has_detail && r.status) {	/* offsets of the program as written */
		uint32_t off = r.err_offset / 4;

		for (size_t i = 0; i < nspans; i++) {
			if (off >= spans[i].run_off && off < spans[i].run_off + spans[i].dwords) {
				r.err_offset = spans[i].orig_off + (off - spans[i].run_off) * 4;
				if (spans[i].iter >= 0)
					fprintf(stderr, TOOL ": failed in trip %d of the loop at "
						"0x%04x\n", spans[i].iter, spans[i].loop_off);
				break;
			}
		}
	}
	ret = r.status ? 1 : 0;
	{
		char why[4096];

		accel_job_explain_prog(&r, accel_prog_dwords(prog), accel_prog_size(prog) / 4, why,
				       sizeof(why));
		fprintf(r.status ? stderr : stdout, "%s\n", why);
	}
	if (trace) {
		const struct mxa_timestamp_model *ts = accel_bo_map(ts_bo);
		unsigned int slowest = 0;
		int t, all = 1;

		for (unsigned int i = 0; i < ninst; i++) {
			ran[i] = spans_ran(&r, ts + i * stride, nspans);
			all &= ran[i] == nspans;
			if (ts[i * stride + nspans].cycles > ts[slowest * stride + nspans].cycles)
				slowest = i;
		}
		t = write_trace(trace, prog, &r, queue, ts, stride, spans, ran, ninst, grid.x);
		if (all && ninst == 1)
			print_model(prog, ts, spans, nspans, "", 1);
		for (unsigned int i = 0; all && ninst > 1 && i < ninst; i++) {
			char who[64];

			snprintf(who, sizeof(who), "instance %u (%u, %u): ", i, i % grid.x,
				 i / grid.x);
			print_model(prog, ts + i * stride, spans, nspans, who, 0);
		}
		if (all && ninst > 1) {
			char who[64];

			printf(TOOL ": job %" PRIu64 " modelled cycles over %u instances; the "
			       "slowest is instance %u\n", (uint64_t)r.cycles, ninst, slowest);
			snprintf(who, sizeof(who), "instance %u: ", slowest);
			print_model(prog, ts + slowest * stride, spans, nspans, who, 1);
		}
		if (t)
			ret = t;
	}
	if (!r.status && write_outputs())
		ret = 2;
	accel_job_free(job);
	free(text);
	accel_close(dev);
	return ret;
}
