"""The README's code runs as written.

The rule: the ```python blocks of each ``##`` section (with its ``###`` subsections) run in
order in one namespace, fresh for the section, with a fresh temporary folder as the working
directory; so a section defines everything it uses. A failure's traceback names the README's
own line. The ```bash blocks are checked for the files they run.
"""

from __future__ import annotations

import pathlib
import re

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[1]
README = ROOT / "README.md"


def _blocks() -> list[tuple[str, str, int, str]]:
    """``(section, language, first line, code)`` of every fenced block, in order."""
    blocks, section, language, start, code = [], "", None, 0, []
    for number, line in enumerate(README.read_text(encoding="utf-8").splitlines(), 1):
        if language is None:
            if line.startswith("## "):
                section = line[3:].strip()
            elif line.startswith("```"):
                language, start, code = line[3:].strip(), number + 1, []
        elif line.startswith("```"):
            blocks.append((section, language, start, "\n".join(code) + "\n"))
            language = None
        else:
            code.append(line)
    assert language is None, "README.md ends inside a code block"
    return blocks


def _python_sections() -> dict[str, list[tuple[int, str]]]:
    sections: dict[str, list[tuple[int, str]]] = {}
    for section, language, start, code in _blocks():
        if language == "python":
            sections.setdefault(section, []).append((start, code))
    return sections


@pytest.mark.parametrize("section", list(_python_sections()))
def test_python_blocks_run(section, tmp_path, monkeypatch):
    if section.startswith("A first look"):
        pytest.importorskip("sklearn", reason="the section's digits ship with scikit-learn")
    monkeypatch.chdir(tmp_path)
    namespace = {"__name__": "__readme__"}
    for start, code in _python_sections()[section]:
        exec(compile("\n" * (start - 1) + code, str(README), "exec"), namespace)


def test_every_block_is_python_or_bash_and_the_setup_comes_first():
    blocks = _blocks()
    assert {language for _, language, _, _ in blocks} <= {"python", "bash", ""}
    (setup, _, _, install), (_, _, _, tests) = blocks[0][:4], blocks[1][:4]
    assert setup == "Set up on a fresh machine" and blocks[1][0] == setup
    assert "pip install -q -e '.[examples]'" in install and "python -m pytest" in tests
    headings = re.findall(r"^## (.*)$", README.read_text(encoding="utf-8"), re.M)
    assert headings[:2] == [
        "Set up on a fresh machine",
        "Chainer users: `python -m fnet.compat your_script.py`",
    ]
    assert "Testing" in headings and "Not supported yet" in headings and "Examples" in headings


def test_the_scripts_the_commands_run_exist():
    scripts = []
    for _, language, _, code in _blocks():
        if language == "bash":
            scripts += re.findall(r"python (?:-m fnet\.compat )?(\S+\.py)", code)
    scripts += re.findall(
        r"`python (?:-m fnet\.compat )?(examples/\S+\.py)", README.read_text(encoding="utf-8")
    )
    assert "examples/digits_mlp/train.py" in scripts
    for script in scripts:
        if script.startswith("CHAINER/"):  # a script of the reader's Chainer checkout, not ours
            continue
        assert (ROOT / script).is_file(), script


def test_the_examples_table_lists_every_example():
    listed = re.findall(r"^\| `examples/(\w+)` \|", README.read_text(encoding="utf-8"), re.M)
    present = sorted(p.parent.name for p in (ROOT / "examples").glob("*/train.py"))
    assert sorted(listed) == present
