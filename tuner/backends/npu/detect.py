"""What of the NPU backend's needs this machine has: CANN toolkit, compiler, torch_npu, devices, msprof.

`detect()` never raises: whatever is missing or broken becomes an `Item` with `found=False`, the reason
in `detail` and what to do in `fix`. Every outside call (environment, PATH look-up, imports, the
`bisheng`/`npu-smi` processes) goes through the arguments, so a test can stand in for an install.
"""

from __future__ import annotations

import importlib
import os
import re
import shutil
import subprocess
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

# Where CANN installs when no environment variable names it: the toolkit layout of CANN 7/8, then CANN 9's.
DEFAULT_HOMES = (Path("/usr/local/Ascend/ascend-toolkit/latest"), Path("/usr/local/Ascend/cann"))
HOME_VARS = ("ASCEND_HOME_PATH", "ASCEND_TOOLKIT_HOME")
PROCESS_TIMEOUT_S = 15.0
SET_ENV_FIX = ("source <CANN install>/set_env.sh (e.g. /usr/local/Ascend/ascend-toolkit/set_env.sh), "
               "which sets ASCEND_HOME_PATH")

TOOLKIT, COMPILER, TORCH_NPU, DEVICES, MSPROF = "CANN toolkit", "compiler", "torch_npu", "NPU devices", "msprof"
REQUIRED = (TOOLKIT, COMPILER, TORCH_NPU, DEVICES)  # what the npu backend cannot run without
_PUBLIC_VERSION = re.compile(r"^\d+\.\d+(\.(RC\d+|\d+|T\d+))?([.\w-]*)?$", re.IGNORECASE)
# One device row of `npu-smi info`: "| 0     910B2    | OK  | ..."; chip rows ("| 0  |", "| 0  0  |") have no name.
_NPU_SMI_ROW = re.compile(r"^\|\s*(\d+)\s+([A-Za-z0-9_-]*[A-Za-z][A-Za-z0-9_-]*)\s*\|")


@dataclass(frozen=True)
class Item:
    """One thing the npu backend needs or uses, and whether it was found."""

    name: str
    found: bool
    detail: str
    fix: str = ""

    def to_json(self) -> dict:
        return {"name": self.name, "found": self.found, "detail": self.detail, "fix": self.fix}


@dataclass
class Detection:
    """All items, plus the facts read on the way (None where not found)."""

    items: list[Item] = field(default_factory=list)
    home: str | None = None
    cann_version: str | None = None
    cann_major: int | None = None
    compiler: str | None = None
    torch_version: str | None = None
    torch_npu_version: str | None = None
    device_count: int = 0
    device_name: str | None = None
    device_soc: str | None = None
    soc_known: bool = False
    device_source: str | None = None
    msprof: str | None = None

    def item(self, name: str) -> Item:
        return next(i for i in self.items if i.name == name)

    def missing(self) -> list[Item]:
        """What the npu backend needs and was not found (msprof is optional)."""
        return [self.item(name) for name in REQUIRED if not self.item(name).found]

    @property
    def npu_ready(self) -> bool:
        """Everything the npu backend needs: toolkit, compiler, torch_npu and at least one device."""
        return not self.missing()

    def to_json(self) -> dict:
        return {
            "npu_ready": self.npu_ready,
            "home": self.home,
            "cann_version": self.cann_version,
            "cann_major": self.cann_major,
            "compiler": self.compiler,
            "torch_version": self.torch_version,
            "torch_npu_version": self.torch_npu_version,
            "device_count": self.device_count,
            "device_name": self.device_name,
            "device_soc": self.device_soc,
            "soc_known": self.soc_known,
            "device_source": self.device_source,
            "msprof": self.msprof,
            "items": [i.to_json() for i in self.items],
        }


def normalise_soc(name: str) -> tuple[str, bool]:
    """Our SoC name for a device name ("910B2", "Ascend910B2", "ascend310p3"), and whether socs.yaml knows it.

    An unknown name is returned stripped but otherwise as given."""
    from tuner.data.socs import soc_names

    raw = name.strip()
    try:
        known = soc_names()
    except Exception:  # a broken data file must not break detection
        return raw, False
    key = raw.replace(" ", "").lower()
    candidates = (key, key if key.startswith("ascend") else "ascend" + key)
    for soc in known:
        if soc.lower() in candidates:
            return soc, True
    return raw, False


def detect(env: Mapping[str, str] = os.environ, which: Callable[..., str | None] = shutil.which,
           import_module: Callable[[str], Any] = importlib.import_module) -> Detection:
    """Look for each thing the npu backend needs; never raises."""
    det = Detection()
    path = env.get("PATH", "")

    def find(name: str) -> str | None:
        try:
            return which(name, path=path)
        except Exception:
            return None

    steps = ((TOOLKIT, _toolkit), (COMPILER, _compiler), (TORCH_NPU, _torch_npu), (DEVICES, _devices),
             (MSPROF, _msprof))
    for name, step in steps:
        try:
            det.items.append(step(det, env, find, import_module))
        except Exception as exc:  # a bug or a strange install: still one line, never a traceback
            det.items.append(Item(name, False, f"detection failed: {type(exc).__name__}: {exc}",
                                  "report this, with the output of `tuner doctor --json`"))
    return det


def _run(argv: list[str], env: Mapping[str, str]) -> tuple[bool, str]:
    """(ran with exit 0, stdout or the reason it did not)."""
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=PROCESS_TIMEOUT_S, env=dict(env),
                              stdin=subprocess.DEVNULL, check=False)
    except subprocess.TimeoutExpired:
        return False, f"`{' '.join(argv)}` did not finish in {PROCESS_TIMEOUT_S:.0f} s"
    except OSError as exc:
        return False, f"`{' '.join(argv)}` could not start: {exc.strerror or exc}"
    if proc.returncode != 0:
        last = (proc.stderr or proc.stdout).strip().splitlines()[-1:] or [""]
        return False, f"`{' '.join(argv)}` exited {proc.returncode}: {last[0]}".rstrip(": ")
    return True, proc.stdout


def _executable(p: Path) -> bool:
    return p.is_file() and os.access(p, os.X_OK)


# --- CANN toolkit ---------------------------------------------------------------------------------

def _read_kv(path: Path) -> dict[str, str]:
    out: dict[str, str] = {}
    for line in path.read_text(errors="replace").splitlines():
        line = line.strip()
        if line and not line.startswith("#") and "=" in line:
            key, _, value = line.partition("=")
            out[key.strip().lower()] = value.strip()
    return out


def _public_version(value: str) -> str | None:
    """"8.0.RC3" from "8.0.RC3" or from "[7.5.0.1.129:8.0.RC3]" (inner version : public version)."""
    value = value.strip().strip("[]").strip()
    if ":" in value:
        value = value.rsplit(":", 1)[1].strip()
    return value if value and _PUBLIC_VERSION.match(value) else None


def toolkit_version(home: Path) -> tuple[str | None, str]:
    """The CANN version of the toolkit at `home` and the file it came from; (None, why) when none is readable.

    Layouts read, first match wins: `<home>/<arch>-linux/ascend_toolkit_install.info` (`version=8.0.RC3`),
    `<home>/version.cfg` (`version=...`, or `*_running_version=[inner:public]` lines), and
    `<home>/version.info` / `<home>/share/info/version.info` (`version=...`)."""
    files = sorted(home.glob("*-linux/ascend_toolkit_install.info"))
    files += [home / "version.cfg", home / "version.info", home / "share" / "info" / "version.info"]
    tried = []
    for f in files:
        if not f.is_file():
            continue
        tried.append(f.name)
        try:
            kv = _read_kv(f)
        except OSError as exc:
            tried[-1] += f" (unreadable: {exc.strerror})"
            continue
        for key in ("version", "toolkit_running_version", "runtime_running_version", "compiler_running_version"):
            if key in kv and (v := _public_version(kv[key])):
                return v, str(f)
        for key, value in kv.items():
            if key.endswith("version") and (v := _public_version(value)):
                return v, str(f)
    why = f"no version in {', '.join(tried)}" if tried else "no version file (ascend_toolkit_install.info, version.cfg)"
    return None, why


def _toolkit(det: Detection, env: Mapping[str, str], find, import_module) -> Item:
    named = [(var, env[var]) for var in HOME_VARS if env.get(var)]
    candidates = [(f"${var}", Path(value)) for var, value in named] or [("default", p) for p in DEFAULT_HOMES]
    chosen = next(((origin, home) for origin, home in candidates if home.is_dir()), None)
    if chosen is None:
        where = ", ".join(f"{origin} {home}" for origin, home in candidates)
        return Item(TOOLKIT, False, f"no toolkit directory at {where}",
                    f"install the CANN toolkit, then {SET_ENV_FIX}")
    origin, home = chosen
    det.home = str(home)
    version, source = toolkit_version(home)
    if version is None:
        return Item(TOOLKIT, False, f"{home} ({origin}): {source}",
                    "reinstall the CANN toolkit, or point ASCEND_HOME_PATH at its 'latest' directory")
    det.cann_version = version
    major = re.match(r"\d+", version)
    det.cann_major = int(major.group()) if major else None
    return Item(TOOLKIT, True, f"CANN {version} at {home} ({origin}; from {Path(source).name})")


# --- compiler --------------------------------------------------------------------------------------

def _compiler(det: Detection, env: Mapping[str, str], find, import_module) -> Item:
    candidates: list[Path] = []
    if det.home:
        home = Path(det.home)
        candidates += [home / "bin" / "bisheng", home / "compiler" / "ccec_compiler" / "bin" / "bisheng"]
        candidates += sorted(home.glob("*-linux/ccec_compiler/bin/bisheng"))
        candidates += [home / "compiler" / "ccec_compiler" / "bin" / "ccec"]
    on_path = find("bisheng")
    if on_path:
        candidates.append(Path(on_path))
    compiler = next((c for c in candidates if _executable(c)), None)
    if compiler is None:
        where = f"in {det.home}/bin, {det.home}/compiler/ccec_compiler/bin or on PATH" if det.home else "on PATH"
        return Item(COMPILER, False, f"no bisheng or ccec {where}",
                    f"install the CANN toolkit (it ships bisheng), then {SET_ENV_FIX}")
    ok, out = _run([str(compiler), "--version"], env)
    if not ok:
        return Item(COMPILER, False, f"{compiler} is there but broken: {out}",
                    f"reinstall the CANN toolkit's compiler, or {SET_ENV_FIX} so its libraries are found")
    det.compiler = str(compiler)
    first = next((line.strip() for line in out.splitlines() if line.strip()), "")
    return Item(COMPILER, True, f"{compiler}" + (f" ({first})" if first else ""))


# --- torch_npu and devices -------------------------------------------------------------------------

def _torch_npu(det: Detection, env: Mapping[str, str], find, import_module) -> Item:
    try:
        torch_npu = import_module("torch_npu")
        torch = import_module("torch")
    except Exception as exc:  # ImportError, or a torch_npu that fails at import (missing CANN libraries)
        reason = f"{type(exc).__name__}: {exc}".splitlines()[0]
        fix = "pip install torch_npu (the version matching your torch and CANN)"
        if not isinstance(exc, ModuleNotFoundError):
            fix = f"{SET_ENV_FIX} before starting the tuner; check torch_npu matches torch and CANN"
        return Item(TORCH_NPU, False, f"cannot import torch_npu ({reason})", fix)
    det.torch_version = str(getattr(torch, "__version__", "unknown"))
    det.torch_npu_version = str(getattr(torch_npu, "__version__", "unknown"))
    return Item(TORCH_NPU, True, f"torch_npu {det.torch_npu_version} with torch {det.torch_version}")


def parse_npu_smi(text: str) -> list[str]:
    """Device names, one per NPU, from the table `npu-smi info` prints (e.g. ["910B2", "910B2"])."""
    names = []
    for line in text.splitlines():
        m = _NPU_SMI_ROW.match(line.strip())
        if m and m.group(2).lower() != "name":
            names.append(m.group(2))
    return names


def _devices(det: Detection, env: Mapping[str, str], find, import_module) -> Item:
    notes = []
    count, name = 0, None
    if det.item(TORCH_NPU).found:
        try:
            npu = import_module("torch").npu
            count = int(npu.device_count())
            name = str(npu.get_device_name(0)) if count else None
            det.device_source = "torch_npu"
        except Exception as exc:
            count, name = 0, None
            notes.append(f"torch.npu failed ({type(exc).__name__}: {str(exc).splitlines()[0] if str(exc) else ''})")
        if not count and not notes:
            notes.append("torch.npu.device_count() is 0")
    if not count:
        smi = find("npu-smi")
        if smi is None:
            notes.append("no npu-smi on PATH")
        else:
            ok, out = _run([smi, "info"], env)
            names = parse_npu_smi(out) if ok else []
            if names:
                count, name, det.device_source = len(names), names[0], "npu-smi"
            else:
                notes.append(out.strip().splitlines()[0] if not ok and out.strip() else "npu-smi lists no NPU")
    if not count:
        return Item(DEVICES, False, "; ".join(notes) or "no NPU found",
                    "install the Ascend driver and firmware (npu-smi info must list the card); "
                    "in a container, pass /dev/davinci*, /dev/davinci_manager, /dev/devmm_svm and /dev/hisi_hdc")
    det.device_count, det.device_name = count, name
    soc, known = normalise_soc(name or "")
    det.device_soc, det.soc_known = soc or None, known
    detail = f"{count} × {soc} (from {det.device_source})"
    if notes:
        detail += f"; {'; '.join(notes)}"
    if not known:
        detail += f"; '{soc}' is not in tuner/data/socs.yaml, so its limits and model are unknown to the tuner"
        return Item(DEVICES, True, detail,
                    "add the SoC to tuner/data/socs.yaml, or pass --soc with the nearest known one")
    return Item(DEVICES, True, detail)


# --- msprof ----------------------------------------------------------------------------------------

def _msprof(det: Detection, env: Mapping[str, str], find, import_module) -> Item:
    candidates = [Path(det.home) / "tools" / "profiler" / "bin" / "msprof"] if det.home else []
    on_path = find("msprof")
    if on_path:
        candidates.insert(0, Path(on_path))
    found = next((c for c in candidates if _executable(c)), None)
    if found is None:
        return Item(MSPROF, False, "no msprof on PATH" + (f" or in {det.home}/tools/profiler/bin" if det.home else ""),
                    f"optional (per-pipe breakdowns): it ships with the CANN toolkit; {SET_ENV_FIX}")
    det.msprof = str(found)
    return Item(MSPROF, True, str(found))
