"""`.rules` file path -> checked program, generated Python text, or a loaded module (cached by content hash)."""

from __future__ import annotations

import contextlib
import hashlib
import importlib.util
import marshal
import os
import re
import sys
from dataclasses import dataclass, field
from functools import cache
from pathlib import Path, PurePosixPath
from types import CodeType, ModuleType
from typing import TYPE_CHECKING

from rulesdsl import __version__
from rulesdsl.diagnostics import CompileError, Diagnostic
from rulesdsl.source import Source, Span, base_path, plain_file_name

if TYPE_CHECKING:
    import jinja2

    from rulesdsl.checker.env import Env
    from rulesdsl.ir import Program
    from rulesdsl.nodes import Module
    from rulesdsl.runtime.spec import RulesetSpec

# The parser, the checker and the code generator (with Lark and jsonschema) are imported where a ruleset is
# compiled, not here: a turn whose compiled module is cached uses none of them, and importing them was most
# of a turn's time.


@dataclass
class Checked:
    program: Program | None
    diagnostics: list[Diagnostic]
    sources: dict[str, Source]
    module: Module | None = None  # the AST, when the file parsed (a variant's own, as written)
    env: Env | None = None  # the checker's names, when the file was checked
    # Each source's file, by its display name: a variant's bases and templates live in other folders.
    files: dict[str, Path] = field(default_factory=dict)

    @property
    def ok(self) -> bool:
        return self.program is not None and not any(d.severity == "error" for d in self.diagnostics)


def read_source(path: Path, display: str) -> tuple[Source, Diagnostic | None]:
    """A source file; bytes that are not UTF-8 become a diagnostic at their place, not a traceback."""
    data = path.read_bytes()
    try:
        return Source(display, data.decode("utf-8")), None
    except UnicodeDecodeError as e:
        text = data.decode("utf-8", errors="replace")
        src = Source(display, text)
        line = data[:e.start].count(b"\n") + 1
        col = e.start - (data.rfind(b"\n", 0, e.start) + 1) + 1
        return src, Diagnostic(Span(display, line, col, line, col + 1), "E0001",
                               f"this file is not UTF-8 text (byte 0x{data[e.start]:02x})",
                               help="save the file as UTF-8")


def _templates_beside(folders: list[Path], sources: dict[str, Source], problems: list[Diagnostic],
                      files: dict[str, Path]) -> object:
    """Templates are found beside the ruleset, then (a variant's) beside each of its bases in turn."""
    def load(name: str) -> tuple[str, str] | None:
        if not plain_file_name(name):
            return None  # never read a file outside the ruleset's folder (the checker says E0510)
        candidate = next((f / name for f in folders if (f / name).is_file()), None)
        if candidate is None:
            return None
        files[name] = candidate
        src, problem = read_source(candidate, name)
        if problem is not None:
            problems.append(problem)
        sources[name] = src
        return name, src.text
    return load


@cache
def compiler_fingerprint() -> str:
    """A hash of this compiler's own files, by name, size and time of change: a changed compiler never reuses
    an old compiled module. Only a cache key, never written into an output; reading every file's bytes cost a
    turn 4 ms, and a file edited, installed or checked out anew gets a new time of change."""
    h = hashlib.sha256(__version__.encode())
    package = Path(__file__).resolve().parent
    for f in sorted(package.rglob("*")):
        if f.suffix in (".py", ".lark") and "__pycache__" not in f.parts:
            st = f.stat()
            h.update(f"{f.relative_to(package).as_posix()}:{st.st_size}:{st.st_mtime_ns};".encode())
    return h.hexdigest()


_TEMPLATE_NAME = re.compile(rb'^\s*(?:template|html)\s+"([^"]+)"', re.MULTILINE)


# Found by its word, then checked to start its line: a search anchored at every line start cost Warlord's turn
# 0.6 ms.
_EXTENDS = re.compile(rb'extends[ \t]+"([^"\n]+)"')


def _extends(text: bytes) -> str | None:
    """The base a ruleset's text names in `extends "..."`, if it has a line that starts so."""
    for m in _EXTENDS.finditer(text):
        start = text.rfind(b"\n", 0, m.start()) + 1
        if not text[start:m.start()].strip():
            return m.group(1).decode("utf-8", "replace")
    return None


def chain(path: Path) -> list[tuple[Path, bytes]]:
    """A ruleset's file and, for a variant, its bases' files in turn, each with its bytes, as far as they are
    found and make no cycle (the checker says when they do not)."""
    files = [(path, path.read_bytes())]
    while True:
        last, text = files[-1]
        name = _extends(text)
        found = base_path(last.parent, name) if name is not None else None
        if found is None or any(found.resolve() == f.resolve() for f, _ in files):
            return files
        files.append((found, found.read_bytes()))


def content_hash(path: Path) -> str:
    """The hash of a ruleset and the templates it names (a variant's: and its bases and theirs): what a game's
    state records. A ruleset that extends nothing hashes as before variants existed."""
    h = hashlib.sha256()
    files = chain(path)
    h.update(files[0][1])
    for name in sorted({name for _, text in files for name in _TEMPLATE_NAME.findall(text)}):
        decoded = name.decode("utf-8", "replace")
        # Only the files a game copies count: a file outside the folder is never read (the checker says E0510).
        if not plain_file_name(decoded):
            continue
        template = next((f.parent / decoded for f, _ in files if (f.parent / decoded).is_file()), None)
        if template is not None:
            h.update(name)
            h.update(template.read_bytes())
    for f, text in files[1:]:
        h.update(f"\0{f.name}\0".encode())
        h.update(text)
    return h.hexdigest()


# The last few checks by file, display name and content hash (which covers the file, its templates and a variant's
# bases): `rulesdsl new` checks before it copies, and a process that starts many games of one ruleset (a GM's
# tools, the golden tests) should not check the same unchanged rules each time. Callers never change a Checked.
_CHECKED: dict[tuple[str, str, str], Checked] = {}
_CHECKED_MAX = 8


def check_path(path: Path, display: str | None = None) -> Checked:
    source, problem = read_source(path, display or path.name)
    if problem is not None:
        return Checked(None, [problem], {source.name: source})
    digest = content_hash(path)
    key = (str(path.resolve()), source.name, digest)
    checked = _CHECKED.get(key)
    if checked is None:
        checked = check_source(source, path.parent, digest, path=path)
        if len(_CHECKED) >= _CHECKED_MAX:
            del _CHECKED[next(iter(_CHECKED))]
        _CHECKED[key] = checked
    return checked


def check_source(source: Source, folder: Path, source_hash: str, *, keep_names: bool = False,
                 path: Path | None = None) -> Checked:
    """`source` checked as if it were a file in `folder` (where its templates are read): `check_path` on a
    file, and the language server on an editor's text, which may differ from what is saved. With
    `keep_names`, the result keeps the checker's names (`env`), which hover and completion read."""
    from rulesdsl import checker, variants
    from rulesdsl.parser import parse

    sources = {source.name: source}
    # A variant's bases are found from the file it is (or, in an editor, will be saved as).
    path = path or folder / PurePosixPath(source.name).name
    files = {source.name: path}
    module, diags = parse(source)
    if module is None or any(d.severity == "error" for d in diags):
        return Checked(None, diags, sources, module, files=files)
    own = module
    folders = [folder]
    if variants.is_variant(module):
        loaded = variants.load(path, source, module, read_source, parse)
        sources, files, folders = loaded.sources, loaded.files, loaded.folders
        diags = [*diags, *loaded.diagnostics]
        if loaded.module is None:
            return Checked(None, _in_order(diags, list(sources)), sources, own, files=files)
        module = loaded.module
    rules = list(files)
    problems: list[Diagnostic] = []
    loader = _templates_beside(folders, sources, problems, files)
    env = None
    if keep_names:
        c = checker.checking(module, source_hash, loader)  # type: ignore[arg-type]
        program, bag, env = c.program, c.env.diags, c.env
    else:
        program, bag = checker.check(module, source_hash, loader)  # type: ignore[arg-type]
    return Checked(program, _in_order([*diags, *problems, *bag.sorted()], rules), sources, own, env, files)


def _in_order(diags: list[Diagnostic], rules: list[str]) -> list[Diagnostic]:
    """The ruleset's own diagnostics come first, then (a variant's) its bases' in the chain's order, then the
    templates', each file's in the order of its lines."""
    def rank(d: Diagnostic) -> int:
        return rules.index(d.span.file) if d.span.file in rules else len(rules)
    return sorted(diags, key=lambda d: (rank(d), d.sort_key(), d.message))


def compile_path(path: Path, trace: bool = False) -> str:
    """The generated module's text (with `trace`, the traced build's); raises CompileError with every diagnostic."""
    from rulesdsl.codegen.emit import generate

    checked = check_path(path)
    if not checked.ok or checked.program is None:
        raise CompileError([d for d in checked.diagnostics if d.severity == "error"], checked.sources)
    return generate(checked.program, trace)


def cache_dir() -> Path:
    env = os.environ.get("RULESDSL_CACHE")
    if env:
        return Path(env)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "rulesdsl"


def load_module(path: Path, cache: Path | None = None, traced: bool = False) -> tuple[ModuleType, RulesetSpec]:
    """Imports the compiled ruleset, compiling only when its content hash is not cached yet. `traced`: its
    traced build (`rulesdsl turn --trace`), cached beside the normal one under a key of its own."""
    cache = cache or cache_dir()
    # The compiler is part of the key: a changed compiler never reuses an old compiled module.
    digest = hashlib.sha256(f"{content_hash(path)}/{compiler_fingerprint()}".encode()).hexdigest()
    target = cache / f"{path.stem}_{digest[:24]}{'_traced' if traced else ''}.py"
    if not target.is_file():
        text = compile_path(path, traced)
        cache.mkdir(parents=True, exist_ok=True)
        tmp = target.with_suffix(f".tmp{os.getpid()}")
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, target)
    return import_generated(target)


def import_generated(target: Path) -> tuple[ModuleType, RulesetSpec]:
    name = f"rulesdsl_generated_{target.stem}"
    if name in sys.modules:
        mod = sys.modules[name]
    else:
        spec = importlib.util.spec_from_file_location(name, target)
        assert spec is not None and spec.loader is not None
        mod = importlib.util.module_from_spec(spec)
        sys.modules[name] = mod
        spec.loader.exec_module(mod)
    ruleset: RulesetSpec = mod.RULESET
    return mod, ruleset


@cache
def load_template(spec: RulesetSpec) -> jinja2.Template:
    """The ruleset's report template, compiled by Jinja to Python once and kept in the cache beside the
    compiled modules: a turn reads that instead of compiling the template again. The code is always run by
    the sandboxed environment of template_env, as from_string would run it."""
    from rulesdsl.runtime.report import template_env

    return _cached_template(template_env(), spec.template, "text")


@cache
def load_html_template(spec: RulesetSpec) -> jinja2.Template:
    """The ruleset's HTML template (its report block's `html`), cached as load_template caches the text one,
    and run by runtime/html.py's environment (autoescape on)."""
    from rulesdsl.runtime.html import html_env

    return _cached_template(html_env(), spec.html, "html")


def _cached_template(env: jinja2.Environment, text: str, kind: str) -> jinja2.Template:
    """`text` as a template of `env`, its code read from the cache when made before. The key holds all that
    makes the code: the template, which environment (`kind`), Jinja's version and the compiler's own files
    (which hold the environments' settings)."""
    import jinja2

    key = f"{jinja2.__version__}/{compiler_fingerprint()}/{kind}/{text}"
    target = cache_dir() / f"template_{hashlib.sha256(key.encode()).hexdigest()[:24]}.py"
    try:
        code = _template_code(target, target.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, SyntaxError, ValueError):
        # Not cached yet, or a cache file spoilt outside rulesdsl (never half-written by it): compile again.
        source = env.compile(text, raw=True)
        _write_cache(target, source.encode("utf-8"))
        code = _template_code(target, source)
    return env.template_class.from_code(env, code, env.make_globals(None))


def _template_code(target: Path, source: str) -> CodeType:
    """The template's Python code as a code object: read from `target`'s .code file (marshal, as a .pyc) when
    that was made from this very source by this Python, else compiled and written there; compiling it each
    turn cost 3 ms."""
    stamp = importlib.util.MAGIC_NUMBER + hashlib.sha256(source.encode("utf-8")).digest()
    marshalled = target.with_suffix(".code")
    with contextlib.suppress(OSError, EOFError, ValueError, TypeError):
        data = marshalled.read_bytes()
        if data.startswith(stamp):
            code = marshal.loads(data[len(stamp):])
            if isinstance(code, CodeType):
                return code
    # "<template>" is the file name from_string gives the code: errors read the same either way.
    code = compile(source, "<template>", "exec")
    _write_cache(marshalled, stamp + marshal.dumps(code))
    return code


def _write_cache(target: Path, data: bytes) -> None:
    """Writes a cache file whole or not at all; a cache that cannot be written only costs the next turn time."""
    tmp = target.with_suffix(f".tmp{os.getpid()}")
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        tmp.write_bytes(data)
        os.replace(tmp, target)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink()
