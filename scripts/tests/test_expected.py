"""scripts/vmpinned/expected.py: the cases each suite must report, read
from C sources and initramfs/plan (inline fixtures), and the structure of
the real checkout's (no typed counts)."""

import os
import sys
import tempfile
import textwrap
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
sys.path.insert(0, os.path.dirname(HERE))
from vmpinned import expected  # noqa: E402

KUNIT_H = textwrap.dedent(r'''
    /* SPDX-License-Identifier: GPL-2.0 */
    #ifdef CONFIG_DEMO_KUNIT_TEST
    #ifndef _DEMO_H
    /* a comment naming KUNIT_CASE(not_a_case) and { "not_a_row" }, */
    struct demo_row { const char *name; struct op ops[4]; const char *to; };

    static const struct demo_row demo_rows[] = {
    	/* name        ops                               to */
    	{ "whole", { OP(MLOCK, 0, 8) }, "LLLLLLLL" },	// "not_a_row"
    	{ "two_ops", { OP(MLOCK, 2, 4),
    	               OP(MUNLOCK, 2, 4) },
    	  "........" },
    	{ .name = "designated", .ops = { { 1, 2 }, { 3, 4 } },
    	  .to = "a \"quoted\" }, { string" },
    	/* { "commented_out", {}, "" }, */
    	{ "last", {}, "/* not a comment */" },
    };

    static void demo_desc(const struct demo_row *r, char *desc)
    {
    	strscpy(desc, r->name, KUNIT_PARAM_DESC_SIZE);
    }

    KUNIT_ARRAY_PARAM(demo, demo_rows,
    		  demo_desc);

    static struct kunit_case demo_test_cases[] = {
    	KUNIT_CASE(demo_first),
    	KUNIT_CASE_PARAM(demo_table, demo_gen_params),
    	/* KUNIT_CASE(demo_disabled), */
    	KUNIT_CASE(demo_last),
    	{}
    };

    static struct kunit_suite demo_test_suite = {
    	.name = "demo",
    	.init = demo_init,
    	.test_cases = demo_test_cases,
    };
    kunit_test_suite(demo_test_suite);
    #endif
    #endif /* CONFIG_DEMO_KUNIT_TEST */
    ''')

DEMO = ['demo.demo_first', 'demo.demo_table.whole', 'demo.demo_table.two_ops',
        'demo.demo_table.designated', 'demo.demo_table.last', 'demo.demo_last']


def put(root, path, text):
    """Write text to root/path, making its folders."""
    path = os.path.join(root, path)
    os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, 'w') as f:
        f.write(text)


class CParsingTest(unittest.TestCase):
    def test_strip_comments_keeps_strings(self):
        src = 'a /* x "y" */ b // "z"\n"/* kept */" \'"\' c'
        self.assertEqual(expected.strip_comments(src), 'a   b \n"/* kept */" \'"\' c')

    def test_elements_split_at_top_level_commas(self):
        body = '{ "a", { 1, 2 }, f(3, 4) }, { "b,c", "}" },\n"d", {}'
        self.assertEqual(expected.elements(body),
                         ['{ "a", { 1, 2 }, f(3, 4) }', '{ "b,c", "}" }', '"d"', '{}'])
        self.assertEqual(expected.row_names(body), ['a', 'b,c', 'd'])

    def test_bare_string_array(self):
        src = expected.strip_comments(
            'static const char *const cases[] = { "one", /* "no" */\n "two", };\n'
            'static const char *const other[] = { "three" };')
        self.assertEqual(expected.row_names(expected.array(src, 'cases')), ['one', 'two'])

    def test_designated_index_array(self):
        src = ('static const char *const cases[] = {\n'
               '\t[FIRST] = "first",\n\t[SECOND] = "second",\n};\n')
        self.assertEqual(expected.row_names(expected.array(src, 'cases')),
                         ['first', 'second'])

    def test_array_name_is_whole(self):
        src = 'static const int my_cases[] = { "no" };\nint x;'
        self.assertIsNone(expected.array(src, 'cases'))

    def test_kunit_suite(self):
        with tempfile.TemporaryDirectory() as d:
            put(d, 'demo_test.h', KUNIT_H)
            put(d, 'util.h', '#ifndef _UTIL_H\nstatic int x;\n#endif\n')
            self.assertEqual(expected.kunit_suites(d),
                             {'demo': ('CONFIG_DEMO_KUNIT_TEST', DEMO)})

    def test_kunit_array_param_through_a_macro(self):
        wrapped = KUNIT_H.replace('KUNIT_ARRAY_PARAM(demo, demo_rows,\n\t\t  demo_desc);',
                                  'DEMO_ARRAY_PARAM(demo, demo_rows);')
        self.assertNotEqual(wrapped, KUNIT_H)
        util = ('/* DEMO_ARRAY_PARAM(prefix, array): KUNIT_ARRAY_PARAM() */\n'
                '#define DEMO_ARRAY_PARAM(prefix, array)\t\t\\\n'
                '\tstatic void prefix##_desc(typeof((array)[0]) *r, char *d)\t\\\n'
                '\t{ strscpy(d, r->name, 1); }\t\t\t\\\n'
                '\tKUNIT_ARRAY_PARAM(prefix, array, prefix##_desc)\n')
        with tempfile.TemporaryDirectory() as d:
            put(d, 'demo_test.h', wrapped)
            put(d, 'util.h', util)
            self.assertEqual(expected.kunit_suites(d),
                             {'demo': ('CONFIG_DEMO_KUNIT_TEST', DEMO)})

    def test_kunit_param_without_table_is_an_error(self):
        with tempfile.TemporaryDirectory() as d:
            put(d, 'demo_test.h',
                    KUNIT_H.replace('KUNIT_ARRAY_PARAM(demo,', 'KUNIT_ARRAY_PARAM(other,'))
            with self.assertRaises(expected.SourceError):
                expected.kunit_suites(d)

    def test_kunitconfig_selects_suites(self):
        with tempfile.TemporaryDirectory() as d:
            put(d, 'kunit/demo_test.h', KUNIT_H)
            put(d, 'kunit/off_test.h', KUNIT_H.replace('CONFIG_DEMO', 'CONFIG_OFF')
                        .replace('"demo"', '"off"'))
            put(d, 'kunitconfigs/a.kunitconfig',
                    '# CONFIG_OFF_KUNIT_TEST=y\nCONFIG_DEMO_KUNIT_TEST=y\n'
                        'CONFIG_OFF_KUNIT_TEST=n\n')
            self.assertEqual(expected.kunit_expected(d, 'a'), {'demo': DEMO})
            with self.assertRaises(expected.SourceError):
                expected.kunit_expected(d, 'missing')

    def test_arch_kunitconfig_adds_suites(self):
        off = KUNIT_H.replace('CONFIG_DEMO', 'CONFIG_OFF').replace('"demo"', '"off"')
        with tempfile.TemporaryDirectory() as d:
            put(d, 'kunit/demo_test.h', KUNIT_H)
            put(d, 'kunit/off_test.h', off)
            put(d, 'kunitconfigs/a.kunitconfig', 'CONFIG_DEMO_KUNIT_TEST=y\n')
            put(d, 'kunitconfigs/x86_64/a.kunitconfig', 'CONFIG_OFF_KUNIT_TEST=y\n')
            self.assertEqual(set(expected.kunit_expected(d, 'a', 'x86_64')),
                             {'demo', 'off'})
            self.assertEqual(set(expected.kunit_expected(d, 'a', 'arm64')), {'demo'})
            self.assertEqual(set(expected.kunit_expected(d, 'a')), {'demo'})


PLAN = textwrap.dedent('''\
    # case  SUITE NAME USER MEMLOCK TIMEOUT SYSCTL COMMAND [ARG...]
    case vm_selftests mlock2-tests root - 120 - mlock2-tests
    case vm_selftests on-fault-limit nobody - 60 - on-fault-limit
    skip vm_selftests map_hugetlb needs vm.nr_hugepages; hugetlb is outside

    suite uapi_status root - 120 - vm_status
    suite uapi_status_unprivileged nobody 8 120 - vm_status
    suite uapi_model root - 120 - vm_model 5000
    suite uapi_perf root - 60 kernel/perf_event_mlock_kb=16 perf_ring
    ''')


class PlanTest(unittest.TestCase):
    def test_plan(self):
        with tempfile.TemporaryDirectory() as d:
            put(d, 'initramfs/plan', PLAN)
            put(d, 'uapi/vm_status.c', 'static const struct row cases[] = {\n'
                        '\t{ "mlock",\t"map 0 8; lock 2 4", 0, "..LLLL..", 3 },\n'
                        '\t/* { "old", "", 0, "", 0 }, */\n'
                        '\t{ "munmap_split",\n\t  "map 0 8; unmap 2 2", 0,\n'
                        '\t  "..--....", 2 },\n};\n')
            put(d, 'uapi/vm_model.c',
                    'static const char *const cases[] = { "random_ops" };\n')
            # uapi/perf_ring.c has no cases[]: its suite's cases are unknown.
            put(d, 'uapi/perf_ring.c', 'int main(void) { ktap_plan(7); }\n')
            got = expected.userspace_expected(d)
            self.assertEqual(list(got), ['vm_selftests', 'uapi_status',
                                         'uapi_status_unprivileged', 'uapi_model',
                                         'uapi_perf'])
            self.assertEqual(got['vm_selftests'], ['vm_selftests.mlock2-tests',
                                                   'vm_selftests.on-fault-limit',
                                                   'vm_selftests.map_hugetlb'])
            self.assertEqual(got['uapi_status_unprivileged'],
                             ['uapi_status_unprivileged.mlock',
                              'uapi_status_unprivileged.munmap_split'])
            self.assertEqual(got['uapi_model'], ['uapi_model.random_ops'])
            self.assertIsInstance(got['uapi_perf'], expected.SourceError)

    def test_bad_plan_line(self):
        with tempfile.TemporaryDirectory() as d:
            put(d, 'initramfs/plan', 'run vm_selftests x\n')
            with self.assertRaises(expected.SourceError):
                expected.userspace_expected(d)


class RealSourcesTest(unittest.TestCase):
    """The checkout's own kunit/, kunitconfigs/mm.kunitconfig,
    initramfs/plan and uapi/: structure only, no counts."""

    def test_kunit(self):
        suites = expected.kunit_suites(os.path.join(TOP, 'kunit'))
        self.assertIn('mm_pin_mremap', suites)
        names = []
        for suite, (config, cases) in suites.items():
            self.assertTrue(config.startswith('CONFIG_'), suite)
            self.assertTrue(cases, f'{suite} has no case')
            self.assertTrue(all(c.startswith(suite + '.') for c in cases), suite)
            names += cases
        self.assertEqual(len(names), len(set(names)), 'case names repeat')
        mm = expected.kunit_expected(TOP, 'mm')
        self.assertIn('mm_pin_mremap', mm)
        # qib and hfi1 build on x86_64 alone
        self.assertNotIn('hfi1_user_pages', mm)
        self.assertIn('hfi1_user_pages', expected.kunit_expected(TOP, 'mm', 'x86_64'))
        self.assertNotIn('qib_user_pages', expected.kunit_expected(TOP, 'mm', 'arm64'))
        self.assertTrue(set(mm) <= set(suites))
        self.assertTrue(any('.mm_pin_transition.' in c for c in mm['mm_pin']))

    def test_userspace(self):
        suites = expected.userspace_expected(TOP)
        self.assertTrue(suites.get('vm_selftests'))
        names = []
        for suite, cases in suites.items():
            # A program whose cases[] is not written yet is reported as
            # unknown (and fails in scripts/report), not here.
            if isinstance(cases, expected.SourceError):
                continue
            self.assertTrue(cases, f'{suite} has no case')
            names += cases
        self.assertEqual(len(names), len(set(names)), 'case names repeat')


if __name__ == '__main__':
    unittest.main()
