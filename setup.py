"""Package list for setuptools.

The top-level ``resources/`` folder (device catalog, examples, icons) is shipped inside the wheel
as the package ``rackdesigner.resources``; everything else is found automatically.
"""

from setuptools import find_packages, setup

setup(
    packages=[*find_packages(include=["rackdesigner", "rackdesigner.*"]), "rackdesigner.resources"],
    package_dir={"rackdesigner.resources": "resources"},
)
