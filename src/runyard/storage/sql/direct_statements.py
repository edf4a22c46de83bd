"""Statements of the store's parts executed straight on the driver: SQLAlchemy compiles, the
driver runs.

Through ``AsyncConnection.execute`` a statement cost 100 to 250 µs of CPU above what the database
took to run it (a greenlet per call, an execution context, the async adapter's cursor, result
metadata), whatever the statement, and a run makes dozens (docs/benchmarks.md, "Service race").
Here the parts' statements are still SQLAlchemy Core, compiled by the engine's dialect once per
shape (its cache key) into the SQL text, the order of its parameters and the types' converters
(``Statements``); each execution fills in the parameters (``Statements.bind``), the driver runs
the SQL (``sqlite_statements``, ``postgres_statements``) and the rows are converted as
SQLAlchemy would (``DirectResult``). What SQLAlchemy's execution adds that the parts do not use
(column defaults computed in Python, ``insertmanyvalues`` batches, ORM events) is refused here,
not silently skipped.
"""

from __future__ import annotations

from collections import namedtuple
from collections.abc import Callable, Iterator, Mapping, MutableMapping, Sequence
from dataclasses import dataclass
from typing import Any, TypeVar, cast
from weakref import WeakKeyDictionary

from sqlalchemy.engine import Dialect
from sqlalchemy.exc import InvalidRequestError, MultipleResultsFound, NoResultFound
from sqlalchemy.sql.base import Executable
from sqlalchemy.sql.compiler import SQLCompiler
from sqlalchemy.sql.elements import ClauseElement

__all__ = ["Bound", "DirectConnection", "DirectResult", "Statements", "prepared", "statements"]

_CACHE_LIMIT = 1000
"""Compiled shapes kept per dialect; the parts have a few hundred, so the limit only guards
against a statement that embeds its values (no cache key), which is compiled every time."""

_Convert = Callable[[Any], Any] | None
_Bind = tuple[str, _Convert]
_Fill = tuple[str, str, Any]
"""A parameter of a prepared statement filled straight from the values: its name in the SQL, its
key in the values, its value when the values lack it (``_REQUIRED``: none)."""

_REQUIRED = object()


@dataclass(frozen=True, slots=True)
class _Compiled:
    compiled: SQLCompiler
    sql: str
    binds: tuple[_Bind, ...]
    """Each positional parameter's name and its type's converter (None: as it is)."""
    expands: bool
    """``IN`` lists and other parameters rendered at execution: the SQL depends on the values."""
    expanding: tuple[str, ...]
    """The names of the parameters ``expands`` renders (``IN`` lists)."""
    expansions: dict[tuple[int, ...], tuple[str, tuple[_Bind, ...], dict[str, list[str]]]]
    """The SQL, parameters and each list's expanded names of ``expanding``'s list lengths."""
    row: type[tuple[Any, ...]] | None
    """The rows' type (fields named as SQLAlchemy names them), None when SQLAlchemy knows no
    columns (no result, or textual SQL)."""
    converts: tuple[_Convert, ...]
    fills: tuple[_Fill, ...] | None
    """How a prepared statement's parameters fill from the values alone; None when one needs
    SQLAlchemy (a value computed by a callable)."""


def _row_type(names: Sequence[str]) -> type[tuple[Any, ...]]:
    # rename: two columns of one name (or a name namedtuple refuses) get positional names.
    return namedtuple("Row", names, rename=True)


def _compile(dialect: Dialect, statement: ClauseElement, keys: list[str], many: bool) -> _Compiled:
    key = statement._generate_cache_key()
    compiled: SQLCompiler = dialect.statement_compiler(
        dialect, statement, cache_key=key, column_keys=keys, for_executemany=many
    )
    if compiled.insert_prefetch or compiled.update_prefetch:
        raise InvalidRequestError("column defaults computed in Python are not supported here")
    processors = compiled._bind_processors
    binds = _binds(compiled.positiontup, processors)
    columns = compiled._result_columns
    row = _row_type([c.keyname for c in columns]) if columns else None
    converts = tuple(c.type._cached_result_processor(dialect, None) for c in columns)
    expands = bool(compiled.literal_execute_params or compiled.post_compile_params)
    expanding = tuple(compiled.bind_names[p] for p in compiled.post_compile_params)
    cached = not compiled.literal_execute_params  # those render values, not just their count
    fills = _fills(compiled)
    return _Compiled(
        compiled,
        compiled.string,
        binds,
        expands,
        expanding if cached else (),
        {},
        row,
        converts,
        fills,
    )


def _fills(compiled: SQLCompiler) -> tuple[_Fill, ...] | None:
    fills: list[_Fill] = []
    for bind, name in compiled.bind_names.items():
        if bind.callable is not None:
            return None
        fills.append((name, bind.key, _REQUIRED if bind.required else bind.value))
    return tuple(fills)


def _binds(names: Sequence[str] | None, processors: Mapping[str, Any]) -> tuple[_Bind, ...]:
    return tuple((name, cast(_Convert, processors.get(name))) for name in names or ())


_Statement = TypeVar("_Statement", bound=ClauseElement)

_PREPARED: WeakKeyDictionary[ClauseElement, dict[tuple[int, tuple[str, ...], bool], _Compiled]]
_PREPARED = WeakKeyDictionary()


def prepared(statement: _Statement) -> _Statement:
    """Mark ``statement``, built once with ``bindparam``s and run many times with different
    values, as the hot statements of the parts are: its compiled shape is kept on the statement
    itself, so an execution neither builds Core objects, nor computes a cache key, nor asks
    SQLAlchemy to construct its parameters (together most of a statement's CPU on SQLite,
    docs/benchmarks.md "Service throughput"). Executed elsewhere, it is an ordinary statement."""
    _PREPARED.setdefault(statement, {})
    return statement


class Statements:
    """The compiled shapes of one dialect, by cache key."""

    def __init__(self, dialect: Dialect) -> None:
        self._dialect = dialect
        self._shapes: dict[Any, _Compiled] = {}

    def of(self, statement: ClauseElement, keys: list[str], many: bool) -> tuple[_Compiled, Any]:
        """The compiled shape of ``statement`` and the values its cache key extracted."""
        key = statement._generate_cache_key()
        if key is None:
            return _compile(self._dialect, statement, keys, many), None
        shape = (key.key, tuple(keys), many)
        found = self._shapes.get(shape)
        if found is None:
            if len(self._shapes) >= _CACHE_LIMIT:
                self._shapes.clear()
            found = self._shapes[shape] = _compile(self._dialect, statement, keys, many)
        return found, key.bindparams

    def bind(self, statement: Executable, parameters: Any) -> Bound:
        """``statement`` with ``parameters`` (a mapping, or a list of them: executemany) as the
        driver takes it: the SQL and each execution's positional values, converted."""
        assert isinstance(statement, ClauseElement)
        many_rows: list[Any] = (
            parameters if isinstance(parameters, list) else [parameters] if parameters else []
        )
        many = len(many_rows) > 1
        keys = sorted(many_rows[0]) if many_rows else []
        kept = _PREPARED.get(statement)
        shape = None if kept is None else self._prepared(statement, kept, keys, many)
        values: list[Any]
        if shape is not None and shape.fills is not None:
            values = [_filled(shape.fills, row) for row in (many_rows or [{}])]
        else:
            shape, extracted = self.of(statement, keys, many)
            values = [
                shape.compiled.construct_params(
                    row, extracted_parameters=extracted, escape_names=False, _no_postcompile=True
                )
                for row in (many_rows or [None])
            ]
        sql, binds = shape.sql, shape.binds
        if shape.expands:
            if many:
                raise InvalidRequestError("expanding parameters can't be used with executemany")
            sql, binds, expanded = _expanded(shape, values[0])
            values = [expanded]
        rows = [
            tuple(
                value[name] if convert is None else convert(value[name]) for name, convert in binds
            )
            for value in values
        ]
        return Bound(shape, sql, rows, many)

    def _prepared(
        self,
        statement: ClauseElement,
        kept: dict[tuple[int, tuple[str, ...], bool], _Compiled],
        keys: list[str],
        many: bool,
    ) -> _Compiled:
        shape = (id(self._dialect), tuple(keys), many)
        found = kept.get(shape)
        if found is None or found.compiled.dialect is not self._dialect:
            found = kept[shape] = _compile(self._dialect, statement, keys, many)
        return found


def _filled(fills: tuple[_Fill, ...], row: Mapping[str, Any]) -> dict[str, Any]:
    """The parameters ``construct_params`` would give, without its walk over the statement."""
    filled = {}
    for name, key, default in fills:
        value = row.get(key, default)
        if value is _REQUIRED:
            raise InvalidRequestError(f"A value is required for bind parameter {key!r}")
        filled[name] = value
    return filled


def _expanded(
    shape: _Compiled, value: MutableMapping[str, Any]
) -> tuple[str, tuple[_Bind, ...], Any]:
    """The SQL, parameters and values of ``shape`` with its ``IN`` lists rendered for
    ``value``. SQLAlchemy renders them anew each time (a tenth of a statement's cost); the
    rendering depends only on each list's length, so it is kept per lengths when every list
    holds single values (a list of tuples flattens: rendered each time)."""
    lists = [value[name] for name in shape.expanding]
    flat = bool(lists) and all(
        isinstance(v, list | tuple) and not any(isinstance(x, list | tuple) for x in v)
        for v in lists
    )
    lengths = tuple(len(v) for v in lists)
    found = shape.expansions.get(lengths) if flat else None
    if found is not None:
        sql, binds, expansion = found
        filled = dict(value)
        for name, names in expansion.items():
            filled.update(zip(names, value[name], strict=True))
        return sql, binds, filled
    compiled = shape.compiled
    expanded = compiled._process_parameters_for_postcompile(value)
    processors = {**compiled._bind_processors, **expanded.processors}
    binds = _binds(expanded.positiontup, processors)
    if flat:
        if len(shape.expansions) >= _CACHE_LIMIT:
            shape.expansions.clear()
        expansion = {k: list(v) for k, v in expanded.parameter_expansion.items()}
        shape.expansions[lengths] = (expanded.statement, binds, expansion)
    return expanded.statement, binds, dict(expanded.parameters)


@dataclass(frozen=True, slots=True)
class Bound:
    """One execution: its SQL, the values of each of its parameter sets, and how rows convert."""

    shape: _Compiled
    sql: str
    values: list[tuple[Any, ...]]
    many: bool

    def result(self, fetched: Sequence[Any], rowcount: int, names: Sequence[str]) -> DirectResult:
        """The rows the driver fetched as SQLAlchemy would give them (``names``: the driver's
        column names, for SQL whose columns SQLAlchemy does not know)."""
        return DirectResult(_rows(self.shape, fetched, names), rowcount)


_STATEMENTS: dict[int, Statements] = {}


def statements(dialect: Dialect) -> Statements:
    found = _STATEMENTS.get(id(dialect))
    if found is None or found._dialect is not dialect:
        found = _STATEMENTS[id(dialect)] = Statements(dialect)
    return found


def _rows(shape: _Compiled, fetched: Sequence[Any], names: Sequence[str]) -> list[Any]:
    if not fetched:
        return []
    if shape.row is None:  # textual SQL: SQLAlchemy knew no columns, the driver names them
        make = _row_type(names)._make  # type: ignore[attr-defined]
        return [make(row) for row in fetched]
    make, converts = shape.row._make, shape.converts  # type: ignore[attr-defined]
    if not any(converts):
        return [make(row) for row in fetched]
    return [
        make(
            value if convert is None else convert(value)
            for convert, value in zip(converts, row, strict=True)
        )
        for row in fetched
    ]


class DirectResult:
    """The part of SQLAlchemy's ``CursorResult`` the parts use, over rows already fetched."""

    __slots__ = ("_rows", "rowcount")

    def __init__(self, rows: list[Any], rowcount: int) -> None:
        self._rows = rows
        self.rowcount = rowcount

    def __iter__(self) -> Iterator[Any]:
        return iter(self._rows)

    def all(self) -> list[Any]:
        return list(self._rows)

    fetchall = all

    def first(self) -> Any:
        return self._rows[0] if self._rows else None

    def one_or_none(self) -> Any:
        if len(self._rows) > 1:
            raise MultipleResultsFound("Multiple rows were found when one or none was required")
        return self.first()

    def one(self) -> Any:
        if not self._rows:
            raise NoResultFound("No row was found when one was required")
        return self.one_or_none()

    def scalar(self) -> Any:
        row = self.first()
        return None if row is None else row[0]

    def scalar_one(self) -> Any:
        return self.one()[0]

    def scalar_one_or_none(self) -> Any:
        row = self.one_or_none()
        return None if row is None else row[0]

    def scalars(self) -> list[Any]:
        return [row[0] for row in self._rows]


class DirectConnection:
    """What a driver's connection inside one transaction shares, with the face of
    ``SqlConnection``: the dialect, its compiled shapes, and ``scalar``/``scalars`` over the
    driver's own ``execute``."""

    __slots__ = ("_dialect", "_statements")

    def __init__(self, dialect: Dialect) -> None:
        self._dialect = dialect
        self._statements = statements(dialect)

    @property
    def dialect(self) -> Dialect:
        return self._dialect

    async def execute(self, statement: Executable, parameters: Any = None) -> DirectResult:
        raise NotImplementedError

    async def scalar(self, statement: Executable) -> Any:
        return (await self.execute(statement)).scalar()

    async def scalars(self, statement: Executable) -> list[Any]:
        return (await self.execute(statement)).scalars()
