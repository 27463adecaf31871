#!/usr/bin/env python3
"""Boot a kernel with an initramfs under QEMU, started by the tree's own
kunit.py code (tools/testing/kunit/kunit_kernel.py) as kunit.py starts a
KUnit kernel; for scripts/userspace.

  boot.py --tree TREE --arch ARCH [--qemu-config FILE] --kernel-dir BDIR
          --initrd FILE --smp N --timeout SECONDS (--log FILE | --dry-run)
          [--] PARAM...

The arch's QEMU parameters are its qemu_configs entry (or --qemu-config's
file, as kunit.py's --qemu_config), loaded by kunit_kernel as kunit.py loads
them; -initrd FILE and -smp N are added to its extra QEMU parameters as
kunit.py adds its --qemu_args.  The kernel is started with
LinuxSourceTreeOperationsQemu.start(PARAMS, BDIR), which puts PARAMS and the
arch's kernel_command_line on the kernel command line and prints the QEMU
command, one line after '$'.

One thing of kunit.py's is left out: the kunit_shutdown=reboot it adds to
every QEMU kernel command line.  A kernel booted with kunit.enable=0 still
calls kunit_handle_shutdown() at the end of kunit_run_all_tests(), from
kernel_init_freeable() before the initramfs's /init runs, so with it the
kernel would reboot before init ran a line of its plan.

The console (QEMU's stdout and stderr, as kunit.py reads them) is copied to
the log; QEMU's stdin is closed.  A kernel still running after --timeout
seconds is stopped (SIGTERM, then SIGKILL 10 s later) and boot.py exits 124,
as timeout(1) does; otherwise it exits with QEMU's status (128 + N for a
signal N).  125: kunit_kernel or the arch's QEMU parameters could not be
loaded; 127: QEMU could not be started.  --dry-run prints the command and
starts nothing.
"""

import argparse
import os
import subprocess
import sys
import threading
from unittest import mock

TIMED_OUT = 124         # as timeout(1)
CANNOT_LOAD = 125       # as timeout(1) when it fails itself
CANNOT_RUN = 127
GRACE = 10              # seconds between SIGTERM and SIGKILL, timeout -k 10

# What 6.1's LinuxSourceTreeOperationsQemu appends to the arch's
# kernel_command_line (see the docstring: it is left out here).
KUNIT_SHUTDOWN = 'kunit_shutdown=reboot'


class BootError(Exception):
    """kunit_kernel or the arch's QEMU parameters could not be loaded."""


def load_kunit_kernel(tree):
    """The module kunit_kernel of TREE's kunit.py, imported as kunit.py
    imports it (its own directory first on sys.path)."""
    kunit_dir = os.path.join(tree, 'tools', 'testing', 'kunit')
    if not os.path.isfile(os.path.join(kunit_dir, 'kunit_kernel.py')):
        raise BootError(f'{kunit_dir}/kunit_kernel.py: no such file')
    sys.path.insert(0, kunit_dir)
    sys.dont_write_bytecode = True      # nothing written into the tree
    import kunit_kernel
    return kunit_kernel


def qemu_ops(kunit_kernel, arch, qemu_config, extra_qemu_args):
    """The arch's LinuxSourceTreeOperationsQemu, made as 6.1's
    LinuxSourceTree makes it for kunit.py --arch ARCH [--qemu_config FILE]
    --qemu_args EXTRA, less the kunit_shutdown word."""
    try:
        path = qemu_config or kunit_kernel._default_qemu_config_path(arch)
        _, ops = kunit_kernel._get_qemu_ops(path, list(extra_qemu_args), None)
    except AttributeError as e:
        raise BootError(f'{kunit_kernel.__file__} is not 6.1\'s kunit_kernel: {e}') from None
    except (kunit_kernel.ConfigError, OSError, ValueError) as e:
        raise BootError(f'the QEMU parameters of arch {arch}: {e}') from None
    words = ops._kernel_command_line.split()
    if KUNIT_SHUTDOWN in words:
        words.remove(KUNIT_SHUTDOWN)
        ops._kernel_command_line = ' '.join(words)
    return ops


def check_command(command):
    """Refuse a QEMU command whose kernel command line would reboot the
    kernel before init runs."""
    append = command[command.index('-append') + 1] if '-append' in command else ''
    if any(w.startswith('kunit_shutdown=') for w in append.split()):
        raise BootError(f"kunit_kernel puts kunit_shutdown on the kernel command line "
                        f"('{append}'): the kernel would reboot before init runs")


def dry_run(ops, params, build_dir):
    """The QEMU command ops.start(params, build_dir) runs (start() prints it
    as it does for a run), without running it."""
    with mock.patch('subprocess.Popen') as popen:
        ops.start(list(params), build_dir)
    command = popen.call_args[0][0]
    check_command(command)
    return command


def copy_console(proc, log, timeout, grace=GRACE):
    """Copy proc's output to the file log until it exits, stopping it after
    timeout seconds; its exit status, or TIMED_OUT."""
    timed_out = threading.Event()

    def watch():
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out.set()
            proc.terminate()
            try:
                proc.wait(timeout=grace)
            except subprocess.TimeoutExpired:
                proc.kill()

    watcher = threading.Thread(target=watch, daemon=True)
    watcher.start()
    with open(log, 'w', buffering=1, errors='backslashreplace') as out:
        for line in proc.stdout:
            out.write(line)
    proc.stdout.close()
    proc.wait()
    watcher.join()
    if timed_out.is_set():
        return TIMED_OUT
    return proc.returncode if proc.returncode >= 0 else 128 - proc.returncode


def boot(ops, params, build_dir, log, timeout):
    """Start the kernel as kunit.py does, copy its console to log; the exit
    status of main()."""
    real_popen = subprocess.Popen

    def popen(command, *args, **kwargs):
        check_command(command)
        return real_popen(command, *args, **kwargs)

    try:
        with mock.patch('subprocess.Popen', popen):
            proc = ops.start(list(params), build_dir)
    except OSError as e:
        # A QEMU that is not installed; start() printed the command.
        with open(log, 'w') as out:
            print(f'boot.py: cannot run QEMU: {e}', file=out)
        print(f'boot.py: cannot run QEMU: {e}', file=sys.stderr)
        return CANNOT_RUN
    sys.stdout.flush()
    proc.stdin.close()      # as scripts/userspace ran QEMU: < /dev/null
    return copy_console(proc, log, timeout)


def parse_args(argv):
    ap = argparse.ArgumentParser(
        prog='boot.py', description=__doc__.split('\n')[0])
    ap.add_argument('--tree', required=True, help='the kernel tree (kunit.py)')
    ap.add_argument('--arch', required=True)
    ap.add_argument('--qemu-config', default='',
                    help="a qemu_configs file of one's own (kunit.py --qemu_config)")
    ap.add_argument('--kernel-dir', required=True,
                    help='the build directory (kunit.py --build_dir)')
    ap.add_argument('--initrd', required=True)
    ap.add_argument('--smp', type=int, required=True)
    ap.add_argument('--timeout', type=float, required=True)
    what = ap.add_mutually_exclusive_group(required=True)
    what.add_argument('--log', help='the console goes here')
    what.add_argument('--dry-run', action='store_true',
                      help='print the QEMU command, start nothing')
    ap.add_argument('params', nargs='*', metavar='PARAM',
                    help='words of the kernel command line')
    return ap.parse_args(argv)


def main(argv):
    args = parse_args(argv)
    try:
        kunit_kernel = load_kunit_kernel(args.tree)
        ops = qemu_ops(kunit_kernel, args.arch, args.qemu_config,
                       ['-initrd', args.initrd, '-smp', str(args.smp)])
        if args.dry_run:
            dry_run(ops, args.params, args.kernel_dir)
            return 0
        return boot(ops, args.params, args.kernel_dir, args.log, args.timeout)
    except BootError as e:
        print(f'boot.py: {e}', file=sys.stderr)
        return CANNOT_LOAD


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
