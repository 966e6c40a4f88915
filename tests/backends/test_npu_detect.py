"""NPU detection against stand-in installs: toolkit trees in tmp_path, shell-script tools, fake torch_npu."""

from __future__ import annotations

import json
import shutil
import stat
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
from click.testing import CliRunner

import tuner.backends.npu.detect as detect_mod
from tuner.backends.npu.detect import (
    COMPILER,
    DEVICES,
    MSPROF,
    TOOLKIT,
    TORCH_NPU,
    detect,
    normalise_soc,
    parse_npu_smi,
    toolkit_version,
)
from tuner.cli import main

# Layout A (CANN 7/8 toolkit): version.cfg with "<inner>:<public>" running versions.
VERSION_CFG = """\
# version: 1.0
runtime_running_version=[7.3.0.1.231:8.0.RC2]
compiler_running_version=[7.3.0.1.231:8.0.RC2]
hccl_running_version=[7.3.0.1.231:8.0.RC2]
opp_running_version=[7.3.0.1.231:8.0.RC2]
toolkit_running_version=[7.3.0.1.231:8.0.RC2]
aoe_running_version=[7.3.0.1.231:8.0.RC2]
ncs_running_version=[7.3.0.1.231:8.0.RC2]
runtime_upgrade_version=[7.3.0.1.231:8.0.RC2]
"""
# Layout B: <home>/<arch>-linux/ascend_toolkit_install.info.
INSTALL_INFO = """\
package_name=Ascend-cann-toolkit
version=8.0.RC3
innerversion=V100R001C19SPC001B226
compatible_version=[V100R001C15],[V100R001C17],[V100R001C18],[V100R001C19]
arch=aarch64
os=linux
path=/usr/local/Ascend/ascend-toolkit/8.0.RC3/aarch64-linux
"""
NPU_SMI_910B2 = """\
+------------------------------------------------------------------------------------------------+
| npu-smi 23.0.6                   Version: 23.0.6                                               |
+---------------------------+---------------+----------------------------------------------------+
| NPU   Name                | Health        | Power(W)    Temp(C)           Hugepages-Usage(page)|
| Chip                      | Bus-Id        | AICore(%)   Memory-Usage(MB)  HBM-Usage(MB)        |
+===========================+===============+====================================================+
| 0     910B2               | OK            | 92.7        37                0    / 0             |
| 0                         | 0000:C1:00.0  | 0           0    / 0          3397 / 65536         |
+===========================+===============+====================================================+
| 1     910B2               | OK            | 90.1        36                0    / 0             |
| 0                         | 0000:C2:00.0  | 0           0    / 0          3398 / 65536         |
+===========================+===============+====================================================+
+---------------------------+---------------+----------------------------------------------------+
| NPU     Chip              | Process id    | Process name             | Process memory(MB)      |
+===========================+===============+====================================================+
| No running processes found in NPU 0                                                            |
+===========================+===============+====================================================+
"""
NPU_SMI_310P3 = """\
+--------------------------------------------------------------------------------------------------------+
| npu-smi 23.0.0                                   Version: 23.0.0                                       |
+-------------------------------+-----------------+------------------------------------------------------+
| NPU     Name                  | Health          | Power(W)     Temp(C)           Hugepages-Usage(page) |
| Chip    Device                | Bus-Id          | AICore(%)    Memory-Usage(MB)                        |
+===============================+=================+======================================================+
| 8       310P3                 | OK              | NA           46                0     / 0             |
| 0       0                     | 0000:3B:00.0    | 0            1417 / 21527                            |
+===============================+=================+======================================================+
"""


def _tool(bin_dir: Path, name: str, log: Path, stdout: str = "", code: int = 0) -> Path:
    """A shell script standing in for `name`: appends its argv to `log`, prints `stdout`, exits `code`."""
    bin_dir.mkdir(parents=True, exist_ok=True)
    out = bin_dir / f"{name}.out"
    out.write_text(stdout)
    script = bin_dir / name
    # Shell builtins only: the tests give detect() a PATH that holds nothing but the stand-ins.
    script.write_text(f'#!/bin/sh\necho "{name} $*" >> "{log}"\n'
                      f'while IFS= read -r line; do printf \'%s\\n\' "$line"; done < "{out}"\nexit {code}\n')
    script.chmod(script.stat().st_mode | stat.S_IXUSR | stat.S_IXGRP | stat.S_IXOTH)
    return script


def _torch(count: int | Exception, name: str = "Ascend910B2"):
    """An import_module standing in for torch + torch_npu, whose torch.npu reports `count` devices of `name`."""
    def device_count() -> int:
        if isinstance(count, Exception):
            raise count
        return count

    torch = SimpleNamespace(__version__="2.1.0", npu=SimpleNamespace(device_count=device_count,
                                                                    get_device_name=lambda i: name))
    modules = {"torch": torch, "torch_npu": SimpleNamespace(__version__="2.1.0.post8")}

    def import_module(mod: str):
        if mod not in modules:
            raise ModuleNotFoundError(f"No module named '{mod}'")
        return modules[mod]
    return import_module


def _no_modules(mod: str):
    raise ModuleNotFoundError(f"No module named '{mod}'")


@pytest.fixture(autouse=True)
def _no_default_home(tmp_path, monkeypatch) -> None:
    """A machine with CANN in /usr/local/Ascend must not leak into these tests."""
    monkeypatch.setattr(detect_mod, "DEFAULT_HOMES", (tmp_path / "no-such-toolkit",))


@pytest.fixture
def layout_a(tmp_path) -> tuple[Path, Path, Path]:
    """CANN 8.0.RC2, version.cfg, bisheng in compiler/ccec_compiler/bin, msprof in tools/profiler/bin."""
    home, log = tmp_path / "ascend-toolkit" / "latest", tmp_path / "calls.log"
    home.mkdir(parents=True)
    (home / "version.cfg").write_text(VERSION_CFG)
    _tool(home / "compiler" / "ccec_compiler" / "bin", "bisheng", log, "bisheng version 2.0.0 (CANN 8.0.RC2)\n")
    _tool(home / "tools" / "profiler" / "bin", "msprof", log)
    empty = tmp_path / "empty-bin"
    empty.mkdir()
    return home, log, empty


@pytest.fixture
def layout_b(tmp_path) -> tuple[Path, Path, Path]:
    """CANN 8.0.RC3, aarch64-linux/ascend_toolkit_install.info, bisheng/msprof/npu-smi on PATH (tmp_path/bin)."""
    home, log, bin_dir = tmp_path / "cann", tmp_path / "calls.log", tmp_path / "bin"
    (home / "aarch64-linux").mkdir(parents=True)
    (home / "aarch64-linux" / "ascend_toolkit_install.info").write_text(INSTALL_INFO)
    _tool(bin_dir, "bisheng", log, "bisheng version 3.2.0\n")
    _tool(bin_dir, "msprof", log)
    _tool(bin_dir, "npu-smi", log, NPU_SMI_310P3)
    return home, log, bin_dir


def test_nothing_installed(tmp_path) -> None:
    det = detect(env={"PATH": str(tmp_path)}, import_module=_no_modules)
    assert not det.npu_ready
    assert [i.name for i in det.items] == [TOOLKIT, COMPILER, TORCH_NPU, DEVICES, MSPROF]
    for item in det.items:
        assert not item.found and item.detail and item.fix, item
    assert "set_env.sh" in det.item(TOOLKIT).fix
    assert "pip install torch_npu" in det.item(TORCH_NPU).fix
    doc = json.loads(json.dumps(det.to_json()))
    assert doc["npu_ready"] is False and doc["device_soc"] is None and len(doc["items"]) == 5


def test_this_machine_never_raises() -> None:
    det = detect()  # the real environment, imports and PATH: whatever they hold, an answer comes back
    assert len(det.items) == 5
    json.dumps(det.to_json())


def test_full_install_layout_a_910b2(layout_a) -> None:
    home, log, empty = layout_a
    det = detect(env={"ASCEND_HOME_PATH": str(home), "PATH": str(empty)}, import_module=_torch(8, "Ascend910B2"))
    assert det.npu_ready, det.to_json()
    assert (det.cann_version, det.cann_major) == ("8.0.RC2", 8)
    assert det.compiler == str(home / "compiler" / "ccec_compiler" / "bin" / "bisheng")
    assert "bisheng version 2.0.0" in det.item(COMPILER).detail
    assert (det.device_count, det.device_soc, det.soc_known, det.device_source) == (8, "Ascend910B2", True, "torch_npu")
    assert det.item(MSPROF).found and det.item(MSPROF).detail.endswith("tools/profiler/bin/msprof")
    assert (det.torch_version, det.torch_npu_version) == ("2.1.0", "2.1.0.post8")
    assert log.read_text().splitlines() == ["bisheng --version"]  # msprof is found, not run


def test_full_install_layout_b_310p3_via_npu_smi(layout_b) -> None:
    home, log, bin_dir = layout_b
    broken_runtime = RuntimeError("ACL stream synchronize failed")
    det = detect(env={"ASCEND_TOOLKIT_HOME": str(home), "PATH": str(bin_dir)}, import_module=_torch(broken_runtime))
    assert det.npu_ready, det.to_json()
    assert (det.cann_version, det.cann_major) == ("8.0.RC3", 8)
    assert "ascend_toolkit_install.info" in det.item(TOOLKIT).detail
    assert det.compiler == str(bin_dir / "bisheng")
    assert (det.device_count, det.device_name, det.device_soc, det.device_source) == (1, "310P3", "Ascend310P3",
                                                                                      "npu-smi")
    assert "torch.npu failed" in det.item(DEVICES).detail
    assert det.item(MSPROF).detail == str(bin_dir / "msprof")
    assert log.read_text().splitlines() == ["bisheng --version", "npu-smi info"]


def test_toolkit_present_torch_npu_missing(layout_b) -> None:
    home, _log, bin_dir = layout_b
    det = detect(env={"ASCEND_HOME_PATH": str(home), "PATH": str(bin_dir)}, import_module=_no_modules)
    assert det.item(TOOLKIT).found and det.item(COMPILER).found and det.item(DEVICES).found
    assert not det.item(TORCH_NPU).found and "pip install torch_npu" in det.item(TORCH_NPU).fix
    assert not det.npu_ready
    assert det.device_soc == "Ascend310P3"  # npu-smi still names the card


def test_torch_npu_that_fails_at_import(layout_a) -> None:
    home, _log, empty = layout_a

    def import_module(mod: str):
        raise ImportError("libhccl.so: cannot open shared object file: No such file or directory")
    det = detect(env={"ASCEND_HOME_PATH": str(home), "PATH": str(empty)}, import_module=import_module)
    item = det.item(TORCH_NPU)
    assert not item.found and "libhccl.so" in item.detail and "set_env.sh" in item.fix
    assert not det.item(DEVICES).found and not det.npu_ready


def test_older_layout_with_ccec(tmp_path) -> None:
    home, log = tmp_path / "old", tmp_path / "calls.log"
    home.mkdir()
    (home / "version.cfg").write_text("version=6.3.RC1\n")
    _tool(home / "compiler" / "ccec_compiler" / "bin", "ccec", log, "ccec 1.0\n")
    det = detect(env={"ASCEND_HOME_PATH": str(home), "PATH": str(tmp_path / "none")}, import_module=_no_modules)
    assert det.item(COMPILER).found and det.compiler.endswith("/ccec")
    assert det.cann_major == 6


def test_broken_installs_are_items_not_exceptions(tmp_path) -> None:
    home, log = tmp_path / "t", tmp_path / "calls.log"
    (home / "bin").mkdir(parents=True)
    (home / "version.cfg").write_text("garbage without a version\n")
    _tool(home / "bin", "bisheng", log, "", code=127)
    det = detect(env={"ASCEND_HOME_PATH": str(home), "PATH": str(tmp_path / "none")}, import_module=_no_modules)
    assert not det.item(TOOLKIT).found and "no version in version.cfg" in det.item(TOOLKIT).detail
    assert not det.item(COMPILER).found and "exited 127" in det.item(COMPILER).detail
    missing = detect(env={"ASCEND_HOME_PATH": str(tmp_path / "gone"), "PATH": ""}, import_module=_no_modules)
    assert "$ASCEND_HOME_PATH" in missing.item(TOOLKIT).detail and not missing.npu_ready


def test_npu_smi_table_and_unknown_soc(tmp_path) -> None:
    assert parse_npu_smi(NPU_SMI_910B2) == ["910B2", "910B2"]
    assert parse_npu_smi(NPU_SMI_310P3) == ["310P3"]
    assert parse_npu_smi("dcmi model initialized failed, because the device is used. ret is -8020") == []
    bin_dir, log = tmp_path / "bin", tmp_path / "calls.log"
    _tool(bin_dir, "npu-smi", log, NPU_SMI_910B2.replace("910B2", "910A "))
    det = detect(env={"PATH": str(bin_dir)}, import_module=_no_modules)
    item = det.item(DEVICES)
    assert item.found and (det.device_count, det.device_soc, det.soc_known) == (2, "910A", False)
    assert "not in tuner/data/socs.yaml" in item.detail and item.fix


@pytest.mark.parametrize(("raw", "soc", "known"), [
    ("910B2", "Ascend910B2", True), ("Ascend910B2", "Ascend910B2", True), ("ascend310p3", "Ascend310P3", True),
    (" 910B4 ", "Ascend910B4", True), ("Ascend910_9391", "Ascend910_9391", True), ("Ascend910B", "Ascend910B", False),
    ("Ascend910PremiumA", "Ascend910PremiumA", False),
])
def test_device_name_normalisation(raw: str, soc: str, known: bool) -> None:
    assert normalise_soc(raw) == (soc, known)


def test_toolkit_version_prefers_install_info(tmp_path) -> None:
    (tmp_path / "x86_64-linux").mkdir()
    (tmp_path / "x86_64-linux" / "ascend_toolkit_install.info").write_text(INSTALL_INFO)
    (tmp_path / "version.cfg").write_text(VERSION_CFG)
    version, source = toolkit_version(tmp_path)
    assert version == "8.0.RC3" and source.endswith("ascend_toolkit_install.info")


def test_doctor_json_cli(layout_a, tmp_path, monkeypatch) -> None:
    home, log, _empty = layout_a
    bin_dir = tmp_path / "bin"
    _tool(bin_dir, "npu-smi", log, NPU_SMI_910B2)
    # torch_npu present (stand-in modules, restored afterwards) but torch.npu sees no device: npu-smi answers.
    monkeypatch.setitem(sys.modules, "torch_npu", SimpleNamespace(__version__="2.1.0.post8"))
    monkeypatch.setitem(sys.modules, "torch", SimpleNamespace(__version__="2.1.0", npu=SimpleNamespace(
        device_count=lambda: 0, get_device_name=lambda i: "")))
    env = {"ASCEND_HOME_PATH": str(home), "ASCEND_TOOLKIT_HOME": None, "PATH": str(bin_dir)}
    result = CliRunner().invoke(main, ["doctor", "--json"], env=env)
    assert result.exit_code == 0, result.output
    doc = json.loads(result.output)
    assert doc["npu_ready"] is True and doc["device_soc"] == "Ascend910B2" and doc["device_count"] == 2
    assert doc["cann_version"] == "8.0.RC2" and doc["device_source"] == "npu-smi"
    assert {i["name"]: i["found"] for i in doc["items"]} == {TOOLKIT: True, COMPILER: True, TORCH_NPU: True,
                                                             DEVICES: True, MSPROF: True}
    assert "npu-smi info" in log.read_text()


def test_doctor_table_exits_zero_when_nothing_is_there(tmp_path) -> None:
    env = {"ASCEND_HOME_PATH": None, "ASCEND_TOOLKIT_HOME": None, "PATH": str(tmp_path), "COLUMNS": "200"}
    result = CliRunner().invoke(main, ["doctor"], env=env)
    assert result.exit_code == 0, result.output
    assert "CANN toolkit" in result.output and "not ready" in result.output
    assert shutil.which("npu-smi", path=str(tmp_path)) is None
