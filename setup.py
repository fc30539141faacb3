"""Build configuration that pyproject.toml cannot express: two top-level folders shipped
as subpackages. ``migrations/`` becomes ``prioris.migrations`` and ``data/`` becomes
``prioris.data`` in the wheel and in an editable install, so the code finds them the same
way in both (``prioris.resources``). Everything else is in pyproject.toml.
"""

from setuptools import find_packages, setup

# the data folders inside them are listed too, so setuptools ships their files as package
# data without warning that it sees importable folders it was not told about
DATA_PACKAGES = [
    "prioris.interfaces.web.templates",
    "prioris.interfaces.web.static",
    "prioris.migrations",
    "prioris.migrations.sqlite",
    "prioris.migrations.postgres",
    "prioris.data",
    "prioris.data.models",
]

setup(
    packages=[*find_packages("src"), *DATA_PACKAGES],
    package_dir={"": "src", "prioris.migrations": "migrations", "prioris.data": "data"},
)
