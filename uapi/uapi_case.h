/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the uapi programs that print a result per case share: a case's
 * result with the line that says why, and pages in kB.  Static inline here,
 * not in vm_accounting.c: kselftest.h keeps its counts in static variables,
 * each program's own, so the result must be counted in the program.
 */
#ifndef UAPI_CASE_H
#define UAPI_CASE_H

#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include "kselftest.h"
#include "vm_accounting.h"

static inline long kb(long pages)
{
	return pages * page_size / 1024;
}

/* The case's result, after a line "name: why". */
static inline void pass_if(bool ok, const char *name, const char *fmt, ...)
{
	va_list ap;
	char buf[512];

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	ksft_print_msg("%s: %s\n", name, buf);
	ksft_test_result(ok, "%s\n", name);
}

#endif /* UAPI_CASE_H */
