"""`tclk-tui serve` as an operator meets it: what it refuses, what it prints, what it serves."""

from __future__ import annotations

import re
import socket
import subprocess
import sys
from pathlib import Path

import httpx
import pytest

from tclk_tui.cli import build_parser, main, serve_argv
from tclk_tui.tui.serve import child_command
from tests.cli.helpers import PASS_ENV, PASSPHRASE, make_vault
from tests.serve.conftest import ROOT, free_port, serving

URL = re.compile(r"(?:https?|wss?)://[^\s\"'<>)]+", re.IGNORECASE)
LOCAL = re.compile(r"(?:https?|wss?)://(?:127\.0\.0\.1|localhost)(?::\d+)?(?:/|$)",
                   re.IGNORECASE)


@pytest.mark.parametrize("host", ["0.0.0.0", "::", "192.168.1.10", "example.com", "::1"])
def test_a_host_other_than_loopback_is_refused_with_the_reason(host, capsys):
    assert main(["serve", "--demo", "--host", host]) == 2
    err = capsys.readouterr().err
    assert "127.0.0.1 only" in err and "no authentication" in err
    assert "ssh -L 8000:127.0.0.1:8000" in err
    assert "Traceback" not in err


@pytest.mark.parametrize("port", ["99999", "0", "http", "-1"])
def test_a_bad_port_is_refused_plainly(port, capsys):
    assert main(["serve", "--demo", "--port", port]) == 2
    err = capsys.readouterr().err
    assert f"'{port}' is not a TCP port (1-65535)" in err
    assert "Traceback" not in err


def test_serve_has_no_json_output(capsys):
    assert main(["serve", "--demo", "--json"]) == 2
    assert "no JSON output" in capsys.readouterr().out


def test_a_port_in_use_is_said_in_words(tmp_path):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen()
        port = taken.getsockname()[1]
        done = subprocess.run(
            [sys.executable, "-m", "tclk_tui.cli", "serve", "--demo", "--port", str(port)],
            capture_output=True, text=True, timeout=60, cwd=str(ROOT),
            env={"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin", "HOME": str(tmp_path)})
    assert done.returncode == 2, done
    assert f"port {port} on 127.0.0.1 is already in use: choose another with --port" \
        in done.stderr
    assert "Traceback" not in done.stderr + done.stdout


def test_it_prints_where_it_listens_and_the_tunnel(tmp_path):
    with serving(tmp_path, "--demo") as served:
        port = served.port
        served.wait_for_line("ctrl+c stops it")
        printed = "\n".join(served.lines)
        assert f"serving the demo at http://127.0.0.1:{port}/" in printed
        assert "listens on 127.0.0.1 only: it has no authentication" in printed
        assert re.search(rf"ssh -L {port}:127\.0\.0\.1:{port} \S+ +then open "
                         rf"http://127\.0\.0\.1:{port}/", printed), printed
        assert httpx.get(served.url, timeout=30).status_code == 200
    assert served.process.returncode == 0


def test_the_page_loads_nothing_from_outside_loopback(tmp_path):
    with serving(tmp_path, "--demo") as served:
        page = httpx.get(served.url, timeout=30)
        assert page.status_code == 200
        html = page.text
        assert "textual.js" in html and "textual-terminal" in html
        outside = [url for url in URL.findall(html) if not LOCAL.match(url)]
        assert outside == [], outside
        # Every file the page names is served here, and none of those reaches out either.
        assets = re.findall(r"""(?:href|src)=["'](/static/[^"']+)["']""", html)
        assets += re.findall(r"""url\(["']?(/static/[^"')]+)""", html)
        assert {"/static/js/textual.js", "/static/css/xterm.css"} <= set(assets)
        for asset in assets:
            answer = httpx.get(served.url.rstrip("/") + asset, timeout=30)
            assert answer.status_code == 200, asset
            if asset.endswith(".css"):
                # Comments may credit a web page; only a url(...) would load one.
                assert "url(http" not in answer.text.replace(" ", ""), asset
                assert "@import" not in answer.text, asset


def test_a_page_or_socket_asked_from_elsewhere_is_refused(tmp_path):
    """A site in the operator's browser can reach the tunnel's end: under a rebound DNS name
    (Host), or by opening the terminal socket from its own page (Origin)."""
    with serving(tmp_path, "--demo") as served:
        port = served.port
        rebound = httpx.get(served.url, headers={"Host": f"attacker.example:{port}"},
                            timeout=30)
        assert rebound.status_code == 403
        assert "only on 127.0.0.1" in rebound.text
        upgrade = {"Connection": "Upgrade", "Upgrade": "websocket", "Sec-WebSocket-Version": "13",
                   "Sec-WebSocket-Key": "dGhlIHNhbXBsZSBub25jZQ=="}
        for origin in ("http://attacker.example", f"http://127.0.0.1:{port + 1}", None):
            headers = dict(upgrade, **({"Origin": origin} if origin else {}))
            answer = httpx.get(served.url + "ws", headers=headers, timeout=30)
            assert answer.status_code == 403, origin
            assert "only by the page this server serves" in answer.text


def _args(home: Path, *extra: str):
    return build_parser().parse_args(["--home", str(home), "--profile", "alice", "--vault",
                                      "file", *extra, "serve"])


def test_the_served_app_gets_the_profile_options_and_never_the_passphrase(tmp_path,
                                                                         monkeypatch):
    make_vault(tmp_path, "alice")
    monkeypatch.setenv(PASS_ENV, PASSPHRASE)
    args = _args(tmp_path, "--passphrase-env", PASS_ENV, "--venue", "http://127.0.0.1:9")
    argv, what = serve_argv(args)
    assert argv == ["--profile", "alice", "--venue", "http://127.0.0.1:9", "--vault", "file",
                    "--home", str(tmp_path), "--passphrase-env", PASS_ENV]
    assert what == "the wallet app for profile alice"
    line = child_command(argv)
    assert PASSPHRASE not in line.split()
    assert line.startswith(sys.executable) and " -m tclk_tui.cli " in line


def test_a_wrong_passphrase_is_said_before_anything_listens(tmp_path, monkeypatch, capsys):
    make_vault(tmp_path, "alice")
    monkeypatch.setenv(PASS_ENV, "not the passphrase")
    port = free_port()
    assert main(["--home", str(tmp_path), "--profile", "alice", "--vault", "file",
                 "--passphrase-env", PASS_ENV, "serve", "--port", str(port)]) == 1
    err = capsys.readouterr().err
    assert "passphrase" in err and "Traceback" not in err
    with socket.socket() as probe:
        assert probe.connect_ex(("127.0.0.1", port)) != 0


def test_the_demo_is_served_as_the_demo_command():
    argv, what = serve_argv(build_parser().parse_args(["serve", "--demo", "--rail", "paper"]))
    assert argv == ["demo", "--rail", "paper"] and what == "the demo"
