"""The classroom: a solve told step by step, and the CSP on the board.

Modules, lowest first: ``trace`` (the reference engine's events, counted as the engine
counts), ``narrative`` (the story in the rule's words), ``page`` and ``page_assets`` (the
step-through HTML page), ``model_view`` (the CSP as a teacher writes it, and as each
backend holds it), ``notebook`` (the HTML views Jupyter shows).
"""
