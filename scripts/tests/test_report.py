"""scripts/report: how kunit.py's JSON and the console become counts."""

import importlib.machinery
import importlib.util
import io
import json
import os
import tempfile
import unittest
from contextlib import redirect_stdout

HERE = os.path.dirname(os.path.abspath(__file__))
_loader = importlib.machinery.SourceFileLoader(
    'report', os.path.join(HERE, '..', 'report'))
_spec = importlib.util.spec_from_loader('report', _loader)
report = importlib.util.module_from_spec(_spec)
_loader.exec_module(report)

CLEAN_LOG = 'Linux version 6.1\nKTAP version 1\n1..1\nok 1 mm_mlock\n'


def group(name, cases=(), subs=()):
    return {'name': name, 'test_cases': [{'name': n, 'status': s} for n, s in cases],
            'sub_groups': list(subs)}


class ReportTest(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.results = self.dir.name

    def tearDown(self):
        self.dir.cleanup()

    def put(self, arch, cfg, top=None, log=CLEAN_LOG):
        os.makedirs(os.path.join(self.results, arch), exist_ok=True)
        base = os.path.join(self.results, arch, cfg)
        if top is not None:
            with open(base + '.json', 'w') as f:
                json.dump(top, f)
        if log is not None:
            with open(base + '.log', 'w') as f:
                f.write(log)

    def run_report(self, arches='x86_64', cfgs='mm', userspace=''):
        out = io.StringIO()
        with redirect_stdout(out):
            rc = report.main([self.results, '--arches', arches,
                              '--kunitconfigs', cfgs, '--userspace', userspace])
        return rc, out.getvalue().splitlines()

    def test_all_passed(self):
        self.put('x86_64', 'mm', group('KUnit Test Group', subs=[
            group('mm_mlock', [('mm_mlock_future_mappings', 'PASS')], [
                group('mm_mlock_table', [('mlock_whole', 'PASS'),
                                         ('mlock_head', 'PASS')])])]))
        rc, lines = self.run_report()
        self.assertEqual(rc, 0)
        self.assertEqual(lines[-1], '3 passed, 0 failed')

    def test_failed_and_crashed_cases_fail(self):
        self.put('x86_64', 'mm', group('KUnit Test Group', subs=[
            group('mm_mlock', [('a', 'PASS'), ('b', 'FAIL'), ('', 'ERROR')])]))
        rc, lines = self.run_report()
        self.assertEqual(rc, 1)
        self.assertEqual(lines[-1], '1 passed, 2 failed')

    def test_skipped_is_not_passed(self):
        self.put('x86_64', 'mm', group('KUnit Test Group', subs=[
            group('mm_mlock', [('a', 'PASS'), ('b', 'SKIP')])]))
        rc, lines = self.run_report()
        self.assertEqual(lines[-1], '1 passed, 0 failed')
        self.assertTrue(lines[-2].startswith('1 skipped'), lines[-2])

    def test_no_ktap_output_is_a_failure(self):
        self.put('x86_64', 'mm', group('KUnit Test Group'))
        rc, lines = self.run_report()
        self.assertEqual(rc, 1)
        self.assertEqual(lines[-1], '0 passed, 1 failed')
        self.assertIn('no test case', '\n'.join(lines))

    def test_missing_results_count_per_arch(self):
        self.put('x86_64', 'mm', group('KUnit Test Group', subs=[
            group('mm_fork', [('a', 'PASS')])]))
        rc, lines = self.run_report(arches='x86_64 arm64')
        self.assertEqual(rc, 1)
        self.assertEqual(lines[-1], '1 passed, 2 failed')

    def test_kernel_report_fails_a_passing_run(self):
        log = CLEAN_LOG + ('[    3.1] ------------[ cut here ]------------\n'
                           '[    3.1] WARNING: CPU: 1 PID: 57 at mm/mlock.c:1\n')
        self.put('x86_64', 'mm', group('KUnit Test Group', subs=[
            group('mm_fork', [('a', 'PASS')])]), log=log)
        rc, lines = self.run_report()
        self.assertEqual(rc, 1)
        self.assertEqual(lines[-1], '1 passed, 1 failed')
        self.assertIn('mm/mlock.c:1', '\n'.join(lines))

    def test_kernel_report_patterns(self):
        for line in ('BUG: KASAN: slab-out-of-bounds in foo+0x1/0x2',
                     'WARNING: possible circular locking dependency detected',
                     'kernel BUG at mm/mmap.c:12!',
                     'Kernel panic - not syncing: Fatal exception'):
            self.assertTrue(report.KERNEL_REPORTS.search(line), line)
        for line in ('ok 1 mm_mlock', 'Lock dependency validator: Copyright',
                     'KASAN: initialized', '# mm_mlock: pass:41 fail:0'):
            self.assertFalse(report.KERNEL_REPORTS.search(line), line)

    def test_summary_table(self):
        for arch in ('x86_64', 'arm64'):
            self.put(arch, 'mm', group('KUnit Test Group', subs=[
                group('mm_fork', [('a', 'PASS'), ('b', 'PASS' if arch == 'x86_64' else 'FAIL')])]))
        self.run_report(arches='x86_64 arm64')
        with open(os.path.join(self.results, 'summary.md')) as f:
            md = f.read()
        self.assertIn('| kunitconfig: suite | x86_64 | arm64 |', md)
        self.assertIn('| mm: mm_fork | pass 2/2 | FAIL 1/2 |', md)

    def test_selftest_counts_are_added(self):
        self.put('x86_64', 'mm', group('KUnit Test Group', subs=[
            group('mm_fork', [('a', 'PASS')])]))
        with open(os.path.join(self.results, 'selftest.json'), 'w') as f:
            json.dump({'passed': 5, 'failed': 1, 'skipped': 0}, f)
        rc, lines = self.run_report()
        self.assertEqual(rc, 1)
        self.assertEqual(lines[-1], '6 passed, 1 failed')

    def put_userspace(self, kernel, statuses, done=True):
        log = CLEAN_LOG + ('# init: plan done\n' if done else '[ 9.1] ---[ end trace ]---\n')
        self.put('x86_64', 'mm', group('KUnit Test Group', subs=[
            group('mm_fork', [('a', 'PASS')])]))
        self.put('x86_64', f'userspace-{kernel}', group('KUnit Test Group', subs=[
            group('vm_selftests', list(statuses.items()))]), log=log)

    def test_userspace_runs_are_counted(self):
        for k in ('patched', 'pristine'):
            self.put_userspace(k, {'mlock2-tests': 'PASS', 'map_hugetlb': 'SKIP'})
        rc, lines = self.run_report(userspace='patched pristine')
        self.assertEqual(rc, 0)
        self.assertEqual(lines[-1], '3 passed, 0 failed')
        self.assertTrue(lines[-2].startswith('2 skipped'), lines[-2])

    def test_userspace_run_must_finish_the_plan(self):
        self.put_userspace('patched', {'mlock2-tests': 'PASS'}, done=False)
        rc, lines = self.run_report(userspace='patched')
        self.assertEqual(rc, 1)
        self.assertEqual(lines[-1], '2 passed, 1 failed')
        self.assertIn("end of init's plan", '\n'.join(lines))

    def test_regression_is_named(self):
        self.put_userspace('pristine', {'mremap_test': 'PASS', 'old_bug': 'FAIL'})
        self.put_userspace('patched', {'mremap_test': 'FAIL', 'old_bug': 'FAIL'})
        rc, lines = self.run_report(userspace='patched pristine')
        out = '\n'.join(lines)
        self.assertEqual(rc, 1)
        self.assertEqual(lines[-1], '2 passed, 3 failed')
        self.assertIn('regression: vm_selftests.mremap_test passes on the pristine', out)
        self.assertIn('vm_selftests.old_bug fails on the pristine kernel too', out)
        self.assertNotIn('regression: vm_selftests.old_bug', out)

    def test_review_table(self):
        line = ('[    2.1]     # mm_pin_transition: transition {} PPPPPPPP '
                'mlock(0,8) {} 0 {} 1\n')
        for arch, after, dl in (('x86_64', 'BBBBBBBB', 0),
                                ('arm64', 'PPPPPPPP', -8)):
            self.put(arch, 'mm', group('KUnit Test Group', subs=[
                group('mm_pin', subs=[group('mm_pin_transition', [
                    ('pinned_mlock_all', 'PASS' if dl == 0 else 'FAIL'),
                    ('pinned_unpin', 'PASS')])])]),
                log=CLEAN_LOG + line.format('pinned_mlock_all', after, dl) +
                '    # mm_pin_transition: transition pinned_unpin PPPPPPPP '
                'unpin(0,0) ........ -8 0 1\n')
        out = io.StringIO()
        with redirect_stdout(out):
            rc = report.main(['--table', self.results, '--arches', 'x86_64 arm64',
                              '--kunitconfigs', 'mm'])
        self.assertEqual(rc, 0)
        with open(os.path.join(self.results, 'transitions.txt')) as f:
            rows = [r.split() for r in f.read().splitlines()[4:]]
        self.assertEqual(rows[0], ['pinned_mlock_all', 'PPPPPPPP', 'mlock(0,8)',
                                   'BBBBBBBB', '+0', '+0', '1', 'pass', 'FAIL',
                                   '(PPPPPPPP', 'mlock(0,8)', 'PPPPPPPP', '+0',
                                   '-8', '1)'])
        self.assertEqual(rows[1], ['pinned_unpin', 'PPPPPPPP', 'unpin', '........',
                                   '-8', '+0', '1', 'pass', 'pass'])


if __name__ == '__main__':
    unittest.main()
