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
