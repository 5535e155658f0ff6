"""Shared fixtures: the repository's golden files and the CLI binary."""

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GOLDEN = REPO / "tests" / "golden"


@pytest.fixture(scope="session")
def golden() -> Path:
    """The golden files the Rust tests pin (`tests/golden/`)."""
    assert GOLDEN.is_dir(), f"{GOLDEN} is missing: run the tests from a checkout"
    return GOLDEN


@pytest.fixture(scope="session")
def cli() -> str:
    """The `atomic-bloom` command-line tool: $ATOMIC_BLOOM_CLI, or built
    from this checkout with cargo, at the path cargo reports (which honours
    CARGO_TARGET_DIR and the workspace's settings)."""
    given = os.environ.get("ATOMIC_BLOOM_CLI")
    if given:
        return given
    cargo = shutil.which("cargo")
    if cargo is None:
        pytest.skip("no cargo to build the CLI, and ATOMIC_BLOOM_CLI is not set")
    built = subprocess.run(
        [cargo, "build", "--release", "-p", "atomic-bloom-cli", "--message-format=json"],
        cwd=REPO,
        check=True,
        stdout=subprocess.PIPE,
        text=True,
    )
    for line in built.stdout.splitlines():
        message = json.loads(line)
        if message.get("reason") == "compiler-artifact" and message["target"]["name"] == (
            "atomic-bloom"
        ):
            if message.get("executable"):
                return message["executable"]
    pytest.fail("cargo built no atomic-bloom executable")
