"""The Click layer: parse options, call ``kadmin``, render. Installed as ``kadmin.commands``."""
