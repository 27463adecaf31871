/* SPDX-License-Identifier: GPL-2.0 */
/*
 * What the suites of zerocopy sends share (MSG_ZEROCOPY's and io_uring's):
 * a send takes a notification charged its pages plus two, or joins one it
 * grows, and the notification's release returns the whole charge.  The
 * charge is by size; no vma is marked.  A suite gives its functions
 * (struct mm_test_zerocopy) and its table; this runs them:
 * - mm_test_zerocopy_sequence(): a row of steps (sends, joins, releases,
 *   and operations of the shared vocabulary on a populated window), then
 *   pinned_vm, locked_vm and the user's locked_vm the row says, the
 *   counters checked against the vmas and the pins; then every
 *   notification released, and nothing left charged;
 * - mm_test_zerocopy_owner_exits(): a notification released after the
 *   mm of the task that sent exited.
 */

#ifndef _MM_TEST_ZEROCOPY_H
#define _MM_TEST_ZEROCOPY_H

#include <kunit/test.h>
#include <kunit/resource.h>
#include "mm_test_util.h"

#define MZ_SLOTS	2

/**
 * struct mm_test_zerocopy - the zerocopy functions of a subsystem
 * @open: what the sends of a case go through (a socket, a ring), made
 *	under the row's credentials; an ERR_PTR() fails the case
 * @close: let it go
 * @send: a send of @pages pages through @through, with a new notification
 *	(@last NULL) or joining @last; @variant picks the kind of send where
 *	there are several; the notification, or an ERR_PTR() with the errno
 *	the send fails with
 * @free: release a notification; with interrupts off if @irqs_off
 * @irqs_off: the release can come from an interrupt (@free takes it so)
 */
struct mm_test_zerocopy {
	void *(*open)(struct kunit *test);
	void (*close)(void *through);
	void *(*send)(void *through, void *last, unsigned int pages, int variant);
	void (*free)(void *notif, bool irqs_off);
	bool irqs_off;
};

enum mm_test_zerocopy_step_kind {
	MZ_NONE,
	MZ_OP,		/* .op, of the shared vocabulary, on the window */
	MZ_SEND,	/* slot = a new notification for .pages pages */
	MZ_JOIN,	/* a send of .pages pages joins the slot's notification */
	MZ_FREE,	/* the slot's notification is released */
	MZ_FREE_IRQ,	/* the same with interrupts off, as from a completion */
};

struct mm_test_zerocopy_step {
	enum mm_test_zerocopy_step_kind kind;
	struct mm_test_op op;
	unsigned int slot;
	unsigned int pages;	/* the send's size, in pages */
	int variant;		/* the suite's kind of send, 0 by default */
	int ret;		/* what the send must fail with, or 0 */
};

#define ZOP(o)			{ .kind = MZ_OP, .op = o }
#define SEND(s, np)		{ .kind = MZ_SEND, .slot = s, .pages = np }
#define SEND_ERR(s, np, e)	{ .kind = MZ_SEND, .slot = s, .pages = np, .ret = e }
#define SEND_V(s, np, v)	{ .kind = MZ_SEND, .slot = s, .pages = np, .variant = v }
#define SEND_V_ERR(s, np, v, e) { .kind = MZ_SEND, .slot = s, .pages = np, .variant = v, \
				  .ret = e }
#define JOIN(s, np)		{ .kind = MZ_JOIN, .slot = s, .pages = np }
#define JOIN_ERR(s, np, e)	{ .kind = MZ_JOIN, .slot = s, .pages = np, .ret = e }
#define JOIN_V(s, np, v)	{ .kind = MZ_JOIN, .slot = s, .pages = np, .variant = v }
#define FREE(s)			{ .kind = MZ_FREE, .slot = s }
#define FREE_IRQ(s)		{ .kind = MZ_FREE_IRQ, .slot = s }

struct mm_test_zerocopy_case {
	const char *name;
	struct mm_test_zerocopy_step steps[4];
	long pinned;		/* pinned_vm afterwards */
	long locked;		/* locked_vm afterwards */
	long user;		/* the user's locked_vm afterwards, less before */
	long limit;		/* RLIMIT_MEMLOCK in pages, MZ_NO_MEMLOCK for 0,
				 * without CAP_IPC_LOCK...
				 */
	bool cap;		/* ...unless this keeps CAP_IPC_LOCK */
};

#define MZ_NO_MEMLOCK	(-1)

/*
 * What a case holds, let go by KUnit when the case ends, even when it
 * aborted: a case that fails part-way must not leave notifications
 * charged to the user that the next cases would meet.
 */
struct mm_test_zerocopy_held {
	const struct mm_test_zerocopy *z;
	void *through;
	void *notif[MZ_SLOTS];
};

static inline int mm_test_zerocopy_hold(struct kunit_resource *res, void *z)
{
	struct mm_test_zerocopy_held *h = kzalloc(sizeof(*h), GFP_KERNEL);

	if (!h)
		return -ENOMEM;
	h->z = z;
	res->data = h;
	return 0;
}

/* Release the notifications left, then close the socket or ring. */
static inline void mm_test_zerocopy_let_go(struct kunit_resource *res)
{
	struct mm_test_zerocopy_held *h = res->data;
	int i;

	for (i = 0; i < MZ_SLOTS; i++)
		if (h->notif[i])
			h->z->free(h->notif[i], false);
	if (h->through)
		h->z->close(h->through);
	kfree(h);
}

/* The holder of a case, with what the sends go through opened. */
static inline struct mm_test_zerocopy_held *
mm_test_zerocopy_open(struct kunit *test, const struct mm_test_zerocopy *z)
{
	struct mm_test_zerocopy_held *h;
	void *through;

	h = kunit_alloc_resource(test, mm_test_zerocopy_hold, mm_test_zerocopy_let_go,
				 GFP_KERNEL, (void *)z);
	KUNIT_ASSERT_NOT_NULL(test, h);
	through = z->open(test);
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, through);
	h->through = through;
	return h;
}

static inline void mm_test_zerocopy_desc(const struct mm_test_zerocopy_case *c,
					 char *desc)
{
	mm_test_desc(c->name, desc);
}

/* Run the row of test->param_value; see the top of the file. */
static inline void mm_test_zerocopy_sequence(struct kunit *test,
					     const struct mm_test_zerocopy *z)
{
	const struct mm_test_zerocopy_case *c = test->param_value;
	struct mm_struct *mm = mm_test(test)->mm;
	long user_vm = atomic_long_read(&current_user()->locked_vm);
	const struct mm_test_zerocopy_step *s;
	struct mm_test_zerocopy_held *h;
	void **notif;
	unsigned long base;
	int i;

	base = mm_test_map(test, MM_TEST_PAGES, MAP_POPULATE);
	if (c->limit)
		mm_test_limit(test, c->limit == MZ_NO_MEMLOCK ? 0 : c->limit, c->cap);
	h = mm_test_zerocopy_open(test, z);
	notif = h->notif;

	for (s = c->steps; s < c->steps + ARRAY_SIZE(c->steps) && s->kind; s++) {
		int step = s - c->steps;
		void *n;

		KUNIT_ASSERT_LT(test, s->slot, MZ_SLOTS);
		switch (s->kind) {
		case MZ_OP:
			KUNIT_ASSERT_EQ_MSG(test, mm_test_do_op(test, &s->op, base),
					    (long)s->op.ret, "step %d", step);
			break;
		case MZ_SEND:
			KUNIT_ASSERT_NULL(test, notif[s->slot]);
			n = z->send(h->through, NULL, s->pages, s->variant);
			KUNIT_ASSERT_EQ_MSG(test, PTR_ERR_OR_ZERO(n), s->ret, "send, step %d",
					    step);
			if (!IS_ERR(n))
				notif[s->slot] = n;
			break;
		case MZ_JOIN:
			KUNIT_ASSERT_NOT_NULL(test, notif[s->slot]);
			n = z->send(h->through, notif[s->slot], s->pages, s->variant);
			KUNIT_ASSERT_EQ_MSG(test, PTR_ERR_OR_ZERO(n), s->ret, "join, step %d",
					    step);
			/* joined: never a notification of its own */
			if (!IS_ERR(n))
				KUNIT_ASSERT_PTR_EQ(test, n, notif[s->slot]);
			break;
		case MZ_FREE:
		case MZ_FREE_IRQ:
			KUNIT_ASSERT_NOT_NULL(test, notif[s->slot]);
			KUNIT_ASSERT_TRUE(test, s->kind == MZ_FREE || z->irqs_off);
			z->free(notif[s->slot], s->kind == MZ_FREE_IRQ);
			notif[s->slot] = NULL;
			break;
		default:
			KUNIT_FAIL(test, "step %d: no such kind", step);
		}
	}

	KUNIT_EXPECT_EQ_MSG(test, atomic64_read(&mm->pinned_vm), (s64)c->pinned,
			    "pinned_vm");
	KUNIT_EXPECT_EQ_MSG(test, mm->locked_vm, (unsigned long)c->locked,
			    "locked_vm");
	KUNIT_EXPECT_EQ_MSG(test, atomic_long_read(&current_user()->locked_vm) - user_vm,
			    c->user, "the user's locked_vm");
	mm_test_expect_counters(test, mm);
	mm_test_expect_consistent(test, mm);

	for (i = 0; i < MZ_SLOTS; i++) {
		if (notif[i])
			z->free(notif[i], false);
		notif[i] = NULL;
	}
	KUNIT_EXPECT_EQ_MSG(test, atomic64_read(&mm->pinned_vm), 0LL,
			    "pinned_vm once every notification is released");
	KUNIT_EXPECT_EQ_MSG(test, atomic_long_read(&current_user()->locked_vm), user_vm,
			    "the user's locked_vm once every notification is released");
	mm_test_expect_consistent(test, mm);
	mm_test_unlimit(test);
}

/*
 * The sender exits with a notification outstanding, as a process killed
 * while its data waited in a socket another process keeps: the charge
 * stays until the notification is released, which then takes it back
 * without the sender's mm (mm_count comes back to this case's).
 */
static inline void mm_test_zerocopy_owner_exits(struct kunit *test,
						const struct mm_test_zerocopy *z)
{
	struct mm_struct *mm = mm_test(test)->mm, *other;
	long user_vm = atomic_long_read(&current_user()->locked_vm);
	struct mm_test_zerocopy_held *h = mm_test_zerocopy_open(test, z);
	void *notif;

	other = mm_test_new_mm();
	KUNIT_ASSERT_NOT_NULL(test, other);
	kthread_unuse_mm(mm);
	kthread_use_mm(other);
	notif = z->send(h->through, NULL, 4, 0);
	kthread_unuse_mm(other);
	kthread_use_mm(mm);
	if (!IS_ERR_OR_NULL(notif))
		h->notif[0] = notif;
	KUNIT_ASSERT_NOT_ERR_OR_NULL(test, notif);
	KUNIT_EXPECT_EQ(test, atomic64_read(&other->pinned_vm), 6LL);
	KUNIT_EXPECT_EQ(test, atomic64_read(&mm->pinned_vm), 0LL);

	mmgrab(other);			/* to look at it once it is gone */
	mmput(other);			/* the owner exits */
	KUNIT_EXPECT_EQ(test, atomic64_read(&other->pinned_vm), 6LL);
	h->notif[0] = NULL;
	z->free(notif, z->irqs_off);
	KUNIT_EXPECT_EQ(test, atomic64_read(&other->pinned_vm), 0LL);
	KUNIT_EXPECT_TRUE(test, hlist_empty(&other->pins_detached));
	KUNIT_EXPECT_EQ(test, atomic_long_read(&current_user()->locked_vm), user_vm);
	mm_test_flush_pins();
	mm_test_drop_lazy(mm);
	KUNIT_EXPECT_EQ_MSG(test, atomic_read(&other->mm_count), 1,
			    "mm_count once released: this case's alone");
	mmdrop(other);
}

#endif /* _MM_TEST_ZEROCOPY_H */
