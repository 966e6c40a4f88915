"""The seccomp filter: its table agrees with the system's headers, and a real process under it can do what the
simulator needs and nothing that opens files, sockets or processes."""

from __future__ import annotations

import os
import re
import shutil
import signal
import struct
import subprocess
from pathlib import Path

import pytest
import yaml

from tuner.sandbox import Jail, compile_filter, load_policy, sandbox_problem, seccomp_fd
from tuner.sandbox.seccomp import RET_ALLOW, SYSCALLS_FILE, machine_arch

UNISTD = Path("/usr/include/x86_64-linux-gnu/asm/unistd_64.h")

PROBE = r"""
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>
static void* thread_main(void* arg) { return arg; }
int main(int argc, char** argv) {
    const char* what = argv[1];
    pthread_t t;
    if (pthread_create(&t, 0, thread_main, 0) != 0 || pthread_join(t, 0) != 0) return 10;
    if (!strcmp(what, "threads")) { printf("threads ok\n"); return 0; }
    if (!strcmp(what, "open")) { int fd = open("/etc/passwd", O_RDONLY); printf("open %d %d\n", fd, errno); return 0; }
    if (!strcmp(what, "socket")) { socket(AF_INET, SOCK_STREAM, 0); return 0; }
    if (!strcmp(what, "fork")) { fork(); return 0; }
    if (!strcmp(what, "setrlimit")) { struct rlimit r = {1, 1}; setrlimit(RLIMIT_NOFILE, &r); return 0; }
    if (!strcmp(what, "execve")) { char* args[] = {(char*)"/bin/sh", 0}; execv("/bin/sh", args); return 3; }
    if (!strcmp(what, "env")) { printf("env %s\n", getenv("OPENAI_API_KEY") ? "seen" : "empty"); return 0; }
    if (!strcmp(what, "fd")) { dprintf(atoi(argv[2]), "written through the descriptor\n"); return 0; }
    return 2;
}
"""


def test_the_table_matches_the_systems_own_numbers():
    if machine_arch() != "x86_64" or not UNISTD.exists():
        pytest.skip("needs x86_64 and <asm/unistd_64.h>")
    system = dict(re.findall(r"#define __NR_(\w+) (\d+)", UNISTD.read_text()))
    ours = yaml.safe_load(SYSCALLS_FILE.read_text())["x86_64"]["numbers"]
    assert {name: str(n) for name, n in ours.items()} == {name: system[name] for name in ours}


@pytest.mark.parametrize("arch", ["x86_64", "aarch64"])
def test_every_rule_names_a_call_of_the_table(arch: str):
    policy = load_policy(arch)
    data = yaml.safe_load(SYSCALLS_FILE.read_text())
    numbers = data[arch]["numbers"]
    named = set(data["policy"]["allow"]) | set(data["policy"]["errno"]) | set(data["policy"]["conditional"])
    assert {"read", "write", "futex", "mmap", "clone", "exit_group"} <= set(numbers)
    assert len(policy.allow) == len([n for n in data["policy"]["allow"] if n in numbers])
    assert not {"socket", "connect", "fork", "execveat", "kill"} & named  # refused by the default rule
    program = compile_filter(policy)
    assert len(program) % 8 == 0 and len(program) // 8 < 4096
    codes = [struct.unpack("=HBBI", program[i:i + 8]) for i in range(0, len(program), 8)]
    assert all(jt <= 6 and jf <= 6 for _, jt, jf, _ in codes)  # no jump past a rule's own block
    assert sum(1 for code, _, _, k in codes if code == 0x06 and k == RET_ALLOW) == len(policy.allow) + 2


@pytest.fixture(scope="module")
def probe(tmp_path_factory: pytest.TempPathFactory) -> Path:
    if sandbox_problem() is not None:
        pytest.skip(f"no sandbox here: {sandbox_problem()}")
    if shutil.which("gcc") is None:
        pytest.skip("needs gcc")
    directory = tmp_path_factory.mktemp("probe")
    (directory / "probe.c").write_text(PROBE)
    subprocess.run(["gcc", "-static", "-O1", "-pthread", str(directory / "probe.c"), "-o", str(directory / "probe")],
                   check=True, capture_output=True)
    return directory / "probe"


def _jailed(probe: Path, *args: str, pass_fds: tuple[int, ...] = ()) -> subprocess.CompletedProcess:
    fd = seccomp_fd()
    try:
        cmd = Jail(readable=(probe,), seccomp=True).command([str(probe), *args], fd)
        return subprocess.run(cmd, capture_output=True, text=True, timeout=30, pass_fds=(fd, *pass_fds),
                              env={**os.environ, "OPENAI_API_KEY": "sk-secret"})
    finally:
        os.close(fd)


def test_threads_run_under_the_filter(probe: Path):
    proc = _jailed(probe, "threads")
    assert (proc.returncode, proc.stdout) == (0, "threads ok\n")


def test_opening_a_file_fails_with_eacces(probe: Path):
    proc = _jailed(probe, "open")
    assert proc.returncode == 0 and proc.stdout.split()[1:] == ["-1", "13"]


@pytest.mark.parametrize("what", ["socket", "fork", "setrlimit"])
def test_sockets_processes_and_limits_kill_the_process(probe: Path, what: str):
    assert _jailed(probe, what).returncode == 128 + signal.SIGSYS


def test_there_is_no_program_to_execute(probe: Path):
    # execve stays allowed (the sandbox starts the kernel with it), but the sandbox holds no other program
    assert _jailed(probe, "execve").returncode == 3


def test_the_environment_is_empty(probe: Path):
    assert _jailed(probe, "env").stdout == "env empty\n"


def test_a_handed_descriptor_is_the_only_way_out(probe: Path, tmp_path: Path):
    out = tmp_path / "out.txt"
    fd = os.open(out, os.O_WRONLY | os.O_CREAT)
    try:
        proc = _jailed(probe, "fd", str(fd), pass_fds=(fd,))
    finally:
        os.close(fd)
    assert proc.returncode == 0 and out.read_text() == "written through the descriptor\n"
