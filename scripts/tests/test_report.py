"""scripts/report: how kunit.py's JSON, the console and kunit.py's exit
status become counts, checked against the cases the sources define (here a
small fixture checkout, written by each test)."""

import io
import json
import os
import tempfile
import textwrap
import unittest

from harness import load_script
from contextlib import redirect_stdout

report = load_script('report')

CLEAN_LOG = 'Linux version 6.1\nKTAP version 1\n1..1\nok 1 mm_mlock\n'
PLAN_DONE = '# init: plan done\n'


def c_suite(config, suite, cases):
    """A kunit/*.h source: cases is a list of plain case names and of
    (fn, [rows]) parameterised cases."""
    tables, entries = [], []
    for case in cases:
        if isinstance(case, str):
            entries.append(f'\tKUNIT_CASE({case}),')
            continue
        fn, rows = case
        tables.append(f'static const struct {fn}_row {fn}_rows[] = {{\n' +
                      ''.join(f'\t{{ "{r}", 1, "........" }},\n' for r in rows) +
                      f'}};\nKUNIT_ARRAY_PARAM({fn}, {fn}_rows, {fn}_desc);\n')
        entries.append(f'\tKUNIT_CASE_PARAM({fn}, {fn}_gen_params),')
    return (f'#ifdef {config}\n' + ''.join(tables) +
            f'static struct kunit_case {suite}_cases[] = {{\n' +
            '\n'.join(entries) + '\n\t{}\n};\n'
            f'static struct kunit_suite {suite}_suite = {{\n'
            f'\t.name = "{suite}",\n\t.test_cases = {suite}_cases,\n}};\n'
            f'kunit_test_suite({suite}_suite);\n#endif /* {config} */\n')


# The fixture checkout: two suites in mm.kunitconfig, one left out of it.
KUNIT = {
    'fork_test.h': c_suite('CONFIG_MM_FORK_KUNIT_TEST', 'mm_fork', ['a', 'b']),
    'mlock_test.h': c_suite('CONFIG_MM_MLOCK_KUNIT_TEST', 'mm_mlock',
                            [('mm_mlock_table', ['mlock_whole', 'mlock_head']),
                             'mm_mlock_future_mappings']),
    'other_test.h': c_suite('CONFIG_OTHER_KUNIT_TEST', 'other', ['x']),
}
MM_CASES = ['mm_fork.a', 'mm_fork.b', 'mm_mlock.mm_mlock_table.mlock_whole',
            'mm_mlock.mm_mlock_table.mlock_head', 'mm_mlock.mm_mlock_future_mappings']
KUNITCONFIG = 'CONFIG_KUNIT=y\nCONFIG_MM_FORK_KUNIT_TEST=y\nCONFIG_MM_MLOCK_KUNIT_TEST=y\n'
PLAN = textwrap.dedent('''\
    # a comment
    case vm_selftests mlock2-tests root - 120 - mlock2-tests
    case vm_selftests mremap_test root - 90 vm/overcommit_memory=1 mremap_test
    skip vm_selftests map_hugetlb needs hugepages

    suite uapi_status root - 120 - vm_status
    ''')
VM_STATUS = 'static const struct row cases[] = {\n\t{ "mlock", 1 },\n\t{ "munmap", 2 },\n};\n'
USER_CASES = ['vm_selftests.mlock2-tests', 'vm_selftests.mremap_test',
              'vm_selftests.map_hugetlb', 'uapi_status.mlock', 'uapi_status.munmap']
USER_OK = {n: 'SKIP' if n.endswith('hugetlb') else 'PASS' for n in USER_CASES}


def to_json(cases):
    """kunit.py's JSON of (name, status) pairs, in order: 'suite.case',
    'suite.fn.row' (a parameterised case), 'suite.' (a nameless entry of a
    suite), '' (a nameless entry at the top), 'suite' (a suite with no
    case, at the top)."""
    top = {'name': 'KUnit Test Group', 'test_cases': [], 'sub_groups': []}

    def sub(group, name):
        for g in group['sub_groups']:
            if g['name'] == name:
                return g
        group['sub_groups'].append({'name': name, 'test_cases': [], 'sub_groups': []})
        return group['sub_groups'][-1]
    for name, status in cases:
        parts = name.split('.')
        group = top
        for part in parts[:-1]:
            group = sub(group, part)
        group['test_cases'].append({'name': parts[-1], 'status': status})
    return top


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.results = os.path.join(self.dir.name, 'results')
        self.src = os.path.join(self.dir.name, 'src')
        os.makedirs(self.results)
        files = {f'kunit/{n}': t for n, t in KUNIT.items()}
        files.update({'kunitconfigs/mm.kunitconfig': KUNITCONFIG,
                      'initramfs/plan': PLAN, 'uapi/vm_status.c': VM_STATUS})
        for path, text in files.items():
            self.write(os.path.join(self.src, path), text)

    def tearDown(self):
        self.dir.cleanup()

    @staticmethod
    def write(path, text):
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, 'w') as f:
            f.write(text)

    def put(self, arch, cfg, cases=None, log=CLEAN_LOG, rc=None):
        """RESULTS/arch/cfg.json from (name, status) pairs or a dict, .log
        and .rc; None leaves the file out."""
        base = os.path.join(self.results, arch, cfg)
        if cases is not None:
            pairs = list(cases.items()) if isinstance(cases, dict) else cases
            self.write(base + '.json', json.dumps(to_json(pairs)))
        if log is not None:
            self.write(base + '.log', log)
        if rc is not None:
            self.write(base + '.rc', f'{rc}\n')

    def put_kunit(self, arch='x86_64', **status):
        """mm.json with every case passed but those given (a_b for a.b)."""
        self.put(arch, 'mm', {n: status.get(n.split('.')[-1], 'PASS') for n in MM_CASES})

    def put_userspace(self, kernel, statuses=None, done=True, arch='x86_64'):
        self.put(arch, f'userspace-{kernel}',
                 USER_OK if statuses is None else statuses,
                 log=CLEAN_LOG + (PLAN_DONE if done else '[ 9.1] ---[ end trace ]---\n'))

    def run_report(self, arches='x86_64', cfgs='mm', userspace=''):
        out = io.StringIO()
        with redirect_stdout(out):
            rc = report.main([self.results, '--arches', arches, '--kunitconfigs', cfgs,
                              '--userspace', userspace, '--sources', self.src])
        self.out = out.getvalue()
        return rc, self.out.splitlines()

    def summary_md(self):
        with open(os.path.join(self.results, 'summary.md')) as f:
            return f.read()

    # --- KUnit runs ---

    def test_all_passed(self):
        self.put_kunit()
        rc, lines = self.run_report()
        self.assertEqual(rc, 0, self.out)
        self.assertEqual(lines[-1], '5 passed, 0 failed')
        self.assertIn('kunit: 5 passed, 0 failed, 0 skipped', lines)

    def test_failed_and_errored_cases_fail_and_are_named(self):
        self.put_kunit(a='FAIL', mlock_head='ERROR')
        rc, lines = self.run_report()
        self.assertEqual(rc, 1)
        self.assertEqual(lines[-1], '3 passed, 2 failed')
        self.assertIn('FAIL mm_fork.a', self.out)
        self.assertIn('ERROR mm_mlock.mm_mlock_table.mlock_head', self.out)

    def test_skipped_is_not_passed(self):
        self.put_kunit(b='SKIP')
        rc, lines = self.run_report()
        self.assertEqual(rc, 0)
        self.assertEqual(lines[-1], '4 passed, 0 failed')
        self.assertTrue(lines[-2].startswith('1 skipped'), lines[-2])

    def test_no_ktap_output_fails_every_expected_case(self):
        self.put('x86_64', 'mm', [])
        rc, lines = self.run_report()
        self.assertEqual(rc, 1)
        self.assertEqual(lines[-1], '0 passed, 5 failed')
        self.assertIn('no test case: none of the 5 expected cases', self.out)

    def test_missing_results_count_per_arch(self):
        self.put_kunit()
        rc, lines = self.run_report(arches='x86_64 arm64')
        self.assertEqual(rc, 1)
        # arm64: its 5 cases missing, and no console to check.
        self.assertEqual(lines[-1], '5 passed, 6 failed')
        self.assertIn('arm64/mm: FAILED: no kunit.py results', self.out)

    def test_suite_cut_short_names_suite_and_last_case(self):
        # The kernel died in mm_mlock's table: kunit.py reports what came
        # and a nameless ERROR for the case the suite's plan still owed.
        self.put('x86_64', 'mm', [('mm_fork.a', 'PASS'), ('mm_fork.b', 'PASS'),
                                  ('mm_mlock.mm_mlock_table.mlock_whole', 'PASS'),
                                  ('mm_mlock.', 'ERROR')])
        rc, lines = self.run_report()
        self.assertEqual(rc, 1)
        self.assertEqual(lines[-1], '3 passed, 2 failed')
        self.assertIn('x86_64/mm: FAILED: mm_mlock: 1 of 3 cases reported, the last '
                      'seen mm_mlock_table.mlock_whole; the kernel stopped in this '
                      'suite', self.out)
        self.assertIn('| mm: mm_mlock | FAIL 1/3 |', self.summary_md())

    def test_kernel_dead_in_a_table_before_its_first_row(self):
        # A BUG() in the first row of mm_mlock's table: the table printed no
        # row, so kunit.py shows it as a case of its own, and nothing after.
        self.put('x86_64', 'mm', [('mm_fork.a', 'PASS'), ('mm_fork.b', 'PASS'),
                                  ('mm_mlock.mm_mlock_table', 'ERROR')])
        rc, lines = self.run_report()
        self.assertEqual(rc, 1)
        self.assertEqual(lines[-1], '2 passed, 3 failed')
        self.assertIn('mm_mlock: 0 of 3 cases reported; the kernel stopped in this '
                      'suite', self.out)
        self.assertIn('mm_mlock: mm_mlock_table started and reported no row', self.out)

    def test_case_missing_mid_suite_is_named(self):
        self.put('x86_64', 'mm', [(n, 'PASS') for n in MM_CASES if not n.endswith('.a')])
        rc, lines = self.run_report()
        self.assertEqual(lines[-1], '4 passed, 1 failed')
        self.assertIn('mm_fork: 1 of 2 cases reported, the last seen b; missing a',
                      self.out)

    def test_kunit_py_json_of_a_kernel_that_stopped(self):
        # What kunit.py parse --json wrote (common fields left out) for a
        # console whose top plan is 1..3 and that stops in the second
        # suite's parameterised case: a nameless ERROR in that suite for
        # its second case, one at the top for the third suite.
        # These sources replace the fixture's.
        self.write(os.path.join(self.src, 'kunit', 'fork_test.h'),
                   c_suite('CONFIG_REAL_A', 'mm_fork', [
                       ('mm_fork_table', ['unlocked', 'locked']),
                       'mm_fork_future_not_inherited']) +
                   c_suite('CONFIG_REAL_A', 'mm_pin_mremap', [
                       ('mm_pin_mremap_table', ['move_pinned_all', 'move_part', 'shrink']),
                       'mm_pin_mremap_other']))
        self.write(os.path.join(self.src, 'kunit', 'mlock_test.h'),
                   c_suite('CONFIG_REAL_B', 'mm_zzz', ['a', 'b']))
        self.write(os.path.join(self.src, 'kunitconfigs', 'real.kunitconfig'),
                   'CONFIG_REAL_A=y\nCONFIG_REAL_B=y\n')
        self.write(os.path.join(self.results, 'x86_64', 'real.json'), json.dumps(
            {"name": "KUnit Test Group", "test_cases": [{"name": "", "status": "ERROR"}],
             "sub_groups": [
                 {"name": "mm_fork", "test_cases": [
                     {"name": "mm_fork_future_not_inherited", "status": "PASS"}],
                  "sub_groups": [{"name": "mm_fork_table", "test_cases": [
                      {"name": "unlocked", "status": "PASS"},
                      {"name": "locked", "status": "PASS"}], "sub_groups": []}]},
                 {"name": "mm_pin_mremap", "test_cases": [{"name": "", "status": "ERROR"}],
                  "sub_groups": [{"name": "mm_pin_mremap_table", "test_cases": [
                      {"name": "move_pinned_all", "status": "PASS"},
                      {"name": "move_part", "status": "PASS"}], "sub_groups": []}]}]}))
        self.put('x86_64', 'real', log=CLEAN_LOG, rc=1)
        rc, lines = self.run_report(cfgs='real')
        self.assertEqual(rc, 1)
        # mm_pin_mremap: 2 missing (1 nameless ERROR); mm_zzz: 2 missing
        # (the nameless ERROR at the top).
        self.assertEqual(lines[-1], '5 passed, 4 failed')
        self.assertIn('x86_64/real: FAILED: mm_pin_mremap: 2 of 4 cases reported, the '
                      'last seen mm_pin_mremap_table.move_part; the kernel stopped in '
                      'this suite', self.out)
        self.assertIn('x86_64/real: FAILED: mm_zzz: 0 of 2 cases reported', self.out)
        self.assertNotIn('kunit.py exited', self.out)

    def test_nameless_errors_are_not_counted_twice(self):
        # mm_fork.b missing, shown as one nameless ERROR in mm_fork; the
        # whole of mm_mlock missing, shown as a nameless ERROR at the top.
        self.put('x86_64', 'mm', [('mm_fork.a', 'PASS'), ('mm_fork.', 'ERROR'),
                                  ('', 'ERROR')])
        rc, lines = self.run_report()
        self.assertEqual(lines[-1], '1 passed, 4 failed')

    def test_nameless_errors_beyond_the_missing_cases_fail(self):
        self.put('x86_64', 'mm', [(n, 'PASS') for n in MM_CASES] +
                 [('mm_fork.', 'ERROR'), ('', 'ERROR')])
        rc, lines = self.run_report()
        self.assertEqual(lines[-1], '5 passed, 2 failed')

    def test_case_not_in_the_sources_fails(self):
        self.put('x86_64', 'mm', [(n, 'PASS') for n in MM_CASES] +
                 [('mm_fork.c', 'PASS'), ('other.x', 'PASS')])
        rc, lines = self.run_report()
        self.assertEqual(lines[-1], '5 passed, 2 failed')
        self.assertIn('mm_fork: reported, not in the sources: c', self.out)
        self.assertIn('other: not a suite of the sources', self.out)

    def test_kunit_exit_status_fails_a_clean_run(self):
        self.put_kunit()
        self.put('x86_64', 'mm', log=CLEAN_LOG, rc=1)
        rc, lines = self.run_report()
        self.assertEqual(rc, 1)
        self.assertEqual(lines[-1], '5 passed, 1 failed')
        self.assertIn('x86_64/mm: FAILED: kunit.py exited 1', self.out)

    def test_console_of_another_kernel_fails_a_clean_run(self):
        self.put_kunit()
        self.write(os.path.join(self.results, 'x86_64', 'mm.booted'),
                   'FAILED: the kernel that ran (#172) is not the one built in b (#177)\n')
        rc, lines = self.run_report()
        self.assertEqual(rc, 1)
        self.assertEqual(lines[-1], '5 passed, 1 failed')
        self.assertIn('x86_64/mm: FAILED: the kernel that ran (#172) is not the one built', self.out)

    def test_kunit_exit_status_of_a_failed_run_adds_nothing(self):
        self.put_kunit(a='FAIL')
        self.put('x86_64', 'mm', log=CLEAN_LOG, rc=1)
        rc, lines = self.run_report()
        self.assertEqual(lines[-1], '4 passed, 1 failed')
        self.assertNotIn('kunit.py exited', self.out)

    def test_kunit_exit_status_zero_or_absent_is_clean(self):
        self.put_kunit()
        self.put_kunit(arch='arm64')
        self.put('x86_64', 'mm', log=CLEAN_LOG, rc=0)
        rc, lines = self.run_report(arches='x86_64 arm64')
        self.assertEqual(rc, 0)
        self.assertEqual(lines[-1], '10 passed, 0 failed')

    def test_kernel_report_fails_a_passing_run(self):
        self.put_kunit()
        self.put('x86_64', 'mm', log=CLEAN_LOG + (
            '[    3.1] ------------[ cut here ]------------\n'
            '[    3.1] WARNING: CPU: 1 PID: 57 at mm/mlock.c:1\n'))
        rc, lines = self.run_report()
        self.assertEqual(rc, 1)
        self.assertEqual(lines[-1], '5 passed, 1 failed')
        self.assertIn('mm/mlock.c:1', self.out)

    def test_kernel_report_patterns(self):
        for line in ('BUG: KASAN: slab-out-of-bounds in foo+0x1/0x2',
                     'WARNING: possible circular locking dependency detected',
                     'kernel BUG at mm/mmap.c:12!',
                     'Kernel panic - not syncing: Fatal exception'):
            self.assertTrue(report.console.KERNEL_REPORTS.search(line), line)
        for line in ('ok 1 mm_mlock', 'Lock dependency validator: Copyright',
                     'KASAN: initialized', '# mm_mlock: pass:41 fail:0'):
            self.assertFalse(report.console.KERNEL_REPORTS.search(line), line)

    def test_console_option(self):
        path = os.path.join(self.results, 'c.log')
        self.write(path, CLEAN_LOG + 'BUG: KASAN: use-after-free in x\n')
        out = io.StringIO()
        with redirect_stdout(out):
            self.assertEqual(report.main(['--console', path]), 1)
        self.assertIn('kernel report: BUG: KASAN', out.getvalue())

    def test_summary_table(self):
        self.put_kunit()
        self.put_kunit(arch='arm64', b='FAIL')
        self.run_report(arches='x86_64 arm64')
        md = self.summary_md()
        self.assertIn('| kunitconfig: suite | x86_64 | arm64 |', md)
        self.assertIn('| mm: mm_fork | pass 2/2 | FAIL 1/2 |', md)
        self.assertIn('- kunit: 9 passed, 1 failed, 0 skipped', md)
        self.assertIn('- arm64/mm: FAIL mm_fork.b', md)

    def test_selftest_counts_are_added(self):
        self.put_kunit()
        self.write(os.path.join(self.results, 'selftest.json'),
                   json.dumps({'passed': 5, 'failed': 1, 'skipped': 0}))
        rc, lines = self.run_report()
        self.assertEqual(rc, 1)
        self.assertIn("scripts' tests: 5 passed, 1 failed", lines)
        self.assertEqual(lines[-1], '10 passed, 1 failed')

    # --- Userspace runs ---

    def test_userspace_patched_counted_baseline_kept_out(self):
        self.put_kunit()
        self.put_userspace('patched')
        self.put_userspace('pristine')
        rc, lines = self.run_report(userspace='patched pristine')
        self.assertEqual(rc, 0, self.out)
        self.assertIn('userspace (patched): 4 passed, 0 failed, 1 skipped', lines)
        self.assertIn('baseline (pristine): 4 passed, 0 failed, 1 skipped '
                      '(not in the count)', lines)
        self.assertEqual(lines[-1], '9 passed, 0 failed')
        self.assertTrue(lines[-2].startswith('1 skipped'), lines[-2])

    def test_broken_baseline_does_not_fail_the_product(self):
        self.put_kunit()
        self.put_userspace('patched')
        cut = {n: s for n, s in USER_OK.items() if not n.startswith('uapi_status')}
        self.put_userspace('pristine', cut, done=False)
        rc, lines = self.run_report(userspace='patched pristine')
        self.assertEqual(rc, 0, self.out)
        self.assertEqual(lines[-1], '9 passed, 0 failed')
        self.assertIn('baseline (pristine): 2 passed, 2 failed, 1 skipped '
                      '(not in the count)', lines)
        self.assertIn("x86_64/userspace-pristine: baseline problem: the kernel "
                      "stopped before the end of init's plan", self.out)
        self.assertIn('the baseline misses 2 cases', self.out)

    def test_missing_baseline_is_said(self):
        self.put_kunit()
        self.put_userspace('patched')
        rc, lines = self.run_report(userspace='patched pristine')
        self.assertIn('x86_64: no baseline (userspace-pristine.json): regressions',
                      self.out)
        self.assertEqual(lines[-1], '9 passed, 0 failed')

    def test_userspace_run_must_finish_the_plan(self):
        self.put_kunit()
        self.put_userspace('patched', done=False)
        rc, lines = self.run_report(userspace='patched')
        self.assertEqual(rc, 1)
        self.assertEqual(lines[-1], '9 passed, 1 failed')
        self.assertIn("end of init's plan", self.out)

    def test_unfinished_plan_is_counted_by_its_missing_cases(self):
        self.put_kunit()
        self.put_userspace('patched', {n: s for n, s in USER_OK.items()
                                       if n != 'uapi_status.munmap'}, done=False)
        rc, lines = self.run_report(userspace='patched')
        self.assertEqual(lines[-1], '8 passed, 1 failed')
        self.assertIn('uapi_status: 1 of 2 cases reported, the last seen mlock; '
                      'the kernel stopped in this suite', self.out)

    def test_regression_and_failing_on_both(self):
        self.put_kunit()
        self.put_userspace('pristine', dict(USER_OK, **{
            'vm_selftests.mremap_test': 'PASS', 'uapi_status.mlock': 'FAIL'}))
        self.put_userspace('patched', dict(USER_OK, **{
            'vm_selftests.mremap_test': 'FAIL', 'uapi_status.mlock': 'FAIL'}))
        rc, lines = self.run_report(userspace='patched pristine')
        self.assertEqual(rc, 1)
        # Both are failed cases of the patched run, each counted once.
        self.assertEqual(lines[-1], '7 passed, 2 failed')
        self.assertIn('regression: vm_selftests.mremap_test passes on the pristine '
                      'kernel and fails on the patched one', self.out)
        self.assertIn('uapi_status.mlock fails on the pristine kernel too', self.out)
        self.assertNotIn('regression: uapi_status.mlock', self.out)
        self.assertIn('regressions (against the pristine kernel): 1, 0 of them',
                      self.out)
        self.assertIn('regression: vm_selftests.mremap_test', self.summary_md())

    def test_pass_to_skip_is_a_regression_that_fails(self):
        self.put_kunit()
        self.put_userspace('pristine')
        self.put_userspace('patched', dict(USER_OK, **{'uapi_status.munmap': 'SKIP'}))
        rc, lines = self.run_report(userspace='patched pristine')
        self.assertEqual(rc, 1)
        self.assertIn('regression: uapi_status.munmap passes on the pristine kernel '
                      'and is skipped on the patched one', self.out)
        self.assertIn('userspace (patched): 3 passed, 0 failed, 2 skipped', lines)
        self.assertEqual(lines[-1], '8 passed, 1 failed')

    def test_disappeared_case_is_a_regression_counted_once(self):
        self.put_kunit()
        self.put_userspace('pristine')
        self.put_userspace('patched', {n: s for n, s in USER_OK.items()
                                       if n != 'vm_selftests.mremap_test'})
        rc, lines = self.run_report(userspace='patched pristine')
        self.assertEqual(rc, 1)
        self.assertIn('regression: vm_selftests.mremap_test passes on the pristine '
                      'kernel and is missing on the patched one', self.out)
        self.assertEqual(lines[-1], '8 passed, 1 failed')

    def test_disappeared_case_outside_the_sources_fails(self):
        self.put_kunit()
        self.put_userspace('pristine', dict(USER_OK, **{'vm_selftests.old': 'PASS'}))
        self.put_userspace('patched')
        rc, lines = self.run_report(userspace='patched pristine')
        self.assertIn('regression: vm_selftests.old passes on the pristine kernel '
                      'and is missing on the patched one', self.out)
        self.assertEqual(lines[-1], '9 passed, 1 failed')

    def test_unreadable_kunit_sources_fail_in_one_line(self):
        self.write(os.path.join(self.src, 'kunit', 'mlock_test.h'),
                   KUNIT['mlock_test.h'].replace('KUNIT_ARRAY_PARAM', 'NOT_A_PARAM'))
        self.put_kunit()
        rc, lines = self.run_report()
        self.assertEqual(rc, 1)
        self.assertIn('report: the expected cases cannot be read: kunit/mlock_test.h',
                      lines[-2])
        self.assertEqual(lines[-1], '0 passed, 1 failed')

    def test_program_without_cases_array_fails(self):
        self.write(os.path.join(self.src, 'uapi/vm_status.c'),
                   'static const struct row rows[] = { { "mlock" } };\n')
        self.put_kunit()
        self.put_userspace('patched')
        rc, lines = self.run_report(userspace='patched')
        self.assertEqual(rc, 1)
        self.assertIn('uapi_status: its cases cannot be checked', self.out)
        self.assertEqual(lines[-1], '9 passed, 1 failed')

    # --- The review table ---

    def test_review_table(self):
        line = ('[    2.1]     # mm_pin_transition: transition {} PPPPPPPP '
                'mlock(0,8) {} 0 {} 1\n')
        for arch, after, dl in (('x86_64', 'BBBBBBBB', 0),
                                ('arm64', 'PPPPPPPP', -8)):
            self.put(arch, 'mm', [
                ('mm_pin.mm_pin_transition.pinned_mlock_all', 'PASS' if dl == 0 else 'FAIL'),
                ('mm_pin.mm_pin_transition.pinned_unpin', 'PASS'),
                ('mm_pin.mm_pin_transition.none_mlock_all', 'PASS')],
                log=CLEAN_LOG + line.format('pinned_mlock_all', after, dl) +
                '    # mm_pin_transition: transition pinned_unpin PPPPPPPP '
                'unpin(0,0) ........ -8 0 1\n'
                '    # mm_pin_transition: transition none_mlock_all ........ '
                'mlock(0,8) LLLLLLLL 0 8 1\n')
        out = io.StringIO()
        with redirect_stdout(out):
            rc = report.main(['--table', self.results, '--arches', 'x86_64 arm64',
                              '--kunitconfigs', 'mm'])
        self.assertEqual(rc, 0)
        with open(os.path.join(self.results, 'transitions.txt')) as f:
            text = f.read().splitlines()
        self.assertTrue(text[1].startswith('shows: series'), text[1])
        self.assertEqual(text[3].split()[-3:], ['shows', 'x86_64', 'arm64'])
        rows = [r.split() for r in text[5:]]
        self.assertEqual(rows[0], ['pinned_mlock_all', 'PPPPPPPP', 'mlock(0,8)',
                                   'BBBBBBBB', '+0', '+0', '1', 'series', 'pass',
                                   'FAIL', '(PPPPPPPP', 'mlock(0,8)', 'PPPPPPPP',
                                   '+0', '-8', '1)'])
        self.assertEqual(rows[1], ['pinned_unpin', 'PPPPPPPP', 'unpin', '........',
                                   '-8', '+0', '1', 'series', 'pass', 'pass'])
        self.assertEqual(rows[2], ['none_mlock_all', '........', 'mlock(0,8)',
                                   'LLLLLLLL', '+0', '+8', '1', 'upstream', 'pass',
                                   'pass'])


if __name__ == '__main__':
    unittest.main()
