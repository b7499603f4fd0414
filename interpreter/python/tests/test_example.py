"""The distributed-simulation example runs, and many processes give one process's summary."""

import pathlib
import subprocess
import sys

EXAMPLE = pathlib.Path(__file__).resolve().parents[1] / "examples/parallel_simulate.py"


def test_parallel_simulate_prints_the_speed_up_of_an_identical_summary():
    out = subprocess.run(
        [sys.executable, str(EXAMPLE), "goofspiel", "--players", "3", "--games", "300", "--processes", "2"],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[0].startswith('{"wins": [') and '"decisions": 11700' in lines[0]
    assert lines[-1].startswith("speed-up: ") and "on 2 processes" in lines[-1]


def test_the_readmes_python_example_runs():
    readme = (pathlib.Path(__file__).resolve().parents[3] / "README.md").read_text()
    section = readme.split("## From Python", 1)[1]
    code = section.split("```python\n", 1)[1].split("```", 1)[0]
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("0 [")
