"""The ragcode version, in a module of its own: stages that record it (manifests, reports)
import it from here, not from the ``ragcode`` facade (which lazily imports the API above them).
The one place the version is written: pyproject.toml reads it (``[tool.setuptools.dynamic]``)."""

__version__ = "0.2.0"
