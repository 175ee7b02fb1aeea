"""Database helpers the ORM lacks."""

import functools
import threading
from collections.abc import Sequence

from django.db import connections, router
from django.db.models import Model
from django.db.models.fields import AutoFieldMixin


def bulk_update(
    objs: Sequence[Model],
    fields: Sequence[str],
    *,
    append: dict[str, Sequence[list]] | None = None,
) -> None:
    """Store `fields` of many rows of one model in one statement.

    Django's `QuerySet.bulk_update` builds a CASE WHEN per row and field, which costs
    more Python time than the engine spends on a whole match when a tournament round
    stores fifty of them. On PostgreSQL this sends `UPDATE ... FROM (VALUES ...)`
    instead; elsewhere it is Django's.

    `append` maps a JSON list field to one list per row, added to the end of what the row
    holds, in the database: a match's growing move log is never sent back whole, nor read
    to be extended. The caller holds the rows' locks.
    """
    if not objs:
        return
    if len({obj.pk for obj in objs}) != len(objs):
        raise ValueError("bulk_update got the same row twice; which one wins is undefined")
    append = append or {}
    model = type(objs[0])
    connection = connections[router.db_for_write(model)]
    if connection.vendor != "postgresql":
        _append_in_python(model, objs, append)
        model.objects.bulk_update(objs, [*fields, *append])
        return
    columns, row, head = _update_statement(model, tuple(fields), tuple(append), connection.alias)
    params = []
    for position, obj in enumerate(objs):
        params.append(columns[0].get_db_prep_value(obj.pk, connection))
        for column in columns[1:]:
            value = (
                append[column.name][position]
                if column.name in append
                else getattr(obj, column.attname)
            )
            params.append(column.get_db_prep_save(value, connection))
    sql = head.format(values=", ".join([row] * len(objs)))
    with _server_binding_cursor(connection, len(params)) as cursor:
        cursor.execute(sql, params)


def bulk_insert(objs: Sequence[Model]) -> None:
    """Insert new rows of one model in one statement, and give each object its id.

    Django's `bulk_create` builds a placeholder and prepares each value through the
    compiler, then psycopg parses the long statement again on the client: for the 128
    matches a tournament batch starts, with their JSON columns, about a quarter of a
    millisecond per match, more than the rest of creating it. On PostgreSQL this sends a
    statement worked out once per model, with the values bound; elsewhere it is Django's.
    """
    if not objs:
        return
    model = type(objs[0])
    connection = connections[router.db_for_write(model)]
    if connection.vendor != "postgresql":
        model.objects.bulk_create(objs)
        return
    fields, head, row, tail = _insert_statement(model, connection.alias)
    rows_at_once = MAX_BOUND_PARAMS // len(fields)
    for start in range(0, len(objs), rows_at_once):
        chunk = objs[start : start + rows_at_once]
        params = []
        for obj in chunk:
            obj._prepare_related_fields_for_save(operation_name="bulk_insert")
            params += [f.get_db_prep_save(f.pre_save(obj, True), connection) for f in fields]
        with _server_binding_cursor(connection, len(params)) as cursor:
            cursor.execute(head + ", ".join([row] * len(chunk)) + tail, params)
            ids = [pk for (pk,) in cursor.fetchall()]
        for obj, pk in zip(chunk, ids, strict=True):
            obj.pk = pk
            obj._state.adding, obj._state.db = False, connection.alias


@functools.lru_cache(maxsize=64)
def _insert_statement(model, alias: str) -> tuple:
    """`bulk_insert`'s statement for a model with a database-made id, once per process."""
    connection = connections[alias]
    meta = model._meta
    if not isinstance(meta.pk, AutoFieldMixin):
        raise TypeError(f"bulk_insert needs an id the database makes; {model.__name__} has none")
    fields = [field for field in meta.concrete_fields if field is not meta.pk]
    quote = connection.ops.quote_name
    names = ", ".join(quote(field.column) for field in fields)
    return (
        fields,
        f"INSERT INTO {quote(meta.db_table)} ({names}) VALUES ",
        "(" + ", ".join(f"%s::{field.cast_db_type(connection)}" for field in fields) + ")",
        f" RETURNING {quote(meta.pk.column)}",
    )


@functools.lru_cache(maxsize=256)
def _update_statement(model, fields: tuple, append: tuple, alias: str) -> tuple:
    """`bulk_update`'s statement for these fields, once per process: working out each
    column's cast cost more CPU than the UPDATE of one live-table move."""
    connection = connections[alias]
    meta = model._meta
    columns = [meta.pk, *(meta.get_field(name) for name in [*fields, *append])]
    cast = [f"%s::{column.cast_db_type(connection)}" for column in columns]
    row = f"({', '.join(cast)})"
    quote = connection.ops.quote_name
    assignments = ", ".join(
        f"{quote(c.column)} = {_appended(c, connection)}"
        if c.name in append
        else f"{quote(c.column)} = v.{quote(c.column)}"
        for c in columns[1:]
    )
    names = ", ".join(quote(c.column) for c in columns)
    pk = quote(meta.pk.column)
    head = (
        f"UPDATE {quote(meta.db_table)} AS t SET {assignments} "
        f"FROM (VALUES {{values}}) AS v({names}) WHERE t.{pk} = v.{pk}"
    )
    return columns, row, head


def _appended(field, connection) -> str:
    """SQL for the stored JSON list `t.<column>` followed by the list `v.<column>`: jsonb's
    `||`, or for compact JSON text (no spaces, as `JSONTextField` writes it) the two texts
    spliced, so the stored text is neither parsed nor sent back."""
    column = connection.ops.quote_name(field.column)
    old, new = f"t.{column}", f"v.{column}"
    if field.db_type(connection) == "jsonb":
        return f"{old} || {new}"
    return (
        f"CASE WHEN {new} = '[]' THEN {old} WHEN {old} = '[]' THEN {new}"
        f" ELSE left({old}, -1) || ',' || substr({new}, 2) END"
    )


def _append_in_python(model: type[Model], objs: Sequence[Model], append: dict) -> None:
    """`append` where the database has no `||` for JSON: read, extend, store the whole."""
    for name, additions in append.items():
        stored = dict(model.objects.filter(pk__in=[o.pk for o in objs]).values_list("pk", name))
        for obj, added in zip(objs, additions, strict=True):
            setattr(obj, name, [*stored[obj.pk], *added])


# The most parameters one statement can bind (the protocol counts them in 16 bits).
MAX_BOUND_PARAMS = 65535


def _server_binding_cursor(connection, params: int):
    """A cursor that sends the values apart from the statement (PostgreSQL's extended
    protocol), or Django's usual one, which quotes them into its text, for more values
    than a statement can bind.

    Django binds on the client: a bot round's move logs and engine states (about 14 kB a
    match, bytes doubled as hex) were escaped in Python and lexed again by PostgreSQL, and
    a 128-match store took half as long again as with the values bound (a measured 40-56
    ms against 76-101). The statement casts every value, so nothing is left to infer. The
    cursor is wrapped as Django wraps its own: errors, the transaction and the query log
    work as for any other statement.
    """
    if params > MAX_BOUND_PARAMS or connection.features.uses_server_side_binding:
        return connection.cursor()
    from django.db.backends.postgresql.base import ServerBindingCursor

    connection.ensure_connection()
    connection.validate_thread_sharing()
    raw = ServerBindingCursor(connection.connection)
    if connection.queries_logged:
        return connection.make_debug_cursor(raw)
    return connection.make_cursor(raw)


class JoinedRead:
    """A `select_related` read of `model` and some of its foreign keys whose statement is
    built once per process from the models' fields; each call only binds its parameters.

    Django compiles a queryset's SQL again on every evaluation: for the live table's read
    of a match with its seats and players (three wide tables) that compiling cost some 2 ms
    of CPU, several times the statement's own round trip, on every move and every view
    pushed. Rows become instances through `Model.from_db` and the fields' own converters
    (as a queryset's do), each relation cached on its row as `select_related` caches it;
    rows that share a related row share its instance.

    `where` and `order_by` are SQL in which `{self}` and each relation's name stand for its
    table's alias; `defer` leaves columns of a relation unread (loaded on first access, as
    `QuerySet.defer`); `lock_of` names the relations whose rows `for_update` locks.
    """

    def __init__(
        self,
        model: type[Model],
        related: Sequence[str],
        *,
        where: str,
        order_by: str,
        defer: dict[str, Sequence[str]] | None = None,
        lock_of: Sequence[str] = (),
    ) -> None:
        self.model = model
        self.related = list(related)
        self.where = where
        self.order_by = order_by
        self.defer = {name: set(fields) for name, fields in (defer or {}).items()}
        self.lock_of = list(lock_of)
        self._built: dict[str, tuple] = {}
        self._lock = threading.Lock()

    def __call__(self, params: Sequence, *, for_update: bool = False, using: str | None = None):
        """The rows of `model` with their relations, as a list."""
        alias = using or router.db_for_read(self.model)
        connection = connections[alias]
        sql, lock_sql, parts = self._build(connection)
        with connection.cursor() as cursor:
            cursor.execute(lock_sql if for_update else sql, params)
            rows = cursor.fetchall()
        out = []
        seen: dict[tuple[str, object], Model] = {}  # one instance per related row
        for row in rows:
            base = parts[0].instance(row, alias, connection)
            for name, part in zip(self.related, parts[1:], strict=True):
                field = self.model._meta.get_field(name)
                key = (name, getattr(base, field.attname))
                if key not in seen:
                    seen[key] = part.instance(row, alias, connection)
                field.set_cached_value(base, seen[key])
            out.append(base)
        return out

    def _build(self, connection) -> tuple:
        with self._lock:
            if connection.alias not in self._built:
                self._built[connection.alias] = self._statement(connection)
            return self._built[connection.alias]

    def _statement(self, connection) -> tuple:
        quote = connection.ops.quote_name
        meta = self.model._meta
        aliases = {"self": "j0", **{name: f"j{n}" for n, name in enumerate(self.related, 1)}}
        parts, start = [], 0
        models = [("self", self.model)] + [
            (name, meta.get_field(name).related_model) for name in self.related
        ]
        for name, model in models:
            part = _Columns(model, aliases[name], self.defer.get(name, set()), start, connection)
            parts.append(part)
            start += len(part.fields)
        joins = [f"{quote(meta.db_table)} {aliases['self']}"]
        for name in self.related:
            field = meta.get_field(name)
            target = field.related_model._meta
            joins.append(
                f"JOIN {quote(target.db_table)} {aliases[name]} ON {aliases[name]}."
                f"{quote(field.target_field.column)} = {aliases['self']}.{quote(field.column)}"
            )
        columns = ", ".join(column for part in parts for column in part.columns)
        sql = (
            f"SELECT {columns} FROM {' '.join(joins)} WHERE {self.where.format(**aliases)}"
            f" ORDER BY {self.order_by.format(**aliases)}"
        )
        locked = ", ".join(aliases[name] for name in self.lock_of) or aliases["self"]
        return sql, f"{sql} FOR UPDATE OF {locked}", parts


class _Columns:
    """One table's share of a `JoinedRead` row: its columns, and how to make an instance."""

    def __init__(self, model: type[Model], alias: str, defer: set[str], start: int, connection):
        self.model = model
        self.fields = [
            field
            for field in model._meta.concrete_fields
            if field.name not in defer or field.primary_key
        ]
        self.names = [field.attname for field in self.fields]
        self.start = start
        quote = connection.ops.quote_name
        self.columns = [f"{alias}.{quote(field.column)}" for field in self.fields]
        self.converters = []
        for position, field in enumerate(self.fields):
            column = field.get_col(alias)
            found = connection.ops.get_db_converters(column) + column.get_db_converters(connection)
            if found:
                self.converters.append((position, column, found))

    def instance(self, row: tuple, alias: str, connection) -> Model:
        values = list(row[self.start : self.start + len(self.fields)])
        for position, column, converters in self.converters:
            for convert in converters:
                values[position] = convert(values[position], column, connection)
        return self.model.from_db(alias, self.names, values)
