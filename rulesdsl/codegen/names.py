"""Rules names -> Python names: the one mangling scheme of the code generator, injective by construction.

A ruleset's names become Python identifiers in the generated module. Two different rules names must never
become the same Python name (a phase `a` with `when` and a phase `a_when` once both made `phase_a_when`, so
one ran twice), and no rules name may become a name the module or the runtime already uses (a thing named
`None` or `FieldSpec`, a field named `TYPE`). Why no two names collide:

1. Families. Every generated name belongs to one family, told apart by how it starts:

   - module level, lower-case prefixes: `fn_` functions, `proc_` procedures, `tbl_` tables, `ratio_` a range
     table's function of its key's numerator and denominator, `rows_` the rows of an exact table built once
     at import, `order_` orders' functions, `phase_` phases and their `when`, `victory_` victories' `when`
     and `warn`, `group_` order groups, `thing_` things whose name does not start with a capital, `sim_` the
     `simulation` block's choices, invariants and `unless` conditions;
   - module level, a capital first: things whose name starts with a capital (`Country`);
   - function level: `v_` locals (parameters, `let`, `for`, an order's arguments, a victory's variable),
     `at_` the value a per-key value stores for a loop's item, named after the item's local, and `res_`
     the value of a call a function's body makes more than once (`res__NAME_N` as `v__`);
   - attribute level (a different namespace: after a dot, or in `__slots__`): fields.

   The prefixes are prefix-free (none is the start of another), so `p + x == q + y` for two prefixes forces
   `p == q` and `x == y`. `PREFIXES` lists them and `_check_families` asserts it at import, together with:
   no name the module uses of its own (`FIXED`: the runtime's exports, the builtins the generated code
   calls, `g`, `me`, `o`, `rng`, `k0`..., `report_data`, `LINE_MAP`...) starts with a prefix, and no
   prefix starts with a capital. So names of two families never meet, nor meet a fixed name.

2. Inside a family, the part after the prefix is injective:

   - one name per declaration (`fn_`, `proc_`, `tbl_`, `rows_`, `group_`, `thing_`, `v_`): the name itself;
     but a local that an enclosing block of the same function binds too is `v__NAME_N` (N >= 2, how many
     bind it there and around it): no rules name starts with `_`, so `v__` starts no other local, and N is
     read back from the end;
   - several functions per declaration (`order_NAME_PART`, `victory_NAME_PART`): PART comes from a fixed
     set in which no part ends with `_` + another part (asserted), so the part, then the name, is read
     back from the end;
   - a phase is `phase_NAME` and its `when` is `phase_NAME_when`: here one of the two has no part, so the
     name is escaped first (below), so that an escaped name never ends with `_when`;
   - capitalised things and fields keep their name, escaped (below) when it is one the module or the
     runtime reserves (`None`, `Player`, `FieldSpec`; `class`, `TYPE`).

3. Escaping is "one more `_` when the name ends with `_`, or is reserved, or ends with a suffix the scheme
   adds". An escaped name always ends with `_`, an unescaped one never does, so two different names stay
   different: both unescaped or both escaped, they differ as before; one of each, they differ in their
   last character. An escaped name is never reserved (no reserved name ends with `_`).

What the mangling cannot make safe is refused by the checker (E0202): a name that starts with `_` (the
runtime's `_key` and `_ord`, Python's `__init__`, `__slots__`, `__class__`, and the private-name mangling
of `__x` inside a class). Everything else a designer writes is a valid rules name and compiles.

The families are fixed here, not read from `keyword` or `builtins`: the same ruleset must give the same
module on every Python version.
"""

from __future__ import annotations

from rulesdsl.runtime import exported

# Python's keywords (3.11) and soft keywords (up to 3.12's `type`): they cannot follow a dot. A fixed
# list, so that a new Python does not change the generated text of a ruleset.
KEYWORDS = frozenset({
    "False", "None", "True", "and", "as", "assert", "async", "await", "break", "class", "continue", "def", "del",
    "elif", "else", "except", "finally", "for", "from", "global", "if", "import", "in", "is", "lambda",
    "nonlocal", "not", "or", "pass", "raise", "return", "try", "while", "with", "yield", "case", "match", "type",
})

# Attributes the runtime's Thing, PlayerBase and WorldBase classes define besides `_`-names: a field of that
# name would replace them. PlayerBase's built-in fields are not here: the checker refuses a player field
# that repeats one, and a thing or the world has none of them.
CLASS_ATTRS = frozenset({"TYPE"})

# Module-level names of the generated module that start with a capital: the runtime's classes (read from
# its exports, so a new export is reserved the day it is added), the classes the module defines itself,
# its constants, and Python's constants.
CAPITALISED = frozenset(n for n in exported if n[:1].isupper()) | frozenset({
    "Player", "World", "None", "True", "False", "LINE_MAP", "RULE_MAP", "RULESET",
})

# Every name the generated module uses of its own, whatever the ruleset: none of them may start with a
# family's prefix (checked below). Builtins are those the generated code calls.
FIXED = CAPITALISED | exported | frozenset({
    "abs", "all", "any", "len", "list", "max", "min", "range", "sorted", "sum",
    "_",  # a `while` loop's round, never read
    "g", "me", "o", "rng", "out", "report_data", "_ruleset", "line_map", "rule_map", "num", "den",
    "__slots__", "TYPE",  # in the body of each class, their own namespace
}) | frozenset(f"k{i}" for i in range(10))

PREFIXES = ("v_", "at_", "res_", "fn_", "proc_", "tbl_", "ratio_", "rows_", "order_", "phase_", "victory_", "group_",
            "thing_", "sim_")
ORDER_PARTS = ("valid", "require", "cost", "effect", "ends_turn", "until", "default")
VICTORY_PARTS = ("when", "warn")


def _escape(name: str, reserved: frozenset[str] = frozenset(), suffixes: tuple[str, ...] = ()) -> str:
    """One more `_` for a name that ends with `_`, is reserved, or ends with `_` + a suffix (see 3. above)."""
    if name.endswith("_") or name in reserved or any(name.endswith("_" + s) for s in suffixes):
        return name + "_"
    return name


def local(name: str, depth: int = 1) -> str:
    """A local's Python name: `v_NAME`; a local bound in a block that an enclosing block of the same function
    binds too is `v__NAME_2`, `v__NAME_3`... by how many bind it around it (Python has no block scope, so the
    inner one would overwrite the outer)."""
    assert depth >= 1, depth
    return f"v_{name}" if depth == 1 else f"v__{name}_{depth}"


def stored_value(local_name: str) -> str:
    """The value a per-key value stores for a loop's item, bound beside it (`for v_p, at_p in ...`): `at_` and
    what follows `v_` in the item's Python name, so that it is as distinct as that name is."""
    assert local_name.startswith("v_"), local_name
    return f"at_{local_name[2:]}"


def held_call(function: str, n: int) -> str:
    """The local that holds the value of a call a function's body makes more than once: `res_NAME` for the first
    such call of function NAME, `res__NAME_N` for the N-th (N >= 2) with other arguments."""
    return f"res_{function}" if n == 1 else f"res__{function}_{n}"


def attr(name: str) -> str:
    """A field's Python attribute."""
    return _escape(name, KEYWORDS | CLASS_ATTRS)


def thing(name: str) -> str:
    """A thing's Python class: its own name when that starts with a capital, readable in the module."""
    if name[:1].isascii() and name[:1].isupper():
        return _escape(name, CAPITALISED)
    return f"thing_{name}"


def function(name: str) -> str:
    return f"fn_{name}"


def procedure(name: str) -> str:
    return f"proc_{name}"


def table(name: str) -> str:
    return f"tbl_{name}"


def table_ratio(name: str) -> str:
    """A range table's function of its key's numerator and denominator, where it compares them in whole numbers."""
    return f"ratio_{name}"


def table_rows(name: str) -> str:
    """The module constant that holds an exact table's rows."""
    return f"rows_{name}"


def order(name: str, part: str) -> str:
    assert part in ORDER_PARTS, part
    return f"order_{name}_{part}"


def phase(name: str) -> str:
    return f"phase_{_escape(name, suffixes=('when',))}"


def phase_when(name: str) -> str:
    return f"{phase(name)}_when"


def victory(name: str, part: str) -> str:
    assert part in VICTORY_PARTS, part
    return f"victory_{name}_{part}"


def group(name: str) -> str:
    return f"group_{name}"


# The `simulation` block's functions: `sim_choice_N` and `sim_unless_N` by their place among the block's choices
# and hidden facts (an order and argument, or a field, would not be read back unambiguously from one name), and
# `sim_invariant_NAME`, invariants' names being unique. No part is the start of another.
def sim_choice(n: int) -> str:
    return f"sim_choice_{n}"


def sim_invariant(name: str) -> str:
    return f"sim_invariant_{name}"


def sim_unless(n: int) -> str:
    return f"sim_unless_{n}"


def _check_families() -> None:
    for p in PREFIXES:
        assert p.endswith("_") and p[0].islower(), p
        assert not any(q != p and q.startswith(p) for q in PREFIXES), f"{p} starts another prefix"
        assert not any(f.startswith(p) for f in FIXED), f"a fixed name starts with {p}"
    for parts in (ORDER_PARTS, VICTORY_PARTS):
        assert not any(a != b and a.endswith("_" + b) for a in parts for b in parts), parts
    assert not any(r.endswith("_") for r in KEYWORDS | CLASS_ATTRS | CAPITALISED)


_check_families()
