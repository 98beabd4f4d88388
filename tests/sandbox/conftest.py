from tests.support.sandbox import sandbox, sandbox_factory  # noqa: F401  (fixtures)
