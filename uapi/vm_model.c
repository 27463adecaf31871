// SPDX-License-Identifier: GPL-2.0
/*
 * Model-based random test of mlock accounting, seen from userspace.
 *
 *   vm_model STEPS      (environment: MODEL_SEED=N replays a run;
 *                        MODEL_STEPS=N overrides STEPS)
 *
 * A seeded random sequence of map, munmap, mlock, mlock2(MLOCK_ONFAULT),
 * munlock, mprotect, mremap (move, grow, shrink), mlockall, munlockall and
 * fork on the arena (vm_accounting.h), the mapping and unmapping of two
 * perf ring buffers of RING_PAGES pages, the registration and
 * deregistration of two RDMA memory regions of MR_PAGES pages (each a
 * buffer of its own, on the rxe device uapi/rdma_mr.c makes), of two
 * io_uring buffers of UIO_PAGES pages (a ring and a buffer each), and the
 * update and invalidation of two buffers of VDPA_PAGES pages in the IOTLB
 * of the vhost-vdpa device uapi/vhost_vdpa.c makes: real long-term pins;
 * and two MSG_ZEROCOPY sends of ZC_PAGES pages, each held by a TCP
 * connection over loopback whose window is closed, and released by
 * closing it (uapi/zerocopy_sends.c brings lo up first): a notification
 * charged ZC_PAGES + 2 to the user (io_uring's buffers share that count)
 * and, on the patched kernel, to VmPin, marking nothing.
 * A model of the arena, a page at a time, of the rings, the MRs, the
 * io_uring buffers and the vhost-vdpa buffers predicts each operation's
 * result (errno included,
 * RLIMIT_MEMLOCK included when unprivileged) and the pages it leaves
 * mapped, locked and pinned.  The plan runs it with
 * perf_event_mlock_kb 0, so a ring's pages are all charged to VmPin on
 * both kernels; which kernel this is comes from VM_KERNEL.  On the patched
 * kernel locked and pinned pages share RLIMIT_MEMLOCK (mlock, MAP_LOCKED
 * under MCL_FUTURE, locked mremap growth, the ring's own check and the
 * registration count both, a locked page registered counting once) and
 * the rings, MRs and io_uring buffers are "pn" in smaps; the pristine
 * kernel counts each alone and marks nothing.  Both check an io_uring
 * buffer against the user's own count of them (user->locked_vm).  After every step:
 * - the operation returned what the model predicted;
 * - the arena in smaps reads as the model's letters;
 * - VmLck is the size of the locked vmas of smaps and, unless mlockall
 *   locked the rest of the process, the model's count of locked pages;
 * - VmPin is the pages of the rings mapped, the MRs and io_uring buffers
 *   registered and the vhost-vdpa buffers mapped (and, on the patched
 *   kernel, the charge of the zerocopy sends held), and the pn vmas of
 *   smaps are those rings and buffers on the patched kernel, none on the
 *   pristine one.
 * The first step that breaks one prints the seed, the step, the last
 * operations and what differed, and ends the run.
 *
 * uapi-ldlibs: -libverbs -lrxe-rdmav34 -lsiw-rdmav34 -libverbs -lnl-route-3 -lnl-3 -lpthread -luring
 */
#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>
#include <liburing.h>
#include <linux/vhost.h>
#include "kselftest.h"
#include "vm_accounting.h"
#include "rxe.h"

#define HISTORY	16
#define RINGS		2
#define RING_PAGES	2	/* the user page and one data page */
#define RING_DISTANCE	(4L << 20)	/* from the arena, and from each other */
#define OP_RING		(OP_TOUCH + 1)	/* a ring op in history: .a the slot, .n 1 maps */
#define MRS		2
#define MR_PAGES	2
#define OP_MR		(OP_RING + 1)	/* an MR op in history: .a the slot, .n 1 registers */
#define UIOS		2
#define UIO_PAGES	2
#define OP_UIO		(OP_MR + 1)	/* an io_uring buffer op: .a the slot, .n 1 registers */
#define VDPAS		2
#define VDPA_PAGES	2
#define OP_VDPA		(OP_UIO + 1)	/* a vhost-vdpa op: .a the slot, .n 1 updates */
#define ZCS		2
#define ZC_PAGES	2
#define ZC_CHARGE	(ZC_PAGES + 2)	/* a send's pages and its two ends */
#define OP_ZC		(OP_VDPA + 1)	/* a zerocopy send: .a the slot, .n 1 holds */

static bool mapped[ARENA_PAGES], locked[ARENA_PAGES];
static bool future;		/* mlockall(MCL_FUTURE) in force */
static bool outside;		/* mlockall(MCL_CURRENT) locked more than the arena */
static long limit;		/* pages, or -1 for none */
static bool patched;		/* VM_KERNEL: locked and pinned share the limit */
static int ring_fd[RINGS];	/* a software perf event per ring */
static void *ring[RINGS];	/* the ring mapped, or NULL */
static struct verbs verbs;	/* the rxe device, a protection domain */
static char *mr_buf[MRS];	/* a buffer per MR, mapped throughout */
static struct ibv_mr *mr[MRS];	/* the MR registered, or NULL */
static struct io_uring uio[UIOS];	/* a ring per io_uring buffer */
static char *uio_buf[UIOS];	/* the buffer, mapped throughout */
static bool uio_on[UIOS];	/* the buffer registered */
static int vdpa_fd;		/* the vhost-vdpa device, this process its owner */
static char *vdpa_buf[VDPAS];	/* a buffer per update, mapped throughout */
static bool vdpa_on[VDPAS];	/* the buffer in the device's IOTLB */
static char *zc_buf[ZCS];	/* a buffer per send, mapped throughout */
static int zc_snd[ZCS], zc_rcv[ZCS];	/* the connection holding the send */
static bool zc_on[ZCS];		/* the send held */
static unsigned long long rng;

/* smaps and status after the last step: what the next op starts from */
static struct vma snap[MAX_VMAS];
static int nsnap;
static struct totals now;

static int snapshot(void)
{
	nsnap = read_smaps(getpid(), snap, MAX_VMAS);
	if (nsnap < 0)
		return -1;
	totals_of(snap, nsnap, &now);
	return read_status(getpid(), &now);
}

static unsigned int rnd(unsigned int n)
{
	rng ^= rng << 13;
	rng ^= rng >> 7;
	rng ^= rng << 17;
	return (unsigned int)(rng >> 32) % n;
}

static long vmlck_pages(void)
{
	return now.vmlck_kb * 1024 / page_size;
}

/* What RLIMIT_MEMLOCK bounds: on the patched kernel, VmLck and VmPin together. */
static long charged_pages(void)
{
	return vmlck_pages() + (patched ? now.vmpin_kb * 1024 / page_size : 0);
}

static int rings_mapped(void)
{
	int i, n = 0;

	for (i = 0; i < RINGS; i++)
		n += !!ring[i];
	return n;
}

/*
 * Map ring slot's buffer if it is not mapped, else unmap it.  Mapping:
 * under MCL_FUTURE the mapping is checked as a locked one first (EAGAIN),
 * then perf checks the pages beyond its allowance (all of them here)
 * against the limit (EPERM); root has CAP_IPC_LOCK.
 */
static int predict_ring(int slot)
{
	if (ring[slot])
		return 0;
	if (future && limit >= 0 && charged_pages() + RING_PAGES > limit)
		return EAGAIN;
	if (limit >= 0 && (patched ? charged_pages() : now.vmpin_kb * 1024 / page_size) +
	    RING_PAGES > limit)
		return EPERM;
	return 0;
}

static int run_ring(int slot)
{
	void *p;

	if (ring[slot]) {
		p = ring[slot];
		ring[slot] = NULL;
		return munmap(p, RING_PAGES * page_size) ? errno : 0;
	}
	/*
	 * Well below the arena, which a free gap would otherwise make the
	 * first choice of mmap(NULL): a hint, checked after.
	 */
	p = mmap((char *)arena - (slot + 1) * RING_DISTANCE, RING_PAGES * page_size,
		 PROT_READ | PROT_WRITE, MAP_SHARED, ring_fd[slot], 0);
	if (p == MAP_FAILED)
		return errno;
	ring[slot] = p;
	if ((char *)p + RING_PAGES * page_size > (char *)arena - page_size &&
	    (char *)p < (char *)arena + (ARENA_PAGES + 1) * page_size)
		return EADDRINUSE;	/* mapped into the arena: the model cannot go on */
	return 0;
}

static int mrs_registered(void)
{
	int i, n = 0;

	for (i = 0; i < MRS; i++)
		n += !!mr[i];
	return n;
}

static int uios_registered(void)
{
	int i, n = 0;

	for (i = 0; i < UIOS; i++)
		n += uio_on[i];
	return n;
}

static int vdpas_updated(void)
{
	int i, n = 0;

	for (i = 0; i < VDPAS; i++)
		n += vdpa_on[i];
	return n;
}

static int zcs_held(void)
{
	int i, n = 0;

	for (i = 0; i < ZCS; i++)
		n += zc_on[i];
	return n;
}

/* The user's locked_vm: its io_uring buffers and zerocopy sends (ours alone). */
static long user_pages(void)
{
	return uios_registered() * UIO_PAGES + zcs_held() * ZC_CHARGE;
}

/* The vma of smaps that starts at p, or NULL. */
static const struct vma *vma_at(const void *p)
{
	int i;

	for (i = 0; i < nsnap; i++)
		if ((void *)snap[i].start == p)
			return &snap[i];
	return NULL;
}

/*
 * Register slot's buffer if it is not registered, else deregister it.
 * Registering is checked against the limit (ENOMEM): on the patched kernel
 * with the locked pages, less those of the buffer (mlockall(MCL_CURRENT)
 * locks it), which move to the pin; on the pristine one, VmPin alone.
 */
static int predict_mr(int slot)
{
	const struct vma *v = vma_at(mr_buf[slot]);
	long locked = v && v->locked ? MR_PAGES : 0;

	if (mr[slot] || limit < 0)
		return 0;
	if ((patched ? charged_pages() - locked : now.vmpin_kb * 1024 / page_size) +
	    MR_PAGES > limit)
		return ENOMEM;
	return 0;
}

static int run_mr(int slot)
{
	if (mr[slot]) {
		int err = ibv_dereg_mr(mr[slot]);

		mr[slot] = NULL;
		return err;
	}
	mr[slot] = verbs_reg(&verbs, mr_buf[slot], MR_PAGES * page_size);
	return mr[slot] ? 0 : errno;
}

/*
 * Register slot's io_uring buffer if it is not registered, else
 * unregister it.  Registering is checked against the limit (ENOMEM): on
 * both kernels the user's io_uring buffers and zerocopy sends (this
 * process's alone), then on the patched one the mm's locked and pinned
 * pages as for an MR.
 */
static int predict_uio(int slot)
{
	const struct vma *v = vma_at(uio_buf[slot]);
	long locked = v && v->locked ? UIO_PAGES : 0;

	if (uio_on[slot] || limit < 0)
		return 0;
	if (user_pages() + UIO_PAGES > limit)
		return ENOMEM;
	if (patched && charged_pages() - locked + UIO_PAGES > limit)
		return ENOMEM;
	return 0;
}

static int run_uio(int slot)
{
	struct iovec iov = { .iov_base = uio_buf[slot], .iov_len = UIO_PAGES * page_size };
	int ret;

	if (uio_on[slot]) {
		uio_on[slot] = false;
		return -io_uring_unregister_buffers(&uio[slot]);
	}
	ret = io_uring_register_buffers(&uio[slot], &iov, 1);
	uio_on[slot] = !ret;
	return -ret;
}

/*
 * Update the device's IOTLB with slot's buffer if it is not there, else
 * invalidate it.  An update is checked against the limit as an MR is
 * (write() says EFAULT for any update refused); 6.1 checks it against
 * VmPin alone, CAP_IPC_LOCK or not, and root's RLIMIT_MEMLOCK is far.
 */
static int predict_vdpa(int slot)
{
	const struct vma *v = vma_at(vdpa_buf[slot]);
	long locked = v && v->locked ? VDPA_PAGES : 0;

	if (vdpa_on[slot] || limit < 0)
		return 0;
	if ((patched ? charged_pages() - locked : now.vmpin_kb * 1024 / page_size) +
	    VDPA_PAGES > limit)
		return EFAULT;
	return 0;
}

static int run_vdpa(int slot)
{
	int type = vdpa_on[slot] ? VHOST_IOTLB_INVALIDATE : VHOST_IOTLB_UPDATE;
	int err = vdpa_iotlb(vdpa_fd, type, vdpa_buf[slot], VDPA_PAGES);

	if (!err)
		vdpa_on[slot] = !vdpa_on[slot];
	return -err;
}

/*
 * Hold a zerocopy send of slot's buffer if none is held, else close its
 * connection.  A send is checked against the limit (ENOBUFS): on both
 * kernels the user's count, then on the patched one the mm's locked and
 * pinned pages (the send marks nothing, so a locked buffer counts twice).
 */
static int predict_zc(int slot)
{
	if (zc_on[slot] || limit < 0)
		return 0;
	if (user_pages() + ZC_CHARGE > limit)
		return ENOBUFS;
	if (patched && charged_pages() + ZC_CHARGE > limit)
		return ENOBUFS;
	return 0;
}

/* VmPin of the model: what the rings, buffers and sends held charge. */
static long model_vmpin_kb(void)
{
	return (rings_mapped() * RING_PAGES + mrs_registered() * MR_PAGES +
		uios_registered() * UIO_PAGES + vdpas_updated() * VDPA_PAGES +
		(patched ? zcs_held() * ZC_CHARGE : 0)) * page_size / 1024;
}

static int run_zc(int slot)
{
	struct totals t;
	int err, i;

	if (zc_on[slot]) {
		/* the receiver's close resets the connection: the send is dropped */
		close(zc_rcv[slot]);
		close(zc_snd[slot]);
		zc_on[slot] = false;
		/* the notification is freed in softirq: give it up to 2 s */
		for (i = 0; i < 200; i++) {
			if (read_status(getpid(), &t) || t.vmpin_kb == model_vmpin_kb())
				break;
			usleep(10000);
		}
		return 0;
	}
	err = zc_held(&zc_snd[slot], &zc_rcv[slot], zc_buf[slot], ZC_PAGES);
	zc_on[slot] = !err;
	return err;
}

/* The pages of the pn vmas of smaps that are rings or MR, io_uring or vhost-vdpa buffers. */
static long ring_pn_kb(void)
{
	long kb = 0;
	int i, j;

	for (i = 0; i < nsnap; i++) {
		if (!snap[i].pinned)
			continue;
		for (j = 0; j < RINGS; j++)
			if ((void *)snap[i].start == ring[j])
				kb += (snap[i].end - snap[i].start) / 1024;
		for (j = 0; j < MRS; j++)
			if ((void *)snap[i].start == mr_buf[j])
				kb += (snap[i].end - snap[i].start) / 1024;
		for (j = 0; j < UIOS; j++)
			if ((void *)snap[i].start == uio_buf[j])
				kb += (snap[i].end - snap[i].start) / 1024;
		for (j = 0; j < VDPAS; j++)
			if ((void *)snap[i].start == vdpa_buf[j])
				kb += (snap[i].end - snap[i].start) / 1024;
	}
	return kb;
}

static void unmap_page(int i)
{
	mapped[i] = false;
	locked[i] = false;
}

static int count(const bool *v, int a, int n)
{
	int i, c = 0;

	for (i = a; i < a + n; i++)
		c += v[i];
	return c;
}

/* The vma holding page p of the arena: [*start, *end) in pages. */
static bool vma_of(int p, int *start, int *end)
{
	unsigned long addr = (unsigned long)arena + p * page_size;
	int i;

	for (i = 0; i < nsnap; i++)
		if (snap[i].start <= addr && addr < snap[i].end) {
			*start = ((long)snap[i].start - (long)arena) / page_size;
			*end = ((long)snap[i].end - (long)arena) / page_size;
			return true;
		}
	return false;
}

/* mlock(2) and munlock(2): applied vma by vma up to the first hole. */
static int predict_lock(const struct op *op, bool lock)
{
	int i;

	if (lock && limit >= 0 &&
	    charged_pages() + op->n - count(locked, op->a, op->n) > limit)
		return ENOMEM;
	for (i = op->a; i < op->a + op->n; i++) {
		if (!mapped[i])
			return ENOMEM;
		locked[i] = lock;
	}
	return 0;
}

/* The model's result of op, applied to the model; -1: nothing predicted. */
static int predict(const struct op *op)
{
	int i, s, e;

	switch (op->kind) {
	case OP_MAP:
		if (count(mapped, op->a, op->n))
			return EEXIST;
		if (future && limit >= 0 && charged_pages() + op->n > limit)
			return EAGAIN;
		for (i = op->a; i < op->a + op->n; i++) {
			mapped[i] = true;
			locked[i] = future;
		}
		return 0;
	case OP_UNMAP:
		for (i = op->a; i < op->a + op->n; i++)
			unmap_page(i);
		return 0;
	case OP_LOCK:
	case OP_LOCK_ONFAULT:
		return predict_lock(op, true);
	case OP_UNLOCK:
		return predict_lock(op, false);
	case OP_PROTECT:
		for (i = op->a; i < op->a + op->n; i++)
			if (!mapped[i])
				return ENOMEM;
		return 0;
	case OP_MREMAP:
		if (!vma_of(op->a, &s, &e))	/* nothing mapped at the old address */
			return EFAULT;
		if (op->to >= 0) {	/* move, same size */
			if (op->a < op->to + op->b && op->to < op->a + op->n)
				return EINVAL;
			/* the destination goes first, even if the move then fails */
			for (i = op->to; i < op->to + op->b; i++)
				unmap_page(i);
			if (op->a + op->n > e)
				return EFAULT;
			for (i = 0; i < op->n; i++) {
				mapped[op->to + i] = mapped[op->a + i];
				locked[op->to + i] = locked[op->a + i];
				unmap_page(op->a + i);
			}
			return 0;
		}
		if (op->b <= op->n) {	/* shrink: the tail is unmapped */
			for (i = op->a + op->b; i < op->a + op->n; i++)
				unmap_page(i);
			return 0;
		}
		/* grow in place */
		if (op->a + op->n > e)
			return EFAULT;
		if (locked[op->a] && limit >= 0 && charged_pages() + op->b - op->n > limit)
			return EAGAIN;
		if (op->a + op->n != e || count(mapped, e, op->a + op->b - e))
			return ENOMEM;
		for (i = e; i < op->a + op->b; i++) {
			mapped[i] = true;
			locked[i] = locked[op->a];
		}
		return 0;
	case OP_MLOCKALL:
		if ((op->flags & MCL_CURRENT) && limit >= 0 &&
		    now.vmsize_kb * 1024 / page_size > limit)
			return ENOMEM;
		future = op->flags & MCL_FUTURE;
		if (op->flags & MCL_CURRENT) {
			for (i = 0; i < ARENA_PAGES; i++)
				locked[i] = mapped[i];
			outside = true;
		}
		return 0;
	case OP_MUNLOCKALL:
		memset(locked, 0, sizeof(locked));
		future = false;
		outside = false;
		return 0;
	case OP_FORK:
	case OP_TOUCH:
		return 0;
	}
	return -1;
}

/* A random op on the arena. */
static void random_op(struct op *op)
{
	static const enum op_kind kinds[] = {
		OP_MAP, OP_MAP, OP_MAP, OP_UNMAP, OP_LOCK, OP_LOCK, OP_LOCK_ONFAULT,
		OP_UNLOCK, OP_UNLOCK, OP_PROTECT, OP_MREMAP, OP_MREMAP,
	};
	int k = rnd(100);

	static const int mlockall_flags[] = {
		MCL_CURRENT, MCL_FUTURE, MCL_CURRENT | MCL_FUTURE,
		MCL_CURRENT | MCL_ONFAULT, MCL_FUTURE | MCL_ONFAULT,
	};

	memset(op, 0, sizeof(*op));
	op->to = -1;
	op->a = rnd(ARENA_PAGES);
	op->n = 1 + rnd(ARENA_PAGES - op->a < 8 ? ARENA_PAGES - op->a : 8);
	if (k < 2) {
		op->kind = OP_MLOCKALL;
		op->flags = mlockall_flags[rnd(5)];
		return;
	}
	if (k < 4) {
		op->kind = OP_MUNLOCKALL;
		return;
	}
	if (k < 5) {
		op->kind = OP_FORK;
		return;
	}
	if (k < 11) {		/* map a ring, or unmap it if it is mapped */
		op->kind = OP_RING;
		op->a = rnd(RINGS);
		op->n = !ring[op->a];
		return;
	}
	if (k < 17) {		/* register an MR, or deregister it */
		op->kind = OP_MR;
		op->a = rnd(MRS);
		op->n = !mr[op->a];
		return;
	}
	if (k < 23) {		/* register an io_uring buffer, or unregister it */
		op->kind = OP_UIO;
		op->a = rnd(UIOS);
		op->n = !uio_on[op->a];
		return;
	}
	if (k < 29) {		/* update the vhost-vdpa IOTLB, or invalidate */
		op->kind = OP_VDPA;
		op->a = rnd(VDPAS);
		op->n = !vdpa_on[op->a];
		return;
	}
	if (k < 35) {		/* hold a zerocopy send, or close its connection */
		op->kind = OP_ZC;
		op->a = rnd(ZCS);
		op->n = !zc_on[op->a];
		return;
	}
	op->kind = kinds[rnd(ARRAY_SIZE(kinds))];
	if (op->kind == OP_PROTECT)
		op->b = rnd(2);
	if (op->kind != OP_MREMAP)
		return;
	if (rnd(2)) {		/* move, same size, anywhere in the arena */
		op->b = op->n;
		op->to = rnd(ARENA_PAGES - op->n + 1);
	} else {		/* grow or shrink in place, within the arena */
		op->b = 1 + rnd(ARENA_PAGES - op->a);
		if (op->b == op->n)
			op->b = op->n > 1 ? op->n - 1 : op->n + (op->a + 1 < ARENA_PAGES);
	}
}

static void letters(char *out)
{
	int i;

	for (i = 0; i < ARENA_PAGES; i++)
		out[i] = !mapped[i] ? '-' : locked[i] ? 'L' : '.';
	out[ARENA_PAGES] = '\0';
}

/* The step as the history prints it. */
static const char *step_text(const struct op *op)
{
	static char buf[32];

	if (op->kind == OP_RING)
		snprintf(buf, sizeof(buf), "%s ring %d", op->n ? "map" : "unmap", op->a);
	else if (op->kind == OP_MR)
		snprintf(buf, sizeof(buf), "%s mr %d", op->n ? "register" : "deregister", op->a);
	else if (op->kind == OP_UIO)
		snprintf(buf, sizeof(buf), "%s io_uring buffer %d", op->n ? "register" : "unregister",
			 op->a);
	else if (op->kind == OP_VDPA)
		snprintf(buf, sizeof(buf), "%s vhost-vdpa buffer %d",
			 op->n ? "update" : "invalidate", op->a);
	else if (op->kind == OP_ZC)
		snprintf(buf, sizeof(buf), "%s zerocopy send %d", op->n ? "hold" : "close",
			 op->a);
	else
		return op_text(op);
	return buf;
}

/* The one case: the random walk. */
static const char *const cases[] = { "random_ops" };

int main(int argc, char **argv)
{
	const char *env = getenv("MODEL_STEPS"), *arg = env ? env : argc > 1 ? argv[1] : "10000";
	char *end;
	long steps = strtol(arg, &end, 10);
	unsigned long long seed;

	env = getenv("MODEL_SEED");
	seed = env ? strtoull(env, NULL, 10) : (unsigned long long)time(NULL) ^ getpid();
	char want[ARENA_PAGES + 1], got[ARENA_PAGES + 1], why[160];
	struct op history[HISTORY];
	int done[OP_ZC + 1] = { 0 }, refused = 0, mr_refused = 0, uio_refused = 0;
	int vdpa_refused = 0, zc_refused = 0;
	const char *kernel = getenv("VM_KERNEL");
	long step, i;
	int setup_err;
	struct totals t = { 0 };

	/* Each line reaches init at once, and the seed survives a crash or a kill. */
	setvbuf(stdout, NULL, _IOLBF, 0);
	/* The rings' own mappings first, so that none falls into the arena. */
	for (i = 0, setup_err = 0; i < UIOS && !setup_err; i++)
		setup_err = -io_uring_queue_init(4, &uio[i], 0);
	arena_init();
	limit = memlock_limit_pages();
	rng = seed ? seed : 1;
	snapshot();	/* and stdio's buffers exist before any mlockall */
	ksft_print_header();
	ksft_set_plan(ARRAY_SIZE(cases));
	if (*end || steps < 1) {
		ksft_print_msg("steps '%s': want a number of steps, 1 or more\n", arg);
		ksft_test_result_fail("%s\n", cases[0]);
		return KSFT_FAIL;
	}
	if (!kernel || (strcmp(kernel, "patched") && strcmp(kernel, "pristine"))) {
		ksft_print_msg("VM_KERNEL is '%s': patched or pristine (scripts/userspace "
			       "sets it)\n", kernel ? kernel : "");
		ksft_test_result_fail("%s\n", cases[0]);
		return KSFT_FAIL;
	}
	patched = !strcmp(kernel, "patched");
	for (i = 0; i < RINGS; i++) {
		ring_fd[i] = perf_open();
		if (ring_fd[i] < 0) {
			ksft_print_msg("perf_event_open: %s (the plan sets "
				       "kernel/perf_event_paranoid=2)\n", strerror(errno));
			ksft_test_result_fail("%s\n", cases[0]);
			return KSFT_FAIL;
		}
	}
	if (verbs_open(&verbs)) {
		ksft_print_msg("the rxe device %s: %s (uapi/rdma_mr.c makes it; the plan runs it "
			       "first)\n", RXE_DEVICE, strerror(errno));
		ksft_test_result_fail("%s\n", cases[0]);
		return KSFT_FAIL;
	}
	for (i = 0; i < MRS; i++) {
		/* Beyond the rings, well below the arena. */
		mr_buf[i] = mmap((char *)arena - (RINGS + i + 1) * RING_DISTANCE,
				 MR_PAGES * page_size, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (mr_buf[i] == MAP_FAILED) {
			ksft_print_msg("mmap of an MR buffer: %s\n", strerror(errno));
			ksft_test_result_fail("%s\n", cases[0]);
			return KSFT_FAIL;
		}
	}
	vdpa_fd = vdpa_open();
	if (vdpa_fd < 0) {
		ksft_print_msg("the vhost-vdpa device: %s (uapi/vhost_vdpa.c makes it; the plan "
			       "runs it first)\n", strerror(-vdpa_fd));
		ksft_test_result_fail("%s\n", cases[0]);
		return KSFT_FAIL;
	}
	for (i = 0; i < VDPAS; i++) {
		/* Beyond the io_uring buffers. */
		vdpa_buf[i] = mmap((char *)arena - (RINGS + MRS + UIOS + i + 1) * RING_DISTANCE,
				   VDPA_PAGES * page_size, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (vdpa_buf[i] == MAP_FAILED) {
			ksft_print_msg("mmap of a vhost-vdpa buffer: %s\n", strerror(errno));
			ksft_test_result_fail("%s\n", cases[0]);
			return KSFT_FAIL;
		}
	}
	for (i = 0; i < ZCS; i++) {
		/* Beyond the vhost-vdpa buffers. */
		zc_buf[i] = mmap((char *)arena - (RINGS + MRS + UIOS + VDPAS + i + 1) *
				 RING_DISTANCE, ZC_PAGES * page_size, PROT_READ | PROT_WRITE,
				 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (zc_buf[i] == MAP_FAILED) {
			ksft_print_msg("mmap of a zerocopy buffer: %s\n", strerror(errno));
			ksft_test_result_fail("%s\n", cases[0]);
			return KSFT_FAIL;
		}
	}
	for (i = 0; i < UIOS; i++) {
		/* Beyond the MRs' buffers. */
		uio_buf[i] = mmap((char *)arena - (RINGS + MRS + i + 1) * RING_DISTANCE,
				  UIO_PAGES * page_size, PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (!setup_err && uio_buf[i] == MAP_FAILED)
			setup_err = errno;
		if (setup_err) {
			ksft_print_msg("an io_uring buffer and its ring: %s\n",
				       strerror(setup_err));
			ksft_test_result_fail("%s\n", cases[0]);
			return KSFT_FAIL;
		}
	}
	ksft_print_msg("seed %llu, %ld steps, %s kernel, %s, RLIMIT_MEMLOCK %ld pages, rings of "
		       "%d pages, MRs of %d pages; replay with MODEL_SEED=%llu "
		       "(scripts/userspace --seed %llu)\n",
		       seed, steps, kernel, geteuid() ? "unprivileged" : "root", limit,
		       RING_PAGES, MR_PAGES, seed, seed);
	for (step = 0; step < steps; step++) {
		struct op *op = &history[step % HISTORY];
		int expect, err;
		const char *bad = NULL;

		random_op(op);
		if (op->kind == OP_RING) {
			expect = predict_ring(op->a);
			err = run_ring(op->a);
			refused += err == EPERM || err == EAGAIN;
		} else if (op->kind == OP_MR) {
			expect = predict_mr(op->a);
			err = run_mr(op->a);
			mr_refused += err == ENOMEM;
		} else if (op->kind == OP_UIO) {
			expect = predict_uio(op->a);
			err = run_uio(op->a);
			uio_refused += err == ENOMEM;
		} else if (op->kind == OP_VDPA) {
			expect = predict_vdpa(op->a);
			err = run_vdpa(op->a);
			vdpa_refused += err == EFAULT;
		} else if (op->kind == OP_ZC) {
			expect = predict_zc(op->a);
			err = run_zc(op->a);
			zc_refused += err == ENOBUFS;
		} else {
			expect = predict(op);
			err = op_run(op);
		}
		done[op->kind]++;
		letters(want);
		if (snapshot()) {
			bad = "reading /proc";
		} else {
			t = now;
			arena_letters_of(snap, nsnap, got);
			if (err != expect)
				bad = "result";
			else if (strcmp(want, got))
				bad = "arena";
			else if (!totals_consistent(&t, why, sizeof(why)))
				bad = "counters against smaps";
			else if (t.vmpin_kb != model_vmpin_kb())
				bad = "VmPin against the rings mapped, the buffers registered and the sends held";
			else if (t.pn_kb != (patched ? t.vmpin_kb - zcs_held() * ZC_CHARGE *
					     page_size / 1024 : 0) || ring_pn_kb() != t.pn_kb)
				bad = "the pn vmas against the rings and the buffers";
			else if (!outside && t.vmlck_kb !=
				 count(locked, 0, ARENA_PAGES) * page_size / 1024)
				bad = "VmLck against the model";
		}
		if (!bad)
			continue;
		ksft_print_msg("step %ld of seed %llu: %s differs after '%s'\n", step, seed,
			       bad, step_text(op));
		ksft_print_msg("  result %s, model %s\n", strerror(err), strerror(expect));
		ksft_print_msg("  arena  %s\n", got);
		ksft_print_msg("  model  %s\n", want);
		ksft_print_msg("  VmLck %ld kB, VmPin %ld kB, smaps lo %ld kB, pn %ld kB\n",
			       t.vmlck_kb, t.vmpin_kb, t.lo_kb, t.pn_kb);
		for (i = step >= HISTORY ? step - HISTORY + 1 : 0; i <= step; i++)
			ksft_print_msg("  step %ld: %s\n", i, step_text(&history[i % HISTORY]));
		ksft_test_result_fail("%s\n", cases[0]);
		return KSFT_FAIL;
	}
	arena_reset();
	for (i = 0; i < RINGS; i++)
		if (ring[i])
			run_ring(i);
	for (i = 0; i < MRS; i++)
		if (mr[i])
			run_mr(i);
	for (i = 0; i < UIOS; i++) {
		if (uio_on[i])
			run_uio(i);
		io_uring_queue_exit(&uio[i]);
	}
	for (i = 0; i < VDPAS; i++)
		if (vdpa_on[i])
			run_vdpa(i);
	close(vdpa_fd);
	for (i = 0; i < ZCS; i++)
		if (zc_on[i])
			run_zc(i);
	verbs_close(&verbs);
	for (i = 0; i < MRS; i++)
		munmap(mr_buf[i], MR_PAGES * page_size);
	read_totals(getpid(), &t);
	ksft_print_msg("ops: map %d, unmap %d, lock %d, lockonfault %d, unlock %d, protect %d, "
		       "mremap %d, mlockall %d, munlockall %d, fork %d, ring %d (%d maps refused "
		       "for the limit), mr %d (%d registrations refused for the limit), io_uring "
		       "buffer %d (%d refused for the limit), vhost-vdpa %d (%d updates refused "
		       "for the limit), zerocopy %d (%d sends refused for the limit)\n",
		       done[OP_MAP], done[OP_UNMAP], done[OP_LOCK],
		       done[OP_LOCK_ONFAULT], done[OP_UNLOCK], done[OP_PROTECT], done[OP_MREMAP],
		       done[OP_MLOCKALL], done[OP_MUNLOCKALL], done[OP_FORK], done[OP_RING],
		       refused, done[OP_MR], mr_refused, done[OP_UIO], uio_refused,
		       done[OP_VDPA], vdpa_refused, done[OP_ZC], zc_refused);
	ksft_print_msg("after munlockall, munmap of the arena and the rings, deregistration "
		       "of the MRs and io_uring buffers, invalidation of the vhost-vdpa "
		       "buffers and close of the zerocopy connections: VmLck %ld kB, VmPin %ld kB\n",
		       t.vmlck_kb, t.vmpin_kb);
	ksft_test_result(!t.vmlck_kb && !t.vmpin_kb, "%s\n", cases[0]);
	return ksft_get_fail_cnt() ? KSFT_FAIL : KSFT_PASS;
}
