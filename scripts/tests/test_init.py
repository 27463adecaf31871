"""initramfs/init.c: a KTAP program's exit status is part of its last
result.  init runs only as PID 1 under QEMU, so its output filter (emit()
and flush_held()) is compiled here into a small driver with the host's gcc
and fed a program's output."""

import os
import shutil
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
INIT_C = os.path.join(os.path.dirname(os.path.dirname(HERE)), 'initramfs', 'init.c')

DRIVER = r'''
#define main init_main
#include "%s"
#undef main
int main(int argc, char **argv)
{
	struct line l = { .suite = "demo" };
	char buf[512];

	while (fgets(buf, sizeof(buf), stdin)) {
		buf[strcspn(buf, "\n")] = 0;
		emit(&l, "    ", true, buf);
	}
	flush_held("    ", argc > 1 ? argv[1] : NULL);
	return 0;
}
'''


@unittest.skipIf(shutil.which('gcc') is None, 'needs gcc')
class InitExitStatusTest(unittest.TestCase):
    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        src = os.path.join(cls.tmp.name, 'driver.c')
        cls.exe = os.path.join(cls.tmp.name, 'driver')
        with open(src, 'w') as f:
            f.write(DRIVER % INIT_C)
        subprocess.run(['gcc', '-Wall', '-Werror', '-Wno-unused-function',
                        '-o', cls.exe, src], check=True)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def filter(self, text, reason=None):
        args = [self.exe] + ([reason] if reason else [])
        return subprocess.run(args, input=text, text=True, check=True,
                              capture_output=True).stdout.splitlines()

    OUTPUT = ('KTAP version 1\n1..3\n# d1\nok 1 a\nnot ok 2 b\n'
              '# before c\nok 3 c # SKIP why\n# trailing\n')

    def test_exit_zero_passes_everything_through(self):
        out = self.filter(self.OUTPUT)
        self.assertEqual([line.strip() for line in out], [
            'KTAP version 1', '# Subtest: demo', '1..3', '# d1', 'ok 1 a',
            'not ok 2 b', '# before c', 'ok 3 c # SKIP why', '# trailing'])

    def test_failed_exit_fails_the_last_case_and_keeps_the_plan(self):
        out = [line.strip() for line in self.filter(self.OUTPUT, 'exit status 3')]
        self.assertIn('1..3', out)
        self.assertEqual(out[-3:], ['# exit status 3', 'not ok 3 c # exit status 3',
                                    '# trailing'])
        self.assertEqual(sum(line.startswith(('ok ', 'not ok ')) for line in out), 3)

    def test_failed_exit_keeps_a_failed_case_failed(self):
        out = [line.strip() for line in
               self.filter('KTAP version 1\n1..1\nnot ok 1 a\n', 'killed by signal 11')]
        self.assertEqual(out[-1], 'not ok 1 a # killed by signal 11')

    def test_no_result_printed_adds_no_case(self):
        out = self.filter('KTAP version 1\n1..2\n# crashed early\n', 'exit status 1')
        self.assertFalse(any(line.strip().startswith(('ok', 'not ok')) for line in out))


if __name__ == '__main__':
    unittest.main()


PAIR_C = os.path.join(os.path.dirname(INIT_C), 'pair.c')


@unittest.skipIf(shutil.which('gcc') is None or not os.path.exists('/bin/true'),
                 'needs gcc and /bin/true')
class PairTest(unittest.TestCase):
    """initramfs/pair.c: a server and a client from /bin, both must pass."""

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.exe = os.path.join(cls.tmp.name, 'pair')
        subprocess.run(['gcc', '-Wall', '-Werror', '-o', cls.exe, PAIR_C], check=True)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def pair(self, *args):
        return subprocess.run([self.exe] + list(args), text=True, capture_output=True)

    def test_both_pass(self):
        self.assertEqual(self.pair('true', '--', 'true').returncode, 0)

    def test_a_failed_client_fails_and_says_so(self):
        r = self.pair('true', '--', 'false')
        self.assertEqual(r.returncode, 1)
        self.assertIn('the client exited 1', r.stderr)

    def test_a_failed_server_fails_and_says_so(self):
        r = self.pair('false', '--', 'true')
        self.assertEqual(r.returncode, 1)
        self.assertIn('the server exited 1', r.stderr)

    def test_no_client_is_a_usage_error(self):
        for args in (('true',), ('true', '--'), ('--', 'true')):
            r = self.pair(*args)
            self.assertEqual(r.returncode, 2, args)
            self.assertIn('usage: pair', r.stderr)
