"""The README's two commands stay true: CI runs the README's test command verbatim."""

from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def readme_commands() -> list[str]:
    text = (ROOT / "README.md").read_text()
    block = text.split("```sh", 1)[1].split("```", 1)[0]
    return [line for line in block.splitlines() if line and not line.startswith("#")]


def test_readme_opens_with_demo_and_test_commands():
    demo, tests = readme_commands()
    assert demo.endswith(".venv/bin/python -m rl demo")
    assert tests.endswith(".venv/bin/python -m pytest -q")
    assert demo.startswith("python3 -m venv .venv && .venv/bin/pip install")


def test_ci_runs_the_readme_test_command():
    ci = (ROOT / ".ci" / "run").read_text().strip().splitlines()
    assert ci[-1] == readme_commands()[1]
