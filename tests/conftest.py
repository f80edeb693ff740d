"""Suite-wide rules: in CI (CI=true) a skipped test is a failure, unless the test says why it cannot
run there with `@pytest.mark.skip_allowed_in_ci("why")`. A missing extra (an importorskip) must not
pass silently: CI installs every extra the tests use. A `slow` test runs without the per-test timeout
that pyproject.toml sets for the default suite."""

from __future__ import annotations

import logging
import os
import sys

import pytest

IN_CI = os.environ.get("CI", "").lower() in ("1", "true", "yes")


def pytest_configure(config):
    config.addinivalue_line("markers", "skip_allowed_in_ci(reason): this test may skip in CI, for the reason given")


def pytest_collection_modifyitems(config, items):
    """pyproject's per-test timeout is for the default suite; a `slow` test (thousands of games, training)
    runs without one unless it sets its own."""
    for item in items:
        if item.get_closest_marker("slow") and not item.get_closest_marker("timeout"):
            item.add_marker(pytest.mark.timeout(0))


@pytest.fixture(autouse=True, scope="session")
def sb3_logs_in_pytests_temp(tmp_path_factory):
    """A model trained without a log folder makes one of its own in the system's temp folder (SB3's
    `configure`); in a test run they go into pytest's, which it clears, instead of piling up in /tmp."""
    os.environ["SB3_LOGDIR"] = str(tmp_path_factory.mktemp("sb3_logs"))


@pytest.fixture(autouse=True)
def ray_logs_to_this_tests_stderr():
    """Ray's log handler keeps the sys.stderr of the moment ray was first imported: in the suite, an earlier
    test's captured stream, closed since, so that a later Ray log line printed "--- Logging error ---" and a
    traceback into another test's stderr (and failed its check for tracebacks). Each test points such a
    handler at its own."""
    if "ray" in sys.modules:
        for handler in logging.getLogger("ray").handlers:
            if isinstance(handler, logging.StreamHandler) and getattr(handler.stream, "closed", False):
                handler.stream = sys.stderr  # not setStream(), which flushes the closed stream first
    yield


def unexcused_skips(terminalreporter) -> list[str]:
    out = []
    for report in terminalreporter.stats.get("skipped", []):
        if "skip_allowed_in_ci" not in getattr(report, "keywords", {}):
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
            out.append(f"{report.nodeid}: {reason}")
    return out


@pytest.hookimpl(trylast=True)
def pytest_terminal_summary(terminalreporter, exitstatus, config):
    if IN_CI and (skips := unexcused_skips(terminalreporter)):
        terminalreporter.section("skips are failures in CI")
        for line in skips:
            terminalreporter.write_line(line)
        terminalreporter._session.exitstatus = pytest.ExitCode.TESTS_FAILED
