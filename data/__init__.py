"""The puzzle sets the project ships and the catalog of public sets (``sudokulab.sets``)."""
