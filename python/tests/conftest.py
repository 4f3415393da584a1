import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
INSTANCES = REPO / "instances"


@pytest.fixture(scope="session")
def instances_dir() -> Path:
    return INSTANCES


@pytest.fixture(scope="session")
def cli_bin() -> Path:
    """The serverpick binary built by `cargo test --release` / `cargo build
    --release` (SERVERPICK_BIN overrides)."""
    path = Path(os.environ.get("SERVERPICK_BIN", REPO / "target" / "release" / "serverpick"))
    if not path.exists():
        pytest.skip(f"no serverpick binary at {path}: run `cargo build --release` first")
    return path
