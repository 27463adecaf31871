"""scripts/selftest: how unittest's result becomes the counts scripts/report
adds; a known failure (expectedFailure) is never a pass."""

import io
import unittest

from harness import load_script

selftest = load_script('selftest')


class CountsTest(unittest.TestCase):
    class Sample(unittest.TestCase):
        """Not discovered: inside CountsTest."""

        def test_pass(self):
            pass

        def test_fail(self):
            self.fail('no')

        def test_error(self):
            raise RuntimeError('no')

        @unittest.skip('not here')
        def test_skip(self):
            pass

        @unittest.expectedFailure
        def test_known_bug(self):
            self.fail('known')

        @unittest.expectedFailure
        def test_fixed_bug(self):
            pass

        def test_subtests(self):
            for i in range(3):
                with self.subTest(i=i):
                    self.assertEqual(i, 0)

    def run_sample(self, *names):
        suite = unittest.TestSuite(self.Sample(n) for n in names)
        return unittest.TextTestRunner(stream=io.StringIO()).run(suite)

    def test_every_outcome(self):
        result = self.run_sample('test_pass', 'test_fail', 'test_error', 'test_skip',
                                 'test_known_bug', 'test_fixed_bug')
        self.assertEqual(selftest.counts(result),
                         {'passed': 1, 'failed': 4, 'skipped': 1})

    def test_expected_failure_is_failed(self):
        result = self.run_sample('test_known_bug')
        self.assertEqual(selftest.counts(result),
                         {'passed': 0, 'failed': 1, 'skipped': 0})

    def test_failing_subtests_fail_one_test_each(self):
        result = self.run_sample('test_pass', 'test_subtests')
        self.assertEqual(selftest.counts(result),
                         {'passed': 1, 'failed': 2, 'skipped': 0})


if __name__ == '__main__':
    unittest.main()
