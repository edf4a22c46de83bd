"""API keys: issuing them (only a hash is stored) and verifying a presented key on each request.

A key is ``ryk_`` + a public 12-character key id + 32 random bytes, base62 (``key_format``).
``issue_api_key`` stores a new one and returns it once; ``verify_api_key`` says whom a key acts
for, reading its row on every call, so revocation and expiry hold on the next request on every
replica. ``issue_stream_ticket`` signs a minute-long ticket for one thread's event stream, which
``verify_stream_ticket`` checks against the key's row, and ``issue_file_ticket`` /
``verify_file_ticket`` the same for downloading one stored file (``tickets``).
``parse_duration`` reads lifetimes such as ``30d``. Listing and revoking are the
store's own ``list_api_keys`` and ``revoke_api_key`` (``runyard.storage.ApiKeys``).
"""

from runyard.service.api_keys.durations import MAX_DURATION, InvalidDuration, parse_duration
from runyard.service.api_keys.errors import InvalidKeyRequest
from runyard.service.api_keys.identity import KeyIdentity
from runyard.service.api_keys.issuing import MAX_NAME_LENGTH, IssuedApiKey, issue_api_key
from runyard.service.api_keys.key_format import (
    API_KEY_LENGTH,
    API_KEY_PREFIX,
    hash_api_key,
    key_id_of,
    new_api_key,
)
from runyard.service.api_keys.tickets import (
    TICKET_PREFIX,
    TICKET_SECONDS,
    Ticket,
    issue_file_ticket,
    issue_stream_ticket,
    verify_file_ticket,
    verify_stream_ticket,
)
from runyard.service.api_keys.verification import LAST_USED_RESOLUTION_MS, verify_api_key

__all__ = [
    "API_KEY_LENGTH",
    "API_KEY_PREFIX",
    "LAST_USED_RESOLUTION_MS",
    "MAX_DURATION",
    "MAX_NAME_LENGTH",
    "TICKET_PREFIX",
    "TICKET_SECONDS",
    "InvalidDuration",
    "InvalidKeyRequest",
    "IssuedApiKey",
    "Ticket",
    "KeyIdentity",
    "hash_api_key",
    "issue_api_key",
    "issue_file_ticket",
    "issue_stream_ticket",
    "key_id_of",
    "new_api_key",
    "parse_duration",
    "verify_api_key",
    "verify_file_ticket",
    "verify_stream_ticket",
]
