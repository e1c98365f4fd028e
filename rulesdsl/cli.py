"""Command line -> the compiler, the formatter, the rulebook and the game folder: check, compile, fmt, doc,
new, intake, turn, status, rollback, gm, send; the reviewers' tools: replay, diff; the simulator: simulate;
and the language server for editors: lsp."""

from __future__ import annotations

import argparse
import difflib
import gc
import io
import os
import shutil
import sys
import traceback
from pathlib import Path

from rulesdsl import __version__, defaults
from rulesdsl.compiler import check_path, compile_path, read_source
from rulesdsl.diagnostics import CompileError, render_json, render_text
from rulesdsl.game import history, store
from rulesdsl.game.disk import Wait
from rulesdsl.game.folder import GameError, GameFolder, TurnResult, turn_name
from rulesdsl.game.names import report_base
from rulesdsl.game.progress import MODES, NULL, BarProgress, Progress, progress_for

_TRACEBACK = "RULESDSL_TRACEBACK"


def cmd_check(args: argparse.Namespace) -> int:
    failed = False
    all_diags = []
    text_parts = []
    listings: list[str] = []
    for raw in args.rules:
        path = Path(raw)
        if not path.is_file():
            print(f"{raw}: no such file", file=sys.stderr)
            failed = True
            continue
        checked = check_path(path, raw)
        all_diags.extend(checked.diagnostics)
        if checked.diagnostics:
            text_parts.append(render_text(checked.diagnostics, checked.sources))
        failed = failed or not checked.ok
        if args.defaults and checked.ok and checked.program is not None:
            listings.append(defaults.listing(checked.program, path.read_text(encoding="utf-8"), raw))
    if args.format == "json":
        print(render_json(all_diags))
    else:
        if text_parts:
            print("\n".join(text_parts))
        if not failed:
            print(f"{', '.join(args.rules)}: ok")
    for text in listings if args.format == "text" else ():  # JSON stays one document
        print(text, end="")
    return 1 if failed else 0


def cmd_lsp(args: argparse.Namespace) -> int:
    try:
        from rulesdsl.editor.server import main as serve
    except ImportError as e:
        print(f"error: `rulesdsl lsp` needs {e.name or e}: pip install 'rulesdsl[editor]'", file=sys.stderr)
        return 2
    return serve()


def cmd_compile(args: argparse.Namespace) -> int:
    path = Path(args.rules)
    if not path.is_file():
        print(f"{args.rules}: no such file", file=sys.stderr)
        return 2
    try:
        text = compile_path(path)
    except CompileError as e:
        print(render_text(e.diagnostics, e.sources), file=sys.stderr)
        return 1
    return _write_output(args.output, text)


def _write_output(output: str | None, text: str) -> int:
    """`-o FILE` (or stdout for none or `-`) of compile and doc: 0, or 2 when the file cannot be written."""
    if output in (None, "-"):
        sys.stdout.write(text)
        return 0
    try:
        Path(output).write_text(text, encoding="utf-8")
    except OSError as e:
        # A failed write() carries no file name: name the file here.
        print(f"error: {output}: {e.strerror or e}", file=sys.stderr)
        return 2
    print(f"wrote {output}")
    return 0


def cmd_fmt(args: argparse.Namespace) -> int:
    """Exit 0: every file is (now) in its layout; 1: `--check` found files to change; 2: a file could not be
    read or does not parse (it is left as it is)."""
    from rulesdsl import fmt  # the parser's grammar: imported only here, so that a turn never loads it

    broken = changed = False
    for raw in args.rules:
        path = Path(raw)
        if not path.is_file():
            print(f"{raw}: no such file", file=sys.stderr)
            broken = True
            continue
        source, undecodable = read_source(path, raw)
        text = source.text
        try:
            if undecodable is not None:
                raise fmt.Unformattable([undecodable])
            laid_out = fmt.format_text(text, raw)
        except fmt.Unformattable as e:
            print(render_text(e.diagnostics, {raw: source}), file=sys.stderr)
            broken = True
            continue
        if laid_out == text:
            continue
        changed = True
        if args.diff:
            before, after = text.splitlines(keepends=True), laid_out.splitlines(keepends=True)
            for line in difflib.unified_diff(before, after, raw, f"{raw} (formatted)"):
                sys.stdout.write(line if line.endswith("\n") else line + "\n")  # a last line with no newline
        if args.check:
            print(f"{raw}: would be formatted")
        elif not args.diff:
            path.write_text(laid_out, encoding="utf-8")
            print(f"{raw}: formatted")
    if broken:
        return 2
    return 1 if changed and args.check else 0


def cmd_doc(args: argparse.Namespace) -> int:
    from rulesdsl.rulebook import rulebook  # Jinja2 templates of its own: not for `rulesdsl turn` to import

    path = Path(args.rules)
    if not path.is_file():
        print(f"{args.rules}: no such file", file=sys.stderr)
        return 2
    checked = check_path(path, args.rules)
    if not checked.ok or checked.program is None:
        # A rulebook of rules that do not check would teach players a game that cannot run.
        print(render_text(checked.diagnostics, checked.sources), file=sys.stderr)
        return 1
    if checked.diagnostics:
        # Warnings: the book is written, but what `rulesdsl check` would say the designer should hear here too.
        print(render_text(checked.diagnostics, checked.sources), file=sys.stderr)
    text = rulebook(checked.program, checked.sources, as_html=args.html)
    return _write_output(args.output, text)


def cmd_simulate(args: argparse.Namespace) -> int:
    # The simulator's modules (and rich, matplotlib, dask) load only for this command.
    from rulesdsl.simulate import run as runner
    from rulesdsl.simulate.plots import write_plots

    try:
        setup = runner.prepare(Path(args.rules), Path(args.scenario) if args.scenario else None, args.players)
    except CompileError as e:
        print(render_text(e.diagnostics, e.sources), file=sys.stderr)
        return 2  # 1 says the games found a problem
    jobs = runner.make_jobs(setup, args.games, args.turns, args.seed)
    progress: Progress = NULL
    # RULESDSL_PROGRESS=none silences it as it does the other commands' (a script's, a test suite's).
    if not args.quiet and os.environ.get(_PROGRESS) != "none" and sys.stderr is not None and sys.stderr.isatty():
        progress = BarProgress(prefix=f"{args.rules}: ")
    stats = runner.run(jobs, setup.seats, workers=args.workers, dask=args.dask, progress=progress)
    print(stats.text(setup.heading(args.games, args.turns, args.seed)), end="")
    if args.plots:
        paths = write_plots(stats, Path(args.plots), setup.title)
        print(f"\nCharts: {', '.join(str(p) for p in paths)}")
    return 1 if stats.problem_count else 0


def _at_least_one(text: str) -> int:
    try:
        n = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if n < 1:
        raise argparse.ArgumentTypeError(f"{n}: at least 1")
    return n


def cmd_new(args: argparse.Namespace) -> int:
    rules = Path(args.rules)
    if not rules.is_file():
        print(f"{args.rules}: no such file", file=sys.stderr)
        return 2
    scenario = Path(args.scenario) if args.scenario else None
    progress = _progress(args)
    try:
        folder = GameFolder.create(rules, Path(args.gamedir), scenario, args.seed, progress, args.sender)
    finally:
        progress.done()
    game = folder.started if folder.started is not None else folder.load_game()
    # The game is made: as for a turn, a summary that cannot be printed does not make the command fail.
    try:
        start = folder.turns_dir / turn_name(game.turn)
        reports = [(p.name, start / "reports" / f"{report_base(p.account, p.name)}.txt") for p in game.all_players]
        reports = [(name, path) for name, path in reports if path.is_file()]
        print(f"{game.spec.title} {game.meta.get('id', '')}: a new game in {args.gamedir} "
              f"with {len(game.all_players)} players.")
        print(f"{args.gamedir}: {len(reports)} starting report(s), turn {game.turn}:")
        for name, path in reports:
            print(f"  {path}  ({name})")
        print(f"  starting state: {start / 'state.yaml'}")
        if args.show:
            _show_report(args.show, reports)
        if sys.stdout is not None:  # None when started with file descriptor 1 closed
            sys.stdout.flush()
    except Exception as e:
        _silence_stdout()
        _warn(f"warning: the game in {args.gamedir} was made, but printing its summary failed ({_why(e)})")
    return 0


def cmd_turn(args: argparse.Namespace) -> int:
    folder = GameFolder(Path(args.gamedir))
    # No files: the orders `rulesdsl intake` filed for the turn (and the GM's).
    orders = [Path(f) for f in args.orders] if args.orders else None
    progress = _progress(args)
    try:
        result = folder.process_turn(orders, force=args.force, dry_run=args.dry_run, progress=progress,
                                     wait=_wait(args), trace=args.trace)
    finally:
        # The bar is gone before the summary is printed: stdout and stderr share the GM's terminal.
        progress.done()
    if result.dry_run:
        try:
            _print_dry_run(args, result)
        finally:
            shutil.rmtree(result.folder.parent, ignore_errors=True)
        return 0
    # The turn is committed. From here the exit status stays 0 whatever happens to the summary: a GM who
    # saw a failure would run the turn again, and that would make a second turn of the same mail.
    try:
        _print_turn(args, result)
        if sys.stdout is not None:  # None when started with file descriptor 1 closed
            sys.stdout.flush()
    except Exception as e:
        _silence_stdout()
        _warn(f"warning: turn {result.turn} was committed ({result.folder}), but printing its summary failed "
              f"({_why(e)}); do not run this turn again")
    return 0


def cmd_explain(args: argparse.Namespace) -> int:
    from rulesdsl.review.explain import explain

    if args.what is None and args.line is None:
        raise GameError("say what to explain: a state value's path ($.Country.MEX.troops), a line of the report's "
                        "text, or --line N")
    print(explain(Path(args.gamedir), args.turn, args.what, args.player, args.report, args.line), end="")
    return 0


def cmd_intake(args: argparse.Namespace) -> int:
    from rulesdsl.game.intake import intake

    progress = _progress(args)
    try:
        result = intake(Path(args.gamedir), [Path(m) for m in args.mailboxes], progress, _wait(args))
    finally:
        progress.done()
    unit = f"{result.unit} {result.turn}"
    print(f"{args.gamedir}: {len(result.filed)} mail(s) filed for {unit}, {len(result.refused)} refused, "
          f"{len(result.other_game)} for another game, {result.duplicates} already read")
    for account, receipt in result.filed:
        print(f"  {receipt}  ({account})")
    for why in result.refused:
        print(f"warning: {why}; answered without a word about the game", file=sys.stderr)
    for why in result.other_game:
        print(f"warning: {why}; left alone", file=sys.stderr)
    if result.replies:
        print(f"  {len(result.replies)} reply(ies) in {Path(args.gamedir) / 'outbox'}")
    return 0


def _wait(args: argparse.Namespace) -> Wait | None:
    """--wait SECONDS: the game's lock held by another command is waited for, and the wait told on stderr (a
    cron'ed intake that meets a turn finishes after it rather than failing)."""
    if not args.wait:
        return None
    return Wait(args.wait, lambda message: _warn(f"note: {message}"))


def _wait_seconds(text: str) -> float:
    try:
        seconds = float(text)
    except ValueError:
        seconds = -1.0
    if not 0 <= seconds <= 86400:  # nan fails both comparisons
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds from 0 to 86400")
    return seconds


def _print_turn(args: argparse.Namespace, result: TurnResult) -> None:
    print(f"{args.gamedir}: {len(result.reports)} report(s) for turn {result.turn}:")
    for name, path in result.reports:
        print(f"  {path}  ({name})")
    print(f"  news: {result.news}")
    print(f"  state: {result.folder / 'state.yaml'}")
    for warning in result.unrouted:
        print(f"warning: {warning}; these orders were not processed", file=sys.stderr)
    for warning in result.warnings:
        print(f"warning: {warning}", file=sys.stderr)
    if result.unrouted_file is not None:
        print(f"  mail not processed: {result.unrouted_file}")
    if result.game_over:
        print("The game is over." + (f" Winner: {', '.join(result.winners)}." if result.winners else ""))
    if args.show:
        _show_report(args.show, result.reports)


def _print_dry_run(args: argparse.Namespace, result: TurnResult) -> None:
    """A dry run's reports are printed, every one unless --show names one: they are gone after."""
    print(f"{args.gamedir}: a dry run of turn {result.turn}; nothing was written to the game folder.")
    for warning in result.unrouted:
        print(f"warning: {warning}; these orders would not be processed", file=sys.stderr)
    if result.game_over:
        print("The game would be over." + (f" Winner: {', '.join(result.winners)}." if result.winners else ""))
    if args.show:
        _show_report(args.show, result.reports)
        return
    for name, path in result.reports:
        print(f"\n=== {name} ===")
        sys.stdout.write(path.read_text(encoding="utf-8"))
    if result.news is not None:
        print("\n=== news ===")
        sys.stdout.write(result.news.read_text(encoding="utf-8"))


def cmd_replay(args: argparse.Namespace) -> int:
    from rulesdsl.game.replay import default_target, replay

    source = Path(args.gamedir)
    target = Path(args.output) if args.output else default_target(source)
    rules = Path(args.rules) if args.rules else None
    if rules is not None and not rules.is_file():
        print(f"{args.rules}: no such file", file=sys.stderr)
        return 2
    progress = _progress(args)
    try:
        result = replay(source, target, rules, progress, trace=args.trace)
    finally:
        progress.done()
    under = f"under {args.rules}" if args.rules else "under its own rules"
    print(f"{args.gamedir}: {len(result.turns)} turn(s) replayed {under} into {target}.")
    if result.not_played:
        print(f"  the replayed game is over before turn {result.not_played[0]}: turn(s) "
              f"{', '.join(map(str, result.not_played))} not played")
    if result.gm_actions:
        print(f"  {result.gm_actions} GM action(s) of history.yaml made again")
    for unread in result.unread:
        print(f"  {unread}")
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    """Exit 0: nothing differs; 1: something does; 2: a usage error, or games that cannot be compared."""
    from rulesdsl.review import diff, goldens, page

    def usage(message: str) -> int:
        print(f"rulesdsl diff: error: {message}", file=sys.stderr)
        return 2

    progress = progress_for(args.progress, sys.stderr, "rulesdsl diff: ")
    try:
        if args.goldens:
            if args.paths or args.game:
                return usage("--goldens compares the golden scenarios: give no folders, rules or --game with it")
            root = goldens.repo_root(Path.cwd())
            rev = args.against or "HEAD"
            diffs = goldens.compare_goldens(root, rev, progress)
            title = f"rulesdsl diff --goldens --against {rev}"
        else:
            if args.against:
                return usage("--against goes with --goldens")
            if len(args.paths) != 2:
                return usage("give two game folders, or OLD.rules NEW.rules --game GAMEDIR, or --goldens")
            old, new = (Path(p) for p in args.paths)
            if args.game:
                for raw, path in zip(args.paths, (old, new), strict=True):
                    if not path.is_file():
                        return usage(f"{raw}: no such file (with --game, give two rulesets)")
                if not Path(args.game).is_dir():
                    return usage(f"{args.game}: no such folder")
                diffs = [diff.compare_rules(old, new, Path(args.game), args.paths[0], args.paths[1], progress)]
                title = f"rulesdsl diff {args.paths[0]} {args.paths[1]} --game {args.game}"
            else:
                for raw, path in zip(args.paths, (old, new), strict=True):
                    if not path.is_dir():
                        return usage(f"{raw}: no such folder (give two game folders, or two rulesets and --game)")
                diffs = [diff.compare_folders(old, new, args.paths[0], args.paths[1], progress)]
                title = f"rulesdsl diff {args.paths[0]} {args.paths[1]}"
    except CompileError as e:
        # Rules that do not check cannot be compared: a usage error, not a difference.
        progress.done()
        print(render_text(e.diagnostics, e.sources), file=sys.stderr)
        return 2
    finally:
        progress.done()
    sys.stdout.write(diff.text(diffs))
    if args.html:
        try:
            Path(args.html).write_text(page.page(diffs, title), encoding="utf-8")
        except OSError as e:
            print(f"error: {args.html}: {e.strerror or e}", file=sys.stderr)
            return 2
    return 1 if any(d.differs for d in diffs) else 0


def cmd_status(args: argparse.Namespace) -> int:
    sys.stdout.write(store.status_text(store.status(Path(args.gamedir))))
    return 0


def cmd_rollback(args: argparse.Namespace) -> int:
    turn, names, undone = store.rollback(Path(args.gamedir))
    again = f"its {len(names)} submission(s) were filed again" if names else "its orders are still filed"
    print(f"{args.gamedir}: turn {turn} rolled back; {again} in {store.filed_dir(Path(args.gamedir), turn)}/ "
          f"for `rulesdsl turn {args.gamedir}`.")
    for action in undone:
        # An e-mail or a drop made on the undone turn's state is gone with it; an order filed stays filed.
        if action.get("action") != "order":
            print(f"warning: the GM action `{action.get('action')} {action.get('account', '')}` made after turn "
                  f"{turn} is undone with it (history.yaml); do it again", file=sys.stderr)
    return 0


def cmd_gm(args: argparse.Namespace) -> int:
    root = Path(args.gamedir)
    if args.action == "email":
        done = store.gm_action(root, "email", args.account, email=args.address)
    elif args.action == "drop":
        done = store.gm_action(root, "drop", args.account)
    elif args.action == "order":
        account, lines = (None, args.words) if args.world else (args.words[0], args.words[1:])
        if not lines:
            print(f"error: give the order's lines after the account {account}, or --world and the lines for "
                  "no position", file=sys.stderr)
            return 2
        path = store.gm_order(root, account, lines)
        done = (f"{len(lines)} line(s) for {account or 'no position (world orders)'} filed in {path}, carried out "
                "at the next turn")
    else:
        done = store.gm_action(root, "replace", args.account, name=args.name, email=args.email, code=args.code)
    print(f"{args.gamedir}: {done}; recorded in {history.HISTORY}.")
    return 0


def cmd_send(args: argparse.Namespace) -> int:
    from rulesdsl.game.send import Server, parse_server, password, send

    root = Path(args.gamedir)
    server = None
    if args.smtp is not None:
        host, port = parse_server(args.smtp)
        secret = password(Path(args.password_file) if args.password_file else None) if args.user else None
        if args.user is not None and secret is None:
            raise GameError(f"--user {args.user}: no password; give --password-file FILE, or set "
                            "RULESDSL_SMTP_PASSWORD; nothing was sent")
        server = Server(host, port, args.starttls, args.user, secret, Path(args.cafile) if args.cafile else None)
    elif not args.dry_run:
        raise GameError("give the SMTP server with --smtp HOST:PORT (or --dry-run to see what would be sent)")
    result = send(root, server, args.sender, dry_run=args.dry_run, wait=_wait(args))
    if args.dry_run:
        print(f"{args.gamedir}: a dry run; {len(result.not_sent)} mail(s) would be sent from {result.sender or '?'}, "
              f"{result.already} sent before, {len(result.waiting)} waiting for an address.")
        for mail in result.not_sent:
            print(f"  {mail.rel}  to {', '.join(mail.to)}{f' ({mail.note})' if mail.note else ''}")
    else:
        print(f"{args.gamedir}: {len(result.sent)} mail(s) sent, {result.already} sent before, "
              f"{len(result.waiting)} waiting for an address.")
        for mail in result.sent:
            print(f"  {mail.rel}  to {', '.join(mail.to)}{f' ({mail.note})' if mail.note else ''}")
    for rel, why in result.waiting:
        print(f"  not sent: {rel}: {why}")
    if result.no_address:
        print(f"Players without an e-mail address (their reports wait; `rulesdsl gm {args.gamedir} email ACCOUNT "
              f"ADDRESS` gives one): {', '.join(result.no_address)}")
    if result.failure is not None:
        left = ", ".join(m.rel for m in result.not_sent[:10])
        more = f" and {len(result.not_sent) - 10} more" if len(result.not_sent) > 10 else ""
        done = (f"{len(result.sent)} mail(s) were sent and recorded in {root / 'sent.tsv'}" if result.sent
                else "nothing was sent")
        print(f"error: {result.failure}. {done}; {len(result.not_sent)} mail(s) were not: {left}{more}. "
              "Run `rulesdsl send` again to send them", file=sys.stderr)
        return 2
    return 0


_PROGRESS = "RULESDSL_PROGRESS"


def _progress(args: argparse.Namespace) -> Progress:
    if args.progress not in MODES:
        raise GameError(f"{_PROGRESS}: {args.progress!r} is not a progress mode; use one of {', '.join(MODES)}")
    return progress_for(args.progress, sys.stderr, f"{args.gamedir}: ")


def _add_progress(p: argparse.ArgumentParser) -> None:
    # The environment sets the default for a whole script (or a test suite) at once.
    p.add_argument("--progress", choices=MODES, default=os.environ.get(_PROGRESS, "auto"),
                   help="how the stages of a long run are shown on stderr: a bar, a line per stage, or none; auto "
                        f"is the bar on a terminal, the lines otherwise. Default: ${_PROGRESS}, else auto. "
                        "stdout is the same for all")


def _show_report(show: str, reports: list[tuple[str, Path]]) -> None:
    """Prints the report of the player named `show`, by account number or by name."""
    wanted = [p for n, p in reports if show in (n, p.name.split("-", 1)[0])]
    if not wanted:
        print(f"warning: no report for {show}", file=sys.stderr)
    for path in wanted:
        print()
        sys.stdout.write(path.read_text(encoding="utf-8"))


def _why(e: Exception) -> str:
    return str(e.strerror if isinstance(e, OSError) and e.strerror else e)


def _silence_stdout() -> None:
    """Points file descriptor 1 at /dev/null, so that the interpreter's last flush of what is still
    buffered succeeds (a failed flush at exit would make the exit status 120)."""
    try:
        devnull = os.open(os.devnull, os.O_WRONLY)
        try:
            os.dup2(devnull, sys.stdout.fileno())
        finally:
            os.close(devnull)
    except (OSError, ValueError, AttributeError, io.UnsupportedOperation):
        pass


def _warn(message: str) -> None:
    try:
        print(message, file=sys.stderr)
        sys.stderr.flush()
    except (OSError, ValueError, AttributeError):
        pass  # stderr is gone too: the exit status still tells


WAIT_HELP = ("while another command holds the game's lock, wait up to SECONDS for it to finish (by default "
             "the command is refused at once)")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="rulesdsl", description="Compile and run play-by-mail games written in rulesdsl.")
    p.add_argument("--version", action="version", version=f"rulesdsl {__version__}")
    sub = p.add_subparsers(dest="command", required=True)
    c = sub.add_parser("check", help="report every mistake in .rules files")
    c.add_argument("rules", nargs="+")
    c.add_argument("--format", choices=("text", "json"), default="text")
    c.add_argument("--defaults", action="store_true",
                   help="also list every GM order's default: its kinds of turn and the comment above it")
    c.set_defaults(func=cmd_check)
    k = sub.add_parser("compile", help="write the generated Python module")
    k.add_argument("rules")
    k.add_argument("-o", "--output")
    k.set_defaults(func=cmd_compile)
    f = sub.add_parser("fmt", help="lay out .rules files in the one canonical layout, comments kept (in place)")
    f.add_argument("rules", nargs="+")
    f.add_argument("--check", action="store_true",
                   help="change nothing; list the files that would change, and exit 1 if there are any")
    f.add_argument("--diff", action="store_true", help="change nothing; print what would change as a unified diff")
    f.set_defaults(func=cmd_fmt)
    d = sub.add_parser("doc", help="write the player's rulebook, generated from the rules (Markdown by default)")
    d.add_argument("rules")
    d.add_argument("--html", action="store_true", help="an HTML page instead of Markdown")
    d.add_argument("-o", "--output", help="the file to write (default: standard output)")
    d.set_defaults(func=cmd_doc)
    n = sub.add_parser("new", help="start a game in a new folder")
    n.add_argument("rules")
    n.add_argument("gamedir")
    n.add_argument("--scenario")
    n.add_argument("--seed", type=int)
    n.add_argument("--show", help="print the starting report of this account (or player name)")
    _add_progress(n)
    n.add_argument("--from", dest="sender", metavar="ADDRESS",
                   help="the GM's e-mail address, the From of the game's mails (game.yaml's gm_email)")
    n.set_defaults(func=cmd_new)
    m = sub.add_parser("intake", help="file the orders mailed for the coming turn, with a receipt for each mail")
    m.add_argument("gamedir")
    m.add_argument("mailboxes", nargs="+", metavar="MAILBOX", help="a Maildir folder or an mbox file")
    _add_progress(m)
    m.add_argument("--wait", type=_wait_seconds, default=0.0, metavar="SECONDS", help=WAIT_HELP)
    m.set_defaults(func=cmd_intake)
    t = sub.add_parser("turn", help="process the next turn from the players' order files, or with none "
                                    "the orders `rulesdsl intake` filed")
    t.add_argument("gamedir")
    t.add_argument("orders", nargs="*")
    t.add_argument("--show", help="print the report of this account (or player name) after the turn")
    t.add_argument("--force", action="store_true",
                   help="process the turn even if order files are given while `rulesdsl intake` has filed mail for "
                        "it, if its mail holds orders already processed in an earlier turn "
                        "(or the same orders twice), or if every submission that names a game names another game; "
                        "with no files named, even if no orders are filed or more positions than game.yaml's "
                        "no_orders_limit sent none")
    t.add_argument("--dry-run", action="store_true",
                   help="run the turn and print its reports, writing nothing to the game folder")
    t.add_argument("--trace", action="store_true",
                   help="record what each rule did this turn in the turn folder's trace.jsonl, for `rulesdsl "
                        "explain` (the turn's reports and state are the same without it)")
    _add_progress(t)
    t.add_argument("--wait", type=_wait_seconds, default=0.0, metavar="SECONDS", help=WAIT_HELP)
    t.set_defaults(func=cmd_turn)
    x = sub.add_parser("explain", help="why a value is what it is after a turn run with --trace: the rules, orders, "
                                       "table rows and rolls that made it")
    x.add_argument("gamedir")
    x.add_argument("turn", type=int)
    x.add_argument("what", nargs="?", help="a state value's JSON path as the state file has it ($.Country.MEX.troops, "
                                           "$.players[0].cash), or a line of the report's text")
    x.add_argument("--player", metavar="ACCOUNT", help="answer as this player may know it (their report's lines)")
    x.add_argument("--report", metavar="ACCOUNT", help="the report a line is of, for the GM's full answer")
    x.add_argument("--line", type=int, metavar="N", help="the report's line N instead of its text")
    x.set_defaults(func=cmd_explain)
    rp = sub.add_parser("replay", help="play a game again from its stored inputs (starting state, orders, the GM's "
                                       "actions) into a new folder, under its own rules or another version")
    rp.add_argument("gamedir")
    rp.add_argument("--rules", metavar="OTHER.rules", help="the ruleset to replay under (default: the game's copy "
                                                           "in GAMEDIR/rules/)")
    rp.add_argument("-o", "--output", metavar="NEWDIR", help="the new game folder (default: GAMEDIR-replay); never "
                                                            "written over")
    rp.add_argument("--trace", action="store_true", help="play each turn as `rulesdsl turn --trace` does, for "
                                                         "`rulesdsl explain` (the new game is otherwise the same)")
    _add_progress(rp)
    rp.set_defaults(func=cmd_replay)
    df = sub.add_parser("diff", help="every difference between two game folders, or a game replayed under two "
                                     "rulesets, or the golden scenarios under the rules of a commit and of the "
                                     "working tree; exit 1 when something differs",
                        usage="%(prog)s GAMEDIR1 GAMEDIR2 | OLD.rules NEW.rules --game GAMEDIR | --goldens "
                              "[--against REV]  [--html FILE]")
    df.add_argument("paths", nargs="*", metavar="OLD NEW", help="two game folders, or two rulesets with --game")
    df.add_argument("--game", metavar="GAMEDIR", help="the game to replay under the rulesets OLD and NEW")
    df.add_argument("--goldens", action="store_true",
                    help="play every golden scenario (tests/golden/) under the rulesets of --against and of the "
                         "working tree, and compare them")
    df.add_argument("--against", metavar="REV", help="with --goldens, the git revision to compare with (default HEAD)")
    df.add_argument("--html", metavar="FILE", help="also write the differences as one HTML page")
    _add_progress(df)
    df.set_defaults(func=cmd_diff)
    s = sub.add_parser("status", help="the turn, who has sent orders for the next one, who missed turns")
    s.add_argument("gamedir")
    s.set_defaults(func=cmd_status)
    r = sub.add_parser("rollback", help="undo the last turn; its orders are filed again")
    r.add_argument("gamedir")
    r.set_defaults(func=cmd_rollback)
    g = sub.add_parser("gm", help="change a position: e-mail, drop, replace (recorded in history.yaml)")
    g.add_argument("gamedir")
    gsub = g.add_subparsers(dest="action", required=True)
    ge = gsub.add_parser("email", help="change a player's e-mail address")
    ge.add_argument("account")
    ge.add_argument("address")
    gd = gsub.add_parser("drop", help="drop a player: no more orders are taken from the position")
    gd.add_argument("account")
    gr = gsub.add_parser("replace", help="give a position to a standby player")
    gr.add_argument("account")
    gr.add_argument("--name")
    gr.add_argument("--email")
    gr.add_argument("--code", help="a new access code for the new player")
    go = gsub.add_parser("order", help="the ruleset's GM orders (and any order) for a position, at the next turn",
                         usage="%(prog)s ACCOUNT LINE [LINE ...] | --world LINE [LINE ...]")
    go.add_argument("--world", action="store_true",
                    help="the lines are world GM orders (`gm world order`), given for no position: no ACCOUNT")
    go.add_argument("words", nargs="+", metavar="ACCOUNT LINE",
                    help="the position's account, then its lines (without ACCOUNT after --world)")
    g.set_defaults(func=cmd_gm)
    e = sub.add_parser("send", help="send the report mails and intake's replies not yet sent, each once")
    e.add_argument("gamedir")
    e.add_argument("--smtp", metavar="HOST:PORT", help="the SMTP server to send through")
    e.add_argument("--starttls", action="store_true", help="encrypt the connection (STARTTLS) before anything is sent")
    e.add_argument("--cafile", metavar="FILE", help="trust the server's certificate when FILE's certificates sign it")
    e.add_argument("--user", help="log in as USER (needs --starttls); the password is read from --password-file, "
                                  "else from the environment variable RULESDSL_SMTP_PASSWORD")
    e.add_argument("--password-file", metavar="FILE", help="a file whose first line is the password")
    e.add_argument("--from", dest="sender", metavar="ADDRESS", help="the From of the mails (default: game.yaml's "
                                                                    "gm_email)")
    e.add_argument("--dry-run", action="store_true", help="list what would be sent, and send nothing")
    e.add_argument("--wait", type=_wait_seconds, default=0.0, metavar="SECONDS", help=WAIT_HELP)
    e.set_defaults(func=cmd_send)
    sim = sub.add_parser("simulate", help="play many games of random orders, check them (crashes, refusals without "
                                          "a reason, invariants, hidden facts) and print balance statistics")
    sim.add_argument("rules")
    sim.add_argument("--scenario", help="the scenario every game starts from (default: --players made-up players)")
    sim.add_argument("--players", type=_at_least_one, metavar="P",
                     help="without --scenario, how many made-up players (default 4)")
    sim.add_argument("--games", type=_at_least_one, default=100, metavar="N", help="how many games (default 100)")
    sim.add_argument("--turns", type=_at_least_one, default=20, metavar="T",
                     help="the most turns a game is played (default 20); a victory ends it sooner")
    sim.add_argument("--seed", type=int, default=1, metavar="K",
                     help="the run's seed (default 1): the same seed gives the same statistics")
    sim.add_argument("--workers", type=_at_least_one, metavar="W",
                     help="processes playing games (default: one per core; 1 plays them in this process)")
    sim.add_argument("--dask", metavar="ADDRESS",
                     help="play the games on the Dask cluster whose scheduler is at ADDRESS (tcp://host:port), or on "
                          "a local cluster of --workers processes started for the run (local)")
    sim.add_argument("--plots", metavar="DIR", help="also write the statistics as PNG charts into DIR")
    sim.add_argument("--quiet", action="store_true", help="no progress bar (none is shown unless stderr is a terminal)")
    sim.set_defaults(func=cmd_simulate)
    ls = sub.add_parser("lsp", help="serve an editor over the Language Server Protocol on stdin and stdout: "
                                    "diagnostics as you type, hover, go to definition, completion (needs the "
                                    "`editor` extra)")
    ls.set_defaults(func=cmd_lsp)
    return p


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    # A game's objects are made once and kept until the command ends, in no cycles worth collecting: the cycle
    # collector, run every 700 new objects, walked all of them each time it reached the oldest generation.
    # Paused, Warlord's 100-player game (31,680 sectors, 5,000 units) is made in 0.53 s instead of 1.02 s and
    # a turn run in 0.79 s instead of 1.01 s (benchmarks/bench_turn.py).
    paused = args.func in (cmd_new, cmd_turn) and gc.isenabled()
    if paused:
        gc.disable()
    try:
        result: int = args.func(args)
        return result
    except GameError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    except CompileError as e:
        print(render_text(e.diagnostics, e.sources), file=sys.stderr)
        return 1
    except OSError as e:
        where = f"{e.filename}: " if e.filename else ""
        print(f"error: {where}{e.strerror or e}", file=sys.stderr)
        return 2
    except Exception as e:
        # Never the user's fault and never a bare traceback: say it is our bug and how to report it.
        print(f"rulesdsl {__version__}: internal error ({type(e).__name__}: {e}).\n"
              "This is a bug in rulesdsl, not a mistake in your files; please report it with the files "
              f"you gave. Set {_TRACEBACK}=1 to see where it happened.", file=sys.stderr)
        if os.environ.get(_TRACEBACK):
            traceback.print_exc()
        return 70
    finally:
        if paused:
            gc.enable()
