"""`tclk-tui`: the terminal app, the demo, the rehearsal venue, and headless subcommands.

Every engine subcommand, its options and its `--help` are generated from the command registry
(`tclk_tui.engine.commands.REGISTRY`) and dispatched through `run_command`; only the commands
that are not engine operations (the app, the demo, the rehearsal venue, the daemon's
run/status/stop, the agents' manifests, the vault's interactive doctor/backup/restore) are
written here by hand, thin.

Output is for humans by default (`tclk_tui.cli_text`) and the command's JSON answer with
`--json`. A gated command asked without its confirmation flag performs nothing and is reported
as an error carrying the engine's facts (`confirmation-required`, exit 2, or `refused`, exit 1,
when a blocker stands). Errors are one line on stderr, or `{"error": {"kind", "message", ...}}`
on stdout with `--json`; the exit status is 1 for a refusal and 2 for a usage error (argparse's
own included), never a traceback.
"""

from __future__ import annotations

import argparse
import contextlib
import getpass
import io
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, NoReturn

from tclk_tui import __version__, cli_text
from tclk_tui.engine.commands import (
    REGISTRY,
    Command,
    CommandError,
    Param,
    command_error,
    execute,
)
from tclk_tui.engine.errors import os_error_sentence
from tclk_tui.engine.words import plural

DEFAULT_VENUE = "https://technocore.chat"
EXIT_REFUSED = 1
EXIT_USAGE = 2
# Subcommands that are not engine operations (hand-written below).
OWNER_WAIT_ROUNDS = 100  # x 0.1 s: how long a CLI call waits for an owner that is starting
NON_ENGINE = ("demo", "venue", "serve", "vault", "daemon", "agents", "mcp")
# What textual-serve tells the app it runs under: a browser is its terminal then.
WEB_DRIVER = "textual.drivers.web_driver:WebDriver"


def data_dir(args: argparse.Namespace) -> Path:
    if args.home:
        return Path(args.home)
    if os.environ.get("TCLK_HOME"):
        return Path(os.environ["TCLK_HOME"])
    import platformdirs

    return Path(platformdirs.user_data_dir("tclk-tui", appauthor=False))


PASSPHRASE_VAR = "TCLK_PASSPHRASE"  # noqa: S105 (the variable's name, not a passphrase)
NEW_PASSPHRASE_TRIES = 3
PASSPHRASE_HOWTO = (f"To give one: run it on a terminal to be asked, or put the passphrase "
                    f"in {PASSPHRASE_VAR}, or name another variable that holds it with "
                    "--passphrase-env VAR")


def _passphrase_prompt(args: argparse.Namespace) -> Callable[[], str] | None:
    """Ask on the terminal; a new vault file asks twice, since a typo would lock it for good,
    and asks again (a few times) for a passphrase that falls short of the strength rule."""
    from tclk_tui.vault.chooser import vault_file_path

    if not sys.stdin.isatty():
        return None
    profile = args.profile
    vault_file = vault_file_path(profile, data_dir(args))
    why = ("--vault file was asked for" if args.vault == "file" else
           "there is no usable OS keyring here (as usual over SSH)")

    def ask() -> str:
        from tclk_tui.vault.errors import VaultLocked, WeakPassphrase
        from tclk_tui.vault.strength import passphrase_problem

        if vault_file.exists():
            return getpass.getpass(f"passphrase for the {profile} vault: ")
        print(f"tclk-tui: {why}, so profile {profile} keeps its secrets in a new encrypted "
              f"vault file, {vault_file}, locked by the passphrase you choose now",
              file=sys.stderr)
        for _ in range(NEW_PASSPHRASE_TRIES):
            first = getpass.getpass(f"new passphrase for the {profile} vault: ")
            problem = passphrase_problem(first)
            if problem is None:
                break
            print(f"tclk-tui: too weak: {problem}", file=sys.stderr)
        else:
            raise WeakPassphrase(f"no vault was created: {problem}")
        if getpass.getpass("the same passphrase again: ") != first:
            raise VaultLocked("the two passphrases differ; no vault was created")
        return first

    return ask


def open_profile_vault(args: argparse.Namespace):
    from tclk_tui.vault.chooser import open_vault
    from tclk_tui.vault.errors import PassphraseMissing

    home = data_dir(args)
    # An explicit --passphrase-env is the operator's choice even on a terminal: no prompt then.
    prompt = None if args.passphrase_env else _passphrase_prompt(args)
    try:
        return open_vault(args.profile, home, prefer=args.vault, passphrase=prompt,
                          passphrase_env=args.passphrase_env, strong_new_passphrase=True)
    except PassphraseMissing as exc:
        raise type(exc)(f"{exc}. {PASSPHRASE_HOWTO}") from None


def first_run_text(profile: str, where: str) -> str:
    """Said once, when a profile's identity is made: where its secrets are, and the backup."""
    return (f"tclk-tui: new profile {profile}: its secrets are kept in {where}. Back up its "
            "master seed now with `tclk-tui vault backup --yes --out FILE` (then store FILE "
            "offline): that one backup restores this identity and the secrets of every live "
            "deal, which nothing else can if this vault is lost")


def need_terminal(what: str) -> None:
    """The app draws on a terminal and reads keys from it; without one, say so and stop.
    Under `tclk-tui serve` the browser is the terminal: the pipes carry Textual's web driver."""
    if os.environ.get("TEXTUAL_DRIVER") == WEB_DRIVER:
        return
    if not (sys.stdin.isatty() and sys.stdout.isatty()):
        raise CommandError("usage", f"{what} needs an interactive terminal (stdin and stdout "
                           "are not one); for headless use run a subcommand, see "
                           "`tclk-tui --help`")


def port_number(text: str) -> int:
    """argparse type for a TCP port: 1..65535, said plainly."""
    if not text.isascii() or not text.isdigit() or not 1 <= int(text) <= 65535:
        raise argparse.ArgumentTypeError(f"{text!r} is not a TCP port (1-65535)")
    return int(text)


async def open_wallet(args: argparse.Namespace, *, follow: bool = False,
                      offline: bool = False, one_shot: bool = False, background: bool = False):
    from tclk_tui.engine.wallet import Wallet

    vault = open_profile_vault(args)
    wallet = await Wallet.open(args.profile, venue_url=args.venue, data_dir=data_dir(args),
                               vault=vault, follow=follow, offline=offline, one_shot=one_shot,
                               background=background)
    if wallet.first_run:  # the app says it on its screen too
        print(first_run_text(args.profile, vault.describe()), file=sys.stderr)
    if not follow and not offline and wallet.venue_status.state == "offline":
        detail = wallet.venue_status.detail
        await wallet.close()
        raise CommandError("venue", f"cannot reach the venue at {args.venue}: {detail}")
    return wallet


# -- the one dispatch path of engine commands -----------------------------------------------------


async def run_command(name: str, params: dict[str, Any], args: argparse.Namespace) -> dict:
    """Run one registry command for the CLI and return its JSON answer; refusals raise
    CommandError.

    This is the CLI's only way into the engine. When the profile has an owner (a daemon, or
    the app running the engine) the command goes to its control socket (method = `name`,
    params = `params`, answer = what `execute` returns there); only when none runs does the CLI
    open the wallet itself, holding the profile lock, for the one call. The answer is the same
    either way; a command with `needs_wallet` False never needs an owner.
    """
    command = REGISTRY[name]
    if not command.needs_wallet:
        return await execute(None, name, params)
    answered, answer = _through_owner(args, name, params)
    if answered:
        return answer
    import asyncio

    from tclk_tui.engine.errors import ProfileBusy

    try:
        if command.vault_alone:
            return await _on_the_vault_alone(args, name, params)
        # This process ends with the call: rails whose locks live in it are refused.
        wallet = await open_wallet(args, offline=not command.needs_venue, one_shot=True)
    except ProfileBusy:
        # An owner that has not bound its socket yet (starting up): ask it once it has.
        for _ in range(OWNER_WAIT_ROUNDS):
            await asyncio.sleep(0.1)
            answered, answer = _through_owner(args, name, params)
            if answered:
                return answer
        raise
    try:
        return await execute(wallet, name, params)
    finally:
        await wallet.close()


async def _on_the_vault_alone(args: argparse.Namespace, name: str,
                              params: dict[str, Any]) -> dict[str, Any]:
    """A master seed command with no owner running: on the profile's vault alone, under the
    profile's lock (an engine opening meanwhile would make a seed of its own)."""
    from tclk_tui.engine.errors import ProfileBusy
    from tclk_tui.engine.paths import make_private_dir
    from tclk_tui.engine.secrets.gates import VaultAlone
    from tclk_tui.store.profile_lock import ProfileLock, ProfileLocked

    folder = profile_dir(args)
    make_private_dir(folder)
    try:
        lock = ProfileLock.acquire(folder)
    except ProfileLocked as exc:
        raise ProfileBusy(str(exc), exc.pid) from None
    try:
        return await execute(VaultAlone(open_profile_vault(args)), name, params)
    finally:
        lock.release()


def _through_owner(args: argparse.Namespace, name: str,
                   params: dict[str, Any]) -> tuple[bool, Any]:
    """The running owner's answer (daemon or app) when one serves the profile."""
    from tclk_tui.daemon.client import DaemonLost, call_owner
    from tclk_tui.daemon.wire import RpcError

    try:
        return call_owner(profile_dir(args), name, params)
    except RpcError as exc:
        if isinstance(exc.data, dict) and "kind" in exc.data:
            raise CommandError.from_dict(exc.data) from None
        raise CommandError("internal", exc.message) from None
    except (DaemonLost, TimeoutError) as exc:
        raise CommandError("internal", f"the profile's owner did not answer ({exc}); it may "
                           "have acted: check with `tclk-tui deals`") from None


def say(text: str, *, file: Any = None) -> None:
    """Print lines for a person. Much of what a subcommand prints was written by strangers
    (reasons, summaries, DIDs, rail refs), so every line goes through the app's neutralising:
    controls, bidi and format characters come out as visible escapes, never raw."""
    from tclk_tui.engine.inert import clean_lines

    print(clean_lines(text), file=file or sys.stdout)


def print_json(data: Any) -> None:
    # ensure_ascii escapes every control and non-ASCII character; DEL is the one it leaves.
    print(json.dumps(data, sort_keys=True, ensure_ascii=True).replace("\x7f", "\\u007f"))


def emit(args: argparse.Namespace, human: str, data: Any) -> None:
    if args.json:
        print_json(data)
    else:
        say(human)


def params_from_args(command: Command, args: argparse.Namespace) -> dict[str, Any]:
    return {p.name: getattr(args, p.name) for p in command.params}


def _not_performed(command: Command, gate: dict[str, Any]) -> CommandError:
    """A gated command asked without its confirmation, as the CLI reports it."""
    if not gate["allowed"]:
        return CommandError("refused", "refused: " + "; ".join(gate["blockers"]),
                            {"gate": gate})
    flag = _flag(command.param(gate["confirm"]["param"]))
    how = (f"{flag} <{gate['confirm']['prompt']}>" if gate["confirm"]["code_required"] else
           f"{flag} after reading the facts above")
    return CommandError("confirmation-required", f"{command.spelling} needs {how}",
                        {"gate": gate})


def answer_of(command: Command, params: dict[str, Any], args: argparse.Namespace) -> Any:
    """The command's JSON answer. A running owner answers without this process importing
    asyncio or the engine; otherwise `run_command` runs it here."""
    answered, answer = (_through_owner(args, command.name, params) if command.needs_wallet
                        else (False, None))
    if answered:
        return answer
    import asyncio

    return asyncio.run(run_command(command.name, params, args))


def cmd_engine(args: argparse.Namespace) -> int:
    command = REGISTRY[args.command]
    params = params_from_args(command, args)
    answer = answer_of(command, params, args)
    if command.gated and answer.get("performed") is False:
        raise _not_performed(command, answer["gate"])
    text = cli_text.TEXT.get(command.name)
    emit(args, text(answer) if text else json.dumps(answer, indent=2, sort_keys=True), answer)
    return EXIT_REFUSED if answer.get("ok") is False else 0


# -- the commands that are not engine operations ------------------------------------------------


def cmd_vault(args: argparse.Namespace) -> int:
    from tclk_tui.vault.chooser import doctor

    if args.vault_command == "doctor":
        report = doctor(args.profile, data_dir(args), prefer=args.vault,
                        passphrase_env=args.passphrase_env)
        emit(args, "\n".join(report.lines()), report.to_dict())
        return 0
    if args.vault_command == "restore" and args.seed not in ([], ["-"]):
        raise CommandError("usage", "vault restore takes no seed on the command line: it would "
                           "stay in your shell history and be visible to other local users "
                           "while it runs; nothing was restored. Run `tclk-tui vault restore` "
                           "and type the seed, or pipe it on stdin (and clear that history "
                           "line)")
    if args.vault_command == "backup":
        answer = answer_of(REGISTRY["seed-backup"], {"yes": args.yes}, args)
        if not answer.get("performed"):
            raise CommandError("confirmation-required", "the master seed restores every deal "
                               "secret: re-run with --yes to print it")
        seed = answer["seed"]
        if args.out:
            path = Path(args.out)
            try:
                fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            except FileExistsError as exc:
                raise CommandError("refused", os_error_sentence(exc, "write the seed backup")
                                   + " (a backup never overwrites a file)") from None
            try:
                with os.fdopen(fd, "w") as handle:
                    handle.write(seed + "\n")
            except OSError as exc:
                with contextlib.suppress(OSError):
                    path.unlink()  # ours (O_EXCL): no half-written seed is left behind
                raise CommandError("refused", os_error_sentence(
                    exc, "write the seed backup", path=path)) from None
            emit(args, f"master seed written to {path} (mode 600)", {"written": str(path)})
        else:
            emit(args, seed, {"seed": seed})
        return 0
    typed = sys.stdin.isatty()
    text = (getpass.getpass("master seed backup: ") if typed else sys.stdin.readline()).strip()
    restore = REGISTRY["seed-restore"]
    answer = answer_of(restore, {"seed": text, "replace": args.replace}, args)
    del text
    if not answer.get("performed"):
        raise _not_performed(restore, answer["gate"])
    fingerprint = answer["fingerprint"]
    emit(args, f"master seed restored (fingerprint {fingerprint})",
         {"fingerprint": fingerprint})
    return 0


def cmd_venue(args: argparse.Namespace) -> int:
    from tclk_tui.rehearsal.runner import serve, url_of

    def listening(url: str) -> None:
        # A wildcard address is not one to connect to: the app on this host uses loopback.
        local = {"0.0.0.0": "127.0.0.1", "::": "::1"}.get(args.host)  # noqa: S104
        app_url = url_of(local, args.port) if local else url
        say(f"rehearsal venue listening on {url} (ctrl+c stops it)\n"
            f"point the app at it:      tclk-tui --venue {app_url}\n"
            f"or every command here:    export TCLK_VENUE={app_url}")
        sys.stdout.flush()

    serve(args.host, args.port, Path(args.data_dir) if args.data_dir else None,
          on_listening=listening)
    return 0


def cmd_demo(args: argparse.Namespace) -> int:
    if args.headless:
        from tclk_tui.demo.session import run_headless

        transcript = io.StringIO() if args.json else sys.stdout
        import asyncio

        status = asyncio.run(run_headless(transcript, rail=args.rail, asset=args.asset))
        if args.json:
            print_json({"status": status})
        return 0 if status == "claimed" else EXIT_REFUSED
    from tclk_tui.tui.run import run_demo_app

    need_terminal("the demo app (or use `demo --headless`)")
    return run_demo_app(rail=args.rail, asset=args.asset)


def cmd_serve(args: argparse.Namespace) -> int:
    from tclk_tui.tui.serve import check_host, serve

    if args.json:
        raise CommandError("usage", "serve has no JSON output")
    check_host(args.host)
    argv, what = serve_argv(args)
    serve(argv, args.port, what, say)
    return 0


def serve_argv(args: argparse.Namespace) -> tuple[list[str], str]:
    """The options each served app starts with (and what it is, in words): the demo, or the
    operator's profile, venue, data directory and vault, its passphrase by environment only."""
    if args.demo:
        return ["demo", "--rail", args.rail], "the demo"
    argv = ["--profile", args.profile, "--venue", args.venue, "--vault", args.vault]
    if args.home:
        argv += ["--home", args.home]
    passphrase_env = _serve_passphrase_env(args)
    if passphrase_env:
        argv += ["--passphrase-env", passphrase_env]
    return argv, f"the wallet app for profile {args.profile}"


def _serve_passphrase_env(args: argparse.Namespace) -> str | None:
    """Open the profile's vault once here, on the operator's terminal, so a wrong passphrase or
    a missing vault is said before anything listens; a passphrase typed now reaches each served
    app through the environment (never its command line), under the name returned."""
    from tclk_tui.vault.chooser import open_vault

    if args.passphrase_env:
        open_profile_vault(args)
        return args.passphrase_env
    typed: list[str] = []
    prompt = _passphrase_prompt(args)

    def ask() -> str:
        assert prompt is not None
        typed.append(prompt())
        return typed[-1]

    open_vault(args.profile, data_dir(args), prefer=args.vault,
               passphrase=ask if prompt is not None else None, strong_new_passphrase=True)
    if not typed:
        return None
    os.environ[PASSPHRASE_VAR] = typed[-1]
    return PASSPHRASE_VAR


def cmd_agents(args: argparse.Namespace) -> int:
    from tclk_tui.agents import cli as agents_cli

    if args.agents_command == "mcp":
        from tclk_tui.agents.mcp_stdio import run_mcp

        return run_mcp(args.agent, profile_dir(args))

    def open_journal():
        from tclk_tui.store.journal import Journal

        path = profile_dir(args) / "journal.sqlite3"
        if not path.exists():
            raise CommandError("not-found", f"profile {args.profile} has no journal yet (no "
                               "wallet was opened)")
        return Journal(path)

    return agents_cli.run(args, profile_dir(args), open_journal, emit)


def profile_dir(args: argparse.Namespace) -> Path:
    return data_dir(args) / args.profile


def cmd_daemon(args: argparse.Namespace) -> int:
    if args.daemon_command == "status":
        from tclk_tui.daemon.control import daemon_status

        running, facts = daemon_status(profile_dir(args))
        if running:
            human = (f"daemon pid {facts['pid']} owns profile {facts['profile']} "
                     f"({facts['did']})\nvenue {facts['venue']}: {facts['venue_status']}; "
                     f"{plural(facts['deals'], 'deal')}; {plural(facts['clients'], 'client')}")
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
            raise CommandError("not-found", f"no daemon runs for profile {args.profile}")
        if not answer["stopped"]:
            raise CommandError("refused", f"daemon pid {answer.get('pid')} was asked to stop "
                               "but still holds the profile")
        emit(args, f"daemon pid {answer.get('pid')} stopped", answer)
        return 0
    import asyncio

    from tclk_tui.daemon.run import run_daemon

    return asyncio.run(run_daemon(open_wallet, args, profile_dir(args), args.log_level,
                                  beside=_agents_beside))


@contextlib.asynccontextmanager
async def _agents_beside(wallet):
    """The agents' desk beside the daemon's engine: its socket methods, its mailbox."""
    from tclk_tui.agents.service import agent_methods, serving_agents
    from tclk_tui.daemon.wire import RpcError

    async with serving_agents(wallet) as desk:
        yield agent_methods(desk, RpcError)


def cmd_app(args: argparse.Namespace) -> int:
    if args.json:
        raise CommandError("usage", "the app has no JSON output: name a subcommand")
    from tclk_tui.tui.run import run_wallet_app

    need_terminal("the wallet app")
    return run_wallet_app(args, open_wallet, profile_dir(args))


# -- parsing ----------------------------------------------------------------------------------


class UsageError(Exception):
    """argparse refused the command line; raised instead of exiting so `--json` can answer."""

    def __init__(self, message: str, parser: argparse.ArgumentParser) -> None:
        super().__init__(message)
        self.parser = parser


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise UsageError(message, self)


GLOBAL_OPTIONS = ("profile", "venue", "home", "vault", "passphrase_env", "json")


def _common(suppress: bool) -> _Parser:
    """Options accepted before or after the subcommand.

    The subcommand's copy has no defaults (SUPPRESS), so an option given before the subcommand
    is not silently reset by the subparser.
    """

    def default(value: Any) -> Any:
        return argparse.SUPPRESS if suppress else value

    common = _Parser(add_help=False)  # a parent only: its options are copied
    common.add_argument("--profile", default=default(os.environ.get("TCLK_PROFILE", "default")),
                        help="profile name (default: $TCLK_PROFILE or default)")
    common.add_argument("--venue", default=default(os.environ.get("TCLK_VENUE", DEFAULT_VENUE)),
                        help=f"venue base URL (default {DEFAULT_VENUE})")
    common.add_argument("--home", default=default(None),
                        help="data directory (default: the platform's user data dir)")
    common.add_argument("--vault", choices=("auto", "keyring", "file"), default=default("auto"),
                        help="vault backend (default auto)")
    common.add_argument("--passphrase-env", metavar="VAR",
                        default=default(PASSPHRASE_VAR if os.environ.get(PASSPHRASE_VAR)
                                        else None),
                        help="environment variable holding the vault file passphrase "
                             f"(default: {PASSPHRASE_VAR} when it is set; otherwise a "
                             "terminal asks)")
    common.add_argument("--json", action="store_true", default=default(False),
                        help="machine-readable output, errors included")
    return common


def _flag(param: Param) -> str:
    return param.name if param.positional else "--" + param.name.replace("_", "-")


def _add_param(parser: argparse.ArgumentParser, param: Param) -> None:
    """One registry param as an argparse argument, its help saying everything it takes."""
    help_ = param.help.replace("%", "%%")
    if param.default is not None and param.base is not bool:
        help_ += f" (default {param.default})"
    options: dict[str, Any] = {"help": help_}
    if param.base is bool:
        options["action"] = "store_true"
    else:
        if param.base is int:
            options["type"] = int
        if param.base is list:
            options["nargs"] = "+" if param.required else "*"
        if param.choices is not None:
            options["choices"] = param.choices
        if param.metavar is not None:
            options["metavar"] = param.metavar
    if param.positional:
        parser.add_argument(param.name, **options)
    else:
        options["default"] = param.default
        if param.required:
            options["required"] = True
        parser.add_argument(_flag(param), dest=param.name, **options)


def _description(command: Command) -> str:
    if not command.gated:
        return f"{command.summary}. With --json it answers {command.result}."
    flag = _flag(command.param(command.confirm or ""))
    return (f"{command.summary}. Gated: without {flag} it performs nothing, prints the facts "
            "the engine checked and exits 2 (1 if a blocker stands); with --json that is an "
            "error of kind confirmation-required (or refused) carrying the gate. Confirmed, "
            "--json answers the deal summary with performed: true.")


def build_parser() -> argparse.ArgumentParser:
    top = _common(suppress=False)
    common = _common(suppress=True)

    parser = _Parser(prog="tclk-tui", parents=[top],
                     description="Terminal wallet for tclk/1 deals. Without a subcommand it "
                                 "opens the app.")
    parser.add_argument("--version", action="version", version=f"tclk-tui {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND")

    def add(name: str, handler, help_: str, description: str | None = None):
        p = sub.add_parser(name, parents=[common], help=help_, description=description or help_)
        p.set_defaults(handler=handler)
        return p

    for command in REGISTRY.values():
        if command.cli is not True:  # hand-written below (the vault's), or not on the CLI
            continue
        clash = command.param_names & set(GLOBAL_OPTIONS)
        assert not clash, f"{command.name} params clash with global options: {clash}"
        p = add(command.name, cmd_engine, command.summary, _description(command))
        for param in command.params:
            _add_param(p, param)

    p = add("demo", cmd_demo, "rehearse a full deal on a local venue with a scripted agent")
    p.add_argument("--headless", action="store_true", help="no screen: print the transcript")
    p.add_argument("--rail", choices=("paper", "evm-htlc"), default="paper",
                   help="paper (default, settles nothing) or evm-htlc (test ether on a local "
                        "anvil)")
    p.add_argument("--asset", choices=("ETH", "USDC"), default="ETH",
                   help="with --rail evm-htlc: deals in test ether (default) or in USDC, a test "
                        "token deployed on the local anvil")
    p = add("venue", cmd_venue, "serve a local rehearsal venue")
    p.add_argument("--host", default="127.0.0.1", help="address to listen on (default loopback)")
    p.add_argument("--port", type=port_number, default=8080,
                   help="port to listen on (default 8080)")
    p.add_argument("--data-dir", help="persist rooms and notes in this directory")
    p = add("serve", cmd_serve, "serve the app to a browser on 127.0.0.1 (reach it over ssh -L)",
            "Serve the app to a web browser through textual-serve. It listens on 127.0.0.1 "
            "only, since it has no authentication: from another machine, tunnel to it with "
            "ssh -L 8000:127.0.0.1:8000 host and open http://127.0.0.1:8000/. Each open page "
            "runs its own app: the profile's (attached to its owner when one runs), or with "
            "--demo a demo of its own.")
    p.add_argument("--host", default="127.0.0.1",
                   help="address to listen on: 127.0.0.1 (or localhost) only")
    p.add_argument("--port", type=port_number, default=8000,
                   help="port to listen on (default 8000)")
    p.add_argument("--demo", action="store_true",
                   help="serve the demo (a throwaway profile and local venue per page)")
    p.add_argument("--rail", choices=("paper", "evm-htlc"), default="paper",
                   help="the demo's rail (with --demo; default paper, settles nothing)")
    p = add("daemon", cmd_daemon, "own the profile headless and serve the control socket")
    p.add_argument("daemon_command", nargs="?", choices=("run", "status", "stop"),
                   default="run", help="run in the foreground (default), or ask the running "
                   "daemon its status, or stop it")
    p.add_argument("--log-level", choices=("debug", "info", "warning", "error"),
                   default="info", help="what the profile's log file records (default info)")
    from tclk_tui.agents.cli import add_parsers as add_agents_parsers

    add_agents_parsers(sub, common, cmd_agents)
    p = add("vault", cmd_vault, "vault doctor, backup, restore")
    vsub = p.add_subparsers(dest="vault_command", required=True, metavar="VAULT_COMMAND")
    vsub.add_parser("doctor", parents=[common], help="which backend is active and why")
    b = vsub.add_parser("backup", parents=[common],
                        help="show the master seed, or write it to a new file")
    b.add_argument("--yes", action="store_true",
                   help="confirm: print (or write) the master seed")
    b.add_argument("--out", help="write to this new file (mode 600) instead of the screen")
    r = vsub.add_parser("restore", parents=[common], help="restore the master seed",
                        description="Restore the master seed: typed without echo on a "
                        "terminal, or read from stdin (`tclk-tui vault restore < seed.txt`); "
                        "never from the command line, which shell history keeps.")
    # The seed is typed without echo or read from stdin; one given here is refused (history).
    r.add_argument("seed", nargs="*", default=[], help=argparse.SUPPRESS)
    r.add_argument("--replace", action="store_true", help="replace an existing, different seed")
    return parser


# -- running ------------------------------------------------------------------------------------


def _fail(error: CommandError, *, as_json: bool) -> int:
    if as_json:
        print_json({"error": error.to_dict()})
    else:
        gate = error.data.get("gate")
        if gate and error.kind == "confirmation-required":
            # The facts to read before confirming; a refusal or a wrong code is its one reason.
            say("\n".join(cli_text.fact_lines(gate)), file=sys.stderr)
        say(f"tclk-tui: {error.message}", file=sys.stderr)
    return error.exit_code


EXIT_BROKEN_PIPE = 141  # 128 + SIGPIPE: what a shell shows for `yes | head -1`


def main(argv: list[str] | None = None) -> int:
    """Run one command line. A reader that goes away early (`tclk-tui board | head -1`) ends
    the output quietly: no traceback, no "Exception ignored" at exit, status 141 like any
    program killed by SIGPIPE."""
    try:
        code = _main(argv)
        sys.stdout.flush()  # here, where a closed pipe can be caught, not at exit
        return code
    except BrokenPipeError:
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # the interpreter's last flush goes nowhere
        os.close(devnull)
        return EXIT_BROKEN_PIPE


def _main(argv: list[str] | None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except UsageError as exc:
        if "--json" in argv:
            return _fail(CommandError("usage", str(exc)), as_json=True)
        exc.parser.print_usage(sys.stderr)
        say(f"{exc.parser.prog}: error: {exc}", file=sys.stderr)
        return EXIT_USAGE
    handler = getattr(args, "handler", cmd_app)
    try:
        return int(handler(args) or 0)
    except KeyboardInterrupt:
        print("tclk-tui: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:
        raise
    except Exception as exc:
        return _fail(command_error(exc), as_json=args.json)  # the last line of defence


if __name__ == "__main__":
    sys.exit(main())
