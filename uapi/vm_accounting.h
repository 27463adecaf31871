/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What a process sees of its locked and pinned memory, and the operations
 * that change it, shared by the uapi tests (vm_accounting.c, linked into
 * each of them; they print KTAP with the tree's kselftest.h):
 *
 * - VmLck and VmPin of /proc/self/status, and the vmas of /proc/PID/smaps
 *   with their VmFlags ("lo" locked, "pn" pinned);
 * - an arena: ARENA_PAGES pages of address space at a fixed place, where
 *   scripts like "map 0 8; lock 2 4; protect 3 1 r" run, one operation a
 *   step, and where each page reads as a letter: '-' unmapped, '.' mapped,
 *   'L' locked (VmFlags lo), 'P' pinned (pn), 'B' both.
 */
#ifndef VM_ACCOUNTING_H
#define VM_ACCOUNTING_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/mman.h>
#include <sys/types.h>

#ifndef MCL_ONFAULT
#define MCL_ONFAULT	4
#endif

#define ARENA_PAGES	32
#define MAX_VMAS	256

/* /proc */

struct vma {
	unsigned long start, end;
	bool locked;		/* VmFlags lo */
	bool pinned;		/* VmFlags pn */
};

/* The vmas of /proc/PID/smaps, in address order; -1 if unreadable. */
int read_smaps(pid_t pid, struct vma *v, int max);

struct totals {
	long vmlck_kb, vmpin_kb, vmsize_kb;	/* /proc/PID/status */
	long lo_kb, pn_kb;		/* sizes of the lo and pn vmas of smaps */
};

/* What the vmas v[0..n) say VmLck and VmPin must be. */
void totals_of(const struct vma *v, int n, struct totals *t);

/* VmLck, VmPin and VmSize of /proc/PID/status into t; -1 if unreadable. */
int read_status(pid_t pid, struct totals *t);

/*
 * VmPin of this process once it is 0 or timeout seconds have passed (a
 * release may be deferred); -1 if unreadable.
 */
long vmpin_settled(int timeout);

/* VmLck and VmPin, and what the vmas of smaps say they must be. */
int read_totals(pid_t pid, struct totals *t);

/*
 * The counters agree with the vmas: VmLck is the size of the locked vmas
 * that are not pinned, VmPin at least the size of the pinned ones (a pin
 * keeps its charge after an munmap).  On failure, says why in buf.
 */
bool totals_consistent(const struct totals *t, char *buf, size_t len);

/* The arena */

extern long page_size;
extern char *arena;

/* Reserve ARENA_PAGES of address space, then give it back: ours to map. */
void arena_init(void);

/* The arena as letters, from the vmas v[0..n); the number of vmas in it. */
int arena_letters_of(const struct vma *v, int n, char *out);

/* The arena as letters, from smaps; the number of vmas in it, or -1. */
int arena_letters(pid_t pid, char *out);

/* Unmap the arena and drop every lock: VmLck must then be 0. */
void arena_reset(void);

/* Is the vma at addr pinned ("pn") in smaps?  -1: no vma there. */
int vma_pinned(pid_t pid, void *addr);

/* pages of private anonymous memory, populated; NULL with errno set. */
void *map_pages(long pages);

/* errno of mlock(2) of the first pages of mem, 0 if it locked them. */
int mlock_err(void *mem, long pages);

#define NOBODY		65534

/*
 * Become nobody (uid and gid 65534, no capabilities) with RLIMIT_MEMLOCK of
 * limit pages, in a child; run fn there and return its exit status (0
 * pass, 1 fail; its messages are its own), or -1.
 */
int as_nobody(long limit, int (*fn)(long limit));

/*
 * The same as a user of its own (uid and gid uid) with CAP_NET_RAW alone,
 * which an AF_XDP socket needs.
 */
int as_user_net_raw(uid_t uid, long limit, int (*fn)(long limit));

/*
 * An AF_XDP socket with a umem of pages from mem (XDP_UMEM_REG, chunks of
 * 2 kB).  Return: the socket, or -errno.
 */
int xdp_umem(void *mem, long pages);

/*
 * vhost-vdpa, on a device of the vDPA network simulator (vdpa_sim, of
 * physical addresses): vdpa_make(), as root, makes the device VDPA_DEVICE,
 * as "vdpa dev add mgmtdev vdpasim_net name VDPA_DEVICE" does, and its
 * node /dev/vhost-vdpa-N, open to everyone (no devtmpfs here); 0, or -1
 * with why.  vdpa_open() opens the node, becomes the device's owner
 * (VHOST_SET_OWNER) and asks for IOTLB messages v2: the fd, or -errno; a
 * device is open in one file at a time.  vdpa_iotlb() writes one IOTLB
 * message of type (VHOST_IOTLB_UPDATE, _INVALIDATE) for pages from mem,
 * at the IOVA of mem, read and write: 0, or -errno (write() says EFAULT
 * for every update the device refuses).
 */
#define VDPA_DEVICE	"vdpa_vmpin"
int vdpa_make(char *why, size_t len);
int vdpa_open(void);
int vdpa_iotlb(int fd, int type, void *mem, long pages);

/*
 * MSG_ZEROCOPY sends on TCP over loopback.  lo_up() brings lo up, which the
 * initramfs leaves down: 0, or -1 with errno.  tcp_pair() connects *snd,
 * flagged SO_ZEROCOPY with a send buffer of 1 MiB, to *rcv, whose receive
 * buffer is rcvbuf bytes (0: the default): 0, or -1 with errno.
 * zc_send() sends pages from mem with MSG_ZEROCOPY | MSG_DONTWAIT: 0, or
 * errno (ENOBUFS: its charge is refused).  zc_held() makes a pair whose
 * receiver never reads, with a receive buffer so small that the window
 * closes, and sends pages from mem: the send waits in *snd's queue and its
 * notification, with its charge of pages + 2, stays until the pair is
 * closed; 0, or errno (and no pair).
 */
int lo_up(void);
int tcp_pair(int *snd, int *rcv, int rcvbuf);
int zc_send(int fd, void *mem, long pages);
int zc_held(int *snd, int *rcv, void *mem, long pages);

/* The pages RLIMIT_MEMLOCK allows, or -1 for no limit (or CAP_IPC_LOCK). */
long memlock_limit_pages(void);

/*
 * A software perf event of this process (PERF_COUNT_SW_DUMMY, disabled,
 * exclude_kernel): mmap() of its fd maps a ring buffer, a long-term pin.
 * Return: the fd, or -1 with errno set.
 */
int perf_open(void);

/* Operations */

enum op_kind {
	OP_MAP, OP_UNMAP, OP_LOCK, OP_LOCK_ONFAULT, OP_UNLOCK, OP_PROTECT,
	OP_MREMAP, OP_MLOCKALL, OP_MUNLOCKALL, OP_FORK, OP_TOUCH,
};

struct op {
	enum op_kind kind;
	int a, n;	/* pages [a, a + n) of the arena */
	int b;		/* mremap: new size; protect: 1 for read-only */
	int to;		/* mremap: new place, or -1 to stay (grow or shrink) */
	int flags;	/* mlockall: MCL_* */
};

/* The op as the script text that makes it, for messages and replays. */
const char *op_text(const struct op *op);

/*
 * Parse one "kind args" of a script into op: "map A N", "unmap A N",
 * "lock A N", "lockonfault A N", "unlock A N", "touch A N",
 * "protect A N r|rw", "mremap A N NEWN [TO]", "mlockall [current] [future]
 * [onfault]", "munlockall", "fork".  Returns false on bad input.
 */
bool op_parse(const char *s, struct op *op);

/* Run one op; 0 or the errno it failed with (EPROTO: the fork child saw locks). */
int op_run(const struct op *op);

#endif /* VM_ACCOUNTING_H */
