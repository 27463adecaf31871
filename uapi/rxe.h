/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The soft RDMA devices of the uapi tests, soft-RoCE (rxe) and soft-iWARP
 * (siw), through rdma-core's libibverbs (linked in statically, with its
 * rxe and siw providers: a program that includes this names "-libverbs
 * -lrxe-rdmav34 -lsiw-rdmav34 ..." on its uapi-ldlibs line).
 * uapi/rdma_mr.c makes the devices (RXE_DEVICE and SIW_DEVICE, on a dummy
 * netdev) and their /dev/infiniband/uverbsN; initramfs/plan runs it before
 * the programs that only open them.
 */
#ifndef RXE_H
#define RXE_H

#define RDMA_STATIC_PROVIDERS rxe, siw
#include <errno.h>
#include <string.h>
#include <infiniband/verbs.h>

#define RXE_DEVICE	"rxe_vmpin"
#define SIW_DEVICE	"siw_vmpin"

struct verbs {
	struct ibv_context *ctx;
	struct ibv_pd *pd;
};

/* Open the device name and allocate a protection domain; 0, or -1 with errno. */
static inline int verbs_open_dev(struct verbs *v, const char *name)
{
	struct ibv_device **list;
	int i, n;

	v->ctx = NULL;
	v->pd = NULL;
	list = ibv_get_device_list(&n);
	if (!list)
		return -1;
	for (i = 0; i < n && !v->ctx; i++)
		if (!strcmp(ibv_get_device_name(list[i]), name))
			v->ctx = ibv_open_device(list[i]);
	ibv_free_device_list(list);
	if (v->ctx)
		v->pd = ibv_alloc_pd(v->ctx);
	if (!v->pd) {
		if (v->ctx)
			ibv_close_device(v->ctx);
		if (!errno)
			errno = ENODEV;
		return -1;
	}
	return 0;
}

/* Open RXE_DEVICE. */
static inline int verbs_open(struct verbs *v)
{
	return verbs_open_dev(v, RXE_DEVICE);
}

static inline void verbs_close(struct verbs *v)
{
	ibv_dealloc_pd(v->pd);
	ibv_close_device(v->ctx);
}

/* Register len bytes at mem for local writes; the MR, or NULL with errno. */
static inline struct ibv_mr *verbs_reg(struct verbs *v, void *mem, size_t len)
{
	return ibv_reg_mr(v->pd, mem, len, IBV_ACCESS_LOCAL_WRITE);
}

#endif /* RXE_H */
