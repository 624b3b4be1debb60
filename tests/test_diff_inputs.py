"""How `evalrun diff` reads its sides: pipes and FIFOs read once, trace formats and id paths as
`score` reads them, and a git revision's paths wherever the project keeps them."""

from __future__ import annotations

import gzip
import json
import os
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from typer.testing import CliRunner

from evalrunner.cli import app
from evalrunner.diff.sources import _Laid
from tests.conftest import one_line
from tests.test_diff import (
    REFUNDED,
    RULE_CHANGE_FLIPS,
    call,
    corpus,
    diff_json,
    invoke,
    score_to,
    search_tool,
    write_json,
    write_jsonl,
)


@pytest.fixture
def project(tmp_path, monkeypatch):
    """A project directory (the current directory) with the rule not yet added."""
    monkeypatch.chdir(tmp_path)
    return corpus(tmp_path, month_rule=False)


# ----------------------------------------------------------------------------------- pipes


@pytest.fixture
def rule_change(project):
    """old.json and old.jsonl scored without the month rule; the working tree now has it."""
    score_to(project / "old.json")
    score_to(project / "old.jsonl", fmt="jsonl")
    write_json(project / "tools" / "billing.json", [search_tool(month_rule=True)])
    score_to(project / "new.json")
    return project


def diff_stdin(data: bytes, *args: str) -> dict:
    result = invoke_input(data, "diff", *args, "--format", "json")
    assert result.exit_code == 0, result.output
    return json.loads(result.stdout)


def invoke_input(data: bytes, *args: str):
    return CliRunner().invoke(app, list(args), input=data)


def test_a_results_document_on_standard_input(rule_change):
    # evalrun score -f json | evalrun diff - new.json
    out = diff_stdin((rule_change / "old.json").read_bytes(), "-", "new.json")
    assert out["old"]["source"] == "results file on standard input"
    assert out["flips"] == RULE_CHANGE_FLIPS


def test_jsonl_results_on_standard_input_as_the_new_side(rule_change):
    old = (rule_change / "old.jsonl").read_bytes()
    out = diff_stdin(old, "new.json", "-")
    assert out["new"]["source"] == "results file (jsonl) on standard input"
    assert [f["key"] for f in out["flips"]] == ["r2", "r5", "r6"]  # the other way round
    assert [(f["old"], f["new"]) for f in out["flips"]] == [
        ("false_failure", "fail"),
        ("false_failure", "fail"),
        ("false_pass", "pass"),
    ]


def test_gzipped_results_on_standard_input(rule_change):
    old = gzip.compress((rule_change / "old.jsonl").read_bytes())
    assert diff_stdin(old, "-", "new.json")["flips"] == RULE_CHANGE_FLIPS


def test_traces_on_standard_input_are_scored(rule_change):
    # cat traces/runs.jsonl | evalrun diff old.json -
    out = diff_stdin((rule_change / "traces" / "runs.jsonl").read_bytes(), "old.json", "-")
    assert out["new"]["kind"] == "traces"
    assert out["new"]["source"].startswith("traces on standard input, scored with")
    assert out["flips"] == RULE_CHANGE_FLIPS
    assert out["new"]["summary"]["examples"]["encoding"]["source"] == "<stdin>:2"


def test_standard_input_cannot_be_both_sides(rule_change):
    result = invoke_input(b"", "diff", "-", "-")
    assert result.exit_code == 2
    assert "OLD and NEW are both - : standard input can be read only once" in one_line(
        result.stderr
    )


def evalrun(*args: str, cwd: Path, shell: bool = False) -> subprocess.CompletedProcess:
    """The real command in a process of its own: a FIFO read twice would hang, not fail."""
    command = [sys.executable, "-m", "evalrunner", *args]
    if shell:
        command = ["bash", "-c", " ".join(args)]
    env = {**os.environ, "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    return subprocess.run(command, cwd=cwd, capture_output=True, env=env, timeout=60)


@pytest.mark.skipif(shutil.which("bash") is None, reason="process substitution needs bash")
def test_process_substitution(rule_change):
    done = evalrun(
        f"{sys.executable} -m evalrunner diff <(cat old.json) new.json --format json",
        cwd=rule_change,
        shell=True,
    )
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    assert out["old"]["source"].startswith("results file /dev/fd/")
    assert out["flips"] == RULE_CHANGE_FLIPS


@pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs here")
@pytest.mark.parametrize("name", ["old.json", "runs.jsonl"])
def test_a_named_pipe_is_read_once(rule_change, name):
    fifo = rule_change / "fifo"
    os.mkfifo(fifo)
    data = (
        rule_change / name if name == "old.json" else rule_change / "traces" / name
    ).read_bytes()

    def write() -> None:
        with open(fifo, "wb") as f:  # blocks until the diff opens it
            f.write(data)

    writer = threading.Thread(target=write, daemon=True)
    writer.start()
    done = evalrun("diff", "fifo", "new.json", "--format", "json", cwd=rule_change)
    writer.join(timeout=5)
    assert done.returncode == 0, done.stderr
    out = json.loads(done.stdout)
    if name == "old.json":
        assert out["flips"] == RULE_CHANGE_FLIPS
    else:  # the traces, scored with the rule: nothing moved; their lines are named by the FIFO
        assert out["old"]["kind"] == "traces"
        assert out["flips"] == []
        assert out["old"]["summary"]["examples"]["encoding"]["source"] == "fifo:2"


# ---------------------------------------------------------- trace formats and id paths


def customer_tool(*, rule: bool) -> dict:
    customer_id: dict = {"type": "string"}
    if rule:
        customer_id["x-eval-norm"] = "casefold"
    return {
        "name": "get_customer",
        "input_schema": {"type": "object", "properties": {"customer_id": customer_id}},
    }


def chat_log(attempt: str, customer_id: str) -> dict:
    """An OpenAI Chat Completions conversation, its ids where this team's logger puts them."""
    arguments = json.dumps({"customer_id": customer_id})
    return {
        "request": {"metadata": {"task": "lookup", "attempt": attempt}},
        "messages": [
            {"role": "user", "content": "who is C-1?"},
            {
                "role": "assistant",
                "tool_calls": [
                    {
                        "id": "call_1",
                        "type": "function",
                        "function": {"name": "get_customer", "arguments": arguments},
                    }
                ],
            },
        ],
    }


READING = [
    "--trace-format",
    "openai-chat",
    "--case-key",
    "request.metadata.task",
    "--run-key",
    "request.metadata.attempt",
]


@pytest.fixture
def chat_project(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    write_json(tmp_path / "tools" / "t.json", [customer_tool(rule=False)])
    case = {"id": "lookup", "accept": [[{"tool": "get_customer", "args": {"customer_id": "C-1"}}]]}
    write_json(tmp_path / "cases" / "c.json", [case])
    logs = [chat_log("a1", "C-1"), chat_log("a2", "c-1 ")]
    (tmp_path / "logs").mkdir()
    (tmp_path / "logs" / "chat.jsonl").write_text("".join(json.dumps(r) + "\n" for r in logs))
    score_to(tmp_path / "old.json", "logs", *READING)
    write_json(tmp_path / "tools" / "t.json", [customer_tool(rule=True)])
    return tmp_path


CASEFOLD_FLIP = {
    "key": "a2",
    "old": "fail",
    "new": "false_failure",
    "shape": {"old": None, "new": "encoding"},
    "cause": 'now equivalent through `casefold` on get_customer.customer_id: "c-1 " ~ "C-1"',
}


def test_trace_sides_are_read_with_the_format_and_id_paths_given(chat_project):
    out = diff_json("old.json", "logs", *READING)
    assert out["pairing"] == "run_id"
    assert out["new"]["summary"]["runs"] == 2
    assert out["flips"] == [CASEFOLD_FLIP]


def test_without_the_id_paths_the_runs_cannot_be_scored(chat_project):
    # the reason the options matter: their ids are nowhere diff looks by default
    out = diff_json("old.json", "logs")
    assert (out["new"]["summary"]["runs"], out["new"]["summary"]["unscoreable"]) == (0, 2)


def test_a_trace_stream_in_another_format_is_told_from_a_results_file(chat_project):
    logs = (chat_project / "logs" / "chat.jsonl").read_bytes()
    out = diff_stdin(logs, "old.json", "-", *READING[2:])  # the format detected, the ids given
    assert out["new"]["kind"] == "traces"
    assert out["flips"] == [CASEFOLD_FLIP]


# --------------------------------------------------------------- revisions, from anywhere


def git(repo: Path, *args: str) -> str:
    done = subprocess.run(["git", *args], cwd=repo, capture_output=True, text=True, check=True)
    return done.stdout.strip()


@pytest.fixture
def evals_repo(tmp_path, monkeypatch):
    """A repository whose evals live in evals/: the month rule is added in the second commit."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.setenv("GIT_CEILING_DIRECTORIES", str(tmp_path))
    root = tmp_path / "repo"
    (root / "src").mkdir(parents=True)
    git(root, "init", "-q")
    git(root, "config", "user.name", "Test")
    git(root, "config", "user.email", "test@example.com")
    git(root, "config", "commit.gpgsign", "false")
    corpus(root / "evals", month_rule=False)
    git(root, "add", "evals")
    git(root, "commit", "-q", "-m", "evals")
    write_json(root / "evals" / "tools" / "billing.json", [search_tool(month_rule=True)])
    git(root, "commit", "-q", "-am", "add the month rule")
    return root


EVALS = ["--tools", "evals/tools", "--cases", "evals/cases", "--traces", "evals/traces"]


def test_revisions_read_the_paths_given_from_the_repository_root(evals_repo, monkeypatch):
    monkeypatch.chdir(evals_repo)
    out = diff_json("HEAD~1", "HEAD", *EVALS)
    assert out["flips"] == RULE_CHANGE_FLIPS
    assert out["new"]["source"].endswith(
        "its evals/tools/, evals/cases/ and evals/traces/ read raw from git"
    )
    # named as git names the file at the revision: from the root
    assert out["new"]["summary"]["examples"]["encoding"]["source"] == (
        "HEAD:evals/traces/runs.jsonl:2"
    )


@pytest.mark.parametrize(
    ("folder", "paths"),
    [
        ("evals", []),
        (
            "src",
            [
                "--tools",
                "../evals/tools",
                "--cases",
                "../evals/cases",
                "--traces",
                "../evals/traces",
            ],
        ),
    ],
)
def test_revisions_read_paths_relative_to_a_subfolder(evals_repo, monkeypatch, folder, paths):
    monkeypatch.chdir(evals_repo / folder)
    out = diff_json("HEAD~1", "HEAD", *paths)
    assert out["flips"] == RULE_CHANGE_FLIPS
    assert out["new"]["summary"]["examples"]["encoding"]["source"] == (
        "HEAD:evals/traces/runs.jsonl:2"
    )


def test_a_revision_without_the_paths_says_which_path_it_looked_for(evals_repo, monkeypatch):
    monkeypatch.chdir(evals_repo)
    result = invoke("diff", "HEAD~1", "HEAD", "--tools", "evals/tools", "--cases", "evals/cases")
    assert result.exit_code == 2
    assert "has no traces: nothing to read there" in one_line(result.stderr)


# ------------------------------------------------------------ a results document, run by run


def test_a_results_document_is_read_run_by_run_even_where_its_runs_look_like_a_cut(project):
    # the bytes that separate two runs, `},{"calls":`, inside a run: a list of objects in an
    # argument the results record (it differs from the case)
    tricky = [{"a": 1}, {"calls": 2}, {"calls": [{"calls": {}}]}]
    runs = [
        {"run_id": "r1", "case_id": "march", "calls": [call("2026-03")], "world": REFUNDED},
        {"run_id": "r2", "case_id": "march", "calls": [call(tricky)], "world": REFUNDED},
        {"run_id": "r3", "case_id": "march", "calls": [call("2026-03-01")], "world": REFUNDED},
    ]
    write_jsonl(project / "traces" / "runs.jsonl", runs)
    text = score_to(project / "old.json").read_bytes()
    score_to(project / "old.jsonl", fmt="jsonl")
    assert _Laid.out(text.splitlines()[0]) is not None  # read as laid out, not parsed whole
    write_json(project / "tools" / "billing.json", [search_tool(month_rule=True)])

    from_document, from_lines = diff_json("old.json", "traces"), diff_json("old.jsonl", "traces")

    assert [f["key"] for f in from_document["flips"]] == ["r3"]
    assert from_document["flips"] == from_lines["flips"]
    assert diff_json("old.json", "old.jsonl")["pairing_reason"].startswith(
        "both sides hold the same 3 runs"
    )
