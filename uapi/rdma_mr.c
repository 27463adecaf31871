// SPDX-License-Identifier: GPL-2.0
/*
 * RDMA memory registrations seen from a process: ibv_reg_mr() through the
 * uverbs ABI on a soft-RoCE (rxe) device, which this program creates itself
 * (a dummy netdev over rtnetlink, the rxe link over RDMA netlink, no
 * iproute2), with Debian's rdma-core linked in statically.  rxe registers
 * through ib_umem_get(), the pinner patch 14 converts.  A soft-iWARP (siw)
 * device on the same netdev registers through siw_umem_get(), which patch
 * 18 converts: the siw_ rows check it the same way.
 *
 * Each kernel is held to what it must do (VM_KERNEL: patched or pristine).
 * Both charge a registration to VmPin and give it back at deregistration;
 * neither gives the child of fork any.  The patched kernel also marks the
 * registered range "pn" in smaps and charges it under the RLIMIT_MEMLOCK
 * the process's locked pages use, so mlock and registrations share one
 * limit; the pristine kernel checks each against the limit alone.  The
 * last row combines mlock, registrations, io_uring's registered buffers
 * (patch 17), AF_XDP umems (patch 19), MSG_ZEROCOPY sends (patch 23, lo
 * brought up as root first) and perf ring buffers under a 1 MiB
 * limit and prints how much the process held: within the limit plus perf's
 * allowance on the patched kernel, past it on the pristine one.  It runs
 * as nobody with CAP_NET_RAW alone, which an AF_XDP socket needs.
 *
 * It runs as root (to make the devices); the rows that need a limit run in
 * a child that becomes nobody (uid 65534, no capabilities) with its own
 * RLIMIT_MEMLOCK.
 *
 * uapi-ldlibs: -libverbs -lrxe-rdmav34 -lsiw-rdmav34 -libverbs -lnl-route-3 -lnl-3 -lpthread -luring
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <linux/if_link.h>
#include <linux/netlink.h>
#include <linux/rtnetlink.h>
#include <rdma/rdma_netlink.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>
#include <liburing.h>
#include "kselftest.h"
#include "vm_accounting.h"
#include "uapi_case.h"
#include "rxe.h"

#define NETDEV		"vmpin0"
#define MR_PAGES	16
#define SHARE_LIMIT	24	/* pages, for the rows of the shared limit */
#define BYPASS_LIMIT	256	/* pages: 1 MiB of 4 kB pages */
#define RING_PAGES	5	/* a perf ring buffer: 1 + 4 pages */

enum {
	RXE_DEVICE_CREATED,
	MR_REGISTERS,
	VMPIN_IS_THE_MR,
	FORK_CHILD_HAS_NO_PIN,
	DEREG_RETURNS_THE_CHARGE,
	EXIT_WITH_THE_MR_REGISTERED,
	MLOCK_AND_MR_SHARE_THE_LIMIT,
	MLOCK_AFTER_MR_COUNTS_THE_MR,
	SIW_DEVICE_CREATED,
	SIW_VMPIN_IS_THE_MR,
	SIW_DEREG_RETURNS_THE_CHARGE,
	SIW_MLOCK_AFTER_MR_COUNTS_THE_MR,
	EVERY_PINNER_UNDER_ONE_LIMIT,
};

static const char *const cases[] = {
	[RXE_DEVICE_CREATED] = "rxe_device_created",
	[MR_REGISTERS] = "mr_registers",
	[VMPIN_IS_THE_MR] = "vmpin_is_the_mr",
	[FORK_CHILD_HAS_NO_PIN] = "fork_child_has_no_pin",
	[DEREG_RETURNS_THE_CHARGE] = "dereg_returns_the_charge",
	[EXIT_WITH_THE_MR_REGISTERED] = "exit_with_the_mr_registered",
	[MLOCK_AND_MR_SHARE_THE_LIMIT] = "mlock_and_mr_share_the_limit",
	[MLOCK_AFTER_MR_COUNTS_THE_MR] = "mlock_after_mr_counts_the_mr",
	[SIW_DEVICE_CREATED] = "siw_device_created",
	[SIW_VMPIN_IS_THE_MR] = "siw_vmpin_is_the_mr",
	[SIW_DEREG_RETURNS_THE_CHARGE] = "siw_dereg_returns_the_charge",
	[SIW_MLOCK_AFTER_MR_COUNTS_THE_MR] = "siw_mlock_after_mr_counts_the_mr",
	[EVERY_PINNER_UNDER_ONE_LIMIT] = "every_pinner_under_one_limit",
};

static bool patched;
/* The device of the rows that share the limit with mlock. */
static const char *device = RXE_DEVICE;

/* --- Making the devices: netlink, sysfs, the uverbs node --- */

static void put_attr(struct nlmsghdr *h, unsigned short type, const void *data, int len)
{
	struct nlattr *a = (void *)h + NLMSG_ALIGN(h->nlmsg_len);

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + NLA_ALIGN(a->nla_len);
}

/* Send one request on a netlink socket of proto; 0 or its -errno. */
static int nl_request(int proto, struct nlmsghdr *h)
{
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	char buf[4096];
	int fd, n, ret = -EIO;

	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, proto);
	if (fd < 0)
		return -errno;
	h->nlmsg_flags |= NLM_F_REQUEST | NLM_F_ACK;
	h->nlmsg_seq = 1;
	if (sendto(fd, h, h->nlmsg_len, 0, (void *)&kernel, sizeof(kernel)) < 0) {
		ret = -errno;
	} else {
		n = recv(fd, buf, sizeof(buf), 0);
		if (n >= (int)NLMSG_LENGTH(sizeof(struct nlmsgerr)) &&
		    ((struct nlmsghdr *)buf)->nlmsg_type == NLMSG_ERROR)
			ret = ((struct nlmsgerr *)NLMSG_DATA(buf))->error;
	}
	close(fd);
	return ret;
}

/* The dummy netdev rxe runs over, up. */
static int make_netdev(void)
{
	union { struct nlmsghdr h; char buf[512]; } m = { 0 };
	struct ifinfomsg *ifi = NLMSG_DATA(&m.h);
	struct nlattr *info;
	int ret;

	m.h.nlmsg_len = NLMSG_LENGTH(sizeof(*ifi));
	m.h.nlmsg_type = RTM_NEWLINK;
	m.h.nlmsg_flags = NLM_F_CREATE | NLM_F_EXCL;
	ifi->ifi_family = AF_UNSPEC;
	ifi->ifi_flags = IFF_UP;
	ifi->ifi_change = IFF_UP;
	put_attr(&m.h, IFLA_IFNAME, NETDEV, sizeof(NETDEV));
	info = (void *)&m.h + m.h.nlmsg_len;
	put_attr(&m.h, IFLA_LINKINFO, NULL, 0);
	put_attr(&m.h, IFLA_INFO_KIND, "dummy", sizeof("dummy"));
	info->nla_len = (void *)&m.h + m.h.nlmsg_len - (void *)info;
	info->nla_type |= NLA_F_NESTED;
	ret = nl_request(NETLINK_ROUTE, &m.h);
	return ret == -EEXIST ? 0 : ret;
}

/* A soft RDMA device on it, as "rdma link add NAME type TYPE" makes it. */
static int make_link(const char *name, const char *type)
{
	union { struct nlmsghdr h; char buf[512]; } m = { 0 };
	int ret;

	m.h.nlmsg_len = NLMSG_LENGTH(0);
	m.h.nlmsg_type = RDMA_NL_GET_TYPE(RDMA_NL_NLDEV, RDMA_NLDEV_CMD_NEWLINK);
	put_attr(&m.h, RDMA_NLDEV_ATTR_DEV_NAME, name, strlen(name) + 1);
	put_attr(&m.h, RDMA_NLDEV_ATTR_LINK_TYPE, type, strlen(type) + 1);
	put_attr(&m.h, RDMA_NLDEV_ATTR_NDEV_NAME, NETDEV, sizeof(NETDEV));
	ret = nl_request(NETLINK_RDMA, &m.h);
	return ret == -EEXIST ? 0 : ret;
}

/*
 * sysfs, and /dev/infiniband/uverbsN of each device for everyone (no
 * devtmpfs here); -1 if there are fewer than want of them.
 */
static int make_nodes(int want, char *why, size_t len)
{
	char path[64], node[64];
	unsigned int major, minor;
	int i, made = 0;
	FILE *f;

	mkdir("/sys", 0755);
	if (access("/sys/class", F_OK) && mount("sysfs", "/sys", "sysfs", 0, NULL)) {
		snprintf(why, len, "mount sysfs: %s", strerror(errno));
		return -1;
	}
	mkdir("/dev/infiniband", 0755);
	for (i = 0; i < 8; i++) {
		snprintf(path, sizeof(path), "/sys/class/infiniband_verbs/uverbs%d/dev", i);
		f = fopen(path, "r");
		if (!f)
			continue;
		if (fscanf(f, "%u:%u", &major, &minor) != 2) {
			fclose(f);
			continue;
		}
		fclose(f);
		snprintf(node, sizeof(node), "/dev/infiniband/uverbs%d", i);
		unlink(node);
		if (mknod(node, S_IFCHR | 0666, makedev(major, minor)) || chmod(node, 0666)) {
			snprintf(why, len, "mknod %s: %s", node, strerror(errno));
			return -1;
		}
		made++;
	}
	if (made < want) {
		snprintf(why, len, "%d of /sys/class/infiniband_verbs/uverbsN, expected %d",
			 made, want);
		return -1;
	}
	return 0;
}

/* Register pages of mem; the MR, or NULL with errno set. */
static struct ibv_mr *reg(struct verbs *v, void *mem, long pages)
{
	return verbs_reg(v, mem, pages * page_size);
}

/*
 * Half the limit locked, then a registration of the other half fits, and
 * one of a page more is refused on the patched kernel (ENOMEM); the
 * pristine kernel registers it, the locked pages not counted.
 */
static int mlock_and_mr(long limit)
{
	long locked = limit / 2, room = limit - locked;
	struct ibv_mr *within, *over;
	int err_within, err_over;
	struct verbs v;
	char *mem;

	mem = map_pages(limit + 1);
	if (!mem || verbs_open_dev(&v, device) || mlock(mem, locked * page_size)) {
		ksft_print_msg("setup: %s\n", strerror(errno));
		return 1;
	}
	within = reg(&v, mem + locked * page_size, room);
	err_within = within ? 0 : errno;
	if (within)
		ibv_dereg_mr(within);
	over = reg(&v, mem + locked * page_size, room + 1);
	err_over = over ? 0 : errno;
	if (over)
		ibv_dereg_mr(over);
	verbs_close(&v);
	ksft_print_msg("%s kernel, %s, RLIMIT_MEMLOCK %ld pages, %ld locked: registration of %ld "
		       "pages: %s, of %ld: %s (expected %s)\n", patched ? "patched" : "pristine",
		       device, limit, locked, room, err_within ? strerror(err_within) : "registered",
		       room + 1, err_over ? strerror(err_over) : "registered",
		       patched ? "ENOMEM" : "registered");
	return err_within || err_over != (patched ? ENOMEM : 0);
}

/* A registration first, then mlock: the MR's pages count for mlock. */
static int mlock_after_mr(long limit)
{
	long registered = limit / 2, room = limit - registered;
	struct ibv_mr *mr;
	int within, over;
	struct verbs v;
	char *mem, *other;

	mem = map_pages(registered);
	other = map_pages(room + 1);
	if (!mem || !other || verbs_open_dev(&v, device)) {
		ksft_print_msg("setup: %s\n", strerror(errno));
		return 1;
	}
	mr = reg(&v, mem, registered);
	if (!mr) {
		ksft_print_msg("registration of %ld pages: %s\n", registered, strerror(errno));
		return 1;
	}
	within = mlock_err(other, room);
	over = mlock_err(other, room + 1);
	ibv_dereg_mr(mr);
	verbs_close(&v);
	ksft_print_msg("%s kernel, %s, RLIMIT_MEMLOCK %ld pages, %ld registered: mlock of %ld "
		       "pages: %s, of %ld: %s (expected %s)\n", patched ? "patched" : "pristine",
		       device, limit, registered, room, within ? strerror(within) : "locked", room + 1,
		       over ? strerror(over) : "locked", patched ? "ENOMEM" : "locked");
	return within || over != (patched ? ENOMEM : 0);
}

static long perf_allowance(void)
{
	long mlock_kb = -1;
	FILE *f = fopen("/proc/sys/kernel/perf_event_mlock_kb", "r");

	if (f) {
		if (fscanf(f, "%ld", &mlock_kb) != 1)
			mlock_kb = -1;
		fclose(f);
	}
	return mlock_kb < 0 ? -1 : mlock_kb * 1024 / page_size * sysconf(_SC_NPROCESSORS_ONLN);
}

/*
 * Take as much as each way allows, in turn: mlock (a page at a time),
 * registrations of MR_PAGES, io_uring buffers of MR_PAGES (a ring each),
 * AF_XDP umems of MR_PAGES (a socket each), MSG_ZEROCOPY sends of MR_PAGES
 * held in TCP connections over loopback (a connection each, charged
 * MR_PAGES + 2), then perf ring buffers of RING_PAGES (smaller than perf's
 * allowance, so the first fits in it); count what the process holds of
 * each.  The
 * patched kernel must keep the total within the limit plus perf's
 * allowance; on the pristine kernel the program measures how far past the
 * limit it gets, in kB and in times the limit.
 */
#define MAX_RINGS	128
#define MAX_MRS		256
#define MAX_UIOS	64
#define MAX_XSKS	64
#define MAX_ZCS		64

static int everything(long limit)
{
	long allowance = perf_allowance(), locked = 0, rings = 0, mrs = 0, uios = 0;
	long xsks = 0, zcs = 0, cap = 4 * limit, held, bound;
	int zc_snd[MAX_ZCS], zc_rcv[MAX_ZCS];
	struct io_uring uio[MAX_UIOS];
	int xsk[MAX_XSKS];
	struct ibv_mr *mr[MAX_MRS];
	void *ring[MAX_RINGS];
	int fd[MAX_RINGS];
	char *lock, *reg_mem, *uio_mem, *xsk_mem, *zc_mem;
	struct verbs v;

	lock = mmap(NULL, cap * page_size, PROT_READ | PROT_WRITE,
		    MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	reg_mem = map_pages(MAX_MRS * MR_PAGES);
	uio_mem = map_pages(MAX_UIOS * MR_PAGES);
	xsk_mem = map_pages(MAX_XSKS * MR_PAGES);
	zc_mem = map_pages(MAX_ZCS * MR_PAGES);
	if (lock == MAP_FAILED || !reg_mem || !uio_mem || !xsk_mem || !zc_mem || allowance < 0 ||
	    verbs_open(&v)) {
		ksft_print_msg("setup: %s\n", strerror(errno));
		return 1;
	}
	while (locked < cap && !mlock(lock + locked * page_size, page_size))
		locked++;
	while (mrs < MAX_MRS) {
		mr[mrs] = reg(&v, reg_mem + mrs * MR_PAGES * page_size, MR_PAGES);
		if (!mr[mrs])
			break;
		mrs++;
	}
	while (uios < MAX_UIOS) {
		struct iovec iov = {
			.iov_base = uio_mem + uios * MR_PAGES * page_size,
			.iov_len = MR_PAGES * page_size,
		};

		if (io_uring_queue_init(4, &uio[uios], 0))
			break;
		if (io_uring_register_buffers(&uio[uios], &iov, 1)) {
			io_uring_queue_exit(&uio[uios]);
			break;
		}
		uios++;
	}
	while (xsks < MAX_XSKS) {
		xsk[xsks] = xdp_umem(xsk_mem + xsks * MR_PAGES * page_size, MR_PAGES);
		if (xsk[xsks] < 0)
			break;
		xsks++;
	}
	while (zcs < MAX_ZCS && !zc_held(&zc_snd[zcs], &zc_rcv[zcs],
					 zc_mem + zcs * MR_PAGES * page_size, MR_PAGES))
		zcs++;
	while (rings < MAX_RINGS) {
		fd[rings] = perf_open();
		if (fd[rings] < 0)
			break;
		ring[rings] = mmap(NULL, RING_PAGES * page_size, PROT_READ | PROT_WRITE,
				   MAP_SHARED, fd[rings], 0);
		if (ring[rings] == MAP_FAILED) {
			close(fd[rings]);
			break;
		}
		rings++;
	}
	held = locked + rings * RING_PAGES + (mrs + uios + xsks) * MR_PAGES +
	       zcs * (MR_PAGES + 2);
	bound = limit + allowance;
	ksft_print_msg("%s kernel, nobody with CAP_NET_RAW, RLIMIT_MEMLOCK %ld kB, perf "
		       "allowance %ld kB: mlock %ld kB, %ld MRs %ld kB, %ld io_uring buffers %ld kB, "
		       "%ld AF_XDP umems %ld kB, %ld zerocopy sends %ld kB, %ld perf ring buffers "
		       "%ld kB: %ld kB held, %.2f "
		       "times the limit, %+ld kB against the limit and the allowance "
		       "(expected %s)\n", patched ? "patched" : "pristine", kb(limit),
		       kb(allowance), kb(locked), mrs, kb(mrs * MR_PAGES), uios,
		       kb(uios * MR_PAGES), xsks, kb(xsks * MR_PAGES), zcs,
		       kb(zcs * (MR_PAGES + 2)), rings,
		       kb(rings * RING_PAGES), kb(held), (double)held / limit, kb(held - bound),
		       patched ? "within the limit and the allowance" : "past the limit");
	while (mrs--)
		ibv_dereg_mr(mr[mrs]);
	while (uios--) {
		io_uring_unregister_buffers(&uio[uios]);
		io_uring_queue_exit(&uio[uios]);
	}
	while (xsks--)
		close(xsk[xsks]);
	while (zcs--) {
		close(zc_snd[zcs]);
		close(zc_rcv[zcs]);
	}
	while (rings--) {
		munmap(ring[rings], RING_PAGES * page_size);
		close(fd[rings]);
	}
	verbs_close(&v);
	return patched ? held > bound : held <= limit;
}

/*
 * The rows of siw: a registration is VmPin (and "pn" on the patched
 * kernel), deregistration gives it back, and mlock counts it on the
 * patched kernel, as rxe's.  (The other way round, both kernels refuse a
 * registration past the limit less the locked pages: 6.1's
 * siw_reg_user_mr() had a check of its own for that.)  err: making the
 * device failed with it.
 */
static void siw_rows(int err)
{
	struct verbs v;
	struct ibv_mr *mr;
	struct totals t;
	int i, ret, status;
	char *mem;

	if (err || verbs_open_dev(&v, SIW_DEVICE)) {
		for (i = SIW_DEVICE_CREATED; i <= SIW_MLOCK_AFTER_MR_COUNTS_THE_MR; i++)
			pass_if(false, cases[i], "no %s: %s", SIW_DEVICE,
				strerror(err ? -err : errno));
		return;
	}
	pass_if(true, cases[SIW_DEVICE_CREATED], "%s on %s, opened through libibverbs",
		SIW_DEVICE, NETDEV);

	mem = map_pages(MR_PAGES);
	mr = mem ? reg(&v, mem, MR_PAGES) : NULL;
	ret = mr ? read_totals(getpid(), &t) : -1;
	pass_if(!ret && t.vmpin_kb == kb(MR_PAGES) &&
		(patched ? t.pn_kb == kb(MR_PAGES) && vma_pinned(getpid(), mem) == 1 :
		 t.pn_kb == 0), cases[SIW_VMPIN_IS_THE_MR], "%s kernel: %d pages: %s; VmPin %ld kB, "
		"pn %ld kB, expected %ld kB and %ld kB", patched ? "patched" : "pristine",
		MR_PAGES, mr ? "registered" : strerror(errno), ret ? -1 : t.vmpin_kb,
		ret ? -1 : t.pn_kb, kb(MR_PAGES), patched ? kb(MR_PAGES) : 0);

	ret = mr ? ibv_dereg_mr(mr) : -1;
	status = read_totals(getpid(), &t);
	pass_if(!ret && !status && t.vmpin_kb == 0 && t.pn_kb == 0,
		cases[SIW_DEREG_RETURNS_THE_CHARGE], "ibv_dereg_mr: %s; VmPin %ld kB, pn %ld kB",
		ret ? "failed" : "ok", t.vmpin_kb, t.pn_kb);
	verbs_close(&v);

	device = SIW_DEVICE;
	ret = as_nobody(SHARE_LIMIT, mlock_after_mr);
	device = RXE_DEVICE;
	pass_if(!ret, cases[SIW_MLOCK_AFTER_MR_COUNTS_THE_MR], "as nobody: %s",
		ret ? "failed (above)" : "as expected");
}

int main(void)
{
	const char *kernel = getenv("VM_KERNEL");
	struct verbs v;
	struct ibv_mr *mr;
	struct totals t;
	char why[256];
	int ret, siw, status = -1;
	char *mem;
	pid_t pid;

	setvbuf(stdout, NULL, _IOLBF, 0);
	page_size = sysconf(_SC_PAGESIZE);
	ksft_print_header();
	ksft_set_plan(ARRAY_SIZE(cases));
	if (!kernel || (strcmp(kernel, "patched") && strcmp(kernel, "pristine")))
		ksft_exit_fail_msg("VM_KERNEL is '%s': patched or pristine (scripts/userspace "
				   "sets it)\n", kernel ? kernel : "");
	patched = !strcmp(kernel, "patched");

	ret = make_netdev();
	if (!ret)
		ret = make_link(RXE_DEVICE, "rxe");
	if (ret) {
		pass_if(false, cases[RXE_DEVICE_CREATED], "netlink: %s", strerror(-ret));
		return KSFT_FAIL;
	}
	siw = make_link(SIW_DEVICE, "siw");
	*why = 0;
	if (make_nodes(siw ? 1 : 2, why, sizeof(why)) || verbs_open(&v)) {
		pass_if(false, cases[RXE_DEVICE_CREATED], "%s",
			*why ? why : strerror(errno));
		return KSFT_FAIL;
	}
	pass_if(true, cases[RXE_DEVICE_CREATED], "%s on %s, opened through libibverbs", RXE_DEVICE,
		NETDEV);

	mem = map_pages(MR_PAGES);
	mr = mem ? reg(&v, mem, MR_PAGES) : NULL;
	pass_if(mr, cases[MR_REGISTERS], "%d pages at %p: %s", MR_PAGES, mem,
		mr ? "registered" : strerror(errno));
	if (!mr)
		return KSFT_FAIL;

	ret = read_totals(getpid(), &t);
	pass_if(!ret && t.vmpin_kb == kb(MR_PAGES) &&
		(patched ? t.pn_kb == kb(MR_PAGES) && vma_pinned(getpid(), mem) == 1 : t.pn_kb == 0),
		cases[VMPIN_IS_THE_MR], "%s kernel: VmPin %ld kB, pn %ld kB, expected %ld kB and "
		"%ld kB", kernel, t.vmpin_kb, t.pn_kb, kb(MR_PAGES), patched ? kb(MR_PAGES) : 0);

	fflush(stdout);
	pid = fork();
	if (!pid)
		_exit(read_totals(getpid(), &t) || t.vmpin_kb || t.pn_kb);
	if (pid > 0)
		waitpid(pid, &status, 0);
	pass_if(pid > 0 && WIFEXITED(status) && !WEXITSTATUS(status),
		cases[FORK_CHILD_HAS_NO_PIN], "the child of fork: %s",
		pid < 0 ? strerror(errno) : WIFEXITED(status) && !WEXITSTATUS(status) ?
		"VmPin 0, no pn" : "a pin, or killed");

	ret = ibv_dereg_mr(mr);
	status = read_totals(getpid(), &t);
	pass_if(!ret && !status && t.vmpin_kb == 0 && t.pn_kb == 0,
		cases[DEREG_RETURNS_THE_CHARGE], "ibv_dereg_mr: %s; VmPin %ld kB, pn %ld kB",
		ret ? strerror(ret) : "ok", t.vmpin_kb, t.pn_kb);
	verbs_close(&v);

	/*
	 * A child registers and exits without deregistering: the uverbs
	 * file's release frees the MR after the child's exit_mmap(), against
	 * the pin (the KUnit suite ib_umem checks the charge; here, that the
	 * kernel does it from a real process without complaint, which the
	 * console check would report).
	 */
	fflush(stdout);
	pid = fork();
	if (!pid) {
		struct verbs cv;
		char *cmem = map_pages(MR_PAGES);

		if (!cmem || verbs_open(&cv) || !reg(&cv, cmem, MR_PAGES) ||
		    read_totals(getpid(), &t) || t.vmpin_kb != kb(MR_PAGES) ||
		    (patched && t.pn_kb != kb(MR_PAGES)))
			_exit(1);
		_exit(0);
	}
	if (pid > 0)
		waitpid(pid, &status, 0);
	pass_if(pid > 0 && WIFEXITED(status) && !WEXITSTATUS(status),
		cases[EXIT_WITH_THE_MR_REGISTERED], "the child registered %d pages (VmPin %ld kB%s) "
		"and exited without deregistering: %s", MR_PAGES, kb(MR_PAGES),
		patched ? ", pn" : "", pid < 0 ? strerror(errno) :
		WIFEXITED(status) && !WEXITSTATUS(status) ? "released at its file's close" :
		"the child failed");

	ret = as_nobody(SHARE_LIMIT, mlock_and_mr);
	pass_if(!ret, cases[MLOCK_AND_MR_SHARE_THE_LIMIT], "as nobody: %s",
		ret ? "failed (above)" : "as expected");
	ret = as_nobody(SHARE_LIMIT, mlock_after_mr);
	pass_if(!ret, cases[MLOCK_AFTER_MR_COUNTS_THE_MR], "as nobody: %s",
		ret ? "failed (above)" : "as expected");
	siw_rows(siw);
	if (lo_up())
		ksft_print_msg("lo up: %s: no zerocopy sends in the next row\n", strerror(errno));
	ret = as_user_net_raw(NOBODY, BYPASS_LIMIT, everything);
	pass_if(!ret, cases[EVERY_PINNER_UNDER_ONE_LIMIT], "as nobody with CAP_NET_RAW: %s",
		ret ? "failed (above)" : "as expected");
	return ksft_get_fail_cnt() ? KSFT_FAIL : KSFT_PASS;
}
