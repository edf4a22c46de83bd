"""Print the OpenAPI document of a default app (the ``assistant`` agent) with API keys
(``RUNYARD_AUTH=keys``, the mode for serving other people's apps), for docs/openapi.json:

python -m runyard.http.openapi_export > docs/openapi.json
"""

from __future__ import annotations

import json
import sys
from typing import Any

from runyard.config import Settings
from runyard.http.app import create_app

__all__ = ["default_document", "main"]


def default_document(**settings: Any) -> dict[str, Any]:
    """The document ``runyard serve`` serves with no catalog and ``RUNYARD_AUTH=keys``, whatever
    the environment says; ``settings`` override (``auth="proxy"``: the proxy mode's)."""
    chosen = {"auth": "keys", "admin_token": "", **settings}
    return create_app(Settings(_env_file=None, **chosen)).openapi()


def main() -> None:
    """Write the document to standard output."""
    sys.stdout.write(json.dumps(default_document(), indent=2, ensure_ascii=False) + "\n")


if __name__ == "__main__":
    main()
