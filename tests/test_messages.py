"""The message registry: every error raised goes through it, and docs/errors.md is generated from it."""

import pathlib
import re

import pytest

from mtbn.messages import REGISTRY, markdown

ROOT = pathlib.Path(__file__).resolve().parents[1]
SOURCES = sorted(p for p in (ROOT / "mtbn").rglob("*.py") if p.name != "messages.py")
# A message built by hand: an error class (or argparse's) called with text.
HAND_MADE = re.compile(r"\b(InvalidDataError|InvalidParameterError|CycleError|NotFittedError|MtbnError|TypeError|ValueError|"
                       r"ArgumentTypeError|"
                       r"_UsageError|_usage_error)\(\s*(?!\"[a-z0-9]+(?:-[a-z0-9]+)*\"\s*[,)])f?[\"']")


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.name)
def test_no_module_raises_a_message_outside_the_registry(path):
    source = path.read_text(encoding="utf-8")
    hits = [source[: m.start()].count("\n") + 1 for m in HAND_MADE.finditer(source)]
    assert hits == [], f"{path.name}: messages written by hand at lines {hits}; register them in mtbn.messages"


def test_every_registered_message_is_raised_somewhere():
    markdown()  # imports every module, so every message is registered
    text = "\n".join(p.read_text(encoding="utf-8") for p in SOURCES)
    unused = [code for code in REGISTRY if text.count(f'"{code}"') < 2]  # the registration and a use
    assert unused == []


def test_messages_are_one_line_with_a_cause_and_a_fix():
    markdown()
    for m in REGISTRY.values():
        assert "\n" not in m.template and m.template.strip() == m.template, m.code
        assert m.cause.strip() and m.fix.strip(), m.code
        assert re.fullmatch(r"[a-z0-9]+(-[a-z0-9]+)*", m.code), m.code


def test_docs_errors_md_is_generated_from_the_registry():
    assert (ROOT / "docs" / "errors.md").read_text(encoding="utf-8") == markdown(), (
        "docs/errors.md is out of date: python -m mtbn.messages > docs/errors.md")
