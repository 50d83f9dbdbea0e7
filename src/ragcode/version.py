"""The ragcode version, in a module of its own: stages that record it (manifests, reports)
import it from here, not from the ``ragcode`` facade (which lazily imports the API above them)."""

__version__ = "0.1.0"
