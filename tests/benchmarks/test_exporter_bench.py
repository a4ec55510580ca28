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

from tests.benchmarks.test_soak import FAULTS, SANDBOX_SCRIPT, soak_cycles, soak_minutes
from tui.sandbox.runner import SandboxHandle

from . import soak_worlds
from .helpers import EXPORTS, PAGE_SIZE, ROOT, growth_over_last_half, median, report

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


# --------------------------------------------------------------------------- 200 exports under status churn
#
# ``watchdeck metrics --poll 2`` on 200 exports whose newest runs flip status every 2 s (soak_worlds.RUNS_LIST_CHURN),
# scraped every 5 s for the soak's minutes (``WATCHDECK_SOAK_MINUTES``, default 3; the target is for 30) after a
# warm-up: RSS grows less than 1 % over the last half (3 % on a run shorter than 20 minutes, which the warm-up of
# the caches still moves). CPU per poll is the process's CPU over the soak by its polls (its scrapes included, a
# few percent of it); CPU per scrape is measured at the end, 100 scrapes back to back, less the polls' share.

CHURN_EXPORTS = 200
SCRAPE_SECONDS = 5.0
CHURN_WARMUP_SECONDS = 60.0
TICK = os.sysconf("SC_CLK_TCK")


def cpu_of(pid: int) -> float:
    with open(f"/proc/{pid}/stat") as fh:
        fields = fh.read().rsplit(")", 1)[1].split()
    return (int(fields[11]) + int(fields[12])) / TICK


def polls_of(text: str) -> int:
    found = re.search(r"^watchdeck_poll_duration_seconds_count (\S+)$", text, re.M)
    return int(float(found.group(1))) if found else 0


def test_exporter_200_exports_under_status_churn(request: pytest.FixtureRequest, tmp_path: Path) -> None:
    minutes = soak_minutes(request.config)
    limit = 0.01 if minutes >= 20 else 0.03
    server = subprocess.Popen([sys.executable, "-c", soak_worlds.RUNS_LIST_CHURN, str(CHURN_EXPORTS)],
                              stdout=subprocess.PIPE, text=True, cwd=ROOT)
    rows: list[list[object]] = []
    samples: list[tuple[float, float]] = []
    try:
        assert server.stdout is not None
        base_url, api_key, _ = server.stdout.readline().split()
        log = tmp_path / "churn.log"
        process = spawn(base_url, api_key, log, "--poll", "2", "--no-cache")
        try:
            deadline = time.monotonic() + 120
            url = None
            while url is None or scrape(url).count("watchdeck_export_healthy{") < CHURN_EXPORTS - 10:
                assert time.monotonic() < deadline and process.poll() is None, log.read_text()
                time.sleep(0.5)
                url = metrics_url(log)
            time.sleep(CHURN_WARMUP_SECONDS)
            started = time.monotonic()
            cpu0, polls0, scrapes = cpu_of(process.pid), polls_of(scrape(url)), 1
            next_sample = 0.0
            while (elapsed := time.monotonic() - started) < minutes * 60:
                text = scrape(url)
                scrapes += 1
                if elapsed >= next_sample:
                    rss = rss_of(process.pid)
                    samples.append((elapsed, rss))
                    rows.append([f"{elapsed / 60:.1f}", f"{rss:.1f}", f"{100 * (rss / samples[0][1] - 1):+.2f} %",
                                 polls_of(text) - polls0, text.count('watchdeck_export_healthy{')])
                    next_sample += 15.0
                time.sleep(SCRAPE_SECONDS)
            cpu = cpu_of(process.pid) - cpu0
            wall = time.monotonic() - started
            polls = polls_of(scrape(url)) - polls0
            end = rss_of(process.pid)
            samples.append((wall, end))
            burst_cpu0, burst_polls0, burst0 = cpu_of(process.pid), polls_of(scrape(url)), time.monotonic()
            for _ in range(100):
                scrape(url)
            burst_cpu = cpu_of(process.pid) - burst_cpu0
            burst_polls = polls_of(scrape(url)) - burst_polls0
            burst_wall = time.monotonic() - burst0
        finally:
            assert stop(process) == 0
    finally:
        server.terminate()
        server.wait(timeout=10)
    per_poll = cpu / max(polls, 1)
    per_scrape = max(0.0, burst_cpu - burst_polls * per_poll) / 100
    report(f"exporter: {CHURN_EXPORTS} exports, newest runs flipping status every 2 s, --poll 2, scraped every "
           f"{SCRAPE_SECONDS:g} s for {minutes:g} min (after {CHURN_WARMUP_SECONDS:.0f} s warm-up)", rows,
           ["min", "RSS MB", "growth", "polls", "exports served"])
    half = min(samples, key=lambda s: abs(s[0] - wall / 2))[1]
    growth = growth_over_last_half(samples)
    print(f"  {polls} polls, {scrapes} scrapes; CPU {100 * cpu / wall:.1f} % of a core: {per_poll * 1e3:.0f} ms per "
          f"poll (its scrapes included), {per_scrape * 1e3:.1f} ms per scrape (100 back to back in "
          f"{burst_wall:.1f} s, {burst_polls} polls meanwhile); RSS {half:.1f} MB at half-time, {end:.1f} MB at the "
          f"end; the trend over the last half: {100 * growth:+.2f} % (limit {100 * limit:g} %)")
    assert "Traceback" not in log.read_text()
    assert polls >= minutes * 60 / 2 * 0.5, f"only {polls} polls in {minutes:g} min"
    assert growth < limit, f"RSS grew {100 * growth:+.2f} % over the last half"
