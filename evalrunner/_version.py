"""evalrun's version, in a module of its own.

The modules that write it into their output (the results JSON, a page's generator line, a
lint report) import it from here: importing it from the root package, which imports those
modules on first use (`evalrunner.__getattr__`), was an import cycle.
"""

__version__ = "0.1.0"
