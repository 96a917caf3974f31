"""The ``TypedDict`` and ``Literal`` types of the dicts toolcap returns (see
:mod:`toolcap._types`)."""

from ._types import *  # noqa: F401,F403
from ._types import __all__ as __all__  # noqa: F401
