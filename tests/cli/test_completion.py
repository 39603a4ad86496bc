"""Shell completion comes from the parser: every command and option completes, in bash for
real (the generated function run by bash itself), and the zsh and fish scripts name them."""

from __future__ import annotations

import shutil
import subprocess

import pytest

from ghostlight_trio.cli import completion
from ghostlight_trio.cli.main import build_parser, main


def _script(shell: str, capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["completion", shell]) == 0
    return capsys.readouterr().out


def _bash_complete(script: str, line: str) -> list[str]:
    """What bash offers for ``line`` (its last word is the one being completed)."""
    words = line.split(" ")
    program = "\n".join([
        script,
        "COMP_WORDS=(" + " ".join(f"'{w}'" for w in words) + ")",
        f"COMP_CWORD={len(words) - 1}",
        "_ghostlight",
        'printf "%s\\n" "${COMPREPLY[@]}"',
    ])  # fmt: skip
    done = subprocess.run(["bash", "-c", program], capture_output=True, text=True, check=True)
    return [word for word in done.stdout.splitlines() if word]


@pytest.mark.skipif(shutil.which("bash") is None, reason="bash is not installed")
@pytest.mark.parametrize(
    ("line", "offered", "not_offered"),
    [
        ("ghostlight pol", {"policy"}, {"panic"}),
        ("ghostlight policy ", {"check", "explain", "simulate", "init"}, {"policy"}),
        ("ghostlight --instance work policy ch", {"check"}, set()),
        ("ghostlight browser launch --", {"--headless", "--browser-path", "--instance", "--json"}, {"--all"}),
        ("ghostlight service ", {"start", "stop", "restart"}, set()),
        ("ghostlight install --client ", {"claude-code", "cursor", "zed"}, {"--dry-run"}),
        ("ghostlight completion ", {"bash", "zsh", "fish"}, set()),
    ],
)
def test_bash_completes_commands_options_and_choices(
    capsys: pytest.CaptureFixture[str], line: str, offered: set[str], not_offered: set[str]
) -> None:
    got = set(_bash_complete(_script("bash", capsys), line))
    assert offered <= got, (line, sorted(got))
    assert not (not_offered & got), (line, sorted(got))


def test_every_command_path_and_option_is_in_every_script(capsys: pytest.CaptureFixture[str]) -> None:
    places = list(completion.walk(build_parser()))
    paths = {" ".join(place.path) for place in places}
    assert {"", "policy check", "browser launch", "audit tail", "completion"} <= paths
    for shell in completion.SHELLS:
        script = _script(shell, capsys)
        for place in places:
            for name, _ in place.subcommands:
                assert name in script, (shell, name)
            for option, _ in place.options:
                assert (option[2:] if shell == "fish" else option) in script, (shell, option)


@pytest.mark.skipif(shutil.which("fish") is None, reason="fish is not installed")
def test_fish_reads_its_script(capsys: pytest.CaptureFixture[str]) -> None:
    done = subprocess.run(["fish", "--no-execute"], input=_script("fish", capsys), capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
