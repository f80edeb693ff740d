"""The shipped training configs (the YAML files beside this one), installed as the package
`snack_envs.training.configs` (pyproject.toml's package-dir) and read as package data with
importlib.resources by `snack_envs.training.config`. Nothing to import here."""
