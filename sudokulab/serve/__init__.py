"""``sudokulab serve``: the live classroom page, a local web application.

:mod:`.work` answers each request from the API and the classroom's own data (no web
framework there, so it is tested and reused without a server); :mod:`.app` is the
Starlette application around it: routes, bounds, a pool of threads for the work. The page
(``static/``) and the step-through viewer's assets are served by the package: it works
with no network.
"""
