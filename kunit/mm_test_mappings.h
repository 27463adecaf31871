/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The kinds of mappings a pinner's regression table has a row for, shared
 * by the suites of the pinners (ib_umem, qib_user_pages,
 * hfi1_user_pages): each maps MM_TEST_PAGES pages of one kind in the
 * test's mm, and checks that what the pinner's pristine path registered
 * there still registers, charged the same.
 */

#ifndef _MM_TEST_MAPPINGS_H
#define _MM_TEST_MAPPINGS_H

#include <linux/anon_inodes.h>
#include <linux/hugetlb.h>
#include <linux/shmem_fs.h>
#include "mm_test_util.h"

/*
 * A driver's mapping, for the rows of special mappings: with struct pages
 * given by its fault handler (VM_DONTEXPAND | VM_MIXEDMAP, as a DRM or a
 * perf buffer), or without them (remap_pfn_range(): VM_IO | VM_PFNMAP).
 */
struct mm_test_drv {
	bool pfnmap;
	struct page *pages;	/* MM_TEST_PAGES, contiguous */
};

static vm_fault_t mm_test_drv_fault(struct vm_fault *vmf)
{
	struct mm_test_drv *drv = vmf->vma->vm_file->private_data;

	if (vmf->pgoff >= MM_TEST_PAGES)
		return VM_FAULT_SIGBUS;
	vmf->page = drv->pages + vmf->pgoff;
	get_page(vmf->page);
	vmf->page->mapping = vmf->vma->vm_file->f_mapping;
	vmf->page->index = vmf->pgoff;
	return 0;
}

static const struct vm_operations_struct mm_test_drv_vmops = {
	.fault = mm_test_drv_fault,
};

static int mm_test_drv_mmap(struct file *file, struct vm_area_struct *vma)
{
	struct mm_test_drv *drv = file->private_data;

	if (drv->pfnmap)
		return remap_pfn_range(vma, vma->vm_start, page_to_pfn(drv->pages),
				       vma->vm_end - vma->vm_start, vma->vm_page_prot);
	vma->vm_flags |= VM_DONTEXPAND | VM_MIXEDMAP;
	vma->vm_ops = &mm_test_drv_vmops;
	return 0;
}

static const struct file_operations mm_test_drv_fops = {
	.mmap = mm_test_drv_mmap,
};

enum mm_test_map_kind {
	MM_MAP_PRIVATE_ANON,
	MM_MAP_SHARED_ANON,
	MM_MAP_MEMFD,
	MM_MAP_SHARED_FILE,
	MM_MAP_PRIVATE_FILE,
	MM_MAP_READ_ONLY,
	MM_MAP_HUGETLB,
	MM_MAP_LOCKED,
	MM_MAP_PROT_NONE,
	MM_MAP_PFNMAP,
	MM_MAP_DRIVER_PAGES,
	MM_MAP_HOLE,
	MM_MAP_TWO_VMAS,
	MM_MAP_STACK,
};

/*
 * Map MM_TEST_PAGES pages of one kind (a whole huge page for
 * MM_MAP_HUGETLB); the file or the driver that
 * backs them, if any, in *file.  Return: the address, or -errno.
 */
static inline long mm_test_map_kind(enum mm_test_map_kind kind,
				    struct mm_test_drv *drv, struct file **file)
{
	unsigned long len = MM_TEST_PAGES * PAGE_SIZE, addr;
	int prot = PROT_READ | PROT_WRITE, flags = MAP_PRIVATE | MAP_ANONYMOUS;
	loff_t pos = 0;
	void *zero;

	*file = NULL;
	switch (kind) {
	case MM_MAP_SHARED_ANON:
		flags = MAP_SHARED | MAP_ANONYMOUS;
		break;
	case MM_MAP_MEMFD:
		*file = shmem_kernel_file_setup("mm_test_map", len, 0);
		flags = MAP_SHARED;
		break;
	case MM_MAP_SHARED_FILE:
	case MM_MAP_PRIVATE_FILE:
		/* A file of the rootfs: ramfs in these kernels (no TMPFS). */
		*file = filp_open("/mm_test_map", O_RDWR | O_CREAT | O_TRUNC, 0600);
		if (IS_ERR(*file))
			break;
		zero = kzalloc(len, GFP_KERNEL);
		if (!zero || kernel_write(*file, zero, len, &pos) != len) {
			kfree(zero);
			fput(*file);
			*file = ERR_PTR(-EIO);
			break;
		}
		kfree(zero);
		flags = kind == MM_MAP_SHARED_FILE ? MAP_SHARED : MAP_PRIVATE;
		break;
	case MM_MAP_READ_ONLY:
		prot = PROT_READ;
		break;
	case MM_MAP_HUGETLB:
		len = HPAGE_SIZE;
		flags |= MAP_HUGETLB;
		break;
	case MM_MAP_LOCKED:
		flags |= MAP_LOCKED;
		break;
	case MM_MAP_PROT_NONE:
		prot = PROT_NONE;
		break;
	case MM_MAP_PFNMAP:
	case MM_MAP_DRIVER_PAGES:
		drv->pfnmap = kind == MM_MAP_PFNMAP;
		drv->pages = alloc_pages(GFP_KERNEL | __GFP_ZERO, ilog2(MM_TEST_PAGES));
		if (!drv->pages)
			return -ENOMEM;
		/* A reference of its own on each page, as the fault takes one. */
		split_page(drv->pages, ilog2(MM_TEST_PAGES));
		*file = anon_inode_getfile("[mm_test_drv]", &mm_test_drv_fops, drv, O_RDWR);
		flags = MAP_SHARED;
		break;
	case MM_MAP_STACK:
		flags |= MAP_GROWSDOWN;
		break;
	default:
		break;
	}
	if (IS_ERR(*file)) {
		addr = PTR_ERR(*file);
		*file = NULL;
		return addr;
	}
	addr = vm_mmap(*file, 0, len, prot, flags | (prot != PROT_NONE ? MAP_POPULATE : 0), 0);
	if (IS_ERR_VALUE(addr))
		return addr;
	if (kind == MM_MAP_HOLE)
		vm_munmap(addr + len / 2, len / 2);
	/* private anonymous, then shared anonymous: two vmas */
	if (kind == MM_MAP_TWO_VMAS &&
	    IS_ERR_VALUE(vm_mmap(NULL, addr + len / 2, len / 2, prot,
				 MAP_SHARED | MAP_ANONYMOUS | MAP_FIXED | MAP_POPULATE, 0)))
		return -ENOMEM;
	return addr;
}

/* Unmap what mm_test_map_kind() mapped and free what backs it. */
static inline void mm_test_unmap_kind(enum mm_test_map_kind kind, unsigned long addr,
				      struct mm_test_drv *drv, struct file *file)
{
	int i;

	vm_munmap(addr, kind == MM_MAP_HUGETLB ? HPAGE_SIZE : MM_TEST_PAGES * PAGE_SIZE);
	if (file)
		fput(file);
	for (i = 0; drv->pages && i < MM_TEST_PAGES; i++) {
		drv->pages[i].mapping = NULL;
		__free_page(drv->pages + i);
	}
	drv->pages = NULL;
}

/*
 * Which vmas of [addr, addr + len) carry VM_PINNED: 1 every one, 2 none,
 * 3 some.
 */
static inline int mm_test_marked(struct mm_struct *mm, unsigned long addr,
				 unsigned long len)
{
	struct vm_area_struct *vma;
	int marked = 0;

	mmap_read_lock(mm);
	for (vma = find_vma(mm, addr); vma && vma->vm_start < addr + len;
	     vma = find_vma(mm, vma->vm_end))
		marked |= vma->vm_flags & VM_PINNED ? 1 : 2;
	mmap_read_unlock(mm);
	return marked;
}

#endif /* _MM_TEST_MAPPINGS_H */
