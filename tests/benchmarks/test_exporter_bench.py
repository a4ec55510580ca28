"""``watchdeck metrics``: start -> first exports served, and the process's memory over many polls with faults.

Start: a fresh interpreter running the real command, timed from just before it is spawned to the first scrape
that serves the 200 exports (target under 2 s; the median of a few runs). Soak: the exporter against a fast,
faulty sandbox in its own process, its resident memory read from /proc after a warm-up and at the end (short by
default; ``WATCHDECK_SOAK_CYCLES=5000`` or ``--soak-cycles`` for hours, as the dashboard's soak).
"""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import httpx
import pytest

from tests.benchmarks.test_soak import FAULTS, SANDBOX_SCRIPT, soak_cycles
from tui.sandbox.runner import SandboxHandle

from .helpers import EXPORTS, PAGE_SIZE, ROOT, median, report

STARTS = 5
START_TARGET_SECONDS = 2.0
WARMUP_CYCLES = 5
RSS_TOLERANCE = 0.10


def spawn(base_url: str, api_key: str, log: Path, *args: str) -> subprocess.Popen[bytes]:
    env = {k: v for k, v in os.environ.items() if k not in ("WATCHDECK_PROFILE", "WATCHDECK_BASE_URL")}
    env |= {"WATCHDECK_API_KEY": api_key, "PYTHONPATH": str(ROOT)}
    return subprocess.Popen([sys.executable, "-m", "tui", "metrics", "--listen", "127.0.0.1:0", "--base-url",
                             base_url, "--project", "1", *args], cwd=ROOT, env=env, stdout=subprocess.DEVNULL,
                            stderr=log.open("w"))


def metrics_url(log: Path) -> str | None:
    found = re.search(r"serving (http://\S+/metrics)", log.read_text())
    return found.group(1) if found else None


def scrape(url: str) -> str:
    try:
        return httpx.get(url, timeout=5).text
    except httpx.HTTPError:
        return ""


def rss_of(pid: int) -> float:
    with open(f"/proc/{pid}/statm") as fh:
        return int(fh.read().split()[1]) * PAGE_SIZE / 2**20


def stop(process: subprocess.Popen[bytes]) -> int:
    process.send_signal(signal.SIGTERM)
    return process.wait(timeout=30)


def test_start_to_first_exports_served(sandbox200: SandboxHandle, tmp_path: Path) -> None:
    times: list[float] = []
    for n in range(STARTS):
        log = tmp_path / f"start-{n}.log"
        started = time.monotonic()
        process = spawn(sandbox200.base_url, sandbox200.api_key, log, "--no-cache")
        try:
            while True:
                url = metrics_url(log)
                if url and scrape(url).count("watchdeck_export_healthy{") == EXPORTS:
                    break
                assert process.poll() is None, log.read_text()
                assert time.monotonic() - started < 60, "no exports served within a minute"
                time.sleep(0.01)
            times.append(time.monotonic() - started)
        finally:
            assert stop(process) == 0
    report(f"exporter: start -> {EXPORTS} exports served (target < {START_TARGET_SECONDS:g} s)",
           [[f"{t:.2f}" for t in times] + [f"{median(times):.2f}"]], [*(f"run {n + 1}" for n in range(STARTS)),
                                                                     "median"])


def test_exporter_soak_with_faults(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    cycles = soak_cycles(request.config)
    server = subprocess.Popen([sys.executable, "-c", SANDBOX_SCRIPT, "600"], stdout=subprocess.PIPE, text=True,
                              cwd=ROOT)
    rows: list[list[object]] = []
    try:
        assert server.stdout is not None
        base_url, api_key, _ = server.stdout.readline().split()
        for fault in FAULTS:
            assert httpx.post(f"{base_url}/_sandbox/faults", json=fault).status_code == 201
        log = tmp_path / "soak.log"
        process = spawn(base_url, api_key, log, "--poll", "2", "--no-cache")
        base = 0.0
        started = time.monotonic()
        try:
            done = 0
            while done < cycles + WARMUP_CYCLES:
                time.sleep(0.5)
                url = metrics_url(log)
                text = scrape(url) if url else ""
                found = re.search(r"^watchdeck_poll_duration_seconds_count (\S+)$", text, re.M)
                polls = int(float(found.group(1))) if found else 0
                if polls == done:
                    continue
                done = polls
                rss = rss_of(process.pid)
                if done >= WARMUP_CYCLES and not base:
                    base = rss
                if base and (done - WARMUP_CYCLES) % max(1, cycles // 10) == 0:
                    rows.append([done - WARMUP_CYCLES, f"{rss:.1f}", f"{100 * (rss / base - 1):+.1f} %",
                                 f"{time.monotonic() - started:.0f}"])
                assert time.monotonic() - started < max(600.0, cycles * 30.0), "the polls stopped"
            end = rss_of(process.pid)
            errors = re.findall(r'^watchdeck_requests_total\{outcome="(server_error|rate_limited)"\} (\S+)$',
                                scrape(url or ""), re.M)
        finally:
            assert stop(process) == 0
    finally:
        server.terminate()
        server.wait(timeout=10)
    report(f"exporter soak: {cycles} polls every 2 s, sandbox (own process) at 600x, faults", rows,
           ["cycle", "RSS MB", "growth", "s"])
    print(f"  error answers counted: {errors}")
    assert any(float(count) > 0 for _, count in errors), "no fault fired: the soak tested nothing"
    assert "Traceback" not in log.read_text()
    assert end <= base * (1 + RSS_TOLERANCE), (end, base)
