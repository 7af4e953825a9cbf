// SPDX-License-Identifier: GPL-2.0-only
/*
 * MXA tracepoints: the one place that instantiates mxa_trace.h.
 */
#define CREATE_TRACE_POINTS
#include "mxa_trace.h"
