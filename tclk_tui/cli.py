"""`tclk-tui`: the terminal app, the demo, the rehearsal venue, and headless subcommands.

Every subcommand is one engine call. Output is for humans by default and JSON with `--json`;
bad input is one clear line on stderr and a non-zero exit, never a traceback.
"""

from __future__ import annotations

import argparse
import asyncio
import getpass
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from tclk_tui import __version__

DEFAULT_VENUE = "https://technocore.chat"
EXIT_REFUSED = 1
EXIT_USAGE = 2


class CliError(Exception):
    """A one-line message for the operator; `code` is the exit status."""

    def __init__(self, message: str, code: int = EXIT_REFUSED) -> None:
        super().__init__(message)
        self.code = code


def data_dir(args: argparse.Namespace) -> Path:
    if args.home:
        return Path(args.home)
    if os.environ.get("TCLK_HOME"):
        return Path(os.environ["TCLK_HOME"])
    import platformdirs

    return Path(platformdirs.user_data_dir("tclk-tui", appauthor=False))


def _passphrase_prompt(profile: str, vault_file: Path) -> Callable[[], str] | None:
    """Ask on the terminal; a new vault file asks twice, since a typo would lock it for good."""
    if not sys.stdin.isatty():
        return None

    def ask() -> str:
        if vault_file.exists():
            return getpass.getpass(f"passphrase for the {profile} vault: ")
        first = getpass.getpass(f"new passphrase for the {profile} vault: ")
        if getpass.getpass("the same passphrase again: ") != first:
            from tclk_tui.vault.errors import VaultLocked

            raise VaultLocked("the two passphrases differ; no vault was created")
        return first

    return ask


def open_profile_vault(args: argparse.Namespace):
    from tclk_tui.vault.chooser import open_vault, vault_file_path

    home = data_dir(args)
    return open_vault(args.profile, home, prefer=args.vault,
                      passphrase=_passphrase_prompt(args.profile,
                                                    vault_file_path(args.profile, home)),
                      passphrase_env=args.passphrase_env)


async def open_wallet(args: argparse.Namespace, *, follow: bool = False):
    from tclk_tui.engine.wallet import Wallet

    vault = open_profile_vault(args)
    wallet = await Wallet.open(args.profile, venue_url=args.venue, data_dir=data_dir(args),
                               vault=vault, follow=follow)
    if not follow and wallet.venue_status.state == "offline":
        detail = wallet.venue_status.detail
        await wallet.close()
        raise CliError(f"cannot reach the venue at {args.venue}: {detail}")
    return wallet


def say(text: str, *, file: Any = None) -> None:
    """Print lines for a person. Much of what a subcommand prints was written by strangers
    (reasons, summaries, DIDs, rail refs), so every line goes through the app's neutralising:
    controls, bidi and format characters come out as visible escapes, never raw."""
    from tclk_tui.engine.inert import clean_lines

    print(clean_lines(text), file=file or sys.stdout)


def emit(args: argparse.Namespace, human: str, data: Any) -> None:
    if args.json:
        # ensure_ascii escapes every control and non-ASCII character; DEL is the one it leaves.
        print(json.dumps(data, sort_keys=True, ensure_ascii=True).replace("\x7f", "\\u007f"))
    else:
        say(human)


# -- subcommands ------------------------------------------------------------------------------


async def cmd_identity(args: argparse.Namespace) -> int:
    wallet = await open_wallet(args)
    try:
        emit(args, f"{wallet.did}\nprofile {wallet.profile} on {wallet.venue_url}",
             {"did": wallet.did, "profile": wallet.profile, "venue": wallet.venue_url})
    finally:
        await wallet.close()
    return 0


async def cmd_board(args: argparse.Namespace) -> int:
    from tclk_tui.engine.views import BoardQuery

    wallet = await open_wallet(args)
    try:
        rows = wallet.board.query(BoardQuery(status=None if args.all else "open",
                                             text=args.filter or ""))
        data = [{"offer": r.offer_id, "sender": r.sender, "role": r.role, "amount": r.amount,
                 "asset": r.asset, "lock": r.lock, "rails": list(r.rails), "status": r.status,
                 "expires_ms": r.expires_ms, "claim_by_ms": r.claim_by_ms,
                 "refund_after_ms": r.refund_after_ms, "mine": r.mine} for r in rows]
        lines = [f"{r.offer_id[:18]}  {r.status:<9} {r.role:<5} {r.amount:>12} {r.asset:<8} "
                 f"{r.lock:<5} {','.join(r.rails)}" for r in rows]
        rejected = wallet.board.rejected()
        if rejected:
            lines.append(f"({sum(rejected.values())} rejected lines not shown)")
        emit(args, "\n".join(lines) or "no open offers",
             {"offers": data, "rejected": rejected})
    finally:
        await wallet.close()
    return 0


async def cmd_offer(args: argparse.Namespace) -> int:
    from tclk_tui.engine.views import OfferDraft
    from tclk_tui.engine.wallet import deal_summary

    draft = OfferDraft(role=args.role, amount=args.amount, asset=args.asset, lock=args.lock,
                       rails=args.rails, claim_in_s=str(args.claim_in),
                       refund_gap_s=str(args.refund_gap), expires_in_s=str(args.expires_in),
                       job=args.job or "")
    wallet = await open_wallet(args)
    try:
        problems = wallet.validate_offer_draft(draft)
        if problems:
            raise CliError("; ".join(f"{p.field}: {p.message}" for p in problems), EXIT_USAGE)
        view = await wallet.post_offer(draft)
        emit(args, f"offer {view.deal_id} posted", deal_summary(view))
    finally:
        await wallet.close()
    return 0


async def cmd_accept(args: argparse.Namespace) -> int:
    from tclk_tui.engine.wallet import deal_summary

    wallet = await open_wallet(args)
    try:
        view = await wallet.accept_offer(_full_offer_id(wallet, args.offer), rail=args.rail)
        emit(args, f"accepted {view.deal_id}; contract {view.contract}", deal_summary(view))
    finally:
        await wallet.close()
    return 0


def _full_offer_id(wallet, prefix: str) -> str:
    matches = [r.offer_id for r in wallet.board.query(_all_rows()) if
               r.offer_id.startswith(prefix)]
    if len(matches) != 1:
        raise CliError(f"{prefix!r} matches {len(matches)} offers on the board", EXIT_USAGE)
    return matches[0]


def _all_rows():
    from tclk_tui.engine.views import BoardQuery

    return BoardQuery(status=None)


def _print_gate(request) -> None:
    for fact in request.facts:
        mark = {True: "ok", False: "NO", None: "--"}[fact.ok]
        say(f"  [{mark}] {fact.label}: {fact.detail}", file=sys.stderr)
    for blocker in request.blockers:
        say(f"  refused: {blocker}", file=sys.stderr)


async def _gated(args: argparse.Namespace, action: str) -> int:
    from tclk_tui.engine.gates import GateRefused
    from tclk_tui.engine.wallet import deal_summary

    wallet = await open_wallet(args)
    try:
        deal = wallet.deal(args.deal)
        if action == "reveal":
            await deal.check_lock()
            request = deal.request_reveal()
            contract = deal.state.contract or ""
            typed = (args.confirm or "").strip().lower()
            if len(typed) != 8 or typed != contract[2:10]:
                _print_gate(request)
                raise CliError("reveal needs --confirm <first 8 hex of the contract id>",
                               EXIT_USAGE)
            code = typed[:4]
        else:
            request = (deal.request_lock(args.rail) if action == "lock" else
                       getattr(deal, f"request_{action}")())
            if not args.yes:
                _print_gate(request)
                raise CliError(f"{action} needs --yes after reading the facts above",
                               EXIT_USAGE)
            code = None
        try:
            view = await deal.confirm(request, typed_code=code,
                                      acknowledge_late=getattr(args, "late", False))
        except GateRefused as exc:
            _print_gate(request)
            raise CliError(f"refused: {exc.reason}") from None
        emit(args, f"{action}: {view.deal_id} is now {view.status}", deal_summary(view))
    finally:
        await wallet.close()
    return 0


async def cmd_status(args: argparse.Namespace) -> int:
    from tclk_tui.engine.wallet import deal_summary

    wallet = await open_wallet(args)
    try:
        view = wallet.deal(args.deal).view()
        lines = [f"deal {view.deal_id}", f"contract {view.contract}",
                 f"{view.role} · {view.status} · {view.amount} {view.asset} · {view.lock} lock",
                 f"actions: {', '.join(sorted(view.actions)) or 'none'}"]
        lines += [f"  #{r.seq} {'ok ' if r.ok else 'REJ'} {r.summary}"
                  + (f" ({r.reason})" if r.reason else "") for r in view.records]
        emit(args, "\n".join(lines), deal_summary(view))
    finally:
        await wallet.close()
    return 0


async def cmd_deals(args: argparse.Namespace) -> int:
    from tclk_tui.engine.wallet import deal_summary

    wallet = await open_wallet(args)
    try:
        views = wallet.deals()
        emit(args, "\n".join(f"{v.deal_id[:18]}  {v.role:<5} {v.status:<9} {v.amount} {v.asset}"
                             for v in views) or "no deals",
             [deal_summary(v) for v in views])
    finally:
        await wallet.close()
    return 0


def cmd_audit(args: argparse.Namespace) -> int:
    from tclk_tui.engine.audit import audit_exports

    report = audit_exports([Path(p) for p in args.files])
    emit(args, report.text(), report.to_dict())
    return 0 if report.ok else EXIT_REFUSED


def cmd_vault(args: argparse.Namespace) -> int:
    from tclk_tui.vault.chooser import doctor

    if args.vault_command == "doctor":
        report = doctor(args.profile, data_dir(args), prefer=args.vault,
                        passphrase_env=args.passphrase_env)
        emit(args, "\n".join(report.lines()), report.to_dict())
        return 0
    vault = open_profile_vault(args)
    if args.vault_command == "backup":
        if not args.yes:
            raise CliError("the master seed restores every deal secret: re-run with --yes to "
                           "print it once", EXIT_USAGE)
        seed = vault.export_seed()
        if args.out:
            path = Path(args.out)
            fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with os.fdopen(fd, "w") as handle:
                handle.write(seed + "\n")
            print(f"master seed written to {path} (mode 600)")
        else:
            print(seed)
        return 0
    if args.seed != "-":
        print("tclk-tui: warning: a seed given on the command line is visible to other local "
              "users and kept in shell history; prefer `vault restore` and type it",
              file=sys.stderr)
        text = args.seed
    elif sys.stdin.isatty():
        text = getpass.getpass("master seed backup: ")
    else:
        text = sys.stdin.readline()
    text = text.strip()
    fingerprint = vault.restore_seed(text, replace=args.replace)
    print(f"master seed restored (fingerprint {fingerprint})")
    return 0


def cmd_venue(args: argparse.Namespace) -> int:
    from tclk_tui.rehearsal.runner import serve

    serve(args.host, args.port, Path(args.data_dir) if args.data_dir else None)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    if args.headless:
        from tclk_tui.engine.demo import run_headless

        status = asyncio.run(run_headless(sys.stdout))
        return 0 if status == "claimed" else EXIT_REFUSED
    from tclk_tui.tui.run import run_demo_app

    run_demo_app()
    return 0


def cmd_agents(args: argparse.Namespace) -> int:
    from tclk_tui.agents import cli as agents_cli

    profile_dir = data_dir(args) / args.profile
    if args.agents_command == "mcp":
        from tclk_tui.agents.mcp_stdio import run_mcp

        return run_mcp(args.agent, profile_dir)

    def open_journal():
        from tclk_tui.store.journal import Journal

        if not (profile_dir / "journal.sqlite3").exists():
            raise CliError(f"profile {args.profile} has no journal yet (no wallet was opened)")
        return Journal(profile_dir / "journal.sqlite3")

    return agents_cli.run(args, profile_dir, open_journal, emit)


def profile_dir(args: argparse.Namespace) -> Path:
    return data_dir(args) / args.profile


def cmd_daemon(args: argparse.Namespace) -> int:
    if args.daemon_command == "status":
        from tclk_tui.daemon.control import daemon_status

        running, facts = daemon_status(profile_dir(args))
        if running:
            human = (f"daemon pid {facts['pid']} owns profile {facts['profile']} "
                     f"({facts['did']})\nvenue {facts['venue']}: {facts['venue_status']}; "
                     f"{facts['deals']} deals; {facts['clients']} clients")
        elif facts.get("owner_pid"):
            human = (f"no daemon socket answers, but process {facts['owner_pid']} holds "
                     f"profile {args.profile}")
        else:
            human = f"no daemon runs for profile {args.profile}"
        emit(args, human, facts)
        return 0 if running else EXIT_REFUSED
    if args.daemon_command == "stop":
        from tclk_tui.daemon.control import daemon_stop

        answer = daemon_stop(profile_dir(args))
        if answer is None:
            raise CliError(f"no daemon runs for profile {args.profile}")
        if not answer["stopped"]:
            raise CliError(f"daemon pid {answer.get('pid')} was asked to stop but still holds "
                           "the profile")
        emit(args, f"daemon pid {answer.get('pid')} stopped", answer)
        return 0
    from tclk_tui.daemon.run import run_daemon

    return asyncio.run(run_daemon(open_wallet, args, profile_dir(args), args.log_level))


def cmd_app(args: argparse.Namespace) -> int:
    from tclk_tui.tui.run import run_wallet_app

    run_wallet_app(args, open_wallet)
    return 0


# -- parsing ----------------------------------------------------------------------------------


def _common(suppress: bool) -> argparse.ArgumentParser:
    """Options accepted before or after the subcommand.

    The subcommand's copy has no defaults (SUPPRESS), so an option given before the subcommand
    is not silently reset by the subparser.
    """

    def default(value: Any) -> Any:
        return argparse.SUPPRESS if suppress else value

    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--profile", default=default(os.environ.get("TCLK_PROFILE", "default")))
    common.add_argument("--venue", default=default(os.environ.get("TCLK_VENUE", DEFAULT_VENUE)),
                        help=f"venue base URL (default {DEFAULT_VENUE})")
    common.add_argument("--home", default=default(None),
                        help="data directory (default: the platform's user data dir)")
    common.add_argument("--vault", choices=("auto", "keyring", "file"), default=default("auto"))
    common.add_argument("--passphrase-env", metavar="VAR", default=default(None),
                        help="environment variable holding the vault file passphrase")
    common.add_argument("--json", action="store_true", default=default(False),
                        help="machine-readable output")
    return common


def build_parser() -> argparse.ArgumentParser:
    top = _common(suppress=False)
    common = _common(suppress=True)

    parser = argparse.ArgumentParser(prog="tclk-tui", parents=[top],
                                     description="Terminal wallet for tclk/1 deals.")
    parser.add_argument("--version", action="version", version=f"tclk-tui {__version__}")
    sub = parser.add_subparsers(dest="command")

    def add(name: str, handler, help_: str) -> argparse.ArgumentParser:
        p = sub.add_parser(name, parents=[common], help=help_)
        p.set_defaults(handler=handler)
        return p

    p = add("demo", cmd_demo, "rehearse a full deal on a local venue with a scripted agent")
    p.add_argument("--headless", action="store_true", help="no screen: print the transcript")
    p = add("venue", cmd_venue, "serve a local rehearsal venue")
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=8080)
    p.add_argument("--data-dir", help="persist rooms and notes in this directory")
    add("identity", cmd_identity, "show this profile's did:key")
    p = add("board", cmd_board, "list offers on the board")
    p.add_argument("--all", action="store_true", help="include accepted, expired, cancelled")
    p.add_argument("--filter", help="text filter")
    p = add("offer", cmd_offer, "post an offer")
    p.add_argument("--role", choices=("payer", "payee"), default="payer")
    p.add_argument("--amount", required=True)
    p.add_argument("--asset", required=True)
    p.add_argument("--lock", choices=("hash", "point"), default="hash")
    p.add_argument("--rails", required=True, help="comma-separated rail ids")
    p.add_argument("--claim-in", type=int, default=3600, help="seconds until claimByMs")
    p.add_argument("--refund-gap", type=int, default=3600, help="seconds claimBy..refundAfter")
    p.add_argument("--expires-in", type=int, default=600, help="seconds until the offer expires")
    p.add_argument("--job", help="proto:id of the job this pays for")
    p = add("accept", cmd_accept, "accept an offer from the board")
    p.add_argument("offer", help="offer id (a unique prefix is enough)")
    p.add_argument("--rail")
    p = add("lock", lambda a: _gated(a, "lock"), "lock funds on a rail (payer)")
    p.add_argument("deal")
    p.add_argument("--rail")
    p.add_argument("--yes", action="store_true")
    p = add("reveal", lambda a: _gated(a, "reveal"), "reveal the secret to claim (payee)")
    p.add_argument("deal")
    p.add_argument("--confirm", metavar="HEX8", help="first 8 hex of the contract id")
    p.add_argument("--late", action="store_true", help="acknowledge a reveal past claimByMs")
    p = add("refund", lambda a: _gated(a, "refund"), "refund after the window (payer)")
    p.add_argument("deal")
    p.add_argument("--yes", action="store_true")
    p = add("cancel", lambda a: _gated(a, "cancel"), "cancel before any lock")
    p.add_argument("deal")
    p.add_argument("--yes", action="store_true")
    p = add("status", cmd_status, "one deal's state and transcript")
    p.add_argument("deal")
    add("deals", cmd_deals, "list this profile's deals")
    p = add("daemon", cmd_daemon, "own the profile headless and serve the control socket")
    p.add_argument("daemon_command", nargs="?", choices=("run", "status", "stop"),
                   default="run", help="run in the foreground (default), or ask the running "
                   "daemon its status, or stop it")
    p.add_argument("--log-level", choices=("debug", "info", "warning", "error"),
                   default="info", help="what the profile's log file records (default info)")
    p = add("audit", cmd_audit, "verify and fold exported room transcripts offline")
    p.add_argument("files", nargs="+", help="export files; the room is the file name "
                   "(tclk-offers.jsonl) or given as FILE:ROOM")
    from tclk_tui.agents.cli import add_parsers as add_agents_parsers

    add_agents_parsers(sub, common, cmd_agents)
    p = add("vault", cmd_vault, "vault doctor, backup, restore")
    vsub = p.add_subparsers(dest="vault_command", required=True)
    vsub.add_parser("doctor", parents=[common], help="which backend is active and why")
    b = vsub.add_parser("backup", parents=[common], help="show or write the master seed once")
    b.add_argument("--yes", action="store_true")
    b.add_argument("--out", help="write to this new file (mode 600) instead of the screen")
    r = vsub.add_parser("restore", parents=[common], help="restore the master seed")
    r.add_argument("seed", nargs="?", default="-",
                   help="the backup text (default -: typed without echo, or read from stdin)")
    r.add_argument("--replace", action="store_true", help="replace an existing, different seed")
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    handler = getattr(args, "handler", None)
    try:
        if handler is None:
            return cmd_app(args)
        result = handler(args)
        if asyncio.iscoroutine(result):
            result = asyncio.run(result)
        return int(result or 0)
    except CliError as exc:
        say(f"tclk-tui: {exc}", file=sys.stderr)
        return exc.code
    except KeyboardInterrupt:
        print("tclk-tui: interrupted", file=sys.stderr)
        return 130
    except Exception as exc:  # the last line of defence: one line, never a traceback
        return _report(exc)


def _report(exc: Exception) -> int:
    from tclk_tui.engine.errors import EngineError
    from tclk_tui.engine.gates import GateRefused
    from tclk_tui.protocol.errors import TclkError
    from tclk_tui.technocore.errors import VenueError
    from tclk_tui.vault.errors import VaultError

    if isinstance(exc, GateRefused):
        say(f"tclk-tui: refused: {exc.reason}", file=sys.stderr)
        return EXIT_REFUSED
    if isinstance(exc, EngineError | TclkError | VenueError | VaultError | OSError | ValueError):
        say(f"tclk-tui: {exc}", file=sys.stderr)
        return EXIT_REFUSED
    say(f"tclk-tui: unexpected {type(exc).__name__}: {exc}", file=sys.stderr)
    return EXIT_REFUSED


if __name__ == "__main__":
    sys.exit(main())
