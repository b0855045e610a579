"""The OpenAPI description of the JSON API of ``sudokulab serve`` (served at
``/api/openapi.json``), kept beside the routes; ``tests/test_serve_hardening.py`` checks
that it names exactly the application's API routes and runs schemathesis against it.

The choices (levels, orders, backends, grades, sizes) and the bounds are read from the
same places as the work reads them, so the description cannot fall behind the engine.
"""

from __future__ import annotations

from typing import Any

from ..backends.registry import backend_names
from ..logic.ladder import GRADES
from ..models import SIZES
from ..native import ORDERS, PROPAGATIONS
from .bounds import Bounds

ERROR = {"$ref": "#/components/schemas/Error"}

#: What each refusal means, by status.
REFUSALS = {
    "400": "A bad value: the body or the puzzle cannot be read (the command line's words, and "
    "the column), or a value is of the wrong type or not one of the choices (the field named).",
    "403": "A POST from a page of another origin.",
    "404": "No such set, or no such puzzle in it.",
    "408": "The request did not arrive in time, or nothing was made within the timeout.",
    "413": "Over a bound: the body, the puzzle text, the grid, the steps, the backends.",
    "415": "The body is not sent as application/json.",
    "421": "The Host header is not this server's address.",
    "503": "The server is busy, or stopping.",
}


def _refusals(*statuses: str) -> dict[str, Any]:
    return {
        status: {
            "description": REFUSALS[status],
            "content": {"application/json": {"schema": ERROR}},
        }
        for status in statuses
    }


def _answer(description: str, schema: dict[str, Any]) -> dict[str, Any]:
    return {"description": description, "content": {"application/json": {"schema": schema}}}


def _body(schema: dict[str, Any]) -> dict[str, Any]:
    return {"required": True, "content": {"application/json": {"schema": schema}}}


def _object(required: list[str], **properties: Any) -> dict[str, Any]:
    return {"type": "object", "required": required, "properties": properties}


STRING: dict[str, Any] = {"type": "string"}
INTEGER: dict[str, Any] = {"type": "integer"}
NUMBER: dict[str, Any] = {"type": "number"}
BOOLEAN: dict[str, Any] = {"type": "boolean"}
OBJECT: dict[str, Any] = {"type": "object"}


def _strings() -> dict[str, Any]:
    return {"type": "array", "items": STRING}


def openapi(bounds: Bounds) -> dict[str, Any]:
    """The OpenAPI 3.0 description of the API with these bounds."""
    from .work import GENERATE_VARIANTS, SOLVERS, VARIANTS

    sizes = [s for s in SIZES if s <= bounds.max_size]
    puzzle = {
        "puzzle": {
            "type": "string",
            "maxLength": bounds.max_text,
            "description": "A puzzle as the command line reads it: a line, or a document.",
        },
        "size": {"type": "integer", "enum": list(SIZES), "nullable": True},
        "variant": {"type": "string", "enum": list(VARIANTS)},
    }
    solve_request = _object(
        ["puzzle"],
        **puzzle,
        solver={"type": "string", "enum": list(SOLVERS)},
        propagation={"type": "string", "enum": list(PROPAGATIONS)},
        order={"type": "string", "enum": list(ORDERS)},
        maxSteps={"type": "integer", "minimum": 1, "maximum": bounds.max_steps},
        certify={
            "type": "boolean",
            "description": "Also prove the puzzle's verdict: the answer's certificate.",
        },
    )
    check_request = _object(
        ["puzzle", "backends"],
        **puzzle,
        backends={
            "type": "array",
            "items": {"type": "string", "enum": backend_names()},
            "minItems": 1,
            "maxItems": bounds.max_backends,
        },
    )
    generate_request = _object(
        [],
        grade={"type": "string", "enum": list(GRADES)},
        variant={"type": "string", "enum": list(GENERATE_VARIANTS)},
        size={"type": "integer", "enum": sizes},
        seed=INTEGER,
    )
    options = _object(
        ["solvers", "propagations", "orders", "defaults", "grades", "sizes", "backends", "sets"],
        solvers=_strings(),
        propagations=_strings(),
        orders=_strings(),
        defaults=OBJECT,
        ladder={"type": "array"},
        grades=_strings(),
        variants=_strings(),
        generateVariants=_strings(),
        sizes={"type": "array", "items": INTEGER},
        backends={
            "type": "array",
            "items": _object(["name", "available"], name=STRING, available=BOOLEAN),
        },
        sets={"type": "array", "items": {"type": "array"}},
        bounds=OBJECT,
    )
    nullable_string = {"type": "string", "nullable": True}
    certificate = _object(
        ["status", "claim", "accepted", "cnf", "proof", "note"],
        status=STRING,
        count=INTEGER,
        exact=BOOLEAN,
        claim={
            **nullable_string,
            "description": "no solution, exactly k solutions; null: the verdict claims none",
        },
        prover=nullable_string,
        encoding=nullable_string,
        accepted={"type": "boolean", "nullable": True},
        lemmas=INTEGER,
        lines=INTEGER,
        bytes=INTEGER,
        checkTime=NUMBER,
        reason=STRING,
        refuted={**nullable_string, "description": "A grid the claim left out."},
        cnf={
            **nullable_string,
            "description": f"DIMACS; null over {bounds.max_certificate} bytes with the proof",
        },
        proof={**nullable_string, "description": "DRAT text; null with the CNF."},
        note=STRING,
    )
    solved = _object(
        ["puzzle", "size", "settings", "viewer", "tree", "counters", "rating"],
        puzzle=STRING,
        size=INTEGER,
        settings=OBJECT,
        variantCells={"type": "array", "items": INTEGER},
        viewer=OBJECT,
        tree={"type": "object", "nullable": True},
        counters=OBJECT,
        rating=OBJECT,
        seconds=NUMBER,
        certificate=certificate,
    )
    row = _object(
        ["backend", "status", "solution"],
        backend=STRING,
        status=STRING,
        count={"type": "integer", "nullable": True},
        solution=STRING,
        build=NUMBER,
        solve=NUMBER,
        message={"type": "string", "nullable": True},
        agrees={"type": "boolean", "nullable": True},
    )
    checked = _object(
        ["puzzle", "rows", "agree"],
        puzzle=STRING,
        rows={"type": "array", "items": row},
        agree=BOOLEAN,
    )
    made = _object(
        ["puzzle", "document", "size", "variant", "grade", "seed"],
        puzzle=STRING,
        document=BOOLEAN,
        size=INTEGER,
        variant=STRING,
        grade={"type": "string", "nullable": True},
        seed=INTEGER,
    )
    picked = _object(
        ["puzzle", "set", "number", "document"],
        puzzle=STRING,
        set=STRING,
        number=INTEGER,
        document=BOOLEAN,
    )
    posted = ("400", "403", "408", "413", "415", "421", "503")
    return {
        "openapi": "3.0.3",
        "info": {
            "title": "sudokulab serve",
            "version": "1",
            "description": "The live classroom page's JSON API: a local development server "
            "(it answers its own address only, and takes JSON only).",
        },
        "paths": {
            "/api/options": {
                "get": {
                    "summary": "What the control panel offers: levels, orders, backends, sets.",
                    "operationId": "options",
                    "responses": {
                        "200": _answer("The choices and the bounds.", options),
                        **_refusals("421", "503"),
                    },
                }
            },
            "/api/sets/{name}/{n}": {
                "get": {
                    "summary": "The n-th puzzle (from 1) of a set the page offers.",
                    "operationId": "set_puzzle",
                    "parameters": [
                        {"name": "name", "in": "path", "required": True, "schema": STRING},
                        {
                            "name": "n",
                            "in": "path",
                            "required": True,
                            "schema": {"type": "integer", "minimum": 0},
                        },
                    ],
                    "responses": {
                        "200": _answer("The puzzle: its line, or its document.", picked),
                        **_refusals("400", "404", "421", "503"),
                    },
                }
            },
            "/api/solve": {
                "post": {
                    "summary": "A traced search or a logic run, as the viewer's data.",
                    "operationId": "solve",
                    "requestBody": _body(solve_request),
                    "responses": {
                        "200": _answer(
                            "The steps, the search tree, counters, rating; with certify, "
                            "the certificate of the verdict.",
                            solved,
                        ),
                        **_refusals(*posted),
                    },
                }
            },
            "/api/check": {
                "post": {
                    "summary": "The puzzle on each chosen backend, and whether they agree.",
                    "operationId": "check",
                    "requestBody": _body(check_request),
                    "responses": {
                        "200": _answer("A row per backend.", checked),
                        **_refusals(*posted),
                    },
                }
            },
            "/api/generate": {
                "post": {
                    "summary": "A new puzzle of a grade, size and variant.",
                    "operationId": "generate",
                    "requestBody": _body(generate_request),
                    "responses": {
                        "200": _answer("The puzzle made.", made),
                        **_refusals(*posted),
                    },
                }
            },
        },
        "components": {
            "schemas": {
                "Error": _object(
                    ["error"],
                    error={"type": "string", "description": "One line saying what and where."},
                    column={"type": "integer", "description": "The puzzle text's column."},
                )
            }
        },
    }
