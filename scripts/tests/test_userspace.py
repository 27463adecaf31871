"""scripts/userspace: bad input says in one line what is wrong and how to
fix it, before anything is installed, unpacked, built or booted."""

import os
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
USERSPACE = os.path.join(os.path.dirname(HERE), 'userspace')


class UserspaceBadInputTest(unittest.TestCase):
    def run_userspace(self, *args):
        with tempfile.TemporaryDirectory() as work:
            env = dict(os.environ, VM_PINNED_WORK=work)
            p = subprocess.run([USERSPACE, *args], env=env, text=True,
                               capture_output=True)
            left = os.listdir(work)
        return p, left

    def check_refused(self, args, says):
        p, left = self.run_userspace(*args)
        self.assertEqual(p.returncode, 1, p.stderr)
        lines = p.stderr.strip().splitlines()
        self.assertEqual(len(lines), 1, p.stderr)
        self.assertIn(says, lines[0])
        self.assertEqual(p.stdout, '')
        self.assertEqual(left, [], 'the work directory was touched')

    def test_unknown_kernel(self):
        self.check_refused(['--kernel', 'mainline'],
                           "unknown kernel 'mainline': patched or pristine")

    def test_bad_seed(self):
        self.check_refused(['--seed', '12ab'], "--seed wants a number, not '12ab'")

    def test_unknown_arch(self):
        self.check_refused(['--arch', 'sparc'], "unknown arch 'sparc'; known: arm64 x86_64")

    def test_unknown_argument(self):
        self.check_refused(['--fast'], 'unknown argument --fast; usage: scripts/userspace')

    def test_missing_value(self):
        self.check_refused(['--arch'], 'usage: scripts/userspace')


if __name__ == '__main__':
    unittest.main()
