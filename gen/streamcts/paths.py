"""Where the generator's files are (ROOT, GEN_DIR, TEMPLATE_DIR), and display_dir(path):
how messages and outputs name a directory.
"""
import os

GEN_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
ROOT = os.path.dirname(GEN_DIR)
TEMPLATE_DIR = os.path.join(GEN_DIR, "templates")


def display_dir(path):
    """How outputs name a directory: relative to the repository root, or by its base name when outside it."""
    rel = os.path.relpath(os.path.abspath(path), ROOT)
    if rel == os.pardir or rel.startswith(os.pardir + os.sep):
        return os.path.basename(os.path.abspath(path))
    return rel.replace(os.sep, "/")
