"""The browser player in a real browser: Debian's Chromium, headless, driven by Playwright.

Starts the server (uvicorn, in a thread, on a free port, bots from ``agents.load``), plays a
whole hand against ``random`` by clicking legal buttons, checks the score on the page against
the game's, saves a screenshot (its path is printed), then plays a few moves against
``pretrained:default`` and prints the click-to-update time and the server's time per bot move
(figures for docs/web.md, not assertions: timed tests are banned).
"""
from __future__ import annotations

import os
import socket
import statistics
import tempfile
import threading
import time
from pathlib import Path

import pytest

pytest.importorskip("fastapi")
uvicorn = pytest.importorskip("uvicorn")
sync_api = pytest.importorskip("playwright.sync_api")

CHROMIUM = "/usr/bin/chromium"
if not os.path.exists(CHROMIUM):
    pytest.skip(f"no system browser at {CHROMIUM} (apt-get install chromium)",
                allow_module_level=True)

import agents  # noqa: E402
from truco_env.web.app import create_app  # noqa: E402

ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
        "--disable-background-networking", "--disable-component-update", "--disable-sync"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def server():
    app = create_app(agent_factory=agents.load)
    port = free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=srv.run, daemon=True)
    thread.start()
    for _ in range(200):
        if srv.started:
            break
        time.sleep(0.05)
    assert srv.started, "uvicorn did not start"
    yield app, f"http://127.0.0.1:{port}"
    srv.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def page(server):
    with sync_api.sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=ARGS)
        pg = browser.new_page(viewport={"width": 1280, "height": 900})
        errors: list[str] = []
        pg.on("pageerror", lambda e: errors.append(str(e)))
        yield pg
        browser.close()
        assert not errors, f"JavaScript errors on the page: {errors}"


def out_dir() -> Path:
    d = Path(os.environ.get("TMPDIR", tempfile.gettempdir())) / "truco_web"
    d.mkdir(parents=True, exist_ok=True)
    return d


def start_game(page, url: str, opponent: str, seed: int) -> None:
    page.goto(url)
    page.wait_for_selector("#rules option", state="attached")
    page.click("#new-game")                 # the tab may have resumed its last game
    page.fill("#opponent", opponent)
    page.fill("#seed", str(seed))
    page.click("#start")
    page.wait_for_selector("#game:not([hidden])")


def click_legal(page, k: int) -> None:
    """Click legal action number ``k`` (mod their count) and wait for the page's update."""
    before = int(page.evaluate("window.trucoStats.updates"))
    buttons = page.locator("[data-action]")
    buttons.nth(k % buttons.count()).click()
    page.wait_for_function(f"window.trucoStats.updates > {before}")


def test_play_a_hand_by_clicking(server, page):
    app, url = server
    start_game(page, url, "random", seed=5)
    (game,) = [s for s, _ in app.state.store.items.values()]
    k = 0
    while page.locator("#overlay").is_hidden():
        assert page.locator("[data-action]").count() > 0, "no legal button while the hand goes on"
        click_legal(page, k)
        k += 1
        assert k < 40, "the hand did not end in 40 clicks"
    summary = page.inner_text("#summary")
    assert "Hand 1 over" in summary and "Points:" in summary
    score = game.game.scores()[0].tolist()
    me = game.me
    shown = [int(page.get_attribute(f".score-row[data-side='{t}']", "data-score")) for t in (0, 1)]
    assert shown == score
    assert f"Score: yours {score[me % 2]} · theirs {score[1 - me % 2]}" in summary \
        or f"Score: theirs {score[0]} · yours {score[1]}" in summary
    shot = out_dir() / "hand_over.png"
    page.screenshot(path=str(shot))
    print(f"\nscreenshot: {shot}")
    page.click("#continue")
    assert page.locator("#overlay").is_hidden()
    page.reload()                            # the tab keeps its game
    page.wait_for_selector("#game:not([hidden])")
    assert [int(page.get_attribute(f".score-row[data-side='{t}']", "data-score"))
            for t in (0, 1)] == game.game.scores()[0].tolist()
    page.screenshot(path=str(out_dir() / "table.png"))


def test_latency_against_a_trained_policy(server, page):
    app, url = server
    start_game(page, url, "pretrained:default", seed=11)
    page.evaluate("window.trucoStats.latencies = []; window.trucoStats.serverMs = []")
    for k in range(12):
        if page.locator("#overlay").is_visible():
            page.click("#continue")
        if page.locator("[data-action]").count() == 0:
            break
        click_legal(page, k)
    if page.locator("#overlay").is_visible():
        page.click("#continue")
    if page.locator("#advice-btn").is_enabled():
        page.click("#advice-btn")
        page.wait_for_selector(".adv-row")
    lat = page.evaluate("window.trucoStats.latencies")
    server_ms = page.evaluate("window.trucoStats.serverMs")
    assert lat and server_ms
    load = os.getloadavg()[0]
    print(f"\npretrained:default: click-to-update {statistics.median(lat):.1f} ms median, "
          f"{max(lat):.1f} ms max over {len(lat)} clicks; server-side bot move "
          f"{statistics.median(server_ms):.2f} ms median, {max(server_ms):.2f} ms max over "
          f"{len(server_ms)} moves; load average {load:.2f} on {os.cpu_count()} cores")
    page.screenshot(path=str(out_dir() / "advice.png"))
