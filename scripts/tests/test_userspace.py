"""scripts/userspace: bad input says in one line what is wrong and how to
fix it, before anything is installed, unpacked, built or booted."""

import unittest

from harness import BadInputCase


class UserspaceBadInputTest(BadInputCase):
    script = 'userspace'

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
