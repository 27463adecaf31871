// SPDX-License-Identifier: GPL-2.0
/*
 * The /proc readers, the arena and its operations of vm_accounting.h,
 * linked into each uapi test.  Nothing here prints a result: that is the
 * programs' own, through kselftest.h, whose counters are per program.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <linux/capability.h>
#include <linux/genetlink.h>
#include <linux/if_xdp.h>
#include <linux/netlink.h>
#include <linux/perf_event.h>
#include <linux/vdpa.h>
#include <linux/vhost.h>
#include <net/if.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>
#include "vm_accounting.h"

#ifndef MLOCK_ONFAULT
#define MLOCK_ONFAULT	0x01
#endif
#ifndef MAP_FIXED_NOREPLACE
#define MAP_FIXED_NOREPLACE 0x100000
#endif

/* /proc */

static bool has_flag(const char *flags, const char *flag)
{
	const char *p;

	for (p = strstr(flags, flag); p; p = strstr(p + 1, flag))
		if ((p == flags || p[-1] == ' ') && (p[2] == ' ' || p[2] == '\n'))
			return true;
	return false;
}

int read_smaps(pid_t pid, struct vma *v, int max)
{
	char path[64], line[1024];
	unsigned long s, e;
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/smaps", (int)pid);
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "%lx-%lx ", &s, &e) == 2 && strchr(line, '-') &&
		    n < max) {
			v[n].start = s;
			v[n].end = e;
			v[n].locked = false;
			v[n].pinned = false;
			n++;
		} else if (n && !strncmp(line, "VmFlags:", 8)) {
			v[n - 1].locked = has_flag(line + 8, "lo");
			v[n - 1].pinned = has_flag(line + 8, "pn");
		}
	}
	fclose(f);
	return n;
}

void totals_of(const struct vma *v, int n, struct totals *t)
{
	int i;

	t->lo_kb = 0;
	t->pn_kb = 0;
	for (i = 0; i < n; i++) {
		if (v[i].locked && !v[i].pinned)
			t->lo_kb += (v[i].end - v[i].start) >> 10;
		if (v[i].pinned)
			t->pn_kb += (v[i].end - v[i].start) >> 10;
	}
}

int read_status(pid_t pid, struct totals *t)
{
	char path[64], line[256];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	t->vmlck_kb = -1;
	t->vmpin_kb = -1;
	t->vmsize_kb = -1;
	f = fopen(path, "r");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		if (!strncmp(line, "VmLck:", 6))
			t->vmlck_kb = strtol(line + 6, NULL, 10);
		else if (!strncmp(line, "VmPin:", 6))
			t->vmpin_kb = strtol(line + 6, NULL, 10);
		else if (!strncmp(line, "VmSize:", 7))
			t->vmsize_kb = strtol(line + 7, NULL, 10);
	}
	fclose(f);
	return t->vmlck_kb < 0 || t->vmpin_kb < 0 ? -1 : 0;
}

int read_totals(pid_t pid, struct totals *t)
{
	static struct vma v[MAX_VMAS];
	int n = read_smaps(pid, v, MAX_VMAS);

	if (n < 0)
		return -1;
	totals_of(v, n, t);
	return read_status(pid, t);
}

bool totals_consistent(const struct totals *t, char *buf, size_t len)
{
	if (t->vmlck_kb == t->lo_kb && t->vmpin_kb >= t->pn_kb)
		return true;
	snprintf(buf, len, "VmLck %ld kB, VmPin %ld kB; smaps: lo %ld kB, pn %ld kB",
		 t->vmlck_kb, t->vmpin_kb, t->lo_kb, t->pn_kb);
	return false;
}

/* The arena */

long page_size;
char *arena;

void arena_init(void)
{
	page_size = sysconf(_SC_PAGESIZE);
	arena = mmap(NULL, (ARENA_PAGES + 2) * page_size, PROT_NONE,
		     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (arena == MAP_FAILED) {
		perror("mmap");
		exit(1);
	}
	munmap(arena, (ARENA_PAGES + 2) * page_size);
	arena += page_size;	/* a guard page either side stays unmapped */
}

int arena_letters_of(const struct vma *v, int n, char *out)
{
	unsigned long a0 = (unsigned long)arena;
	unsigned long a1 = a0 + ARENA_PAGES * page_size;
	int i, p, vmas = 0;

	memset(out, '-', ARENA_PAGES);
	out[ARENA_PAGES] = '\0';
	for (i = 0; i < n; i++) {
		if (v[i].end <= a0 || v[i].start >= a1)
			continue;
		vmas++;
		for (p = 0; p < ARENA_PAGES; p++) {
			unsigned long addr = a0 + p * page_size;

			if (addr < v[i].start || addr >= v[i].end)
				continue;
			out[p] = v[i].pinned ? (v[i].locked ? 'B' : 'P') :
				 v[i].locked ? 'L' : '.';
		}
	}
	return vmas;
}

int arena_letters(pid_t pid, char *out)
{
	static struct vma v[MAX_VMAS];
	int n = read_smaps(pid, v, MAX_VMAS);

	if (n < 0)
		return -1;
	return arena_letters_of(v, n, out);
}

void arena_reset(void)
{
	munlockall();
	munmap(arena, ARENA_PAGES * page_size);
}

long memlock_limit_pages(void)
{
	struct rlimit r;

	if (geteuid() == 0 || getrlimit(RLIMIT_MEMLOCK, &r) ||
	    r.rlim_cur == RLIM_INFINITY)
		return -1;
	return r.rlim_cur / page_size;
}

int perf_open(void)
{
	struct perf_event_attr attr = {
		.type = PERF_TYPE_SOFTWARE,
		.size = sizeof(attr),
		.config = PERF_COUNT_SW_DUMMY,
		.disabled = 1,
		.exclude_kernel = 1,
		.exclude_hv = 1,
	};

	return syscall(__NR_perf_event_open, &attr, 0, -1, -1, 0);
}

/* Operations */

static const char *const op_names[] = {
	[OP_MAP] = "map", [OP_UNMAP] = "unmap", [OP_LOCK] = "lock",
	[OP_LOCK_ONFAULT] = "lockonfault", [OP_UNLOCK] = "unlock",
	[OP_PROTECT] = "protect", [OP_MREMAP] = "mremap",
	[OP_MLOCKALL] = "mlockall", [OP_MUNLOCKALL] = "munlockall",
	[OP_FORK] = "fork", [OP_TOUCH] = "touch",
};

const char *op_text(const struct op *op)
{
	static char buf[96];

	switch (op->kind) {
	case OP_PROTECT:
		snprintf(buf, sizeof(buf), "protect %d %d %s", op->a, op->n,
			 op->b ? "r" : "rw");
		break;
	case OP_MREMAP:
		if (op->to < 0)
			snprintf(buf, sizeof(buf), "mremap %d %d %d", op->a, op->n, op->b);
		else
			snprintf(buf, sizeof(buf), "mremap %d %d %d %d", op->a, op->n,
				 op->b, op->to);
		break;
	case OP_MLOCKALL:
		snprintf(buf, sizeof(buf), "mlockall%s%s%s",
			 op->flags & MCL_CURRENT ? " current" : "",
			 op->flags & MCL_FUTURE ? " future" : "",
			 op->flags & MCL_ONFAULT ? " onfault" : "");
		break;
	case OP_MUNLOCKALL:
	case OP_FORK:
		snprintf(buf, sizeof(buf), "%s", op_names[op->kind]);
		break;
	default:
		snprintf(buf, sizeof(buf), "%s %d %d", op_names[op->kind], op->a, op->n);
	}
	return buf;
}

bool op_parse(const char *s, struct op *op)
{
	char kind[16], w[3][16];
	int i, k, got;

	memset(op, 0, sizeof(*op));
	op->to = -1;
	got = sscanf(s, " %15s %d %d %d %d", kind, &op->a, &op->n, &op->b, &op->to);
	if (got < 1)
		return false;
	for (k = 0; k <= OP_TOUCH; k++)
		if (!strcmp(kind, op_names[k]))
			break;
	if (k > OP_TOUCH)
		return false;
	op->kind = k;
	switch (op->kind) {
	case OP_MLOCKALL:
		got = sscanf(s, " %*s %15s %15s %15s", w[0], w[1], w[2]);
		for (i = 0; i < got; i++)
			op->flags |= !strcmp(w[i], "current") ? MCL_CURRENT :
				     !strcmp(w[i], "future") ? MCL_FUTURE :
				     !strcmp(w[i], "onfault") ? MCL_ONFAULT : 0;
		return true;
	case OP_MUNLOCKALL:
	case OP_FORK:
		return true;
	case OP_PROTECT:
		if (sscanf(s, " %*s %*d %*d %15s", w[0]) != 1)
			return false;
		op->b = !strcmp(w[0], "r");
		op->to = -1;
		return got >= 3;
	case OP_MREMAP:
		if (got < 4)
			return false;
		if (got == 4)
			op->to = -1;
		return true;
	default:
		return got == 3;
	}
}

/*
 * The child of a fork: memory locks are not inherited, and neither is a pin.
 * Exits 0 when the child sees VmLck 0, VmPin 0 and no lo or pn vma.
 */
static int fork_child_check(void)
{
	struct totals t;

	if (read_totals(getpid(), &t))
		return 2;
	return t.vmlck_kb || t.vmpin_kb || t.lo_kb || t.pn_kb ? 1 : 0;
}

int op_run(const struct op *op)
{
	char *p = arena + op->a * page_size;
	size_t len = op->n * page_size;
	int ret = 0, status;
	void *q;
	pid_t pid;

	switch (op->kind) {
	case OP_MAP:
		q = mmap(p, len, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
		if (q == MAP_FAILED)
			return errno;
		if (q != p) {	/* a kernel without MAP_FIXED_NOREPLACE */
			munmap(q, len);
			return EEXIST;
		}
		return 0;
	case OP_UNMAP:
		ret = munmap(p, len);
		break;
	case OP_LOCK:
		ret = mlock(p, len);
		break;
	case OP_LOCK_ONFAULT:
		ret = syscall(__NR_mlock2, p, len, MLOCK_ONFAULT);
		break;
	case OP_UNLOCK:
		ret = munlock(p, len);
		break;
	case OP_TOUCH:
		for (q = p; (char *)q < p + len; q = (char *)q + page_size)
			*(volatile char *)q = 1;
		return 0;
	case OP_PROTECT:
		ret = mprotect(p, len, op->b ? PROT_READ : PROT_READ | PROT_WRITE);
		break;
	case OP_MREMAP:
		if (op->to < 0)
			q = mremap(p, len, op->b * page_size, 0);
		else
			q = mremap(p, len, op->b * page_size,
				   MREMAP_MAYMOVE | MREMAP_FIXED,
				   arena + op->to * page_size);
		return q == MAP_FAILED ? errno : 0;
	case OP_MLOCKALL:
		ret = mlockall(op->flags);
		break;
	case OP_MUNLOCKALL:
		ret = munlockall();
		break;
	case OP_FORK:
		fflush(stdout);
		pid = fork();
		if (pid < 0)
			return errno;
		if (!pid)
			_exit(fork_child_check());
		if (waitpid(pid, &status, 0) != pid)
			return errno;
		return WIFEXITED(status) && !WEXITSTATUS(status) ? 0 : EPROTO;
	}
	return ret ? errno : 0;
}

int vma_pinned(pid_t pid, void *addr)
{
	static struct vma v[MAX_VMAS];
	int i, n = read_smaps(pid, v, MAX_VMAS);

	for (i = 0; i < n; i++)
		if (v[i].start <= (unsigned long)addr && (unsigned long)addr < v[i].end)
			return v[i].pinned;
	return -1;
}

void *map_pages(long pages)
{
	void *mem = mmap(NULL, pages * page_size, PROT_READ | PROT_WRITE,
			 MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);

	return mem == MAP_FAILED ? NULL : mem;
}

int mlock_err(void *mem, long pages)
{
	int err = mlock(mem, pages * page_size) ? errno : 0;

	munlock(mem, pages * page_size);
	return err;
}

/* Become uid with RLIMIT_MEMLOCK of limit pages, keeping the capability cap (or none: -1). */
static int become(uid_t uid, long limit, int cap)
{
	struct rlimit r = { limit * page_size, limit * page_size };
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2] = { { 0 } };

	if (setrlimit(RLIMIT_MEMLOCK, &r) || setgroups(0, NULL) ||
	    (cap >= 0 && prctl(PR_SET_KEEPCAPS, 1)) ||
	    setresgid(uid, uid, uid) || setresuid(uid, uid, uid))
		return -1;
	if (cap < 0)
		return 0;
	d[cap / 32].effective = d[cap / 32].permitted = 1u << (cap % 32);
	return syscall(SYS_capset, &h, d);
}

static int as_user(uid_t uid, long limit, int cap, int (*fn)(long limit))
{
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (!pid) {
		if (become(uid, limit, cap)) {
			printf("# becoming uid %d: %s\n", (int)uid, strerror(errno));
			_exit(1);
		}
		_exit(fn(limit));
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

int as_nobody(long limit, int (*fn)(long limit))
{
	return as_user(NOBODY, limit, -1, fn);
}

int as_user_net_raw(uid_t uid, long limit, int (*fn)(long limit))
{
	return as_user(uid, limit, CAP_NET_RAW, fn);
}

#ifndef AF_XDP
#define AF_XDP		44
#endif
#ifndef SOL_XDP
#define SOL_XDP		283
#endif

int xdp_umem(void *mem, long pages)
{
	struct xdp_umem_reg mr = {
		.addr = (unsigned long)mem,
		.len = pages * page_size,
		.chunk_size = 2048,
	};
	int fd = socket(AF_XDP, SOCK_RAW, 0), err;

	if (fd < 0)
		return -errno;
	if (setsockopt(fd, SOL_XDP, XDP_UMEM_REG, &mr, sizeof(mr))) {
		err = errno;
		close(fd);
		return -err;
	}
	return fd;
}

/* --- vhost-vdpa: the device (generic netlink, sysfs, the node), its file --- */

static char vdpa_node[sizeof("/dev/") + 256];	/* /dev/vhost-vdpa-N */

static void nl_put_attr(struct nlmsghdr *h, unsigned short type, const void *data, int len)
{
	struct nlattr *a = (void *)h + NLMSG_ALIGN(h->nlmsg_len);

	a->nla_type = type;
	a->nla_len = NLA_HDRLEN + len;
	memcpy((char *)a + NLA_HDRLEN, data, len);
	h->nlmsg_len = NLMSG_ALIGN(h->nlmsg_len) + NLA_ALIGN(a->nla_len);
}

/*
 * Send a generic netlink request of family, command cmd, with the string
 * attributes of names[] (attribute types types[]); the reply's message in
 * buf.  0, or a -errno.
 */
static int genl_request(int family, int cmd, int n, const int *types,
			const char *const *names, char *buf, size_t len)
{
	union { struct nlmsghdr h; char buf[512]; } m = { 0 };
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct genlmsghdr *g = NLMSG_DATA(&m.h);
	struct nlmsghdr *r = (void *)buf;
	int fd, i, got, ret = -EIO;

	m.h.nlmsg_len = NLMSG_LENGTH(GENL_HDRLEN);
	m.h.nlmsg_type = family;
	m.h.nlmsg_flags = NLM_F_REQUEST | NLM_F_ACK;
	m.h.nlmsg_seq = 1;
	g->cmd = cmd;
	g->version = 1;
	for (i = 0; i < n; i++)
		nl_put_attr(&m.h, types[i], names[i], strlen(names[i]) + 1);
	fd = socket(AF_NETLINK, SOCK_RAW | SOCK_CLOEXEC, NETLINK_GENERIC);
	if (fd < 0)
		return -errno;
	if (sendto(fd, &m, m.h.nlmsg_len, 0, (void *)&kernel, sizeof(kernel)) < 0) {
		ret = -errno;
	} else {
		got = recv(fd, buf, len, 0);
		if (got >= (int)NLMSG_LENGTH(sizeof(struct nlmsgerr)) &&
		    r->nlmsg_type == NLMSG_ERROR)
			ret = ((struct nlmsgerr *)NLMSG_DATA(r))->error;
		else if (got >= (int)NLMSG_LENGTH(GENL_HDRLEN))
			ret = 0;
	}
	close(fd);
	return ret;
}

/* The id of the generic netlink family "vdpa", or a -errno. */
static int vdpa_family(void)
{
	const int types[] = { CTRL_ATTR_FAMILY_NAME };
	const char *const names[] = { VDPA_GENL_NAME };
	char buf[4096];
	struct nlmsghdr *r = (void *)buf;
	struct nlattr *a;
	int ret, left;

	ret = genl_request(GENL_ID_CTRL, CTRL_CMD_GETFAMILY, 1, types, names,
			   buf, sizeof(buf));
	if (ret)
		return ret;
	a = (void *)((char *)NLMSG_DATA(r) + GENL_HDRLEN);
	left = r->nlmsg_len - NLMSG_LENGTH(GENL_HDRLEN);
	while (left >= NLA_HDRLEN && a->nla_len >= NLA_HDRLEN && a->nla_len <= left) {
		if ((a->nla_type & NLA_TYPE_MASK) == CTRL_ATTR_FAMILY_ID)
			return *(unsigned short *)((char *)a + NLA_HDRLEN);
		left -= NLA_ALIGN(a->nla_len);
		a = (void *)((char *)a + NLA_ALIGN(a->nla_len));
	}
	return -ENOENT;
}

int vdpa_make(char *why, size_t len)
{
	const int types[] = { VDPA_ATTR_MGMTDEV_DEV_NAME, VDPA_ATTR_DEV_NAME };
	const char *const names[] = { "vdpasim_net", VDPA_DEVICE };
	const char *dir = "/sys/bus/vdpa/devices/" VDPA_DEVICE;
	char path[320], buf[4096];
	unsigned int major, minor;
	int family, ret, found = 0;
	struct dirent *d;
	DIR *dp;
	FILE *f;

	family = vdpa_family();
	ret = family < 0 ? family : genl_request(family, VDPA_CMD_DEV_NEW, 2, types, names,
						 buf, sizeof(buf));
	if (ret && ret != -EEXIST) {
		snprintf(why, len, "vdpa dev add mgmtdev vdpasim_net name %s: %s", VDPA_DEVICE,
			 strerror(-ret));
		return -1;
	}
	mkdir("/sys", 0755);
	if (access("/sys/bus", F_OK) && mount("sysfs", "/sys", "sysfs", 0, NULL)) {
		snprintf(why, len, "mount sysfs: %s", strerror(errno));
		return -1;
	}
	dp = opendir(dir);
	while (dp && (d = readdir(dp)) && !found)
		found = !strncmp(d->d_name, "vhost-vdpa-", 11) &&
			snprintf(path, sizeof(path), "%s/%s/dev", dir, d->d_name) > 0 &&
			snprintf(vdpa_node, sizeof(vdpa_node), "/dev/%s", d->d_name) > 0;
	if (dp)
		closedir(dp);
	f = found ? fopen(path, "r") : NULL;
	if (!f || fscanf(f, "%u:%u", &major, &minor) != 2) {
		snprintf(why, len, "no %s/vhost-vdpa-N/dev: is vhost_vdpa built in?", dir);
		if (f)
			fclose(f);
		return -1;
	}
	fclose(f);
	unlink(vdpa_node);
	if (mknod(vdpa_node, S_IFCHR | 0666, makedev(major, minor)) || chmod(vdpa_node, 0666)) {
		snprintf(why, len, "mknod %s: %s", vdpa_node, strerror(errno));
		return -1;
	}
	return 0;
}

/* The node vdpa_make() made, found in /dev by another program; 0 or -1. */
static int vdpa_find(void)
{
	struct dirent *d;
	DIR *dp = opendir("/dev");

	while (dp && (d = readdir(dp)))
		if (!strncmp(d->d_name, "vhost-vdpa-", 11)) {
			snprintf(vdpa_node, sizeof(vdpa_node), "/dev/%s", d->d_name);
			break;
		}
	if (dp)
		closedir(dp);
	return *vdpa_node ? 0 : -1;
}

int vdpa_open(void)
{
	__u64 features = 1ULL << VHOST_BACKEND_F_IOTLB_MSG_V2;
	int fd;

	if (!*vdpa_node && vdpa_find())
		return -ENODEV;
	fd = open(vdpa_node, O_RDWR | O_CLOEXEC);

	if (fd < 0)
		return -errno;
	if (ioctl(fd, VHOST_SET_OWNER) || ioctl(fd, VHOST_SET_BACKEND_FEATURES, &features)) {
		int err = errno;

		close(fd);
		return -err;
	}
	return fd;
}

int vdpa_iotlb(int fd, int type, void *mem, long pages)
{
	struct vhost_msg_v2 m = {
		.type = VHOST_IOTLB_MSG_V2,
		.iotlb = {
			.iova = (unsigned long)mem,
			.size = pages * page_size,
			.uaddr = (unsigned long)mem,
			.perm = VHOST_ACCESS_RW,
			.type = type,
		},
	};

	return write(fd, &m, sizeof(m)) == sizeof(m) ? 0 : -errno;
}

long vmpin_settled(int timeout)
{
	struct totals t = { .vmpin_kb = -1 };
	int i;

	for (i = 0; i <= timeout * 10; i++) {
		if (read_status(getpid(), &t) || !t.vmpin_kb)
			break;
		usleep(100000);
	}
	return t.vmpin_kb;
}

/* --- MSG_ZEROCOPY: a TCP connection over loopback --- */

#ifndef SO_ZEROCOPY
#define SO_ZEROCOPY	60
#endif
#ifndef MSG_ZEROCOPY
#define MSG_ZEROCOPY	0x4000000
#endif

int lo_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd = socket(AF_INET, SOCK_DGRAM, 0), ret;

	if (fd < 0)
		return -1;
	ret = ioctl(fd, SIOCGIFFLAGS, &ifr);
	ifr.ifr_flags |= IFF_UP;
	ret = ret ? ret : ioctl(fd, SIOCSIFFLAGS, &ifr);
	close(fd);
	return ret;
}

int tcp_pair(int *snd, int *rcv, int rcvbuf)
{
	struct sockaddr_in addr = { .sin_family = AF_INET,
				    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof(addr);
	int one = 1, sndbuf = 1 << 20, lfd, ret = -1;

	*snd = *rcv = -1;
	lfd = socket(AF_INET, SOCK_STREAM, 0);
	*snd = socket(AF_INET, SOCK_STREAM, 0);
	if (lfd >= 0 && *snd >= 0 &&
	    !(rcvbuf && setsockopt(lfd, SOL_SOCKET, SO_RCVBUF, &rcvbuf, sizeof(rcvbuf))) &&
	    !bind(lfd, (struct sockaddr *)&addr, sizeof(addr)) && !listen(lfd, 1) &&
	    !getsockname(lfd, (struct sockaddr *)&addr, &len) &&
	    !setsockopt(*snd, SOL_SOCKET, SO_SNDBUF, &sndbuf, sizeof(sndbuf)) &&
	    !setsockopt(*snd, SOL_SOCKET, SO_ZEROCOPY, &one, sizeof(one)) &&
	    !connect(*snd, (struct sockaddr *)&addr, sizeof(addr)))
		*rcv = accept(lfd, NULL, NULL);
	if (*rcv >= 0)
		ret = 0;
	else if (*snd >= 0)
		close(*snd);
	if (lfd >= 0)
		close(lfd);
	return ret;
}

int zc_send(int fd, void *mem, long pages)
{
	return send(fd, mem, pages * page_size, MSG_ZEROCOPY | MSG_DONTWAIT) < 0 ? errno : 0;
}

int zc_held(int *snd, int *rcv, void *mem, long pages)
{
	int err;

	if (tcp_pair(snd, rcv, 2048))
		return errno;
	err = zc_send(*snd, mem, pages);
	if (err) {
		close(*snd);
		close(*rcv);
	}
	return err;
}
