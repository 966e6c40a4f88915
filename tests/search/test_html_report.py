"""`tuner report`: a run as one self-contained HTML file of plotly figures. The report's own tests read a run of the
frozen softmax project (tests/search/data/softmax/) answered from a recording (`replayed`, tests/conftest.py); the
end-to-end test reports a whole run on the simulator whose rules rewrite a variant. Headless Chromium draws the
report: a screenshot, nothing on its console, and every figure drawn (skipped where Chromium is not installed)."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
from pathlib import Path

import optuna
import pytest
from commands import one_line_error, tuner_here

from tuner.search.html_report import REPORT_FILE, SECTIONS
from tuner.search.loop import RunConfig, optimize

optuna.logging.set_verbosity(optuna.logging.WARNING)
LOOP_PROJECT = Path(__file__).parent / "data" / "softmax"
CHROMIUM = next((found for name in ("chromium", "chromium-browser", "google-chrome")
                 if (found := shutil.which(name))), None)
# Marks the body with the ids of the plots that drew their SVG, once the page has loaded.
PROBE = ("<script>window.addEventListener('load', () => document.body.setAttribute('data-drawn', "
         "[...document.querySelectorAll('.js-plotly-plot')].filter(d => d.querySelector('.main-svg'))"
         ".map(d => d.id).join(' ')));</script>")


@pytest.fixture(scope="module")
def reported(tmp_path_factory, replayed):
    """A finished run of 16 candidates over both variants, and `tuner report` of it at the default path."""
    cwd = tmp_path_factory.mktemp("report")
    config = RunConfig(op="softmax", shape=(16, 200), budget=16, runs_dir=cwd / "runs", seed=1, jobs=1,
                       project=LOOP_PROJECT)
    summary = optimize(config, backend=replayed())
    result = tuner_here("report", config.run_name, cwd=cwd)
    return cwd, summary, result


def _render(page: Path, tmp_path: Path) -> tuple[Path, str, set[str]]:
    """Chromium's screenshot of `page`, its log, and the ids of the plots that drew."""
    if CHROMIUM is None:
        pytest.skip("chromium not installed: apt-get install chromium (.ci/run does)")
    probe = tmp_path / "probe.html"
    probe.write_text(page.read_text(encoding="utf-8").replace("</body>", PROBE + "</body>"), encoding="utf-8")
    shot = tmp_path / "report.png"
    done = subprocess.run([CHROMIUM, "--headless=new", "--no-sandbox", "--disable-gpu", "--hide-scrollbars",
                           "--enable-logging=stderr", "--v=0", f"--screenshot={shot}", "--window-size=1400,3600",
                           "--dump-dom", probe.as_uri()], capture_output=True, text=True, timeout=120, check=True)
    ids = re.search(r'data-drawn="([^"]*)"', done.stdout)
    return shot, done.stderr, set(ids.group(1).split()) if ids else set()


def _check_drawn(page: Path, tmp_path: Path) -> None:
    shot, log, drawn = _render(page, tmp_path)
    assert shot.stat().st_size > 50_000, "the screenshot is (nearly) blank"
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    console = [line for line in log.splitlines() if ":CONSOLE" in line or "Uncaught" in line]
    assert not console, console
    assert drawn == {f"plot-{key}" for key in SECTIONS}


def test_report_writes_every_figure_beside_the_run(reported):
    cwd, summary, result = reported
    assert result.exit_code == 0, result.stderr
    path = Path("runs") / summary.run / REPORT_FILE
    assert result.stdout.strip() == f"wrote {path}"
    page = (cwd / path).read_text(encoding="utf-8")
    assert page.count('class="plotly-graph-div"') == len(SECTIONS)
    for key, heading in SECTIONS.items():
        assert f'id="plot-{key}"' in page and f"<h2>{heading}</h2>" in page
    for label in ("operator", "softmax", "16x200", "float16", "Ascend910B2", "budget used",
                  f"{summary.trials} measured of a budget of 16", f"{summary.best_us:.3f} µs",
                  f"{summary.baseline_us:.3f} µs", f"{summary.speedup:.2f}x over the baseline",
                  "simulated, Ascend910B2 model"):  # "(replayed)" after it, but where it is recorded
        assert label in page, label
    assert "no variant has enough complete trials" not in page  # a variant of 16 trials has its importance


def test_the_report_needs_no_network(reported):
    cwd, summary, _ = reported
    page = (cwd / "runs" / summary.run / REPORT_FILE).read_text(encoding="utf-8")
    assert "<script src" not in page and "<link" not in page
    assert "Plotly.newPlot" in page and len(page) > 1_000_000  # plotly.js itself is inlined


def test_output_names_the_file(reported, tmp_path):
    cwd, summary, _ = reported
    out = tmp_path / "sub" / "r.html"
    result = tuner_here("report", summary.run, "--output", str(out), cwd=cwd)
    assert result.exit_code == 0 and result.stdout.strip() == f"wrote {out}"
    assert out.read_text(encoding="utf-8").count('class="plotly-graph-div"') == len(SECTIONS)


def test_chromium_draws_every_plot_with_nothing_on_its_console(reported, tmp_path):
    cwd, summary, _ = reported
    _check_drawn(cwd / "runs" / summary.run / REPORT_FILE, tmp_path)


def test_an_unknown_run_or_one_without_a_correct_trial_is_one_line(reported, tmp_path):
    cwd, summary, _ = reported
    one_line_error(tuner_here("report", "no-such-run", cwd=cwd), 2, "no run 'no-such-run'", summary.run)
    prepared = tuner_here("optimize", "softmax", "--shape", "16x200", "--prepare", cwd=tmp_path)
    assert prepared.exit_code == 0, prepared.stderr
    one_line_error(tuner_here("report", "softmax-16x200-float16-Ascend910B2-sim", cwd=tmp_path), 2,
                   "has no correct trial yet")
    assert not (tmp_path / "runs" / "softmax-16x200-float16-Ascend910B2-sim" / REPORT_FILE).exists()


@pytest.mark.e2e  # a whole run on the simulator, over the packaged templates that the rules are written against
def test_a_finished_run_with_a_rewrite_renders_in_chromium(tmp_path):
    # rows of 2048 halves are wider than 2048 bytes, so a rule applies to whatever rows candidate is best at the
    # plateau (as in tests/mutate/test_engine.py's rule path)
    config = RunConfig(op="softmax", shape=(256, 2048), dtype="float16", budget=20, runs_dir=tmp_path / "runs",
                       seed=1, jobs=2, plateau=5, plateau_eps=0.5)
    summary = optimize(config)
    assert summary.lineage, "no rewrite to mark"
    result = tuner_here("report", config.run_name, "--output", "report.html", cwd=tmp_path)
    assert result.exit_code == 0, result.stderr
    page = (tmp_path / "report.html").read_text(encoding="utf-8")
    for item in summary.lineage:  # the figure's text as plotly's JSON writes it
        assert json.dumps(f"{item['parent']} → {item['variant']} ({item['origin']}, {item['trigger']})") in page
    assert "simulated, Ascend910B2 model" in page
    _check_drawn(tmp_path / "report.html", tmp_path)
