/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * MXA tracepoints: job queue (pushed to its user queue), submit (run by the scheduler:
 * to the ring or the reset backlog), run (placed on the ring), complete, and MMU faults.
 * Enable with: echo 1 > /sys/kernel/tracing/events/mxa/enable
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM mxa

#if !defined(_MXA_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _MXA_TRACE_H

#include <linux/tracepoint.h>
#include <linux/types.h>

TRACE_EVENT(mxa_job_queue,
	TP_PROTO(u32 queue, u32 uqueue, u32 ctx, u64 job_id, u64 sched_seqno),
	TP_ARGS(queue, uqueue, ctx, job_id, sched_seqno),
	TP_STRUCT__entry(
		__field(u32, queue)
		__field(u32, uqueue)
		__field(u32, ctx)
		__field(u64, job_id)
		__field(u64, sched_seqno)
	),
	TP_fast_assign(
		__entry->queue = queue;
		__entry->uqueue = uqueue;
		__entry->ctx = ctx;
		__entry->job_id = job_id;
		__entry->sched_seqno = sched_seqno;
	),
	TP_printk("queue=%u uqueue=%u ctx=%u job=%llu sched_seqno=%llu", __entry->queue,
		  __entry->uqueue, __entry->ctx, __entry->job_id, __entry->sched_seqno)
);

TRACE_EVENT(mxa_job_submit,
	TP_PROTO(u32 queue, u32 ctx, u64 job_id, u64 seqno, bool backlog),
	TP_ARGS(queue, ctx, job_id, seqno, backlog),
	TP_STRUCT__entry(
		__field(u32, queue)
		__field(u32, ctx)
		__field(u64, job_id)
		__field(u64, seqno)
		__field(bool, backlog)
	),
	TP_fast_assign(
		__entry->queue = queue;
		__entry->ctx = ctx;
		__entry->job_id = job_id;
		__entry->seqno = seqno;
		__entry->backlog = backlog;
	),
	TP_printk("queue=%u ctx=%u job=%llu seqno=%llu backlog=%d", __entry->queue,
		  __entry->ctx, __entry->job_id, __entry->seqno, __entry->backlog)
);

TRACE_EVENT(mxa_job_run,
	TP_PROTO(u32 queue, u32 slot, u64 job_id, u64 seqno),
	TP_ARGS(queue, slot, job_id, seqno),
	TP_STRUCT__entry(
		__field(u32, queue)
		__field(u32, slot)
		__field(u64, job_id)
		__field(u64, seqno)
	),
	TP_fast_assign(
		__entry->queue = queue;
		__entry->slot = slot;
		__entry->job_id = job_id;
		__entry->seqno = seqno;
	),
	TP_printk("queue=%u slot=%u job=%llu seqno=%llu", __entry->queue, __entry->slot,
		  __entry->job_id, __entry->seqno)
);

TRACE_EVENT(mxa_job_complete,
	TP_PROTO(u32 queue, u64 job_id, u64 seqno, int status, u32 error, u64 cycles),
	TP_ARGS(queue, job_id, seqno, status, error, cycles),
	TP_STRUCT__entry(
		__field(u32, queue)
		__field(u64, job_id)
		__field(u64, seqno)
		__field(int, status)
		__field(u32, error)
		__field(u64, cycles)
	),
	TP_fast_assign(
		__entry->queue = queue;
		__entry->job_id = job_id;
		__entry->seqno = seqno;
		__entry->status = status;
		__entry->error = error;
		__entry->cycles = cycles;
	),
	TP_printk("queue=%u job=%llu seqno=%llu status=%d error=%u cycles=%llu",
		  __entry->queue, __entry->job_id, __entry->seqno, __entry->status,
		  __entry->error, __entry->cycles)
);

TRACE_EVENT(mxa_job_fault,
	TP_PROTO(u32 queue, u32 ctx, u64 job_id, u64 addr, u32 info, u32 offset),
	TP_ARGS(queue, ctx, job_id, addr, info, offset),
	TP_STRUCT__entry(
		__field(u32, queue)
		__field(u32, ctx)
		__field(u64, job_id)
		__field(u64, addr)
		__field(u32, info)
		__field(u32, offset)
	),
	TP_fast_assign(
		__entry->queue = queue;
		__entry->ctx = ctx;
		__entry->job_id = job_id;
		__entry->addr = addr;
		__entry->info = info;
		__entry->offset = offset;
	),
	TP_printk("queue=%u ctx=%u job=%llu addr=0x%llx info=0x%x offset=%u",
		  __entry->queue, __entry->ctx, __entry->job_id, __entry->addr,
		  __entry->info, __entry->offset)
);

#endif /* _MXA_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE mxa_trace
#include <trace/define_trace.h>
