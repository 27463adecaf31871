/* SPDX-License-Identifier: GPL-2.0 */
/*
 * KUnit test that mm_mpin() refuses secretmem (mm_pin_secretmem suite).
 *
 * Included at the end of mm/secretmem.c, whose static secretmem_file_create()
 * makes the file memfd_secret(2) returns.  secretmem pages are taken out of
 * the kernel's direct map and must never be pinned for DMA: mm_mpin()
 * refuses the mapping with -EINVAL and changes nothing.  secretmem exists
 * only when the kernel was booted with secretmem.enable=1 (scripts/run
 * passes it); the case fails, saying so, when it was not.
 */

#ifdef CONFIG_MM_PIN_KUNIT_TEST

#ifndef _SECRETMEM_TEST_H
#define _SECRETMEM_TEST_H

#include <kunit/test.h>
#include "mm_test_util.h"

static void mm_pin_refuses_secretmem(struct kunit *test)
{
	unsigned long len = MM_TEST_PAGES * PAGE_SIZE, addr;
	struct mm_struct *mm = mm_test(test)->mm;
	struct mm_pin *pin;
	struct file *file;

	KUNIT_ASSERT_TRUE_MSG(test, secretmem_enable && !IS_ERR_OR_NULL(secretmem_mnt),
			      "needs secretmem.enable=1 on the kernel command line");
	file = secretmem_file_create(0);
	KUNIT_ASSERT_FALSE(test, IS_ERR(file));
	atomic_inc(&secretmem_users);	/* as memfd_secret() does */
	addr = vm_mmap(file, 0, len, PROT_READ | PROT_WRITE, MAP_SHARED, 0);
	fput(file);
	KUNIT_ASSERT_FALSE_MSG(test, IS_ERR_VALUE(addr), "secretmem mmap: %ld",
			       (long)addr);
	mmap_read_lock(mm);
	KUNIT_EXPECT_TRUE(test, vma_is_secretmem(vma_lookup(mm, addr)));
	mmap_read_unlock(mm);

	pin = mm_mpin(mm, addr, len);
	KUNIT_EXPECT_EQ(test, PTR_ERR_OR_ZERO(pin), -EINVAL);
	if (!IS_ERR(pin))
		mm_test(test)->pins[0] = pin;
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), 0LL);
	MM_TEST_EXPECT_PAGES(test, addr, "........");
	MM_TEST_EXPECT_RELEASED(test, addr, "........", 1);
	KUNIT_EXPECT_EQ(test, vm_munmap(addr, len), 0);
}

static struct kunit_case mm_pin_secretmem_test_cases[] = {
	KUNIT_CASE(mm_pin_refuses_secretmem),
	{}
};

static struct kunit_suite mm_pin_secretmem_test_suite = {
	.name = "mm_pin_secretmem",
	.init = mm_test_init,
	.exit = mm_test_exit,
	.test_cases = mm_pin_secretmem_test_cases,
};

kunit_test_suite(mm_pin_secretmem_test_suite);

#endif /* _SECRETMEM_TEST_H */

#endif /* CONFIG_MM_PIN_KUNIT_TEST */
