"""A query result: column names and rows, the unit every command prints."""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any


@dataclass
class Table:
    columns: list[str]
    rows: list[tuple]

    @classmethod
    def from_result(cls, result) -> "Table":
        columns = [d[0] for d in result.description] if result.description else []
        return cls(columns, result.fetchall())

    def to_dicts(self) -> list[dict[str, Any]]:
        return [dict(zip(self.columns, row)) for row in self.rows]

    def column(self, name: str) -> list[Any]:
        index = self.columns.index(name)
        return [row[index] for row in self.rows]

    def __len__(self) -> int:
        return len(self.rows)
