// SPDX-License-Identifier: GPL-2.0
/*
 * vhost-vdpa seen from a process: VHOST_IOTLB_UPDATE messages written to
 * /dev/vhost-vdpa-N of a device of the vDPA network simulator (vdpa_sim,
 * of physical addresses, as hardware is), the pinner patch 21 converts.
 *
 * As root, the program makes the device first, as "vdpa dev add mgmtdev
 * vdpasim_net name vdpa_vmpin" does (generic netlink), and its node (no
 * devtmpfs here); vhost_vdpa, the only vDPA bus driver of the kernel,
 * takes the device.  A device is opened by one file at a time: each row
 * opens it, becomes its owner (VHOST_SET_OWNER) and closes it.
 *
 * Each kernel is held to what it must do (VM_KERNEL: patched or pristine).
 * Both charge an update to the owner's mm, VmPin, and give it back on
 * invalidation and on close.  The patched kernel marks the range ("pn" in
 * smaps) and checks the update against RLIMIT_MEMLOCK with the locked
 * pages, so mlock and updates share one limit; the pristine kernel checks
 * updates against the limit alone and marks nothing.  The rows that need
 * a limit run as nobody (no capabilities) in a child with RLIMIT_MEMLOCK
 * of SHARE_LIMIT pages: the node is open to everyone.  write() says EFAULT
 * for every update the device refuses, whatever the reason
 * (vhost_chr_write_iter()): over the limit is EFAULT with VmPin unchanged.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <linux/vhost.h>
#include "kselftest.h"
#include "vm_accounting.h"
#include "uapi_case.h"

#define UPDATE_PAGES	16
#define SHARE_LIMIT	24	/* pages, for the rows of the limit */

enum {
	UPDATE_MAPS,
	VMPIN_IS_THE_UPDATE,
	INVALIDATE_RETURNS_THE_CHARGE,
	CLOSE_RETURNS_THE_CHARGE,
	OVER_THE_LIMIT_REFUSED,
	MLOCK_AND_UPDATE_SHARE_THE_LIMIT,
	MLOCK_AFTER_UPDATE_COUNTS_THE_UPDATE,
};

static const char *const cases[] = {
	[UPDATE_MAPS] = "update_maps",
	[VMPIN_IS_THE_UPDATE] = "vmpin_is_the_update",
	[INVALIDATE_RETURNS_THE_CHARGE] = "invalidate_returns_the_charge",
	[CLOSE_RETURNS_THE_CHARGE] = "close_returns_the_charge",
	[OVER_THE_LIMIT_REFUSED] = "over_the_limit_refused",
	[MLOCK_AND_UPDATE_SHARE_THE_LIMIT] = "mlock_and_update_share_the_limit",
	[MLOCK_AFTER_UPDATE_COUNTS_THE_UPDATE] = "mlock_after_update_counts_the_update",
};

static bool patched;

static int update(int fd, void *mem, long pages)
{
	return vdpa_iotlb(fd, VHOST_IOTLB_UPDATE, mem, pages);
}

static const char *result(int err)
{
	return err ? strerror(-err) : "mapped";
}

/* --- The rows that need a limit, as nobody --- */

/* An update of a page over the limit is refused, and changes nothing. */
static int over_the_limit(long limit)
{
	struct totals t = { 0 };
	int fd, err;
	char *mem;

	mem = map_pages(limit + 1);
	fd = mem ? vdpa_open() : -errno;
	if (fd < 0) {
		ksft_print_msg("setup: %s\n", strerror(-fd));
		return 1;
	}
	err = update(fd, mem, limit + 1);
	read_totals(getpid(), &t);
	ksft_print_msg("%s kernel, RLIMIT_MEMLOCK %ld pages: an update of %ld: %s, VmPin %ld kB "
		       "(expected EFAULT, 0 kB)\n", patched ? "patched" : "pristine", limit,
		       limit + 1, result(err), t.vmpin_kb);
	close(fd);
	return err != -EFAULT || t.vmpin_kb;
}

/*
 * mlock half the limit, then an update of the rest, then one of a page
 * more: the second is over the limit with the locked pages, within it
 * without them.
 */
static int mlock_and_update(long limit)
{
	long locked = limit / 2, room = limit - locked, held;
	struct totals t = { 0 };
	int fd, within, over;
	char *mem;

	mem = map_pages(limit + 1);
	fd = mem ? vdpa_open() : -errno;
	if (fd < 0 || mlock(mem, locked * page_size)) {
		ksft_print_msg("setup: %s\n", strerror(fd < 0 ? -fd : errno));
		return 1;
	}
	within = update(fd, mem + locked * page_size, room);
	over = update(fd, mem + limit * page_size, 1);
	read_totals(getpid(), &t);
	held = patched ? room : room + 1;
	ksft_print_msg("%s kernel, RLIMIT_MEMLOCK %ld pages, %ld locked: an update of %ld pages: "
		       "%s, then one of 1 page more: %s; VmPin %ld kB (expected %s, %ld kB)\n",
		       patched ? "patched" : "pristine", limit, locked, room, result(within),
		       result(over), t.vmpin_kb, patched ? "EFAULT" : "mapped", kb(held));
	close(fd);
	return within || (patched ? over != -EFAULT : over) || t.vmpin_kb != kb(held);
}

/* An update first, then mlock: the update's pages count for mlock. */
static int mlock_after_update(long limit)
{
	long mapped = limit / 2, room = limit - mapped;
	int fd, err, within, over;
	char *mem, *other;

	mem = map_pages(mapped);
	other = map_pages(room + 1);
	fd = mem && other ? vdpa_open() : -errno;
	err = fd < 0 ? fd : update(fd, mem, mapped);
	if (err) {
		ksft_print_msg("an update of %ld pages: %s\n", mapped, strerror(-err));
		return 1;
	}
	within = mlock_err(other, room);
	over = mlock_err(other, room + 1);
	ksft_print_msg("%s kernel, RLIMIT_MEMLOCK %ld pages, an update of %ld: mlock of %ld pages: "
		       "%s, of %ld: %s (expected %s)\n", patched ? "patched" : "pristine",
		       limit, mapped, room, within ? strerror(within) : "locked", room + 1,
		       over ? strerror(over) : "locked", patched ? "ENOMEM" : "locked");
	close(fd);
	return within || over != (patched ? ENOMEM : 0);
}

int main(void)
{
	const char *kernel = getenv("VM_KERNEL");
	struct totals t = { 0 };
	int fd, err, ret;
	char why[256];
	char *mem;

	setvbuf(stdout, NULL, _IOLBF, 0);
	page_size = sysconf(_SC_PAGESIZE);
	ksft_print_header();
	ksft_set_plan(ARRAY_SIZE(cases));
	if (!kernel || (strcmp(kernel, "patched") && strcmp(kernel, "pristine")))
		ksft_exit_fail_msg("VM_KERNEL is '%s': patched or pristine (scripts/userspace "
				   "sets it)\n", kernel ? kernel : "");
	patched = !strcmp(kernel, "patched");
	if (vdpa_make(why, sizeof(why)))
		ksft_exit_fail_msg("the vDPA device: %s\n", why);

	mem = map_pages(UPDATE_PAGES);
	fd = mem ? vdpa_open() : -errno;
	err = fd < 0 ? fd : update(fd, mem, UPDATE_PAGES);
	pass_if(!err, cases[UPDATE_MAPS], "an update of %d pages at %p: %s", UPDATE_PAGES, mem,
		result(err));
	if (err)
		return KSFT_FAIL;

	ret = read_totals(getpid(), &t);
	pass_if(!ret && t.vmpin_kb == kb(UPDATE_PAGES) &&
		(patched ? t.pn_kb == kb(UPDATE_PAGES) && vma_pinned(getpid(), mem) == 1 :
		 t.pn_kb == 0),
		cases[VMPIN_IS_THE_UPDATE], "%s kernel: VmPin %ld kB (expected %ld), pn %ld kB "
		"(expected %ld)", kernel, t.vmpin_kb, kb(UPDATE_PAGES), t.pn_kb,
		patched ? kb(UPDATE_PAGES) : 0);

	err = vdpa_iotlb(fd, VHOST_IOTLB_INVALIDATE, mem, UPDATE_PAGES);
	ret = read_totals(getpid(), &t);
	pass_if(!err && !ret && t.vmpin_kb == 0 && t.pn_kb == 0,
		cases[INVALIDATE_RETURNS_THE_CHARGE], "invalidate: %s, VmPin %ld kB, pn %ld kB",
		err ? strerror(-err) : "done", t.vmpin_kb, t.pn_kb);

	err = update(fd, mem, UPDATE_PAGES);
	close(fd);
	ret = read_totals(getpid(), &t);
	pass_if(!err && !ret && t.vmpin_kb == 0 && t.pn_kb == 0, cases[CLOSE_RETURNS_THE_CHARGE],
		"an update (%s), then close: VmPin %ld kB, pn %ld kB", result(err),
		t.vmpin_kb, t.pn_kb);

	ret = as_nobody(SHARE_LIMIT, over_the_limit);
	pass_if(!ret, cases[OVER_THE_LIMIT_REFUSED], "as nobody: %s",
		ret ? "failed (above)" : "as expected");
	ret = as_nobody(SHARE_LIMIT, mlock_and_update);
	pass_if(!ret, cases[MLOCK_AND_UPDATE_SHARE_THE_LIMIT], "as nobody: %s",
		ret ? "failed (above)" : "as expected");
	ret = as_nobody(SHARE_LIMIT, mlock_after_update);
	pass_if(!ret, cases[MLOCK_AFTER_UPDATE_COUNTS_THE_UPDATE], "as nobody: %s",
		ret ? "failed (above)" : "as expected");
	return ksft_get_fail_cnt() ? KSFT_FAIL : KSFT_PASS;
}
