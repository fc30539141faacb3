"""Files shipped with Prioris: the vendored tokenizer of the default model (``models/``,
with its LICENSE and NOTICE).

The folder lives at the top of the repository and ships inside the wheel as the package
``prioris.data`` (setup.py maps it); this file makes the folder that package, so
``importlib.resources`` finds it the same way from a checkout and from an installed wheel
(:func:`prioris.resources.resource_path`). Nothing else belongs here.
"""
