"""Nightly import pipeline for the Harwick depot."""

import csv
import logging
from dataclasses import dataclass

log = logging.getLogger(__name__)

MAX_ROWS = 100_000


@dataclass
class Row:
    """One line of the depot export."""

    pallet: str
    weight_kg: float
    destination: str


class Importer:
    """Reads depot exports and loads them into the warehouse database."""

    def __init__(self, db, strict=True):
        self.db = db
        self.strict = strict
        self.skipped = 0

    # Parsing is kept separate from loading so that it can be tested
    # without a database.
    @staticmethod
    def parse(path):
        rows = []
        with open(path, newline="") as f:
            for i, rec in enumerate(csv.DictReader(f)):
                if i >= MAX_ROWS:
                    raise ValueError(f"{path}: more than {MAX_ROWS} rows")
                rows.append(Row(rec["pallet"], float(rec["weight_kg"]), rec["destination"]))
        return rows

    def load(self, rows):
        for row in rows:
            if row.weight_kg <= 0:
                if self.strict:
                    raise ValueError(f"pallet {row.pallet}: weight must be positive")
                self.skipped += 1
                continue
            self.db.insert("pallets", pallet=row.pallet, weight=row.weight_kg, dest=row.destination)
        log.info("loaded %d rows, skipped %d", len(rows) - self.skipped, self.skipped)


def main(argv):
    importer = Importer(db=None, strict=False)
    for path in argv[1:]:
        importer.load(Importer.parse(path))
    return 0


if __name__ == "__main__":
    import sys

    sys.exit(main(sys.argv))
