"""A stand-in `msprof` executable for tests: checks the `msprof op` argv, runs the app, writes a PipeUtilization.csv."""

from __future__ import annotations

from pathlib import Path

_SCRIPT = '''\
#!/usr/bin/env python3
import json, os, subprocess, sys
from pathlib import Path

CSV = {csv_text!r}
FAIL = {fail!r}
args = sys.argv[1:]
if os.environ.get("TOOL_LOG"):
    with open(os.environ["TOOL_LOG"], "a") as log:
        log.write(json.dumps(sys.argv) + "\\n")
if not args or args[0] != "op":
    sys.exit("msprof: usage: msprof op [options] app [args]")
options, app = [], args[1:]
while app and app[0].startswith("--"):
    options.append(app.pop(0))
values = dict(o[2:].split("=", 1) for o in options if "=" in o)
if "kernel-name" not in values or "output" not in values or not app:
    sys.exit("msprof: error: --kernel-name=, --output= and an application are required")
print("msprof op: collecting kernel " + values["kernel-name"], flush=True)
if FAIL:
    print("msprof: error: the device is busy with another collection", file=sys.stderr, flush=True)
    sys.exit(1)
ran = subprocess.run(app)
if ran.returncode != 0:
    sys.exit("msprof: error: the application exited with " + str(ran.returncode))
folder = Path(values["output"]) / "OPPROF_20261130000000_ABCDEF"
folder.mkdir(parents=True, exist_ok=True)
(folder / "PipeUtilization.csv").write_text(CSV)
print("msprof op: results in " + str(folder), flush=True)
'''


def install_msprof(bindir: Path, csv_text: str, *, fail: bool = False) -> Path:
    """Write an executable stand-in `msprof` into `bindir` and return its path; `fail` makes it exit 1 unwritten."""
    bindir.mkdir(parents=True, exist_ok=True)
    script = bindir / "msprof"
    script.write_text(_SCRIPT.format(csv_text=csv_text, fail=fail))
    script.chmod(0o755)
    return script
