"""One definition per stored shape: each value type and the table that
stores it are written side by side, so these tests fail when the two
disagree on a column's name, its type as stored, or whether it may be
empty; and when the migrations disagree with the tables."""

from __future__ import annotations

import types
from datetime import datetime
from decimal import Decimal
from enum import StrEnum
from typing import Any, Union, get_args, get_origin

import pytest
import sqlalchemy as sa
from pydantic import BaseModel
from sqlmodel import SQLModel

from db.schema import Change, Offer, PriceQuote
from db.store.writes.offers import OfferPoint
from db.tables import ChangeRow, PricePoint

# (value type, table, value field -> column where renamed, fields not
# stored, the row's own columns that no value field holds)
SHAPES: list[tuple[type[BaseModel], type[SQLModel], dict[str, str], set[str], set[str]]] = [
    (
        PriceQuote,
        PricePoint,
        {},
        {"observed_at"},  # a run has one moment: the row's valid_from
        {"id", "key", "value_hash", "source", "valid_from", "valid_to", "first_run_id", "missed_runs", "input_hash"},
    ),
    (Change, ChangeRow, {}, set(), {"id", "run_id"}),
    (
        Offer,
        OfferPoint,
        {"valid_from": "offer_valid_from", "valid_until": "offer_valid_until"},
        {"observed_at"},
        {"id", "value_hash", "source", "valid_from", "valid_to", "first_run_id", "missed_runs"},
    ),
]
IDS = [str(table.__tablename__) for _, table, *_ in SHAPES]


def stored_type(annotation: Any) -> tuple[type, bool]:
    """How a value field is stored: (the column's Python type, nullable).
    Decimals and enums as text (SQLite has no exact decimal), dicts and
    lists as JSON text."""
    nullable = False
    if get_origin(annotation) in (Union, types.UnionType) and type(None) in get_args(annotation):
        nullable = True
        (annotation,) = [a for a in get_args(annotation) if a is not type(None)]
    if annotation is Decimal or get_origin(annotation) in (dict, list):
        return str, nullable
    if isinstance(annotation, type) and issubclass(annotation, StrEnum):
        return str, nullable
    return annotation, nullable


def column_type(column: sa.Column[Any]) -> tuple[type, bool]:
    kind = column.type
    impl = kind.impl_instance if isinstance(kind, sa.types.TypeDecorator) else kind
    return impl.python_type, bool(column.nullable)


@pytest.mark.parametrize(("value_type", "table", "renamed", "unstored", "own"), SHAPES, ids=IDS)
def test_every_value_field_has_its_column(
    value_type: type[SQLModel], table: type[SQLModel], renamed: dict[str, str], unstored: set[str], own: set[str]
) -> None:
    columns = table.__table__.c  # type: ignore[attr-defined]
    expected = {
        renamed.get(name, name): stored_type(field.annotation)
        for name, field in value_type.model_fields.items()
        if name not in unstored
    }
    found = {name: column_type(columns[name]) for name in expected if name in columns}
    assert {name: expected[name] for name in found} == found
    assert sorted(set(expected) - set(found)) == [], "value fields with no column"
    assert sorted(set(columns.keys()) - set(expected) - own) == [], "columns no value field holds"
    assert sorted(own - set(columns.keys())) == [], "row columns the table lost"


def test_the_stored_type_of_a_field() -> None:
    assert stored_type(Decimal | None) == (str, True)
    assert stored_type(dict[str, str]) == (str, False)
    assert stored_type(datetime) == (datetime, False)
    assert column_type(PricePoint.__table__.c.valid_to) == (datetime, True)


def test_the_migrations_build_the_tables(engine: sa.Engine) -> None:
    """The columns the migrations made, by name and nullability, on each back end."""
    inspector = sa.inspect(engine)
    for _, table, *_ in SHAPES:
        declared = table.__table__  # type: ignore[attr-defined]
        migrated = {c["name"]: bool(c["nullable"]) for c in inspector.get_columns(declared.name)}
        assert migrated == {c.name: bool(c.nullable) for c in declared.c}, declared.name


def test_the_foreign_keys_the_migrations_leave(engine: sa.Engine) -> None:
    """A price row's first run is a foreign key only on SQLite (migration
    0007: on PostgreSQL its check cost each insert more than the indexes);
    the ORM declares it on neither, so a new store matches PostgreSQL's."""
    from db.tables import PricePoint

    keys = {tuple(fk["constrained_columns"]) for fk in sa.inspect(engine).get_foreign_keys("price_points")}
    assert keys == ({("first_run_id",)} if engine.dialect.name == "sqlite" else set())
    assert not PricePoint.__table__.c.first_run_id.foreign_keys
