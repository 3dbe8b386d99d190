"""Test against the Passportal Documents API fake from Python: an admin client, a launcher and a
pytest plugin (fixtures ``passportal_fake`` and ``passportal_session``)."""

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
__version__ = "0.1.0"
