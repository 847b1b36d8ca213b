"""Package list for setuptools.

The top-level ``resources/`` folder (device catalog, examples, icons) is shipped inside the wheel
as the package ``rackdesigner.resources`` (its sub-folders as namespace packages, so setuptools
knows the data files belong to the distribution); everything else is found automatically.
"""

from setuptools import find_namespace_packages, find_packages, setup

resource_packages = [f"rackdesigner.resources.{name}"
                     for name in find_namespace_packages(where="resources")]

setup(
    packages=[
        *find_packages(include=["rackdesigner", "rackdesigner.*"]),
        "rackdesigner.resources",
        *resource_packages,
    ],
    package_dir={"rackdesigner.resources": "resources"},
)
