"""scripts/mutate: bad input says in one line what is wrong and what is
known, before anything is installed, prepared, built or booted; and every
mutant of mutants/ says which cases should kill it."""

import glob
import os
import re
import unittest

from harness import BadInputCase

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))
MUTANTS = sorted(os.path.basename(p)[:-len('.patch')]
                 for p in glob.glob(os.path.join(TOP, 'mutants', '*.patch')))


class MutateBadInputTest(BadInputCase):
    script = 'mutate'

    def test_unknown_arch(self):
        self.check_refused(['--arch', 'sparc'], "unknown arch 'sparc'; known: arm64 x86_64")

    def test_unknown_arch_before_mutants(self):
        self.check_refused(['--arch=sparc', 'no-such-mutant'], "unknown arch 'sparc'")

    def test_unknown_mutant(self):
        line = self.check_refused([MUTANTS[0], 'no-such-mutant'],
                                  "unknown mutant 'no-such-mutant'; known: ")
        self.assertEqual(line.split('known: ')[1].split(), MUTANTS)

    def test_unknown_mutant_with_arch(self):
        self.check_refused(['--arch', 'arm64', 'mutants/no-such-mutant.patch'],
                           "unknown mutant 'no-such-mutant'")

    def test_unknown_option(self):
        self.check_refused(['--fast'], 'unknown option --fast; usage: scripts/mutate')

    def test_missing_value(self):
        self.check_refused(['--arch'], 'usage: scripts/mutate')


class MutantsTest(unittest.TestCase):
    """Each mutant is a header (a title, the bug, and KILLED BY: the cases
    that should kill it, or 'nothing yet' and the test it needs) and then
    a diff of one .c file that git apply takes."""

    def test_there_are_mutants(self):
        self.assertGreaterEqual(len(MUTANTS), 14)

    def test_each_has_header_and_one_c_file(self):
        for name in MUTANTS:
            with self.subTest(mutant=name):
                with open(os.path.join(TOP, 'mutants', name + '.patch')) as f:
                    text = f.read()
                header, sep, diff = text.partition('\ndiff --git ')
                self.assertTrue(sep, 'no diff --git')
                self.assertTrue(header.split('\n')[0].strip(), 'no title line')
                killed = re.search(r'^KILLED BY: (.*)$', header, re.M)
                self.assertTrue(killed, 'no KILLED BY: line')
                self.assertTrue(killed.group(1).startswith('nothing yet') or
                                re.match(r'\w+\.\w+', killed.group(1)),
                                killed.group(1))
                files = re.findall(r'^\+\+\+ b/(\S+)$', diff, re.M)
                self.assertEqual(len(files), 1, files)
                self.assertTrue(files[0].endswith('.c'), files[0])
                arches = re.search(r'^ARCHES: (.*)$', header, re.M)
                known = os.listdir(os.path.join(TOP, 'arch-matrix'))
                for a in arches.group(1).split() if arches else []:
                    self.assertIn(f'{a}.conf', known, f'ARCHES: {a}')


if __name__ == '__main__':
    unittest.main()
