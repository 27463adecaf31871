/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The operations of the mm accounting KUnit suites (see mm_test_util.h),
 * included at the end of mm/mlock.c for the bodies of the mlock system
 * calls, and shared with the suites of kernel/fork.c and mm/mremap.c.
 */

#ifdef CONFIG_MM_KUNIT_TEST_OPS

#ifndef _MM_TEST_OPS_H
#define _MM_TEST_OPS_H

#include <kunit/test.h>
#include <linux/syscalls.h>
#include "mm_test_util.h"

/*
 * SYSCALL_DEFINE0 gives no __do_sys_munlockall() on every arch: this is the
 * body of munlockall().
 */
static long mm_test_munlockall(void)
{
	int ret;

	if (mmap_write_lock_killable(current->mm))
		return -EINTR;
	ret = apply_mlockall_flags(0);
	mmap_write_unlock(current->mm);
	return ret;
}

static const struct vm_special_mapping mm_test_special = {
	.name = "[mm_test]",
};

static long mm_test_charge(struct kunit *test, unsigned int slot,
			   unsigned long npages)
{
	struct mm_test *fx = mm_test(test);
	struct mm_pin *pin;

	KUNIT_ASSERT_LT(test, slot, MM_TEST_PINS);
	KUNIT_ASSERT_NULL(test, fx->pins[slot]);
	pin = mm_mpin_charge(fx->mm, npages);
	if (IS_ERR(pin))
		return PTR_ERR(pin);
	fx->pins[slot] = pin;
	return 0;
}

static long mm_test_pin(struct kunit *test, unsigned int slot,
			unsigned long start, unsigned long len)
{
	struct mm_test *fx = mm_test(test);
	struct mm_pin *pin;

	KUNIT_ASSERT_LT(test, slot, MM_TEST_PINS);
	KUNIT_ASSERT_NULL(test, fx->pins[slot]);
	pin = mm_mpin(fx->mm, start, len);
	if (IS_ERR(pin))
		return PTR_ERR(pin);
	fx->pins[slot] = pin;
	return 0;
}

/**
 * mm_test_do_op() - run one operation of a table on the test's mm
 * @test: the test case
 * @op: the operation
 * @base: the address of page 0 of the window
 *
 * Return: what the operation returned: 0 or -errno.
 */
long mm_test_do_op(struct kunit *test, const struct mm_test_op *op,
		   unsigned long base)
{
	unsigned long start = base + op->first * PAGE_SIZE;
	unsigned long len = op->n * PAGE_SIZE, addr;
	struct mm_test *fx = mm_test(test);
	struct vm_area_struct *vma;
	struct mm_pin *pin;

	switch (op->kind) {
	case MM_OP_NONE:
		return 0;
	case MM_OP_MLOCK:
		return __do_sys_mlock(start, len);
	case MM_OP_ONFAULT:
		return __do_sys_mlock2(start, len, MLOCK_ONFAULT);
	case MM_OP_MLOCK2_BAD:
		return __do_sys_mlock2(start, len, ~MLOCK_ONFAULT);
	case MM_OP_MUNLOCK:
		return __do_sys_munlock(start, len);
	case MM_OP_MUNMAP:
		return vm_munmap(start, len);
	case MM_OP_MLOCKALL:
		return __do_sys_mlockall(op->arg);
	case MM_OP_MUNLOCKALL:
		return mm_test_munlockall();
	case MM_OP_MAP_LOCKED:
		addr = vm_mmap(NULL, 0, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_LOCKED, 0);
		if (IS_ERR_VALUE(addr))
			return (long)addr;
		return vm_munmap(addr, len);
	case MM_OP_ACCOUNT:
		return account_locked_vm(fx->mm, op->n, true);
	case MM_OP_UNACCOUNT:
		return account_locked_vm(fx->mm, op->n, false);
	case MM_OP_MADVISE:
		return do_madvise(fx->mm, start, len, op->arg);
	case MM_OP_MAP:
	case MM_OP_MAP_NONE:
		addr = vm_mmap(NULL, start, len,
			       op->kind == MM_OP_MAP ? PROT_READ | PROT_WRITE : PROT_NONE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED |
			       (op->kind == MM_OP_MAP ? MAP_POPULATE : 0), 0);
		return IS_ERR_VALUE(addr) ? (long)addr : 0;
	case MM_OP_MAP_GROWSDOWN:
		addr = vm_mmap(NULL, start, len, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED |
			       MAP_GROWSDOWN, 0);
		return IS_ERR_VALUE(addr) ? (long)addr : 0;
	case MM_OP_MAP_SPECIAL:
		if (vm_munmap(start, len))
			return -EINVAL;
		mmap_write_lock(fx->mm);
		vma = _install_special_mapping(fx->mm, start, len,
					       VM_READ | VM_MAYREAD,
					       &mm_test_special);
		mmap_write_unlock(fx->mm);
		return IS_ERR(vma) ? PTR_ERR(vma) : 0;
	case MM_OP_PIN:
		return mm_test_pin(test, op->slot, start, len);
	case MM_OP_PIN_BYTES:
		return mm_test_pin(test, op->slot, base + op->first, op->n);
	case MM_OP_PIN_WRAP:
		return mm_test_pin(test, op->slot, PAGE_MASK, 2 * PAGE_SIZE);
	case MM_OP_CHARGE:
		return mm_test_charge(test, op->slot, op->n);
	case MM_OP_CHARGE_MORE:
		KUNIT_ASSERT_LT(test, op->slot, MM_TEST_PINS);
		KUNIT_ASSERT_NOT_NULL(test, fx->pins[op->slot]);
		return mm_mpin_charge_more(fx->pins[op->slot], op->n);
	case MM_OP_EMPTY:
		KUNIT_ASSERT_LT(test, op->slot, MM_TEST_PINS);
		KUNIT_ASSERT_NULL(test, fx->pins[op->slot]);
		pin = mm_mpin_empty(fx->mm);
		if (IS_ERR(pin))
			return PTR_ERR(pin);
		fx->pins[op->slot] = pin;
		return 0;
	case MM_OP_PIN_ACCOUNT:
		KUNIT_ASSERT_LT(test, op->slot, MM_TEST_PINS);
		KUNIT_ASSERT_NOT_NULL(test, fx->pins[op->slot]);
		return mm_mpin_account(fx->pins[op->slot], op->n,
				       !(op->arg & MM_ACCT_SHRINK),
				       op->arg & MM_ACCT_INIT_TASK ? &init_task :
				       current, op->arg & MM_ACCT_BYPASS);
	case MM_OP_UNPIN:
		KUNIT_ASSERT_LT(test, op->slot, MM_TEST_PINS);
		KUNIT_ASSERT_NOT_NULL(test, fx->pins[op->slot]);
		mm_munpin(fx->pins[op->slot]);
		fx->pins[op->slot] = NULL;
		return 0;
	}
	return -EINVAL;
}

/**
 * mm_test_setup() - make the window look like a picture
 * @test: the test case
 * @base: the window, mapped and populated as one vma
 * @from: the picture (see mm_test_pages()), of at most MM_TEST_PAGES
 *
 * Locks each run of locked pages (L, B; F, O on fault) with mlock() or
 * mlock2(), then pins the run of pinned pages (P, B, O; one run at most)
 * into pin slot 0.  The case fails here unless the window then looks like
 * @from.
 */
void mm_test_setup(struct kunit *test, unsigned long base, const char *from)
{
	unsigned int i, j, npages = strlen(from);
	struct mm_test_op op = { .slot = 0 };
	char pages[MM_TEST_PAGES + 1];

	for (i = 0; i < npages; i = j) {
		for (j = i + 1; j < npages && from[j] == from[i]; j++)
			;
		if (!strchr("LBFO", from[i]))
			continue;
		op.kind = strchr("FO", from[i]) ? MM_OP_ONFAULT : MM_OP_MLOCK;
		op.first = i;
		op.n = j - i;
		KUNIT_ASSERT_EQ(test, mm_test_do_op(test, &op, base), 0L);
	}
	for (i = 0; i < npages && !strchr("PBO", from[i]); i++)
		;
	for (j = i; j < npages && strchr("PBO", from[j]); j++)
		;
	if (j > i) {
		op.kind = MM_OP_PIN;
		op.first = i;
		op.n = j - i;
		KUNIT_ASSERT_EQ(test, mm_test_do_op(test, &op, base), 0L);
	}
	KUNIT_ASSERT_STREQ(test, mm_test_pages(mm_test(test)->mm, base, npages,
					       pages), from);
}

/* Wait for the pins mm_munpin_async() left to mm_pin_wq. */
void mm_test_flush_pins(void)
{
	flush_workqueue(mm_pin_wq);
}

#endif /* _MM_TEST_OPS_H */

#endif /* CONFIG_MM_KUNIT_TEST_OPS */
