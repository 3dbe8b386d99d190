"""Test against the Passportal Documents API fake from Python: an admin client, a launcher and a
pytest plugin (fixtures ``passportal_fake`` and ``passportal_session``)."""

import importlib.metadata as _metadata

from .admin import AdminClient, Session
from .auth import get_token, sign
from .errors import AdminError, ApiError, ContractViolationError, StartError
from .launcher import PassportalFake

__all__ = [
    "AdminClient",
    "AdminError",
    "ApiError",
    "ContractViolationError",
    "PassportalFake",
    "Session",
    "StartError",
    "get_token",
    "sign",
]
try:
    __version__ = _metadata.version("passportal-docs-fake")
except _metadata.PackageNotFoundError:  # run from a source tree
    __version__ = "0+unknown"
