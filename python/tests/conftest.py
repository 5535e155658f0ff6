"""Shared fixtures: the repository's golden files and the CLI binary."""

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
    from this checkout with cargo."""
    given = os.environ.get("ATOMIC_BLOOM_CLI")
    if given:
        return given
    binary = REPO / "target" / "release" / "atomic-bloom"
    if not binary.exists():
        cargo = shutil.which("cargo")
        if cargo is None:
            pytest.skip("no cargo to build the CLI, and ATOMIC_BLOOM_CLI is not set")
        subprocess.run(
            [cargo, "build", "--release", "-p", "atomic-bloom-cli"], cwd=REPO, check=True
        )
    return str(binary)
