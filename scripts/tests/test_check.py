"""scripts/check and scripts/setup: bad input refused in one line before
anything is installed or built, and the compile-only arches' entries
complete."""

import glob
import os
import subprocess
import unittest

from harness import BadInputCase, SCRIPTS

TOP = os.path.dirname(SCRIPTS)


class CheckBadInputTest(BadInputCase):
    script = 'check'

    def test_unknown_arch(self):
        self.check_refused(['--arch', 'sparc'],
                           "unknown arch 'sparc'; known: arm64 x86_64")

    def test_from_not_a_patch_number(self):
        self.check_refused(['--from', '0'], '--from takes the number of a patch')

    def test_from_past_the_series(self):
        with open(os.path.join(TOP, 'src-patches', 'series')) as f:
            n = sum(1 for line in f if not line.startswith('#'))
        self.check_refused(['--from', str(n + 1)],
                           f'--from {n + 1}: the series has {n} patches')

    def test_unknown_option(self):
        self.check_refused(['--fast'], 'usage: scripts/check')


class SetupBadInputTest(BadInputCase):
    script = 'setup'

    def test_unknown_option(self):
        self.check_refused(['--all'], 'usage: scripts/setup [--cross]')


class CompileOnlyEntriesTest(unittest.TestCase):
    """Each entry of arch-matrix/compile-only/ loads, as scripts/check
    loads it, with a cross compiler, its package and objects to build."""

    def test_entries_load(self):
        confs = sorted(glob.glob(os.path.join(TOP, 'arch-matrix', 'compile-only', '*.conf')))
        self.assertEqual([os.path.basename(c) for c in confs],
                         ['powerpc.conf', 's390.conf'])
        for conf in confs:
            name = os.path.basename(conf)[:-len('.conf')]
            with self.subTest(arch=name):
                p = subprocess.run(
                    ['bash', '-c', '. scripts/common.sh && load_compile_only "$1" && '
                     'echo "$ARCH|$CROSS_COMPILE|$PACKAGES|$DEFCONFIG|$ENABLE|$OBJECTS"',
                     '-', name], cwd=TOP, text=True, capture_output=True)
                self.assertEqual(p.returncode, 0, p.stderr)
                arch, cross, pkgs, defconfig, enable, objects = p.stdout.strip().split('|')
                self.assertEqual(arch, name)
                self.assertTrue(cross.endswith('-'), cross)
                self.assertIn(f'gcc-{cross[:-1]}', pkgs.split())
                self.assertTrue(defconfig)
                self.assertTrue(enable.split())
                self.assertTrue(all(o.endswith('.o') for o in objects.split()), objects)

    def test_unknown_entry(self):
        p = subprocess.run(['bash', '-c', '. scripts/common.sh && load_compile_only sparc'],
                           cwd=TOP, text=True, capture_output=True)
        self.assertEqual(p.returncode, 1)
        self.assertIn("unknown compile-only arch 'sparc'; known: powerpc s390", p.stderr)


if __name__ == '__main__':
    unittest.main()
