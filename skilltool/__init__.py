"""skilltool: link Agent Skills and render agents for every coding-agent harness."""

__version__ = "0.1.0"
