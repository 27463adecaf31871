"""scripts/common.sh's booted: a console log is accepted only if its
"Linux version" line carries the UTS_VERSION of the kernel last linked in
the build directory; and ccache is not in depend mode, where it served an
older kernel's piggy.o (an .incbin it does not see) on x86_64."""

import os
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
TOP = os.path.dirname(os.path.dirname(HERE))

UTS = '#207 SMP PREEMPT_DYNAMIC Mon Dec  7 10:21:45 UTC 2026'
LINE = ('Linux version 6.1.192 (root@vm) (gcc 12.2.0) ' + UTS + '\n'
        'KTAP version 1\n')


def booted(bdir, log):
    return subprocess.run(['bash', '-c', '. scripts/common.sh; booted "$1" "$2"', '-', bdir, log],
                          cwd=TOP, capture_output=True, text=True)


class Booted(unittest.TestCase):
    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()
        self.bdir = os.path.join(self.dir.name, 'build')
        os.makedirs(os.path.join(self.bdir, 'include', 'generated'))
        self.log = os.path.join(self.dir.name, 'test.log')

    def tearDown(self):
        self.dir.cleanup()

    def write(self, uts, log):
        if uts is not None:
            with open(os.path.join(self.bdir, 'include', 'generated', 'utsversion.h'), 'w') as f:
                f.write(f'#define UTS_VERSION "{uts}"\n')
        with open(self.log, 'w') as f:
            f.write(log)

    def test_the_kernel_built(self):
        self.write(UTS, LINE)
        r = booted(self.bdir, self.log)
        self.assertEqual((r.returncode, r.stdout), (0, ''))

    def test_an_older_link(self):
        self.write(UTS.replace('#207', '#172'), LINE)
        r = booted(self.bdir, self.log)
        self.assertEqual(r.returncode, 1)
        self.assertIn(f'the kernel that ran ({UTS}) is not the one built in {self.bdir} '
                      '(#172 SMP', r.stdout)

    def test_no_console(self):
        self.write(UTS, '')
        r = booted(self.bdir, self.log)
        self.assertEqual(r.returncode, 1)
        self.assertIn('(no version line)', r.stdout)

    def test_no_build(self):
        self.write(None, LINE)
        r = booted(self.bdir, self.log)
        self.assertEqual(r.returncode, 1)
        self.assertIn('(no UTS_VERSION)', r.stdout)


class Ccache(unittest.TestCase):
    def test_not_depend_mode(self):
        r = subprocess.run(['bash', '-c', '. scripts/common.sh; echo "${CCACHE_DEPEND-unset}"'],
                           cwd=TOP, capture_output=True, text=True,
                           env=dict(os.environ, CCACHE_DEPEND='true'))
        self.assertEqual(r.stdout, 'unset\n')


if __name__ == '__main__':
    unittest.main()
