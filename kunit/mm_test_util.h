/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the mm accounting KUnit suites share: one fixture (a private mm for
 * the test kthread, the pins a case holds, what it changed and must put
 * back), one vocabulary of operations for the tables, pictures of the vmas
 * page by page, and the counters recomputed from the vmas and checked by
 * mm_check_locked_pages().
 *
 * The suites are built in and included at the end of the file they test,
 * so they may call its static functions (see mm/damon/vaddr-test.h).  The
 * operations need the static bodies of the mlock system calls: they are in
 * mm_test_ops.h, included at the end of mm/mlock.c whenever one of the
 * suites is built (CONFIG_MM_KUNIT_TEST_OPS).
 */

#ifndef _MM_TEST_UTIL_H
#define _MM_TEST_UTIL_H

#include <kunit/test.h>
#include <linux/cpu.h>
#include <linux/cred.h>
#include <linux/kthread.h>
#include <linux/mm.h>
#include <linux/mman.h>
#include <linux/sched/mm.h>
#include <linux/sched/signal.h>
#include <linux/sched/task.h>
#include <linux/workqueue.h>

/* Pages in the window each case maps and inspects. */
#define MM_TEST_PAGES	8
/* Pins a case may hold at once. */
#define MM_TEST_PINS	2

/**
 * struct mm_test - the fixture of every case, in test->priv
 * @mm: the mm of the test kthread, from mm_test_init()
 * @pins: the pins the case holds; mm_test_exit() releases what is left
 * @saved_max_map_count: vm.max_map_count before the case lowered it, or 0
 * @saved_cred: the kthread's credentials while mm_test_limit() is in force
 */
struct mm_test {
	struct mm_struct *mm;
	struct mm_pin *pins[MM_TEST_PINS];
	int saved_max_map_count;
	const struct cred *saved_cred;
};

/*
 * The operations of the tables.  A row lists up to a few of them, each
 * with the result it must return; the first with kind MM_OP_NONE ends the
 * list.  first and n are pages of the window.
 */
enum mm_test_op_kind {
	MM_OP_NONE,
	MM_OP_MLOCK,		/* mlock(first, n) */
	MM_OP_ONFAULT,		/* mlock2(first, n, MLOCK_ONFAULT) */
	MM_OP_MLOCK2_BAD,	/* mlock2(first, n, ~MLOCK_ONFAULT) */
	MM_OP_MUNLOCK,		/* munlock(first, n) */
	MM_OP_MUNMAP,		/* munmap(first, n) */
	MM_OP_MLOCKALL,		/* mlockall(arg) */
	MM_OP_MUNLOCKALL,	/* munlockall() */
	MM_OP_MAP_LOCKED,	/* mmap(n, MAP_LOCKED) elsewhere, then munmap */
	MM_OP_ACCOUNT,		/* account_locked_vm(n, true) */
	MM_OP_UNACCOUNT,	/* account_locked_vm(n, false) */
	MM_OP_MADVISE,		/* madvise(first, n, arg) */
	MM_OP_MAP,		/* mmap(first, n, MAP_FIXED), populated */
	MM_OP_MAP_NONE,		/* mmap(first, n, MAP_FIXED), PROT_NONE */
	MM_OP_MAP_SPECIAL,	/* a special mapping at first, n */
	MM_OP_MAP_GROWSDOWN,	/* mmap(first, n, MAP_FIXED | MAP_GROWSDOWN) */
	MM_OP_PIN,		/* pins[slot] = mm_mpin(first, n) */
	MM_OP_UNPIN,		/* mm_munpin(pins[slot]) */
	MM_OP_PIN_BYTES,	/* mm_mpin(base + first, n): bytes, not pages */
	MM_OP_PIN_WRAP,		/* mm_mpin() of the last page and one more */
	MM_OP_CHARGE,		/* pins[slot] = mm_mpin_charge(n) */
	MM_OP_CHARGE_MORE,	/* mm_mpin_charge_more(pins[slot], n) */
	MM_OP_EMPTY,		/* pins[slot] = mm_mpin_empty() */
	MM_OP_PIN_ACCOUNT,	/* mm_mpin_account(pins[slot], n, arg) */
};

/* MM_OP_PIN_ACCOUNT's arg */
#define MM_ACCT_SHRINK		0x1	/* take n back (inc false) */
#define MM_ACCT_BYPASS		0x2	/* bypass_rlim */
#define MM_ACCT_INIT_TASK	0x4	/* init_task's limit, not current's */

struct mm_test_op {
	enum mm_test_op_kind kind;
	unsigned int slot;	/* PIN, UNPIN: which of the fixture's pins */
	unsigned int first;	/* page of the window */
	unsigned int n;		/* pages */
	unsigned long arg;	/* MLOCKALL: MCL_* flags; MADVISE: MADV_* */
	int ret;		/* what the call must return */
};

/* OP(MLOCK, 2, 4): mlock pages 2-5 of the window, which must return 0. */
#define OP(k, f, np)		{ .kind = MM_OP_##k, .first = f, .n = np }
#define OP_ERR(k, f, np, e)	{ .kind = MM_OP_##k, .first = f, .n = np, .ret = e }
#define ALL(k, fl)		{ .kind = MM_OP_##k, .arg = fl }
#define ALL_ERR(k, fl, e)	{ .kind = MM_OP_##k, .arg = fl, .ret = e }
#define MADV(f, np, adv)	{ .kind = MM_OP_MADVISE, .first = f, .n = np, \
				  .arg = adv }
#define PIN(s, f, np)		{ .kind = MM_OP_PIN, .slot = s, .first = f, .n = np }
#define PIN_ERR(s, f, np, e)	{ .kind = MM_OP_PIN, .slot = s, .first = f, \
				  .n = np, .ret = e }
#define UNPIN(s)		{ .kind = MM_OP_UNPIN, .slot = s }
#define CHARGE(s, np)		{ .kind = MM_OP_CHARGE, .slot = s, .n = np }
#define CHARGE_ERR(s, np, e)	{ .kind = MM_OP_CHARGE, .slot = s, .n = np, .ret = e }
#define MORE(s, np)		{ .kind = MM_OP_CHARGE_MORE, .slot = s, .n = np }
#define MORE_ERR(s, np, e)	{ .kind = MM_OP_CHARGE_MORE, .slot = s, .n = np, \
				  .ret = e }
#define EMPTY(s)		{ .kind = MM_OP_EMPTY, .slot = s }
#define ACCT(s, np, a, e)	{ .kind = MM_OP_PIN_ACCOUNT, .slot = s, .n = np, \
				  .arg = a, .ret = e }
#define GROW(s, np)		ACCT(s, np, 0, 0)
#define GROW_ERR(s, np, e)	ACCT(s, np, 0, e)
#define SHRINK(s, np)		ACCT(s, np, MM_ACCT_SHRINK, 0)
#define SHRINK_ERR(s, np, e)	ACCT(s, np, MM_ACCT_SHRINK, e)

/*
 * The description of a row of a table for KUNIT_ARRAY_PARAM(): its name,
 * the name of the case.
 */
static inline void mm_test_desc(const char *name, char *desc)
{
	strscpy(desc, name, KUNIT_PARAM_DESC_SIZE);
}

/* In mm_test_ops.h, at the end of mm/mlock.c. */
long mm_test_do_op(struct kunit *test, const struct mm_test_op *op,
		   unsigned long base);
void mm_test_setup(struct kunit *test, unsigned long base, const char *from);
void mm_test_flush_pins(void);

static inline struct mm_test *mm_test(struct kunit *test)
{
	return test->priv;
}

/**
 * mm_test_new_mm() - an empty mm with the arch's mmap layout
 *
 * Return: the mm, with one user, or NULL.
 */
static inline struct mm_struct *mm_test_new_mm(void)
{
	struct mm_struct *mm = mm_alloc();

	if (!mm)
		return NULL;
	mm->task_size = TASK_SIZE;
	arch_pick_mmap_layout(mm, &current->signal->rlim[RLIMIT_STACK]);
	return mm;
}

/**
 * mm_test_init() - the .init of every suite: the fixture and a fresh mm
 * @test: the test case
 *
 * What newer kernels' kunit_attach_mm() does: the test kthread uses an mm
 * of its own, so that vm_mmap() and the system call bodies act on it as
 * they would on a process's own mm.
 *
 * Return: 0 or -errno.
 */
static inline int mm_test_init(struct kunit *test)
{
	struct mm_test *fx;

	if (current->mm)
		return -EBUSY;
	fx = kunit_kzalloc(test, sizeof(*fx), GFP_KERNEL);
	if (!fx)
		return -ENOMEM;
	fx->mm = mm_test_new_mm();
	if (!fx->mm)
		return -ENOMEM;
	kthread_use_mm(fx->mm);
	test->priv = fx;
	return 0;
}

/**
 * mm_test_release() - release every pin the case still holds
 * @test: the test case
 *
 * Works in any task.
 */
static inline void mm_test_release(struct kunit *test)
{
	struct mm_test *fx = mm_test(test);
	int i;

	for (i = 0; i < MM_TEST_PINS; i++) {
		if (fx->pins[i])
			mm_munpin(fx->pins[i]);
		fx->pins[i] = NULL;
	}
}

/**
 * mm_test_limit() - run under RLIMIT_MEMLOCK of @pages pages
 * @test: the test case
 * @pages: the limit
 * @cap: keep CAP_IPC_LOCK; without it, the limit applies
 *
 * The limit lives in the case's own kthread, which ends with the case;
 * mm_test_unlimit() gives the credentials back.
 */
static inline void mm_test_limit(struct kunit *test, unsigned long pages,
				 bool cap)
{
	struct rlimit *rlim = current->signal->rlim + RLIMIT_MEMLOCK;
	struct cred *cred = prepare_creds();

	KUNIT_ASSERT_NOT_NULL(test, cred);
	if (!cap)
		cap_lower(cred->cap_effective, CAP_IPC_LOCK);
	task_lock(current->group_leader);
	rlim->rlim_cur = pages * PAGE_SIZE;
	task_unlock(current->group_leader);
	mm_test(test)->saved_cred = override_creds(cred);
}

/**
 * mm_test_max_map_count() - lower vm.max_map_count for the case
 * @test: the test case
 * @value: the value; mm_test_unlimit() or .exit puts the old one back
 */
static inline void mm_test_max_map_count(struct kunit *test, int value)
{
	mm_test(test)->saved_max_map_count = sysctl_max_map_count;
	sysctl_max_map_count = value;
}

/**
 * mm_test_unlimit() - undo mm_test_limit() and mm_test_max_map_count()
 * @test: the test case
 *
 * The credentials only in the task that overrode them: when a case
 * aborts, .exit runs in another task and the kthread took them along.
 */
static inline void mm_test_unlimit(struct kunit *test)
{
	struct mm_test *fx = mm_test(test);

	if (fx->saved_max_map_count)
		sysctl_max_map_count = fx->saved_max_map_count;
	fx->saved_max_map_count = 0;
	if (fx->saved_cred && current->mm == fx->mm) {
		struct cred *cred = (struct cred *)current_cred();

		revert_creds(fx->saved_cred);
		put_cred(cred);
	}
	fx->saved_cred = NULL;
}

/**
 * mm_test_exit() - the .exit of every suite
 * @test: the test case
 *
 * Releases the pins and puts back what the case changed.  The mm is
 * dropped only by the kthread that uses it: when a case aborts, its
 * kthread exits (and releases the mm) and .exit runs in another task,
 * with current->mm NULL.
 */
static inline void mm_test_exit(struct kunit *test)
{
	struct mm_test *fx = mm_test(test);

	if (!fx)
		return;
	mm_test_release(test);
	mm_test_unlimit(test);
	if (fx->mm && current->mm == fx->mm) {
		kthread_unuse_mm(fx->mm);
		mmput(fx->mm);
	}
	fx->mm = NULL;
}

static inline long mm_test_use_mm_fn(void *mm)
{
	kthread_use_mm(mm);
	kthread_unuse_mm(mm);
	return 0;
}

/**
 * mm_test_drop_lazy() - make no CPU hold another mm lazily
 * @mm: an mm that no task uses, e.g. the fixture's
 *
 * A CPU that last ran a task using an mm keeps it as active_mm, with a
 * reference in mm_count, until it runs a task with an mm of its own (lazy
 * TLB).  Running a kthread that uses @mm on every CPU moves those
 * references to @mm, so that mm_count of any other mm counts only the
 * references its users and owners hold.
 */
static inline void mm_test_drop_lazy(struct mm_struct *mm)
{
	int cpu;

	cpus_read_lock();
	for_each_online_cpu(cpu)
		work_on_cpu(cpu, mm_test_use_mm_fn, mm);
	cpus_read_unlock();
}

/**
 * mm_test_map() - map anonymous private memory in the test's mm
 * @test: the test case
 * @npages: size in pages
 * @flags: extra MAP_* flags (MAP_POPULATE, MAP_LOCKED, ...)
 *
 * Return: the start address; the case fails here if the mapping fails.
 */
static inline unsigned long mm_test_map(struct kunit *test,
					unsigned long npages,
					unsigned long flags)
{
	unsigned long addr;

	addr = vm_mmap(NULL, 0, npages * PAGE_SIZE, PROT_READ | PROT_WRITE,
		       MAP_PRIVATE | MAP_ANONYMOUS | flags, 0);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR_VALUE(addr), "vm_mmap: %ld",
			       (long)addr);
	return addr;
}

/**
 * mm_test_pages() - describe @npages pages from @start, one letter a page
 * @mm: the mm to look at
 * @start: page-aligned address
 * @npages: pages to describe, at most MM_TEST_PAGES
 * @buf: MM_TEST_PAGES + 1 bytes
 *
 * '-' not mapped, '.' mapped, 'L' VM_LOCKED, 'F' VM_LOCKED|VM_LOCKONFAULT;
 * pinned (VM_PINNED): 'P' alone, 'B' with VM_LOCKED, 'O' with
 * VM_LOCKED|VM_LOCKONFAULT.
 *
 * Return: @buf.
 */
static inline const char *mm_test_pages(struct mm_struct *mm,
					unsigned long start,
					unsigned long npages, char *buf)
{
	unsigned long i;

	mmap_read_lock(mm);
	for (i = 0; i < npages && i < MM_TEST_PAGES; i++) {
		unsigned long addr = start + i * PAGE_SIZE;
		struct vm_area_struct *vma = vma_lookup(mm, addr);
		bool pinned = vma && (vma->vm_flags & VM_PINNED);
		char c = '-';

		if (vma && (vma->vm_flags & VM_LOCKONFAULT))
			c = pinned ? 'O' : 'F';
		else if (vma && (vma->vm_flags & VM_LOCKED))
			c = pinned ? 'B' : 'L';
		else if (vma)
			c = pinned ? 'P' : '.';
		buf[i] = c;
	}
	buf[i] = '\0';
	mmap_read_unlock(mm);
	return buf;
}

/* The window at @start must look like @want (see mm_test_pages()). */
#define MM_TEST_EXPECT_PAGES(test, start, want) do {			\
	const char *__want = (want);					\
	struct kunit *__test = (test);					\
	char __pages[MM_TEST_PAGES + 1];				\
									\
	KUNIT_EXPECT_STREQ(__test, mm_test_pages(mm_test(__test)->mm,	\
			   start, strlen(__want), __pages), __want);	\
} while (0)

/* The pages of a picture that locked_vm counts: locked and not pinned. */
static inline unsigned long mm_test_locked_in(const char *picture)
{
	unsigned long n = 0;

	for (; *picture; picture++)
		n += *picture == 'L' || *picture == 'F';
	return n;
}

/**
 * mm_test_expect_counters() - compare an mm's counters with its VMAs
 * @test: the test case
 * @mm: the mm to check
 *
 * locked_vm must equal the pages of the VMAs that are VM_LOCKED and not
 * VM_PINNED (a pinned page is charged to its pin), total_vm the pages of
 * all VMAs, and map_count the number of VMAs.
 */
static inline void mm_test_expect_counters(struct kunit *test,
					   struct mm_struct *mm)
{
	VMA_ITERATOR(vmi, mm, 0);
	unsigned long locked = 0, total = 0, count = 0;
	struct vm_area_struct *vma;

	mmap_read_lock(mm);
	for_each_vma(vmi, vma) {
		count++;
		total += vma_pages(vma);
		if ((vma->vm_flags & (VM_LOCKED | VM_PINNED)) == VM_LOCKED)
			locked += vma_pages(vma);
	}
	KUNIT_EXPECT_EQ_MSG(test, mm->locked_vm, locked,
			    "locked_vm against the VM_LOCKED, !VM_PINNED vmas");
	KUNIT_EXPECT_EQ_MSG(test, mm->total_vm, total,
			    "total_vm against the vmas");
	KUNIT_EXPECT_EQ_MSG(test, (unsigned long)mm->map_count, count,
			    "map_count against the vmas");
	mmap_read_unlock(mm);
}

/**
 * mm_test_expect_consistent() - mm_check_locked_pages() must find no fault
 * @test: the test case
 * @mm: the mm, with no charge outstanding but mm's own
 *
 * The kernel's own check, under CONFIG_DEBUG_VM: pinned_vm against the pins
 * held, locked_vm against the vmas, VM_PINNED against the attached pins.
 */
static inline void mm_test_expect_consistent(struct kunit *test,
					     struct mm_struct *mm)
{
	int ret;

	mmap_read_lock(mm);
	ret = mm_check_locked_pages(mm);
	mmap_read_unlock(mm);
	KUNIT_EXPECT_EQ_MSG(test, ret, 0, "mm_check_locked_pages(), see the console");
}

/**
 * mm_test_expect_exact() - the counters exact, and again once unpinned
 * @test: the test case, with no charge outstanding but its mm's own and
 *	its pins
 *
 * Checks the counters against the vmas and the pins, releases every pin
 * the case holds, and checks again, with pinned_vm 0.  The caller then
 * states what the vmas look like once released.
 */
static inline void mm_test_expect_exact(struct kunit *test)
{
	struct mm_struct *mm = mm_test(test)->mm;

	mm_test_expect_counters(test, mm);
	mm_test_expect_consistent(test, mm);
	mm_test_release(test);
	KUNIT_EXPECT_EQ_MSG(test, atomic64_read(&mm->pinned_vm), 0LL,
			    "pinned_vm once every pin is released");
	mm_test_expect_counters(test, mm);
	mm_test_expect_consistent(test, mm);
}

/*
 * The counters exact, every pin released, and then the window at @base
 * must look like @released, with @rvmas vmas in the mm and locked_vm
 * equal to the locked pages of @released.
 */
#define MM_TEST_EXPECT_RELEASED(test, base, released, rvmas) do {	\
	const char *__released = (released);				\
	struct kunit *__t = (test);					\
	struct mm_struct *__mm = mm_test(__t)->mm;			\
									\
	mm_test_expect_exact(__t);					\
	MM_TEST_EXPECT_PAGES(__t, base, __released);			\
	KUNIT_EXPECT_EQ_MSG(__t, __mm->map_count, rvmas,		\
			    "vmas once every pin is released");		\
	KUNIT_EXPECT_EQ(__t, __mm->locked_vm,				\
			mm_test_locked_in(__released));			\
} while (0)

#endif /* _MM_TEST_UTIL_H */
