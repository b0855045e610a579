"""The puzzle sets the project ships and the catalog (see ``sudokulab.catalog``)."""
