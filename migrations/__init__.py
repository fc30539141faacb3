"""The schema migrations of each engine (``sqlite/``, ``postgres/``), numbered SQL files.

They live at the top of the repository and ship inside the wheel as the package
``prioris.migrations`` (setup.py maps it); this file makes the folder that package, so
``importlib.resources`` finds it the same way from a checkout and from an installed wheel
(:func:`prioris.resources.resource_path`). Nothing else belongs here.
"""
