"""scripts/cost: bad input says in one line what is wrong, before anything
is installed, prepared, built or booted."""

import unittest

from harness import BadInputCase


class CostBadInputTest(BadInputCase):
    script = 'cost'

    def test_unknown_arch(self):
        self.check_refused(['--arch', 'sparc'], "unknown arch 'sparc'; known: arm64 x86_64")

    def test_unknown_option(self):
        self.check_refused(['--fast'], 'unknown option --fast; usage: scripts/cost')

    def test_argument(self):
        self.check_refused(['mm_pin_cost'], 'no arguments but --arch; usage: scripts/cost')

    def test_missing_value(self):
        self.check_refused(['--arch'], 'usage: scripts/cost')


if __name__ == '__main__':
    unittest.main()
